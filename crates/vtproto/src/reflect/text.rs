//! The text format for [`DynamicMessage`] (features `reflect` and `text`): one walker over the
//! descriptors, on the same [`TextReader`] and [`TextWriter`] as generated code, with the same
//! options, errors and forms: fields in the order generated code writes them, a group-like
//! field under its type's name, extensions as `[full.name]`, map entries in key order, unknown
//! fields by number when asked, and `Any` expanded as `[type.googleapis.com/pkg.Msg] { .. }`
//! when its type is in the message's pool (or in the options' registry, or well known).

use super::descriptors::{EnumDescriptor, FieldDescriptor, Kind, MessageDescriptor};
use super::dynamic::{extension_named, message_size, DynamicMessage, MapKey, Value};
use super::generated::{
    merge_owned, message_slot, to_dynamic, value_of_ref, FieldMut, FieldRef, MapKeyRef,
    ReflectMessage, ReflectMessageMut, ReflectValueMut, ValueRef,
};
use crate::prelude::*;
use crate::text::{DecodeOptions, EncodeOptions, TextError, TextErrorKind, TextReader, TextWriter};

/// The type-URL prefixes an expanded `Any` may use, as C++ accepts them.
const PREFIXES: &[&str] = &["type.googleapis.com/", "type.googleprod.com/"];

fn is_any(desc: &MessageDescriptor) -> bool {
    desc.special_form() == 1
}

/// How an expanded `Any`'s type is known.
enum Resolved {
    Pool(MessageDescriptor),
    Registry(crate::text::AnyText),
}

fn resolve(
    owner: &MessageDescriptor,
    registry: Option<&crate::TypeRegistry>,
    type_url: &str,
) -> Option<Resolved> {
    let name = PREFIXES.iter().find_map(|p| type_url.strip_prefix(p))?;
    match owner.parent_pool().get_message_by_name(name) {
        Some(d) => Some(Resolved::Pool(d)),
        None => crate::text::wkt::resolve(registry, type_url).map(Resolved::Registry),
    }
}

impl DynamicMessage {
    /// The message in the text format, on one line, with the default options.
    pub fn to_text(&self) -> Result<String, TextError> {
        self.to_text_with(&EncodeOptions::default())
    }

    /// The message in the text format with `options`.
    pub fn to_text_with(&self, options: &EncodeOptions<'_>) -> Result<String, TextError> {
        let mut out = String::new();
        let mut w = TextWriter::new(&mut out, options);
        self.write_text(&mut w)?;
        if options.pretty && !out.is_empty() {
            out.push('\n');
        }
        Ok(out)
    }

    /// Reads a message of type `desc` from the text format with the default options.
    pub fn from_text(desc: MessageDescriptor, text: &str) -> Result<Self, TextError> {
        Self::from_text_with(desc, text, &DecodeOptions::default())
    }

    /// Reads a message of type `desc` from the text format with `options`.
    pub fn from_text_with(
        desc: MessageDescriptor,
        text: &str,
        options: &DecodeOptions<'_>,
    ) -> Result<Self, TextError> {
        let mut m = Self::new(desc);
        let mut r = TextReader::new(text, options);
        r.check_input_size()?;
        m.merge_text(&mut r)?;
        r.finish()?;
        Ok(m)
    }

    /// Writes the message's fields (not its braces).
    pub fn write_text(&self, w: &mut TextWriter<'_>) -> Result<(), TextError> {
        if is_any(&self.desc) {
            self.text_write_any(w);
            w.unknown_fields(self.unknown.as_bytes());
            return Ok(());
        }
        for &position in self.desc.write_order() {
            let position = position as usize;
            let Some(v) = self.fields[position].as_ref() else {
                continue;
            };
            let f = self.desc.field_at(position);
            if !f.has_presence() && v.is_zero() {
                continue;
            }
            write_field(&f, f.text_name(), v, w)?;
        }
        if !self.extensions.is_empty() {
            for x in self.desc.extensions() {
                if let Some((_, v)) = self.extensions.iter().find(|(f, _)| *f == x) {
                    let name = message_set_alias(&self.desc, &x)
                        .unwrap_or_else(|| format!("[{}]", x.full_name()));
                    write_field(&x, &name, v, w)?;
                }
            }
        }
        w.unknown_fields(self.unknown.as_bytes());
        Ok(())
    }

