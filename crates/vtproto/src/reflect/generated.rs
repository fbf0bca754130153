//! Reflection over generated types (`features=..+reflect`): each generated message implements
//! [`ReflectMessage`], a field accessor by number that hands out each field's storage as a
//! trait object of this module ([`FieldRef`], [`FieldMut`]), so that one runtime walker reads
//! and writes any generated struct by its descriptor, with no copy and no bytes in between.
//! The generated part is a `match` per message; everything else (the Rust types of fields:
//! scalars, `String`, `Vec`, `Option`, `Box`, maps, prost's primitives for the wrapper types)
//! is implemented once, here.
//!
//! ```
//! # #[cfg(feature = "types")] {
//! use vtproto::reflect::{ReflectMessage, Value};
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
use crate::prelude::*;
use crate::{DecodeError, Reader, ReverseWriter, UnknownFields};

/// A generated message, walked by its descriptor (`features=..+reflect`).
pub trait ReflectMessage {
    /// The message's descriptor, from its package's pool (the package's files and their
    /// imports).
    fn descriptor(&self) -> MessageDescriptor;

    /// The field numbered `number` as it is stored; `None` when the type has no such field,
    /// or it is a member of a oneof that holds another member (or none).
    fn field(&self, number: u32) -> Option<FieldRef<'_>>;

    /// The field numbered `number`, to change; a oneof member is made the oneof's value (at
    /// its default) first. `None` when the type has no such field.
    fn field_mut(&mut self, number: u32) -> Option<FieldMut<'_>>;

    /// The unknown fields and extensions it keeps (`mode=standalone`); `None` where the type
    /// keeps none (prost's structs).
    fn unknown_fields(&self) -> Option<&UnknownFields> {
        None
    }

    /// Merges encoded fields the accessors do not reach (extensions, unknown fields) as the
    /// type's decoder does.
    fn merge_unknown(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        let _ = bytes;
        Ok(())
    }

    /// Whether a closed enum's field may hold any number (prost's structs, `mode=prost`):
    /// reading JSON or text into it by its tables then takes any number, as its generated
    /// code would.
    fn holds_any_enum_number(&self) -> bool {
        false
    }

    /// The message as a [`DynamicMessage`] of its own descriptor.
    fn to_dynamic(&self) -> DynamicMessage {
        to_dynamic(self.as_dyn(), self.descriptor())
    }

    /// Merges `message` into this one, as the binary `merge` would merge its encoding: set
    /// singular fields replace, lists append, map entries are inserted, messages merge.
    /// Fails when `message` is of another type.
    fn merge_dynamic(&mut self, message: &DynamicMessage) -> Result<(), TypeMismatch> {
        let desc = self.descriptor();
        if message.descriptor().full_name() != desc.full_name() {
            return Err(TypeMismatch {
                expected: desc.full_name().into(),
                found: message.descriptor().full_name().into(),
            });
        }
        merge_dynamic(self.as_dyn_mut(), message);
        Ok(())
    }

    /// `self` as a trait object (implemented by generated code as `self`).
    #[doc(hidden)]
    fn as_dyn(&self) -> &dyn ReflectMessage;

    /// `self` as a mutable trait object.
    #[doc(hidden)]
    fn as_dyn_mut(&mut self) -> &mut dyn ReflectMessage;
}

/// [`ReflectMessage::merge_dynamic`] was given a message of another type.
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

impl<T: ReflectMessage + ?Sized> ReflectMessage for Box<T> {
    fn descriptor(&self) -> MessageDescriptor {
        (**self).descriptor()
    }
    fn field(&self, number: u32) -> Option<FieldRef<'_>> {
        (**self).field(number)
    }
    fn field_mut(&mut self, number: u32) -> Option<FieldMut<'_>> {
        (**self).field_mut(number)
    }
    fn unknown_fields(&self) -> Option<&UnknownFields> {
        (**self).unknown_fields()
    }
    fn merge_unknown(&mut self, bytes: &[u8]) -> Result<(), DecodeError> {
        (**self).merge_unknown(bytes)
    }
    fn holds_any_enum_number(&self) -> bool {
        (**self).holds_any_enum_number()
    }
    fn as_dyn(&self) -> &dyn ReflectMessage {
        (**self).as_dyn()
    }
    fn as_dyn_mut(&mut self) -> &mut dyn ReflectMessage {
        (**self).as_dyn_mut()
    }
}

