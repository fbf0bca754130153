//! serde's `Serialize` and `Deserialize` on generated messages (`features=..+json+serde`,
//! `mode=standalone`): ProtoJSON's mapping inside a user's serde types, with `serde_json` and
//! with `serde_json::Value` (another serializer and deserializer), equal to the direct path.

mod support;

use serde::{Deserialize, Serialize};
use support::{Rng, Schema};
use vt_tests::own_standalone::vt::candidates::{Candidate, CandidatesResponse};
use vt_tests::own_standalone::vt::test::proto3::{Scalars, WellKnown};
use vtproto::types::{Duration, Timestamp};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Envelope {
    name: String,
    response: CandidatesResponse,
    scalars: Vec<Scalars>,
    wkt: Option<WellKnown>,
}

fn envelope() -> Envelope {
    let mut c = Candidate {
        id: "a\"b".into(),
        ..Default::default()
    };
    c.meta_data.insert("k".into(), "v".into());
    Envelope {
        name: "n".into(),
        response: CandidatesResponse {
            candidates: vec![c],
            ..Default::default()
        },
        scalars: vec![
            Scalars {
                f_int64: i64::MIN,
                f_uint64: u64::MAX,
                f_double: f64::NAN,
                f_float: -0.0,
                f_bytes: vec![0, 255],
                f_enum: 2,
                ..Default::default()
            },
            Scalars::default(),
        ],
        wkt: Some(WellKnown {
            ts: Some(Timestamp {
                seconds: 1,
                nanos: 5_000,
                ..Default::default()
            }),
            dur: Some(Duration {
                seconds: -3,
                ..Default::default()
            }),
            ..Default::default()
        }),
    }
}

