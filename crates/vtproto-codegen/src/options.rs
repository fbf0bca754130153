//! Generator options, parsed once from the plugin parameter (`mode=prost,bytes=.,btree_map=.pkg`)
//! or set by the build crate. Path options use prost-build's matching rules.

use crate::Error;

/// What the generator emits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// `impl vtproto::Message` blocks for the structs prost-build generates from the same files.
    #[default]
    Prost,
    /// Our own prost-shaped structs (the `structs` feature) with the whole spec: unknown
    /// fields, closed enums, extensions, editions. Generated code depends on `vtproto` alone.
    Standalone,
}

impl Mode {
    /// The features generated when the options name none.
    pub fn default_features(self) -> &'static [&'static str] {
        match self {
            Mode::Prost => &["codec", "services"],
            Mode::Standalone => &["structs", "codec", "services"],
        }
    }
}

/// All generator options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Output mode.
    pub mode: Mode,
    /// The features to generate, by name (`codec`, ...); empty for the mode's
    /// [defaults](Mode::default_features).
    pub features: Vec<String>,
    /// Proto paths of the messages that get a zero-copy view (`FooView<'a>`); any path selects
    /// the `views` feature. Empty with `features=..+views`: every message.
    pub views: Vec<String>,
    /// Proto paths whose map fields prost generates as `BTreeMap` (prost-build's `btree_map`).
    pub btree_map: Vec<String>,
    /// Proto paths whose `bytes` fields prost generates as `bytes::Bytes` (prost-build's `bytes`).
    pub bytes: Vec<String>,
    /// Proto paths of singular message fields prost generates as `Box<T>` (prost-build's
    /// `boxed`; a oneof's members are matched as `.pkg.Msg.oneof_name.field`), beside the
    /// fields prost boxes on its own (recursive ones).
    pub boxed: Vec<String>,
    /// Proto paths provided by other crates (prost-build's `extern_path`): no impls are generated
    /// for them.
    pub extern_path: Vec<(String, String)>,
    /// Generate impls for `google.protobuf` types too (by default prost maps them to
    /// `prost-types`, for which the `vtproto` runtime provides impls).
    pub compile_well_known_types: bool,
    /// Plugin only: also insert `include!("<package>.vt.rs");` at the
    /// `@@protoc_insertion_point(module)` of protoc-gen-prost's `<package>.rs` (same output
    /// directory, `flat_output_dir`, prost's plugin run first), so including prost's file brings
    /// in ours.
    pub insert_include: bool,
    /// Plugin only, `mode=standalone`: also write this file, declaring a module per package
    /// that includes its file ([`include_file`](crate::include_file)).
    pub include_file: Option<String>,
    /// `services`: the clients get `connect()` (tonic's `transport` feature); on by default,
    /// `build_transport=false` turns it off.
    pub build_transport: bool,
    /// `services`: the server traits' methods get default bodies answering `UNIMPLEMENTED`
    /// (`default_stubs`).
    pub default_stubs: bool,
    /// `services`: proto paths of methods (`.pkg.Service.Method`, or a service or package for
    /// all of theirs) whose server handlers take the request as an owned view
    /// (`FooOwnedView`, its strings borrowing tonic's buffer); the request needs a view.
    pub server_views: Vec<String>,
    /// Proto paths of the messages whose ProtoJSON and text format (`json`, `text`) are served
    /// by the runtime's walker over their reflection tables instead of generated code: less
    /// to compile, slower to run. Needs the `reflect` feature.
    pub tables: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: Mode::default(),
            features: Vec::new(),
            views: Vec::new(),
            btree_map: Vec::new(),
            bytes: Vec::new(),
            boxed: Vec::new(),
            extern_path: Vec::new(),
            compile_well_known_types: false,
            insert_include: false,
            include_file: None,
            build_transport: true,
            default_stubs: false,
            server_views: Vec::new(),
            tables: Vec::new(),
        }
    }
}

