//! `DynamicMessage`: a message of a type known only at run time, held as values by field,
//! read and written in the binary format through the same `Reader` and backward writer as
//! generated code, with the semantics of `mode=standalone`: unknown fields kept as they came
//! (a declared field with another wire type among them), declared extensions read into their
//! types, closed enums' undeclared numbers kept as unknown, packed and expanded lists both
//! read, map entries written whole, MessageSet items, and the written form of generated
//! structs (known fields by number, then extensions in the order they came, then unknown
//! records).

use alloc::collections::BTreeMap;

use super::descriptors::kind_at;
use super::descriptors::{FieldDescriptor, Kind, MessageDescriptor};
use super::pool::{DecodeField, KindData, MapDecode};
use crate::prelude::*;
use crate::wire::{self, WireType};
use crate::{DecodeError, DecodeErrorKind, Reader, ReverseWriter, UnknownFields};

/// One value of a field: a scalar, an enum number, a message, a list or a map.
// On 64-bit targets `repr(C)` puts every variant's value at offset 8: a `Value` returned
// through memory is then copied at the widths it was written with, where the default
// layout's one-byte and four-byte payloads at offsets 1 and 4 were copied with loads that
// straddle the stores (a store-forwarding stall per value read). Its size, and
// `Option<Value>`'s, stay 32. Elsewhere the default layout is the smaller one, and stays.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(target_pointer_width = "64", repr(C))]
pub enum Value {
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
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
    /// `string`.
    String(String),
    /// `bytes`.
    Bytes(Vec<u8>),
    /// An enum's number (declared or not, for open enums).
    EnumNumber(i32),
    /// A message (boxed: a value is then four words, whatever its kind).
    Message(Box<DynamicMessage>),
    /// A repeated field's values.
    List(Vec<Value>),
    /// A map field's entries, in key order.
    Map(BTreeMap<MapKey, Value>),
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(core::mem::size_of::<Value>() == 32);
const _: () = assert!(core::mem::size_of::<Option<Value>>() == core::mem::size_of::<Value>());

/// A map's key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MapKey {
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
    String(String),
}

impl Value {
    /// The default of one value of `kind` (a message's is empty).
    pub fn default_of(kind: &Kind) -> Value {
        match kind {
            Kind::Double => Value::F64(0.0),
            Kind::Float => Value::F32(0.0),
            Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(0),
            Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(0),
            Kind::Uint32 | Kind::Fixed32 => Value::U32(0),
            Kind::Uint64 | Kind::Fixed64 => Value::U64(0),
            Kind::Bool => Value::Bool(false),
            Kind::String => Value::String(String::new()),
            Kind::Bytes => Value::Bytes(Vec::new()),
            Kind::Enum(e) => Value::EnumNumber(e.default_value().number()),
            Kind::Message(m) => Value::Message(Box::new(DynamicMessage::new(m.clone()))),
        }
    }

    /// The default of `field`: an empty list or map, its declared default (`[default = ..]`),
    /// or its type's.
    pub fn default_for(field: &FieldDescriptor) -> Value {
        if field.is_map() {
            Value::Map(BTreeMap::new())
        } else if field.is_list() {
            Value::List(Vec::new())
        } else {
            let kind = field.kind();
            field
                .default_value_text()
                .and_then(|text| declared_default(&kind, text))
                .unwrap_or_else(|| Value::default_of(&kind))
        }
    }

    /// Whether a singular value is its type's zero (not written where presence is implicit).
    pub(super) fn is_zero(&self) -> bool {
        match self {
            Value::Bool(v) => !v,
            Value::I32(v) | Value::EnumNumber(v) => *v == 0,
            Value::I64(v) => *v == 0,
            Value::U32(v) => *v == 0,
            Value::U64(v) => *v == 0,
            // -0.0 is written: its bits are not zero.
            Value::F32(v) => v.to_bits() == 0,
            Value::F64(v) => v.to_bits() == 0,
            Value::String(s) => s.is_empty(),
            Value::Bytes(b) => b.is_empty(),
            Value::Message(_) => false,
            Value::List(l) => l.is_empty(),
            Value::Map(m) => m.is_empty(),
        }
    }
}

impl From<MapKey> for Value {
    fn from(k: MapKey) -> Value {
        match k {
            MapKey::Bool(v) => Value::Bool(v),
            MapKey::I32(v) => Value::I32(v),
            MapKey::I64(v) => Value::I64(v),
            MapKey::U32(v) => Value::U32(v),
            MapKey::U64(v) => Value::U64(v),
            MapKey::String(v) => Value::String(v),
        }
    }
}

