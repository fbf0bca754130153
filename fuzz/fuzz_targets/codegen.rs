//! The generator on structured, arbitrary requests: any names (valid identifiers or not), field
//! numbers, types, labels, references (resolved or dangling), oneofs, map entries, defaults,
//! syntaxes and editions, and options. It must answer with code or an error, never panic.
#![no_main]

use arbitrary::Arbitrary;
use vtproto_codegen::descriptor::{
    field_descriptor_proto::{Label, Type},
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FieldOptions, FileDescriptorProto, MessageOptions, OneofDescriptorProto,
};

#[derive(Arbitrary, Debug)]
struct Request {
    package: Name,
    syntax: u8,
    messages: Vec<Msg>,
    enums: Vec<Enum>,
    options: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
struct Name(String);

#[derive(Arbitrary, Debug)]
struct Msg {
    name: Name,
    fields: Vec<Field>,
    oneofs: u8,
    nested: Vec<Leaf>,
    map_entry: bool,
}

#[derive(Arbitrary, Debug)]
struct Leaf {
    name: Name,
    fields: Vec<Field>,
    map_entry: bool,
}

#[derive(Arbitrary, Debug)]
struct Field {
    name: Name,
    number: i32,
    kind: u8,
    label: u8,
    type_ref: u8,
    oneof: Option<u8>,
    packed: Option<bool>,
    default: Option<String>,
    proto3_optional: bool,
}

#[derive(Arbitrary, Debug)]
struct Enum {
    name: Name,
    values: Vec<(Name, i32)>,
}

const OPTIONS: &[&str] = &[
    "mode=standalone",
    "views=.",
    "bytes=.",
    "btree_map=.",
    "compile_well_known_types",
    "features=codec",
    "features=structs+codec+views",
    "extern_path=.x=::x",
    "include_file=mod.rs",
];

fn field(f: &Field, names: &[String]) -> FieldDescriptorProto {
    let kind = Type::try_from(i32::from(f.kind % 19)).unwrap_or(Type::Int32);
    let type_name = matches!(kind, Type::Message | Type::Group | Type::Enum).then(|| {
        if names.is_empty() || f.type_ref == 255 {
            ".nowhere.Missing".to_string()
        } else {
            names[f.type_ref as usize % names.len()].clone()
        }
    });
    FieldDescriptorProto {
        name: Some(f.name.0.clone()),
        number: Some(f.number),
        label: Some(match f.label % 3 {
            0 => Label::Optional,
            1 => Label::Required,
            _ => Label::Repeated,
        } as i32),
        r#type: Some(kind as i32),
        type_name,
        oneof_index: f.oneof.map(i32::from),
        default_value: f.default.clone(),
        proto3_optional: Some(f.proto3_optional),
        options: f.packed.map(|p| FieldOptions {
            packed: Some(p),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn message(name: &Name, fields: &[Field], oneofs: u8, map_entry: bool, names: &[String]) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.0.clone()),
        field: fields.iter().map(|f| field(f, names)).collect(),
        oneof_decl: (0..oneofs % 4)
            .map(|i| OneofDescriptorProto {
                name: Some(format!("o{i}")),
                ..Default::default()
            })
            .collect(),
        options: map_entry.then(|| MessageOptions {
            map_entry: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    }
}

libfuzzer_sys::fuzz_target!(|req: Request| {
    let package = req.package.0.clone();
    let prefix = if package.is_empty() { String::new() } else { format!(".{package}") };
    let mut names: Vec<String> = Vec::new();
    for m in &req.messages {
        let outer = format!("{prefix}.{}", m.name.0);
        names.extend(m.nested.iter().map(|n| format!("{outer}.{}", n.name.0)));
        names.push(outer);
    }
    names.extend(req.enums.iter().map(|e| format!("{prefix}.{}", e.name.0)));
    let file = FileDescriptorProto {
        name: Some("fuzz.proto".into()),
        package: Some(package),
        syntax: Some(match req.syntax % 4 {
            0 => "proto2",
            1 => "proto3",
            2 => "editions",
            _ => "nonsense",
        }
        .into()),
        edition: (req.syntax % 4 == 2).then_some(1000 + i32::from(req.syntax / 4 % 3)),
        message_type: req
            .messages
            .iter()
            .map(|m| {
                let mut d = message(&m.name, &m.fields, m.oneofs, m.map_entry, &names);
                d.nested_type = m
                    .nested
                    .iter()
                    .map(|n| message(&n.name, &n.fields, 0, n.map_entry, &names))
                    .collect();
                d
            })
            .collect(),
        enum_type: req
            .enums
            .iter()
            .map(|e| EnumDescriptorProto {
                name: Some(e.name.0.clone()),
                value: e
                    .values
                    .iter()
                    .map(|(n, v)| EnumValueDescriptorProto {
                        name: Some(n.0.clone()),
                        number: Some(*v),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let parameter: Vec<&str> = req
        .options
        .iter()
        .map(|i| OPTIONS[*i as usize % OPTIONS.len()])
        .collect();
    let Ok(options) = vtproto_codegen::Options::parse(&parameter.join(",")) else {
        return;
    };
    let _ = vtproto_codegen::generate(&[file], &["fuzz.proto".to_string()], &options);
});
