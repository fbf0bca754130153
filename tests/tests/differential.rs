//! Differential tests against prost, on the same structs, for every message type of the
//! project's protos (and of the conformance, googleapis and OpenTelemetry protos when installed).
//!
//! For random valid encodings (see `support`): both decoders accept them and agree; our encoding
//! of the decoded value has exactly `size()` bytes and equals prost's byte for byte (or, where maps
//! can reorder entries, decodes to the same value); and for corrupted encodings both decoders
//! accept or reject alike, agreeing on the value when they accept. Each type's view
//! (`FooView<'a>`) accepts and rejects exactly what the owned decode does, converts to the same
//! owned value, and encodes back (in exactly `size()` bytes) to an equivalent encoding.

mod support;

use std::fmt::Debug;

use proptest::prelude::*;
use support::{mutate, same_but_nan, verdict, Rng, Schema};

trait Both: prost::Message + vtproto::Message + PartialEq + Debug + Default {
    /// Decodes `bytes` as this type's view: its owned value, its encoding and its `size()`.
    fn view(bytes: &[u8]) -> Result<(Self, Vec<u8>, usize), vtproto::DecodeError>;
}

type Check = fn(&Schema, &str, u64);

/// The per-type property, for one seed.
fn check<T: Both>(schema: &Schema, name: &str, seed: u64) {
    let mut rng = Rng::new(seed);
    let bytes = schema.random_message(name, &mut rng);

    let expected = <T as prost::Message>::decode(&bytes[..])
        .unwrap_or_else(|e| panic!("{name} seed {seed}: prost rejects a valid encoding: {e}"));
    let ours = <T as vtproto::Message>::decode(&bytes)
        .unwrap_or_else(|e| panic!("{name} seed {seed}: rejects a valid encoding: {e}"));
    assert_eq!(ours, expected, "{name} seed {seed}: decoded values differ");
    check_view(name, seed, &bytes, &expected, schema.has_map(name));

    let encoded = vtproto::Message::encode_to_vec(&expected);
    assert_eq!(
        encoded.len(),
        vtproto::Message::size(&expected),
        "{name} seed {seed}: size"
    );
    let prost_encoded = prost::Message::encode_to_vec(&expected);
    if schema.has_map(name) {
        assert_eq!(
            encoded.len(),
            prost_encoded.len(),
            "{name} seed {seed}: length"
        );
        let back = <T as prost::Message>::decode(&encoded[..]).expect("prost decodes ours");
        assert_eq!(
            back, expected,
            "{name} seed {seed}: re-decoded value differs"
        );
    } else {
        assert_eq!(
            encoded, prost_encoded,
            "{name} seed {seed}: bytes differ from prost's"
        );
    }

    check_decode_into::<T>(schema, name, seed, &bytes, &mut rng);

    for _ in 0..8 {
        let bad = mutate(&bytes, &mut rng);
        let p = <T as prost::Message>::decode(&bad[..]);
        let v = <T as vtproto::Message>::decode(&bad);
        match (&v, T::view(&bad)) {
            (Ok(v), Ok(_)) => check_view(name, seed, &bad, v, schema.has_map(name)),
            (Err(_), Err(_)) => {}
            (v, view) => panic!(
                "{name} seed {seed}: the owned decode {} but the view {} {bad:02x?}",
                verdict(v),
                verdict(&view)
            ),
        }
        match (p, v) {
            (Ok(p), Ok(v)) => assert!(
                v == p || same_but_nan(&v, &p),
                "{name} seed {seed}: values differ on mutated {bad:02x?}:\n{v:?}\n{p:?}"
            ),
            (Err(_), Err(_)) => {}
            (p, v) => panic!(
                "{name} seed {seed}: prost {} but we {} on {bad:02x?}",
                verdict(&p),
                verdict(&v)
            ),
        }
    }
}

/// `decode_into` one value over a sequence of inputs (the same again, thinned copies naming
/// fewer map keys and elements at every level, other random messages, corrupted ones, the
/// edge messages) gives what a fresh decode of each gives, and fails where it fails. (Every
/// pair of inputs is checked on the random schemas, where types are fewer.)
fn check_decode_into<T: Both>(schema: &Schema, name: &str, seed: u64, bytes: &[u8], rng: &mut Rng) {
    use vt_tests::properties::thin;
    let [empty, zeros, required] = <[Vec<u8>; 3]>::try_from(schema.edge_messages(name)).unwrap();
    let other = schema.random_message(name, rng);
    // The same input twice in a row takes the in-place paths (map keys unchanged).
    let inputs = [
        bytes.to_vec(),
        bytes.to_vec(),
        thin(bytes, seed),
        bytes.to_vec(),
        zeros.clone(),
        mutate(bytes, rng),
        bytes.to_vec(),
        required,
        zeros,
        other.clone(),
        thin(&other, !seed),
        mutate(bytes, rng),
        empty,
        schema.random_message(name, rng),
    ];
    let mut reused = T::default();
    for (i, input) in inputs.iter().enumerate() {
        match (<T as vtproto::Message>::decode(input), reused.decode_into(input)) {
            (Ok(fresh), Ok(())) => assert!(
                reused == fresh || same_but_nan(&reused, &fresh),
                "{name} seed {seed}: decode_into differs from a fresh decode at input {i}\n{reused:?}\n{fresh:?}\nINPUTS {:02x?}", &inputs[..=i]
            ),
            (Err(_), Err(_)) => {}
            (fresh, into) => panic!(
                "{name} seed {seed}: a fresh decode {} but decode_into {} input {i}",
                verdict(&fresh),
                verdict(&into)
            ),
        }
    }
}

