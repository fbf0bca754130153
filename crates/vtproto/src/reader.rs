//! The decoder's cursor over a borrowed input, with the recursion limit and the primitives
//! generated `merge_field` code calls.
//!
//! Every read checks the bytes are there before it touches them, and nothing is allocated
//! before the bytes it describes have been seen, so a hostile length prefix costs nothing.

#[allow(unused_imports)]
use crate::prelude::*;

use bytes::Bytes;

use crate::error::{DecodeError, DecodeErrorKind};
use crate::limits::{DecodeLimits, DEFAULT_MEMORY_BUDGET, DEFAULT_RECURSION_LIMIT};
use crate::reuse::RETAIN_SLACK;
use crate::wire::{self, WireType};
use crate::writer::copy_bytes;
use crate::{Message, MessageView, UnknownFields};

/// Where a record's value starts, and its key's bytes if they were overlong (see
/// [`Reader::mark`]).
#[derive(Clone, Copy, Debug)]
pub struct Mark<'a> {
    pub(crate) key: Option<&'a [u8]>,
    pub(crate) value: &'a [u8],
}

/// A cursor over the bytes of one message (or of one length-delimited field inside it).
pub struct Reader<'a> {
    buf: &'a [u8],
    /// Nesting levels still allowed below the current one.
    depth: u32,
    /// The whole input when it is a `Bytes`, so `bytes` fields can share it instead of copying.
    source: Option<&'a Bytes>,
    /// The bytes of the last key read that was written longer than needed (set on that rare
    /// path only): unknown fields keep a record's key as it came, as upb and C++ do.
    overlong_key: &'a [u8],
    /// Bytes the decode may still allocate (see [`Reader::with_memory_budget`]).
    pub(crate) budget: usize,
    /// The budget it started with, for the error.
    budget_start: usize,
    /// Unknown fields, and bytes of them, the decode may still keep (`u32::MAX`: no limit).
    unknown_left: [u32; 2],
    /// The limits those started with, for the error.
    unknown_start: [u32; 2],
}

/// A cap on unknown fields as its error states it (`usize::MAX`: none).
fn unknown_figure(n: u32) -> usize {
    if n == u32::MAX {
        usize::MAX
    } else {
        n as usize
    }
}

#[cold]
#[inline(never)]
fn err<T>(kind: DecodeErrorKind) -> Result<T, DecodeError> {
    Err(DecodeError::new(kind))
}

/// The OR of the bytes of `b`, folded so that any byte with its high bit set leaves a bit of
/// `0x80` set. Up to 32 bytes are read as overlapping windows at `min(8i, n - 8)` (like the
/// writer's short copies): no branch depends on the exact length, which varies from one string
/// to the next and would be mispredicted.
#[inline(always)]
fn or_bytes(b: &[u8]) -> u64 {
    use core::ptr::read_unaligned as rd;
    let n = b.len();
    let p = b.as_ptr();
    if (8..=32).contains(&n) {
        let last = n - 8;
        let mut acc = 0u64;
        let mut i = 0;
        while i < 32 {
            let o = if i < last { i } else { last };
            // SAFETY: `o <= n - 8`, so the 8 bytes at `o` lie within `b`.
            acc |= unsafe { rd(p.add(o).cast::<u64>()) };
            i += 8;
        }
        acc
    } else if (4..8).contains(&n) {
        // SAFETY: `n >= 4`: the 4 bytes at 0 and at `n - 4` lie within `b`.
        let (a, z) = unsafe { (rd(p.cast::<u32>()), rd(p.add(n - 4).cast::<u32>())) };
        u64::from(a | z)
    } else {
        let mut chunks = b.chunks_exact(8);
        let mut acc = 0u64;
        for c in &mut chunks {
            acc |= u64::from_ne_bytes(c.try_into().unwrap());
        }
        for &x in chunks.remainder() {
            acc |= u64::from(x);
        }
        acc
    }
}

/// Validates a `string` field. ASCII strings, the common case, are checked a word at a time
/// without calling the general validator.
#[inline(always)]
fn utf8(bytes: &[u8]) -> Result<&str, DecodeError> {
    if or_bytes(bytes) & 0x8080_8080_8080_8080 == 0 {
        // SAFETY: every byte is below 0x80, and ASCII is valid UTF-8.
        return Ok(unsafe { core::str::from_utf8_unchecked(bytes) });
    }
    match core::str::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(_) => err(DecodeErrorKind::InvalidUtf8),
    }
}

/// `s` as a new `String` of exactly its length, copied inline when short (see the writer's
/// `copy_bytes`) rather than through a `memcpy` call.
#[inline(always)]
pub(crate) fn owned(s: &str) -> String {
    let n = s.len();
    let mut v = Vec::<u8>::with_capacity(n);
    // SAFETY: the new allocation has room for `n` bytes and cannot overlap `s`; `copy_bytes`
    // initializes all `n` of them with the bytes of `s`, which is valid UTF-8.
    unsafe {
        copy_bytes(s.as_bytes(), v.as_mut_ptr());
        v.set_len(n);
        String::from_utf8_unchecked(v)
    }
}

