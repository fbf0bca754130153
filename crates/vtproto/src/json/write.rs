//! [`JsonWriter`]: the output side of generated `write_json` code. Keys arrive quoted (both
//! spellings, the options pick one): literals from generated code, or the reflection pool's
//! keys quoted when a file is added; values are formatted
//! straight into one `String`: integers with `itoa`, floats with `zmij` (shortest round-trip),
//! bytes as padded standard base64. It must not know any message: generated code walks fields.

use base64::Engine as _;

use super::EncodeOptions;
use crate::prelude::*;
use crate::writer::copy_bytes;

/// Writes JSON for generated code; see the [module docs](crate::json).
pub struct JsonWriter<'o> {
    out: &'o mut String,
    options: &'o EncodeOptions<'o>,
    /// A value was written at this level: the next key or element needs a comma first.
    comma: bool,
    /// Objects and arrays open, for indentation.
    depth: usize,
    /// The type URL the next object starts with (an `Any`'s message, written as its fields).
    any_type_url: Option<String>,
    /// No indentation and JSON names: keys take [`key`](Self::key)'s inlined path.
    compact_json_names: bool,
}

impl<'o> JsonWriter<'o> {
    /// A writer appending to `out`.
    pub fn new(out: &'o mut String, options: &'o EncodeOptions<'o>) -> Self {
        JsonWriter {
            out,
            options,
            comma: false,
            depth: 0,
            any_type_url: None,
            compact_json_names: options.indent == 0 && !options.use_proto_names,
        }
    }

