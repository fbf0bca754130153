//! Compiles the conformance suite's protos (installed by `scripts/fetch-corpora.sh` into
//! `target/corpora`, or `VT_CORPORA`) twice: with prost-build plus rust-vt (`mode=prost`, for
//! `conformance-testee`) and with rust-vt alone (`mode=standalone`, editions included, for
//! `conformance-testee-standalone`), and for `conformance-testee-dynamic` the protocol alone
//! plus the test messages' descriptor set, read at run time. Without them the testees are built
//! as stubs that say how to get them; the folder is watched, so installing the corpora rebuilds
//! the real testees.

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
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc");
    let wkt = protoc_bin_vendored::include_path().expect("vendored protoc include path");
    let includes = [include.clone(), wkt];

    let legacy = [
        "conformance/conformance.proto",
        "google/protobuf/test_messages_proto2.proto",
        "google/protobuf/test_messages_proto3.proto",
    ]
    .map(|f| include.join(f));
    let prost_out = out.join("prost");
    std::fs::create_dir_all(&prost_out).unwrap();
    let mut config = vtproto_build::Config::new();
    config
        .protoc(&protoc)
        .out_dir(&prost_out)
        .features(["codec", "json", "text"]);
    config.prost_config().include_file("_includes.rs");
    config
        .compile_protos(&legacy, &includes)
        .expect("compiling the conformance protos (mode=prost)");

    let all = [
        "conformance/conformance.proto",
        "google/protobuf/test_messages_proto2.proto",
        "google/protobuf/test_messages_proto3.proto",
        "google/protobuf/test_messages_edition2023.proto",
        "google/protobuf/test_messages_proto2_editions.proto",
        "google/protobuf/test_messages_proto3_editions.proto",
    ]
    .map(|f| include.join(f));
    let standalone_out = out.join("standalone");
    std::fs::create_dir_all(&standalone_out).unwrap();
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec", "json", "text"])
        .protoc(&protoc)
        .out_dir(&standalone_out)
        .include_file("_includes.rs")
        .compile_protos(&all, &includes)
        .expect("compiling the conformance protos (mode=standalone)");

    // For the testee on reflection alone: the protocol generated, the test messages as data.
    let protocol_out = out.join("protocol");
    std::fs::create_dir_all(&protocol_out).unwrap();
    let mut protocol = vtproto_build::Config::new();
    protocol
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec"])
        .protoc(&protoc)
        .out_dir(&protocol_out)
        .include_file("_includes.rs");
    protocol
        .compile_protos(&all[..1], &includes)
        .expect("compiling conformance.proto");
    let set = protocol
        .load_fds_bytes(&all[1..], &includes)
        .expect("the test messages' descriptors");
    std::fs::write(out.join("test_messages.fds"), set).unwrap();
    println!("cargo:rustc-cfg=vt_conformance");
}
