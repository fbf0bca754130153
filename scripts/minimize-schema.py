#!/usr/bin/env python3
"""Shrinks a schema set that fails the random-schema test into a regression fixture.

    scripts/minimize-schema.py <set folder r<seed>> [<out folder>]

The set folder holds the `.proto` files of one set (`target/random-schemas/failed/r<seed>/`,
where `scripts/random-schemas.sh` keeps them). Greedily removes declarations (a field, an
option, an enum value, an `extend` member, a whole message, enum or block) while the set still
fails the same way (the failure's first two lines, paths and numbers aside), running the test on the
set alone (`VT_SCHEMAS=0 VT_SCHEMA_FIXTURES_DIR=...`). Writes the result to <out folder>
(default `tests/schemas/r<seed>`). Each try compiles one small crate (10-30 s): a set of a
hundred declarations takes 30-60 minutes.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def signature(log):
    """The failure's kind: the first line after the batch header and the line after it (the
    reason: protoc's complaint, the compiler's first error, where a check panicked), with paths
    and numbers dropped."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("seeds [") and i + 1 < len(lines):
            kind = re.split(r"\bon\b|:", lines[i + 1])[0]
            detail = lines[i + 2] if i + 2 < len(lines) else ""
            detail = re.sub(r"\S*/\S*", "#", detail)
            parts = [re.sub(r"\b[A-Za-z]?\d+\b", "#", t).strip() for t in (kind, detail)]
            return " | ".join(parts)
    return None


def run(work, files):
    set_dir = work / "sets" / files["__name__"]
    shutil.rmtree(work / "sets", ignore_errors=True)
    set_dir.mkdir(parents=True)
    for name, text in files.items():
        if name != "__name__":
            (set_dir / name).write_text(text)
    env = dict(os.environ, VT_SCHEMAS="0", VT_SCHEMA_FIXTURES_DIR=str(work / "sets"))
    out = subprocess.run(
        ["cargo", "test", "-q", "-p", "vt-tests", "--test", "random_schemas"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    if out.returncode == 0:
        return None
    return signature(out.stdout + out.stderr)


def blocks(lines):
    """Candidate removals: (start, end) line ranges, whole blocks first, then single lines."""
    out = []
    stack = []
    for i, line in enumerate(lines):
        s = line.strip()
        if s.endswith("{"):
            stack.append(i)
        elif s.startswith("}") and stack:
            out.append((stack.pop(), i + 1))
        elif s.endswith(";") and not re.match(r"(syntax|edition|package|import)\b", s):
            out.append((i, i + 1))
    out.sort(key=lambda r: r[0] - r[1])
    return out


def main():
    src = pathlib.Path(sys.argv[1])
    dest = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "tests/schemas" / src.name
    files = {p.name: p.read_text() for p in sorted(src.glob("*.proto"))}
    files["__name__"] = src.name
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        want = run(work, files)
        if want is None:
            sys.exit(f"{src} does not fail")
        print(f"failure: {want}", flush=True)
        changed = True
        while changed:
            changed = False
            for name in [n for n in files if n != "__name__"]:
                i = 0
                while True:
                    lines = files[name].splitlines(keepends=True)
                    candidates = blocks(lines)
                    if i >= len(candidates):
                        break
                    start, end = candidates[i]
                    trial = dict(files)
                    trial[name] = "".join(lines[:start] + lines[end:])
                    if run(work, trial) == want:
                        files = trial
                        changed = True
                        print(f"{name}: removed {end - start} lines", flush=True)
                    else:
                        i += 1
    dest.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        if name != "__name__":
            (dest / name).write_text(text)
    print(f"minimized set written to {dest}")


if __name__ == "__main__":
    main()
