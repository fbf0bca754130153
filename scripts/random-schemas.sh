#!/usr/bin/env bash
# The random-schema test's long mode (the test command runs a dozen sets):
#
#   scripts/random-schemas.sh [SETS] [FIRST_SEED] [BATCH]
#
# generates SETS random .proto sets (default 10000) from FIRST_SEED (default 1000), compiles
# them BATCH at a time (default 12) in both modes with every feature combination, and checks
# them against prost and Python protobuf (tests/tests/random_schemas.rs). It goes on after a
# failing batch: the sets of each failing batch are copied to target/random-schemas/failed/
# (to be minimized and kept as fixtures in tests/schemas/), and their seeds listed at the end.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sets=${1:-10000}
seed=${2:-1000}
batch=${3:-12}
chunk=$((batch * 10))
VT_PYTHON=$(bash scripts/python-env.sh)
export VT_PYTHON VT_REQUIRE_PYTHON=1 VT_SCHEMA_BATCH=$batch VT_SCHEMA_FIXTURES=0
export VT_SCHEMA_KEEP="$root/target/random-schemas/failed"
# Its own folder of crates, and of test binary, so that the test command can run meanwhile.
export VT_SCHEMA_WORK="$root/target/random-schemas-long" CARGO_TARGET_DIR="$root/target/random-schemas-long/harness"
mkdir -p "$VT_SCHEMA_WORK"
cargo test -q -p vt-tests --test random_schemas --no-run
done_sets=0
failed=()
start=$(date +%s)
while ((done_sets < sets)); do
    n=$((sets - done_sets < chunk ? sets - done_sets : chunk))
    if VT_SCHEMAS=$n VT_SCHEMA_SEED=$seed cargo test -q -p vt-tests --test random_schemas \
        >"$VT_SCHEMA_WORK/last.log" 2>&1; then
        :
    else
        failed+=("$seed..$((seed + n - 1))")
        grep -m1 -A3 "panicked" "$VT_SCHEMA_WORK/last.log"
    fi
    done_sets=$((done_sets + n))
    seed=$((seed + n))
    echo "$done_sets sets, $(( $(date +%s) - start )) s, failing ranges: ${failed[*]:-none}"
done
((${#failed[@]} == 0))
