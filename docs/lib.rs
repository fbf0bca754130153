//! The rust-vt guide as a crate, so that the test command compiles its examples: every Rust
//! block of the guide's chapters and of the top README is a doc test of this crate
//! (`cargo test -p vt-guide --doc`). The build script generates what the examples include
//! from `OUT_DIR`. Not published.

#[doc = include_str!("../README.md")]
pub mod readme {}

#[doc = include_str!("README.md")]
pub mod contents {}

#[doc = include_str!("getting-started.md")]
pub mod getting_started {}

#[doc = include_str!("standalone.md")]
pub mod standalone {}

#[doc = include_str!("code-generation.md")]
pub mod code_generation {}

#[doc = include_str!("options.md")]
pub mod options {}

#[doc = include_str!("views.md")]
pub mod views {}

#[doc = include_str!("services.md")]
pub mod services {}

#[doc = include_str!("connect.md")]
pub mod connect {}

#[doc = include_str!("json.md")]
pub mod json {}

#[doc = include_str!("text-format.md")]
pub mod text_format {}

#[doc = include_str!("reflection.md")]
pub mod reflection {}

#[doc = include_str!("editions-and-extensions.md")]
pub mod editions_and_extensions {}

#[doc = include_str!("errors-and-limits.md")]
pub mod errors_and_limits {}

#[doc = include_str!("performance.md")]
pub mod performance {}

#[doc = include_str!("testing.md")]
pub mod testing {}

#[doc = include_str!("architecture.md")]
pub mod architecture {}

#[doc = include_str!("migrating-from-prost.md")]
pub mod migrating_from_prost {}

#[doc = include_str!("migrating-from-pbjson.md")]
pub mod migrating_from_pbjson {}

#[doc = include_str!("migrating-from-buffa.md")]
pub mod migrating_from_buffa {}

#[doc = include_str!("faq.md")]
pub mod faq {}
