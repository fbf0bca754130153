//! A minimal project using rust-vt from `build.rs`: see `build.rs` and `Cargo.toml`.

pub mod event {
    // prost's structs, followed by an `include!` of rust-vt's impls for them.
    include!(concat!(env!("OUT_DIR"), "/vt.event.rs"));
}

use vtproto::Message;

fn main() {
    let event = event::Event {
        id: "evt-1".into(),
        ts: 1_700_000_000_000,
        region: "eu-west-1".into(),
        readings: vec![1.5, 2.5, 3.5, 4.5],
        attrs: [("host", "a1"), ("dc", "x"), ("rack", "7")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    };
    let bytes = event.encode_to_vec();
    let back = event::Event::decode(&bytes).expect("decodes");
    assert_eq!(back, event);
    println!("event: {} bytes, round trip ok", bytes.len());
}