    /// The options of this call.
    #[inline]
    pub fn options(&self) -> &EncodeOptions<'o> {
        self.options
    }

    /// Whether fields without presence are written at their defaults (empty lists and maps
    /// too): [`EncodeOptions::emit_unpopulated`].
    #[inline]
    pub fn emit_unpopulated(&self) -> bool {
        self.options.emit_unpopulated
    }

    #[inline]
    fn newline(&mut self) {
        if self.options.indent != 0 {
            self.out.push('\n');
            for _ in 0..self.depth * self.options.indent {
                self.out.push(' ');
            }
        }
    }

    /// `{`; an `Any`'s message gets its `"@type"` first.
    #[inline]
    pub fn begin_object(&mut self) {
        self.out.push('{');
        self.comma = false;
        self.depth += 1;
        if self.any_type_url.is_some() {
            self.any_type_entry();
        }
    }

    /// An `Any`'s `"@type": url`, first in its message's object (out of line: the `{` of
    /// every other object is a few instructions where it is inlined).
    #[cold]
    #[inline(never)]
    fn any_type_entry(&mut self) {
        if let Some(url) = self.any_type_url.take() {
            self.key_str("@type");
            self.str(&url);
        }
    }

    /// `}`.
    #[inline]
    pub fn end_object(&mut self) {
        self.depth -= 1;
        if self.comma {
            self.newline();
        }
        self.out.push('}');
        self.comma = true;
    }

    /// `[`.
    #[inline]
    pub fn begin_array(&mut self) {
        self.out.push('[');
        self.comma = false;
        self.depth += 1;
    }

    /// `]`.
    #[inline]
    pub fn end_array(&mut self) {
        self.depth -= 1;
        if self.comma {
            self.newline();
        }
        self.out.push(']');
        self.comma = true;
    }

    /// Before each element of an array.
    #[inline]
    pub fn element(&mut self) {
        if self.comma {
            self.out.push(',');
        }
        self.newline();
    }

    /// A field's key: `json` and `proto` are the JSON name and the proto name, each quoted,
    /// escaped and followed by its colon (`"name":`): literals of generated code, or keys the
    /// reflection pool quoted.
    #[inline]
    pub fn key(&mut self, json: &str, proto: &str) {
        if !self.compact_json_names {
            return self.key_with_options(json, proto);
        }
        // Compact output with JSON names, the default: a few instructions where this is
        // inlined (the literal's length is known there), no call.
        let n = json.len();
        self.out.reserve(n + 1);
        let comma = usize::from(self.comma);
        // SAFETY: `reserve` leaves room for `n + 1` bytes past the length: a comma at the
        // first of them, then the key's `n` bytes from there (no comma due: over it) or after
        // it; `comma + n` bytes are kept, all written: the comma when due, then a whole `str`,
        // so the `String` stays UTF-8.
        unsafe {
            let v = self.out.as_mut_vec();
            let len = v.len();
            let p = v.as_mut_ptr().add(len);
            *p = b',';
            copy_bytes(json.as_bytes(), p.add(comma));
            v.set_len(len + comma + n);
        }
        self.comma = false;
    }

    /// [`key`](Self::key) with indentation or proto names.
    #[inline(never)]
    fn key_with_options(&mut self, json: &str, proto: &str) {
        if self.comma {
            self.out.push(',');
        }
        self.newline();
        self.out.push_str(if self.options.use_proto_names {
            proto
        } else {
            json
        });
        if self.options.indent != 0 {
            self.out.push(' ');
        }
        self.comma = false;
    }

    /// A key known at run time (a map key, a `Struct` field), escaped.
    pub fn key_str(&mut self, key: &str) {
        let n = key.len();
        if self.options.indent == 0 && first_special(key.as_bytes()) == n {
            // Compact output, nothing to escape (most keys): no call.
            if self.comma {
                self.out.push(',');
            }
            quoted(self.out, key);
            self.out.push(':');
            self.comma = false;
            return;
        }
        if self.comma {
            self.out.push(',');
        }
        self.newline();
        self.str(key);
        self.out.push(':');
        if self.options.indent != 0 {
            self.out.push(' ');
        }
        self.comma = false;
    }

    /// A string map's entry, `"key":"value"`: with compact output and nothing to escape (most
    /// entries), the whole entry in one step, one `reserve`; otherwise
    /// [`key_str`](Self::key_str) then [`str`](Self::str).
    #[inline]
    pub fn str_entry(&mut self, key: &str, value: &str) {
        let (k, v) = (key.len(), value.len());
        if self.options.indent != 0
            || first_special(key.as_bytes()) != k
            || first_special(value.as_bytes()) != v
        {
            self.key_str(key);
            self.str(value);
            return;
        }
        let comma = usize::from(self.comma);
        self.out.reserve(k + v + 6);
        // SAFETY: `reserve` leaves room for `k + v + 6` bytes past the length; the
        // `comma + k + v + 5` written from there are all kept and all written: the comma when
        // due, then `"key":"value"` (two whole `str`s between ASCII quotes and a colon), so the
        // `String` stays UTF-8.
        unsafe {
            let out = self.out.as_mut_vec();
            let len = out.len();
            let p = out.as_mut_ptr().add(len);
            *p = b',';
            let p = p.add(comma);
            *p = b'"';
            copy_bytes(key.as_bytes(), p.add(1));
            let p = p.add(k + 1);
            *p = b'"';
            *p.add(1) = b':';
            *p.add(2) = b'"';
            copy_bytes(value.as_bytes(), p.add(3));
            *p.add(v + 3) = b'"';
            out.set_len(len + comma + k + v + 5);
        }
        self.comma = true;
    }

    /// A string map's entries, each as [`str_entry`](Self::str_entry) writes it, the next
    /// entry's bytes prefetched while one is written. Out of line: one copy per map type, not
    /// per map field (inlined, with `str_entry` twice in it, it added 2 G of rustc
    /// instructions to a release build of aiplatform's imports).
    #[inline(never)]
    pub fn str_entries<'m, K, V, I>(&mut self, entries: I)
    where
        K: AsRef<str> + ?Sized + 'm,
        V: AsRef<str> + ?Sized + 'm,
        I: IntoIterator<Item = (&'m K, &'m V)>,
    {
        let mut it = entries.into_iter();
        let Some(mut cur) = it.next() else {
            return;
        };
        for next in it {
            prefetch(next.0.as_ref().as_ptr());
            prefetch(next.1.as_ref().as_ptr());
            self.str_entry(cur.0.as_ref(), cur.1.as_ref());
            cur = next;
        }
        self.str_entry(cur.0.as_ref(), cur.1.as_ref());
    }

    /// A map key that is a number or a bool, quoted.
    pub fn key_display(&mut self, key: impl MapKey) {
        if self.comma {
            self.out.push(',');
        }
        self.newline();
        self.out.push('"');
        key.write(self.out);
        self.out.push_str("\":");
        if self.options.indent != 0 {
            self.out.push(' ');
        }
        self.comma = false;
    }

    /// `null`.
    pub fn null(&mut self) {
        self.out.push_str("null");
        self.comma = true;
    }

    /// `true` or `false`.
    #[inline]
    pub fn bool(&mut self, v: bool) {
        self.out.push_str(if v { "true" } else { "false" });
        self.comma = true;
    }

    /// A 32-bit integer, as a JSON number.
    pub fn i32(&mut self, v: i32) {
        append(self.out, itoa::Buffer::new().format(v));
        self.comma = true;
    }

    /// An unsigned 32-bit integer, as a JSON number.
    pub fn u32(&mut self, v: u32) {
        append(self.out, itoa::Buffer::new().format(v));
        self.comma = true;
    }

    /// A 64-bit integer, as a string (JSON numbers lose precision past 2^53).
    pub fn i64(&mut self, v: i64) {
        quoted(self.out, itoa::Buffer::new().format(v));
        self.comma = true;
    }

    /// An unsigned 64-bit integer, as a string.
    pub fn u64(&mut self, v: u64) {
        quoted(self.out, itoa::Buffer::new().format(v));
        self.comma = true;
    }

    /// A `double`: the shortest decimal that reads back to it, or `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`.
    pub fn f64(&mut self, v: f64) {
        append(self.out, v.format(&mut zmij::Buffer::new()));
        self.comma = true;
    }

    /// A `double` field: its key ([`key`](Self::key)'s arguments), then the value as
    /// [`f64`](Self::f64) writes it, but formatted before the key is written. Copying digits
    /// right after `zmij` wrote them stalls (the loads overlap its recent stores of other
    /// widths, which the store buffer cannot forward); writing the key first gives the stores
    /// time to land. Out of line, as [`f64`](Self::f64) is: the order pays, not inlining.
    #[inline(never)]
    pub fn f64_field(&mut self, json: &'static str, proto: &'static str, v: f64) {
        let mut buf = zmij::Buffer::new();
        let text = v.format(&mut buf);
        self.key(json, proto);
        append(self.out, text);
        self.comma = true;
    }

    /// A `float` field, as [`f64_field`](Self::f64_field) writes a `double`.
    #[inline(never)]
    pub fn f32_field(&mut self, json: &'static str, proto: &'static str, v: f32) {
        let mut buf = zmij::Buffer::new();
        let text = v.format(&mut buf);
        self.key(json, proto);
        append(self.out, text);
        self.comma = true;
    }

    /// A repeated `double`'s elements, each as [`f64`](Self::f64) writes it, after
    /// [`begin_array`](Self::begin_array).
    pub fn f64_elements(&mut self, vs: &[f64]) {
        self.float_elements(vs);
    }

    /// A repeated `float`'s elements, each as [`f32`](Self::f32) writes it, after
    /// [`begin_array`](Self::begin_array).
    pub fn f32_elements(&mut self, vs: &[f32]) {
        self.float_elements(vs);
    }

    /// Floats four at a time: all four formatted before any is copied out, so that the
    /// copies do not wait for `zmij`'s stores (see [`f64_field`](Self::f64_field)): 1,000
    /// events 0.65 -> 0.62 of pbjson's time (`cargo run --release -p vt-benches --example
    /// json_ratio -- B_event`, three alternated runs of both builds).
    fn float_elements<F: Float>(&mut self, vs: &[F]) {
        for chunk in vs.chunks(4) {
            let mut bufs = [
                zmij::Buffer::new(),
                zmij::Buffer::new(),
                zmij::Buffer::new(),
                zmij::Buffer::new(),
            ];
            let mut texts = [""; 4];
            for ((b, t), &v) in bufs.iter_mut().zip(texts.iter_mut()).zip(chunk) {
                *t = v.format(b);
            }
            for t in &texts[..chunk.len()] {
                self.element();
                append(self.out, t);
                self.comma = true;
            }
        }
    }

    /// A `float`: the shortest decimal that reads back to it as a `float`.
    pub fn f32(&mut self, v: f32) {
        append(self.out, v.format(&mut zmij::Buffer::new()));
        self.comma = true;
    }

    /// A string, quoted and escaped.
    pub fn str(&mut self, v: &str) {
        let plain = first_special(v.as_bytes());
        if plain == v.len() {
            // The common case, nothing to escape.
            quoted(self.out, v);
        } else {
            self.str_escaped(v, plain);
        }
        self.comma = true;
    }

    /// [`str`](Self::str) of a string with a byte to escape at `plain`.
    #[cold]
    #[inline(never)]
    fn str_escaped(&mut self, v: &str, plain: usize) {
        self.out.reserve(v.len() + 8);
        self.out.push('"');
        self.out.push_str(&v[..plain]);
        escape_into(&v[plain..], self.out);
        self.out.push('"');
    }

    /// Bytes, as standard base64 with padding.
    pub fn bytes(&mut self, v: &[u8]) {
        let engine = &base64::engine::general_purpose::STANDARD;
        // Straight into the output: `encode_string` goes through a zeroed 1 KiB buffer and
        // checks its own output as UTF-8, most of the cost of a short id.
        match base64::encoded_len(v.len(), true) {
            Some(n) => {
                // SAFETY: the vector only grows by ASCII bytes: `resize` appends `n + 2`
                // quotes, then `encode_slice` overwrites the `n` between the first and the
                // last with base64's alphabet and padding (ASCII), so the `String` stays
                // UTF-8 whatever `encode_slice` returns; neither panics with the `String`
                // invalid.
                let out = unsafe { self.out.as_mut_vec() };
                let len = out.len();
                out.resize(len + n + 2, b'"');
                let written = engine.encode_slice(v, &mut out[len + 1..len + 1 + n]);
                debug_assert_eq!(written.ok(), Some(n));
            }
            // Longer than any slice in memory can be: unreachable, kept panic-free.
            None => {
                self.out.push('"');
                engine.encode_string(v, self.out);
                self.out.push('"');
            }
        }
        self.comma = true;
    }

    /// An enum value: its name (from the generated lookup) unless the options ask for numbers
    /// or the number has no name.
    pub fn enum_value(&mut self, number: i32, name: Option<&str>) {
        match name {
            Some(name) if !self.options.enums_as_ints => {
                // Names are identifiers: nothing to escape.
                quoted(self.out, name);
                self.comma = true;
            }
            _ => self.i32(number),
        }
    }

    /// Raw JSON text, already valid (a well-known type's string form, quoted by the caller).
    pub fn raw(&mut self, json: &str) {
        self.out.push_str(json);
        self.comma = true;
    }

    /// Makes the next object an `Any`'s: it starts with `"@type": url`.
    pub(crate) fn set_any_type_url(&mut self, url: &str) {
        self.any_type_url = Some(url.into());
    }

    /// Objects and arrays open.
    pub(crate) fn depth(&self) -> usize {
        self.depth
    }

    /// The output so far (for well-known types that format into it).
    pub(crate) fn out(&mut self) -> &mut String {
        self.out
    }

    /// Marks that a value was written through [`out`](Self::out).
    pub(crate) fn wrote_value(&mut self) {
        self.comma = true;
    }
}

