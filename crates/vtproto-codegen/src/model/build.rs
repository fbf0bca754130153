//! From descriptors to the model: one walk over the files to generate, grouping their messages
//! and enums by package, naming everything the way prost-build does.

use crate::descriptor::field_descriptor_proto::{Label as PbLabel, Type as PbType};
use crate::descriptor::Edition as PbEdition;
use crate::descriptor::{
    DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorProto,
};

use super::features::{
    Edition, EnumType, Features, FieldPresence, MessageEncoding, Overrides, RepeatedFieldEncoding,
};
use super::index::TypeIndex;
use super::{
    BytesRepr, DefaultValue, Enum, EnumValue, Extension, ExtensionRef, Field, Label, MapField,
    Member, Message, Method, Oneof, Package, RustIdent, RustPath, Scalar, Service, TypeRef,
    ValueType,
};
use crate::descriptor::feature_set;
use crate::descriptor::FeatureSet;
use crate::ident::{sanitize, to_snake, to_upper_camel};
use crate::options::{Mode, Options};
use crate::Error;
use heck::ToShoutySnakeCase;

/// Builds the model of every file in `to_generate`, grouped by package in first-seen order.
pub fn build(
    files: &[FileDescriptorProto],
    to_generate: &[String],
    options: &Options,
) -> Result<Vec<Package>, Error> {
    build_with(files, None, to_generate, options)
}

/// [`build`], with `encoded[i]`, when given, the bytes `files[i]` was decoded from: the
/// `descriptors` feature then copies them (custom options included) instead of re-encoding
/// the decoded file (which keeps no unknown fields, so no custom options).
pub fn build_with(
    files: &[FileDescriptorProto],
    encoded: Option<&[Vec<u8>]>,
    to_generate: &[String],
    options: &Options,
) -> Result<Vec<Package>, Error> {
    super::validate::validate(files)?;
    // Files outside `to_generate` only lend their types; an edition they can't state falls
    // back to proto2's rules for them.
    let index = TypeIndex::new(files, |f| {
        file_features(f, options).unwrap_or_else(|_| Edition::Proto2.defaults())
    });
    let mut packages: Vec<Package> = Vec::new();
    // Lookups by name, so that the walk stays linear in the request's size.
    let by_name: std::collections::HashMap<&str, &FileDescriptorProto> =
        files.iter().map(|f| (f.name(), f)).collect();
    let mut package_index: std::collections::HashMap<String, usize> =
        std::collections::HashMap::new();
    for name in to_generate {
        let file = *by_name
            .get(name.as_str())
            .ok_or_else(|| Error::file(name, "file to generate is not in the request"))?;
        let features = file_features(file, options)?;
        let package = file.package();
        let idx = match package_index.get(package) {
            Some(i) => *i,
            None => {
                package_index.insert(package.to_string(), packages.len());
                packages.push(Package {
                    name: package.to_string(),
                    module: RustPath::new(
                        package
                            .split('.')
                            .filter(|s| !s.is_empty())
                            .map(to_snake)
                            .collect(),
                    ),
                    ..Package::default()
                });
                packages.len() - 1
            }
        };
        let cx = FileCx {
            file: name,
            index: &index,
            options,
        };
        let scope = Scope {
            prefix: match package {
                "" => String::new(),
                p => format!(".{p}"),
            },
            modules: RustPath::default(),
            features,
        };
        let out = &mut packages[idx];
        for e in &file.enum_type {
            out.enums.push(cx.enumeration(&scope, e));
        }
        for m in &file.message_type {
            cx.message(&scope, m, out)?;
        }
        for f in &file.extension {
            cx.extension(&scope, f, out)?;
        }
        for (i, svc) in file.service.iter().enumerate() {
            out.services.push(cx.service(file, i, svc)?);
        }
    }
    link_extensions(&mut packages);
    if crate::emit::is_selected(options, "descriptors")
        || crate::emit::is_selected(options, "reflect")
    {
        let raw: std::collections::HashMap<&str, &[u8]> = match encoded {
            Some(e) if e.len() == files.len() => files
                .iter()
                .zip(e)
                .map(|(f, b)| (f.name(), b.as_slice()))
                .collect(),
            _ => Default::default(),
        };
        let generated: Vec<&FileDescriptorProto> = to_generate
            .iter()
            .filter_map(|n| by_name.get(n.as_str()).copied())
            .collect();
        for p in &mut packages {
            let roots = with_extending_files(&p.name, &generated, &by_name);
            p.descriptor_set = descriptor_set(roots.iter(), &by_name, &raw);
        }
    }
    Ok(packages)
}

