//! `vtproto-build`'s pure-Rust parser writes the descriptors protoc 33 writes, byte for byte
//! (`--include_imports -o`, no comments): for every `.proto` of the repository but the editions
//! ones (the pure parser reads no editions), for the shapes of `tests/descriptors/` (custom
//! options of every kind, defaults in every spelling, synthetic oneofs, MessageSets, methods
//! with and without a body) and for random schema sets without editions or groups (the pure
//! parser reads group bodies partly: see `vtproto-build`'s README). Imports included, so
//! the well-known types' files the build crate carries (`vtproto-build/src/well_known.pb`) are
//! checked against protoc's too; `VT_BLESS=1` rewrites that file with the corpora's protoc.
//!
//! Needs the corpora (`scripts/fetch-corpora.sh`) for protoc 33; skipped without them unless
//! `VT_REQUIRE_CORPORA=1`. `VT_PARITY_SCHEMAS` sets the number of random sets (default 200).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use prost::Message as _;
use vtproto_codegen::descriptor::FileDescriptorProto;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// protoc 33 and its include folder, from the corpora.
fn protoc() -> Option<(PathBuf, PathBuf)> {
    let corpora = std::env::var_os("VT_CORPORA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/corpora"));
    let bin = corpora.join("protoc/bin/protoc-linux-x86_64");
    if bin.exists() {
        return Some((bin, corpora.join("protoc/include")));
    }
    assert!(
        std::env::var_os("VT_REQUIRE_CORPORA").is_none_or(|v| v != "1"),
        "protoc 33 missing at {}: run scripts/fetch-corpora.sh",
        bin.display()
    );
    eprintln!("skipped: no corpora (scripts/fetch-corpora.sh installs protoc 33)");
    None
}

/// The field-1 records of an encoded `FileDescriptorSet`.
fn files(set: &[u8]) -> Vec<Vec<u8>> {
    let mut r = vtproto::Reader::new(set);
    let mut out = Vec::new();
    while !r.is_empty() {
        let key = r.read_key().unwrap();
        assert_eq!(key, 0x0a, "a FileDescriptorSet holds files alone");
        out.push(r.read_len_delimited().unwrap().to_vec());
    }
    out
}

fn with_protoc(protoc: &Path, includes: &[&Path], proto: &Path) -> Vec<Vec<u8>> {
    let out = std::env::temp_dir().join(format!("vt-parity-{}.pb", std::process::id()));
    let mut cmd = Command::new(protoc);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    let output = cmd
        .arg("--include_imports")
        .arg("-o")
        .arg(&out)
        .arg(proto)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "protoc refuses {}: {}",
        proto.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    files(&bytes)
}

fn with_pure(includes: &[&Path], proto: &Path) -> Result<Vec<Vec<u8>>, String> {
    let set = vtproto_build::Config::new()
        .load_fds_bytes(&[proto], includes)
        .map_err(|e| format!("the pure parser refuses {}: {e}", proto.display()))?;
    Ok(files(&set))
}

/// The first difference of two encoded files, told field by field where the decoded
/// descriptors differ, by their bytes where only unknown fields (custom options) do.
fn difference(ours: &[u8], theirs: &[u8]) -> String {
    let a = FileDescriptorProto::decode(ours).unwrap();
    let b = FileDescriptorProto::decode(theirs).unwrap();
    if a != b {
        let (a, b) = (format!("{a:#?}"), format!("{b:#?}"));
        let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
        let at = la.iter().zip(&lb).take_while(|(x, y)| x == y).count();
        let from = at.saturating_sub(6);
        return format!(
            "descriptors differ at line {at}:\n  pure:\n{}\n  protoc:\n{}",
            la[from..(at + 3).min(la.len())].join("\n"),
            lb[from..(at + 3).min(lb.len())].join("\n")
        );
    }
    let at = ours.iter().zip(theirs).take_while(|(x, y)| x == y).count();
    format!(
        "the same descriptors, other bytes (custom options) from byte {at}:\n  pure   {:02x?}\n  protoc {:02x?}",
        &ours[at..(at + 40).min(ours.len())],
        &theirs[at..(at + 40).min(theirs.len())]
    )
}