    /// Reads fields into the message up to the end of the message being read (its closing
    /// delimiter, or the end of the input at the top level), merging as the binary `merge`
    /// does.
    pub fn merge_text(&mut self, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
        if is_any(&self.desc) {
            return self.text_merge_any(r);
        }
        let desc = self.desc.clone();
        let mut seen = crate::registry::Seen::new(self.fields.len());
        let mut oneofs: Vec<usize> = Vec::new();
        let mut extensions: Vec<u32> = Vec::new();
        // A repeated extension the message did not hold yet is added once the message is read
        // (after the singular ones read with it, by number), as generated code adds it.
        let mut pending: Vec<(FieldDescriptor, Vec<Value>)> = Vec::new();
        read_fields(&desc, r, |name, r| match name {
            Name::Field(position) => {
                let f = desc.field_at(position);
                let read = self.text_read_field(&f, position, &mut seen, &mut oneofs, r);
                read.map(|()| true)
                    .map_err(|e| e.in_field(desc.full_name(), f.name()))
            }
            Name::Other(name) => {
                let Some(x) = extension_named(&desc, name) else {
                    return Ok(false);
                };
                let read = self.text_read_extension(&x, &mut extensions, &mut pending, r);
                read.map(|()| true)
                    .map_err(|e| e.in_field(desc.full_name(), x.full_name()))
            }
        })?;
        self.add_pending(pending);
        Ok(())
    }

    /// Adds the repeated extensions read that the message did not hold, by number.
    fn add_pending(&mut self, mut pending: Vec<(FieldDescriptor, Vec<Value>)>) {
        pending.sort_by_key(|(x, _)| x.number());
        for (x, values) in pending {
            self.set_field(&x, Value::List(values));
        }
    }

    fn text_read_field(
        &mut self,
        f: &FieldDescriptor,
        position: usize,
        seen: &mut crate::registry::Seen,
        oneofs: &mut Vec<usize>,
        r: &mut TextReader<'_, '_>,
    ) -> Result<(), TextError> {
        let kind = f.kind();
        let message = matches!(kind, Kind::Message(_));
        if f.is_map() {
            return self.text_read_map(f, r);
        }
        if f.is_list() {
            let read = read_items(&kind, r)?;
            if let Value::List(list) = self.value_mut(f) {
                list.extend(read);
            }
            return Ok(());
        }
        if let Some(o) = f.containing_oneof().filter(|o| !o.is_synthetic()) {
            if oneofs.contains(&o.index()) {
                return Err(r.duplicate());
            }
            oneofs.push(o.index());
            colon(message, r)?;
            let v = read_value(&kind, r)?;
            self.set_field(f, v);
            return Ok(());
        }
        // A field without presence may come again while it holds its default.
        let again = !seen.first(position);
        if again
            && (f.has_presence() || self.fields[position].as_ref().is_some_and(|v| !v.is_zero()))
        {
            return Err(r.duplicate());
        }
        match &kind {
            Kind::Message(m) => {
                r.message_colon();
                let mut msg = match self.fields[position].take() {
                    Some(Value::Message(msg)) => msg,
                    _ => {
                        r.charge(message_size(m))?;
                        Box::new(DynamicMessage::new(m.clone()))
                    }
                };
                let result = r.begin_message().and_then(|()| msg.merge_text(r));
                self.fields[position] = Some(Value::Message(msg));
                result
            }
            _ => {
                r.colon()?;
                self.fields[position] = Some(read_value(&kind, r)?);
                Ok(())
            }
        }
    }

    /// A map's entries (`name { key: .. value: .. }`, or a `[..]` list of them), each
    /// replacing the entry of its key; a key or value twice in one entry is an error once it
    /// holds more than its default (always where the file tracks presence, and for a message
    /// value).
    fn text_read_map(
        &mut self,
        f: &FieldDescriptor,
        r: &mut TextReader<'_, '_>,
    ) -> Result<(), TextError> {
        read_map_entries(f, r, |key_kind, value_kind, presence, r| {
            let mut v: Option<Value> = None;
            let k = read_entry(key_kind, value_kind, presence, &mut v, r)?;
            if let (None, Kind::Message(m)) = (&v, value_kind) {
                r.charge(message_size(m))?;
            }
            let v = v.unwrap_or_else(|| Value::default_of(value_kind));
            r.charge(core::mem::size_of::<(MapKey, Value)>())?;
            if let (Some(k), Value::Map(map)) = (MapKey::from_value(k), self.value_mut(f)) {
                map.insert(k, v);
            }
            Ok(())
        })
    }

