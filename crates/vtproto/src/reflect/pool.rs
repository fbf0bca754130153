//! `DescriptorPool`: files added from their encoded descriptors, every definition indexed by
//! full name, every type reference resolved and every feature (presence, packing, enum
//! closedness, UTF-8 checks, group encoding) resolved once, when a file is added, so that
//! descriptors answer without a lookup. Adding is all or nothing: a set with an error leaves
//! the pool as it was.

use alloc::collections::BTreeMap;
use alloc::sync::Arc;

use super::error::{DescriptorError, DescriptorErrorKind};
use super::features::{Features, Syntax};
use super::raw;
use crate::prelude::*;

/// Files and their definitions, by full name. Cloning is cheap (the data is shared), and so
/// are the descriptors it hands out: each is the pool and an index.
#[derive(Clone, Default)]
pub struct DescriptorPool {
    pub(super) inner: Arc<Inner>,
}

impl core::fmt::Debug for DescriptorPool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DescriptorPool")
            .field("files", &self.inner.files.len())
            .field("messages", &self.inner.messages.len())
            .finish()
    }
}

impl PartialEq for DescriptorPool {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for DescriptorPool {}

/// A definition's kind and index, under its full name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Symbol {
    Package,
    Message(u32),
    Enum(u32),
    EnumValue(u32),
    Field(u32),
    Oneof(u32),
    Service(u32),
    Method(u32),
}

#[derive(Clone, Default)]
pub(super) struct Inner {
    pub files: Vec<FileData>,
    pub messages: Vec<MessageData>,
    pub fields: Vec<FieldData>,
    pub oneofs: Vec<OneofData>,
    pub enums: Vec<EnumData>,
    pub values: Vec<EnumValueData>,
    pub services: Vec<ServiceData>,
    pub methods: Vec<MethodData>,
    pub names: BTreeMap<String, Symbol>,
    pub file_names: BTreeMap<String, u32>,
}

#[derive(Clone)]
pub(super) struct FileData {
    pub name: String,
    pub package: String,
    pub syntax: Syntax,
    pub dependencies: Vec<u32>,
    pub public_dependencies: Vec<u32>,
    pub messages: Vec<u32>,
    pub enums: Vec<u32>,
    pub services: Vec<u32>,
    pub extensions: Vec<u32>,
    pub options: Vec<u8>,
    pub encoded: Vec<u8>,
}

#[derive(Clone)]
pub(super) struct MessageData {
    pub name: String,
    pub full_name: String,
    pub file: u32,
    pub parent: Option<u32>,
    /// Fields in declaration order.
    pub fields: Vec<u32>,
    /// (number, field), sorted by number.
    pub by_number: Vec<(u32, u32)>,
    pub oneofs: Vec<u32>,
    pub messages: Vec<u32>,
    pub enums: Vec<u32>,
    /// Extensions declared inside this message.
    pub scoped_extensions: Vec<u32>,
    /// Extensions of this message, wherever declared, by number.
    pub extensions: Vec<u32>,
    pub extension_ranges: Vec<(i32, i32)>,
    pub reserved_ranges: Vec<(i32, i32)>,
    pub reserved_names: Vec<String>,
    pub map_entry: bool,
    pub message_set: bool,
    pub options: Vec<u8>,
    /// The positions of its fields in the order ProtoJSON and the text format write them (as
    /// generated code does): by number, a oneof's members at its lowest number.
    pub write_order: Vec<u32>,
    /// ProtoJSON keys (JSON names and proto names) and the position of the field each names,
    /// sorted by key; where two fields share a key, the first of the plain fields in
    /// declaration order, then the oneofs' members, takes it.
    pub json_keys: Vec<(String, u32)>,
    /// Text-format names (proto names, and a group-like field's type name) likewise.
    pub text_keys: Vec<(String, u32)>,
    /// For each field of `write_order`: whether a ProtoJSON reader may take its JSON name for
    /// the next key by a raw comparison (the name needs no escape, is not `@type`, and is the
    /// key of this field, not of another).
    pub json_guess: Vec<bool>,
    /// Each field's index in `write_order`, by position.
    pub order_index: Vec<u32>,
    /// Each field's ProtoJSON keys by position, quoted and escaped with their colon
    /// (`"jsonName":`, `"proto_name":`), as generated code has them in literals.
    #[cfg(feature = "json")]
    pub quoted_keys: Vec<(String, String)>,
    /// Its fields in `write_order`, with what a walker over a generated message's tables
    /// reads of each, so that it needs no handle per field.
    #[cfg(feature = "json")]
    pub plan: Vec<PlanField>,
    /// Its fields by number, with what the binary decoder of `DynamicMessage` reads of each
    /// (sorted by number, as `by_number`).
    pub decode: Vec<DecodeField>,
    /// Whether a value of it can miss a required field: one of its own, or one in a message
    /// that a field of it holds, at any depth.
    pub may_miss_required: bool,
    /// Which well-known type with a form of its own in ProtoJSON it is ([`special_form`]).
    #[cfg_attr(not(any(feature = "json", feature = "text")), allow(dead_code))]
    pub special: u8,
}

