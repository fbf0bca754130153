//! The plugin end to end under protoc: it writes what the library generates for the same
//! descriptors, declares proto3 `optional` support, and reports bad input through protoc.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use prost::Message as _;
use vtproto_codegen::descriptor::FileDescriptorSet;

const PROTOS: &[&str] = &[
    "test/all_types_proto3.proto",
    "test/all_types_proto2.proto",
    "test/nasty_names.proto",
    "test/imported.proto",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vt-plugin-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn protoc(include: &Path, args: &[String], protos: &[&str]) -> Output {
    Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
        .arg(format!(
            "--plugin=protoc-gen-rust-vt={}",
            env!("CARGO_BIN_EXE_protoc-gen-rust-vt")
        ))
        .arg("-I")
        .arg(include)
        .arg("-I")
        .arg(protoc_bin_vendored::include_path().unwrap())
        .args(args)
        .args(protos)
        .output()
        .unwrap()
}

#[test]
fn plugin_output_equals_library_output() {
    let out = temp_dir("out");
    let opt = "bytes=.vt.test.proto3.Bytes,btree_map=.vt.test.proto3.Maps.ordered";
    let result = protoc(
        &root().join("proto"),
        &[
            format!("--rust-vt_out={}", out.display()),
            format!("--rust-vt_opt={opt}"),
        ],
        PROTOS,
    );
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );

    let fds_path = out.join("fds.bin");
    let result = protoc(
        &root().join("proto"),
        &[
            "--include_imports".into(),
            "-o".into(),
            fds_path.display().to_string(),
        ],
        PROTOS,
    );
    assert!(result.status.success());
    let fds = FileDescriptorSet::decode(&std::fs::read(&fds_path).unwrap()[..]).unwrap();
    let names: Vec<String> = PROTOS.iter().map(|s| s.to_string()).collect();
    let options = vtproto_codegen::Options::parse(opt).unwrap();
    let expected = vtproto_codegen::generate(&fds.file, &names, &options).unwrap();
    assert_eq!(expected.len(), 4, "one file per package");
    for f in expected {
        let written = std::fs::read_to_string(out.join(&f.name)).unwrap();
        assert_eq!(written, f.content, "{}", f.name);
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_options_fail_with_a_message() {
    for (option, expected) in [
        ("mode=nope", "unknown mode `nope`"),
        (
            "features=nonsense",
            "unknown feature `nonsense` (known: structs, codec, reuse, views, json, serde, text, services, connect, descriptors, reflect)",
        ),
        (
            "features=codec+json,tables=.",
            "tables= serves JSON and text from the reflection tables: it needs the reflect feature",
        ),
    ] {
        let out = temp_dir("bad-opt");
        let result = protoc(
            &root().join("proto"),
            &[
                format!("--rust-vt_out={}", out.display()),
                format!("--rust-vt_opt={option}"),
            ],
            &["deep.proto"],
        );
        assert!(!result.status.success());
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.contains(expected), "{stderr}");
        let _ = std::fs::remove_dir_all(&out);
    }
}

#[test]
fn unsupported_input_is_reported_with_its_file() {
    let dir = temp_dir("editions");
    std::fs::write(
        dir.join("ed.proto"),
        "edition = \"2023\";\npackage ed;\nmessage M { int32 a = 1; }\n",
    )
    .unwrap();
    let result = protoc(
        &dir,
        &[format!("--rust-vt_out={}", dir.display())],
        &["ed.proto"],
    );
    assert!(!result.status.success());
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert!(stderr.contains("ed.proto"), "{stderr}");
    assert!(stderr.contains("not supported in mode=prost"), "{stderr}");
    // The plugin declares editions support, and mode=standalone generates them.
    let result = protoc(
        &dir,
        &[
            format!("--rust-vt_out={}", dir.display()),
            "--rust-vt_opt=mode=standalone".to_string(),
        ],
        &["ed.proto"],
    );
    assert!(result.status.success(), "{result:?}");
    let code = std::fs::read_to_string(dir.join("ed.rs")).unwrap();
    assert!(code.contains("pub struct M"), "{code}");
    assert!(
        code.contains("pub a: ::core::option::Option<i32>"),
        "editions fields have presence: {code}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn garbage_on_stdin_is_an_error_not_a_panic() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_protoc-gen-rust-vt"))
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&[0xff, 0xff, 0xff])
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a CodeGeneratorRequest"));
}

#[test]
fn service_stubs_keep_their_comments() {
    let out = temp_dir("services");
    let result = protoc(
        &root().join("proto"),
        &[
            format!("--rust-vt_out={}", out.display()),
            "--rust-vt_opt=mode=standalone,features=structs+codec+services+descriptors".into(),
        ],
        &["test/services.proto"],
    );
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let code = std::fs::read_to_string(out.join("vt.test.services.rs")).unwrap();
    for expected in [
        "pub mod echo_client",
        "pub mod echo_server",
        "/// One request, a response per byte of its payload.",
        "/// Echoes payloads in the four streaming shapes.",
        "::vtproto::tonic::VtCodec::default()",
        "pub const FILE_DESCRIPTOR_SET: &[u8]",
    ] {
        assert!(code.contains(expected), "no `{expected}` in:\n{code}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn the_descriptor_set_keeps_custom_options() {
    let dir = temp_dir("custom-options");
    std::fs::write(
        dir.join("opts.proto"),
        r#"syntax = "proto3";
package opts;
import "google/protobuf/descriptor.proto";
extend google.protobuf.MessageOptions { string note = 50001; }
extend google.protobuf.MethodOptions { string route = 50002; }
message Ping { option (note) = "kept-for-reflection"; string text = 1; }
service Pinger {
  rpc Ping(opts.Ping) returns (opts.Ping) { option (route) = "/v1/ping"; }
}
"#,
    )
    .unwrap();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let result = protoc(
        &dir,
        &[
            format!("--rust-vt_out={}", out.display()),
            "--rust-vt_opt=mode=standalone,features=structs+codec+services+descriptors".into(),
        ],
        &["opts.proto"],
    );
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let code = std::fs::read_to_string(out.join("opts.rs")).unwrap();
    let set = &code[code.find("pub const FILE_DESCRIPTOR_SET").unwrap()..];
    // The options' values, as protoc sent them (a decoded-and-re-encoded descriptor loses them).
    for value in [
        "kept-for-reflection",
        "/v1/ping",
        "google/protobuf/descriptor.proto",
    ] {
        assert!(set.contains(value), "no `{value}` in {set}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
