//! Rust tokens to source text, in one pass over the tokens.
//!
//! The generator builds its code as token streams; this module writes them out as readable
//! source: one statement, field, match arm or attribute a line, four spaces per open brace,
//! spaces where rustfmt would put them. It knows only the shapes the generator emits (a parse
//! and a pretty-printer over the whole output cost several times what generating it does), and
//! it writes no line breaks for width: lines are as long as their statement.

use std::fmt::{Display, Write as _};

use proc_macro2::{Delimiter, Ident, Literal, Spacing, TokenStream, TokenTree};

/// Writes `tokens` as source text.
#[cfg(test)]
pub(crate) fn print(tokens: TokenStream) -> String {
    let mut out = String::new();
    print_to(tokens, &mut out);
    out
}

/// Appends `tokens` to `out` as source text (items at the top level).
pub(crate) fn print_to(tokens: TokenStream, out: &mut String) {
    let mut atoms = Vec::new();
    flatten(tokens, &mut atoms);
    if atoms.is_empty() {
        return;
    }
    let mut p = Printer {
        out: std::mem::take(out),
        indent: 0,
        groups: vec![Group::new(Delimiter::Brace)],
        prev: Prev::Start,
        line_break: false,
        scratch: String::new(),
    };
    let mut i = 0;
    while i < atoms.len() {
        i = p.atom(&atoms, i);
    }
    if !p.out.ends_with('\n') {
        p.out.push('\n');
    }
    *out = p.out;
}

/// A token with its groups opened and closed in line.
#[derive(Debug)]
enum Atom {
    Word(Ident),
    Lit(Literal),
    Punct(char, Spacing),
    Open(Delimiter),
    Close(Delimiter),
}

fn flatten(tokens: TokenStream, out: &mut Vec<Atom>) {
    for t in tokens {
        match t {
            TokenTree::Ident(i) => out.push(Atom::Word(i)),
            TokenTree::Literal(l) => out.push(Atom::Lit(l)),
            TokenTree::Punct(p) => out.push(Atom::Punct(p.as_char(), p.spacing())),
            TokenTree::Group(g) if g.delimiter() == Delimiter::None => flatten(g.stream(), out),
            TokenTree::Group(g) => {
                out.push(Atom::Open(g.delimiter()));
                flatten(g.stream(), out);
                out.push(Atom::Close(g.delimiter()));
            }
        }
    }
}

/// An open group: its delimiter, the generic `<` opened in it (each: whether it follows
/// `impl`), and whether a closure's parameter list is open in it.
struct Group {
    delimiter: Delimiter,
    generics: Vec<bool>,
    closure: bool,
    /// The group opened right after `#` or `#!`: an attribute, a line of its own.
    attribute: bool,
    /// The commas written in it so far.
    commas: usize,
}

impl Group {
    fn new(delimiter: Delimiter) -> Self {
        Group {
            delimiter,
            generics: Vec::new(),
            closure: false,
            attribute: false,
            commas: 0,
        }
    }
}

/// What was written last, as far as spacing is concerned.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Prev {
    Start,
    /// An identifier that ends a value or type (not a keyword), a literal, a lifetime.
    Value,
    /// A keyword that starts something (`let`, `if`, `as`, `mut`, ...).
    Keyword,
    /// `(`, `[`, `{` just opened.
    Open,
    /// `)` or `]`.
    CloseValue,
    /// `}`.
    CloseBrace,
    /// A binary operator or `=`, `,`, `;`, `:`, `=>`, `->`: a space follows.
    Spaced,
    /// Prefix punctuation glued to what follows: unary `&`, `*`, `-`, `!`, `#`, a macro's `!`,
    /// `.`, `..`, `::`, a generic `<`, a closure's opening `|`.
    Glued,
    /// A generic's `>`.
    GenericClose {
        after_impl: bool,
    },
    /// `?`.
    Question,
}

struct Printer {
    out: String,
    indent: usize,
    groups: Vec<Group>,
    prev: Prev,
    /// A line ends before the next token (after `;`, `,` in braces, `}`, an attribute).
    line_break: bool,
    /// Room to spell an identifier in.
    scratch: String,
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "type", "unsafe", "use", "where", "while",
];

/// Whether `word` is one of [`KEYWORDS`]; `scratch` holds its text (no allocation once grown).
fn is_keyword(word: &Ident, scratch: &mut String) -> bool {
    scratch.clear();
    let _ = write!(scratch, "{word}");
    // Keywords are short and lowercase; most identifiers are neither.
    scratch.len() <= 8
        && scratch.starts_with(|c: char| c.is_ascii_lowercase())
        && KEYWORDS.contains(&scratch.as_str())
}

