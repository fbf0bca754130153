//! Any schema, every feature: random `.proto` sets (`support/schemas.rs`), generated with the
//! plugin's entry point and with `vtproto-build` in both modes and with the feature and
//! prost-build options users combine, compiled into a crate of their own, then run on random,
//! corrupted and edge inputs (the empty message, every field at its zero value, required
//! fields at their defaults in every map) through every decoder and encoder: against prost in
//! `mode=prost` (`vt_tests::properties`), against Python protobuf (upb) in `mode=standalone`
//! (values, accept and reject, the bytes re-encoded).
//!
//! Also checked on every generated file: the plugin and `vtproto-build` write the same text,
//! and the hand-written printer's text parses (with `syn`) to the tokens the generator built.
//!
//! Settings (environment): `VT_SCHEMAS` sets to generate (default 24), `VT_SCHEMA_SEED` the
//! first seed (default 1), `VT_SCHEMA_BATCH` sets per compiled crate (default 6),
//! `VT_SCHEMA_KEEP` a folder where the sets of a failing batch are copied,
//! `VT_SCHEMA_FIXTURES=0` skips the fixtures in `tests/schemas/` (sets that once failed, kept as
//! regressions), which otherwise run first, `VT_SCHEMA_FIXTURES_DIR` another folder of them,
//! `VT_SCHEMA_WORK` the folder the batches' crates are built in (default
//! `target/random-schemas`; the long mode has its own, so both can run at once).
//! Every batch runs; the failing ones are listed. `scripts/random-schemas.sh` runs the long
//! mode, `scripts/minimize-schema.py` shrinks a failing set into a fixture.

mod support;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use prost::Message as _;
use support::oracle::{self, Oracle};
use support::schemas::{self, SchemaSet};
use support::{Rng, Schema};
use vtproto_codegen::descriptor::FileDescriptorSet;
use vtproto_codegen::{Mode, Options};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
        })
        .unwrap_or(default)
}

