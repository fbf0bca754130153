//! `protoc-gen-rust-vt`: a protoc / buf plugin.
//!
//! Reads a `CodeGeneratorRequest` from stdin and writes a `CodeGeneratorResponse` to stdout with
//! one `<package>.vt.rs` per proto package (`mode=prost`, beside prost's structs), or one
//! `<package>.rs` with our own structs (`mode=standalone`, with `include_file=mod.rs` for the
//! module tree). Problems with the input are reported in the
//! response's `error` field (protoc prints it and fails), never as a panic.
//!
//! ```sh
//! protoc --prost_out=src/gen --rust-vt_out=src/gen --rust-vt_opt=bytes=. -I proto proto/shop.proto
//! ```

use std::io::{self, Read, Write};
use std::process::ExitCode;

use prost::Message as _;
use vtproto_codegen::descriptor::compiler::code_generator_response::{Feature, File};
use vtproto_codegen::descriptor::compiler::{CodeGeneratorRequest, CodeGeneratorResponse};
use vtproto_codegen::descriptor::Edition;

/// The file protoc-gen-prost writes a package to with `flat_output_dir`: `<package>.rs`.
fn protoc_gen_prost_file(package: &str) -> String {
    if package.is_empty() {
        "_.rs".to_string()
    } else {
        format!("{package}.rs")
    }
}

/// Writes the response to `out` as it is generated: the header fields, then each file as soon
/// as it is written (a response's fields may come in any order, and a repeated field's elements
/// are appended), so that the plugin holds one package's code at a time. Problems with the
/// request are found before any file and answered in the `error` field.
fn respond(
    request: CodeGeneratorRequest,
    encoded: Option<&[Vec<u8>]>,
    out: &mut impl Write,
) -> io::Result<()> {
    let header = CodeGeneratorResponse {
        supported_features: Some(Feature::Proto3Optional as u64 | Feature::SupportsEditions as u64),
        // Editions files are generated in mode=standalone; mode=prost refuses them by name.
        minimum_edition: Some(Edition::Proto2 as i32),
        maximum_edition: Some(Edition::Edition2024 as i32),
        ..Default::default()
    };
    out.write_all(&header.encode_to_vec())?;
    let fail = |out: &mut dyn Write, e: &dyn std::fmt::Display| {
        let error = CodeGeneratorResponse {
            error: Some(format!("protoc-gen-rust-vt: {e}")),
            ..Default::default()
        };
        out.write_all(&error.encode_to_vec())
    };
    let options = match vtproto_codegen::Options::parse(request.parameter()) {
        Ok(o) => o,
        Err(e) => return fail(out, &e),
    };
    let mut written = Vec::new();
    let mut result = Ok(());
    let generated = vtproto_codegen::generate_each_encoded(
        &request.proto_file,
        encoded,
        &request.file_to_generate,
        &options,
        |f| {
            if options.insert_include {
                push(
                    &mut result,
                    out,
                    File {
                        name: Some(protoc_gen_prost_file(&f.package)),
                        insertion_point: Some("module".into()),
                        content: Some(format!("include!(\"{}\");\n", f.name)),
                        ..Default::default()
                    },
                );
            }
            let name = f.name.clone();
            push(
                &mut result,
                out,
                File {
                    name: Some(f.name),
                    content: Some(f.content),
                    ..Default::default()
                },
            );
            written.push(vtproto_codegen::GeneratedFile {
                name,
                package: f.package,
                content: String::new(),
            });
        },
    );
    if let Err(e) = generated {
        return fail(out, &e);
    }
    if let Some(name) = &options.include_file {
        push(
            &mut result,
            out,
            File {
                name: Some(name.clone()),
                content: Some(vtproto_codegen::include_file(&written)),
                ..Default::default()
            },
        );
    }
    result
}

