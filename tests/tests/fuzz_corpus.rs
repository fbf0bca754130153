//! The fuzz targets' properties (`vt_tests::checks`, run by `fuzz/` under libFuzzer) on stable
//! Rust: replays the checked-in corpora (`fuzz/corpus/<target>.corpus`, minimized, each input
//! a little-endian `u32` length then its bytes) and every input that once failed
//! (`fuzz/regressions/<target>/`), then a few thousand random and corrupted inputs from the
//! differential test's generator.
//!
//! `VT_FUZZ_SEEDS=<dir>` also writes the generated inputs there, as seeds for a campaign
//! (`scripts/fuzz.sh` does).

mod support;

// Counts what each decode holds, for the memory budget's property (`vt_tests::checks`).
#[global_allocator]
static A: alloc_stats::Tracking = alloc_stats::Tracking;

use std::path::{Path, PathBuf};

use support::{mutate, Rng, Schema};

fn inputs(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

/// Replays `target`'s corpus and regressions through `check`; returns how many inputs ran.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let corpus =
        vt_tests::checks::unpack_corpus(&root.join("corpus").join(format!("{target}.corpus")));
    for (i, bytes) in corpus.iter().enumerate() {
        let result = std::panic::catch_unwind(|| check(bytes));
        assert!(result.is_ok(), "input {i} of the {target} corpus fails");
    }
    let regressions = inputs(&root.join("regressions").join(target));
    for (path, bytes) in &regressions {
        let result = std::panic::catch_unwind(|| check(bytes));
        assert!(result.is_ok(), "{} fails", path.display());
    }
    corpus.len() + regressions.len()
}

