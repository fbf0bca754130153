#!/usr/bin/env bash
# `buf generate` end to end: installs buf (npm @bufbuild/buf) and protoc-gen-prost (crates.io)
# into target/tools, runs buf.gen.yaml (protoc-gen-prost and ours, mode=prost) and
# buf.gen.standalone.yaml (ours alone, mode=standalone) with the local plugins into a temporary
# directory, and compiles and runs a small crate that includes both results.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools=$root/target/tools
buf=$tools/node_modules/.bin/buf

if [[ ! -x $tools/bin/protoc-gen-prost ]]; then
    cargo install --quiet protoc-gen-prost --version 0.5.0 --root "$tools"
fi
if [[ ! -x $buf ]]; then
    command -v npm >/dev/null || { echo "buf-check: npm is required" >&2; exit 1; }
    npm install --silent --no-audit --no-fund --prefix "$tools" @bufbuild/buf@1.75.0 >&2
fi
cargo build --quiet -p protoc-gen-rust-vt

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
PATH="$root/target/debug:$tools/bin:$PATH" "$buf" generate --template buf.gen.yaml -o "$out"
ls "$out/gen"
mkdir -p "$out/standalone"
PATH="$root/target/debug:$PATH" "$buf" generate --template buf.gen.standalone.yaml -o "$out/standalone"
ls "$out/standalone/gen"

# A crate that compiles the generated tree and round-trips a message through both libraries.
check=$out/check
mkdir -p "$check/src"
cat >"$check/Cargo.toml" <<TOML
[package]
name = "buf-check"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
prost = "0.14"
prost-types = "0.14"
vtproto = { path = "$root/crates/vtproto", features = ["prost-types", "tonic"] }
# The standalone output holds tonic's stubs for the services (the services feature).
tonic = { version = "0.14", default-features = false, features = ["transport", "codegen"] }
TOML
cat >"$check/src/main.rs" <<RUST
#![allow(dead_code, clippy::all)]
mod gen {
    pub mod vt {
        pub mod candidates {
            include!("$out/gen/vt.candidates.rs");
        }
        pub mod test {
            pub mod common {
                include!("$out/gen/vt.test.common.rs");
            }
            pub mod proto3 {
                include!("$out/gen/vt.test.proto3.rs");
            }
        }
    }
}
/// mode=standalone: our own structs, every package through the generated mod.rs.
mod standalone {
    include!("$out/standalone/gen/mod.rs");
}
use gen::vt::candidates::{Candidate, CandidatesResponse};
fn main() {
    // Our own structs read what prost's wrote, and keep what they don't know.
    let mut item = standalone::vt::editions::e2024::Item { id: Some(7), ..Default::default() };
    item.set_kind(standalone::vt::editions::e2024::Kind::B);
    let bytes = vtproto::Message::encode_to_vec(&item);
    assert_eq!(<standalone::vt::editions::e2024::Item as vtproto::Message>::decode(&bytes).unwrap(), item);
    let unknown = <standalone::vt::test::common::Money as vtproto::Message>::decode(&bytes).unwrap();
    assert_eq!(vtproto::Message::encode_to_vec(&unknown), bytes);
    let mut c = Candidate { id: "x".into(), ..Default::default() };
    c.meta_data.insert("rank".into(), "1".into());
    let msg = CandidatesResponse { candidates: vec![c] };
    let ours = vtproto::Message::encode_to_vec(&msg);
    assert_eq!(ours, prost::Message::encode_to_vec(&msg));
    assert_eq!(<CandidatesResponse as vtproto::Message>::decode(&ours).unwrap(), msg);
    let view: gen::vt::candidates::CandidatesResponseView =
        vtproto::MessageView::decode_view(&ours).unwrap();
    assert_eq!(view.candidates[0].id, "x");
    assert_eq!(vtproto::MessageView::to_owned_message(&view), msg);
    let all = gen::vt::test::proto3::Scalars { f_string: "s".into(), f_int32: -1, ..Default::default() };
    assert_eq!(vtproto::Message::encode_to_vec(&all), prost::Message::encode_to_vec(&all));
    // The stubs of proto/test/services.proto, from our plugin alone.
    let _client = standalone::vt::test::services::echo_client::EchoClient::<tonic::transport::Channel>::new;
    println!("buf generate output compiles (stubs included); rust-vt and prost agree");
}
RUST
CARGO_TARGET_DIR="$root/target" cargo run --quiet --manifest-path "$check/Cargo.toml"
