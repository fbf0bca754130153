//! The typed model emitters read: messages, fields, oneofs and maps resolved from descriptors,
//! with every protobuf decision (presence, packing, map and bytes representation, Rust names)
//! already taken. Emitters never look at descriptors.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use prost_types::field_descriptor_proto::{Label as PbLabel, Type as PbType};
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto};
use quote::quote;

use crate::ident::{ident, to_snake, to_upper_camel};
use crate::options::Options;

/// A scalar protobuf type (enums are their `int32` value, as prost stores them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Scalar {
    Double,
    Float,
    Int64,
    Uint64,
    Int32,
    Fixed64,
    Fixed32,
    Bool,
    String,
    Bytes,
    Uint32,
    Sfixed32,
    Sfixed64,
    Sint32,
    Sint64,
    Enum,
}

/// The type of one value of a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueType {
    /// A scalar, string, bytes or enum.
    Scalar(Scalar),
    /// A length-delimited embedded message.
    Message,
    /// A proto2 group: an embedded message between start and end keys.
    Group,
}

/// How `bytes` values are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BytesRepr {
    /// `Vec<u8>`.
    #[default]
    Vec,
    /// `bytes::Bytes`.
    Bytes,
}

/// Field cardinality and presence, as the generated struct stores it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Label {
    /// proto3 singular scalar: plain `T`, not written when it equals the default.
    Implicit,
    /// Explicit presence: `Option<T>` (messages, proto2 optional, proto3 `optional`).
    Optional,
    /// proto2 `required`: plain `T` (messages too), always written.
    Required,
    /// `Vec<T>`, written packed or not as the file says; both accepted on decode.
    Repeated {
        /// Whether the encoder packs it.
        packed: bool,
    },
    /// `HashMap<K, V>` or `BTreeMap<K, V>`.
    Map(Box<MapField>),
}

/// The key and value of a map field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapField {
    /// Key type (an integral, bool or string scalar).
    pub key: Scalar,
    /// Value type.
    pub value: ValueType,
    /// How a `bytes` value is stored.
    pub value_bytes: BytesRepr,
    /// Whether the map is a `BTreeMap` (iterated in key order, so written in reverse).
    pub btree: bool,
    /// Default of an enum value (its first declared number), used when an entry lacks it.
    pub enum_default: i32,
}

/// A field of a message (or one member of a oneof).
#[derive(Clone, Debug)]
pub struct Field {
    /// The proto field name.
    pub name: String,
    /// Field number.
    pub number: u32,
    /// Rust field (or, in a oneof, variant) identifier.
    pub ident: Ident,
    /// Type of each value.
    pub value: ValueType,
    /// Cardinality and presence.
    pub label: Label,
    /// How a `bytes` value is stored.
    pub bytes: BytesRepr,
    /// Marked `[deprecated = true]` (prost then marks the Rust field `#[deprecated]`).
    pub deprecated: bool,
    /// A message (or map value message) type that contains this field's message, directly or
    /// through others: its `size` and `encode_reverse` are called through an out-of-line
    /// trampoline, so the containing message's own methods are not recursive and inline.
    pub recursive: bool,
}

/// A (non-synthetic) oneof.
#[derive(Clone, Debug)]
pub struct Oneof {
    /// Rust field identifier in the message struct.
    pub ident: Ident,
    /// Path of the oneof enum, relative to the package module.
    pub enum_path: TokenStream,
    /// Members; their `ident` is the enum variant.
    pub fields: Vec<Field>,
}

/// One encoded unit of a message, in field-number order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Member {
    /// Index into [`Message::fields`].
    Field(usize),
    /// Index into [`Message::oneofs`].
    Oneof(usize),
}

/// A message to generate code for.
#[derive(Clone, Debug)]
pub struct Message {
    /// Full proto name without the leading dot.
    pub full_name: String,
    /// Rust path of the struct relative to its package module.
    pub rust_path: TokenStream,
    /// Fields outside oneofs.
    pub fields: Vec<Field>,
    /// Oneofs.
    pub oneofs: Vec<Oneof>,
    /// Fields and oneofs ordered by (smallest) field number: the order prost writes them in.
    pub members: Vec<Member>,
    /// No repeated or map field at any depth: a `size` walk is as cheap as a thread-local
    /// scratch buffer, so encoding sizes exactly, unless a recursive field is set (the walk
    /// then goes as deep as the value).
    pub size_walk_is_cheap: bool,
}

