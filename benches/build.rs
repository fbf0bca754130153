//! Generates the three workloads' types for every library in the benchmark, from the same
//! protos: prost + rust-vt (vtproto-build), rust-vt's own structs (`mode=standalone`), buffa
//! (buffa-build) and rust-protobuf (protobuf-codegen); for JSON also prost + pbjson
//! (pbjson-build's serde impls, the common Rust setup) on a copy of prost's structs.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    let protos = [
        "../proto/candidates.proto",
        "../proto/event.proto",
        "../proto/deep.proto",
    ];
    let includes = ["../proto"];
    // The JSON benchmark's public workloads: the OpenTelemetry trace export request and Google's
    // benchmark messages with their datasets (protos as published, in `proto/`).
    let json_protos = [
        "../proto/candidates.proto",
        "../proto/event.proto",
        "../proto/deep.proto",
        "proto/opentelemetry/proto/collector/trace/v1/trace_service.proto",
        "proto/benchmarks/benchmarks.proto",
        "proto/benchmarks/benchmark_message1_proto2.proto",
        "proto/benchmarks/benchmark_message1_proto3.proto",
        "proto/benchmarks/benchmark_message2.proto",
    ];
    let json_includes = ["../proto", "proto"];
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    println!("cargo:rustc-env=VT_BENCH_PROTOC={}", protoc.display());
    println!(
        "cargo:rustc-env=VT_BENCH_WKT={}",
        protoc_bin_vendored::include_path()?.display()
    );

    let mut vt = vtproto_build::Config::new();
    // `reuse`: decode_into keeps allocations (the decode_into benches measure it).
    vt.features(["codec", "reuse", "json", "serde"])
        .views(["."])
        .prost_config()
        .include_file("_prost.rs");
    vt.compile_protos(&json_protos, &json_includes)?;
    let standalone = out.join("standalone");
    std::fs::create_dir_all(&standalone)?;
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec", "reuse", "json"])
        .out_dir(&standalone)
        .include_file("_standalone.rs")
        .compile_protos(&protos, &includes)?;

    // The same types with their JSON served by the reflection tables (`tables=.`).
    let tables = out.join("tables");
    std::fs::create_dir_all(&tables)?;
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec", "json", "reflect"])
        .tables(["."])
        .out_dir(&tables)
        .include_file("_tables.rs")
        .compile_protos(&json_protos, &json_includes)?;

    let fds_path = out.join("bench.fds");
    let status = std::process::Command::new(&protoc)
        .args([
            "-I",
            "../proto",
            "-I",
            "proto",
            "-I",
            "proto/google",
            "--include_imports",
            "-o",
        ])
        .arg(&fds_path)
        .args(json_protos)
        .status()?;
    assert!(status.success(), "protoc failed");
    let buffa_dir = out.join("buffa");
    std::fs::create_dir_all(&buffa_dir)?;
    buffa_build::Config::new()
        .files(&[
            "candidates.proto",
            "event.proto",
            "deep.proto",
            "opentelemetry/proto/common/v1/common.proto",
            "opentelemetry/proto/resource/v1/resource.proto",
            "opentelemetry/proto/trace/v1/trace.proto",
            "opentelemetry/proto/collector/trace/v1/trace_service.proto",
            "benchmarks/benchmarks.proto",
            "benchmarks/benchmark_message1_proto2.proto",
            "benchmarks/benchmark_message1_proto3.proto",
            "benchmarks/benchmark_message2.proto",
        ])
        .includes(&json_includes)
        .descriptor_set(&fds_path)
        .generate_views(true)
        .generate_json(true)
        .out_dir(&buffa_dir)
        .include_file("_buffa.rs")
        .compile()?;

    // prost's structs again, with pbjson's serde impls beside them.
    let pbjson_dir = out.join("pbjson");
    std::fs::create_dir_all(&pbjson_dir)?;
    let pbjson_fds = pbjson_dir.join("fds.bin");
    let mut prost = prost_build::Config::new();
    prost.protoc_executable(&protoc);
    prost
        .out_dir(&pbjson_dir)
        .file_descriptor_set_path(&pbjson_fds)
        .compile_protos(&json_protos, &json_includes)?;
    pbjson_build::Builder::new()
        .out_dir(&pbjson_dir)
        .register_descriptors(&std::fs::read(&pbjson_fds)?)?
        .build(&[".vt", ".benchmarks", ".opentelemetry"])?;

    // The search service for the Connect load benchmark (`examples/connect_load.rs`): ours
    // (`mode=standalone`, `connect`), and connectrpc 0.9's with its own buffa types, from a
    // descriptor set written by the pure parser.
    let connect_vt = out.join("connect_vt");
    std::fs::create_dir_all(&connect_vt)?;
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec", "json", "services", "connect"])
        // Ingest reads its request as an owned view, as connectrpc's handlers read theirs.
        .views([".vt.search.IngestRequest", ".vt.candidates"])
        .server_views([".vt.search.Search.Ingest"])
        .out_dir(&connect_vt)
        .include_file("_connect_vt.rs")
        .compile_protos(&["../proto/search.proto"], &includes)?;
    let connectrpc_dir = out.join("connectrpc");
    std::fs::create_dir_all(&connectrpc_dir)?;
    let search_fds = connectrpc_dir.join("search.fds");
    let set = vtproto_build::Config::new().load_fds_bytes(&["../proto/search.proto"], &includes)?;
    std::fs::write(&search_fds, set)?;
    connectrpc_build::Config::new()
        .files(&["candidates.proto", "event.proto", "search.proto"])
        .descriptor_set(&search_fds)
        .out_dir(&connectrpc_dir)
        .include_file("_connectrpc.rs")
        .emit_rerun_directives(false)
        .compile()?;
    println!("cargo:rerun-if-changed=../proto/search.proto");

    protobuf_codegen::Codegen::new()
        .pure()
        .includes(includes)
        .inputs(protos)
        .cargo_out_dir("rust_protobuf")
        .run_from_script();
    Ok(())
}
