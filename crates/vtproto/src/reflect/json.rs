//! ProtoJSON for [`DynamicMessage`] (features `reflect` and `json`): one walker over the
//! descriptors, on the same [`JsonReader`] and [`JsonWriter`] as generated code, with the same
//! options, errors and forms: the JSON name (or the proto name) of each field, in the order
//! generated code writes them; presence and `emit_unpopulated`; enums by name; 64-bit integers
//! as strings; the well-known types' special forms; extensions as `[full.name]`; `Any` with
//! its message's fields and `"@type"`, its type looked up in the message's pool first, then in
//! the options' registry and among the well-known types.

use alloc::collections::{BTreeMap, BTreeSet};

use super::descriptors::{
    kind_at, map_kinds_at, EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor,
};
use super::dynamic::{extension_named, message_size, DynamicMessage, MapKey, Value};
use super::generated::{
    merge_owned, message_slot, to_dynamic, FieldMut, FieldRef, MapKeyRef, ReflectMessage,
    ReflectMessageMut, ReflectValueMut, ValueRef,
};
use super::pool::{DescriptorPool, KindData};
use crate::json::{DecodeOptions, EncodeOptions, JsonError, JsonErrorKind, JsonReader, JsonWriter};
use crate::prelude::*;

/// The well-known types whose ProtoJSON is not an object of their fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Special {
    Any,
    Timestamp,
    Duration,
    FieldMask,
    Struct,
    Value,
    ListValue,
    /// `DoubleValue` ... `BytesValue`: their field `value` alone.
    Wrapper,
}

/// The special form of `desc`, if it is one of the well-known types that have one.
pub(super) fn special(desc: &MessageDescriptor) -> Option<Special> {
    special_of(desc.special_form())
}

/// The special form a pool's `special_form` number stands for.
fn special_of(form: u8) -> Option<Special> {
    Some(match form {
        1 => Special::Any,
        2 => Special::Timestamp,
        3 => Special::Duration,
        4 => Special::FieldMask,
        5 => Special::Struct,
        6 => Special::Value,
        7 => Special::ListValue,
        8 => Special::Wrapper,
        _ => return None,
    })
}

const NULL_VALUE: &str = "google.protobuf.NullValue";

fn is_null_value(e: &EnumDescriptor) -> bool {
    e.full_name() == NULL_VALUE
}

/// Whether JSON `null` is a value of `kind` (`google.protobuf.Value`, `NullValue`) rather than
/// "not set".
fn null_is_value(kind: &Kind) -> bool {
    match kind {
        Kind::Enum(e) => is_null_value(e),
        Kind::Message(m) => m.full_name() == "google.protobuf.Value",
        _ => false,
    }
}

impl DynamicMessage {
    /// The message as compact ProtoJSON with the default options.
    pub fn to_json(&self) -> Result<String, JsonError> {
        self.to_json_with(&EncodeOptions::default())
    }

    /// The message as ProtoJSON with `options` (an `Any`'s type is looked up in the message's
    /// pool, then in `options.registry`).
    pub fn to_json_with(&self, options: &EncodeOptions<'_>) -> Result<String, JsonError> {
        let mut out = String::with_capacity(256);
        let mut w = JsonWriter::new(&mut out, options);
        self.write_json(&mut w)?;
        Ok(out)
    }

    /// Reads a message of type `desc` from ProtoJSON with the default options.
    pub fn from_json(desc: MessageDescriptor, json: &str) -> Result<Self, JsonError> {
        Self::from_json_with(desc, json, &DecodeOptions::default())
    }

    /// Reads a message of type `desc` from ProtoJSON with `options`.
    pub fn from_json_with(
        desc: MessageDescriptor,
        json: &str,
        options: &DecodeOptions<'_>,
    ) -> Result<Self, JsonError> {
        let mut m = Self::new(desc);
        let mut r = JsonReader::new(json, options);
        r.check_input_size()?;
        m.merge_json(&mut r)?;
        r.finish()?;
        Ok(m)
    }

    /// Writes the message as one JSON value.
    pub fn write_json(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
        match special(&self.desc) {
            Some(form) => self.write_special(form, w),
            None => self.write_object(w),
        }
    }

    /// Reads one JSON value into the message, merging as the binary `merge` does.
    pub fn merge_json(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
        match special(&self.desc) {
            Some(form) => self.merge_special(form, r),
            None => self.merge_object(r),
        }
    }

    fn write_object(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
        w.begin_object();
        let emit = w.emit_unpopulated();
        for &position in self.desc.write_order() {
            let position = position as usize;
            let value = self.fields[position].as_ref();
            if value.is_none() && !emit {
                // Unset: nothing to write, and no descriptor handle to make.
                continue;
            }
            let f = self.desc.field_at(position);
            let written = match value {
                Some(v) if f.has_presence() || !v.is_zero() => v,
                // Unset, or a zero without presence: written only as asked, at its default.
                _ if emit && !f.has_presence() => {
                    let default = Value::default_for(&f);
                    write_key(&self.desc, position, w);
                    write_field_value(&f, &default, w)?;
                    continue;
                }
                _ => continue,
            };
            write_key(&self.desc, position, w);
            write_field_value(&f, written, w)?;
        }
        if !self.extensions.is_empty() {
            for x in self.desc.extensions() {
                let Some((_, v)) = self.extensions.iter().find(|(f, _)| *f == x) else {
                    continue;
                };
                if matches!(v, Value::List(l) if l.is_empty()) {
                    continue;
                }
                w.key_str(&format!("[{}]", x.full_name()));
                write_field_value(&x, v, w)?;
            }
        }
        w.end_object();
        Ok(())
    }