/// The view of `bytes` agrees with `owned`, their owned decode: same value, and an encoding of
/// `size()` bytes that is the owned value's (or, with maps, whose entries the view keeps in
/// wire order, one that decodes to the same value).
fn check_view<T: Both>(name: &str, seed: u64, bytes: &[u8], owned: &T, has_map: bool) {
    let (from_view, encoded, size) = T::view(bytes)
        .unwrap_or_else(|e| panic!("{name} seed {seed}: the view rejects {bytes:02x?}: {e}"));
    assert!(
        from_view == *owned || same_but_nan(&from_view, owned),
        "{name} seed {seed}: to_owned_message differs from the owned decode"
    );
    assert_eq!(encoded.len(), size, "{name} seed {seed}: view size");
    if has_map {
        // Compared after a round trip of the owned value too: encoding drops a -0.0 that an
        // implicit-presence field decoded.
        let back = <T as vtproto::Message>::decode(&encoded).expect("the view's encoding decodes");
        let owned = <T as vtproto::Message>::decode(&vtproto::Message::encode_to_vec(owned))
            .expect("the owned encoding decodes");
        assert!(
            back == owned || same_but_nan(&back, &owned),
            "{name} seed {seed}: the view's encoding decodes to another value"
        );
    } else {
        assert_eq!(
            encoded,
            vtproto::Message::encode_to_vec(&from_view),
            "{name} seed {seed}: the view's encoding differs from the owned value's"
        );
    }
}

/// Expands a generated `_registry.rs` into the list of (full name, check) of a suite.
macro_rules! registry {
    ($($name:literal => $ty:path, $view:path),* $(,)?) => {
        $(
            impl super::Both for $ty {
                fn view(bytes: &[u8]) -> Result<(Self, Vec<u8>, usize), vtproto::DecodeError> {
                    let view: $view = vtproto::MessageView::decode_view(bytes)?;
                    Ok((
                        vtproto::MessageView::to_owned_message(&view),
                        vtproto::MessageView::encode_to_vec(&view),
                        vtproto::MessageView::size(&view),
                    ))
                }
            }
        )*
        pub fn all() -> Vec<(&'static str, super::Check)> {
            vec![$(($name, super::check::<$ty> as super::Check)),*]
        }
    };
}

macro_rules! suite {
    ($module:ident, $root:path, $descriptors:path, $registry:literal) => {
        mod $module {
            #[allow(unused_imports)]
            use $root::*;
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
    vt_tests::OWN_DESCRIPTORS,
    "/own/_registry.rs"
);
#[cfg(vt_conformance)]
suite!(
    conformance,
    vt_tests::conformance,
    vt_tests::CONFORMANCE_DESCRIPTORS,
    "/conformance/_registry.rs"
);
#[cfg(vt_googleapis)]
suite!(
    googleapis,
    vt_tests::googleapis,
    vt_tests::GOOGLEAPIS_DESCRIPTORS,
    "/googleapis/_registry.rs"
);
#[cfg(vt_otel)]
suite!(
    otel,
    vt_tests::otel,
    vt_tests::OTEL_DESCRIPTORS,
    "/otel/_registry.rs"
);

/// Types prost itself can't use: `TestAllRequiredTypesProto2` has required (so unboxed-`Option`
/// free) mutually recursive message fields, and prost's `Default` for it recurses forever.
const UNUSABLE_IN_PROST: &[&str] = &["protobuf_test_messages.proto2.TestAllRequiredTypesProto2"];

fn run(schema: &Schema, types: &[(&'static str, Check)], seed: u64) {
    for (name, check) in types {
        if UNUSABLE_IN_PROST.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        check(schema, name, seed);
    }
}

macro_rules! differential {
    ($test:ident, $module:ident $(, $cfg:meta)?) => {
        $(#[cfg($cfg)])?
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            #[test]
            fn $test(seed in any::<u64>()) {
                thread_local!(static S: (Schema, Vec<(&'static str, Check)>) =
                    ($module::schema(), $module::all()));
                S.with(|(schema, types)| run(schema, types, seed));
            }
        }
    };
}

differential!(own_protos_agree_with_prost, own);
differential!(
    conformance_protos_agree_with_prost,
    conformance,
    vt_conformance
);
differential!(
    googleapis_protos_agree_with_prost,
    googleapis,
    vt_googleapis
);
differential!(otel_protos_agree_with_prost, otel, vt_otel);

#[test]
fn every_message_type_is_registered() {
    // A registry that lost types would silently test less: compare with the descriptors.
    let schema = own::schema();
    let expected = schema
        .message_names()
        .filter(|n| n.starts_with("vt."))
        .count();
    assert!(expected > 30);
    assert_eq!(own::all().len(), expected);
}