impl MapKey {
    #[cfg(feature = "text")]
    pub(super) fn from_value(v: Value) -> Option<MapKey> {
        Some(match v {
            Value::Bool(v) => MapKey::Bool(v),
            Value::I32(v) => MapKey::I32(v),
            Value::I64(v) => MapKey::I64(v),
            Value::U32(v) => MapKey::U32(v),
            Value::U64(v) => MapKey::U64(v),
            Value::String(v) => MapKey::String(v),
            _ => return None,
        })
    }
}

/// A message of a type known at run time.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicMessage {
    pub(super) desc: MessageDescriptor,
    /// By the field's position in its message.
    pub(super) fields: Vec<Option<Value>>,
    /// Declared extensions, in the order they first came.
    pub(super) extensions: Vec<(FieldDescriptor, Value)>,
    pub(super) unknown: UnknownFields,
}

impl DynamicMessage {
    /// An empty message of type `desc`.
    pub fn new(desc: MessageDescriptor) -> Self {
        let n = desc.fields().len();
        DynamicMessage {
            desc,
            fields: core::iter::repeat_with(|| None).take(n).collect(),
            extensions: Vec::new(),
            unknown: UnknownFields::default(),
        }
    }

    /// Decodes a message of type `desc`, then checks that it and the messages in it have
    /// their required fields, as generated `decode` does ([`merge`](Self::merge) alone does
    /// not check them).
    pub fn decode(desc: MessageDescriptor, bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut m = Self::new(desc);
        m.merge(&mut Reader::new(bytes))?;
        m.check_initialized()?;
        Ok(m)
    }

    /// Checks that the message and the messages in its fields (lists and map values included)
    /// have their required fields (proto2 `required`, editions `LEGACY_REQUIRED`), as
    /// generated code checks them: not inside extensions.
    pub fn check_initialized(&self) -> Result<(), DecodeError> {
        if !self.desc.may_miss_required() {
            return Ok(());
        }
        for (position, value) in self.fields.iter().enumerate() {
            match value {
                Some(v) => check_value(v)?,
                None => {
                    let f = self.desc.field_at(position);
                    if f.is_required() {
                        return Err(DecodeError::new(DecodeErrorKind::MissingRequired {
                            message: String::from(self.desc.full_name()).into(),
                            field: String::from(f.name()).into(),
                        }));
                    }
                }
            }
        }
        // Extensions' messages are not checked, as generated code does not check them.
        Ok(())
    }

    /// Its type.
    pub fn descriptor(&self) -> &MessageDescriptor {
        &self.desc
    }

    /// The unknown fields it kept.
    pub fn unknown_fields(&self) -> &UnknownFields {
        &self.unknown
    }

    fn slot(&self, field: &FieldDescriptor) -> Option<usize> {
        field.is_field_of(&self.desc).then(|| field.position())
    }

    /// Whether `field` is set: present where presence is tracked, not its default where it is
    /// not, not empty for lists and maps.
    pub fn has_field(&self, field: &FieldDescriptor) -> bool {
        let value = match self.slot(field) {
            Some(i) => self.fields[i].as_ref(),
            None => self
                .extensions
                .iter()
                .find(|(f, _)| f == field)
                .map(|(_, v)| v),
        };
        match value {
            None => false,
            Some(_) if field.has_presence() => true,
            Some(v) => !v.is_zero(),
        }
    }

    /// The value of `field`: its own, or its default.
    pub fn get_field(&self, field: &FieldDescriptor) -> Value {
        let value = match self.slot(field) {
            Some(i) => self.fields[i].clone(),
            None => self
                .extensions
                .iter()
                .find(|(f, _)| f == field)
                .map(|(_, v)| v.clone()),
        };
        value.unwrap_or_else(|| Value::default_for(field))
    }

    /// The value of the field of this name, if the message has one.
    pub fn get_field_by_name(&self, name: &str) -> Option<Value> {
        let f = self.desc.get_field_by_name(name)?;
        Some(self.get_field(&f))
    }

    /// Sets `field` (a field of this message or an extension of it) to `value`, clearing the
    /// other members of its oneof. The value must fit the field's kind (not checked here).
    pub fn set_field(&mut self, field: &FieldDescriptor, value: Value) {
        self.clear_oneof_of(field);
        match self.slot(field) {
            Some(i) => self.fields[i] = Some(value),
            None => match self.extensions.iter_mut().find(|(f, _)| f == field) {
                Some((_, v)) => *v = value,
                None => self.extensions.push((field.clone(), value)),
            },
        }
    }

    /// Clears `field`.
    pub fn clear_field(&mut self, field: &FieldDescriptor) {
        match self.slot(field) {
            Some(i) => self.fields[i] = None,
            None => self.extensions.retain(|(f, _)| f != field),
        }
    }

    fn clear_oneof_of(&mut self, field: &FieldDescriptor) {
        if let Some(o) = field.oneof_index() {
            self.clear_oneof_at(o, field.position());
        }
    }

