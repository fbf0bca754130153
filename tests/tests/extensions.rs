//! Extensions in `mode=standalone`, against `protoc --encode` as the oracle: a message built with
//! typed `set_extension` calls encodes to the bytes protoc makes of the same text-format message
//! (MessageSet items included), and protoc's bytes decode to the same extension values.
//! Extensions nobody declared survive a round trip.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use vt_tests::own_standalone::vt::test::proto2::{
    self as p2, bag_item, container, Bag, BagItem, Defaults, ExtGroup, Extendable, HasBag,
};
use vtproto::{Extendable as _, Message};

/// `protoc --<mode>=<type>` (`encode` or `decode`) on `input`: its output, or its complaint.
fn protoc(mode: &str, message_type: &str, input: &[u8]) -> Result<Vec<u8>, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut child = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg("-I")
        .arg(root.join("proto"))
        .arg("-I")
        .arg(protoc_bin_vendored::include_path().unwrap())
        .arg(format!("--{mode}={message_type}"))
        .arg("test/all_types_proto2.proto")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `protoc --encode=<type>` of a text-format message.
fn protoc_encode(message_type: &str, text: &str) -> Vec<u8> {
    protoc("encode", message_type, text.as_bytes()).unwrap_or_else(|e| panic!("{e}"))
}

fn defaults(money_free: f64) -> Defaults {
    Defaults {
        d_double: Some(money_free),
        d_string: Some("x".into()),
        ..Defaults::default()
    }
}

#[test]
fn typed_extensions_encode_as_protoc_does() {
    let mut m = Extendable {
        plain: Some(1),
        ..Extendable::default()
    };
    m.set_extension(&p2::EXT_INT32, -5);
    m.set_extension(&p2::EXT_STRING, "héllo".to_string());
    m.set_extension(&p2::EXT_MESSAGE, defaults(2.5));
    m.set_extension(&p2::EXT_REPEATED, vec![1, -2, 300]);
    m.set_extension(&p2::EXT_PACKED, vec![7, 8]);
    m.set_extension(
        &p2::EXTGROUP,
        ExtGroup {
            g: Some(9),
            ..ExtGroup::default()
        },
    );
    m.set_extension(&p2::EXT_LEVEL, 2);
    m.set_extension(&container::NESTED_EXT, vec![defaults(1.0), defaults(0.5)]);
    let text = r#"
        plain: 1
        [vt.test.proto2.ext_int32]: -5
        [vt.test.proto2.ext_string]: "héllo"
        [vt.test.proto2.ext_message] { d_double: 2.5 d_string: "x" }
        [vt.test.proto2.ext_repeated]: [1, -2, 300]
        [vt.test.proto2.ext_packed]: [7, 8]
        [vt.test.proto2.extgroup] { g: 9 }
        [vt.test.proto2.ext_level]: LEVEL_HIGH
        [vt.test.proto2.Container.nested_ext] { d_double: 1 d_string: "x" }
        [vt.test.proto2.Container.nested_ext] { d_double: 0.5 d_string: "x" }
    "#;
    let expected = protoc_encode("vt.test.proto2.Extendable", text);
    // protoc writes extensions in field-number order after the fields; ours keeps the order
    // they were set in, which is the same here.
    assert_eq!(m.encode_to_vec(), expected);

    let decoded = Extendable::decode(&expected).unwrap();
    assert_eq!(decoded.plain, Some(1));
    assert_eq!(decoded.extension(&p2::EXT_INT32).unwrap(), Some(-5));
    assert_eq!(
        decoded.extension(&p2::EXT_STRING).unwrap().as_deref(),
        Some("héllo")
    );
    assert_eq!(
        decoded.extension(&p2::EXT_MESSAGE).unwrap(),
        Some(defaults(2.5))
    );
    assert_eq!(
        decoded.extension(&p2::EXT_REPEATED).unwrap(),
        Some(vec![1, -2, 300])
    );
    assert_eq!(
        decoded.extension(&p2::EXT_PACKED).unwrap(),
        Some(vec![7, 8])
    );
    assert_eq!(
        decoded.extension(&p2::EXTGROUP).unwrap().and_then(|g| g.g),
        Some(9)
    );
    assert_eq!(decoded.extension(&p2::EXT_LEVEL).unwrap(), Some(2));
    assert_eq!(
        decoded.extension(&container::NESTED_EXT).unwrap(),
        Some(vec![defaults(1.0), defaults(0.5)])
    );
    assert_eq!(decoded, m);
}

