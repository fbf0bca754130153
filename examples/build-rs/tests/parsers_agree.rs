//! The pure-Rust parser and protoc must yield the same generated code for the same protos.

use std::path::Path;

#[test]
fn pure_parser_and_protoc_generate_identical_code() {
    let out = Path::new(env!("OUT_DIR"));
    let mut names: Vec<_> = std::fs::read_dir(out.join("protoc"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    for name in names {
        let a = std::fs::read_to_string(out.join("pure").join(&name)).unwrap();
        let b = std::fs::read_to_string(out.join("protoc").join(&name)).unwrap();
        assert_eq!(a, b, "{name:?} differs between the pure parser and protoc");
    }
}

#[test]
fn generated_code_round_trips() {
    use vtproto::Message;
    let bytes = [
        0x0a, 0x02, b'i', b'd', 0x10, 0x05, 0x22, 0x08, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,
    ];
    let event = vt_build_rs_example_event::decode(&bytes);
    assert_eq!(event.encode_to_vec(), bytes);
}

mod vt_build_rs_example_event {
    #[allow(dead_code)]
    mod event {
        include!(concat!(env!("OUT_DIR"), "/vt.event.rs"));
    }
    pub fn decode(bytes: &[u8]) -> event::Event {
        <event::Event as vtproto::Message>::decode(bytes).unwrap()
    }
}