    /// Clears the members of the pool's oneof at `oneof` but the one at `position`.
    fn clear_oneof_at(&mut self, oneof: u32, position: usize) {
        let inner = &self.desc.parent_pool().inner;
        for &member in &inner.oneofs[oneof as usize].fields {
            let at = inner.fields[member as usize].position as usize;
            if at != position {
                self.fields[at] = None;
            }
        }
    }

    /// The fields (and extensions) that are set, with their values.
    pub fn fields(&self) -> impl Iterator<Item = (FieldDescriptor, &Value)> + '_ {
        let known = self
            .desc
            .fields()
            .zip(&self.fields)
            .filter_map(|(f, v)| v.as_ref().map(|v| (f, v)))
            .filter(|(f, v)| f.has_presence() || !v.is_zero());
        known.chain(self.extensions.iter().map(|(f, v)| (f.clone(), v)))
    }

    /// The value of `field`, created as its default if missing, to change in place.
    pub(super) fn value_mut(&mut self, field: &FieldDescriptor) -> &mut Value {
        match self.slot(field) {
            Some(i) => {
                if self.fields[i].is_none() {
                    self.clear_oneof_of(field);
                    self.fields[i] = Some(Value::default_for(field));
                }
                self.fields[i].as_mut().unwrap()
            }
            None => {
                let at = match self.extensions.iter().position(|(f, _)| f == field) {
                    Some(at) => at,
                    None => {
                        self.extensions
                            .push((field.clone(), Value::default_for(field)));
                        self.extensions.len() - 1
                    }
                };
                &mut self.extensions[at].1
            }
        }
    }

    /// Merges an encoded message from `r`.
    pub fn merge(&mut self, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        while !r.is_empty() {
            let key = r.read_key()?;
            self.merge_field(key, r)?;
        }
        Ok(())
    }

    fn field_of(&self, number: u32) -> Option<FieldDescriptor> {
        self.desc
            .get_field(number)
            .or_else(|| self.desc.get_extension(number))
    }

    fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let number = key >> 3;
        let wire_type = key & 7;
        if self.desc.is_message_set() && number == 1 && wire_type == WireType::StartGroup as u32 {
            return self.merge_message_set_item(key, r);
        }
        if let Some(d) = self.desc.decode_field(number) {
            let delimited = wire_type == WireType::LengthDelimited as u32;
            if d.plain {
                if wire_type == u32::from(d.wire) {
                    return self.merge_plain(d, r);
                }
                if d.list && delimited && d.wire != 2 {
                    return self.merge_packed(d, r);
                }
            } else if let (Some(m), true) = (d.map, delimited) {
                return self.merge_map_entry(d.position as usize, m, key, r);
            }
        }
        let Some(field) = self.field_of(number) else {
            return self.unknown.merge_field(key, r);
        };
        if field.is_map() {
            // Read above, unless it came with another wire type.
            return self.unknown.merge_field(key, r);
        }
        let expected = field.wire_type() as u32;
        let kind = field.kind();
        let packed =
            field.is_list() && kind.is_packable() && wire_type == WireType::LengthDelimited as u32;
        if wire_type != expected && !packed {
            return self.unknown.merge_field(key, r);
        }
        if packed {
            let body = r.read_len_delimited()?;
            // The list exists from its first record on, even if every value it holds goes to
            // the unknown fields (an extension then keeps the place it first came at, as in
            // generated code).
            self.value_mut(&field);
            return r.packed_body(body, |inner| {
                while !inner.is_empty() {
                    let mark = inner.mark();
                    let v = read_scalar(&kind, inner)?;
                    if self.closed_undeclared(&kind, &v) {
                        let k = wire::key(number, WireType::Varint);
                        self.unknown.push_since(k, mark, inner)?;
                        continue;
                    }
                    inner.charge(core::mem::size_of::<Value>())?;
                    push(self.value_mut(&field), v);
                }
                Ok(())
            });
        }
        match &kind {
            Kind::Message(m) => {
                let mut msg = match self.take_message(&field) {
                    Some(msg) => msg,
                    None => {
                        r.charge(message_size(m))?;
                        Box::new(DynamicMessage::new(m.clone()))
                    }
                };
                let result = if field.is_group() {
                    r.group(number, |r, key| msg.merge_field(key, r))
                } else {
                    let body = r.read_len_delimited()?;
                    r.nested(body, |inner| msg.merge(inner))
                };
                self.put_message(&field, msg);
                result
            }
            _ => {
                let mark = r.mark();
                let v = read_scalar(&kind, r)?;
                if self.closed_undeclared(&kind, &v) {
                    return self.unknown.push_since(key, mark, r);
                }
                if field.is_list() {
                    r.charge(core::mem::size_of::<Value>())?;
                    push(self.value_mut(&field), v);
                } else {
                    self.set_field(&field, v);
                }
                Ok(())
            }
        }
    }

    /// A record of a plain field ([`DecodeField::plain`]) of its own wire type: what the
    /// general path below does for it, without a descriptor handle.
    fn merge_plain(&mut self, d: DecodeField, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let at = d.position as usize;
        let KindData::Message(index) = d.kind else {
            let v = read_kind(d.kind, r)?;
            if d.list {
                r.charge(core::mem::size_of::<Value>())?;
                push(self.list_mut_at(at), v);
            } else {
                if let Some(o) = d.oneof {
                    self.clear_oneof_at(o, at);
                }
                self.fields[at] = Some(v);
            }
            return Ok(());
        };
        let taken = if d.list { None } else { self.fields[at].take() };
        let mut msg = match taken {
            Some(Value::Message(msg)) => msg,
            _ => {
                let pool = self.desc.parent_pool();
                r.charge(message_size_at(pool, index))?;
                Box::new(DynamicMessage::new(pool.message_at(index)))
            }
        };
        let body = r.read_len_delimited()?;
        let result = r.nested(body, |inner| msg.merge(inner));
        if d.list {
            push(self.list_mut_at(at), Value::Message(msg));
        } else {
            // As `set_field` puts it back: the oneof's other members cleared once it is read.
            if let Some(o) = d.oneof {
                self.clear_oneof_at(o, at);
            }
            self.fields[at] = Some(Value::Message(msg));
        }
        result
    }

    /// A packed record of a plain repeated field of numbers, bools or an open enum.
    fn merge_packed(&mut self, d: DecodeField, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let body = r.read_len_delimited()?;
        let list = self.list_mut_at(d.position as usize);
        // Fixed-width values: as many as the record's bytes hold, charged to the memory
        // budget before room is made for them all at once.
        let width = match d.wire {
            1 => 8,
            5 => 4,
            _ => 0,
        };
        if let Some(count) = body.len().checked_div(width) {
            r.charge(count.saturating_mul(core::mem::size_of::<Value>()))?;
            if let Value::List(l) = &mut *list {
                l.reserve(count);
            }
            return r.packed_body(body, |inner| {
                while !inner.is_empty() {
                    push(list, read_kind(d.kind, inner)?);
                }
                Ok(())
            });
        }
        r.packed_body(body, |inner| {
            while !inner.is_empty() {
                let v = read_kind(d.kind, inner)?;
                inner.charge(core::mem::size_of::<Value>())?;
                push(list, v);
            }
            Ok(())
        })
    }

    /// One entry of the map field at `at`: key and value default when missing, each as the
    /// entry holds it last (a value read twice: the last one; a message twice: merged); an
    /// entry whose value is an undeclared number of a closed enum goes to the unknown fields
    /// whole, as the spec asks (checked once the entry is read, as generated code does).
    fn merge_map_entry(
        &mut self,
        at: usize,
        m: MapDecode,
        key: u32,
        r: &mut Reader<'_>,
    ) -> Result<(), DecodeError> {
        let mark = r.mark();
        let body = r.read_len_delimited()?;
        r.charge(core::mem::size_of::<(MapKey, Value)>())?;
        let pool = self.desc.parent_pool();
        let mut k = None;
        let mut v = None;
        r.nested(body, |inner| {
            while !inner.is_empty() {
                let tag = inner.read_key()?;
                if tag == m.key_tag {
                    k = Some(read_map_key(m.key, inner)?);
                } else if tag != m.value_tag {
                    inner.skip_field(tag)?;
                } else if let KindData::Message(index) = m.value {
                    let body = inner.read_len_delimited()?;
                    let mut msg = match v.take() {
                        Some(Value::Message(msg)) => msg,
                        _ => {
                            inner.charge(message_size_at(pool, index))?;
                            Box::new(DynamicMessage::new(pool.message_at(index)))
                        }
                    };
                    let result = inner.nested(body, |r| msg.merge(r));
                    v = Some(Value::Message(msg));
                    result?;
                } else {
                    v = Some(read_kind(m.value, inner)?);
                }
            }
            Ok(())
        })?;
        let value = match v {
            Some(v) => v,
            None => {
                if let KindData::Message(index) = m.value {
                    r.charge(message_size_at(pool, index))?;
                }
                Value::default_of(&kind_at(pool, m.value_field))
            }
        };
        if let (true, Value::EnumNumber(n)) = (m.closed, &value) {
            if let Kind::Enum(e) = kind_at(pool, m.value_field) {
                if e.get_value(*n).is_none() {
                    return self.unknown.push_since(key, mark, r);
                }
            }
        }
        let k = match k {
            Some(k) => k,
            None => match m.key {
                KindData::Scalar(9) => MapKey::String(String::new()),
                KindData::Scalar(4 | 6) => MapKey::U64(0),
                KindData::Scalar(5 | 15 | 17) => MapKey::I32(0),
                KindData::Scalar(7 | 13) => MapKey::U32(0),
                KindData::Scalar(8) => MapKey::Bool(false),
                _ => MapKey::I64(0),
            },
        };
        if let Value::Map(map) = self.fields[at].get_or_insert_with(|| Value::Map(BTreeMap::new()))
        {
            map.insert(k, value);
        }
        Ok(())
    }

    /// The list at `position`, made empty first if the field holds none.
    fn list_mut_at(&mut self, position: usize) -> &mut Value {
        self.fields[position].get_or_insert_with(|| Value::List(Vec::new()))
    }

    /// A singular message field's value, taken out to merge into (a list's new element is
    /// always a new message).
    fn take_message(&mut self, field: &FieldDescriptor) -> Option<Box<DynamicMessage>> {
        if field.is_list() {
            return None;
        }
        let slot = match self.slot(field) {
            Some(i) => self.fields[i].take(),
            // Taken out in place (put back by `set_field`), so that extensions keep the order
            // they first came in.
            None => {
                let (_, v) = self.extensions.iter_mut().find(|(f, _)| f == field)?;
                Some(core::mem::replace(v, Value::Bool(false)))
            }
        };
        match slot {
            Some(Value::Message(m)) => Some(m),
            _ => None,
        }
    }

    fn put_message(&mut self, field: &FieldDescriptor, msg: Box<DynamicMessage>) {
        if field.is_list() {
            push(self.value_mut(field), Value::Message(msg));
        } else {
            self.set_field(field, Value::Message(msg));
        }
    }

    fn closed_undeclared(&self, kind: &Kind, v: &Value) -> bool {
        match (kind, v) {
            (Kind::Enum(e), Value::EnumNumber(n)) => e.is_closed() && e.get_value(*n).is_none(),
            _ => false,
        }
    }

    /// A MessageSet item: `group Item = 1 { type_id = 2; message = 3 }`. Each message goes
    /// with the type id before it (or, before any, the first one after) into the extension of
    /// that number; an item naming an undeclared type id, or without a type id or a message,
    /// is kept as it came (what came before it in the item, declared, was read too), as the
    /// generated code does.
    fn merge_message_set_item(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        let mark = r.mark();
        let mut pairs = Vec::new();
        let mut type_id = None;
        let mut waiting = Vec::new();
        r.group(1, |r, k| {
            if k == wire::key(2, WireType::Varint) {
                let id = r.read_uint32()?;
                pairs.extend(waiting.drain(..).map(|m| (id, m)));
                type_id = Some(id);
            } else if k == wire::key(3, WireType::LengthDelimited) {
                let body = r.read_len_delimited()?;
                match type_id {
                    Some(id) => pairs.push((id, body)),
                    None => waiting.push(body),
                }
            } else {
                r.skip_field(k)?;
            }
            Ok(())
        })?;
        let mut merged = false;
        for (id, body) in pairs {
            let ext = self.desc.get_extension(id);
            let Some((ext, Kind::Message(m))) = ext.map(|e| {
                let kind = e.kind();
                (e, kind)
            }) else {
                merged = false;
                break;
            };
            let mut msg = match self.take_message(&ext) {
                Some(msg) => msg,
                None => {
                    r.charge(message_size(&m))?;
                    Box::new(DynamicMessage::new(m.clone()))
                }
            };
            let result = r.nested(body, |inner| msg.merge(inner));
            self.put_message(&ext, msg);
            result?;
            merged = true;
        }
        if !merged {
            self.unknown.push_since(key, mark, r)?;
        }
        Ok(())
    }

    /// Encodes the message: known fields by number, extensions in the order they came, then
    /// the unknown records; map entries in key order.
    pub fn encode_to_vec(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        let mut w = ReverseWriter::growable(&mut buf);
        self.encode_reverse(&mut w);
        w.written_bytes().to_vec()
    }

    /// Writes the message so that it ends at the writer's cursor.
    pub fn encode_reverse(&self, w: &mut ReverseWriter<'_>) {
        self.unknown.encode_reverse(w);
        for (f, v) in self.extensions.iter().rev() {
            if self.desc.is_message_set() {
                if let Value::Message(m) = v {
                    // Item { type_id = 2; message = 3 }
                    w.put_varint(wire::key(1, WireType::EndGroup) as u64);
                    let mark = w.written();
                    m.encode_reverse(w);
                    w.put_len(mark);
                    w.put_varint(wire::key(3, WireType::LengthDelimited) as u64);
                    w.put_varint(u64::from(f.number()));
                    w.put_varint(wire::key(2, WireType::Varint) as u64);
                    w.put_varint(wire::key(1, WireType::StartGroup) as u64);
                    continue;
                }
            }
            write_field(f, v, w);
        }
        // Last to first: the pool keeps each message's fields sorted by number.
        for position in self.desc.positions_by_number().rev() {
            let Some(v) = &self.fields[position] else {
                continue;
            };
            let f = self.desc.field_at(position);
            if !f.has_presence() && v.is_zero() {
                continue;
            }
            write_field(&f, v, w);
        }
    }
}

