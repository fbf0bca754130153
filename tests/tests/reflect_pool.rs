//! `vtproto::reflect::DescriptorPool` against two other readers of the same descriptor sets
//! (the project's protos, editions, and the conformance, googleapis and OpenTelemetry protos
//! when installed): the generator's own descriptor types (names, numbers, JSON names, type
//! references, oneofs, map entries, extensions, services, enum values, options bytes) and the
//! generator's model, which resolves presence, packing, enum closedness, UTF-8 checks and
//! groups independently (and is itself checked by the conformance suite). Then the pool's
//! errors: missing imports, names defined twice, unresolved types, files added twice, bytes
//! that are no descriptor.

mod support;

use prost::Message as _;
use vtproto::reflect::{Cardinality, DescriptorErrorKind, DescriptorPool, Kind};
use vtproto_codegen::descriptor::field_descriptor_proto::{Label, Type};
use vtproto_codegen::descriptor::{DescriptorProto, FileDescriptorProto, FileDescriptorSet};
use vtproto_codegen::model;

fn sets() -> Vec<(&'static str, &'static [u8])> {
    #[allow(unused_mut)]
    let mut out = vec![
        ("own", vt_tests::OWN_DESCRIPTORS),
        ("editions", vt_tests::EDITIONS_DESCRIPTORS),
    ];
    #[cfg(vt_conformance)]
    out.push(("conformance", vt_tests::CONFORMANCE_DESCRIPTORS));
    #[cfg(vt_googleapis)]
    out.push(("googleapis", vt_tests::GOOGLEAPIS_DESCRIPTORS));
    #[cfg(vt_otel)]
    out.push(("otel", vt_tests::OTEL_DESCRIPTORS));
    out
}

/// A type name as descriptors write it, without its leading dot.
fn bare(name: &str) -> &str {
    name.strip_prefix('.').unwrap_or(name)
}

fn kind_name(kind: &Kind) -> Option<String> {
    match kind {
        Kind::Message(m) => Some(m.full_name().to_string()),
        Kind::Enum(e) => Some(e.full_name().to_string()),
        _ => None,
    }
}

fn check_message(pool: &DescriptorPool, scope: &str, m: &DescriptorProto) -> usize {
    let full = format!("{scope}.{}", m.name());
    let full = full.trim_start_matches('.');
    let ours = pool
        .get_message_by_name(full)
        .unwrap_or_else(|| panic!("{full} is missing"));
    assert_eq!(ours.name(), m.name());
    assert_eq!(ours.fields().len(), m.field.len(), "{full}: fields");
    assert_eq!(
        ours.is_map_entry(),
        m.options.as_ref().is_some_and(|o| o.map_entry()),
        "{full}: map entry"
    );
    for (f, theirs) in ours.fields().zip(&m.field) {
        let what = format!("{full}.{}", theirs.name());
        assert_eq!(f.name(), theirs.name(), "{what}");
        assert_eq!(f.full_name(), what);
        assert_eq!(f.number(), theirs.number() as u32, "{what}");
        assert_eq!(
            f.json_name(),
            theirs.json_name(),
            "{what}: protoc's json_name"
        );
        assert_eq!(f.containing_message(), ours, "{what}");
        assert_eq!(
            f.cardinality() == Cardinality::Repeated,
            theirs.label() == Label::Repeated,
            "{what}"
        );
        match theirs.r#type() {
            Type::Message | Type::Group | Type::Enum => assert_eq!(
                kind_name(&f.kind()).as_deref(),
                Some(bare(theirs.type_name())),
                "{what}: type"
            ),
            _ => assert!(kind_name(&f.kind()).is_none(), "{what}: a scalar"),
        }
        assert_eq!(
            f.containing_oneof().map(|o| o.name().to_string()),
            theirs
                .oneof_index
                .map(|i| m.oneof_decl[i as usize].name().to_string()),
            "{what}: oneof"
        );
        assert_eq!(f.default_value_text(), theirs.default_value.as_deref());
        // The options bytes read as the descriptor's own options.
        let options = (!f.options().is_empty())
            .then(|| vtproto_codegen::descriptor::FieldOptions::decode(f.options()).unwrap());
        assert_eq!(
            options,
            theirs.options.as_deref().cloned(),
            "{what}: options"
        );
    }
    let oneofs: Vec<&str> = m.oneof_decl.iter().map(|o| o.name()).collect();
    let ours_oneofs: Vec<String> = ours.oneofs().map(|o| o.name().to_string()).collect();
    assert_eq!(ours_oneofs, oneofs, "{full}: oneofs");
    for x in &m.extension {
        let name = format!("{full}.{}", x.name());
        let ext = pool
            .get_extension_by_name(&name)
            .expect("a scoped extension");
        assert_eq!(ext.extension_scope(), Some(ours.clone()));
        assert_eq!(ext.containing_message().full_name(), bare(x.extendee()));
    }
    assert_eq!(ours.child_enums().len(), m.enum_type.len());
    1 + m
        .nested_type
        .iter()
        .map(|n| check_message(pool, full, n))
        .sum::<usize>()
}

