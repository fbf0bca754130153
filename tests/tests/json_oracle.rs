//! Python protobuf's `json_format` (upb) as the oracle of our ProtoJSON (`features=..+json`,
//! `mode=standalone`), on random messages of the project's proto2, proto3 and editions protos
//! (maps of every key type, groups, closed and open enums, extensions, oneofs, well-known
//! types): for each accepted binary input and each set of writing options,
//!
//! - we and Python agree on whether the value has a JSON form (a Timestamp out of range, a
//!   Value with no kind, an `Any` of an unknown type have none);
//! - Python reads our JSON to the value we read from it, and we read Python's JSON to that
//!   value too (JSON drops unknown fields, so the value compared is the one read back from
//!   JSON, not the binary input);
//! - then our JSON with one edit (a value replaced by a JSON value of another kind, a key
//!   renamed or doubled, a character dropped): what Python refuses we refuse, and what both
//!   read gives the same value;
//! - our serde impls (`features=..+json+serde`, through `serde_json`) read each of these
//!   texts as the direct path does: the same value, or both refuse;
//! - `vtproto::reflect::DynamicMessage`, built from the descriptor sets alone, writes JSON
//!   Python reads to the value, reads Python's JSON to it, and reads each edited text as the
//!   generated code does (same value, or the same error).
//!
//! Needs `VT_PYTHON` (see `python_oracle.rs`); without it the test passes, unless
//! `VT_REQUIRE_PYTHON=1`.

mod support;

use std::fmt::Debug;

use support::oracle::{python, Oracle};
use support::{Rng, Schema};
use vtproto::json::{self, DecodeOptions, EncodeOptions, JsonErrorKind, JsonMessage, TypeRegistry};
use vtproto::Message;

/// One message type's check, monomorphized.
type Check = fn(&mut Context<'_>, &str, &[u8]) -> Outcome;

#[derive(Default)]
struct Outcome {
    compared: usize,
    no_json_form: usize,
    edits: usize,
    python_only: usize,
}

struct Context<'a> {
    oracle: &'a mut Oracle,
    registry: &'a TypeRegistry,
    rng: Rng,
    /// The descriptors of the types checked: `DynamicMessage` answers beside the generated
    /// code, against Python too.
    pools: &'a [vtproto::reflect::DescriptorPool],
}

/// `DynamicMessage`'s reading of `text`, as the deterministic encoding of the value read.
fn dynamic_read(cx: &Context<'_>, name: &str, text: &str) -> Result<Vec<u8>, json::JsonError> {
    let desc = cx
        .pools
        .iter()
        .find_map(|p| p.get_message_by_name(name))
        .unwrap_or_else(|| panic!("{name} is in no pool"));
    vtproto::reflect::DynamicMessage::from_json(desc, text).map(|m| m.encode_to_vec())
}

fn partial<S: Message>(bytes: &[u8]) -> Option<S> {
    let mut s = S::default();
    s.merge(&mut vtproto::Reader::new(bytes)).ok()?;
    Some(s)
}

fn same<T: PartialEq + Debug>(a: &T, b: &T) -> bool {
    a == b || {
        let (a, b) = (format!("{a:?}"), format!("{b:?}"));
        a.contains("NaN") && a.len() == b.len()
    }
}

/// Our serde impls (`features=..+json+serde`, through `serde_json`) read `text` as the direct
/// path does (without a registry: serde has no per-call options): the same value, or both
/// refuse.
fn serde_agrees<S>(name: &str, text: &str)
where
    S: Message + JsonMessage + PartialEq + Debug + for<'de> serde::Deserialize<'de>,
{
    let direct = json::from_str::<S>(text);
    let via_serde = serde_json::from_str::<S>(text);
    match (direct, via_serde) {
        (Ok(a), Ok(b)) => assert!(same(&a, &b), "{name}: serde reads another value: {text}"),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("{name}: serde refuses ({e}) what JSON reads: {text}"),
        (Err(e), Ok(_)) => panic!("{name}: serde reads what JSON refuses ({e}): {text}"),
    }
}

