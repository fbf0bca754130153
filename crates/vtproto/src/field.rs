//! One call per field for the most common field shapes: its size, its backward write and its
//! read. Generated code calls these instead of spelling out the presence check, the key, the
//! length prefix and the loop for every field, which keeps what it emits (and the compiler's
//! work on it) small. Each is `#[inline(always)]`: after inlining the machine code is what the
//! spelled-out form gives.
//!
//! Keys are passed as their value, `(number << 3) | wire type` (`0x0a` for field 1 of wire
//! type 2), a literal at every call site; `key_len` is the length of their varint.

#[allow(unused_imports)]
use crate::prelude::*;

use alloc::collections::BTreeMap;

use crate::error::DecodeError;
use crate::reader::Reader;
use crate::wire;
use crate::writer::ReverseWriter;
use crate::Message;

/// Size of a `string` or `bytes` field with implicit presence: nothing when empty.
#[inline(always)]
pub fn len_size(key_len: usize, len: usize) -> usize {
    if len == 0 {
        0
    } else {
        key_len + wire::len_delimited(len)
    }
}

/// Size of an optional message field: nothing when unset.
#[inline(always)]
pub fn message_size<M: Message>(key_len: usize, v: &Option<M>) -> usize {
    match v {
        Some(v) => key_len + wire::len_delimited(v.size()),
        None => 0,
    }
}

/// Size of a repeated message field.
#[inline(always)]
pub fn messages_size<M: Message>(key_len: usize, v: &[M]) -> usize {
    let mut n = key_len * v.len();
    for m in v {
        n += wire::len_delimited(m.size());
    }
    n
}

/// Size of a repeated `string` or `bytes` field.
#[inline(always)]
pub fn strings_size<T: AsRef<[u8]>>(key_len: usize, v: &[T]) -> usize {
    let mut n = key_len * v.len();
    for s in v {
        n += wire::len_delimited(s.as_ref().len());
    }
    n
}

impl ReverseWriter<'_> {
    /// Writes a key, `(number << 3) | wire type`, as a varint. Called with a literal, it
    /// folds into one or two byte stores for field numbers below 2048.
    #[inline(always)]
    pub fn put_key(&mut self, key: u32) {
        if key < 0x80 {
            self.put_u8(key as u8);
        } else if key < 0x4000 {
            self.put_slice(&[key as u8 | 0x80, (key >> 7) as u8]);
        } else {
            self.put_varint(u64::from(key));
        }
    }

    /// Writes a `string` or `bytes` field with implicit presence: nothing when empty.
    #[inline(always)]
    pub fn put_bytes_field<T: AsRef<[u8]> + ?Sized>(&mut self, key: u32, v: &T) {
        let v = v.as_ref();
        if !v.is_empty() {
            self.put_bytes(v);
            self.put_key(key);
        }
    }

    /// Writes one message value with its key and length.
    #[inline(always)]
    pub fn put_message<M: Message>(&mut self, key: u32, v: &M) {
        let mark = self.written();
        v.encode_reverse(self);
        self.put_len(mark);
        self.put_key(key);
    }

    /// Writes an optional message field: nothing when unset.
    #[inline(always)]
    pub fn put_message_field<M: Message>(&mut self, key: u32, v: &Option<M>) {
        if let Some(v) = v {
            self.put_message(key, v);
        }
    }

    /// Writes a repeated message field (its values last to first).
    #[inline(always)]
    pub fn put_message_fields<M: Message>(&mut self, key: u32, v: &[M]) {
        for m in v.iter().rev() {
            self.put_message(key, m);
        }
    }

    /// Writes a repeated `string` or `bytes` field (its values last to first).
    #[inline(always)]
    pub fn put_bytes_fields<T: AsRef<[u8]>>(&mut self, key: u32, v: &[T]) {
        for s in v.iter().rev() {
            self.put_bytes(s.as_ref());
            self.put_key(key);
        }
    }
}

