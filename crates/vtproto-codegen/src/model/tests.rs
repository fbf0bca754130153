//! The model's answers on descriptors written by hand: presence, packing, map shapes,
//! recursion, names and type references.

use crate::descriptor::field_descriptor_proto::{Label as L, Type as T};
use crate::descriptor::{
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FieldOptions, FileDescriptorProto, MessageOptions, OneofDescriptorProto,
};

use super::*;
use crate::{Error, Options};

fn field(name: &str, number: i32, ty: T, label: L) -> FieldDescriptorProto {
    FieldDescriptorProto {
        name: Some(name.into()),
        number: Some(number),
        r#type: Some(ty as i32),
        label: Some(label as i32),
        ..Default::default()
    }
}

fn typed(name: &str, number: i32, ty: T, label: L, type_name: &str) -> FieldDescriptorProto {
    FieldDescriptorProto {
        type_name: Some(type_name.into()),
        ..field(name, number, ty, label)
    }
}

fn message(name: &str, field: Vec<FieldDescriptorProto>) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.into()),
        field,
        ..Default::default()
    }
}

fn enumeration(name: &str, values: &[(&str, i32)]) -> EnumDescriptorProto {
    EnumDescriptorProto {
        name: Some(name.into()),
        value: values
            .iter()
            .map(|(n, v)| EnumValueDescriptorProto {
                name: Some(n.to_string()),
                number: Some(*v),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn file(
    name: &str,
    package: &str,
    syntax: &str,
    messages: Vec<DescriptorProto>,
) -> FileDescriptorProto {
    FileDescriptorProto {
        name: Some(name.into()),
        package: Some(package.into()),
        syntax: Some(syntax.into()),
        message_type: messages,
        ..Default::default()
    }
}

fn build_one(f: FileDescriptorProto, options: &Options) -> Result<Vec<Package>, Error> {
    let name = f.name().to_string();
    build(&[f], &[name], options)
}

fn model(f: FileDescriptorProto) -> Package {
    build_one(f, &Options::default()).unwrap().remove(0)
}

fn find<'a>(p: &'a Package, message: &str) -> &'a Message {
    p.messages
        .iter()
        .find(|m| m.full_name == message)
        .unwrap_or_else(|| panic!("no message {message}"))
}

fn field_of<'a>(m: &'a Message, name: &str) -> &'a Field {
    m.all_fields()
        .map(|(_, f)| f)
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no field {name}"))
}

#[test]
fn presence_per_syntax() {
    let mut opt = field("opt", 3, T::Int32, L::Optional);
    opt.proto3_optional = Some(true);
    opt.oneof_index = Some(0);
    let mut m3 = message(
        "M",
        vec![
            field("plain", 1, T::Int32, L::Optional),
            typed("child", 2, T::Message, L::Optional, ".p.M"),
            opt,
        ],
    );
    m3.oneof_decl.push(OneofDescriptorProto {
        name: Some("_opt".into()),
        ..Default::default()
    });
    let p3 = model(file("a.proto", "p", "proto3", vec![m3]));
    let m = find(&p3, "p.M");
    assert_eq!(field_of(m, "plain").label, Label::Implicit);
    assert_eq!(field_of(m, "child").label, Label::Optional);
    assert_eq!(field_of(m, "opt").label, Label::Optional);
    assert!(
        m.oneofs.is_empty(),
        "a proto3 optional's oneof is synthetic"
    );

    let m2 = message(
        "M",
        vec![
            field("plain", 1, T::Int32, L::Optional),
            field("needed", 2, T::String, L::Required),
        ],
    );
    let p2 = model(file("b.proto", "p", "proto2", vec![m2]));
    let m = find(&p2, "p.M");
    assert_eq!(field_of(m, "plain").label, Label::Optional);
    assert_eq!(field_of(m, "needed").label, Label::Required);
}

