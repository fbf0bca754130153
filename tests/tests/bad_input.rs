//! Hostile and broken input: every case is a typed error (or, where the bytes are valid, the
//! same value prost decodes), never a panic, and never an allocation sized by a length prefix.

use vt_tests::own::vt::deep::Node;
use vt_tests::own::vt::test::proto3::{Oneofs, Repeateds, Scalars};
use vtproto::{DecodeErrorKind, Message, Reader};

#[global_allocator]
static ALLOC: alloc_stats::Tracking = alloc_stats::Tracking;

/// Decodes `bytes` as `M` and returns the error kind, asserting that no single allocation was
/// larger than 8 bytes per input byte (the widest element per byte of wire data) plus a page.
fn reject<M: Message + std::fmt::Debug>(bytes: &[u8]) -> vtproto::DecodeError {
    let (result, stats) = alloc_stats::measure(|| M::decode(bytes));
    let largest = stats.largest;
    assert!(
        largest <= 8 * bytes.len() + 4096,
        "allocated {largest} bytes for {} input bytes",
        bytes.len()
    );
    result.expect_err("must be rejected")
}

fn rich_scalars() -> Scalars {
    Scalars {
        f_double: 1.5,
        f_float: -2.0,
        f_int64: -3,
        f_uint64: u64::MAX,
        f_int32: -1,
        f_fixed64: 7,
        f_fixed32: 9,
        f_bool: true,
        f_string: "héllo".into(),
        f_bytes: vec![0, 1, 2],
        f_uint32: 300,
        f_sfixed32: -5,
        f_sfixed64: -6,
        f_sint32: -7,
        f_sint64: -8,
        f_enum: 2,
        f_imported_enum: 1,
        f_far: 42,
        f_mid: "mid".into(),
    }
}

#[test]
fn truncation_at_every_byte_agrees_with_prost() {
    let mut repeateds = Repeateds {
        r_int32: vec![1, -1, 300],
        r_string: vec!["a".into(), "bc".into()],
        r_double: vec![1.0, 2.0],
        r_unpacked_int32: vec![5, 6],
        ..Default::default()
    };
    repeateds.r_message.push(rich_scalars());
    let full = repeateds.encode_to_vec();
    assert!(full.len() > 100);
    let mut rejected = 0;
    for cut in 0..full.len() {
        let prefix = &full[..cut];
        let ours = <Repeateds as Message>::decode(prefix);
        let prost = <Repeateds as prost::Message>::decode(prefix);
        assert_eq!(ours.is_ok(), prost.is_ok(), "cut at {cut}");
        if let (Ok(a), Ok(b)) = (&ours, &prost) {
            assert_eq!(a, b, "cut at {cut}");
        }
        rejected += usize::from(ours.is_err());
    }
    assert!(
        rejected > full.len() / 2,
        "most prefixes end inside a field"
    );
}

#[test]
fn overlong_varints() {
    // An 11-byte varint as the key, then as a value of field 3 (int64).
    let e = reject::<Scalars>(&[0xff; 11]);
    assert_eq!(*e.kind(), DecodeErrorKind::InvalidVarint);
    let mut v = vec![0x18];
    v.extend([0x80; 10]);
    v.push(0x01);
    let e = reject::<Scalars>(&v);
    assert_eq!(*e.kind(), DecodeErrorKind::InvalidVarint);
    assert_eq!(
        e.path().collect::<Vec<_>>(),
        [("vt.test.proto3.Scalars", "f_int64")]
    );
    // A tenth byte above 1 overflows 64 bits.
    let mut v = vec![0x18];
    v.extend([0xff; 9]);
    v.push(0x02);
    assert_eq!(
        *reject::<Scalars>(&v).kind(),
        DecodeErrorKind::InvalidVarint
    );
}

