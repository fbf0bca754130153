//! Descriptor-driven generator of random, valid protobuf encodings, used to compare rust-vt with
//! prost on every message type of a descriptor set without writing a strategy per type.
//!
//! The encodings exercise what a decoder meets in the wild: fields out of order and repeated
//! (last wins, messages merge), packed and unpacked repeated scalars, map entries with missing
//! keys or values, oneof members overriding each other, unknown fields of every wire type,
//! non-canonical varints (an `int32` carried in 64 bits, keys one byte longer than needed).
#![allow(dead_code)]

pub mod oracle;
pub mod schemas;

use std::collections::{HashMap, HashSet};

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorSet};

/// A small deterministic PRNG (xorshift64*), so a failing seed reproduces.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn i64(&mut self) -> i64 {
        match self.below(6) {
            0 => 0,
            1 => self.below(10) as i64,
            2 => -(self.below(10) as i64),
            3 => [i64::MIN, i64::MAX, -1, 1 << 35][self.below(4) as usize],
            _ => self.u64() as i64 >> self.below(64),
        }
    }
    fn i32(&mut self) -> i32 {
        match self.below(6) {
            0 => 0,
            1 => self.below(10) as i32,
            2 => -(self.below(10) as i32),
            3 => [i32::MIN, i32::MAX, -1, 1 << 20][self.below(4) as usize],
            _ => (self.u64() as i32) >> self.below(32),
        }
    }
    fn f64(&mut self) -> f64 {
        match self.below(5) {
            0 => 0.0,
            1 => -0.0,
            2 => f64::INFINITY,
            3 => self.i32() as f64 / 7.0,
            // NaN != NaN would make equal values compare unequal.
            _ => Some(f64::from_bits(self.u64()))
                .filter(|v| !v.is_nan())
                .unwrap_or(1.5),
        }
    }
    fn string(&mut self) -> String {
        const PARTS: &[&str] = &[
            "a", "Z", "0", " ", "é", "ß", "€", "𝄞", "\u{0}", "hello", "\n",
        ];
        let n = self.below(6);
        (0..n)
            .map(|_| PARTS[self.below(PARTS.len() as u64) as usize])
            .collect()
    }
    fn bytes(&mut self) -> Vec<u8> {
        let n = self.below(8);
        (0..n).map(|_| self.u64() as u8).collect()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Proto2,
    Proto3,
}

/// Every message of a descriptor set, by full name (without the leading dot).
pub struct Schema {
    messages: HashMap<String, (DescriptorProto, Syntax)>,
    /// Enum values by the enum's full name (without the leading dot).
    enums: HashMap<String, Vec<(String, i32)>>,
    /// Extensions by the full name of the message they extend.
    extensions: HashMap<String, Vec<(FieldDescriptorProto, Syntax)>>,
}

impl Schema {
    pub fn new(descriptor_set: &[u8]) -> Self {
        let fds = FileDescriptorSet::decode(descriptor_set).expect("descriptor set");
        let mut messages = HashMap::new();
        fn add(
            out: &mut HashMap<String, (DescriptorProto, Syntax)>,
            prefix: &str,
            m: &DescriptorProto,
            syntax: Syntax,
        ) {
            let name = if prefix.is_empty() {
                m.name().to_string()
            } else {
                format!("{prefix}.{}", m.name())
            };
            for n in &m.nested_type {
                add(out, &name, n, syntax);
            }
            out.insert(name, (m.clone(), syntax));
        }
        let mut enums = HashMap::new();
        fn add_enums(
            out: &mut HashMap<String, Vec<(String, i32)>>,
            prefix: &str,
            list: &[prost_types::EnumDescriptorProto],
            nested: &[DescriptorProto],
        ) {
            let join = |name: &str| {
                if prefix.is_empty() {
                    name.to_string()
                } else {
                    format!("{prefix}.{name}")
                }
            };
            for e in list {
                let values = e
                    .value
                    .iter()
                    .map(|v| (v.name().to_string(), v.number()))
                    .collect();
                out.insert(join(e.name()), values);
            }
            for m in nested {
                add_enums(out, &join(m.name()), &m.enum_type, &m.nested_type);
            }
        }
        for f in &fds.file {
            add_enums(&mut enums, f.package(), &f.enum_type, &f.message_type);
        }
        let mut extensions: HashMap<String, Vec<(FieldDescriptorProto, Syntax)>> = HashMap::new();
        fn add_extensions(
            out: &mut HashMap<String, Vec<(FieldDescriptorProto, Syntax)>>,
            list: &[FieldDescriptorProto],
            nested: &[DescriptorProto],
            syntax: Syntax,
        ) {
            for x in list {
                let extendee = x.extendee().trim_start_matches('.').to_string();
                out.entry(extendee).or_default().push((x.clone(), syntax));
            }
            for m in nested {
                add_extensions(out, &m.extension, &m.nested_type, syntax);
            }
        }
        for f in &fds.file {
            let syntax = if f.syntax() == "proto3" {
                Syntax::Proto3
            } else {
                Syntax::Proto2
            };
            for m in &f.message_type {
                add(&mut messages, f.package(), m, syntax);
            }
            add_extensions(&mut extensions, &f.extension, &f.message_type, syntax);
        }
        Schema {
            messages,
            enums,
            extensions,
        }
    }