/// The error for a known field number that arrived with the wrong wire type.
#[cold]
#[inline(never)]
pub fn wire_type_mismatch(key: u32) -> DecodeError {
    DecodeError::new(DecodeErrorKind::WireTypeMismatch {
        field_number: key >> 3,
        found: (key & 7) as u8,
    })
}

impl<'a> Reader<'a> {
    /// A reader over `buf` with the default recursion limit and memory budget (the input's
    /// size plus [`DEFAULT_MEMORY_BUDGET`]).
    pub fn new(buf: &'a [u8]) -> Self {
        let budget = buf.len().saturating_add(DEFAULT_MEMORY_BUDGET);
        Reader {
            buf,
            depth: DEFAULT_RECURSION_LIMIT,
            source: None,
            overlong_key: &[],
            budget,
            budget_start: budget,
            unknown_left: [u32::MAX; 2],
            unknown_start: [u32::MAX; 2],
        }
    }

    /// Applies `limits` to this reader: the recursion limit, the memory budget (the input's
    /// size plus [`DecodeLimits::memory_budget`]) and the caps on unknown fields. The input's
    /// size is the caller's to check ([`DecodeLimits::check_input`]), as `Message`'s
    /// `*_with_limits` methods do.
    pub fn with_limits(self, limits: &DecodeLimits) -> Self {
        let budget = limits.budget_for(self.buf.len());
        let cap = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let unknown = [
            cap(limits.max_unknown_fields),
            cap(limits.max_unknown_bytes),
        ];
        Reader {
            unknown_left: unknown,
            unknown_start: unknown,
            ..self
                .with_recursion_limit(limits.recursion_limit)
                .with_memory_budget(budget)
        }
    }

    /// A reader over `bytes`: `bytes`-typed fields decoded as [`Bytes`] share its memory.
    pub fn from_bytes(bytes: &'a Bytes) -> Self {
        Reader {
            source: Some(bytes),
            ..Reader::new(bytes)
        }
    }

