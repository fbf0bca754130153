//! The descriptors `vtproto-build` hands on, parsed by the pure-Rust parser: custom options
//! reach the descriptor set file and the `descriptors` feature's `FILE_DESCRIPTOR_SET` as
//! bytes, and proto3 `optional`'s synthetic oneofs come after the real ones, as protoc writes
//! them (gRPC reflection clients refuse other orders). Byte-for-byte equality with protoc is
//! checked against protoc itself by `tests/tests/descriptor_parity.rs`.

use prost::Message as _;

const PROTO: &str = r#"
syntax = "proto3";
package shop;
import "google/protobuf/descriptor.proto";
extend google.protobuf.FileOptions { string file_tag = 50001; }
extend google.protobuf.FieldOptions { int32 weight = 50002; }
option (file_tag) = "custom-option-kept";
message Item {
  optional string name = 1;
  oneof price { int64 cents = 2 [(weight) = 77]; string free = 3; }
  optional int32 count = 4;
}
service Shop { rpc Get(Item) returns (Item) {} }
"#;

#[test]
fn custom_options_and_synthetic_oneofs_reach_the_descriptors() {
    let d = std::env::temp_dir().join(format!("vt-build-descriptors-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("shop.proto"), PROTO).unwrap();
    let set_path = d.join("set.pb");
    let mut config = vtproto_build::Config::new();
    config
        .out_dir(&d)
        .features(["codec", "descriptors"])
        .file_descriptor_set_path(&set_path);
    let expected = config
        .load_fds_bytes(&[d.join("shop.proto")], &[&d])
        .unwrap();
    config
        .compile_protos(&[d.join("shop.proto")], &[&d])
        .unwrap();

    let written = std::fs::read(&set_path).unwrap();
    assert_eq!(written, expected, "the set file holds the parsed bytes");
    let marker = b"custom-option-kept";
    assert!(
        written.windows(marker.len()).any(|w| w == marker),
        "the file option is kept"
    );
    // (weight) = 77 on `cents`: key 50002 << 3, then 77.
    let weight = [0x90, 0xb5, 0x18, 77];
    assert!(
        written.windows(4).any(|w| w == weight),
        "the field option is kept"
    );
    let generated = std::fs::read_to_string(d.join("shop.vt.rs")).unwrap();
    assert!(
        generated.contains("custom-option-kept"),
        "FILE_DESCRIPTOR_SET keeps the custom option"
    );

    let set = vtproto_build::FileDescriptorSet::decode(&written[..]).unwrap();
    let shop = set.file.iter().find(|f| f.name() == "shop.proto").unwrap();
    let item = &shop.message_type[0];
    let oneofs: Vec<&str> = item.oneof_decl.iter().map(|o| o.name()).collect();
    assert_eq!(oneofs, ["price", "_name", "_count"]);
    let index: Vec<i32> = item.field.iter().map(|f| f.oneof_index()).collect();
    assert_eq!(index, [1, 0, 0, 2]);
    assert!(shop.service[0].method[0].options.is_some(), "a `{{}}` body");
    let _ = std::fs::remove_dir_all(&d);
}