    /// Encodings at the edges of message `name`'s values: the empty message; every field
    /// present once at its zero value (an empty message for message fields, an entry with
    /// neither key nor value and one with both at zero for maps, a zero in a packed run and
    /// one unpacked for repeated scalars); and only the required fields, at their declared
    /// defaults, with every map of a message holding one entry whose value is that
    /// message's own such value (the value prost's `Default` gives it).
    pub fn edge_messages(&self, name: &str) -> Vec<Vec<u8>> {
        let mut zeros = Vec::new();
        self.zero_body(name, &mut zeros);
        let mut required = Vec::new();
        self.required_body(name, 0, &mut required);
        vec![Vec::new(), zeros, required]
    }

    fn zero_body(&self, name: &str, out: &mut Vec<u8>) {
        let (m, _) = self.get(name);
        for f in &m.field {
            match f.r#type() {
                Type::Group => {
                    key(f.number(), 3, out);
                    key(f.number(), 4, out);
                }
                Type::Message if self.is_map_entry(f.type_name()) => {
                    key(f.number(), 2, out);
                    varint(0, out);
                    let (entry, _) = self.get(f.type_name());
                    let mut body = Vec::new();
                    for part in &entry.field {
                        match part.r#type() {
                            Type::Message | Type::Group => {
                                key(part.number(), 2, &mut body);
                                varint(0, &mut body);
                            }
                            t => zero_scalar(part.number(), t, &mut body),
                        }
                    }
                    key(f.number(), 2, out);
                    varint(body.len() as u64, out);
                    out.extend_from_slice(&body);
                }
                Type::Message => {
                    key(f.number(), 2, out);
                    varint(0, out);
                }
                t => {
                    zero_scalar(f.number(), t, out);
                    if f.label() == Label::Repeated && !matches!(t, Type::String | Type::Bytes) {
                        let mut body = Vec::new();
                        zero_value(t, &mut body);
                        key(f.number(), 2, out);
                        varint(body.len() as u64, out);
                        out.extend_from_slice(&body);
                    }
                }
            }
        }
    }

    fn required_body(&self, name: &str, depth: u32, out: &mut Vec<u8>) {
        let (m, _) = self.get(name);
        for f in &m.field {
            let map_of_message = f.r#type() == Type::Message
                && self.is_map_entry(f.type_name())
                && self
                    .get(f.type_name())
                    .0
                    .field
                    .iter()
                    .any(|v| v.number() == 2 && v.r#type() == Type::Message);
            if map_of_message && depth < 3 {
                let (entry, _) = self.get(f.type_name());
                let value = entry.field.iter().find(|v| v.number() == 2).unwrap();
                let mut inner = Vec::new();
                self.required_body(value.type_name(), depth + 1, &mut inner);
                let mut body = Vec::new();
                key(2, 2, &mut body);
                varint(inner.len() as u64, &mut body);
                body.extend_from_slice(&inner);
                key(f.number(), 2, out);
                varint(body.len() as u64, out);
                out.extend_from_slice(&body);
                continue;
            }
            if f.label() != Label::Required {
                continue;
            }
            match f.r#type() {
                Type::Group if depth < 3 => {
                    key(f.number(), 3, out);
                    self.required_body(f.type_name(), depth + 1, out);
                    key(f.number(), 4, out);
                }
                Type::Message if depth < 3 => {
                    let mut inner = Vec::new();
                    self.required_body(f.type_name(), depth + 1, &mut inner);
                    key(f.number(), 2, out);
                    varint(inner.len() as u64, out);
                    out.extend_from_slice(&inner);
                }
                Type::Message | Type::Group => {}
                t => {
                    key(f.number(), wire_type(t), out);
                    self.default_scalar(f, t, out);
                }
            }
        }
    }

    /// A scalar field's declared default (or zero), encoded without its key.
    fn default_scalar(&self, f: &FieldDescriptorProto, t: Type, out: &mut Vec<u8>) {
        let Some(text) = f.default_value.as_deref() else {
            if t == Type::Enum {
                // A closed enum's default is its first value.
                let first = self
                    .enums
                    .get(f.type_name().trim_start_matches('.'))
                    .and_then(|v| v.first())
                    .map_or(0, |(_, n)| *n);
                varint(first as i64 as u64, out);
                return;
            }
            return zero_value(t, out);
        };
        let float = |text: &str| match text {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            t => t.parse().unwrap(),
        };
        match t {
            Type::Double => out.extend_from_slice(&float(text).to_le_bytes()),
            Type::Float => out.extend_from_slice(&(float(text) as f32).to_le_bytes()),
            Type::Bool => varint(u64::from(text == "true"), out),
            Type::String => {
                varint(text.len() as u64, out);
                out.extend_from_slice(text.as_bytes());
            }
            Type::Bytes => {
                let b = unescape_c(text);
                varint(b.len() as u64, out);
                out.extend_from_slice(&b);
            }
            Type::Enum => {
                let n = self
                    .enums
                    .get(f.type_name().trim_start_matches('.'))
                    .and_then(|v| v.iter().find(|(name, _)| name == text))
                    .map_or(0, |(_, n)| *n);
                varint(n as i64 as u64, out);
            }
            Type::Uint64 | Type::Uint32 => varint(text.parse().unwrap(), out),
            Type::Fixed64 => out.extend_from_slice(&text.parse::<u64>().unwrap().to_le_bytes()),
            Type::Fixed32 => out.extend_from_slice(&text.parse::<u32>().unwrap().to_le_bytes()),
            Type::Sfixed64 => out.extend_from_slice(&text.parse::<i64>().unwrap().to_le_bytes()),
            Type::Sfixed32 => out.extend_from_slice(&text.parse::<i32>().unwrap().to_le_bytes()),
            Type::Sint32 => {
                let v: i32 = text.parse().unwrap();
                varint(((v << 1) ^ (v >> 31)) as u32 as u64, out)
            }
            Type::Sint64 => {
                let v: i64 = text.parse().unwrap();
                varint(((v << 1) ^ (v >> 63)) as u64, out)
            }
            Type::Int32 | Type::Int64 => varint(text.parse::<i64>().unwrap() as u64, out),
            Type::Message | Type::Group => unreachable!(),
        }
    }

    /// Full names of the messages that get a Rust struct (map entries don't).
    pub fn message_names(&self) -> impl Iterator<Item = &str> {
        self.messages
            .iter()
            .filter(|(_, (m, _))| !m.options.as_ref().is_some_and(|o| o.map_entry()))
            .map(|(n, _)| n.as_str())
    }

    fn get(&self, name: &str) -> &(DescriptorProto, Syntax) {
        self.messages
            .get(name.trim_start_matches('.'))
            .unwrap_or_else(|| panic!("unknown message {name}"))
    }

    /// Whether `name` can contain a map field (so a re-encoding may order entries differently).
    pub fn has_map(&self, name: &str) -> bool {
        let mut seen = HashSet::new();
        self.has_map_inner(name.trim_start_matches('.'), &mut seen)
    }

    /// Whether `name` can contain a proto2 (closed) enum field, whose undeclared numbers
    /// `mode=standalone` keeps among unknown fields, as the spec asks, and prost in the field.
    pub fn has_closed_enum(&self, name: &str) -> bool {
        let mut seen = HashSet::new();
        self.has_closed_enum_inner(name.trim_start_matches('.'), &mut seen)
    }

    fn has_closed_enum_inner(&self, name: &str, seen: &mut HashSet<String>) -> bool {
        if !seen.insert(name.to_string()) {
            return false;
        }
        self.fields_and_extensions(name)
            .any(|(f, syntax)| match f.r#type() {
                Type::Enum => syntax == Syntax::Proto2,
                Type::Message | Type::Group => {
                    self.has_closed_enum_inner(f.type_name().trim_start_matches('.'), seen)
                }
                _ => false,
            })
    }

    fn has_map_inner(&self, name: &str, seen: &mut HashSet<String>) -> bool {
        if !seen.insert(name.to_string()) {
            return false;
        }
        self.fields_and_extensions(name).any(|(f, _)| {
            matches!(f.r#type(), Type::Message | Type::Group)
                && (self.is_map_entry(f.type_name())
                    || self.has_map_inner(f.type_name().trim_start_matches('.'), seen))
        })
    }

    /// Whether a value of message `name` can hold a MessageSet with declared extensions.
    fn reaches_message_set(&self, name: &str, seen: &mut HashSet<String>) -> bool {
        let name = name.trim_start_matches('.');
        if !seen.insert(name.to_string()) {
            return false;
        }
        let is_set = self
            .get(name)
            .0
            .options
            .as_ref()
            .is_some_and(|o| o.message_set_wire_format());
        (is_set && self.extensions.contains_key(name))
            || self.fields_and_extensions(name).any(|(f, _)| {
                matches!(f.r#type(), Type::Message | Type::Group)
                    && self.reaches_message_set(f.type_name(), seen)
            })
    }

    /// The fields of message `name` and the extensions of it, each with its file's syntax.
    fn fields_and_extensions(
        &self,
        name: &str,
    ) -> impl Iterator<Item = (&FieldDescriptorProto, Syntax)> {
        let (m, syntax) = self.get(name);
        let extensions = self
            .extensions
            .get(name.trim_start_matches('.'))
            .into_iter()
            .flatten()
            .map(|(x, s)| (x, *s));
        m.field.iter().map(move |f| (f, *syntax)).chain(extensions)
    }

    fn is_map_entry(&self, type_name: &str) -> bool {
        self.get(type_name)
            .0
            .options
            .as_ref()
            .is_some_and(|o| o.map_entry())
    }

    /// A random valid encoding of message `name`.
    pub fn random_message(&self, name: &str, rng: &mut Rng) -> Vec<u8> {
        let mut out = Vec::new();
        self.message_body(name, rng, 0, &mut out);
        out
    }

    fn message_body(&self, name: &str, rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
        let (m, syntax) = self.get(name);
        let mut fields: Vec<&FieldDescriptorProto> = m.field.iter().collect();
        if rng.chance(20) {
            // Out of order, as merged or concatenated messages arrive.
            for i in (1..fields.len()).rev() {
                fields.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        let extensions = self.extensions.get(name.trim_start_matches('.'));
        // An unknown field's number is neither a field's nor a declared extension's: random
        // bytes under an extension's number would be that extension's value (a proto2 string
        // that is not UTF-8, which a Rust `String` can't hold: not a valid input here).
        let known: HashSet<i32> = m
            .field
            .iter()
            .chain(extensions.into_iter().flatten().map(|(x, _)| x))
            .map(|f| f.number())
            .collect();
        for f in fields {
            self.fields_of(f, *syntax, rng, depth, out);
        }
        if let Some(extensions) = extensions {
            let message_set = m
                .options
                .as_ref()
                .is_some_and(|o| o.message_set_wire_format());
            for (x, syntax) in extensions {
                if rng.chance(60) || depth >= 4 {
                    continue;
                }
                // A MessageSet's extension may also come as a plain field (the same value).
                if message_set && !rng.chance(15) {
                    self.message_set_item(x, rng, depth, out);
                } else {
                    self.fields_of(x, *syntax, rng, depth, out);
                }
            }
        }
        if rng.chance(10) {
            self.unknown_field(&known, rng, out);
        }
    }

    /// A MessageSet item holding extension `x`'s message: type id and message, in either
    /// order.
    fn message_set_item(
        &self,
        x: &FieldDescriptorProto,
        rng: &mut Rng,
        depth: u32,
        out: &mut Vec<u8>,
    ) {
        let mut type_id = Vec::new();
        key(2, 0, &mut type_id);
        varint(x.number() as u64, &mut type_id);
        let mut message = Vec::new();
        self.message_body(x.type_name(), rng, depth + 1, &mut message);
        let mut body = Vec::new();
        key(3, 2, &mut body);
        varint(message.len() as u64, &mut body);
        body.extend_from_slice(&message);
        key(1, 3, out);
        if rng.chance(80) {
            out.extend_from_slice(&type_id);
            out.extend_from_slice(&body);
        } else {
            out.extend_from_slice(&body);
            out.extend_from_slice(&type_id);
        }
        key(1, 4, out);
    }

    /// Zero or more records of field `f` (a field or an extension), sometimes packed where it
    /// may be, whatever its declared packing.
    fn fields_of(
        &self,
        f: &FieldDescriptorProto,
        syntax: Syntax,
        rng: &mut Rng,
        depth: u32,
        out: &mut Vec<u8>,
    ) {
        let is_message = matches!(f.r#type(), Type::Message | Type::Group);
        if is_message && depth >= 4 {
            return;
        }
        let count = match f.label() {
            Label::Repeated => rng.below(4),
            _ if rng.chance(55) => 0,
            // Sometimes twice: the last scalar wins, messages merge (but upb replaces a
            // MessageSet item by a later one of the same type id where C++ merges them, so
            // values that can hold one are not sent twice).
            _ if rng.chance(10)
                && !(is_message
                    && self.reaches_message_set(f.type_name(), &mut HashSet::new())) =>
            {
                2
            }
            _ => 1,
        };
        if count == 0 {
            return;
        }
        let packable = !matches!(
            f.r#type(),
            Type::String | Type::Bytes | Type::Message | Type::Group
        );
        if f.label() == Label::Repeated && packable && rng.chance(50) {
            let mut body = Vec::new();
            for _ in 0..count {
                self.scalar(f.r#type(), syntax, rng, &mut body);
            }
            key(f.number(), 2, out);
            varint(body.len() as u64, out);
            out.extend_from_slice(&body);
            return;
        }
        for _ in 0..count {
            self.field(f, syntax, rng, depth, out);
        }
    }

    fn unknown_field(&self, known: &HashSet<i32>, rng: &mut Rng, out: &mut Vec<u8>) {
        let number = loop {
            let n = 1 + rng.below(3000) as i32;
            if !known.contains(&n) && !(19000..20000).contains(&n) {
                break n;
            }
        };
        match rng.below(5) {
            0 => {
                key(number, 0, out);
                varint(rng.u64(), out);
            }
            1 => {
                key(number, 1, out);
                out.extend_from_slice(&rng.u64().to_le_bytes());
            }
            2 => {
                key(number, 5, out);
                out.extend_from_slice(&(rng.u64() as u32).to_le_bytes());
            }
            3 => {
                let b = rng.bytes();
                key(number, 2, out);
                varint(b.len() as u64, out);
                out.extend_from_slice(&b);
            }
            _ => {
                key(number, 3, out);
                key(number + 1, 0, out);
                varint(7, out);
                key(number, 4, out);
            }
        }
    }

    fn field(
        &self,
        f: &FieldDescriptorProto,
        syntax: Syntax,
        rng: &mut Rng,
        depth: u32,
        out: &mut Vec<u8>,
    ) {
        match f.r#type() {
            Type::Group => {
                key(f.number(), 3, out);
                self.message_body(f.type_name(), rng, depth + 1, out);
                key(f.number(), 4, out);
            }
            Type::Message => {
                let mut body = Vec::new();
                if self.is_map_entry(f.type_name()) {
                    self.map_entry(f.type_name(), syntax, rng, depth, &mut body);
                } else {
                    self.message_body(f.type_name(), rng, depth + 1, &mut body);
                }
                key(f.number(), 2, out);
                varint(body.len() as u64, out);
                out.extend_from_slice(&body);
            }
            t => {
                key(f.number(), wire_type(t), out);
                self.scalar(t, syntax, rng, out);
            }
        }
    }

    fn map_entry(&self, entry: &str, syntax: Syntax, rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
        let (m, _) = self.get(entry);
        let mut parts: Vec<&FieldDescriptorProto> = m
            .field
            .iter()
            .filter(|_| !rng.chance(15)) // entries may lack the key or the value
            .collect();
        if rng.chance(20) {
            parts.reverse();
        }
        for f in parts {
            self.field(f, syntax, rng, depth + 1, out);
        }
    }

    fn scalar(&self, t: Type, _syntax: Syntax, rng: &mut Rng, out: &mut Vec<u8>) {
        match t {
            Type::Double => out.extend_from_slice(&rng.f64().to_le_bytes()),
            Type::Float => out.extend_from_slice(&(rng.f64() as f32).to_le_bytes()),
            Type::Fixed64 | Type::Sfixed64 => out.extend_from_slice(&rng.i64().to_le_bytes()),
            Type::Fixed32 | Type::Sfixed32 => out.extend_from_slice(&rng.i32().to_le_bytes()),
            Type::Int64 | Type::Uint64 => varint(rng.i64() as u64, out),
            Type::Int32 | Type::Enum => {
                let v = rng.i32() as i64 as u64;
                // A non-canonical 32-bit value: upper bits set, to be truncated.
                varint(if rng.chance(5) { v ^ (1 << 40) } else { v }, out)
            }
            Type::Uint32 => varint(rng.i32() as u32 as u64, out),
            Type::Sint32 => {
                let v = rng.i32();
                varint(((v << 1) ^ (v >> 31)) as u32 as u64, out)
            }
            Type::Sint64 => {
                let v = rng.i64();
                varint(((v << 1) ^ (v >> 63)) as u64, out)
            }
            Type::Bool => varint(if rng.chance(5) { 2 } else { rng.below(2) }, out),
            Type::String => {
                let s = rng.string();
                varint(s.len() as u64, out);
                out.extend_from_slice(s.as_bytes());
            }
            Type::Bytes => {
                let b = rng.bytes();
                varint(b.len() as u64, out);
                out.extend_from_slice(&b);
            }
            Type::Message | Type::Group => unreachable!(),
        }
    }
}

/// A scalar field with its zero value.
fn zero_scalar(number: i32, t: Type, out: &mut Vec<u8>) {
    key(number, wire_type(t), out);
    zero_value(t, out);
}

/// A scalar's zero value, without a key.
fn zero_value(t: Type, out: &mut Vec<u8>) {
    match wire_type(t) {
        1 => out.extend_from_slice(&[0; 8]),
        5 => out.extend_from_slice(&[0; 4]),
        _ => varint(0, out),
    }
}

/// A C-escaped string (`descriptor.proto`'s form of a `bytes` default), unescaped.
fn unescape_c(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        match b[i] {
            b'0'..=b'7' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 3 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    v = v * 8 + u32::from(b[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
                continue;
            }
            b'x' | b'X' => {
                i += 1;
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 && i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v * 16 + (b[i] as char).to_digit(16).unwrap();
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
                continue;
            }
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

fn wire_type(t: Type) -> u32 {
    match t {
        Type::Double | Type::Fixed64 | Type::Sfixed64 => 1,
        Type::Float | Type::Fixed32 | Type::Sfixed32 => 5,
        Type::String | Type::Bytes | Type::Message => 2,
        Type::Group => 3,
        _ => 0,
    }
}

pub fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

thread_local! {
    static OVERLONG_KEYS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether [`key`] writes some keys overlong on this thread (the default). Off for oracles that
/// mishandle them: Python's pure implementation takes a known field with an overlong key for an
/// unknown one.
pub fn set_overlong_keys(on: bool) {
    OVERLONG_KEYS.with(|c| c.set(on));
}

/// A key; about one in sixteen is written as an overlong varint (one more byte than needed),
/// which every decoder must accept (groups' end keys included).
pub fn key(number: i32, wire_type: u32, out: &mut Vec<u8>) {
    let v = ((number as u64) << 3) | u64::from(wire_type);
    // A key takes at most 5 bytes in upb and C++ (prost takes 10): a 5-byte key stays as it is.
    if (out.len() ^ number as usize) % 16 != 7 || !OVERLONG_KEYS.with(|c| c.get()) || v >= 1 << 28 {
        return varint(v, out);
    }
    varint(v, out);
    *out.last_mut().unwrap() |= 0x80;
    out.push(0);
}

/// A random corruption of `bytes`: a flipped bit, a truncation, an inserted or deleted byte.
pub fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = bytes.to_vec();
    if b.is_empty() {
        return vec![rng.u64() as u8];
    }
    let i = rng.below(b.len() as u64) as usize;
    match rng.below(4) {
        0 => b[i] ^= 1 << rng.below(8),
        1 => b.truncate(i),
        2 => b.insert(i, rng.u64() as u8),
        _ => {
            b.remove(i);
        }
    }
    b
}

/// A corrupted double may be NaN, which never equals itself; maps print in random order, but
/// the same entries print to the same length.
pub fn same_but_nan<T: std::fmt::Debug>(a: &T, b: &T) -> bool {
    let (a, b) = (format!("{a:?}"), format!("{b:?}"));
    a.contains("NaN") && a.len() == b.len()
}

/// "accepts", or "rejects (the error)".
pub fn verdict<T, E: std::fmt::Debug>(r: &Result<T, E>) -> String {
    match r {
        Ok(_) => "accepts".into(),
        Err(e) => format!("rejects ({e:?})"),
    }
}