/// Parses `proto` both ways; the names of the files that differ, with how.
fn compare(protoc: &Path, wkt: &Path, includes: &[&Path], proto: &Path) -> Vec<String> {
    let mut with_wkt = includes.to_vec();
    with_wkt.push(wkt);
    let theirs = with_protoc(protoc, &with_wkt, proto);
    let ours = match with_pure(includes, proto) {
        Ok(ours) => ours,
        Err(e) => return vec![e],
    };
    let name = |f: &[u8]| FileDescriptorProto::decode(f).unwrap().name().to_string();
    let names = |set: &[Vec<u8>]| set.iter().map(|f| name(f)).collect::<Vec<_>>();
    if names(&ours) != names(&theirs) {
        return vec![format!(
            "{}: files {:?} against protoc's {:?}",
            proto.display(),
            names(&ours),
            names(&theirs)
        )];
    }
    ours.iter()
        .zip(&theirs)
        .filter(|(a, b)| a != b)
        .map(|(a, b)| {
            // Both encodings, for `protoc --decode=google.protobuf.FileDescriptorProto`.
            let dump = root().join("target/descriptor-parity/differences");
            let file = name(a).replace('/', "_");
            let _ = std::fs::create_dir_all(&dump);
            let _ = std::fs::write(dump.join(format!("{file}.pure.pb")), a);
            let _ = std::fs::write(dump.join(format!("{file}.protoc.pb")), b);
            format!("{} ({}): {}", name(a), proto.display(), difference(a, b))
        })
        .collect()
}

#[test]
fn the_pure_parser_writes_protocs_descriptors() {
    std::env::remove_var("PROTOC");
    let Some((protoc, wkt)) = protoc() else {
        return;
    };
    if std::env::var_os("VT_BLESS").is_some() {
        bless(&protoc, &wkt);
    }
    let work = root().join("target/descriptor-parity");
    let _ = std::fs::remove_dir_all(&work);
    let mut failures = Vec::new();
    let mut compared = 0;

    let shapes = root().join("tests/descriptors");
    failures.extend(compare(
        &protoc,
        &wkt,
        &[&shapes],
        &shapes.join("parity3.proto"),
    ));
    compared += 1;

    let proto = root().join("proto");
    let mut own: Vec<PathBuf> = Vec::new();
    for dir in [proto.clone(), proto.join("test")] {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "proto") {
                own.push(e.path());
            }
        }
    }
    own.sort();
    assert!(own.len() >= 8, "{own:?}");
    for p in &own {
        failures.extend(compare(&protoc, &wkt, &[&proto], p));
        compared += 1;
    }

    let count: u64 = std::env::var("VT_PARITY_SCHEMAS")
        .ok()
        .map_or(200, |v| v.parse().expect("VT_PARITY_SCHEMAS is a number"));
    // Each set in a folder of its own under `work`, kept when a parse differs.
    let mut sets = 0;
    let mut with_groups = 0;
    for seed in 1..=count {
        support::schemas::reset();
        let set = support::schemas::generate(seed);
        if !set.prost_compatible {
            continue; // editions
        }
        for (path, text) in &set.files {
            let p = work.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        // protobuf-parse 3.7 reads group bodies partly: it refuses maps, groups and types
        // declared inside one, and drops the options of the fields inside one. Such sets are
        // counted, not compared.
        if set.files.iter().any(|(_, text)| text.contains(" group ")) {
            with_groups += 1;
            continue;
        }
        for (path, _) in &set.files {
            failures.extend(compare(&protoc, &wkt, &[&work], &work.join(path)));
            compared += 1;
        }
        sets += 1;
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&work);
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} parses differ from protoc's:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "{compared} parses equal protoc's ({} of the repository, {sets} random sets; \
         {with_groups} sets with groups not compared)",
        own.len()
    );
    assert!(count < 10 || sets > 2, "too few random sets compared");
}

/// Rewrites `vtproto-build/src/well_known.pb` with protoc's well-known files.
fn bless(protoc: &Path, wkt: &Path) {
    let names = [
        "any",
        "api",
        "descriptor",
        "duration",
        "empty",
        "field_mask",
        "source_context",
        "struct",
        "timestamp",
        "type",
        "wrappers",
    ];
    let status = Command::new(protoc)
        .arg("-I")
        .arg(wkt)
        .arg("--include_imports")
        .arg("-o")
        .arg(root().join("crates/vtproto-build/src/well_known.pb"))
        .args(names.map(|n| format!("google/protobuf/{n}.proto")))
        .status()
        .unwrap();
    assert!(status.success());
}
