//! Python protobuf (PyPI `protobuf`) as the oracle of `mode=standalone`: random messages of the
//! editions 2023/2024 test protos and of the project's proto2/proto3 protos (maps, closed enums,
//! groups, extensions, unknown fields) are decoded by our structs and re-encoded with
//! `encode_deterministic_to_vec`; Python parses the same input and serializes it with
//! `deterministic=True`. The bytes must be equal, and where Python refuses an input we must too.
//!
//! Two backends answer: upb (the default one) for every message without maps, and the
//! pure-Python one for messages with maps. upb's `deterministic=True` does not put map entries
//! in key order (protobuf 7.36.2: int32 keys inserted as 5, -1, 0, 3 come out -1, 5, 3, 0, an
//! order of its own), the pure-Python implementation does, as the C++ one does. Pure Python has
//! quirks of its own, so messages with maps are generated without overlong keys (it takes a
//! known field behind one for an unknown field), and for those with closed enums (whose
//! unknown numbers it keeps in a map, where upb and C++ keep the entry among unknown fields)
//! the check is that upb reads the same value from our encoding as from the input.
//!
//! `vtproto::reflect::DynamicMessage`, built from the descriptor sets alone, is held to the
//! same bytes on every input.
//!
//! Needs a Python with `protobuf` installed, named by `VT_PYTHON` (`scripts/test.sh` makes one
//! in `target/py`); without it the test says so and passes, unless `VT_REQUIRE_PYTHON=1`.

mod support;

use std::path::PathBuf;

use support::oracle::{python, Oracle};
use support::{Rng, Schema};
use vtproto::Message;

type Reencode = fn(&[u8]) -> Result<Vec<u8>, vtproto::DecodeError>;

/// Decodes without the required-field check (as Python's `MergeFromString`), re-encodes.
fn reencode<S: Message>(bytes: &[u8]) -> Result<Vec<u8>, vtproto::DecodeError> {
    let mut s = S::default();
    s.merge(&mut vtproto::Reader::new(bytes))?;
    Ok(s.encode_deterministic_to_vec())
}

