//! The well-known types whose JSON is not an object of their fields: `Timestamp` and
//! `Duration` (strings), `FieldMask` (a string of lowerCamel paths), `Struct`, `Value` and
//! `ListValue` (any JSON), the wrappers (their value), `Any` (see `registry.rs`), and `Empty`
//! as prost maps it (`()`). Written once as a macro over the module that holds the structs:
//! `vtproto::types` (`mode=standalone`) and prost-types (`mode=prost`) shape them alike.
//! prost maps wrappers to Rust primitives, so in `mode=prost` the primitives carry the
//! wrappers' JSON (`Option<i32>` for a `google.protobuf.Int32Value` field).

use super::wkt_forms;
use super::{AnyType, JsonError, JsonErrorKind, JsonMessage, JsonReader, JsonWriter};
use crate::prelude::*;

fn form_error(r: &JsonReader<'_, '_>, what: &'static str) -> JsonError {
    r.error(JsonErrorKind::InvalidValue { reason: what })
}

fn encode_error(what: &'static str) -> JsonError {
    JsonError::new(JsonErrorKind::InvalidValue { reason: what })
}

/// The entry for a well-known type's full name, for `Any`.
pub(super) fn well_known(name: &str) -> Option<AnyType> {
    #[cfg(feature = "types")]
    use crate::types as t;
    #[cfg(all(not(feature = "types"), feature = "prost-types"))]
    use prost_types as t;
    #[cfg(any(feature = "types", feature = "prost-types"))]
    {
        Some(match name {
            "google.protobuf.Any" => AnyType::of::<t::Any>(),
            "google.protobuf.Timestamp" => AnyType::of::<t::Timestamp>(),
            "google.protobuf.Duration" => AnyType::of::<t::Duration>(),
            "google.protobuf.FieldMask" => AnyType::of::<t::FieldMask>(),
            "google.protobuf.Struct" => AnyType::of::<t::Struct>(),
            "google.protobuf.Value" => AnyType::of::<t::Value>(),
            "google.protobuf.ListValue" => AnyType::of::<t::ListValue>(),
            _ => return wrapper(name),
        })
    }
    #[cfg(not(any(feature = "types", feature = "prost-types")))]
    {
        wrapper(name)
    }
}

/// The wrappers, and `Empty`, for `Any`.
fn wrapper(name: &str) -> Option<AnyType> {
    #[cfg(feature = "types")]
    {
        use crate::types as t;
        Some(match name {
            "google.protobuf.DoubleValue" => AnyType::of::<t::DoubleValue>(),
            "google.protobuf.FloatValue" => AnyType::of::<t::FloatValue>(),
            "google.protobuf.Int64Value" => AnyType::of::<t::Int64Value>(),
            "google.protobuf.UInt64Value" => AnyType::of::<t::UInt64Value>(),
            "google.protobuf.Int32Value" => AnyType::of::<t::Int32Value>(),
            "google.protobuf.UInt32Value" => AnyType::of::<t::UInt32Value>(),
            "google.protobuf.BoolValue" => AnyType::of::<t::BoolValue>(),
            "google.protobuf.StringValue" => AnyType::of::<t::StringValue>(),
            "google.protobuf.BytesValue" => AnyType::of::<t::BytesValue>(),
            "google.protobuf.Empty" => AnyType::of::<t::Empty>(),
            _ => return None,
        })
    }
    #[cfg(not(feature = "types"))]
    {
        Some(match name {
            "google.protobuf.DoubleValue" => AnyType::of::<f64>(),
            "google.protobuf.FloatValue" => AnyType::of::<f32>(),
            "google.protobuf.Int64Value" => AnyType::of::<i64>(),
            "google.protobuf.UInt64Value" => AnyType::of::<u64>(),
            "google.protobuf.Int32Value" => AnyType::of::<i32>(),
            "google.protobuf.UInt32Value" => AnyType::of::<u32>(),
            "google.protobuf.BoolValue" => AnyType::of::<bool>(),
            "google.protobuf.StringValue" => AnyType::of::<String>(),
            "google.protobuf.BytesValue" => AnyType::of::<Vec<u8>>(),
            "google.protobuf.Empty" => AnyType::of::<()>(),
            _ => return None,
        })
    }
}

pub(crate) fn write_timestamp(
    seconds: i64,
    nanos: i32,
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    let out = w.out();
    out.push('"');
    wkt_forms::write_timestamp(seconds, nanos, out)
        .map_err(|_| encode_error("a Timestamp out of range (years 1 to 9999)"))?;
    out.push('"');
    w.wrote_value();
    Ok(())
}