/// Random valid inputs of the types `check` dispatches on (by first byte), and corruptions of
/// them, through `check`; written to `VT_FUZZ_SEEDS/<target>` when set.
fn generated(target: &str, schema: &Schema, types: &[&str], check: fn(&[u8])) {
    let seeds = std::env::var_os("VT_FUZZ_SEEDS").map(|d| PathBuf::from(d).join(target));
    if let Some(dir) = &seeds {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut rng = Rng::new(0xF022);
    for i in 0..300u32 {
        for (which, name) in types.iter().enumerate() {
            let mut input = vec![which as u8];
            input.extend(schema.random_message(name, &mut rng));
            check(&input);
            let bad = mutate(&input[1..], &mut rng);
            let mut corrupted = vec![which as u8];
            corrupted.extend(bad);
            check(&corrupted);
            if let Some(dir) = &seeds {
                if i % 10 == 0 {
                    std::fs::write(dir.join(format!("gen-{which}-{i}")), &input).unwrap();
                }
            }
        }
    }
}

#[test]
fn workloads_corpus_and_generated_inputs() {
    let replayed = replay("decode_workloads", vt_tests::checks::workloads);
    assert!(replayed > 1000, "the corpus is missing: {replayed} inputs");
    let schema = Schema::new(vt_tests::OWN_DESCRIPTORS);
    generated(
        "decode_workloads",
        &schema,
        &[
            "vt.candidates.CandidatesResponse",
            "vt.event.EventBatch",
            "vt.deep.Node",
            "vt.test.proto3.Maps",
            "vt.test.proto2.Groups",
            "vt.test.proto3.Repeateds",
        ],
        vt_tests::checks::workloads,
    );
    eprintln!("replayed {replayed} corpus inputs");
}

#[cfg(vt_conformance)]
#[test]
fn conformance_corpus_and_generated_inputs() {
    let replayed = replay("decode_conformance", vt_tests::checks::conformance);
    assert!(replayed > 1000, "the corpus is missing: {replayed} inputs");
    let schema = Schema::new(vt_tests::CONFORMANCE_DESCRIPTORS);
    generated(
        "decode_conformance",
        &schema,
        &[
            "protobuf_test_messages.proto3.TestAllTypesProto3",
            "protobuf_test_messages.proto2.TestAllTypesProto2",
        ],
        vt_tests::checks::conformance,
    );
    eprintln!("replayed {replayed} corpus inputs");
}

#[test]
fn json_corpus_and_generated_inputs() {
    text_corpus(
        "decode_json",
        vt_tests::checks::json,
        own_text::<Json>,
        0x150E,
    );
}

#[test]
fn text_corpus_and_generated_inputs() {
    text_corpus(
        "decode_text",
        vt_tests::checks::text,
        own_text::<Text>,
        0x7E47,
    );
}

/// A textual format's target: its corpus replayed, then our text (JSON or the text format)
/// of random messages of the target's types and corruptions of it through `check`.
fn text_corpus(
    target: &str,
    check: fn(&[u8]),
    write: fn(usize, &[u8]) -> Option<String>,
    seed: u64,
) {
    let replayed = replay(target, check);
    let schema = Schema::new(vt_tests::OWN_DESCRIPTORS);
    let types = [
        "vt.candidates.CandidatesResponse",
        "vt.event.EventBatch",
        "vt.deep.Node",
        "vt.test.proto3.Maps",
        "vt.test.proto3.WellKnown",
        "vt.test.proto2.Groups",
        "vt.test.proto3.Oneofs",
    ];
    let seeds = std::env::var_os("VT_FUZZ_SEEDS").map(|d| PathBuf::from(d).join(target));
    if let Some(dir) = &seeds {
        std::fs::create_dir_all(dir).unwrap();
    }
    let mut rng = Rng::new(seed);
    let mut read = 0;
    for i in 0..200u32 {
        for (which, name) in types.iter().enumerate() {
            let bytes = schema.random_message(name, &mut rng);
            let Some(text) = write(which, &bytes) else {
                continue;
            };
            let mut input = vec![which as u8];
            input.extend(text.as_bytes());
            check(&input);
            read += 1;
            let mut corrupted = vec![which as u8];
            corrupted.extend(mutate(text.as_bytes(), &mut rng));
            check(&corrupted);
            if let Some(dir) = &seeds {
                if i % 10 == 0 {
                    std::fs::write(dir.join(format!("gen-{which}-{i}")), &input).unwrap();
                }
            }
        }
    }
    assert!(read > 500, "too few generated {target} inputs: {read}");
    eprintln!("replayed {replayed} corpus inputs, {read} generated");
}

/// A textual format: how it writes a message.
trait Format {
    fn write<M: vtproto::json::JsonMessage + vtproto::text::TextMessage>(m: &M) -> Option<String>;
}

struct Json;

impl Format for Json {
    fn write<M: vtproto::json::JsonMessage + vtproto::text::TextMessage>(m: &M) -> Option<String> {
        vtproto::json::to_string(m).ok()
    }
}

struct Text;

impl Format for Text {
    fn write<M: vtproto::json::JsonMessage + vtproto::text::TextMessage>(m: &M) -> Option<String> {
        vtproto::text::to_string_pretty(m).ok()
    }
}

/// Our text in format `F` of the binary message `bytes` of type number `which` of the
/// textual checks.
fn own_text<F: Format>(which: usize, bytes: &[u8]) -> Option<String> {
    use vt_tests::own_standalone::vt as s;
    use vtproto::Message;
    fn one<F: Format, M: Message + vtproto::json::JsonMessage + vtproto::text::TextMessage>(
        bytes: &[u8],
    ) -> Option<String> {
        F::write(&M::decode(bytes).ok()?)
    }
    match which {
        0 => one::<F, s::candidates::CandidatesResponse>(bytes),
        1 => one::<F, s::event::EventBatch>(bytes),
        2 => one::<F, s::deep::Node>(bytes),
        3 => one::<F, s::test::proto3::Maps>(bytes),
        4 => one::<F, s::test::proto3::WellKnown>(bytes),
        5 => one::<F, s::test::proto2::Groups>(bytes),
        _ => one::<F, s::test::proto3::Oneofs>(bytes),
    }
}

#[test]
fn codegen_corpus() {
    let replayed = replay("codegen", vt_tests::checks::codegen);
    assert!(replayed > 500, "the corpus is missing: {replayed} inputs");
    // And some arbitrary requests of our own.
    let mut rng = Rng::new(0xC0DE);
    for len in 0..400usize {
        let data: Vec<u8> = (0..len % 200).map(|_| rng.u64() as u8).collect();
        vt_tests::checks::codegen(&data);
    }
    eprintln!("replayed {replayed} corpus inputs");
}

/// `decode_dynamic`'s corpus (seeded with `decode_conformance`'s, whose inputs it shares: the
/// first byte picks TestAllTypesProto3 or Proto2) and regressions.
#[cfg(vt_conformance)]
#[test]
fn dynamic_corpus() {
    let replayed = replay("decode_dynamic", vt_tests::checks::dynamic);
    assert!(replayed > 1000, "the corpus is missing: {replayed} inputs");
}
