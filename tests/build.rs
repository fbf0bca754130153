//! Generates prost structs plus rust-vt impls for the project's protos (`proto/`) and, when
//! the corpora are installed (`scripts/fetch-corpora.sh`), for the conformance, googleapis and
//! OpenTelemetry protos. Set `VT_REQUIRE_CORPORA=1` to make missing corpora an error instead of
//! a skipped suite. Each corpus folder is watched, so installing the corpora reruns this script.

use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let protoc = protoc_bin_vendored::protoc_bin_path().expect("vendored protoc");
    let wkt = protoc_bin_vendored::include_path().expect("vendored protoc include path");
    let corpora = std::env::var_os("VT_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/corpora"));
    let require = std::env::var_os("VT_REQUIRE_CORPORA").is_some_and(|v| v == "1");
    println!("cargo:rerun-if-env-changed=VT_CORPORA");
    println!("cargo:rerun-if-env-changed=VT_REQUIRE_CORPORA");
    println!("cargo:rerun-if-changed={}", root.join("proto").display());
    for cfg in ["vt_conformance", "vt_googleapis", "vt_otel"] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }

    let proto = root.join("proto");
    let own: Vec<PathBuf> = ["candidates.proto", "event.proto", "deep.proto"]
        .iter()
        .map(|f| proto.join(f))
        .chain(
            [
                "imported",
                "all_types_proto3",
                "all_types_proto2",
                "nasty_names",
            ]
            .iter()
            .map(|f| proto.join(format!("test/{f}.proto"))),
        )
        .collect();
    let own_options = |c: &mut vtproto_build::Config| {
        c.btree_map([
            ".vt.test.proto3.Maps.ordered",
            ".vt.test.proto3.EmptyValues.own_empty_ordered",
            ".vt.test.proto3.EmptyValues.wkt_empty_ordered",
        ])
        .bytes([".vt.test.proto3.Bytes"]);
    };
    suite(&out, "own", &protoc, &own, &[&proto, &wkt], own_options);
    standalone_suite(&out, "own", &protoc, &own, &[&proto, &wkt], own_options);

    // Editions: mode=standalone only (prost-build 0.14 refuses editions files).
    let editions: Vec<PathBuf> = ["e2023", "e2024"]
        .iter()
        .map(|f| proto.join(format!("test/editions/{f}.proto")))
        .collect();
    standalone_suite(&out, "editions", &protoc, &editions, &[&proto, &wkt], |c| {
        c.file_descriptor_set_path(out.join("editions-standalone/descriptors.bin"));
    });

    let conformance = corpora.join("conformance/include");
    // A path that does not exist yet reruns the script on every build, until it appears.
    println!("cargo:rerun-if-changed={}", conformance.display());
    if conformance.exists() {
        let files: Vec<PathBuf> = [
            "conformance/conformance.proto",
            "google/protobuf/test_messages_proto2.proto",
            "google/protobuf/test_messages_proto3.proto",
        ]
        .iter()
        .map(|f| conformance.join(f))
        .collect();
        suite(
            &out,
            "conformance",
            &protoc,
            &files,
            &[&conformance, &wkt],
            |_| {},
        );
        standalone_suite(
            &out,
            "conformance",
            &protoc,
            &files,
            &[&conformance, &wkt],
            |_| {},
        );
        println!("cargo:rustc-cfg=vt_conformance");
    } else if require {
        panic!(
            "conformance protos missing at {}: run scripts/fetch-corpora.sh",
            conformance.display()
        );
    }

    for (name, dir) in [
        ("googleapis", corpora.join("googleapis")),
        ("otel", corpora.join("otel")),
    ] {
        println!("cargo:rerun-if-changed={}", dir.display());
        if dir.exists() {
            let files = proto_files(&dir);
            suite(&out, name, &protoc, &files, &[&dir, &wkt], |_| {});
            println!("cargo:rustc-cfg=vt_{name}");
        } else if require {
            panic!(
                "{name} protos missing at {}: run scripts/fetch-corpora.sh",
                dir.display()
            );
        }
    }
}