/// One non-generic call per scalar field read: `set_<x>` for a singular field, `push_<x>` for
/// one value of a repeated field. A plain method costs the compiler less per call site than a
/// generic one taking the read method as an argument, and generated code has one per field.
macro_rules! scalar_reads {
    ($($ty:ty: $read:ident, $set:ident, $push:ident;)*) => {
        impl Reader<'_> {
            $(
                #[doc = concat!("Reads a value with [`", stringify!($read), "`](Self::", stringify!($read), ") into `dst`.")]
                #[inline(always)]
                pub fn $set(&mut self, dst: &mut $ty) -> Result<(), DecodeError> {
                    *dst = self.$read()?;
                    Ok(())
                }

                #[doc = concat!("Reads a value with [`", stringify!($read), "`](Self::", stringify!($read), ") onto the end of `dst`.")]
                #[inline(always)]
                pub fn $push(&mut self, dst: &mut Vec<$ty>) -> Result<(), DecodeError> {
                    let v = self.$read()?;
                    self.charge(core::mem::size_of::<$ty>())?;
                    dst.push(v);
                    Ok(())
                }
            )*
        }
    };
}

scalar_reads! {
    i32: read_int32, set_int32, push_int32;
    i64: read_int64, set_int64, push_int64;
    u32: read_uint32, set_uint32, push_uint32;
    u64: read_uint64, set_uint64, push_uint64;
    i32: read_sint32, set_sint32, push_sint32;
    i64: read_sint64, set_sint64, push_sint64;
    bool: read_bool, set_bool, push_bool;
    u32: read_fixed32, set_fixed32, push_fixed32;
    u64: read_fixed64, set_fixed64, push_fixed64;
    i32: read_sfixed32, set_sfixed32, push_sfixed32;
    i64: read_sfixed64, set_sfixed64, push_sfixed64;
    f32: read_float, set_float, push_float;
    f64: read_double, set_double, push_double;
}

impl Reader<'_> {
    /// Merges a message value into an optional field, setting it first if unset.
    #[inline(always)]
    pub fn merge_message_field<M: Message>(
        &mut self,
        dst: &mut Option<M>,
    ) -> Result<(), DecodeError> {
        if dst.is_none() {
            self.charge(core::mem::size_of::<M>())?;
        }
        self.merge_message(dst.get_or_insert_with(Default::default))
    }

    /// Merges a message value into a oneof member: into the member's value when the oneof
    /// holds that member (`get` returns it), else into a new value that `wrap` makes the
    /// oneof's member, replacing any other.
    #[inline(always)]
    pub fn merge_oneof_message<O, M: Message>(
        &mut self,
        oneof: &mut Option<O>,
        get: impl FnOnce(&mut Option<O>) -> Option<&mut M>,
        wrap: impl FnOnce(M) -> O,
    ) -> Result<(), DecodeError> {
        if let Some(v) = get(oneof) {
            return self.merge_message(v);
        }
        self.charge(core::mem::size_of::<M>())?;
        let mut v = M::default();
        self.merge_message(&mut v)?;
        *oneof = Some(wrap(v));
        Ok(())
    }

    /// Reads a message value onto the end of a repeated field.
    #[inline(always)]
    pub fn push_message<M: Message>(&mut self, dst: &mut Vec<M>) -> Result<(), DecodeError> {
        dst.push(self.read_message()?);
        Ok(())
    }

    /// Reads a `string` value onto the end of a repeated field.
    #[inline(always)]
    pub fn push_string(&mut self, dst: &mut Vec<String>) -> Result<(), DecodeError> {
        self.charge(core::mem::size_of::<String>())?;
        dst.push(self.read_string()?);
        Ok(())
    }

    /// Charges one more element of `dst` to the memory budget, before it is pushed.
    #[inline(always)]
    pub fn charge_element<T>(&mut self, dst: &Vec<T>) -> Result<(), DecodeError> {
        let _ = dst;
        self.charge(core::mem::size_of::<T>())
    }
}