fn check<S: Message + JsonMessage + PartialEq + Debug + for<'de> serde::Deserialize<'de>>(
    cx: &mut Context<'_>,
    name: &str,
    bytes: &[u8],
) -> Outcome {
    let mut outcome = Outcome::default();
    let Some(s) = partial::<S>(bytes) else {
        return outcome;
    };
    let decode = DecodeOptions {
        registry: Some(cx.registry),
        ..DecodeOptions::default()
    };
    let read = |text: &str| json::from_str_with::<S>(text, &decode);
    for flags in [0u8, 7, cx.rng.below(8) as u8] {
        let options = EncodeOptions {
            use_proto_names: flags & 1 != 0,
            emit_unpopulated: flags & 2 != 0,
            enums_as_ints: flags & 4 != 0,
            registry: Some(cx.registry),
            ..EncodeOptions::default()
        };
        let ours = json::to_string_with(&s, &options);
        let theirs = cx.oracle.write_json(name, bytes, flags);
        let context = || format!("{name} flags {flags} on {}", support::oracle::hex(bytes));
        let (ours, theirs) = match (ours, theirs) {
            (Err(_), Err(_)) => {
                outcome.no_json_form += 1;
                continue;
            }
            (Ok(ours), Err(why)) => {
                panic!(
                    "{}: Python finds no JSON form ({why}), we write {ours}",
                    context()
                )
            }
            (Err(e), Ok(theirs)) => {
                panic!(
                    "{}: we find no JSON form ({e}), Python writes {theirs}",
                    context()
                )
            }
            (Ok(ours), Ok(theirs)) => (ours, theirs),
        };
        serde_agrees::<S>(name, &ours);
        serde_agrees::<S>(name, &theirs);
        let value = read(&ours)
            .unwrap_or_else(|e| panic!("{}: we do not read our JSON ({e}): {ours}", context()));
        let from_theirs = read(&theirs)
            .unwrap_or_else(|e| panic!("{}: we refuse Python's JSON ({e}): {theirs}", context()));
        assert!(
            same(&from_theirs, &value),
            "{}: Python's JSON reads as another value:\n ours   {ours}\n theirs {theirs}",
            context()
        );
        let via_python = cx
            .oracle
            .read_json(name, &ours, 0)
            .unwrap_or_else(|e| panic!("{}: Python refuses our JSON ({e}): {ours}", context()));
        let via_python = partial::<S>(&via_python).expect("Python's encoding decodes");
        assert!(
            same(&via_python, &value),
            "{}: Python reads another value from our JSON {ours}",
            context()
        );
        // DynamicMessage, from the descriptors alone: Python reads its JSON to the value, and
        // it reads Python's JSON to it.
        let desc = cx
            .pools
            .iter()
            .find_map(|p| p.get_message_by_name(name))
            .unwrap();
        let dynamic = vt_tests::properties::merged(&desc, bytes).unwrap();
        let dynamic_json = dynamic
            .to_json_with(&options)
            .unwrap_or_else(|e| panic!("{}: DynamicMessage finds no JSON form ({e})", context()));
        let via_python = cx
            .oracle
            .read_json(name, &dynamic_json, 0)
            .unwrap_or_else(|e| {
                panic!("{}: Python refuses DynamicMessage's JSON ({e})", context())
            });
        assert!(
            same(&partial::<S>(&via_python).unwrap(), &value),
            "{}: Python reads another value from DynamicMessage's JSON {dynamic_json}",
            context()
        );
        let dynamic_read_theirs = dynamic_read(cx, name, &theirs).unwrap_or_else(|e| {
            panic!("{}: DynamicMessage refuses Python's JSON ({e})", context())
        });
        assert!(
            same(&partial::<S>(&dynamic_read_theirs).unwrap(), &value),
            "{}: DynamicMessage reads another value from Python's JSON {theirs}",
            context()
        );
        outcome.compared += 1;
        // One edit of our JSON: refused alike, read alike.
        let edited = edit(&ours, &mut cx.rng);
        serde_agrees::<S>(name, &edited);
        let ours_read = read(&edited);
        let theirs_read = cx.oracle.read_json(name, &edited, 0);
        // DynamicMessage accepts and refuses what the generated code does, reading the same
        // value (so Python's verdicts below hold for it too).
        match (dynamic_read(cx, name, &edited), &ours_read) {
            (Ok(d), Ok(a)) => assert!(
                same(&partial::<S>(&d).unwrap(), a),
                "{}: DynamicMessage reads another value from {edited}",
                context()
            ),
            (Err(d), Err(a)) => assert_eq!(d.kind(), a.kind(), "{}: {edited}", context()),
            (d, a) => panic!(
                "{}: DynamicMessage {:?}, generated code {:?} on {edited}",
                context(),
                d.err(),
                a.as_ref().err()
            ),
        }
        match (ours_read, theirs_read) {
            (Ok(a), Ok(b)) => {
                let b = partial::<S>(&b).expect("Python's encoding decodes");
                assert!(
                    same(&a, &b),
                    "{}: an edited JSON reads differently: {edited}",
                    context()
                );
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(why)) => {
                panic!(
                    "{}: Python refuses ({why}) what we accept: {edited}",
                    context()
                )
            }
            (Err(e), Ok(_)) => {
                // Python reads more than the spec, where C++ and protobuf-go refuse: a
                // Timestamp's fields with one digit (`strptime`), a string for a message,
                // `true` for a number (a Python bool is an int), `1.5` for an enum (truncated),
                // an extension named by any
                // prefix of its name's scope.
                let python_only = match e.kind() {
                    JsonErrorKind::InvalidValue { .. } => true,
                    JsonErrorKind::Type { expected } => {
                        matches!(
                            *expected,
                            "an object" | "a number" | "an integer" | "an enum name or number"
                        )
                    }
                    JsonErrorKind::UnknownField { key } => key.starts_with('['),
                    _ => false,
                };
                assert!(
                    python_only,
                    "{}: we refuse ({e}) what Python accepts: {edited}",
                    context()
                );
                outcome.python_only += 1;
            }
        }
        outcome.edits += 1;
    }
    outcome
}