    fn merge_object(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
        r.begin_object()?;
        let desc = self.desc.clone();
        let mut seen = crate::registry::Seen::new(self.fields.len());
        let mut oneofs: Vec<usize> = Vec::new();
        let mut extensions: Vec<u32> = Vec::new();
        // The field after the last one read is the likeliest next key (as generated code
        // guesses): compared raw, it needs neither an unescaped copy nor a lookup.
        let mut next = 0usize;
        loop {
            let key = match desc.json_guess(next) {
                Some((position, name)) if r.next_key_is(name) => {
                    next += 1;
                    let f = desc.field_at(position);
                    if let Err(e) = self.json_read_field(&f, position, &mut seen, &mut oneofs, r) {
                        return Err(e.in_field(desc.full_name(), f.name(), name));
                    }
                    continue;
                }
                _ => match r.next_key()? {
                    Some(key) => key,
                    None => break,
                },
            };
            if let Some(position) = desc.json_key(&key) {
                next = desc.order_index(position) + 1;
                let f = desc.field_at(position);
                if let Err(e) = self.json_read_field(&f, position, &mut seen, &mut oneofs, r) {
                    return Err(e.in_field(desc.full_name(), f.name(), &key));
                }
            } else if let Some(x) = extension_named(&desc, &key) {
                let result = if extensions.contains(&x.number()) {
                    Err(r.duplicate())
                } else {
                    extensions.push(x.number());
                    self.json_read_extension(&x, r)
                };
                if let Err(e) = result {
                    return Err(e.in_field(desc.full_name(), x.full_name(), &key));
                }
            } else {
                r.unknown_field(&key)?;
            }
        }
        Ok(())
    }

    fn json_read_field(
        &mut self,
        f: &FieldDescriptor,
        position: usize,
        seen: &mut crate::registry::Seen,
        oneofs: &mut Vec<usize>,
        r: &mut JsonReader<'_, '_>,
    ) -> Result<(), JsonError> {
        if !seen.first(position) {
            return Err(r.duplicate());
        }
        let kind = f.kind();
        if f.is_map() {
            if r.null() {
                return Ok(());
            }
            return self.json_read_map(f, r);
        }
        if !null_is_value(&kind) && r.null() {
            return Ok(());
        }
        if f.is_list() {
            r.begin_array()?;
            let mut read = Vec::new();
            while r.next_element()? {
                if let Some(v) = read_value(&kind, r)? {
                    r.charge_element(&read)?;
                    read.push(v);
                }
            }
            if let Value::List(list) = self.value_mut(f) {
                list.extend(read);
            }
            return Ok(());
        }
        if let Some(o) = f.containing_oneof().filter(|o| !o.is_synthetic()) {
            // A oneof's member replaces what the oneof held, a message included.
            if oneofs.contains(&o.index()) {
                return Err(r.duplicate());
            }
            oneofs.push(o.index());
            if let Some(v) = read_value(&kind, r)? {
                self.set_field(f, v);
            }
            return Ok(());
        }
        match &kind {
            Kind::Message(m) => {
                let mut msg = match self.fields[position].take() {
                    Some(Value::Message(msg)) => msg,
                    _ => {
                        r.charge(message_size(m))?;
                        Box::new(DynamicMessage::new(m.clone()))
                    }
                };
                let result = msg.merge_json(r);
                self.fields[position] = Some(Value::Message(msg));
                result
            }
            _ => {
                if let Some(v) = read_value(&kind, r)? {
                    self.fields[position] = Some(v);
                }
                Ok(())
            }
        }
    }

    /// A map's object: its entries replace those of the same keys; a key twice is an error.
    fn json_read_map(
        &mut self,
        f: &FieldDescriptor,
        r: &mut JsonReader<'_, '_>,
    ) -> Result<(), JsonError> {
        let Some(read) = read_map(f, r)? else {
            return Ok(());
        };
        if let Value::Map(map) = self.value_mut(f) {
            map.extend(read);
        }
        Ok(())
    }

    /// A declared extension's value, replacing what it held.
    fn json_read_extension(
        &mut self,
        x: &FieldDescriptor,
        r: &mut JsonReader<'_, '_>,
    ) -> Result<(), JsonError> {
        if r.null() {
            return Ok(());
        }
        let kind = x.kind();
        if x.is_list() {
            let mut values = Vec::new();
            r.begin_array()?;
            while r.next_element()? {
                if let Some(v) = read_value(&kind, r)? {
                    r.charge_element(&values)?;
                    values.push(v);
                }
            }
            self.set_field(x, Value::List(values));
        } else if let Some(v) = read_value(&kind, r)? {
            self.set_field(x, v);
        }
        Ok(())
    }