pub(crate) fn read_timestamp(r: &mut JsonReader<'_, '_>) -> Result<(i64, i32), JsonError> {
    let text = r.string()?;
    wkt_forms::parse_timestamp(&text)
        .map_err(|_| form_error(r, "a Timestamp as RFC 3339 (1972-01-01T10:00:20.021Z)"))
}

pub(crate) fn write_duration(
    seconds: i64,
    nanos: i32,
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    let out = w.out();
    out.push('"');
    wkt_forms::write_duration(seconds, nanos, out)
        .map_err(|_| encode_error("a Duration out of range or with mixed signs"))?;
    out.push('"');
    w.wrote_value();
    Ok(())
}

pub(crate) fn read_duration(r: &mut JsonReader<'_, '_>) -> Result<(i64, i32), JsonError> {
    let text = r.string()?;
    wkt_forms::parse_duration(&text)
        .map_err(|_| form_error(r, "a Duration as seconds (1.5s) in range"))
}

pub(crate) fn write_field_mask<S: AsRef<str>>(
    paths: &[S],
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    let mut text = String::new();
    for (i, path) in paths.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        wkt_forms::write_field_mask_path(path.as_ref(), &mut text)
            .map_err(|_| encode_error("a FieldMask path that has no lowerCamel form"))?;
    }
    w.str(&text);
    Ok(())
}

pub(crate) fn read_field_mask(r: &mut JsonReader<'_, '_>) -> Result<Vec<String>, JsonError> {
    let text = r.string()?;
    let mut paths = Vec::new();
    if text.is_empty() {
        return Ok(paths);
    }
    for json_path in text.split(',') {
        r.charge(core::mem::size_of::<String>() + 2 * json_path.len())?;
        let mut path = String::new();
        wkt_forms::parse_field_mask_path(json_path, &mut path)
            .map_err(|_| form_error(r, "FieldMask paths in lowerCamel case"))?;
        paths.push(path);
    }
    Ok(paths)
}

macro_rules! special_forms {
    ($t:path) => {
        use $t as t;

        impl JsonMessage for t::Timestamp {
            const SPECIAL_FORM: bool = true;

            fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                write_timestamp(self.seconds, self.nanos, w)
            }

            fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                (self.seconds, self.nanos) = r.message_level(read_timestamp)?;
                Ok(())
            }
        }

        impl JsonMessage for t::Duration {
            const SPECIAL_FORM: bool = true;

            fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                write_duration(self.seconds, self.nanos, w)
            }

            fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                (self.seconds, self.nanos) = r.message_level(read_duration)?;
                Ok(())
            }
        }

        impl JsonMessage for t::FieldMask {
            const SPECIAL_FORM: bool = true;

            fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                write_field_mask(&self.paths, w)
            }

            fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                self.paths = r.message_level(read_field_mask)?;
                Ok(())
            }
        }

        impl JsonMessage for t::Struct {
            const SPECIAL_FORM: bool = true;

            fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                w.begin_object();
                for (k, v) in &self.fields {
                    w.key_str(k);
                    v.write_json(w)?;
                }
                w.end_object();
                Ok(())
            }

            fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                // A key twice in the object is an error; fields a merge starts with are
                // replaced.
                let before = core::mem::take(&mut self.fields);
                r.begin_object()?;
                while let Some(key) = r.next_key()? {
                    r.charge(
                        key.len()
                            + core::mem::size_of::<String>()
                            + core::mem::size_of::<t::Value>(),
                    )?;
                    let mut v = t::Value::default();
                    // The map entry's level, then the Value's.
                    r.message_level(|r| v.merge_json(r))?;
                    if self.fields.insert(key.into_owned(), v).is_some() {
                        return Err(r.duplicate());
                    }
                }
                if !before.is_empty() {
                    let read = core::mem::replace(&mut self.fields, before);
                    self.fields.extend(read);
                }
                Ok(())
            }
        }

        impl JsonMessage for t::ListValue {
            const SPECIAL_FORM: bool = true;

            fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                w.begin_array();
                for v in &self.values {
                    w.element();
                    v.write_json(w)?;
                }
                w.end_array();
                Ok(())
            }

            fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                // The array is the ListValue's level (a repeated field's is none).
                r.message_level(|r| {
                    r.begin_array()?;
                    while r.next_element()? {
                        r.charge_element(&self.values)?;
                        let mut v = t::Value::default();
                        v.merge_json(r)?;
                        self.values.push(v);
                    }
                    Ok(())
                })
            }
        }

        impl JsonMessage for t::Value {
            const SPECIAL_FORM: bool = true;

            fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                use t::value::Kind;
                match &self.kind {
                    // No kind reads back as `null`, as Python and C++ write it.
                    None | Some(Kind::NullValue(_)) => w.null(),
                    Some(Kind::NumberValue(v)) if !v.is_finite() => {
                        return Err(encode_error("a Value that is NaN or infinite"))
                    }
                    Some(Kind::NumberValue(v)) => w.f64(*v),
                    Some(Kind::StringValue(v)) => w.str(v),
                    Some(Kind::BoolValue(v)) => w.bool(*v),
                    Some(Kind::StructValue(v)) => v.write_json(w)?,
                    Some(Kind::ListValue(v)) => v.write_json(w)?,
                }
                Ok(())
            }

            fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                use t::value::Kind;
                // The Value's own level; a Struct or ListValue in it counts its own.
                let kind = r.message_level(|r| {
                    Ok(match r.peek_kind() {
                        Some(b'n') => {
                            r.null_value()?;
                            Kind::NullValue(0)
                        }
                        Some(b't' | b'f') => Kind::BoolValue(r.bool()?),
                        Some(b'"') => Kind::StringValue(r.string_owned()?),
                        Some(b'{') => {
                            let mut v = t::Struct::default();
                            v.merge_json(r)?;
                            Kind::StructValue(v)
                        }
                        Some(b'[') => {
                            let mut v = t::ListValue::default();
                            v.merge_json(r)?;
                            Kind::ListValue(v)
                        }
                        _ => Kind::NumberValue(r.f64()?),
                    })
                })?;
                self.kind = Some(kind);
                Ok(())
            }
        }

        impl JsonMessage for t::Any {
            const SPECIAL_FORM: bool = true;

            fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                crate::json::registry::write_any(&self.type_url, &self.value, w)
            }

            fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                let (type_url, value) = crate::json::registry::read_any(r)?;
                self.type_url = type_url;
                self.value = value.into();
                Ok(())
            }
        }
    };
}

