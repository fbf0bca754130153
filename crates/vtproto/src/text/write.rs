//! [`TextWriter`]: the output side of generated `write_text` code. Field names arrive as
//! literals; values are formatted straight into one `String` (integers with `itoa`, floats
//! shortest round-trip with `zmij`, strings and bytes escaped as C++ and Python escape them),
//! on one line or one field per line. Unknown fields are printed by number from their bytes.

use super::EncodeOptions;
use crate::prelude::*;
use crate::wire::WireType;

/// Writes the text format for generated code; see the [module docs](crate::text).
pub struct TextWriter<'o> {
    out: &'o mut String,
    options: &'o EncodeOptions<'o>,
    /// Messages open, for indentation.
    depth: usize,
    /// Nothing was written yet in the message open (single-line output needs no space).
    first: bool,
}

impl<'o> TextWriter<'o> {
    /// A writer appending to `out`.
    pub fn new(out: &'o mut String, options: &'o EncodeOptions<'o>) -> Self {
        TextWriter {
            out,
            options,
            depth: 0,
            first: true,
        }
    }

    /// The options of this call.
    #[inline]
    pub fn options(&self) -> &EncodeOptions<'o> {
        self.options
    }

    fn start(&mut self) {
        if self.options.pretty {
            if !self.first || self.depth > 0 {
                self.out.push('\n');
            }
            for _ in 0..self.depth {
                self.out.push_str("  ");
            }
        } else if !self.first || self.depth > 0 {
            self.out.push(' ');
        }
        self.first = false;
    }

    /// `name: `, the start of a scalar field's value.
    pub fn field(&mut self, name: &str) {
        self.start();
        self.out.push_str(name);
        self.out.push_str(": ");
    }

    /// `name {`, the start of a message value.
    pub fn begin_message(&mut self, name: &str) {
        self.start();
        self.out.push_str(name);
        self.out.push_str(" {");
        self.depth += 1;
        self.first = true;
    }

    /// `}`.
    pub fn end_message(&mut self) {
        self.depth -= 1;
        if self.options.pretty {
            if !self.first {
                self.out.push('\n');
                for _ in 0..self.depth {
                    self.out.push_str("  ");
                }
            }
        } else {
            self.out.push(' ');
        }
        self.out.push('}');
        self.first = false;
    }

    /// A `bool`.
    pub fn bool(&mut self, v: bool) {
        self.out.push_str(if v { "true" } else { "false" });
    }

    /// A signed 32-bit integer.
    pub fn i32(&mut self, v: i32) {
        self.out.push_str(itoa::Buffer::new().format(v));
    }

    /// An unsigned 32-bit integer.
    pub fn u32(&mut self, v: u32) {
        self.out.push_str(itoa::Buffer::new().format(v));
    }

    /// A signed 64-bit integer.
    pub fn i64(&mut self, v: i64) {
        self.out.push_str(itoa::Buffer::new().format(v));
    }

    /// An unsigned 64-bit integer.
    pub fn u64(&mut self, v: u64) {
        self.out.push_str(itoa::Buffer::new().format(v));
    }

    /// A `double`: the shortest decimal that reads back to it; `inf`, `-inf`, `nan`.
    pub fn f64(&mut self, v: f64) {
        if v.is_finite() {
            self.out.push_str(zmij::Buffer::new().format_finite(v));
        } else {
            self.out.push_str(non_finite(v.is_nan(), v > 0.0));
        }
    }

    /// A `float`: the shortest decimal that reads back to it as a `float`.
    pub fn f32(&mut self, v: f32) {
        if v.is_finite() {
            self.out.push_str(zmij::Buffer::new().format_finite(v));
        } else {
            self.out.push_str(non_finite(v.is_nan(), v > 0.0));
        }
    }

    /// A `string`, quoted; UTF-8 kept, quotes, backslashes and control characters escaped.
    pub fn str(&mut self, v: &str) {
        self.out.push('"');
        for c in v.chars() {
            match c {
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '"' => self.out.push_str("\\\""),
                '\'' => self.out.push_str("\\'"),
                '\\' => self.out.push_str("\\\\"),
                c if (c as u32) < 0x20 || c == '\x7f' => octal(self.out, c as u8),
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// A `bytes` value, quoted; printable ASCII kept, every other byte escaped.
    pub fn bytes(&mut self, v: &[u8]) {
        self.out.push('"');
        escape_bytes(v, self.out);
        self.out.push('"');
    }

    /// An enum value: its name if the enum declares the number, else the number.
    pub fn enum_value(&mut self, number: i32, name: Option<&str>) {
        match name {
            Some(name) => self.out.push_str(name),
            None => self.i32(number),
        }
    }

    /// Unknown fields (kept bytes), by number, when [`EncodeOptions::print_unknown_fields`]
    /// asks for them: varints as numbers, fixed widths in hex, a length-delimited field as a
    /// message when it parses as one, else as bytes; groups as messages.
    pub fn unknown_fields(&mut self, bytes: &[u8]) {
        // Kept bytes are well formed (checked first, so that nothing half is written).
        if self.options.print_unknown_fields
            && !bytes.is_empty()
            && self.print_unknown(bytes, true, UNKNOWN_NESTING)
        {
            self.print_unknown(bytes, false, UNKNOWN_NESTING);
        }
    }

    /// Prints `bytes` as fields; `false` (and nothing written) if they do not parse.
    /// Length-delimited fields are tried as messages `nesting` levels deep, then printed as
    /// bytes (as C++ does, ten levels): a few bytes a level must not nest the output, or the
    /// stack, without bound.
    fn print_unknown(&mut self, bytes: &[u8], dry_run: bool, nesting: u32) -> bool {
        let mut r = crate::Reader::new(bytes);
        // Group depth, for nested groups' ends.
        let mut groups: Vec<u32> = Vec::new();
        while !r.is_empty() {
            let Ok(key) = r.read_key() else {
                return false;
            };
            let number = key >> 3;
            let mut number_buf = itoa::Buffer::new();
            let number_text = number_buf.format(number);
            let Some(wire_type) = WireType::of_key(key) else {
                return false;
            };
            match wire_type {
                WireType::Varint => {
                    let Ok(v) = r.read_varint() else {
                        return false;
                    };
                    if !dry_run {
                        self.field(number_text);
                        self.u64(v);
                    }
                }
                WireType::Fixed32 => {
                    let Ok(v) = r.read_fixed32() else {
                        return false;
                    };
                    if !dry_run {
                        self.field(number_text);
                        self.hex(u64::from(v), 8);
                    }
                }
                WireType::Fixed64 => {
                    let Ok(v) = r.read_fixed64() else {
                        return false;
                    };
                    if !dry_run {
                        self.field(number_text);
                        self.hex(v, 16);
                    }
                }
                WireType::LengthDelimited => {
                    let Ok(v) = r.read_len_delimited() else {
                        return false;
                    };
                    if dry_run {
                        continue;
                    }
                    if !v.is_empty() && nesting > 0 && self.print_unknown(v, true, nesting - 1) {
                        self.begin_message(number_text);
                        self.print_unknown(v, false, nesting - 1);
                        self.end_message();
                    } else {
                        self.field(number_text);
                        self.bytes(v);
                    }
                }
                WireType::StartGroup => {
                    groups.push(number);
                    if !dry_run {
                        self.begin_message(number_text);
                    }
                }
                WireType::EndGroup => {
                    if groups.pop() != Some(number) {
                        return false;
                    }
                    if !dry_run {
                        self.end_message();
                    }
                }
            }
        }
        groups.is_empty()
    }

    /// `0x` and `v` in `digits` lowercase hex digits (an unknown fixed-width field).
    fn hex(&mut self, v: u64, digits: u32) {
        self.out.push_str("0x");
        for i in (0..digits).rev() {
            let d = ((v >> (4 * i)) & 15) as u32;
            self.out.push(char::from_digit(d, 16).unwrap_or('0'));
        }
    }

    /// Messages open.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// Where the writer is, to go back to with [`reset`](Self::reset).
    pub(crate) fn mark(&self) -> (usize, usize, bool) {
        (self.out.len(), self.depth, self.first)
    }

    /// Drops what was written since `mark`.
    pub(crate) fn reset(&mut self, (len, depth, first): (usize, usize, bool)) {
        self.out.truncate(len);
        self.depth = depth;
        self.first = first;
    }
}

/// How many levels of length-delimited unknown fields print as messages.
const UNKNOWN_NESTING: u32 = 10;

fn non_finite(nan: bool, positive: bool) -> &'static str {
    match (nan, positive) {
        (true, _) => "nan",
        (false, true) => "inf",
        (false, false) => "-inf",
    }
}

fn octal(out: &mut String, b: u8) {
    out.push('\\');
    out.push(char::from(b'0' + (b >> 6)));
    out.push(char::from(b'0' + ((b >> 3) & 7)));
    out.push(char::from(b'0' + (b & 7)));
}

/// C-escapes `v` into `out` (without quotes).
pub(crate) fn escape_bytes(v: &[u8], out: &mut String) {
    for &b in v {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => octal(out, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(options: &EncodeOptions<'_>, f: impl FnOnce(&mut TextWriter<'_>)) -> String {
        let mut out = String::new();
        f(&mut TextWriter::new(&mut out, options));
        out
    }

    fn sample(w: &mut TextWriter<'_>) {
        w.field("a");
        w.i32(-1);
        w.begin_message("m");
        w.field("s");
        w.str("q\"\n\u{1}é");
        w.begin_message("e");
        w.end_message();
        w.end_message();
        w.field("b");
        w.bytes(b"\x00\xffA'");
        w.field("d");
        w.f64(f64::NEG_INFINITY);
    }

    #[test]
    fn one_line_and_pretty() {
        let one = with(&EncodeOptions::default(), sample);
        assert_eq!(
            one,
            r#"a: -1 m { s: "q\"\n\001é" e { } } b: "\000\377A\'" d: -inf"#
        );
        let pretty = with(
            &EncodeOptions {
                pretty: true,
                ..Default::default()
            },
            sample,
        );
        assert_eq!(
            pretty,
            "a: -1\nm {\n  s: \"q\\\"\\n\\001é\"\n  e {}\n}\nb: \"\\000\\377A\\'\"\nd: -inf"
        );
    }

    #[test]
    fn unknown_fields_by_number() {
        let options = EncodeOptions {
            print_unknown_fields: true,
            ..Default::default()
        };
        // 1: varint 150; 2: "hi" (not a message); 3: a message {1: 1}; 4: fixed32; 5: group.
        let bytes = [
            0x08, 0x96, 0x01, 0x12, 0x02, 0xff, b'z', 0x1a, 0x02, 0x08, 0x01, 0x25, 1, 0, 0, 0,
            0x2b, 0x08, 0x02, 0x2c,
        ];
        let text = with(&options, |w| w.unknown_fields(&bytes));
        assert_eq!(
            text,
            r#"1: 150 2: "\377z" 3 { 1: 1 } 4: 0x00000001 5 { 1: 2 }"#
        );
        assert_eq!(
            with(&EncodeOptions::default(), |w| w.unknown_fields(&bytes)),
            ""
        );
    }
}
