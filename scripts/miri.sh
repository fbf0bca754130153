#!/usr/bin/env bash
# Runs the runtime crate's unit tests under Miri (undefined behaviour checks): the writer's raw
# writes, the reader's unchecked UTF-8 after its ASCII check, every `set_len`, and
# `OwnedView`'s borrowed buffer.
#
#   scripts/miri.sh            # installs the nightly `miri` component with rustup if missing
#
# The test command runs it when a nightly toolchain with Miri is available (about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
cargo +nightly miri test -p vtproto --lib
