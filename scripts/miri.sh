#!/usr/bin/env bash
# Runs under Miri (undefined behaviour checks) the runtime crate's unit tests (the writer's raw
# writes, the reader's unchecked UTF-8 after its ASCII check, every `set_len`, `OwnedView`'s
# borrowed buffer) and a small differential sample (tests/tests/miri_sample.rs: inputs from the
# fuzz corpora through prost and every decoder and encode entry point of ours, on the workload
# and conformance messages).
#
#   scripts/miri.sh            # installs the nightly `miri` component with rustup if missing
#
# The test command runs it when a nightly toolchain with Miri is available.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
cargo +nightly miri test -p vtproto --lib
# JSON's writer copies strings and numbers inline too (its unit tests, every length).
cargo +nightly miri test -p vtproto --lib --features json json::write
cargo +nightly miri test -p vtproto --lib --features reflect reflect::generated
cargo +nightly miri test -p vt-tests --test miri_sample