#[cfg(feature = "types")]
mod types {
    use super::*;
    special_forms!(crate::types);

    macro_rules! wrappers {
        ($($ty:ident: $write:ident($($deref:tt)?) $read:ident,)*) => {$(
            impl JsonMessage for t::$ty {
                const SPECIAL_FORM: bool = true;

                fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                    w.$write($($deref)? self.value);
                    Ok(())
                }

                fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                    self.value = r.message_level(|r| r.$read())?;
                    Ok(())
                }
            }
        )*};
    }
    wrappers! {
        DoubleValue: f64() f64,
        FloatValue: f32() f32,
        Int64Value: i64() i64,
        UInt64Value: u64() u64,
        Int32Value: i32() i32,
        UInt32Value: u32() u32,
        BoolValue: bool() bool,
        StringValue: str(&) string_owned,
        BytesValue: bytes(&) bytes,
    }
}

#[cfg(feature = "prost-types")]
mod prost {
    use super::*;
    special_forms!(prost_types);
}

/// prost's wrappers: Rust primitives carry the wrappers' JSON (and `()` is `Empty`'s `{}`).
mod primitives {
    use super::*;

    macro_rules! primitives {
        ($($ty:ty: $write:ident($($deref:tt)?) $read:ident,)*) => {$(
            impl JsonMessage for $ty {
                const SPECIAL_FORM: bool = true;

                fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
                    w.$write($($deref)? self);
                    Ok(())
                }

                fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
                    *self = r.message_level(|r| r.$read())?;
                    Ok(())
                }
            }
        )*};
    }
    primitives! {
        f64: f64(*) f64,
        f32: f32(*) f32,
        i64: i64(*) i64,
        u64: u64(*) u64,
        i32: i32(*) i32,
        u32: u32(*) u32,
        bool: bool(*) bool,
        String: str() string_owned,
        Vec<u8>: bytes() bytes,
    }

    impl JsonMessage for () {
        fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
            w.begin_object();
            w.end_object();
            Ok(())
        }

        fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
            r.begin_object()?;
            while let Some(key) = r.next_key()? {
                r.unknown_field(&key)?;
            }
            Ok(())
        }
    }
}
