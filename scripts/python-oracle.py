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

ProtoJSON (`google.protobuf.json_format`): `J<flags> <name> <hex bytes>` answers the hex of
the message's JSON (one line; flags, added: 1 proto field names, 2 fields without presence
at their defaults, 4 enums as numbers), `ERROR <reason>` when it has none; `P<flags> <name>
<hex of JSON text>` answers the deterministic encoding of the message the JSON gives, or
`ERROR <reason>` (flags: 1 ignore unknown fields).

Text format (`google.protobuf.text_format`): `T<flags> <name> <hex bytes>` answers the hex of
the message's text (flags: 1 on one line), `Q0 <name> <hex of text>` the deterministic
encoding of the message `text_format.Parse` reads from it, or `ERROR <reason>`.
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
        if line[0] in "TQ":
            out.write(text_request(line, pool, classes) + "\n")
            out.flush()
            continue
        if line[0] in "JP":
            out.write(json_request(line, pool, classes) + "\n")
            out.flush()
            continue
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


def new_message(name, pool, classes):
    """A new message of type `name`, or None if the pool does not know it."""
    try:
        if name not in classes:
            classes[name] = message_factory.GetMessageClass(pool.FindMessageTypeByName(name))
    except KeyError:
        return None
    return classes[name]()


def json_request(line, pool, classes):
    from google.protobuf import json_format

    op, name, data = line.rstrip("\n").split(" ", 2)
    flags = int(op[1:] or 0)
    msg = new_message(name, pool, classes)
    if msg is None:
        return f"FAIL unknown message type {name}"
    try:
        if op[0] == "J":
            msg.MergeFromString(bytes.fromhex(data))
            text = json_format.MessageToJson(
                msg,
                preserving_proto_field_name=bool(flags & 1),
                always_print_fields_with_no_presence=bool(flags & 2),
                use_integers_for_enums=bool(flags & 4),
                indent=None,
                descriptor_pool=pool,
            )
            return text.encode().hex()
        json_format.Parse(
            bytes.fromhex(data).decode(),
            msg,
            ignore_unknown_fields=bool(flags & 1),
            descriptor_pool=pool,
        )
        return msg.SerializePartialToString(deterministic=True).hex()
    except Exception as e:  # noqa: BLE001 - any refusal is an answer
        return f"ERROR {type(e).__name__}: {e}".replace("\n", " ")


def text_request(line, pool, classes):
    from google.protobuf import text_format

    op, name, data = line.rstrip("\n").split(" ", 2)
    flags = int(op[1:] or 0)
    msg = new_message(name, pool, classes)
    if msg is None:
        return f"FAIL unknown message type {name}"
    try:
        if op[0] == "T":
            msg.MergeFromString(bytes.fromhex(data))
            text = text_format.MessageToString(
                msg, as_one_line=bool(flags & 1), descriptor_pool=pool
            )
            return text.encode().hex()
        text_format.Parse(bytes.fromhex(data).decode(), msg, descriptor_pool=pool)
        return msg.SerializePartialToString(deterministic=True).hex()
    except Exception as e:  # noqa: BLE001 - any refusal is an answer
        return f"ERROR {type(e).__name__}: {e}".replace("\n", " ")


if __name__ == "__main__":
    main()