#[test]
fn lengths_past_the_end_allocate_nothing() {
    // Field 9 (string) claiming u64::MAX, usize::MAX - 1, and 1 GiB bytes.
    for len in [u64::MAX, usize::MAX as u64 - 1, 1 << 30] {
        let mut v = vec![0x4a];
        rust_vt_support_varint(len, &mut v);
        v.extend_from_slice(b"abc");
        let e = reject::<Scalars>(&v);
        assert_eq!(*e.kind(), DecodeErrorKind::LengthOutOfBounds(len));
    }
    // A packed field claiming more elements than there are bytes.
    let mut v = vec![0x2a];
    rust_vt_support_varint(1 << 40, &mut v);
    v.extend([1, 2, 3]);
    assert!(matches!(
        reject::<Repeateds>(&v).kind(),
        DecodeErrorKind::LengthOutOfBounds(_)
    ));
    // A nested message whose length runs past its parent's.
    let e = reject::<Repeateds>(&[0x8a, 0x01, 0x02, 0x4a, 0x05, b'a']);
    assert!(
        matches!(e.kind(), DecodeErrorKind::LengthOutOfBounds(5)),
        "{e}"
    );
}

fn rust_vt_support_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[test]
fn wrong_wire_types_name_the_field() {
    // f_double (field 1) sent as a varint.
    let e = reject::<Scalars>(&[0x08, 0x01]);
    assert_eq!(
        *e.kind(),
        DecodeErrorKind::WireTypeMismatch {
            field_number: 1,
            found: 0
        }
    );
    assert!(
        e.to_string().contains("vt.test.proto3.Scalars.f_double"),
        "{e}"
    );
    assert!(<Scalars as prost::Message>::decode(&[0x08u8, 0x01][..]).is_err());
    // A oneof string member (field 2) sent as fixed32.
    let e = reject::<Oneofs>(&[0x15, 0, 0, 0, 0]);
    assert!(matches!(e.kind(), DecodeErrorKind::WireTypeMismatch { .. }));
    // Reserved wire types and field number 0.
    assert!(matches!(
        reject::<Scalars>(&[0x0e]).kind(),
        DecodeErrorKind::InvalidWireType(6)
    ));
    assert!(matches!(
        reject::<Scalars>(&[0x00, 0x00]).kind(),
        DecodeErrorKind::InvalidKey(0)
    ));
    // An end-group key with no group open.
    assert!(matches!(
        reject::<Scalars>(&[0xfc, 0x01]).kind(),
        DecodeErrorKind::UnexpectedEndGroup(31)
    ));
}

/// `merge_field`'s last arm tells a declared number with another wire type (an error, as in
/// prost) from an undeclared one (skipped): numbers below 128 by a bit set, the rest by a
/// pattern. `Scalars` declares 1-17, 2048 and 536870911.
#[test]
fn declared_numbers_with_other_wire_types_are_errors_and_the_rest_skipped() {
    let key = |number: u32, wire_type: u32| {
        let mut out = Vec::new();
        rust_vt_support_varint(u64::from(number << 3 | wire_type), &mut out);
        out
    };
    for number in [1, 16, 17, 2048, 536_870_911] {
        // Sent as fixed32, which none of them is.
        let mut bytes = key(number, 5);
        bytes.extend([0, 0, 0, 0]);
        assert_eq!(
            *reject::<Scalars>(&bytes).kind(),
            DecodeErrorKind::WireTypeMismatch {
                field_number: number,
                found: 5
            },
            "field {number}"
        );
        assert!(<Scalars as prost::Message>::decode(&bytes[..]).is_err());
    }
    for number in [18, 64, 127, 128, 129, 2047, 2049, 536_870_910] {
        let mut bytes = key(number, 5);
        bytes.extend([0, 0, 0, 0]);
        assert_eq!(
            Scalars::decode(&bytes).expect("an unknown field is skipped"),
            Scalars::default(),
            "field {number}"
        );
        assert!(<Scalars as prost::Message>::decode(&bytes[..]).is_ok());
    }
}

fn nested(levels: usize) -> Vec<u8> {
    let mut node = Node::default();
    for i in 0..levels {
        node = Node {
            child: Some(Box::new(node)),
            value: i as i64,
            label: String::new(),
        };
    }
    node.encode_to_vec()
}

