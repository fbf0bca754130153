//! What generated `Deserialize` impls read field values with: a `DeserializeSeed` per ProtoJSON
//! form ([`I64`] takes a number or a decimal string, [`Bytes`] base64, [`Enum`] a name or a
//! number, ...), and [`ScalarOrNull`], [`Nullable`], [`List`] and [`StrMap`] around them. Each
//! takes what serde hands it in the common forms directly; the forms serde's data model cannot
//! tell apart (a number's exponent, a string holding a float) are written back as JSON text and
//! read by the direct path's reader, so that both paths accept and refuse the same values. A
//! field of a form not listed here (a well-known type, a closed enum of our structs, a map with
//! non-string keys) goes through [`fallback`]: its value as JSON text, merged by the message's
//! generated `merge_json`.
//!
//! What serde cannot give: a number with a fraction or an exponent reaches the impls as a
//! double, so an integer field reads the double's value (`1.0000000000000001` reads as 1,
//! `9007199254740993.0` as 9007199254740992, where the direct path refuses the first and reads
//! the second exactly); serde_json's `arbitrary_precision` feature, if any crate of a build
//! turns it on, hands numbers over in a form these impls do not read (numeric fields are then
//! refused: use the direct entry points); and nesting is limited by the format (serde_json: 128
//! levels), not by a [`DecodeOptions`] recursion limit.

use core::fmt;
use core::marker::PhantomData;
use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::super::{DecodeOptions, EncodeOptions, JsonError, JsonMessage, JsonReader, JsonWriter};
use crate::prelude::*;

/// Reads `text` (one JSON value) with `read`, the direct path's reader for the field's type.
fn via_reader<T, E: de::Error>(
    text: &str,
    read: impl FnOnce(&mut JsonReader<'_, '_>) -> Result<T, JsonError>,
) -> Result<T, E> {
    let options = DecodeOptions::default();
    let mut r = JsonReader::new(text, &options);
    let v = read(&mut r).map_err(E::custom)?;
    r.finish().map_err(E::custom)?;
    Ok(v)
}

/// `s` as a JSON string.
fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    JsonWriter::new(&mut out, &EncodeOptions::default()).str(s);
    out
}

/// `v` as a JSON number (shortest form); `null`, which no number reader takes, for a value
/// that is not finite (another format's `NaN`).
fn number(v: f64) -> String {
    if !v.is_finite() {
        return "null".into();
    }
    let mut out = String::new();
    JsonWriter::new(&mut out, &EncodeOptions::default()).f64(v);
    out
}

/// A map key: borrowed from the input where the deserializer can.
pub struct Key<'de>(Cow<'de, str>);

impl Key<'_> {
    /// The key's text.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.into())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// An error for a key the message has no field for (serde's impls use the default options:
/// unknown fields are refused).
pub fn unknown_field<E: de::Error>(message: &str, key: &str) -> E {
    E::custom(format_args!("no field {key:?} in {message}"))
}

/// An error for a field (or a oneof) given twice.
pub fn duplicate_field<E: de::Error>(message: &str, key: &str) -> E {
    E::custom(format_args!("field {key:?} of {message} given twice"))
}