/// All messages of one proto package.
#[derive(Clone, Debug, Default)]
pub struct Package {
    /// Proto package name ("" for none).
    pub name: String,
    /// Messages in declaration order.
    pub messages: Vec<Message>,
}

/// Knowledge about every type in the request, including imports.
pub struct TypeIndex<'a> {
    messages: HashMap<String, &'a DescriptorProto>,
    enum_defaults: HashMap<String, i32>,
}

impl<'a> TypeIndex<'a> {
    /// Indexes every message and enum of `files` by fully-qualified name (with leading dot).
    pub fn new(files: &'a [FileDescriptorProto]) -> Self {
        let mut index = TypeIndex {
            messages: HashMap::new(),
            enum_defaults: HashMap::new(),
        };
        for file in files {
            let prefix = match file.package() {
                "" => String::new(),
                p => format!(".{p}"),
            };
            for e in &file.enum_type {
                index.add_enum(&prefix, e);
            }
            for m in &file.message_type {
                index.add_message(&prefix, m);
            }
        }
        index
    }

    fn add_enum(&mut self, prefix: &str, e: &prost_types::EnumDescriptorProto) {
        let first = e.value.first().map_or(0, |v| v.number());
        self.enum_defaults
            .insert(format!("{prefix}.{}", e.name()), first);
    }

    fn add_message(&mut self, prefix: &str, m: &'a DescriptorProto) {
        let name = format!("{prefix}.{}", m.name());
        for e in &m.enum_type {
            self.add_enum(&name, e);
        }
        for n in &m.nested_type {
            self.add_message(&name, n);
        }
        self.messages.insert(name, m);
    }

    /// Whether the message `type_name` has a repeated or map field, directly or through
    /// its message fields.
    fn has_collections(&self, type_name: &str) -> bool {
        self.any_reachable(type_name, &mut Vec::new(), &|_, m| {
            // Outside the request (an extern type): assume the worst.
            m.is_none_or(|m| m.field.iter().any(|f| f.label() == PbLabel::Repeated))
        })
    }

    /// Whether a value of message type `from` can contain a `target`: `from` is `target` or
    /// has a message field (map values included) of a type that can.
    fn reaches(&self, from: &str, target: &str) -> bool {
        self.any_reachable(from, &mut Vec::new(), &|name, _| name == target)
    }

    /// Whether `found` holds for the message `type_name` or for any message reachable from it
    /// through message fields (each visited once, so cycles end). `found` also sees names
    /// outside the request, with no descriptor.
    fn any_reachable(
        &self,
        type_name: &str,
        seen: &mut Vec<String>,
        found: &impl Fn(&str, Option<&DescriptorProto>) -> bool,
    ) -> bool {
        if seen.iter().any(|s| s == type_name) {
            return false;
        }
        seen.push(type_name.to_string());
        let m = self.messages.get(type_name).copied();
        if found(type_name, m) {
            return true;
        }
        m.is_some_and(|m| {
            m.field.iter().any(|f| {
                matches!(f.r#type(), PbType::Message | PbType::Group)
                    && self.any_reachable(f.type_name(), seen, found)
            })
        })
    }

    fn map_entry(&self, type_name: &str) -> Option<&'a DescriptorProto> {
        self.messages
            .get(type_name)
            .copied()
            .filter(|m| m.options.as_ref().is_some_and(|o| o.map_entry()))
    }
}

/// An input the generator can't handle, with the proto element it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelError(pub String);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Proto2,
    Proto3,
}

fn scalar(t: PbType) -> Option<Scalar> {
    Some(match t {
        PbType::Double => Scalar::Double,
        PbType::Float => Scalar::Float,
        PbType::Int64 => Scalar::Int64,
        PbType::Uint64 => Scalar::Uint64,
        PbType::Int32 => Scalar::Int32,
        PbType::Fixed64 => Scalar::Fixed64,
        PbType::Fixed32 => Scalar::Fixed32,
        PbType::Bool => Scalar::Bool,
        PbType::String => Scalar::String,
        PbType::Bytes => Scalar::Bytes,
        PbType::Uint32 => Scalar::Uint32,
        PbType::Sfixed32 => Scalar::Sfixed32,
        PbType::Sfixed64 => Scalar::Sfixed64,
        PbType::Sint32 => Scalar::Sint32,
        PbType::Sint64 => Scalar::Sint64,
        PbType::Enum => Scalar::Enum,
        PbType::Message | PbType::Group => return None,
    })
}

