//! The recursion limit counts message levels on every path, as the binary decoder counts them
//! (a map entry, a `Value`'s `ListValue`, a `Struct`'s entry each one level; a repeated field's
//! JSON array none): around the limit, a value one path reads, every path reads, and a value one
//! path refuses for its depth, every path refuses. Paths: binary (generated code and
//! `DynamicMessage`), ProtoJSON (generated, `DynamicMessage`) and the text format (generated,
//! `DynamicMessage`), in `mode=standalone`.

use vt_tests::own_standalone::vt::test::proto3::Tree;
use vtproto::reflect::{DescriptorPool, DynamicMessage};
use vtproto::types::{value::Kind, ListValue, Struct, Value};
use vtproto::Message;

fn pool() -> DescriptorPool {
    DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap()
}

/// Which paths read `bytes` (a message of type `name`, with generated type `M`): binary,
/// JSON and text, each by the generated code and by `DynamicMessage`.
fn verdicts<M>(name: &str, value: &M) -> [bool; 6]
where
    M: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage,
{
    let bytes = value.encode_to_vec();
    let json = vtproto::json::to_string(value).unwrap();
    let text = vtproto::text::to_string(value).unwrap();
    let desc = pool().get_message_by_name(name).unwrap();
    [
        M::decode(&bytes).is_ok(),
        DynamicMessage::decode(desc.clone(), &bytes).is_ok(),
        vtproto::json::from_str::<M>(&json).is_ok(),
        DynamicMessage::from_json(desc.clone(), &json).is_ok(),
        vtproto::text::from_str::<M>(&text).is_ok(),
        DynamicMessage::from_text(desc, &text).is_ok(),
    ]
}

/// Every path agrees for each nesting in `range`, and both verdicts are seen.
fn agree(shape: &str, range: std::ops::Range<usize>, verdict: impl Fn(usize) -> [bool; 6]) {
    let mut seen = [false; 2];
    for n in range {
        let v = verdict(n);
        assert!(
            v.iter().all(|&ok| ok == v[0]),
            "{shape} nested {n}: binary, dynamic binary, JSON, dynamic JSON, text, dynamic text: {v:?}"
        );
        seen[usize::from(v[0])] = true;
    }
    assert_eq!(
        seen,
        [true, true],
        "{shape}: the range does not cross the limit"
    );
}

#[test]
fn nested_lists_in_a_value() {
    // Each list: a ListValue and a Value, two levels.
    agree("Value lists", 45..55, |n| {
        let mut v = Value {
            kind: Some(Kind::NumberValue(1.0)),
            ..Default::default()
        };
        for _ in 0..n {
            v = Value {
                kind: Some(Kind::ListValue(ListValue {
                    values: vec![v],
                    ..Default::default()
                })),
                ..Default::default()
            };
        }
        verdicts("google.protobuf.Value", &v)
    });
}

#[test]
fn nested_structs_in_a_value() {
    // Each object: a Struct, its entry and a Value, three levels.
    agree("Value structs", 28..38, |n| {
        let mut v = Value {
            kind: Some(Kind::BoolValue(true)),
            ..Default::default()
        };
        for _ in 0..n {
            let mut s = Struct::default();
            s.fields.insert("k".into(), v);
            v = Value {
                kind: Some(Kind::StructValue(s)),
                ..Default::default()
            };
        }
        verdicts("google.protobuf.Value", &v)
    });
}

#[test]
fn nested_repeated_and_mapped_messages() {
    // Through a repeated field: one level per message (the JSON array is none).
    agree("Tree children", 95..105, |n| {
        let mut t = Tree {
            value: 1,
            ..Default::default()
        };
        for _ in 0..n {
            t = Tree {
                children: vec![t],
                ..Default::default()
            };
        }
        verdicts("vt.test.proto3.Tree", &t)
    });
    // Through a map's values: two levels per message (the entry, then the value).
    agree("Tree named", 45..55, |n| {
        let mut t = Tree {
            value: 1,
            ..Default::default()
        };
        for _ in 0..n {
            let mut named = std::collections::HashMap::new();
            named.insert("k".to_string(), t);
            t = Tree {
                named,
                ..Default::default()
            };
        }
        verdicts("vt.test.proto3.Tree", &t)
    });
}
