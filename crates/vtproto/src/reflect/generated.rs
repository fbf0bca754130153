//! Reflection over generated types (`features=..+reflect`): each generated message implements
//! [`ReflectMessage`] and [`ReflectMessageMut`], field accessors by number that hand out each
//! field's storage as a trait object of this module ([`FieldRef`] to read, [`FieldMut`] to
//! write), so that one runtime walker reads and writes any generated struct by its
//! descriptor, with no copy and no bytes in between.
//! The generated part is a `match` per message; everything else (the Rust types of fields:
//! scalars, `String`, `Vec`, `Option`, `Box`, maps, prost's primitives for the wrapper types)
//! is implemented once, here.
//!
//! ```
//! # #[cfg(feature = "types")] {
//! use vtproto::reflect::{ReflectMessage, ReflectMessageMut, Value};
//! let ts = vtproto::types::Timestamp { seconds: 7, nanos: 1, ..Default::default() };
//! let dynamic = ts.to_dynamic();
//! assert_eq!(dynamic.get_field_by_name("seconds"), Some(Value::I64(7)));
//! let mut back = vtproto::types::Timestamp::default();
//! back.merge_dynamic(&dynamic).unwrap();
//! assert_eq!(back, ts);
//! # }
//! ```

use alloc::collections::BTreeMap;
use core::sync::atomic::{AtomicPtr, Ordering};

use super::descriptors::{Kind, MessageDescriptor};
use super::dynamic::{DynamicMessage, MapKey, Value};
use super::pool::DescriptorPool;
#[cfg(feature = "json")]
use crate::json::{JsonError, JsonReader};
use crate::prelude::*;
#[cfg(feature = "text")]
use crate::text::{TextError, TextReader};
use crate::{DecodeError, Reader, ReverseWriter, UnknownFields};

/// A generated message, walked by its descriptor (`features=..+reflect`).
pub trait ReflectMessage {
    /// The message's descriptor, from its package's pool (the package's files and their
    /// imports).
    fn descriptor(&self) -> MessageDescriptor;

    /// The field numbered `number` as it is stored; `None` when the type has no such field,
    /// or it is a member of a oneof that holds another member (or none).
    fn field(&self, number: u32) -> Option<FieldRef<'_>>;

    /// The unknown fields and extensions it keeps (`mode=standalone`); `None` where the type
    /// keeps none (prost's structs).
    fn unknown_fields(&self) -> Option<&UnknownFields> {
        None
    }

    /// Whether a closed enum's field may hold any number: reading JSON or text into it by
    /// its tables then takes any number, as its generated code would. A type that keeps
    /// unknown fields keeps an undeclared number there instead; one that keeps none
    /// (prost's structs) holds it in the field.
    fn holds_any_enum_number(&self) -> bool {
        self.unknown_fields().is_none()
    }

    /// The message as a [`DynamicMessage`] of its own descriptor.
    // `Self: Sized` keeps this out of the vtable, so it is compiled only where it is called,
    // not for every message type (the free function serves `dyn ReflectMessage`).
    fn to_dynamic(&self) -> DynamicMessage
    where
        Self: Sized,
    {
        to_dynamic(self, self.descriptor())
    }

    /// What generated readers charge to a decode's memory budget when a singular field of
    /// this type gets a new value: a boxed message's size (a `Box<M>`), nothing for a message
    /// stored in its parent. Out of the vtable, as [`to_dynamic`](Self::to_dynamic).
    #[doc(hidden)]
    fn boxed_size() -> usize
    where
        Self: Sized,
    {
        0
    }
}

/// A generated message changed by its descriptor: the part of its tables that writes
/// (`features=..+reflect`, beside [`ReflectMessage`]). Kept apart so that what only reads a
/// message (JSON and text written from the tables, [`to_dynamic`]) compiles none of the
/// per-type code that writing needs (each field type's default, growth and drop).
pub trait ReflectMessageMut: ReflectMessage {
    /// The field numbered `number`, to change; a oneof member is made the oneof's value (at
    /// its default) first. `None` when the type has no such field.
    fn field_mut(&mut self, number: u32) -> Option<FieldMut<'_>>;

    /// Sets the oneof that has member `number` to none; false when no oneof has it. Generated
    /// for messages with oneofs; [`clear_field`](ReflectMessageMut::clear_field) calls it.
    fn clear_oneof(&mut self, number: u32) -> bool {
        let _ = number;
        false
    }

    /// Merges encoded fields the accessors do not reach (extensions, unknown fields) as the
    /// type's decoder does.
    fn merge_unknown(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let _ = bytes;
        Ok(())
    }

    /// Clears the field numbered `number`, as [`DynamicMessage::clear_field`] does: a value
    /// with presence becomes absent (a oneof that holds this member holds none; one that
    /// holds another member is left alone), a list or map empty. A field the struct always
    /// holds (implicit presence, and prost's required fields) takes its default. Nothing
    /// happens for a number the type does not have.
    fn clear_field(&mut self, number: u32)
    where
        Self: Sized,
    {
        clear_field(self, number)
    }

    /// Merges `message` into this one, as the binary `merge` would merge its encoding: set
    /// singular fields replace, lists append, map entries are inserted, messages merge.
    /// Fails when `message` is of another type.
    fn merge_dynamic(&mut self, message: &DynamicMessage) -> Result<(), TypeMismatch>
    where
        Self: Sized,
    {
        merge_checked(self, message)
    }
}

/// The storage of message field `number` to read a value into, with what generated code
/// charges a memory budget for it: a oneof's member (`member`; the oneof is cleared first,
/// its member made its value) its message's size (a boxed member is handed out unboxed), a
/// boxed field's new message its size; a message stored in its parent nothing more. `None`
/// where the type has no such message field.
#[cfg(any(feature = "json", feature = "text"))]
pub(super) fn message_slot(
    m: &mut dyn ReflectMessageMut,
    number: u32,
    member: bool,
) -> Option<(&mut dyn ReflectValueMut, usize)> {
    if member {
        m.clear_oneof(number);
    }
    Some(match m.field_mut(number)? {
        FieldMut::Single(v) if member => {
            let size = core::mem::size_of_val(v);
            (v, size)
        }
        FieldMut::Single(v) => (v, 0),
        FieldMut::Optional(v) => v.get_or_default(),
        _ => return None,
    })
}

