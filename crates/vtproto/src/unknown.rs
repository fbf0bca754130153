//! [`UnknownFields`]: the fields a message's schema does not declare, kept as their encoded
//! records so that re-encoding the message gives them back, in the order they came.

#[allow(unused_imports)]
use crate::prelude::*;

use core::fmt;

use crate::error::DecodeError;
use crate::reader::{Mark, Reader};
use crate::wire::{self, WireType};
use crate::writer::ReverseWriter;

/// The fields of a message that its schema does not declare (or, for a closed enum, a number
/// the enum does not declare), as encoded records in the order they were read, and the
/// message's declared extensions, decoded.
///
/// One pointer wide, and empty it holds no allocation: a message whose input had no unknown
/// fields pays 8 bytes of its struct, one null check to encode and nothing to decode (the
/// records live behind a box, so a message with many instances, such as the elements of a
/// repeated field, stays as small and as cache-friendly as prost's). Encoding writes the
/// declared extensions after the known fields, then the records, as upb does.
///
/// Extensions declared in the generated code of the message's schema are read on decode (a
/// corrupt one is an error, as in upb and protobuf-go) and kept decoded, in the order they
/// first arrived, so that re-encoding writes them in their declared form (a repeated scalar in
/// its declared packing, the last value of a singular one, one record of a message merged from
/// several); every other record is kept byte for byte.
#[derive(Clone, Default)]
pub struct UnknownFields {
    /// `None` until something is kept. Boxed on purpose: one pointer in every message instead
    /// of a `Vec`'s three words.
    inner: Option<Box<Inner>>,
}

#[derive(Clone, Default)]
struct Inner {
    /// The records, encoded, in order.
    bytes: Vec<u8>,
    /// Declared extensions, decoded, in the order they first arrived.
    extensions: Vec<ExtensionEntry>,
}

/// One declared extension's value.
pub(crate) struct ExtensionEntry {
    pub(crate) number: u32,
    pub(crate) value: Box<dyn ExtensionValue>,
}

impl Clone for ExtensionEntry {
    fn clone(&self) -> Self {
        ExtensionEntry {
            number: self.number,
            value: self.value.clone_box(),
        }
    }
}

/// A declared extension's value, whatever its type (`ext::Typed<T>`).
pub(crate) trait ExtensionValue: Send + Sync {
    fn encoded_len(&self, number: u32) -> usize;
    fn encode_reverse(&self, number: u32, w: &mut ReverseWriter<'_>);
    fn clone_box(&self) -> Box<dyn ExtensionValue>;
    fn as_any(&self) -> &dyn core::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn core::any::Any;
    fn eq_dyn(&self, other: &dyn ExtensionValue) -> bool;
    fn fmt_dyn(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl PartialEq for UnknownFields {
    fn eq(&self, other: &Self) -> bool {
        // An extension entry that writes nothing (a repeated closed enum's record of undeclared
        // numbers only keeps an empty list, holding its place) is not part of the value.
        // Extensions are told apart by number: the order they arrived in is not part of the
        // value either.
        fn written(u: &UnknownFields) -> Vec<&ExtensionEntry> {
            let mut entries: Vec<&ExtensionEntry> = u
                .extension_entries()
                .iter()
                .filter(|e| e.value.encoded_len(e.number) != 0)
                .collect();
            entries.sort_by_key(|e| e.number);
            entries
        }
        self.as_bytes() == other.as_bytes() && {
            let (a, b) = (written(self), written(other));
            a.len() == b.len()
                && a.iter()
                    .zip(&b)
                    .all(|(x, y)| x.number == y.number && x.value.eq_dyn(&*y.value))
        }
    }
}

impl core::hash::Hash for UnknownFields {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
        // In number order, as equality compares them.
        let mut entries: Vec<&ExtensionEntry> = self.extension_entries().iter().collect();
        entries.sort_by_key(|e| e.number);
        for e in entries {
            // Equal values encode alike (an entry that writes nothing hashes as nothing).
            let mut buf = Vec::new();
            let mut w = ReverseWriter::growable(&mut buf);
            e.value.encode_reverse(e.number, &mut w);
            w.written_bytes().hash(state);
        }
    }
}

/// One record of [`UnknownFields`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownField<'a> {
    /// The field number.
    pub number: u32,
    /// The wire type.
    pub wire_type: WireType,
    /// The value's encoded bytes: a varint, 4 or 8 bytes, a length prefix and its body, or a
    /// group's fields and end key.
    pub value: &'a [u8],
}

impl UnknownFields {
    /// No fields.
    pub const fn new() -> Self {
        UnknownFields { inner: None }
    }