    /// An extension: a singular one replaces its value (once per message), a repeated one
    /// appends.
    fn text_read_extension(
        &mut self,
        x: &FieldDescriptor,
        seen: &mut Vec<u32>,
        pending: &mut Vec<(FieldDescriptor, Vec<Value>)>,
        r: &mut TextReader<'_, '_>,
    ) -> Result<(), TextError> {
        let kind = x.kind();
        let message = matches!(kind, Kind::Message(_));
        if x.is_list() {
            let read = read_items(&kind, r)?;
            if let Some((_, values)) = pending.iter_mut().find(|(p, _)| p == x) {
                values.extend(read);
            } else if self.extensions.iter().any(|(f, _)| f == x) {
                if let Value::List(list) = self.value_mut(x) {
                    list.extend(read);
                }
            } else {
                pending.push((x.clone(), read));
            }
            return Ok(());
        }
        if seen.contains(&x.number()) {
            return Err(r.duplicate());
        }
        seen.push(x.number());
        colon(message, r)?;
        let v = read_value(&kind, r)?;
        self.set_field(x, v);
        Ok(())
    }

    /// Writes an `Any`: expanded when its type is known and its value decodes, else its
    /// fields.
    fn text_write_any(&self, w: &mut TextWriter<'_>) {
        let type_url = self.str_at(1);
        let value = self.bytes_at(2);
        // Only so deep: each `Any` decodes its value anew, so the binary decoder's depth limit
        // does not bound a chain of them.
        let shallow = w.depth() < crate::text::DEFAULT_RECURSION_LIMIT as usize;
        if let Some(t) = resolve(&self.desc, w.options().registry, type_url).filter(|_| shallow) {
            let mark = w.mark();
            w.begin_message(&format!("[{type_url}]"));
            let written = match t {
                Resolved::Pool(d) => DynamicMessage::decode(d, value)
                    .ok()
                    .is_some_and(|m| m.write_text(w).is_ok()),
                Resolved::Registry(t) => (t.write)(value, w).is_ok(),
            };
            if written {
                w.end_message();
                return;
            }
            w.reset(mark);
        }
        crate::text::wkt::write_any_fields(type_url, value, w);
    }