/// [`ReflectMessageMut::clear_field`] for any `dyn ReflectMessageMut`.
pub fn clear_field(m: &mut dyn ReflectMessageMut, number: u32) {
    match m.field(number) {
        // No such field, a value already absent, or a oneof's member it does not hold.
        None | Some(FieldRef::Optional(None)) => return,
        Some(_) => {}
    }
    if m.clear_oneof(number) {
        return;
    }
    let desc = m.descriptor();
    match m.field_mut(number) {
        // Where generated code has no absent value (prost's required fields, implicit
        // presence), the field's default: its declared one, a message with no field set.
        Some(FieldMut::Single(v)) => match desc.get_field(number) {
            Some(f) if !matches!(f.kind(), Kind::Message(_)) => {
                v.merge_value(&f.kind(), Value::default_for(&f))
            }
            _ => v.clear_fields(),
        },
        Some(FieldMut::Optional(v)) => v.clear(),
        Some(FieldMut::List(v)) => v.clear(),
        Some(FieldMut::Map(v)) => v.clear(),
        None => {}
    }
}

/// Clears every field of `m` its descriptor names (a message stored as a plain value, which
/// only prost's required message fields are). Its unknown fields stay.
fn clear_message(m: &mut dyn ReflectMessageMut) {
    let desc = m.descriptor();
    for f in desc.fields() {
        clear_field(m, f.number());
    }
}

/// [`ReflectMessageMut::merge_dynamic`] for any `dyn ReflectMessageMut`.
pub fn merge_checked(
    to: &mut dyn ReflectMessageMut,
    message: &DynamicMessage,
) -> Result<(), TypeMismatch> {
    let desc = to.descriptor();
    if message.descriptor().full_name() != desc.full_name() {
        return Err(TypeMismatch {
            expected: desc.full_name().into(),
            found: message.descriptor().full_name().into(),
        });
    }
    merge_dynamic(to, message);
    Ok(())
}

/// [`ReflectMessageMut::merge_dynamic`] was given a message of another type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeMismatch {
    /// The type's full name.
    pub expected: String,
    /// The given message's.
    pub found: String,
}

impl core::fmt::Display for TypeMismatch {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "expected a {}, got a {}", self.expected, self.found)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TypeMismatch {}

impl<T: ReflectMessage> ReflectMessage for Box<T> {
    fn descriptor(&self) -> MessageDescriptor {
        (**self).descriptor()
    }
    fn boxed_size() -> usize {
        core::mem::size_of::<T>()
    }
    fn field(&self, number: u32) -> Option<FieldRef<'_>> {
        (**self).field(number)
    }
    fn unknown_fields(&self) -> Option<&UnknownFields> {
        (**self).unknown_fields()
    }
    fn holds_any_enum_number(&self) -> bool {
        (**self).holds_any_enum_number()
    }
}

impl<T: ReflectMessageMut> ReflectMessageMut for Box<T> {
    fn field_mut(&mut self, number: u32) -> Option<FieldMut<'_>> {
        (**self).field_mut(number)
    }
    fn clear_oneof(&mut self, number: u32) -> bool {
        (**self).clear_oneof(number)
    }
    fn merge_unknown(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        (**self).merge_unknown(bytes)
    }
}

