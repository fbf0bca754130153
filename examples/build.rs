//! Compiles the example's proto with prost-build plus rust-vt, from `build.rs`, with the
//! pure-Rust parser (no protoc needed).

fn main() -> std::io::Result<()> {
    vtproto_build::compile_protos(&["../proto/candidates.proto"], &["../proto"])
}