    fn write_special(&self, form: Special, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
        match form {
            Special::Any => self.json_write_any(w),
            Special::Timestamp => {
                crate::json::wkt::write_timestamp(self.i64_at(1), self.i32_at(2), w)
            }
            Special::Duration => {
                crate::json::wkt::write_duration(self.i64_at(1), self.i32_at(2), w)
            }
            Special::FieldMask => {
                let paths: Vec<&str> = self
                    .list_at(1)
                    .iter()
                    .filter_map(|v| match v {
                        Value::String(s) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect();
                crate::json::wkt::write_field_mask(&paths, w)
            }
            Special::Struct => {
                w.begin_object();
                if let Some(Value::Map(map)) = self.value_at(1) {
                    for (k, v) in map {
                        if let (MapKey::String(k), Value::Message(v)) = (k, v) {
                            w.key_str(k);
                            v.write_json(w)?;
                        }
                    }
                }
                w.end_object();
                Ok(())
            }
            Special::ListValue => {
                w.begin_array();
                for v in self.list_at(1) {
                    if let Value::Message(v) = v {
                        w.element();
                        v.write_json(w)?;
                    }
                }
                w.end_array();
                Ok(())
            }
            Special::Value => {
                let set = self.desc.fields().find_map(|f| {
                    let v = self.fields[f.position()].as_ref()?;
                    Some((f.number(), v))
                });
                match set {
                    Some((2, Value::F64(v))) if !v.is_finite() => {
                        return Err(JsonError::new(JsonErrorKind::InvalidValue {
                            reason: "a Value that is NaN or infinite",
                        }))
                    }
                    Some((2, Value::F64(v))) => w.f64(*v),
                    Some((3, Value::String(v))) => w.str(v),
                    Some((4, Value::Bool(v))) => w.bool(*v),
                    Some((5 | 6, Value::Message(m))) => m.write_json(w)?,
                    // No kind reads back as `null`, as Python and C++ write it.
                    _ => w.null(),
                }
                Ok(())
            }
            Special::Wrapper => match self.desc.get_field(1) {
                Some(f) => match self.fields[f.position()].as_ref() {
                    Some(v) => write_value(&f.kind(), v, w),
                    None => write_value(&f.kind(), &Value::default_for(&f), w),
                },
                None => {
                    w.null();
                    Ok(())
                }
            },
        }
    }

    fn merge_special(
        &mut self,
        form: Special,
        r: &mut JsonReader<'_, '_>,
    ) -> Result<(), JsonError> {
        match form {
            Special::Any => self.json_merge_any(r),
            Special::Timestamp => {
                let (seconds, nanos) = r.message_level(crate::json::wkt::read_timestamp)?;
                self.set_at(1, Value::I64(seconds));
                self.set_at(2, Value::I32(nanos));
                Ok(())
            }
            Special::Duration => {
                let (seconds, nanos) = r.message_level(crate::json::wkt::read_duration)?;
                self.set_at(1, Value::I64(seconds));
                self.set_at(2, Value::I32(nanos));
                Ok(())
            }
            Special::FieldMask => {
                let paths = r.message_level(crate::json::wkt::read_field_mask)?;
                self.set_at(
                    1,
                    Value::List(paths.into_iter().map(Value::String).collect()),
                );
                Ok(())
            }
            Special::Struct => {
                let Some(f) = self.desc.get_field(1) else {
                    return r.skip_value();
                };
                let Some((_, Kind::Message(value_type))) = f.map_kinds() else {
                    return r.skip_value();
                };
                let mut read = BTreeMap::new();
                r.begin_object()?;
                while let Some(key) = r.next_key()? {
                    r.charge(
                        core::mem::size_of::<(MapKey, Value)>()
                            + key.len()
                            + message_size(&value_type),
                    )?;
                    let mut v = DynamicMessage::new(value_type.clone());
                    // The map entry's level, then the Value's.
                    r.message_level(|r| v.merge_json(r))?;
                    let k = MapKey::String(key.into_owned());
                    if read.insert(k, Value::Message(Box::new(v))).is_some() {
                        return Err(r.duplicate());
                    }
                }
                if let Value::Map(map) = self.value_mut(&f) {
                    map.extend(read);
                }
                Ok(())
            }
            Special::ListValue => {
                let Some(f) = self.desc.get_field(1) else {
                    return r.skip_value();
                };
                let Kind::Message(value_type) = f.kind() else {
                    return r.skip_value();
                };
                // The array is the ListValue's level (a repeated field's is none).
                r.message_level(|r| {
                    r.begin_array()?;
                    while r.next_element()? {
                        r.charge(core::mem::size_of::<Value>() + message_size(&value_type))?;
                        let mut v = DynamicMessage::new(value_type.clone());
                        v.merge_json(r)?;
                        if let Value::List(list) = self.value_mut(&f) {
                            list.push(Value::Message(Box::new(v)));
                        }
                    }
                    Ok(())
                })
            }
            Special::Value => {
                // The Value's own level; a Struct or ListValue in it counts its own.
                let desc = self.desc.clone();
                let (number, v) = r.message_level(|r| {
                    Ok(match r.peek_kind() {
                        Some(b'n') => {
                            r.null_value()?;
                            (1, Value::EnumNumber(0))
                        }
                        Some(b't' | b'f') => (4, Value::Bool(r.bool()?)),
                        Some(b'"') => (3, Value::String(r.string_owned()?)),
                        Some(b'{') | Some(b'[') => {
                            let number = if r.peek_kind() == Some(b'{') { 5 } else { 6 };
                            let Some(Kind::Message(t)) = desc.get_field(number).map(|f| f.kind())
                            else {
                                r.skip_value()?;
                                return Ok((0, Value::Bool(false)));
                            };
                            r.charge(message_size(&t))?;
                            let mut m = DynamicMessage::new(t);
                            m.merge_json(r)?;
                            (number, Value::Message(Box::new(m)))
                        }
                        _ => (2, Value::F64(r.f64()?)),
                    })
                })?;
                self.set_at(number, v);
                Ok(())
            }
            Special::Wrapper => {
                let Some(f) = self.desc.get_field(1) else {
                    return r.skip_value();
                };
                if let Some(v) = r.message_level(|r| read_value(&f.kind(), r))? {
                    self.set_field(&f, v);
                }
                Ok(())
            }
        }
    }

    fn json_write_any(&self, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
        let type_url = self.str_at(1);
        let value = self.bytes_at(2);
        if type_url.is_empty() && value.is_empty() {
            w.begin_object();
            w.end_object();
            return Ok(());
        }
        // Each `Any` decodes its value anew, so the binary decoder's depth limit does not
        // bound a chain of them: the writer's own depth does.
        if w.depth() >= crate::json::DEFAULT_RECURSION_LIMIT as usize {
            return Err(JsonError::new(JsonErrorKind::RecursionLimitExceeded));
        }
        let Some(desc) = any_type(&self.desc, type_url) else {
            return crate::json::registry::write_any(type_url, value, w);
        };
        let inner = DynamicMessage::decode(desc, value)
            .map_err(|e| JsonError::new(JsonErrorKind::Decode(e.to_string())))?;
        if special(&inner.desc).is_some() {
            w.begin_object();
            w.key_str("@type");
            w.str(type_url);
            w.key_str("value");
            inner.write_json(w)?;
            w.end_object();
            Ok(())
        } else {
            w.set_any_type_url(type_url);
            inner.write_json(w)
        }
    }

    fn json_merge_any(&mut self, r: &mut JsonReader<'_, '_>) -> Result<(), JsonError> {
        enum Resolved {
            Pool(MessageDescriptor),
            Registry(crate::json::AnyType),
        }
        let desc = self.desc.clone();
        let (type_url, value) = crate::json::registry::read_any_with(
            r,
            |r, type_url| match any_type(&desc, type_url) {
                Some(d) => Ok(Resolved::Pool(d)),
                None => crate::json::registry::resolve(r.options().registry, type_url)
                    .map(Resolved::Registry)
                    .map_err(|e| r.error(e.kind().clone())),
            },
            |t| match t {
                Resolved::Pool(d) => special(d).is_some(),
                Resolved::Registry(t) => t.special,
            },
            |t, r| match t {
                Resolved::Pool(d) => {
                    let mut m = DynamicMessage::new(d.clone());
                    m.merge_json(r)?;
                    Ok(m.encode_to_vec())
                }
                Resolved::Registry(t) => (t.read)(r),
            },
        )?;
        self.set_at(1, Value::String(type_url));
        self.set_at(2, Value::Bytes(value));
        Ok(())
    }
}

/// The type an `Any` of `owner`'s pool names, if that pool has it.
fn any_type(owner: &MessageDescriptor, type_url: &str) -> Option<MessageDescriptor> {
    if type_url.is_empty() || !type_url.contains('/') {
        return None;
    }
    let name = type_url.rsplit('/').next()?;
    owner.parent_pool().get_message_by_name(name)
}

/// The key of the field at `position`, from its quoted names.
fn write_key(desc: &MessageDescriptor, position: usize, w: &mut JsonWriter<'_>) {
    let (json, proto) = desc.quoted_keys(position);
    w.key(json, proto);
}

/// A field's value: a list as an array, a map as an object, else one value.
fn write_field_value(
    f: &FieldDescriptor,
    v: &Value,
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    match v {
        Value::List(list) => {
            let kind = f.kind();
            w.begin_array();
            for item in list {
                w.element();
                write_value(&kind, item, w)?;
            }
            w.end_array();
        }
        Value::Map(map) => {
            let Some((_, value_kind)) = f.map_kinds() else {
                return Ok(());
            };
            w.begin_object();
            for (k, v) in map {
                match k {
                    MapKey::String(k) => w.key_str(k),
                    MapKey::Bool(k) => w.key_display(*k),
                    MapKey::I32(k) => w.key_display(*k),
                    MapKey::I64(k) => w.key_display(*k),
                    MapKey::U32(k) => w.key_display(*k),
                    MapKey::U64(k) => w.key_display(*k),
                }
                write_value(&value_kind, v, w)?;
            }
            w.end_object();
        }
        v => write_value(&f.kind(), v, w)?,
    }
    Ok(())
}

/// One value of `kind`.
fn write_value(kind: &Kind, v: &Value, w: &mut JsonWriter<'_>) -> Result<(), JsonError> {
    match v {
        Value::Bool(v) => w.bool(*v),
        Value::I32(v) => w.i32(*v),
        Value::I64(v) => w.i64(*v),
        Value::U32(v) => w.u32(*v),
        Value::U64(v) => w.u64(*v),
        Value::F32(v) => w.f32(*v),
        Value::F64(v) => w.f64(*v),
        Value::String(v) => w.str(v),
        Value::Bytes(v) => w.bytes(v),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(e) if is_null_value(e) => w.null(),
            Kind::Enum(e) => {
                let value = e.get_value(*n);
                w.enum_value(*n, value.as_ref().map(|v| v.name()));
            }
            _ => w.i32(*n),
        },
        Value::Message(m) => m.write_json(w)?,
        // A list or a map where one value belongs: not a value of any field's kind.
        Value::List(_) | Value::Map(_) => w.null(),
    }
    Ok(())
}

/// One value of `kind`; `None` for an enum name the enum does not declare, skipped as the
/// options ask.
pub(super) fn read_value(
    kind: &Kind,
    r: &mut JsonReader<'_, '_>,
) -> Result<Option<Value>, JsonError> {
    Ok(Some(match kind {
        Kind::Double => Value::F64(r.f64()?),
        Kind::Float => Value::F32(r.f32()?),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(r.i32()?),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(r.i64()?),
        Kind::Uint32 | Kind::Fixed32 => Value::U32(r.u32()?),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(r.u64()?),
        Kind::Bool => Value::Bool(r.bool()?),
        Kind::String => Value::String(r.string_owned()?),
        Kind::Bytes => Value::Bytes(r.bytes()?),
        Kind::Enum(e) => return Ok(read_enum(e, r)?.map(Value::EnumNumber)),
        Kind::Message(m) => {
            r.charge(message_size(m))?;
            let mut msg = DynamicMessage::new(m.clone());
            msg.merge_json(r)?;
            Value::Message(Box::new(msg))
        }
    }))
}

fn read_enum(e: &EnumDescriptor, r: &mut JsonReader<'_, '_>) -> Result<Option<i32>, JsonError> {
    if is_null_value(e) && r.null() {
        return Ok(Some(0));
    }
    let lookup = |name: &str| e.get_value_by_name(name).map(|v| v.number());
    if e.is_closed() {
        r.closed_enum_value_by(lookup, |n| e.get_value(n).is_some())
    } else {
        r.enum_value_by(lookup)
    }
}

/// Writes a generated message by its tables (`tables=`), reading each field where it is
/// stored: what [`DynamicMessage::write_json`] writes for the same message, without making
/// one. A well-known type with a special form, and a message holding extensions, go through
/// a `DynamicMessage` (`to_dynamic`): they are rare, and their forms are written there once.
pub(super) fn write_reflect(
    m: &dyn ReflectMessage,
    desc: &MessageDescriptor,
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    write_message_at(m, desc.parent_pool(), desc.index() as u32, w)
}

/// [`write_reflect`] of the pool's message at `index`: it walks the message's write plan,
/// and takes no descriptor handle but where a value is written in a rare form.
fn write_message_at(
    m: &dyn ReflectMessage,
    pool: &DescriptorPool,
    index: u32,
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    let data = &pool.inner.messages[index as usize];
    let extensions =
        !data.extensions.is_empty() && m.unknown_fields().is_some_and(|u| !u.is_empty());
    if special_of(data.special).is_some() || extensions {
        return to_dynamic(m, pool.message_at(index)).write_json(w);
    }
    w.begin_object();
    let emit = w.emit_unpopulated();
    // The oneof whose member was written: its other members hold nothing.
    let mut written_oneof = None;
    for p in &data.plan {
        if p.oneof.is_some() && p.oneof == written_oneof {
            continue;
        }
        let Some(field) = m.field(p.number) else {
            continue;
        };
        // Whether the field holds its default (`None`: an optional field that is unset).
        let at_default = match &field {
            FieldRef::Single(v) => Some(v.is_zero()),
            FieldRef::Optional(v) => v.map(|_| false),
            FieldRef::List(l) => Some(l.is_empty()),
            FieldRef::Map(m) => Some(m.is_empty()),
        };
        match at_default {
            // Set, or a zero with presence (a required field in prost's structs).
            Some(false) => {}
            Some(true) if p.presence => {}
            _ => {
                // Unset, or a zero without presence: written only as asked, at its default.
                if emit && !p.presence {
                    let desc = pool.message_at(index);
                    let f = desc.field_at(p.position as usize);
                    write_key(&desc, p.position as usize, w);
                    write_field_value(&f, &Value::default_for(&f), w)?;
                }
                continue;
            }
        }
        written_oneof = p.oneof;
        let (json, proto) = &data.quoted_keys[p.position as usize];
        w.key(json, proto);
        match field {
            FieldRef::Single(v) | FieldRef::Optional(Some(v)) => write_ref(pool, p.field, v, w)?,
            FieldRef::Optional(None) => {}
            FieldRef::List(list) => {
                w.begin_array();
                for i in 0..list.len() {
                    if let Some(v) = list.get(i) {
                        w.element();
                        write_ref(pool, p.field, v, w)?;
                    }
                }
                w.end_array();
            }
            FieldRef::Map(map) => {
                w.begin_object();
                if let Some(value_field) = map_value_field(pool, p.field) {
                    let mut result = Ok(());
                    map.for_each(&mut |k, v| {
                        if result.is_err() {
                            return;
                        }
                        // The common string map: its entry in one step.
                        if let (MapKeyRef::Str(k), ValueRef::Str(v)) = (k, v) {
                            return w.str_entry(k, v);
                        }
                        match k {
                            MapKeyRef::Str(k) => w.key_str(k),
                            MapKeyRef::Bool(k) => w.key_display(k),
                            MapKeyRef::I32(k) => w.key_display(k),
                            MapKeyRef::I64(k) => w.key_display(k),
                            MapKeyRef::U32(k) => w.key_display(k),
                            MapKeyRef::U64(k) => w.key_display(k),
                        }
                        result = write_ref(pool, value_field, v, w);
                    });
                    result?;
                }
                w.end_object();
            }
        }
    }
    w.end_object();
    Ok(())
}

/// The pool's index of the value field of the map field at `field`.
fn map_value_field(pool: &DescriptorPool, field: u32) -> Option<u32> {
    let KindData::Message(entry) = pool.inner.fields[field as usize].kind else {
        return None;
    };
    let by_number = &pool.inner.messages[entry as usize].by_number;
    let at = by_number.binary_search_by_key(&2, |&(n, _)| n).ok()?;
    Some(by_number[at].1)
}

/// One stored value of the pool's field at `field`: a message by its tables, a scalar as
/// it is stored, an enum's number by its name; a wrapper type stored as prost's primitive as
/// its value, which is its JSON.
fn write_ref(
    pool: &DescriptorPool,
    field: u32,
    v: ValueRef<'_>,
    w: &mut JsonWriter<'_>,
) -> Result<(), JsonError> {
    let kind = pool.inner.fields[field as usize].kind;
    match (v, kind) {
        (ValueRef::Str(s), _) => w.str(s),
        (ValueRef::Bytes(b), _) => w.bytes(b),
        (ValueRef::Message(m), KindData::Message(index)) => write_message_at(m, pool, index, w)?,
        (ValueRef::Message(_), _) => w.null(),
        (ValueRef::Unit, _) => {
            w.begin_object();
            w.end_object();
        }
        (ValueRef::I32(n), KindData::Enum(e)) => {
            if pool.inner.enums[e as usize].full_name == NULL_VALUE {
                w.null();
            } else {
                w.enum_value(n, EnumDescriptor::value_name(pool, e, n));
            }
        }
        (ValueRef::Bool(v), KindData::Scalar(_)) => w.bool(v),
        (ValueRef::I32(v), KindData::Scalar(_)) => w.i32(v),
        (ValueRef::I64(v), KindData::Scalar(_)) => w.i64(v),
        (ValueRef::U32(v), KindData::Scalar(_)) => w.u32(v),
        (ValueRef::U64(v), KindData::Scalar(_)) => w.u64(v),
        (ValueRef::F32(v), KindData::Scalar(_)) => w.f32(v),
        (ValueRef::F64(v), KindData::Scalar(_)) => w.f64(v),
        (scalar, _) => {
            let kind = kind_at(pool, field);
            if let Some(value) = scalar.scalar(&kind) {
                write_value(&kind, &value, w)?;
            }
        }
    }
    Ok(())
}

/// A map field's object, its entries by key; a key twice is an error. `None` (the value
/// skipped) for a field that is no map.
fn read_map(
    f: &FieldDescriptor,
    r: &mut JsonReader<'_, '_>,
) -> Result<Option<BTreeMap<MapKey, Value>>, JsonError> {
    let Some((key_kind, value_kind)) = f.map_kinds() else {
        r.skip_value()?;
        return Ok(None);
    };
    let mut read = BTreeMap::new();
    r.begin_object()?;
    while let Some(key) = r.next_key()? {
        let k = map_key(&key_kind, key, r)?;
        if let Some(v) = read_value(&value_kind, r)? {
            r.charge(core::mem::size_of::<(MapKey, Value)>())?;
            if read.insert(k, v).is_some() {
                return Err(r.duplicate());
            }
        }
    }
    Ok(Some(read))
}

/// A map's key of `kind` from its JSON key.
fn map_key(
    kind: &Kind,
    key: alloc::borrow::Cow<'_, str>,
    r: &mut JsonReader<'_, '_>,
) -> Result<MapKey, JsonError> {
    Ok(match kind {
        Kind::String => {
            r.charge(key.len())?;
            MapKey::String(key.into_owned())
        }
        Kind::Bool => MapKey::Bool(r.map_key_bool(&key)?),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => MapKey::I64(r.map_key_i64(&key)?),
        Kind::Uint64 | Kind::Fixed64 => MapKey::U64(r.map_key_u64(&key)?),
        Kind::Uint32 | Kind::Fixed32 => MapKey::U32(r.map_key_u32(&key)?),
        _ => MapKey::I32(r.map_key_i32(&key)?),
    })
}

/// Reads one JSON value into a generated message by its tables (`tables=`), each field
/// into its storage as it is read: what [`DynamicMessage::merge_json`] reads for the same
/// type, with the same errors, without making one. A well-known type with a special form
/// stored as some other struct than the runtime's or prost-types' is read as a
/// `DynamicMessage`, then moved in; so is an extension's value.
pub(super) fn merge_reflect(
    m: &mut dyn ReflectMessageMut,
    desc: &MessageDescriptor,
    r: &mut JsonReader<'_, '_>,
) -> Result<(), JsonError> {
    merge_message_at(m, desc.parent_pool(), desc.index() as u32, r)
}

/// [`merge_reflect`] of the pool's message at `index`, reading its descriptors' data in
/// place (no handle per field).
fn merge_message_at(
    m: &mut dyn ReflectMessageMut,
    pool: &DescriptorPool,
    index: u32,
    r: &mut JsonReader<'_, '_>,
) -> Result<(), JsonError> {
    let inner = &*pool.inner;
    let data = &inner.messages[index as usize];
    if special_of(data.special).is_some() {
        let mut read = DynamicMessage::new(pool.message_at(index));
        read.merge_json(r)?;
        merge_owned(m, read);
        return Ok(());
    }
    r.begin_object()?;
    let mut seen = crate::registry::Seen::new(data.fields.len());
    let mut oneofs: Vec<u32> = Vec::new();
    let mut extensions: Vec<u32> = Vec::new();
    // The field after the last one read is the likeliest next key (see `merge_object`).
    let mut next = 0usize;
    loop {
        let (position, key) = match data.json_guess_at(&inner.fields, next) {
            Some((position, name)) if r.next_key_is(name) => {
                next += 1;
                (position, alloc::borrow::Cow::Borrowed(name))
            }
            _ => {
                let Some(key) = r.next_key()? else {
                    break;
                };
                match data.json_key(&key) {
                    Some(position) => {
                        next = data.order_index[position] as usize + 1;
                        (position, key)
                    }
                    None if !data.extensions.is_empty() => {
                        read_extension_at(m, pool, index, &key, &mut extensions, r)?;
                        continue;
                    }
                    None => {
                        r.unknown_field(&key)?;
                        continue;
                    }
                }
            }
        };
        if !seen.first(position) {
            let e = r.duplicate();
            let f = &inner.fields[data.fields[position] as usize];
            return Err(e.in_field(&data.full_name, &f.name, &key));
        }
        let field = data.fields[position];
        if let Err(e) = read_field_at(m, pool, field, &mut oneofs, r) {
            let f = &inner.fields[field as usize];
            return Err(e.in_field(&data.full_name, &f.name, &key));
        }
    }
    Ok(())
}

/// The value of `key`, an extension's `[full.name]` (or a key no field has), into `m`: read
/// as a [`DynamicMessage`] reads it (the tables know the extension's type by its descriptor,
/// not as a Rust type), then merged in as its encoding.
fn read_extension_at(
    m: &mut dyn ReflectMessageMut,
    pool: &DescriptorPool,
    index: u32,
    key: &str,
    extensions: &mut Vec<u32>,
    r: &mut JsonReader<'_, '_>,
) -> Result<(), JsonError> {
    let desc = pool.message_at(index);
    let Some(x) = extension_named(&desc, key) else {
        return r.unknown_field(key);
    };
    let read = if extensions.contains(&x.number()) {
        Err(r.duplicate())
    } else {
        extensions.push(x.number());
        let mut read = DynamicMessage::new(desc.clone());
        read.json_read_extension(&x, r).map(|()| read)
    };
    match read {
        Ok(read) => {
            // The encoding of a value just read from JSON, into a type that keeps it.
            let _ = m.merge_unknown(&read.encode_to_vec());
            Ok(())
        }
        Err(e) => Err(e.in_field(desc.full_name(), x.full_name(), key)),
    }
}

/// Whether JSON `null` is a value of the field's kind ([`null_is_value`]).
fn null_is_value_at(pool: &DescriptorPool, kind: KindData) -> bool {
    match kind {
        KindData::Enum(e) => pool.inner.enums[e as usize].full_name == NULL_VALUE,
        KindData::Message(m) => {
            pool.inner.messages[m as usize].full_name == "google.protobuf.Value"
        }
        _ => false,
    }
}

/// The value of the pool's field at `field` into `m`'s storage (see [`DynamicMessage`]'s
/// `json_read_field`).
fn read_field_at(
    m: &mut dyn ReflectMessageMut,
    pool: &DescriptorPool,
    field: u32,
    oneofs: &mut Vec<u32>,
    r: &mut JsonReader<'_, '_>,
) -> Result<(), JsonError> {
    let d = &pool.inner.fields[field as usize];
    let number = d.number;
    let repeated = d.label == 3;
    if repeated
        && matches!(d.kind, KindData::Message(e) if pool.inner.messages[e as usize].map_entry)
    {
        if r.null() {
            return Ok(());
        }
        return read_map_at(m, pool, field, r);
    }
    if !null_is_value_at(pool, d.kind) && r.null() {
        return Ok(());
    }
    if repeated {
        let Some(FieldMut::List(list)) = m.field_mut(number) else {
            return r.skip_value();
        };
        r.begin_array()?;
        // Each element charged to the memory budget as generated code charges it: its
        // storage's size, a message's before it is read.
        if let KindData::Message(index) = d.kind {
            while r.next_element()? {
                let slot = list.push_default();
                r.charge(core::mem::size_of_val(slot))?;
                read_message_into(slot, pool, field, index, r)?;
            }
        } else {
            let kind = kind_at(pool, field);
            while r.next_element()? {
                list.push_json(&kind, r)?;
            }
        }
        return Ok(());
    }
    let member = d.oneof.filter(|_| !d.proto3_optional);
    if let Some(o) = member {
        // A oneof's member replaces what the oneof held, a message included.
        if oneofs.contains(&o) {
            return Err(r.duplicate());
        }
        oneofs.push(o);
    }
    if let KindData::Message(index) = d.kind {
        let Some((slot, charge)) = message_slot(m, number, member.is_some()) else {
            return r.skip_value();
        };
        r.charge(charge)?;
        return read_message_into(slot, pool, field, index, r);
    }
    let kind = kind_at(pool, field);
    // A plain field's scalar is read into its storage, with no `Value` in between (assigned
    // once read). An enum (a name it does not declare may be skipped), an optional field and
    // a oneof's member are read before the field is asked for, so that a value skipped or in
    // error leaves the field as it was: neither set nor the oneof switched.
    if member.is_none() && !matches!(kind, Kind::Enum(_)) {
        if let Some(FieldMut::Single(slot)) = m.field_mut(number) {
            return slot.merge_json(&kind, r).map(drop);
        }
    }
    let Some(v) = read_value(&kind, r)? else {
        return Ok(());
    };
    match m.field_mut(number) {
        Some(FieldMut::Single(slot)) => slot.merge_value(&kind, v),
        Some(FieldMut::Optional(slot)) => slot.get_or_default().0.merge_value(&kind, v),
        _ => {}
    }
    Ok(())
}

/// A map field's object into `m`'s map (the pool's field at `field`).
fn read_map_at(
    m: &mut dyn ReflectMessageMut,
    pool: &DescriptorPool,
    field: u32,
    r: &mut JsonReader<'_, '_>,
) -> Result<(), JsonError> {
    let number = pool.inner.fields[field as usize].number;
    let (Some((key_kind, kind)), Some(FieldMut::Map(map))) =
        (map_kinds_at(pool, field), m.field_mut(number))
    else {
        return r.skip_value();
    };
    // A map of strings to strings, the common map, as generated code reads it.
    if matches!((&key_kind, &kind), (Kind::String, Kind::String)) {
        if let Some(read) = map.merge_json_strings(r) {
            return read;
        }
    }
    // A key twice in one object is an error; the keys the map held may come again, once.
    let mut read: Option<BTreeSet<MapKey>> = (!map.is_empty()).then(BTreeSet::new);
    r.begin_object()?;
    while let Some(key) = r.next_key()? {
        let k = map_key(&key_kind, key, r)?;
        // A key read before (with a value stored: an enum name skipped stores none), where
        // the map held keys of its own.
        let again = read.as_ref().map(|read| (read.contains(&k), k.clone()));
        let Some(new) = map.insert_json(k, &kind, r)? else {
            continue;
        };
        let new = match (again, read.as_mut()) {
            (Some((again, k)), Some(read)) => {
                read.insert(k);
                !again
            }
            _ => new,
        };
        if !new {
            return Err(r.duplicate());
        }
    }
    Ok(())
}

/// A well-known type with a special form, stored as the runtime's struct (`mode=standalone`)
/// or prost-types' (`mode=prost`), read by its own JSON code, as generated code reads it
/// (what it charges to the memory budget included); `None` for other types.
pub(super) fn merge_well_known(
    m: &mut dyn core::any::Any,
    r: &mut JsonReader<'_, '_>,
) -> Option<Result<(), JsonError>> {
    #[allow(unused_macros)]
    macro_rules! try_types {
        ($module:path: $($ty:ident),*) => {{
            use $module as t;
            $(if let Some(m) = m.downcast_mut::<t::$ty>() {
                return Some(crate::json::JsonMessage::merge_json(m, r));
            }
            // A field the generator boxes (`boxed=`).
            if let Some(m) = m.downcast_mut::<Box<t::$ty>>() {
                return Some(crate::json::JsonMessage::merge_json(&mut **m, r));
            })*
        }};
    }
    #[cfg(feature = "types")]
    try_types!(crate::types: Any, Timestamp, Duration, FieldMask, Struct, Value, ListValue,
        DoubleValue, FloatValue, Int64Value, UInt64Value, Int32Value, UInt32Value, BoolValue,
        StringValue, BytesValue);
    #[cfg(feature = "prost-types")]
    try_types!(prost_types: Any, Timestamp, Duration, FieldMask, Struct, Value, ListValue);
    let _ = (m, r);
    None
}

/// A message's JSON into `slot` (the pool's field at `field`, of the message type at
/// `index`): field by field where it is a message; a well-known type with a special form, a
/// wrapper type stored as prost's primitive and `Empty` as `()` by their storage's
/// [`ReflectValueMut::merge_json`].
fn read_message_into(
    slot: &mut dyn ReflectValueMut,
    pool: &DescriptorPool,
    field: u32,
    index: u32,
    r: &mut JsonReader<'_, '_>,
) -> Result<(), JsonError> {
    // A well-known type with a special form, and a wrapper type or `Empty` stored as
    // prost's primitive or `()`, are read by their storage's own code.
    if special_of(pool.inner.messages[index as usize].special).is_none() {
        if let Some(m) = slot.as_message_mut() {
            return merge_message_at(m, pool, index, r);
        }
    }
    slot.merge_json(&kind_at(pool, field), r).map(drop)
}
