//! Golden files of generated code, reviewed as diffs: `tests/golden/<package>.vt.rs` at the
//! repository root. Regenerate with `VT_BLESS=1 cargo test -p vtproto-codegen --test golden`.

mod common;

use std::path::PathBuf;

use vtproto_codegen::Options;

const PROTOS: &[&str] = &["deep.proto", "candidates.proto", "test/nasty_names.proto"];

#[test]
fn generated_code_matches_golden_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fds = common::descriptors(&root.join("proto"), PROTOS);
    let names: Vec<String> = PROTOS.iter().map(|s| s.to_string()).collect();
    let files = vtproto_codegen::generate(&fds.file, &names, &Options::default()).unwrap();
    assert_eq!(files.len(), 3);
    common::check_or_bless(&root.join("tests/golden"), &files, "golden");
}
