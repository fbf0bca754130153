//! `build.rs` support for rust-vt, shaped like `prost-build`.
//!
//! ```no_run
//! // build.rs
//! fn main() -> std::io::Result<()> {
//!     vtproto_build::Config::new()
//!         .bytes(["."])
//!         .compile_protos(&["proto/shop.proto"], &["proto"])
//! }
//! ```
//! In `mode=prost` one call runs prost-build and the rust-vt generator with the same options, so
//! the two can never disagree on a shape. Each `<package>.rs` prost writes to `OUT_DIR` ends with
//! an `include!` of our `<package>.vt.rs`, so the usual
//! `include!(concat!(env!("OUT_DIR"), "/shop.rs"));` brings in both the structs and the impls.
//!
//! The parser is pure Rust (no protoc), and its descriptors are protoc's, byte for byte:
//!
//! ```
//! # fn main() -> std::io::Result<()> {
//! let dir = std::env::temp_dir().join(format!("vtproto-build-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(
//!     dir.join("shop.proto"),
//!     "syntax = \"proto3\"; package shop; message Item { string id = 1; optional int64 cents = 2; }",
//! )?;
//! let set = vtproto_build::Config::new().load_fds(&[dir.join("shop.proto")], &[&dir])?;
//! let item = &set.file[0].message_type[0];
//! assert_eq!(item.name(), "Item");
//! assert_eq!(item.field[1].json_name(), "cents");
//! assert_eq!(item.oneof_decl[0].name(), "_cents"); // proto3 `optional`'s synthetic oneof
//! # std::fs::remove_dir_all(&dir)
//! # }
//! ```
#![warn(missing_docs)]

use std::io::{Error, ErrorKind, Result, Write};
use std::path::{Path, PathBuf};

mod canonical;
mod pure;

pub use vtproto_codegen::descriptor::FileDescriptorSet;
pub use vtproto_codegen::Mode;
use vtproto_codegen::Options;

/// Configuration of one code generation run.
pub struct Config {
    prost: prost_build::Config,
    options: Options,
    out_dir: Option<PathBuf>,
    protoc: Option<PathBuf>,
    skip_prost: bool,
    include_file: Option<PathBuf>,
    descriptor_set: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Self::new()
    }
}

impl Config {
    /// A configuration with prost-build's defaults.
    pub fn new() -> Self {
        Config {
            prost: prost_build::Config::new(),
            options: Options::default(),
            out_dir: None,
            protoc: None,
            skip_prost: false,
            include_file: None,
            descriptor_set: None,
        }
    }

    /// Where generated files go (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl Into<PathBuf>) -> &mut Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Map fields under these proto paths become `BTreeMap` (prost-build's syntax).
    pub fn btree_map<I, S>(&mut self, paths: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let paths: Vec<String> = paths.into_iter().map(|s| s.as_ref().to_string()).collect();
        self.prost.btree_map(&paths);
        self.options.btree_map.extend(paths);
        self
    }

    /// The messages under these proto paths get their ProtoJSON and text format from the
    /// runtime's walker over their reflection tables instead of generated code (`tables=`;
    /// needs the `reflect` feature): less to compile, slower to run.
    pub fn tables<I, S>(&mut self, paths: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.options
            .tables
            .extend(paths.into_iter().map(|s| s.as_ref().to_string()));
        self
    }

    /// `bytes` fields under these proto paths become `bytes::Bytes` (prost-build's syntax).
    pub fn bytes<I, S>(&mut self, paths: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let paths: Vec<String> = paths.into_iter().map(|s| s.as_ref().to_string()).collect();
        self.prost.bytes(&paths);
        self.options.bytes.extend(paths);
        self
    }

    /// Singular message fields under these proto paths become `Box<T>` (prost-build's `boxed`;
    /// a oneof member's path is `.pkg.Msg.oneof_name.field`). Set boxing here, not through
    /// [`prost_config`](Config::prost_config), so that the impls and views read the same
    /// shapes as prost's structs (a box set only on prost's side is reported as an error).
    pub fn boxed<I, S>(&mut self, paths: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        for path in paths {
            self.prost.boxed(path.as_ref());
            self.options.boxed.push(path.as_ref().to_string());
        }
        self
    }

    /// Types under `proto_path` come from another crate at `rust_path`.
    pub fn extern_path(
        &mut self,
        proto_path: impl AsRef<str>,
        rust_path: impl AsRef<str>,
    ) -> &mut Self {
        self.prost
            .extern_path(proto_path.as_ref(), rust_path.as_ref());
        self.options.extern_path.push((
            proto_path.as_ref().to_string(),
            rust_path.as_ref().to_string(),
        ));
        self
    }

