//! A seeded generator of valid `.proto` sets, weighted toward the shapes that break code
//! generators: recursion of every kind (direct, mutual, through groups, oneofs, maps, repeated
//! fields and extensions, across packages), groups in oneofs and in groups, nested types named
//! like fields and oneofs, Rust keywords, prelude names and the generated code's own local
//! names as identifiers, prost-build's name-mangling cases, every map key and value kind,
//! packed and expanded encodings, open and closed enums (aliases, negative numbers, prefixes
//! stripped or not), defaults of every type, extension ranges with `extend` blocks at file and
//! message scope, MessageSet, proto2, proto3 and editions 2023 and 2024 with features at file,
//! message and field level.
//!
//! A set is two files in two packages, the second importing the first; the same seed gives the
//! same set. Everything here is about what `protoc` accepts; what the project's code makes of
//! it is the test's business (`tests/random_schemas.rs`).

use std::collections::HashSet;

use super::Rng;

/// The syntax (or edition) of one generated file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Proto2,
    Proto3,
    Edition2023,
    Edition2024,
}

impl Syntax {
    fn editions(self) -> bool {
        matches!(self, Syntax::Edition2023 | Syntax::Edition2024)
    }
    /// Whether the file can declare groups, `required` fields and defaults (the spelling
    /// differs: editions use features).
    fn proto2_like(self) -> bool {
        self != Syntax::Proto3
    }
}

/// A generated `.proto` set.
pub struct SchemaSet {
    /// Its seed.
    pub seed: u64,
    /// `(path, content)` of each file, imported files first.
    pub files: Vec<(String, String)>,
    /// Whether every file is proto2 or proto3 (prost-build refuses editions).
    pub prost_compatible: bool,
    /// The packages' common prefix (`r<seed>`): unique per seed, so sets share a crate.
    pub prefix: String,
}

/// Field types, as `.proto` spells them.
const SCALARS: &[&str] = &[
    "double", "float", "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string", "bytes",
    "uint32", "sfixed32", "sfixed64", "sint32", "sint64",
];
const MAP_KEYS: &[&str] = &[
    "int64", "uint64", "int32", "fixed64", "fixed32", "bool", "string", "uint32", "sfixed32",
    "sfixed64", "sint32", "sint64",
];

/// Field names that are Rust keywords, prelude items, our generated code's locals and
/// methods, prost's accessors, or prost-build's mangling cases.
const HARD_FIELD_NAMES: &[&str] = &[
    "type",
    "self",
    "super",
    "crate",
    "fn",
    "match",
    "async",
    "await",
    "dyn",
    "try",
    "box",
    "ref",
    "move",
    "loop",
    "impl",
    "mod",
    "use",
    "where",
    "yield",
    "abstract",
    "macro",
    "union",
    "n",
    "v",
    "w",
    "r",
    "k",
    "o",
    "mark",
    "value_mark",
    "key",
    "entry",
    "seen",
    "body",
    "size",
    "encode",
    "decode",
    "merge",
    "encode_reverse",
    "merge_field",
    "default",
    "clear",
    "new",
    "option",
    "result",
    "vec",
    "string",
    "unknown_fields",
    "self_",
    "x1y",
    "a_b_c",
    "HTTPServer",
    "fooBar",
    "Big_Name",
    "value",
    "kind",
    "len",
    "buf",
    "from",
    "into",
    "core",
    "std",
    "alloc",
    "prost",
    "vtproto",
];
/// The names of [`HARD_FIELD_NAMES`] that are Rust keywords.
const RUST_KEYWORDS: &[&str] = &[
    "type", "self", "super", "crate", "fn", "match", "async", "await", "dyn", "try", "box", "ref",
    "move", "loop", "impl", "mod", "use", "where", "yield", "abstract", "macro", "union",
];
/// Message and enum names: prelude items, mangling cases (`foo` becomes `Foo`, `Foo_bar`
/// `FooBar`), names prost-build changes (`Self`).
const HARD_TYPE_NAMES: &[&str] = &[
    "Option",
    "Result",
    "Vec",
    "String",
    "Box",
    "Default",
    "Some",
    "None",
    "Ok",
    "Err",
    "Message",
    "Self",
    "HTTPRequest",
    "Foo_bar",
    "lower",
    "ABC",
    "X1y",
    "Type",
    "Error",
    "Debug",
    "Clone",
    "Iterator",
    "Reader",
    "Writer",
    "Bytes",
    "HashMap",
    "BTreeMap",
];
const HARD_PACKAGE_SEGMENTS: &[&str] = &["core", "std", "prost", "vtproto", "type", "self_x"];

/// Lower-cased without underscores: two names equal so may clash once prost-build converts
/// their case, so a scope keeps them distinct.
fn norm(s: &str) -> String {
    s.to_ascii_lowercase().replace('_', "")
}

/// The names taken in one scope (a file's top level or a message's body).
#[derive(Default)]
struct Names {
    taken: HashSet<String>,
}

