//! [`JsonReader`]: the input side of generated `merge_json` code. A strict JSON lexer over a
//! UTF-8 slice (RFC 8259: no comments, no trailing commas, no leading zeros, escapes and
//! surrogate pairs checked) with ProtoJSON's value rules on top: integers from numbers or
//! strings, exact (`1e2` is 100, `1.5` is refused), floats correctly rounded by `core`'s
//! parser, `NaN`/`Infinity` strings, bytes in either base64 alphabet, enum names or numbers.
//! A recursion limit bounds nesting; positions are computed only when an error is reported.
//! It must not know any message: generated code looks fields up.

use alloc::borrow::Cow;

use base64::Engine as _;

use super::write::first_special;
use super::{DecodeOptions, JsonError, JsonErrorKind};
use crate::prelude::*;

/// Reads JSON for generated code; see the [module docs](crate::json).
pub struct JsonReader<'a, 'o> {
    text: &'a str,
    input: &'a [u8],
    pos: usize,
    /// Objects and arrays open.
    depth: u32,
    /// The next key or element is the first of its object or array.
    first: bool,
    /// The object depth whose `"@type"` key is skipped (an `Any`'s message); 0 for none.
    any_depth: u32,
    options: &'o DecodeOptions<'o>,
    /// Closed enums take any number, as prost's structs hold any (reflection over them).
    pub(crate) open_enums: bool,
    /// What the decode may still allocate (see [`DecodeLimits`](crate::DecodeLimits)).
    budget: crate::limits::Budget,
}

/// A number's text: a JSON number literal, or the contents of a string holding one.
struct Number<'a> {
    text: Cow<'a, str>,
    quoted: bool,
}

impl<'a, 'o> JsonReader<'a, 'o> {
    /// A reader of `input`.
    pub fn new(input: &'a str, options: &'o DecodeOptions<'o>) -> Self {
        JsonReader {
            text: input,
            input: input.as_bytes(),
            pos: 0,
            depth: 0,
            first: false,
            any_depth: 0,
            open_enums: false,
            budget: crate::limits::Budget::new(&options.limits, input.len()),
            options,
        }
    }

    /// A map's string key, owned (its bytes charged to the memory budget).
    #[inline]
    pub fn map_key_string(&mut self, key: Cow<'a, str>) -> Result<String, JsonError> {
        self.charge(key.len())?;
        Ok(cow_owned(key))
    }

    crate::limits::charge_helpers!(JsonError, JsonErrorKind, input);