#[test]
fn packing_per_syntax_and_option() {
    let unpacked = FieldDescriptorProto {
        options: Some(Box::new(FieldOptions {
            packed: Some(false),
            ..Default::default()
        })),
        ..field("unpacked", 2, T::Sint64, L::Repeated)
    };
    let packed = FieldDescriptorProto {
        options: Some(Box::new(FieldOptions {
            packed: Some(true),
            ..Default::default()
        })),
        ..field("packed", 2, T::Fixed32, L::Repeated)
    };
    let fields = |extra: FieldDescriptorProto| {
        vec![
            field("ints", 1, T::Int32, L::Repeated),
            extra,
            field("strings", 3, T::String, L::Repeated),
        ]
    };
    let p3 = model(file(
        "a.proto",
        "p",
        "proto3",
        vec![message("M", fields(unpacked))],
    ));
    let m = find(&p3, "p.M");
    assert_eq!(field_of(m, "ints").label, Label::Repeated { packed: true });
    assert_eq!(
        field_of(m, "unpacked").label,
        Label::Repeated { packed: false }
    );
    assert_eq!(
        field_of(m, "strings").label,
        Label::Repeated { packed: false }
    );

    let p2 = model(file(
        "b.proto",
        "p",
        "proto2",
        vec![message("M", fields(packed))],
    ));
    let m = find(&p2, "p.M");
    assert_eq!(field_of(m, "ints").label, Label::Repeated { packed: false });
    assert_eq!(
        field_of(m, "packed").label,
        Label::Repeated { packed: true }
    );
}

fn map_message(key: T, value: FieldDescriptorProto) -> DescriptorProto {
    let mut entry = message("AttrsEntry", vec![field("key", 1, key, L::Optional), value]);
    entry.options = Some(Box::new(MessageOptions {
        map_entry: Some(true),
        ..Default::default()
    }));
    let mut m = message(
        "M",
        vec![typed(
            "attrs",
            1,
            T::Message,
            L::Repeated,
            ".p.M.AttrsEntry",
        )],
    );
    m.nested_type.push(entry);
    m
}

#[test]
fn map_shapes() {
    let value = typed("value", 2, T::Enum, L::Optional, ".p.Color");
    let mut f = file(
        "a.proto",
        "p",
        "proto3",
        vec![map_message(T::String, value)],
    );
    f.enum_type
        .push(enumeration("Color", &[("COLOR_RED", 3), ("COLOR_BLUE", 0)]));
    let options = Options::parse("btree_map=.p.M.attrs").unwrap();
    let p = build_one(f, &options).unwrap().remove(0);
    assert_eq!(p.messages.len(), 1, "map entries have no code of their own");
    let Label::Map(map) = &field_of(find(&p, "p.M"), "attrs").label else {
        panic!("not a map");
    };
    assert_eq!(map.key, Scalar::String);
    assert!(map.btree);
    let ValueType::Enum(e) = &map.value else {
        panic!("not an enum value");
    };
    assert_eq!(e.default, 3, "an enum's default is its first value");
    assert_eq!(e.ty.full_name, "p.Color");
    assert!(!e.closed, "proto3 enums are open");

    let bad = file(
        "bad.proto",
        "p",
        "proto3",
        vec![map_message(
            T::Double,
            field("value", 2, T::Int32, L::Optional),
        )],
    );
    let err = build_one(bad, &Options::default()).unwrap_err();
    assert_eq!(
        err,
        Error::Proto {
            file: "bad.proto".into(),
            element: Some("p.M".into()),
            reason: "map field attrs has an invalid key type".into()
        }
    );
}