/// `text` with one edit at a random place: a value swapped for another kind's, a key's
/// first letter changed (an unknown field, or the same field under its other name), a pair
/// doubled, a character dropped.
fn edit(text: &str, rng: &mut Rng) -> String {
    let colons: Vec<usize> = text.match_indices("\":").map(|(i, _)| i + 2).collect();
    if colons.is_empty() {
        return format!("{text} x");
    }
    let at = colons[rng.below(colons.len() as u64) as usize];
    let rest = &text[at..];
    // The value's extent: up to the next ',' or '}' at depth 0 (strings skipped).
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' if depth == 0 => {
                end = i;
                break;
            }
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let value = &rest[..end];
    let key_start = text[..at - 2].rfind('"').unwrap_or(0);
    let pair = &text[key_start..at + end];
    match rng.below(8) {
        0..=3 => {
            const OTHERS: [&str; 12] = [
                "null",
                "true",
                "0",
                "-1",
                "1.5",
                "\"\"",
                "\"x\"",
                "{}",
                "[]",
                "[null]",
                "\"1e3\"",
                "18446744073709551616",
            ];
            let other = OTHERS[rng.below(OTHERS.len() as u64) as usize];
            format!("{}{other}{}", &text[..at], &rest[end..])
        }
        4 => format!("{}{pair},{}", &text[..key_start], &text[key_start..]),
        5 => {
            let key = &text[key_start + 1..at - 2];
            let renamed = if key.contains('_') {
                key.replace('_', "")
            } else {
                format!("{key}_")
            };
            format!(
                "{}\"{renamed}\":{value}{}",
                &text[..key_start],
                &rest[end..]
            )
        }
        _ => {
            let i = rng.below(text.len() as u64) as usize;
            let mut s = text.to_string();
            if s.is_char_boundary(i) && s.is_char_boundary(i + 1) {
                s.remove(i);
            }
            s
        }
    }
}