/// Defines a seed for an integer type: numbers in range directly, plain decimal strings
/// directly, other forms through the direct reader.
macro_rules! integer_seed {
    ($(#[$doc:meta])* $name:ident, $t:ty, $read:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name;

        impl<'de> DeserializeSeed<'de> for $name {
            type Value = $t;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<$t, D::Error> {
                d.deserialize_any(self)
            }
        }

        impl<'de> Visitor<'de> for $name {
            type Value = $t;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                <$t>::try_from(v).map_err(|_| E::custom(OUT_OF_RANGE))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                <$t>::try_from(v).map_err(|_| E::custom(OUT_OF_RANGE))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<$t, E> {
                via_reader(&number(v), |r| r.$read())
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                if plain_decimal(v) {
                    if let Ok(n) = v.parse::<$t>() {
                        return Ok(n);
                    }
                }
                via_reader(&quoted(v), |r| r.$read())
            }
        }
    };
}

/// The error text of a number out of its field's range.
const OUT_OF_RANGE: &str = "a number out of its field's range";

/// `-?(0|[1-9][0-9]*)`: a form every integer reader reads as Rust's `parse` does.
fn plain_decimal(v: &str) -> bool {
    let digits = v.strip_prefix('-').unwrap_or(v).as_bytes();
    match digits {
        [] => false,
        [b'0'] => !v.starts_with('-'),
        [b'0', ..] => false,
        _ => digits.len() <= 20 && digits.iter().all(u8::is_ascii_digit),
    }
}

integer_seed!(
    /// An `int32`, `sint32` or `sfixed32`: a number or a string holding one, integral, in range.
    I32,
    i32,
    i32
);
integer_seed!(
    /// A `uint32` or `fixed32`.
    U32,
    u32,
    u32
);
integer_seed!(
    /// An `int64`, `sint64` or `sfixed64` (written as a decimal string).
    I64,
    i64,
    i64
);
integer_seed!(
    /// A `uint64` or `fixed64` (written as a decimal string).
    U64,
    u64,
    u64
);

/// Defines a seed for a floating-point type: numbers directly (in range), strings (`"NaN"`,
/// `"Infinity"`, a number in a string) through the direct reader.
macro_rules! float_seed {
    ($(#[$doc:meta])* $name:ident, $t:ty, $read:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name;

        impl<'de> DeserializeSeed<'de> for $name {
            type Value = $t;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<$t, D::Error> {
                d.deserialize_any(self)
            }
        }

        impl<'de> Visitor<'de> for $name {
            type Value = $t;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                self.visit_f64(v as f64)
            }
            #[allow(clippy::cast_possible_truncation)]
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<$t, E> {
                let narrow = v as $t;
                if !v.is_finite() || narrow.is_infinite() {
                    return Err(E::custom(OUT_OF_RANGE));
                }
                Ok(narrow)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                via_reader(&quoted(v), |r| r.$read())
            }
        }
    };
}

float_seed!(
    /// A `double`.
    F64,
    f64,
    f64
);
float_seed!(
    /// A `float`.
    F32,
    f32,
    f32
);

/// A `bool`: `true` or `false`.
#[derive(Clone, Copy)]
pub struct Bool;

impl<'de> DeserializeSeed<'de> for Bool {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_bool(self)
    }
}

impl<'de> Visitor<'de> for Bool {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("true or false")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }
}

/// A `string`.
#[derive(Clone, Copy)]
pub struct Str;

impl<'de> DeserializeSeed<'de> for Str {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        d.deserialize_string(self)
    }
}

impl<'de> Visitor<'de> for Str {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.into())
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        Ok(v)
    }
}

/// `bytes`: base64 in either alphabet, padded or not.
#[derive(Clone, Copy)]
pub struct Bytes;

impl<'de> DeserializeSeed<'de> for Bytes {
    type Value = Vec<u8>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Bytes {
    type Value = Vec<u8>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("base64 bytes")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
        super::super::read::decode_base64(v).ok_or_else(|| E::custom("invalid base64 bytes"))
    }
}

/// An open enum's value: a name `lookup` knows, or any `int32` number.
#[derive(Clone, Copy)]
pub struct Enum(pub fn(&str) -> Option<i32>);

