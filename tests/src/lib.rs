//! Generated code for the project's protos (and the test corpora when installed), for the
//! cross-crate tests in `tests/tests/`. Not published.
#![allow(clippy::all, missing_docs)]

pub use alloc_stats;

pub mod checks;
pub mod properties;

/// The project's protos: workloads and all-field-kinds test protos.
pub mod own {
    include!(concat!(env!("OUT_DIR"), "/own/_includes.rs"));
}

/// The project's protos in `mode=standalone`: our own structs, same paths as in [`own`].
pub mod own_standalone {
    include!(concat!(env!("OUT_DIR"), "/own-standalone/_includes.rs"));
}

/// Editions 2023 and 2024 test protos, in `mode=standalone` (the only mode that takes them).
pub mod editions {
    include!(concat!(
        env!("OUT_DIR"),
        "/editions-standalone/_includes.rs"
    ));
}

/// The descriptor set of [`editions`].
pub const EDITIONS_DESCRIPTORS: &[u8] = include_bytes!(concat!(
    env!("OUT_DIR"),
    "/editions-standalone/descriptors.bin"
));

/// The descriptor set of [`own`], for descriptor-driven tests.
pub const OWN_DESCRIPTORS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/own/descriptors.bin"));

/// The conformance suite's protos.
#[cfg(vt_conformance)]
pub mod conformance {
    include!(concat!(env!("OUT_DIR"), "/conformance/_includes.rs"));
}

/// The conformance suite's protos in `mode=standalone`.
#[cfg(vt_conformance)]
pub mod conformance_standalone {
    include!(concat!(
        env!("OUT_DIR"),
        "/conformance-standalone/_includes.rs"
    ));
}

/// The descriptor set of [`conformance`].
#[cfg(vt_conformance)]
pub const CONFORMANCE_DESCRIPTORS: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/conformance/descriptors.bin"));

/// googleapis-common-protos.
#[cfg(vt_googleapis)]
pub mod googleapis {
    include!(concat!(env!("OUT_DIR"), "/googleapis/_includes.rs"));
}

/// The descriptor set of [`googleapis`].
#[cfg(vt_googleapis)]
pub const GOOGLEAPIS_DESCRIPTORS: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/googleapis/descriptors.bin"));

/// The OpenTelemetry protos.
#[cfg(vt_otel)]
pub mod otel {
    include!(concat!(env!("OUT_DIR"), "/otel/_includes.rs"));
}

/// The descriptor set of [`otel`].
#[cfg(vt_otel)]
pub const OTEL_DESCRIPTORS: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/otel/descriptors.bin"));