/// The generated files of `package`, and the generated files that extend a message of them or
/// of their imports (and so on, to a fixed point): a reader of the package's descriptor set
/// then knows every extension the generated code knows.
fn with_extending_files<'a>(
    package: &str,
    generated: &[&'a FileDescriptorProto],
    by_name: &std::collections::HashMap<&str, &'a FileDescriptorProto>,
) -> Vec<&'a FileDescriptorProto> {
    use std::collections::HashSet;
    fn extendees(f: &FileDescriptorProto) -> Vec<&str> {
        fn nested<'a>(m: &'a crate::descriptor::DescriptorProto, out: &mut Vec<&'a str>) {
            out.extend(m.extension.iter().map(|x| x.extendee()));
            for n in &m.nested_type {
                nested(n, out);
            }
        }
        let mut out: Vec<&str> = f.extension.iter().map(|x| x.extendee()).collect();
        for m in &f.message_type {
            nested(m, &mut out);
        }
        out
    }
    fn messages(f: &FileDescriptorProto, out: &mut HashSet<String>) {
        fn nested(prefix: &str, m: &crate::descriptor::DescriptorProto, out: &mut HashSet<String>) {
            let name = format!("{prefix}.{}", m.name());
            for n in &m.nested_type {
                nested(&name, n, out);
            }
            out.insert(name);
        }
        let prefix = match f.package() {
            "" => String::new(),
            p => format!(".{p}"),
        };
        for m in &f.message_type {
            nested(&prefix, m, out);
        }
    }
    let mut roots: Vec<&'a FileDescriptorProto> = generated
        .iter()
        .copied()
        .filter(|f| f.package() == package)
        .collect();
    let extending: Vec<_> = generated
        .iter()
        .map(|f| (*f, extendees(f)))
        .filter(|(_, x)| !x.is_empty())
        .collect();
    loop {
        // The messages of the roots and their imports.
        let mut seen = HashSet::new();
        let mut todo: Vec<&FileDescriptorProto> = roots.clone();
        let mut names = HashSet::new();
        while let Some(f) = todo.pop() {
            if seen.insert(f.name()) {
                messages(f, &mut names);
                todo.extend(f.dependency.iter().filter_map(|d| by_name.get(d.as_str())));
            }
        }
        let before = roots.len();
        for (f, x) in &extending {
            if !roots.iter().any(|r| r.name() == f.name()) && x.iter().any(|e| names.contains(*e)) {
                roots.push(f);
            }
        }
        if roots.len() == before {
            return roots;
        }
    }
}

/// The encoded `FileDescriptorSet` of `roots` and everything they import, each file after its
/// imports (as reflection services and `protoc --include_imports` want them).
fn descriptor_set<'a>(
    roots: impl Iterator<Item = &'a &'a FileDescriptorProto>,
    by_name: &std::collections::HashMap<&str, &'a FileDescriptorProto>,
    raw: &std::collections::HashMap<&str, &[u8]>,
) -> Vec<u8> {
    use prost::Message as _;
    fn visit<'a>(
        f: &'a FileDescriptorProto,
        by_name: &std::collections::HashMap<&str, &'a FileDescriptorProto>,
        seen: &mut std::collections::HashSet<&'a str>,
        out: &mut Vec<&'a FileDescriptorProto>,
    ) {
        if !seen.insert(f.name()) {
            return;
        }
        for d in &f.dependency {
            if let Some(dep) = by_name.get(d.as_str()) {
                visit(dep, by_name, seen, out);
            }
        }
        out.push(f);
    }
    let mut seen = std::collections::HashSet::new();
    let mut ordered = Vec::new();
    for f in roots {
        visit(f, by_name, &mut seen, &mut ordered);
    }
    // `FileDescriptorSet.file` (field 1) records: the bytes as received where we have them.
    let mut out = Vec::new();
    for f in ordered {
        let owned;
        let bytes = match raw.get(f.name()) {
            Some(b) => *b,
            None => {
                owned = f.encode_to_vec();
                &owned
            }
        };
        out.push(0x0a);
        prost::encoding::encode_varint(bytes.len() as u64, &mut out);
        out.extend_from_slice(bytes);
    }
    out
}

