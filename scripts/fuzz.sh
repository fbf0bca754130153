#!/usr/bin/env bash
# A fuzzing campaign (cargo-fuzz, libFuzzer, AddressSanitizer) over the targets in fuzz/:
#
#   scripts/fuzz.sh [seconds per target]        # default 600
#
# Installs cargo-fuzz from crates.io for the nightly toolchain if missing, builds the targets,
# seeds each corpus with the differential test's generator (valid and corrupted messages of
# the targets' types; tests/tests/fuzz_corpus.rs) and with the conformance suite's inputs
# when the standalone testee has recorded them (target/conformance-inputs), runs each target,
# then minimizes its corpus into fuzz/corpus/<target>.corpus (checked in as one file of
# length-prefixed inputs, replayed by the test command on stable Rust). A crash stops the campaign with libFuzzer's report; its input goes
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
# A packed corpus <-> a folder of inputs (each input: u32 little-endian length, bytes).
unpack() { python3 - "$1" "$2" <<'PY'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
data = open(src, "rb").read() if os.path.exists(src) else b""
i = n = 0
while i + 4 <= len(data):
    (size,) = struct.unpack_from("<I", data, i)
    open(os.path.join(dst, f"in-{n}"), "wb").write(data[i + 4 : i + 4 + size])
    i, n = i + 4 + size, n + 1
PY
}
pack() { python3 - "$1" "$2" <<'PY'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
with open(dst, "wb") as out:
    for name in sorted(os.listdir(src)):
        data = open(os.path.join(src, name), "rb").read()
        out.write(struct.pack("<I", len(data)) + data)
PY
}

for target in decode_workloads decode_conformance codegen; do
    work=$root/target/fuzz-work/$target
    old=$root/target/fuzz-work/$target.old
    min=$root/target/fuzz-work/$target.min
    rm -rf "$work" "$old" "$min"
    mkdir -p "$work" "$min"
    unpack "corpus/$target.corpus" "$old"
    echo "== $target: ${seconds}s"
    # New inputs go to $work; the checked-in corpus and the seeds are read.
    cargo +nightly fuzz run -O "$target" "$work" "$old" "$seeds/$target" -- \
        -max_total_time="$seconds" -max_len=2048 -print_final_stats=1 2>&1 |
        grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' || true
    # The smallest set of inputs with the same coverage becomes the checked-in corpus.
    cargo +nightly fuzz run -O "$target" "$min" "$work" "$old" "$seeds/$target" -- \
        -merge=1 -max_len=2048 >/dev/null 2>&1
    pack "$min" "corpus/$target.corpus"
    echo "corpus: $(ls "$min" | wc -l) inputs"
done