fn value_type(f: &FieldDescriptorProto) -> ValueType {
    match f.r#type() {
        PbType::Message => ValueType::Message,
        PbType::Group => ValueType::Group,
        t => ValueType::Scalar(scalar(t).expect("scalar type")),
    }
}

impl Scalar {
    /// Whether the type may be packed in a repeated field.
    pub fn packable(self) -> bool {
        !matches!(self, Scalar::String | Scalar::Bytes)
    }
}

/// Builds the model of every file in `to_generate`, grouped by package in first-seen order.
pub fn build(
    files: &[FileDescriptorProto],
    to_generate: &[String],
    options: &Options,
) -> Result<Vec<Package>, ModelError> {
    let index = TypeIndex::new(files);
    let mut packages: Vec<Package> = Vec::new();
    for name in to_generate {
        let file = files
            .iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| ModelError(format!("{name}: file to generate is not in the request")))?;
        let syntax = match file.syntax() {
            "" | "proto2" => Syntax::Proto2,
            "proto3" => Syntax::Proto3,
            other => {
                return Err(ModelError(format!(
                    "{name}: syntax `{other}` is not supported in mode=prost (prost-build 0.14 \
                     supports proto2 and proto3 only)"
                )))
            }
        };
        let package = file.package().to_string();
        let idx = match packages.iter().position(|p| p.name == package) {
            Some(i) => i,
            None => {
                packages.push(Package {
                    name: package.clone(),
                    messages: Vec::new(),
                });
                packages.len() - 1
            }
        };
        let cx = FileCx {
            file: name,
            syntax,
            index: &index,
            options,
        };
        let prefix = if package.is_empty() {
            String::new()
        } else {
            format!(".{package}")
        };
        for m in &file.message_type {
            cx.message(&prefix, &[], m, &mut packages[idx].messages)?;
        }
    }
    Ok(packages)
}

struct FileCx<'a> {
    file: &'a str,
    syntax: Syntax,
    index: &'a TypeIndex<'a>,
    options: &'a Options,
}

