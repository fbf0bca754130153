//! serde's `Serialize` and `Deserialize` for messages (feature `serde`; generated impls with
//! `features=..+json+serde` call these), with ProtoJSON's mapping: a message serializes as the
//! JSON value [`to_string`](super::to_string) writes, handed to the serializer as serde data,
//! and deserializes from whatever serde data the deserializer has, read as that JSON by
//! [`from_str`](super::from_str). So the mapping is the generated JSON's, exactly, with any
//! serde format (`serde_json`, `serde_json::Value`, others), at the cost of one pass of JSON
//! text between the two (see `benches/RESULTS.md`).
//!
//! Options are the defaults (serde has no per-call options): JSON names, no unpopulated
//! fields, enums by name, and an `Any` of a type other than the well-known ones has no form
//! (it needs a registry: use [`to_string_with`](super::to_string_with) for those).

pub use serde;

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
    let mut text = Vec::new();
    let mut ser = serde_json::Serializer::new(&mut text);
    serde_transcode::transcode(deserializer, &mut ser)
        .map_err(|e| D::Error::custom(format_args!("{e}")))?;
    let text = String::from_utf8(text).map_err(D::Error::custom)?;
    super::from_str(&text).map_err(D::Error::custom)
}
