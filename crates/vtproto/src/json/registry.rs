//! `Any`'s JSON form and its entries in the [`TypeRegistry`] (`crate::registry`): the packed
//! message's fields with `"@type"` among them (`@type` may come anywhere in the input: the
//! object is scanned for it first), or, for a well-known type with a special form, `"value"`
//! beside it. An entry converts between binary bytes and JSON, so one registry serves both
//! modes.

use super::{JsonError, JsonErrorKind, JsonMessage, JsonReader, JsonWriter};
use crate::prelude::*;
pub use crate::registry::TypeRegistry;
use crate::registry::{encoded, merged};

/// How to convert one message type between its binary and JSON forms.
#[derive(Clone, Copy)]
pub struct AnyType {
    name: &'static str,
    pub(crate) special: bool,
    write: fn(&[u8], &mut JsonWriter<'_>) -> Result<(), JsonError>,
    pub(crate) read: fn(&mut JsonReader<'_, '_>) -> Result<Vec<u8>, JsonError>,
}

impl core::fmt::Debug for AnyType {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AnyType").field("name", &self.name).finish()
    }
}

impl AnyType {
    /// The entry for `M`.
    pub fn of<M: JsonMessage>() -> AnyType {
        AnyType {
            name: M::NAME,
            special: M::SPECIAL_FORM,
            write: |bytes, w| {
                let msg: M = merged(bytes)
                    .map_err(|e| JsonError::new(JsonErrorKind::Decode(e.to_string())))?;
                msg.write_json(w)
            },
            read: |r| {
                let mut msg = M::default();
                msg.merge_json(r)?;
                Ok(encoded(&msg))
            },
        }
    }

    /// The message's full proto name.
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// The entry for a type URL: its last segment looked up in `registry`, then among the
/// well-known types.
pub(crate) fn resolve(
    registry: Option<&TypeRegistry>,
    type_url: &str,
) -> Result<AnyType, JsonError> {
    let name = type_url.rsplit('/').next().unwrap_or_default();
    let known = (!type_url.is_empty() && type_url.contains('/')).then(|| {
        registry
            .and_then(|r| r.get(name).copied())
            .or_else(|| super::wkt::well_known(name))
    });
    known.flatten().ok_or_else(|| {
        JsonError::new(JsonErrorKind::UnknownAnyType {
            type_url: type_url.into(),
        })
    })
}

/// Writes an `Any` holding `value` of type `type_url`.
pub(crate) fn write_any(
    type_url: &str,
    value: &[u8],
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    if type_url.is_empty() && value.is_empty() {
        w.begin_object();
        w.end_object();
        return Ok(());
    }
    // Each `Any` decodes its value anew, so the binary decoder's depth limit does not bound
    // a chain of them: the writer's own depth does.
    if w.depth() >= super::DEFAULT_RECURSION_LIMIT as usize {
        return Err(JsonError::new(JsonErrorKind::RecursionLimitExceeded));
    }
    let t = resolve(w.options().registry, type_url)?;
    if t.special {
        w.begin_object();
        w.key_str("@type");
        w.str(type_url);
        w.key_str("value");
        (t.write)(value, w)?;
        w.end_object();
        Ok(())
    } else {
        w.set_any_type_url(type_url);
        (t.write)(value, w)
    }
}

/// Reads an `Any`: its type URL and its message's binary form.
pub(crate) fn read_any(r: &mut JsonReader<'_, '_>) -> Result<(String, Vec<u8>), JsonError> {
    read_any_with(
        r,
        |r, type_url| {
            resolve(r.options().registry, type_url).map_err(|e| r.error(e.kind().clone()))
        },
        |t| t.special,
        |t, r| (t.read)(r),
    )
}

/// Reads an `Any` whose type URL `resolve` turns into a `T` (an entry of the registry, a
/// descriptor), `special` tells a well-known type with a special form, and `read` reads a
/// value of into its binary form.
pub(crate) fn read_any_with<T>(
    r: &mut JsonReader<'_, '_>,
    resolve: impl FnOnce(&JsonReader<'_, '_>, &str) -> Result<T, JsonError>,
    special: impl FnOnce(&T) -> bool,
    mut read: impl FnMut(&T, &mut JsonReader<'_, '_>) -> Result<Vec<u8>, JsonError>,
) -> Result<(String, Vec<u8>), JsonError> {
    let mark = r.mark();
    // Find "@type" first, wherever it is.
    let outer = r.set_any_depth(0);
    let scanned = scan_type_url(r);
    r.set_any_depth(outer);
    let Some(type_url) = scanned? else {
        // `{}`: the empty Any.
        return Ok((String::new(), Vec::new()));
    };
    let t = resolve(r, &type_url)?;
    r.reset(mark);
    let value = if special(&t) {
        r.begin_object()?;
        let mut value = None;
        while let Some(key) = r.next_key()? {
            match &*key {
                "@type" => r.skip_value()?,
                "value" if value.is_none() => value = Some(read(&t, r)?),
                "value" => return Err(r.duplicate()),
                _ => {
                    return Err(r.error(JsonErrorKind::UnknownField {
                        key: key.into_owned(),
                    }))
                }
            }
        }
        // `{"@type": ".../google.protobuf.Duration"}` has no value to read: refused, as
        // protobuf's C++ and Python parsers refuse it.
        match value {
            Some(value) => value,
            None => {
                return Err(r.error(JsonErrorKind::InvalidValue {
                    reason: "an Any of a well-known type without its \"value\"",
                }))
            }
        }
    } else {
        let outer = r.set_any_depth(r.next_depth());
        let value = read(&t, r);
        r.set_any_depth(outer);
        value?
    };
    // The binary form kept (the message read into it was charged as it was read).
    r.charge(value.len())?;
    Ok((type_url, value))
}

/// The `"@type"` of the object at the reader, or `None` for an empty object.
fn scan_type_url(r: &mut JsonReader<'_, '_>) -> Result<Option<String>, JsonError> {
    r.begin_object()?;
    let mut type_url = None;
    let mut any_key = false;
    while let Some(key) = r.next_key()? {
        any_key = true;
        if key == "@type" {
            if type_url.is_some() {
                return Err(r.duplicate());
            }
            type_url = Some(r.string_owned()?);
        } else {
            r.skip_value()?;
        }
    }
    match type_url {
        Some(url) => Ok(Some(url)),
        None if !any_key => Ok(None),
        None => Err(r.error(JsonErrorKind::InvalidValue {
            reason: "an Any with fields but no \"@type\"",
        })),
    }
}
