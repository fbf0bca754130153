//! The generator reads descriptors through its own copy of `descriptor.proto` and
//! `plugin.proto` (prost-types 0.14 predates editions: no `edition`, no `features`). The copy
//! is prost-build's output for the protos of the vendored protoc, checked in
//! (`src/descriptor/`); this test regenerates it and fails when it is stale.
//! `VT_BLESS=1 cargo test -p vtproto-codegen --test descriptor` rewrites it.

use std::path::PathBuf;

#[test]
fn descriptor_types_are_fresh() {
    let include = protoc_bin_vendored::include_path().unwrap();
    let out = std::env::temp_dir().join(format!("vt-descriptor-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let mut config = prost_build::Config::new();
    config
        .protoc_executable(protoc_bin_vendored::protoc_bin_path().unwrap())
        .compile_well_known_types()
        .out_dir(&out)
        .disable_comments(["."])
        // Most elements have no options: boxed, a `None` costs a pointer, not the options'
        // size (which editions grew). A request for googleapis decodes to about half the size.
        .boxed(".google.protobuf.FieldDescriptorProto.options")
        .boxed(".google.protobuf.DescriptorProto.options")
        .boxed(".google.protobuf.EnumDescriptorProto.options")
        .boxed(".google.protobuf.EnumValueDescriptorProto.options")
        .boxed(".google.protobuf.OneofDescriptorProto.options")
        .boxed(".google.protobuf.ServiceDescriptorProto.options")
        .boxed(".google.protobuf.MethodDescriptorProto.options")
        .boxed(".google.protobuf.FileDescriptorProto.options")
        .boxed(".google.protobuf.FileDescriptorProto.source_code_info");
    config
        .compile_protos(
            &[
                "google/protobuf/descriptor.proto",
                "google/protobuf/compiler/plugin.proto",
            ],
            &[&include],
        )
        .unwrap();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/descriptor");
    let mut stale = Vec::new();
    for name in ["google.protobuf.rs", "google.protobuf.compiler.rs"] {
        let fresh = std::fs::read_to_string(out.join(name)).unwrap();
        if std::env::var_os("VT_BLESS").is_some() {
            std::fs::write(dir.join(name), &fresh).unwrap();
        } else if std::fs::read_to_string(dir.join(name)).ok().as_deref() != Some(&fresh) {
            stale.push(name);
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    assert!(
        stale.is_empty(),
        "{stale:?} differ from prost-build's output; review the diff after \
         VT_BLESS=1 cargo test -p vtproto-codegen --test descriptor"
    );
}