impl<'de> DeserializeSeed<'de> for Enum {
    type Value = i32;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<i32, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Enum {
    type Value = i32;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an enum name or number")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i32, E> {
        I32.visit_i64(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i32, E> {
        I32.visit_u64(v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<i32, E> {
        let lookup = self.0;
        via_reader(&number(v), |r| r.enum_value(lookup))
            .and_then(|v| v.ok_or_else(|| E::custom("an enum name or number")))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<i32, E> {
        (self.0)(v).ok_or_else(|| E::custom(format_args!("unknown enum value {v:?}")))
    }
}

/// A message, through its own `Deserialize`.
pub struct Msg<M>(PhantomData<fn() -> M>);

impl<M> Msg<M> {
    /// The seed.
    #[inline]
    pub fn new() -> Self {
        Msg(PhantomData)
    }
}

impl<M> Default for Msg<M> {
    fn default() -> Self {
        Msg::new()
    }
}

impl<M> Clone for Msg<M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M> Copy for Msg<M> {}

impl<'de, M: de::Deserialize<'de>> DeserializeSeed<'de> for Msg<M> {
    type Value = M;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<M, D::Error> {
        M::deserialize(d)
    }
}

/// `null` (or serde's none) as `None`, any other value through `S`.
#[derive(Clone, Copy)]
pub struct Nullable<S>(pub S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Nullable<S> {
    type Value = Option<S::Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Nullable<S> {
    type Value = Option<S::Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value or null")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(d).map(Some)
    }
}

/// A scalar's seed (one of the above but [`Msg`]) or `null` (`None`), in one call of the
/// deserializer (`deserialize_any`) where [`Nullable`] takes two.
#[derive(Clone, Copy)]
pub struct ScalarOrNull<V>(pub V);

impl<'de, V: Visitor<'de> + Copy> DeserializeSeed<'de> for ScalarOrNull<V> {
    type Value = Option<V::Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, V: Visitor<'de> + Copy> Visitor<'de> for ScalarOrNull<V> {
    type Value = Option<V::Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self.0).map(Some)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        self.0.visit_bool(v).map(Some)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.0.visit_i64(v).map(Some)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.0.visit_u64(v).map(Some)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.0.visit_f64(v).map(Some)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.0.visit_str(v).map(Some)
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        self.0.visit_string(v).map(Some)
    }
}

/// A repeated field: a list of values, each through `S` (no `null` elements).
#[derive(Clone, Copy)]
pub struct List<S>(pub S);

impl<'de, S: DeserializeSeed<'de> + Copy> DeserializeSeed<'de> for List<S> {
    type Value = Vec<S::Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, S: DeserializeSeed<'de> + Copy> Visitor<'de> for List<S> {
    type Value = Vec<S::Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        // Not sized by the hint: the input decides how much is allocated as it comes.
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self.0)? {
            out.push(v);
        }
        Ok(out)
    }
}

/// A map with string keys a [`StrMap`] reads into (`HashMap` and `BTreeMap`).
pub trait StringKeyed<V> {
    /// Inserts an entry; `false` (and the map unchanged) when the key is there already.
    fn insert_new(&mut self, key: String, value: V) -> bool;
    /// Room for `n` more entries, where the map can make it.
    fn reserve_entries(&mut self, n: usize);
}

impl<V, H: core::hash::BuildHasher> StringKeyed<V> for std::collections::HashMap<String, V, H> {
    #[inline]
    fn insert_new(&mut self, key: String, value: V) -> bool {
        match self.entry(key) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(value);
                true
            }
        }
    }
    #[inline]
    fn reserve_entries(&mut self, n: usize) {
        self.reserve(n);
    }
}

impl<V> StringKeyed<V> for alloc::collections::BTreeMap<String, V> {
    #[inline]
    fn insert_new(&mut self, key: String, value: V) -> bool {
        match self.entry(key) {
            alloc::collections::btree_map::Entry::Occupied(_) => false,
            alloc::collections::btree_map::Entry::Vacant(e) => {
                e.insert(value);
                true
            }
        }
    }
    #[inline]
    fn reserve_entries(&mut self, _: usize) {}
}

/// A map field with string keys, read into `map`: values through `seed`, stored as `store`
/// makes them; a key given twice is an error. As the direct path's reader does, the first
/// eight entries (when an entry is small) are read before any is stored, so that the table
/// is sized once for them instead of grown and rehashed as they arrive (serde gives no size:
/// `serde_json`'s maps have no hint).
pub struct StrMap<'m, C, S, F> {
    /// The field's map.
    pub map: &'m mut C,
    /// Reads a value.
    pub seed: S,
    /// Makes the stored value of a value read (`bytes::Bytes` from a `Vec<u8>`, ...).
    pub store: F,
}

