#!/usr/bin/env python3
"""Appends to a counted crate of scripts/codegen-scale.sh a function that writes and reads
every message of the crate as JSON once, so that --count measures the crate with its JSON
code compiled for every message, as a program using all of it would compile it.

    scale-use-json.py <crate dir> vt|pbjson

`vt` calls vtproto::json::{to_string, from_str}; `pbjson` calls serde_json's. The message
types are read from prost-build's files under src/gen (their `pub mod` nesting, as mod.rs
includes them), google.protobuf's own left out.
"""
import os
import re
import sys

crate, kind = sys.argv[1], sys.argv[2]
gen = os.path.join(crate, "src", "gen")

# Which module each generated file is included in.
modules, stack = {}, []
mod_rs = open(os.path.join(gen, "mod.rs")).read()
for tok in re.finditer(r'pub mod ((?:r#)?\w+) \{|include!\("([^"]+)"\);|\}', mod_rs):
    if tok.group(1):
        stack.append(tok.group(1))
    elif tok.group(2):
        modules[tok.group(2)] = stack[:]
    elif stack:
        stack.pop()

types = []
for name, path in sorted(modules.items()):
    if name.endswith((".vt.rs", ".serde.rs")) or path[:2] == ["google", "protobuf"]:
        continue
    src = open(os.path.join(gen, name)).read()
    depth, nested = 0, []
    for m in re.finditer(r"pub mod ((?:r#)?\w+) \{|pub struct (\w+) \{|\{|\}", src):
        if m.group(1):
            nested.append((m.group(1), depth))
            depth += 1
        elif m.group(2):
            types.append("::".join(["crate"] + path + [n for n, _ in nested] + [m.group(2)]))
            depth += 1
        elif m.group(0) == "{":
            depth += 1
        else:
            depth -= 1
            if nested and nested[-1][1] == depth:
                nested.pop()

api = "::vtproto::json" if kind == "vt" else "::serde_json"
body = "".join(
    f"    n += {api}::to_string(&{t}::default()).map_or(0, |s| s.len());\n"
    f"    n += {api}::from_str::<{t}>(s).is_ok() as usize;\n"
    for t in types
)
lib_path = os.path.join(crate, "src", "lib.rs")
lib = open(lib_path).read().split("\n// use_json\n")[0]
lib += (
    "\n// use_json\n/// Every message written and read as JSON once.\n"
    f"pub fn use_json(s: &str) -> usize {{\n    let mut n = 0;\n{body}    n\n}}\n"
)
open(lib_path, "w").write(lib)
print(f"scale-use-json: {len(types)} messages used in {crate}", file=sys.stderr)
