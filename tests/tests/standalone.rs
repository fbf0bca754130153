//! `mode=standalone` against `mode=prost` (itself checked against prost in `differential.rs`),
//! views of our structs included:
//! our own structs and prost-build's, generated from the same protos, on the same random
//! inputs (known and unknown fields, packed and unpacked, out of order, repeated, corrupted).
//!
//! For valid inputs both decode; the standalone value re-encodes in exactly `size()` bytes to
//! an encoding that decodes back to itself and, where no closed enum is involved, to the
//! prost-mode value. On corrupted inputs both accept or reject alike, except where the spec and
//! prost part ways: a declared field number with another wire type is an unknown field to
//! `mode=standalone` and an error to prost. `decode_into` agrees with a fresh decode. Unknown
//! fields come back in their order.

mod support;

use std::fmt::Debug;

use proptest::prelude::*;
use support::{mutate, same_but_nan, verdict, Rng, Schema};
use vtproto::{DecodeErrorKind, Message};

type Check = fn(&Schema, &str, u64);

/// Decodes as the type's view and encodes its owned message (views skip unknown fields).
type ViewReencode = fn(&[u8]) -> Result<Vec<u8>, vtproto::DecodeError>;

fn check<P, S>(schema: &Schema, name: &str, seed: u64, view: ViewReencode)
where
    P: Message + PartialEq + Debug,
    S: Message + PartialEq + Debug,
{
    let mut rng = Rng::new(seed);
    let bytes = schema.random_message(name, &mut rng);
    let p = P::decode(&bytes)
        .unwrap_or_else(|e| panic!("{name} seed {seed}: prost mode rejects a valid input: {e}"));
    // Random inputs may lack required fields, which only mode=standalone can tell: compare
    // what was read, and check that `decode` refuses exactly those.
    let s = partial::<S>(&bytes)
        .unwrap_or_else(|e| panic!("{name} seed {seed}: standalone rejects a valid input: {e}"));
    match S::decode(&bytes) {
        Ok(decoded) => assert_eq!(decoded, s, "{name} seed {seed}"),
        Err(e) => assert!(
            missing_required(&e) && s.check_initialized().is_err(),
            "{name} seed {seed}: {e}"
        ),
    }
    let encoded = s.encode_to_vec();
    assert_eq!(encoded.len(), s.size(), "{name} seed {seed}: size");
    let again = partial::<S>(&encoded).expect("standalone decodes its own encoding");
    assert!(
        again == s || same_but_nan(&again, &s),
        "{name} seed {seed}: the standalone encoding decodes to another value"
    );
    if !schema.has_closed_enum(name) {
        let back = P::decode(&encoded).expect("prost mode decodes the standalone encoding");
        let p_again = P::decode(&p.encode_to_vec()).unwrap();
        assert!(
            back == p_again || same_but_nan(&back, &p_again),
            "{name} seed {seed}: values differ\n{back:?}\n{p_again:?}"
        );
    }

    // The view reads what prost mode reads (it skips unknown fields and keeps any enum number).
    let from_view = view(&bytes)
        .unwrap_or_else(|e| panic!("{name} seed {seed}: the view rejects a valid input: {e}"));
    let p_view = P::decode(&from_view).expect("prost mode decodes the view's owned message");
    assert!(
        p_view == p || same_but_nan(&p_view, &p),
        "{name} seed {seed}: the view's owned message differs"
    );

    let mut reused = S::default();
    for i in 0..8 {
        let bad = mutate(&bytes, &mut rng);
        let ps = P::decode(&bad);
        let ss = S::decode(&bad);
        match (&ps, &ss) {
            (Ok(_), Ok(_)) | (Err(_), Err(_)) => {}
            (Err(e), Ok(_)) if mismatch(e) => {}
            (Ok(_), Err(e)) if missing_required(e) => {}
            // prost has no extensions: it skips what our structs read as a declared one.
            (Ok(_), Err(e)) if vt_tests::properties::in_extension(e) => {}
            _ => panic!(
                "{name} seed {seed}: prost mode {} but standalone {} on {bad:02x?}",
                verdict(&ps),
                verdict(&ss)
            ),
        }
        let input = if i % 3 == 0 { &bytes } else { &bad };
        match (S::decode(input), reused.decode_into(input)) {
            (Ok(fresh), Ok(())) => assert!(
                reused == fresh || same_but_nan(&reused, &fresh),
                "{name} seed {seed}: decode_into differs from a fresh decode at input {i}"
            ),
            (Err(_), Err(_)) => {}
            (fresh, into) => panic!(
                "{name} seed {seed}: a fresh decode {} but decode_into {}",
                verdict(&fresh),
                verdict(&into)
            ),
        }
    }
    // Every pair of the random input, thinned copies and the edge messages.
    let edges = schema.edge_messages(name);
    let thinned = vt_tests::properties::thin(&bytes, seed);
    let mut inputs: Vec<&[u8]> = vec![&bytes, &thinned];
    inputs.extend(edges.iter().map(Vec::as_slice));
    vt_tests::properties::check_reuse::<S>(&inputs);
}