#[test]
fn recursion_limit_matches_prost() {
    // A top-level message with 100 nested levels below it decodes; 101 is one too many.
    let ok = nested(100);
    assert!(<Node as Message>::decode(&ok).is_ok());
    assert!(<Node as prost::Message>::decode(&ok[..]).is_ok());
    let deep = nested(101);
    assert_eq!(
        *reject::<Node>(&deep).kind(),
        DecodeErrorKind::RecursionLimit
    );
    assert!(<Node as prost::Message>::decode(&deep[..]).is_err());
    // The limit is configurable.
    let mut node = Node::default();
    let shallow = nested(5);
    assert!(node
        .merge(&mut Reader::new(&shallow).with_recursion_limit(5))
        .is_ok());
    let mut node = Node::default();
    let e = node
        .merge(&mut Reader::new(&shallow).with_recursion_limit(4))
        .unwrap_err();
    assert_eq!(*e.kind(), DecodeErrorKind::RecursionLimit);
    assert_eq!(e.path().count(), 5, "{e}");
}

#[test]
fn deeply_nested_garbage_does_not_overflow_the_stack() {
    // 100,000 nested length prefixes of field 1: stops at the limit, not at the stack's end.
    let mut bytes = Vec::new();
    for _ in 0..100_000 {
        bytes.push(0x0a);
        bytes.push(0x7f);
    }
    assert!(<Node as Message>::decode(&bytes).is_err());
    // Nested unknown groups, too.
    let mut groups = vec![0x5b; 100_000];
    groups.extend(vec![0x5c; 100_000]);
    assert_eq!(
        *reject::<Node>(&groups).kind(),
        DecodeErrorKind::RecursionLimit
    );
}

#[test]
fn invalid_utf8_is_rejected_with_its_field() {
    let e = reject::<Scalars>(&[0x4a, 0x02, 0xc3, 0x28]);
    assert_eq!(*e.kind(), DecodeErrorKind::InvalidUtf8);
    assert_eq!(
        e.path().collect::<Vec<_>>(),
        [("vt.test.proto3.Scalars", "f_string")]
    );
    assert!(<Scalars as prost::Message>::decode(&[0x4au8, 0x02, 0xc3, 0x28][..]).is_err());
    // bytes fields take anything.
    assert!(<Scalars as Message>::decode(&[0x52, 0x02, 0xc3, 0x28]).is_ok());
}

/// Views and `decode_into` keep the owned decode's limits and typed errors.
#[test]
fn views_and_decode_into_share_the_limits() {
    use vt_tests::own::vt::deep::NodeView;
    use vt_tests::own::vt::test::proto3::ScalarsView;
    use vtproto::MessageView;
    let view_kind = |bytes: &[u8]| NodeView::decode_view(bytes).unwrap_err().kind().clone();
    assert!(NodeView::decode_view(&nested(100)).is_ok());
    assert_eq!(view_kind(&nested(101)), DecodeErrorKind::RecursionLimit);
    let mut garbage = Vec::new();
    for _ in 0..100_000 {
        garbage.extend([0x0a, 0x7f]);
    }
    assert!(NodeView::decode_view(&garbage).is_err());
    let e = ScalarsView::decode_view(&[0x4a, 0x02, 0xc3, 0x28]).unwrap_err();
    assert_eq!(*e.kind(), DecodeErrorKind::InvalidUtf8);
    assert_eq!(
        e.path().collect::<Vec<_>>(),
        [("vt.test.proto3.Scalars", "f_string")]
    );
    let mut reused = Node::default();
    assert!(reused.decode_into(&nested(100)).is_ok());
    assert_eq!(
        *reused.decode_into(&nested(101)).unwrap_err().kind(),
        DecodeErrorKind::RecursionLimit
    );
    assert!(reused.decode_into(&garbage).is_err());
    // Still usable after the errors.
    reused.decode_into(&nested(3)).unwrap();
    assert_eq!(reused, <Node as Message>::decode(&nested(3)).unwrap());
}

