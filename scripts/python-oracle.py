#!/usr/bin/env python3
"""Python protobuf (upb, or pure Python with PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python)
as an oracle for rust-vt's tests.

    python-oracle.py <dir of generated *_pb2.py>

Reads requests from stdin, one per line: `<full message name> <hex bytes>`. Answers one line
each: the hex of the message parsed and re-serialized with `deterministic=True` (map entries
in key order), `ERROR <reason>` when protobuf refuses the input, or `FAIL <reason>` when the
request can't be answered (a message type it does not know). A name written `+<name>` asks
for both re-encodings, deterministic then not, separated by a space (upb's deterministic order
of extensions is by descending number, its other one the order they arrived in). Required
fields are not
checked (`MergeFromString`, partial serialization), as rust-vt does not check them.
"""
import sys

from google.protobuf import descriptor_pool, message_factory
from google.protobuf.internal import api_implementation


def main():
    root = sys.argv[1]
    sys.path.insert(0, root)
    import importlib
    import pathlib

    import importlib.util

    for path in sorted(pathlib.Path(root).rglob("*_pb2.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        try:
            importlib.import_module(module)
        except ImportError:
            # A module under `google/protobuf/` (the conformance protos): the installed
            # package owns that name, so load the file by path.
            spec = importlib.util.spec_from_file_location(module, path)
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
    pool = descriptor_pool.Default()
    classes = {}
    out = sys.stdout
    out.write(f"READY {api_implementation.Type()}\n")
    out.flush()
    for line in sys.stdin:
        name, _, data = line.strip().partition(" ")
        both = name.startswith("+")
        name = name.lstrip("+")
        try:
            if name not in classes:
                classes[name] = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
        except KeyError:
            out.write(f"FAIL unknown message type {name}\n")
            out.flush()
            continue
        msg = classes[name]()
        try:
            msg.MergeFromString(bytes.fromhex(data))
        except Exception as e:  # noqa: BLE001 - any refusal is an answer
            out.write(f"ERROR {type(e).__name__}\n")
        else:
            answer = msg.SerializePartialToString(deterministic=True).hex()
            if both:
                answer += " " + msg.SerializePartialToString().hex()
            out.write(answer + "\n")
        out.flush()


if __name__ == "__main__":
    main()