impl Options {
    /// Parses a comma-separated `key=value` parameter string, as passed by `--rust-vt_opt`.
    ///
    /// Keys: `mode` (`prost`, `standalone`), `features` (`a+b`, names of
    /// [`feature_names`](crate::feature_names)), `views`, `btree_map`, `bytes`, `boxed` (proto paths,
    /// repeatable),
    /// `extern_path=.proto.path=::rust::path` (repeatable), `include_file=<name>`
    /// (`mode=standalone`), `build_transport=false`, `server_views` (proto paths of methods,
    /// repeatable), and the flags `compile_well_known_types`,
    /// `insert_include` and `default_stubs`.
    pub fn parse(parameter: &str) -> Result<Options, Error> {
        let mut opts = Options::default();
        for item in parameter
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let (key, value) = item.split_once('=').unwrap_or((item, ""));
            match key {
                "mode" => {
                    opts.mode = match value {
                        "prost" => Mode::Prost,
                        "standalone" => Mode::Standalone,
                        other => {
                            return Err(Error::option(format!(
                                "unknown mode `{other}` (supported: prost, standalone)"
                            )))
                        }
                    }
                }
                "features" => opts
                    .features
                    .extend(value.split('+').filter(|s| !s.is_empty()).map(String::from)),
                "btree_map" => opts.btree_map.push(value.to_string()),
                "views" => opts.views.push(value.to_string()),
                "bytes" => opts.bytes.push(value.to_string()),
                "boxed" => opts.boxed.push(value.to_string()),
                "extern_path" => {
                    let (proto, rust) = value.split_once('=').ok_or_else(|| {
                        Error::option(format!(
                            "extern_path needs `.proto.path=::rust::path`, got `{value}`"
                        ))
                    })?;
                    if !proto.starts_with('.') {
                        return Err(Error::option(format!(
                            "extern_path proto paths are fully qualified (start with `.`): `{proto}`"
                        )));
                    }
                    opts.extern_path.push((proto.to_string(), rust.to_string()));
                }
                "compile_well_known_types" => opts.compile_well_known_types = true,
                "insert_include" => opts.insert_include = true,
                "build_transport" => opts.build_transport = value != "false",
                "default_stubs" => opts.default_stubs = value != "false",
                "server_views" => opts.server_views.push(value.to_string()),
                "tables" => opts.tables.push(value.to_string()),
                "include_file" if !value.is_empty() => opts.include_file = Some(value.to_string()),
                other => return Err(Error::option(format!("unknown option `{other}`"))),
            }
        }
        opts.validate()?;
        Ok(opts)
    }

    /// Checks what [`parse`](Options::parse) can't see when options are set field by field
    /// (as the build crate does): every feature name is known, and the features selected can
    /// work together.
    pub fn validate(&self) -> Result<(), Error> {
        if self.include_file.is_some() && self.mode == Mode::Prost {
            return Err(Error::option(
                "include_file is for mode=standalone (with mode=prost, protoc-gen-prost's \
                 include_file declares the modules)",
            ));
        }
        if !self.tables.is_empty() && !crate::emit::is_selected(self, "reflect") {
            return Err(Error::option(
                "tables= serves JSON and text from the reflection tables: it needs the \
                 reflect feature (`features=..+reflect`)",
            ));
        }
        crate::emit::check_dependencies(self)
    }

    /// Whether the JSON and text of message `fq_message` (`.pkg.Msg`) are served by its
    /// reflection tables.
    pub fn uses_tables(&self, fq_message: &str) -> bool {
        path_matches(&self.tables, fq_message)
    }

    /// Whether the reflection tables serve the JSON and text of every message (`tables=.`).
    pub fn tables_serve_all(&self) -> bool {
        self.tables.iter().any(|p| p == ".")
    }

    /// Whether the message `fq_message` (`.pkg.Msg`) gets a view, the `views` feature being
    /// selected.
    pub fn has_view(&self, fq_message: &str) -> bool {
        !self.is_extern(fq_message)
            && (self.views.is_empty() || path_matches(&self.views, fq_message))
    }

    /// Whether the server handler of method `fq_method` (`.pkg.Service.Method`) takes its
    /// request as an owned view.
    pub fn is_server_view(&self, fq_method: &str) -> bool {
        path_matches(&self.server_views, fq_method)
    }

    /// Whether a field's map type is `BTreeMap`.
    pub fn is_btree_map(&self, fq_message: &str, field: &str) -> bool {
        path_matches(&self.btree_map, &format!("{fq_message}.{field}"))
    }

    /// Whether prost-build's `boxed` option boxes a field: `fq_parent` is the message
    /// (`.pkg.Msg`), or for a oneof member the oneof (`.pkg.Msg.oneof_name`), as prost-build
    /// matches it.
    pub fn is_boxed(&self, fq_parent: &str, field: &str) -> bool {
        path_matches(&self.boxed, &format!("{fq_parent}.{field}"))
    }

    /// Whether a field's bytes type is `bytes::Bytes`.
    pub fn is_bytes(&self, fq_message: &str, field: &str) -> bool {
        path_matches(&self.bytes, &format!("{fq_message}.{field}"))
    }

    /// Whether a fully-qualified type lives in another crate.
    pub fn is_extern(&self, fq_type: &str) -> bool {
        let wkt = ".google.protobuf";
        let implicit = (!self.compile_well_known_types).then_some(wkt);
        self.extern_path
            .iter()
            .map(|(p, _)| p.as_str())
            .chain(implicit)
            .any(|p| {
                fq_type == p
                    || (fq_type.starts_with(p) && fq_type.as_bytes().get(p.len()) == Some(&b'.'))
            })
    }
}