impl FileCx<'_> {
    fn message(
        &self,
        prefix: &str,
        modules: &[String],
        m: &DescriptorProto,
        out: &mut Vec<Message>,
    ) -> Result<(), ModelError> {
        let fq = format!("{prefix}.{}", m.name());
        if m.options.as_ref().is_some_and(|o| o.map_entry()) || self.options.is_extern(&fq) {
            return Ok(());
        }
        let err = |what: String| ModelError(format!("{}: {}: {what}", self.file, &fq[1..]));
        let type_ident = ident(&to_upper_camel(m.name()));
        let mod_idents: Vec<Ident> = modules.iter().map(|s| ident(s)).collect();
        let rust_path = quote!(#(#mod_idents::)* #type_ident);

        let mut own_modules = modules.to_vec();
        own_modules.push(to_snake(m.name()));
        let own_mod_idents: Vec<Ident> = own_modules.iter().map(|s| ident(s)).collect();

        // prost suffixes a oneof's enum with `OneOf` when a nested type has the same name.
        let nested_names: Vec<String> = m
            .nested_type
            .iter()
            .map(|n| n.name())
            .chain(m.enum_type.iter().map(|e| e.name()))
            .map(to_upper_camel)
            .collect();
        let mut oneofs: Vec<Oneof> = Vec::new();
        let mut oneof_slots: Vec<Option<usize>> = Vec::new();
        for (i, o) in m.oneof_decl.iter().enumerate() {
            let synthetic = m
                .field
                .iter()
                .filter(|f| f.oneof_index == Some(i as i32))
                .all(|f| f.proto3_optional());
            if synthetic {
                oneof_slots.push(None);
                continue;
            }
            let mut type_name = to_upper_camel(o.name());
            if nested_names.contains(&type_name) {
                type_name.push_str("OneOf");
            }
            let type_ident = ident(&type_name);
            oneof_slots.push(Some(oneofs.len()));
            oneofs.push(Oneof {
                ident: ident(&to_snake(o.name())),
                enum_path: quote!(#(#own_mod_idents::)* #type_ident),
                fields: Vec::new(),
            });
        }

        let mut fields = Vec::new();
        for f in &m.field {
            if f.extendee.is_some() {
                continue;
            }
            let number = u32::try_from(f.number())
                .ok()
                .filter(|n| (1..=(1 << 29) - 1).contains(n))
                .ok_or_else(|| {
                    err(format!(
                        "field {} has invalid number {}",
                        f.name(),
                        f.number()
                    ))
                })?;
            let in_oneof = f
                .oneof_index
                .and_then(|i| oneof_slots.get(i as usize).copied().flatten());
            let value = value_type(f);
            let bytes = if self.options.is_bytes(&fq, f.name()) {
                BytesRepr::Bytes
            } else {
                BytesRepr::Vec
            };
            let is_message = !matches!(value, ValueType::Scalar(_));
            let label = if in_oneof.is_some() {
                Label::Optional
            } else {
                match f.label() {
                    PbLabel::Repeated => match self.index.map_entry(f.type_name()) {
                        Some(entry) if f.r#type() == PbType::Message => {
                            Label::Map(Box::new(self.map_field(&fq, f, entry).map_err(err)?))
                        }
                        _ => Label::Repeated {
                            packed: match value {
                                ValueType::Scalar(s) if s.packable() => f
                                    .options
                                    .as_ref()
                                    .and_then(|o| o.packed)
                                    .unwrap_or(self.syntax == Syntax::Proto3),
                                _ => false,
                            },
                        },
                    },
                    PbLabel::Required => Label::Required,
                    _ if is_message || f.proto3_optional() || self.syntax == Syntax::Proto2 => {
                        Label::Optional
                    }
                    _ => Label::Implicit,
                }
            };
            let field = Field {
                name: f.name().to_string(),
                number,
                ident: ident(&if in_oneof.is_some() {
                    to_upper_camel(f.name())
                } else {
                    to_snake(f.name())
                }),
                value,
                label,
                bytes,
                deprecated: f.options.as_ref().is_some_and(|o| o.deprecated()),
                recursive: is_message && self.index.reaches(f.type_name(), &fq),
            };
            match in_oneof {
                Some(o) => oneofs[o].fields.push(field),
                None => fields.push(field),
            }
        }

        let mut members: Vec<(u32, Member)> = fields
            .iter()
            .enumerate()
            .map(|(i, f)| (f.number, Member::Field(i)))
            .collect();
        for (i, o) in oneofs.iter().enumerate() {
            if let Some(min) = o.fields.iter().map(|f| f.number).min() {
                members.push((min, Member::Oneof(i)));
            }
        }
        members.sort_by_key(|(n, _)| *n);
        out.push(Message {
            full_name: fq[1..].to_string(),
            rust_path,
            fields,
            oneofs,
            members: members.into_iter().map(|(_, m)| m).collect(),
            size_walk_is_cheap: !self.index.has_collections(&fq),
        });
        for n in &m.nested_type {
            self.message(&fq, &own_modules, n, out)?;
        }
        Ok(())
    }

    fn map_field(
        &self,
        fq_message: &str,
        f: &FieldDescriptorProto,
        entry: &DescriptorProto,
    ) -> Result<MapField, String> {
        let key = entry.field.iter().find(|e| e.number() == 1);
        let value = entry.field.iter().find(|e| e.number() == 2);
        let (Some(key), Some(value)) = (key, value) else {
            return Err(format!("map entry of {} lacks key or value", f.name()));
        };
        let key_scalar = scalar(key.r#type())
            .filter(|s| {
                !matches!(
                    s,
                    Scalar::Double | Scalar::Float | Scalar::Bytes | Scalar::Enum
                )
            })
            .ok_or_else(|| format!("map field {} has an invalid key type", f.name()))?;
        let value_ty = value_type(value);
        let enum_default = if value.r#type() == PbType::Enum {
            self.index
                .enum_defaults
                .get(value.type_name())
                .copied()
                .unwrap_or(0)
        } else {
            0
        };
        Ok(MapField {
            key: key_scalar,
            value: value_ty,
            // prost looks the value's bytes type up as `<message>.value`.
            value_bytes: if self.options.is_bytes(fq_message, "value") {
                BytesRepr::Bytes
            } else {
                BytesRepr::Vec
            },
            btree: self.options.is_btree_map(fq_message, f.name()),
            enum_default,
        })
    }
}