/// Fields by number, for the well-known types (`Any`, and the special forms of JSON).
impl DynamicMessage {
    /// This message packed in a `google.protobuf.Any` (type URL
    /// `type.googleapis.com/<full name>`); `None` if its pool does not hold `Any`.
    pub fn pack_any(&self) -> Option<DynamicMessage> {
        let any = self
            .desc
            .parent_pool()
            .get_message_by_name("google.protobuf.Any")?;
        let mut packed = DynamicMessage::new(any);
        packed.set_at(1, Value::String(self.desc.type_url()));
        packed.set_at(2, Value::Bytes(self.encode_to_vec()));
        Some(packed)
    }

    /// The message this `google.protobuf.Any` holds, its type looked up in this message's
    /// pool by the type URL's last segment; `None` if this is not an `Any` or the pool does not
    /// know the type.
    pub fn unpack_any(&self) -> Option<Result<DynamicMessage, DecodeError>> {
        if self.desc.full_name() != "google.protobuf.Any" {
            return None;
        }
        let type_url = self.str_at(1);
        let name = type_url.rsplit('/').next()?;
        let desc = self.desc.parent_pool().get_message_by_name(name)?;
        Some(DynamicMessage::decode(desc, self.bytes_at(2)))
    }

    /// The value of the field of this number, if set.
    pub(super) fn value_at(&self, number: u32) -> Option<&Value> {
        let f = self.desc.get_field(number)?;
        self.fields[f.position()].as_ref()
    }