/// `.pkg` for a file's package, empty without one.
fn package_prefix(file: &FileDescriptorProto) -> String {
    match file.package() {
        "" => String::new(),
        p => format!(".{p}"),
    }
}

/// A method's Rust name: snake_case, a keyword raw, and `_rpc` after a name tonic's generated
/// clients declare themselves (`connect`, `new`, `with_origin`...), which would clash.
fn method_name(proto: &str) -> String {
    const TONIC_CLIENT: &[&str] = &[
        "new",
        "connect",
        "with_origin",
        "with_interceptor",
        "send_compressed",
        "accept_compressed",
        "max_decoding_message_size",
        "max_encoding_message_size",
    ];
    let name = to_snake(proto);
    if TONIC_CLIENT.contains(&name.as_str()) {
        format!("{name}_rpc")
    } else {
        sanitize(&name)
    }
}

/// Tells each message that keeps extensions which of the generated files' extensions extend
/// it, wherever they are declared.
fn link_extensions(packages: &mut [Package]) {
    let mut by_extendee: std::collections::HashMap<String, Vec<ExtensionRef>> =
        std::collections::HashMap::new();
    for p in packages.iter() {
        for x in &p.extensions {
            by_extendee
                .entry(x.extendee.full_name.clone())
                .or_default()
                .push(ExtensionRef {
                    number: x.field.number,
                    full_name: x.full_name.clone(),
                    constant: TypeRef {
                        full_name: x.full_name.clone(),
                        package: p.name.clone(),
                        rust_path: x.rust_path.clone(),
                    },
                    field: x.field.clone(),
                });
        }
    }
    for m in packages.iter_mut().flat_map(|p| &mut p.messages) {
        if m.unknown_fields.is_none() || !m.extendable {
            continue;
        }
        if let Some(mut xs) = by_extendee.remove(&m.full_name) {
            xs.sort_by_key(|x| x.number);
            m.extensions = xs;
        }
    }
}

/// The features of a file's top-level elements: its edition's defaults and the file's own
/// `option features`.
pub(super) fn file_features(
    file: &FileDescriptorProto,
    options: &Options,
) -> Result<Features, Error> {
    let own = overrides(file.options.as_ref().and_then(|o| o.features.as_ref()));
    Ok(edition(file, options)?.defaults().with(&own))
}

/// The features an element's `option features` (or `[features.x = ..]`) sets.
pub(super) fn overrides(set: Option<&FeatureSet>) -> Overrides {
    use feature_set as fs;
    let Some(set) = set else {
        return Overrides::default();
    };
    Overrides {
        field_presence: match set.field_presence() {
            fs::FieldPresence::Explicit => Some(FieldPresence::Explicit),
            fs::FieldPresence::Implicit => Some(FieldPresence::Implicit),
            fs::FieldPresence::LegacyRequired => Some(FieldPresence::LegacyRequired),
            fs::FieldPresence::Unknown => None,
        },
        enum_type: match set.enum_type() {
            fs::EnumType::Open => Some(EnumType::Open),
            fs::EnumType::Closed => Some(EnumType::Closed),
            fs::EnumType::Unknown => None,
        },
        repeated_field_encoding: match set.repeated_field_encoding() {
            fs::RepeatedFieldEncoding::Packed => Some(RepeatedFieldEncoding::Packed),
            fs::RepeatedFieldEncoding::Expanded => Some(RepeatedFieldEncoding::Expanded),
            fs::RepeatedFieldEncoding::Unknown => None,
        },
        utf8_validation: match set.utf8_validation() {
            fs::Utf8Validation::Verify => Some(true),
            fs::Utf8Validation::None => Some(false),
            fs::Utf8Validation::Unknown => None,
        },
        message_encoding: match set.message_encoding() {
            fs::MessageEncoding::LengthPrefixed => Some(MessageEncoding::LengthPrefixed),
            fs::MessageEncoding::Delimited => Some(MessageEncoding::Delimited),
            fs::MessageEncoding::Unknown => None,
        },
    }
}

