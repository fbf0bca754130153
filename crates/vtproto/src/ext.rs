//! Extensions (proto2 `extend`, editions too): typed access to the fields of a message's
//! extension ranges, which are kept with its unknown fields, in wire order.
//!
//! Generated code declares each extension as a constant ([`Extension`]) naming the message it
//! extends and how its value is encoded (a marker type of this module), and implements
//! [`Extendable`] for messages with extension ranges. Extensions the program does not declare
//! survive decoding and re-encoding untouched. For a message with the MessageSet wire format,
//! extensions are its `Item` groups, keyed by type id.
//!
//! ```
//! use vtproto::ext::{Extendable, Int32};
//! use vtproto::{Extension, Message, UnknownFields};
//!
//! #[derive(Clone, Debug, Default, PartialEq)]
//! struct Base {
//!     unknown_fields: UnknownFields,
//! }
//! # impl Message for Base {
//! #     const NAME: &'static str = "demo.Base";
//! #     fn size(&self) -> usize { self.unknown_fields.encoded_len() }
//! #     fn encode_reverse(&self, w: &mut vtproto::ReverseWriter<'_>) { self.unknown_fields.encode_reverse(w) }
//! #     fn merge_field(&mut self, key: u32, r: &mut vtproto::Reader<'_>) -> Result<(), vtproto::DecodeError> {
//! #         self.unknown_fields.merge_field(key, r)
//! #     }
//! # }
//! impl Extendable for Base {
//!     fn unknown_fields(&self) -> &UnknownFields { &self.unknown_fields }
//!     fn unknown_fields_mut(&mut self) -> &mut UnknownFields { &mut self.unknown_fields }
//! }
//! const WEIGHT: Extension<Base, Int32> = Extension::new(100, "demo.weight");
//!
//! let mut base = Base::default();
//! base.set_extension(&WEIGHT, 7);
//! let decoded = Base::decode(&base.encode_to_vec()).unwrap();
//! assert_eq!(decoded.extension(&WEIGHT).unwrap(), Some(7));
//! ```

#[allow(unused_imports)]
use crate::prelude::*;

use core::marker::PhantomData;

use crate::error::{DecodeError, DecodeErrorKind};
use crate::reader::Reader;
use crate::unknown::UnknownFields;
use crate::wire::{self, WireType};
use crate::writer::ReverseWriter;
use crate::Message;

/// An extension of messages `M` whose value is encoded as `T` (a marker type of this module).
pub struct Extension<M, T> {
    number: u32,
    name: &'static str,
    _types: PhantomData<fn() -> (M, T)>,
}

impl<M, T> Extension<M, T> {
    /// The extension with field number `number` and full name `name`.
    pub const fn new(number: u32, name: &'static str) -> Self {
        Extension {
            number,
            name,
            _types: PhantomData,
        }
    }

    /// Its field number (a MessageSet extension's type id).
    pub const fn number(&self) -> u32 {
        self.number
    }

    /// Its full name.
    pub const fn name(&self) -> &'static str {
        self.name
    }
}

/// How an extension's values are read from and written to records.
pub trait ExtensionType {
    /// The value [`Extendable::extension`] returns.
    type Value;
    /// Reads the value from the records of its field (values as [`UnknownField`]s hold them),
    /// in order: the last wins for a scalar, messages merge, repeated values append. `None`
    /// when there are none.
    ///
    /// [`UnknownField`]: crate::UnknownField
    fn read(records: &[(WireType, &[u8])], number: u32)
        -> Result<Option<Self::Value>, DecodeError>;
    /// Appends `value` as records of field `number`.
    fn write(value: &Self::Value, number: u32, out: &mut UnknownFields);
}

/// A message with extension ranges: its extensions are kept with its unknown fields.
pub trait Extendable: Message {
    /// Whether the message uses the MessageSet wire format (extensions as `Item` groups).
    const MESSAGE_SET: bool = false;

    /// The unknown fields, extensions included.
    fn unknown_fields(&self) -> &UnknownFields;

    /// The unknown fields, extensions included, to change.
    fn unknown_fields_mut(&mut self) -> &mut UnknownFields;