/// Runs prost-build and rust-vt on `files` into `OUT_DIR/<name>/`, with an include file
/// `_includes.rs` holding the package module tree and `descriptors.bin` the descriptor set.
fn suite(
    out: &Path,
    name: &str,
    protoc: &Path,
    files: &[PathBuf],
    includes: &[&Path],
    configure: impl FnOnce(&mut vtproto_build::Config),
) {
    let dir = out.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = vtproto_build::Config::new();
    config
        .out_dir(&dir)
        .features(["codec", "reuse", "reflect"])
        .views(["."])
        .protoc(protoc)
        .file_descriptor_set_path(dir.join("descriptors.bin"))
        .prost_config()
        .include_file("_includes.rs");
    configure(&mut config);
    config
        .compile_protos(files, includes)
        .unwrap_or_else(|e| panic!("suite {name}: {e}"));
    write_registry(&dir, config.codegen_options());
}

/// Runs rust-vt in `mode=standalone` on `files` into `OUT_DIR/<name>-standalone/`, with an
/// include file `_includes.rs` and `_registry.rs`: `pairs! { "full.Name" => path::Type,
/// path::TypeView, ... }`, the same path naming the prost-mode type in `<name>` and ours in
/// `<name>-standalone`.
fn standalone_suite(
    out: &Path,
    name: &str,
    protoc: &Path,
    files: &[PathBuf],
    includes: &[&Path],
    configure: impl FnOnce(&mut vtproto_build::Config),
) {
    let dir = out.join(format!("{name}-standalone"));
    std::fs::create_dir_all(&dir).unwrap();
    let mut config = vtproto_build::Config::new();
    config
        .mode(vtproto_build::Mode::Standalone)
        .features([
            "structs", "codec", "reuse", "json", "serde", "text", "reflect",
        ])
        .out_dir(&dir)
        .views(["."])
        .protoc(protoc)
        .include_file("_includes.rs");
    configure(&mut config);
    config
        .compile_protos(files, includes)
        .unwrap_or_else(|e| panic!("suite {name} (standalone): {e}"));
    let fds = config.load_fds(files, includes).unwrap();
    let names: Vec<String> = fds.file.iter().map(|f| f.name().to_string()).collect();
    let packages =
        vtproto_codegen::model::build(&fds.file, &names, config.codegen_options()).unwrap();
    let mut registry = String::from("pairs! {\n");
    for p in &packages {
        for m in &p.messages {
            let path: Vec<&str> = p
                .module
                .segments
                .iter()
                .chain(&m.rust_path.segments)
                .map(String::as_str)
                .collect();
            let view = vtproto_codegen::view_path(&m.rust_path);
            let view: Vec<&str> = p
                .module
                .segments
                .iter()
                .chain(&view.segments)
                .map(String::as_str)
                .collect();
            registry.push_str(&format!(
                "    {:?} => {}, {},\n",
                m.full_name,
                path.join("::"),
                view.join("::")
            ));
        }
    }
    registry.push_str("}\n");
    std::fs::write(dir.join("_registry.rs"), registry).unwrap();
}

/// Writes `_registry.rs`: `registry! { "full.Name" => rust::path::Type, rust::path::TypeView,
/// ... }` for every message with an impl (and a view), so tests can iterate over all of them.
fn write_registry(dir: &Path, options: &vtproto_codegen::Options) {
    use prost::Message as _;
    let bytes = std::fs::read(dir.join("descriptors.bin")).unwrap();
    let fds = vtproto_codegen::descriptor::FileDescriptorSet::decode(&bytes[..]).unwrap();
    let names: Vec<String> = fds.file.iter().map(|f| f.name().to_string()).collect();
    let packages = vtproto_codegen::model::build(&fds.file, &names, options).unwrap();
    let mut out = String::from("registry! {\n");
    for p in &packages {
        for m in &p.messages {
            let view = vtproto_codegen::view_path(&m.rust_path);
            let [path, view] = [&m.rust_path, &view].map(|r| {
                let path: Vec<&str> = p
                    .module
                    .segments
                    .iter()
                    .chain(&r.segments)
                    .map(String::as_str)
                    .collect();
                path.join("::")
            });
            out.push_str(&format!("    {:?} => {path}, {view},\n", m.full_name));
        }
    }
    out.push_str("}\n");
    std::fs::write(dir.join("_registry.rs"), out).unwrap();
}

fn proto_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "proto") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
