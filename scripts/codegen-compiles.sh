#!/usr/bin/env bash
# Compiles what the generator writes for every input of the `codegen` fuzz corpus
# (fuzz/corpus/codegen.corpus) and of fuzz/regressions/codegen/, in mode=standalone
# (tests/tests/codegen_compiles.rs; the test command compiles a sample of 150):
#
#   scripts/codegen-compiles.sh
#
# Run it after a fuzz campaign grows the corpus (scripts/fuzz.sh minimizes it into that file).
# Inputs whose code does not compile are kept in target/codegen-compiles/failed/.
set -euo pipefail
cd "$(dirname "$0")/.."
VT_CODEGEN_SAMPLE=all cargo test -p vt-tests --test codegen_compiles -- --nocapture
