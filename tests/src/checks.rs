//! The properties the fuzz targets (`fuzz/`) check, shared with the stable replay of their
//! corpora (`tests/tests/fuzz_corpus.rs`). Each check panics when a property fails.
//!
//! For one input and one message type, against prost on prost's structs and between our
//! decoders: prost and our impls accept and reject alike and agree on the value; an accepted
//! value re-encodes in exactly `size()` bytes to an encoding that decodes back to it; the view
//! and `decode_into` agree with the owned decode, also into a value that held another input
//! first (the input, thinned copies of it and its halves, every pair); our own structs
//! (`mode=standalone`) accept what prost's accept (and declared fields with another wire type,
//! which the spec keeps as unknown), keep what they read, and round-trip too.

use arbitrary::Arbitrary;

pub use crate::properties::check;
use vtproto::DecodeLimits;

/// The memory budget the fuzz property decodes under (beyond the input's size).
pub const FUZZ_BUDGET: usize = 4096;
/// What a decode may hold beyond four times its budget: its frames and error, a
/// `DynamicMessage`'s descriptors (as `tests/tests/amplification.rs` allows).
pub const PEAK_SLACK: usize = 64 * 1024;

/// The memory budget's property: decoding an input of `len` bytes through `decode` under a
/// budget of [`FUZZ_BUDGET`] holds at most `4 × (len + FUZZ_BUDGET) + PEAK_SLACK` bytes at its
/// peak (a `Vec` holds up to twice what was charged for it while it grows, and its old buffer
/// while it moves). Measured by `alloc_stats`, so only where it is the global allocator (the
/// fuzz targets and `tests/tests/fuzz_corpus.rs`); elsewhere it holds trivially.
pub fn held_to_budget<T>(path: &str, len: usize, decode: impl FnOnce(&DecodeLimits) -> T) {
    let limits = DecodeLimits {
        memory_budget: FUZZ_BUDGET,
        ..DecodeLimits::default()
    };
    let (out, stats) = alloc_stats::measure(|| decode(&limits));
    drop(out);
    let bound = 4 * (len + FUZZ_BUDGET) + PEAK_SLACK;
    assert!(
        stats.peak <= bound,
        "{path}: {} bytes held decoding {len} bytes under a budget of {FUZZ_BUDGET}",
        stats.peak
    );
}

/// [`check`], and the memory budget's property on each of our binary decoders of `S` and
/// `P`: owned, `decode_into`, view, `DynamicMessage` (when `desc` names its type).
fn both<P, PV, S, SV>(data: &[u8])
where
    P: prost::Message + vtproto::Message + PartialEq + std::fmt::Debug + Default,
    PV: vtproto::ViewFamily,
    for<'a> PV::View<'a>: vtproto::MessageView<'a, Owned = P>,
    S: vtproto::Message + PartialEq + std::fmt::Debug,
    SV: vtproto::ViewFamily,
    for<'a> SV::View<'a>: vtproto::MessageView<'a, Owned = S>,
{
    check::<P, PV, S, SV>(data);
    // Under Miri the property measures nothing (no counting allocator) and its descriptor
    // pool alone takes minutes.
    if cfg!(miri) {
        return;
    }
    let desc = own_pool().get_message_by_name(<S as vtproto::Message>::NAME);
    binary_held_to_budget::<P, S, SV>(data, desc.as_ref());
}