impl Names {
    fn take(&mut self, name: &str) -> bool {
        self.taken.insert(norm(name))
    }
}

/// A message or enum that fields can refer to.
#[derive(Clone)]
struct TypeInfo {
    /// Fully-qualified, with the leading dot.
    full: String,
    /// Declared in the first file (the second sees both files).
    file: usize,
    is_enum: bool,
    /// An enum: closed. A message: proto2-like (can be an extendee or hold required fields).
    closed: bool,
    /// An enum's values: (name, number).
    values: Vec<(String, i32)>,
    /// A message with extension ranges: (start, end inclusive).
    extension_range: Option<(u32, u32)>,
    /// A MessageSet.
    message_set: bool,
    /// A map entry or group, which no field names as its type.
    hidden: bool,
    /// Top level (visible from other files in edition 2024 without a visibility feature).
    top_level: bool,
}

struct Gen<'a> {
    rng: &'a mut Rng,
    types: Vec<TypeInfo>,
    /// Counter for unique enum value names within a file.
    counter: u32,
    /// Message depth of nesting, so sets stay small.
    depth: u32,
    /// The messages being written, outermost first: fields often refer back to them.
    open: Vec<String>,
    /// Whether the file being written uses `google.protobuf.Empty` (then imports it).
    uses_empty: bool,
}

/// A file being written.
struct File {
    syntax: Syntax,
    index: usize,
    package: String,
    out: String,
}

/// The set of seed `seed`.
pub fn generate(seed: u64) -> SchemaSet {
    let mut rng = Rng::new(seed ^ 0x5eed_5c4e_3a5e_7001);
    let prefix = format!("r{seed}");
    // Mostly prost-compatible sets, so both modes are checked; a third with editions.
    let pick = |rng: &mut Rng| match rng.below(12) {
        0..=3 => Syntax::Proto2,
        4..=7 => Syntax::Proto3,
        8..=9 => Syntax::Edition2023,
        _ => Syntax::Edition2024,
    };
    let syntaxes = [pick(&mut rng), pick(&mut rng)];
    let mut g = Gen {
        rng: &mut rng,
        types: Vec::new(),
        counter: 0,
        depth: 0,
        open: Vec::new(),
        uses_empty: false,
    };
    let mut files = Vec::new();
    let mut segments: Vec<String> = Vec::new();
    for (index, syntax) in syntaxes.into_iter().enumerate() {
        let mut segment = if g.rng.chance(25) {
            g.pick(HARD_PACKAGE_SEGMENTS).to_string()
        } else {
            ["a", "b"][index].to_string()
        };
        if segments.contains(&segment) {
            segment.push('2');
        }
        let mut file = File {
            syntax,
            index,
            package: format!("{prefix}.{segment}"),
            out: String::new(),
        };
        segments.push(segment);
        let import = files
            .first()
            .map(|(path, _): &(String, String)| path.clone());
        g.uses_empty = false;
        g.file(&mut file, import.as_deref());
        if g.uses_empty {
            let package = format!("package {};\n", file.package);
            file.out = file.out.replacen(
                &package,
                &format!("{package}import \"google/protobuf/empty.proto\";\n"),
                1,
            );
        }
        files.push((
            format!("{prefix}/{}.proto", ["one", "two"][index]),
            file.out,
        ));
    }
    SchemaSet {
        seed,
        prost_compatible: syntaxes.iter().all(|s| !s.editions()),
        files,
        prefix,
    }
}