    /// The extension's value, `None` when absent; an error when its records do not decode.
    fn extension<T: ExtensionType>(
        &self,
        ext: &Extension<Self, T>,
    ) -> Result<Option<T::Value>, DecodeError> {
        if Self::MESSAGE_SET {
            return message_set_read::<T>(self.unknown_fields(), ext.number);
        }
        let records: Vec<(WireType, &[u8])> = self
            .unknown_fields()
            .iter()
            .filter(|f| f.number == ext.number)
            .map(|f| (f.wire_type, f.value))
            .collect();
        T::read(&records, ext.number)
    }

    /// Whether the message has records of the extension.
    fn has_extension<T>(&self, ext: &Extension<Self, T>) -> bool {
        if Self::MESSAGE_SET {
            return message_set_items(self.unknown_fields()).any(|(id, _)| id == ext.number);
        }
        self.unknown_fields().iter().any(|f| f.number == ext.number)
    }

    /// Sets the extension, replacing any value it had.
    fn set_extension<T: ExtensionType>(&mut self, ext: &Extension<Self, T>, value: T::Value) {
        self.clear_extension(ext);
        let mut records = UnknownFields::new();
        T::write(&value, ext.number, &mut records);
        if Self::MESSAGE_SET {
            // One item: type id, then the message's bytes (the record's value without its key).
            let message = records
                .iter()
                .find(|f| f.wire_type == WireType::LengthDelimited)
                .map(|f| f.value.to_vec())
                .unwrap_or_else(|| vec![0]);
            let mut item = Vec::new();
            item.push(wire::key(2, WireType::Varint) as u8);
            push_varint(&mut item, u64::from(ext.number));
            item.push(wire::key(3, WireType::LengthDelimited) as u8);
            item.extend_from_slice(&message);
            item.push(wire::key(1, WireType::EndGroup) as u8);
            self.unknown_fields_mut()
                .push_raw(wire::key(1, WireType::StartGroup), &item);
        } else {
            self.unknown_fields_mut().extend(&records);
        }
    }

    /// Removes the extension's records.
    fn clear_extension<T>(&mut self, ext: &Extension<Self, T>) {
        if !Self::MESSAGE_SET {
            self.unknown_fields_mut().remove(ext.number);
            return;
        }
        let unknown = self.unknown_fields();
        let mut kept = UnknownFields::new();
        for f in unknown.iter() {
            let is_item = f.number == 1 && f.wire_type == WireType::StartGroup;
            if !(is_item && item_type_id(f.value) == Some(ext.number)) {
                kept.push_raw(wire::key(f.number, f.wire_type), f.value);
            }
        }
        *self.unknown_fields_mut() = kept;
    }
}

fn push_varint(out: &mut Vec<u8>, v: u64) {
    let mut buf = [0u8; 10];
    let mut w = ReverseWriter::new(&mut buf);
    w.put_varint(v);
    out.extend_from_slice(w.written_bytes());
}

/// The type id and message bytes (length prefix included) of each MessageSet item.
fn message_set_items(unknown: &UnknownFields) -> impl Iterator<Item = (u32, &[u8])> {
    unknown
        .iter()
        .filter(|f| f.number == 1 && f.wire_type == WireType::StartGroup)
        .filter_map(|f| Some((item_type_id(f.value)?, item_message(f.value)?)))
}

/// Walks an item group's fields (its end key included).
fn item_fields(group: &[u8]) -> impl Iterator<Item = (u32, &[u8])> {
    let mut r = Reader::new(group);
    core::iter::from_fn(move || {
        let key = r.read_key().ok()?;
        if key & 7 == WireType::EndGroup as u32 {
            return None;
        }
        Some((key, r.skip_field_raw(key).ok()?))
    })
}

fn item_type_id(group: &[u8]) -> Option<u32> {
    item_fields(group)
        .filter(|(k, _)| *k == wire::key(2, WireType::Varint))
        .last()
        .and_then(|(_, v)| Reader::new(v).read_uint32().ok())
}

fn item_message(group: &[u8]) -> Option<&[u8]> {
    item_fields(group)
        .filter(|(k, _)| *k == wire::key(3, WireType::LengthDelimited))
        .last()
        .map(|(_, v)| v)
}

fn message_set_read<T: ExtensionType>(
    unknown: &UnknownFields,
    number: u32,
) -> Result<Option<T::Value>, DecodeError> {
    let records: Vec<(WireType, &[u8])> = message_set_items(unknown)
        .filter(|(id, _)| *id == number)
        .map(|(_, m)| (WireType::LengthDelimited, m))
        .collect();
    T::read(&records, number)
}

