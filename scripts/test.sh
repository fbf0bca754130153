#!/usr/bin/env bash
# The project's test command (the README's and CI's):
#
#   scripts/test.sh
#
# 1. installs the test corpora (conformance runner and protos, googleapis and OpenTelemetry
#    protos) into target/corpora with scripts/fetch-corpora.sh, Python protobuf into
#    target/py (scripts/python-env.sh), and the Node Connect clients into target/node
#    (scripts/node-env.sh);
# 2. checks formatting, lints and the public crates' docs;
# 3. runs every crate's tests, with the corpora required (differential tests against prost on
#    every message type, mode=standalone against mode=prost and against Python protobuf, bad
#    input, golden files, the plugin under protoc, generated WKT impls);
# 4. runs the runtime's unit tests and a differential sample under Miri when a nightly Miri is
#    installed (scripts/miri.sh),
#    and the official conformance suite on both modes (scripts/conformance.sh);
# 5. runs `buf generate` with the local plugins and compiles the result (scripts/buf-check.sh),
#    and generates and checks googleapis' aiplatform v1 closure (scripts/codegen-scale.sh);
# 6. builds the runtime without std (thumbv7em-none-eabihf) and packages the published crates
#    with verification. (The benchmarks and examples are compiled by the lints' `clippy
#    --all-targets`; the README's main job runs the example.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Each step says how long the run has taken so far and how much disk is left, so that slow
# steps and a filling disk show in CI's log.
step() {
    local size
    size=$(du -sh target 2>/dev/null | cut -f1) || size=0
    printf '\n== %s (%d s so far; target/ %s, %s free)\n' "$*" "$SECONDS" "${size:-0}" \
        "$(df -h --output=avail . | tail -1 | tr -d ' ')"
}
# With VT_LEAN_TARGET=1 (CI's setting), a step's own build folders go when it is done.
lean() { if [ "${VT_LEAN_TARGET:-}" = 1 ]; then rm -rf "$@"; fi; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step "corpora"
bash scripts/fetch-corpora.sh >/dev/null
# Python protobuf (upb), the oracle of tests/tests/python_oracle.rs.
VT_PYTHON=$(bash scripts/python-env.sh)
VT_GRPC_PYTHON=$(bash scripts/grpc-env.sh)
export VT_PYTHON VT_GRPC_PYTHON VT_REQUIRE_PYTHON=1
# connect-node and connect-web (npm), the Connect example's real clients
# (examples/connect/tests/node.rs); headless Chromium is Debian's `chromium` when installed
# (CI installs it and sets VT_REQUIRE_BROWSER=1).
VT_NODE_CLIENTS=$(bash scripts/node-env.sh)
export VT_NODE_CLIENTS VT_REQUIRE_NODE=1

step "format and lints"
cargo fmt --all --check
VT_REQUIRE_CORPORA=1 cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps -p vtproto -p vtproto-codegen -p vtproto-build --features vtproto/tonic,vtproto/prost-types,vtproto/text,vtproto/serde,vtproto/reflect,vtproto/connect

step "tests"
VT_REQUIRE_CORPORA=1 cargo test --workspace 2>&1 | tee -a "$log"
lean target/random-schemas target/codegen-compiles target/grpc-interop

step "miri"
if cargo +nightly miri --version >/dev/null 2>&1; then
    bash scripts/miri.sh 2>&1 | tee -a "$log"
    lean target/miri
else
    echo "skipped: no nightly toolchain with Miri here (scripts/miri.sh installs one with rustup)"
fi

step "conformance"
bash scripts/conformance.sh 2>&1 | tee -a "$log"

step "buf generate"
bash scripts/buf-check.sh

step "codegen at scale"
bash scripts/codegen-scale.sh
lean target/scale

step "no_std"
if rustup target add thumbv7em-none-eabihf >/dev/null 2>&1; then
    RUSTFLAGS="-D warnings" cargo build --quiet -p vtproto --no-default-features --target thumbv7em-none-eabihf
    RUSTFLAGS="-D warnings" cargo build --quiet -p vtproto --no-default-features --features json \
        --target thumbv7em-none-eabihf
    RUSTFLAGS="-D warnings" cargo build --quiet -p vtproto --no-default-features --features text \
        --target thumbv7em-none-eabihf
    RUSTFLAGS="-D warnings" cargo build --quiet -p vtproto --no-default-features --features reflect \
        --target thumbv7em-none-eabihf
    echo "vtproto builds without std for thumbv7em-none-eabihf, alone, with json, with text (no JSON in it) and with reflect"
else
    echo "skipped: rustup could not install the thumbv7em-none-eabihf target here"
fi

step "publishable crates"
# Verification builds the packaged crates from cargo's local overlay registry, whose extracted
# sources (registry/src/-<hash>/) cargo reuses when present: an earlier run's extraction of
# the same version would be built instead of today's sources. Only the overlay's folders go.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/{vtproto,vtproto-codegen,vtproto-build,protoc-gen-rust-vt}-[0-9]*
# It builds them in target/debug, where a registry crate of an unchanged version counts as
# built: an earlier run's build of the overlay's crates (their dep-info names the registry's
# sources) would be linked instead of today's. Those builds go too (a fresh clone has none).
for d in target/debug/deps/{vtproto,vtproto_codegen,vtproto_build,protoc_gen_rust_vt}-*.d; do
    [ -e "$d" ] && grep -q "registry/src/-" "$d" || continue
    hash=${d##*-} && hash=${hash%.d}
    rm -rf target/debug/deps/*-"$hash".* target/debug/.fingerprint/*-"$hash"
done
cargo package --quiet -p vtproto -p vtproto-codegen -p vtproto-build -p protoc-gen-rust-vt
echo "cargo package (with verification) passes for the four published crates"

step "done"

# One closing line for the whole run: Rust tests plus conformance tests passed.
rust=$(grep -oE 'test result: ok\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
conformance=$(grep -oE 'SUITE PASSED: [0-9]+ successes' "$log" | awk '{s += $3} END {print s + 0}')
printf '\nsummary: %d passed, 0 failed\n' "$((rust + conformance))"
