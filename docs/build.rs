//! Generates into `OUT_DIR` the code the guide's examples include, with the calls the guide
//! shows (on the repository's protos; paths from this folder).

fn main() -> std::io::Result<()> {
    // mode=prost: prost's structs, our impls and tonic stubs for proto/search.proto and the
    // files it imports: vt.candidates.rs, vt.event.rs, vt.search.rs (each including its
    // `.vt.rs`). Search.Find takes its request as an owned view (docs/services.md).
    vtproto_build::Config::new()
        .views([".vt.search.SearchRequest"])
        .server_views([".vt.search.Search.Find"])
        .default_stubs(true)
        .compile_protos(&["../proto/search.proto"], &["../proto"])?;

    // mode=standalone: our own structs, tonic stubs and FILE_DESCRIPTOR_SET for
    // proto/test/services.proto, and `_includes.rs`, the module tree (docs/standalone.md,
    // docs/services.md).
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec", "services", "descriptors"])
        .default_stubs(true)
        .include_file("_includes.rs")
        .compile_protos(&["../proto/test/services.proto"], &["../proto"])?;
    Ok(())
}
