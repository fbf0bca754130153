//! Every message and enum of a request, imports included, by full name: what a field's type
//! refers to (its Rust name, its package, an enum's default and closedness) and the questions
//! that need the message graph (recursion, collections at any depth).

use std::collections::{HashMap, HashSet};

use crate::descriptor::field_descriptor_proto::{Label as PbLabel, Type as PbType};
use crate::descriptor::{DescriptorProto, EnumDescriptorProto, FileDescriptorProto};

use super::build::{overrides, variant_name};
use super::features::{EnumType, Features};
use super::{EnumRef, RustPath, TypeRef};
use crate::ident::{to_snake, to_upper_camel};

/// What the index knows of an enum.
struct EnumInfo {
    ty: TypeRef,
    closed: bool,
    default: i32,
    values: Vec<(String, i32)>,
    variants: Vec<(i32, String)>,
}

/// Knowledge about every type in the request, including imports.
pub(super) struct TypeIndex<'a> {
    messages: HashMap<String, (&'a DescriptorProto, TypeRef)>,
    enums: HashMap<String, EnumInfo>,
}

impl<'a> TypeIndex<'a> {
    /// Indexes every message and enum of `files` by fully-qualified name (with leading dot);
    /// `features` gives each file's features (an enum's closedness comes from them).
    pub(super) fn new(
        files: &'a [FileDescriptorProto],
        features: impl Fn(&FileDescriptorProto) -> Features,
    ) -> Self {
        let mut index = TypeIndex {
            messages: HashMap::new(),
            enums: HashMap::new(),
        };
        for file in files {
            let cx = Scope {
                package: file.package(),
                prefix: match file.package() {
                    "" => String::new(),
                    p => format!(".{p}"),
                },
                path: RustPath::default(),
                features: features(file),
            };
            for e in &file.enum_type {
                index.add_enum(&cx, e);
            }
            for m in &file.message_type {
                index.add_message(&cx, m);
            }
        }
        index
    }

    fn add_enum(&mut self, cx: &Scope<'_>, e: &EnumDescriptorProto) {
        let full = format!("{}.{}", cx.prefix, e.name());
        let type_name = to_upper_camel(e.name());
        let mut variants: Vec<(i32, String)> = Vec::new();
        for v in &e.value {
            let variant = variant_name(&type_name, v.name());
            let first = variants
                .iter()
                .find(|(n, _)| *n == v.number())
                .map_or(variant, |(_, first)| first.clone());
            variants.push((v.number(), first));
        }
        let info = EnumInfo {
            variants,
            ty: cx.type_ref(&full, e.name()),
            closed: cx
                .features
                .with(&overrides(
                    e.options.as_ref().and_then(|o| o.features.as_ref()),
                ))
                .enum_type
                == EnumType::Closed,
            default: e.value.first().map_or(0, |v| v.number()),
            values: e
                .value
                .iter()
                .map(|v| (v.name().to_string(), v.number()))
                .collect(),
        };
        self.enums.insert(full, info);
    }

    fn add_message(&mut self, cx: &Scope<'_>, m: &'a DescriptorProto) {
        let full = format!("{}.{}", cx.prefix, m.name());
        let inner = Scope {
            package: cx.package,
            prefix: full.clone(),
            path: cx.path.join(to_snake(m.name())),
            features: cx.features.with(&overrides(
                m.options.as_ref().and_then(|o| o.features.as_ref()),
            )),
        };
        for e in &m.enum_type {
            self.add_enum(&inner, e);
        }
        for n in &m.nested_type {
            self.add_message(&inner, n);
        }
        let ty = cx.type_ref(&full, m.name());
        self.messages.insert(full, (m, ty));
    }

    /// The message type named `type_name` (with leading dot), as a field refers to it. A name
    /// outside the request gets its proto name as Rust name.
    pub(super) fn message_ref(&self, type_name: &str) -> TypeRef {
        match self.messages.get(type_name) {
            Some((_, ty)) => ty.clone(),
            None => unresolved(type_name),
        }
    }

    /// Whether `type_name` (with leading dot) names a message of the request.
    pub(super) fn is_message(&self, type_name: &str) -> bool {
        self.messages.contains_key(type_name)
    }

    /// Whether `type_name` (with leading dot) names an enum of the request.
    pub(super) fn is_enum(&self, type_name: &str) -> bool {
        self.enums.contains_key(type_name)
    }

    /// The enum type named `type_name` (with leading dot), as a field refers to it.
    pub(super) fn enum_ref(&self, type_name: &str) -> EnumRef {
        match self.enums.get(type_name) {
            Some(e) => EnumRef {
                ty: e.ty.clone(),
                closed: e.closed,
                default: e.default,
                values: e.variants.clone(),
            },
            None => EnumRef {
                ty: unresolved(type_name),
                closed: false,
                default: 0,
                values: Vec::new(),
            },
        }
    }

