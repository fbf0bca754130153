//! Wire-format arithmetic shared by the writer, the reader and generated `size` code.
//!
//! Everything here is a pure function of its arguments; nothing reads or writes a buffer.

#[allow(unused_imports)]
use crate::prelude::*;

/// The wire type of a field, the low three bits of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum WireType {
    /// int32, int64, uint32, uint64, sint32, sint64, bool, enum.
    Varint = 0,
    /// fixed64, sfixed64, double.
    Fixed64 = 1,
    /// string, bytes, messages, packed repeated fields, map entries.
    LengthDelimited = 2,
    /// Start of a proto2 group.
    StartGroup = 3,
    /// End of a proto2 group.
    EndGroup = 4,
    /// fixed32, sfixed32, float.
    Fixed32 = 5,
}

impl WireType {
    /// The wire type of `key`, or `None` for the reserved values 6 and 7.
    #[inline]
    pub const fn of_key(key: u32) -> Option<WireType> {
        match key & 7 {
            0 => Some(WireType::Varint),
            1 => Some(WireType::Fixed64),
            2 => Some(WireType::LengthDelimited),
            3 => Some(WireType::StartGroup),
            4 => Some(WireType::EndGroup),
            5 => Some(WireType::Fixed32),
            _ => None,
        }
    }
}

/// Largest encoded message, and largest length prefix a decoder accepts: 2 GiB - 1, as in
/// the C++ and Java runtimes (a length is a signed 32-bit number there).
pub const MAX_MESSAGE_SIZE: usize = i32::MAX as usize;

/// Smallest field number.
pub const MIN_FIELD_NUMBER: u32 = 1;
/// Largest field number (2^29 - 1).
pub const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;

/// The key (tag) of a field: `field_number << 3 | wire_type`.
#[inline]
pub const fn key(field_number: u32, wire_type: WireType) -> u32 {
    (field_number << 3) | wire_type as u32
}

/// Number of bytes of `v` encoded as a varint (1 to 10).
#[inline]
pub const fn varint_len(v: u64) -> usize {
    // (bits needed * 9 + 64) / 64 maps 0..=7 bits to 1, 8..=14 to 2, ... 64 to 10.
    let bits = 64 - (v | 1).leading_zeros() as usize;
    (bits * 9 + 64) / 64
}

/// ZigZag encoding of a `sint32`.
#[inline]
pub const fn zigzag32(v: i32) -> u32 {
    ((v << 1) ^ (v >> 31)) as u32
}

/// ZigZag encoding of a `sint64`.
#[inline]
pub const fn zigzag64(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// Inverse of [`zigzag32`].
#[inline]
pub const fn unzigzag32(v: u32) -> i32 {
    ((v >> 1) as i32) ^ -((v & 1) as i32)
}

/// Inverse of [`zigzag64`].
#[inline]
pub const fn unzigzag64(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Encoded size of a length-delimited body of `len` bytes, without the key.
#[inline]
pub const fn len_delimited(len: usize) -> usize {
    varint_len(len as u64) + len
}

/// Encoded size of an `int32` (negative values take 10 bytes) or enum value.
#[inline]
pub const fn int32(v: i32) -> usize {
    varint_len(v as i64 as u64)
}
/// Encoded size of an `int64`.
#[inline]
pub const fn int64(v: i64) -> usize {
    varint_len(v as u64)
}
/// Encoded size of a `uint32`.
#[inline]
pub const fn uint32(v: u32) -> usize {
    varint_len(v as u64)
}
/// Encoded size of a `uint64`.
#[inline]
pub const fn uint64(v: u64) -> usize {
    varint_len(v)
}
/// Encoded size of a `sint32`.
#[inline]
pub const fn sint32(v: i32) -> usize {
    varint_len(zigzag32(v) as u64)
}
/// Encoded size of a `sint64`.
#[inline]
pub const fn sint64(v: i64) -> usize {
    varint_len(zigzag64(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_len_matches_definition() {
        let mut v: u64 = 1;
        assert_eq!(varint_len(0), 1);
        for bits in 1usize..=64 {
            let expected = bits.div_ceil(7);
            assert_eq!(varint_len(v), expected, "bits {bits}");
            assert_eq!(varint_len(v | (v - 1)), expected, "bits {bits} all ones");
            v = v.wrapping_shl(1);
        }
        assert_eq!(int32(-1), 10);
        assert_eq!(sint32(-1), 1);
    }

    #[test]
    fn zigzag_roundtrip() {
        for v in [0, 1, -1, 2, -2, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag32(zigzag32(v)), v);
        }
        for v in [0, 1, -1, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag64(zigzag64(v)), v);
        }
        assert_eq!(zigzag32(-1), 1);
        assert_eq!(zigzag32(1), 2);
        assert_eq!(zigzag64(i64::MIN), u64::MAX);
    }
}