impl MessageData {
    /// [`MessageDescriptor::json_guess`](super::MessageDescriptor::json_guess), on the
    /// pool's `fields`.
    #[cfg(feature = "json")]
    pub(super) fn json_guess_at<'a>(
        &'a self,
        fields: &'a [FieldData],
        index: usize,
    ) -> Option<(usize, &'a str)> {
        let position = *self.write_order.get(index)? as usize;
        if !self.json_guess[index] {
            return None;
        }
        let field = &fields[self.fields[position] as usize];
        Some((position, field.json_name.as_str()))
    }

    /// The position of the field a ProtoJSON key names (its JSON name or its proto name).
    #[cfg(feature = "json")]
    pub(super) fn json_key(&self, key: &str) -> Option<usize> {
        let keys = &self.json_keys;
        let at = keys.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok()?;
        Some(keys[at].1 as usize)
    }
}

/// One field of a message's decode table ([`MessageData::decode`]).
#[derive(Clone, Copy)]
pub(super) struct DecodeField {
    pub number: u32,
    /// Its position among its message's fields.
    pub position: u32,
    pub kind: KindData,
    /// The wire type of one of its values (a group's aside).
    pub wire: u8,
    /// Whether a record of it is read on the decoder's short path: a field that is no map,
    /// no group, no extension, and no closed enum.
    pub plain: bool,
    /// Whether it is repeated.
    pub list: bool,
    /// The oneof it is a member of (a proto3 `optional`'s synthetic one included).
    pub oneof: Option<u32>,
    /// For a map field (its entry declaring a key and a value): the entry's parts.
    pub map: Option<MapDecode>,
}

/// A map entry's key and value, as the binary decoder of `DynamicMessage` reads them.
#[derive(Clone, Copy)]
pub(super) struct MapDecode {
    /// The key's kind (a scalar) and the tag it comes with.
    pub key: KindData,
    pub key_tag: u32,
    /// The value's kind and the tag it comes with.
    pub value: KindData,
    pub value_tag: u32,
    /// The value's field in the pool.
    pub value_field: u32,
    /// Whether the value is a closed enum (an entry holding an undeclared number of it is
    /// kept whole among the unknown fields).
    pub closed: bool,
}

/// One field of a message's write plan ([`MessageData::plan`]).
#[cfg(feature = "json")]
#[derive(Clone, Copy)]
pub(super) struct PlanField {
    pub number: u32,
    /// Its position among its message's fields.
    pub position: u32,
    /// Its index in the pool's fields.
    pub field: u32,
    /// The oneof it is a member of, a proto3 `optional`'s synthetic one aside.
    pub oneof: Option<u32>,
    /// Whether it has explicit presence ([`FieldDescriptor::has_presence`]).
    pub presence: bool,
}

/// [`FieldDescriptor::has_presence`] of a field's data (its kind resolved).
pub(super) fn has_presence(d: &FieldData) -> bool {
    d.label != 3
        && (matches!(d.kind, KindData::Message(_))
            || d.oneof.is_some()
            || d.proto3_optional
            || d.is_extension
            || d.features.field_presence != 2)
}

/// A field's type before and after resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KindData {
    Scalar(i32),
    Message(u32),
    Enum(u32),
    Unresolved,
}

#[derive(Clone)]
pub(super) struct FieldData {
    pub name: String,
    /// Its position among its message's fields (0 for an extension).
    pub position: u32,
    pub full_name: String,
    pub json_name: String,
    pub number: u32,
    pub label: i32,
    pub kind: KindData,
    /// The raw `type`: group (10) or not.
    pub raw_type: i32,
    pub type_name: String,
    /// The message that holds the field; for an extension, the message it extends.
    pub message: Option<u32>,
    pub extendee: String,
    /// Where an extension is declared: its message, or none at file level.
    pub scope: Option<u32>,
    pub file: u32,
    pub is_extension: bool,
    pub oneof: Option<u32>,
    pub proto3_optional: bool,
    pub default: Option<String>,
    pub options: Vec<u8>,
    pub features: Features,
}

#[derive(Clone)]
pub(super) struct OneofData {
    pub name: String,
    pub full_name: String,
    pub message: u32,
    pub fields: Vec<u32>,
    pub options: Vec<u8>,
}

#[derive(Clone)]
pub(super) struct EnumData {
    pub name: String,
    pub full_name: String,
    pub file: u32,
    pub parent: Option<u32>,
    pub values: Vec<u32>,
    pub reserved_ranges: Vec<(i32, i32)>,
    pub reserved_names: Vec<String>,
    pub options: Vec<u8>,
    pub features: Features,
}

#[derive(Clone)]
pub(super) struct EnumValueData {
    pub name: String,
    pub full_name: String,
    pub number: i32,
    pub enumeration: u32,
    pub options: Vec<u8>,
}

