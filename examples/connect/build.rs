//! The say service's messages (our own structs, ProtoJSON) and its services: tonic's stubs
//! and the Connect side (`features=..+services+connect`), from the pure parser.

fn main() -> std::io::Result<()> {
    vtproto_build::Config::new()
        .mode(vtproto_build::Mode::Standalone)
        .features(["structs", "codec", "json", "services", "connect"])
        .compile_protos(&["../../proto/connect/say.proto"], &["../../proto"])
}