/// Appends `s` to `out`, copied inline when short (the binary writer's `copy_bytes`) instead
/// of through a `memcpy` call, which costs more than the copy for the short strings and
/// numbers JSON is made of.
#[inline(always)]
fn append(out: &mut String, s: &str) {
    out.reserve(s.len());
    // SAFETY: `reserve` leaves room for `s.len()` bytes past the length, which `copy_bytes`
    // writes, all of them, from `s` (not within `out`'s buffer: `out` is borrowed mutably);
    // the bytes are a whole `str` appended to a `String`, so the result stays UTF-8.
    unsafe {
        let v = out.as_mut_vec();
        let len = v.len();
        copy_bytes(s.as_bytes(), v.as_mut_ptr().add(len));
        v.set_len(len + s.len());
    }
}

/// Appends `s` between quotes (nothing in it to escape), as [`append`] does.
#[inline(always)]
fn quoted(out: &mut String, s: &str) {
    let n = s.len();
    out.reserve(n + 2);
    // SAFETY: as in `append`, with room for `n + 2` bytes: the two quotes and the `n` bytes
    // of `s` between them, all written; ASCII quotes around a whole `str` keep it UTF-8.
    unsafe {
        let v = out.as_mut_vec();
        let len = v.len();
        let p = v.as_mut_ptr().add(len);
        *p = b'"';
        copy_bytes(s.as_bytes(), p.add(1));
        *p.add(n + 1) = b'"';
        v.set_len(len + n + 2);
    }
}

