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

use core::any::Any;
use core::fmt;
use core::marker::PhantomData;

use crate::error::DecodeError;
use crate::reader::{Mark, Reader};
use crate::unknown::{ExtensionEntry, ExtensionValue, UnknownFields};
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

/// How an extension's values are read from and written to the wire.
pub trait ExtensionType: 'static {
    /// The value [`Extendable::extension`] returns.
    type Value: Clone + PartialEq + fmt::Debug + Send + Sync + 'static;

    /// Merges one record of field `number`, whose key (with `wire_type`) was just read from
    /// `r`, into `value`: the last wins for a scalar, messages merge, repeated values append.
    /// `Ok(false)`, with nothing read, when this type does not read `wire_type`: the spec keeps
    /// such a record as an unknown field. A closed enum's undeclared numbers go to `unknown`.
    fn merge(
        value: &mut Option<Self::Value>,
        wire_type: WireType,
        number: u32,
        r: &mut Reader<'_>,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError>;

    /// The size of `value` encoded as field `number`.
    fn encoded_len(value: &Self::Value, number: u32) -> usize;

    /// Writes `value` as field `number`, ending at the writer's cursor.
    fn encode_reverse(value: &Self::Value, number: u32, w: &mut ReverseWriter<'_>);

    /// The value of an extension whose record was read but kept nothing: a repeated closed
    /// enum's record of undeclared numbers only. Repeated types give the empty list, so the
    /// extension takes its place among the others where its first record came, as upb places
    /// it (a later declared number then writes there, not at its own arrival).
    fn read_nothing() -> Option<Self::Value> {
        None
    }
}

/// A message with extension ranges: its extensions are kept with its unknown fields.
pub trait Extendable: Message {
    /// Whether the message uses the MessageSet wire format (extensions as `Item` groups).
    const MESSAGE_SET: bool = false;

    /// The unknown fields, extensions included.
    fn unknown_fields(&self) -> &UnknownFields;

    /// The unknown fields, extensions included, to change.
    fn unknown_fields_mut(&mut self) -> &mut UnknownFields;

    /// The extension's value, `None` when absent; an error when its records do not decode
    /// (possible only for records kept as they came, the extension not being declared to the
    /// decoder).
    fn extension<T: ExtensionType>(
        &self,
        ext: &Extension<Self, T>,
    ) -> Result<Option<T::Value>, DecodeError> {
        let unknown = self.unknown_fields();
        let mut value = None;
        let entry = unknown
            .extension_entries()
            .iter()
            .find(|e| e.number == ext.number);
        if let Some(e) = entry {
            match e.value.as_any().downcast_ref::<Typed<T>>() {
                Some(t) => value = t.value.clone(),
                None => {
                    // Declared with another type where it was decoded: read its encoding.
                    let mut buf = Vec::new();
                    let mut w = ReverseWriter::growable(&mut buf);
                    e.value.encode_reverse(e.number, &mut w);
                    let bytes = w.written_bytes().to_vec();
                    merge_records::<T>(&bytes, ext.number, Self::MESSAGE_SET, &mut value)?;
                }
            }
        }
        merge_records::<T>(
            unknown.as_bytes(),
            ext.number,
            Self::MESSAGE_SET,
            &mut value,
        )?;
        Ok(value)
    }

    /// Whether the message has the extension.
    fn has_extension<T>(&self, ext: &Extension<Self, T>) -> bool {
        let unknown = self.unknown_fields();
        if unknown
            .extension_entries()
            .iter()
            .any(|e| e.number == ext.number)
        {
            return true;
        }
        if Self::MESSAGE_SET {
            return message_set_items(unknown).any(|(id, _)| id == ext.number);
        }
        unknown.iter().any(|f| f.number == ext.number)
    }

    /// Sets the extension, replacing any value it had.
    fn set_extension<T: ExtensionType>(&mut self, ext: &Extension<Self, T>, value: T::Value) {
        self.clear_extension(ext);
        self.unknown_fields_mut()
            .extension_entries_mut()
            .push(ExtensionEntry {
                number: ext.number,
                value: Box::new(Typed::<T> {
                    value: Some(value),
                    message_set: Self::MESSAGE_SET,
                }),
            });
    }

    /// Removes the extension.
    fn clear_extension<T>(&mut self, ext: &Extension<Self, T>) {
        let unknown = self.unknown_fields_mut();
        if !unknown.extension_entries().is_empty() {
            unknown
                .extension_entries_mut()
                .retain(|e| e.number != ext.number);
        }
        if !Self::MESSAGE_SET {
            unknown.remove(ext.number);
            return;
        }
        let mut kept = UnknownFields::new();
        for f in unknown.iter() {
            let is_item = f.number == 1 && f.wire_type == WireType::StartGroup;
            let names_it =
                || item_pairs(f.value).is_ok_and(|p| p.iter().any(|(id, _)| *id == ext.number));
            if !(is_item && names_it()) {
                kept.push_raw(wire::key(f.number, f.wire_type), f.value);
            }
        }
        kept.extend_extensions_of(unknown);
        *unknown = kept;
    }
}

/// Decoding declared extensions: generated `merge_field`s call these for the numbers of the
/// extensions their schema declares for the message.
impl UnknownFields {
    /// Reads the record of extension `ext` whose key was just read from `r` into its decoded
    /// value. A wire type the extension does not read keeps the record as an unknown field.
    #[inline(never)]
    pub fn merge_extension<M, T: ExtensionType>(
        &mut self,
        ext: &Extension<M, T>,
        key: u32,
        r: &mut Reader<'_>,
    ) -> Result<(), DecodeError> {
        self.merge_extension_as(ext.number, false, key, r, PhantomData::<T>)
    }

    /// [`merge_extension`](Self::merge_extension) for an extension of a MessageSet arriving
    /// as a plain field rather than in an item: read into the same value as its items.
    #[inline(never)]
    pub fn merge_message_set_extension<M, T: ExtensionType>(
        &mut self,
        ext: &Extension<M, T>,
        key: u32,
        r: &mut Reader<'_>,
    ) -> Result<(), DecodeError> {
        self.merge_extension_as(ext.number, true, key, r, PhantomData::<T>)
    }

    fn merge_extension_as<T: ExtensionType>(
        &mut self,
        number: u32,
        message_set: bool,
        key: u32,
        r: &mut Reader<'_>,
        _type: PhantomData<T>,
    ) -> Result<(), DecodeError> {
        if let Some(wire_type) = WireType::of_key(key) {
            if self.merge_typed::<T>(number, message_set, wire_type, r)? {
                return Ok(());
            }
        }
        self.merge_field(key, r)
    }

    /// Reads a MessageSet item whose start key (`key`) was just read from `r`: each message in
    /// it goes, with the type id before it (or, for a message before any, the first one
    /// after), to `declared(self, type_id, message)`, which reads it into its extension's
    /// decoded value (a corrupt one is an error, as in C++ and upb) when the type id names a
    /// declared extension (see [`merge_set_extension`](Self::merge_set_extension)). An item
    /// whose type id names none, or without a type id or a message, is kept as it came.
    #[inline(never)]
    pub fn merge_message_set_item(
        &mut self,
        key: u32,
        r: &mut Reader<'_>,
        mut declared: impl FnMut(&mut Self, u32, &mut Reader<'_>) -> Result<bool, DecodeError>,
    ) -> Result<(), DecodeError> {
        let raw_key = r.overlong_key_just_read();
        let item = r.skip_field_raw(key)?;
        let pairs = item_pairs(item)?;
        let mut merged = false;
        for (id, message) in pairs {
            if !declared(self, id, &mut Reader::new(message))? {
                // Not declared here: the item stays as it came (what came before it in the
                // item, declared, was read too).
                merged = false;
                break;
            }
            merged = true;
        }
        if !merged {
            self.push_record(key, raw_key, item);
        }
        Ok(())
    }

    /// Reads the message of a MessageSet item (`r` at its length prefix) into the decoded
    /// value of extension `ext`.
    pub fn merge_set_extension<M, T: ExtensionType>(
        &mut self,
        ext: &Extension<M, T>,
        r: &mut Reader<'_>,
    ) -> Result<bool, DecodeError> {
        self.merge_typed::<T>(ext.number, true, WireType::LengthDelimited, r)
    }

    fn merge_typed<T: ExtensionType>(
        &mut self,
        number: u32,
        message_set: bool,
        wire_type: WireType,
        r: &mut Reader<'_>,
    ) -> Result<bool, DecodeError> {
        let mut diverted = UnknownFields::new();
        let entries = self.extension_entries_mut();
        let merged = match entries.iter_mut().find(|e| e.number == number) {
            Some(e) => match e.value.as_any_mut().downcast_mut::<Typed<T>>() {
                Some(t) => T::merge(&mut t.value, wire_type, number, r, &mut diverted)?,
                // Declared twice with other types: kept as it came.
                None => false,
            },
            None => {
                let mut value = None;
                let merged = T::merge(&mut value, wire_type, number, r, &mut diverted)?;
                if value.is_none() && merged {
                    value = T::read_nothing();
                }
                if value.is_some() {
                    entries.push(ExtensionEntry {
                        number,
                        value: Box::new(Typed::<T> { value, message_set }),
                    });
                }
                merged
            }
        };
        self.extend(&diverted);
        Ok(merged)
    }

    /// Appends `other`'s decoded extensions (not its records).
    fn extend_extensions_of(&mut self, other: &UnknownFields) {
        if !other.extension_entries().is_empty() {
            let more = other.extension_entries().iter().cloned();
            self.extension_entries_mut().extend(more);
        }
    }
}

/// A declared extension's decoded value of type `T`.
struct Typed<T: ExtensionType> {
    /// Always `Some` once stored.
    value: Option<T::Value>,
    /// Written as a MessageSet item.
    message_set: bool,
}

impl<T: ExtensionType> ExtensionValue for Typed<T> {
    fn encoded_len(&self, number: u32) -> usize {
        let Some(v) = &self.value else { return 0 };
        if self.message_set {
            // Start and end keys, type id (key and varint), message as field 3.
            3 + wire::varint_len(u64::from(number)) + T::encoded_len(v, 3)
        } else {
            T::encoded_len(v, number)
        }
    }

    fn encode_reverse(&self, number: u32, w: &mut ReverseWriter<'_>) {
        let Some(v) = &self.value else { return };
        if self.message_set {
            w.put_varint(u64::from(wire::key(1, WireType::EndGroup)));
            T::encode_reverse(v, 3, w);
            w.put_varint(u64::from(number));
            w.put_varint(u64::from(wire::key(2, WireType::Varint)));
            w.put_varint(u64::from(wire::key(1, WireType::StartGroup)));
        } else {
            T::encode_reverse(v, number, w);
        }
    }

    fn clone_box(&self) -> Box<dyn ExtensionValue> {
        Box::new(Typed::<T> {
            value: self.value.clone(),
            message_set: self.message_set,
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn eq_dyn(&self, other: &dyn ExtensionValue) -> bool {
        other
            .as_any()
            .downcast_ref::<Typed<T>>()
            .is_some_and(|o| o.value == self.value && o.message_set == self.message_set)
    }

    fn fmt_dyn(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.value {
            Some(v) => fmt::Debug::fmt(v, f),
            None => f.write_str("None"),
        }
    }
}

/// Merges the records of field `number` in `bytes` (items of type id `number` in a
/// MessageSet) into `value`; records of other wire types are skipped, as the spec keeps them.
fn merge_records<T: ExtensionType>(
    bytes: &[u8],
    number: u32,
    message_set: bool,
    value: &mut Option<T::Value>,
) -> Result<(), DecodeError> {
    let mut ignored = UnknownFields::new();
    let mut r = Reader::new(bytes);
    while !r.is_empty() {
        let key = r.read_key()?;
        let is_item = key == wire::key(1, WireType::StartGroup);
        if message_set && is_item {
            let item = r.skip_field_raw(key)?;
            for (_, message) in item_pairs(item)?
                .into_iter()
                .filter(|(id, _)| *id == number)
            {
                let mut m = Reader::new(message);
                T::merge(
                    value,
                    WireType::LengthDelimited,
                    number,
                    &mut m,
                    &mut ignored,
                )?;
            }
            continue;
        }
        let wire_type = WireType::of_key(key);
        if let (false, Some(wt)) = (message_set, wire_type) {
            if key >> 3 == number && T::merge(value, wt, number, &mut r, &mut ignored)? {
                continue;
            }
        }
        r.skip_field(key)?;
    }
    Ok(())
}

/// The (type id, message) pairs of each MessageSet item kept among the unknown fields.
fn message_set_items(unknown: &UnknownFields) -> impl Iterator<Item = (u32, &[u8])> {
    unknown
        .iter()
        .filter(|f| f.number == 1 && f.wire_type == WireType::StartGroup)
        .flat_map(|f| item_pairs(f.value).unwrap_or_default())
}

/// An item's (type id, message) pairs in the order the item resolves them, as the decoder
/// reads them: each message goes with the type id before it, or, for a message before any,
/// with the first one after; a message with no type id at all goes nowhere.
fn item_pairs(item: &[u8]) -> Result<Vec<(u32, &[u8])>, DecodeError> {
    let mut pairs: Vec<(u32, &[u8])> = Vec::new();
    let mut type_id = None;
    let mut waiting: Vec<&[u8]> = Vec::new();
    for (k, value) in item_fields(item) {
        if k == wire::key(2, WireType::Varint) {
            let id = Reader::new(value).read_uint32()?;
            pairs.extend(waiting.drain(..).map(|m| (id, m)));
            type_id = Some(id);
        } else if k == wire::key(3, WireType::LengthDelimited) {
            match type_id {
                Some(id) => pairs.push((id, value)),
                None => waiting.push(value),
            }
        }
    }
    Ok(pairs)
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

fn key_len(number: u32) -> usize {
    wire::varint_len(u64::from(number) << 3)
}

/// A scalar marker usable in [`Repeated`] and [`Packed`].
pub trait RepeatedScalar: ExtensionType {
    /// The wire type of one value outside a packed run.
    const WIRE_TYPE: WireType;
    /// Whether values may be packed (not strings or bytes).
    const PACKABLE: bool;
    /// Reads one value (within a packed run or a record).
    fn read_one(r: &mut Reader<'_>) -> Result<Self::Value, DecodeError>;
    /// The size of one value without its key.
    fn one_len(value: &Self::Value) -> usize;
    /// Writes one value without its key.
    fn put_one(value: &Self::Value, w: &mut ReverseWriter<'_>);
    /// Whether the type holds `value` (a closed enum holds its declared numbers alone); a
    /// value it does not hold is kept among the unknown fields.
    fn holds(_value: &Self::Value) -> bool {
        true
    }
    /// Keeps a value the type does not hold, read from `r` since `mark`, as an unknown varint
    /// record of field `number`, its varint as it came (as upb and C++ keep it).
    fn divert(
        number: u32,
        mark: Mark<'_>,
        r: &mut Reader<'_>,
        unknown: &mut UnknownFields,
    ) -> Result<(), DecodeError> {
        unknown.push_since(wire::key(number, WireType::Varint), mark, r)
    }
}

/// One scalar record.
fn merge_scalar<T: RepeatedScalar>(
    value: &mut Option<T::Value>,
    wire_type: WireType,
    number: u32,
    r: &mut Reader<'_>,
    unknown: &mut UnknownFields,
) -> Result<bool, DecodeError> {
    if wire_type != T::WIRE_TYPE {
        return Ok(false);
    }
    let mark = r.mark();
    let v = T::read_one(r)?;
    if T::holds(&v) {
        *value = Some(v);
    } else {
        T::divert(number, mark, r, unknown)?;
    }
    Ok(true)
}

/// Declares the marker of a scalar type: its Rust type, wire type, reader, writer and size.
macro_rules! scalar {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $wire:ident, $read:ident, $put:ident, $v:ident => $arg:expr, $len:expr) => {
        $(#[$doc])*
        pub enum $name {}

        impl ExtensionType for $name {
            type Value = $ty;
            fn merge(
                value: &mut Option<$ty>,
                wire_type: WireType,
                number: u32,
                r: &mut Reader<'_>,
                unknown: &mut UnknownFields,
            ) -> Result<bool, DecodeError> {
                merge_scalar::<Self>(value, wire_type, number, r, unknown)
            }
            fn encoded_len(value: &$ty, number: u32) -> usize {
                key_len(number) + Self::one_len(value)
            }
            fn encode_reverse(value: &$ty, number: u32, w: &mut ReverseWriter<'_>) {
                Self::put_one(value, w);
                w.put_varint(u64::from(wire::key(number, WireType::$wire)));
            }
        }

        impl RepeatedScalar for $name {
            const WIRE_TYPE: WireType = WireType::$wire;
            const PACKABLE: bool = !matches!(WireType::$wire, WireType::LengthDelimited);
            fn read_one(r: &mut Reader<'_>) -> Result<$ty, DecodeError> {
                r.$read()
            }
            #[allow(unused_variables)]
            fn one_len($v: &$ty) -> usize {
                $len
            }
            fn put_one($v: &$ty, w: &mut ReverseWriter<'_>) {
                w.$put($arg);
            }
        }
    };
}

scalar!(/// `int32`.
    Int32, i32, Varint, read_int32, put_int32, v => *v, wire::int32(*v));
scalar!(/// `int64`.
    Int64, i64, Varint, read_int64, put_int64, v => *v, wire::int64(*v));
scalar!(/// `uint32`.
    UInt32, u32, Varint, read_uint32, put_uint32, v => *v, wire::uint32(*v));
scalar!(/// `uint64`.
    UInt64, u64, Varint, read_uint64, put_uint64, v => *v, wire::uint64(*v));
scalar!(/// `sint32`.
    SInt32, i32, Varint, read_sint32, put_sint32, v => *v, wire::sint32(*v));
scalar!(/// `sint64`.
    SInt64, i64, Varint, read_sint64, put_sint64, v => *v, wire::sint64(*v));
scalar!(/// `bool`.
    Bool, bool, Varint, read_bool, put_bool, v => *v, 1);
scalar!(/// An open enum, as its number.
    Enum, i32, Varint, read_int32, put_int32, v => *v, wire::int32(*v));
scalar!(/// `fixed32`.
    Fixed32, u32, Fixed32, read_fixed32, put_fixed32, v => *v, 4);
scalar!(/// `fixed64`.
    Fixed64, u64, Fixed64, read_fixed64, put_fixed64, v => *v, 8);
scalar!(/// `sfixed32`.
    SFixed32, i32, Fixed32, read_sfixed32, put_sfixed32, v => *v, 4);
scalar!(/// `sfixed64`.
    SFixed64, i64, Fixed64, read_sfixed64, put_sfixed64, v => *v, 8);
scalar!(/// `float`.
    Float, f32, Fixed32, read_float, put_float, v => *v, 4);
scalar!(/// `double`.
    Double, f64, Fixed64, read_double, put_double, v => *v, 8);
scalar!(/// `string`.
    Str, String, LengthDelimited, read_string, put_string, v => v.as_str(), wire::len_delimited(v.len()));
scalar!(/// `bytes`.
    Bytes, Vec<u8>, LengthDelimited, read_byte_vec, put_bytes, v => v.as_slice(), wire::len_delimited(v.len()));

/// A closed enum `E`, as its number: a number `E` does not declare is kept among the unknown
/// fields, as the spec asks.
pub struct ClosedEnum<E>(PhantomData<fn() -> E>);

impl<E: TryFrom<i32> + 'static> ExtensionType for ClosedEnum<E> {
    type Value = i32;
    fn merge(
        value: &mut Option<i32>,
        wire_type: WireType,
        number: u32,
        r: &mut Reader<'_>,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        merge_scalar::<Self>(value, wire_type, number, r, unknown)
    }
    fn encoded_len(value: &i32, number: u32) -> usize {
        Enum::encoded_len(value, number)
    }
    fn encode_reverse(value: &i32, number: u32, w: &mut ReverseWriter<'_>) {
        Enum::encode_reverse(value, number, w)
    }
}

impl<E: TryFrom<i32> + 'static> RepeatedScalar for ClosedEnum<E> {
    const WIRE_TYPE: WireType = WireType::Varint;
    const PACKABLE: bool = true;
    fn read_one(r: &mut Reader<'_>) -> Result<i32, DecodeError> {
        r.read_int32()
    }
    fn one_len(v: &i32) -> usize {
        wire::int32(*v)
    }
    fn put_one(v: &i32, w: &mut ReverseWriter<'_>) {
        w.put_int32(*v)
    }
    fn holds(v: &i32) -> bool {
        E::try_from(*v).is_ok()
    }
}

/// An embedded message `M`, length-prefixed.
pub struct MessageOf<M>(PhantomData<fn() -> M>);

impl<M: Message + Clone + PartialEq + fmt::Debug + Send + Sync + 'static> ExtensionType
    for MessageOf<M>
{
    type Value = M;
    fn merge(
        value: &mut Option<M>,
        wire_type: WireType,
        _number: u32,
        r: &mut Reader<'_>,
        _unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        if wire_type != WireType::LengthDelimited {
            return Ok(false);
        }
        r.merge_message(value.get_or_insert_with(M::default))?;
        Ok(true)
    }
    fn encoded_len(value: &M, number: u32) -> usize {
        key_len(number) + wire::len_delimited(value.size())
    }
    fn encode_reverse(value: &M, number: u32, w: &mut ReverseWriter<'_>) {
        let mark = w.written();
        value.encode_reverse(w);
        w.put_len(mark);
        w.put_varint(u64::from(wire::key(number, WireType::LengthDelimited)));
    }
}

/// A group (or an editions `DELIMITED` message) `M`.
pub struct GroupOf<M>(PhantomData<fn() -> M>);

impl<M: Message + Clone + PartialEq + fmt::Debug + Send + Sync + 'static> ExtensionType
    for GroupOf<M>
{
    type Value = M;
    fn merge(
        value: &mut Option<M>,
        wire_type: WireType,
        number: u32,
        r: &mut Reader<'_>,
        _unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        if wire_type != WireType::StartGroup {
            return Ok(false);
        }
        r.merge_group(value.get_or_insert_with(M::default), number)?;
        Ok(true)
    }
    fn encoded_len(value: &M, number: u32) -> usize {
        2 * key_len(number) + value.size()
    }
    fn encode_reverse(value: &M, number: u32, w: &mut ReverseWriter<'_>) {
        w.put_varint(u64::from(wire::key(number, WireType::EndGroup)));
        value.encode_reverse(w);
        w.put_varint(u64::from(wire::key(number, WireType::StartGroup)));
    }
}

/// A repeated extension of scalars `T`, written one record per value; packed runs are read too.
pub struct Repeated<T>(PhantomData<fn() -> T>);

/// A repeated extension of scalars `T`, written packed; unpacked records are read too.
pub struct Packed<T>(PhantomData<fn() -> T>);

fn merge_repeated<T: RepeatedScalar>(
    value: &mut Option<Vec<T::Value>>,
    wire_type: WireType,
    number: u32,
    r: &mut Reader<'_>,
    unknown: &mut UnknownFields,
) -> Result<bool, DecodeError> {
    let mut keep = |r: &mut Reader<'_>| -> Result<(), DecodeError> {
        let mark = r.mark();
        let v = T::read_one(r)?;
        if T::holds(&v) {
            r.charge(core::mem::size_of::<T::Value>())?;
            value.get_or_insert_with(Vec::new).push(v);
            Ok(())
        } else {
            T::divert(number, mark, r, unknown)
        }
    };
    if wire_type == WireType::LengthDelimited && T::PACKABLE {
        let run = r.read_len_delimited()?;
        r.packed_body(run, |run| {
            while !run.is_empty() {
                keep(run)?;
            }
            Ok(())
        })?;
    } else if wire_type == T::WIRE_TYPE {
        keep(r)?;
    } else {
        return Ok(false);
    }
    Ok(true)
}

impl<T: RepeatedScalar> ExtensionType for Repeated<T> {
    type Value = Vec<T::Value>;
    fn read_nothing() -> Option<Self::Value> {
        Some(Vec::new())
    }
    fn merge(
        value: &mut Option<Self::Value>,
        wire_type: WireType,
        number: u32,
        r: &mut Reader<'_>,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        merge_repeated::<T>(value, wire_type, number, r, unknown)
    }
    fn encoded_len(values: &Self::Value, number: u32) -> usize {
        values.iter().map(|v| T::encoded_len(v, number)).sum()
    }
    fn encode_reverse(values: &Self::Value, number: u32, w: &mut ReverseWriter<'_>) {
        for v in values.iter().rev() {
            T::encode_reverse(v, number, w);
        }
    }
}

impl<T: RepeatedScalar> ExtensionType for Packed<T> {
    type Value = Vec<T::Value>;
    fn read_nothing() -> Option<Self::Value> {
        Some(Vec::new())
    }
    fn merge(
        value: &mut Option<Self::Value>,
        wire_type: WireType,
        number: u32,
        r: &mut Reader<'_>,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        merge_repeated::<T>(value, wire_type, number, r, unknown)
    }
    fn encoded_len(values: &Self::Value, number: u32) -> usize {
        if values.is_empty() {
            return 0;
        }
        let body: usize = values.iter().map(T::one_len).sum();
        key_len(number) + wire::len_delimited(body)
    }
    fn encode_reverse(values: &Self::Value, number: u32, w: &mut ReverseWriter<'_>) {
        if values.is_empty() {
            return;
        }
        let mark = w.written();
        for v in values.iter().rev() {
            T::put_one(v, w);
        }
        w.put_len(mark);
        w.put_varint(u64::from(wire::key(number, WireType::LengthDelimited)));
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
    fn merge(
        value: &mut Option<Self::Value>,
        wire_type: WireType,
        number: u32,
        r: &mut Reader<'_>,
        unknown: &mut UnknownFields,
    ) -> Result<bool, DecodeError> {
        let mut one = None;
        if !T::merge(&mut one, wire_type, number, r, unknown)? {
            return Ok(false);
        }
        value.get_or_insert_with(Vec::new).extend(one);
        Ok(true)
    }
    fn encoded_len(values: &Self::Value, number: u32) -> usize {
        values.iter().map(|v| T::encoded_len(v, number)).sum()
    }
    fn encode_reverse(values: &Self::Value, number: u32, w: &mut ReverseWriter<'_>) {
        for v in values.iter().rev() {
            T::encode_reverse(v, number, w);
        }
    }
}
