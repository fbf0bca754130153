//! `vtproto::reflect::DynamicMessage` against the generated `mode=standalone` structs of the
//! same types, for every message type of the project's protos, the editions protos and the
//! conformance protos (when installed): on random valid inputs, the edge messages (empty, every
//! field at zero, required fields only) and corrupted inputs, a dynamic message built from the
//! descriptor set alone accepts and refuses what the generated code does, and writes the same
//! bytes as its deterministic encoding (unknown fields, extensions, closed enums, groups,
//! MessageSets, packed and expanded lists, maps in key order); what it writes reads back to
//! the same bytes.

mod support;

use proptest::prelude::*;
use support::{mutate, Rng, Schema};
use vtproto::reflect::{DescriptorPool, DynamicMessage};
use vtproto::Message;

type Check = fn(&DescriptorPool, &Schema, &str, u64);

fn check<S: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage>(
    pool: &DescriptorPool,
    schema: &Schema,
    name: &str,
    seed: u64,
) {
    let desc = pool
        .get_message_by_name(name)
        .unwrap_or_else(|| panic!("{name} is not in the pool"));
    let mut rng = Rng::new(seed);
    let valid = schema.random_message(name, &mut rng);
    let mut inputs = schema.edge_messages(name);
    inputs.push(valid.clone());
    for _ in 0..4 {
        inputs.push(mutate(&valid, &mut rng));
    }
    for data in &inputs {
        vt_tests::checks::check_dynamic::<S>(&desc, data);
    }
}

macro_rules! pairs {
    ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
        pub fn all() -> Vec<(&'static str, super::Check)> {
            vec![$(($name, super::check::<Standalone::$($seg)::+> as super::Check)),*]
        }
    };
}

macro_rules! suite {
    ($module:ident, $standalone:path, $descriptors:path, $registry:literal) => {
        #[allow(non_snake_case, unused_imports)]
        mod $module {
            use $standalone as Standalone;
            include!(concat!(env!("OUT_DIR"), $registry));
            pub fn pool() -> vtproto::reflect::DescriptorPool {
                vtproto::reflect::DescriptorPool::decode($descriptors).unwrap()
            }
            pub fn schema() -> super::Schema {
                super::Schema::new($descriptors)
            }
        }
    };
}

suite!(
    own,
    vt_tests::own_standalone,
    vt_tests::OWN_DESCRIPTORS,
    "/own-standalone/_registry.rs"
);
suite!(
    editions,
    vt_tests::editions,
    vt_tests::EDITIONS_DESCRIPTORS,
    "/editions-standalone/_registry.rs"
);
#[cfg(vt_conformance)]
suite!(
    conformance,
    vt_tests::conformance_standalone,
    vt_tests::CONFORMANCE_DESCRIPTORS,
    "/conformance-standalone/_registry.rs"
);