    /// Sets the field of this number (if the type has it).
    pub(super) fn set_at(&mut self, number: u32, v: Value) {
        if let Some(f) = self.desc.get_field(number) {
            self.set_field(&f, v);
        }
    }

    #[cfg(feature = "json")]
    pub(super) fn i64_at(&self, number: u32) -> i64 {
        match self.value_at(number) {
            Some(Value::I64(v)) => *v,
            _ => 0,
        }
    }

    #[cfg(feature = "json")]
    pub(super) fn i32_at(&self, number: u32) -> i32 {
        match self.value_at(number) {
            Some(Value::I32(v)) => *v,
            _ => 0,
        }
    }

    pub(super) fn str_at(&self, number: u32) -> &str {
        match self.value_at(number) {
            Some(Value::String(v)) => v,
            _ => "",
        }
    }

    pub(super) fn bytes_at(&self, number: u32) -> &[u8] {
        match self.value_at(number) {
            Some(Value::Bytes(v)) => v,
            _ => &[],
        }
    }

    #[cfg(feature = "json")]
    pub(super) fn list_at(&self, number: u32) -> &[Value] {
        match self.value_at(number) {
            Some(Value::List(v)) => v,
            _ => &[],
        }
    }
}

#[cfg(any(feature = "json", feature = "text"))]
/// The extension of `desc` a bracketed key names: `[full.name]`, or, in a MessageSet, the
/// type of an extension declared in its own message type (`[pkg.Type]`), when only one
/// extension of the MessageSet is named so.
pub(super) fn extension_named(desc: &MessageDescriptor, key: &str) -> Option<FieldDescriptor> {
    let name = key.strip_prefix('[')?.strip_suffix(']')?;
    if let Some(x) = desc.extensions().find(|x| x.full_name() == name) {
        return Some(x);
    }
    if !desc.is_message_set() {
        return None;
    }
    let by_type = |x: &FieldDescriptor| {
        x.full_name().rsplit_once('.').is_some_and(|(scope, _)| {
            scope == name && matches!(x.kind(), Kind::Message(t) if t.full_name() == scope)
        })
    };
    let mut named = desc.extensions().filter(by_type);
    let x = named.next()?;
    named.next().is_none().then_some(x)
}