    /// Reads an `Any`'s fields: `type_url` and `value`, or one expanded `[url] { .. }`.
    fn text_merge_any(&mut self, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
        let (mut plain, mut expanded) = (false, false);
        let mut seen = [false; 2];
        while let Some(name) = r.next_field()? {
            match &*name {
                "type_url" | "value" if expanded => return Err(r.duplicate()),
                "type_url" | "value" => {
                    let i = usize::from(&*name == "value");
                    if core::mem::replace(&mut seen[i], true) {
                        return Err(r.duplicate());
                    }
                    plain = true;
                    r.colon()?;
                    if i == 0 {
                        let url = r.string()?;
                        self.set_at(1, Value::String(url));
                    } else {
                        let value = r.bytes()?;
                        self.set_at(2, Value::Bytes(value));
                    }
                }
                url if url.starts_with('[') && url.contains('/') => {
                    if plain || expanded {
                        return Err(r.duplicate());
                    }
                    expanded = true;
                    let url = &url[1..url.len() - 1];
                    let t = resolve(&self.desc, r.options().registry, url).ok_or_else(|| {
                        r.error(TextErrorKind::UnknownAnyType {
                            type_url: url.to_string(),
                        })
                    })?;
                    r.message_colon();
                    r.begin_message()?;
                    let value = match t {
                        Resolved::Pool(d) => {
                            let mut m = DynamicMessage::new(d);
                            m.merge_text(r)?;
                            m.encode_to_vec()
                        }
                        Resolved::Registry(t) => (t.read)(r)?,
                    };
                    self.set_at(1, Value::String(url.to_string()));
                    self.set_at(2, Value::Bytes(value));
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
}

fn colon(message: bool, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
    if message {
        r.message_colon();
        Ok(())
    } else {
        r.colon()
    }
}

/// A MessageSet's extension declared in its own message type is written by that type's name
/// (`[pkg.Type]`), as C++ prints it, unless two extensions of the MessageSet share that name.
fn message_set_alias(desc: &MessageDescriptor, x: &FieldDescriptor) -> Option<String> {
    if !desc.is_message_set() {
        return None;
    }
    let (scope, _) = x.full_name().rsplit_once('.')?;
    let alias = format!("[{scope}]");
    let named = extension_named(desc, &alias)?;
    (named == *x).then_some(alias)
}

/// A field's value(s) under `name`: each element of a list, each entry of a map.
fn write_field(
    f: &FieldDescriptor,
    name: &str,
    v: &Value,
    w: &mut TextWriter<'_>,
) -> Result<(), TextError> {
    match v {
        Value::List(list) => {
            let kind = f.kind();
            for item in list {
                write_value(name, &kind, item, w)?;
            }
        }
        Value::Map(map) => {
            let Some((_, value_kind)) = f.map_kinds() else {
                return Ok(());
            };
            for (k, v) in map {
                w.begin_message(name);
                w.field("key");
                match k {
                    MapKey::String(k) => w.str(k),
                    MapKey::Bool(k) => w.bool(*k),
                    MapKey::I32(k) => w.i32(*k),
                    MapKey::I64(k) => w.i64(*k),
                    MapKey::U32(k) => w.u32(*k),
                    MapKey::U64(k) => w.u64(*k),
                }
                write_value("value", &value_kind, v, w)?;
                w.end_message();
            }
        }
        v => write_value(name, &f.kind(), v, w)?,
    }
    Ok(())
}

fn write_value(
    name: &str,
    kind: &Kind,
    v: &Value,
    w: &mut TextWriter<'_>,
) -> Result<(), TextError> {
    if let Value::Message(m) = v {
        w.begin_message(name);
        m.write_text(w)?;
        w.end_message();
        return Ok(());
    }
    w.field(name);
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
            Kind::Enum(e) => {
                let value = e.get_value(*n);
                w.enum_value(*n, value.as_ref().map(|v| v.name()));
            }
            _ => w.i32(*n),
        },
        // Not a value of any field's kind.
        Value::Message(_) | Value::List(_) | Value::Map(_) => {}
    }
    Ok(())
}

/// The values of one occurrence of a repeated field: one value, or a `[..]` list of them.
fn read_items(kind: &Kind, r: &mut TextReader<'_, '_>) -> Result<Vec<Value>, TextError> {
    let mut items = if matches!(kind, Kind::Message(_)) {
        r.message_items()?
    } else {
        r.scalar_items()?
    };
    let mut read = Vec::new();
    while items.next(r)? {
        r.charge_element(&read)?;
        read.push(read_value(kind, r)?);
    }
    Ok(read)
}

/// One value of `kind` (a message's braces included).
fn read_value(kind: &Kind, r: &mut TextReader<'_, '_>) -> Result<Value, TextError> {
    Ok(match kind {
        Kind::Double => Value::F64(r.f64()?),
        Kind::Float => Value::F32(r.f32()?),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(r.i32()?),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(r.i64()?),
        Kind::Uint32 | Kind::Fixed32 => Value::U32(r.u32()?),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(r.u64()?),
        Kind::Bool => Value::Bool(r.bool()?),
        Kind::String => Value::String(r.string()?),
        Kind::Bytes => Value::Bytes(r.bytes()?),
        Kind::Enum(e) => Value::EnumNumber(read_enum(e, r)?),
        Kind::Message(m) => {
            r.charge(message_size(m))?;
            let mut msg = DynamicMessage::new(m.clone());
            r.begin_message()?;
            msg.merge_text(r)?;
            Value::Message(Box::new(msg))
        }
    })
}

fn read_enum(e: &EnumDescriptor, r: &mut TextReader<'_, '_>) -> Result<i32, TextError> {
    let lookup = |name: &str| e.get_value_by_name(name).map(|v| v.number());
    if e.is_closed() {
        r.closed_enum_value_by(lookup, |n| e.get_value(n).is_some())
    } else {
        r.enum_value_by(lookup)
    }
}

/// Writes a generated message's fields by its tables (`tables=`), reading each field where
/// it is stored: what [`DynamicMessage::write_text`] writes for the same message, without
/// making one. An `Any`, and a message holding extensions, go through a `DynamicMessage`
/// (`to_dynamic`): they are rare, and their forms are written there once.
pub(super) fn write_reflect(
    m: &dyn ReflectMessage,
    desc: &MessageDescriptor,
    w: &mut TextWriter<'_>,
) -> Result<(), TextError> {
    let unknown = m.unknown_fields();
    let extensions = unknown.is_some_and(|u| !u.is_empty()) && desc.extensions().next().is_some();
    if is_any(desc) || extensions {
        return to_dynamic(m, desc.clone()).write_text(w);
    }
    for &position in desc.write_order() {
        let position = position as usize;
        let Some(field) = m.field(desc.number_at(position)) else {
            continue;
        };
        match field {
            FieldRef::Single(v) => {
                let f = desc.field_at(position);
                if f.has_presence() || !v.is_zero() {
                    write_ref(f.text_name(), &f.kind(), v, w)?;
                }
            }
            FieldRef::Optional(None) => {}
            FieldRef::Optional(Some(v)) => {
                let f = desc.field_at(position);
                write_ref(f.text_name(), &f.kind(), v, w)?;
            }
            FieldRef::List(list) => {
                if list.is_empty() {
                    continue;
                }
                let f = desc.field_at(position);
                let kind = f.kind();
                for i in 0..list.len() {
                    if let Some(v) = list.get(i) {
                        write_ref(f.text_name(), &kind, v, w)?;
                    }
                }
            }
            FieldRef::Map(map) => {
                if map.is_empty() {
                    continue;
                }
                let f = desc.field_at(position);
                let Some((_, kind)) = f.map_kinds() else {
                    continue;
                };
                // Entries in key order, as the text format writes them.
                let mut entries: Vec<(MapKeyRef<'_>, ValueRef<'_>)> = Vec::with_capacity(map.len());
                map.for_each(&mut |k, v| entries.push((k, v)));
                entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                for (k, v) in entries {
                    w.begin_message(f.text_name());
                    w.field("key");
                    match k {
                        MapKeyRef::Str(k) => w.str(k),
                        MapKeyRef::Bool(k) => w.bool(k),
                        MapKeyRef::I32(k) => w.i32(k),
                        MapKeyRef::I64(k) => w.i64(k),
                        MapKeyRef::U32(k) => w.u32(k),
                        MapKeyRef::U64(k) => w.u64(k),
                    }
                    write_ref("value", &kind, v, w)?;
                    w.end_message();
                }
            }
        }
    }
    if let Some(unknown) = unknown {
        w.unknown_fields(unknown.as_bytes());
    }
    Ok(())
}

/// One stored value of `kind` under `name`: a message by its tables, a string or bytes
/// lent, anything else (a scalar, an enum's number, a wrapper type stored as prost's
/// primitive) as its [`Value`].
fn write_ref(
    name: &str,
    kind: &Kind,
    v: ValueRef<'_>,
    w: &mut TextWriter<'_>,
) -> Result<(), TextError> {
    match (v, kind) {
        (ValueRef::Message(m), Kind::Message(desc)) => {
            w.begin_message(name);
            write_reflect(m, desc, w)?;
            w.end_message();
            Ok(())
        }
        (ValueRef::Str(s), Kind::String) => {
            w.field(name);
            w.str(s);
            Ok(())
        }
        (ValueRef::Bytes(b), Kind::Bytes) => {
            w.field(name);
            w.bytes(b);
            Ok(())
        }
        _ => write_value(name, kind, &value_of_ref(v, kind), w),
    }
}

/// Reads fields into a generated message by its tables (`tables=`), each into its storage as
/// it is read: what [`DynamicMessage::merge_text`] reads for the same type, with the same
/// errors, without making one. An `Any` is read as a `DynamicMessage`, then moved in; so are
/// the extensions' values, once the message is read.
pub(super) fn merge_reflect(
    m: &mut dyn ReflectMessageMut,
    desc: &MessageDescriptor,
    r: &mut TextReader<'_, '_>,
) -> Result<(), TextError> {
    if is_any(desc) {
        let mut read = DynamicMessage::new(desc.clone());
        read.merge_text(r)?;
        merge_owned(m, read);
        return Ok(());
    }
    let mut seen = crate::registry::Seen::new(desc.fields().len());
    let mut oneofs: Vec<usize> = Vec::new();
    // Extensions are read into a `DynamicMessage` (the tables know their types by descriptor
    // only, not as Rust types), then merged in as their encoding once the message is read.
    let mut extended: Option<DynamicMessage> = None;
    let mut extensions: Vec<u32> = Vec::new();
    let mut pending: Vec<(FieldDescriptor, Vec<Value>)> = Vec::new();
    read_fields(desc, r, |name, r| match name {
        Name::Field(position) => {
            let f = desc.field_at(position);
            let read = read_field_into(m, &f, position, &mut seen, &mut oneofs, r);
            read.map(|()| true)
                .map_err(|e| e.in_field(desc.full_name(), f.name()))
        }
        Name::Other(name) => {
            let Some(x) = extension_named(desc, name) else {
                return Ok(false);
            };
            let into = extended.get_or_insert_with(|| DynamicMessage::new(desc.clone()));
            let read = into.text_read_extension(&x, &mut extensions, &mut pending, r);
            read.map(|()| true)
                .map_err(|e| e.in_field(desc.full_name(), x.full_name()))
        }
    })?;
    if let Some(mut extended) = extended {
        extended.add_pending(pending);
        // The encoding of values just read, into a type that keeps them.
        let _ = m.merge_unknown(&extended.encode_to_vec());
    }
    Ok(())
}

/// A map entry's value as the text reader fills it: a [`DynamicMessage`]'s `Value`, or a
/// generated struct's storage ([`Stored`]).
pub(super) trait EntryValue {
    /// Whether it holds more than its default, or a value of message `kind` (a wrapper
    /// stored as prost's primitive too) once read: a second `value` is then an error.
    fn held(&self, kind: &Kind) -> bool;
    /// Reads the value, after its name.
    fn read(&mut self, kind: &Kind, r: &mut TextReader<'_, '_>) -> Result<(), TextError>;
}

impl EntryValue for Option<Value> {
    fn held(&self, _: &Kind) -> bool {
        self.as_ref().is_some_and(|v| match v {
            Value::Message(_) => true,
            v => !v.is_zero(),
        })
    }
    fn read(&mut self, kind: &Kind, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
        match kind {
            Kind::Message(m) => {
                r.message_colon();
                let mut msg = match self.take() {
                    Some(Value::Message(msg)) => msg,
                    _ => {
                        r.charge(message_size(m))?;
                        Box::new(DynamicMessage::new(m.clone()))
                    }
                };
                r.begin_message()?;
                msg.merge_text(r)?;
                *self = Some(Value::Message(msg));
            }
            _ => {
                r.colon()?;
                *self = Some(read_value(kind, r)?);
            }
        }
        Ok(())
    }
}

/// A map entry's value in a generated struct's storage, read as generated code reads it (a
/// message by its tables).
pub(super) struct Stored<V>(pub(super) V);

impl<V: ReflectValueMut> EntryValue for Stored<V> {
    fn held(&self, kind: &Kind) -> bool {
        matches!(kind, Kind::Message(_)) || !self.0.as_ref().is_zero()
    }
    fn read(&mut self, kind: &Kind, r: &mut TextReader<'_, '_>) -> Result<(), TextError> {
        if let Kind::Message(desc) = kind {
            r.message_colon();
            r.begin_message()?;
            return read_message_into(&mut self.0, kind, desc, r);
        }
        r.colon()?;
        let v = read_value(kind, r)?;
        self.0.merge_value(kind, v);
        Ok(())
    }
}

/// A map field's occurrence (`name { key: .. value: .. }`, or a `[..]` list of them): `entry`
/// reads each entry (its opening delimiter read), given its key's and value's kinds and
/// whether the file tracks a key's presence.
fn read_map_entries(
    f: &FieldDescriptor,
    r: &mut TextReader<'_, '_>,
    mut entry: impl FnMut(&Kind, &Kind, bool, &mut TextReader<'_, '_>) -> Result<(), TextError>,
) -> Result<(), TextError> {
    let (Some((key_kind, value_kind)), Kind::Message(map)) = (f.map_kinds(), f.kind()) else {
        return r.skip_field();
    };
    let presence = map.map_entry_key_field().is_some_and(|k| k.has_presence());
    let mut items = r.message_items()?;
    while items.next(r)? {
        r.begin_message()?;
        entry(&key_kind, &value_kind, presence, r)?;
    }
    Ok(())
}

/// One map entry's fields (its opening delimiter read): its key (the default where it has
/// none), its value read into `v`. A key or value twice is an error once it holds more than
/// its default (always where the file tracks presence, and for a message value).
pub(super) fn read_entry(
    key_kind: &Kind,
    value_kind: &Kind,
    presence: bool,
    v: &mut impl EntryValue,
    r: &mut TextReader<'_, '_>,
) -> Result<Value, TextError> {
    let mut k: Option<Value> = None;
    let mut seen = [false; 2];
    while let Some(name) = r.next_field()? {
        match &*name {
            "key" => {
                let held = k.as_ref().is_some_and(|k| !k.is_zero());
                if core::mem::replace(&mut seen[0], true) && (presence || held) {
                    return Err(r.duplicate());
                }
                r.colon()?;
                k = Some(read_value(key_kind, r)?);
            }
            "value" => {
                if core::mem::replace(&mut seen[1], true) && (presence || v.held(value_kind)) {
                    return Err(r.duplicate());
                }
                v.read(value_kind, r)?;
            }
            other => {
                r.skip_unknown_field(other)?;
                continue;
            }
        }
        r.end_field();
    }
    Ok(k.unwrap_or_else(|| Value::default_of(key_kind)))
}

/// A field's name as [`read_fields`] hands it out.
enum Name<'n> {
    /// A field the message declares, at this position.
    Field(usize),
    /// Any other name (an extension's, `[pkg.ext]`, or none the message knows).
    Other(&'n str),
}

/// Reads a message's fields in the text format up to its end: `read` reads a field by its
/// name (true), or tells that no field has it (false); a reserved name is then skipped, an
/// unknown one as the options say.
fn read_fields(
    desc: &MessageDescriptor,
    r: &mut TextReader<'_, '_>,
    mut read: impl FnMut(Name<'_>, &mut TextReader<'_, '_>) -> Result<bool, TextError>,
) -> Result<(), TextError> {
    while let Some(name) = r.next_field()? {
        let known = match desc.text_key(&name) {
            Some(position) => read(Name::Field(position), r)?,
            None => read(Name::Other(&name), r)?,
        };
        if !known {
            if desc.reserved_names().any(|n| n == name) {
                r.skip_field()?;
            } else {
                r.skip_unknown_field(&name)?;
                continue;
            }
        }
        r.end_field();
    }
    Ok(())
}

/// One occurrence of a field into `m`'s storage (see [`DynamicMessage`]'s
/// `text_read_field`).
fn read_field_into(
    m: &mut dyn ReflectMessageMut,
    f: &FieldDescriptor,
    position: usize,
    seen: &mut crate::registry::Seen,
    oneofs: &mut Vec<usize>,
    r: &mut TextReader<'_, '_>,
) -> Result<(), TextError> {
    let kind = f.kind();
    let number = f.number();
    if f.is_map() {
        let Some(FieldMut::Map(map)) = m.field_mut(number) else {
            return r.skip_field();
        };
        return read_map_entries(f, r, |key_kind, value_kind, presence, r| {
            map.insert_text(key_kind, value_kind, presence, r)
        });
    }
    if f.is_list() {
        let Some(FieldMut::List(list)) = m.field_mut(number) else {
            return r.skip_field();
        };
        let mut items = if let Kind::Message(_) = kind {
            r.message_items()?
        } else {
            r.scalar_items()?
        };
        // Each element charged to the memory budget as generated code charges it: its
        // storage's size, before it is read.
        while items.next(r)? {
            let slot = list.push_default();
            r.charge(core::mem::size_of_val(slot))?;
            if let Kind::Message(d) = &kind {
                r.begin_message()?;
                read_message_into(slot, &kind, d, r)?;
            } else {
                let v = read_value(&kind, r)?;
                slot.merge_value(&kind, v);
            }
        }
        return Ok(());
    }
    let member = f.containing_oneof().filter(|o| !o.is_synthetic());
    if let Some(o) = &member {
        if oneofs.contains(&o.index()) {
            return Err(r.duplicate());
        }
        oneofs.push(o.index());
    } else if !seen.first(position)
        // A field without presence may come again while it holds its default (its stored
        // value, as generated code checks it: prost's structs hand out an implicit float's
        // -0.0 as unset when read, as they are when written, but store it).
        && (f.has_presence()
            || matches!(m.field_mut(number), Some(FieldMut::Single(v)) if !v.as_ref().is_zero()))
    {
        return Err(r.duplicate());
    }
    match &kind {
        Kind::Message(d) => {
            r.message_colon();
            // A oneof's member replaces what the oneof held, a message included.
            let Some((slot, charge)) = message_slot(m, number, member.is_some()) else {
                return r.skip_field();
            };
            r.charge(charge)?;
            r.begin_message()?;
            read_message_into(slot, &kind, d, r)
        }
        _ => {
            r.colon()?;
            let v = read_value(&kind, r)?;
            set_value(m, number, &kind, v);
            Ok(())
        }
    }
}

/// A scalar (or an enum's number) into `m`'s field numbered `number`, replacing it.
fn set_value(m: &mut dyn ReflectMessageMut, number: u32, kind: &Kind, v: Value) {
    match m.field_mut(number) {
        Some(FieldMut::Single(slot)) => slot.merge_value(kind, v),
        Some(FieldMut::Optional(slot)) => slot.get_or_default().0.merge_value(kind, v),
        _ => {}
    }
}

/// A message's fields (its opening delimiter read) into `slot`: field by field where it is a
/// message, else (a wrapper type stored as prost's primitive, `()` for `Empty`) read as its
/// message and converted.
fn read_message_into(
    slot: &mut dyn ReflectValueMut,
    kind: &Kind,
    desc: &MessageDescriptor,
    r: &mut TextReader<'_, '_>,
) -> Result<(), TextError> {
    match slot.as_message_mut() {
        Some(m) => merge_reflect(m, desc, r),
        None => {
            let mut msg = DynamicMessage::new(desc.clone());
            msg.merge_text(r)?;
            slot.merge_value(kind, Value::Message(Box::new(msg)));
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::{DescriptorPool, FieldMut, FieldRef, ReflectMessage, ReflectMessageMut};
    use crate::text::{DecodeOptions, TextErrorKind};

    /// `proto3 message M { double d = 1; }` as prost-mode generated code reflects it: an
    /// implicit double handed out as unset unless `!= 0.0` (so a stored -0.0 reads as unset),
    /// changed in place.
    struct M {
        d: f64,
        desc: MessageDescriptor,
    }

    impl ReflectMessage for M {
        fn descriptor(&self) -> MessageDescriptor {
            self.desc.clone()
        }
        fn field(&self, number: u32) -> Option<FieldRef<'_>> {
            (number == 1)
                .then(|| FieldRef::Optional((self.d != 0.0).then_some(ValueRef::F64(self.d))))
        }
    }

    impl ReflectMessageMut for M {
        fn field_mut(&mut self, number: u32) -> Option<FieldMut<'_>> {
            (number == 1).then_some(FieldMut::Single(&mut self.d))
        }
    }

    fn read(text: &str) -> Result<f64, TextErrorKind> {
        // A FileDescriptorSet: a.proto, proto3, `message M { double d = 1; }`.
        let set = b"\x0a\x24\x0a\x07a.proto\x22\x11\x0a\x01M\x12\x0c\x0a\x01d\x18\x01\x20\x01\x28\x01\x52\x01d\x62\x06proto3";
        let pool = DescriptorPool::decode(set).unwrap();
        let mut m = M {
            d: 0.0,
            desc: pool.get_message_by_name("M").unwrap(),
        };
        let options = DecodeOptions::default();
        let mut r = TextReader::new(text, &options);
        crate::reflect::merge_text(&mut m, &mut r)
            .and_then(|()| r.finish())
            .map(|()| m.d)
            .map_err(|e| e.kind().clone())
    }

    /// A field without presence may come again only while it holds its default, judged by
    /// the value stored (bit for bit, as generated code judges it), not by what prost-mode
    /// reflection hands out.
    #[test]
    fn an_implicit_field_twice_is_a_duplicate_once_it_holds_a_value() {
        assert_eq!(read("d: 1.5"), Ok(1.5));
        assert_eq!(read("d: 0 d: 2.5"), Ok(2.5));
        assert_eq!(read("d: 1.5 d: 2.5"), Err(TextErrorKind::DuplicateField));
        assert_eq!(read("d: -0 d: 2.5"), Err(TextErrorKind::DuplicateField));
    }
}