/// Decodes without checking required fields (`merge` alone).
fn partial<S: Message>(bytes: &[u8]) -> Result<S, vtproto::DecodeError> {
    let mut s = S::default();
    s.merge(&mut vtproto::Reader::new(bytes))?;
    Ok(s)
}

fn missing_required(e: &vtproto::DecodeError) -> bool {
    matches!(e.kind(), DecodeErrorKind::MissingRequired { .. })
}

/// Whether the error is a known field number with another wire type (somewhere inside).
fn mismatch(e: &vtproto::DecodeError) -> bool {
    matches!(e.kind(), DecodeErrorKind::WireTypeMismatch { .. })
}

macro_rules! pairs {
    ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
        pub fn all() -> Vec<(&'static str, super::Check)> {
            vec![$((
                $name,
                (|schema: &super::Schema, name: &str, seed: u64| {
                    super::check::<Prost::$($seg)::+, Standalone::$($seg)::+>(
                        schema,
                        name,
                        seed,
                        |bytes| {
                            let view: Standalone::$($view)::+ =
                                vtproto::MessageView::decode_view(bytes)?;
                            let owned = vtproto::MessageView::to_owned_message(&view);
                            Ok(vtproto::Message::encode_to_vec(&owned))
                        },
                    )
                }) as super::Check,
            )),*]
        }
    };
}

macro_rules! suite {
    ($module:ident, $prost:path, $standalone:path, $descriptors:path, $registry:literal) => {
        #[allow(non_snake_case, unused_imports)]
        mod $module {
            use $prost as Prost;
            use $standalone as Standalone;
            include!(concat!(env!("OUT_DIR"), $registry));
            pub fn schema() -> super::Schema {
                super::Schema::new($descriptors)
            }
        }
    };
}

suite!(
    own,
    vt_tests::own,
    vt_tests::own_standalone,
    vt_tests::OWN_DESCRIPTORS,
    "/own-standalone/_registry.rs"
);
#[cfg(vt_conformance)]
suite!(
    conformance,
    vt_tests::conformance,
    vt_tests::conformance_standalone,
    vt_tests::CONFORMANCE_DESCRIPTORS,
    "/conformance-standalone/_registry.rs"
);

/// prost's `Default` for it recurses forever (required, mutually recursive message fields), and
/// ours, shaped the same, too.
const UNUSABLE: &[&str] = &["protobuf_test_messages.proto2.TestAllRequiredTypesProto2"];