/// A field's storage, read. A value is handed out as what its storage's
/// [`ReflectValue::as_ref`] gives, so a walker reads it without a second dynamic call.
#[non_exhaustive]
pub enum FieldRef<'a> {
    /// A plain value: implicit presence (written unless it is the zero), or prost's required.
    Single(ValueRef<'a>),
    /// A value with presence (`Option<T>`, a oneof member), if present.
    Optional(Option<ValueRef<'a>>),
    /// A repeated field.
    List(&'a dyn ReflectList),
    /// A map field.
    Map(&'a dyn ReflectMap),
}

/// A field's storage, to change.
pub enum FieldMut<'a> {
    /// A plain value (or a oneof member, made the oneof's value).
    Single(&'a mut dyn ReflectValueMut),
    /// A value with presence.
    Optional(&'a mut dyn ReflectOptional),
    /// A repeated field.
    List(&'a mut dyn ReflectListMut),
    /// A map field.
    Map(&'a mut dyn ReflectMapMut),
}

/// One value of a field as generated code stores it: a scalar, an enum's number (`i32`), a
/// message, or a wrapper type as prost's primitive (`Option<i32>` for `Int32Value`).
pub trait ReflectValue {
    /// The value as it is stored, without a copy.
    fn as_ref(&self) -> ValueRef<'_>;

    /// What generated readers charge to a decode's memory budget when a singular field
    /// stored as this type gets a new value ([`ReflectMessage::boxed_size`]; nothing for a
    /// scalar).
    #[doc(hidden)]
    fn boxed_size() -> usize
    where
        Self: Sized,
    {
        0
    }
}

/// One value of a field, changed (see [`ReflectValue`] and [`ReflectMessageMut`]).
pub trait ReflectValueMut: ReflectValue {
    /// Merges `value`: a scalar replaces, a message merges. A value of another kind is
    /// ignored.
    fn merge_value(&mut self, kind: &Kind, value: Value);

    /// Reads one ProtoJSON value of `kind` and merges it: what [`merge_value`] of the value
    /// read does, without a [`Value`] in between where the storage is a scalar of that kind.
    /// `false` when no value is read (an enum name the enum does not declare, skipped as the
    /// options ask).
    ///
    /// [`merge_value`]: Self::merge_value
    #[cfg(feature = "json")]
    fn merge_json(&mut self, kind: &Kind, r: &mut JsonReader<'_, '_>) -> Result<bool, JsonError> {
        merge_json_value(self, kind, r)
    }

    /// A message, to change in place (what a reader fills field by field); `None` for
    /// other values, and for a wrapper type stored as prost's primitive.
    fn as_message_mut(&mut self) -> Option<&mut dyn ReflectMessageMut> {
        None
    }

    /// A message: clears every field its descriptor names (what
    /// [`ReflectMessageMut::clear_field`] does to a message stored as a plain value).
    /// Nothing for other values, which `clear_field` sets to their field's default.
    fn clear_fields(&mut self) {}
}

/// One JSON value of `kind` as a new `T` (a list's element, a map's value); `None` when no
/// value is read.
#[cfg(feature = "json")]
#[inline]
fn stored_json<T: ReflectValueMut + Default>(
    kind: &Kind,
    r: &mut JsonReader<'_, '_>,
) -> Result<Option<T>, JsonError> {
    let mut v = T::default();
    Ok(v.merge_json(kind, r)?.then_some(v))
}

/// A map entry read in the text format (its opening delimiter read): its key as read, its
/// value in the map's type (strings and a message charged to the reader's memory budget as
/// they are read; the entry's sizes are charged once it is stored).
#[cfg(feature = "text")]
fn map_entry_text<V: ReflectValueMut + Default>(
    key_kind: &Kind,
    value_kind: &Kind,
    presence: bool,
    r: &mut TextReader<'_, '_>,
) -> Result<(Value, V), TextError> {
    let mut v = super::text::Stored(V::default());
    let k = super::text::read_entry(key_kind, value_kind, presence, &mut v, r)?;
    Ok((k, v.0))
}

/// A map entry's value read from JSON, a message's size charged to the reader's memory
/// budget before it is read, as generated code charges it (its fields as they are read);
/// the entry's [`map_entry_charge`] follows once it is stored (the same error at the same
/// place as a charge before, and no read value dropped on an error path).
#[cfg(feature = "json")]
fn map_value_json<V: ReflectValueMut + Default>(
    kind: &Kind,
    r: &mut JsonReader<'_, '_>,
) -> Result<Option<V>, JsonError> {
    if let Kind::Message(_) = kind {
        r.charge(core::mem::size_of::<V>())?;
    }
    let mut v = V::default();
    Ok(v.merge_json(kind, r)?.then_some(v))
}

/// What generated code charges for a map entry once its value is read: the key's size, and
/// the value's but for a message's (charged before it is read).
#[cfg(feature = "json")]
fn map_entry_charge<K, V>(kind: &Kind) -> usize {
    let value = match kind {
        Kind::Message(_) => 0,
        _ => core::mem::size_of::<V>(),
    };
    core::mem::size_of::<K>() + value
}

/// A scalar stored for a wrapper type (prost's `i32` for `Int32Value`), or `()` for
/// `Empty`, read by its own JSON code as generated code reads it; other kinds (an enum's
/// names) through a [`Value`].
#[cfg(feature = "json")]
fn wrapper_json<T: ReflectValueMut + crate::json::JsonMessage>(
    slot: &mut T,
    kind: &Kind,
    r: &mut JsonReader<'_, '_>,
) -> Result<bool, JsonError> {
    match kind {
        Kind::Message(_) => <T as crate::json::JsonMessage>::merge_json(slot, r).map(|()| true),
        _ => merge_json_value(slot, kind, r),
    }
}

/// [`ReflectValueMut::merge_json`] through a [`Value`]: the value read, then merged (what
/// the method provides, and what a scalar's override does for another kind).
#[cfg(feature = "json")]
fn merge_json_value<T: ReflectValueMut + ?Sized>(
    slot: &mut T,
    kind: &Kind,
    r: &mut JsonReader<'_, '_>,
) -> Result<bool, JsonError> {
    match super::json::read_value(kind, r)? {
        Some(v) => {
            slot.merge_value(kind, v);
            Ok(true)
        }
        None => Ok(false),
    }
}

/// One stored value, borrowed: what a walker reads without converting it.
#[derive(Clone, Copy)]
pub enum ValueRef<'a> {
    /// `bool`.
    Bool(bool),
    /// `int32`, `sint32`, `sfixed32`, or an enum's number.
    I32(i32),
    /// `int64`, `sint64`, `sfixed64`.
    I64(i64),
    /// `uint32`, `fixed32`.
    U32(u32),
    /// `uint64`, `fixed64`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// `string`.
    Str(&'a str),
    /// `bytes`.
    Bytes(&'a [u8]),
    /// A message.
    Message(&'a dyn ReflectMessage),
    /// `google.protobuf.Empty` as prost maps it (`()`).
    Unit,
}

impl ValueRef<'_> {
    /// Whether it is its type's zero (not written where presence is implicit; `-0.0` is
    /// not).
    pub fn is_zero(&self) -> bool {
        match *self {
            ValueRef::Bool(v) => !v,
            ValueRef::I32(v) => v == 0,
            ValueRef::I64(v) => v == 0,
            ValueRef::U32(v) => v == 0,
            ValueRef::U64(v) => v == 0,
            ValueRef::F32(v) => v.to_bits() == 0,
            ValueRef::F64(v) => v.to_bits() == 0,
            ValueRef::Str(v) => v.is_empty(),
            ValueRef::Bytes(v) => v.is_empty(),
            ValueRef::Message(_) | ValueRef::Unit => false,
        }
    }

    /// A scalar as a [`Value`] of `kind` (an enum's number as one); `None` for a message.
    pub fn scalar(&self, kind: &Kind) -> Option<Value> {
        Some(match *self {
            ValueRef::Bool(v) => Value::Bool(v),
            ValueRef::I32(v) if matches!(kind, Kind::Enum(_)) => Value::EnumNumber(v),
            ValueRef::I32(v) => Value::I32(v),
            ValueRef::I64(v) => Value::I64(v),
            ValueRef::U32(v) => Value::U32(v),
            ValueRef::U64(v) => Value::U64(v),
            ValueRef::F32(v) => Value::F32(v),
            ValueRef::F64(v) => Value::F64(v),
            ValueRef::Str(v) => Value::String(v.into()),
            ValueRef::Bytes(v) => Value::Bytes(v.into()),
            ValueRef::Message(_) | ValueRef::Unit => return None,
        })
    }
}

/// An `Option<T>` field.
pub trait ReflectOptional {
    /// The value, set to its default first if absent; and what generated readers charge to
    /// a decode's memory budget for that default (a boxed message's size, where it was
    /// absent; else nothing).
    fn get_or_default(&mut self) -> (&mut dyn ReflectValueMut, usize);
    /// Makes it absent.
    fn clear(&mut self);
}

impl<T: ReflectValueMut + Default> ReflectOptional for Option<T> {
    fn get_or_default(&mut self) -> (&mut dyn ReflectValueMut, usize) {
        let charge = if self.is_none() { T::boxed_size() } else { 0 };
        (self.get_or_insert_with(T::default), charge)
    }
    fn clear(&mut self) {
        *self = None;
    }
}

/// A repeated field (`Vec<T>`).
pub trait ReflectList {
    /// How many values it holds.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Its `i`-th value.
    fn get(&self, i: usize) -> Option<ValueRef<'_>>;
}

/// A repeated field, changed.
pub trait ReflectListMut: ReflectList {
    /// Appends a value converted from `value`.
    fn push_value(&mut self, kind: &Kind, value: Value);
    /// Appends a value at its default and lends it, to be filled in place.
    fn push_default(&mut self) -> &mut dyn ReflectValueMut;
    /// Reads one ProtoJSON value of `kind` and appends it (see
    /// [`ReflectValueMut::merge_json`]), charging the element's size to the reader's memory
    /// budget as generated code does (before the value is read; an enum's once read, as a
    /// name it does not declare may be skipped); `false` when no value is read.
    #[cfg(feature = "json")]
    fn push_json(&mut self, kind: &Kind, r: &mut JsonReader<'_, '_>) -> Result<bool, JsonError>;
    /// Removes every value.
    fn clear(&mut self);
}

impl<T: ReflectValue> ReflectList for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn get(&self, i: usize) -> Option<ValueRef<'_>> {
        self.as_slice().get(i).map(ReflectValue::as_ref)
    }
}

impl<T: ReflectValueMut + Default> ReflectListMut for Vec<T> {
    fn push_value(&mut self, kind: &Kind, value: Value) {
        let mut v = T::default();
        v.merge_value(kind, value);
        self.push(v);
    }
    fn push_default(&mut self) -> &mut dyn ReflectValueMut {
        let at = self.len();
        self.push(T::default());
        &mut self[at]
    }
    #[cfg(feature = "json")]
    fn push_json(&mut self, kind: &Kind, r: &mut JsonReader<'_, '_>) -> Result<bool, JsonError> {
        // Stored before an enum's charge, so that no read value is dropped on an error path
        // (its drop glue, for a message, compiled into every list's impl).
        let size = core::mem::size_of::<T>();
        let enumerated = matches!(kind, Kind::Enum(_));
        if !enumerated {
            r.charge(size)?;
        }
        let Some(v) = stored_json::<T>(kind, r)? else {
            return Ok(false);
        };
        self.push(v);
        if enumerated {
            r.charge(size)?;
        }
        Ok(true)
    }
    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// A map's key, borrowed (ordered as [`MapKey`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MapKeyRef<'a> {
    /// `bool`.
    Bool(bool),
    /// `int32`, `sint32`, `sfixed32`.
    I32(i32),
    /// `int64`, `sint64`, `sfixed64`.
    I64(i64),
    /// `uint32`, `fixed32`.
    U32(u32),
    /// `uint64`, `fixed64`.
    U64(u64),
    /// `string`.
    Str(&'a str),
}

impl MapKeyRef<'_> {
    /// The key, owned.
    pub fn to_key(self) -> MapKey {
        match self {
            MapKeyRef::Bool(k) => MapKey::Bool(k),
            MapKeyRef::I32(k) => MapKey::I32(k),
            MapKeyRef::I64(k) => MapKey::I64(k),
            MapKeyRef::U32(k) => MapKey::U32(k),
            MapKeyRef::U64(k) => MapKey::U64(k),
            MapKeyRef::Str(k) => MapKey::String(k.into()),
        }
    }
}

/// A map's key type.
pub trait ReflectKey {
    /// The key, borrowed.
    fn as_key(&self) -> MapKeyRef<'_>;
    /// The key from a [`MapKey`] (`None` for a key of another kind).
    fn from_key(key: MapKey) -> Option<Self>
    where
        Self: Sized;
}

macro_rules! keys {
    ($($ty:ty => $variant:ident),*) => {$(
        impl ReflectKey for $ty {
            #[inline]
            fn as_key(&self) -> MapKeyRef<'_> {
                MapKeyRef::$variant(*self)
            }
            #[inline]
            fn from_key(key: MapKey) -> Option<Self> {
                match key {
                    MapKey::$variant(k) => Some(k),
                    _ => None,
                }
            }
        }
    )*};
}
keys!(bool => Bool, i32 => I32, i64 => I64, u32 => U32, u64 => U64);

impl ReflectKey for String {
    #[inline]
    fn as_key(&self) -> MapKeyRef<'_> {
        MapKeyRef::Str(self)
    }
    #[inline]
    fn from_key(key: MapKey) -> Option<Self> {
        match key {
            MapKey::String(k) => Some(k),
            _ => None,
        }
    }
}

/// A map field (`HashMap<K, V>` or `BTreeMap<K, V>`).
pub trait ReflectMap {
    /// How many entries it holds.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Calls `f` with each entry, in no particular order.
    fn for_each<'a>(&'a self, f: &mut dyn FnMut(MapKeyRef<'a>, ValueRef<'a>));
}

/// A map field, changed.
pub trait ReflectMapMut: ReflectMap {
    /// Inserts an entry converted from `key` and `value` (replacing the key's); returns
    /// whether the key is new to the map.
    fn insert_value(&mut self, key: MapKey, kind: &Kind, value: Value) -> bool;
    /// Reads one ProtoJSON value of `kind` and inserts it under `key` (see
    /// [`ReflectValueMut::merge_json`]), charging the entry to the reader's memory budget as
    /// generated code does: `None` when no value is read, else whether the key is new to the
    /// map.
    #[cfg(feature = "json")]
    fn insert_json(
        &mut self,
        key: MapKey,
        kind: &Kind,
        r: &mut JsonReader<'_, '_>,
    ) -> Result<Option<bool>, JsonError>;
    /// Reads one entry in the text format (`{ key: .. value: .. }`, its opening delimiter
    /// read) and inserts it, replacing its key's, charging it to the reader's memory budget
    /// as generated code does.
    #[cfg(feature = "text")]
    fn insert_text(
        &mut self,
        key_kind: &Kind,
        value_kind: &Kind,
        presence: bool,
        r: &mut TextReader<'_, '_>,
    ) -> Result<(), TextError>;
    /// Reads a JSON object into a map of strings to strings as generated code reads one
    /// ([`JsonReader::str_map`]: the first entries read before the map is sized, then
    /// stored); `None`, with nothing read, where the map holds other types.
    #[cfg(feature = "json")]
    fn merge_json_strings(&mut self, r: &mut JsonReader<'_, '_>) -> Option<Result<(), JsonError>> {
        let _ = r;
        None
    }
    /// Removes every entry.
    fn clear(&mut self);
}

impl<K: ReflectKey, V: ReflectValue> ReflectMap for BTreeMap<K, V> {
    fn len(&self) -> usize {
        BTreeMap::len(self)
    }
    fn for_each<'a>(&'a self, f: &mut dyn FnMut(MapKeyRef<'a>, ValueRef<'a>)) {
        for (k, v) in self {
            f(k.as_key(), v.as_ref());
        }
    }
}

/// The map types the runtime's [`ReflectMapMut`] impls insert into.
trait Entries<K, V> {
    /// Inserts an entry, replacing the key's; whether the key is new.
    fn put(&mut self, k: K, v: V) -> bool;
}

impl<K: Ord, V> Entries<K, V> for BTreeMap<K, V> {
    fn put(&mut self, k: K, v: V) -> bool {
        self.insert(k, v).is_none()
    }
}

#[cfg(feature = "std")]
impl<K: Eq + core::hash::Hash, V, S: core::hash::BuildHasher> Entries<K, V>
    for std::collections::HashMap<K, V, S>
{
    fn put(&mut self, k: K, v: V) -> bool {
        self.insert(k, v).is_none()
    }
}

/// [`ReflectMapMut::insert_value`] of both map types.
fn insert_value<K: ReflectKey, V: ReflectValueMut + Default>(
    map: &mut impl Entries<K, V>,
    key: MapKey,
    kind: &Kind,
    value: Value,
) -> bool {
    let Some(k) = K::from_key(key) else {
        return false;
    };
    let mut v = V::default();
    v.merge_value(kind, value);
    map.put(k, v)
}

/// [`ReflectMapMut::insert_json`] of both map types.
#[cfg(feature = "json")]
fn insert_json<K: ReflectKey, V: ReflectValueMut + Default>(
    map: &mut impl Entries<K, V>,
    key: MapKey,
    kind: &Kind,
    r: &mut JsonReader<'_, '_>,
) -> Result<Option<bool>, JsonError> {
    let Some(v) = map_value_json::<V>(kind, r)? else {
        return Ok(None);
    };
    let new = K::from_key(key).is_some_and(|k| map.put(k, v));
    r.charge(map_entry_charge::<K, V>(kind))?;
    Ok(Some(new))
}

/// [`ReflectMapMut::insert_text`] of both map types.
#[cfg(feature = "text")]
fn insert_text<K: ReflectKey, V: ReflectValueMut + Default>(
    map: &mut impl Entries<K, V>,
    key_kind: &Kind,
    value_kind: &Kind,
    presence: bool,
    r: &mut TextReader<'_, '_>,
) -> Result<(), TextError> {
    let (k, v) = map_entry_text::<V>(key_kind, value_kind, presence, r)?;
    if let Some(k) = MapKey::from_value(k).and_then(K::from_key) {
        map.put(k, v);
    }
    // Charged once stored: the same error at the same place as a charge before.
    r.charge(core::mem::size_of::<K>() + core::mem::size_of::<V>())
}

impl<K, V> ReflectMapMut for BTreeMap<K, V>
where
    K: ReflectKey + Ord + 'static,
    V: ReflectValueMut + Default + 'static,
{
    fn insert_value(&mut self, key: MapKey, kind: &Kind, value: Value) -> bool {
        insert_value(self, key, kind, value)
    }
    #[cfg(feature = "json")]
    fn insert_json(
        &mut self,
        key: MapKey,
        kind: &Kind,
        r: &mut JsonReader<'_, '_>,
    ) -> Result<Option<bool>, JsonError> {
        insert_json(self, key, kind, r)
    }
    #[cfg(feature = "text")]
    fn insert_text(
        &mut self,
        key_kind: &Kind,
        value_kind: &Kind,
        presence: bool,
        r: &mut TextReader<'_, '_>,
    ) -> Result<(), TextError> {
        insert_text(self, key_kind, value_kind, presence, r)
    }
    #[cfg(feature = "json")]
    fn merge_json_strings(&mut self, r: &mut JsonReader<'_, '_>) -> Option<Result<(), JsonError>> {
        let map = (self as &mut dyn core::any::Any).downcast_mut::<BTreeMap<String, String>>()?;
        Some(r.str_map(map))
    }
    fn clear(&mut self) {
        BTreeMap::clear(self);
    }
}

#[cfg(feature = "std")]
impl<K: ReflectKey, V: ReflectValue, S> ReflectMap for std::collections::HashMap<K, V, S> {
    fn len(&self) -> usize {
        std::collections::HashMap::len(self)
    }
    fn for_each<'a>(&'a self, f: &mut dyn FnMut(MapKeyRef<'a>, ValueRef<'a>)) {
        for (k, v) in self {
            f(k.as_key(), v.as_ref());
        }
    }
}