/// Size and backward write of integer and `bool` fields with implicit presence, which are
/// skipped when zero (`false`).
macro_rules! implicit_scalars {
    ($($(#[$doc:meta])* $ty:ty: $put:ident, $put_field:ident, $size:ident = $wire_size:expr;)*) => {
        $(
            $(#[$doc])*
            #[inline(always)]
            pub fn $size(key_len: usize, v: $ty) -> usize {
                if v == <$ty>::default() {
                    0
                } else {
                    key_len + $wire_size(v)
                }
            }
        )*
        impl ReverseWriter<'_> {
            $(
                $(#[$doc])*
                #[inline(always)]
                pub fn $put_field(&mut self, key: u32, v: $ty) {
                    if v != <$ty>::default() {
                        self.$put(v);
                        self.put_key(key);
                    }
                }
            )*
        }
    };
}

implicit_scalars! {
    /// An `int32` or open enum field with implicit presence: nothing when zero.
    i32: put_int32, put_int32_field, int32_size = wire::int32;
    /// An `int64` field with implicit presence: nothing when zero.
    i64: put_int64, put_int64_field, int64_size = wire::int64;
    /// A `uint32` field with implicit presence: nothing when zero.
    u32: put_uint32, put_uint32_field, uint32_size = wire::uint32;
    /// A `uint64` field with implicit presence: nothing when zero.
    u64: put_uint64, put_uint64_field, uint64_size = wire::uint64;
    /// A `sint32` field with implicit presence: nothing when zero.
    i32: put_sint32, put_sint32_field, sint32_size = wire::sint32;
    /// A `sint64` field with implicit presence: nothing when zero.
    i64: put_sint64, put_sint64_field, sint64_size = wire::sint64;
    /// A `bool` field with implicit presence: nothing when `false`.
    bool: put_bool, put_bool_field, bool_size = |_| 1;
    /// A `fixed32` field with implicit presence: nothing when zero.
    u32: put_fixed32, put_fixed32_field, fixed32_size = |_| 4;
    /// A `fixed64` field with implicit presence: nothing when zero.
    u64: put_fixed64, put_fixed64_field, fixed64_size = |_| 8;
    /// An `sfixed32` field with implicit presence: nothing when zero.
    i32: put_sfixed32, put_sfixed32_field, sfixed32_size = |_| 4;
    /// An `sfixed64` field with implicit presence: nothing when zero.
    i64: put_sfixed64, put_sfixed64_field, sfixed64_size = |_| 8;
}

/// Size of a map field whose keys and values are `string` or `bytes`. With `full`, every
/// entry holds its key and value, as C++ and upb write them (`mode=standalone`); without, an
/// empty key or value is left out, as prost does.
#[inline(always)]
pub fn bytes_map_size<'a, K, V>(
    key_len: usize,
    full: bool,
    map: impl IntoIterator<Item = (&'a K, &'a V)>,
) -> usize
where
    K: AsRef<[u8]> + 'a + ?Sized,
    V: AsRef<[u8]> + 'a + ?Sized,
{
    let part = |b: &[u8]| {
        if b.is_empty() && !full {
            0
        } else {
            1 + wire::len_delimited(b.len())
        }
    };
    let mut n = 0;
    for (k, v) in map {
        n += key_len + wire::len_delimited(part(k.as_ref()) + part(v.as_ref()));
    }
    n
}

impl ReverseWriter<'_> {
    /// Writes a `HashMap` field whose keys and values are `string` or `bytes`: in the map's
    /// order, or sorted by key when the writer is deterministic. `full` as in
    /// [`bytes_map_size`].
    #[cfg(feature = "std")]
    #[inline(always)]
    pub fn put_bytes_hash_map<K, V, S>(
        &mut self,
        key: u32,
        full: bool,
        map: &std::collections::HashMap<K, V, S>,
    ) where
        K: AsRef<[u8]> + Ord,
        V: AsRef<[u8]>,
    {
        if self.is_deterministic() {
            self.put_sorted_bytes_hash_map(key, full, map);
            return;
        }
        // The loop is written here, not in a closure handed to a shared walker: inlined at
        // the call site, the key and `full` stay constants in the loop's body (behind a
        // closure called from two loops they did not, and encode slowed by a quarter).
        for (k, v) in map {
            self.put_bytes_map_entry_of(key, full, k.as_ref(), v.as_ref());
        }
    }

    /// [`put_bytes_hash_map`](Self::put_bytes_hash_map) for a deterministic writer: entries
    /// sorted by key.
    #[cfg(feature = "std")]
    #[inline(never)]
    fn put_sorted_bytes_hash_map<K, V, S>(
        &mut self,
        key: u32,
        full: bool,
        map: &std::collections::HashMap<K, V, S>,
    ) where
        K: AsRef<[u8]> + Ord,
        V: AsRef<[u8]>,
    {
        crate::__private::for_each_entry(map, self, |w, k, v| {
            w.put_bytes_map_entry_of(key, full, k.as_ref(), v.as_ref());
        });
    }

    /// One entry of a `string`/`bytes` map; `full` as in [`bytes_map_size`].
    #[inline(always)]
    fn put_bytes_map_entry_of(&mut self, key: u32, full: bool, k: &[u8], v: &[u8]) {
        if full {
            self.put_full_bytes_map_entry(key, k, v);
        } else {
            self.put_bytes_map_entry(key, k, v);
        }
    }

    /// Writes a `BTreeMap` field whose keys and values are `string` or `bytes`, in key order.
    /// `full` as in [`bytes_map_size`].
    #[inline(always)]
    pub fn put_bytes_btree_map<K, V>(&mut self, key: u32, full: bool, map: &BTreeMap<K, V>)
    where
        K: AsRef<[u8]>,
        V: AsRef<[u8]>,
    {
        for (k, v) in map.iter().rev() {
            self.put_bytes_map_entry_of(key, full, k.as_ref(), v.as_ref());
        }
    }
}

impl Reader<'_> {
    /// Reads one entry of a `map<string, string>` field held in a `HashMap` into it (on the
    /// first entry of an empty map, reserving room for the entries ahead under the same
    /// `field_key`, up to `cap`). `full` reads the entry as the spec does (`mode=standalone`),
    /// otherwise as prost does.
    #[cfg(feature = "std")]
    #[inline(always)]
    pub fn merge_string_map_entry<S: core::hash::BuildHasher>(
        &mut self,
        map: &mut std::collections::HashMap<String, String, S>,
        field_key: u32,
        cap: usize,
        full: bool,
    ) -> Result<(), DecodeError> {
        if map.is_empty() {
            let entry = core::mem::size_of::<(String, String)>();
            map.reserve(self.count_ahead_within(field_key, cap, entry));
        }
        let mut k = String::new();
        let mut v = String::new();
        if full {
            self.merge_map_entry_as_spec(
                &mut k,
                &mut v,
                10,
                18,
                Self::merge_string,
                Self::merge_string,
            )?;
        } else {
            self.merge_map_entry(
                &mut k,
                &mut v,
                10,
                18,
                Self::merge_string,
                Self::merge_string,
            )?;
        }
        map.insert(k, v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::writer::ReverseWriter;

    #[test]
    fn put_key_writes_the_varint_of_the_key() {
        let field_numbers = [1u32, 15, 16, 2047, 2048, 262_143, 262_144, (1 << 29) - 1];
        for key in field_numbers
            .iter()
            .flat_map(|n| (0..6).map(move |w| n << 3 | w))
        {
            let (mut a, mut b) = ([0u8; 8], [0u8; 8]);
            let mut keyed = ReverseWriter::new(&mut a);
            keyed.put_key(key);
            let n = keyed.written();
            let mut varint = ReverseWriter::new(&mut b);
            varint.put_varint(u64::from(key));
            assert_eq!(n, varint.written(), "{key}");
            assert_eq!(&a[8 - n..], &b[8 - n..], "{key}");
        }
    }
}
