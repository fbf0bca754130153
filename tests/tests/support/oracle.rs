//! Python protobuf (upb, or the pure-Python implementation) as an oracle process, over
//! `scripts/python-oracle.py`: a message type's bytes in, its deterministic re-encoding (or
//! its refusal) out.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A Python protobuf process (upb or pure Python).
pub struct Oracle {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: BufReader<std::process::ChildStdout>,
}

impl Oracle {
    /// An oracle over `protos` (relative to `include`), generated with `protoc --python_out`
    /// into `out`; `packages` are the folders to mark as Python packages.
    pub fn for_protos(
        python: &str,
        implementation: &str,
        include: &Path,
        protos: &[&str],
        packages: &[&str],
        out: &Path,
    ) -> Oracle {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        std::fs::create_dir_all(out).unwrap();
        let status = Command::new(protoc_bin_vendored::protoc_bin_path().unwrap())
            .arg("-I")
            .arg(include)
            .arg("-I")
            .arg(protoc_bin_vendored::include_path().unwrap())
            .arg(format!("--python_out={}", out.display()))
            .args(protos)
            .status()
            .unwrap();
        assert!(status.success(), "protoc --python_out failed");
        for dir in packages {
            std::fs::write(out.join(dir).join("__init__.py"), "").unwrap();
        }
        let mut child = Command::new(python)
            .env("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", implementation)
            .arg(root.join("scripts/python-oracle.py"))
            .arg(out)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let mut output = BufReader::new(child.stdout.take().unwrap());
        let mut ready = String::new();
        output.read_line(&mut ready).unwrap();
        assert_eq!(ready.trim(), format!("READY {implementation}"));
        Oracle {
            child,
            input,
            output,
        }
    }

    /// A upb oracle over the project's protos (proto2, proto3, editions, the workloads), the
    /// types of the `own` and `editions` suites, generated into a folder named by `tag`.
    #[allow(dead_code)]
    pub fn for_project(python: &str, tag: &str) -> Oracle {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let protos = [
            "test/editions/e2023.proto",
            "test/editions/e2024.proto",
            "test/all_types_proto3.proto",
            "test/all_types_proto2.proto",
            "test/imported.proto",
            "test/nasty_names.proto",
            "candidates.proto",
            "event.proto",
            "deep.proto",
        ];
        let out = std::env::temp_dir().join(format!("vt-py-{tag}-{}", std::process::id()));
        Oracle::for_protos(
            python,
            "upb",
            &root.join("proto"),
            &protos,
            &["test", "test/editions"],
            &out,
        )
    }

    /// The deterministic re-encoding of `bytes` as `name`, or `None` if protobuf refuses them.
    pub fn reencode(&mut self, name: &str, bytes: &[u8]) -> Option<Vec<u8>> {
        writeln!(self.input, "{name} {}", hex(bytes)).unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let line = line.trim();
        assert!(!line.starts_with("FAIL"), "the oracle failed: {line}");
        if line.starts_with("ERROR") {
            return None;
        }
        Some(unhex(line))
    }
}

impl Oracle {
    /// Both re-encodings of `bytes` as `name`, deterministic then not (they differ where
    /// maps or several extensions are present), or `None` if protobuf refuses them.
    pub fn reencode_both(&mut self, name: &str, bytes: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
        writeln!(self.input, "+{name} {}", hex(bytes)).unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let line = line.trim_end_matches('\n');
        assert!(!line.starts_with("FAIL"), "the oracle failed: {line}");
        if line.starts_with("ERROR") {
            return None;
        }
        let (det, other) = line.split_once(' ').expect("two encodings");
        Some((unhex(det), unhex(other)))
    }
}

impl Oracle {
    fn ask(&mut self, request: std::fmt::Arguments<'_>) -> Result<String, String> {
        writeln!(self.input, "{request}").unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        let line = line.trim_end_matches('\n');
        assert!(!line.starts_with("FAIL"), "the oracle failed: {line}");
        match line.strip_prefix("ERROR ") {
            Some(reason) => Err(reason.to_string()),
            None => Ok(line.to_string()),
        }
    }

    /// Python's ProtoJSON of the message `bytes` encode (`json_format.MessageToJson`; flags:
    /// 1 proto names, 2 fields without presence at their defaults, 4 enums as numbers), or
    /// why it has none.
    pub fn write_json(&mut self, name: &str, bytes: &[u8], flags: u8) -> Result<String, String> {
        let text = self.ask(format_args!("J{flags} {name} {}", hex(bytes)))?;
        Ok(String::from_utf8(unhex(&text)).expect("JSON is UTF-8"))
    }

    /// The deterministic encoding of the message Python reads from `json`
    /// (`json_format.Parse`; flags: 1 ignore unknown fields), or why it refuses it.
    pub fn read_json(&mut self, name: &str, json: &str, flags: u8) -> Result<Vec<u8>, String> {
        let answer = self.ask(format_args!("P{flags} {name} {}", hex(json.as_bytes())))?;
        Ok(unhex(&answer))
    }

    /// The message's text format as Python writes it (`text_format.MessageToString`; flags:
    /// 1 on one line), or why it has none.
    #[allow(dead_code)]
    pub fn write_text(&mut self, name: &str, bytes: &[u8], flags: u8) -> Result<String, String> {
        let text = self.ask(format_args!("T{flags} {name} {}", hex(bytes)))?;
        Ok(String::from_utf8(unhex(&text)).expect("text is UTF-8"))
    }

    /// The deterministic encoding of the message Python reads from `text`
    /// (`text_format.Parse`), or why it refuses it.
    #[allow(dead_code)]
    pub fn read_text(&mut self, name: &str, text: &str) -> Result<Vec<u8>, String> {
        let answer = self.ask(format_args!("Q0 {name} {}", hex(text.as_bytes())))?;
        Ok(unhex(&answer))
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// The Python named by `VT_PYTHON`; `None` (the test skips) when unset, unless
/// `VT_REQUIRE_PYTHON=1`.
pub fn python() -> Option<String> {
    match std::env::var("VT_PYTHON") {
        Ok(p) => Some(p),
        Err(_) if std::env::var_os("VT_REQUIRE_PYTHON").is_some_and(|v| v == "1") => {
            panic!("VT_REQUIRE_PYTHON=1 but VT_PYTHON is not set")
        }
        Err(_) => {
            eprintln!("skipped: set VT_PYTHON to a Python with `protobuf` (scripts/test.sh does)");
            None
        }
    }
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from lower-case hex.
pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}