#[test]
fn clearing_and_replacing_extensions() {
    let mut m = Extendable::default();
    assert!(!m.has_extension(&p2::EXT_INT32));
    assert_eq!(m.extension(&p2::EXT_INT32).unwrap(), None);
    m.set_extension(&p2::EXT_INT32, 1);
    m.set_extension(&p2::EXT_STRING, "a".into());
    m.set_extension(&p2::EXT_INT32, 2);
    assert_eq!(m.extension(&p2::EXT_INT32).unwrap(), Some(2));
    m.clear_extension(&p2::EXT_INT32);
    assert!(!m.has_extension(&p2::EXT_INT32));
    assert_eq!(m.extension(&p2::EXT_STRING).unwrap().as_deref(), Some("a"));
    // The last of several records wins for a scalar; a bad record is an error, not a panic.
    let twice = protoc_encode(
        "vt.test.proto2.Extendable",
        "[vt.test.proto2.ext_int32]: 1 [vt.test.proto2.ext_string]: \"s\"",
    );
    let mut doubled = twice.clone();
    doubled.extend_from_slice(&[0xa0, 0x06, 0x03]); // ext_int32 = 3 again
    let m = Extendable::decode(&doubled).unwrap();
    assert_eq!(m.extension(&p2::EXT_INT32).unwrap(), Some(3));
    // A record of another wire type is no value of the extension: the spec keeps it as an
    // unknown field, byte for byte.
    let wrong_type = Extendable::decode(&[0xa5, 0x06, 1, 2, 3, 4]).unwrap(); // fixed32 at 100
    assert_eq!(wrong_type.extension(&p2::EXT_INT32).unwrap(), None);
    assert_eq!(wrong_type.encode_to_vec(), [0xa5, 0x06, 1, 2, 3, 4]);
}

/// `protoc --decode=<type>` of `bytes`: the text format, or protoc's complaint.
fn protoc_decode(message_type: &str, bytes: &[u8]) -> Result<String, String> {
    protoc("decode", message_type, bytes).map(|out| String::from_utf8(out).unwrap())
}

/// A record of field `number` with wire type `wire_type` and value bytes `value`.
fn record(number: u32, wire_type: u32, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut key = u64::from(number << 3 | wire_type);
    while key >= 0x80 {
        out.push(key as u8 | 0x80);
        key >>= 7;
    }
    out.push(key as u8);
    out.extend_from_slice(value);
    out
}

fn len_prefixed(body: &[u8]) -> Vec<u8> {
    assert!(body.len() < 0x80);
    let mut out = vec![body.len() as u8];
    out.extend_from_slice(body);
    out
}

/// Declared extensions in another form than their declaration's are read into their types
/// and written back in their declared form: the bytes protoc (C++) writes for the value it
/// reads from the same input. Corrupt ones are refused, as protoc refuses them.
#[test]
fn declared_extensions_are_checked_and_reencoded_canonically() {
    let message = |v: f64, s: &str| {
        Defaults {
            d_double: Some(v),
            d_string: Some(s.into()),
            ..Defaults::default()
        }
        .encode_to_vec()
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        // sint64, declared expanded, arriving packed (1, -1, 300), then one more expanded.
        (
            "expanded field read packed",
            [
                record(103, 2, &len_prefixed(&[2, 1, 0xd8, 0x04])),
                record(103, 0, &[6]),
            ]
            .concat(),
        ),
        // fixed32, declared packed, arriving expanded, then packed.
        (
            "packed field read expanded",
            [
                record(104, 5, &[1, 0, 0, 0]),
                record(104, 5, &[2, 0, 0, 0]),
                record(104, 2, &len_prefixed(&[3, 0, 0, 0])),
            ]
            .concat(),
        ),
        (
            "the last scalar wins",
            [record(100, 0, &[1]), record(100, 0, &[0x7f])].concat(),
        ),
        (
            "a message in several records merges",
            [
                record(102, 2, &len_prefixed(&message(1.5, "a"))),
                record(1, 0, &[9]),
                record(102, 2, &len_prefixed(&message(2.5, "b"))),
            ]
            .concat(),
        ),
        (
            "a group in several records merges",
            [
                record(105, 3, &[8, 1, 0xcc, 0x06]),
                record(105, 3, &[8, 2, 0xcc, 0x06]),
            ]
            .concat(),
        ),
        // Level is closed: 7 is no value of it, and stays an unknown varint.
        (
            "a closed enum's unknown number",
            [record(106, 0, &[2]), record(106, 0, &[7])].concat(),
        ),
        (
            "a MessageSet-free repeated message",
            [
                record(150, 2, &len_prefixed(&message(1.0, "x"))),
                record(150, 2, &len_prefixed(&[])),
            ]
            .concat(),
        ),
    ];
    for (what, input) in &cases {
        let text = protoc_decode("vt.test.proto2.Extendable", input).unwrap();
        // protoc prints a field it keeps unknown (`106: 7`) but can't read it back: it
        // writes those after the known fields and extensions, as we do.
        let (unknown, known): (Vec<&str>, Vec<&str>) = text
            .lines()
            .partition(|l| l.starts_with(|c: char| c.is_ascii_digit()));
        let mut expected = protoc_encode("vt.test.proto2.Extendable", &known.join("\n"));
        for line in unknown {
            let (number, value) = line.split_once(": ").unwrap();
            let value: u64 = value.parse().unwrap();
            assert!(value < 0x80, "{line}");
            expected.extend(record(number.parse().unwrap(), 0, &[value as u8]));
        }
        let ours = Extendable::decode(input).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(ours.encode_to_vec(), expected, "{what}");
        assert_eq!(ours.size(), expected.len(), "{what}: size()");
        // Decoded again, the value is the same.
        assert_eq!(Extendable::decode(&expected).unwrap(), ours, "{what}");
    }
    let corrupt: Vec<(&str, Vec<u8>)> = vec![
        (
            "a packed fixed32 run of 3 bytes",
            record(104, 2, &len_prefixed(&[1, 2, 3])),
        ),
        (
            "a packed sint64 run ending mid-varint",
            record(103, 2, &len_prefixed(&[2, 0x80])),
        ),
        (
            "a message holding a truncated varint",
            record(102, 2, &len_prefixed(&[0x08, 0x80])),
        ),
        ("a group without its end", record(105, 3, &[8, 1])),
    ];
    for (what, input) in &corrupt {
        assert!(
            protoc_decode("vt.test.proto2.Extendable", input).is_err(),
            "protoc: {what}"
        );
        let e = Extendable::decode(input).expect_err(what);
        assert!(
            e.path()
                .any(|(_, field)| field.starts_with("[vt.test.proto2.")),
            "{what}: the error names the extension: {e}"
        );
    }
    // proto2 leaves a string unchecked (protoc keeps the bytes); a Rust `String` can't hold
    // them, so we refuse, as for a declared field.
    let e = Extendable::decode(&record(101, 2, &len_prefixed(&[0xff]))).unwrap_err();
    assert_eq!(e.kind(), &vtproto::DecodeErrorKind::InvalidUtf8);
}

