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

/// `protoc --encode=<type>` of a text-format message.
fn protoc_encode(message_type: &str, text: &str) -> Vec<u8> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut child = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg("-I")
        .arg(root.join("proto"))
        .arg("-I")
        .arg(protoc_bin_vendored::include_path().unwrap())
        .arg(format!("--encode={message_type}"))
        .arg("test/all_types_proto2.proto")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
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
    let wrong_type = Extendable::decode(&[0xa5, 0x06, 1, 2, 3, 4]).unwrap(); // fixed32 at 100
    assert!(wrong_type.extension(&p2::EXT_INT32).is_err());
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