#[test]
fn recursion_through_any_message_field() {
    let node = message(
        "Node",
        vec![
            typed("child", 1, T::Message, L::Optional, ".p.Node"),
            typed("leaf", 2, T::Message, L::Optional, ".p.Leaf"),
        ],
    );
    let tree = message(
        "Tree",
        vec![typed("nodes", 1, T::Message, L::Repeated, ".p.Forest")],
    );
    let forest = message(
        "Forest",
        vec![typed("trees", 1, T::Message, L::Repeated, ".p.Tree")],
    );
    let leaf = message("Leaf", vec![field("v", 1, T::Int32, L::Optional)]);
    let p = model(file(
        "a.proto",
        "p",
        "proto3",
        vec![node, tree, forest, leaf],
    ));
    let node = find(&p, "p.Node");
    assert!(field_of(node, "child").recursive);
    assert!(field_of(node, "child").boxed);
    assert!(!field_of(node, "leaf").recursive);
    assert!(!field_of(node, "leaf").boxed);
    let nodes = field_of(find(&p, "p.Tree"), "nodes");
    assert!(nodes.recursive, "a cycle through repeated fields");
    assert!(!nodes.boxed, "prost boxes only along singular fields");
    assert!(node.size_walk_is_cheap, "no collection at any depth");
    assert!(
        !find(&p, "p.Tree").size_walk_is_cheap,
        "a repeated field at any depth"
    );
    assert!(find(&p, "p.Leaf").size_walk_is_cheap);
}

#[test]
fn names_as_prost_writes_them() {
    let mut outer = message(
        "Outer",
        vec![
            field("type", 1, T::String, L::Optional),
            FieldDescriptorProto {
                json_name: Some("customJson".into()),
                ..field("renamed_field", 2, T::Int32, L::Optional)
            },
            FieldDescriptorProto {
                oneof_index: Some(0),
                ..typed("inner", 3, T::Message, L::Optional, ".my.type.Outer.Inner")
            },
            field("snake_case_name", 4, T::Int32, L::Optional),
        ],
    );
    outer.oneof_decl.push(OneofDescriptorProto {
        name: Some("inner".into()),
        ..Default::default()
    });
    outer.nested_type.push(message("Inner", vec![]));
    outer
        .enum_type
        .push(enumeration("Kind", &[("KIND_A", 0), ("Kindly", 1)]));
    let p = model(file("a.proto", "my.type", "proto3", vec![outer]));
    assert_eq!(p.module.to_string(), "my::r#type");
    let m = find(&p, "my.type.Outer");
    assert_eq!(m.rust_path.to_string(), "Outer");
    assert_eq!(
        find(&p, "my.type.Outer.Inner").rust_path.to_string(),
        "outer::Inner"
    );
    assert_eq!(field_of(m, "type").ident.to_string(), "r#type");
    assert_eq!(field_of(m, "renamed_field").json_name, "customJson");
    assert_eq!(field_of(m, "snake_case_name").json_name, "snakeCaseName");
    let o = &m.oneofs[0];
    assert_eq!(
        o.enum_path.to_string(),
        "outer::InnerOneOf",
        "clashes with a nested type"
    );
    let inner = &o.fields[0];
    assert_eq!(inner.ident.to_string(), "Inner");
    assert_eq!(
        inner.value.message().unwrap().rust_path.to_string(),
        "outer::Inner"
    );
    let kind = &p.enums[0];
    assert_eq!(kind.full_name, "my.type.Outer.Kind");
    assert_eq!(kind.rust_path.to_string(), "outer::Kind");
    let variants: Vec<&str> = kind.values.iter().map(|v| v.variant.as_str()).collect();
    assert_eq!(
        variants,
        ["A", "Kindly"],
        "a prefix is stripped only before an upper-case letter"
    );
}