/// The request without the `source_code_info` of its files (but those declaring services),
/// and each file's bytes as they are in it, or `None` when it is not a well-formed request
/// (then decoding it reports the problem).
fn strip_source_code_info(request: &[u8]) -> Option<(Vec<u8>, Vec<Vec<u8>>)> {
    const PROTO_FILE: u64 = 15;
    const SOURCE_CODE_INFO: u64 = 9;
    /// The fields of `buf` (key and value bytes each) for `keep` to copy or not.
    fn fields(mut buf: &[u8], mut each: impl FnMut(u64, &[u8], &[u8])) -> Option<()> {
        while !buf.is_empty() {
            let start = buf;
            let key = prost::encoding::decode_varint(&mut buf).ok()?;
            let head = start.len() - buf.len();
            let len = match key & 7 {
                0 => {
                    let before = buf.len();
                    prost::encoding::decode_varint(&mut buf).ok()?;
                    let n = before - buf.len();
                    buf = start.get(head..)?;
                    n
                }
                1 => 8,
                2 => {
                    let before = buf.len();
                    let n = usize::try_from(prost::encoding::decode_varint(&mut buf).ok()?).ok()?;
                    let prefix = before - buf.len();
                    buf = start.get(head..)?;
                    prefix.checked_add(n)?
                }
                5 => 4,
                _ => return None,
            };
            let value = buf.get(..len)?;
            each(key >> 3, &start[..head], value);
            buf = &buf[len..];
        }
        Some(())
    }
    let mut out = Vec::with_capacity(request.len());
    let mut files = Vec::new();
    let mut ok = true;
    fields(request, |number, key, value| {
        if number != PROTO_FILE || key.first().map(|k| k & 7) != Some(2) {
            out.extend_from_slice(key);
            out.extend_from_slice(value);
            return;
        }
        // A length-delimited `proto_file`: its body, without field 9.
        let mut body_buf = value;
        if prost::encoding::decode_varint(&mut body_buf).is_err() {
            ok = false;
            return;
        }
        // Files that declare services keep their comments: the stubs document their methods.
        const SERVICE: u64 = 6;
        let mut has_service = false;
        ok &= fields(body_buf, |n, _, _| has_service |= n == SERVICE).is_some();
        let mut file = Vec::with_capacity(body_buf.len());
        ok &= fields(body_buf, |n, k, v| {
            if n != SOURCE_CODE_INFO || has_service {
                file.extend_from_slice(k);
                file.extend_from_slice(v);
            }
        })
        .is_some();
        out.extend_from_slice(key);
        prost::encoding::encode_varint(file.len() as u64, &mut out);
        out.extend_from_slice(&file);
        files.push(file);
    })?;
    ok.then_some((out, files))
}

/// Appends `file` to the response unless an earlier write failed.
fn push(result: &mut io::Result<()>, out: &mut impl Write, file: File) {
    if result.is_ok() {
        let one = CodeGeneratorResponse {
            file: vec![file],
            ..Default::default()
        };
        *result = out.write_all(&one.encode_to_vec());
    }
}

fn main() -> ExitCode {
    let mut input = Vec::new();
    if let Err(e) = io::stdin().read_to_end(&mut input) {
        eprintln!("protoc-gen-rust-vt: reading the request from stdin: {e}");
        return ExitCode::FAILURE;
    }
    // The generator reads comments only for services' stubs: dropping the others before
    // decoding halves the decoded request (googleapis: 42 MB of request, most of it comments).
    // The files' own bytes, for the descriptors feature (custom options included).
    let mut encoded = None;
    if let Some((stripped, files)) = strip_source_code_info(&input) {
        input = stripped;
        encoded = Some(files);
    }
    let request = match CodeGeneratorRequest::decode(&input[..]) {
        Ok(request) => request,
        Err(e) => {
            eprintln!(
                "protoc-gen-rust-vt: stdin is not a CodeGeneratorRequest ({e}); \
                 this program is run by protoc or buf, see --help of those tools"
            );
            return ExitCode::FAILURE;
        }
    };
    drop(input);
    let mut out = io::BufWriter::new(io::stdout().lock());
    if let Err(e) = respond(request, encoded.as_deref(), &mut out).and_then(|()| out.flush()) {
        eprintln!("protoc-gen-rust-vt: writing the response: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use vtproto_codegen::descriptor::{FileDescriptorProto, SourceCodeInfo};

    #[test]
    fn source_code_info_is_stripped_and_nothing_else() {
        let file = |name: &str| FileDescriptorProto {
            name: Some(name.into()),
            package: Some("p".into()),
            source_code_info: Some(Box::new(SourceCodeInfo {
                location: vec![Default::default(); 3],
            })),
            ..Default::default()
        };
        let request = CodeGeneratorRequest {
            file_to_generate: vec!["a.proto".into()],
            parameter: Some("mode=prost".into()),
            proto_file: vec![file("a.proto"), file("b.proto")],
            ..Default::default()
        };
        let (stripped, files) = strip_source_code_info(&request.encode_to_vec()).unwrap();
        let mut expected = request.clone();
        for f in &mut expected.proto_file {
            f.source_code_info = None;
        }
        assert_eq!(
            CodeGeneratorRequest::decode(&stripped[..]).unwrap(),
            expected
        );
        assert!(stripped.len() < request.encode_to_vec().len());
        // Each file's bytes as the request now holds them.
        let again: Vec<Vec<u8>> = expected
            .proto_file
            .iter()
            .map(|f| f.encode_to_vec())
            .collect();
        assert_eq!(files, again);
        // A file declaring a service keeps its comments.
        let mut with_service = file("c.proto");
        with_service.service.push(Default::default());
        let request = CodeGeneratorRequest {
            proto_file: vec![with_service.clone()],
            ..Default::default()
        };
        let (stripped, _) = strip_source_code_info(&request.encode_to_vec()).unwrap();
        assert_eq!(
            CodeGeneratorRequest::decode(&stripped[..]).unwrap(),
            request
        );
        // Not a request: left to the decoder to report.
        assert_eq!(strip_source_code_info(&[0x7a, 0x05, 0x01]), None);
        assert_eq!(strip_source_code_info(&[0x0b]), None);
    }
}
