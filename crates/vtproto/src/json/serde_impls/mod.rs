//! serde's `Serialize` and `Deserialize` for messages (feature `serde`), with ProtoJSON's
//! mapping, for the impls `features=..+json+serde` generates. Both are generated field by
//! field: `Serialize` hands values to the serializer through this module's wrappers
//! ([`Int64`], [`Float`], [`Base64`], [`EnumName`], [`each`], [`entries`], ...), `Deserialize`
//! reads them with the seeds of [`de`]. The well-known types' special forms, `Any` and
//! messages with declared extensions go through the generated JSON: [`serialize`] writes the
//! JSON text and hands it to the serializer as serde data, [`deserialize`] writes whatever serde
//! data the deserializer has as JSON text and reads it with [`from_str`](super::from_str). So
//! the mapping is the generated JSON's with `serde_json`, `serde_json::Value` and other formats
//! that type their values as JSON does; see `benches/RESULTS.md` for the cost.
//!
//! Options are the defaults (serde has no per-call options): JSON names, no unpopulated
//! fields, enums by name, and an `Any` of a type other than the well-known ones has no form
//! (it needs a registry: use [`to_string_with`](super::to_string_with) for those).

pub use serde;

pub mod de;

use serde::de::Error as _;
use serde::ser::Error as _;

use super::JsonMessage;
use crate::prelude::*;

/// `msg` into `serializer`, as its ProtoJSON value.
pub fn serialize<M: JsonMessage, S: serde::Serializer>(
    msg: &M,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let text = super::to_string(msg).map_err(S::Error::custom)?;
    let mut de = serde_json::Deserializer::from_str(&text);
    serde_transcode::transcode(&mut de, serializer)
}

/// A message from `deserializer`'s data, read as ProtoJSON.
pub fn deserialize<'de, M: JsonMessage, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<M, D::Error> {
    use serde::de::DeserializeSeed as _;
    let text = de::JsonText.deserialize(deserializer)?;
    super::from_str(&text).map_err(D::Error::custom)
}

// What generated `Serialize` impls hand to the serializer, ProtoJSON's forms of values whose
// Rust form serde would write otherwise.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

/// An `int64`, `sint64` or `sfixed64`: a decimal string.
pub struct Int64(pub i64);

impl Serialize for Int64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(itoa::Buffer::new().format(self.0))
    }
}

/// A `uint64` or `fixed64`: a decimal string.
pub struct Uint64(pub u64);

impl Serialize for Uint64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(itoa::Buffer::new().format(self.0))
    }
}

fn non_finite(v: f64) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// A `double`: a number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
pub struct Float(pub f64);

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f64(self.0)
        } else {
            s.serialize_str(non_finite(self.0))
        }
    }
}

/// A `float`, as [`Float`].
pub struct Float32(pub f32);

impl Serialize for Float32 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_finite() {
            s.serialize_f32(self.0)
        } else {
            s.serialize_str(non_finite(f64::from(self.0)))
        }
    }
}

/// `bytes`: standard base64 with padding.
pub struct Base64<'a>(pub &'a [u8]);

impl Serialize for Base64<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use base64::Engine as _;
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(self.0))
    }
}

/// An enum value: its name, or its number when it has none.
pub struct EnumName(pub i32, pub Option<&'static str>);

impl Serialize for EnumName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.1 {
            Some(name) => s.serialize_str(name),
            None => s.serialize_i32(self.0),
        }
    }
}

/// A map key that is a number or a bool: a string, as ProtoJSON's keys are.
pub struct MapKey<K>(pub K);

impl<K: super::MapKey + Copy> Serialize for MapKey<K> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut key = String::new();
        self.0.write(&mut key);
        s.serialize_str(&key)
    }
}

/// A message serialized through its JSON (a well-known type's special form, prost-types'
/// structs).
pub struct Json<'a, M>(pub &'a M);

impl<M: JsonMessage> Serialize for Json<'_, M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize(self.0, s)
    }
}

/// A repeated field: its elements, each through `F`.
pub struct Each<'a, T, F>(&'a [T], F);

/// A repeated field's [`Each`] (a function, so that the closure's type is inferred).
pub fn each<'a, T, F, W>(values: &'a [T], f: F) -> Each<'a, T, F>
where
    F: Fn(&'a T) -> W,
    W: Serialize,
{
    Each(values, f)
}

impl<'a, T, F, W> Serialize for Each<'a, T, F>
where
    F: Fn(&'a T) -> W,
    W: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for v in self.0 {
            seq.serialize_element(&(self.1)(v))?;
        }
        seq.end()
    }
}

/// A map field: its entries, keys through `FK`, values through `FV`.
pub struct Entries<'a, C, FK, FV>(&'a C, FK, FV);

/// A map field's [`Entries`] (a function, so that the closures' types are inferred).
pub fn entries<'a, C, K, V, FK, FV, KW, VW>(
    map: &'a C,
    key: FK,
    value: FV,
) -> Entries<'a, C, FK, FV>
where
    &'a C: IntoIterator<Item = (&'a K, &'a V)>,
    K: 'a,
    V: 'a,
    FK: Fn(&'a K) -> KW,
    FV: Fn(&'a V) -> VW,
    KW: Serialize,
    VW: Serialize,
{
    Entries(map, key, value)
}

impl<'a, C, K, V, FK, FV, KW, VW> Serialize for Entries<'a, C, FK, FV>
where
    &'a C: IntoIterator<Item = (&'a K, &'a V)>,
    K: 'a,
    V: 'a,
    FK: Fn(&'a K) -> KW,
    FV: Fn(&'a V) -> VW,
    KW: Serialize,
    VW: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for (k, v) in self.0 {
            map.serialize_entry(&(self.1)(k), &(self.2)(v))?;
        }
        map.end()
    }
}
