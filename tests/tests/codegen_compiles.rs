//! What the generator writes compiles: the `codegen` fuzz target's corpus
//! (`fuzz/corpus/codegen.corpus`: arbitrary requests, minimized to their distinct shapes) goes
//! through the generator in `mode=standalone` (`vt_tests::checks::codegen_standalone`), and
//! every request it answers with code becomes a module of one crate, which must build. The
//! test command compiles a sample (`VT_CODEGEN_SAMPLE`, default 150 inputs, spread over the
//! corpus) and the inputs of `fuzz/regressions/codegen/` (requests whose code once failed to
//! compile: names that collide in Rust, oneof members that are repeated, fields naming a type
//! of the wrong kind, a map entry or no type of the request); `scripts/codegen-compiles.sh`
//! compiles all of them (`VT_CODEGEN_SAMPLE=all`). An input whose code does not compile is named
//! with the compiler's first errors.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn generated_code_compiles_on_the_fuzz_corpus() {
    let mut inputs = vt_tests::checks::unpack_corpus(&root().join("fuzz/corpus/codegen.corpus"));
    let sample = std::env::var("VT_CODEGEN_SAMPLE").unwrap_or_else(|_| "150".into());
    if sample != "all" {
        let n: usize = sample
            .parse()
            .expect("VT_CODEGEN_SAMPLE: a number or `all`");
        let step = inputs.len().div_ceil(n.max(1)).max(1);
        inputs = inputs.into_iter().step_by(step).collect();
    } else {
        let dir = root().join("fuzz/regressions/codegen");
        let mut extra: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        extra.sort();
        inputs.extend(extra.iter().map(|p| std::fs::read(p).unwrap()));
    }
    let dir = root().join("target/codegen-compiles");
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    let mut lib = String::from("#![allow(warnings, clippy::all)]\n");
    let mut modules = Vec::new();
    for (i, data) in inputs.iter().enumerate() {
        let Some(files) = vt_tests::checks::codegen_standalone(data) else {
            continue;
        };
        if files.is_empty() {
            continue;
        }
        let module = format!("i{i}");
        let out = src.join(&module);
        std::fs::create_dir_all(&out).unwrap();
        for f in &files {
            std::fs::write(out.join(&f.name), &f.content).unwrap();
        }
        std::fs::write(out.join("mod.rs"), vtproto_codegen::include_file(&files)).unwrap();
        let _ = writeln!(lib, "pub mod {module} {{ include!(\"{module}/mod.rs\"); }}");
        modules.push((module, data));
    }
    eprintln!(
        "{} of {} inputs give code; compiling it",
        modules.len(),
        inputs.len()
    );
    assert!(
        !modules.is_empty() || inputs.is_empty(),
        "the generator answers no input with code: the sample checks nothing"
    );
    std::fs::write(src.join("lib.rs"), lib).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"vt-codegen-compiles\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nvtproto = {{ path = {:?} }}\n\n[workspace]\n\n[profile.dev]\ndebug = false\n",
            root().join("crates/vtproto").display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let build = Command::new(env!("CARGO"))
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .args(["check", "--quiet", "--offline", "--message-format=short"])
        .output()
        .unwrap();
    if build.status.success() {
        return;
    }
    let stderr = String::from_utf8_lossy(&build.stderr);
    // `src/i<N>/...: error...`: the inputs whose code fails.
    let mut failing: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(": error"))
        .filter_map(|l| l.strip_prefix("src/")?.split('/').next())
        .collect();
    failing.sort();
    failing.dedup();
    let keep = dir.join("failed");
    std::fs::create_dir_all(&keep).unwrap();
    for (module, data) in &modules {
        if failing.contains(&module.as_str()) {
            std::fs::write(keep.join(module), data).unwrap();
        }
    }
    panic!(
        "the generated code of inputs {failing:?} does not compile (inputs kept in {}; \
         add them to fuzz/regressions/codegen/ once fixed):\n{}",
        keep.display(),
        stderr.lines().take(40).collect::<Vec<_>>().join("\n")
    );
}