    /// The output mode: [`Mode::Prost`] (default: prost-build's structs plus our impls) or
    /// [`Mode::Standalone`] (our own structs; prost-build does not run).
    pub fn mode(&mut self, mode: Mode) -> &mut Self {
        self.options.mode = mode;
        self
    }

    /// The generated features, by name (the plugin's `features=a+b`; see
    /// [`vtproto_codegen::feature_names`]). By default, the mode's
    /// ([`Mode::default_features`]). An unknown name fails the generation with the list of
    /// known ones.
    pub fn features<I, S>(&mut self, names: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.options
            .features
            .extend(names.into_iter().map(|s| s.as_ref().to_string()));
        self
    }

    /// Whether the `services` feature's clients get `connect()` (tonic's `transport` feature);
    /// on by default (the plugin's `build_transport=false`).
    pub fn build_transport(&mut self, enable: bool) -> &mut Self {
        self.options.build_transport = enable;
        self
    }

    /// Whether the `services` feature's server traits give every method a default body
    /// answering `UNIMPLEMENTED` (the plugin's `default_stubs`); off by default.
    pub fn default_stubs(&mut self, enable: bool) -> &mut Self {
        self.options.default_stubs = enable;
        self
    }

    /// The `services` feature's server handlers of these methods (`.pkg.Service.Method`, or a
    /// service or package for all of theirs) take their request as an owned view
    /// (`FooOwnedView`; the request needs a view, see [`views`](Self::views)); the plugin's
    /// `server_views=`.
    pub fn server_views<I, S>(&mut self, paths: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.options
            .server_views
            .extend(paths.into_iter().map(|s| s.as_ref().to_string()));
        self
    }

    /// Messages under these proto paths get a zero-copy view, `FooView<'a>` (the plugin's
    /// `views=`; `["."]` for all), implementing `vtproto::MessageView`.
    pub fn views<I, S>(&mut self, paths: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.options
            .views
            .extend(paths.into_iter().map(|s| s.as_ref().to_string()));
        self
    }

    /// Generate the `google.protobuf` types too, rather than use the runtime's (prost-build's
    /// `compile_well_known_types`).
    pub fn compile_well_known_types(&mut self) -> &mut Self {
        self.prost.compile_well_known_types();
        self.options.compile_well_known_types = true;
        self
    }

    /// Don't run prost-build: for users who run it themselves with the same options.
    pub fn skip_prost(&mut self) -> &mut Self {
        self.skip_prost = true;
        self
    }

    /// Parse with this `protoc` binary instead of the built-in pure-Rust parser (the `PROTOC`
    /// environment variable does the same).
    pub fn protoc(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.protoc = Some(path.into());
        self
    }

    /// The generator options this configuration passes to `vtproto-codegen`.
    pub fn codegen_options(&self) -> &Options {
        &self.options
    }

    /// The prost-build configuration, for options rust-vt does not mirror (attributes, ...).
    pub fn prost_config(&mut self) -> &mut prost_build::Config {
        &mut self.prost
    }

    /// Parses `protos` (searching `includes`) and generates prost's structs and our impls.
    ///
    /// The descriptor set written by [`file_descriptor_set_path`](Config::file_descriptor_set_path)
    /// and the `descriptors` feature's `FILE_DESCRIPTOR_SET` hold the files as the parser wrote
    /// them, custom options included (see [`load_fds_bytes`](Config::load_fds_bytes)).
    pub fn compile_protos(
        &mut self,
        protos: &[impl AsRef<Path>],
        includes: &[impl AsRef<Path>],
    ) -> Result<()> {
        for p in protos {
            println!("cargo:rerun-if-changed={}", p.as_ref().display());
        }
        let encoded = self.load_encoded(protos, includes)?;
        let fds = decode_files(&encoded)?;
        for file in &fds.file {
            if let Some(path) = includes
                .iter()
                .map(|i| i.as_ref().join(file.name()))
                .find(|p| p.exists())
            {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        self.compile(fds, Some(&encoded))
    }

    /// Generates from an already parsed descriptor set (all files in it, imports included,
    /// except those under extern paths).
    pub fn compile_fds(&mut self, fds: FileDescriptorSet) -> Result<()> {
        self.compile(fds, None)
    }

    /// Generates from `fds`, whose files were decoded from `encoded` when given (whose bytes
    /// then go to the descriptor set file and `FILE_DESCRIPTOR_SET` as they are).
    fn compile(&mut self, fds: FileDescriptorSet, encoded: Option<&[Vec<u8>]>) -> Result<()> {
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| Error::other("OUT_DIR is not set; call .out_dir()"))?,
        };
        self.options
            .validate()
            .map_err(|e| Error::new(ErrorKind::InvalidInput, e))?;
        if let Some(path) = &self.descriptor_set {
            use prost::Message as _;
            let set = match encoded {
                Some(files) => canonical::set(files),
                None => fds.encode_to_vec(),
            };
            write_if_changed(path, &set)?;
        }
        let prost = !self.skip_prost && self.options.mode == Mode::Prost;
        if prost {
            self.prost.out_dir(&out_dir);
            self.prost.compile_fds(prost_fds(&fds)?)?;
        }
        let to_generate: Vec<String> = fds.file.iter().map(|f| f.name().to_string()).collect();
        let mut files = Vec::new();
        vtproto_codegen::generate_each_encoded(
            &fds.file,
            encoded,
            &to_generate,
            &self.options,
            |f| files.push(f),
        )
        .map_err(|e| Error::new(ErrorKind::InvalidInput, e))?;
        if prost {
            check_boxing(&fds, &to_generate, &self.options, &out_dir)?;
        }
        for f in &files {
            let path = out_dir.join(&f.name);
            write_if_changed(&path, f.content.as_bytes())?;
            if prost {
                let prost_file = out_dir.join(vtproto_codegen::prost_file_name(&f.package));
                append_include(&prost_file, &f.name)?;
            }
        }
        if let (Some(name), Mode::Standalone) = (&self.include_file, self.options.mode) {
            let content = vtproto_codegen::include_file(&files);
            write_if_changed(&out_dir.join(name), content.as_bytes())?;
        }
        Ok(())
    }

