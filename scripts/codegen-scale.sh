#!/usr/bin/env bash
# Codegen at scale: rust-vt's impls for googleapis (npm google-proto-files, fetched by
# scripts/fetch-corpora.sh --bench), generated and compiled beside prost-build's structs.
#
#   scripts/codegen-scale.sh [--full | --first N] [--measure] [--count | --count-all]
#
# By default the google/cloud/aiplatform/v1 closure (its 125 files and their imports, a few
# hundred): parsed once by protoc into a descriptor set, generated (prost-build's structs and
# our impls, `vtproto-build`'s `compile_fds`), then `cargo check`ed as one crate. The test
# command runs this.
#
# --full    the whole set: every file outside google/protobuf (7,207), then `cargo check`.
# --first N the first N files of the whole set (sorted by path), with --measure: the plugins
#           only, to see how their cost grows with the request.
# --count   for the default set, the compile cost in a figure that does not move between runs:
#           the instructions rustc executes (valgrind's cachegrind) in a debug build and in a
#           release build of the set's imports (the closure without the
#           google.cloud.aiplatform.v1 package itself, about a hundred messages), prost's
#           structs alone and with our impls. About 4 minutes; needs valgrind.
#           VT_SCALE_FEATURES=codec+json, codec+json+serde or codec+text (default codec) counts
#           other generated features (codec+reflect+json with VT_SCALE_TABLES=. serves JSON
#           from the reflection tables); VT_SCALE_PBJSON=1 also counts prost-build's structs with
#           pbjson-build 0.9's serde impls (ProtoJSON the common Rust way, the well-known types
#           from pbjson-types) in a third column. VT_SCALE_USE_JSON=1 adds to our crate and
#           to pbjson's a function writing and reading every message as JSON once
#           (scripts/scale-use-json.py), so that each is counted with its JSON code compiled
#           for every message, as a program using all of it compiles it (generic and inline
#           code is otherwise compiled only where it is used).
# --count-all the same count for the whole closure, aiplatform v1 included (1,324 messages;
#           about half an hour).
# --measure also measure, on the same request, protoc-gen-rust-vt against protoc-gen-prost 0.5
#           (installed into target/tools; plugin time and peak memory, output size), and, for
#           the default set, the compile cost of our impls: the generated crate built with
#           prost's structs alone and with our impls (release build and non-incremental
#           debug build, each the median of three alternated runs; rlib size). Prints the
#           tables of benches/RESULTS.md's "Codegen" section.
#
# Work goes to target/scale/<set>/. Needs what fetch-corpora.sh needs, and GNU time for
# --measure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

full=0 first=0 measure=0 count=0
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2; }
while (($#)); do
    case $1 in
        --full) full=1 ;;
        --first) shift; first=${1:-}; [[ $first =~ ^[0-9]+$ ]] || usage ;;
        --measure) measure=1 ;;
        --count) count=1 ;;
        --count-all) count=2 ;;
        *) usage ;;
    esac
    shift
done
log() { printf 'codegen-scale: %s\n' "$*" >&2; }

eval "$(bash scripts/fetch-corpora.sh --bench | grep -E '^(protoc|wkt_include|google_proto_files_include)=')"
gpf=$google_proto_files_include
protoc_bin=$protoc
include=$wkt_include

if ((full || first)); then
    set_name=googleapis
    files=$(cd "$gpf" && find google grafeas -name '*.proto' -not -path 'google/protobuf/*' | sort)
    if ((first)); then
        set_name=googleapis-first-$first
        files=$(head -n "$first" <<<"$files")
    fi
else
    set_name=aiplatform-v1
    files=$(cd "$gpf" && find google/cloud/aiplatform/v1 -name '*.proto' | sort)
fi
work=$root/target/scale/$set_name
rm -rf "$work/vt-crate" "$work/prost-crate"
mkdir -p "$work"
log "$set_name: $(wc -w <<<"$files") files"

# Parse once; the plugins and vtproto-build read the descriptor set.
(cd "$gpf" && "$protoc_bin" -I . -I "$include" --include_imports --include_source_info \
    -o "$work/set.fds" $files 2>/dev/null)

# Two commands: with `--example`, cargo would build no binary of the other package.
cargo build --quiet --release -p vtproto-build --example generate
cargo build --quiet --release -p protoc-gen-rust-vt
generate=$root/target/release/examples/generate