fn run(schema: &Schema, types: &[(&'static str, Check)], seed: u64) {
    for (name, check) in types {
        if !UNUSABLE.iter().any(|p| name.starts_with(p)) {
            check(schema, name, seed);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn own_protos_agree_with_prost_mode(seed in any::<u64>()) {
        thread_local!(static S: (Schema, Vec<(&'static str, Check)>) = (own::schema(), own::all()));
        S.with(|(schema, types)| run(schema, types, seed));
    }
}

#[cfg(vt_conformance)]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn conformance_protos_agree_with_prost_mode(seed in any::<u64>()) {
        thread_local!(static S: (Schema, Vec<(&'static str, Check)>) =
            (conformance::schema(), conformance::all()));
        S.with(|(schema, types)| run(schema, types, seed));
    }
}

/// Every record a message does not declare comes back, in order, at every depth: an `Empty`
/// keeps a whole random message as unknown fields.
#[test]
fn unknown_fields_come_back_in_order() {
    let schema = own::schema();
    let mut rng = Rng::new(7);
    let mut checked = 0;
    for _ in 0..200 {
        let bytes = schema.random_message("vt.test.proto3.Scalars", &mut rng);
        let empty = vtproto::types::Empty::decode(&bytes).unwrap();
        // Keys are written back canonically (the generator writes some one byte too long).
        let expected = records(&bytes);
        let got: Vec<(u32, Vec<u8>)> = empty
            .unknown_fields
            .iter()
            .map(|f| (f.number, f.value.to_vec()))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(empty.encode_to_vec(), empty.unknown_fields.as_bytes());
        checked += usize::from(!expected.is_empty());
    }
    assert!(checked > 100, "{checked} non-empty inputs");
}

/// The top-level records of an encoding: (field number, value bytes).
fn records(bytes: &[u8]) -> Vec<(u32, Vec<u8>)> {
    let mut r = vtproto::Reader::new(bytes);
    let mut out = Vec::new();
    while !r.is_empty() {
        let key = r.read_key().unwrap();
        out.push((key >> 3, r.skip_field_raw(key).unwrap().to_vec()));
    }
    out
}

#[test]
fn every_message_type_is_paired() {
    let schema = own::schema();
    let expected = schema
        .message_names()
        .filter(|n| n.starts_with("vt."))
        .count();
    assert_eq!(own::all().len(), expected);
}

/// `encode_deterministic_to_vec` in both modes: equal maps give equal bytes whatever order they
/// were filled in (each `HashMap` iterates in an order of its own), entries come in key order,
/// and the bytes decode to the same value. (Byte equality with Python is `python_oracle.rs`.)
#[test]
fn deterministic_encoding_in_both_modes() {
    use std::collections::HashMap;
    let keys: Vec<i32> = (0..200).map(|i| (i * 7919) % 1000 - 500).collect();
    let fill = |order: &mut dyn Iterator<Item = &i32>| {
        let mut m: HashMap<String, i32> = HashMap::new();
        let mut n: HashMap<i32, i32> = HashMap::new();
        for &k in order {
            m.insert(format!("k{k}"), k);
            n.insert(k, -k);
        }
        (m, n)
    };
    let (m1, n1) = fill(&mut keys.iter());
    let (m2, n2) = fill(&mut keys.iter().rev());

    type P = vt_tests::own::vt::test::proto3::Maps;
    type S = vt_tests::own_standalone::vt::test::proto3::Maps;
    let prost = |m: &HashMap<String, i32>, n: &HashMap<i32, i32>| P {
        m_string_double: m.iter().map(|(k, v)| (k.clone(), f64::from(*v))).collect(),
        m_int32_int32: n.clone(),
        ..P::default()
    };
    let ours = |m: &HashMap<String, i32>, n: &HashMap<i32, i32>| S {
        m_string_double: m.iter().map(|(k, v)| (k.clone(), f64::from(*v))).collect(),
        m_int32_int32: n.clone(),
        ..S::default()
    };
    let (p1, p2) = (prost(&m1, &n1), prost(&m2, &n2));
    let (s1, s2) = (ours(&m1, &n1), ours(&m2, &n2));
    let pb = p1.encode_deterministic_to_vec();
    assert_eq!(pb, p2.encode_deterministic_to_vec());
    assert_eq!(P::decode(&pb).unwrap(), p1);
    let sb = s1.encode_deterministic_to_vec();
    assert_eq!(sb, s2.encode_deterministic_to_vec());
    assert_eq!(S::decode(&sb).unwrap(), s1);
    // Key order: the int32 keys of field 1 ascend.
    let int_keys: Vec<i32> = records(&sb)
        .into_iter()
        .filter(|(n, _)| *n == 1)
        .map(|(_, entry)| {
            let mut r = vtproto::Reader::new(&entry);
            let body = r.read_len_delimited().unwrap();
            let mut e = vtproto::Reader::new(body);
            assert_eq!(e.read_key().unwrap(), 8);
            e.read_int32().unwrap()
        })
        .collect();
    let mut sorted = int_keys.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(int_keys, sorted);
    assert!(int_keys.len() > 100);
    // Without the option the order is the map's own: not sorted here.
    assert_ne!(
        s1.encode_to_vec(),
        sb,
        "a HashMap of 200 keys iterating in key order"
    );
}

/// A decoded message must have its required fields (and so must the messages in it), as the
/// spec asks and `protoc --encode` would insist; mode=prost can't tell, as prost can't.
#[test]
fn missing_required_fields_are_refused() {
    use vt_tests::own_standalone::vt::test::proto2::{required, Extendable, Required};
    let err = Required::decode(&[]).unwrap_err();
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::MissingRequired {
            message: "vt.test.proto2.Required".into(),
            field: "r_int32".into()
        }
    );
    let full = Required {
        r_int32: Some(0),
        r_string: Some(String::new()),
        r_level: Some(1),
        r_bytes: Some(Vec::new()),
        r_double: Some(1.5),
        r_nested: Some(required::Nested::default()),
        ..Required::default()
    };
    let bytes = full.encode_to_vec();
    assert_eq!(Required::decode(&bytes).unwrap(), full);
    // Set to defaults they are still written, and so present.
    assert_eq!(full.r_double(), 1.5);
    let mut without_nested = full.clone();
    without_nested.r_nested = None;
    let err = Required::decode(&without_nested.encode_to_vec()).unwrap_err();
    assert!(err.to_string().contains("Required.r_nested"), "{err}");
    let mut reused = full.clone();
    assert!(reused.decode_into(&without_nested.encode_to_vec()).is_err());
    // mode=prost reads the same bytes without complaint.
    type P = vt_tests::own::vt::test::proto2::Required;
    assert!(P::decode(&without_nested.encode_to_vec()).is_ok());
    // A message without required fields at any depth has nothing to check.
    assert!(Extendable::decode(&[]).is_ok());
}