/// The rules a file is written in. `mode=prost` takes proto2 and proto3 only, as prost-build
/// 0.14 does (and the descriptor types it shares with us do not carry an edition's number).
fn edition(file: &FileDescriptorProto, options: &Options) -> Result<Edition, Error> {
    match (file.syntax(), options.mode) {
        ("" | "proto2", _) => Ok(Edition::Proto2),
        ("proto3", _) => Ok(Edition::Proto3),
        ("editions", Mode::Standalone) => match file.edition() {
            PbEdition::Edition2023 => Ok(Edition::Edition2023),
            PbEdition::Edition2024 => Ok(Edition::Edition2024),
            other => Err(Error::file(
                file.name(),
                format!(
                    "edition {} is not supported (supported: 2023, 2024)",
                    other.as_str_name()
                ),
            )),
        },
        (other, Mode::Standalone) => Err(Error::file(
            file.name(),
            format!("unknown syntax `{other}`"),
        )),
        (other, Mode::Prost) => Err(Error::file(
            file.name(),
            format!(
                "syntax `{other}` is not supported in mode=prost (prost-build 0.14 supports \
                 proto2 and proto3 only)"
            ),
        )),
    }
}

/// What a file's elements share.
struct FileCx<'a> {
    file: &'a str,
    index: &'a TypeIndex<'a>,
    options: &'a Options,
}

/// Where an element is declared: the full name and Rust module of its parent, and the features
/// it inherits.
struct Scope {
    prefix: String,
    modules: RustPath,
    features: Features,
}