#[cfg(feature = "std")]
impl<K, V, S> ReflectMapMut for std::collections::HashMap<K, V, S>
where
    K: ReflectKey + Eq + core::hash::Hash + 'static,
    V: ReflectValueMut + Default + 'static,
    S: core::hash::BuildHasher + Default + 'static,
{
    fn insert_value(&mut self, key: MapKey, kind: &Kind, value: Value) -> bool {
        insert_value(self, key, kind, value)
    }
    #[cfg(feature = "json")]
    fn insert_json(
        &mut self,
        key: MapKey,
        kind: &Kind,
        r: &mut JsonReader<'_, '_>,
    ) -> Result<Option<bool>, JsonError> {
        insert_json(self, key, kind, r)
    }
    #[cfg(feature = "text")]
    fn insert_text(
        &mut self,
        key_kind: &Kind,
        value_kind: &Kind,
        presence: bool,
        r: &mut TextReader<'_, '_>,
    ) -> Result<(), TextError> {
        insert_text(self, key_kind, value_kind, presence, r)
    }
    #[cfg(feature = "json")]
    fn merge_json_strings(&mut self, r: &mut JsonReader<'_, '_>) -> Option<Result<(), JsonError>> {
        let any = self as &mut dyn core::any::Any;
        let map = any.downcast_mut::<std::collections::HashMap<String, String, S>>()?;
        Some(r.str_map(map))
    }
    fn clear(&mut self) {
        std::collections::HashMap::clear(self);
    }
}