#[derive(Clone)]
pub(super) struct ServiceData {
    pub name: String,
    pub full_name: String,
    pub file: u32,
    pub methods: Vec<u32>,
    pub options: Vec<u8>,
}

#[derive(Clone)]
pub(super) struct MethodData {
    pub name: String,
    pub full_name: String,
    pub service: u32,
    pub input_name: String,
    pub output_name: String,
    pub input: u32,
    pub output: u32,
    pub client_streaming: bool,
    pub server_streaming: bool,
    pub options: Vec<u8>,
}

/// `FieldDescriptorProto.Type` of a group.
pub(super) const TYPE_GROUP: i32 = 10;
const TYPE_MESSAGE: i32 = 11;
const TYPE_ENUM: i32 = 14;

impl DescriptorPool {
    /// An empty pool.
    pub fn new() -> Self {
        Self::default()
    }

    /// A pool holding the files of an encoded `FileDescriptorSet` (the `descriptors`
    /// feature's `FILE_DESCRIPTOR_SET`, `protoc --include_imports -o`, or
    /// `vtproto_build::Config::load_fds_bytes`).
    pub fn decode(file_descriptor_set: &[u8]) -> Result<Self, DescriptorError> {
        let mut pool = Self::new();
        pool.add_file_descriptor_set(file_descriptor_set)?;
        Ok(pool)
    }

    /// Adds the files of an encoded `FileDescriptorSet`, in any order: each is added once its
    /// imports are in the pool or the set. A file the pool already holds with the same bytes
    /// is skipped; with other bytes it is an error, as a missing import or a name defined
    /// twice is. On error the pool is left as it was.
    pub fn add_file_descriptor_set(&mut self, bytes: &[u8]) -> Result<(), DescriptorError> {
        let files = raw::set(bytes).map_err(DescriptorError::decode)?;
        self.add_encoded_files(&files)
    }

    /// Adds one encoded `FileDescriptorProto` whose imports the pool already holds.
    pub fn add_file_descriptor_proto(&mut self, bytes: &[u8]) -> Result<(), DescriptorError> {
        self.add_encoded_files(&[bytes])
    }

    fn add_encoded_files(&mut self, files: &[&[u8]]) -> Result<(), DescriptorError> {
        let mut decoded: Vec<(raw::File, &[u8])> = Vec::with_capacity(files.len());
        for bytes in files {
            decoded.push((raw::file(bytes).map_err(DescriptorError::decode)?, bytes));
        }
        let mut inner = (*self.inner).clone();
        let mut pending: Vec<(raw::File, &[u8])> = Vec::new();
        for (file, bytes) in decoded {
            if let Some(&i) = inner.file_names.get(&file.name) {
                if inner.files[i as usize].encoded != bytes {
                    return Err(DescriptorError::new(DescriptorErrorKind::DuplicateFile {
                        name: file.name,
                    }));
                }
                continue;
            }
            if pending.iter().any(|(p, _)| p.name == file.name) {
                return Err(DescriptorError::new(DescriptorErrorKind::DuplicateFile {
                    name: file.name,
                }));
            }
            pending.push((file, bytes));
        }
        // Files whose imports are all in: added, until none is left or none can be.
        while !pending.is_empty() {
            let ready = pending.iter().position(|(f, _)| {
                f.dependency
                    .iter()
                    .all(|d| inner.file_names.contains_key(d))
            });
            let Some(ready) = ready else {
                let (file, _) = &pending[0];
                let missing = file
                    .dependency
                    .iter()
                    .find(|d| {
                        !inner.file_names.contains_key(*d)
                            && !pending.iter().any(|(p, _)| &p.name == *d)
                    })
                    .or(file.dependency.first())
                    .cloned()
                    .unwrap_or_default();
                return Err(DescriptorError::new(
                    DescriptorErrorKind::MissingDependency {
                        file: file.name.clone(),
                        dependency: missing,
                    },
                ));
            };
            let (file, bytes) = pending.remove(ready);
            inner.add_file(file, bytes)?;
        }
        inner.mark_required();
        self.inner = Arc::new(inner);
        Ok(())
    }

    /// The encoded `FileDescriptorSet` of every file, each after its imports, with the bytes
    /// each was added with.
    pub fn encode_file_descriptor_set(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for f in &self.inner.files {
            out.push(0x0a);
            let mut len = f.encoded.len() as u64;
            while len >= 0x80 {
                out.push(len as u8 | 0x80);
                len >>= 7;
            }
            out.push(len as u8);
            out.extend_from_slice(&f.encoded);
        }
        out
    }
}

impl Inner {
    fn define(&mut self, name: &str, symbol: Symbol, file: &str) -> Result<(), DescriptorError> {
        match self.names.get(name) {
            None => {
                self.names.insert(name.into(), symbol);
                Ok(())
            }
            Some(Symbol::Package) if symbol == Symbol::Package => Ok(()),
            Some(_) => Err(DescriptorError::new(DescriptorErrorKind::DuplicateName {
                name: name.into(),
                file: file.into(),
            })),
        }
    }