fn run(pool: &DescriptorPool, schema: &Schema, types: &[(&'static str, Check)], seed: u64) {
    for (name, check) in types {
        check(pool, schema, name, seed);
    }
}

macro_rules! dynamic {
    ($test:ident, $module:ident $(, $cfg:meta)?) => {
        $(#[cfg($cfg)])?
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(100))]

            #[test]
            fn $test(seed in any::<u64>()) {
                thread_local!(static S: (DescriptorPool, Schema, Vec<(&'static str, Check)>) =
                    ($module::pool(), $module::schema(), $module::all()));
                S.with(|(pool, schema, types)| run(pool, schema, types, seed));
            }
        }
    };
}

dynamic!(own_protos_read_and_write_as_generated_code, own);
dynamic!(editions_protos_read_and_write_as_generated_code, editions);
dynamic!(
    conformance_protos_read_and_write_as_generated_code,
    conformance,
    vt_conformance
);

#[test]
fn fields_are_set_read_and_cleared_by_descriptor() {
    use vtproto::reflect::Value;
    let pool = own::pool();
    let desc = pool.get_message_by_name("vt.test.proto3.Oneofs").unwrap();
    let mut m = DynamicMessage::new(desc.clone());
    let members: Vec<_> = desc.oneofs().next().unwrap().fields().collect();
    let (a, b) = (&members[0], &members[1]);
    m.set_field(a, Value::default_for(a));
    assert!(m.has_field(a));
    m.set_field(b, Value::default_for(b));
    assert!(
        m.has_field(b) && !m.has_field(a),
        "one member of a oneof at a time"
    );
    m.clear_field(b);
    assert!(!m.has_field(b));
    assert_eq!(m.fields().count(), 0);
    assert_eq!(m.encode_to_vec(), Vec::<u8>::new());
}

/// Declared defaults (`[default = ..]`) read as the generated accessors give them, for every
/// scalar kind (bytes C-escaped, floats in exponent form), in a proto2 message and in its
/// editions twin.
#[cfg(vt_conformance)]
#[test]
fn declared_defaults_read_as_generated_accessors() {
    use vt_tests::conformance_standalone::protobuf_test_messages::proto2::TestAllTypesProto2;
    use vtproto::reflect::Value;
    let pool = conformance::pool();
    let g = TestAllTypesProto2::default();
    let expected = [
        ("default_int32", Value::I32(g.default_int32())),
        ("default_int64", Value::I64(g.default_int64())),
        ("default_uint32", Value::U32(g.default_uint32())),
        ("default_uint64", Value::U64(g.default_uint64())),
        ("default_sint32", Value::I32(g.default_sint32())),
        ("default_sint64", Value::I64(g.default_sint64())),
        ("default_fixed32", Value::U32(g.default_fixed32())),
        ("default_fixed64", Value::U64(g.default_fixed64())),
        ("default_sfixed32", Value::I32(g.default_sfixed32())),
        ("default_sfixed64", Value::I64(g.default_sfixed64())),
        ("default_float", Value::F32(g.default_float())),
        ("default_double", Value::F64(g.default_double())),
        ("default_bool", Value::Bool(g.default_bool())),
        ("default_string", Value::String(g.default_string().into())),
        ("default_bytes", Value::Bytes(g.default_bytes().to_vec())),
    ];
    let name = "protobuf_test_messages.proto2.TestAllTypesProto2";
    let m = DynamicMessage::new(pool.get_message_by_name(name).unwrap());
    for (field, value) in &expected {
        assert_eq!(
            m.get_field_by_name(field).as_ref(),
            Some(value),
            "{name}.{field}"
        );
    }
}

/// Declared defaults with escapes, an enum's by name, and a closed enum's first value where
/// none is declared.
#[test]
fn declared_defaults_with_escapes_and_enums() {
    use vt_tests::own_standalone::vt::test::proto2::Defaults;
    use vtproto::reflect::Value;
    let g = Defaults::default();
    let m = DynamicMessage::new(
        own::pool()
            .get_message_by_name("vt.test.proto2.Defaults")
            .unwrap(),
    );
    let get = |name: &str| m.get_field_by_name(name).unwrap();
    assert_eq!(get("d_string"), Value::String(g.d_string().into()));
    assert_eq!(get("d_bytes"), Value::Bytes(g.d_bytes().to_vec()));
    assert_eq!(get("d_double"), Value::F64(g.d_double()));
    assert_eq!(get("d_float"), Value::F32(g.d_float()));
    assert_eq!(get("d_level"), Value::EnumNumber(g.d_level() as i32));
    assert_eq!(
        get("no_default_level"),
        Value::EnumNumber(g.no_default_level() as i32)
    );
    assert_eq!(get("d_sint64"), Value::I64(g.d_sint64()));
}

/// An extension message that comes twice, with another extension between, is merged where it
/// first came: extensions are written in the order they first came, as generated code does.
#[test]
fn an_extension_merged_twice_keeps_its_place() {
    use vt_tests::own_standalone::vt::test::proto2::Extendable;
    // ext_message (102) { d_int32: 1 }, ext_int32 (100): 7, ext_message { d_bool: false }.
    let input = [
        0xb2, 0x06, 0x02, 0x28, 0x01, 0xa0, 0x06, 0x07, 0xb2, 0x06, 0x02, 0x40, 0x00,
    ];
    let pool = own::pool();
    let desc = pool
        .get_message_by_name("vt.test.proto2.Extendable")
        .unwrap();
    vt_tests::checks::check_dynamic::<Extendable>(&desc, &input);
    let written = DynamicMessage::decode(desc, &input)
        .unwrap()
        .encode_to_vec();
    assert_eq!(
        written[..2],
        [0xb2, 0x06],
        "the message first, where it first came"
    );
}

#[test]
fn json_and_text_with_well_known_types_and_any() {
    use vtproto::reflect::Value;
    let pool = own::pool();
    let desc = pool
        .get_message_by_name("vt.test.proto3.WellKnown")
        .unwrap();
    let json = r#"{"ts":"1972-01-01T10:00:20.021Z","dur":"-1.5s","wInt64":"-7","wString":"x",
        "st":{"a":[1,"b",null,{"c":true}]},"val":null,"mask":"fooBar,baz",
        "any":{"@type":"type.googleapis.com/vt.test.proto3.Tree","value":3,"left":{"value":1}},
        "mValue":{"k":{"n":2.5}},"owEmpty":{}}"#;
    let m = DynamicMessage::from_json(desc.clone(), json).unwrap();
    // The generated code reads the same JSON to the same bytes.
    let mut registry = vtproto::TypeRegistry::new();
    vt_tests::own_standalone::vt::test::proto3::register_json_types(&mut registry);
    let options = vtproto::json::DecodeOptions {
        registry: Some(&registry),
        ..Default::default()
    };
    let generated: vt_tests::own_standalone::vt::test::proto3::WellKnown =
        vtproto::json::from_str_with(json, &options).unwrap();
    assert_eq!(m.encode_to_vec(), generated.encode_deterministic_to_vec());
    // `null` for a Value is its null_value, not "unset".
    let val = desc.get_field_by_name("val").unwrap();
    assert!(m.has_field(&val));
    // It writes what it read, and the text format expands the Any from the pool.
    let again = DynamicMessage::from_json(desc.clone(), &m.to_json().unwrap()).unwrap();
    assert_eq!(again, m);
    let text = m.to_text().unwrap();
    assert!(
        text.contains(
            "any { [type.googleapis.com/vt.test.proto3.Tree] { left { value: 1 } value: 3 } }"
        ),
        "{text}"
    );
    assert_eq!(DynamicMessage::from_text(desc.clone(), &text).unwrap(), m);

    // Any: unpacked from the pool, and packed back to the same bytes.
    let any_field = desc.get_field_by_name("any").unwrap();
    let Value::Message(any) = m.get_field(&any_field) else {
        panic!("any is a message")
    };
    let tree = any.unpack_any().unwrap().unwrap();
    assert_eq!(tree.descriptor().full_name(), "vt.test.proto3.Tree");
    assert_eq!(tree.get_field_by_name("value"), Some(Value::I32(3)));
    assert_eq!(
        tree.pack_any().unwrap().encode_to_vec(),
        any.encode_to_vec()
    );
    assert!(tree.unpack_any().is_none(), "a Tree is no Any");

    // Errors name the field and the position, as the generated code's do.
    let bad = r#"{"ts":"yesterday"}"#;
    let e = DynamicMessage::from_json(desc.clone(), bad).unwrap_err();
    let g = vtproto::json::from_str::<vt_tests::own_standalone::vt::test::proto3::WellKnown>(bad)
        .unwrap_err();
    assert_eq!(e.field(), Some("vt.test.proto3.WellKnown.ts"));
    assert_eq!(e, g);
    let e = DynamicMessage::from_json(desc.clone(), r#"{"nope":1}"#).unwrap_err();
    assert!(matches!(
        e.kind(),
        vtproto::json::JsonErrorKind::UnknownField { .. }
    ));
    let e = DynamicMessage::from_text(desc, "ts { seconds: 1 } ts { }").unwrap_err();
    assert_eq!(*e.kind(), vtproto::text::TextErrorKind::DuplicateField);
}

#[test]
fn decode_checks_required_fields_as_generated_code_does() {
    use vt_tests::own_standalone::vt::test::proto2::Required;
    let pool = own::pool();
    let desc = pool.get_message_by_name("vt.test.proto2.Required").unwrap();
    // Nothing set: the same error, naming the same message and field.
    let ours = DynamicMessage::decode(desc.clone(), &[]).unwrap_err();
    let theirs = Required::decode(&[]).unwrap_err();
    assert_eq!(ours.kind(), theirs.kind());
    // `merge` alone does not check; what it reads then lacks the field.
    let mut m = DynamicMessage::new(desc.clone());
    m.merge(&mut vtproto::Reader::new(&[])).unwrap();
    assert!(m.check_initialized().is_err());
    // Every required field set: accepted by both.
    let full = Required {
        r_int32: Some(0),
        r_string: Some(String::new()),
        r_level: Some(1),
        r_bytes: Some(Vec::new()),
        r_double: Some(1.5),
        r_nested: Some(Default::default()),
        ..Default::default()
    }
    .encode_to_vec();
    assert!(Required::decode(&full).is_ok());
    assert!(DynamicMessage::decode(desc, &full).is_ok());
}

/// A MessageSet item whose message comes before two type ids goes with the first (here
/// undeclared), as C++ pairs them: the item is kept whole, and neither the generated code nor
/// `DynamicMessage` shows the extension the second type id names (the generated code's
/// extension accessors once took an item's last type id and last message).
#[cfg(vt_conformance)]
#[test]
fn a_message_set_item_pairs_its_message_with_the_first_type_id_after_it() {
    use vt_tests::conformance_standalone::protobuf_test_messages::proto2::test_all_types_proto2::MessageSetCorrect;
    // Item { message = 3 (9 bytes); a fixed64 field 12; type_id = 2147483647;
    // type_id = 123456789 (extension_with_oneof) }.
    let hex = "0b1a09ca01066130c317a9206110f9bb5e0c0b1a08082810ffffffff0710959aef3a0c";
    let data: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let generated = vt_tests::properties::partial::<MessageSetCorrect>(&data).unwrap();
    assert_eq!(vtproto::json::to_string(&generated).unwrap(), "{}");
    let pool = conformance::pool();
    let desc = pool
        .get_message_by_name("protobuf_test_messages.proto2.TestAllTypesProto2.MessageSetCorrect")
        .unwrap();
    let dynamic = vt_tests::properties::merged(&desc, &data).unwrap();
    assert_eq!(dynamic.to_json().unwrap(), "{}");
    assert_eq!(vtproto::Message::encode_to_vec(&generated), data);
    assert_eq!(dynamic.encode_to_vec(), data);
}

/// Map entries of every odd shape read as the generated code reads them (both syntaxes: an
/// open enum's value and a closed one's): a key or a value missing, both missing, a value
/// read twice (a message's merged), a field the entry does not declare, a key of another wire
/// type, a key twice, a truncated entry.
#[test]
fn odd_map_entries_read_as_generated_code_does() {
    // An entry of field `number` holding `body`.
    let entry = |number: u32, body: &[u8]| {
        let mut out = Vec::new();
        let mut key = u64::from(number << 3 | 2);
        while key >= 0x80 {
            out.push(key as u8 | 0x80);
            key >>= 7;
        }
        out.push(key as u8);
        out.push(body.len() as u8);
        out.extend_from_slice(body);
        out
    };
    let bodies: &[(u32, &[u8])] = &[
        // map<int32, int32>
        (56, &[]),
        (56, &[0x08, 0x01]),
        (56, &[0x10, 0x02]),
        (56, &[0x10, 0x02, 0x08, 0x01, 0x10, 0x03]),
        (56, &[0x18, 0x07, 0x08, 0x01, 0x10, 0x02]),
        (56, &[0x0d, 1, 0, 0, 0, 0x10, 0x02]),
        (56, &[0x08, 0x01, 0x08, 0x04, 0x10, 0x02]),
        (56, &[0x08]),
        // map<string, string>
        (69, &[0x0a, 0x01, b'k']),
        (69, &[0x12, 0x01, b'v']),
        (69, &[0x0a, 0x01, 0xff, 0x12, 0x01, b'v']),
        (69, &[0x0a, 0x01, b'k', 0x12, 0x05, b'v']),
        // map<string, NestedMessage>: `a` set, then `corecursive` merged in.
        (71, &[0x12, 0x02, 0x08, 0x05]),
        (71, &[0x0a, 0x01, b'k']),
        (
            71,
            &[0x12, 0x02, 0x08, 0x05, 0x12, 0x04, 0x12, 0x02, 0x08, 0x01],
        ),
        (71, &[0x12, 0x02, 0x08, 0x05, 0x12, 0x02, 0x08]),
        // map<string, NestedEnum>: declared, undeclared, missing.
        (73, &[0x0a, 0x01, b'k', 0x10, 0x02]),
        (73, &[0x0a, 0x01, b'k', 0x10, 0x63]),
        (73, &[0x0a, 0x01, b'k']),
    ];
    let mut ran = 0;
    for &(number, body) in bodies {
        let one = entry(number, body);
        // The entry alone, then after an entry of the same key that it replaces.
        let mut twice = entry(number, body);
        twice.extend_from_slice(&one);
        for which in [0u8, 1] {
            for input in [&one, &twice] {
                let mut data = vec![which];
                data.extend_from_slice(input);
                vt_tests::checks::dynamic(&data);
                ran += 1;
            }
        }
    }
    assert_eq!(ran, bodies.len() * 4);
}