/// The memory budget's property on our binary decoders of `S` and `P`, and on a
/// `DynamicMessage` of `desc`.
pub fn binary_held_to_budget<P, S, SV>(
    data: &[u8],
    desc: Option<&vtproto::reflect::MessageDescriptor>,
) where
    P: vtproto::Message,
    S: vtproto::Message,
    SV: vtproto::ViewFamily,
    for<'a> SV::View<'a>: vtproto::MessageView<'a, Owned = S>,
{
    use vtproto::MessageView;
    let n = data.len();
    held_to_budget("mode=prost", n, |l| P::decode_with_limits(data, l));
    held_to_budget("owned", n, |l| S::decode_with_limits(data, l));
    held_to_budget("decode_into", n, |l| {
        let mut m = S::default();
        m.decode_into_with_limits(data, l).map(|()| m)
    });
    held_to_budget("view", n, |l| {
        <SV::View<'_> as MessageView<'_>>::decode_view_with_limits(data, l).map(drop)
    });
    if let Some(desc) = desc {
        held_to_budget("DynamicMessage", n, |l| {
            let mut m = vtproto::reflect::DynamicMessage::new(desc.clone());
            m.merge(&mut vtproto::Reader::new(data).with_limits(l))
                .map(|()| m)
        });
    }
}
use vtproto_codegen::descriptor::{
    field_descriptor_proto::{Label, Type},
    DescriptorProto, EnumDescriptorProto, EnumValueDescriptorProto, FieldDescriptorProto,
    FieldOptions, FileDescriptorProto, MessageOptions, OneofDescriptorProto,
};

/// The conformance suite's TestAllTypes messages, proto3 and proto2: the first byte picks one.
#[cfg(vt_conformance)]
pub fn conformance(data: &[u8]) {
    use crate::conformance::protobuf_test_messages as p;
    use crate::conformance_standalone::protobuf_test_messages as s;
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        both::<
            p::proto3::TestAllTypesProto3,
            p::proto3::TestAllTypesProto3ViewFamily,
            s::proto3::TestAllTypesProto3,
            s::proto3::TestAllTypesProto3ViewFamily,
        >(rest);
    } else {
        both::<
            p::proto2::TestAllTypesProto2,
            p::proto2::TestAllTypesProto2ViewFamily,
            s::proto2::TestAllTypesProto2,
            s::proto2::TestAllTypesProto2ViewFamily,
        >(rest);
    }
}

/// The conformance suite's TestAllTypes messages (the first byte picks one, as in
/// [`conformance`]) read by a `DynamicMessage` built from their descriptors alone: see
/// [`check_dynamic`].
#[cfg(vt_conformance)]
pub fn dynamic(data: &[u8]) {
    use crate::conformance_standalone::protobuf_test_messages as s;
    use std::sync::OnceLock;
    use vtproto::reflect::DescriptorPool;
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    let pool = POOL.get_or_init(|| DescriptorPool::decode(crate::CONFORMANCE_DESCRIPTORS).unwrap());
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        let desc = pool
            .get_message_by_name("protobuf_test_messages.proto3.TestAllTypesProto3")
            .unwrap();
        check_dynamic::<s::proto3::TestAllTypesProto3>(&desc, rest);
        dynamic_held_to_budget(&desc, rest);
    } else {
        let desc = pool
            .get_message_by_name("protobuf_test_messages.proto2.TestAllTypesProto2")
            .unwrap();
        check_dynamic::<s::proto2::TestAllTypesProto2>(&desc, rest);
        dynamic_held_to_budget(&desc, rest);
    }
}

pub use crate::properties::check_dynamic;

/// The memory budget's property on a `DynamicMessage` of `desc` reading `data`.
pub fn dynamic_held_to_budget(desc: &vtproto::reflect::MessageDescriptor, data: &[u8]) {
    held_to_budget("DynamicMessage", data.len(), |l| {
        let mut m = vtproto::reflect::DynamicMessage::new(desc.clone());
        m.merge(&mut vtproto::Reader::new(data).with_limits(l))
            .map(|()| m)
    });
}

/// `DynamicMessage` read `input` as the generated code did: the same value (compared as the
/// deterministic encoding) or an error of the same kind.
fn reads_alike<M: vtproto::Message, E: std::fmt::Debug, K: PartialEq + std::fmt::Debug>(
    input: &str,
    dynamic: &Result<vtproto::reflect::DynamicMessage, E>,
    generated: &Result<M, E>,
    kind: impl Fn(&E) -> &K,
) {
    match (dynamic, generated) {
        (Ok(d), Ok(g)) => assert!(
            d.encode_to_vec() == g.encode_deterministic_to_vec(),
            "DynamicMessage reads another {} from {input}",
            M::NAME
        ),
        (Err(d), Err(g)) => assert_eq!(kind(d), kind(g), "{input}"),
        (d, g) => panic!(
            "{}: DynamicMessage {:?}, generated code {:?} on {input}",
            M::NAME,
            d.as_ref().err(),
            g.as_ref().err()
        ),
    }
}