# A crate around generated code: `mod.rs` declares one module per package.
make_crate() {
    local dir=$1
    mkdir -p "$dir/src"
    cat >"$dir/Cargo.toml" <<TOML
[package]
name = "$(basename "$dir")"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "src/lib.rs"

[dependencies]
prost = "0.14"
prost-types = "0.14"
vtproto = { path = "$root/crates/vtproto", features = ["prost-types", "json", "text", "serde", "reflect"] }

[workspace]
TOML
    cat >"$dir/src/lib.rs" <<'RS'
//! Generated code, compiled as a user's crate would.
#![allow(clippy::all, rustdoc::all, non_camel_case_types, unused)]
include!("gen/mod.rs");
RS
}

export CARGO_TARGET_DIR=$root/target/scale/target
# Generates the files of descriptor set $1 into the crate and checks it.
check_set() {
    rm -rf "$work/vt-crate/src/gen"
    /usr/bin/env time -f '%e s, %M KB peak' "$generate" "$1" "$work/vt-crate/src/gen" 2>"$work/generate.time"
    log "$2: generated $(du -sh "$work/vt-crate/src/gen" | cut -f1) of Rust in $(cat "$work/generate.time")"
    cargo check --quiet --manifest-path "$work/vt-crate/Cargo.toml"
}
if ((full)); then
    # The whole set as one crate needs more than 24 GB in rustc: it is checked in slices of
    # about 800 files with their imports, cut at directory boundaries (three levels deep, four
    # under google/ads/googleads), so that every file is compiled at least once.
    make_crate "$work/vt-crate"
    keyed=$(awk -F/ '{ d = ($0 ~ /^google\/ads\/googleads\//) ? 4 : 3; if (NF - 1 < d) d = NF - 1;
        k = $1; for (i = 2; i <= d; i++) k = k "/" $i; print k " " $0 }' <<<"$files")
    n=0 batch=""
    check_batch() {
        n=$((n + 1))
        (cd "$gpf" && "$protoc_bin" -I . -I "$include" --include_imports -o "$work/slice.fds" \
            $batch 2>/dev/null)
        local first_file
        first_file=$(awk '{ print $1 }' <<<"$batch")
        check_set "$work/slice.fds" "slice $n ($(wc -w <<<"$batch") files from $first_file)"
        batch=""
    }
    for dir in $(cut -d' ' -f1 <<<"$keyed" | sort -u); do
        batch="$batch $(awk -v k="$dir" '$1 == k { print $2 }' <<<"$keyed" | tr '\n' ' ')"
        if (($(wc -w <<<"$batch") >= 800)); then check_batch; fi
    done
    if [ -n "${batch// /}" ]; then check_batch; fi
    log "cargo check passes for all $n slices of the whole set ($(wc -w <<<"$files") files)"
elif ((first == 0)); then
    make_crate "$work/vt-crate"
    check_set "$work/set.fds" "$set_name"
    log "cargo check of the $set_name crate (prost's structs and our impls) passes"
fi

if ((count && !full && !first)); then
    command -v valgrind >/dev/null || { log "--count needs valgrind"; exit 1; }
    # The counted crates: the generated files, without aiplatform v1's own package (the
    # closure's imports) unless --count-all.
    counted_crate() { # crate-dir generated-dir
        rm -rf "$1"
        make_crate "$1"
        cp -r "$2" "$1/src/gen"
        ((count == 2)) && return
        rm "$1"/src/gen/google.cloud.aiplatform.v1.{,vt.}rs 2>/dev/null || true
        sed -i 's/include!("google.cloud.aiplatform.v1.rs");//' "$1/src/gen/mod.rs"
    }
    "$generate" "$work/set.fds" "$work/prost-only-gen" --prost-only
    counted_crate "$work/prost-count" "$work/prost-only-gen"
    counted_crate "$work/vt-count" "$work/vt-crate/src/gen"
    if [ -n "${VT_SCALE_USE_JSON:-}" ]; then
        python3 "$root/scripts/scale-use-json.py" "$work/vt-count" vt
    fi
    rm -rf "$work/prost-only-gen"
    crates=(prost-count vt-count)
    if [ -n "${VT_SCALE_PBJSON:-}" ]; then
        # prost-build's structs (the well-known types from pbjson-types, as pbjson needs) and
        # pbjson-build's serde impls, generated by a throwaway crate.
        gen=$work/pbjson-gen
        mkdir -p "$gen/src"
        cat >"$gen/Cargo.toml" <<'TOML'
[package]
name = "pbjson-gen"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
prost = "0.14"
prost-types = "0.14"
prost-build = "0.14"
pbjson-build = "0.9"