    /// Sets how many bytes the decode may allocate for what it reads: each element of a
    /// repeated field or map (its in-memory size), each string and bytes value (its length),
    /// each message value (its struct), each unknown field kept (its record), charged before
    /// the allocation; past it the decode fails with [`DecodeErrorKind::MemoryBudget`]. The
    /// default, the input's size plus [`DEFAULT_MEMORY_BUDGET`], lets any message whose
    /// values take about what its encoding does through (a large `bytes` value costs its
    /// length) and stops the inputs that turn a few bytes into a struct each (a repeated
    /// empty message is 2 bytes on the wire and a whole struct in memory). `usize::MAX` turns
    /// it off.
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.budget = bytes;
        self.budget_start = bytes;
        self
    }

    /// Charges `bytes` to the memory budget, before allocating them.
    #[inline(always)]
    pub fn charge(&mut self, bytes: usize) -> Result<(), DecodeError> {
        match self.budget.checked_sub(bytes) {
            Some(left) => {
                self.budget = left;
                Ok(())
            }
            None => self.over_budget(),
        }
    }

    #[cold]
    #[inline(never)]
    fn over_budget<T>(&self) -> Result<T, DecodeError> {
        err(DecodeErrorKind::MemoryBudget {
            budget: self.budget_start,
        })
    }

    /// A reader over `body`, a part of this reader's input, sharing nothing but its limits
    /// (charges to its budget are the caller's to carry back).
    #[inline(always)]
    fn sub(&self, body: &'a [u8], depth: u32) -> Reader<'a> {
        Reader {
            buf: body,
            depth,
            source: self.source,
            overlong_key: &[],
            budget: self.budget,
            // Only the outermost reader keeps the figures: an error from a nested one gets
            // them on its way out ([`joined`](Self::joined)).
            budget_start: 0,
            unknown_left: self.unknown_left,
            unknown_start: [0; 2],
        }
    }

    /// Runs `f` on a reader over `body` (a packed field's values, at this level), carrying
    /// back what it spends.
    #[inline(always)]
    pub(crate) fn packed_body<T>(
        &mut self,
        body: &'a [u8],
        f: impl FnOnce(&mut Reader<'a>) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        let mut inner = self.sub(body, self.depth);
        let result = f(&mut inner);
        self.joined(&inner, result)
    }

    /// Carries back what a reader made by [`sub`](Self::sub) spent, and gives a limit's error
    /// from it the figures this reader keeps.
    #[inline(always)]
    pub(crate) fn joined<T>(
        &mut self,
        inner: &Reader<'_>,
        result: Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        self.budget = inner.budget;
        self.unknown_left = inner.unknown_left;
        match result {
            Ok(v) => Ok(v),
            Err(e) => Err(self.with_figures(e)),
        }
    }

    /// A limit's error from a nested reader, with the figures of this one (if it keeps them).
    #[cold]
    #[inline(never)]
    fn with_figures(&self, mut e: DecodeError) -> DecodeError {
        match e.kind_mut() {
            DecodeErrorKind::MemoryBudget { budget } if *budget == 0 => *budget = self.budget_start,
            DecodeErrorKind::UnknownFieldLimit {
                max_fields,
                max_bytes,
            } if self.unknown_start != [0; 2] => {
                [*max_fields, *max_bytes] = self.unknown_start.map(unknown_figure);
            }
            _ => {}
        }
        e
    }

    /// Charges an unknown field of `bytes` bytes about to be kept: to the caps on unknown
    /// fields and to the memory budget.
    #[inline]
    pub(crate) fn charge_unknown(&mut self, bytes: usize) -> Result<(), DecodeError> {
        // A cap of `u32::MAX` is no cap: it stays as it is.
        if self.unknown_left != [u32::MAX; 2] {
            let [fields, size] = self.unknown_left;
            let b = u32::try_from(bytes).unwrap_or(u32::MAX);
            let fields = match fields {
                u32::MAX => fields,
                _ => match fields.checked_sub(1) {
                    Some(f) => f,
                    None => return self.over_unknown(),
                },
            };
            let size = match size {
                u32::MAX => size,
                _ => match size.checked_sub(b) {
                    Some(s) => s,
                    None => return self.over_unknown(),
                },
            };
            self.unknown_left = [fields, size];
        }
        self.charge(bytes)
    }

    #[cold]
    #[inline(never)]
    fn over_unknown<T>(&self) -> Result<T, DecodeError> {
        let [max_fields, max_bytes] = self.unknown_start.map(unknown_figure);
        err(DecodeErrorKind::UnknownFieldLimit {
            max_fields,
            max_bytes,
        })
    }

    /// Sets how many levels of nested messages (and groups, and map entries) are allowed.
    pub fn with_recursion_limit(mut self, limit: u32) -> Self {
        self.depth = limit;
        self
    }

    /// Whether all bytes have been consumed.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Bytes left.
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.buf.len()
    }

    /// Reads a varint of up to 10 bytes.
    #[inline(always)]
    pub fn read_varint(&mut self) -> Result<u64, DecodeError> {
        if let Some(&b) = self.buf.first() {
            if b < 0x80 {
                self.buf = &self.buf[1..];
                return Ok(u64::from(b));
            }
        }
        self.read_varint_slow()
    }

    #[inline(never)]
    fn read_varint_slow(&mut self) -> Result<u64, DecodeError> {
        let mut value: u64 = 0;
        for (i, &b) in self.buf.iter().take(10).enumerate() {
            if i == 9 && b > 1 {
                // The tenth byte may only carry bit 63.
                return err(DecodeErrorKind::InvalidVarint);
            }
            value |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.buf = &self.buf[i + 1..];
                return Ok(value);
            }
        }
        if self.buf.len() >= 10 {
            err(DecodeErrorKind::InvalidVarint)
        } else {
            err(DecodeErrorKind::Truncated)
        }
    }

    /// Reads a field key and checks its wire type and field number.
    #[inline(always)]
    pub fn read_key(&mut self) -> Result<u32, DecodeError> {
        let key = match self.buf.first() {
            Some(&b) if b < 0x80 => {
                self.buf = &self.buf[1..];
                u64::from(b)
            }
            _ => self.read_key_slow()?,
        };
        if key > u64::from(u32::MAX) {
            return err(DecodeErrorKind::InvalidKey(key));
        }
        let key = key as u32;
        if key & 7 > 5 {
            return err(DecodeErrorKind::InvalidWireType(key & 7));
        }
        if key < 8 {
            return err(DecodeErrorKind::InvalidKey(u64::from(key)));
        }
        Ok(key)
    }

    /// A key of more than one byte; remembers its bytes if it is longer than needed.
    #[inline(never)]
    fn read_key_slow(&mut self) -> Result<u64, DecodeError> {
        let start = self.buf;
        let v = self.read_varint_slow()?;
        let n = start.len() - self.buf.len();
        if n > wire::varint_len(v) {
            self.overlong_key = &start[..n];
        }
        Ok(v)
    }

    /// The bytes of the key just read if it was written longer than needed.
    #[inline]
    pub(crate) fn overlong_key_just_read(&self) -> Option<&'a [u8]> {
        let k = self.overlong_key;
        (!k.is_empty() && k.as_ptr_range().end == self.buf.as_ptr()).then_some(k)
    }

    #[inline(always)]
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.buf.len() {
            return err(DecodeErrorKind::Truncated);
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    #[inline(always)]
    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        match self.buf.split_first_chunk::<N>() {
            Some((head, tail)) => {
                self.buf = tail;
                Ok(*head)
            }
            None => err(DecodeErrorKind::Truncated),
        }
    }

    /// Reads a length prefix and returns the body it describes.
    #[inline(always)]
    pub fn read_len_delimited(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = self.read_varint()?;
        // Past the input, or past 2 GiB (protobuf's limit) whatever the input's size.
        if len > self.buf.len().min(wire::MAX_MESSAGE_SIZE) as u64 {
            return err(DecodeErrorKind::LengthOutOfBounds(len));
        }
        self.take(len as usize)
    }

    /// Reads an `int32` or enum value (a varint truncated to 32 bits).
    #[inline(always)]
    pub fn read_int32(&mut self) -> Result<i32, DecodeError> {
        self.read_varint().map(|v| v as i32)
    }
    /// Reads an `int64`.
    #[inline(always)]
    pub fn read_int64(&mut self) -> Result<i64, DecodeError> {
        self.read_varint().map(|v| v as i64)
    }
    /// Reads a `uint32`.
    #[inline(always)]
    pub fn read_uint32(&mut self) -> Result<u32, DecodeError> {
        self.read_varint().map(|v| v as u32)
    }
    /// Reads a `uint64`.
    #[inline(always)]
    pub fn read_uint64(&mut self) -> Result<u64, DecodeError> {
        self.read_varint()
    }
    /// Reads a `sint32`.
    #[inline(always)]
    pub fn read_sint32(&mut self) -> Result<i32, DecodeError> {
        self.read_varint().map(|v| wire::unzigzag32(v as u32))
    }
    /// Reads a `sint64`.
    #[inline(always)]
    pub fn read_sint64(&mut self) -> Result<i64, DecodeError> {
        self.read_varint().map(wire::unzigzag64)
    }
    /// Reads a `bool`: any non-zero varint is true.
    #[inline(always)]
    pub fn read_bool(&mut self) -> Result<bool, DecodeError> {
        self.read_varint().map(|v| v != 0)
    }
    /// Reads a `fixed32`.
    #[inline(always)]
    pub fn read_fixed32(&mut self) -> Result<u32, DecodeError> {
        self.take_array().map(u32::from_le_bytes)
    }
    /// Reads a `fixed64`.
    #[inline(always)]
    pub fn read_fixed64(&mut self) -> Result<u64, DecodeError> {
        self.take_array().map(u64::from_le_bytes)
    }
    /// Reads an `sfixed32`.
    #[inline(always)]
    pub fn read_sfixed32(&mut self) -> Result<i32, DecodeError> {
        self.take_array().map(i32::from_le_bytes)
    }
    /// Reads an `sfixed64`.
    #[inline(always)]
    pub fn read_sfixed64(&mut self) -> Result<i64, DecodeError> {
        self.take_array().map(i64::from_le_bytes)
    }
    /// Reads a `float`.
    #[inline(always)]
    pub fn read_float(&mut self) -> Result<f32, DecodeError> {
        self.take_array().map(f32::from_le_bytes)
    }
    /// Reads a `double`.
    #[inline(always)]
    pub fn read_double(&mut self) -> Result<f64, DecodeError> {
        self.take_array().map(f64::from_le_bytes)
    }

    /// Reads a value with `read` (a reader method such as [`Reader::read_int32`]) into `dst`:
    /// generated decoders set a scalar field in one call.
    #[inline(always)]
    pub fn set<T>(
        &mut self,
        dst: &mut T,
        read: impl FnOnce(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<(), DecodeError> {
        *dst = read(self)?;
        Ok(())
    }

    /// Reads a `string` into `dst`, replacing its contents (reusing its allocation if it fits).
    #[inline]
    pub fn merge_string(&mut self, dst: &mut String) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        let s = utf8(body)?;
        // Reused while it fits and is not far larger (see `RETAIN_SLACK`): a string once
        // grown by a large input is given back when a small one comes.
        if dst.capacity() >= s.len() && dst.capacity() <= 2 * s.len() + RETAIN_SLACK {
            dst.clear();
            dst.push_str(s);
        } else {
            // An exact allocation: cheaper than growing an empty string.
            self.charge(s.len())?;
            *dst = owned(s);
        }
        Ok(())
    }

    /// Reads a `string` as a new `String`.
    #[inline]
    pub fn read_string(&mut self) -> Result<String, DecodeError> {
        let body = self.read_len_delimited()?;
        self.charge(body.len())?;
        utf8(body).map(owned)
    }

    /// Reads a `bytes` field into `dst`, replacing its contents.
    #[inline]
    pub fn merge_byte_vec(&mut self, dst: &mut Vec<u8>) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        if dst.capacity() >= body.len() && dst.capacity() <= 2 * body.len() + RETAIN_SLACK {
            dst.clear();
            dst.extend_from_slice(body);
        } else {
            self.charge(body.len())?;
            *dst = body.to_vec();
        }
        Ok(())
    }

    /// Reads a `bytes` field as a new `Vec<u8>`.
    #[inline]
    pub fn read_byte_vec(&mut self) -> Result<Vec<u8>, DecodeError> {
        let body = self.read_len_delimited()?;
        self.charge(body.len())?;
        Ok(body.to_vec())
    }

    /// Reads a `bytes` field as [`Bytes`], sharing the input's memory when it is a `Bytes`.
    #[inline]
    pub fn read_bytes(&mut self) -> Result<Bytes, DecodeError> {
        let body = self.read_len_delimited()?;
        Ok(match self.source {
            Some(src) => src.slice_ref(body),
            None => {
                self.charge(body.len())?;
                Bytes::copy_from_slice(body)
            }
        })
    }

    /// Reads a `bytes` field into a [`Bytes`], replacing it.
    #[inline]
    pub fn merge_bytes(&mut self, dst: &mut Bytes) -> Result<(), DecodeError> {
        *dst = self.read_bytes()?;
        Ok(())
    }

    #[inline(always)]
    fn enter(&mut self) -> Result<u32, DecodeError> {
        if self.depth == 0 {
            return err(DecodeErrorKind::RecursionLimit);
        }
        Ok(self.depth)
    }

    /// Runs `f` on a reader over `body`, one nesting level deeper.
    #[inline(always)]
    pub(crate) fn nested<T>(
        &mut self,
        body: &'a [u8],
        f: impl FnOnce(&mut Reader<'a>) -> Result<T, DecodeError>,
    ) -> Result<T, DecodeError> {
        let depth = self.enter()?;
        let mut inner = self.sub(body, depth - 1);
        let result = f(&mut inner);
        self.joined(&inner, result)
    }

    /// Merges a length-delimited embedded message into `msg`.
    #[inline]
    pub fn merge_message<M: Message>(&mut self, msg: &mut M) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        self.nested(body, |r| msg.merge(r))
    }

    /// Reads a length-delimited embedded message as a new value.
    #[inline]
    pub fn read_message<M: Message>(&mut self) -> Result<M, DecodeError> {
        self.charge(core::mem::size_of::<M>())?;
        let mut msg = M::default();
        self.merge_message(&mut msg)?;
        Ok(msg)
    }

    /// Merges a proto2 group (its start key already read) into `msg`, up to the matching end key.
    pub fn merge_group<M: Message>(
        &mut self,
        msg: &mut M,
        field_number: u32,
    ) -> Result<(), DecodeError> {
        self.group(field_number, |r, key| {
            msg.merge_field(key, r)
                .map_err(|e| e.push(M::NAME, M::field_name(key >> 3)))
        })
    }

    /// Runs `field` on each key of a group (its start key already read) up to the matching end
    /// key, one nesting level deeper.
    #[inline]
    pub(crate) fn group(
        &mut self,
        field_number: u32,
        mut field: impl FnMut(&mut Reader<'a>, u32) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        let depth = self.enter()?;
        self.depth = depth - 1;
        let result = loop {
            if self.is_empty() {
                break err(DecodeErrorKind::Truncated);
            }
            let key = match self.read_key() {
                Ok(k) => k,
                Err(e) => break Err(e),
            };
            if key & 7 == WireType::EndGroup as u32 {
                if key >> 3 == field_number {
                    break Ok(());
                }
                break err(DecodeErrorKind::UnexpectedEndGroup(key >> 3));
            }
            if let Err(e) = field(self, key) {
                break Err(e);
            }
        };
        self.depth = depth;
        result
    }

    /// Reads a `string` as a slice of the input (UTF-8 checked), for views.
    #[inline]
    pub fn read_str(&mut self) -> Result<&'a str, DecodeError> {
        let body = self.read_len_delimited()?;
        utf8(body)
    }

    /// Merges a length-delimited embedded message into the view `view`.
    #[inline]
    pub fn merge_view<V: MessageView<'a>>(&mut self, view: &mut V) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        self.nested(body, |r| view.merge(r))
    }

    /// Reads a length-delimited embedded message as a new view.
    #[inline]
    pub fn read_view<V: MessageView<'a>>(&mut self) -> Result<V, DecodeError> {
        self.charge(core::mem::size_of::<V>())?;
        let mut view = V::default();
        self.merge_view(&mut view)?;
        Ok(view)
    }

    /// Merges a proto2 group (its start key already read) into the view `view`.
    pub fn merge_group_view<V: MessageView<'a>>(
        &mut self,
        view: &mut V,
        field_number: u32,
    ) -> Result<(), DecodeError> {
        self.group(field_number, |r, key| {
            view.merge_field(key, r).map_err(|e| {
                e.push(
                    <V::Owned as Message>::NAME,
                    <V::Owned as Message>::field_name(key >> 3),
                )
            })
        })
    }

    /// Decodes a packed repeated field body, appending each element read by `read` to `dst`.
    ///
    /// `width` is the element size for fixed-width types and 0 for varints; it only sizes the
    /// reservation, which never exceeds what the body can hold.
    #[inline]
    pub fn merge_packed<T>(
        &mut self,
        dst: &mut Vec<T>,
        width: usize,
        mut read: impl FnMut(&mut Reader<'a>) -> Result<T, DecodeError>,
    ) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        let count = match body.len().checked_div(width) {
            Some(n) => n,
            None => body.iter().filter(|&&b| b < 0x80).count(),
        };
        self.charge(count.saturating_mul(core::mem::size_of::<T>()))?;
        dst.reserve(count);
        let mut inner = self.sub(body, self.depth);
        while !inner.is_empty() {
            dst.push(read(&mut inner)?);
        }
        Ok(())
    }

    /// Decodes a packed closed enum: declared numbers (`known`) are appended to `dst`, the
    /// others kept in `unknown` as records of field `number`, as the spec asks.
    #[inline(never)]
    pub fn merge_packed_closed_enum(
        &mut self,
        dst: &mut Vec<i32>,
        unknown: &mut UnknownFields,
        number: u32,
        known: impl Fn(i32) -> bool,
    ) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        let key = wire::key(number, WireType::Varint);
        self.packed_body(body, |inner| {
            while !inner.is_empty() {
                let mark = inner.mark();
                let v = inner.read_int32()?;
                if known(v) {
                    inner.charge(core::mem::size_of::<i32>())?;
                    dst.push(v);
                } else {
                    // Its own record, its varint as it came (upb and C++ do the same).
                    unknown.push_since(key, mark, inner)?;
                }
            }
            Ok(())
        })
    }

    /// Marks the start of a value whose key was just read, for
    /// [`UnknownFields::push_since`]: a closed enum's value read and found undeclared is kept
    /// among unknown fields as it came.
    #[inline(always)]
    pub fn mark(&self) -> Mark<'a> {
        Mark {
            key: self.overlong_key_just_read(),
            value: self.buf,
        }
    }

    /// Decodes one map entry (a length-delimited message with key = 1, value = 2).
    ///
    /// `key` and `value` start as the defaults and are overwritten by the fields present;
    /// `key_key`/`value_key` are the full keys (with wire type) expected for fields 1 and 2.
    ///
    /// A key or value with another wire type is an error, as in prost
    /// ([`merge_map_entry_as_spec`](Reader::merge_map_entry_as_spec) skips it).
    #[inline]
    pub fn merge_map_entry<K, V>(
        &mut self,
        key: &mut K,
        value: &mut V,
        key_key: u32,
        value_key: u32,
        merge_key: impl FnMut(&mut Reader<'a>, &mut K) -> Result<(), DecodeError>,
        merge_value: impl FnMut(&mut Reader<'a>, &mut V) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        self.map_entry::<true, K, V>(key, value, key_key, value_key, merge_key, merge_value)
    }

    /// [`merge_map_entry`](Reader::merge_map_entry) as the spec reads an entry, a message of
    /// its own: a key or value with another wire type is an unknown field of the entry, skipped
    /// (`mode=standalone`, as C++ and upb).
    #[inline]
    pub fn merge_map_entry_as_spec<K, V>(
        &mut self,
        key: &mut K,
        value: &mut V,
        key_key: u32,
        value_key: u32,
        merge_key: impl FnMut(&mut Reader<'a>, &mut K) -> Result<(), DecodeError>,
        merge_value: impl FnMut(&mut Reader<'a>, &mut V) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        self.map_entry::<false, K, V>(key, value, key_key, value_key, merge_key, merge_value)
    }

    #[inline(always)]
    fn map_entry<const STRICT: bool, K, V>(
        &mut self,
        key: &mut K,
        value: &mut V,
        key_key: u32,
        value_key: u32,
        mut merge_key: impl FnMut(&mut Reader<'a>, &mut K) -> Result<(), DecodeError>,
        mut merge_value: impl FnMut(&mut Reader<'a>, &mut V) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        self.charge(core::mem::size_of::<K>() + core::mem::size_of::<V>())?;
        self.nested(body, |r| {
            while !r.is_empty() {
                let k = r.read_key()?;
                if k == key_key {
                    merge_key(r, key)?;
                } else if k == value_key {
                    merge_value(r, value)?;
                } else if STRICT && (k >> 3 == 1 || k >> 3 == 2) {
                    return Err(wire_type_mismatch(k));
                } else {
                    r.skip_field(k)?;
                }
            }
            Ok(())
        })
    }

    /// Decodes a length-delimited embedded message into `msg`, replacing its contents and
    /// reusing its allocations ([`Message::merge_replace`]).
    #[inline]
    pub fn replace_message<M: Message>(&mut self, msg: &mut M) -> Result<(), DecodeError> {
        let body = self.read_len_delimited()?;
        self.nested(body, |r| msg.merge_replace(r))
    }

    /// Decodes a proto2 group (its start key already read) into `msg`, replacing its contents
    /// and reusing its allocations.
    pub fn replace_group<M: Message>(
        &mut self,
        msg: &mut M,
        field_number: u32,
    ) -> Result<(), DecodeError> {
        // A group has no length: find its end key first (however long its varint), then decode
        // what lies before it.
        let start = self.buf;
        let mut scan = Reader { ..*self };
        scan.depth = self.enter()? - 1;
        let body = loop {
            if scan.is_empty() {
                return err(DecodeErrorKind::Truncated);
            }
            let before = scan.buf.len();
            let key = scan.read_key()?;
            if key & 7 == WireType::EndGroup as u32 {
                if key >> 3 != field_number {
                    return err(DecodeErrorKind::UnexpectedEndGroup(key >> 3));
                }
                break &start[..start.len() - before];
            }
            scan.skip_field(key)?;
        };
        self.buf = scan.buf;
        self.nested(body, |r| msg.merge_replace(r))
    }

    /// The string key of a map entry's body (the last occurrence; `""` when absent).
    fn entry_str_key(mut self, key_key: u32) -> Result<&'a str, DecodeError> {
        let mut key = "";
        while !self.is_empty() {
            let k = self.read_key()?;
            if k == key_key {
                key = utf8(self.read_len_delimited()?)?;
            } else if k >> 3 == 1 {
                return Err(wire_type_mismatch(k));
            } else {
                self.skip_field(k)?;
            }
        }
        Ok(key)
    }

    /// Reads a map entry with a string key for `decode_into`: its key (`""` when absent) and a
    /// reader over the entry, from which [`merge_map_value`](Reader::merge_map_value) takes
    /// the value.
    #[inline]
    pub fn read_map_entry_str_key(
        &mut self,
        key_key: u32,
    ) -> Result<(&'a str, Reader<'a>), DecodeError> {
        let body = self.read_len_delimited()?;
        let depth = self.enter()?;
        let entry = self.sub(body, depth - 1);
        let key = Reader { ..entry }.entry_str_key(key_key)?;
        Ok((key, entry))
    }

    /// Merges each value (field 2, `value_key`) of a map entry read by
    /// [`read_map_entry_str_key`](Reader::read_map_entry_str_key) into `value`; the key
    /// (`key_key`) and unknown fields are skipped, known numbers with another wire type are
    /// errors. Returns whether the entry had a value. It reads the entry's reader to its end.
    #[inline]
    pub fn merge_map_value<V>(
        &mut self,
        key_key: u32,
        value_key: u32,
        value: &mut V,
        mut merge: impl FnMut(&mut Reader<'a>, &mut V) -> Result<(), DecodeError>,
    ) -> Result<bool, DecodeError> {
        // The entry's reader is the caller's to use up: read it in place.
        let r = self;
        let mut found = false;
        while !r.is_empty() {
            let k = r.read_key()?;
            if k == value_key {
                merge(r, value)?;
                found = true;
            } else if k >> 3 == 2 || (k >> 3 == 1 && k != key_key) {
                return Err(wire_type_mismatch(k));
            } else {
                r.skip_field(k)?;
            }
        }
        Ok(found)
    }

    /// How many more times `key` occurs in the rest of this message (the value of the current
    /// occurrence not yet read), capped at `cap`. Used to size a repeated field or map once
    /// instead of growing it; the scan stops quietly at malformed data, which the decode that
    /// follows reports. Also capped at what the memory budget has left for `entry`-byte
    /// entries (no such cap for 0): a table reserved ahead of its entries, which are charged
    /// as they are read, is never larger than the budget would let them grow.
    pub fn count_ahead_within(&self, key: u32, cap: usize, entry: usize) -> usize {
        let cap = match self.budget.checked_div(entry) {
            Some(room) => cap.min(room.max(1)),
            None => cap,
        };
        let mut scan = self.sub(self.buf, self.depth);
        if scan.skip_field(key).is_err() {
            return 1;
        }
        let mut n = 1;
        while n < cap && !scan.is_empty() {
            let Ok(k) = scan.read_key() else { break };
            if scan.skip_field(k).is_err() {
                break;
            }
            n += usize::from(k == key);
        }
        n
    }

    /// Skips the value of an unknown field whose key was just read.
    pub fn skip_field(&mut self, key: u32) -> Result<(), DecodeError> {
        if self.depth == 0 {
            return err(DecodeErrorKind::RecursionLimit);
        }
        match WireType::of_key(key) {
            Some(WireType::Varint) => self.read_varint().map(drop),
            Some(WireType::Fixed64) => self.take(8).map(drop),
            Some(WireType::Fixed32) => self.take(4).map(drop),
            Some(WireType::LengthDelimited) => self.read_len_delimited().map(drop),
            Some(WireType::StartGroup) => {
                self.depth -= 1;
                let result = self.skip_group(key >> 3);
                self.depth += 1;
                result
            }
            Some(WireType::EndGroup) => err(DecodeErrorKind::UnexpectedEndGroup(key >> 3)),
            None => err(DecodeErrorKind::InvalidWireType(key & 7)),
        }
    }

    /// Skips the value of a field whose key was just read, like [`skip_field`](Self::skip_field),
    /// and returns the bytes skipped (a group's include its end key).
    #[inline]
    pub fn skip_field_raw(&mut self, key: u32) -> Result<&'a [u8], DecodeError> {
        let start = self.buf;
        self.skip_field(key)?;
        Ok(&start[..start.len() - self.buf.len()])
    }

    fn skip_group(&mut self, field_number: u32) -> Result<(), DecodeError> {
        loop {
            if self.is_empty() {
                return err(DecodeErrorKind::Truncated);
            }
            let key = self.read_key()?;
            if key & 7 == WireType::EndGroup as u32 {
                if key >> 3 == field_number {
                    return Ok(());
                }
                return err(DecodeErrorKind::UnexpectedEndGroup(key >> 3));
            }
            self.skip_field(key)?;
        }
    }

    /// Returns the bytes not read yet and leaves the reader empty.
    pub fn take_rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(r: Result<impl core::fmt::Debug, DecodeError>) -> DecodeErrorKind {
        r.unwrap_err().kind().clone()
    }

    #[test]
    fn varint_edges() {
        assert_eq!(Reader::new(&[0x96, 0x01]).read_varint().unwrap(), 150);
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(Reader::new(&max).read_varint().unwrap(), u64::MAX);
        let bad_tenth = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(
            kind(Reader::new(&bad_tenth).read_varint()),
            DecodeErrorKind::InvalidVarint
        );
        let eleven = [0xff; 11];
        assert_eq!(
            kind(Reader::new(&eleven).read_varint()),
            DecodeErrorKind::InvalidVarint
        );
        assert_eq!(
            kind(Reader::new(&[0x80, 0x80]).read_varint()),
            DecodeErrorKind::Truncated
        );
        assert_eq!(
            kind(Reader::new(&[]).read_varint()),
            DecodeErrorKind::Truncated
        );
    }

    #[test]
    fn huge_length_is_an_error_not_an_allocation() {
        let huge = [
            0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        let mut r = Reader::new(&huge);
        assert_eq!(r.read_key().unwrap(), 0x0a);
        assert_eq!(
            kind(r.read_len_delimited()),
            DecodeErrorKind::LengthOutOfBounds(u64::MAX)
        );
    }

    #[test]
    fn keys_are_validated() {
        assert!(matches!(
            kind(Reader::new(&[0x07]).read_key()),
            DecodeErrorKind::InvalidWireType(7)
        ));
        assert!(matches!(
            kind(Reader::new(&[0x02]).read_key()),
            DecodeErrorKind::InvalidKey(2)
        ));
    }

    #[test]
    fn skip_groups_and_mismatched_end() {
        // field 1 start group, field 2 varint, field 1 end group
        let mut r = Reader::new(&[0x10, 0x05, 0x0c]);
        r.skip_group(1).unwrap();
        assert!(r.is_empty());
        let mut r = Reader::new(&[0x14]);
        assert_eq!(
            kind(r.skip_group(1)),
            DecodeErrorKind::UnexpectedEndGroup(2)
        );
        let mut r = Reader::new(&[0x10, 0x05]);
        assert_eq!(kind(r.skip_group(1)), DecodeErrorKind::Truncated);
    }

    #[test]
    fn utf8_fast_path_agrees_with_std() {
        let cases: &[&[u8]] = &[
            b"",
            b"a",
            b"abcdefgh",
            b"abcdefghi",
            "héllo wörld, ça va".as_bytes(),
            &[0x61; 17],
            &[0x80],
            &[0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0x61, 0xff],
            &[0xc3, 0x28],
            &[0xed, 0xa0, 0x80],
            "𝄞".as_bytes(),
        ];
        for case in cases {
            assert_eq!(utf8(case).ok(), core::str::from_utf8(case).ok(), "{case:?}");
        }
        // Every length the windowed check handles, with one non-ASCII byte at every position.
        for n in 0..=40 {
            let ascii = vec![b'a'; n];
            assert_eq!(
                utf8(&ascii).ok(),
                core::str::from_utf8(&ascii).ok(),
                "n {n}"
            );
            assert_eq!(owned(utf8(&ascii).unwrap()).as_bytes(), &ascii[..]);
            for i in 0..n {
                let mut bad = ascii.clone();
                bad[i] = 0xff;
                assert!(utf8(&bad).is_err(), "n {n}, 0xff at {i}");
            }
        }
    }

    #[test]
    fn count_ahead_counts_one_field() {
        // field 1 "a", field 2 varint, field 1 "", field 1 "bc"; positioned after the first key.
        let bytes = [0x0a, 1, b'a', 0x10, 5, 0x0a, 0, 0x0a, 2, b'b', b'c'];
        let mut r = Reader::new(&bytes);
        assert_eq!(r.read_key().unwrap(), 0x0a);
        assert_eq!(r.count_ahead_within(0x0a, 100, 0), 3);
        assert_eq!(r.count_ahead_within(0x0a, 2, 0), 2);
        // Malformed data ends the count early, without error.
        let mut r = Reader::new(&[0x0a, 1, b'a', 0x0a, 9]);
        r.read_key().unwrap();
        assert_eq!(r.count_ahead_within(0x0a, 100, 0), 1);
    }

    #[test]
    fn invalid_utf8_is_rejected() {
        let mut s = String::new();
        assert_eq!(
            kind(
                Reader::new(&[0x02, 0xc3, 0x28])
                    .merge_string(&mut s)
                    .map(|_| ())
            ),
            DecodeErrorKind::InvalidUtf8
        );
    }
}