/// `mode=standalone` keeps unknown fields, so it reads what the owned decode above skips: the
/// same limits hold (recursion through unknown groups, lengths past the end, truncation), the
/// kept records never outgrow the input, and a closed enum's undeclared number costs no more.
#[test]
fn standalone_keeps_the_limits() {
    use vt_tests::own_standalone::vt::deep::Node as SNode;
    use vt_tests::own_standalone::vt::test::proto3::Scalars as SScalars;
    // 100,000 nested unknown groups: a typed error at the recursion limit.
    let mut groups = vec![0x5b; 100_000];
    groups.extend(vec![0x5c; 100_000]);
    assert_eq!(
        *reject::<SNode>(&groups).kind(),
        DecodeErrorKind::RecursionLimit
    );
    // An unknown field claiming more bytes than there are.
    for len in [u64::MAX, 1 << 30] {
        let mut v = vec![0xfa, 0x7f];
        rust_vt_support_varint(len, &mut v);
        v.extend_from_slice(b"abc");
        assert_eq!(
            *reject::<SScalars>(&v).kind(),
            DecodeErrorKind::LengthOutOfBounds(len)
        );
    }
    // Truncated anywhere: the same verdict as mode=prost (known fields) or a typed error, and
    // what is kept is never larger than the input.
    let mut full = rich_scalars().encode_to_vec();
    full.extend_from_slice(&[
        0xfa, 0x7f, 0x03, 1, 2, 3, 0x83, 0x08, 0x08, 0x01, 0x84, 0x08,
    ]);
    for cut in 0..full.len() {
        let part = &full[..cut];
        let (result, stats) = alloc_stats::measure(|| SScalars::decode(part));
        assert!(stats.largest <= 8 * part.len() + 4096);
        if let Ok(s) = result {
            assert!(s.unknown_fields.encoded_len() <= part.len());
        }
    }
    let whole = SScalars::decode(&full).unwrap();
    assert_eq!(whole.unknown_fields.iter().count(), 2);
    assert_eq!(whole.encode_to_vec().len(), full.len());
}

/// Decoding `n` bytes allocates `O(n)`: for hostile shapes (every record an empty message of
/// a repeated field, map entries without key or value, unknown fields), the bytes allocated
/// grow linearly with the input, with a constant bounded by the size of the structs one
/// record can create, in both modes.
#[test]
fn allocation_grows_linearly_with_the_input() {
    use vt_tests::own::vt::test::proto3::Maps;
    use vt_tests::own_standalone::vt::test::proto3::Repeateds as SRepeateds;
    fn bytes_for<M: Message>(record: &[u8], n: usize) -> usize {
        let input = record.repeat(n);
        let (result, stats) = alloc_stats::measure(|| M::decode(&input));
        drop(result.expect("valid input"));
        stats.bytes
    }
    // The allocation per input byte may not grow with the input.
    fn linear<M: Message>(record: &[u8], per_byte: usize) {
        let (small, large) = (
            bytes_for::<M>(record, 1_000),
            bytes_for::<M>(record, 16_000),
        );
        let input = record.len() * 16_000;
        assert!(
            large <= per_byte * input + 4096,
            "{} bytes for {input} input bytes",
            large
        );
        assert!(
            large <= 20 * small + 4096,
            "{small} bytes for 1k records, {large} for 16k"
        );
    }
    let message = std::mem::size_of::<Scalars>();
    // Field 17: an empty message each 3 bytes (one struct each, in a doubling Vec).
    linear::<Repeateds>(&[0x8a, 0x01, 0x00], 2 * message);
    linear::<SRepeateds>(
        &[0x8a, 0x01, 0x00],
        2 * std::mem::size_of::<vt_tests::own_standalone::vt::test::proto3::Scalars>(),
    );
    // Map entries with neither key nor value, and with only a value: one entry at most.
    linear::<Maps>(&[0x62, 0x00], 64);
    linear::<Maps>(&[0x8a, 0x01, 0x02, 0x12, 0x00], 64);
    // Unknown fields kept by mode=standalone: at most what they take on the wire, doubled.
    linear::<SRepeateds>(&[0xf8, 0x7f, 0x01], 4);
}

/// Encoding and decoding a value nested to the recursion limit fit in a 2 MiB stack, the
/// default of a tokio worker or a spawned thread.
#[test]
fn the_recursion_limit_fits_a_2_mib_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let bytes = nested(100);
            let node = <Node as Message>::decode(&bytes).unwrap();
            assert_eq!(node.encode_to_vec(), bytes);
            assert_eq!(node.size(), bytes.len());
            let standalone =
                <vt_tests::own_standalone::vt::deep::Node as Message>::decode(&bytes).unwrap();
            assert_eq!(standalone.encode_to_vec(), bytes);
            let mut reused = Node::default();
            reused.decode_into(&bytes).unwrap();
            assert_eq!(reused, node);
        })
        .unwrap();
    handle
        .join()
        .expect("no stack overflow at the recursion limit");
}
