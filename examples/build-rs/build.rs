//! The whole rust-vt setup of a project: one call. The second generation, with protoc, exists
//! only to check that both parsers produce the same code (`tests/parsers_agree.rs`).

fn main() -> std::io::Result<()> {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());

    // What a user writes: prost's structs and rust-vt's impls, parsed without protoc.
    vtproto_build::Config::new().compile_protos(&["../../proto/event.proto"], &["../../proto"])?;

    for (dir, protoc) in [
        ("pure", None),
        (
            "protoc",
            Some(protoc_bin_vendored::protoc_bin_path().unwrap()),
        ),
    ] {
        let dir = out.join(dir);
        std::fs::create_dir_all(&dir)?;
        let mut config = vtproto_build::Config::new();
        config.out_dir(&dir);
        // The pure parser keeps no comments; compare the code, not the docs.
        config.prost_config().disable_comments(["."]);
        if let Some(protoc) = protoc {
            config.protoc(protoc);
        }
        config.compile_protos(
            &[
                "../../proto/test/all_types_proto3.proto",
                "../../proto/test/all_types_proto2.proto",
            ],
            &["../../proto"],
        )?;
    }
    Ok(())
}
