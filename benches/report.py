#!/usr/bin/env python3
"""Turns a `cargo bench -p vt-benches` run into the tables of benches/RESULTS.md.

Reads target/criterion/<group>/<peer>/new/estimates.json (mean) and
target/criterion/allocations.tsv; prints markdown: per group, prost's time and every peer's
time as a ratio to prost's (lower is faster), then allocations per operation. With `--json`,
the ProtoJSON groups (`J_*`, `cargo bench -p vt-benches --bench json`): pbjson's time and every
peer's as a ratio to it.
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"
ENCODE = ["prost", "vtproto", "vtproto_reuse", "vtproto_exact", "buffa", "buffa_reuse", "protobuf"]
DECODE = ["prost", "vtproto", "vtproto_view", "vtproto_reuse", "buffa", "buffa_view", "protobuf"]


def mean_ns(group, peer):
    f = root / group / peer / "new" / "estimates.json"
    if not f.exists():
        return None
    return json.loads(f.read_text())["mean"]["point_estimate"]


def fmt_time(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def order(group):
    w, size, _ = group.split("_")[0], group.split("_")[-2], group
    try:
        return (w, int(size))
    except ValueError:
        return (w, 0)


if sys.argv[1:] == ["--json"]:
    peers = ["vtproto", "vtproto_reuse", "buffa", "vtproto_serde", "vtproto_binary"]
    print("| group | pbjson (µs) | " + " | ".join(peers) + " |")
    print("|---|---:|" + "---:|" * len(peers))
    for g in sorted(p.name for p in root.iterdir() if p.name.startswith("J_")):
        base = mean_ns(g, "pbjson")
        if base is None:
            continue
        cells = []
        for p in peers:
            t = mean_ns(g, p)
            cells.append("–" if t is None else f"{t / base:.2f}")
        print(f"| {g[2:]} | {base / 1e3:.2f} | " + " | ".join(cells) + " |")
    sys.exit(0)

allocs = {}
tsv = root / "allocations.tsv"
if tsv.exists():
    for line in tsv.read_text().splitlines():
        g, p, n = line.split("\t")
        allocs[(g, p)] = int(n)

groups = sorted({p.name for p in root.iterdir() if p.is_dir() and "_" in p.name and p.name[0] in "ABCR"}, key=order)
for op, peers in (("encode", ENCODE), ("decode", DECODE)):
    rows = [g for g in groups if g.endswith("_" + op)]
    if not rows:
        continue
    print(f"\n### {op}: time as a ratio to prost's (lower is faster)\n")
    print("| workload | prost | " + " | ".join(peers[1:]) + " |")
    print("|---|---:|" + "---:|" * (len(peers) - 1))
    for g in rows:
        base = mean_ns(g, "prost")
        if base is None:
            continue
        cells = []
        for p in peers[1:]:
            t = mean_ns(g, p)
            cells.append("—" if t is None else f"{t / base:.2f}")
        print(f"| {g[: -len(op) - 1]} | {fmt_time(base)} | " + " | ".join(cells) + " |")
    print(f"\n### {op}: allocations per operation\n")
    print("| workload | " + " | ".join(peers) + " |")
    print("|---|" + "---:|" * len(peers))
    for g in rows:
        cells = [str(allocs.get((g, p), "—")) for p in peers]
        print(f"| {g[: -len(op) - 1]} | " + " | ".join(cells) + " |")