impl Gen<'_> {
    fn pick<'s>(&mut self, from: &[&'s str]) -> &'s str {
        from[self.rng.below(from.len() as u64) as usize]
    }

    fn file(&mut self, f: &mut File, import: Option<&str>) {
        match f.syntax {
            Syntax::Proto2 => f.out.push_str("syntax = \"proto2\";\n"),
            Syntax::Proto3 => f.out.push_str("syntax = \"proto3\";\n"),
            Syntax::Edition2023 => f.out.push_str("edition = \"2023\";\n"),
            Syntax::Edition2024 => f.out.push_str("edition = \"2024\";\n"),
        }
        f.out.push_str(&format!("package {};\n", f.package));
        if let Some(import) = import {
            f.out.push_str(&format!("import \"{import}\";\n"));
        }
        if f.syntax == Syntax::Edition2024 {
            // Keep proto2-style names and nested types visible to the other file.
            f.out
                .push_str("option features.enforce_naming_style = STYLE_LEGACY;\n");
            f.out
                .push_str("option features.default_symbol_visibility = EXPORT_ALL;\n");
        }
        if f.syntax.editions() {
            for line in self.file_features() {
                f.out.push_str(&format!("option features.{line};\n"));
            }
        }
        let mut scope = Names::default();
        let prefix = format!(".{}", f.package);
        // Declare the types first (names only), so fields can refer to any of them, then
        // write each with its fields.
        let count = 2 + self.rng.below(3);
        let mut bodies = Vec::new();
        for _ in 0..count {
            if self.rng.chance(25) {
                let e = self.enum_decl(f, &mut scope, &prefix, true);
                bodies.push(Item::Enum(e));
            } else if let Some(m) = self.message_decl(f, &mut scope, &prefix, true) {
                bodies.push(Item::Message(m));
            }
        }
        let mut file_extensions = Vec::new();
        for item in bodies {
            match item {
                Item::Enum(text) => f.out.push_str(&text),
                Item::Message(m) => {
                    let text = self.message_body(f, &m, 0);
                    f.out.push_str(&text);
                }
            }
        }
        if f.syntax.proto2_like() && self.rng.chance(70) {
            file_extensions.push(self.extend_blocks(f, &mut scope, 0));
        }
        for e in file_extensions {
            f.out.push_str(&e);
        }
        if self.rng.chance(35) {
            let service = self.service(f, &mut scope);
            f.out.push_str(&service);
        }
    }

    /// A service of one to four methods in every streaming shape, named like keywords and
    /// like what tonic's generated clients declare themselves (`connect`, `new`, ...), taking
    /// and returning any message either file declares.
    fn service(&mut self, f: &File, scope: &mut Names) -> String {
        let messages: Vec<String> = self
            .types
            .iter()
            .filter(|x| !x.is_enum && !x.hidden && x.file <= f.index)
            .map(|x| rel(&x.full))
            .collect();
        if messages.is_empty() {
            return String::new();
        }
        let name = loop {
            let n = format!("S{}", self.rng.below(1000));
            if scope.take(&n) {
                break n;
            }
        };
        const METHODS: &[&str] = &[
            "Get",
            "Type",
            "Match",
            "Async",
            "Self",
            "Connect",
            "New",
            "WithOrigin",
            "SendCompressed",
            "Ready",
            "Clone",
            "Poll",
            "Call",
            "list_items",
            "Stream",
        ];
        let mut methods = Names::default();
        let mut out = format!("service {name} {{\n");
        for _ in 0..1 + self.rng.below(4) {
            let method = if self.rng.chance(60) {
                self.pick(METHODS).to_string()
            } else {
                format!("Rpc{}", self.rng.below(1000))
            };
            if !methods.take(&method) {
                continue;
            }
            let pick = |rng: &mut Rng| messages[rng.below(messages.len() as u64) as usize].clone();
            let (input, output) = (pick(self.rng), pick(self.rng));
            let (cs, ss) = (self.rng.chance(30), self.rng.chance(30));
            let stream = |on: bool| if on { "stream " } else { "" };
            out.push_str(&format!(
                "  rpc {method}({}{input}) returns ({}{output});\n",
                stream(cs),
                stream(ss)
            ));
        }
        out.push_str("}\n");
        out
    }

    fn file_features(&mut self) -> Vec<String> {
        // (feature, percent of files that set it, its values)
        const FEATURES: &[(&str, u64, &[&str])] = &[
            ("field_presence", 40, &["EXPLICIT", "IMPLICIT"]),
            ("repeated_field_encoding", 30, &["PACKED", "EXPANDED"]),
            ("enum_type", 30, &["OPEN", "CLOSED"]),
            ("message_encoding", 25, &["LENGTH_PREFIXED", "DELIMITED"]),
            ("utf8_validation", 25, &["VERIFY", "NONE"]),
        ];
        let mut out = Vec::new();
        for (feature, percent, values) in FEATURES {
            if self.rng.chance(*percent) {
                out.push(format!("{feature} = {}", self.pick(values)));
            }
        }
        out
    }

    fn type_name(&mut self, scope: &mut Names) -> String {
        loop {
            let name = if self.rng.chance(30) {
                self.pick(HARD_TYPE_NAMES).to_string()
            } else {
                format!("M{}", self.rng.below(1000))
            };
            if !name.ends_with("Entry") && scope.take(&name) {
                return name;
            }
        }
    }

    fn field_name(&mut self, scope: &mut Names) -> String {
        self.field_name_where(scope, |_| true)
    }

    /// A field name for an enum or map field: not a keyword, since prost-derive builds its
    /// accessors' names (`get_r#use`) from the raw identifier and panics.
    fn plain_field_name(&mut self, scope: &mut Names) -> String {
        self.field_name_where(scope, |name| !RUST_KEYWORDS.contains(&name))
    }

    fn field_name_where(&mut self, scope: &mut Names, ok: impl Fn(&str) -> bool) -> String {
        loop {
            let name = if self.rng.chance(35) {
                self.pick(HARD_FIELD_NAMES).to_string()
            } else {
                format!("f{}", self.rng.below(10_000))
            };
            if ok(&name) && scope.take(&name) {
                return name;
            }
        }
    }

    /// An enum declared in `scope`, registered as a type.
    fn enum_decl(&mut self, f: &File, scope: &mut Names, prefix: &str, top: bool) -> String {
        let name = self.type_name(scope);
        // proto2 enums are closed; editions by feature (set here or inherited: resolved by
        // asking for it explicitly when it matters).
        let closed = match f.syntax {
            Syntax::Proto2 => true,
            Syntax::Proto3 => false,
            _ => self.rng.chance(40),
        };
        let mut values = Vec::new();
        let screaming: String = name
            .chars()
            .flat_map(|c| c.to_uppercase())
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        let count = 1 + self.rng.below(4);
        let alias = count > 1 && self.rng.chance(20);
        let mut numbers = HashSet::new();
        for i in 0..count {
            self.counter += 1;
            // Prefixed with the enum's name (prost strips it when what follows starts with
            // an upper-case letter), or not, or followed by a digit (not stripped).
            let value = match self.rng.below(3) {
                0 => format!("{screaming}_V{}", self.counter),
                1 => format!("{screaming}_{}X{}", self.counter % 10, self.counter),
                _ => format!("VAL{}_{}", self.counter, self.rng.below(100)),
            };
            let number = if i == 0 && (!closed || self.rng.chance(50)) {
                0
            } else if alias && i == count - 1 {
                *values.last().map(|(_, n)| n).unwrap_or(&0)
            } else {
                loop {
                    let n = match self.rng.below(4) {
                        0 => -(self.rng.below(5) as i32) - 1,
                        1 => i32::MAX - self.rng.below(3) as i32,
                        _ => 1 + self.rng.below(20) as i32,
                    };
                    if numbers.insert(n) {
                        break n;
                    }
                }
            };
            numbers.insert(number);
            values.push((value, number));
        }
        self.types.push(TypeInfo {
            full: format!("{prefix}.{name}"),
            file: f.index,
            is_enum: true,
            closed,
            values: values.clone(),
            extension_range: None,
            message_set: false,
            hidden: false,
            top_level: top,
        });
        let mut out = format!("enum {name} {{\n");
        if f.syntax.editions() {
            out.push_str(&format!(
                "  option features.enum_type = {};\n",
                if closed { "CLOSED" } else { "OPEN" }
            ));
        }
        if alias {
            out.push_str("  option allow_alias = true;\n");
        }
        for (v, n) in &values {
            out.push_str(&format!("  {v} = {n};\n"));
        }
        out.push_str("}\n");
        out
    }

    /// A message declared in `scope`: its name registered, its body written later (so that
    /// every type of the file is known to every field).
    fn message_decl(
        &mut self,
        f: &File,
        scope: &mut Names,
        prefix: &str,
        top: bool,
    ) -> Option<Decl> {
        let name = self.type_name(scope);
        let full = format!("{prefix}.{name}");
        let message_set = f.syntax == Syntax::Proto2 && self.rng.chance(6);
        let extension_range = (f.syntax.proto2_like() && (message_set || self.rng.chance(30)))
            .then_some(if message_set {
                (4, 536_870_911)
            } else {
                (1000, 1999)
            });
        self.types.push(TypeInfo {
            full: full.clone(),
            file: f.index,
            is_enum: false,
            closed: f.syntax.proto2_like(),
            values: Vec::new(),
            extension_range,
            message_set,
            hidden: false,
            top_level: top,
        });
        Some(Decl {
            name,
            full,
            message_set,
            extension_range,
        })
    }

    fn message_body(&mut self, f: &File, m: &Decl, indent: usize) -> String {
        self.open.push(m.full.clone());
        let out = self.message_text(f, m, indent);
        self.open.pop();
        out
    }

    fn message_text(&mut self, f: &File, m: &Decl, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        let mut out = format!("{pad}message {} {{\n", m.name);
        if m.message_set {
            out.push_str(&format!("{pad}  option message_set_wire_format = true;\n"));
            out.push_str(&format!("{pad}  extensions 4 to max;\n{pad}}}\n"));
            return out;
        }
        if f.syntax.editions() && self.rng.chance(15) {
            // Of the features, a message takes only the JSON one.
            out.push_str(&format!(
                "{pad}  option features.json_format = LEGACY_BEST_EFFORT;\n"
            ));
        }
        let mut scope = Names::default();
        // Nested types, sometimes named like the fields that follow.
        let mut nested = Vec::new();
        let mut nested_text = String::new();
        if self.depth < 2 && self.rng.chance(45) {
            self.depth += 1;
            for _ in 0..1 + self.rng.below(2) {
                if self.rng.chance(30) {
                    nested_text.push_str(&indent_text(
                        &self.enum_decl(f, &mut scope, &m.full, false),
                        indent + 1,
                    ));
                } else if let Some(d) = self.message_decl(f, &mut scope, &m.full, false) {
                    nested.push(d);
                }
            }
            for d in &nested {
                let text = self.message_body(f, d, indent + 1);
                nested_text.push_str(&text);
            }
            self.depth -= 1;
        }
        out.push_str(&nested_text);
        // Field names share a scope of their own (with the oneofs); a field may be named like
        // a nested type on purpose.
        let mut fields = Names::default();
        let mut numbers = Numbers::new(m.extension_range);
        for d in &nested {
            if self.rng.chance(40) {
                fields.take(&to_field(&d.name));
                let ty = d.full.clone();
                let label = self.label(f, false, false);
                let number = numbers.next(self.rng);
                out.push_str(&format!(
                    "{pad}  {label}{} {} = {number};\n",
                    rel(&ty),
                    to_field(&d.name)
                ));
            }
        }
        let count = self.rng.below(7);
        for _ in 0..count {
            let text = self.field(f, m, &mut scope, &mut fields, &mut numbers, indent + 1);
            out.push_str(&text);
        }
        if self.rng.chance(35) {
            out.push_str(&self.oneof(f, m, &mut scope, &mut fields, &mut numbers, indent + 1));
        }
        if let Some((lo, hi)) = m.extension_range {
            out.push_str(&format!("{pad}  extensions {lo} to {hi};\n"));
        }
        if self.rng.chance(15) {
            out.push_str(&format!("{pad}  reserved 15000 to 15010;\n"));
        }
        if f.syntax.proto2_like() && self.rng.chance(20) {
            out.push_str(&indent_text(
                &self.extend_blocks(f, &mut fields, 0),
                indent + 1,
            ));
        }
        out.push_str(&format!("{pad}}}\n"));
        out
    }

    /// `optional `, `repeated `, `required ` or nothing, as the syntax spells it.
    fn label(&mut self, f: &File, repeated_ok: bool, required_ok: bool) -> &'static str {
        let r = self.rng.below(10);
        if repeated_ok && r < 3 {
            return "repeated ";
        }
        match f.syntax {
            Syntax::Proto2 if required_ok && r == 9 => "required ",
            Syntax::Proto2 => "optional ",
            Syntax::Proto3 if r >= 6 => "optional ",
            _ => "",
        }
    }

    /// A type a field of a message in file `f` may have: a scalar, an enum or a message the
    /// file sees; `None` for a scalar.
    fn pick_type(&mut self, f: &File) -> Option<TypeInfo> {
        let visible: Vec<TypeInfo> = self
            .types
            .iter()
            .filter(|t| !t.hidden && t.file <= f.index)
            // proto3 can't use closed enums.
            .filter(|t| !(f.syntax == Syntax::Proto3 && t.is_enum && t.closed))
            .filter(|t| !t.message_set || self_ok_message_set(f))
            .cloned()
            .collect();
        if !self.open.is_empty() && self.rng.chance(25) {
            // Recursion: a type being written (this message or one around it).
            let full = self.open[self.rng.below(self.open.len() as u64) as usize].clone();
            if let Some(t) = visible.iter().find(|t| t.full == full) {
                return Some(t.clone());
            }
        }
        if visible.is_empty() || self.rng.chance(45) {
            return None;
        }
        Some(visible[self.rng.below(visible.len() as u64) as usize].clone())
    }

    #[allow(clippy::too_many_arguments)]
    fn field(
        &mut self,
        f: &File,
        m: &Decl,
        scope: &mut Names,
        fields: &mut Names,
        numbers: &mut Numbers,
        indent: usize,
    ) -> String {
        let pad = "  ".repeat(indent);
        let number = numbers.next(self.rng);
        // A group (proto2), sometimes holding a group or a field back to the message.
        if f.syntax == Syntax::Proto2 && self.rng.chance(12) && self.depth < 2 {
            let label = self.label(f, true, false);
            return self.group(f, m, scope, fields, number, indent, label);
        }
        if self.rng.chance(12) {
            return self.map(f, fields, number, indent);
        }
        let ty = self.pick_type(f);
        let name = if ty.as_ref().is_some_and(|t| t.is_enum) {
            self.plain_field_name(fields)
        } else {
            self.field_name(fields)
        };
        let (ty_text, kind) = match &ty {
            None => {
                let s = self.pick(SCALARS);
                (s.to_string(), Kind::Scalar(s))
            }
            Some(t) if t.is_enum => (rel(&t.full), Kind::Enum(t.clone())),
            Some(t) => (rel(&t.full), Kind::Message),
        };
        let recursive_required = matches!(kind, Kind::Message);
        let label = self.label(f, true, !recursive_required);
        let mut options = Vec::new();
        let repeated = label == "repeated ";
        let packable = matches!(kind, Kind::Enum(_))
            || matches!(kind, Kind::Scalar(s) if s != "string" && s != "bytes");
        if repeated && packable && self.rng.chance(40) {
            if f.syntax.editions() {
                options.push(format!(
                    "features.repeated_field_encoding = {}",
                    self.pick(&["PACKED", "EXPANDED"])
                ));
            } else {
                options.push(format!("packed = {}", self.pick(&["true", "false"])));
            }
        }
        let mut presence = None;
        if f.syntax.editions() && !repeated {
            // Presence by feature: implicit only for scalars and open enums.
            let implicit_ok = match &kind {
                Kind::Scalar(_) => true,
                Kind::Enum(e) => !e.closed,
                Kind::Message => false,
            };
            let choice = self.rng.below(10);
            presence = Some(if choice < 2 && !recursive_required {
                "LEGACY_REQUIRED"
            } else if choice < 5 && implicit_ok {
                "IMPLICIT"
            } else {
                "EXPLICIT"
            });
            if matches!(&kind, Kind::Enum(e) if e.closed) || !implicit_ok || self.rng.chance(60) {
                options.push(format!("features.field_presence = {}", presence.unwrap()));
            } else {
                // Inherited from the file: what it is is unknown here, so no default below.
                presence = None;
            }
        }
        if f.syntax.editions() && matches!(kind, Kind::Message) && !repeated && self.rng.chance(30)
        {
            options.push(format!(
                "features.message_encoding = {}",
                self.pick(&["DELIMITED", "LENGTH_PREFIXED"])
            ));
        }
        if f.syntax.editions() && matches!(kind, Kind::Scalar("string")) && self.rng.chance(30) {
            options.push(format!(
                "features.utf8_validation = {}",
                self.pick(&["VERIFY", "NONE"])
            ));
        }
        let may_default = !repeated
            && match f.syntax {
                Syntax::Proto2 => true,
                Syntax::Proto3 => false,
                _ => matches!(presence, Some("EXPLICIT" | "LEGACY_REQUIRED")),
            };
        if may_default && self.rng.chance(40) {
            // prost-build names an enum default by its value's name, but drops aliases from
            // its enums: an alias as default does not compile in prost's structs (a
            // prost-build bug), so only editions files (standalone alone) name one.
            if let Some(d) = self.default_value(&kind, f.syntax.editions()) {
                options.push(format!("default = {d}"));
            }
        }
        if self.rng.chance(5) {
            options.push("deprecated = true".to_string());
        }
        if self.rng.chance(5) {
            options.push(format!("json_name = \"j{}\"", self.rng.below(1000)));
        }
        let _ = scope;
        let label = if f.syntax.editions() && label != "repeated " {
            ""
        } else {
            label
        };
        let options = if options.is_empty() {
            String::new()
        } else {
            format!(" [{}]", options.join(", "))
        };
        format!("{pad}{label}{ty_text} {name} = {number}{options};\n")
    }

    /// A proto2 group field: a nested message declared in the field.
    #[allow(clippy::too_many_arguments)]
    fn group(
        &mut self,
        f: &File,
        m: &Decl,
        scope: &mut Names,
        fields: &mut Names,
        number: u32,
        indent: usize,
        label: &str,
    ) -> String {
        let pad = "  ".repeat(indent);
        // The group's name is a type name and, lower-cased, the field's.
        let name = loop {
            let n = format!("G{}", self.rng.below(1000));
            if scope.take(&n) && fields.take(&n.to_ascii_lowercase()) {
                break n;
            }
        };
        let full = format!("{}.{name}", m.full);
        self.types.push(TypeInfo {
            full: full.clone(),
            file: f.index,
            is_enum: false,
            closed: true,
            values: Vec::new(),
            extension_range: None,
            message_set: false,
            hidden: true,
            top_level: false,
        });
        let decl = Decl {
            name: name.clone(),
            full,
            message_set: false,
            extension_range: None,
        };
        let mut inner_scope = Names::default();
        let mut inner_fields = Names::default();
        let mut numbers = Numbers::new(None);
        let mut body = String::new();
        self.depth += 1;
        // Back to the enclosing message, often: recursion through the group.
        if self.rng.chance(60) {
            let n = numbers.next(self.rng);
            let fname = self.field_name(&mut inner_fields);
            let l = if self.rng.chance(30) {
                "repeated"
            } else {
                "optional"
            };
            body.push_str(&format!("{pad}  {l} {} {fname} = {n};\n", rel(&m.full)));
        }
        if self.rng.chance(25) && self.depth < 2 {
            let n = numbers.next(self.rng);
            let l = self.label(f, true, false);
            body.push_str(&self.group(
                f,
                &decl,
                &mut inner_scope,
                &mut inner_fields,
                n,
                indent + 1,
                l,
            ));
        }
        for _ in 0..self.rng.below(3) {
            body.push_str(&self.field(
                f,
                &decl,
                &mut inner_scope,
                &mut inner_fields,
                &mut numbers,
                indent + 1,
            ));
        }
        self.depth -= 1;
        format!("{pad}{label}group {name} = {number} {{\n{body}{pad}}}\n")
    }

    fn map(&mut self, f: &File, fields: &mut Names, number: u32, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        let name = self.plain_field_name(fields);
        let key = self.pick(MAP_KEYS);
        // Values that hold nothing (prost's `()`), whose entries a reused value must drop.
        if self.rng.chance(10) {
            self.uses_empty = true;
            return format!("{pad}map<{key}, google.protobuf.Empty> {name} = {number};\n");
        }
        let value = match self.pick_type(f) {
            // Map values can't be closed enums in proto3 (filtered) nor where the file's
            // presence is implicit (editions: not tracked here, so never), nor groups (hidden),
            // nor enums whose first value is not 0.
            Some(t)
                if !t.is_enum
                    || (t.values.first().is_some_and(|(_, n)| *n == 0)
                        && !(f.syntax.editions() && t.closed)) =>
            {
                rel(&t.full)
            }
            Some(_) => "int32".to_string(),
            None => self.pick(SCALARS).to_string(),
        };
        format!("{pad}map<{key}, {value}> {name} = {number};\n")
    }

    #[allow(clippy::too_many_arguments)]
    fn oneof(
        &mut self,
        f: &File,
        m: &Decl,
        scope: &mut Names,
        fields: &mut Names,
        numbers: &mut Numbers,
        indent: usize,
    ) -> String {
        let pad = "  ".repeat(indent);
        // Named like a field or type sometimes (prost adds `OneOf` on a clash with a nested
        // type).
        let name = loop {
            let n = if self.rng.chance(40) {
                self.pick(&[
                    "kind", "type", "value", "option", "result", "self_", "o", "body",
                ])
                .to_string()
            } else {
                format!("choice{}", self.rng.below(100))
            };
            if fields.take(&n) {
                break n;
            }
        };
        let mut body = String::new();
        for _ in 0..1 + self.rng.below(4) {
            let number = numbers.next(self.rng);
            if f.syntax == Syntax::Proto2 && self.rng.chance(20) && self.depth < 2 {
                body.push_str(&self.group(f, m, scope, fields, number, indent + 1, ""));
                continue;
            }
            let fname = self.field_name(fields);
            let ty = match self.pick_type(f) {
                Some(t) => rel(&t.full),
                None => self.pick(SCALARS).to_string(),
            };
            let mut options = Vec::new();
            if f.syntax.editions() && !SCALARS.contains(&ty.as_str()) && self.rng.chance(20) {
                // Only messages take message_encoding; enums would be refused.
                if self.types.iter().any(|t| rel(&t.full) == ty && !t.is_enum) {
                    options.push("features.message_encoding = DELIMITED".to_string());
                }
            }
            let options = if options.is_empty() {
                String::new()
            } else {
                format!(" [{}]", options.join(", "))
            };
            body.push_str(&format!("{pad}  {ty} {fname} = {number}{options};\n"));
        }
        format!("{pad}oneof {name} {{\n{body}{pad}}}\n")
    }

    /// `extend` blocks for the extendable messages the file sees, with fields of every kind,
    /// some of a type that leads back to the extendee.
    fn extend_blocks(&mut self, f: &File, scope: &mut Names, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        let extendees: Vec<TypeInfo> = self
            .types
            .iter()
            .filter(|t| t.extension_range.is_some() && t.file <= f.index)
            .cloned()
            .collect();
        let mut out = String::new();
        for t in extendees {
            if !self.rng.chance(60) {
                continue;
            }
            let (lo, hi) = t.extension_range.unwrap();
            let mut body = String::new();
            for _ in 0..1 + self.rng.below(3) {
                let number = if t.message_set {
                    lo + 100 + self.rng.below(100_000) as u32
                } else {
                    lo + self.rng.below(u64::from(hi - lo + 1)) as u32
                };
                // Numbers are unique per extendee across the whole set.
                if (19000..20000).contains(&number) || !ext_number_free(&t.full, number) {
                    continue;
                }
                let name = loop {
                    let n = format!("ext{}", self.rng.below(100_000));
                    if scope.take(&n) {
                        break n;
                    }
                };
                if t.message_set {
                    // MessageSet extensions are optional messages.
                    let msgs: Vec<String> = self
                        .types
                        .iter()
                        .filter(|x| !x.is_enum && !x.hidden && x.file <= f.index && !x.message_set)
                        .map(|x| rel(&x.full))
                        .collect();
                    if msgs.is_empty() {
                        continue;
                    }
                    let ty = msgs[self.rng.below(msgs.len() as u64) as usize].clone();
                    // In editions, length-prefixed whatever the file's encoding (delimited
                    // would make it a group).
                    let (label, options) = if f.syntax.editions() {
                        ("", " [features.message_encoding = LENGTH_PREFIXED]")
                    } else {
                        ("optional ", "")
                    };
                    body.push_str(&format!("{pad}  {label}{ty} {name} = {number}{options};\n"));
                    continue;
                }
                let ty = match self.pick_type(f) {
                    Some(x) if !x.message_set => rel(&x.full),
                    _ => self.pick(SCALARS).to_string(),
                };
                let repeated = self.rng.chance(40);
                let scalar_packable =
                    SCALARS.contains(&ty.as_str()) && ty != "string" && ty != "bytes";
                let enum_ty = self.types.iter().any(|x| x.is_enum && rel(&x.full) == ty);
                let mut options = Vec::new();
                if repeated && (scalar_packable || enum_ty) && self.rng.chance(50) {
                    if f.syntax.editions() {
                        options.push(format!(
                            "features.repeated_field_encoding = {}",
                            self.pick(&["PACKED", "EXPANDED"])
                        ));
                    } else {
                        options.push("packed = true".to_string());
                    }
                }
                let label = if repeated {
                    "repeated "
                } else if f.syntax.editions() {
                    ""
                } else {
                    "optional "
                };
                let options = if options.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", options.join(", "))
                };
                body.push_str(&format!("{pad}  {label}{ty} {name} = {number}{options};\n"));
            }
            if !body.is_empty() {
                out.push_str(&format!("{pad}extend {} {{\n{body}{pad}}}\n", rel(&t.full)));
            }
        }
        out
    }

    fn default_value(&mut self, kind: &Kind, aliases: bool) -> Option<String> {
        Some(match kind {
            Kind::Message => return None,
            Kind::Enum(e) => {
                let (_, number) = &e.values[self.rng.below(e.values.len() as u64) as usize];
                let named = e.values.iter().filter(|(_, n)| n == number);
                let names: Vec<&String> = named.map(|(name, _)| name).collect();
                let pick = if aliases {
                    self.rng.below(names.len() as u64) as usize
                } else {
                    0
                };
                names[pick].clone()
            }
            Kind::Scalar(s) => match *s {
                "double" | "float" => self
                    .pick(&["0", "-0", "1.5", "-2.25e10", "inf", "-inf", "nan", "1e-30"])
                    .to_string(),
                "bool" => self.pick(&["true", "false"]).to_string(),
                "string" => self
                    .pick(&[
                        "\"\"",
                        "\"hello\"",
                        "\"\\303\\251\\n\\\"q\\\"\"",
                        "\"\\x41\\101\"",
                    ])
                    .to_string(),
                "bytes" => self
                    .pick(&["\"\"", "\"\\000\\377\\x10\"", "\"abc\"", "\"\\n\\t\\\\\""])
                    .to_string(),
                "uint32" | "fixed32" => self.pick(&["0", "1", "4294967295"]).to_string(),
                "uint64" | "fixed64" => self.pick(&["0", "7", "18446744073709551615"]).to_string(),
                "int32" | "sint32" | "sfixed32" => self
                    .pick(&["0", "-1", "2147483647", "-2147483648"])
                    .to_string(),
                _ => self
                    .pick(&["0", "-1", "9223372036854775807", "-9223372036854775808"])
                    .to_string(),
            },
        })
    }
}