fn check_file(pool: &DescriptorPool, f: &FileDescriptorProto) -> usize {
    let file = pool.get_file_by_name(f.name()).expect("the file");
    assert_eq!(file.package_name(), f.package());
    let deps: Vec<String> = file.dependencies().map(|d| d.name().to_string()).collect();
    assert_eq!(deps, f.dependency);
    assert_eq!(file.messages().len(), f.message_type.len());
    for e in &f.enum_type {
        let full = format!("{}.{}", f.package(), e.name());
        let ours = pool.get_enum_by_name(full.trim_start_matches('.')).unwrap();
        let values: Vec<(String, i32)> = ours
            .values()
            .map(|v| (v.name().to_string(), v.number()))
            .collect();
        let theirs: Vec<(String, i32)> = e
            .value
            .iter()
            .map(|v| (v.name().to_string(), v.number()))
            .collect();
        assert_eq!(values, theirs, "{full}");
        assert_eq!(ours.default_value().number(), e.value[0].number());
    }
    for x in &f.extension {
        let full = format!("{}.{}", f.package(), x.name());
        let ours = pool
            .get_extension_by_name(full.trim_start_matches('.'))
            .unwrap();
        assert!(ours.is_extension() && ours.extension_scope().is_none());
        assert_eq!(ours.containing_message().full_name(), bare(x.extendee()));
        assert!(ours.containing_message().extensions().any(|e| e == ours));
    }
    for s in &f.service {
        let full = format!("{}.{}", f.package(), s.name());
        let ours = pool
            .get_service_by_name(full.trim_start_matches('.'))
            .unwrap();
        let methods: Vec<(String, String, String, bool, bool)> = ours
            .methods()
            .map(|m| {
                (
                    m.name().to_string(),
                    m.input().full_name().to_string(),
                    m.output().full_name().to_string(),
                    m.is_client_streaming(),
                    m.is_server_streaming(),
                )
            })
            .collect();
        let theirs: Vec<(String, String, String, bool, bool)> = s
            .method
            .iter()
            .map(|m| {
                (
                    m.name().to_string(),
                    bare(m.input_type()).to_string(),
                    bare(m.output_type()).to_string(),
                    m.client_streaming(),
                    m.server_streaming(),
                )
            })
            .collect();
        assert_eq!(methods, theirs, "{full}");
    }
    f.message_type
        .iter()
        .map(|m| check_message(pool, f.package(), m))
        .sum()
}

/// Presence, packing, closedness, UTF-8 and groups as the generator's model resolves them.
fn check_against_model(pool: &DescriptorPool, fds: &FileDescriptorSet) -> usize {
    let options = vtproto_codegen::Options::parse("mode=standalone").unwrap();
    let names: Vec<String> = fds.file.iter().map(|f| f.name().to_string()).collect();
    let packages = model::build(&fds.file, &names, &options).unwrap();
    let mut checked = 0;
    for p in &packages {
        for m in &p.messages {
            let ours = pool.get_message_by_name(&m.full_name).unwrap();
            for (oneof, f) in m.all_fields() {
                let d = ours.get_field(f.number).unwrap();
                let what = format!("{}.{}", m.full_name, f.name);
                assert_eq!(d.json_name(), f.json_name, "{what}");
                let (presence, cardinality) = match &f.label {
                    model::Label::Implicit => (false, Cardinality::Optional),
                    model::Label::Optional => (true, Cardinality::Optional),
                    model::Label::Required => (true, Cardinality::Required),
                    model::Label::Repeated { packed } => {
                        assert_eq!(d.is_packed(), *packed, "{what}: packed");
                        assert!(d.is_list(), "{what}");
                        (false, Cardinality::Repeated)
                    }
                    model::Label::Map(_) => {
                        assert!(d.is_map(), "{what}");
                        (false, Cardinality::Repeated)
                    }
                };
                assert_eq!(
                    d.has_presence(),
                    presence || oneof.is_some(),
                    "{what}: presence"
                );
                // mode=standalone gives a required field presence, and says so apart.
                let cardinality = if f.required {
                    Cardinality::Required
                } else {
                    cardinality
                };
                assert_eq!(d.cardinality(), cardinality, "{what}: cardinality");
                assert_eq!(
                    d.is_group(),
                    matches!(f.value, model::ValueType::Group(_)),
                    "{what}: group"
                );
                if let model::ValueType::Enum(e) = &f.value {
                    let Kind::Enum(ours) = d.kind() else {
                        panic!("{what}: an enum")
                    };
                    assert_eq!(ours.is_closed(), e.closed, "{what}: closed");
                }
                if matches!(f.value, model::ValueType::Scalar(model::Scalar::String)) {
                    assert_eq!(d.validates_utf8(), f.utf8_validation, "{what}: UTF-8");
                }
                checked += 1;
            }
        }
    }
    checked
}

