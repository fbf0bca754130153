//! Golden files of generated code, reviewed as diffs: `tests/golden/<feature>/<package>.vt.rs`,
//! one folder per feature, each generated with that feature alone (`features=<name>`).
//! Regenerate with `VT_BLESS=1 cargo test -p vtproto-codegen --test golden`.

mod common;

use std::path::PathBuf;

use vtproto_codegen::{Error, Mode, Options};

const PROTOS: &[&str] = &["deep.proto", "candidates.proto", "test/nasty_names.proto"];

fn generate(parameter: &str) -> Result<Vec<vtproto_codegen::GeneratedFile>, Error> {
    generate_with(&Options::parse(parameter)?)
}

fn generate_with(options: &Options) -> Result<Vec<vtproto_codegen::GeneratedFile>, Error> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fds = common::descriptors(&root.join("proto"), PROTOS);
    let names: Vec<String> = PROTOS.iter().map(|s| s.to_string()).collect();
    vtproto_codegen::generate(&fds.file, &names, options)
}

#[test]
fn each_feature_matches_its_golden_files() {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    for feature in vtproto_codegen::feature_names() {
        // Alone, even where it needs another feature to compile, so its file shows just it.
        let files = generate_with(&Options {
            features: vec![feature.to_string()],
            ..Options::default()
        })
        .unwrap();
        assert_eq!(files.len(), 3);
        common::check_or_bless(&golden.join(feature), &files, "golden");
    }
}

#[test]
fn the_default_features_are_the_modes() {
    let default = generate("").unwrap();
    let named = generate(&format!(
        "features={}",
        Mode::Prost.default_features().join("+")
    ))
    .unwrap();
    assert_eq!(default, named);
    assert_eq!(Mode::Prost.default_features(), ["codec"]);
}

#[test]
fn an_unknown_feature_lists_the_known_ones() {
    let err = generate("features=codec+nonsense").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("unknown feature `nonsense`"), "{msg}");
    for known in vtproto_codegen::feature_names() {
        assert!(msg.contains(known), "{msg}");
    }
}