/// The required fields of the messages in `v`.
/// What a new message of type `desc` takes, charged to the decode's memory budget: its box
/// and a slot per field.
pub(super) fn message_size(desc: &MessageDescriptor) -> usize {
    message_size_at(desc.parent_pool(), desc.index() as u32)
}

/// [`message_size`] of the pool's message type at `index`, without a handle.
pub(super) fn message_size_at(pool: &super::DescriptorPool, index: u32) -> usize {
    core::mem::size_of::<DynamicMessage>()
        + pool.inner.messages[index as usize].fields.len() * core::mem::size_of::<Option<Value>>()
}

fn check_value(v: &Value) -> Result<(), DecodeError> {
    match v {
        Value::Message(m) => m.check_initialized(),
        Value::List(list) => list.iter().try_for_each(check_value),
        Value::Map(map) => map.values().try_for_each(check_value),
        _ => Ok(()),
    }
}

fn push(list: &mut Value, v: Value) {
    if let Value::List(l) = list {
        l.push(v);
    }
}

/// One value of a scalar or enum field's kind, as the pool holds it.
fn read_kind(kind: KindData, r: &mut Reader<'_>) -> Result<Value, DecodeError> {
    Ok(match kind {
        KindData::Scalar(1) => Value::F64(r.read_double()?),
        KindData::Scalar(2) => Value::F32(r.read_float()?),
        KindData::Scalar(3) => Value::I64(r.read_int64()?),
        KindData::Scalar(4) => Value::U64(r.read_uint64()?),
        KindData::Scalar(5) => Value::I32(r.read_int32()?),
        KindData::Scalar(6) => Value::U64(r.read_fixed64()?),
        KindData::Scalar(7) => Value::U32(r.read_fixed32()?),
        KindData::Scalar(8) => Value::Bool(r.read_bool()?),
        KindData::Scalar(9) => Value::String(r.read_string()?),
        KindData::Scalar(12) => Value::Bytes(r.read_byte_vec()?),
        KindData::Scalar(13) => Value::U32(r.read_uint32()?),
        KindData::Scalar(15) => Value::I32(r.read_sfixed32()?),
        KindData::Scalar(16) => Value::I64(r.read_sfixed64()?),
        KindData::Scalar(17) => Value::I32(r.read_sint32()?),
        KindData::Scalar(_) => Value::I64(r.read_sint64()?),
        KindData::Enum(_) => Value::EnumNumber(r.read_int32()?),
        KindData::Message(_) | KindData::Unresolved => {
            unreachable!("messages are read by merge_plain")
        }
    })
}