    /// Also writes the parsed descriptor set (imports included, encoded
    /// `FileDescriptorSet`) to `path` (prost-build's `file_descriptor_set_path`).
    pub fn file_descriptor_set_path(&mut self, path: impl Into<PathBuf>) -> &mut Self {
        self.descriptor_set = Some(path.into());
        self
    }

    /// Also writes `name` to the output directory: a file declaring a module per package that
    /// includes its generated file (prost-build's `include_file`).
    pub fn include_file(&mut self, name: impl Into<PathBuf>) -> &mut Self {
        let name = name.into();
        self.prost.include_file(&name);
        self.include_file = Some(name);
        self
    }

    /// Parses `protos` into a descriptor set holding them and everything they import.
    ///
    /// With [`protoc`](Config::protoc) or the `PROTOC` environment variable, `protoc` parses;
    /// otherwise the pure-Rust parser of `protobuf-parse` does, and no `protoc` is needed. The
    /// two give the same descriptors (the pure parser's are brought to protoc's shape), but for
    /// what the pure parser does not read: `edition` files, and options on extension ranges.
    /// Custom options are not kept in these decoded structs; [`load_fds_bytes`](Config::load_fds_bytes)
    /// keeps them.
    pub fn load_fds(
        &mut self,
        protos: &[impl AsRef<Path>],
        includes: &[impl AsRef<Path>],
    ) -> Result<FileDescriptorSet> {
        decode_files(&self.load_encoded(protos, includes)?)
    }

    /// [`load_fds`](Config::load_fds), encoded: the `FileDescriptorSet` protoc's
    /// `--include_imports -o` writes for `protos`, custom options included, each file after its
    /// imports, with the same bytes whichever parser read it (protoc's field order), but for
    /// comments (`source_code_info`), which only protoc writes.
    pub fn load_fds_bytes(
        &mut self,
        protos: &[impl AsRef<Path>],
        includes: &[impl AsRef<Path>],
    ) -> Result<Vec<u8>> {
        Ok(canonical::set(&self.load_encoded(protos, includes)?))
    }

    /// The encoded files of `protos` and their imports, each after its imports.
    fn load_encoded(
        &mut self,
        protos: &[impl AsRef<Path>],
        includes: &[impl AsRef<Path>],
    ) -> Result<Vec<Vec<u8>>> {
        println!("cargo:rerun-if-env-changed=PROTOC");
        let protoc = self
            .protoc
            .clone()
            .or_else(|| std::env::var_os("PROTOC").map(PathBuf::from));
        match protoc {
            Some(protoc) => {
                self.prost.protoc_executable(&protoc);
                parse_protoc(&protoc, protos, includes)
            }
            None => pure::parse(protos, includes),
        }
    }
}