impl FileCx<'_> {
    fn enumeration(&self, scope: &Scope, e: &EnumDescriptorProto) -> Enum {
        let type_name = to_upper_camel(e.name());
        let values = e
            .value
            .iter()
            .map(|v| EnumValue {
                name: v.name().to_string(),
                number: v.number(),
                variant: variant_name(&type_name, v.name()),
            })
            .collect();
        Enum {
            full_name: format!("{}.{}", scope.prefix, e.name())[1..].to_string(),
            rust_path: scope.modules.join(type_name),
            closed: self
                .index
                .enum_ref(&format!("{}.{}", scope.prefix, e.name()))
                .closed,
            values,
        }
    }

    /// Adds `m` and its nested messages and enums to `out` (map entries and extern types
    /// have no code of their own).
    fn message(&self, scope: &Scope, m: &DescriptorProto, out: &mut Package) -> Result<(), Error> {
        let fq = format!("{}.{}", scope.prefix, m.name());
        if m.options.as_ref().is_some_and(|o| o.map_entry()) || self.options.is_extern(&fq) {
            return Ok(());
        }
        let inner = Scope {
            prefix: fq.clone(),
            modules: scope.modules.join(to_snake(m.name())),
            features: scope.features.with(&overrides(
                m.options.as_ref().and_then(|o| o.features.as_ref()),
            )),
        };
        let mut oneofs = self.oneofs(&inner, m);
        let mut fields = Vec::new();
        for f in m.field.iter().filter(|f| f.extendee.is_none()) {
            let slot = f
                .oneof_index
                .map(|i| i as usize)
                .filter(|&i| oneofs.get(i).is_some_and(Option::is_some));
            let mut field = self.field(&inner, &fq, f, slot.is_some())?;
            // prost-build's `boxed` option, for singular message fields (prost boxes other
            // kinds too, which no generated code of ours handles).
            let boxable = field.value.message().is_some() && f.label() != PbLabel::Repeated;
            match slot.and_then(|i| oneofs[i].as_mut()) {
                Some(o) => {
                    let parent = format!("{fq}.{}", o.name);
                    field.boxed |= boxable && self.options.is_boxed(&parent, f.name());
                    o.fields.push(field)
                }
                None => {
                    field.boxed |= boxable && self.options.is_boxed(&fq, f.name());
                    fields.push(field)
                }
            }
        }
        let oneofs: Vec<Oneof> = oneofs.into_iter().flatten().collect();
        let unknown_fields = (self.options.mode == Mode::Standalone).then(|| {
            let taken = |name: &str| {
                fields.iter().any(|f| f.ident == name) || oneofs.iter().any(|o| o.ident == name)
            };
            RustIdent::new(if taken("unknown_fields") {
                "unknown_fields_"
            } else {
                "unknown_fields"
            })
        });
        out.messages.push(Message {
            full_name: fq[1..].to_string(),
            rust_path: scope.modules.join(to_upper_camel(m.name())),
            order: members(&fields, &oneofs),
            fields,
            oneofs,
            size_walk_is_cheap: !self.index.has_collections(&fq),
            unknown_fields,
            extendable: !m.extension_range.is_empty(),
            message_set: m
                .options
                .as_ref()
                .is_some_and(|o| o.message_set_wire_format()),
            extensions: Vec::new(),
            reserved_names: m.reserved_name.clone(),
        });
        for e in &m.enum_type {
            out.enums.push(self.enumeration(&inner, e));
        }
        for n in &m.nested_type {
            self.message(&inner, n, out)?;
        }
        for f in &m.extension {
            self.extension(&inner, f, out)?;
        }
        Ok(())
    }

    /// Adds the extension `f` declared in `scope` (generated only in `mode=standalone`, for
    /// messages that keep unknown fields).
    fn extension(
        &self,
        scope: &Scope,
        f: &FieldDescriptorProto,
        out: &mut Package,
    ) -> Result<(), Error> {
        if self.options.mode != Mode::Standalone {
            return Ok(());
        }
        let fq = format!("{}.{}", scope.prefix, f.name());
        let field = self.field(scope, &fq, f, false)?;
        out.extensions.push(Extension {
            full_name: fq[1..].to_string(),
            rust_path: scope.modules.join(f.name().to_shouty_snake_case()),
            extendee: self.index.message_ref(f.extendee()),
            field,
        });
        Ok(())
    }

    /// Service `svc`, the `index`th of `file`.
    fn service(
        &self,
        file: &FileDescriptorProto,
        index: usize,
        svc: &crate::descriptor::ServiceDescriptorProto,
    ) -> Result<Service, Error> {
        let views = crate::emit::is_selected(self.options, "views");
        for m in &svc.method {
            let fq = format!("{}.{}.{}", package_prefix(file), svc.name(), m.name());
            if self.options.is_server_view(&fq) && !(views && self.options.has_view(m.input_type()))
            {
                return Err(Error::element(
                    self.file,
                    &fq[1..],
                    format!(
                        "server_views: the request `{}` has no view (add it to `views`)",
                        m.input_type()
                    ),
                ));
            }
            for t in [m.input_type(), m.output_type()] {
                if !self.index.is_message(t) {
                    return Err(Error::element(
                        self.file,
                        &format!("{}.{}", svc.name(), m.name()),
                        format!("method refers to `{t}`: no message of the request"),
                    ));
                }
            }
        }
        let comments = |path: &[i32]| -> Vec<String> {
            file.source_code_info
                .as_ref()
                .and_then(|info| info.location.iter().find(|l| l.path == path))
                .and_then(|l| l.leading_comments.as_deref())
                .map(|c| c.trim_end().lines().map(String::from).collect())
                .unwrap_or_default()
        };
        let i = index as i32;
        Ok(Service {
            name: svc.name().to_string(),
            rust_name: to_upper_camel(svc.name()),
            comments: comments(&[6, i]),
            methods: svc
                .method
                .iter()
                .enumerate()
                .map(|(j, m)| Method {
                    name: m.name().to_string(),
                    rust_name: method_name(m.name()),
                    input: self.index.message_ref(m.input_type()),
                    output: self.index.message_ref(m.output_type()),
                    client_streaming: m.client_streaming(),
                    server_streaming: m.server_streaming(),
                    deprecated: m.options.as_ref().is_some_and(|o| o.deprecated()),
                    // `IdempotencyLevel::NoSideEffects`.
                    no_side_effects: m
                        .options
                        .as_ref()
                        .is_some_and(|o| o.idempotency_level == Some(1)),
                    comments: comments(&[6, i, 2, j as i32]),
                    server_view: self.options.is_server_view(&format!(
                        "{}.{}.{}",
                        package_prefix(file),
                        svc.name(),
                        m.name()
                    )),
                })
                .collect(),
        })
    }

    /// The oneofs of `m` by declaration index; `None` for the synthetic oneof of a proto3
    /// `optional` field.
    fn oneofs(&self, inner: &Scope, m: &DescriptorProto) -> Vec<Option<Oneof>> {
        // prost suffixes a oneof's enum with `OneOf` when a nested type has the same name.
        let nested_names: Vec<String> = m
            .nested_type
            .iter()
            .map(|n| n.name())
            .chain(m.enum_type.iter().map(|e| e.name()))
            .map(to_upper_camel)
            .collect();
        m.oneof_decl
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let synthetic = m
                    .field
                    .iter()
                    .filter(|f| f.oneof_index == Some(i as i32))
                    .all(|f| f.proto3_optional());
                if synthetic {
                    return None;
                }
                let mut type_name = to_upper_camel(o.name());
                if nested_names.contains(&type_name) {
                    type_name.push_str("OneOf");
                }
                Some(Oneof {
                    name: o.name().to_string(),
                    ident: RustIdent::new(to_snake(o.name())),
                    enum_path: inner.modules.join(type_name),
                    fields: Vec::new(),
                })
            })
            .collect()
    }

    fn field(
        &self,
        scope: &Scope,
        fq: &str,
        f: &FieldDescriptorProto,
        in_oneof: bool,
    ) -> Result<Field, Error> {
        let err = |what: String| Error::element(self.file, &fq[1..], what);
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
        // protoc's requests hold every type a field names (imports included), of the field's
        // kind; a map entry is named by the repeated field it was made for alone.
        let (is_message, is_enum) = (
            self.index.is_message(f.type_name()),
            self.index.is_enum(f.type_name()),
        );
        let problem = match f.r#type() {
            PbType::Enum if !is_enum => Some("no enum of the request"),
            PbType::Message | PbType::Group if !is_message => Some("no message of the request"),
            PbType::Message | PbType::Group
                if self.index.map_entry(f.type_name()).is_some()
                    && (f.label() != PbLabel::Repeated
                        || f.type_name().rsplit_once('.').map(|(parent, _)| parent)
                            != Some(fq)) =>
            {
                Some("a map entry, named by another field than the repeated one of its message")
            }
            _ => None,
        };
        if let Some(problem) = problem {
            return Err(err(format!(
                "field {} refers to `{}`: {problem}",
                f.name(),
                f.type_name()
            )));
        }
        let features = scope.features.with(&overrides(
            f.options.as_ref().and_then(|o| o.features.as_ref()),
        ));
        let value = self.value_type(f, &features);
        let recursive = value
            .message()
            .is_some_and(|_| self.index.reaches(f.type_name(), fq));
        let label = if in_oneof {
            Label::Optional
        } else if f.label() == PbLabel::Repeated {
            self.repeated_label(fq, f, &value, &features).map_err(err)?
        } else {
            match singular_label(f, &value, &features) {
                // Our own structs keep a required field's presence, as the spec does: unset,
                // it is not written, and a parse can tell it is missing.
                Label::Required if self.options.mode == Mode::Standalone => Label::Optional,
                label => label,
            }
        };
        let check_nested = self.options.mode == Mode::Standalone
            && value.message().is_some()
            && self.index.has_required(f.type_name());
        Ok(Field {
            name: f.name().to_string(),
            json_name: f.json_name.clone().unwrap_or_else(|| json_name(f.name())),
            number,
            ident: RustIdent::new(if in_oneof {
                to_upper_camel(f.name())
            } else {
                to_snake(f.name())
            }),
            // Boxing needs a cycle through singular fields: a subset of recursion, so the
            // second graph walk only runs for recursive fields.
            in_view: false,
            boxed: recursive
                && f.label() != PbLabel::Repeated
                // prost-build's graph has no group edges, which can leave a cycle through
                // nested groups unboxed (prost's structs then don't compile); our own structs
                // box along groups too.
                && self.index.reaches_singular(
                    f.type_name(),
                    fq,
                    self.options.mode == Mode::Standalone,
                ),
            recursive,
            value,
            label,
            bytes: self.bytes_repr(fq, f.name()),
            utf8_validation: f.r#type() == PbType::String
                && (features.utf8_validation || self.options.mode == Mode::Prost),
            default: self.default_value(f).map_err(err)?,
            zero_by_bits: self.options.mode == Mode::Standalone,
            required: self.options.mode == Mode::Standalone && super::index::is_required(f),
            check_nested,
            deprecated: f.options.as_ref().is_some_and(|o| o.deprecated()),
        })
    }

    /// A field's `[default = ..]`, or a `required` enum's first value.
    fn default_value(&self, f: &FieldDescriptorProto) -> Result<Option<DefaultValue>, String> {
        let bad = || {
            format!(
                "field {} has an invalid default `{}`",
                f.name(),
                f.default_value()
            )
        };
        let Some(text) = f.default_value.as_deref() else {
            if f.r#type() == PbType::Enum && f.label() == PbLabel::Required {
                let first = self.index.enum_ref(f.type_name()).default;
                return Ok((first != 0).then_some(DefaultValue::Int(first.into())));
            }
            return Ok(None);
        };
        Ok(Some(match f.r#type() {
            PbType::Double | PbType::Float => DefaultValue::Float(match text {
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                "nan" => f64::NAN,
                t => t.parse().map_err(|_| bad())?,
            }),
            PbType::Int32
            | PbType::Int64
            | PbType::Sint32
            | PbType::Sint64
            | PbType::Sfixed32
            | PbType::Sfixed64 => DefaultValue::Int(text.parse().map_err(|_| bad())?),
            PbType::Uint32 | PbType::Uint64 | PbType::Fixed32 | PbType::Fixed64 => {
                DefaultValue::Uint(text.parse().map_err(|_| bad())?)
            }
            PbType::Bool => DefaultValue::Bool(text == "true"),
            PbType::String => DefaultValue::String(text.to_string()),
            PbType::Bytes => DefaultValue::Bytes(unescape_bytes(text).ok_or_else(bad)?),
            PbType::Enum => DefaultValue::Int(
                self.index
                    .enum_value(f.type_name(), text)
                    .ok_or_else(bad)?
                    .into(),
            ),
            PbType::Message | PbType::Group => return Err(bad()),
        }))
    }

    fn value_type(&self, f: &FieldDescriptorProto, features: &Features) -> ValueType {
        match f.r#type() {
            PbType::Group => ValueType::Group(self.index.message_ref(f.type_name())),
            PbType::Message
                if features.message_encoding == MessageEncoding::Delimited
                    && self.index.map_entry(f.type_name()).is_none() =>
            {
                ValueType::Group(self.index.message_ref(f.type_name()))
            }
            PbType::Message => ValueType::Message(self.index.message_ref(f.type_name())),
            PbType::Enum => ValueType::Enum(self.index.enum_ref(f.type_name())),
            t => ValueType::Scalar(scalar(t)),
        }
    }

    fn repeated_label(
        &self,
        fq: &str,
        f: &FieldDescriptorProto,
        value: &ValueType,
        features: &Features,
    ) -> Result<Label, String> {
        if let (Some(entry), ValueType::Message(_)) = (self.index.map_entry(f.type_name()), value) {
            return Ok(Label::Map(Box::new(
                self.map_field(fq, f, entry, features)?,
            )));
        }
        let packed = value.scalar().is_some_and(Scalar::packable)
            && f.options
                .as_ref()
                .and_then(|o| o.packed)
                .unwrap_or(features.repeated_field_encoding == RepeatedFieldEncoding::Packed);
        Ok(Label::Repeated { packed })
    }

    fn map_field(
        &self,
        fq_message: &str,
        f: &FieldDescriptorProto,
        entry: &DescriptorProto,
        features: &Features,
    ) -> Result<MapField, String> {
        let key = entry.field.iter().find(|e| e.number() == 1);
        let value = entry.field.iter().find(|e| e.number() == 2);
        let (Some(key), Some(value)) = (key, value) else {
            return Err(format!("map entry of {} lacks key or value", f.name()));
        };
        let key = match key.r#type() {
            PbType::Message | PbType::Group | PbType::Enum => None,
            t => Some(scalar(t)).filter(|s| s.is_map_key()),
        }
        .ok_or_else(|| format!("map field {} has an invalid key type", f.name()))?;
        // A map's values are length-prefixed whatever the field's message encoding.
        let entry_features = Features {
            message_encoding: MessageEncoding::LengthPrefixed,
            ..*features
        };
        let value_type = self.value_type(value, &entry_features);
        Ok(MapField {
            key,
            default_value_encodes: self.options.mode == Mode::Prost
                && value_type.message().is_some()
                && self.index.declares_required(value.type_name()),
            value: value_type,
            // prost looks the value's bytes type up as `<message>.value`.
            value_bytes: self.bytes_repr(fq_message, "value"),
            btree: self.options.is_btree_map(fq_message, f.name()),
            full_entries: self.options.mode == Mode::Standalone,
            entry_presence: features.field_presence != FieldPresence::Implicit,
        })
    }

    fn bytes_repr(&self, fq_message: &str, field: &str) -> BytesRepr {
        if self.options.is_bytes(fq_message, field) {
            BytesRepr::Bytes
        } else {
            BytesRepr::Vec
        }
    }
}