/// Operators of more than one character, longest first.
const OPERATORS: &[&str] = &[
    "<<=", ">>=", "..=", "...", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "..",
];

impl Printer {
    fn group(&mut self) -> &mut Group {
        self.groups
            .last_mut()
            .expect("the outermost group is never closed")
    }

    fn in_braces(&self) -> bool {
        self.groups.last().map(|g| g.delimiter) == Some(Delimiter::Brace)
    }

    /// Starts a new line at the current indentation.
    fn newline(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.line_break = false;
    }

    /// Writes `text`, after a line break or a space as the previous token asks.
    fn write(&mut self, text: impl Display, space: bool) {
        if self.line_break || self.out.is_empty() {
            self.newline();
        } else if space {
            self.out.push(' ');
        }
        // Writing to a `String` does not fail.
        let _ = write!(self.out, "{text}");
    }

    /// Whether a word or an opening token takes a space after the previous token.
    fn space_before_word(&self) -> bool {
        matches!(
            self.prev,
            Prev::Value
                | Prev::Keyword
                | Prev::CloseValue
                | Prev::CloseBrace
                | Prev::Spaced
                | Prev::GenericClose { .. }
                | Prev::Question
        )
    }

    fn value_ended(&self) -> bool {
        matches!(
            self.prev,
            Prev::Value | Prev::CloseValue | Prev::GenericClose { .. } | Prev::Question
        )
    }

    /// Writes the atom at `i`; returns the index of the next one.
    fn atom(&mut self, atoms: &[Atom], i: usize) -> usize {
        match &atoms[i] {
            Atom::Word(w) => {
                let after_close_brace = self.prev == Prev::CloseBrace;
                if after_close_brace && *w == "else" {
                    self.line_break = false;
                }
                let space = self.space_before_word();
                self.write(w, space);
                self.prev = if is_keyword(w, &mut self.scratch) {
                    Prev::Keyword
                } else {
                    Prev::Value
                };
                i + 1
            }
            Atom::Lit(l) => {
                let space = self.space_before_word();
                self.write(l, space);
                self.prev = Prev::Value;
                i + 1
            }
            Atom::Open(d) => {
                self.open(*d, atoms, i);
                i + 1
            }
            Atom::Close(d) => {
                self.close(*d);
                i + 1
            }
            Atom::Punct(..) => self.punct(atoms, i),
        }
    }

    fn open(&mut self, d: Delimiter, atoms: &[Atom], i: usize) {
        let after_pub =
            matches!(i.checked_sub(1).map(|j| &atoms[j]), Some(Atom::Word(w)) if *w == "pub");
        let after_hash = matches!(
            i.checked_sub(1).map(|j| &atoms[j]),
            Some(Atom::Punct('#' | '!', _))
        ) && self.prev == Prev::Glued;
        // `&'static [T]`: a type after a lifetime, never an index.
        let after_lifetime = i >= 2 && matches!(atoms[i - 2], Atom::Punct('\'', _));
        let space = match d {
            Delimiter::Brace => !matches!(self.prev, Prev::Open | Prev::Start | Prev::Glued),
            _ if after_lifetime => true,
            _ => match self.prev {
                Prev::Keyword => !after_pub,
                Prev::Spaced | Prev::CloseBrace => true,
                _ => false,
            },
        };
        let text = match d {
            Delimiter::Parenthesis => "(",
            Delimiter::Bracket => "[",
            _ => "{",
        };
        self.write(text, space);
        let mut group = Group::new(d);
        group.attribute = d == Delimiter::Bracket && after_hash;
        self.groups.push(group);
        self.prev = Prev::Open;
        if d == Delimiter::Brace {
            let empty = matches!(atoms.get(i + 1), Some(Atom::Close(Delimiter::Brace)));
            if !empty {
                self.indent += 1;
                self.line_break = true;
            }
        }
    }

    fn close(&mut self, d: Delimiter) {
        let group = self.groups.pop().expect("groups are balanced");
        match d {
            Delimiter::Brace => {
                if self.prev != Prev::Open {
                    self.indent -= 1;
                    self.newline();
                }
                self.out.push('}');
                self.prev = Prev::CloseBrace;
                self.line_break = true;
            }
            _ => {
                self.line_break = false;
                self.out
                    .push(if d == Delimiter::Bracket { ']' } else { ')' });
                self.prev = Prev::CloseValue;
                if group.attribute && self.in_braces() {
                    self.line_break = true;
                    self.prev = Prev::Start;
                }
            }
        }
    }

