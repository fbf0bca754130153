#!/usr/bin/env bash
# A fuzzing campaign (cargo-fuzz, libFuzzer, AddressSanitizer) over the targets in fuzz/:
#
#   scripts/fuzz.sh [seconds per target]        # default 600
#
# Installs cargo-fuzz from crates.io for the nightly toolchain if missing, builds the targets,
# seeds each corpus with the differential test's generator (valid and corrupted messages of
# the targets' types; tests/tests/fuzz_corpus.rs) and with the conformance suite's inputs
# when the standalone testee has recorded them (target/conformance-inputs), runs each target,
# then minimizes its corpus into fuzz/corpus/<target> (checked in, replayed by the test
# command on stable Rust). A crash stops the campaign with libFuzzer's report; its input goes
# to fuzz/regressions/<target>/ once understood and fixed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-600}
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal
    cargo +nightly install cargo-fuzz --locked
fi
bash scripts/fetch-corpora.sh >/dev/null
seeds=$root/target/fuzz-seeds
rm -rf "$seeds"
VT_FUZZ_SEEDS=$seeds cargo test --quiet -p vt-tests --test fuzz_corpus >/dev/null
if [[ -d target/conformance-inputs ]]; then
    cp target/conformance-inputs/* "$seeds/decode_conformance/"
fi
mkdir -p "$seeds/codegen"
cd fuzz
cargo +nightly fuzz build -O
for target in decode_workloads decode_conformance codegen; do
    work=$root/target/fuzz-work/$target
    min=$root/target/fuzz-work/$target.min
    rm -rf "$work" "$min"
    mkdir -p "$work" "$min" "corpus/$target"
    echo "== $target: ${seconds}s"
    # New inputs go to $work; the checked-in corpus and the seeds are read.
    cargo +nightly fuzz run -O "$target" "$work" "corpus/$target" "$seeds/$target" -- \
        -max_total_time="$seconds" -max_len=2048 -print_final_stats=1 2>&1 |
        grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' || true
    # The smallest set of inputs with the same coverage becomes the checked-in corpus.
    cargo +nightly fuzz run -O "$target" "$min" "$work" "corpus/$target" "$seeds/$target" -- \
        -merge=1 -max_len=2048 >/dev/null 2>&1
    rm -rf "corpus/$target"
    cp -r "$min" "corpus/$target"
    echo "corpus: $(ls "corpus/$target" | wc -l) inputs"
done
