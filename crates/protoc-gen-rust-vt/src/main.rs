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
fn respond(request: CodeGeneratorRequest, out: &mut impl Write) -> io::Result<()> {
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
    let generated = vtproto_codegen::generate_each(
        &request.proto_file,
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
    if let Err(e) = respond(request, &mut out).and_then(|()| out.flush()) {
        eprintln!("protoc-gen-rust-vt: writing the response: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
