#!/usr/bin/env bash
# Runs the official protobuf conformance suite (binary, JSON and text) against both testees:
#
#   scripts/conformance.sh
#
# Installs the runner and protos (scripts/fetch-corpora.sh) and builds the testees.
# - `conformance-testee` (mode=prost, prost-build's structs) runs with
#   conformance/failure_list.txt: the tests prost's data model cannot pass (unknown fields,
#   which mode=prost drops as prost does, MessageSet, and JSON extensions), and
#   conformance/text_format_failure_list.txt, the same for the text suite.
# - `conformance-testee-standalone` (mode=standalone, our own structs) runs up to edition 2023
#   with an empty failure list: every binary and JSON test passes.
# - `conformance-testee-dynamic` (vtproto::reflect's DynamicMessage, the test messages'
#   descriptors loaded at run time, no generated code for them) runs up to edition 2023 with
#   an empty failure list: every binary, JSON and text test passes.
# The runner fails on any unexpected failure and on any listed test that passes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/fetch-corpora.sh >/dev/null
cargo build -p vt-conformance --bins
run() {
    local out=$1
    shift
    mkdir -p "$out"
    scripts/conformance-runner --enforce_recommended --output_dir "$out" "$@" 2>&1 |
        grep -vE '^(WARNING|I0000|ERROR:.*SKIPPED)' || return "${PIPESTATUS[0]}"
}
echo "== mode=prost (conformance-testee)"
run target/conformance --failure_list conformance/failure_list.txt \
    --text_format_failure_list conformance/text_format_failure_list.txt target/debug/conformance-testee
echo "== mode=standalone (conformance-testee-standalone)"
run target/conformance-standalone --maximum_edition 2023 target/debug/conformance-testee-standalone
echo "== reflection (conformance-testee-dynamic: DynamicMessage)"
run target/conformance-dynamic --maximum_edition 2023 target/debug/conformance-testee-dynamic