    /// Writes the operator starting at `i` (a run of joint punctuation, split into Rust's
    /// operators); returns the index after it.
    fn punct(&mut self, atoms: &[Atom], i: usize) -> usize {
        match (&atoms[i], atoms.get(i + 1)) {
            (Atom::Punct('\'', _), Some(Atom::Word(name))) => {
                // A lifetime.
                let space = self.space_before_word();
                self.write(format!("'{name}"), space);
                self.prev = Prev::Value;
                return i + 2;
            }
            (Atom::Punct('#', _), _) => {
                if let Some(text) = doc_comment(&atoms[i..]) {
                    self.write(format!("///{text}"), false);
                    self.line_break = true;
                    self.prev = Prev::Start;
                    return i + 6;
                }
            }
            _ => {}
        }
        // Operators are at most three characters, and punctuation is ASCII: no allocation.
        let mut buf = [0u8; 3];
        let mut len = 0;
        let mut j = i;
        while let Some(Atom::Punct(c, spacing)) = atoms.get(j) {
            if len < buf.len() && c.is_ascii() {
                buf[len] = *c as u8;
                len += 1;
            }
            j += 1;
            if *spacing == Spacing::Alone || *c == '\'' {
                break;
            }
        }
        let run = std::str::from_utf8(&buf[..len]).unwrap_or("");
        let op = OPERATORS
            .iter()
            .find(|op| run.starts_with(**op))
            .copied()
            .unwrap_or(&run[..len.min(1)]);
        // In a generic argument list, `>>` closes two lists.
        let op = if op.starts_with('>') && !self.group().generics.is_empty() {
            ">"
        } else if op == "<<" && !self.value_ended() {
            "<"
        } else {
            op
        };
        let next = i + op.len().max(1);
        self.operator(op, atoms, next);
        next
    }

    fn operator(&mut self, op: &str, atoms: &[Atom], next: usize) {
        if self.prev == Prev::CloseBrace && matches!(op, "," | ";" | "." | "?" | "..") {
            self.line_break = false;
        }
        let value_ended = self.value_ended();
        let next_opens = matches!(atoms.get(next), Some(Atom::Open(_)));
        match op {
            "," if self.group().commas > 0
                && matches!(
                    atoms.get(next),
                    Some(Atom::Close(Delimiter::Parenthesis | Delimiter::Bracket))
                ) =>
            {
                // A trailing comma in a list (not a one-element tuple's): dropped.
            }
            "," | ";" => {
                self.line_break = false;
                self.out.push_str(op);
                if op == "," {
                    self.group().commas += 1;
                }
                let in_braces = self.in_braces();
                let in_list = self.group().closure || !self.group().generics.is_empty();
                if in_braces && !in_list {
                    self.line_break = true;
                    self.prev = Prev::Start;
                } else {
                    self.prev = Prev::Spaced;
                }
            }
            ":" => {
                self.write(":", false);
                self.prev = Prev::Spaced;
            }
            "?" => {
                self.write("?", false);
                self.prev = Prev::Question;
            }
            "." | ".." | "..=" => {
                let space = op != "." && matches!(self.prev, Prev::Spaced | Prev::Keyword);
                self.write(op, space);
                self.prev = Prev::Glued;
            }
            "::" => {
                let space = match self.prev {
                    Prev::Keyword | Prev::Spaced | Prev::CloseBrace => true,
                    Prev::GenericClose { after_impl } => after_impl,
                    _ => false,
                };
                self.write("::", space);
                self.prev = Prev::Glued;
            }
            "#" => {
                let space = self.space_before_word();
                self.write("#", space);
                self.prev = Prev::Glued;
            }
            "!" if self.prev == Prev::Glued && self.out.ends_with('#') => {
                self.write("!", false);
                self.prev = Prev::Glued;
            }
            "!" if self.prev == Prev::Value && next_opens => {
                // A macro call.
                self.write("!", false);
                self.prev = Prev::Glued;
            }
            "<" if !value_ended || self.generic_after_word() => {
                let after_impl = self.out.ends_with("impl");
                let space = matches!(self.prev, Prev::Keyword | Prev::Spaced) && !after_impl;
                self.write("<", space);
                self.group().generics.push(after_impl);
                self.prev = Prev::Glued;
            }
            ">" if !self.group().generics.is_empty() => {
                let after_impl = self.group().generics.pop().unwrap_or(false);
                self.write(">", false);
                self.prev = Prev::GenericClose { after_impl };
            }
            "|" | "||" if !value_ended && !self.group().closure => {
                // A closure's parameters (`||`: none).
                let space = self.space_before_word();
                self.write(op, space);
                if op == "|" {
                    self.group().closure = true;
                    self.prev = Prev::Glued;
                } else {
                    self.prev = Prev::Spaced;
                }
            }
            "|" if self.group().closure => {
                self.write("|", false);
                self.group().closure = false;
                self.prev = Prev::Spaced;
            }
            "&" | "&&" | "*" | "-" | "!" if !value_ended => {
                let space = self.space_before_word();
                self.write(op, space);
                self.prev = Prev::Glued;
            }
            _ => {
                // A binary operator, `=`, `=>`, `->`.
                let space = !matches!(self.prev, Prev::Open | Prev::Start | Prev::Glued);
                self.write(op, space);
                self.prev = Prev::Spaced;
            }
        }
    }