    /// The options of this call.
    #[inline]
    pub fn options(&self) -> &DecodeOptions<'o> {
        self.options
    }

    /// An error of `kind` at the current position.
    #[cold]
    #[inline(never)]
    pub fn error(&self, kind: JsonErrorKind) -> JsonError {
        self.error_at(self.pos, kind)
    }

    #[cold]
    #[inline(never)]
    fn error_at(&self, pos: usize, kind: JsonErrorKind) -> JsonError {
        locate(self.input, pos, kind)
    }

    #[cold]
    fn syntax(&self, expected: &'static str) -> JsonError {
        self.error(JsonErrorKind::Syntax { expected })
    }

    #[cold]
    fn wrong_type(&self, expected: &'static str) -> JsonError {
        self.error(JsonErrorKind::Type { expected })
    }

    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.input.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.input.get(self.pos).copied()
    }

    fn eat_literal(&mut self, literal: &[u8]) -> bool {
        if self.input[self.pos..].starts_with(literal) {
            self.pos += literal.len();
            true
        } else {
            false
        }
    }

    /// Checks that only whitespace is left.
    pub fn finish(&mut self) -> Result<(), JsonError> {
        if self.peek().is_some() {
            return Err(self.error(JsonErrorKind::TrailingCharacters));
        }
        Ok(())
    }

    /// One level deeper. Levels are message levels, counted as the binary decoder counts them
    /// (a message's object, a map's entries, a `Value`, its `ListValue`, a `Struct`'s entries
    /// each one; an array of a repeated field none), so that what one path reads, every path
    /// reads under the same limit. The top-level message is at depth 1, level 0: the limit
    /// allows `recursion_limit` levels below it, as the binary decoder does.
    #[inline]
    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > self.options.limits.recursion_limit.saturating_add(1) {
            return Err(self.error(JsonErrorKind::RecursionLimitExceeded));
        }
        Ok(())
    }

    /// Reads one message level that has no object of its own (a well-known type's special
    /// form: a `Value`, a `ListValue`'s array, a `Timestamp`'s string, a `Struct`'s entry),
    /// counted as [`enter`](Self::enter) counts an object's.
    #[inline]
    pub(crate) fn message_level<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, JsonError>,
    ) -> Result<T, JsonError> {
        self.enter()?;
        let result = read(self);
        self.depth -= 1;
        result
    }

    /// The first byte of the next value (after whitespace), not consumed: what kind of value
    /// comes (`{`, `[`, `"`, `t`, `f`, `n`, or a number's first character).
    #[inline]
    pub fn peek_kind(&mut self) -> Option<u8> {
        self.peek()
    }

    /// Whether the next value is an object (`{`), not consumed.
    pub fn at_object(&mut self) -> bool {
        self.peek() == Some(b'{')
    }

    /// `{`, for a message's object. `expected` names the value wanted, for the error.
    #[inline]
    pub fn begin_object(&mut self) -> Result<(), JsonError> {
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                self.first = true;
                self.enter()
            }
            _ => Err(self.wrong_type("an object")),
        }
    }

    /// The next key of the object (its `:` consumed), or `None` at its `}`. An `Any`'s
    /// `"@type"` is skipped here.
    pub fn next_key(&mut self) -> Result<Option<Cow<'a, str>>, JsonError> {
        loop {
            let b = self.peek();
            if self.first {
                self.first = false;
                if b == Some(b'}') {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(None);
                }
            } else {
                match b {
                    Some(b',') => {
                        self.pos += 1;
                        self.skip_ws();
                    }
                    Some(b'}') => {
                        self.pos += 1;
                        self.depth -= 1;
                        return Ok(None);
                    }
                    _ => return Err(self.syntax("',' or '}'")),
                }
            }
            if self.input.get(self.pos) != Some(&b'"') {
                return Err(self.syntax("a key string"));
            }
            let key = self.string_contents()?;
            if self.peek() != Some(b':') {
                return Err(self.syntax("':'"));
            }
            self.pos += 1;
            if self.depth == self.any_depth && key == "@type" {
                self.skip_value()?;
                continue;
            }
            return Ok(Some(key));
        }
    }

    /// Whether the next key is `name`, written as is (`"name":`, right after the `,` or the
    /// `{`, no whitespace): then it is consumed, with its comma, and its value comes next;
    /// otherwise nothing is consumed and [`next_key`](Self::next_key) reads the key. Generated
    /// readers guess the field after the last one read (fields mostly arrive in the order they
    /// are written), so most keys cost one comparison instead of being scanned and looked up.
    /// `name` must need no escape and not be `@type` (an empty `name` never matches).
    #[inline]
    pub fn next_key_is(&mut self, name: &str) -> bool {
        let comma = usize::from(!self.first);
        if name.is_empty() || (comma == 1 && self.input.get(self.pos) != Some(&b',')) {
            return false;
        }
        let at = self.pos + comma;
        match self.input.get(at..at + name.len() + 3) {
            Some([b'"', key @ .., b'"', b':']) if key == name.as_bytes() => {
                self.pos = at + name.len() + 3;
                self.first = false;
                true
            }
            _ => false,
        }
    }

    /// `[` (a repeated field's array is no message level: its elements are).
    #[inline]
    pub fn begin_array(&mut self) -> Result<(), JsonError> {
        match self.peek() {
            Some(b'[') => {
                self.pos += 1;
                self.first = true;
                Ok(())
            }
            _ => Err(self.wrong_type("an array")),
        }
    }

    /// Whether another element follows (its `,` consumed), `false` at the array's `]`.
    #[inline]
    pub fn next_element(&mut self) -> Result<bool, JsonError> {
        let b = self.peek();
        if self.first {
            self.first = false;
            if b == Some(b']') {
                self.pos += 1;
                return Ok(false);
            }
            return Ok(true);
        }
        match b {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(b']') => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(self.syntax("',' or ']'")),
        }
    }

    /// Consumes a `null` if one is next.
    #[inline]
    pub fn null(&mut self) -> bool {
        self.peek() == Some(b'n') && self.eat_literal(b"null")
    }

    /// `null`, required (a `NullValue`).
    pub fn null_value(&mut self) -> Result<(), JsonError> {
        if self.null() {
            Ok(())
        } else {
            Err(self.wrong_type("null"))
        }
    }

    /// Skips one value of any kind (an ignored unknown field).
    pub fn skip_value(&mut self) -> Result<(), JsonError> {
        match self.peek() {
            Some(b'{') => {
                self.begin_object()?;
                while self.next_key()?.is_some() {
                    self.skip_value()?;
                }
                Ok(())
            }
            // Skipped arrays count as levels: they nest only here.
            Some(b'[') => self.message_level(|r| {
                r.begin_array()?;
                while r.next_element()? {
                    r.skip_value()?;
                }
                Ok(())
            }),
            Some(b'"') => self.string_contents().map(drop),
            Some(b't') if self.eat_literal(b"true") => Ok(()),
            Some(b'f') if self.eat_literal(b"false") => Ok(()),
            Some(b'n') if self.eat_literal(b"null") => Ok(()),
            Some(b'-' | b'0'..=b'9') => self.number_literal().map(drop),
            _ => Err(self.syntax("a value")),
        }
    }

    /// A key that names no field: skipped when the options ignore unknown fields, else an
    /// error.
    #[cold]
    pub fn unknown_field(&mut self, key: &str) -> Result<(), JsonError> {
        if self.options.ignore_unknown_fields {
            self.skip_value()
        } else {
            Err(self.error(JsonErrorKind::UnknownField { key: key.into() }))
        }
    }

    /// The error for a field set twice.
    #[cold]
    pub fn duplicate(&self) -> JsonError {
        self.error(JsonErrorKind::DuplicateField)
    }

    /// A string value.
    #[inline]
    pub fn string(&mut self) -> Result<Cow<'a, str>, JsonError> {
        if self.peek() != Some(b'"') {
            return Err(self.wrong_type("a string"));
        }
        self.string_contents()
    }

    /// A string value, owned.
    #[inline]
    pub fn string_owned(&mut self) -> Result<String, JsonError> {
        let s = self.string()?;
        self.charge(s.len())?;
        Ok(cow_owned(s))
    }

    /// The string at `pos` (its opening quote), unescaped.
    fn string_contents(&mut self) -> Result<Cow<'a, str>, JsonError> {
        let input = self.input;
        let start = self.pos + 1;
        // The fast path: no escapes.
        let mut i = start + first_special(input.get(start..).unwrap_or_default());
        match input.get(i) {
            Some(b'"') => {
                self.pos = i + 1;
                return Ok(Cow::Borrowed(self.slice(start, i)));
            }
            Some(b'\\') => {}
            Some(_) => {
                return Err(self.error_at(
                    i,
                    JsonErrorKind::Syntax {
                        expected: "an escaped control character",
                    },
                ))
            }
            None => {
                return Err(self.error_at(
                    i,
                    JsonErrorKind::Syntax {
                        expected: "a closing '\"'",
                    },
                ))
            }
        }
        let mut out = String::with_capacity(i - start + 16);
        out.push_str(self.slice(start, i));
        loop {
            match input.get(i) {
                Some(b'"') => {
                    self.pos = i + 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    let escaped = match input.get(i + 1) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let (c, len) = self.unicode_escape(i)?;
                            out.push(c);
                            i += len;
                            continue;
                        }
                        _ => return Err(self.error_at(i, JsonErrorKind::InvalidEscape)),
                    };
                    out.push(escaped);
                    i += 2;
                }
                Some(&b) if b < 0x20 => {
                    return Err(self.error_at(
                        i,
                        JsonErrorKind::Syntax {
                            expected: "an escaped control character",
                        },
                    ))
                }
                Some(_) => {
                    let run = i;
                    i += first_special(&input[i..]);
                    out.push_str(self.slice(run, i));
                }
                None => {
                    return Err(self.error_at(
                        i,
                        JsonErrorKind::Syntax {
                            expected: "a closing '\"'",
                        },
                    ))
                }
            }
        }
    }

    /// `input[from..to]`, both at character boundaries (next to ASCII bytes or the ends).
    fn slice(&self, from: usize, to: usize) -> &'a str {
        // `from` and `to` sit next to ASCII quotes, backslashes or control characters, which
        // never occur inside a multi-byte character: `get` always succeeds.
        self.text.get(from..to).unwrap_or_default()
    }

    /// `\uXXXX` at `i` (a surrogate pair, `\uD83D\uDE00`, is one character): the character
    /// and the escape's length.
    fn unicode_escape(&self, i: usize) -> Result<(char, usize), JsonError> {
        let hex = |at: usize| -> Option<u32> {
            let digits = self.input.get(at..at + 4)?;
            let mut v = 0;
            for &d in digits {
                v = v * 16 + char::from(d).to_digit(16)?;
            }
            Some(v)
        };
        let bad = || self.error_at(i, JsonErrorKind::InvalidEscape);
        let first = hex(i + 2).ok_or_else(bad)?;
        match first {
            0xd800..=0xdbff => {
                if self.input.get(i + 6..i + 8) != Some(b"\\u") {
                    return Err(bad());
                }
                let second = hex(i + 8).ok_or_else(bad)?;
                if !(0xdc00..=0xdfff).contains(&second) {
                    return Err(bad());
                }
                let c = 0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00);
                Ok((char::from_u32(c).ok_or_else(bad)?, 12))
            }
            0xdc00..=0xdfff => Err(bad()),
            c => Ok((char::from_u32(c).ok_or_else(bad)?, 6)),
        }
    }

    /// A JSON number literal at the current position, checked against JSON's grammar.
    fn number_literal(&mut self) -> Result<&'a str, JsonError> {
        let start = self.pos;
        let end = number_end(self.input, start).ok_or_else(|| self.syntax("a number"))?;
        self.pos = end;
        Ok(self.slice(start, end))
    }

    /// A number: a literal, or a string holding one (`quoted`).
    fn number(&mut self, expected: &'static str) -> Result<Number<'a>, JsonError> {
        match self.peek() {
            Some(b'"') => {
                let at = self.pos;
                let text = self.string_contents()?;
                if number_end(text.as_bytes(), 0) != Some(text.len()) {
                    // Kept as is: the float readers accept "NaN" and "Infinity".
                    if !matches!(&*text, "NaN" | "Infinity" | "-Infinity") {
                        return Err(self.error_at(at, JsonErrorKind::Type { expected }));
                    }
                }
                Ok(Number { text, quoted: true })
            }
            Some(b'-' | b'0'..=b'9') => Ok(Number {
                text: Cow::Borrowed(self.number_literal()?),
                quoted: false,
            }),
            _ => Err(self.wrong_type(expected)),
        }
    }

    fn integer(&mut self, expected: &'static str) -> Result<(bool, u64), JsonError> {
        let at = self.peek_pos();
        if let Some((negative, magnitude, end)) = plain_integer(self.input, at) {
            self.pos = end;
            return Ok((negative, magnitude));
        }
        let n = self.number(expected)?;
        exact_integer(&n.text).ok_or_else(|| {
            let kind = if is_integral_form(&n.text) {
                JsonErrorKind::OutOfRange
            } else {
                JsonErrorKind::Type { expected }
            };
            self.error_at(at, kind)
        })
    }

    fn peek_pos(&mut self) -> usize {
        self.skip_ws();
        self.pos
    }

    /// An `int32` (also `sint32`, `sfixed32`): a number or a string, integral, in range.
    pub fn i32(&mut self) -> Result<i32, JsonError> {
        let at = self.peek_pos();
        let v = self.i64_inner("an integer")?;
        i32::try_from(v).map_err(|_| self.error_at(at, JsonErrorKind::OutOfRange))
    }

    /// A `uint32` (also `fixed32`).
    pub fn u32(&mut self) -> Result<u32, JsonError> {
        let at = self.peek_pos();
        let v = self.u64_inner("an integer")?;
        u32::try_from(v).map_err(|_| self.error_at(at, JsonErrorKind::OutOfRange))
    }

    /// An `int64` (also `sint64`, `sfixed64`).
    pub fn i64(&mut self) -> Result<i64, JsonError> {
        self.i64_inner("an integer")
    }

    /// A `uint64` (also `fixed64`).
    pub fn u64(&mut self) -> Result<u64, JsonError> {
        self.u64_inner("an integer")
    }

    fn i64_inner(&mut self, expected: &'static str) -> Result<i64, JsonError> {
        let at = self.peek_pos();
        let (negative, magnitude) = self.integer(expected)?;
        let v = if negative {
            0i64.checked_sub_unsigned(magnitude)
        } else {
            i64::try_from(magnitude).ok()
        };
        v.ok_or_else(|| self.error_at(at, JsonErrorKind::OutOfRange))
    }

    fn u64_inner(&mut self, expected: &'static str) -> Result<u64, JsonError> {
        let at = self.peek_pos();
        match self.integer(expected)? {
            (true, 0) => Ok(0),
            (true, _) => Err(self.error_at(at, JsonErrorKind::OutOfRange)),
            (false, v) => Ok(v),
        }
    }

    /// A `double`: a number, a string holding one, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
    pub fn f64(&mut self) -> Result<f64, JsonError> {
        let at = self.peek_pos();
        let n = self.number("a number")?;
        let v = match &*n.text {
            "NaN" if n.quoted => f64::NAN,
            "Infinity" if n.quoted => f64::INFINITY,
            "-Infinity" if n.quoted => f64::NEG_INFINITY,
            text => {
                let v: f64 = text.parse().map_err(|_| {
                    self.error_at(
                        at,
                        JsonErrorKind::Type {
                            expected: "a number",
                        },
                    )
                })?;
                if !v.is_finite() {
                    return Err(self.error_at(at, JsonErrorKind::OutOfRange));
                }
                v
            }
        };
        Ok(v)
    }

    /// A `float`: as [`f64`](Self::f64), in `float`'s range.
    pub fn f32(&mut self) -> Result<f32, JsonError> {
        let at = self.peek_pos();
        let v = self.f64()?;
        let narrow = v as f32;
        if v.is_finite() && narrow.is_infinite() {
            return Err(self.error_at(at, JsonErrorKind::OutOfRange));
        }
        Ok(narrow)
    }

    /// `true` or `false`.
    pub fn bool(&mut self) -> Result<bool, JsonError> {
        match self.peek() {
            Some(b't') if self.eat_literal(b"true") => Ok(true),
            Some(b'f') if self.eat_literal(b"false") => Ok(false),
            _ => Err(self.wrong_type("true or false")),
        }
    }

    /// Bytes: base64 in the standard or the URL alphabet, padded or not.
    pub fn bytes(&mut self) -> Result<Vec<u8>, JsonError> {
        let at = self.peek_pos();
        let text = self.string()?;
        // What the decoded bytes take, at most.
        self.charge(text.len() / 4 * 3 + 3)?;
        decode_base64(&text).ok_or_else(|| {
            self.error_at(
                at,
                JsonErrorKind::Type {
                    expected: "base64 bytes",
                },
            )
        })
    }

    /// An enum value: a name `lookup` knows, or a number (any `int32`). An unknown name is
    /// `Ok(None)` when the options ignore unknown fields, else an error.
    pub fn enum_value(
        &mut self,
        lookup: fn(&str) -> Option<i32>,
    ) -> Result<Option<i32>, JsonError> {
        self.enum_value_by(lookup)
    }

    /// [`enum_value`](Self::enum_value) with any lookup (a descriptor's); generic, so that
    /// generated code's function pointer is called directly.
    pub(crate) fn enum_value_by(
        &mut self,
        lookup: impl Fn(&str) -> Option<i32>,
    ) -> Result<Option<i32>, JsonError> {
        let at = self.peek_pos();
        match self.peek() {
            Some(b'"') => {
                let name = self.string_contents()?;
                match lookup(&name) {
                    Some(v) => Ok(Some(v)),
                    None if self.options.ignore_unknown_fields => Ok(None),
                    None => Err(self.error_at(
                        at,
                        JsonErrorKind::UnknownEnumValue {
                            name: name.into_owned(),
                        },
                    )),
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                let text = self.number_literal()?;
                let v = exact_integer(text)
                    .and_then(|(neg, m)| {
                        if neg {
                            0i64.checked_sub_unsigned(m)
                        } else {
                            i64::try_from(m).ok()
                        }
                    })
                    .and_then(|v| i32::try_from(v).ok());
                v.map(Some).ok_or_else(|| {
                    self.error_at(
                        at,
                        JsonErrorKind::Type {
                            expected: "an enum name or number",
                        },
                    )
                })
            }
            _ => Err(self.wrong_type("an enum name or number")),
        }
    }

    /// A closed enum's value: as [`enum_value`](Self::enum_value), and a number must be one
    /// `known` accepts (a closed enum holds only declared numbers); an undeclared one is
    /// `Ok(None)` when the options ignore unknown fields, else an error.
    pub fn closed_enum_value(
        &mut self,
        lookup: fn(&str) -> Option<i32>,
        known: fn(i32) -> bool,
    ) -> Result<Option<i32>, JsonError> {
        self.closed_enum_value_by(lookup, known)
    }

    /// [`closed_enum_value`](Self::closed_enum_value) with any lookup (a descriptor's).
    pub(crate) fn closed_enum_value_by(
        &mut self,
        lookup: impl Fn(&str) -> Option<i32>,
        known: impl Fn(i32) -> bool,
    ) -> Result<Option<i32>, JsonError> {
        if self.open_enums {
            return self.enum_value_by(lookup);
        }
        let at = self.peek_pos();
        match self.enum_value_by(lookup)? {
            Some(v) if !known(v) => {
                if self.options.ignore_unknown_fields {
                    Ok(None)
                } else {
                    Err(self.error_at(
                        at,
                        JsonErrorKind::UnknownEnumValue {
                            name: itoa::Buffer::new().format(v).into(),
                        },
                    ))
                }
            }
            v => Ok(v),
        }
    }

    /// A map key (the object's key string) as a signed integer type's value.
    pub fn map_key_i64(&self, key: &str) -> Result<i64, JsonError> {
        match exact_plain_integer(key) {
            Some((true, m)) => 0i64.checked_sub_unsigned(m),
            Some((false, m)) => i64::try_from(m).ok(),
            None => None,
        }
        .ok_or_else(|| {
            self.error(JsonErrorKind::Type {
                expected: "an integer map key",
            })
        })
    }

    /// A map key as an `int32`.
    pub fn map_key_i32(&self, key: &str) -> Result<i32, JsonError> {
        i32::try_from(self.map_key_i64(key)?).map_err(|_| self.error(JsonErrorKind::OutOfRange))
    }

    /// A map key as a `uint64`.
    pub fn map_key_u64(&self, key: &str) -> Result<u64, JsonError> {
        match exact_plain_integer(key) {
            Some((false, m)) => Ok(m),
            _ => Err(self.error(JsonErrorKind::Type {
                expected: "an unsigned integer map key",
            })),
        }
    }

    /// A `map<string, string>` field's object, read into `map` (which keeps the entries it had
    /// unless the object names them again); a key twice in the object is an error. The first
    /// [`STR_MAP_BATCH`] entries are read before any is stored (borrowed from the input where
    /// nothing is escaped), so that the map's table is sized once for them instead of grown
    /// and rehashed as entries arrive (on candidates' six-entry maps, a table grown from empty
    /// costs a tenth of pbjson's reading time more than one sized once: `json_ratio`'s
    /// `A_candidates_*_decode_floor_grow` and `_insert` rows). Errors are the loop's, in input
    /// order: a duplicate among the buffered entries is reported at its own position, before a
    /// syntax error after it.
    #[doc(hidden)]
    pub fn str_map<M: StrMap>(&mut self, map: &mut M) -> Result<(), JsonError> {
        let before = core::mem::take(map);
        self.begin_object()?;
        let mut batch: [Option<BufferedEntry<'a>>; STR_MAP_BATCH] = core::array::from_fn(|_| None);
        let mut n = 0;
        let mut more = true;
        while n < STR_MAP_BATCH {
            let entry = match self.next_key() {
                Ok(Some(key)) => self.string().map(|value| Some((key, value))),
                Ok(None) => Ok(None),
                Err(e) => Err(e),
            };
            match entry {
                Ok(Some((key, value))) => {
                    batch[n] = Some((key, value, self.pos));
                    n += 1;
                }
                Ok(None) => {
                    more = false;
                    break;
                }
                Err(e) => {
                    // A duplicate before the error comes first.
                    self.store_batch(map, &mut batch[..n])?;
                    return Err(e);
                }
            }
        }
        // A map past the batch gets room for as many again, then grows as entries arrive.
        map.reserve_entries(n + if more { STR_MAP_BATCH } else { 0 });
        self.store_batch(map, &mut batch[..n])?;
        if more {
            while let Some(key) = self.next_key()? {
                self.charge(key.len() + 2 * core::mem::size_of::<String>())?;
                let key = cow_owned(key);
                let value = self.string_owned()?;
                if !map.insert_entry(key, value) {
                    return Err(self.duplicate());
                }
            }
        }
        if !before.is_empty() {
            let read = core::mem::replace(map, before);
            map.extend_entries(read);
        }
        Ok(())
    }

    /// Stores [`str_map`](Self::str_map)'s buffered entries, in order.
    fn store_batch<M: StrMap>(
        &mut self,
        map: &mut M,
        batch: &mut [Option<BufferedEntry<'a>>],
    ) -> Result<(), JsonError> {
        for (key, value, at) in batch.iter_mut().filter_map(Option::take) {
            self.charge(key.len() + value.len() + 2 * core::mem::size_of::<String>())?;
            if !map.insert_entry(cow_owned(key), cow_owned(value)) {
                return Err(self.error_at(at, JsonErrorKind::DuplicateField));
            }
        }
        Ok(())
    }

    /// A map key as a `uint32`.
    pub fn map_key_u32(&self, key: &str) -> Result<u32, JsonError> {
        u32::try_from(self.map_key_u64(key)?).map_err(|_| self.error(JsonErrorKind::OutOfRange))
    }

    /// A map key as a `bool`.
    pub fn map_key_bool(&self, key: &str) -> Result<bool, JsonError> {
        match key {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(self.error(JsonErrorKind::Type {
                expected: "true or false as a map key",
            })),
        }
    }

    /// Where the next value starts (after whitespace), to come back to.
    pub(crate) fn mark(&mut self) -> (usize, bool) {
        self.skip_ws();
        (self.pos, self.first)
    }

    /// Goes back to a [`mark`](Self::mark).
    pub(crate) fn reset(&mut self, mark: (usize, bool)) {
        self.pos = mark.0;
        self.first = mark.1;
    }

    /// The object depth the next object will have.
    pub(crate) fn next_depth(&self) -> u32 {
        self.depth + 1
    }

    /// Sets the object depth whose `"@type"` is skipped; returns the previous one.
    pub(crate) fn set_any_depth(&mut self, depth: u32) -> u32 {
        core::mem::replace(&mut self.any_depth, depth)
    }
}

/// An error of `kind` at byte `pos` of `input`, with its line and column (in characters).
#[cold]
#[inline(never)]
pub(crate) fn locate(input: &[u8], pos: usize, kind: JsonErrorKind) -> JsonError {
    let (line, column) = crate::registry::line_column(input, pos);
    JsonError::at(kind, line, column)
}

/// The end of the JSON number literal starting at `start`, if one does.
fn number_end(s: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    let digit = |i: usize| s.get(i).is_some_and(u8::is_ascii_digit);
    if s.get(i) == Some(&b'-') {
        i += 1;
    }
    match s.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            while digit(i) {
                i += 1;
            }
        }
        _ => return None,
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        if !digit(i) {
            return None;
        }
        while digit(i) {
            i += 1;
        }
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(s.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digit(i) {
            return None;
        }
        while digit(i) {
            i += 1;
        }
    }
    Some(i)
}

/// How many of a string map's first entries [`JsonReader::str_map`] reads before storing any.
const STR_MAP_BATCH: usize = 8;

/// A string map's entry read and not yet stored: key, value, and the position after the value
/// (where a duplicate is reported).
type BufferedEntry<'a> = (Cow<'a, str>, Cow<'a, str>, usize);

/// An owned `String` of a borrowed or owned string.
#[inline]
fn cow_owned(s: Cow<'_, str>) -> String {
    match s {
        Cow::Borrowed(s) => crate::reader::owned(s),
        Cow::Owned(s) => s,
    }
}

/// A `map<string, string>` field's type, as [`JsonReader::str_map`] fills it: prost's and our
/// structs' `HashMap` (any hasher) and `BTreeMap` (prost-build's `btree_map`).
#[doc(hidden)]
pub trait StrMap: Default {
    /// Whether the map has no entry.
    fn is_empty(&self) -> bool;
    /// Room for `n` more entries, where the map can make it.
    fn reserve_entries(&mut self, n: usize);
    /// Inserts an entry; `false` if the key was there (the value is replaced).
    fn insert_entry(&mut self, key: String, value: String) -> bool;
    /// Adds `other`'s entries, replacing those with the same keys.
    fn extend_entries(&mut self, other: Self);
}

#[cfg(feature = "std")]
impl<S: core::hash::BuildHasher + Default> StrMap for std::collections::HashMap<String, String, S> {
    fn is_empty(&self) -> bool {
        self.is_empty()
    }
    fn reserve_entries(&mut self, n: usize) {
        self.reserve(n);
    }
    fn insert_entry(&mut self, key: String, value: String) -> bool {
        self.insert(key, value).is_none()
    }
    fn extend_entries(&mut self, other: Self) {
        self.extend(other);
    }
}

impl StrMap for alloc::collections::BTreeMap<String, String> {
    fn is_empty(&self) -> bool {
        self.is_empty()
    }
    fn reserve_entries(&mut self, _: usize) {}
    fn insert_entry(&mut self, key: String, value: String) -> bool {
        self.insert(key, value).is_none()
    }
    fn extend_entries(&mut self, other: Self) {
        self.extend(other);
    }
}

/// The common integer, read in one pass: `-?(0|[1-9][0-9]{0,18})` at `at`, plain or quoted,
/// followed by what can end it (a closing quote; no fraction or exponent): sign, magnitude and
/// the end. `None` leaves the rest (other forms, errors) to the general path.
#[inline]
fn plain_integer(s: &[u8], at: usize) -> Option<(bool, u64, usize)> {
    let mut i = at;
    let quoted = s.get(i) == Some(&b'"');
    i += usize::from(quoted);
    let negative = s.get(i) == Some(&b'-');
    i += usize::from(negative);
    let start = i;
    let mut value = 0u64;
    while let Some(&b) = s.get(i) {
        if !b.is_ascii_digit() {
            break;
        }
        // 19 digits stay below u64::MAX; longer runs are refused below.
        value = value.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
        i += 1;
    }
    let digits = i - start;
    if digits == 0 || digits > 19 || (digits > 1 && s[start] == b'0') {
        return None;
    }
    match s.get(i) {
        Some(b'"') if quoted => Some((negative, value, i + 1)),
        _ if quoted => None,
        Some(b'.' | b'e' | b'E') => None,
        _ => Some((negative, value, i)),
    }
}

/// A JSON number (grammar already checked) as an exact integer, sign and magnitude: `1e2` and
/// `100.0` are 100; `1.5`, `1e-1` and anything past `u64` are `None`.
fn exact_integer(text: &str) -> Option<(bool, u64)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    // Plain digits, the common case (the general path below was 16% of reading deep
    // messages).
    if rest.len() <= 19 && rest.bytes().all(|b| b.is_ascii_digit()) {
        let mut value = 0u64;
        for b in rest.bytes() {
            value = value * 10 + u64::from(b - b'0');
        }
        return (!rest.is_empty()).then_some((negative, value));
    }
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    // The digits, and the power of ten they are scaled by.
    let digits = int.bytes().chain(frac.bytes());
    let scale = i64::from(exponent) - frac.len() as i64;
    let count = int.len() + frac.len();
    let mut value: u64 = 0;
    // Digits beyond the integer part (scale < 0) must be zeros.
    let kept = if scale < 0 {
        let dropped = usize::try_from(-scale).ok()?;
        if dropped > count {
            // All digits are fractional: only zero is an integer.
            return digits.clone().all(|d| d == b'0').then_some((negative, 0));
        }
        count - dropped
    } else {
        count
    };
    for (i, d) in digits.enumerate() {
        if i < kept {
            value = value.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        } else if d != b'0' {
            return None;
        }
    }
    if scale > 0 && value != 0 {
        // At most 20 rounds: past that the product overflows.
        for _ in 0..scale {
            value = value.checked_mul(10)?;
        }
    }
    Some((negative, value))
}

/// Whether a number's text is integral in form (no fraction, no exponent): its failure to
/// convert is then a range error.
fn is_integral_form(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

/// A map key's integer: `-?[0-9]+` (no exponent, no fraction). Leading zeros are read, as
/// protobuf-go (`strconv.ParseInt`), C++ and Python read them: a key is a string, not a JSON
/// number.
fn exact_plain_integer(key: &str) -> Option<(bool, u64)> {
    let (negative, digits) = match key.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, key),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        return Some((negative, 0));
    }
    Some((negative, digits.parse().ok()?))
}

