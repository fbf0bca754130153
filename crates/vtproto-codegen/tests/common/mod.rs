//! What the golden-file tests share: descriptors from protoc, and checking (or, with
//! `VT_BLESS=1`, rewriting) generated files against the checked-in copies.

use std::path::Path;
use std::process::Command;

use prost::Message as _;
use vtproto_codegen::descriptor::FileDescriptorSet;
use vtproto_codegen::GeneratedFile;

/// Parses `protos` (relative to `include`, plus the well-known types) with the vendored protoc.
pub fn descriptors(include: &Path, protos: &[&str]) -> FileDescriptorSet {
    // Tests of one binary run in parallel threads: each call gets its own file.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = std::env::temp_dir().join(format!(
        "vt-codegen-test-{}-{call}-{}.bin",
        std::process::id(),
        protos[0].replace('/', "_")
    ));
    let wkt = protoc_bin_vendored::include_path().unwrap();
    let mut protoc = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap());
    protoc.arg("-I").arg(include);
    if include != wkt {
        protoc.arg("-I").arg(&wkt);
    }
    let status = protoc
        .arg("--include_imports")
        .arg("--include_source_info")
        .arg("-o")
        .arg(&out)
        .args(protos)
        .status()
        .unwrap();
    assert!(status.success(), "protoc failed on {protos:?}");
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    FileDescriptorSet::decode(&bytes[..]).unwrap()
}

/// Compares `files` with the copies in `dir`; with `VT_BLESS=1`, rewrites them instead.
pub fn check_or_bless(dir: &Path, files: &[GeneratedFile], test: &str) {
    if std::env::var_os("VT_BLESS").is_some() {
        for f in files {
            std::fs::write(dir.join(&f.name), &f.content).unwrap();
        }
        return;
    }
    let stale: Vec<&str> = files
        .iter()
        .filter(|f| {
            std::fs::read_to_string(dir.join(&f.name)).ok().as_deref() != Some(f.content.as_str())
        })
        .map(|f| f.name.as_str())
        .collect();
    assert!(
        stale.is_empty(),
        "{stale:?} in {} differ from the generator's output; review the diff after \
         VT_BLESS=1 cargo test -p vtproto-codegen --test {test}",
        dir.display()
    );
}
