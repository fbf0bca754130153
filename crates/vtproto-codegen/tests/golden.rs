//! Golden files of generated code, reviewed as diffs: `tests/golden/<package>.vt.rs` at the
//! repository root. Regenerate with `VT_BLESS=1 cargo test -p vtproto-codegen --test golden`.

use std::path::PathBuf;
use std::process::Command;

use prost::Message as _;
use prost_types::FileDescriptorSet;
use vtproto_codegen::Options;

const PROTOS: &[&str] = &["deep.proto", "candidates.proto", "test/nasty_names.proto"];

#[test]
fn generated_code_matches_golden_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = std::env::temp_dir().join(format!("vt-golden-{}.bin", std::process::id()));
    let status = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg("-I")
        .arg(root.join("proto"))
        .arg("--include_imports")
        .arg("-o")
        .arg(&out)
        .args(PROTOS)
        .status()
        .unwrap();
    assert!(status.success());
    let fds = FileDescriptorSet::decode(&std::fs::read(&out).unwrap()[..]).unwrap();
    let _ = std::fs::remove_file(&out);
    let names: Vec<String> = PROTOS.iter().map(|s| s.to_string()).collect();
    let files = vtproto_codegen::generate(&fds.file, &names, &Options::default()).unwrap();
    assert_eq!(files.len(), 3);
    let dir = root.join("tests/golden");
    let bless = std::env::var_os("VT_BLESS").is_some();
    for f in files {
        let path = dir.join(&f.name);
        if bless {
            std::fs::write(&path, &f.content).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            expected == f.content,
            "{} differs from the generator's output; review and bless with \
             VT_BLESS=1 cargo test -p vtproto-codegen --test golden\n--- generated ---\n{}",
            path.display(),
            f.content
        );
    }
}
