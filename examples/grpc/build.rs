//! Messages: prost's structs plus rust-vt's impls (vtproto-build, pure parser), and a view of
//! the request. Services: our generator's stubs (rust-vt's codec; server handlers taking the
//! request as an owned view), and tonic-prost-build's twice over the same messages, once with
//! rust-vt's codec and once with prost's, so the tests can mix them on either side of a
//! connection.

fn main() -> std::io::Result<()> {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let protos = ["../../proto/search.proto"];
    let includes = ["../../proto"];
    // Our impls and our stubs (the services feature), whose server handlers take the search
    // and ingest requests as views owning tonic's buffer.
    vtproto_build::Config::new()
        .views([
            ".vt.search.SearchRequest",
            ".vt.search.IngestRequest",
            ".vt.candidates",
        ])
        .server_views([
            ".vt.search.Search.Find",
            ".vt.search.Search.Stream",
            ".vt.search.Search.Ingest",
        ])
        .compile_protos(&protos, &includes)?;

    // tonic-prost-build reads descriptors; hand it ours so no protoc is needed.
    let fds = vtproto_build::Config::new().load_fds(&protos, &includes)?;
    let fds = vtproto_build::prost_fds(&fds)?;
    for (dir, codec) in [
        ("vt", "::vtproto::tonic::VtCodec"),
        ("prost", "::tonic_prost::ProstCodec"),
    ] {
        let dir = out.join(dir);
        std::fs::create_dir_all(&dir)?;
        tonic_prost_build::configure()
            .out_dir(&dir)
            .codec_path(codec)
            .extern_path(".vt", "crate::pb::vt")
            .compile_fds(fds.clone())?;
    }
    // The same search service without prost, for the load benchmark's standalone rows.
    let dir = out.join("search_standalone");
    std::fs::create_dir_all(&dir)?;
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .views([
            ".vt.search.SearchRequest",
            ".vt.search.IngestRequest",
            ".vt.candidates",
        ])
        .server_views([
            ".vt.search.Search.Find",
            ".vt.search.Search.Stream",
            ".vt.search.Search.Ingest",
        ])
        .out_dir(&dir)
        .include_file("mod.rs")
        .compile_protos(&protos, &includes)?;

    // gRPC without prost: our own structs and tonic's stubs, from our generator alone.
    let dir = out.join("standalone");
    std::fs::create_dir_all(&dir)?;
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec", "services", "descriptors"])
        // The server's unary handler takes its request as a view owning tonic's buffer.
        .views([".vt.test.services.EchoRequest"])
        .server_views([".vt.test.services.Echo.Unary"])
        .out_dir(&dir)
        .include_file("mod.rs")
        .compile_protos(&["../../proto/test/services.proto"], &includes)?;
    Ok(())
}