/// The label of a singular field outside a oneof: its presence, resolved.
fn singular_label(f: &FieldDescriptorProto, value: &ValueType, features: &Features) -> Label {
    if f.label() == PbLabel::Required || features.field_presence == FieldPresence::LegacyRequired {
        Label::Required
    } else if value.scalar().is_none()
        || f.proto3_optional()
        || features.field_presence == FieldPresence::Explicit
    {
        Label::Optional
    } else {
        Label::Implicit
    }
}

/// Fields and oneofs ordered by (smallest) field number.
fn members(fields: &[Field], oneofs: &[Oneof]) -> Vec<Member> {
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
    members.into_iter().map(|(_, m)| m).collect()
}

/// The scalar of a non-message, non-enum type.
fn scalar(t: PbType) -> Scalar {
    match t {
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
        PbType::Enum | PbType::Message | PbType::Group => Scalar::Enum,
    }
}

/// The bytes of a `bytes` default, which descriptors hold C-escaped (`\\n`, `\\x41`, `\\101`).
fn unescape_bytes(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = *b.get(i + 1)?;
        i += 2;
        out.push(match c {
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'x' | b'X' => {
                let digits = b[i..]
                    .iter()
                    .take(2)
                    .take_while(|d| d.is_ascii_hexdigit())
                    .count();
                let v =
                    u8::from_str_radix(std::str::from_utf8(&b[i..i + digits]).ok()?, 16).ok()?;
                i += digits;
                v
            }
            b'0'..=b'7' => {
                let start = i - 1;
                let digits = 1 + b[i..]
                    .iter()
                    .take(2)
                    .take_while(|d| (b'0'..=b'7').contains(d))
                    .count();
                let v =
                    u16::from_str_radix(std::str::from_utf8(&b[start..start + digits]).ok()?, 8)
                        .ok()?;
                i = start + digits;
                u8::try_from(v).ok()?
            }
            other => other,
        });
    }
    Some(out)
}

/// protoc's default JSON name: underscores dropped, the letter after each one upper-cased.
pub(super) fn json_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// prost-build's rule: a value's name loses the enum's name as a prefix only when what follows
/// starts with an upper-case letter (`FooBar` in `Foo` becomes `Bar`; `Foobar` stays).
/// The Rust variant prost-build names the enum value `value` of the enum `type_name`.
pub(super) fn variant_name(type_name: &str, value: &str) -> String {
    sanitize(strip_enum_prefix(type_name, &to_upper_camel(value)))
}

pub(super) fn strip_enum_prefix<'a>(prefix: &str, name: &'a str) -> &'a str {
    match name.strip_prefix(prefix) {
        Some(rest) if rest.starts_with(|c: char| c.is_uppercase()) => rest,
        _ => name,
    }
}
