//! The well-known types in the text format: `Any` by hand (expanded as
//! `[type.googleapis.com/pkg.Msg] { .. }` when its type is known), prost's wrappers as the
//! Rust primitives prost maps them to, and the lookup of the well-known types for `Any`. Every
//! other well-known type is an ordinary message, its impl generated beside the types.

use super::{AnyText, TextError, TextErrorKind, TextMessage, TextReader, TextWriter};
use crate::prelude::*;

/// The type-URL prefixes an expanded `Any` may use, as C++ accepts them.
const PREFIXES: &[&str] = &["type.googleapis.com/", "type.googleprod.com/"];

/// The entry for a type URL of one of the prefixes C++ expands (`type.googleapis.com/`,
/// `type.googleprod.com/`): its full name looked up in the registry, then among the well-known
/// types.
pub(crate) fn resolve(registry: Option<&super::TypeRegistry>, type_url: &str) -> Option<AnyText> {
    let name = PREFIXES.iter().find_map(|p| type_url.strip_prefix(p))?;
    registry
        .and_then(|r| r.get_text(name).copied())
        .or_else(|| well_known(name))
}

/// The entry for a well-known type's full name.
pub(crate) fn well_known(name: &str) -> Option<AnyText> {
    #[cfg(feature = "types")]
    use crate::types as t;
    #[cfg(all(not(feature = "types"), feature = "prost-types"))]
    use prost_types as t;
    #[cfg(any(feature = "types", feature = "prost-types"))]
    {
        Some(match name {
            "google.protobuf.Any" => AnyText::of::<t::Any>(),
            "google.protobuf.Timestamp" => AnyText::of::<t::Timestamp>(),
            "google.protobuf.Duration" => AnyText::of::<t::Duration>(),
            "google.protobuf.FieldMask" => AnyText::of::<t::FieldMask>(),
            "google.protobuf.Struct" => AnyText::of::<t::Struct>(),
            "google.protobuf.Value" => AnyText::of::<t::Value>(),
            "google.protobuf.ListValue" => AnyText::of::<t::ListValue>(),
            _ => return wrapper(name),
        })
    }
    #[cfg(not(any(feature = "types", feature = "prost-types")))]
    {
        wrapper(name)
    }
}

fn wrapper(name: &str) -> Option<AnyText> {
    #[cfg(feature = "types")]
    {
        use crate::types as t;
        Some(match name {
            "google.protobuf.DoubleValue" => AnyText::of::<t::DoubleValue>(),
            "google.protobuf.FloatValue" => AnyText::of::<t::FloatValue>(),
            "google.protobuf.Int64Value" => AnyText::of::<t::Int64Value>(),
            "google.protobuf.UInt64Value" => AnyText::of::<t::UInt64Value>(),
            "google.protobuf.Int32Value" => AnyText::of::<t::Int32Value>(),
            "google.protobuf.UInt32Value" => AnyText::of::<t::UInt32Value>(),
            "google.protobuf.BoolValue" => AnyText::of::<t::BoolValue>(),
            "google.protobuf.StringValue" => AnyText::of::<t::StringValue>(),
            "google.protobuf.BytesValue" => AnyText::of::<t::BytesValue>(),
            "google.protobuf.Empty" => AnyText::of::<t::Empty>(),
            _ => return None,
        })
    }
    #[cfg(not(feature = "types"))]
    {
        Some(match name {
            "google.protobuf.DoubleValue" => AnyText::of::<f64>(),
            "google.protobuf.FloatValue" => AnyText::of::<f32>(),
            "google.protobuf.Int64Value" => AnyText::of::<i64>(),
            "google.protobuf.UInt64Value" => AnyText::of::<u64>(),
            "google.protobuf.Int32Value" => AnyText::of::<i32>(),
            "google.protobuf.UInt32Value" => AnyText::of::<u32>(),
            "google.protobuf.BoolValue" => AnyText::of::<bool>(),
            "google.protobuf.StringValue" => AnyText::of::<String>(),
            "google.protobuf.BytesValue" => AnyText::of::<Vec<u8>>(),
            "google.protobuf.Empty" => AnyText::of::<()>(),
            _ => return None,
        })
    }
}

/// Writes an `Any`: expanded when its type is known and its value decodes, else its fields.
fn write_any(type_url: &str, value: &[u8], w: &mut TextWriter<'_>) -> Result<(), TextError> {
    // Expanded only for the prefixes the parser reads back (the name after them is then a
    // known message's, nothing that could end the brackets early), and only so deep: each
    // `Any` decodes its value anew, so the binary decoder's depth limit does not bound a chain
    // of them.
    let shallow = w.depth() < super::DEFAULT_RECURSION_LIMIT as usize;
    if let Some(t) = resolve(w.options().registry, type_url).filter(|_| shallow) {
        // A value that does not decode is printed as the fields instead.
        let mark = w.mark();
        w.begin_message(&format!("[{type_url}]"));
        if (t.write)(value, w).is_ok() {
            w.end_message();
            return Ok(());
        }
        w.reset(mark);
    }
    write_any_fields(type_url, value, w);
    Ok(())
}