#[test]
fn message_set_items_match_protoc() {
    let mut bag = Bag::default();
    bag.set_extension(
        &bag_item::IN_BAG,
        BagItem {
            text: Some("in a bag".into()),
            ..BagItem::default()
        },
    );
    let outer = HasBag {
        bag: Some(bag),
        ..HasBag::default()
    };
    let expected = protoc_encode(
        "vt.test.proto2.HasBag",
        r#"bag { [vt.test.proto2.BagItem.in_bag] { text: "in a bag" } }"#,
    );
    assert_eq!(outer.encode_to_vec(), expected);
    let decoded = HasBag::decode(&expected).unwrap();
    let item = decoded
        .bag
        .as_ref()
        .unwrap()
        .extension(&bag_item::IN_BAG)
        .unwrap()
        .unwrap();
    assert_eq!(item.text.as_deref(), Some("in a bag"));
    let mut bag = decoded.bag.unwrap();
    assert!(bag.has_extension(&bag_item::IN_BAG));
    bag.clear_extension(&bag_item::IN_BAG);
    assert!(bag.unknown_fields.is_empty());
}

/// A MessageSet item is read field by field, as C++ and upb read it: each message with the
/// type id before it (or the first one after it), so a corrupt message is refused even when a
/// later pair in the same item would replace it, and a message may come before its type id.
#[test]
fn message_set_items_are_read_pair_by_pair() {
    let item = |fields: &[Vec<u8>]| {
        let mut out = vec![0x0b];
        for f in fields {
            out.extend_from_slice(f);
        }
        out.push(0x0c);
        out
    };
    let type_id = record(2, 0, &[0xe9, 0x07]); // 1001: BagItem.in_bag
    let text = |s: &[u8]| record(3, 2, &len_prefixed(&record(1, 2, &len_prefixed(s))));
    // The first message claims 5 bytes of text and has 1.
    let corrupt = record(3, 2, &len_prefixed(&[0x0a, 0x05, b'a']));
    let two_pairs = item(&[type_id.clone(), corrupt, type_id.clone(), text(b"b")]);
    assert!(protoc_decode("vt.test.proto2.Bag", &two_pairs).is_err());
    assert!(Bag::decode(&two_pairs).is_err());
    // The message before its type id.
    let late_id = item(&[text(b"x"), type_id]);
    let bag = Bag::decode(&late_id).unwrap();
    assert_eq!(
        bag.extension(&bag_item::IN_BAG)
            .unwrap()
            .unwrap()
            .text
            .as_deref(),
        Some("x")
    );
    let text = protoc_decode("vt.test.proto2.Bag", &late_id).unwrap();
    assert_eq!(
        bag.encode_to_vec(),
        protoc_encode("vt.test.proto2.Bag", &text)
    );
}