/// A wrapper type's value (`Int32Value` stored as prost's `i32`) as its message.
fn wrap(kind: &Kind, v: Value) -> Value {
    match kind {
        Kind::Message(desc) => {
            let mut m = DynamicMessage::new(desc.clone());
            if !v.is_zero() {
                m.set_at(1, v);
            }
            Value::Message(Box::new(m))
        }
        _ => v,
    }
}

/// A wrapper type's message as its value; any other value as it is. Inlined, so that a
/// scalar's `merge_value` is one match on the value read.
#[inline]
fn unwrap(v: Value) -> Value {
    match v {
        Value::Message(m) => unwrap_message(*m),
        v => v,
    }
}

/// [`unwrap`] of a message: its field 1, or that field's default.
#[cold]
fn unwrap_message(mut m: DynamicMessage) -> Value {
    match m.desc.get_field(1) {
        Some(f) => m.fields[f.position()]
            .take()
            .unwrap_or_else(|| Value::default_for(&f)),
        None => Value::Bool(false),
    }
}

macro_rules! scalars {
    ($($ty:ty => $variant:ident / $as_ref:ident, $($kind:ident)|+ => $read:ident),*) => {$(
        impl ReflectValue for $ty {
            #[inline]
            fn as_ref(&self) -> ValueRef<'_> {
                ValueRef::$as_ref(*self)
            }
        }
        impl ReflectValueMut for $ty {
            #[inline]
            fn merge_value(&mut self, _: &Kind, value: Value) {
                if let Value::$variant(v) = unwrap(value) {
                    *self = v.into();
                }
            }
            #[cfg(feature = "json")]
            #[inline]
            fn merge_json(
                &mut self,
                kind: &Kind,
                r: &mut JsonReader<'_, '_>,
            ) -> Result<bool, JsonError> {
                if !matches!(kind, $(Kind::$kind)|+) {
                    return wrapper_json(self, kind, r);
                }
                *self = r.$read()?.into();
                Ok(true)
            }
        }
    )*};
}
scalars!(bool => Bool / Bool, Bool => bool,
    i64 => I64 / I64, Int64 | Sint64 | Sfixed64 => i64,
    u32 => U32 / U32, Uint32 | Fixed32 => u32,
    u64 => U64 / U64, Uint64 | Fixed64 => u64,
    f32 => F32 / F32, Float => f32,
    f64 => F64 / F64, Double => f64);

