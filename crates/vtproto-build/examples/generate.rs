//! Generates Rust for an already parsed descriptor set, as a build script would:
//!
//! ```sh
//! protoc --include_imports --include_source_info -o set.fds a.proto b.proto
//! cargo run --release -p vtproto-build --example generate -- set.fds out/ [--prost-only]
//! ```
//!
//! Writes prost-build's structs and rust-vt's impls (the `codec` feature) for every file in `set.fds` (the
//! well-known types excepted: `prost-types` and `vtproto` have them) to `out/`, with `mod.rs`
//! declaring a module per package; `--prost-only` writes prost-build's output alone, the
//! baseline `scripts/codegen-scale.sh` compares compile costs with.

use std::path::PathBuf;
use std::process::ExitCode;

use prost::Message as _;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let prost_only = args.iter().any(|a| a == "--prost-only");
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let [fds, out] = paths[..] else {
        eprintln!("usage: generate <descriptor set> <output dir> [--prost-only]");
        return ExitCode::FAILURE;
    };
    let run = || -> std::io::Result<()> {
        let bytes = std::fs::read(fds)?;
        let out = PathBuf::from(out);
        std::fs::create_dir_all(&out)?;
        if prost_only {
            let fds = prost_types::FileDescriptorSet::decode(&bytes[..])?;
            prost_build::Config::new()
                .out_dir(&out)
                .include_file("mod.rs")
                .compile_fds(fds)
        } else {
            let fds = vtproto_build::FileDescriptorSet::decode(&bytes[..])?;
            // The codec alone (no tonic stubs for the services): what the baseline, prost's
            // structs, is compared with; `VT_SCALE_FEATURES=codec+json` measures a feature
            // beside it.
            // `VT_SCALE_TABLES=.` serves JSON and text from the reflection tables.
            let features = std::env::var("VT_SCALE_FEATURES").unwrap_or_else(|_| "codec".into());
            let tables = std::env::var("VT_SCALE_TABLES").unwrap_or_default();
            vtproto_build::Config::new()
                .out_dir(&out)
                .features(features.split('+'))
                .tables(tables.split(',').filter(|p| !p.is_empty()))
                .include_file("mod.rs")
                .compile_fds(fds)
        }
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("generate: {e}");
            ExitCode::FAILURE
        }
    }
}