/// A field's storage, read.
pub enum FieldRef<'a> {
    /// A plain value: implicit presence (written unless it is the zero), or prost's required.
    Single(&'a dyn ReflectValue),
    /// A value with presence (`Option<T>`, a oneof member), if present.
    Optional(Option<&'a dyn ReflectValue>),
    /// A repeated field.
    List(&'a dyn ReflectList),
    /// A map field.
    Map(&'a dyn ReflectMap),
}

/// A field's storage, to change.
pub enum FieldMut<'a> {
    /// A plain value (or a oneof member, made the oneof's value).
    Single(&'a mut dyn ReflectValue),
    /// A value with presence.
    Optional(&'a mut dyn ReflectOptional),
    /// A repeated field.
    List(&'a mut dyn ReflectList),
    /// A map field.
    Map(&'a mut dyn ReflectMap),
}

/// One value of a field as generated code stores it: a scalar, an enum's number (`i32`), a
/// message, or a wrapper type as prost's primitive (`Option<i32>` for `Int32Value`).
pub trait ReflectValue {
    /// The value as a [`Value`] of the field's `kind`.
    fn to_value(&self, kind: &Kind) -> Value;

    /// Merges `value`: a scalar replaces, a message merges. A value of another kind is
    /// ignored.
    fn merge_value(&mut self, kind: &Kind, value: Value);
}

/// An `Option<T>` field.
pub trait ReflectOptional {
    /// The value, set to its default first if absent.
    fn get_or_default(&mut self) -> &mut dyn ReflectValue;
    /// Makes it absent.
    fn clear(&mut self);
}

impl<T: ReflectValue + Default> ReflectOptional for Option<T> {
    fn get_or_default(&mut self) -> &mut dyn ReflectValue {
        self.get_or_insert_with(T::default)
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
    fn get(&self, i: usize) -> Option<&dyn ReflectValue>;
    /// Appends a value converted from `value`.
    fn push_value(&mut self, kind: &Kind, value: Value);
    /// Removes every value.
    fn clear(&mut self);
}

impl<T: ReflectValue + Default> ReflectList for Vec<T> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn get(&self, i: usize) -> Option<&dyn ReflectValue> {
        self.as_slice().get(i).map(|v| v as &dyn ReflectValue)
    }
    fn push_value(&mut self, kind: &Kind, value: Value) {
        let mut v = T::default();
        v.merge_value(kind, value);
        self.push(v);
    }
    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// A map's key type.
pub trait ReflectKey {
    /// The key as a [`MapKey`].
    fn to_key(&self) -> MapKey;
    /// The key from a [`MapKey`] (`None` for a key of another kind).
    fn from_key(key: MapKey) -> Option<Self>
    where
        Self: Sized;
}

macro_rules! keys {
    ($($ty:ty => $variant:ident),*) => {$(
        impl ReflectKey for $ty {
            fn to_key(&self) -> MapKey {
                MapKey::$variant(self.clone())
            }
            fn from_key(key: MapKey) -> Option<Self> {
                match key {
                    MapKey::$variant(k) => Some(k),
                    _ => None,
                }
            }
        }
    )*};
}
keys!(bool => Bool, i32 => I32, i64 => I64, u32 => U32, u64 => U64, String => String);

/// A map field (`HashMap<K, V>` or `BTreeMap<K, V>`).
pub trait ReflectMap {
    /// How many entries it holds.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Calls `f` with each entry, in no particular order.
    fn for_each(&self, f: &mut dyn FnMut(MapKey, &dyn ReflectValue));
    /// Inserts an entry converted from `key` and `value` (replacing the key's).
    fn insert_value(&mut self, key: MapKey, kind: &Kind, value: Value);
    /// Removes every entry.
    fn clear(&mut self);
}

impl<K: ReflectKey + Ord, V: ReflectValue + Default> ReflectMap for BTreeMap<K, V> {
    fn len(&self) -> usize {
        BTreeMap::len(self)
    }
    fn for_each(&self, f: &mut dyn FnMut(MapKey, &dyn ReflectValue)) {
        for (k, v) in self {
            f(k.to_key(), v);
        }
    }
    fn insert_value(&mut self, key: MapKey, kind: &Kind, value: Value) {
        if let Some(k) = K::from_key(key) {
            let mut v = V::default();
            v.merge_value(kind, value);
            self.insert(k, v);
        }
    }
    fn clear(&mut self) {
        BTreeMap::clear(self);
    }
}

#[cfg(feature = "std")]
impl<K, V, S> ReflectMap for std::collections::HashMap<K, V, S>
where
    K: ReflectKey + Eq + core::hash::Hash,
    V: ReflectValue + Default,
    S: core::hash::BuildHasher,
{
    fn len(&self) -> usize {
        std::collections::HashMap::len(self)
    }
    fn for_each(&self, f: &mut dyn FnMut(MapKey, &dyn ReflectValue)) {
        for (k, v) in self {
            f(k.to_key(), v);
        }
    }
    fn insert_value(&mut self, key: MapKey, kind: &Kind, value: Value) {
        if let Some(k) = K::from_key(key) {
            let mut v = V::default();
            v.merge_value(kind, value);
            self.insert(k, v);
        }
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

/// A wrapper type's message as its value.
fn unwrap(v: Value) -> Value {
    match v {
        Value::Message(m) => {
            let mut m = *m;
            match m.desc.get_field(1) {
                Some(f) => m.fields[f.position()]
                    .take()
                    .unwrap_or_else(|| Value::default_for(&f)),
                None => Value::Bool(false),
            }
        }
        v => v,
    }
}

macro_rules! scalars {
    ($($ty:ty => $variant:ident),*) => {$(
        impl ReflectValue for $ty {
            fn to_value(&self, kind: &Kind) -> Value {
                wrap(kind, Value::$variant(self.clone()))
            }
            fn merge_value(&mut self, _: &Kind, value: Value) {
                if let Value::$variant(v) = unwrap(value) {
                    *self = v.into();
                }
            }
        }
    )*};
}
scalars!(bool => Bool, i64 => I64, u32 => U32, u64 => U64, f32 => F32, f64 => F64,
    String => String, Vec<u8> => Bytes);

/// `int32`s, and enums' numbers.
impl ReflectValue for i32 {
    fn to_value(&self, kind: &Kind) -> Value {
        match kind {
            Kind::Enum(_) => Value::EnumNumber(*self),
            _ => wrap(kind, Value::I32(*self)),
        }
    }
    fn merge_value(&mut self, _: &Kind, value: Value) {
        if let Value::I32(v) | Value::EnumNumber(v) = unwrap(value) {
            *self = v;
        }
    }
}

impl ReflectValue for bytes::Bytes {
    fn to_value(&self, kind: &Kind) -> Value {
        wrap(kind, Value::Bytes(self.to_vec()))
    }
    fn merge_value(&mut self, _: &Kind, value: Value) {
        if let Value::Bytes(v) = unwrap(value) {
            *self = v.into();
        }
    }
}

/// `google.protobuf.Empty` as prost maps it.
impl ReflectValue for () {
    fn to_value(&self, kind: &Kind) -> Value {
        match kind {
            Kind::Message(desc) => Value::Message(Box::new(DynamicMessage::new(desc.clone()))),
            _ => Value::Bool(false),
        }
    }
    fn merge_value(&mut self, _: &Kind, _: Value) {}
}

impl<M: ReflectMessage> ReflectValue for M {
    fn to_value(&self, kind: &Kind) -> Value {
        let desc = match kind {
            Kind::Message(desc) => desc.clone(),
            _ => self.descriptor(),
        };
        Value::Message(Box::new(to_dynamic(self.as_dyn(), desc)))
    }
    fn merge_value(&mut self, _: &Kind, value: Value) {
        if let Value::Message(m) = value {
            merge_dynamic(self.as_dyn_mut(), &m);
        }
    }
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
                let v = v.to_value(&f.kind());
                if !f.has_presence() && v.is_zero() {
                    continue;
                }
                v
            }
            Some(FieldRef::Optional(Some(v))) => v.to_value(&f.kind()),
            Some(FieldRef::List(list)) => {
                if list.is_empty() {
                    continue;
                }
                let kind = f.kind();
                Value::List(
                    (0..list.len())
                        .filter_map(|i| list.get(i))
                        .map(|v| v.to_value(&kind))
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
                    entries.insert(k, v.to_value(&value_kind));
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

/// Merges `from` into `to` field by field (see [`ReflectMessage::merge_dynamic`]); the
/// extensions and unknown fields of `from` go through `to`'s decoder.
pub fn merge_dynamic(to: &mut dyn ReflectMessage, from: &DynamicMessage) {
    for (position, value) in from.fields.iter().enumerate() {
        let Some(value) = value else { continue };
        let f = from.desc.field_at(position);
        if !f.has_presence() && value.is_zero() {
            continue;
        }
        let Some(slot) = to.field_mut(f.number()) else {
            continue;
        };
        let kind = f.kind();
        match (slot, value) {
            (FieldMut::Single(v), value) => v.merge_value(&kind, value.clone()),
            (FieldMut::Optional(v), value) => v.get_or_default().merge_value(&kind, value.clone()),
            (FieldMut::List(list), Value::List(values)) => {
                for v in values {
                    list.push_value(&kind, v.clone());
                }
            }
            (FieldMut::Map(map), Value::Map(entries)) => {
                if let Some((_, value_kind)) = f.map_kinds() {
                    for (k, v) in entries {
                        map.insert_value(k.clone(), &value_kind, v.clone());
                    }
                }
            }
            _ => {}
        }
    }
    if !from.extensions.is_empty() || !from.unknown.is_empty() {
        let mut tail = DynamicMessage::new(from.desc.clone());
        tail.extensions = from.extensions.clone();
        tail.unknown = from.unknown.clone();
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

    /// The message type of this full name (`pkg.Msg`).
    ///
    /// # Panics
    /// If the pool has no such message: generated code asks for its own types.
    pub fn message(&self, full_name: &str) -> MessageDescriptor {
        self.get()
            .get_message_by_name(full_name)
            .unwrap_or_else(|| panic!("{full_name} is not in its package's descriptors"))
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

/// ProtoJSON from the tables (`tables=` paths): what a generated message's
/// `JsonMessage::write_json` calls when its JSON is not generated code. The output is
/// [`DynamicMessage`]'s, byte for byte.
#[cfg(feature = "json")]
pub fn write_json(
    message: &dyn ReflectMessage,
    w: &mut crate::json::JsonWriter<'_>,
) -> Result<(), crate::json::JsonError> {
    message.to_dynamic().write_json(w)
}

/// Reads one JSON value into `message` by its tables (see [`write_json`]), merging.
#[cfg(feature = "json")]
pub fn merge_json(
    message: &mut dyn ReflectMessage,
    r: &mut crate::json::JsonReader<'_, '_>,
) -> Result<(), crate::json::JsonError> {
    let mut read = DynamicMessage::new(message.descriptor());
    let open = core::mem::replace(&mut r.open_enums, message.holds_any_enum_number());
    let result = read.merge_json(r);
    r.open_enums = open;
    result?;
    merge_dynamic(message, &read);
    Ok(())
}

/// The text format from the tables (`tables=` paths): a generated message's fields, as
/// [`DynamicMessage`] writes them.
#[cfg(feature = "text")]
pub fn write_text(
    message: &dyn ReflectMessage,
    w: &mut crate::text::TextWriter<'_>,
) -> Result<(), crate::text::TextError> {
    message.to_dynamic().write_text(w)
}

/// Reads fields into `message` by its tables (see [`write_text`]), merging.
#[cfg(feature = "text")]
pub fn merge_text(
    message: &mut dyn ReflectMessage,
    r: &mut crate::text::TextReader<'_, '_>,
) -> Result<(), crate::text::TextError> {
    let mut read = DynamicMessage::new(message.descriptor());
    let open = core::mem::replace(&mut r.open_enums, message.holds_any_enum_number());
    let result = read.merge_text(r);
    r.open_enums = open;
    result?;
    merge_dynamic(message, &read);
    Ok(())
}