macro_rules! owned {
    ($($ty:ty => $variant:ident / $as_ref:ident, $kind:ident => $read:ident / $other:ident),*) => {$(
        impl ReflectValue for $ty {
            #[inline]
            fn as_ref(&self) -> ValueRef<'_> {
                ValueRef::$as_ref(self)
            }
        }
        impl ReflectValueMut for $ty {
            #[inline]
            fn merge_value(&mut self, _: &Kind, value: Value) {
                if let Value::$variant(v) = unwrap(value) {
                    *self = v.into();
                }
            }
            #[cfg(feature = "json")]
            #[inline]
            fn merge_json(
                &mut self,
                kind: &Kind,
                r: &mut JsonReader<'_, '_>,
            ) -> Result<bool, JsonError> {
                if !matches!(kind, Kind::$kind) {
                    return $other(self, kind, r);
                }
                *self = r.$read()?.into();
                Ok(true)
            }
        }
    )*};
}
owned!(String => String / Str, String => string_owned / wrapper_json,
    Vec<u8> => Bytes / Bytes, Bytes => bytes / wrapper_json,
    bytes::Bytes => Bytes / Bytes, Bytes => bytes / merge_json_value);

/// `int32`s, and enums' numbers.
impl ReflectValue for i32 {
    #[inline]
    fn as_ref(&self) -> ValueRef<'_> {
        ValueRef::I32(*self)
    }
}

impl ReflectValueMut for i32 {
    fn merge_value(&mut self, _: &Kind, value: Value) {
        if let Value::I32(v) | Value::EnumNumber(v) = unwrap(value) {
            *self = v;
        }
    }
    #[cfg(feature = "json")]
    #[inline]
    fn merge_json(&mut self, kind: &Kind, r: &mut JsonReader<'_, '_>) -> Result<bool, JsonError> {
        // An enum's names are read as a value first.
        if !matches!(kind, Kind::Int32 | Kind::Sint32 | Kind::Sfixed32) {
            return wrapper_json(self, kind, r);
        }
        *self = r.i32()?;
        Ok(true)
    }
}

/// `google.protobuf.Empty` as prost maps it.
impl ReflectValue for () {
    #[inline]
    fn as_ref(&self) -> ValueRef<'_> {
        ValueRef::Unit
    }
}

impl ReflectValueMut for () {
    fn merge_value(&mut self, _: &Kind, _: Value) {}
    #[cfg(feature = "json")]
    fn merge_json(&mut self, kind: &Kind, r: &mut JsonReader<'_, '_>) -> Result<bool, JsonError> {
        wrapper_json(self, kind, r)
    }
}

// Each method one call to a function compiled once: this impl is instantiated for every
// message type used as a field.
impl<M: ReflectMessage> ReflectValue for M {
    #[inline]
    fn as_ref(&self) -> ValueRef<'_> {
        ValueRef::Message(self)
    }
    fn boxed_size() -> usize {
        M::boxed_size()
    }
}

impl<M: ReflectMessageMut + 'static> ReflectValueMut for M {
    fn merge_value(&mut self, _: &Kind, value: Value) {
        merge_message_value(self, value);
    }
    /// A message is read by its tables, field by field into its storage; a well-known type
    /// of the runtime's (or prost-types') by its own code, as generated code reads it.
    #[cfg(feature = "json")]
    fn merge_json(&mut self, kind: &Kind, r: &mut JsonReader<'_, '_>) -> Result<bool, JsonError> {
        match kind {
            Kind::Message(desc) => {
                if super::json::special(desc).is_some() {
                    if let Some(read) = super::json::merge_well_known(self, r) {
                        return read.map(|()| true);
                    }
                }
                super::json::merge_reflect(self, desc, r).map(|()| true)
            }
            _ => merge_json_value(self, kind, r),
        }
    }
    fn as_message_mut(&mut self) -> Option<&mut dyn ReflectMessageMut> {
        Some(self)
    }
    fn clear_fields(&mut self) {
        clear_message(self);
    }
}