fn mismatch(number: u32, wire_type: WireType) -> DecodeError {
    DecodeError::new(DecodeErrorKind::WireTypeMismatch {
        field_number: number,
        found: wire_type as u8,
    })
}

/// Declares the marker of a scalar type: its Rust type, wire type, reader and writer.
macro_rules! scalar {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $wire:ident, $read:ident, $put:ident, $v:ident => $arg:expr) => {
        $(#[$doc])*
        pub enum $name {}

        impl ExtensionType for $name {
            type Value = $ty;
            fn read(
                records: &[(WireType, &[u8])],
                number: u32,
            ) -> Result<Option<$ty>, DecodeError> {
                let mut value = None;
                for (wire_type, bytes) in records {
                    if *wire_type != WireType::$wire {
                        return Err(mismatch(number, *wire_type));
                    }
                    value = Some(Reader::new(bytes).$read()?);
                }
                Ok(value)
            }
            fn write(value: &$ty, number: u32, out: &mut UnknownFields) {
                let mut buf = Vec::new();
                let mut w = ReverseWriter::growable(&mut buf);
                let $v = value;
                w.$put($arg);
                out.push_raw(wire::key(number, WireType::$wire), w.written_bytes());
            }
        }

        impl RepeatedScalar for $name {
            const PACKABLE: bool = !matches!(WireType::$wire, WireType::LengthDelimited);
            fn read_one(r: &mut Reader<'_>) -> Result<$ty, DecodeError> {
                r.$read()
            }
            fn put_one(value: &$ty, w: &mut ReverseWriter<'_>) {
                let $v = value;
                w.$put($arg);
            }
        }
    };
}

