//! The descriptor types the generator reads: `google/protobuf/descriptor.proto` and
//! `compiler/plugin.proto` as prost-build generates them, from the protos of the protoc this
//! workspace vendors, editions included (`edition`, `features`; prost-types 0.14 predates
//! them). Checked in and kept current by `tests/descriptor.rs`.
#![allow(missing_docs, clippy::all, rustdoc::all)]

include!("google.protobuf.rs");

/// `google/protobuf/compiler/plugin.proto`.
pub mod compiler {
    include!("google.protobuf.compiler.rs");
}
