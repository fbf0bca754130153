//! [`TextReader`]: the input side of generated `merge_text` code. It owns the text: the
//! tokens (names, numbers in every form the format has, quoted strings with their escapes,
//! symbols), comments and separators, the delimiters of nested messages and lists. Generated
//! code matches field names and calls one typed read per value; the reader never sees a
//! message it was not handed.

use alloc::borrow::Cow;

use super::{DecodeOptions, TextError, TextErrorKind};
use crate::prelude::*;

/// Reads the text format for generated code; see the [module docs](crate::text).
pub struct TextReader<'a, 'o> {
    s: &'a [u8],
    pos: usize,
    options: &'o DecodeOptions<'o>,
    /// The closing delimiter (`}` or `>`) of each message open, innermost last.
    closers: Vec<u8>,
    /// Closed enums take any number, as prost's structs hold any (reflection over them).
    pub(crate) open_enums: bool,
    /// What the decode may still allocate (see [`DecodeLimits`](crate::DecodeLimits)).
    budget: crate::limits::Budget,
}

/// The values of one field occurrence: one value, or a `[a, b]` list of them.
#[derive(Debug)]
pub struct Items {
    list: bool,
    started: bool,
}

impl Items {
    /// Whether another value follows (read it next).
    pub fn next(&mut self, r: &mut TextReader<'_, '_>) -> Result<bool, TextError> {
        if !self.list {
            let first = !self.started;
            self.started = true;
            return Ok(first);
        }
        r.skip_space();
        if r.peek() == Some(b']') {
            r.pos += 1;
            return Ok(false);
        }
        if self.started {
            r.expect(b',', "`,` or `]`")?;
        }
        self.started = true;
        Ok(true)
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A number token, classified.
enum Number<'a> {
    /// An integer in decimal, hex (`0x`) or octal (leading `0`): its value, or `None` past
    /// `u64`; and whether it is decimal.
    Int(Option<u64>, bool, &'a str),
    /// A float literal (a `.`, an exponent or an `f` suffix), suffix removed.
    Float(&'a str),
}

impl<'a, 'o> TextReader<'a, 'o> {
    /// A reader over `text`.
    pub fn new(text: &'a str, options: &'o DecodeOptions<'o>) -> Self {
        TextReader {
            s: text.as_bytes(),
            pos: 0,
            options,
            closers: Vec::new(),
            open_enums: false,
            budget: crate::limits::Budget::new(&options.limits, text.len()),
        }
    }

    crate::limits::charge_helpers!(TextError, TextErrorKind, s);

    /// The options of this call.
    #[inline]
    pub fn options(&self) -> &DecodeOptions<'o> {
        self.options
    }

    /// An error of `kind` at the current position.
    #[cold]
    #[inline(never)]
    pub fn error(&self, kind: TextErrorKind) -> TextError {
        self.error_at(self.pos, kind)
    }

    #[cold]
    #[inline(never)]
    fn error_at(&self, pos: usize, kind: TextErrorKind) -> TextError {
        let (line, column) = crate::registry::line_column(self.s, pos);
        TextError::at(kind, line, column)
    }

    #[cold]
    fn syntax(&self, expected: &'static str) -> TextError {
        self.error(TextErrorKind::Syntax { expected })
    }

    /// The error for a singular field or a oneof set twice.
    #[cold]
    pub fn duplicate(&self) -> TextError {
        self.error(TextErrorKind::DuplicateField)
    }

    /// The error for a name that is no field.
    #[cold]
    pub fn unknown_field(&self, name: &str) -> TextError {
        self.error(TextErrorKind::UnknownField { name: name.into() })
    }

    /// A name that is no field of the message: its value skipped when the options ignore
    /// unknown fields ([`DecodeOptions::ignore_unknown_fields`]), else the error.
    #[cold]
    pub fn skip_unknown_field(&mut self, name: &str) -> Result<(), TextError> {
        if self.options.ignore_unknown_fields {
            self.skip_field()?;
            self.end_field();
            Ok(())
        } else {
            Err(self.unknown_field(name))
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    /// Skips whitespace and `#` comments.
    fn skip_space(&mut self) {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => self.pos += 1,
                b'#' => {
                    while let Some(b) = self.peek() {
                        self.pos += 1;
                        if b == b'\n' {
                            break;
                        }
                    }
                }
                _ => break,
            }
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.skip_space();
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, b: u8, what: &'static str) -> Result<(), TextError> {
        if self.eat(b) {
            Ok(())
        } else {
            Err(self.syntax(what))
        }
    }

    fn ident(&mut self) -> Option<&'a str> {
        self.skip_space();
        let start = self.pos;
        if !self.peek().is_some_and(is_ident_start) {
            return None;
        }
        while self.peek().is_some_and(is_ident) {
            self.pos += 1;
        }
        // Only ASCII was consumed.
        core::str::from_utf8(&self.s[start..self.pos]).ok()
    }

    /// The next field's name, or `None` at the end of the message being read (its closing
    /// delimiter, consumed, or the end of the input at the top level). An extension or an
    /// `Any`'s type URL comes bracketed and without spaces: `[pkg.ext]`,
    /// `[type.googleapis.com/pkg.Msg]`.
    pub fn next_field(&mut self) -> Result<Option<Cow<'a, str>>, TextError> {
        self.skip_space();
        let Some(b) = self.peek() else {
            return if self.closers.is_empty() {
                Ok(None)
            } else {
                Err(self.syntax("a field name or the end of the message"))
            };
        };
        if self.closers.last() == Some(&b) {
            self.pos += 1;
            self.closers.pop();
            return Ok(None);
        }
        if b == b'[' {
            self.pos += 1;
            let mut name = String::from("[");
            let mut want_part = true;
            loop {
                self.skip_space();
                match self.peek() {
                    Some(b']') if !want_part => {
                        self.pos += 1;
                        name.push(']');
                        return Ok(Some(Cow::Owned(name)));
                    }
                    Some(sep @ (b'.' | b'/')) if !want_part => {
                        self.pos += 1;
                        name.push(char::from(sep));
                        want_part = true;
                    }
                    _ if want_part => match self.ident() {
                        Some(part) => {
                            name.push_str(part);
                            want_part = false;
                        }
                        None => return Err(self.syntax("an extension or type name")),
                    },
                    _ => return Err(self.syntax("`]`")),
                }
            }
        }
        match self.ident() {
            Some(name) => Ok(Some(Cow::Borrowed(name))),
            None => Err(self.syntax("a field name")),
        }
    }

    /// After a field's value: an optional `;` or `,`.
    #[inline]
    pub fn end_field(&mut self) {
        if !self.eat(b';') {
            self.eat(b',');
        }
    }

    /// The `:` after a scalar field's name, then its values.
    pub fn scalar_items(&mut self) -> Result<Items, TextError> {
        self.expect(b':', "`:`")?;
        Ok(Items {
            list: self.eat(b'['),
            started: false,
        })
    }

    /// The optional `:` after a message field's name, then its messages.
    pub fn message_items(&mut self) -> Result<Items, TextError> {
        self.eat(b':');
        Ok(Items {
            list: self.eat(b'['),
            started: false,
        })
    }

    /// The optional `:` after a message field's name (a singular message field; a list is
    /// refused).
    pub fn message_colon(&mut self) {
        self.eat(b':');
    }

    /// The `:` after a singular scalar field's name.
    pub fn colon(&mut self) -> Result<(), TextError> {
        self.expect(b':', "`:`")
    }

    /// Opens a message value: `{` or `<`. Its fields are read next, up to the closing
    /// delimiter (which [`next_field`](Self::next_field) consumes).
    pub fn begin_message(&mut self) -> Result<(), TextError> {
        self.skip_space();
        let close = match self.peek() {
            Some(b'{') => b'}',
            Some(b'<') => b'>',
            _ => return Err(self.syntax("`{` or `<`")),
        };
        if self.closers.len() >= self.options.limits.recursion_limit as usize {
            return Err(self.error(TextErrorKind::RecursionLimitExceeded));
        }
        self.pos += 1;
        self.closers.push(close);
        Ok(())
    }

    /// Skips a field's value after its name (a reserved name): a scalar, a list, or a message.
    pub fn skip_field(&mut self) -> Result<(), TextError> {
        let colon = self.eat(b':');
        self.skip_space();
        match self.peek() {
            Some(b'{' | b'<') => self.skip_message(),
            _ if colon => self.skip_value(),
            _ => Err(self.syntax("`:`")),
        }
    }

    fn skip_message(&mut self) -> Result<(), TextError> {
        self.begin_message()?;
        while self.next_field()?.is_some() {
            self.skip_field()?;
            self.end_field();
        }
        Ok(())
    }

    fn skip_value(&mut self) -> Result<(), TextError> {
        if !self.eat(b'[') {
            return self.skip_scalar();
        }
        if self.eat(b']') {
            return Ok(());
        }
        loop {
            self.skip_space();
            match self.peek() {
                Some(b'{' | b'<') => self.skip_message()?,
                _ => self.skip_scalar()?,
            }
            if self.eat(b']') {
                return Ok(());
            }
            self.expect(b',', "`,` or `]`")?;
        }
    }

    fn skip_scalar(&mut self) -> Result<(), TextError> {
        self.skip_space();
        if matches!(self.peek(), Some(b'"' | b'\'')) {
            return self.bytes().map(drop);
        }
        if self.minus() {
            // `-` and a number of any form, or `inf`, `infinity`, `nan`.
            self.skip_space();
            if self.peek().is_some_and(is_ident_start) {
                return self.float().map(drop);
            }
            return self.number().map(drop);
        }
        self.skip_space();
        if self.ident().is_some() {
            return Ok(());
        }
        self.number().map(drop)
    }

    /// Checks that nothing but spaces and comments follow the top-level message.
    pub fn finish(&mut self) -> Result<(), TextError> {
        self.skip_space();
        if self.pos == self.s.len() {
            Ok(())
        } else {
            Err(self.syntax("a field name"))
        }
    }

    fn minus(&mut self) -> bool {
        self.eat(b'-')
    }

    /// The number token at the reader.
    fn number(&mut self) -> Result<Number<'a>, TextError> {
        self.skip_space();
        let start = self.pos;
        let first = self.peek();
        let digit_at = |i: usize| self.s.get(i).is_some_and(u8::is_ascii_digit);
        if !(first.is_some_and(|b| b.is_ascii_digit())
            || (first == Some(b'.') && digit_at(start + 1)))
        {
            return Err(self.error(TextErrorKind::Type {
                expected: "a number",
            }));
        }
        // The token: digits, letters, `.`, and a sign right after a decimal exponent.
        let mut i = start;
        while let Some(&b) = self.s.get(i) {
            let sign_after_e = (b == b'+' || b == b'-')
                && i > start
                && matches!(self.s[i - 1], b'e' | b'E')
                && !matches!(self.s.get(start + 1), Some(b'x' | b'X'));
            if is_ident(b) || b == b'.' || sign_after_e {
                i += 1;
            } else {
                break;
            }
        }
        self.pos = i;
        // Only ASCII was consumed.
        let text = core::str::from_utf8(&self.s[start..i]).unwrap_or_default();
        let bad = || {
            self.error_at(
                start,
                TextErrorKind::Syntax {
                    expected: "a number",
                },
            )
        };
        let bytes = text.as_bytes();
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad());
            }
            return Ok(Number::Int(u64::from_str_radix(hex, 16).ok(), false, text));
        }
        if bytes.iter().all(u8::is_ascii_digit) {
            if bytes.len() > 1 && bytes[0] == b'0' {
                if !bytes.iter().all(|b| (b'0'..=b'7').contains(b)) {
                    return Err(bad());
                }
                return Ok(Number::Int(u64::from_str_radix(text, 8).ok(), false, text));
            }
            return Ok(Number::Int(text.parse().ok(), true, text));
        }
        // A float: digits [. digits] [e [sign] digits] [f].
        let body = text
            .strip_suffix('f')
            .or_else(|| text.strip_suffix('F'))
            .unwrap_or(text);
        let b = body.as_bytes();
        let mut j = 0;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        let int_digits = j;
        let mut frac_digits = 0;
        if j < b.len() && b[j] == b'.' {
            j += 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
                frac_digits += 1;
            }
        }
        // `0` alone, or digits not starting with `0` (those are octal, integers only).
        if int_digits + frac_digits == 0 || (int_digits > 1 && b[0] == b'0') {
            return Err(bad());
        }
        if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
            j += 1;
            if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                j += 1;
            }
            let exp_start = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j == exp_start {
                return Err(bad());
            }
        }
        if j != b.len() {
            return Err(bad());
        }
        Ok(Number::Float(body))
    }

    fn unsigned(&mut self, max: u64) -> Result<u64, TextError> {
        self.skip_space();
        let start = self.pos;
        match self.number()? {
            Number::Int(Some(v), _, _) if v <= max => Ok(v),
            Number::Int(..) => Err(self.error_at(start, TextErrorKind::OutOfRange)),
            Number::Float(_) => Err(self.error_at(
                start,
                TextErrorKind::Type {
                    expected: "an integer",
                },
            )),
        }
    }

    fn signed(&mut self, min: i64, max: i64) -> Result<i64, TextError> {
        let negative = self.minus();
        self.skip_space();
        let start = self.pos;
        let limit = if negative {
            min.unsigned_abs()
        } else {
            max as u64
        };
        let magnitude = match self.number()? {
            Number::Int(Some(v), _, _) if v <= limit => v,
            Number::Int(..) => return Err(self.error_at(start, TextErrorKind::OutOfRange)),
            Number::Float(_) => {
                return Err(self.error_at(
                    start,
                    TextErrorKind::Type {
                        expected: "an integer",
                    },
                ))
            }
        };
        Ok(if negative {
            0i64.wrapping_sub_unsigned(magnitude)
        } else {
            magnitude as i64
        })
    }

    /// An `int32`, `sint32` or `sfixed32` value.
    pub fn i32(&mut self) -> Result<i32, TextError> {
        Ok(self.signed(i32::MIN.into(), i32::MAX.into())? as i32)
    }

    /// An `int64`, `sint64` or `sfixed64` value.
    pub fn i64(&mut self) -> Result<i64, TextError> {
        self.signed(i64::MIN, i64::MAX)
    }

    /// A `uint32` or `fixed32` value.
    pub fn u32(&mut self) -> Result<u32, TextError> {
        Ok(self.unsigned(u32::MAX.into())? as u32)
    }

    /// A `uint64` or `fixed64` value.
    pub fn u64(&mut self) -> Result<u64, TextError> {
        self.unsigned(u64::MAX)
    }

    /// A `double`: a decimal number (`1`, `1.`, `.5`, `1e5`, `1.5f`), `inf`, `infinity` or
    /// `nan` (any case), with a sign.
    pub fn f64(&mut self) -> Result<f64, TextError> {
        let negative = self.minus();
        let v = self.float()?;
        Ok(if negative { -v } else { v })
    }

    /// A `float`: read as a `double`, then rounded to a `float` (as C++ reads it).
    pub fn f32(&mut self) -> Result<f32, TextError> {
        Ok(self.f64()? as f32)
    }

    fn float(&mut self) -> Result<f64, TextError> {
        self.skip_space();
        let start = self.pos;
        if let Some(name) = self.ident() {
            return match name.to_ascii_lowercase().as_str() {
                "inf" | "infinity" => Ok(f64::INFINITY),
                "nan" => Ok(f64::NAN),
                _ => Err(self.error_at(
                    start,
                    TextErrorKind::Type {
                        expected: "a number",
                    },
                )),
            };
        }
        let bad = |r: &Self| {
            r.error_at(
                start,
                TextErrorKind::Syntax {
                    expected: "a number",
                },
            )
        };
        match self.number()? {
            Number::Float(text) | Number::Int(_, true, text) => {
                text.parse::<f64>().map_err(|_| bad(self))
            }
            // Hex and octal are integer forms only.
            Number::Int(_, false, _) => Err(self.error_at(
                start,
                TextErrorKind::Type {
                    expected: "a decimal number",
                },
            )),
        }
    }

    /// A `bool`: `true`, `True`, `t`, `false`, `False`, `f`, `1` or `0`.
    pub fn bool(&mut self) -> Result<bool, TextError> {
        self.skip_space();
        let start = self.pos;
        if let Some(name) = self.ident() {
            return match name {
                "true" | "True" | "t" => Ok(true),
                "false" | "False" | "f" => Ok(false),
                _ => Err(self.error_at(
                    start,
                    TextErrorKind::Type {
                        expected: "true or false",
                    },
                )),
            };
        }
        match self.number()? {
            Number::Int(Some(0), ..) => Ok(false),
            Number::Int(Some(1), ..) => Ok(true),
            _ => Err(self.error_at(
                start,
                TextErrorKind::Type {
                    expected: "true or false",
                },
            )),
        }
    }

    /// An enum value of an open enum: a declared name, or any `int32` number.
    pub fn enum_value(&mut self, lookup: fn(&str) -> Option<i32>) -> Result<i32, TextError> {
        self.enum_value_by(lookup)
    }

    /// [`enum_value`](Self::enum_value) with any lookup (a descriptor's); generic, so that
    /// generated code's function pointer is called directly.
    pub(crate) fn enum_value_by(
        &mut self,
        lookup: impl Fn(&str) -> Option<i32>,
    ) -> Result<i32, TextError> {
        self.skip_space();
        let start = self.pos;
        if let Some(name) = self.ident() {
            return lookup(name).ok_or_else(|| {
                self.error_at(
                    start,
                    TextErrorKind::UnknownEnumValue {
                        name: name.to_string(),
                    },
                )
            });
        }
        self.i32()
    }

    /// An enum value of a closed enum: a declared name or number.
    pub fn closed_enum_value(
        &mut self,
        lookup: fn(&str) -> Option<i32>,
        known: fn(i32) -> bool,
    ) -> Result<i32, TextError> {
        self.closed_enum_value_by(lookup, known)
    }

    /// [`closed_enum_value`](Self::closed_enum_value) with any lookup (a descriptor's).
    pub(crate) fn closed_enum_value_by(
        &mut self,
        lookup: impl Fn(&str) -> Option<i32>,
        known: impl Fn(i32) -> bool,
    ) -> Result<i32, TextError> {
        if self.open_enums {
            return self.enum_value_by(lookup);
        }
        self.skip_space();
        let start = self.pos;
        let v = self.enum_value_by(lookup)?;
        if known(v) {
            Ok(v)
        } else {
            Err(self.error_at(
                start,
                TextErrorKind::UnknownEnumValue {
                    name: v.to_string(),
                },
            ))
        }
    }

    /// One or more adjacent quoted strings, unescaped and joined.
    pub fn bytes(&mut self) -> Result<Vec<u8>, TextError> {
        self.skip_space();
        let mut out = Vec::new();
        if !matches!(self.peek(), Some(b'"' | b'\'')) {
            return Err(self.error(TextErrorKind::Type {
                expected: "a quoted string",
            }));
        }
        while let Some(quote @ (b'"' | b'\'')) = self.peek() {
            self.pos += 1;
            self.string_body(quote, &mut out)?;
            self.skip_space();
        }
        // No longer than the input it came from (escapes only shorten), so charged once read.
        self.charge(out.len())?;
        Ok(out)
    }

    /// A `string` value: [`bytes`](Self::bytes) that must be UTF-8.
    pub fn string(&mut self) -> Result<String, TextError> {
        self.skip_space();
        let start = self.pos;
        let bytes = self.bytes()?;
        String::from_utf8(bytes).map_err(|_| self.error_at(start, TextErrorKind::InvalidUtf8))
    }

    fn string_body(&mut self, quote: u8, out: &mut Vec<u8>) -> Result<(), TextError> {
        loop {
            let Some(b) = self.peek() else {
                return Err(self.syntax("the string's closing quote"));
            };
            match b {
                b'\n' | 0 => return Err(self.syntax("the string's closing quote")),
                b'\\' => {
                    let at = self.pos;
                    self.pos += 1;
                    self.escape(out).map_err(|kind| self.error_at(at, kind))?;
                }
                _ if b == quote => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => {
                    // Copy the run up to the next quote, backslash or newline.
                    let start = self.pos;
                    while let Some(c) = self.peek() {
                        if c == quote || c == b'\\' || c == b'\n' || c == 0 {
                            break;
                        }
                        self.pos += 1;
                    }
                    out.extend_from_slice(&self.s[start..self.pos]);
                }
            }
        }
    }

    fn hex_digits(&mut self, min: usize, max: usize) -> Result<u32, TextErrorKind> {
        let mut v = 0u32;
        let mut n = 0;
        while n < max {
            match self.peek().and_then(|b| char::from(b).to_digit(16)) {
                Some(d) => {
                    v = v * 16 + d;
                    self.pos += 1;
                    n += 1;
                }
                None => break,
            }
        }
        if n < min {
            Err(TextErrorKind::InvalidEscape)
        } else {
            Ok(v)
        }
    }

    /// One escape, after its backslash.
    fn escape(&mut self, out: &mut Vec<u8>) -> Result<(), TextErrorKind> {
        let Some(b) = self.peek() else {
            return Err(TextErrorKind::InvalidEscape);
        };
        self.pos += 1;
        let byte = match b {
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'v' => 0x0b,
            b'\\' | b'\'' | b'"' | b'?' => b,
            b'0'..=b'7' => {
                let mut v = u32::from(b - b'0');
                for _ in 0..2 {
                    match self.peek() {
                        Some(d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                u8::try_from(v).map_err(|_| TextErrorKind::InvalidEscape)?
            }
            b'x' | b'X' => self.hex_digits(1, 2)? as u8,
            b'u' | b'U' => {
                let digits = if b == b'u' { 4 } else { 8 };
                // Surrogates (paired or not) and code points past U+10FFFF are refused.
                let c = self.hex_digits(digits, digits)?;
                let c = char::from_u32(c).ok_or(TextErrorKind::InvalidEscape)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                return Ok(());
            }
            _ => return Err(TextErrorKind::InvalidEscape),
        };
        out.push(byte);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(s: &str) -> TextReader<'_, 'static> {
        static OPTIONS: DecodeOptions<'static> = DecodeOptions {
            limits: crate::DecodeLimits::DEFAULT,
            ignore_unknown_fields: false,
            registry: None,
        };
        TextReader::new(s, &OPTIONS)
    }

    #[test]
    fn integers_in_every_form() {
        for (text, want) in [
            ("0", 0i64),
            ("-0", 0),
            ("12", 12),
            ("0x1F", 31),
            ("0X1f", 31),
            ("017", 15),
            ("- 5", -5),
            ("-9223372036854775808", i64::MIN),
            ("9223372036854775807", i64::MAX),
        ] {
            assert_eq!(reader(text).i64().unwrap(), want, "{text}");
        }
        for bad in [
            "9223372036854775808",
            "08",
            "1.0",
            "1f",
            "0x",
            "1a",
            "abc",
            "\"1\"",
        ] {
            assert!(reader(bad).i64().is_err(), "{bad}");
        }
        assert_eq!(reader("18446744073709551615").u64().unwrap(), u64::MAX);
        assert!(reader("-0").u64().is_err());
        assert!(reader("4294967296").u32().is_err());
        assert_eq!(reader("-2147483648").i32().unwrap(), i32::MIN);
        assert!(reader("-2147483649").i32().is_err());
    }

    #[test]
    fn floats_in_every_form() {
        for (text, want) in [
            ("1", 1.0f64),
            ("1.", 1.0),
            (".5", 0.5),
            ("1e3", 1000.0),
            ("1E-3", 0.001),
            ("1.5f", 1.5),
            ("2F", 2.0),
            ("-inf", f64::NEG_INFINITY),
            ("Infinity", f64::INFINITY),
            ("1e+2", 100.0),
            ("18446744073709551616", 18446744073709551616.0),
            ("1e18446744073709551616", f64::INFINITY),
            ("4294967296f", 4294967296.0),
        ] {
            assert_eq!(reader(text).f64().unwrap(), want, "{text}");
        }
        assert!(reader("nan").f64().unwrap().is_nan());
        assert!(reader("-NaN").f64().unwrap().is_nan());
        for bad in [
            "e5", "1e", "1.5x", "infinit", "--1", ".", "0x1", "012", "1.2.3",
        ] {
            assert!(reader(bad).f64().is_err(), "{bad}");
        }
        assert_eq!(reader("0.1").f32().unwrap(), 0.1f32);
        assert_eq!(
            reader("-1e-50").f32().unwrap().to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(reader("1e50").f32().unwrap(), f32::INFINITY);
    }

    #[test]
    fn strings_and_escapes() {
        let s = r#""a\n\t\"\'\\\?" 'b' "\101\x41\u00e9\U0001F600""#;
        assert_eq!(reader(s).string().unwrap(), "a\n\t\"'\\?bAAé😀");
        assert_eq!(reader(r#""\377\0""#).bytes().unwrap(), vec![0xff, 0]);
        assert!(reader(r#""\377""#).string().is_err());
        for bad in [
            r#""\ud83d\ude00""#,
            r#""\U00110000""#,
            "\"a\0\"",
            r#""\q""#,
            r#""\ud800""#,
            r#""\u12""#,
            "\"abc",
            "\"a\nb\"",
            r#""\400""#,
        ] {
            assert!(reader(bad).bytes().is_err(), "{bad}");
        }
    }

    #[test]
    fn names_lists_and_nesting() {
        let mut r = reader("a: [1, 2] # comment\n [ pkg . ext ]: 3; m < b: [] >, [x.com/p.M] {}");
        assert_eq!(r.next_field().unwrap().as_deref(), Some("a"));
        let mut items = r.scalar_items().unwrap();
        let mut got = Vec::new();
        while items.next(&mut r).unwrap() {
            got.push(r.i32().unwrap());
        }
        assert_eq!(got, [1, 2]);
        r.end_field();
        assert_eq!(r.next_field().unwrap().as_deref(), Some("[pkg.ext]"));
        r.colon().unwrap();
        assert_eq!(r.i32().unwrap(), 3);
        r.end_field();
        assert_eq!(r.next_field().unwrap().as_deref(), Some("m"));
        r.message_colon();
        r.begin_message().unwrap();
        assert_eq!(r.next_field().unwrap().as_deref(), Some("b"));
        let mut items = r.scalar_items().unwrap();
        assert!(!items.next(&mut r).unwrap());
        assert_eq!(r.next_field().unwrap(), None);
        r.end_field();
        assert_eq!(r.next_field().unwrap().as_deref(), Some("[x.com/p.M]"));
        r.begin_message().unwrap();
        assert_eq!(r.next_field().unwrap(), None);
        assert_eq!(r.next_field().unwrap(), None);
        r.finish().unwrap();
    }

    #[test]
    fn errors_point_at_the_input() {
        let e = reader("\n  é: x").next_field().unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 3));
        let mut r = reader("a {");
        r.next_field().unwrap();
        r.begin_message().unwrap();
        assert!(r.next_field().is_err());
    }
}