/// The project's descriptors, decoded once.
fn own_pool() -> &'static vtproto::reflect::DescriptorPool {
    static POOL: std::sync::OnceLock<vtproto::reflect::DescriptorPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| vtproto::reflect::DescriptorPool::decode(crate::OWN_DESCRIPTORS).unwrap())
}

/// The descriptor of one of the project's message types, from a pool built once.
fn own_type(name: &str) -> vtproto::reflect::MessageDescriptor {
    own_pool()
        .get_message_by_name(name)
        .unwrap_or_else(|| panic!("{name} is not in the project's descriptors"))
}

/// ProtoJSON input for the project's workload and test messages (`mode=standalone`, the first
/// byte picks one; the rest is the JSON text, not necessarily UTF-8): reading never panics;
/// what reads writes again (every value read from JSON has a JSON form) and reads back to
/// the same value, and its binary encoding decodes to it too.
pub fn json(data: &[u8]) {
    use crate::own_standalone::vt as s;
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 7 {
        0 => json_one::<s::candidates::CandidatesResponse>(rest),
        1 => json_one::<s::event::EventBatch>(rest),
        2 => json_one::<s::deep::Node>(rest),
        3 => json_one::<s::test::proto3::Maps>(rest),
        4 => json_one::<s::test::proto3::WellKnown>(rest),
        5 => json_one::<s::test::proto2::Groups>(rest),
        _ => json_one::<s::test::proto3::Oneofs>(rest),
    }
}

fn json_one<M>(text: &[u8])
where
    M: vtproto::Message + vtproto::json::JsonMessage + PartialEq + std::fmt::Debug,
    M: for<'de> vtproto::json::serde_impls::serde::Deserialize<'de>,
{
    use vtproto::json;
    // The serde impls (`features=..+json+serde`) on the same input: no panic, and a value they
    // read has a JSON form. (Their agreement with the direct path is checked on whole texts by
    // tests/tests/json_oracle.rs: serde hands a number with a fraction or an exponent over as a
    // double, so past 2^53 an integer field may read another value than the direct path's.)
    if let Ok(v) = serde_json::from_slice::<M>(text) {
        json::to_string(&v).expect("a value serde read from JSON has a JSON form");
    }
    let options = json::DecodeOptions {
        limits: vtproto::DecodeLimits {
            recursion_limit: 32,
            ..Default::default()
        },
        ..json::DecodeOptions::default()
    };
    let read = json::from_slice_with::<M>(text, &options);
    held_to_budget("ProtoJSON", text.len(), |l| {
        let options = json::DecodeOptions {
            limits: *l,
            ..options
        };
        json::from_slice_with::<M>(text, &options)
    });
    if let Ok(text) = std::str::from_utf8(text) {
        // The descriptor first: the pool is decoded once, on first use, outside the measure.
        let desc = own_type(M::NAME);
        held_to_budget("DynamicMessage, JSON", text.len(), |l| {
            let options = json::DecodeOptions {
                limits: *l,
                ..options
            };
            vtproto::reflect::DynamicMessage::from_json_with(desc.clone(), text, &options)
        });
    }
    // DynamicMessage, from the descriptors alone, reads the same input as the generated code
    // does: the same value, or the same error.
    if let Ok(text) = std::str::from_utf8(text) {
        let dynamic =
            vtproto::reflect::DynamicMessage::from_json_with(own_type(M::NAME), text, &options);
        reads_alike(text, &dynamic, &read, json::JsonError::kind);
    }
    let Ok(value) = read else {
        return;
    };
    let written = json::to_string(&value).expect("a value read from JSON has a JSON form");
    let again: M = json::from_str_with(&written, &options)
        .unwrap_or_else(|e| panic!("our JSON does not read back ({e}): {written}"));
    assert!(
        crate::properties::same(&again, &value),
        "JSON round trip: {written}"
    );
    let bytes = value.encode_to_vec();
    let decoded = M::decode(&bytes).ok();
    assert!(
        decoded.is_some_and(|d| crate::properties::same(&d, &value)),
        "the binary round trip of a value read from JSON differs"
    );
}