/// A stored value as a [`Value`] of the field's `kind`: a message converted, a wrapper type
/// stored as prost's primitive (or `()` for `Empty`) as its message.
pub(super) fn value_of_ref(v: ValueRef<'_>, kind: &Kind) -> Value {
    match (v, kind) {
        (ValueRef::Message(m), Kind::Message(desc)) => {
            Value::Message(Box::new(to_dynamic(m, desc.clone())))
        }
        (ValueRef::Message(m), _) => Value::Message(Box::new(to_dynamic(m, m.descriptor()))),
        (ValueRef::Unit, Kind::Message(desc)) => {
            Value::Message(Box::new(DynamicMessage::new(desc.clone())))
        }
        (ValueRef::Unit, _) => Value::Bool(false),
        (scalar, kind) => match scalar.scalar(kind) {
            Some(v) => wrap(kind, v),
            None => Value::Bool(false),
        },
    }
}

fn merge_message_value(m: &mut dyn ReflectMessageMut, value: Value) {
    if let Value::Message(from) = value {
        merge_owned(m, *from);
    }
}

/// An `Option<T>` field as [`FieldRef::Optional`] holds it (what generated code calls).
#[inline]
pub fn optional<T: ReflectValue>(v: &Option<T>) -> Option<ValueRef<'_>> {
    v.as_ref().map(ReflectValue::as_ref)
}

/// `message` as a [`DynamicMessage`] of type `desc` (its own type's descriptor, or the same
/// type's in another pool): the fields the descriptor declares, read by number, then the
/// unknown fields and extensions it keeps.
pub fn to_dynamic(message: &dyn ReflectMessage, desc: MessageDescriptor) -> DynamicMessage {
    let mut out = DynamicMessage::new(desc.clone());
    for (position, f) in desc.fields().enumerate() {
        let value = match message.field(f.number()) {
            None | Some(FieldRef::Optional(None)) => continue,
            Some(FieldRef::Single(v)) => {
                if !f.has_presence() && v.is_zero() {
                    continue;
                }
                value_of_ref(v, &f.kind())
            }
            Some(FieldRef::Optional(Some(v))) => value_of_ref(v, &f.kind()),
            Some(FieldRef::List(list)) => {
                if list.is_empty() {
                    continue;
                }
                let kind = f.kind();
                Value::List(
                    (0..list.len())
                        .filter_map(|i| list.get(i))
                        .map(|v| value_of_ref(v, &kind))
                        .collect(),
                )
            }
            Some(FieldRef::Map(map)) => {
                if map.is_empty() {
                    continue;
                }
                let Some((_, value_kind)) = f.map_kinds() else {
                    continue;
                };
                let mut entries = BTreeMap::new();
                map.for_each(&mut |k, v| {
                    entries.insert(k.to_key(), value_of_ref(v, &value_kind));
                });
                Value::Map(entries)
            }
        };
        out.fields[position] = Some(value);
    }
    if let Some(unknown) = message.unknown_fields() {
        if !unknown.is_empty() {
            let mut buf = Vec::new();
            let mut w = ReverseWriter::growable(&mut buf);
            unknown.encode_reverse(&mut w);
            let bytes = w.written_bytes().to_vec();
            // They were read by the same rules: a record the pool's type declares as another
            // wire type stays unknown, the type's extensions are read into their types.
            let mut tail = DynamicMessage::new(desc);
            if tail.merge(&mut Reader::new(&bytes)).is_ok() {
                out.extensions = tail.extensions;
                out.unknown = tail.unknown;
            } else {
                out.unknown.extend(unknown);
            }
        }
    }
    out
}

/// Merges `from` into `to` field by field (see [`ReflectMessageMut::merge_dynamic`]); the
/// extensions and unknown fields of `from` go through `to`'s decoder.
pub fn merge_dynamic(to: &mut dyn ReflectMessageMut, from: &DynamicMessage) {
    merge_owned(to, from.clone());
}

/// [`merge_dynamic`], moving the values out of `from`.
pub fn merge_owned(to: &mut dyn ReflectMessageMut, from: DynamicMessage) {
    let DynamicMessage {
        desc,
        fields,
        extensions,
        unknown,
    } = from;
    for (position, value) in fields.into_iter().enumerate() {
        let Some(value) = value else { continue };
        let f = desc.field_at(position);
        if !f.has_presence() && value.is_zero() {
            continue;
        }
        let Some(slot) = to.field_mut(f.number()) else {
            continue;
        };
        let kind = f.kind();
        match (slot, value) {
            (FieldMut::Single(v), value) => v.merge_value(&kind, value),
            (FieldMut::Optional(v), value) => v.get_or_default().0.merge_value(&kind, value),
            (FieldMut::List(list), Value::List(values)) => {
                for v in values {
                    list.push_value(&kind, v);
                }
            }
            (FieldMut::Map(map), Value::Map(entries)) => {
                if let Some((_, value_kind)) = f.map_kinds() {
                    for (k, v) in entries {
                        map.insert_value(k, &value_kind, v);
                    }
                }
            }
            _ => {}
        }
    }
    if !extensions.is_empty() || !unknown.is_empty() {
        let mut tail = DynamicMessage::new(desc);
        tail.extensions = extensions;
        tail.unknown = unknown;
        // Bytes this runtime wrote: the type's decoder reads them.
        let _ = to.merge_unknown(&tail.encode_to_vec());
    }
}

/// A [`DescriptorPool`] decoded from an encoded `FileDescriptorSet` on first use and kept
/// for the program's life: the pool of a generated package (`features=..+reflect`). It
/// needs no `std`: two threads that race to build it both build one, and one is kept.
pub struct LazyPool {
    bytes: &'static [u8],
    pool: AtomicPtr<DescriptorPool>,
}

