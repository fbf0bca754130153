#!/usr/bin/env bash
# A fuzzing campaign (cargo-fuzz, libFuzzer, nightly Rust) over the targets in fuzz/:
#
#   scripts/fuzz.sh [seconds per target]        # default 600, AddressSanitizer, one after another
#   scripts/fuzz.sh --runs N [--sanitizer none] [--parallel] [target...]
#
# --runs N        run each target for N executions instead of a time
# --sanitizer S   cargo-fuzz's sanitizer (default address); `none` runs 3-10x faster, for the
#                 long campaigns (the decoders' unsafe paths are checked by Miri and by the
#                 AddressSanitizer runs)
# --parallel      run the targets at once, one per core, each logging to target/fuzz-work/<target>.log
# target...       a subset of decode_workloads, decode_conformance, decode_dynamic, decode_json,
#                 decode_text, codegen
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
seconds=600 runs=0 sanitizer=address parallel=0 targets=()
while (($#)); do
    case $1 in
        --runs) shift; runs=${1:?--runs N} ;;
        --sanitizer) shift; sanitizer=${1:?--sanitizer S} ;;
        --parallel) parallel=1 ;;
        [0-9]*) seconds=$1 ;;
        decode_workloads | decode_conformance | decode_dynamic | decode_json | decode_text | codegen) targets+=("$1") ;;
        *) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
    esac
    shift
done
((${#targets[@]})) || targets=(decode_workloads decode_conformance decode_dynamic decode_json decode_text codegen)
if ((runs)); then limit=(-runs="$runs"); else limit=(-max_total_time="$seconds"); fi
fuzz=(cargo +nightly fuzz run -O -s "$sanitizer")
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
cargo +nightly fuzz build -O -s "$sanitizer"
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

campaign() {
    local target=$1
    local work=$root/target/fuzz-work/$target
    local old=$root/target/fuzz-work/$target.old
    local min=$root/target/fuzz-work/$target.min
    rm -rf "$work" "$old" "$min"
    mkdir -p "$work" "$min"
    unpack "corpus/$target.corpus" "$old"
    echo "== $target: ${limit[*]}, sanitizer $sanitizer"
    # New inputs go to $work; the checked-in corpus and the seeds are read.
    "${fuzz[@]}" "$target" "$work" "$old" "$seeds/$target" -- \
        "${limit[@]}" -max_len=2048 -print_final_stats=1 2>&1 |
        grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)' || true
    # The smallest set of inputs with the same coverage becomes the checked-in corpus.
    "${fuzz[@]}" "$target" "$min" "$work" "$old" "$seeds/$target" -- \
        -merge=1 -max_len=2048 >/dev/null 2>&1
    pack "$min" "corpus/$target.corpus"
    echo "$target corpus: $(ls "$min" | wc -l) inputs"
}

mkdir -p "$root/target/fuzz-work"
# decode_dynamic reads decode_conformance's inputs: that target's seeds and corpus seed it.
mkdir -p "$seeds/decode_dynamic"
cp "$seeds/decode_conformance/"* "$seeds/decode_dynamic/" 2>/dev/null || true
unpack corpus/decode_conformance.corpus "$seeds/decode_dynamic"
for target in "${targets[@]}"; do
    if ((parallel)); then
        campaign "$target" >"$root/target/fuzz-work/$target.log" 2>&1 &
    else
        campaign "$target"
    fi
done
wait
if ((parallel)); then
    for target in "${targets[@]}"; do cat "$root/target/fuzz-work/$target.log"; done
fi