    /// Whether a `<` after a value-like word opens generics: after a type name (capitalized)
    /// or `fn name`.
    fn generic_after_word(&self) -> bool {
        if self.prev != Prev::Value {
            return false;
        }
        let line = self.out.rsplit('\n').next().unwrap_or("");
        let word = line
            .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let before = line[..line.len() - word.len()].trim_end();
        word.starts_with(|c: char| c.is_ascii_uppercase()) || before.ends_with("fn")
    }
}

/// The text of `#[doc = "..."]` at the start of `atoms`, when it is one line.
fn doc_comment(atoms: &[Atom]) -> Option<String> {
    let [Atom::Punct('#', _), Atom::Open(Delimiter::Bracket), Atom::Word(doc), Atom::Punct('=', _), Atom::Lit(lit), Atom::Close(Delimiter::Bracket), ..] =
        atoms
    else {
        return None;
    };
    if *doc != "doc" {
        return None;
    }
    let lit = lit.to_string();
    unescape(lit.strip_prefix('"')?.strip_suffix('"')?).filter(|t| !t.contains(['\n', '\r']))
}

/// The value of a string literal's body as `proc_macro2` writes it; `None` for what it does not.
fn unescape(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '0' => '\0',
            c @ ('\\' | '"' | '\'') => c,
            'u' => {
                let rest = chars.as_str().strip_prefix('{')?;
                let end = rest.find('}')?;
                let c = char::from_u32(u32::from_str_radix(&rest[..end], 16).ok()?)?;
                chars = rest[end + 1..].chars();
                c
            }
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn items_statements_and_spacing() {
        let tokens = quote! {
            #[doc = " A \"quoted\" doc."]
            impl<'a> ::vtproto::Message for Thing<'a> {
                const NAME: &'static str = "x";
                const FIELDS: &'static [(u32, &'static str)] = &[(1, "id")];
                #[inline]
                fn size(&self) -> usize {
                    let mut n = 0usize;
                    if !self.id.is_empty() && n >= 2 {
                        n += 1 + ::vtproto::wire::len_delimited(self.id.len());
                    } else {
                        n = -1;
                    }
                    for (k, v) in &self.map {
                        f(k, |r, v: &mut ::std::vec::Vec<Option<u8>>| {
                            r.merge(v)?;
                            Ok(())
                        },)?;
                    }
                    let t: Result<(), E> = g((1,), (2, 3,));
                    match key >> 3 {
                        1 | 2 => {}
                        _ => return <Self as ::vtproto::Message>::NAME.len(),
                    }
                    let a: [u8; 4] = [0; 4];
                    (|| *a)();
                    matches!(x, 1..=3)
                }
            }
        };
        let expected = r#"/// A "quoted" doc.
impl<'a> ::vtproto::Message for Thing<'a> {
    const NAME: &'static str = "x";
    const FIELDS: &'static [(u32, &'static str)] = &[(1, "id")];
    #[inline]
    fn size(&self) -> usize {
        let mut n = 0usize;
        if !self.id.is_empty() && n >= 2 {
            n += 1 + ::vtproto::wire::len_delimited(self.id.len());
        } else {
            n = -1;
        }
        for (k, v) in &self.map {
            f(k, |r, v: &mut ::std::vec::Vec<Option<u8>>| {
                r.merge(v)?;
                Ok(())
            })?;
        }
        let t: Result<(), E> = g((1,), (2, 3));
        match key >> 3 {
            1 | 2 => {}
            _ => return <Self as ::vtproto::Message>::NAME.len(),
        }
        let a: [u8; 4] = [0; 4];
        (|| *a)();
        matches!(x, 1..=3)
    }
}
"#;
        assert_eq!(print(tokens), expected);
    }

    #[test]
    fn unescapes_what_proc_macro2_escapes() {
        assert_eq!(
            unescape(r#"a\"b\\c\u{1f600}\t"#).as_deref(),
            Some("a\"b\\c\u{1f600}\t")
        );
        assert_eq!(unescape(r"\x41"), None);
    }
}