impl LazyPool {
    /// A pool of the files in `file_descriptor_set`, not decoded yet.
    pub const fn new(file_descriptor_set: &'static [u8]) -> Self {
        LazyPool {
            bytes: file_descriptor_set,
            pool: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    /// The pool, decoded now if it was not yet.
    ///
    /// # Panics
    /// If the bytes are no valid set of files: generated code embeds a set the generator
    /// checked.
    pub fn get(&self) -> &DescriptorPool {
        let ptr = self.pool.load(Ordering::Acquire);
        if !ptr.is_null() {
            // SAFETY: a non-null pointer was stored below from `Box::into_raw` and is never
            // freed nor changed again (the pool lives as long as `self`, which is `'static`
            // where generated code keeps it; a `LazyPool` dropped frees it in `Drop`).
            return unsafe { &*ptr };
        }
        let pool = DescriptorPool::decode(self.bytes)
            .unwrap_or_else(|e| panic!("a generated descriptor set does not load: {e}"));
        let fresh = Box::into_raw(Box::new(pool));
        match self.pool.compare_exchange(
            core::ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: `fresh` is now the stored pointer (see above).
            Ok(_) => unsafe { &*fresh },
            Err(winner) => {
                // SAFETY: `fresh` came from `Box::into_raw` above and was not shared.
                drop(unsafe { Box::from_raw(fresh) });
                // SAFETY: `winner` is the stored, non-null pointer (see above).
                unsafe { &*winner }
            }
        }
    }

    /// The message type of this full name (`pkg.Msg`), looked up once: `index` keeps its
    /// place in the pool (a generated message's `static`).
    ///
    /// # Panics
    /// If the pool has no such message: generated code asks for its own types.
    pub fn message(&self, index: &MessageIndex, full_name: &str) -> MessageDescriptor {
        let pool = self.get();
        let mut i = index.0.load(Ordering::Relaxed);
        if i == u32::MAX {
            i = pool
                .message_index(full_name)
                .unwrap_or_else(|| panic!("{full_name} is not in its package's descriptors"));
            index.0.store(i, Ordering::Relaxed);
        }
        pool.message_at(i)
    }
}

/// Where a generated message's descriptor is in its package's pool, found on first use.
#[derive(Debug)]
pub struct MessageIndex(core::sync::atomic::AtomicU32);

impl MessageIndex {
    /// Not found yet.
    pub const fn new() -> Self {
        MessageIndex(core::sync::atomic::AtomicU32::new(u32::MAX))
    }
}

impl Default for MessageIndex {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for LazyPool {
    fn drop(&mut self) {
        let ptr = *self.pool.get_mut();
        if !ptr.is_null() {
            // SAFETY: stored from `Box::into_raw` and not freed before.
            drop(unsafe { Box::from_raw(ptr) });
        }
    }
}

impl core::fmt::Debug for LazyPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LazyPool")
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// A generated message whose ProtoJSON and text format the tables serve (`tables=` paths):
/// it implements [`JsonMessage`](crate::json::JsonMessage) through [`write_json`] and
/// [`merge_json`], and [`TextMessage`](crate::text::TextMessage) through [`write_text`] and
/// [`merge_text`], where the runtime has the format. The generated code is one empty impl per
/// type: an impl of each format's trait per type cost rustc as much as the rest of a format
/// from the tables (`scripts/codegen-scale.sh --count`), and the blanket impls are compiled
/// only where a program uses them.
pub trait Tables: ReflectMessageMut + crate::Message + Default {}

#[cfg(feature = "json")]
impl<T: Tables> crate::json::JsonMessage for T {
    #[inline]
    fn write_json(
        &self,
        w: &mut crate::json::JsonWriter<'_>,
    ) -> Result<(), crate::json::JsonError> {
        write_json(self, w)
    }
    #[inline]
    fn merge_json(
        &mut self,
        r: &mut crate::json::JsonReader<'_, '_>,
    ) -> Result<(), crate::json::JsonError> {
        merge_json(self, r)
    }
}

#[cfg(feature = "text")]
impl<T: Tables> crate::text::TextMessage for T {
    #[inline]
    fn write_text(
        &self,
        w: &mut crate::text::TextWriter<'_>,
    ) -> Result<(), crate::text::TextError> {
        write_text(self, w)
    }
    #[inline]
    fn merge_text(
        &mut self,
        r: &mut crate::text::TextReader<'_, '_>,
    ) -> Result<(), crate::text::TextError> {
        merge_text(self, r)
    }
}

/// ProtoJSON from the tables (`tables=` paths): what a generated message's
/// `JsonMessage::write_json` calls when its JSON is not generated code. The output is
/// [`DynamicMessage`]'s, byte for byte.
#[cfg(feature = "json")]
pub fn write_json(
    message: &dyn ReflectMessage,
    w: &mut crate::json::JsonWriter<'_>,
) -> Result<(), crate::json::JsonError> {
    super::json::write_reflect(message, &message.descriptor(), w)
}

/// Reads one JSON value into `message` by its tables (see [`write_json`]), merging.
#[cfg(feature = "json")]
pub fn merge_json(
    message: &mut dyn ReflectMessageMut,
    r: &mut crate::json::JsonReader<'_, '_>,
) -> Result<(), crate::json::JsonError> {
    let open = core::mem::replace(&mut r.open_enums, message.holds_any_enum_number());
    let desc = message.descriptor();
    let result = super::json::merge_reflect(message, &desc, r);
    r.open_enums = open;
    result
}

/// The text format from the tables (`tables=` paths): a generated message's fields, as
/// [`DynamicMessage`] writes them.
#[cfg(feature = "text")]
pub fn write_text(
    message: &dyn ReflectMessage,
    w: &mut crate::text::TextWriter<'_>,
) -> Result<(), crate::text::TextError> {
    super::text::write_reflect(message, &message.descriptor(), w)
}

/// Reads fields into `message` by its tables (see [`write_text`]), merging.
#[cfg(feature = "text")]
pub fn merge_text(
    message: &mut dyn ReflectMessageMut,
    r: &mut crate::text::TextReader<'_, '_>,
) -> Result<(), crate::text::TextError> {
    let open = core::mem::replace(&mut r.open_enums, message.holds_any_enum_number());
    let desc = message.descriptor();
    let result = super::text::merge_reflect(message, &desc, r);
    r.open_enums = open;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lazy pool's `unsafe` (a pointer published once, freed on drop), also under Miri
    /// (`scripts/miri.sh`): threads racing to build it all get the one that was kept, and a
    /// pool that is not `'static` frees it when dropped.
    #[test]
    fn a_lazy_pool_is_built_once_and_freed_on_drop() {
        // An empty `FileDescriptorSet`, then one file with one message.
        let set: &'static [u8] = b"\x0a\x0d\x0a\x03a.p\x22\x06\x0a\x04Item";
        let lazy = LazyPool::new(set);
        let pools: Vec<&DescriptorPool> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4).map(|_| s.spawn(|| lazy.get())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(pools.windows(2).all(|w| core::ptr::eq(w[0], w[1])));
        assert!(core::ptr::eq(lazy.get(), pools[0]));
        let index = MessageIndex::new();
        assert_eq!(lazy.message(&index, "Item").full_name(), "Item");
        assert_eq!(lazy.message(&index, "Item").full_name(), "Item");
        drop(lazy);
        let never_used = LazyPool::new(set);
        drop(never_used);
    }
}
