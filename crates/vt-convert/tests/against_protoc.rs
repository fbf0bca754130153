//! `vt-convert` against protoc's own `--encode` and `--decode`: on messages of the project's
//! test protos (scalars, enums, nested messages, maps, oneofs, well-known types, an `Any`),
//! the text format it reads encodes to protoc's bytes, the text it writes encodes (by protoc)
//! back to the input, and binary -> JSON -> binary is the identity.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `command` with `input` on its standard input.
fn pipe(mut command: Command, input: &[u8]) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn protoc(args: &[&str], input: &[u8]) -> Vec<u8> {
    let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
    let include = protoc_bin_vendored::include_path().unwrap();
    let mut command = Command::new(protoc);
    command
        .arg("-I")
        .arg(root().join("proto"))
        .arg("-I")
        .arg(include)
        .args(args);
    let out = pipe(command, input);
    assert!(
        out.status.success(),
        "protoc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn descriptor_set() -> PathBuf {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vt-convert-test.pb");
    let arg = format!("--descriptor_set_out={}", out.display());
    protoc(
        &["--include_imports", &arg, "test/all_types_proto3.proto"],
        b"",
    );
    out
}

fn convert(set: &Path, type_name: &str, args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_vt-convert"));
    command
        .arg("--descriptor-set")
        .arg(set)
        .arg("--type")
        .arg(type_name)
        .args(args);
    let out = pipe(command, input);
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Messages in the text format, each with at most one entry per map (protoc keeps the
/// input's entry order, rust-vt writes entries in key order).
const CASES: &[(&str, &str)] = &[
    (
        "vt.test.proto3.Scalars",
        r#"f_double: 1.5 f_float: -2.25 f_int64: -9000000000 f_uint64: 18446744073709551615
           f_int32: -7 f_fixed64: 3 f_fixed32: 4 f_bool: true f_string: "h\303\251 \"q\""
           f_bytes: "\000\001\377" f_uint32: 9 f_sfixed32: -3 f_sfixed64: -4 f_sint32: -5
           f_sint64: -6 f_far: 1 f_mid: "mid""#,
    ),
    (
        "vt.test.proto3.Repeateds",
        r#"r_double: [1, 2.5] r_int64: [-1, 0, 1] r_string: ["a", "", "c"] r_bool: [true, false]"#,
    ),
    (
        "vt.test.proto3.WellKnown",
        r#"ts { seconds: 63072000 nanos: 5 } dur { seconds: -1 nanos: -500000000 }
           w_int64 { value: -7 } w_string { value: "x" } st { fields { key: "a" value { list_value { values { number_value: 1 } values { string_value: "b" } values { null_value: NULL_VALUE } } } } }
           any { [type.googleapis.com/vt.test.proto3.Scalars] { f_int32: 3 f_string: "in" } }
           mask { paths: "foo_bar" paths: "baz" } m_value { key: "k" value { bool_value: true } }
           ow_int32 { value: 4 }"#,
    ),
];

#[test]
fn agrees_with_protoc_encode_and_decode() {
    let set = descriptor_set();
    for (type_name, text) in CASES {
        let encode = format!("--encode={type_name}");
        let expected = protoc(&[&encode, "test/all_types_proto3.proto"], text.as_bytes());
        // Text in, binary out: protoc's bytes.
        let ours = convert(
            &set,
            type_name,
            &["--from", "text", "--to", "binary"],
            text.as_bytes(),
        )
        .unwrap();
        assert_eq!(ours, expected, "{type_name}: text -> binary");
        // Binary in, text out (both layouts): protoc encodes it back to the input.
        for layout in [&[][..], &["--pretty"][..]] {
            let mut args = vec!["--to", "text"];
            args.extend(layout);
            let printed = convert(&set, type_name, &args, &expected).unwrap();
            let again = protoc(&[&encode, "test/all_types_proto3.proto"], &printed);
            assert_eq!(
                again,
                expected,
                "{type_name}: binary -> text {layout:?}:\n{}",
                String::from_utf8_lossy(&printed)
            );
        }
        // protoc's own text reads to the same bytes.
        let decode = format!("--decode={type_name}");
        let protoc_text = protoc(&[&decode, "test/all_types_proto3.proto"], &expected);
        let ours = convert(
            &set,
            type_name,
            &["--from", "text", "--to", "binary"],
            &protoc_text,
        )
        .unwrap();
        assert_eq!(ours, expected, "{type_name}: protoc's text -> binary");
        // Binary -> JSON -> binary, with each JSON option.
        for options in [
            &[][..],
            &["--pretty", "--emit-defaults", "--proto-names"][..],
        ] {
            let mut args = vec!["--to", "json"];
            args.extend(options);
            let json = convert(&set, type_name, &args, &expected).unwrap();
            let back = convert(
                &set,
                type_name,
                &["--from", "json", "--to", "binary"],
                &json,
            )
            .unwrap();
            assert_eq!(
                back,
                expected,
                "{type_name}: JSON {}",
                String::from_utf8_lossy(&json)
            );
        }
    }
}

#[test]
fn errors_are_one_line_and_a_failure_status() {
    let set = descriptor_set();
    let e = convert(&set, "vt.test.proto3.Nope", &[], b"").unwrap_err();
    assert!(e.contains("no message type vt.test.proto3.Nope"), "{e}");
    let e = convert(
        &set,
        "vt.test.proto3.Scalars",
        &["--from", "json"],
        b"{\"f_int32\": \"x\"}",
    )
    .unwrap_err();
    assert!(e.contains("vt.test.proto3.Scalars.f_int32"), "{e}");
    let e = convert(&set, "vt.test.proto3.Scalars", &[], b"\x0a\x05ab").unwrap_err();
    assert_eq!(e.lines().count(), 1, "{e}");
    let e = convert(&set, "vt.test.proto3.Scalars", &["--to", "xml"], b"").unwrap_err();
    assert!(e.contains("unknown format"), "{e}");
}