[workspace]
TOML
        cat >"$gen/src/main.rs" <<'RS'
use prost::Message as _;
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytes = std::fs::read(&args[0]).unwrap();
    let fds = prost_types::FileDescriptorSet::decode(&bytes[..]).unwrap();
    std::fs::create_dir_all(&args[1]).unwrap();
    prost_build::Config::new()
        .compile_well_known_types()
        .extern_path(".google.protobuf", "::pbjson_types")
        .out_dir(&args[1])
        .include_file("mod.rs")
        .compile_fds(fds)
        .unwrap();
    pbjson_build::Builder::new()
        .register_descriptors(&bytes)
        .unwrap()
        .extern_path(".google.protobuf", "::pbjson_types")
        .exclude([".google.protobuf"])
        .out_dir(&args[1])
        .build(&["."])
        .unwrap();
}
RS
        cargo run --quiet --release --manifest-path "$gen/Cargo.toml" -- "$work/set.fds" "$work/pbjson-gen-out"
        for f in "$work"/pbjson-gen-out/*.serde.rs; do
            pkg=$(basename "$f" .serde.rs)
            sed -i "s/include!(\"$pkg.rs\");/include!(\"$pkg.rs\"); include!(\"$pkg.serde.rs\");/" \
                "$work/pbjson-gen-out/mod.rs"
        done
        counted_crate "$work/pbjson-count" "$work/pbjson-gen-out"
        rm -f "$work"/pbjson-count/src/gen/google.cloud.aiplatform.v1.serde.rs
        sed -i 's/include!("google.cloud.aiplatform.v1.serde.rs");//' "$work/pbjson-count/src/gen/mod.rs"
        sed -i 's/^vtproto = .*/pbjson = "0.9"\npbjson-types = "0.9"\nserde = "1"\nserde_json = "1"/' "$work/pbjson-count/Cargo.toml"
        if [ -n "${VT_SCALE_USE_JSON:-}" ]; then
            python3 "$root/scripts/scale-use-json.py" "$work/pbjson-count" pbjson
        fi
        rm -rf "$work/pbjson-gen-out"
        crates+=(pbjson-count)
    fi
    cat >"$work/count-rustc" <<SH
#!/bin/sh
# RUSTC_WRAPPER: rustc under cachegrind for the two counted crates, plain rustc otherwise.
case " \$* " in
    *" --crate-name prost_count "*) out=prost-count ;;
    *" --crate-name vt_count "*) out=vt-count ;;
    *" --crate-name pbjson_count "*) out=pbjson-count ;;
    *) exec "\$@" ;;
esac
exec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/\$out.\$PROFILE.cg" \
    --log-file="$work/\$out.valgrind" "\$@"