macro_rules! pairs {
    ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
        pub fn all() -> Vec<(&'static str, super::Check)> {
            vec![$(($name, super::check::<Standalone::$($seg)::+> as super::Check)),*]
        }

        pub fn register(registry: &mut vtproto::json::TypeRegistry) {
            $(registry.add::<Standalone::$($seg)::+>();)*
        }
    };
}

mod own {
    #[allow(unused_imports)]
    use vt_tests::own_standalone as Standalone;
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
fn our_json_and_pythons_read_alike() {
    let Some(python) = python() else { return };
    let mut oracle = Oracle::for_project(&python, "json");
    let mut registry = TypeRegistry::new();
    own::register(&mut registry);
    editions::register(&mut registry);
    let pools = [
        vtproto::reflect::DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap(),
        vtproto::reflect::DescriptorPool::decode(vt_tests::EDITIONS_DESCRIPTORS).unwrap(),
    ];
    let mut cx = Context {
        oracle: &mut oracle,
        registry: &registry,
        rng: Rng::new(29),
        pools: &pools,
    };
    let mut total = Outcome::default();
    for (schema, types) in [
        (Schema::new(vt_tests::OWN_DESCRIPTORS), own::all()),
        (Schema::new(vt_tests::EDITIONS_DESCRIPTORS), editions::all()),
    ] {
        for seed in 0..60u64 {
            for (name, check) in &types {
                let mut rng = Rng::new(seed * 7919 + name.len() as u64);
                let bytes = schema.random_message(name, &mut rng);
                let o = check(&mut cx, name, &bytes);
                total.compared += o.compared;
                total.no_json_form += o.no_json_form;
                total.edits += o.edits;
                total.python_only += o.python_only;
            }
        }
    }
    eprintln!(
        "{} values compared, {} without a JSON form on both sides, {} edited inputs ({} read \
         by Python alone)",
        total.compared, total.no_json_form, total.edits, total.python_only
    );
    assert!(
        total.compared > 1000,
        "too few values compared: {}",
        total.compared
    );
    assert!(total.edits > 1000);
}

/// Keys in the order the fields are written are taken by a raw comparison
/// (`JsonReader::next_key_is`), others (any order, whitespace, escapes, proto names) by the
/// lookup: both read the same value, and a field twice is refused however each copy was read.
#[test]
fn keys_in_any_order_and_spelling_read_alike() {
    use vt_tests::own_standalone::vt::deep::Node;
    let want = Node {
        child: Some(Box::new(Node {
            value: 7,
            label: "leaf".into(),
            ..Node::default()
        })),
        value: 1_234_567,
        label: "data".into(),
        ..Node::default()
    };
    for text in [
        r#"{"child":{"value":"7","label":"leaf"},"value":"1234567","label":"data"}"#,
        r#"{"label":"data","value":"1234567","child":{"label":"leaf","value":7}}"#,
        r#"{ "child" : { "value":"7", "label":"leaf" }, "value":1234567,"label":"data" }"#,
        r#"{"child":{"val\u0075e":"7","label":"leaf"},"value":"1234567" ,"label":"data"}"#,
        r#"{"child":{"value":"7","label":"leaf"},"label":"data","value":"1234567"}"#,
    ] {
        assert_eq!(json::from_str::<Node>(text).unwrap(), want, "{text}");
    }
    for text in [
        r#"{"value":1,"value":2}"#,
        r#"{"value":1, "value":2}"#,
        r#"{"value":1,"label":"a","value":2}"#,
        r#"{"label":"a","value":1,"label":"b"}"#,
        r#"{"label":"a","child":{},"value":1,"label":"b"}"#,
    ] {
        let e = json::from_str::<Node>(text).unwrap_err();
        assert_eq!(e.kind(), &JsonErrorKind::DuplicateField, "{text}");
    }
}
