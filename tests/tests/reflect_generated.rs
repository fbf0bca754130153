//! Reflection over generated types (`features=..+reflect`), on random messages of the
//! project's proto2, proto3 and editions protos (every field kind, maps of every key type,
//! groups, closed and open enums, extensions, oneofs, the well-known types):
//!
//! - `mode=standalone`: `to_dynamic` is the `DynamicMessage` that reads the same bytes (same
//!   deterministic encoding, JSON and text), and `merge_dynamic` of it gives the value back;
//!   JSON and text served by the tables (`tables=`) write what the generated code writes and
//!   read what it reads, with the same errors on edited inputs (`properties::check_tables`);
//! - `mode=prost` (prost's structs): conversion is the identity too.
//!
//! The random-schema test (`random_schemas.rs`) runs the same checks on every generated set.

mod support;

use support::{Rng, Schema};
use vt_tests::properties::{check_reflect, check_tables};
use vtproto::reflect::{DescriptorPool, DynamicMessage, ReflectMessage, ReflectMessageMut, Value};

type Check = fn(&DescriptorPool, &str, &[u8]);

fn check<S>(pool: &DescriptorPool, name: &str, data: &[u8])
where
    S: vtproto::Message + vtproto::json::JsonMessage + vtproto::text::TextMessage,
    S: ReflectMessageMut + PartialEq + std::fmt::Debug,
{
    let desc = pool.get_message_by_name(name).unwrap();
    check_reflect::<S>(Some(&desc), data);
    check_tables::<S>(data);
}

fn check_prost<P>(_: &DescriptorPool, _: &str, data: &[u8])
where
    P: vtproto::Message + ReflectMessageMut + PartialEq + std::fmt::Debug,
{
    check_reflect::<P>(None, data);
}

macro_rules! pairs {
    ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
        pub fn all() -> Vec<(&'static str, super::Check)> {
            vec![$(($name, super::check::<Standalone::$($seg)::+> as super::Check)),*]
        }
    };
}

mod own {
    #[allow(unused_imports)]
    use vt_tests::own_standalone as Standalone;
    include!(concat!(env!("OUT_DIR"), "/own-standalone/_registry.rs"));
}

mod own_prost {
    #[allow(unused_imports)]
    use vt_tests::own as Standalone;
    macro_rules! pairs {
        ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
            pub fn all() -> Vec<(&'static str, super::Check)> {
                vec![$(($name, super::check_prost::<Standalone::$($seg)::+> as super::Check)),*]
            }
        };
    }
    include!(concat!(env!("OUT_DIR"), "/own-standalone/_registry.rs"));
}

mod editions {
    #[allow(unused_imports)]
    use vt_tests::editions as Standalone;
    include!(concat!(
        env!("OUT_DIR"),
        "/editions-standalone/_registry.rs"
    ));
}

