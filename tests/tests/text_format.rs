//! The text format on the project's generated messages (`features=..+text`,
//! `mode=standalone`): the forms a user writes by hand, the errors they get (with line, column
//! and field path), `Any` through the registry, unknown fields printed by number, and merging.
//! Python's `text_format` checks the rest (`text_oracle.rs`), the conformance suite the spec.

use vt_tests::own_standalone::vt::candidates::{Candidate, CandidatesResponse};
use vt_tests::own_standalone::vt::deep::Node;
use vt_tests::own_standalone::vt::test::proto2::Groups;
use vt_tests::own_standalone::vt::test::proto3::WellKnown;
use vtproto::json::TypeRegistry;
use vtproto::text::{self, DecodeOptions, EncodeOptions, TextErrorKind};
use vtproto::types::{Any, Duration};
use vtproto::Message;

fn response() -> CandidatesResponse {
    let mut c = Candidate {
        id: "a\"b\n".into(),
        ..Default::default()
    };
    c.meta_data.insert("k".into(), "é".into());
    CandidatesResponse {
        candidates: vec![c, Candidate::default()],
        ..Default::default()
    }
}

#[test]
fn one_line_and_pretty_forms() {
    let r = response();
    assert_eq!(
        text::to_string(&r).unwrap(),
        r#"candidates { id: "a\"b\n" meta_data { key: "k" value: "é" } } candidates { }"#
    );
    assert_eq!(
        text::to_string_pretty(&r).unwrap(),
        "candidates {\n  id: \"a\\\"b\\n\"\n  meta_data {\n    key: \"k\"\n    value: \"é\"\n  }\n}\n\
         candidates {}\n"
    );
    for written in [
        text::to_string(&r).unwrap(),
        text::to_string_pretty(&r).unwrap(),
    ] {
        assert_eq!(text::from_str::<CandidatesResponse>(&written).unwrap(), r);
    }
}

#[test]
fn map_entries_print_in_key_order() {
    let mut c = Candidate::default();
    for k in ["b", "a", "d", "c", "e", "f", "h", "g"] {
        c.meta_data.insert(k.into(), k.to_uppercase());
    }
    let text = text::to_string(&c).unwrap();
    let keys: Vec<&str> = text
        .match_indices("key: \"")
        .map(|(i, _)| &text[i + 6..i + 7])
        .collect();
    assert_eq!(keys, ["a", "b", "c", "d", "e", "f", "g", "h"], "{text}");
}

#[test]
fn hand_written_forms_read() {
    let input = r#"
        # a comment
        candidates <
          id: 'a\"' "b\n";   # adjacent strings join
          meta_data: [{ key: "k" value: "\303\251" }]
        >,
        candidates: [{}]
    "#;
    assert_eq!(
        text::from_str::<CandidatesResponse>(input).unwrap(),
        response()
    );
    let groups: Groups =
        text::from_str("Single { a: 0x10 b: \"x\" } Multi { c: -017 } Multi {}").unwrap();
    let again: Groups = text::from_str("single { a: 16 b: 'x' } Multi: [{c: -15}, {}]").unwrap();
    assert_eq!(groups, again);
    assert_eq!(groups.multi.len(), 2);
}

#[test]
fn errors_say_where() {
    let e = text::from_str::<CandidatesResponse>(
        "candidates {\n  meta_data { key: \"k\" }\n  id: 7\n}",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "expected a quoted string for field vt.candidates.Candidate.id at line 3, column 7 \
         (path candidates.id)"
    );
    type Is = fn(&TextErrorKind) -> bool;
    let cases: [(&str, Is); 6] = [
        ("candidates { nope: 1 }", |k| {
            matches!(k, TextErrorKind::UnknownField { .. })
        }),
        ("candidates { id: \"a\" id: \"b\" }", |k| {
            *k == TextErrorKind::DuplicateField
        }),
        ("candidates { id: \"\\xff\" }", |k| {
            *k == TextErrorKind::InvalidUtf8
        }),
        ("candidates { id: \"\\ud800\" }", |k| {
            *k == TextErrorKind::InvalidEscape
        }),
        ("candidates { id: \"a }", |k| {
            matches!(k, TextErrorKind::Syntax { .. })
        }),
        ("candidates { ", |k| {
            matches!(k, TextErrorKind::Syntax { .. })
        }),
    ];
    for (input, kind) in cases {
        let e = text::from_str::<CandidatesResponse>(input).unwrap_err();
        assert!(kind(e.kind()), "{input}: {e}");
    }
    // Nesting past the limit is an error, not a stack overflow.
    let deep = "child { ".repeat(5) + &"}".repeat(5);
    let options = DecodeOptions {
        limits: vtproto::DecodeLimits {
            recursion_limit: 3,
            ..Default::default()
        },
        ..Default::default()
    };
    let e = text::from_str_with::<Node>(&deep, &options).unwrap_err();
    assert_eq!(*e.kind(), TextErrorKind::RecursionLimitExceeded);
    let deep = "child { ".repeat(100_000) + &"}".repeat(100_000);
    let e = text::from_str::<Node>(&deep).unwrap_err();
    assert_eq!(*e.kind(), TextErrorKind::RecursionLimitExceeded);
    assert!(text::from_str::<Node>(&("child { ".repeat(3) + &"}".repeat(3))).is_ok());
}