/// Text-format input for the same messages as [`json`] (the first byte picks one; the rest is
/// the text, not necessarily UTF-8): reading never panics; what reads writes again, on one
/// line and pretty, and reads back to the same value, and its binary encoding decodes to it.
pub fn text(data: &[u8]) {
    use crate::own_standalone::vt as s;
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 7 {
        0 => text_one::<s::candidates::CandidatesResponse>(rest),
        1 => text_one::<s::event::EventBatch>(rest),
        2 => text_one::<s::deep::Node>(rest),
        3 => text_one::<s::test::proto3::Maps>(rest),
        4 => text_one::<s::test::proto3::WellKnown>(rest),
        5 => text_one::<s::test::proto2::Groups>(rest),
        _ => text_one::<s::test::proto3::Oneofs>(rest),
    }
}

fn text_one<M>(input: &[u8])
where
    M: vtproto::Message + vtproto::text::TextMessage + PartialEq + std::fmt::Debug,
{
    use vtproto::text;
    let options = text::DecodeOptions {
        limits: vtproto::DecodeLimits {
            recursion_limit: 32,
            ..Default::default()
        },
        ..text::DecodeOptions::default()
    };
    let Ok(input) = std::str::from_utf8(input) else {
        assert!(text::from_slice::<M>(input).is_err());
        return;
    };
    let read = text::from_str_with::<M>(input, &options);
    held_to_budget("text format", input.len(), |l| {
        let options = text::DecodeOptions {
            limits: *l,
            ..options
        };
        text::from_str_with::<M>(input, &options)
    });
    let desc = own_type(M::NAME);
    held_to_budget("DynamicMessage, text", input.len(), |l| {
        let options = text::DecodeOptions {
            limits: *l,
            ..options
        };
        vtproto::reflect::DynamicMessage::from_text_with(desc.clone(), input, &options)
    });
    // DynamicMessage, from the descriptors alone, reads the same input as the generated code
    // does: the same value, or the same error.
    let dynamic =
        vtproto::reflect::DynamicMessage::from_text_with(own_type(M::NAME), input, &options);
    reads_alike(input, &dynamic, &read, text::TextError::kind);
    let Ok(value) = read else {
        return;
    };
    for written in [text::to_string(&value), text::to_string_pretty(&value)] {
        let written = written.expect("a value read from text has a text form");
        let again: M = text::from_str_with(&written, &options)
            .unwrap_or_else(|e| panic!("our text does not read back ({e}): {written}"));
        assert!(
            crate::properties::same(&again, &value),
            "text round trip: {written}"
        );
    }
    let bytes = value.encode_to_vec();
    let decoded = M::decode(&bytes).ok();
    assert!(
        decoded.is_some_and(|d| crate::properties::same(&d, &value)),
        "the binary round trip of a value read from text differs"
    );
}

/// The project's workload and test messages: the first byte picks one (`% 6`; from 250 up,
/// maps of empty values, which were added later: the corpus's choices stay as they were).
pub fn workloads(data: &[u8]) {
    use crate::own::vt as p;
    use crate::own_standalone::vt as s;
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which >= 250 {
        return both::<
            p::test::proto3::EmptyValues,
            p::test::proto3::EmptyValuesViewFamily,
            s::test::proto3::EmptyValues,
            s::test::proto3::EmptyValuesViewFamily,
        >(rest);
    }
    match which % 6 {
        0 => both::<
            p::candidates::CandidatesResponse,
            p::candidates::CandidatesResponseViewFamily,
            s::candidates::CandidatesResponse,
            s::candidates::CandidatesResponseViewFamily,
        >(rest),
        1 => both::<
            p::event::EventBatch,
            p::event::EventBatchViewFamily,
            s::event::EventBatch,
            s::event::EventBatchViewFamily,
        >(rest),
        2 => {
            both::<p::deep::Node, p::deep::NodeViewFamily, s::deep::Node, s::deep::NodeViewFamily>(
                rest,
            )
        }
        3 => both::<
            p::test::proto3::Maps,
            p::test::proto3::MapsViewFamily,
            s::test::proto3::Maps,
            s::test::proto3::MapsViewFamily,
        >(rest),
        4 => both::<
            p::test::proto2::Groups,
            p::test::proto2::GroupsViewFamily,
            s::test::proto2::Groups,
            s::test::proto2::GroupsViewFamily,
        >(rest),
        _ => both::<
            p::test::proto3::Repeateds,
            p::test::proto3::RepeatedsViewFamily,
            s::test::proto3::Repeateds,
            s::test::proto3::RepeatedsViewFamily,
        >(rest),
    }
}