    /// Whether there are no unknown fields and no extensions.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        match &self.inner {
            None => true,
            Some(i) => i.bytes.is_empty() && i.extensions.is_empty(),
        }
    }

    /// The encoded size of all records and extensions.
    #[inline(always)]
    pub fn encoded_len(&self) -> usize {
        match &self.inner {
            None => 0,
            Some(i) if i.extensions.is_empty() => i.bytes.len(),
            Some(i) => i.bytes.len() + extensions_len(&i.extensions),
        }
    }

    /// The records, encoded, in order (declared extensions, held decoded, not included).
    pub fn as_bytes(&self) -> &[u8] {
        self.inner.as_deref().map_or(&[], |i| i.bytes.as_slice())
    }

    pub(crate) fn extension_entries(&self) -> &[ExtensionEntry] {
        self.inner
            .as_deref()
            .map_or(&[], |i| i.extensions.as_slice())
    }

    pub(crate) fn extension_entries_mut(&mut self) -> &mut Vec<ExtensionEntry> {
        &mut self.inner.get_or_insert_with(Box::default).extensions
    }

    /// The records' buffer, allocated on first use (only to append bytes to it).
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.inner.get_or_insert_with(Box::default).bytes
    }

    /// Removes every record and extension.
    #[inline]
    pub fn clear(&mut self) {
        self.inner = None;
    }

    /// Reads the value of the field whose key was just read from `r` and keeps the record as
    /// it came (a key written longer than needed included).
    #[inline(never)]
    pub fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let raw_key = r.overlong_key_just_read();
        let value = r.skip_field_raw(key)?;
        // The record as kept (its key at most 5 bytes, or as it came).
        let key_len = raw_key.map_or(wire::varint_len(u64::from(key)), <[u8]>::len);
        r.charge_unknown(value.len() + key_len)?;
        self.push_record(key, raw_key, value);
        Ok(())
    }

    /// Appends a record: its key as it came (`raw_key`) or canonical, then its value.
    pub(crate) fn push_record(&mut self, key: u32, raw_key: Option<&[u8]>, value: &[u8]) {
        match raw_key {
            Some(k) => self.buf().extend_from_slice(k),
            None => self.push_key(key),
        }
        self.buf().extend_from_slice(value);
    }

    /// Appends the record whose value `r` read since `mark` (taken right after its key `key`),
    /// as it came.
    #[inline(never)]
    pub fn push_since(
        &mut self,
        key: u32,
        mark: Mark<'_>,
        r: &mut Reader<'_>,
    ) -> Result<(), DecodeError> {
        let used = mark.value.len() - r.remaining();
        let key_len = mark
            .key
            .map_or(wire::varint_len(u64::from(key)), <[u8]>::len);
        r.charge_unknown(used + key_len)?;
        self.push_record(key, mark.key, &mark.value[..used]);
        Ok(())
    }

    /// Appends a varint record (a closed enum's undeclared number, an extension).
    #[inline(never)]
    pub fn push_varint(&mut self, number: u32, value: u64) {
        self.push_key(wire::key(number, WireType::Varint));
        let mut buf = [0u8; 10];
        let mut w = ReverseWriter::new(&mut buf);
        w.put_varint(value);
        self.buf().extend_from_slice(w.written_bytes());
    }

    /// Appends an encoded record: `key` (number and wire type) then `value` as
    /// [`UnknownField::value`] describes it.
    pub fn push_raw(&mut self, key: u32, value: &[u8]) {
        self.push_key(key);
        self.buf().extend_from_slice(value);
    }

    /// Appends all of `other`'s records and extensions.
    pub fn extend(&mut self, other: &UnknownFields) {
        if !other.as_bytes().is_empty() {
            self.buf().extend_from_slice(other.as_bytes());
        }
        if !other.extension_entries().is_empty() {
            let more = other.extension_entries().iter().cloned();
            self.extension_entries_mut().extend(more);
        }
    }

    /// Removes the records of field `number` (and the declared extension of that number).
    pub fn remove(&mut self, number: u32) {
        if let Some(i) = &mut self.inner {
            i.extensions.retain(|e| e.number != number);
        }
        if !self.iter().any(|f| f.number == number) {
            return;
        }
        let mut kept = Vec::new();
        for f in self.iter().filter(|f| f.number != number) {
            push_key_to(&mut kept, wire::key(f.number, f.wire_type));
            kept.extend_from_slice(f.value);
        }
        *self.buf() = kept;
    }

    fn push_key(&mut self, key: u32) {
        push_key_to(self.buf(), key);
    }

    /// The records in order (declared extensions, held decoded, not included).
    pub fn iter(&self) -> impl Iterator<Item = UnknownField<'_>> {
        let mut r = Reader::new(self.as_bytes());
        core::iter::from_fn(move || {
            if r.is_empty() {
                return None;
            }
            // Records were checked when they were read; a failure here ends the walk.
            let key = r.read_key().ok()?;
            let value = r.skip_field_raw(key).ok()?;
            Some(UnknownField {
                number: key >> 3,
                wire_type: WireType::of_key(key)?,
                value,
            })
        })
    }

    /// Writes the extensions and records so that they end at the writer's cursor.
    #[inline(always)]
    pub fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
        // Empty is the common case: one test inline, the copy out of line.
        if let Some(inner) = &self.inner {
            inner.write(w);
        }
    }
}

