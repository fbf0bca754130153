//! Compiles the conformance suite's protos (installed by `scripts/fetch-corpora.sh` into
//! `target/corpora`, or `VT_CORPORA`) with prost-build plus rust-vt. Without them the testee
//! is built as a stub that says how to get them; the folder is watched, so installing the
//! corpora rebuilds the real testee.

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let corpora = std::env::var_os("VT_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/corpora"));
    let include = corpora.join("conformance/include");
    println!("cargo:rerun-if-env-changed=VT_CORPORA");
    // A path that does not exist yet reruns this script on every build, until it appears.
    println!("cargo:rerun-if-changed={}", include.display());
    println!("cargo::rustc-check-cfg=cfg(vt_conformance)");
    if !include.exists() {
        return;
    }
    let files = [
        "conformance/conformance.proto",
        "google/protobuf/test_messages_proto2.proto",
        "google/protobuf/test_messages_proto3.proto",
    ]
    .map(|f| include.join(f));
    let wkt = protoc_bin_vendored::include_path().expect("vendored protoc include path");
    let mut config = vtproto_build::Config::new();
    config.protoc(protoc_bin_vendored::protoc_bin_path().expect("vendored protoc"));
    config.prost_config().include_file("_includes.rs");
    config
        .compile_protos(&files, &[include, wkt])
        .expect("compiling the conformance protos");
    println!("cargo:rustc-cfg=vt_conformance");
}