/// A map key of a keyable scalar kind, as the pool holds it.
fn read_map_key(kind: KindData, r: &mut Reader<'_>) -> Result<MapKey, DecodeError> {
    Ok(match kind {
        KindData::Scalar(9) => MapKey::String(r.read_string()?),
        KindData::Scalar(3) => MapKey::I64(r.read_int64()?),
        KindData::Scalar(4) => MapKey::U64(r.read_uint64()?),
        KindData::Scalar(5) => MapKey::I32(r.read_int32()?),
        KindData::Scalar(6) => MapKey::U64(r.read_fixed64()?),
        KindData::Scalar(7) => MapKey::U32(r.read_fixed32()?),
        KindData::Scalar(8) => MapKey::Bool(r.read_bool()?),
        KindData::Scalar(13) => MapKey::U32(r.read_uint32()?),
        KindData::Scalar(15) => MapKey::I32(r.read_sfixed32()?),
        KindData::Scalar(16) => MapKey::I64(r.read_sfixed64()?),
        KindData::Scalar(17) => MapKey::I32(r.read_sint32()?),
        _ => MapKey::I64(r.read_sint64()?),
    })
}

fn read_scalar(kind: &Kind, r: &mut Reader<'_>) -> Result<Value, DecodeError> {
    Ok(match kind {
        Kind::Double => Value::F64(r.read_double()?),
        Kind::Float => Value::F32(r.read_float()?),
        Kind::Int64 => Value::I64(r.read_int64()?),
        Kind::Uint64 => Value::U64(r.read_uint64()?),
        Kind::Int32 => Value::I32(r.read_int32()?),
        Kind::Fixed64 => Value::U64(r.read_fixed64()?),
        Kind::Fixed32 => Value::U32(r.read_fixed32()?),
        Kind::Bool => Value::Bool(r.read_bool()?),
        // A Rust `String` holds UTF-8 whatever the schema asks (as generated structs do).
        Kind::String => Value::String(r.read_string()?),
        Kind::Bytes => Value::Bytes(r.read_byte_vec()?),
        Kind::Uint32 => Value::U32(r.read_uint32()?),
        Kind::Sfixed32 => Value::I32(r.read_sfixed32()?),
        Kind::Sfixed64 => Value::I64(r.read_sfixed64()?),
        Kind::Sint32 => Value::I32(r.read_sint32()?),
        Kind::Sint64 => Value::I64(r.read_sint64()?),
        Kind::Enum(_) => Value::EnumNumber(r.read_int32()?),
        Kind::Message(_) => unreachable!("messages are read by merge_field"),
    })
}