    fn add_file(&mut self, file: raw::File, encoded: &[u8]) -> Result<(), DescriptorError> {
        let index = self.files.len() as u32;
        let syntax = Syntax::of(&file.syntax, file.edition).ok_or_else(|| {
            DescriptorError::new(DescriptorErrorKind::Invalid {
                name: file.name.clone(),
                reason: "an unknown syntax or edition",
            })
        })?;
        if file.name.is_empty() {
            return Err(DescriptorError::new(DescriptorErrorKind::Invalid {
                name: file.name,
                reason: "a file without a name",
            }));
        }
        // Each prefix of the package is a package.
        if !file.package.is_empty() {
            let mut at = 0;
            for part in file.package.split('.') {
                at += part.len();
                let prefix = file.package[..at].to_string();
                self.define(&prefix, Symbol::Package, &file.name)?;
                at += 1;
            }
        }
        let dependencies = file
            .dependency
            .iter()
            .map(|d| self.file_names[d])
            .collect::<Vec<u32>>();
        let public_dependencies = file
            .public_dependency
            .iter()
            .filter_map(|&i| dependencies.get(i as usize).copied())
            .collect();
        let features = Features::for_file(syntax, &file.options);
        self.files.push(FileData {
            name: file.name.clone(),
            package: file.package.clone(),
            syntax,
            dependencies,
            public_dependencies,
            messages: Vec::new(),
            enums: Vec::new(),
            services: Vec::new(),
            extensions: Vec::new(),
            options: file.options.clone(),
            encoded: encoded.to_vec(),
        });
        self.file_names.insert(file.name.clone(), index);
        let first_field = self.fields.len();
        let first_method = self.methods.len();
        let first_message = self.messages.len();
        let scope = file.package.clone();
        for m in &file.message_type {
            let i = self.add_message(m, &scope, index, None, features, &file.name)?;
            self.files[index as usize].messages.push(i);
        }
        for e in &file.enum_type {
            let i = self.add_enum(e, &scope, index, None, features, &file.name)?;
            self.files[index as usize].enums.push(i);
        }
        for x in &file.extension {
            let i = self.add_field(x, &scope, index, None, None, true, features, &file.name)?;
            self.files[index as usize].extensions.push(i);
        }
        for s in &file.service {
            let full_name = join(&scope, &s.name);
            let service = self.services.len() as u32;
            self.define(&full_name, Symbol::Service(service), &file.name)?;
            let mut methods = Vec::new();
            for m in &s.method {
                let method = self.methods.len() as u32;
                let method_name = join(&full_name, &m.name);
                self.define(&method_name, Symbol::Method(method), &file.name)?;
                self.methods.push(MethodData {
                    name: m.name.clone(),
                    full_name: method_name,
                    service,
                    input_name: m.input_type.clone(),
                    output_name: m.output_type.clone(),
                    input: u32::MAX,
                    output: u32::MAX,
                    client_streaming: m.client_streaming,
                    server_streaming: m.server_streaming,
                    options: m.options.clone(),
                });
                methods.push(method);
            }
            self.services.push(ServiceData {
                name: s.name.clone(),
                full_name,
                file: index,
                methods,
                options: s.options.clone(),
            });
            self.files[index as usize].services.push(service);
        }
        self.resolve(first_field, first_method)?;
        for m in first_message..self.messages.len() {
            self.index_names(m);
        }
        Ok(())
    }