#[test]
fn random_schemas_compile_and_agree_with_prost_and_upb() {
    let count = setting("VT_SCHEMAS", 24);
    let first = setting("VT_SCHEMA_SEED", 1);
    let batch = setting("VT_SCHEMA_BATCH", 6).max(1) as usize;
    let mut sets = if setting("VT_SCHEMA_FIXTURES", 1) == 1 {
        let dir = std::env::var_os("VT_SCHEMA_FIXTURES_DIR")
            .map_or_else(|| root().join("tests/schemas"), PathBuf::from);
        fixtures(&dir)
    } else {
        Vec::new()
    };
    let fixtures = sets.len();
    sets.extend((first..first + count).map(|seed| {
        schemas::reset();
        schemas::generate(seed)
    }));
    let work = std::env::var_os("VT_SCHEMA_WORK")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/random-schemas"));
    let python = oracle::python();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (i, chunk) in sets.chunks(batch).enumerate() {
        let dir = work.join(format!("batch-{i}"));
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_batch(&dir, &work.join("target"), chunk, python.as_deref())
        }));
        match result {
            Ok(n) => checked += n,
            Err(e) => {
                if let Some(keep) = std::env::var_os("VT_SCHEMA_KEEP") {
                    for set in chunk {
                        write_set(set, Path::new(&keep));
                    }
                }
                let seeds: Vec<u64> = chunk.iter().map(|s| s.seed).collect();
                let message = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!(
                    "seeds {seeds:?} (crate at {}):\n{message}",
                    dir.display()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing batches:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "{} schema sets ({fixtures} fixtures), {checked} inputs checked",
        sets.len()
    );
    assert!(
        checked > sets.len(),
        "{checked} inputs for {} sets",
        sets.len()
    );
}

/// The fixtures: each folder `tests/schemas/r<seed>/` holds one set's files.
fn fixtures(dir: &Path) -> Vec<SchemaSet> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for d in dirs {
        let prefix = d.file_name().unwrap().to_string_lossy().to_string();
        let seed = prefix
            .trim_start_matches('r')
            .parse()
            .expect("a fixture folder is r<seed>");
        let mut files: Vec<(String, String)> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "proto"))
            .map(|e| {
                let name = e.file_name().to_string_lossy().to_string();
                (
                    format!("{prefix}/{name}"),
                    std::fs::read_to_string(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        let prost_compatible = files.iter().all(|(_, text)| !text.contains("edition ="));
        out.push(SchemaSet {
            seed,
            files,
            prost_compatible,
            prefix,
        });
    }
    out
}

fn write_set(set: &SchemaSet, protos: &Path) {
    for (path, text) in &set.files {
        let p = protos.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

/// One set's generator options, drawn from its seed: `reuse` or not, and the prost-build
/// options users set (`boxed` on a message field, `bytes`, `btree_map`).
struct Choices {
    reuse: bool,
    bytes: Vec<String>,
    btree_map: Vec<String>,
    boxed: Vec<String>,
}

fn choices(set: &SchemaSet, fds: &FileDescriptorSet) -> Choices {
    let mut rng = Rng::new(set.seed ^ 0x0c40_1ce5);
    let mut boxable = Vec::new();
    for f in &fds.file {
        if !f.name().starts_with(&set.prefix) {
            continue;
        }
        let mut stack: Vec<(String, &vtproto_codegen::descriptor::DescriptorProto)> = f
            .message_type
            .iter()
            .map(|m| (format!(".{}.{}", f.package(), m.name()), m))
            .collect();
        while let Some((name, m)) = stack.pop() {
            for field in &m.field {
                use vtproto_codegen::descriptor::field_descriptor_proto::{Label, Type};
                if field.r#type() == Type::Message && field.label() != Label::Repeated {
                    let plain = format!("{name}.{}", field.name());
                    match field.oneof_index {
                        // prost-build boxes a oneof member matched as `.Msg.oneof.field`,
                        // but decides whether the oneof derives `Copy` from `.Msg.field`:
                        // boxed through the first path alone, a member whose message is
                        // `Copy` gets a `Copy` derive on a `Box` (its structs do not
                        // compile; seed 2507). Users name both; so does the test.
                        Some(i) if !field.proto3_optional() => boxable.push(vec![
                            format!(
                                "{name}.{}.{}",
                                m.oneof_decl[i as usize].name(),
                                field.name()
                            ),
                            plain,
                        ]),
                        _ => boxable.push(vec![plain]),
                    }
                }
            }
            stack.extend(
                m.nested_type
                    .iter()
                    .map(|n| (format!("{name}.{}", n.name()), n)),
            );
        }
    }
    let package = |rng: &mut Rng| {
        let f = &fds.file[rng.below(fds.file.len() as u64) as usize];
        format!(".{}", f.package())
    };
    Choices {
        reuse: rng.chance(50),
        bytes: if rng.chance(40) {
            vec![package(&mut rng)]
        } else {
            vec![]
        },
        btree_map: if rng.chance(40) {
            vec![".".to_string()]
        } else {
            vec![]
        },
        boxed: if !boxable.is_empty() && rng.chance(50) {
            boxable[rng.below(boxable.len() as u64) as usize].clone()
        } else {
            vec![]
        },
    }
}

/// Generates, compiles and runs one crate for `sets`; the number of inputs checked.
fn run_batch(dir: &Path, target: &Path, sets: &[SchemaSet], python: Option<&str>) -> usize {
    let _ = std::fs::remove_dir_all(dir);
    let protos = dir.join("protos");
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let protoc = protoc_bin_vendored::protoc_bin_path().unwrap();
    let wkt = protoc_bin_vendored::include_path().unwrap();
    let properties = root()
        .join("tests/src/properties.rs")
        .canonicalize()
        .unwrap();
    let alloc_stats = root()
        .join("crates/alloc-stats/src/lib.rs")
        .canonicalize()
        .unwrap();
    // The allocator counts what the memory budget's property measures.
    let mut main = format!(
        "#![allow(warnings, clippy::all)]\n#[path = {:?}]\nmod properties;\n\
         #[path = {:?}]\nmod alloc_stats;\n\
         #[global_allocator]\nstatic A: alloc_stats::Tracking = alloc_stats::Tracking;\n",
        properties.display().to_string(),
        alloc_stats.display().to_string()
    );
    let mut dispatch = String::new();
    let mut dispatch_reuse = String::new();
    let mut inputs = Vec::new();
    let mut registry_all: Vec<(String, bool)> = Vec::new();
    for set in sets {
        write_set(set, &protos);
        let files: Vec<PathBuf> = set.files.iter().map(|(p, _)| protos.join(p)).collect();
        let bin = dir.join(format!("{}.bin", set.prefix));
        let out = Command::new(&protoc)
            .arg("-I")
            .arg(&protos)
            .arg("-I")
            .arg(&wkt)
            .arg("--include_imports")
            .arg(format!("--descriptor_set_out={}", bin.display()))
            .args(&files)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "protoc refuses set {}:\n{}\n{}",
            set.seed,
            String::from_utf8_lossy(&out.stderr),
            set.files
                .iter()
                .map(|(p, t)| format!("// {p}\n{t}"))
                .collect::<String>()
        );
        let bytes = std::fs::read(&bin).unwrap();
        let fds = FileDescriptorSet::decode(&bytes[..]).unwrap();
        // The set's pool, for DynamicMessage against the generated code.
        let _ = writeln!(
            main,
            "fn pool_{}() -> &'static vtproto::reflect::DescriptorPool {{ static P: std::sync::OnceLock<vtproto::reflect::DescriptorPool> = std::sync::OnceLock::new(); P.get_or_init(|| vtproto::reflect::DescriptorPool::decode(include_bytes!({:?})).unwrap()) }}",
            set.prefix,
            bin.display().to_string()
        );
        let c = choices(set, &fds);
        let to_generate: Vec<String> = fds.file.iter().map(|f| f.name().to_string()).collect();

        let prost = set.prost_compatible && prost_boxes_every_cycle(&fds);
        if set.prost_compatible && !prost {
            eprintln!("set {}: prost-build leaves a cycle through groups unboxed (its structs would not compile): mode=standalone only", set.seed);
        }
        let mut modes = vec![Mode::Standalone];
        if prost {
            modes.push(Mode::Prost);
        }
        for mode in modes {
            let (suffix, mut features) = match mode {
                Mode::Prost => (
                    "prost",
                    vec!["codec", "json", "serde", "text", "services", "reflect"],
                ),
                Mode::Standalone => (
                    "standalone",
                    vec![
                        "structs",
                        "codec",
                        "json",
                        "serde",
                        "text",
                        "services",
                        "descriptors",
                        "reflect",
                    ],
                ),
            };
            if c.reuse {
                features.push("reuse");
            }
            let out_dir = src.join(format!("{}_{suffix}", set.prefix));
            std::fs::create_dir_all(&out_dir).unwrap();
            let mut config = vtproto_build::Config::new();
            config
                .mode(mode)
                .out_dir(&out_dir)
                .features(features.iter().copied())
                .views(["."])
                .protoc(&protoc)
                .include_file("_includes.rs");
            if mode == Mode::Prost {
                config
                    .bytes(&c.bytes)
                    .btree_map(&c.btree_map)
                    .boxed(&c.boxed)
                    // JSON and text from the reflection tables: checked against the
                    // generated code of mode=standalone.
                    .tables(["."])
                    .prost_config()
                    .include_file("_includes.rs");
            }
            config
                .compile_fds(fds.clone())
                .unwrap_or_else(|e| panic!("set {} ({suffix}): vtproto-build: {e}", set.seed));
            // The plugin's entry point, on the same request, with the same options spelled
            // as the plugin takes them.
            let mut param = format!("mode={suffix},features={},views=.", features.join("+"));
            if mode == Mode::Prost {
                for (k, paths) in [
                    ("bytes", &c.bytes),
                    ("btree_map", &c.btree_map),
                    ("boxed", &c.boxed),
                ] {
                    for p in paths {
                        let _ = write!(param, ",{k}={p}");
                    }
                }
                param.push_str(",tables=.");
            }
            let options = Options::parse(&param).unwrap();
            let plugin = vtproto_codegen::generate(&fds.file, &to_generate, &options)
                .unwrap_or_else(|e| panic!("set {}: the plugin refuses: {e}", set.seed));
            for f in &plugin {
                let built = std::fs::read_to_string(out_dir.join(&f.name)).unwrap();
                assert!(
                    built == f.content,
                    "set {}: the plugin and vtproto-build differ on {}",
                    set.seed,
                    f.name
                );
            }
            check_printer(&fds, &to_generate, &options, &plugin, set.seed);
            let _ = writeln!(
                main,
                "pub mod {p}_{suffix} {{ include!(\"{p}_{suffix}/_includes.rs\"); }}",
                p = set.prefix
            );
        }
        let options = Options::parse("mode=standalone,views=.").unwrap();
        let packages = vtproto_codegen::model::build(&fds.file, &to_generate, &options).unwrap();
        let schema = Schema::new(&bytes);
        let mut names = Vec::new();
        for p in &packages {
            for m in &p.messages {
                let join = |r: &vtproto_codegen::model::RustPath| {
                    p.module
                        .segments
                        .iter()
                        .chain(&r.segments)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("::")
                };
                let path = join(&m.rust_path);
                let view = join(&vtproto_codegen::view_path(&m.rust_path)) + "Family";
                let s = format!("{}_standalone", set.prefix);
                let call = if prost {
                    let pm = format!("{}_prost", set.prefix);
                    format!("properties::check::<{pm}::{path}, {pm}::{view}, {s}::{path}, {s}::{view}>(data); properties::check_json::<{pm}::{path}>(data); properties::check_json::<{s}::{path}>(data); properties::check_text::<{pm}::{path}>(data); properties::check_text::<{s}::{path}>(data); properties::check_serde::<{pm}::{path}>(data); properties::check_serde::<{s}::{path}>(data)")
                } else {
                    format!("properties::check_standalone::<{s}::{path}, {s}::{view}>(data); properties::check_json::<{s}::{path}>(data); properties::check_text::<{s}::{path}>(data); properties::check_serde::<{s}::{path}>(data)")
                };
                let desc = format!(
                    "&pool_{}().get_message_by_name({:?}).unwrap()",
                    set.prefix, m.full_name
                );
                let mut dynamic = format!(
                    "properties::check_dynamic::<{s}::{path}>({desc}, data); properties::check_reflect::<{s}::{path}>(Some({desc}), data); properties::check_tables::<{s}::{path}>(data)"
                );
                if prost {
                    let _ = write!(
                        dynamic,
                        "; properties::check_reflect::<{pm}::{path}>(None, data); properties::check_prost_tables::<{pm}::{path}, {s}::{path}>({desc}, data)",
                        pm = format!("{}_prost", set.prefix)
                    );
                }
                let _ = writeln!(
                    dispatch,
                    "        {:?} => {{ {call}; {dynamic}; reencode::<{s}::{path}>(data) }}",
                    m.full_name
                );
                // Once per type: the memory budget over the type's amplification corpus.
                let amplification =
                    format!("properties::check_amplification::<{s}::{path}, {s}::{view}>({desc})");
                let reuse = if prost {
                    let pm = format!("{}_prost", set.prefix);
                    format!("properties::check_reuse::<{pm}::{path}>(inputs); properties::check_reuse::<{s}::{path}>(inputs); {amplification}; properties::check_amplification_prost::<{pm}::{path}>({desc})")
                } else {
                    format!("properties::check_reuse::<{s}::{path}>(inputs); {amplification}")
                };
                let _ = writeln!(dispatch_reuse, "        {:?} => {{ {reuse} }}", m.full_name);
                names.push(m.full_name.clone());
                registry_all.push((m.full_name.clone(), schema.has_map(&m.full_name)));
            }
        }
        let mut rng = Rng::new(set.seed);
        for name in &names {
            // Pure Python (the oracle of messages with maps) takes a known field with an
            // overlong key for an unknown one.
            let maps = schema.has_map(name);
            support::set_overlong_keys(!maps);
            for data in schema.edge_messages(name) {
                inputs.push((name.clone(), data, true));
            }
            support::set_overlong_keys(true);
            for _ in 0..8 {
                support::set_overlong_keys(!maps);
                let valid = schema.random_message(name, &mut rng);
                support::set_overlong_keys(true);
                let bad = support::mutate(&valid, &mut rng);
                inputs.push((name.clone(), valid, true));
                inputs.push((name.clone(), bad, false));
            }
        }
    }
    let _ = write!(
        main,
        "
fn reencode<S: vtproto::Message>(data: &[u8]) -> String {{
    let mut s = S::default();
    match s.merge(&mut vtproto::Reader::new(data)) {{
        Ok(()) => s.encode_deterministic_to_vec().iter().map(|b| format!(\"{{b:02x}}\")).collect(),
        Err(e) => format!(\"ERROR {{:?}}\", e.kind()),
    }}
}}

fn run(name: &str, data: &[u8]) -> String {{
    match name {{
{dispatch}        other => panic!(\"unknown message {{other}}\"),
    }}
}}

/// `decode_into` over every pair of one type's inputs (the edge messages, random ones,
/// corrupted ones), in both modes.
fn reuse(name: &str, inputs: &[&[u8]]) {{
    match name {{
{dispatch_reuse}        other => panic!(\"unknown message {{other}}\"),
    }}
}}

fn main() {{
    let inputs = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    let mut rest = &inputs[..];
    let mut take = |n: usize| {{ let (s, r) = rest.split_at(n); rest = r; s.to_vec() }};
    let mut out = String::new();
    let mut by_type: Vec<(String, Vec<Vec<u8>>)> = Vec::new();
    let mut left = inputs.len();
    while left > 0 {{
        let n = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
        let name = String::from_utf8(take(n)).unwrap();
        let m = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
        let data = take(m);
        left -= 8 + n + m;
        let hex: String = data.iter().map(|b| format!(\"{{b:02x}}\")).collect();
        eprintln!(\"CASE {{name}} {{hex}}\");
        out.push_str(&run(&name, &data));
        out.push('\\n');
        match by_type.last_mut() {{
            Some((last, list)) if *last == name => list.push(data),
            _ => by_type.push((name, vec![data])),
        }}
    }}
    for (name, list) in &by_type {{
        eprintln!(\"CASE decode_into over the inputs of {{name}}\");
        let refs: Vec<&[u8]> = list.iter().map(Vec::as_slice).collect();
        reuse(name, &refs);
    }}
    print!(\"{{out}}\");
}}
"
    );
    std::fs::write(src.join("main.rs"), main).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"vt-random-schemas\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nvtproto = {{ path = {:?}, features = [\"prost-types\", \"tonic\", \"json\", \"serde\", \"text\", \"reflect\"] }}\n\
             serde_json = {{ version = \"1\", features = [\"float_roundtrip\"] }}\n\
             prost = \"0.14\"\nprost-types = \"0.14\"\nbytes = \"1\"\n\
             tonic = {{ version = \"0.14\", default-features = false, features = [\"codegen\", \"transport\"] }}\n\n[workspace]\n\n\
             [profile.dev]\ndebug = false\nopt-level = 0\n\n[profile.dev.package.\"*\"]\nopt-level = 1\n",
            root().join("crates/vtproto").display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut blob = Vec::new();
    for (name, data, _) in &inputs {
        blob.extend_from_slice(&(name.len() as u32).to_le_bytes());
        blob.extend_from_slice(name.as_bytes());
        blob.extend_from_slice(&(data.len() as u32).to_le_bytes());
        blob.extend_from_slice(data);
    }
    std::fs::write(dir.join("inputs.bin"), &blob).unwrap();
    let build = Command::new(env!("CARGO"))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .args(["build", "--quiet", "--offline"])
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "the generated crate does not compile:\n{}",
        String::from_utf8_lossy(&build.stderr)
            .lines()
            .take(80)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let run = Command::new(target.join("debug/vt-random-schemas"))
        .arg(dir.join("inputs.bin"))
        .output()
        .unwrap();
    if !run.status.success() {
        let stderr = String::from_utf8_lossy(&run.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let case = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("CASE"))
            .copied()
            .unwrap_or("");
        let tail: Vec<&str> = lines.iter().rev().take(12).rev().copied().collect();
        panic!("a check failed on {case}:\n{}", tail.join("\n"));
    }
    let results: Vec<String> = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(results.len(), inputs.len());
    if let Some(python) = python {
        compare_with_python(python, dir, &protos, sets, &inputs, &results, &registry_all);
    }
    inputs.len()
}

/// Whether prost-build's boxing rule (a singular message or group field is boxed when its type
/// leads back through singular *message* fields, groups being no edge of its graph) breaks every
/// cycle of singular fields: where it does not, prost's own structs have infinite size.
fn prost_boxes_every_cycle(fds: &FileDescriptorSet) -> bool {
    use vtproto_codegen::descriptor::field_descriptor_proto::{Label, Type};
    use vtproto_codegen::descriptor::DescriptorProto;
    let mut messages: HashMap<String, &DescriptorProto> = HashMap::new();
    let mut stack: Vec<(String, &DescriptorProto)> = fds
        .file
        .iter()
        .flat_map(|f| {
            f.message_type
                .iter()
                .map(move |m| (format!(".{}.{}", f.package(), m.name()), m))
        })
        .collect();
    while let Some((name, m)) = stack.pop() {
        stack.extend(
            m.nested_type
                .iter()
                .map(|n| (format!("{name}.{}", n.name()), n)),
        );
        messages.insert(name, m);
    }
    let singular = |m: &DescriptorProto, groups: bool| -> Vec<String> {
        m.field
            .iter()
            .filter(|f| {
                f.label() != Label::Repeated
                    && (f.r#type() == Type::Message || (groups && f.r#type() == Type::Group))
            })
            .map(|f| f.type_name().to_string())
            .collect()
    };
    let reaches = |from: &str, target: &str| {
        let mut seen = std::collections::HashSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(n) = todo.pop() {
            if n == target {
                return true;
            }
            if seen.insert(n.clone()) {
                if let Some(m) = messages.get(&n) {
                    todo.extend(singular(m, false));
                }
            }
        }
        false
    };
    // The edges prost leaves unboxed.
    let unboxed: HashMap<&str, Vec<String>> = messages
        .iter()
        .map(|(name, m)| {
            let edges = singular(m, true)
                .into_iter()
                .filter(|t| !reaches(t, name))
                .collect();
            (name.as_str(), edges)
        })
        .collect();
    // A cycle among them: depth-first search with colours.
    fn cyclic<'a>(
        n: &'a str,
        edges: &'a HashMap<&str, Vec<String>>,
        state: &mut HashMap<&'a str, u8>,
    ) -> bool {
        match state.get(n) {
            Some(1) => return true,
            Some(_) => return false,
            None => {}
        }
        state.insert(n, 1);
        for t in edges.get(n).into_iter().flatten() {
            if let Some((k, _)) = edges.get_key_value(t.as_str()) {
                if cyclic(k, edges, state) {
                    return true;
                }
            }
        }
        state.insert(n, 2);
        false
    }
    let mut state = HashMap::new();
    !unboxed.keys().any(|n| cyclic(n, &unboxed, &mut state))
}

/// The printed text of every generated file, parsed with `syn`, gives the tokens the
/// generator built (also parsed with `syn`, so both sides are compared as syntax trees).
fn check_printer(
    fds: &FileDescriptorSet,
    to_generate: &[String],
    options: &Options,
    printed: &[vtproto_codegen::GeneratedFile],
    seed: u64,
) {
    use quote::ToTokens;
    let tokens = vtproto_codegen::generate_tokens(&fds.file, to_generate, options).unwrap();
    let printed: HashMap<&str, &str> = printed
        .iter()
        .map(|f| (f.name.as_str(), f.content.as_str()))
        .collect();
    for (name, tokens) in tokens {
        let built: syn::File = syn::parse2(tokens).unwrap_or_else(|e| {
            panic!("set {seed}: {name}: the generator's tokens do not parse: {e}")
        });
        let text = printed[name.as_str()];
        let parsed: syn::File = syn::parse_file(text)
            .unwrap_or_else(|e| panic!("set {seed}: {name}: the printed file does not parse: {e}"));
        let (a, b) = (
            strip_trailing_commas(built.into_token_stream()).to_string(),
            strip_trailing_commas(parsed.into_token_stream()).to_string(),
        );
        if a != b {
            let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
            let from = at.saturating_sub(120);
            panic!(
                "set {seed}: {name}: the printed text means other tokens:\n built {}\nprinted {}",
                &a[from..(at + 80).min(a.len())],
                &b[from..(at + 80).min(b.len())]
            );
        }
    }
}

/// `tokens` without the trailing comma of any list that has another comma: the one change the
/// printer makes on purpose (rustfmt's; a one-element tuple's comma stays).
fn strip_trailing_commas(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, TokenTree};
    let mut out: Vec<TokenTree> = tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), strip_trailing_commas(g.stream()));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            t => t,
        })
        .collect();
    let is_comma = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == ',');
    if out.last().is_some_and(is_comma) && out.iter().filter(|t| is_comma(t)).count() > 1 {
        out.pop();
    }
    out.into_iter().collect()
}

/// `mode=standalone` against Python protobuf (upb): on valid inputs the same verdict and the
/// same deterministic bytes (for messages with maps, the same value: upb's deterministic order
/// of entries is its own), on corrupted ones the same verdict. (The pure-Python implementation
/// orders map entries by key but fails on some valid inputs with maps.)
fn compare_with_python(
    python: &str,
    dir: &Path,
    protos: &Path,
    sets: &[SchemaSet],
    inputs: &[(String, Vec<u8>, bool)],
    results: &[String],
    registry: &[(String, bool)],
) {
    let files: Vec<&str> = sets
        .iter()
        .flat_map(|s| s.files.iter().map(|(p, _)| p.as_str()))
        .collect();
    let packages: Vec<&str> = sets.iter().map(|s| s.prefix.as_str()).collect();
    let mut upb = Oracle::for_protos(python, "upb", protos, &files, &packages, &dir.join("py"));
    let maps: HashMap<&str, bool> = registry.iter().map(|(n, m)| (n.as_str(), *m)).collect();
    for ((name, data, valid), ours) in inputs.iter().zip(results) {
        let has_map = maps[name.as_str()];
        let theirs = upb.reencode_both(name, data);
        let ours_ok = !ours.starts_with("ERROR");
        let context = || format!("{name} on {}", oracle::hex(data));
        match (ours_ok, &theirs) {
            (true, Some((det, other))) if *valid => {
                let ours = oracle::unhex(ours);
                if has_map {
                    // upb's deterministic order of map entries is its own (not key order), so
                    // where maps make the order free, the value upb reads from our encoding
                    // must be the one it reads from the input.
                    let again = upb.reencode(name, &ours);
                    assert!(
                        again.as_ref() == Some(det),
                        "upb reads another value from our encoding: {}",
                        context()
                    );
                } else {
                    // Extensions are written in the order they arrived, as upb's plain
                    // serialization does (its deterministic one orders them by descending
                    // number); everything else as its deterministic one. Where nested
                    // messages make neither of upb's orders ours (an unknown field that
                    // arrived before an extension: upb keeps the two interleaved), our bytes
                    // must hold the input's value and be what upb's plain serialization
                    // writes for them.
                    let mut fixed_point = || {
                        ours == *det
                            || ours == *other
                            || upb.reencode_both(name, &ours) == Some((det.clone(), ours.clone()))
                    };
                    assert!(
                        fixed_point(),
                        "our deterministic encoding differs from upb's: {}\n ours {}\n upb  {}",
                        context(),
                        oracle::hex(&ours),
                        oracle::hex(det)
                    );
                }
            }
            (true, Some(_)) | (false, None) => {}
            (true, None) => panic!("Python refuses what we accept: {}", context()),
            (false, Some(_)) => {
                // A varint whose tenth byte carries bits past 64, or a key past 32 bits: upb
                // truncates, we refuse (as prost and Go do); a string that is not UTF-8 where
                // the schema does not ask for validation (proto2): upb keeps the bytes, a Rust
                // `String` can't.
                let allowed = ["InvalidVarint", "InvalidKey", "InvalidUtf8"];
                assert!(
                    !*valid && allowed.iter().any(|a| ours.contains(a)),
                    "we refuse ({ours}) what Python accepts: {}",
                    context()
                );
            }
        }
    }
}