/// A scalar marker usable in [`Repeated`] and [`Packed`].
pub trait RepeatedScalar: ExtensionType {
    /// Whether values may be packed (not strings or bytes).
    const PACKABLE: bool;
    /// Reads one value (within a packed run or a record).
    fn read_one(r: &mut Reader<'_>) -> Result<Self::Value, DecodeError>;
    /// Writes one value without its key.
    fn put_one(value: &Self::Value, w: &mut ReverseWriter<'_>);
}

scalar!(/// `int32`.
    Int32, i32, Varint, read_int32, put_int32, v => *v);
scalar!(/// `int64`.
    Int64, i64, Varint, read_int64, put_int64, v => *v);
scalar!(/// `uint32`.
    UInt32, u32, Varint, read_uint32, put_uint32, v => *v);
scalar!(/// `uint64`.
    UInt64, u64, Varint, read_uint64, put_uint64, v => *v);
scalar!(/// `sint32`.
    SInt32, i32, Varint, read_sint32, put_sint32, v => *v);
scalar!(/// `sint64`.
    SInt64, i64, Varint, read_sint64, put_sint64, v => *v);
scalar!(/// `bool`.
    Bool, bool, Varint, read_bool, put_bool, v => *v);
scalar!(/// An enum, as its number.
    Enum, i32, Varint, read_int32, put_int32, v => *v);
scalar!(/// `fixed32`.
    Fixed32, u32, Fixed32, read_fixed32, put_fixed32, v => *v);
scalar!(/// `fixed64`.
    Fixed64, u64, Fixed64, read_fixed64, put_fixed64, v => *v);
scalar!(/// `sfixed32`.
    SFixed32, i32, Fixed32, read_sfixed32, put_sfixed32, v => *v);
scalar!(/// `sfixed64`.
    SFixed64, i64, Fixed64, read_sfixed64, put_sfixed64, v => *v);
scalar!(/// `float`.
    Float, f32, Fixed32, read_float, put_float, v => *v);
scalar!(/// `double`.
    Double, f64, Fixed64, read_double, put_double, v => *v);
scalar!(/// `string`.
    Str, String, LengthDelimited, read_string, put_string, v => v.as_str());
scalar!(/// `bytes`.
    Bytes, Vec<u8>, LengthDelimited, read_byte_vec, put_bytes, v => v.as_slice());

/// An embedded message `M`, length-prefixed.
pub struct MessageOf<M>(PhantomData<fn() -> M>);

impl<M: Message> ExtensionType for MessageOf<M> {
    type Value = M;
    fn read(records: &[(WireType, &[u8])], number: u32) -> Result<Option<M>, DecodeError> {
        let mut value: Option<M> = None;
        for (wire_type, bytes) in records {
            if *wire_type != WireType::LengthDelimited {
                return Err(mismatch(number, *wire_type));
            }
            Reader::new(bytes).merge_message(value.get_or_insert_with(M::default))?;
        }
        Ok(value)
    }
    fn write(value: &M, number: u32, out: &mut UnknownFields) {
        let body = value.encode_length_delimited_to_vec();
        out.push_raw(wire::key(number, WireType::LengthDelimited), &body);
    }
}

/// A group (or an editions `DELIMITED` message) `M`.
pub struct GroupOf<M>(PhantomData<fn() -> M>);

impl<M: Message> ExtensionType for GroupOf<M> {
    type Value = M;
    fn read(records: &[(WireType, &[u8])], number: u32) -> Result<Option<M>, DecodeError> {
        let mut value: Option<M> = None;
        for (wire_type, bytes) in records {
            if *wire_type != WireType::StartGroup {
                return Err(mismatch(number, *wire_type));
            }
            Reader::new(bytes).merge_group(value.get_or_insert_with(M::default), number)?;
        }
        Ok(value)
    }
    fn write(value: &M, number: u32, out: &mut UnknownFields) {
        let mut body = value.encode_to_vec();
        push_varint(&mut body, u64::from(wire::key(number, WireType::EndGroup)));
        out.push_raw(wire::key(number, WireType::StartGroup), &body);
    }
}

/// A repeated extension of scalars `T`, written one record per value; packed runs are read too.
pub struct Repeated<T>(PhantomData<fn() -> T>);

/// A repeated extension of scalars `T`, written packed; unpacked records are read too.
pub struct Packed<T>(PhantomData<fn() -> T>);

fn read_repeated<T: RepeatedScalar>(
    records: &[(WireType, &[u8])],
    number: u32,
) -> Result<Option<Vec<T::Value>>, DecodeError> {
    let mut out = Vec::new();
    for (wire_type, bytes) in records {
        if *wire_type == WireType::LengthDelimited && T::PACKABLE {
            let mut run = Reader::new(Reader::new(bytes).read_len_delimited()?);
            while !run.is_empty() {
                out.push(T::read_one(&mut run)?);
            }
        } else {
            out.extend(T::read(&[(*wire_type, bytes)], number)?);
        }
    }
    Ok((!out.is_empty()).then_some(out))
}

impl<T: RepeatedScalar> ExtensionType for Repeated<T> {
    type Value = Vec<T::Value>;
    fn read(
        records: &[(WireType, &[u8])],
        number: u32,
    ) -> Result<Option<Self::Value>, DecodeError> {
        read_repeated::<T>(records, number)
    }
    fn write(values: &Self::Value, number: u32, out: &mut UnknownFields) {
        for v in values {
            T::write(v, number, out);
        }
    }
}

impl<T: RepeatedScalar> ExtensionType for Packed<T> {
    type Value = Vec<T::Value>;
    fn read(
        records: &[(WireType, &[u8])],
        number: u32,
    ) -> Result<Option<Self::Value>, DecodeError> {
        read_repeated::<T>(records, number)
    }
    fn write(values: &Self::Value, number: u32, out: &mut UnknownFields) {
        if values.is_empty() {
            return;
        }
        let mut buf = Vec::new();
        let mut w = ReverseWriter::growable(&mut buf);
        for v in values.iter().rev() {
            T::put_one(v, &mut w);
        }
        let len = w.written();
        w.put_varint(len as u64);
        out.push_raw(
            wire::key(number, WireType::LengthDelimited),
            w.written_bytes(),
        );
    }
}

/// A repeated extension of messages or groups: each record holds one value of `T`.
pub struct Each<T>(PhantomData<fn() -> T>);

/// A repeated message extension.
pub type RepeatedMessage<M> = Each<MessageOf<M>>;

/// A repeated group extension.
pub type RepeatedGroup<M> = Each<GroupOf<M>>;

impl<T: ExtensionType> ExtensionType for Each<T> {
    type Value = Vec<T::Value>;
    fn read(
        records: &[(WireType, &[u8])],
        number: u32,
    ) -> Result<Option<Vec<T::Value>>, DecodeError> {
        let mut out = Vec::new();
        for record in records {
            out.extend(T::read(core::slice::from_ref(record), number)?);
        }
        Ok((!out.is_empty()).then_some(out))
    }
    fn write(values: &Vec<T::Value>, number: u32, out: &mut UnknownFields) {
        for v in values {
            T::write(v, number, out);
        }
    }
}
