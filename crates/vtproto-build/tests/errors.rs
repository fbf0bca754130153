//! Broken protos give errors that name the file and line, not panics.

use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vt-build-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn compile(name: &str, source: &str) -> String {
    let d = dir(name);
    std::fs::write(d.join("bad.proto"), source).unwrap();
    let err = vtproto_build::Config::new()
        .out_dir(&d)
        .compile_protos(&[d.join("bad.proto")], &[&d])
        .expect_err("must fail");
    let _ = std::fs::remove_dir_all(&d);
    format!("{err:#}")
}

#[test]
fn syntax_error_names_file_and_line() {
    let msg = compile(
        "syntax",
        "syntax = \"proto3\";\n\nmessage M {\n  int32 a = ;\n}\n",
    );
    assert!(msg.contains("bad.proto"), "{msg}");
    assert!(msg.contains("4:"), "{msg}");
}

#[test]
fn unknown_import_names_file_and_import() {
    let msg = compile(
        "import",
        "syntax = \"proto3\";\nimport \"nowhere/missing.proto\";\nmessage M {}\n",
    );
    assert!(msg.contains("missing.proto"), "{msg}");
    assert!(msg.contains("bad.proto:2"), "{msg}");
}

#[test]
fn edition_files_point_to_protoc() {
    let msg = compile(
        "edition",
        "edition = \"2023\";\nmessage M { int32 a = 1; }\n",
    );
    assert!(msg.contains("PROTOC"), "{msg}");
}

#[test]
fn unknown_features_are_refused_before_anything_is_written() {
    let d = dir("features");
    std::fs::write(d.join("ok.proto"), "syntax = \"proto3\";\nmessage M {}\n").unwrap();
    let err = vtproto_build::Config::new()
        .out_dir(&d)
        .features(["codec", "nonsense"])
        .compile_protos(&[d.join("ok.proto")], &[&d])
        .expect_err("must fail");
    let written: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    let _ = std::fs::remove_dir_all(&d);
    let msg = err.to_string();
    assert!(
        msg.contains("unknown feature `nonsense` (known: structs, codec, reuse, views, json, serde, text, services, connect, descriptors, reflect)"),
        "{msg}"
    );
    assert_eq!(written, ["ok.proto"], "nothing generated");
}