impl Inner {
    #[cold]
    #[inline(never)]
    fn write(&self, w: &mut ReverseWriter<'_>) {
        w.put_slice(&self.bytes);
        for e in self.extensions.iter().rev() {
            e.value.encode_reverse(e.number, w);
        }
    }
}

#[cold]
#[inline(never)]
fn extensions_len(extensions: &[ExtensionEntry]) -> usize {
    extensions
        .iter()
        .map(|e| e.value.encoded_len(e.number))
        .sum()
}

fn push_key_to(buf: &mut Vec<u8>, key: u32) {
    let mut tmp = [0u8; 5];
    let mut w = ReverseWriter::new(&mut tmp);
    w.put_varint(u64::from(key));
    buf.extend_from_slice(w.written_bytes());
}

impl fmt::Debug for UnknownFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Ext<'a>(&'a ExtensionEntry);
        impl fmt::Debug for Ext<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "[{}] ", self.0.number)?;
                self.0.value.fmt_dyn(f)
            }
        }
        f.debug_list()
            .entries(self.extension_entries().iter().map(Ext))
            .entries(self.iter())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_records_in_order() {
        // 1: varint 150, 2: "hi", 3: group { 1: 1 }, 4: fixed32, 5: fixed64.
        let input = [
            0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1b, 0x08, 0x01, 0x1c, 0x25, 1, 2, 3, 4,
            0x29, 1, 2, 3, 4, 5, 6, 7, 8,
        ];
        let mut u = UnknownFields::new();
        let mut r = Reader::new(&input);
        while !r.is_empty() {
            let key = r.read_key().unwrap();
            u.merge_field(key, &mut r).unwrap();
        }
        assert_eq!(u.as_bytes(), input);
        let numbers: Vec<u32> = u.iter().map(|f| f.number).collect();
        assert_eq!(numbers, [1, 2, 3, 4, 5]);
        assert_eq!(u.iter().nth(2).unwrap().value, [0x08, 0x01, 0x1c]);
        u.remove(2);
        assert_eq!(u.encoded_len(), input.len() - 4);
        let mut out = [0u8; 32];
        let mut w = ReverseWriter::new(&mut out);
        u.encode_reverse(&mut w);
        assert_eq!(w.written_bytes(), u.as_bytes());
    }

    #[test]
    fn overlong_keys_are_kept_as_they_came() {
        let input = [0x88, 0x80, 0x00, 0x07, 0x90, 0x01, 0x05];
        let mut r = Reader::new(&input);
        let mut u = UnknownFields::new();
        // An overlong key, then a two-byte canonical one (field 18): only the first is long.
        for _ in 0..2 {
            let key = r.read_key().unwrap();
            u.merge_field(key, &mut r).unwrap();
        }
        assert_eq!(u.as_bytes(), input);
        assert_eq!(u.iter().map(|f| f.number).collect::<Vec<_>>(), [1, 18]);
        u.push_varint(2, 300);
        assert_eq!(u.as_bytes()[7..], [0x10, 0xac, 0x02]);
        // A key read by another reader does not leak into the next record.
        let mut r = Reader::new(&[0x08, 0x07]);
        let key = r.read_key().unwrap();
        let mut v = UnknownFields::new();
        v.merge_field(key, &mut r).unwrap();
        assert_eq!(v.as_bytes(), [0x08, 0x07]);
    }

    #[test]
    fn one_pointer_wide_and_equal_by_records() {
        assert_eq!(
            core::mem::size_of::<UnknownFields>(),
            core::mem::size_of::<usize>()
        );
        let mut u = UnknownFields::new();
        u.push_varint(1, 1);
        assert_ne!(u, UnknownFields::new());
        u.clear();
        // Cleared, it equals (and encodes as) an empty one.
        assert!(u.is_empty() && u.encoded_len() == 0);
        assert_eq!(u, UnknownFields::new());
        let mut out = [0u8; 4];
        let mut w = ReverseWriter::new(&mut out);
        u.encode_reverse(&mut w);
        assert_eq!(w.written(), 0);
    }

    #[test]
    fn bad_records_are_refused() {
        let mut u = UnknownFields::new();
        for input in [&[0x0b, 0x08][..], &[0x12, 0x05, 1], &[0x0c]] {
            let mut r = Reader::new(&input[1..]);
            assert!(u.merge_field(u32::from(input[0]), &mut r).is_err());
        }
        assert!(u.is_empty());
    }
}