thread_local! {
    static EXT_NUMBERS: std::cell::RefCell<HashSet<(String, u32)>> = Default::default();
}

/// Whether `number` is still free among the extensions of `extendee` (and takes it).
fn ext_number_free(extendee: &str, number: u32) -> bool {
    EXT_NUMBERS.with(|n| n.borrow_mut().insert((extendee.to_string(), number)))
}

/// Forgets the extension numbers taken (a new set begins).
pub fn reset() {
    EXT_NUMBERS.with(|n| n.borrow_mut().clear());
}

fn self_ok_message_set(_f: &File) -> bool {
    // A MessageSet has no fields of its own; as a field's type it is an ordinary message.
    true
}

enum Item {
    Enum(String),
    Message(Decl),
}

struct Decl {
    name: String,
    full: String,
    message_set: bool,
    extension_range: Option<(u32, u32)>,
}

enum Kind {
    Scalar(&'static str),
    Enum(TypeInfo),
    Message,
}

/// Field numbers of one message: small ones mostly, some from 2048 up (keys of three bytes and
/// more), the largest there is, never in the extension range or 19000-19999.
struct Numbers {
    taken: HashSet<u32>,
    range: Option<(u32, u32)>,
}

impl Numbers {
    fn new(range: Option<(u32, u32)>) -> Self {
        Numbers {
            taken: HashSet::new(),
            range,
        }
    }

    fn next(&mut self, rng: &mut Rng) -> u32 {
        loop {
            let n = match rng.below(10) {
                0 => 2048 + rng.below(100_000) as u32,
                1 => [15, 16, 127, 128, 2047, 536_870_911, 262_143][rng.below(7) as usize],
                _ => 1 + rng.below(40) as u32,
            };
            let in_range = self.range.is_some_and(|(lo, hi)| (lo..=hi).contains(&n));
            if !in_range
                && !(19000..20000).contains(&n)
                && !(15000..=15010).contains(&n)
                && self.taken.insert(n)
            {
                return n;
            }
        }
    }
}

/// A fully-qualified reference, as a field's type.
fn rel(full: &str) -> String {
    full.to_string()
}

/// The field name a nested type's lower-cased name makes.
fn to_field(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    // A field can't have the very name of a type in the same scope.
    if lower == name {
        format!("{lower}_")
    } else {
        lower
    }
}

fn indent_text(text: &str, indent: usize) -> String {
    let pad = "  ".repeat(indent);
    text.lines().map(|l| format!("{pad}{l}\n")).collect()
}