#[test]
fn types_of_other_packages_and_closed_enums() {
    let mut dep = file(
        "dep.proto",
        "other.pkg",
        "proto2",
        vec![message("Thing", vec![])],
    );
    dep.enum_type.push(enumeration("Mode", &[("ON", 1)]));
    let user = file(
        "user.proto",
        "p",
        "proto2",
        vec![message(
            "M",
            vec![
                typed("thing", 1, T::Message, L::Optional, ".other.pkg.Thing"),
                typed("mode", 2, T::Enum, L::Optional, ".other.pkg.Mode"),
                typed("group", 3, T::Group, L::Optional, ".other.pkg.Thing"),
            ],
        )],
    );
    let packages = build(&[dep, user], &["user.proto".into()], &Options::default()).unwrap();
    assert_eq!(packages.len(), 1, "only files to generate");
    let m = find(&packages[0], "p.M");
    let thing = field_of(m, "thing").value.message().unwrap();
    assert_eq!(thing.package, "other.pkg");
    assert_eq!(thing.rust_path.segments, ["Thing"]);
    let ValueType::Enum(mode) = &field_of(m, "mode").value else {
        panic!("not an enum");
    };
    assert!(mode.closed, "proto2 enums are closed");
    assert_eq!(mode.default, 1);
    assert!(matches!(field_of(m, "group").value, ValueType::Group(_)));
    assert!(field_of(m, "group").value.scalar().is_none());
}

#[test]
fn editions_files_are_refused_in_prost_mode() {
    let err = build_one(
        file("ed.proto", "p", "editions", vec![]),
        &Options::default(),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("ed.proto: "), "{msg}");
    assert!(msg.contains("not supported in mode=prost"), "{msg}");
}

#[test]
fn prost_mode_checks_every_string() {
    let m = message(
        "M",
        vec![
            field("s", 1, T::String, L::Optional),
            field("b", 2, T::Bytes, L::Optional),
        ],
    );
    let p = model(file("a.proto", "p", "proto2", vec![m]));
    let m = find(&p, "p.M");
    assert!(
        field_of(m, "s").utf8_validation,
        "prost checks proto2 strings too"
    );
    assert!(!field_of(m, "b").utf8_validation);
}

#[test]
fn invalid_field_numbers_name_the_message() {
    let m = message("M", vec![field("zero", 0, T::Int32, L::Optional)]);
    let err = build_one(file("a.proto", "p", "proto3", vec![m]), &Options::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a.proto: p.M: field zero has invalid number 0"
    );
}

#[test]
fn proto2_defaults() {
    let with = |name: &str, n: i32, ty: T, label: L, default: &str| FieldDescriptorProto {
        default_value: Some(default.into()),
        ..field(name, n, ty, label)
    };
    let m = message(
        "M",
        vec![
            with("d", 1, T::Double, L::Optional, "-inf"),
            with("i", 2, T::Sint64, L::Optional, "-42"),
            with("u", 3, T::Fixed32, L::Optional, "7"),
            with("b", 4, T::Bool, L::Optional, "true"),
            with("s", 5, T::String, L::Optional, "hi"),
            with("y", 6, T::Bytes, L::Optional, "a\\001\\x7f\\n"),
            FieldDescriptorProto {
                default_value: Some("ON".into()),
                ..typed("e", 7, T::Enum, L::Optional, ".p.Mode")
            },
            typed("r", 8, T::Enum, L::Required, ".p.Mode"),
            field("none", 9, T::Int32, L::Optional),
        ],
    );
    let mut f = file("a.proto", "p", "proto2", vec![m]);
    f.enum_type
        .push(enumeration("Mode", &[("OFF", 3), ("ON", 5)]));
    let p = model(f);
    let m = find(&p, "p.M");
    let d = |name: &str| field_of(m, name).default.clone();
    assert_eq!(d("d"), Some(DefaultValue::Float(f64::NEG_INFINITY)));
    assert_eq!(d("i"), Some(DefaultValue::Int(-42)));
    assert_eq!(d("u"), Some(DefaultValue::Uint(7)));
    assert_eq!(d("b"), Some(DefaultValue::Bool(true)));
    assert_eq!(d("s"), Some(DefaultValue::String("hi".into())));
    assert_eq!(
        d("y"),
        Some(DefaultValue::Bytes(vec![b'a', 1, 0x7f, b'\n']))
    );
    assert_eq!(d("e"), Some(DefaultValue::Int(5)));
    assert_eq!(
        d("r"),
        Some(DefaultValue::Int(3)),
        "a required enum starts at its first value"
    );
    assert_eq!(d("none"), None);
}