impl<'de, C, S, F, V> DeserializeSeed<'de> for StrMap<'_, C, S, F>
where
    C: StringKeyed<V>,
    S: DeserializeSeed<'de> + Copy,
    F: Fn(S::Value) -> V,
{
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, C, S, F, V> Visitor<'de> for StrMap<'_, C, S, F>
where
    C: StringKeyed<V>,
    S: DeserializeSeed<'de> + Copy,
    F: Fn(S::Value) -> V,
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let StrMap {
            map: out,
            seed,
            store,
        } = self;
        // Small values only: a batch of large messages would take a deep stack frame at each
        // level of a recursive schema.
        let more = if core::mem::size_of::<(String, V)>() <= BATCHED_ENTRY_MAX {
            first_entries(out, &mut map, seed, &store)?
        } else {
            true
        };
        if more {
            while let Some(k) = map.next_key_seed(Str)? {
                let v = store(map.next_value_seed(seed)?);
                if !out.insert_new(k, v) {
                    return Err(duplicate_key());
                }
            }
        }
        Ok(())
    }
}

/// Reads [`StrMap`]'s first [`STR_MAP_BATCH`] entries, then sizes `out` and stores them;
/// whether entries may follow. Out of line, so that the batch is on the stack only while it
/// is read.
#[inline(never)]
fn first_entries<'de, A, C, S, F, V>(
    out: &mut C,
    map: &mut A,
    seed: S,
    store: &F,
) -> Result<bool, A::Error>
where
    A: MapAccess<'de>,
    C: StringKeyed<V>,
    S: DeserializeSeed<'de> + Copy,
    F: Fn(S::Value) -> V,
{
    let mut batch: [Option<(String, V)>; STR_MAP_BATCH] = core::array::from_fn(|_| None);
    let mut n = 0;
    let mut more = true;
    while n < STR_MAP_BATCH {
        let entry = match map.next_key_seed(Str) {
            Ok(Some(k)) => map.next_value_seed(seed).map(|v| Some((k, v))),
            Ok(None) => Ok(None),
            Err(e) => Err(e),
        };
        match entry {
            Ok(Some((k, v))) => {
                batch[n] = Some((k, store(v)));
                n += 1;
            }
            Ok(None) => {
                more = false;
                break;
            }
            Err(e) => {
                // A key given twice before the error is reported first, as the direct path
                // reports it.
                store_batch(out, &mut batch[..n])?;
                return Err(e);
            }
        }
    }
    // A map past the batch gets room for as many again, then grows as entries arrive.
    out.reserve_entries(n + if more { STR_MAP_BATCH } else { 0 });
    store_batch(out, &mut batch[..n])?;
    Ok(more)
}

/// The largest entry (key and stored value) [`StrMap`] buffers: strings, bytes, numbers and
/// small messages.
const BATCHED_ENTRY_MAX: usize = 64;

/// How many of a string map's first entries [`StrMap`] reads before storing any.
const STR_MAP_BATCH: usize = 8;

/// Stores [`StrMap`]'s buffered entries, in order.
fn store_batch<C: StringKeyed<V>, V, E: de::Error>(
    map: &mut C,
    batch: &mut [Option<(String, V)>],
) -> Result<(), E> {
    for (k, v) in batch.iter_mut().filter_map(Option::take) {
        if !map.insert_new(k, v) {
            return Err(duplicate_key());
        }
    }
    Ok(())
}

/// The error for a map key given twice.
fn duplicate_key<E: de::Error>() -> E {
    E::custom("a map key given twice")
}

/// A field read by the direct path: its value written as JSON text (`{"key": value}`) and
/// merged into `msg` by the generated `merge_json`. Gives whether the value was `null`.
pub fn fallback<'de, A: MapAccess<'de>, M: JsonMessage>(
    map: &mut A,
    msg: &mut M,
    key: &str,
) -> Result<bool, A::Error> {
    let value = map.next_value_seed(JsonText)?;
    let mut text = String::with_capacity(key.len() + value.len() + 8);
    text.push('{');
    JsonWriter::new(&mut text, &EncodeOptions::default()).str(key);
    text.push(':');
    text.push_str(&value);
    text.push('}');
    super::super::merge_from_str(msg, &text, &DecodeOptions::default())
        .map_err(de::Error::custom)?;
    Ok(value == "null")
}

/// Any value, as JSON text (serde data written by `serde_json`).
pub(super) struct JsonText;

impl<'de> DeserializeSeed<'de> for JsonText {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        let mut text = Vec::new();
        let mut ser = serde_json::Serializer::new(&mut text);
        serde_transcode::transcode(d, &mut ser).map_err(de::Error::custom)?;
        String::from_utf8(text).map_err(de::Error::custom)
    }
}