/// Base64 in either alphabet, with or without padding.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    use base64::engine::{general_purpose, DecodePaddingMode, GeneralPurposeConfig};
    const CONFIG: GeneralPurposeConfig = GeneralPurposeConfig::new()
        .with_decode_padding_mode(DecodePaddingMode::Indifferent)
        .with_decode_allow_trailing_bits(true);
    const STANDARD: general_purpose::GeneralPurpose =
        general_purpose::GeneralPurpose::new(&base64::alphabet::STANDARD, CONFIG);
    const URL_SAFE: general_purpose::GeneralPurpose =
        general_purpose::GeneralPurpose::new(&base64::alphabet::URL_SAFE, CONFIG);
    let engine = if text.bytes().any(|b| b == b'-' || b == b'_') {
        &URL_SAFE
    } else {
        &STANDARD
    };
    engine.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_map_keys_read_leading_zeros_as_the_references_do() {
        assert_eq!(exact_plain_integer("048576"), Some((false, 48576)));
        assert_eq!(exact_plain_integer("-007"), Some((true, 7)));
        assert_eq!(exact_plain_integer("000"), Some((false, 0)));
        assert_eq!(
            exact_plain_integer("18446744073709551615"),
            Some((false, u64::MAX))
        );
        for bad in ["", "-", "1e3", "1.0", "+1", " 1", "18446744073709551616"] {
            assert_eq!(exact_plain_integer(bad), None, "{bad:?}");
        }
    }

    /// A string map read entry by entry as it arrives: what [`JsonReader::str_map`] must
    /// agree with, result and error alike.
    fn str_map_one_by_one<M: StrMap>(
        r: &mut JsonReader<'_, '_>,
        map: &mut M,
    ) -> Result<(), JsonError> {
        let before = core::mem::take(map);
        r.begin_object()?;
        while let Some(key) = r.next_key()? {
            let key = key.into_owned();
            let value = r.string_owned()?;
            if !map.insert_entry(key, value) {
                return Err(r.duplicate());
            }
        }
        if !before.is_empty() {
            let read = core::mem::replace(map, before);
            map.extend_entries(read);
        }
        Ok(())
    }

    #[test]
    fn string_maps_read_in_batches_as_entry_by_entry() {
        // Objects of 0 to 20 entries (crossing the batch of 8 twice), with escapes, a key
        // twice at every pair of places, a syntax error or a wrong value after each entry (with
        // and without a duplicate before it), merged into an empty map and one holding a key of
        // the object: same map, or same error at the same place, both map types.
        fn check<M: StrMap + PartialEq + core::fmt::Debug + Clone>(text: &str, start: &M) {
            let options = DecodeOptions::default();
            let (mut a, mut b) = (start.clone(), start.clone());
            let got = JsonReader::new(text, &options).str_map(&mut a);
            let want = str_map_one_by_one(&mut JsonReader::new(text, &options), &mut b);
            assert_eq!(
                got.map_err(|e| e.to_string()),
                want.map_err(|e| e.to_string()),
                "{text}"
            );
            assert_eq!(a, b, "{text}");
        }
        let entry = |i: usize| {
            let key = if i % 5 == 3 {
                format!("k\\u00e9{i}")
            } else {
                format!("k{i}")
            };
            format!("\"{key}\": \"v\\n{i}\"")
        };
        let mut texts = Vec::new();
        for n in 0..=20 {
            let entries: Vec<String> = (0..n).map(entry).collect();
            texts.push(format!("{{{}}}", entries.join(",")));
            for dup in 0..n {
                for at in dup + 1..=n {
                    let mut e = entries.clone();
                    e.insert(at, entry(dup));
                    texts.push(format!("{{{}}}", e.join(",")));
                    for bad in ["\"x\": 1", "\"y\" \"z\"", "\"w\": \"\\q\""] {
                        let mut e = e.clone();
                        e.insert((at + 1).min(e.len()), bad.into());
                        texts.push(format!("{{{}}}", e.join(",")));
                    }
                }
            }
            texts.push(format!("{{{}", entries.join(",")));
        }
        texts.push("[]".into());
        texts.push("{\"a\":\"b\",}".into());
        let hash_start: std::collections::HashMap<String, String> = [
            ("k1".to_string(), "old".to_string()),
            ("old".into(), "kept".into()),
        ]
        .into();
        let btree_start: alloc::collections::BTreeMap<String, String> =
            hash_start.clone().into_iter().collect();
        for text in &texts {
            check(text, &std::collections::HashMap::<String, String>::new());
            check(text, &hash_start);
            check(text, &alloc::collections::BTreeMap::new());
            check(text, &btree_start);
        }
        assert!(texts.len() > 5000, "{}", texts.len());
    }

    #[test]
    fn integers_are_exact() {
        for (text, want) in [
            ("0", Some((false, 0))),
            ("-0", Some((true, 0))),
            ("1e2", Some((false, 100))),
            ("1E+2", Some((false, 100))),
            ("100.000", Some((false, 100))),
            ("1.5e1", Some((false, 15))),
            ("1500e-2", Some((false, 15))),
            ("0.0e-5", Some((false, 0))),
            ("18446744073709551615", Some((false, u64::MAX))),
            ("18446744073709551616", None),
            ("1.5", None),
            ("1e-1", None),
            ("1e30", None),
            ("-9223372036854775808", Some((true, 1 << 63))),
        ] {
            assert_eq!(exact_integer(text), want, "{text}");
        }
    }

    #[test]
    fn the_plain_integer_path_agrees_with_the_general_one() {
        // Every string up to 6 characters over the bytes numbers are made of, and 19- and
        // 20-digit runs: whatever the one-pass path reads, the grammar check and the exact
        // conversion read alike.
        let alphabet = b"019-.e\"x";
        let mut inputs: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..6 {
            let longer: Vec<Vec<u8>> = inputs
                .iter()
                .filter(|s| s.len() == inputs.last().map_or(0, Vec::len))
                .flat_map(|s| alphabet.iter().map(move |&c| [&s[..], &[c]].concat()))
                .collect();
            inputs.extend(longer);
        }
        for digits in [
            "9999999999999999999",
            "18446744073709551615",
            "12345678901234567890",
        ] {
            inputs.push(digits.as_bytes().to_vec());
            inputs.push(format!("\"{digits}\"").into_bytes());
            inputs.push(format!("-{digits}").into_bytes());
        }
        let mut read = 0;
        for s in &inputs {
            let Some((negative, value, end)) = plain_integer(s, 0) else {
                continue;
            };
            read += 1;
            let text = if s[0] == b'"' {
                assert_eq!(s[end - 1], b'"', "{s:?}");
                &s[1..end - 1]
            } else {
                &s[..end]
            };
            assert_eq!(number_end(text, 0), Some(text.len()), "{s:?}");
            let text = core::str::from_utf8(text).unwrap();
            assert_eq!(exact_integer(text), Some((negative, value)), "{s:?}");
        }
        assert!(read > 100, "{read}");
        assert_eq!(plain_integer(b"01", 0), None);
        assert_eq!(plain_integer(b"\"1", 0), None);
        assert_eq!(plain_integer(b"1.5", 0), None);
        assert_eq!(plain_integer(b"-", 0), None);
        assert_eq!(plain_integer(b"12345678901234567890", 0), None);
        assert_eq!(plain_integer(b"7,", 0), Some((false, 7, 1)));
    }

    #[test]
    fn numbers_follow_json_grammar() {
        for ok in ["0", "-0", "1.5", "1e5", "-1.0E-7", "123"] {
            assert_eq!(number_end(ok.as_bytes(), 0), Some(ok.len()), "{ok}");
        }
        for bad in ["01", "1.", ".5", "+1", "-", "1e", "1e+"] {
            assert_ne!(number_end(bad.as_bytes(), 0), Some(bad.len()), "{bad}");
        }
    }

    #[test]
    fn strings_unescape_and_refuse_bad_escapes() {
        let options = DecodeOptions::default();
        let read = |s: &str| JsonReader::new(s, &options).string().map(Cow::into_owned);
        assert_eq!(
            read(r#""a\"\\\/\b\f\n\r\t""#).unwrap(),
            "a\"\\/\u{8}\u{c}\n\r\t"
        );
        assert_eq!(read(r#""\u00e9\ud83d\ude00x""#).unwrap(), "é😀x");
        for bad in [
            r#""\ud83d""#,
            r#""\ude00""#,
            r#""\x""#,
            "\"a\nb\"",
            r#""\u12"#,
            "\"abc",
        ] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn base64_either_alphabet_and_padding() {
        assert_eq!(decode_base64("/w==").unwrap(), [0xff]);
        assert_eq!(decode_base64("_w").unwrap(), [0xff]);
        assert_eq!(decode_base64("-_8").unwrap(), [0xfb, 0xff]);
        assert!(decode_base64("a").is_none());
        assert!(decode_base64("@@@@").is_none());
    }

    #[test]
    fn errors_point_at_line_and_column() {
        let options = DecodeOptions::default();
        let mut r = JsonReader::new("{\n  \"é\": tru }", &options);
        r.begin_object().unwrap();
        assert_eq!(r.next_key().unwrap().unwrap(), "é");
        let e = r.bool().unwrap_err();
        assert_eq!((e.line(), e.column()), (2, 8));
    }

    /// The guess takes a key only where `next_key` would read the same one, and leaves the
    /// reader as it was otherwise.
    #[test]
    fn a_guessed_key_is_taken_only_as_written() {
        let options = DecodeOptions::default();
        let mut r = JsonReader::new(r#"{"ab":1,"abc":2, "ab":3,"a\u0062":4,"ab" :5}"#, &options);
        r.begin_object().unwrap();
        assert!(!r.next_key_is("a"), "a prefix of the key");
        assert!(!r.next_key_is("abc"), "longer than the key");
        assert!(!r.next_key_is(""), "the empty name never matches");
        assert!(r.next_key_is("ab"));
        assert_eq!(r.i32().unwrap(), 1);
        assert!(!r.next_key_is("ab"));
        assert!(r.next_key_is("abc"), "after the comma");
        assert_eq!(r.i32().unwrap(), 2);
        // Whitespace, an escape or a space before the colon: `next_key` reads them.
        assert!(!r.next_key_is("ab"));
        assert_eq!(r.next_key().unwrap().unwrap(), "ab");
        assert_eq!(r.i32().unwrap(), 3);
        assert!(!r.next_key_is("ab"));
        assert_eq!(r.next_key().unwrap().unwrap(), "ab");
        assert_eq!(r.i32().unwrap(), 4);
        assert!(!r.next_key_is("ab"));
        assert_eq!(r.next_key().unwrap().unwrap(), "ab");
        assert_eq!(r.i32().unwrap(), 5);
        assert!(!r.next_key_is("ab"), "at the closing brace");
        assert!(r.next_key().unwrap().is_none());
        r.finish().unwrap();
        // No comma between two pairs: not a key.
        let mut r = JsonReader::new(r#"{"a":1 "b":2}"#, &options);
        r.begin_object().unwrap();
        assert!(r.next_key_is("a"));
        assert_eq!(r.i32().unwrap(), 1);
        assert!(!r.next_key_is("b"));
        assert!(r.next_key().is_err());
        // Truncated input and an empty object.
        for text in [r#"{"ab"#, r#"{"ab":"#, "{}"] {
            let mut r = JsonReader::new(text, &options);
            r.begin_object().unwrap();
            assert_eq!(r.next_key_is("ab"), text.len() > 5, "{text}");
        }
    }

    #[test]
    fn nesting_is_limited() {
        let options = DecodeOptions {
            limits: crate::DecodeLimits {
                recursion_limit: 3,
                ..crate::DecodeLimits::DEFAULT
            },
            ..DecodeOptions::default()
        };
        // The outermost value is level 0: three levels below it are allowed, as in binary.
        assert!(JsonReader::new("[[[[1]]]]", &options).skip_value().is_ok());
        let e = JsonReader::new("[[[[[1]]]]]", &options)
            .skip_value()
            .unwrap_err();
        assert_eq!(e.kind(), &JsonErrorKind::RecursionLimitExceeded);
    }
}