#[test]
fn any_through_the_registry() {
    let inner = response();
    let msg = WellKnown {
        any: Some(Any::from_msg(&inner)),
        dur: Some(Duration {
            seconds: 1,
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut registry = TypeRegistry::new();
    vt_tests::own_standalone::vt::candidates::register_text_types(&mut registry);
    let options = EncodeOptions {
        registry: Some(&registry),
        ..Default::default()
    };
    let written = text::to_string_with(&msg, &options).unwrap();
    assert!(
        written.contains(
            "any { [type.googleapis.com/vt.candidates.CandidatesResponse] { candidates {"
        ),
        "{written}"
    );
    let decode = DecodeOptions {
        registry: Some(&registry),
        ..Default::default()
    };
    assert_eq!(
        text::from_str_with::<WellKnown>(&written, &decode).unwrap(),
        msg
    );
    // Without the registry the Any is its two fields, and the expanded form does not read.
    let plain = text::to_string(&msg).unwrap();
    assert!(plain.contains("any { type_url: "), "{plain}");
    assert_eq!(text::from_str::<WellKnown>(&plain).unwrap(), msg);
    let e = text::from_str::<WellKnown>(&written).unwrap_err();
    assert!(
        matches!(e.kind(), TextErrorKind::UnknownAnyType { .. }),
        "{e}"
    );
}

#[test]
fn unknown_fields_print_by_number() {
    // Field 99 (varint 5) is no field of Candidate.
    let c = Candidate::decode(&[0x0a, 0x01, b'x', 0x98, 0x06, 0x05][..]).unwrap();
    assert_eq!(text::to_string(&c).unwrap(), "id: \"x\"");
    let options = EncodeOptions {
        print_unknown_fields: true,
        ..Default::default()
    };
    assert_eq!(
        text::to_string_with(&c, &options).unwrap(),
        "id: \"x\" 99: 5"
    );
}

#[test]
fn merge_adds_to_what_is_there() {
    let mut r = response();
    text::merge_from_str(
        &mut r,
        "candidates { id: \"c\" }",
        &DecodeOptions::default(),
    )
    .unwrap();
    assert_eq!(r.candidates.len(), 3);
    assert_eq!(r.candidates[2].id, "c");
    // A value read over a set field replaces it (the text itself may set it once).
    let mut c = Candidate {
        id: "old".into(),
        ..Default::default()
    };
    text::merge_from_str(&mut c, "id: \"new\"", &DecodeOptions::default()).unwrap();
    assert_eq!(c.id, "new");
}

#[test]
fn extensions_by_full_name() {
    use vt_tests::own_standalone::vt::test::proto2::{Extendable, EXT_INT32, EXT_REPEATED};
    use vtproto::Extendable as _;
    let mut m = Extendable::default();
    m.set_extension(&EXT_REPEATED, vec![-1, 2]);
    m.set_extension(&EXT_INT32, 7);
    let text = text::to_string(&m).unwrap();
    assert!(text.contains("[vt.test.proto2.ext_repeated]: -1"), "{text}");
    assert_eq!(text::from_str::<Extendable>(&text).unwrap(), m);
    // Many occurrences of a repeated extension add up, each in constant time (the values
    // gather, and are set once).
    let many = "[vt.test.proto2.ext_repeated]: 1 ".repeat(50_000)
        + "[vt.test.proto2.ext_repeated]: [2, 3]";
    let read: Extendable = text::from_str(&many).unwrap();
    let values = read.extension(&EXT_REPEATED).unwrap().unwrap();
    assert_eq!(values.len(), 50_002);
    assert_eq!(values[50_001], 3);
    // Merging adds to the values the message had.
    let mut merged = m.clone();
    text::merge_from_str(
        &mut merged,
        "[vt.test.proto2.ext_repeated]: 9",
        &DecodeOptions::default(),
    )
    .unwrap();
    assert_eq!(
        merged.extension(&EXT_REPEATED).unwrap().unwrap(),
        [-1, 2, 9]
    );
}

#[test]
fn unknown_fields_skip_when_asked() {
    let newer = r#"
        candidates {
          id: "a"
          added_later: [1, 2]
          meta_data { key: "k" value: "v" also_new: { x: -0x10 } }
          [some.ext] { y: "z" }
        }
        top_level_new: 1.5;
    "#;
    assert!(matches!(
        text::from_str::<CandidatesResponse>(newer)
            .unwrap_err()
            .kind(),
        TextErrorKind::UnknownField { .. }
    ));
    let options = DecodeOptions {
        ignore_unknown_fields: true,
        ..Default::default()
    };
    let read: CandidatesResponse = text::from_str_with(newer, &options).unwrap();
    assert_eq!(read.candidates.len(), 1);
    assert_eq!(read.candidates[0].id, "a");
    assert_eq!(read.candidates[0].meta_data["k"], "v");
    // Still text: a malformed unknown value is an error.
    assert!(text::from_str_with::<CandidatesResponse>("x: [1,", &options).is_err());
    assert!(text::from_str_with::<CandidatesResponse>("x: 1;;", &options).is_err());
}

#[test]
fn a_map_entry_takes_one_message_value() {
    use vt_tests::own_standalone::vt::test::proto3::Maps;
    // Even empty, a message value is set once read: C++ and Python refuse a second one.
    for text in [
        r#"m_string_message { key: "a" value { } value { } }"#,
        r#"m_string_message { key: "a" value { f_int32: 1 } value { f_int32: 2 } }"#,
    ] {
        let e = text::from_str::<Maps>(text).unwrap_err();
        assert_eq!(*e.kind(), TextErrorKind::DuplicateField, "{text}");
        let pool = vtproto::reflect::DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap();
        let desc = pool.get_message_by_name("vt.test.proto3.Maps").unwrap();
        let e = vtproto::reflect::DynamicMessage::from_text(desc, text).unwrap_err();
        assert_eq!(*e.kind(), TextErrorKind::DuplicateField, "{text}");
    }
    // A scalar value at its default may come again (proto3: no presence), as in C++.
    let m: Maps = text::from_str(r#"m_string_string { key: "a" value: "" value: "b" }"#).unwrap();
    assert_eq!(m.m_string_string["a"], "b");
}