/// An arbitrary generator request (see `codegen`).
#[derive(Arbitrary, Debug)]
pub struct Request {
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
        options: f.packed.map(|p| {
            Box::new(FieldOptions {
                packed: Some(p),
                ..Default::default()
            })
        }),
        ..Default::default()
    }
}

fn message(
    name: &Name,
    fields: &[Field],
    oneofs: u8,
    map_entry: bool,
    names: &[String],
) -> DescriptorProto {
    DescriptorProto {
        name: Some(name.0.clone()),
        field: fields.iter().map(|f| field(f, names)).collect(),
        oneof_decl: (0..oneofs % 4)
            .map(|i| OneofDescriptorProto {
                name: Some(format!("o{i}")),
                ..Default::default()
            })
            .collect(),
        options: map_entry.then(|| {
            Box::new(MessageOptions {
                map_entry: Some(true),
                ..Default::default()
            })
        }),
        ..Default::default()
    }
}

/// The generator on a structured, arbitrary request: any names (valid identifiers or not),
/// field numbers, types, labels, references (resolved or dangling), oneofs, map entries,
/// defaults, syntaxes and editions, and options. It must answer with code or an error, never
/// panic. `data` is read with `arbitrary` as the fuzz target reads it.
pub fn codegen(data: &[u8]) {
    let Some((file, parameter)) = request(data) else {
        return;
    };
    let Ok(options) = vtproto_codegen::Options::parse(&parameter.join(",")) else {
        return;
    };
    let _ = vtproto_codegen::generate(&[file], &["fuzz.proto".to_string()], &options);
}

/// What the generator makes of the request in `data` in `mode=standalone` with the features
/// that compile on their own (`structs+codec`, views where the request asks for them): `None`
/// where it refuses the request (bad names, dangling
/// references...). Code it writes must compile (`tests/tests/codegen_compiles.rs`).
pub fn codegen_standalone(data: &[u8]) -> Option<Vec<vtproto_codegen::GeneratedFile>> {
    let (file, parameter) = request(data)?;
    let mut options = vec![
        "mode=standalone",
        "features=structs+codec",
        "include_file=mod.rs",
    ];
    options.extend(
        parameter
            .iter()
            .filter(|p| p.starts_with("views=") || p.starts_with("compile_well")),
    );
    let options = vtproto_codegen::Options::parse(&options.join(",")).ok()?;
    vtproto_codegen::generate(&[file], &["fuzz.proto".to_string()], &options).ok()
}

/// The request an input describes, and its plugin options.
fn request(data: &[u8]) -> Option<(FileDescriptorProto, Vec<&'static str>)> {
    let Ok(req) = Request::arbitrary(&mut arbitrary::Unstructured::new(data)) else {
        return None;
    };
    let package = req.package.0.clone();
    let prefix = if package.is_empty() {
        String::new()
    } else {
        format!(".{package}")
    };
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
        syntax: Some(
            match req.syntax % 4 {
                0 => "proto2",
                1 => "proto3",
                2 => "editions",
                _ => "nonsense",
            }
            .into(),
        ),
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
    Some((file, parameter))
}

/// The inputs of a packed corpus file (`fuzz/corpus/<target>.corpus`: each input a
/// little-endian `u32` length, then its bytes); none when the file is missing.
pub fn unpack_corpus(path: &std::path::Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap_or_default();
    let mut rest = &bytes[..];
    let mut out = Vec::new();
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let len = (u32::from_le_bytes(*len) as usize).min(tail.len());
        out.push(tail[..len].to_vec());
        rest = &tail[len..];
    }
    out
}
