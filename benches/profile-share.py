#!/usr/bin/env python3
"""The share of a process's CPU samples spent in a function, its callees included, from
`perf script -F comm,tid,ip,sym` output on stdin (recorded with `--call-graph dwarf`).

    profile-share.py '<tonic_prost::codec::ProstEncoder<T> as tonic::codec::Encoder>::encode'

Samples whose frames below the function free memory (the message dropped after encoding,
which every codec does) are counted apart.
"""
import sys

needle = sys.argv[1]
total = inside = freeing = 0
for sample in sys.stdin.read().split("\n\n"):
    lines = [l.strip() for l in sample.strip().split("\n") if l.strip()]
    if not lines:
        continue
    total += 1
    frames = [l.split(" ", 1)[1] if " " in l else l for l in lines[1:]]
    hits = [i for i, f in enumerate(frames) if needle in f]
    if not hits:
        continue
    below = frames[: hits[0]]
    if any("drop" in f.lower() or "free" in f for f in below):
        freeing += 1
    else:
        inside += 1
print(f"{total} samples: {inside / total:.1%} in {needle} (dropping the message aside: {freeing / total:.1%})")
