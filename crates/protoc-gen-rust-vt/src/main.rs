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

fn respond(request: &CodeGeneratorRequest) -> CodeGeneratorResponse {
    let mut response = CodeGeneratorResponse {
        supported_features: Some(Feature::Proto3Optional as u64 | Feature::SupportsEditions as u64),
        // Editions files are generated in mode=standalone; mode=prost refuses them by name.
        minimum_edition: Some(Edition::Proto2 as i32),
        maximum_edition: Some(Edition::Edition2024 as i32),
        ..Default::default()
    };
    let options = match vtproto_codegen::Options::parse(request.parameter()) {
        Ok(o) => o,
        Err(e) => {
            response.error = Some(format!("protoc-gen-rust-vt: {e}"));
            return response;
        }
    };
    match vtproto_codegen::generate(&request.proto_file, &request.file_to_generate, &options) {
        Ok(files) => {
            if let Some(name) = &options.include_file {
                response.file.push(File {
                    name: Some(name.clone()),
                    content: Some(vtproto_codegen::include_file(&files)),
                    ..Default::default()
                });
            }
            for f in files {
                if options.insert_include {
                    response.file.push(File {
                        name: Some(protoc_gen_prost_file(&f.package)),
                        insertion_point: Some("module".into()),
                        content: Some(format!("include!(\"{}\");\n", f.name)),
                        ..Default::default()
                    });
                }
                response.file.push(File {
                    name: Some(f.name),
                    content: Some(f.content),
                    ..Default::default()
                });
            }
        }
        Err(e) => response.error = Some(format!("protoc-gen-rust-vt: {e}")),
    }
    response
}

fn main() -> ExitCode {
    let mut input = Vec::new();
    if let Err(e) = io::stdin().read_to_end(&mut input) {
        eprintln!("protoc-gen-rust-vt: reading the request from stdin: {e}");
        return ExitCode::FAILURE;
    }
    let response = match CodeGeneratorRequest::decode(&input[..]) {
        Ok(request) => respond(&request),
        Err(e) => {
            eprintln!(
                "protoc-gen-rust-vt: stdin is not a CodeGeneratorRequest ({e}); \
                 this program is run by protoc or buf, see --help of those tools"
            );
            return ExitCode::FAILURE;
        }
    };
    let mut out = io::stdout().lock();
    if let Err(e) = out
        .write_all(&response.encode_to_vec())
        .and_then(|()| out.flush())
    {
        eprintln!("protoc-gen-rust-vt: writing the response: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