fn non_finite(nan: bool, positive: bool) -> &'static str {
    match (nan, positive) {
        (true, _) => "\"NaN\"",
        (false, true) => "\"Infinity\"",
        (false, false) => "\"-Infinity\"",
    }
}

/// A `double` or a `float` as JSON writes it.
trait Float: zmij::Float + Copy {
    /// The shortest decimal that reads back to `self`, in `buf`, or `"NaN"`, `"Infinity"`,
    /// `"-Infinity"` (quoted).
    fn format(self, buf: &mut zmij::Buffer) -> &str;
}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            #[inline(always)]
            fn format(self, buf: &mut zmij::Buffer) -> &str {
                if self.is_finite() {
                    buf.format_finite(self)
                } else {
                    non_finite(self.is_nan(), self > 0.0)
                }
            }
        }
    )*};
}
float!(f32, f64);

/// The index of the first byte of `bytes` that a JSON string cannot hold as it is (`"`, `\`,
/// a control character), or `bytes.len()`. Whole words at a time, without a loop over single
/// bytes: most strings have none and are short (ids, keys), and a byte loop's exit, at a
/// different length each time, was the most mispredicted branch of writing them.
#[inline(always)]
pub(crate) fn first_special(bytes: &[u8]) -> usize {
    let n = bytes.len();
    if n < 8 {
        return first_special_short(bytes);
    }
    let mut i = 0;
    while i + 8 <= n {
        let mask = special_mask(word(bytes, i));
        if mask != 0 {
            return i + (mask.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    if i == n {
        return n;
    }
    // The last 8 bytes, of which the first `i - (n - 8)` were checked already.
    let mask = special_mask(word(bytes, n - 8)) >> (8 * (i - (n - 8)));
    if mask != 0 {
        i + (mask.trailing_zeros() / 8) as usize
    } else {
        n
    }
}

/// [`first_special`] of fewer than 8 bytes: two overlapping 4-byte loads, or the first,
/// middle and last byte (which are all the bytes when there are at most 3).
#[inline]
fn first_special_short(bytes: &[u8]) -> usize {
    let n = bytes.len();
    if n >= 4 {
        let low = u32::from_le_bytes(bytes[..4].try_into().unwrap_or_default());
        let high = u32::from_le_bytes(bytes[n - 4..].try_into().unwrap_or_default());
        let mask = special_mask(u64::from(low) | u64::from(high) << 32);
        return match (mask.trailing_zeros() / 8) as usize {
            8 => n,
            j if j < 4 => j,
            j => n + j - 8,
        };
    }
    let Some(&first) = bytes.first() else {
        return 0;
    };
    // Positions 0, n / 2 and n - 1 cover 0..n for n <= 3, in order; the other bytes are
    // plain ('a').
    let w = u64::from_le_bytes([
        first,
        bytes[n / 2],
        bytes[n - 1],
        b'a',
        b'a',
        b'a',
        b'a',
        b'a',
    ]);
    match special_mask(w).trailing_zeros() / 8 {
        0 => 0,
        1 => n / 2,
        2 => n - 1,
        _ => n,
    }
}

/// 8 bytes of `bytes` from `at` (in bounds), little-endian: byte `at` is the lowest.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
}

/// The high bit of each byte of `w` that is `"`, `\` or below 0x20, set at least for the
/// lowest such byte and for none below it (a borrow only runs upward from a byte that
/// matches), so `trailing_zeros() / 8` is the first one's index.
#[inline(always)]
fn special_mask(w: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let quote = w ^ (ONES * u64::from(b'"'));
    let backslash = w ^ (ONES * u64::from(b'\\'));
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let quote = quote.wrapping_sub(ONES) & !quote;
    let backslash = backslash.wrapping_sub(ONES) & !backslash;
    (control | quote | backslash) & HIGHS
}

/// `v` escaped for a JSON string: `"`, `\` and control characters; runs of plain characters
/// are copied at once.
fn escape_into(v: &str, out: &mut String) {
    let bytes = v.as_bytes();
    let mut start = 0;
    loop {
        let i = start + first_special(&bytes[start..]);
        // `i` is at an ASCII byte or the end, so a character boundary.
        out.push_str(&v[start..i]);
        let Some(&b) = bytes.get(i) else {
            return;
        };
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            _ => "",
        };
        if escaped.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        } else {
            out.push_str(escaped);
        }
        start = i + 1;
    }
}