/// prost-build's rule: a configured path matches a fully-qualified path `.a.b.c` if it equals it,
/// one of its suffixes (`a.b.c`, `b.c`, `c`), one of its prefixes (`.a.b`, `.a`), or `.`.
pub fn path_matches(configured: &[String], fq_path: &str) -> bool {
    if configured.is_empty() {
        return false;
    }
    let mut candidates = vec![fq_path];
    let mut rest = fq_path;
    while let Some((_, tail)) = rest.split_once('.') {
        if tail.is_empty() {
            break;
        }
        candidates.push(tail);
        rest = tail;
    }
    let mut prefix = fq_path;
    while let Some((head, _)) = prefix.rsplit_once('.') {
        if head.is_empty() {
            break;
        }
        candidates.push(head);
        prefix = head;
    }
    candidates.push(".");
    configured.iter().any(|c| candidates.contains(&c.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_parameters() {
        let o = Options::parse("mode=prost,bytes=.,btree_map=.a.B.m,extern_path=.x=::x").unwrap();
        assert_eq!(o.bytes, ["."]);
        assert_eq!(o.btree_map, [".a.B.m"]);
        assert_eq!(o.extern_path, [(".x".to_string(), "::x".to_string())]);
        assert!(Options::parse("mode=nope").is_err());
        assert!(Options::parse("frobnicate=1").is_err());
        assert!(Options::parse("include_file=mod.rs").is_err());
        assert!(Options::parse("mode=standalone,include_file=mod.rs").is_ok());
        assert!(Options::parse("extern_path=x").is_err());
    }

    #[test]
    fn features_are_checked_by_name() {
        assert!(Options::parse("").unwrap().features.is_empty());
        assert_eq!(
            Options::parse("features=codec").unwrap().features,
            ["codec"]
        );
        let err = Options::parse("features=codec+nonsense").unwrap_err();
        assert_eq!(
            err,
            Error::UnknownFeature {
                name: "nonsense".into(),
                known: crate::feature_names()
            }
        );
        assert!(
            err.to_string()
                .contains("known: structs, codec, reuse, views"),
            "{err}"
        );
        assert!(
            Options::parse("features=views").is_err(),
            "views need the codec"
        );
        assert!(
            Options::parse("features=reuse").is_err(),
            "reuse needs the codec"
        );
        assert!(Options::parse("features=codec+reuse").is_ok());
        let views = Options::parse("views=.pkg.Msg").unwrap();
        assert!(views.has_view(".pkg.Msg") && !views.has_view(".pkg.Other"));
    }

    #[test]
    fn prost_path_matching() {
        let m = |c: &str, p: &str| path_matches(&[c.to_string()], p);
        assert!(m(".", ".a.B.f"));
        assert!(m(".a", ".a.B.f"));
        assert!(m(".a.B", ".a.B.f"));
        assert!(m(".a.B.f", ".a.B.f"));
        assert!(m("f", ".a.B.f"));
        assert!(m("B.f", ".a.B.f"));
        assert!(!m(".a.B.g", ".a.B.f"));
        assert!(!m(".ab", ".a.B.f"));
        assert!(!m("a", ".a.B.f"));
    }

    #[test]
    fn extern_paths() {
        let o = Options::parse("extern_path=.foo=::foo").unwrap();
        assert!(o.is_extern(".foo.Bar"));
        assert!(o.is_extern(".foo"));
        assert!(!o.is_extern(".foobar.Baz"));
    }
}