#[test]
fn generated_and_dynamic_convert_and_tables_agree_with_generated_code() {
    let own_pool = DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap();
    let editions_pool = DescriptorPool::decode(vt_tests::EDITIONS_DESCRIPTORS).unwrap();
    let mut checked = 0;
    for (pool, bytes, types) in [
        (&own_pool, vt_tests::OWN_DESCRIPTORS, own::all()),
        (&own_pool, vt_tests::OWN_DESCRIPTORS, own_prost::all()),
        (
            &editions_pool,
            vt_tests::EDITIONS_DESCRIPTORS,
            editions::all(),
        ),
    ] {
        let schema = Schema::new(bytes);
        for (name, check) in &types {
            for data in schema.edge_messages(name) {
                check(pool, name, &data);
                checked += 1;
            }
            for seed in 0..12u64 {
                let mut rng = Rng::new(seed * 7919 + name.len() as u64);
                check(pool, name, &schema.random_message(name, &mut rng));
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked} values checked");
}

/// The accessors by hand: a oneof member is read only while the oneof holds it and set by
/// making it the oneof's value; lists append and maps insert, as the binary merge does.
#[test]
fn accessors_follow_oneofs_lists_and_maps() {
    use vt_tests::own_standalone::vt::test::proto3::{oneofs, Maps, Oneofs, Repeateds};
    use vtproto::reflect::FieldRef;
    let mut m = Oneofs {
        choice: Some(oneofs::Choice::CString("a".into())),
        ..Default::default()
    };
    let desc = m.descriptor();
    assert_eq!(desc.full_name(), "vt.test.proto3.Oneofs");
    let field = |name: &str| desc.get_field_by_name(name).unwrap();
    assert!(matches!(m.field(2), Some(FieldRef::Optional(Some(_)))));
    assert!(matches!(m.field(1), Some(FieldRef::Optional(None))));
    assert!(m.field(9999).is_none());
    let d = m.to_dynamic();
    assert_eq!(d.get_field(&field("c_string")), Value::String("a".into()));
    assert!(!d.has_field(&field("c_int32")));
    // Another member set through a dynamic message replaces the oneof's value.
    let mut other = DynamicMessage::new(desc.clone());
    other.set_field(&field("c_int32"), Value::I32(5));
    m.merge_dynamic(&other).unwrap();
    assert_eq!(m.choice, Some(oneofs::Choice::CInt32(5)));

    let mut r = Repeateds {
        r_int32: vec![1, -2],
        ..Default::default()
    };
    let d = r.to_dynamic();
    assert_eq!(
        d.get_field_by_name("r_int32"),
        Some(Value::List(vec![Value::I32(1), Value::I32(-2)]))
    );
    r.merge_dynamic(&d).unwrap();
    assert_eq!(r.r_int32, [1, -2, 1, -2]);

    let mut maps = Maps::default();
    maps.m_string_string.insert("k".into(), "v".into());
    let d = maps.to_dynamic();
    maps.merge_dynamic(&d).unwrap();
    assert_eq!(maps.m_string_string.len(), 1);
    assert_eq!(maps.to_dynamic(), d);

    // Another type is refused.
    let node = DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS)
        .unwrap()
        .get_message_by_name("vt.deep.Node")
        .unwrap();
    let err = maps.merge_dynamic(&DynamicMessage::new(node)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "expected a vt.test.proto3.Maps, got a vt.deep.Node"
    );
}

/// Maps read by the tables, a map of strings to strings by generated code's own path
/// (`JsonReader::str_map`): on maps shorter and longer than its first batch, with a key
/// twice, a value of another kind (an enum name skipped where unknown names are ignored) and
/// the key again, escapes, into a map already holding keys, and under budgets that run out
/// at each entry, the tables read the same map or fail with the same error at the same place
/// as the generated code, for maps of seven key and value kinds.
#[test]
fn maps_read_by_the_tables_as_generated_code_reads_them() {
    use vt_tests::own_standalone::vt::test::proto3::Maps;
    use vtproto::json::{self, DecodeOptions};
    // Each map: its JSON name, an entry's key and value, a value of another kind.
    type Entry = fn(usize) -> (String, String);
    let maps: [(&str, Entry, &str); 7] = [
        (
            "mStringString",
            |i| (format!("key-{i}"), format!("\"value-{i}\"")),
            "1",
        ),
        ("mInt32Int32", |i| (format!("{i}"), format!("{i}")), "\"x\""),
        (
            "mStringDouble",
            |i| (format!("k{i}"), format!("{i}.5")),
            "{}",
        ),
        (
            "mStringBytes",
            |i| (format!("k{i}"), "\"AAEC\"".into()),
            "[]",
        ),
        (
            "mStringMessage",
            |i| (format!("k{i}"), format!("{{\"fInt32\":{i}}}")),
            "7",
        ),
        ("ordered", |i| (format!("k{i}"), format!("\"{i}\"")), "true"),
        // An undeclared name: skipped where unknown names are ignored.
        (
            "mInt32Enum",
            |i| (format!("{i}"), "\"KIND_B\"".into()),
            "\"NOPE\"",
        ),
    ];
    let held = Maps {
        m_string_string: [("key-1".to_string(), "old".to_string())].into(),
        m_int32_int32: [(1, 5)].into(),
        m_string_double: [("k1".to_string(), 2.5)].into(),
        m_string_bytes: [("k0".to_string(), vec![7])].into(),
        m_string_message: [(
            "k1".to_string(),
            vt_tests::own_standalone::vt::test::proto3::Scalars {
                f_int32: 9,
                ..Default::default()
            },
        )]
        .into(),
        m_int32_enum: [(1, 2)].into(),
        ordered: [("k1".to_string(), 3)].into(),
        ..Default::default()
    };
    let mut checked = 0;
    for (name, entry, other) in maps {
        let entries = |n: usize| -> Vec<String> {
            (0..n)
                .map(|i| {
                    let (k, v) = entry(i);
                    format!("\"{k}\":{v}")
                })
                .collect()
        };
        let mut inputs = Vec::new();
        for n in [0, 1, 2, 7, 8, 9, 20] {
            inputs.push(entries(n));
            if n > 0 {
                let mut twice = entries(n);
                twice.push(twice[n / 2].clone());
                inputs.push(twice);
                let mut bad = entries(n);
                bad[n - 1] = format!("\"{}\":{other}", entry(n - 1).0);
                inputs.push(bad);
                let mut null = entries(n);
                null[0] = format!("\"{}\":null", entry(0).0);
                inputs.push(null);
                // A key whose value is of another kind (or skipped), then the key again.
                let mut again = entries(n);
                again.insert(0, format!("\"{}\":{other}", entry(0).0));
                inputs.push(again);
            }
        }
        if name == "mStringString" {
            inputs.push(vec![r#""k\"\u00e9":"v\n\ud83d\ude00""#.into()]);
        }
        for input in &inputs {
            let text = format!("{{\"{name}\":{{{}}}}}", input.join(","));
            let budgets = [usize::MAX, 40, 100, 200, 400, 1000];
            for (budget, ignore) in budgets.into_iter().flat_map(|b| [(b, false), (b, true)]) {
                let mut options = DecodeOptions::default();
                options.limits.memory_budget = budget;
                options.ignore_unknown_fields = ignore;
                for start in [Maps::default(), held.clone()] {
                    let mut generated = start.clone();
                    let generated =
                        json::merge_from_str(&mut generated, &text, &options).map(|()| generated);
                    let mut tables = start;
                    let mut r = json::JsonReader::new(&text, &options);
                    let tables = vtproto::reflect::merge_json(&mut tables, &mut r)
                        .and_then(|()| r.finish())
                        .map(|()| tables);
                    match (generated, tables) {
                        (Ok(a), Ok(b)) => assert_eq!(a, b, "on {text}"),
                        (Err(a), Err(b)) => {
                            assert_eq!(a.to_string(), b.to_string(), "on {text} under {budget}")
                        }
                        (a, b) => {
                            panic!("on {text} under {budget}: generated {a:?}, tables {b:?}")
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