#[test]
fn pools_agree_with_the_descriptors_and_the_model() {
    for (name, bytes) in sets() {
        let pool = DescriptorPool::decode(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let fds = FileDescriptorSet::decode(bytes).unwrap();
        assert_eq!(pool.files().len(), fds.file.len());
        let messages: usize = fds.file.iter().map(|f| check_file(&pool, f)).sum();
        assert_eq!(pool.all_messages().len(), messages, "{name}: message count");
        let fields = check_against_model(&pool, &fds);
        assert!(fields > 10, "{name}: {fields} fields");
        // The set comes back as it was given.
        assert_eq!(
            DescriptorPool::decode(&pool.encode_file_descriptor_set())
                .unwrap()
                .files()
                .len(),
            fds.file.len()
        );
        eprintln!("{name}: {messages} messages, {fields} fields agree");
    }
}

/// Encodes a set of files.
fn set(files: &[FileDescriptorProto]) -> Vec<u8> {
    FileDescriptorSet {
        file: files.to_vec(),
    }
    .encode_to_vec()
}

fn file(
    name: &str,
    package: &str,
    deps: &[&str],
    messages: Vec<DescriptorProto>,
) -> FileDescriptorProto {
    FileDescriptorProto {
        name: Some(name.into()),
        package: Some(package.into()),
        dependency: deps.iter().map(|d| d.to_string()).collect(),
        message_type: messages,
        syntax: Some("proto3".into()),
        ..Default::default()
    }
}

fn message(name: &str, fields: &[(&str, i32, Type, &str)]) -> DescriptorProto {
    use vtproto_codegen::descriptor::FieldDescriptorProto;
    DescriptorProto {
        name: Some(name.into()),
        field: fields
            .iter()
            .map(|&(n, number, t, type_name)| FieldDescriptorProto {
                name: Some(n.into()),
                number: Some(number),
                label: Some(Label::Optional as i32),
                r#type: Some(t as i32),
                type_name: (!type_name.is_empty()).then(|| type_name.into()),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn errors_name_what_is_wrong_and_leave_the_pool_as_it_was() {
    let a = file(
        "a.proto",
        "p",
        &[],
        vec![message("A", &[("x", 1, Type::Int32, "")])],
    );
    // Relative type names resolve from the field's scope outward.
    let b = file(
        "b.proto",
        "p.q",
        &["a.proto"],
        vec![message("B", &[("a", 1, Type::Message, "A")])],
    );
    let mut pool = DescriptorPool::new();
    // Out of order in one set: b waits for a.
    pool.add_file_descriptor_set(&set(&[b.clone(), a.clone()]))
        .unwrap();
    let field = pool
        .get_message_by_name("p.q.B")
        .unwrap()
        .get_field(1)
        .unwrap();
    assert_eq!(kind_name(&field.kind()).as_deref(), Some("p.A"));
    // The same bytes again: nothing to do.
    pool.add_file_descriptor_set(&set(std::slice::from_ref(&a)))
        .unwrap();
    assert_eq!(pool.files().len(), 2);

    let kind = |pool: &mut DescriptorPool, files: &[FileDescriptorProto]| {
        let before = pool.files().len();
        let e = pool.add_file_descriptor_set(&set(files)).unwrap_err();
        assert_eq!(pool.files().len(), before, "left as it was");
        assert!(!e.to_string().is_empty());
        e.kind().clone()
    };
    let mut other_a = a.clone();
    other_a.message_type.push(message("More", &[]));
    assert!(matches!(
        kind(&mut pool, &[other_a]),
        DescriptorErrorKind::DuplicateFile { name } if name == "a.proto"
    ));
    let c = file("c.proto", "p", &["nowhere.proto"], vec![]);
    assert!(matches!(
        kind(&mut pool, &[c]),
        DescriptorErrorKind::MissingDependency { dependency, .. } if dependency == "nowhere.proto"
    ));
    let twice = file("d.proto", "p", &[], vec![message("A", &[])]);
    assert!(matches!(
        kind(&mut pool, &[twice]),
        DescriptorErrorKind::DuplicateName { name, .. } if name == "p.A"
    ));
    let dangling = file(
        "e.proto",
        "p",
        &[],
        vec![message("E", &[("m", 1, Type::Message, ".p.Nope")])],
    );
    assert!(matches!(
        kind(&mut pool, &[dangling]),
        DescriptorErrorKind::UnresolvedType { type_name, found_other_kind: false, .. } if type_name == ".p.Nope"
    ));
    let wrong = file(
        "f.proto",
        "p",
        &[],
        vec![message("F", &[("m", 1, Type::Enum, ".p.A")])],
    );
    assert!(matches!(
        kind(&mut pool, &[wrong]),
        DescriptorErrorKind::UnresolvedType {
            found_other_kind: true,
            ..
        }
    ));
    let numbers = file(
        "g.proto",
        "p",
        &[],
        vec![message(
            "G",
            &[("a", 1, Type::Int32, ""), ("b", 1, Type::Int32, "")],
        )],
    );
    assert!(matches!(
        kind(&mut pool, &[numbers]),
        DescriptorErrorKind::DuplicateNumber { number: 1, .. }
    ));
    // A map whose key is a double: protoc refuses it, and so does the pool.
    let mut entry = message(
        "BadEntry",
        &[("key", 1, Type::Double, ""), ("value", 2, Type::Int32, "")],
    );
    entry.options = Some(Box::new(vtproto_codegen::descriptor::MessageOptions {
        map_entry: Some(true),
        ..Default::default()
    }));
    let mut with_map = message("WithMap", &[]);
    with_map.nested_type.push(entry);
    let bad_map = file("m.proto", "p", &[], vec![with_map]);
    assert!(matches!(
        kind(&mut pool, &[bad_map]),
        DescriptorErrorKind::Invalid { name, .. } if name == "p.WithMap.BadEntry.key"
    ));
    // A file that is no descriptor, and one cut short.
    let bytes = set(&[file("h.proto", "p", &[], vec![message("H", &[])])]);
    for bad in [&[0x0a, 0x03, 0xff][..], &bytes[..bytes.len() - 2]] {
        let e = pool.add_file_descriptor_set(bad).unwrap_err();
        assert!(matches!(e.kind(), DescriptorErrorKind::Decode(_)), "{e}");
    }
    assert_eq!(pool.files().len(), 2);
}

/// Nested far deeper than any schema: a typed error, not a stack overflow.
#[test]
fn deeply_nested_descriptors_are_refused() {
    let mut m = message("M", &[]);
    for _ in 0..300 {
        let mut outer = message("M", &[]);
        outer.nested_type.push(m);
        m = outer;
    }
    let bytes = set(&[file("deep.proto", "p", &[], vec![m])]);
    let e = DescriptorPool::decode(&bytes).unwrap_err();
    assert!(matches!(e.kind(), DescriptorErrorKind::Decode(_)), "{e}");
}

/// Corrupted descriptor sets (bytes flipped, cut, spliced): an error or a pool, never a panic;
/// and what a pool accepts, its descriptors answer for.
#[test]
fn corrupted_descriptor_sets_never_panic() {
    let mut rng = support::Rng::new(0x5e7);
    let mut accepted = 0;
    for (_, bytes) in sets() {
        for _ in 0..300 {
            let bad = support::mutate(bytes, &mut rng);
            if let Ok(pool) = DescriptorPool::decode(&bad) {
                accepted += 1;
                for m in pool.all_messages() {
                    for f in m.fields() {
                        let _ = (f.kind(), f.is_packed(), f.has_presence(), f.is_group());
                        let _ = (f.containing_message(), f.containing_oneof(), f.json_name());
                    }
                }
                for s in pool.services() {
                    for m in s.methods() {
                        let _ = (m.input(), m.output(), m.idempotency_level());
                    }
                }
                for e in pool.all_enums() {
                    let _ = (e.default_value(), e.is_closed());
                }
            }
        }
    }
    eprintln!("{accepted} corrupted sets still made a pool");
}