/// Writes one scalar value, without its key.
fn write_scalar(kind: &Kind, v: &Value, w: &mut ReverseWriter<'_>) {
    match (kind, v) {
        (Kind::Double, Value::F64(v)) => w.put_double(*v),
        (Kind::Float, Value::F32(v)) => w.put_float(*v),
        (Kind::Int64, Value::I64(v)) => w.put_int64(*v),
        (Kind::Uint64, Value::U64(v)) => w.put_uint64(*v),
        (Kind::Int32, Value::I32(v)) | (Kind::Enum(_), Value::EnumNumber(v)) => w.put_int32(*v),
        (Kind::Fixed64, Value::U64(v)) => w.put_fixed64(*v),
        (Kind::Fixed32, Value::U32(v)) => w.put_fixed32(*v),
        (Kind::Bool, Value::Bool(v)) => w.put_bool(*v),
        (Kind::String, Value::String(s)) => w.put_string(s),
        (Kind::Bytes, Value::Bytes(b)) => w.put_bytes(b),
        (Kind::Uint32, Value::U32(v)) => w.put_uint32(*v),
        (Kind::Sfixed32, Value::I32(v)) => w.put_sfixed32(*v),
        (Kind::Sfixed64, Value::I64(v)) => w.put_sfixed64(*v),
        (Kind::Sint32, Value::I32(v)) => w.put_sint32(*v),
        (Kind::Sint64, Value::I64(v)) => w.put_sint64(*v),
        (Kind::Message(_), Value::Message(m)) => {
            let mark = w.written();
            m.encode_reverse(w);
            w.put_len(mark);
        }
        // A value of another kind than its field's is not written.
        _ => {}
    }
}

/// Writes one value of `kind` with its key (a group between its start and end keys).
fn write_one(field: &FieldDescriptor, kind: &Kind, v: &Value, w: &mut ReverseWriter<'_>) {
    let number = field.number();
    if field.is_group() {
        if let Value::Message(m) = v {
            w.put_varint(wire::key(number, WireType::EndGroup) as u64);
            m.encode_reverse(w);
            w.put_varint(wire::key(number, WireType::StartGroup) as u64);
        }
        return;
    }
    write_scalar(kind, v, w);
    w.put_varint(wire::key(number, kind.wire_type()) as u64);
}

fn write_field(field: &FieldDescriptor, v: &Value, w: &mut ReverseWriter<'_>) {
    let kind = field.kind();
    let number = field.number();
    match v {
        Value::List(list) if field.is_packed() => {
            if list.is_empty() {
                return;
            }
            let mark = w.written();
            for item in list.iter().rev() {
                write_scalar(&kind, item, w);
            }
            w.put_len(mark);
            w.put_varint(wire::key(number, WireType::LengthDelimited) as u64);
        }
        Value::List(list) => {
            for item in list.iter().rev() {
                write_one(field, &kind, item, w);
            }
        }
        Value::Map(map) => {
            let Kind::Message(entry) = &kind else { return };
            let (Some(kf), Some(vf)) = (entry.map_entry_key_field(), entry.map_entry_value_field())
            else {
                return;
            };
            let (key_kind, value_kind) = (kf.kind(), vf.kind());
            for (k, v) in map.iter().rev() {
                let mark = w.written();
                write_one(&vf, &value_kind, v, w);
                write_one(&kf, &key_kind, &Value::from(k.clone()), w);
                w.put_len(mark);
                w.put_varint(wire::key(number, WireType::LengthDelimited) as u64);
            }
        }
        v => write_one(field, &kind, v, w),
    }
}

/// A declared default, as `descriptor.proto` spells it (protoc writes numbers in decimal,
/// floats as `inf`, `-inf`, `nan` or a number, bytes C-escaped, enums by value name); `None`
/// for a spelling no protoc writes.
fn declared_default(kind: &Kind, text: &str) -> Option<Value> {
    let float = |text: &str| -> Option<f64> {
        match text {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => text.parse().ok(),
        }
    };
    Some(match kind {
        Kind::Double => Value::F64(float(text)?),
        Kind::Float => Value::F32(match text {
            "inf" | "-inf" | "nan" => float(text)? as f32,
            _ => text.parse().ok()?,
        }),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => Value::I32(text.parse().ok()?),
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(text.parse().ok()?),
        Kind::Uint32 | Kind::Fixed32 => Value::U32(text.parse().ok()?),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(text.parse().ok()?),
        Kind::Bool => Value::Bool(match text {
            "true" => true,
            "false" => false,
            _ => return None,
        }),
        Kind::String => Value::String(text.into()),
        Kind::Bytes => Value::Bytes(unescape_c(text)?),
        Kind::Enum(e) => Value::EnumNumber(e.get_value_by_name(text)?.number()),
        Kind::Message(_) => return None,
    })
}

/// The bytes of a C-escaped string (`\n`, `\"`, octal `\NNN`, hex `\xHH`, as protoc's
/// `CEscape` writes `bytes` defaults).
fn unescape_c(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let c = *bytes.get(i)?;
        i += 1;
        match c {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match bytes.get(i) {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(u8::try_from(v).ok()?);
            }
            b'x' => {
                let mut v = 0u32;
                let start = i;
                while i < bytes.len() && i - start < 2 && bytes[i].is_ascii_hexdigit() {
                    v = v * 16 + (bytes[i] as char).to_digit(16)?;
                    i += 1;
                }
                if i == start {
                    return None;
                }
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
    Some(out)
}