SH
    chmod +x "$work/count-rustc"
    ir() { awk '/^summary:/ { print $2 }' "$work/$1.cg"; }
    echo
    what="the imports of $set_name"
    ((count == 2)) && what="the whole $set_name closure"
    echo "rustc instructions, building $what ($(grep -c '^impl ::vtproto::Message' "$work"/vt-count/src/gen/*.vt.rs | awk -F: '{ s += $2 } END { print s }') messages):"
    echo
    if ((${#crates[@]} == 3)); then
        echo '| build | prost-build alone | prost-build + rust-vt | change | prost-build + pbjson |'
        echo '|---|---:|---:|---:|---:|'
    else
        echo '| build | prost-build alone | prost-build + rust-vt | change |'
        echo '|---|---:|---:|---:|'
    fi
    for profile in debug release; do
        flag=()
        [ "$profile" = release ] && flag=(--release)
        for c in "${crates[@]}"; do
            cargo build --quiet "${flag[@]}" --manifest-path "$work/$c/Cargo.toml" # dependencies
            cargo clean --quiet "${flag[@]}" --manifest-path "$work/$c/Cargo.toml" -p "$c"
            PROFILE=$profile CARGO_INCREMENTAL=0 RUSTC_WRAPPER="$work/count-rustc" \
                cargo build --quiet "${flag[@]}" --manifest-path "$work/$c/Cargo.toml"
        done
        p=$(ir prost-count.$profile) v=$(ir vt-count.$profile)
        pbjson=""
        if ((${#crates[@]} == 3)); then
            pbjson=$(printf ' %.3f G |' "$(echo "$(ir pbjson-count.$profile) / 10^9" | bc -l)")
        fi
        printf '| %s | %.3f G | %.3f G | %+.1f%% |%s\n' "$profile" "$(echo "$p / 10^9" | bc -l)" \
            "$(echo "$v / 10^9" | bc -l)" "$(echo "($v / $p - 1) * 100" | bc -l)" "$pbjson"
    done
fi

((measure)) || exit 0

# Plugin time and memory on one request, captured from protoc once.
tools=$root/target/tools
[ -x "$tools/bin/protoc-gen-prost" ] ||
    cargo install --quiet --locked --root "$tools" protoc-gen-prost --version 0.5.0
printf '#!/bin/sh\ncat > "%s"\n' "$work/request.bin" >"$work/dump-plugin"
chmod +x "$work/dump-plugin"
"$protoc_bin" --descriptor_set_in="$work/set.fds" --plugin=protoc-gen-dump="$work/dump-plugin" \
    --dump_out="$work" $files 2>/dev/null || true
run_plugin() { # name binary
    /usr/bin/env time -f '%e %M' "$2" <"$work/request.bin" >"$work/$1.response" 2>"$work/$1.time"
    read -r secs kb <"$work/$1.time"
    printf '| %s | %s s | %d MB | %d MB |\n' "$1" "$secs" $((kb / 1024)) \
        $(($(stat -c %s "$work/$1.response") / 1000000))
}
echo
echo "plugins on the same request ($set_name, $(wc -w <<<"$files") files, $(nproc) cores):"
echo
echo '| plugin | time | peak memory | response |'
echo '|---|---:|---:|---:|'
run_plugin protoc-gen-rust-vt "$root/target/release/protoc-gen-rust-vt"
run_plugin protoc-gen-prost "$tools/bin/protoc-gen-prost"

# Compile cost, for the default set: the same crate with prost's structs alone.
((full || first)) && exit 0
make_crate "$work/prost-crate"
"$generate" "$work/set.fds" "$work/prost-crate/src/gen" --prost-only
build_time() { # crate-dir profile-args... -> "wall-seconds cpu-seconds"
    local dir=$1; shift
    local name; name=$(basename "$dir")
    cargo build --quiet --manifest-path "$dir/Cargo.toml" "$@" 2>/dev/null # dependencies
    cargo clean --quiet --manifest-path "$dir/Cargo.toml" -p "$name" "$@" 2>/dev/null
    CARGO_INCREMENTAL=0 /usr/bin/env time -f '%e %U %S' -o "$work/build.time" \
        cargo build --quiet --manifest-path "$dir/Cargo.toml" "$@"
    awk '{ print $1, $2 + $3 }' "$work/build.time"
}
rlib() { # profile-dir crate-name
    stat -c %s "$CARGO_TARGET_DIR/$1/lib${2//-/_}.rlib"
}
echo
echo "compile cost of the generated crate ($set_name):"
echo
echo '| build | prost-build alone | prost-build + rust-vt | change | CPU time: alone | + rust-vt | change |'
echo '|---|---:|---:|---:|---:|---:|---:|'
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
change() { echo "($2 / $1 - 1) * 100" | bc -l; }
for profile in release debug; do
    args=(); [ $profile = release ] && args=(--release)
    # Alternated, three times each, the medians kept: a build on a shared machine varies by
    # several seconds from one run to the next. CPU time (user + system, all of rustc's
    # threads) varies less with what else the machine does than wall time.
    ps=() vs=()
    for _ in 1 2 3; do
        ps+=("$(build_time "$work/prost-crate" "${args[@]}")")
        vs+=("$(build_time "$work/vt-crate" "${args[@]}")")
    done
    p=$(printf '%s\n' "${ps[@]}" | cut -d' ' -f1 | median)
    v=$(printf '%s\n' "${vs[@]}" | cut -d' ' -f1 | median)
    pc=$(printf '%s\n' "${ps[@]}" | cut -d' ' -f2 | median)
    vc=$(printf '%s\n' "${vs[@]}" | cut -d' ' -f2 | median)
    printf '| %s build | %.1f s | %.1f s | %+.0f%% | %.1f s | %.1f s | %+.0f%% |\n' "$profile" \
        "$p" "$v" "$(change "$p" "$v")" "$pc" "$vc" "$(change "$pc" "$vc")"
done
p=$(rlib release prost-crate); v=$(rlib release vt-crate)
printf '| release rlib | %d MB | %d MB | %+.0f%% | | | |\n' $((p / 1000000)) $((v / 1000000)) "$(change "$p" "$v")"
