#!/usr/bin/env bash
# Makes target/py, a Python virtual environment with PyPI `protobuf` (the upb backend), for the
# tests that use Python protobuf as an oracle (tests/tests/python_oracle.rs), and prints its
# Python's path:
#
#   export VT_PYTHON=$(scripts/python-env.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/target/py
version=7.36.2
if ! "$venv/bin/python" -c "import google.protobuf as p; assert p.__version__ == '$version'" 2>/dev/null; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet "protobuf==$version" >&2
fi
echo "$venv/bin/python"