macro_rules! pairs {
    ($($name:literal => $($seg:ident)::+, $($view:ident)::+,)*) => {
        pub fn all() -> Vec<(&'static str, super::Reencode)> {
            vec![$(($name, super::reencode::<Standalone::$($seg)::+> as super::Reencode)),*]
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

/// An oracle (`upb` or `python`) over the project's protos.
fn start(python: &str, implementation: &str) -> Oracle {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let protos = [
        "test/editions/e2023.proto",
        "test/editions/e2024.proto",
        "test/all_types_proto3.proto",
        "test/all_types_proto2.proto",
        "test/imported.proto",
        "test/nasty_names.proto",
        "candidates.proto",
        "event.proto",
        "deep.proto",
    ];
    // Packages, not namespace packages: Python's own `test` package would win otherwise.
    for_protos(
        python,
        implementation,
        &root.join("proto"),
        &protos,
        &["test", "test/editions"],
    )
}

/// [`Oracle::for_protos`] into a folder of its own.
fn for_protos(
    python: &str,
    implementation: &str,
    include: &std::path::Path,
    protos: &[&str],
    packages: &[&str],
) -> Oracle {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!(
        "vt-py-{}-{implementation}-{call}",
        std::process::id()
    ));
    Oracle::for_protos(python, implementation, include, protos, packages, &out)
}

/// The two oracles: upb, and pure Python for messages with maps.
struct Oracles {
    upb: Oracle,
    python: Oracle,
}

fn compare(
    oracles: &mut Oracles,
    schema: &Schema,
    types: &[(&'static str, Reencode)],
    seeds: u64,
    pool: &vtproto::reflect::DescriptorPool,
) -> usize {
    // `DynamicMessage`, from the descriptors alone, accepts what we accept and writes the same
    // bytes: Python's verdicts below hold for it too.
    let dynamic = |name: &str, bytes: &[u8]| {
        let desc = pool.get_message_by_name(name).unwrap();
        vt_tests::properties::merged(&desc, bytes).map(|m| m.encode_to_vec())
    };
    let mut compared = 0;
    for seed in 0..seeds {
        for (name, reencode) in types {
            let mut rng = Rng::new(seed * 7919 + compared as u64);
            let maps = schema.has_map(name);
            // Pure Python takes a known field with an overlong key for an unknown one.
            support::set_overlong_keys(!maps);
            let bytes = schema.random_message(name, &mut rng);
            support::set_overlong_keys(true);
            let upb = oracles.upb.reencode(name, &bytes);
            let theirs = match (maps, reencode(&bytes)) {
                // Pure Python keeps a closed enum's unknown number in a map (upb and C++ keep
                // the entry among unknown fields): the same value, then, through upb.
                (true, Ok(ours)) if schema.has_closed_enum(name) => {
                    let same = oracles.upb.reencode(name, &ours);
                    assert_eq!(
                        same, upb,
                        "{name} seed {seed}: upb reads another value from our encoding of {bytes:02x?}"
                    );
                    compared += 1;
                    continue;
                }
                (true, _) => {
                    let python = oracles.python.reencode(name, &bytes);
                    assert_eq!(
                        upb.is_some(),
                        python.is_some(),
                        "{name} seed {seed}: upb and pure Python disagree on {bytes:02x?}"
                    );
                    python
                }
                // Extensions in the order they arrived, as upb's plain serialization writes
                // them (its deterministic one orders them by descending number).
                (false, Ok(ours)) => oracles.upb.reencode_both(name, &bytes).map(|(det, plain)| {
                    if ours == plain {
                        plain
                    } else {
                        det
                    }
                }),
                (false, Err(_)) => upb,
            };
            let ours = reencode(&bytes);
            match (&ours, dynamic(name, &bytes)) {
                (Ok(ours), Ok(d)) => assert_eq!(
                    *ours, d,
                    "{name} seed {seed}: DynamicMessage writes other bytes for {bytes:02x?}"
                ),
                (Err(_), Err(_)) => {}
                (o, d) => panic!(
                    "{name} seed {seed}: DynamicMessage {:?}, generated code {:?} on {bytes:02x?}",
                    d.err(),
                    o.as_ref().err()
                ),
            }
            match (ours, theirs) {
                (Ok(ours), Some(theirs)) => {
                    if ours != theirs {
                        if let Some(dir) = std::env::var_os("VT_ORACLE_DUMP") {
                            let dir = PathBuf::from(dir);
                            std::fs::write(dir.join("ours.bin"), &ours).unwrap();
                            std::fs::write(dir.join("theirs.bin"), &theirs).unwrap();
                            std::fs::write(dir.join("input.bin"), &bytes).unwrap();
                        }
                        let at = ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
                        let from = at.saturating_sub(16);
                        panic!(
                            "{name} seed {seed}: our deterministic encoding differs from \
                             Python's at byte {at}:\n ours {:02x?}\n them {:02x?}\ninput {bytes:02x?}",
                            &ours[from..(at + 24).min(ours.len())],
                            &theirs[from..(at + 24).min(theirs.len())],
                        );
                    }
                    compared += 1;
                }
                (Err(_), None) => {}
                (Ok(_), None) => {
                    panic!("{name} seed {seed}: Python refuses what we accept: {bytes:02x?}")
                }
                (Err(e), Some(_)) => {
                    panic!("{name} seed {seed}: we refuse what Python accepts ({e}): {bytes:02x?}")
                }
            }
        }
    }
    compared
}

#[test]
fn standalone_encodings_equal_upbs() {
    let Some(python) = python() else { return };
    let mut oracles = Oracles {
        upb: start(&python, "upb"),
        python: start(&python, "python"),
    };
    let editions_schema = Schema::new(vt_tests::EDITIONS_DESCRIPTORS);
    let editions_pool =
        vtproto::reflect::DescriptorPool::decode(vt_tests::EDITIONS_DESCRIPTORS).unwrap();
    let n = compare(
        &mut oracles,
        &editions_schema,
        &editions::all(),
        400,
        &editions_pool,
    );
    let own_schema = Schema::new(vt_tests::OWN_DESCRIPTORS);
    let own: Vec<_> = own::all()
        .into_iter()
        .filter(|(name, _)| name.starts_with("vt."))
        .collect();
    let own_pool = vtproto::reflect::DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap();
    let m = compare(&mut oracles, &own_schema, &own, 60, &own_pool);
    assert!(
        n > 2000 && m > 2000,
        "compared {n} editions and {m} proto2/proto3 messages"
    );
}

/// The second oracle of the conformance types (`mode=standalone`, TestAllTypesProto3 and
/// Proto2): on random messages and corruptions of them, what upb refuses (truncation, bad
/// lengths, overlong varints, invalid UTF-8 in proto3) we refuse too, and a valid message reads
/// to the same value (upb re-serializes our encoding to what it makes of the input).
/// The allowed differences: proto2 strings that are not UTF-8, which upb keeps and a Rust
/// `String` can't hold; and a varint whose tenth byte carries bits past 64, which upb
/// truncates and we refuse, as prost and Go do.
#[cfg(vt_conformance)]
#[test]
fn conformance_types_accept_and_reject_as_upb_does() {
    use vt_tests::conformance_standalone::protobuf_test_messages::{proto2, proto3};
    let Some(python) = python() else { return };
    let include =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/corpora/conformance/include");
    let mut upb = for_protos(
        &python,
        "upb",
        &include,
        &[
            "google/protobuf/test_messages_proto2.proto",
            "google/protobuf/test_messages_proto3.proto",
        ],
        &[],
    );
    let schema = Schema::new(vt_tests::CONFORMANCE_DESCRIPTORS);
    let types: [(&str, Reencode, bool); 2] = [
        (
            "protobuf_test_messages.proto3.TestAllTypesProto3",
            reencode::<proto3::TestAllTypesProto3>,
            false,
        ),
        (
            "protobuf_test_messages.proto2.TestAllTypesProto2",
            reencode::<proto2::TestAllTypesProto2>,
            true,
        ),
    ];
    let (mut accepted, mut rejected) = (0, 0);
    let mut rng = Rng::new(0x0DDBA11);
    for seed in 0..1500u64 {
        for (name, reencode, proto2) in &types {
            let valid = schema.random_message(name, &mut rng);
            let input = if seed % 2 == 0 {
                valid
            } else {
                support::mutate(&valid, &mut rng)
            };
            let theirs = upb.reencode(name, &input);
            match (reencode(&input), theirs) {
                // A corrupted input may put unknown fields inside a map entry: upb then keeps
                // the whole entry among the parent's unknown fields (C++ and we read the entry
                // and drop them), so only the verdict is compared there.
                (Ok(_), Some(_)) if seed % 2 == 1 => accepted += 1,
                (Ok(ours), Some(theirs)) => {
                    let same = upb.reencode(name, &ours);
                    if let (Some(dir), Some(same)) = (std::env::var_os("VT_ORACLE_DUMP"), &same) {
                        if *same != theirs {
                            let dir = PathBuf::from(dir);
                            std::fs::write(dir.join("ours.bin"), same).unwrap();
                            std::fs::write(dir.join("theirs.bin"), &theirs).unwrap();
                            std::fs::write(dir.join("input.bin"), &input).unwrap();
                        }
                    }
                    assert_eq!(
                        same.as_deref(),
                        Some(&theirs[..]),
                        "{name} seed {seed}: upb reads another value from our encoding of {input:02x?}"
                    );
                    accepted += 1;
                }
                (Err(_), None) => rejected += 1,
                (Ok(_), None) => {
                    panic!("{name} seed {seed}: upb refuses what we accept: {input:02x?}")
                }
                (Err(e), Some(_)) => {
                    use vtproto::DecodeErrorKind::{InvalidUtf8, InvalidVarint};
                    let allowed = match e.kind() {
                        InvalidUtf8 => *proto2,
                        // A tenth varint byte above 1 (bits past 64): prost and Go refuse it too.
                        InvalidVarint => true,
                        _ => false,
                    };
                    assert!(
                        allowed,
                        "{name} seed {seed}: we refuse what upb accepts ({e}): {input:02x?}"
                    );
                }
            }
        }
    }
    assert!(
        accepted > 1500 && rejected > 300,
        "{accepted} accepted, {rejected} rejected"
    );
}