#[test]
fn messages_embed_in_serde_types() {
    let e = envelope();
    let json = serde_json::to_string(&e).unwrap();
    // Each message is its ProtoJSON, as the direct path writes it.
    let direct = vtproto::json::to_string(&e.scalars[0]).unwrap();
    assert!(json.contains(&direct), "{json}\n{direct}");
    assert!(
        json.contains(r#""f_int64":"-9223372036854775808""#)
            || json.contains(r#""fInt64":"-9223372036854775808""#),
        "{json}"
    );
    assert!(json.contains(r#""1970-01-01T00:00:01.000005Z""#), "{json}");
    let back: Envelope = serde_json::from_str(&json).unwrap();
    // NaN is not equal to itself: compare the rest, and NaN as NaN.
    assert!(back.scalars[0].f_double.is_nan());
    let mut back = back;
    back.scalars[0].f_double = 0.0;
    let mut want = e;
    want.scalars[0].f_double = 0.0;
    assert_eq!(back, want);
}

#[test]
fn through_another_serializer() {
    let e = envelope();
    let value = serde_json::to_value(&e).unwrap();
    let direct: serde_json::Value =
        serde_json::from_str(&vtproto::json::to_string(&e.response).unwrap()).unwrap();
    assert_eq!(value["response"], direct);
    let back: Envelope = serde_json::from_value(value).unwrap();
    assert_eq!(back.response, e.response);
    assert_eq!(back.wkt, e.wkt);
}

#[test]
fn bad_input_is_a_serde_error() {
    for bad in [
        r#"{"name":"n","response":{"candidates":[{"id":7}]},"scalars":[],"wkt":null}"#,
        r#"{"name":"n","response":{"nope":1},"scalars":[],"wkt":null}"#,
        r#"{"name":"n","response":{},"scalars":[{"fInt32":1.5}],"wkt":null}"#,
    ] {
        let e = serde_json::from_str::<Envelope>(bad).unwrap_err();
        assert!(!e.to_string().is_empty());
    }
}

/// For random messages of every kind of field (maps of every key type, groups, oneofs, enums,
/// well-known types), the generated `Serialize` writes what the direct path reads to the same
/// value, and `Deserialize` reads the direct path's JSON to it.
#[test]
fn the_same_values_as_the_direct_path() {
    use vt_tests::own_standalone::vt as s;
    fn one<M>(bytes: &[u8]) -> bool
    where
        M: vtproto::Message + vtproto::json::JsonMessage + Serialize + for<'de> Deserialize<'de>,
        M: PartialEq + std::fmt::Debug,
    {
        let Ok(m) = M::decode(bytes) else {
            return false;
        };
        let Ok(direct) = vtproto::json::to_string(&m) else {
            // No JSON form (an Any of an unknown type, ...): serde has none either.
            assert!(serde_json::to_string(&m).is_err());
            return false;
        };
        let via_serde = serde_json::to_string(&m).unwrap();
        let a: M = vtproto::json::from_str(&direct).unwrap();
        let b: M =
            vtproto::json::from_str(&via_serde).unwrap_or_else(|e| panic!("{e}: {via_serde}"));
        assert!(
            a == b || support::same_but_nan(&a, &b),
            "{direct}\n{via_serde}"
        );
        let c: M = serde_json::from_str(&direct).unwrap();
        assert!(a == c || support::same_but_nan(&a, &c), "{direct}");
        true
    }
    let schema = Schema::new(vt_tests::OWN_DESCRIPTORS);
    let mut rng = Rng::new(0x5E2D);
    let mut compared = 0;
    for _ in 0..150 {
        for (name, check) in [
            (
                "vt.candidates.CandidatesResponse",
                one::<s::candidates::CandidatesResponse> as fn(&[u8]) -> bool,
            ),
            ("vt.event.EventBatch", one::<s::event::EventBatch>),
            ("vt.deep.Node", one::<s::deep::Node>),
            ("vt.test.proto3.Scalars", one::<s::test::proto3::Scalars>),
            ("vt.test.proto3.Maps", one::<s::test::proto3::Maps>),
            (
                "vt.test.proto3.WellKnown",
                one::<s::test::proto3::WellKnown>,
            ),
            ("vt.test.proto3.Oneofs", one::<s::test::proto3::Oneofs>),
            ("vt.test.proto2.Groups", one::<s::test::proto2::Groups>),
            (
                "vt.test.proto2.Repeated2",
                one::<s::test::proto2::Repeated2>,
            ),
        ] {
            let bytes = schema.random_message(name, &mut rng);
            compared += usize::from(check(&bytes));
        }
    }
    assert!(compared > 1000, "too few values compared: {compared}");
}

/// String maps of every size around the reader's first batch (entries buffered before the
/// table is sized), with values of each kind (small ones buffered, messages not), with a key
/// given twice at every place and with a syntax error after it: serde reads what the direct
/// path reads and refuses what it refuses.
#[test]
fn string_maps_of_every_size() {
    use vt_tests::own_standalone::vt::test::proto3::Maps;
    type Value = fn(usize) -> String;
    let fields: [(&str, Value); 5] = [
        ("mStringString", |i| format!("\"v{i}\"")),
        ("mStringBytes", |i| {
            format!("\"{}\"", ["", "AQ==", "AQI", "_-8="][i % 4])
        }),
        ("mStringDouble", |i| format!("{}.5", i)),
        ("mStringMessage", |i| format!("{{\"fInt32\":{i}}}")),
        ("ordered", |i| format!("\"{i}\"")),
    ];
    let mut checked = 0;
    for (field, value) in fields {
        for n in 0..=18 {
            for dup in std::iter::once(None).chain((0..n).map(Some)) {
                for broken in [false, true] {
                    let mut entries: Vec<String> =
                        (0..n).map(|i| format!("\"k{i}\":{}", value(i))).collect();
                    if let Some(d) = dup {
                        entries.push(format!("\"k{d}\":{}", value(d + 1)));
                    }
                    if broken {
                        entries.push("\"x\":]".into());
                    }
                    let text = format!("{{\"{field}\":{{{}}}}}", entries.join(","));
                    let direct = vtproto::json::from_str::<Maps>(&text);
                    let serde = serde_json::from_str::<Maps>(&text);
                    let ok = dup.is_none() && !broken;
                    assert_eq!(direct.is_ok(), ok, "{text}");
                    assert_eq!(serde.is_ok(), ok, "{text}");
                    if let (Ok(a), Ok(b)) = (direct, serde) {
                        assert_eq!(a, b, "{text}");
                        let stored = a.m_string_string.len()
                            + a.m_string_bytes.len()
                            + a.m_string_double.len()
                            + a.m_string_message.len()
                            + a.ordered.len();
                        assert_eq!(stored, n, "{text}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