/// Decodes encoded files into the generator's descriptor types.
fn decode_files(encoded: &[Vec<u8>]) -> Result<FileDescriptorSet> {
    use prost::Message as _;
    let file = encoded
        .iter()
        .map(|bytes| {
            vtproto_codegen::descriptor::FileDescriptorProto::decode(&bytes[..])
                .map_err(Error::other)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(FileDescriptorSet { file })
}

/// Parses with `protoc` into encoded files (editions fields included; comments only where
/// the `descriptors` feature documents services from them).
fn parse_protoc(
    protoc: &Path,
    protos: &[impl AsRef<Path>],
    includes: &[impl AsRef<Path>],
) -> Result<Vec<Vec<u8>>> {
    let out = std::env::temp_dir().join(format!(
        "vtproto-build-{}-{:?}.pb",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut cmd = std::process::Command::new(protoc);
    for i in includes {
        cmd.arg("-I").arg(i.as_ref());
    }
    cmd.arg("--include_imports")
        .arg("--include_source_info")
        .arg("-o")
        .arg(&out);
    cmd.args(protos.iter().map(AsRef::as_ref));
    let output = cmd.output().map_err(|e| {
        Error::new(
            e.kind(),
            format!("running protoc `{}`: {e}", protoc.display()),
        )
    })?;
    if !output.status.success() {
        return Err(Error::other(format!(
            "protoc failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let bytes = std::fs::read(&out)?;
    let _ = std::fs::remove_file(&out);
    Ok(canonical::files(&bytes))
}

/// For a "path `x.proto` is not found" error, the `file:line` of the `import "x.proto"` that
/// asked for it, searched in the inputs and then in the include directories.
fn missing_import_site(
    msg: &str,
    protos: &[impl AsRef<Path>],
    includes: &[impl AsRef<Path>],
) -> Option<String> {
    let missing = msg
        .split('`')
        .nth(1)
        .filter(|_| msg.contains("is not found"))?;
    let needle = format!("\"{missing}\"");
    let mut candidates: Vec<PathBuf> = protos.iter().map(|p| p.as_ref().to_path_buf()).collect();
    let mut dirs: Vec<PathBuf> = includes.iter().map(|i| i.as_ref().to_path_buf()).collect();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "proto") {
                candidates.push(path);
            }
        }
    }
    candidates.iter().find_map(|file| {
        let text = std::fs::read_to_string(file).ok()?;
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("import") && l.contains(&needle))?;
        Some(format!("{}:{}", file.display(), line + 1))
    })
}

fn write_if_changed(path: &Path, content: &[u8]) -> Result<()> {
    if std::fs::read(path).ok().as_deref() == Some(content) {
        return Ok(());
    }
    std::fs::write(path, content)
}

/// Appends `include!("<name>")` to prost's output for the same package (once).
fn append_include(prost_file: &Path, vt_name: &str) -> Result<()> {
    let line = format!("include!(\"{vt_name}\");\n");
    let existing = std::fs::read_to_string(prost_file).map_err(|e| {
        Error::new(
            e.kind(),
            format!("prost-build wrote no {}: {e}", prost_file.display()),
        )
    })?;
    if existing.contains(line.trim_end()) {
        return Ok(());
    }
    let mut f = std::fs::OpenOptions::new().append(true).open(prost_file)?;
    f.write_all(line.as_bytes())
}

/// The same descriptors as prost-types' `FileDescriptorSet`, for tools that take those
/// (tonic-prost-build's `compile_fds`, prost-build's). prost-types predates editions: their
/// `edition` and `features` are dropped.
pub fn prost_fds(fds: &FileDescriptorSet) -> Result<prost_types::FileDescriptorSet> {
    use prost::Message as _;
    prost_types::FileDescriptorSet::decode(&fds.encode_to_vec()[..]).map_err(Error::other)
}

/// Shortcut for `Config::new().compile_protos(protos, includes)`.
pub fn compile_protos(protos: &[impl AsRef<Path>], includes: &[impl AsRef<Path>]) -> Result<()> {
    Config::new().compile_protos(protos, includes)
}

/// Checks that prost-build boxed exactly the fields our model boxes, package by package: a
/// path given to `prost_config().boxed(..)` alone would give prost's structs a `Box` that our
/// impls and views do not expect, a type error deep in generated code. prost writes every box
/// as `<prost>::alloc::boxed::Box<`, a field's or a oneof variant's.
fn check_boxing(
    fds: &FileDescriptorSet,
    to_generate: &[String],
    options: &Options,
    out_dir: &Path,
) -> Result<()> {
    let packages = vtproto_codegen::model::build(&fds.file, to_generate, options)
        .map_err(|e| Error::new(ErrorKind::InvalidInput, e))?;
    for p in packages.iter().filter(|p| !p.messages.is_empty()) {
        let ours = p
            .messages
            .iter()
            .flat_map(|m| m.all_fields())
            .filter(|(_, f)| f.boxed)
            .count();
        let prost_file = out_dir.join(vtproto_codegen::prost_file_name(&p.name));
        let Ok(text) = std::fs::read_to_string(&prost_file) else {
            continue;
        };
        let theirs = text.matches("::alloc::boxed::Box<").count();
        if theirs != ours {
            return Err(Error::new(
                ErrorKind::InvalidInput,
                format!(
                    "prost-build boxes {theirs} fields of package `{}` and rust-vt {ours}: set \
                     boxed paths with vtproto_build::Config::boxed (it tells both), not with \
                     prost_config().boxed",
                    p.name
                ),
            ));
        }
    }
    Ok(())
}