/// An `Any` as its two fields (a type not known, or a value that does not decode).
pub(crate) fn write_any_fields(type_url: &str, value: &[u8], w: &mut TextWriter<'_>) {
    if !type_url.is_empty() {
        w.field("type_url");
        w.str(type_url);
    }
    if !value.is_empty() {
        w.field("value");
        w.bytes(value);
    }
}

/// Reads an `Any`'s fields: `type_url` and `value`, or one expanded `[url] { .. }`.
fn read_any(
    r: &mut TextReader<'_, '_>,
    type_url: &mut String,
    value: &mut Vec<u8>,
) -> Result<(), TextError> {
    let (mut plain, mut expanded) = (false, false);
    let mut seen = [0u64; 1];
    while let Some(name) = r.next_field()? {
        match &*name {
            "type_url" | "value" if expanded => return Err(r.duplicate()),
            "type_url" => {
                if !super::__private::first(&mut seen, 0) {
                    return Err(r.duplicate());
                }
                plain = true;
                r.colon()?;
                *type_url = r.string()?;
            }
            "value" => {
                if !super::__private::first(&mut seen, 1) {
                    return Err(r.duplicate());
                }
                plain = true;
                r.colon()?;
                *value = r.bytes()?;
            }
            url if url.starts_with('[') && url.contains('/') => {
                if plain || expanded {
                    return Err(r.duplicate());
                }
                expanded = true;
                let url = &url[1..url.len() - 1];
                let t = resolve(r.options().registry, url).ok_or_else(|| {
                    r.error(TextErrorKind::UnknownAnyType {
                        type_url: url.to_string(),
                    })
                })?;
                r.message_colon();
                r.begin_message()?;
                *value = (t.read)(r)?;
                // The binary form kept (the message read into it was charged as it was read).
                r.charge(value.len())?;
                *type_url = url.to_string();
            }
            other => {
                r.skip_unknown_field(other)?;
                continue;
            }
        }
        r.end_field();
    }
    Ok(())
}

macro_rules! any_impl {
    ($t:path, $unknown:tt) => {
        impl TextMessage for $t {
            fn write_text(&self, w: &mut TextWriter<'_>) -> Result<(), TextError> {
                write_any(&self.type_url, &self.value, w)?;
                any_impl!(@unknown $unknown self w);
                Ok(())
            }

            fn merge_text(&mut self, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
                read_any(r, &mut self.type_url, &mut self.value)
            }
        }
    };
    (@unknown true $self:ident $w:ident) => {
        $w.unknown_fields($self.unknown_fields.as_bytes());
    };
    (@unknown false $self:ident $w:ident) => {};
}

#[cfg(feature = "types")]
any_impl!(crate::types::Any, true);
#[cfg(feature = "prost-types")]
any_impl!(prost_types::Any, false);

/// prost's wrappers: Rust primitives carry the wrappers' one field, `value` (and `()` is
/// `Empty`).
mod primitives {
    use super::*;

    macro_rules! primitives {
        ($($ty:ty: $write:ident($($deref:tt)?) $read:ident $set:expr,)*) => {$(
            impl TextMessage for $ty {
                fn write_text(&self, w: &mut TextWriter<'_>) -> Result<(), TextError> {
                    let set: fn(&$ty) -> bool = $set;
                    if set(self) {
                        w.field("value");
                        w.$write($($deref)? self);
                    }
                    Ok(())
                }

                fn merge_text(&mut self, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
                    let mut seen = false;
                    while let Some(name) = r.next_field()? {
                        if &*name != "value" {
                            r.skip_unknown_field(&name)?;
                            continue;
                        }
                        if core::mem::replace(&mut seen, true) {
                            return Err(r.duplicate());
                        }
                        r.colon()?;
                        *self = r.$read()?;
                        r.end_field();
                    }
                    Ok(())
                }
            }
        )*};
    }
    // A float's `value` is written unless its bits are zero: `-0.0` is kept, as the
    // generated code of `mode=standalone`'s wrappers and C++ keep it.
    primitives! {
        f64: f64(*) f64 |v| v.to_bits() != 0,
        f32: f32(*) f32 |v| v.to_bits() != 0,
        i64: i64(*) i64 |v| *v != 0,
        u64: u64(*) u64 |v| *v != 0,
        i32: i32(*) i32 |v| *v != 0,
        u32: u32(*) u32 |v| *v != 0,
        bool: bool(*) bool |v| *v,
        String: str() string |v| !v.is_empty(),
        Vec<u8>: bytes() bytes |v| !v.is_empty(),
    }

    impl TextMessage for () {
        fn write_text(&self, _: &mut TextWriter<'_>) -> Result<(), TextError> {
            Ok(())
        }

        fn merge_text(&mut self, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
            while let Some(name) = r.next_field()? {
                r.skip_unknown_field(&name)?;
            }
            Ok(())
        }
    }
}