    /// The number of the value `name` of the enum `type_name`.
    pub(super) fn enum_value(&self, type_name: &str, name: &str) -> Option<i32> {
        let e = self.enums.get(type_name)?;
        e.values.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }

    /// Whether the message `type_name` has a repeated or map field, directly or through
    /// its message fields.
    pub(super) fn has_collections(&self, type_name: &str) -> bool {
        self.any_reachable(type_name, &mut HashSet::new(), &|_, m| {
            // Outside the request (an extern type): assume the worst.
            m.is_none_or(|m| m.field.iter().any(|f| f.label() == PbLabel::Repeated))
        })
    }

    /// Whether a value of message type `type_name` can miss a required field: it, or a message
    /// it can contain, declares one (proto2 `required`, editions `LEGACY_REQUIRED`).
    pub(super) fn has_required(&self, type_name: &str) -> bool {
        self.any_reachable(type_name, &mut HashSet::new(), &|_, m| {
            m.is_some_and(|m| m.field.iter().any(is_required))
        })
    }

    /// Whether the message `type_name` itself declares a required field (which its encoding
    /// always writes, so its default value does not encode to nothing).
    pub(super) fn declares_required(&self, type_name: &str) -> bool {
        self.messages
            .get(type_name)
            .is_some_and(|(m, _)| m.field.iter().any(is_required))
    }

    /// Whether a value of message type `from` can contain a `target`: `from` is `target` or
    /// has a message field (map values included) of a type that can.
    pub(super) fn reaches(&self, from: &str, target: &str) -> bool {
        self.any_reachable(from, &mut HashSet::new(), &|name, _| name == target)
    }

    /// Whether a value of message type `from` can contain a `target` through singular
    /// (not repeated, not map) message fields only: prost-build's rule for boxing a field.
    /// As in prost-build's message graph, a group field is no edge (`TYPE_GROUP` is not
    /// `TYPE_MESSAGE`), though the field whose type starts the walk may be a group, unless
    /// `groups` says otherwise.
    pub(super) fn reaches_singular(&self, from: &str, target: &str, groups: bool) -> bool {
        let mut seen = HashSet::new();
        let mut stack = vec![from];
        while let Some(name) = stack.pop() {
            if name == target {
                return true;
            }
            if !seen.insert(name) {
                continue;
            }
            if let Some((m, _)) = self.messages.get(name) {
                stack.extend(
                    m.field
                        .iter()
                        .filter(|f| {
                            f.label() != PbLabel::Repeated
                                && (f.r#type() == PbType::Message
                                    || (groups && f.r#type() == PbType::Group))
                        })
                        .map(|f| f.type_name()),
                );
            }
        }
        false
    }

    /// Whether `found` holds for the message `type_name` or for any message reachable from it
    /// through message fields (each visited once, so cycles end). `found` also sees names
    /// outside the request, with no descriptor.
    fn any_reachable(
        &self,
        type_name: &str,
        seen: &mut HashSet<String>,
        found: &impl Fn(&str, Option<&DescriptorProto>) -> bool,
    ) -> bool {
        if !seen.insert(type_name.to_string()) {
            return false;
        }
        let m = self.messages.get(type_name).map(|(m, _)| *m);
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

    /// The entry message of a map field's type, if it is one.
    pub(super) fn map_entry(&self, type_name: &str) -> Option<&'a DescriptorProto> {
        self.messages
            .get(type_name)
            .map(|(m, _)| *m)
            .filter(|m| m.options.as_ref().is_some_and(|o| o.map_entry()))
    }
}

/// Where a type is declared: its package, the full name and Rust module of its parent.
struct Scope<'p> {
    package: &'p str,
    prefix: String,
    path: RustPath,
    features: Features,
}

impl Scope<'_> {
    fn type_ref(&self, full: &str, name: &str) -> TypeRef {
        TypeRef {
            full_name: full[1..].to_string(),
            package: self.package.to_string(),
            rust_path: self.path.join(to_upper_camel(name)),
        }
    }
}

/// A proto2 `required` field, or one whose own features say `LEGACY_REQUIRED` (a file can't).
pub(super) fn is_required(f: &crate::descriptor::FieldDescriptorProto) -> bool {
    f.label() == PbLabel::Required
        || overrides(f.options.as_ref().and_then(|o| o.features.as_ref())).field_presence
            == Some(super::features::FieldPresence::LegacyRequired)
}

fn unresolved(type_name: &str) -> TypeRef {
    let full = type_name.trim_start_matches('.');
    let name = full.rsplit('.').next().unwrap_or(full);
    TypeRef {
        full_name: full.to_string(),
        package: String::new(),
        rust_path: RustPath::new(vec![to_upper_camel(name)]),
    }
}