    /// Sets every message's `may_miss_required`: the messages with a required field, then
    /// those holding one of them in a field, until nothing changes.
    fn mark_required(&mut self) {
        let required = |f: &FieldData| f.label == 2 || f.features.field_presence == 3;
        for m in 0..self.messages.len() {
            let direct = self.messages[m]
                .fields
                .iter()
                .any(|&i| required(&self.fields[i as usize]));
            self.messages[m].may_miss_required = direct;
        }
        loop {
            let mut changed = false;
            for m in 0..self.messages.len() {
                if self.messages[m].may_miss_required {
                    continue;
                }
                let data = &self.messages[m];
                let holds = data.fields.iter().any(|&i| {
                    matches!(self.fields[i as usize].kind,
                        KindData::Message(t) if self.messages[t as usize].may_miss_required)
                });
                if holds {
                    self.messages[m].may_miss_required = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Fills a message's `write_order`, `json_keys`, `text_keys`, `json_guess`,
    /// `order_index` and `decode`, and with `json` its `quoted_keys` and `plan` (its fields'
    /// types resolved).
    fn index_names(&mut self, m: usize) {
        let data = &self.messages[m];
        let real_oneof = |f: &FieldData| f.oneof.filter(|_| !f.proto3_optional);
        let mut order: Vec<(u32, u32, u32)> = data
            .fields
            .iter()
            .map(|&i| {
                let f = &self.fields[i as usize];
                let at = match real_oneof(f) {
                    Some(o) => self.oneofs[o as usize]
                        .fields
                        .iter()
                        .map(|&g| self.fields[g as usize].number)
                        .min()
                        .unwrap_or(f.number),
                    None => f.number,
                };
                (at, f.number, f.position)
            })
            .collect();
        order.sort_unstable();
        // Plain fields in declaration order, then each oneof's members.
        let mut claim_order: Vec<u32> = data
            .fields
            .iter()
            .copied()
            .filter(|&i| real_oneof(&self.fields[i as usize]).is_none())
            .collect();
        for &o in &data.oneofs {
            claim_order.extend(&self.oneofs[o as usize].fields);
        }
        // Every (key, claim rank, position), sorted by key then rank: the first of each key
        // takes it.
        let mut json_claims: Vec<(&str, usize, u32)> = Vec::new();
        let mut text_claims: Vec<(&str, usize, u32)> = Vec::new();
        for (rank, &i) in claim_order.iter().enumerate() {
            let f = &self.fields[i as usize];
            json_claims.push((&f.json_name, 2 * rank, f.position));
            json_claims.push((&f.name, 2 * rank + 1, f.position));
            if let Some(name) = self.group_type_name(f, m) {
                text_claims.push((name, 2 * rank, f.position));
            }
            text_claims.push((&f.name, 2 * rank + 1, f.position));
        }
        let first_claims = |mut claims: Vec<(&str, usize, u32)>| -> Vec<(String, u32)> {
            claims.sort_unstable();
            claims.dedup_by(|b, a| a.0 == b.0);
            claims.into_iter().map(|(k, _, p)| (k.into(), p)).collect()
        };
        let json_keys = first_claims(json_claims);
        let text_keys = first_claims(text_claims);
        let write_order: Vec<u32> = order.into_iter().map(|(_, _, p)| p).collect();
        let fields = &self.messages[m].fields;
        let json_guess = write_order
            .iter()
            .map(|&p| {
                let name = &self.fields[fields[p as usize] as usize].json_name;
                let plain = !name.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20);
                let claimed = json_keys
                    .binary_search_by(|(k, _)| k.as_str().cmp(name))
                    .is_ok_and(|at| json_keys[at].1 == p);
                plain && name != "@type" && claimed
            })
            .collect();
        let mut order_index = vec![0u32; write_order.len()];
        for (i, &p) in write_order.iter().enumerate() {
            order_index[p as usize] = i as u32;
        }
        #[cfg(feature = "json")]
        let quoted_keys = fields
            .iter()
            .map(|&i| {
                let f = &self.fields[i as usize];
                (quote_key(&f.json_name), quote_key(&f.name))
            })
            .collect();
        #[cfg(feature = "json")]
        let plan = write_order
            .iter()
            .map(|&p| {
                let field = fields[p as usize];
                let f = &self.fields[field as usize];
                PlanField {
                    number: f.number,
                    position: p,
                    field,
                    oneof: real_oneof(f),
                    presence: has_presence(f),
                }
            })
            .collect();
        let decode = self.messages[m]
            .by_number
            .iter()
            .map(|&(number, i)| self.decode_field(number, &self.fields[i as usize]))
            .collect();
        let data = &mut self.messages[m];
        data.decode = decode;
        #[cfg(feature = "json")]
        {
            data.quoted_keys = quoted_keys;
            data.plan = plan;
        }
        data.write_order = write_order;
        data.json_keys = json_keys;
        data.text_keys = text_keys;
        data.json_guess = json_guess;
        data.order_index = order_index;
    }

    /// What the binary decoder reads of a field (its type resolved).
    fn decode_field(&self, number: u32, f: &FieldData) -> DecodeField {
        let list = f.label == 3;
        let (wire, plain) = match f.kind {
            KindData::Message(e) => (
                2,
                !(list && self.messages[e as usize].map_entry)
                    && f.raw_type != TYPE_GROUP
                    && f.features.message_encoding != 2,
            ),
            KindData::Enum(e) => (0, self.enums[e as usize].features.enum_type != 2),
            KindData::Scalar(9 | 12) => (2, true),
            KindData::Scalar(1 | 6 | 16) => (1, true),
            KindData::Scalar(2 | 7 | 15) => (5, true),
            KindData::Scalar(_) => (0, true),
            KindData::Unresolved => (0, false),
        };
        let map = match f.kind {
            KindData::Message(e) if list && self.messages[e as usize].map_entry => {
                self.map_decode(e)
            }
            _ => None,
        };
        DecodeField {
            number,
            position: f.position,
            kind: f.kind,
            wire,
            plain: plain && !f.is_extension,
            list,
            oneof: f.oneof,
            map,
        }
    }

    /// What the binary decoder reads of a map entry of type `entry`, if it declares a key
    /// and a value.
    fn map_decode(&self, entry: u32) -> Option<MapDecode> {
        let entry = &self.messages[entry as usize];
        let part = |n: u32| {
            let &(_, i) = entry.by_number.iter().find(|&&(m, _)| m == n)?;
            Some((self.decode_field(n, &self.fields[i as usize]), i))
        };
        let ((k, _), (v, value_field)) = (part(1)?, part(2)?);
        Some(MapDecode {
            key: k.kind,
            key_tag: 8 | u32::from(k.wire),
            value: v.kind,
            value_tag: 16 | u32::from(v.wire),
            value_field,
            closed: matches!(v.kind, KindData::Enum(_)) && !v.plain,
        })
    }

    /// A group-like field's type name, which the text format writes for it: a group (or a
    /// delimited field) whose type is declared beside it, named as the field but for case.
    fn group_type_name(&self, f: &FieldData, m: usize) -> Option<&str> {
        let KindData::Message(t) = f.kind else {
            return None;
        };
        let delimited = match f.features.syntax {
            Syntax::Proto2 | Syntax::Proto3 => f.raw_type == TYPE_GROUP,
            _ => f.features.message_encoding == 2,
        };
        let t = &self.messages[t as usize];
        (delimited && t.parent == Some(m as u32) && t.name.to_ascii_lowercase() == f.name)
            .then_some(t.name.as_str())
    }

    #[allow(clippy::too_many_arguments)]
    fn add_message(
        &mut self,
        m: &raw::Message,
        scope: &str,
        file: u32,
        parent: Option<u32>,
        outer: Features,
        file_name: &str,
    ) -> Result<u32, DescriptorError> {
        let index = self.messages.len() as u32;
        let full_name = join(scope, &m.name);
        self.define(&full_name, Symbol::Message(index), file_name)?;
        let features = outer.merge(raw::option_message(&m.options, 12).as_deref());
        self.messages.push(MessageData {
            name: m.name.clone(),
            full_name: full_name.clone(),
            file,
            parent,
            fields: Vec::new(),
            by_number: Vec::new(),
            oneofs: Vec::new(),
            messages: Vec::new(),
            enums: Vec::new(),
            scoped_extensions: Vec::new(),
            extensions: Vec::new(),
            extension_ranges: m.extension_range.clone(),
            reserved_ranges: m.reserved_range.clone(),
            reserved_names: m.reserved_name.clone(),
            map_entry: raw::option_varint(&m.options, 7) == Some(1),
            message_set: raw::option_varint(&m.options, 1) == Some(1),
            options: m.options.clone(),
            write_order: Vec::new(),
            json_keys: Vec::new(),
            text_keys: Vec::new(),
            json_guess: Vec::new(),
            decode: Vec::new(),
            #[cfg(feature = "json")]
            quoted_keys: Vec::new(),
            #[cfg(feature = "json")]
            plan: Vec::new(),
            order_index: Vec::new(),
            may_miss_required: false,
            special: special_form(&full_name),
        });
        let mut oneofs = Vec::new();
        for o in &m.oneof_decl {
            let i = self.oneofs.len() as u32;
            let name = join(&full_name, &o.name);
            self.define(&name, Symbol::Oneof(i), file_name)?;
            self.oneofs.push(OneofData {
                name: o.name.clone(),
                full_name: name,
                message: index,
                fields: Vec::new(),
                options: o.options.clone(),
            });
            oneofs.push(i);
        }
        let mut fields = Vec::new();
        for f in &m.field {
            let oneof = match f.oneof_index {
                Some(i) => Some(*oneofs.get(i as usize).ok_or_else(|| {
                    DescriptorError::new(DescriptorErrorKind::Invalid {
                        name: join(&full_name, &f.name),
                        reason: "a oneof index past the message's oneofs",
                    })
                })?),
                None => None,
            };
            let field_features = match oneof {
                Some(o) => features
                    .merge(raw::option_message(&self.oneofs[o as usize].options, 1).as_deref()),
                None => features,
            };
            let i = self.add_field(
                f,
                &full_name,
                file,
                Some(index),
                oneof,
                false,
                field_features,
                file_name,
            )?;
            if let Some(o) = oneof {
                self.oneofs[o as usize].fields.push(i);
            }
            self.fields[i as usize].position = fields.len() as u32;
            fields.push(i);
        }
        let mut by_number: Vec<(u32, u32)> = fields
            .iter()
            .map(|&i| (self.fields[i as usize].number, i))
            .collect();
        by_number.sort_unstable();
        if let Some(w) = by_number.windows(2).find(|w| w[0].0 == w[1].0) {
            return Err(DescriptorError::new(DescriptorErrorKind::DuplicateNumber {
                message: full_name,
                number: w[0].0,
            }));
        }
        let mut nested = Vec::new();
        for n in &m.nested_type {
            nested.push(self.add_message(n, &full_name, file, Some(index), features, file_name)?);
        }
        let mut enums = Vec::new();
        for e in &m.enum_type {
            enums.push(self.add_enum(e, &full_name, file, Some(index), features, file_name)?);
        }
        let mut scoped = Vec::new();
        for x in &m.extension {
            scoped.push(self.add_field(
                x,
                &full_name,
                file,
                Some(index),
                None,
                true,
                features,
                file_name,
            )?);
        }
        let data = &mut self.messages[index as usize];
        data.fields = fields;
        data.by_number = by_number;
        data.oneofs = oneofs;
        data.messages = nested;
        data.enums = enums;
        data.scoped_extensions = scoped;
        Ok(index)
    }

    #[allow(clippy::too_many_arguments)]
    fn add_field(
        &mut self,
        f: &raw::Field,
        scope: &str,
        file: u32,
        message: Option<u32>,
        oneof: Option<u32>,
        is_extension: bool,
        outer: Features,
        file_name: &str,
    ) -> Result<u32, DescriptorError> {
        let index = self.fields.len() as u32;
        let full_name = join(scope, &f.name);
        if !(1..=super::MAX_FIELD_NUMBER as i32).contains(&f.number) {
            return Err(DescriptorError::new(DescriptorErrorKind::Invalid {
                name: full_name,
                reason: "a field number out of 1..=536870911",
            }));
        }
        self.define(&full_name, Symbol::Field(index), file_name)?;
        let kind = match f.r#type {
            TYPE_MESSAGE | TYPE_ENUM | TYPE_GROUP | 0 => KindData::Unresolved,
            1..=18 => KindData::Scalar(f.r#type),
            _ => {
                return Err(DescriptorError::new(DescriptorErrorKind::Invalid {
                    name: full_name,
                    reason: "an unknown field type",
                }))
            }
        };
        let features = outer.merge(raw::option_message(&f.options, 21).as_deref());
        self.fields.push(FieldData {
            name: f.name.clone(),
            position: 0,
            full_name,
            json_name: f.json_name.clone().unwrap_or_else(|| json_name(&f.name)),
            number: f.number as u32,
            label: f.label,
            kind,
            raw_type: f.r#type,
            type_name: f.type_name.clone(),
            message: if is_extension { None } else { message },
            extendee: f.extendee.clone(),
            scope: if is_extension { message } else { None },
            file,
            is_extension,
            oneof,
            proto3_optional: f.proto3_optional,
            default: f.default_value.clone(),
            options: f.options.clone(),
            features,
        });
        Ok(index)
    }

    fn add_enum(
        &mut self,
        e: &raw::Enum,
        scope: &str,
        file: u32,
        parent: Option<u32>,
        outer: Features,
        file_name: &str,
    ) -> Result<u32, DescriptorError> {
        let index = self.enums.len() as u32;
        let full_name = join(scope, &e.name);
        self.define(&full_name, Symbol::Enum(index), file_name)?;
        if e.value.is_empty() {
            return Err(DescriptorError::new(DescriptorErrorKind::Invalid {
                name: full_name,
                reason: "an enum without values",
            }));
        }
        let mut values = Vec::new();
        for v in &e.value {
            let i = self.values.len() as u32;
            // Enum values are siblings of their enum, as in C++.
            let value_name = join(scope, &v.name);
            self.define(&value_name, Symbol::EnumValue(i), file_name)?;
            self.values.push(EnumValueData {
                name: v.name.clone(),
                full_name: value_name,
                number: v.number,
                enumeration: index,
                options: v.options.clone(),
            });
            values.push(i);
        }
        self.enums.push(EnumData {
            name: e.name.clone(),
            full_name,
            file,
            parent,
            values,
            reserved_ranges: e.reserved_range.clone(),
            reserved_names: e.reserved_name.clone(),
            options: e.options.clone(),
            features: outer.merge(raw::option_message(&e.options, 7).as_deref()),
        });
        Ok(index)
    }

    /// Resolves the type names of the fields and methods added since `first_field` and
    /// `first_method`, and links extensions to the messages they extend.
    fn resolve(&mut self, first_field: usize, first_method: usize) -> Result<(), DescriptorError> {
        for i in first_field..self.fields.len() {
            let f = &self.fields[i];
            let scope = scope_of(&f.full_name).to_string();
            if matches!(f.kind, KindData::Unresolved) {
                let kind = match self.lookup(&scope, &f.type_name) {
                    Some(Symbol::Message(m)) if f.raw_type != TYPE_ENUM => KindData::Message(m),
                    Some(Symbol::Enum(e))
                        if f.raw_type != TYPE_MESSAGE && f.raw_type != TYPE_GROUP =>
                    {
                        KindData::Enum(e)
                    }
                    found => {
                        return Err(DescriptorError::new(DescriptorErrorKind::UnresolvedType {
                            field: f.full_name.clone(),
                            type_name: f.type_name.clone(),
                            found_other_kind: found.is_some(),
                        }))
                    }
                };
                self.fields[i].kind = kind;
            }
            let f = &self.fields[i];
            if f.is_extension {
                let extendee = match self.lookup(&scope, &f.extendee) {
                    Some(Symbol::Message(m)) => m,
                    found => {
                        return Err(DescriptorError::new(DescriptorErrorKind::UnresolvedType {
                            field: f.full_name.clone(),
                            type_name: f.extendee.clone(),
                            found_other_kind: found.is_some(),
                        }))
                    }
                };
                let number = f.number;
                let m = &self.messages[extendee as usize];
                if !m
                    .extension_ranges
                    .iter()
                    .any(|&(lo, hi)| (lo as i64..hi as i64).contains(&(number as i64)))
                {
                    return Err(DescriptorError::new(DescriptorErrorKind::Invalid {
                        name: f.full_name.clone(),
                        reason: "an extension number outside the extended message's ranges",
                    }));
                }
                self.fields[i].message = Some(extendee);
                // By number, the order generated code writes them in.
                let at = self.messages[extendee as usize]
                    .extensions
                    .partition_point(|&x| self.fields[x as usize].number < number);
                self.messages[extendee as usize]
                    .extensions
                    .insert(at, i as u32);
            }
        }
        // A map entry's key is an integer, a bool or a string (what protoc accepts), so a
        // map key read from the wire always has a `MapKey`.
        for i in first_field..self.fields.len() {
            let f = &self.fields[i];
            let entry = match f.message {
                Some(m) if f.number == 1 && !f.is_extension => &self.messages[m as usize],
                _ => continue,
            };
            let keyable = matches!(f.kind, KindData::Scalar(t) if !matches!(t, 1 | 2 | 12));
            if entry.map_entry && !keyable {
                return Err(DescriptorError::new(DescriptorErrorKind::Invalid {
                    name: f.full_name.clone(),
                    reason: "a map key that is not an integer, a bool or a string",
                }));
            }
        }
        for i in first_method..self.methods.len() {
            let scope = scope_of(&self.methods[i].full_name);
            let scope = scope_of(scope).to_string();
            let mut ends = [0u32; 2];
            for (end, name) in ends
                .iter_mut()
                .zip([&self.methods[i].input_name, &self.methods[i].output_name])
            {
                *end = match self.lookup(&scope, name) {
                    Some(Symbol::Message(m)) => m,
                    found => {
                        return Err(DescriptorError::new(DescriptorErrorKind::UnresolvedType {
                            field: self.methods[i].full_name.clone(),
                            type_name: name.clone(),
                            found_other_kind: found.is_some(),
                        }))
                    }
                };
            }
            self.methods[i].input = ends[0];
            self.methods[i].output = ends[1];
        }
        Ok(())
    }

    /// A type name as protobuf resolves it from `scope`: absolute with a leading dot, else
    /// tried in `scope`, then in each enclosing scope.
    pub(super) fn lookup(&self, scope: &str, name: &str) -> Option<Symbol> {
        if let Some(absolute) = name.strip_prefix('.') {
            return self.names.get(absolute).copied();
        }
        let mut scope = scope;
        loop {
            let candidate = join(scope, name);
            if let Some(&s) = self.names.get(&candidate) {
                if s != Symbol::Package {
                    return Some(s);
                }
            }
            if scope.is_empty() {
                return None;
            }
            scope = scope_of(scope);
        }
    }
}

/// `scope.name`, or `name` at the root.
/// The well-known types whose ProtoJSON is not an object of their fields, by full name: 0 for
/// none, then `Any`, `Timestamp`, `Duration`, `FieldMask`, `Struct`, `Value`, `ListValue`, and 8
/// for the wrappers (`DoubleValue` ... `BytesValue`).
fn special_form(full_name: &str) -> u8 {
    let Some(name) = full_name.strip_prefix("google.protobuf.") else {
        return 0;
    };
    match name {
        "Any" => 1,
        "Timestamp" => 2,
        "Duration" => 3,
        "FieldMask" => 4,
        "Struct" => 5,
        "Value" => 6,
        "ListValue" => 7,
        "DoubleValue" | "FloatValue" | "Int64Value" | "UInt64Value" | "Int32Value"
        | "UInt32Value" | "BoolValue" | "StringValue" | "BytesValue" => 8,
        _ => 0,
    }
}

pub(super) fn join(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

/// The scope a full name is defined in (`a.b` for `a.b.C`, the root for `C`).
fn scope_of(full_name: &str) -> &str {
    full_name.rsplit_once('.').map_or("", |(s, _)| s)
}

/// protoc's JSON name of a field: underscores dropped, the letter after each upper-cased.
pub(super) fn json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `name` as a ProtoJSON key, `"name":`, escaped as the writer escapes strings.
#[cfg(feature = "json")]
fn quote_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 3);
    crate::json::JsonWriter::new(&mut out, &crate::json::EncodeOptions::default()).str(name);
    out.push(':');
    out
}