/// A map key that is not a string: written quoted, as ProtoJSON's map keys are.
pub trait MapKey {
    /// Appends the key's text (unquoted).
    fn write(self, out: &mut String);
}

macro_rules! int_keys {
    ($($t:ty),*) => {$(
        impl MapKey for $t {
            fn write(self, out: &mut String) {
                append(out, itoa::Buffer::new().format(self));
            }
        }
    )*};
}
int_keys!(i32, i64, u32, u64);

impl MapKey for bool {
    fn write(self, out: &mut String) {
        out.push_str(if self { "true" } else { "false" });
    }
}

/// Asks for the cache line at `p` ahead of its use: a hint that reads nothing, so any address
/// will do (a dangling one included). Large messages are memory-bound where their strings are
/// scattered on the heap: prefetching a string map's next entry while one is written took
/// 2,000 candidates from 0.62 to 0.59 of pbjson's time (`cargo run --release -p vt-benches
/// --example json_ratio -- A_cand`).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `_mm_prefetch` only hints the cache; it neither reads nor faults, whatever `p`.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(options: &EncodeOptions<'_>, f: impl FnOnce(&mut JsonWriter<'_>)) -> String {
        let mut out = String::new();
        f(&mut JsonWriter::new(&mut out, options));
        out
    }

    #[test]
    fn the_scan_finds_the_first_special_byte() {
        for len in 0..40 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0, 0x1f] {
                    let mut bytes = vec![b'a'; len];
                    // Bytes around the specials: the high ones and those next to them.
                    for (i, b) in bytes.iter_mut().enumerate() {
                        *b = [b'a', 0xc3, 0xa9, 0x20, b'#', b']', 0x7f][i % 7];
                    }
                    if at < len {
                        bytes[at] = special;
                    }
                    assert_eq!(first_special(&bytes), at, "{len} {at} {special}");
                }
            }
        }
    }

    #[test]
    fn appends_copy_every_length_exactly() {
        // The inline copies (run under Miri by scripts/miri.sh): every length up to 80, each
        // after text already there, into a buffer that has room and into one that must grow.
        let text: String = "aé\u{1F600}b".chars().cycle().take(80).collect();
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            let s = &text[..end];
            for room in [0, 200] {
                let mut out = String::with_capacity(room);
                out.push('x');
                append(&mut out, s);
                quoted(&mut out, s);
                assert_eq!(out, format!("x{s}\"{s}\""));
            }
        }
    }

    #[test]
    fn floats_write_as_one_by_one() {
        // Batches of four: 0 to 9 elements (empty, partial and whole batches), the special
        // values among them, compact and indented, `double` and `float`.
        let doubles = [
            0.1,
            -0.0,
            f64::NAN,
            1e300,
            f64::INFINITY,
            5e-324,
            f64::NEG_INFINITY,
            123.45,
            -1.0,
        ];
        for options in [
            EncodeOptions::default(),
            EncodeOptions {
                indent: 2,
                ..Default::default()
            },
        ] {
            for n in 0..=doubles.len() {
                let (d, f): (&[f64], Vec<f32>) = (
                    &doubles[..n],
                    doubles[..n].iter().map(|&d| d as f32).collect(),
                );
                let batched = with(&options, |w| {
                    w.begin_array();
                    w.f64_elements(d);
                    w.end_array();
                    w.begin_array();
                    w.f32_elements(&f);
                    w.end_array();
                });
                let one_by_one = with(&options, |w| {
                    w.begin_array();
                    for &v in d {
                        w.element();
                        w.f64(v);
                    }
                    w.end_array();
                    w.begin_array();
                    for &v in &f {
                        w.element();
                        w.f32(v);
                    }
                    w.end_array();
                });
                assert_eq!(batched, one_by_one, "{n} elements");
            }
            // A field's number formatted before its key is written, first and later.
            for &v in &doubles {
                let fields = with(&options, |w| {
                    w.begin_object();
                    w.f64_field("\"d\":", "\"d_\":", v);
                    w.f32_field("\"f\":", "\"f_\":", v as f32);
                    w.end_object();
                });
                let one_by_one = with(&options, |w| {
                    w.begin_object();
                    w.key("\"d\":", "\"d_\":");
                    w.f64(v);
                    w.key("\"f\":", "\"f_\":");
                    w.f32(v as f32);
                    w.end_object();
                });
                assert_eq!(fields, one_by_one, "{v}");
            }
        }
    }

    #[test]
    fn string_map_entries_write_as_one_by_one() {
        // `str_entries` (whose prefetches read the next entry's bytes, empty strings' dangling
        // pointers included) writes what `str_entry` writes entry by entry, for 0 to 5
        // entries, plain, escaped and empty, compact and indented.
        let pairs: Vec<(String, String)> = ["a", "", "k\"ey", "long key ".repeat(9).as_str(), "z"]
            .iter()
            .zip(["v", "", "line\n", "é\u{1F600}", "x".repeat(70).as_str()])
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for options in [
            EncodeOptions::default(),
            EncodeOptions {
                indent: 2,
                ..Default::default()
            },
        ] {
            for n in 0..=pairs.len() {
                let entries = &pairs[..n];
                let batched = with(&options, |w| {
                    w.begin_object();
                    w.str_entries(entries.iter().map(|(k, v)| (k, v)));
                    w.end_object();
                });
                let one_by_one = with(&options, |w| {
                    w.begin_object();
                    for (k, v) in entries {
                        w.str_entry(k, v);
                    }
                    w.end_object();
                });
                assert_eq!(batched, one_by_one, "{n} entries");
            }
        }
    }

    #[test]
    fn string_map_entries_write_as_a_key_then_a_string() {
        // The one-step path (run under Miri by scripts/miri.sh) at every pair of lengths up
        // to 70, first and later in an object, into a buffer with room and one that must
        // grow; and the fallbacks: a byte to escape, indentation.
        let text: String = "aé\u{1F600}b".chars().cycle().take(70).collect();
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let compact = EncodeOptions::default();
        for &k in &cuts {
            for &v in cuts.iter().step_by(9) {
                let (key, value) = (&text[..k], &text[k.min(v)..v.max(k)]);
                for room in [0, 400] {
                    let mut out = String::with_capacity(room);
                    let mut w = JsonWriter::new(&mut out, &compact);
                    w.begin_object();
                    w.str_entry(key, value);
                    w.str_entry(value, key);
                    w.end_object();
                    assert_eq!(
                        out,
                        format!("{{\"{key}\":\"{value}\",\"{value}\":\"{key}\"}}")
                    );
                }
            }
        }
        let out = with(&compact, |w| {
            w.begin_object();
            w.str_entry("a\"", "b");
            w.str_entry("c", "d\n");
            w.end_object();
        });
        assert_eq!(out, r#"{"a\"":"b","c":"d\n"}"#);
        let pretty = EncodeOptions {
            indent: 2,
            ..EncodeOptions::default()
        };
        let out = with(&pretty, |w| {
            w.begin_object();
            w.str_entry("a", "b");
            w.str_entry("c", "d");
            w.end_object();
        });
        assert_eq!(out, "{\n  \"a\": \"b\",\n  \"c\": \"d\"\n}");
    }

    #[test]
    fn bytes_write_as_base64_at_every_length() {
        // The in-place encoding (run under Miri by scripts/miri.sh): every length up to 70
        // (each padding), after text already there, into a buffer with room and one that must
        // grow, against the crate's own `encode`.
        let data: Vec<u8> = (0..70u8).map(|i| i.wrapping_mul(37) ^ 0xa5).collect();
        let compact = EncodeOptions::default();
        for n in 0..=data.len() {
            for room in [0, 200] {
                let mut out = String::with_capacity(room);
                out.push('é');
                let mut w = JsonWriter::new(&mut out, &compact);
                w.begin_array();
                w.element();
                w.bytes(&data[..n]);
                w.element();
                w.bytes(&data[n..]);
                w.end_array();
                let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
                let want = format!("é[\"{}\",\"{}\"]", b64(&data[..n]), b64(&data[n..]));
                assert_eq!(out, want);
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "11,000 strings escaped twice: minutes under Miri")]
    fn escapes_match_a_char_by_char_reference() {
        // Each ASCII character and a few others, alone and between plain runs of 0 to 20
        // bytes, once and twice, against the escaping written out character by character.
        let reference = |v: &str| {
            let mut out = String::from("\"");
            for c in v.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        };
        let specials = (0u8..0x80)
            .map(char::from)
            .chain(['é', '\u{1F600}', '\u{7f}']);
        for c in specials {
            for run in 0..=20 {
                let plain = "ab".repeat(run / 2 + 1)[..run].to_string();
                for v in [
                    format!("{c}"),
                    format!("{plain}{c}"),
                    format!("{c}{plain}"),
                    format!("{plain}{c}{plain}{c}{plain}"),
                ] {
                    let out = with(&EncodeOptions::default(), |w| w.str(&v));
                    assert_eq!(out, reference(&v), "{v:?}");
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "a million scans: minutes under Miri")]
    fn the_scan_agrees_with_a_byte_loop_on_every_byte_value() {
        let naive = |b: &[u8]| {
            b.iter()
                .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
                .unwrap_or(b.len())
        };
        // Every byte value at every position of every length up to 24, over plain text and
        // over text of bytes next to the specials (so that borrows cross bytes).
        for len in 1..25 {
            for at in 0..len {
                for v in 0..=255u8 {
                    for fill in [b'a', 0x21, 0x23, 0x5d, 0x80, 0xa0, 0xff] {
                        let mut bytes = vec![fill; len];
                        bytes[at] = v;
                        assert_eq!(first_special(&bytes), naive(&bytes), "{bytes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn values_and_separators() {
        let compact = EncodeOptions::default();
        let out = with(&compact, |w| {
            w.begin_object();
            w.key("\"a\":", "\"a_\":");
            w.begin_array();
            for v in [1.5, f64::NAN, f64::NEG_INFINITY, 1e300] {
                w.element();
                w.f64(v);
            }
            w.end_array();
            w.key("\"b\":", "\"b_\":");
            w.i64(-9007199254740993);
            w.key_str("q\"\u{1}\\");
            w.bytes(b"\xff\x00");
            w.key_display(true);
            w.f32(0.1);
            w.end_object();
        });
        assert_eq!(
            out,
            r#"{"a":[1.5,"NaN","-Infinity",1e+300],"b":"-9007199254740993","q\"\u0001\\":"/wA=","true":0.1}"#
        );
        let pretty = EncodeOptions {
            indent: 2,
            use_proto_names: true,
            ..EncodeOptions::default()
        };
        let out = with(&pretty, |w| {
            w.begin_object();
            w.key("\"a\":", "\"a_\":");
            w.begin_array();
            w.end_array();
            w.key("\"b\":", "\"b_\":");
            w.begin_object();
            w.key_display(7u32);
            w.enum_value(1, Some("ONE"));
            w.end_object();
            w.end_object();
        });
        assert_eq!(
            out,
            "{\n  \"a_\": [],\n  \"b_\": {\n    \"7\": \"ONE\"\n  }\n}"
        );
    }
}
