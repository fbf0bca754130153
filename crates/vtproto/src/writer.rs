//! The backward writer: fills a buffer from its end toward its start.
//!
//! Fields are written last-to-first, so the bytes come out in field-number order. A
//! length-delimited value is written body first; its length is then `written() - mark`, a
//! subtraction instead of a second sizing walk. The writer never writes outside its buffer.
//! Over a fixed buffer, running out of room means `size` and `encode_reverse` disagree, a bug,
//! and panics; over a `Vec` ([`ReverseWriter::growable`]) it moves what it wrote to the end of
//! a buffer twice as large and goes on.

#[allow(unused_imports)]
use crate::prelude::*;

use core::marker::PhantomData;
use core::mem::MaybeUninit;

use bytes::buf::UninitSlice;

use crate::wire;

/// Writes protobuf data backward into a fixed buffer, which may be uninitialized.
///
/// Every write goes through one bounds check (the private `claim`); the writes themselves
/// are raw. Against bounds-checked writes into a `bytes::UninitSlice`, that made encoding the
/// 2,000-candidate workload 16% faster (`benches/RESULTS.md`, "How we got here").
pub struct ReverseWriter<'a> {
    /// Start of the buffer, valid for writes of `len` bytes for `'a`.
    ptr: *mut u8,
    len: usize,
    /// Bytes `pos..len` are written; `..pos` are free.
    pos: usize,
    /// In growable mode, the `Vec` whose spare capacity is the buffer (its length stays 0).
    grow: Option<&'a mut Vec<u8>>,
    /// Map entries are written in key order (see [`ReverseWriter::set_deterministic`]).
    deterministic: bool,
    _buf: PhantomData<&'a mut [MaybeUninit<u8>]>,
}

#[cold]
#[inline(never)]
#[track_caller]
fn overflow(need: usize, left: usize) -> ! {
    panic!(
        "vtproto: message wrote more than its size() ({need} bytes with {left} left); \
         size and encode_reverse disagree"
    )
}

/// Copies `src` to `dst`. Strings in messages are mostly short, and a `memcpy` call costs more
/// than the copy for them: up to 64 bytes are copied inline.
///
/// Lengths of 4 to 16 bytes, the common case for keys and short values, share one path
/// without branches: four 4-byte windows at offsets `min(4i, n - 4)`; so do 17 to 64 bytes
/// (ids, cursors, names), with four 16-byte windows at `min(16i, n - 16)`. A branch per length
/// class (4, 8, 16, 32) is mispredicted whenever consecutive strings differ in class, as map
/// entries in hash order do; on fresh data (a different message each call, so the branch
/// predictor cannot learn the sequence) the single short path encoded workload A 24-26% faster
/// (`benches/RESULTS.md`).
///
/// # Safety
/// `dst` must be valid for `src.len()` writes and not overlap `src`.
#[inline(always)]
pub(crate) unsafe fn copy_bytes(src: &[u8], dst: *mut u8) {
    use core::ptr::copy_nonoverlapping;
    let n = src.len();
    let s = src.as_ptr();
    // SAFETY (all branches): each read is within `src` and each write within the `n` bytes at
    // `dst` (the caller's contract); `copy_windows` gets 17 to 64 bytes for 16-byte windows and
    // 4 to 16 for 4-byte ones, within its bounds; unaligned accesses are used throughout.
    unsafe {
        if n > 64 {
            copy_nonoverlapping(s, dst, n);
        } else if n > 16 {
            copy_windows::<u128>(s, dst, n);
        } else if n >= 4 {
            copy_windows::<u32>(s, dst, n);
        } else if n > 0 {
            *dst = *s;
            *dst.add(n / 2) = *s.add(n / 2);
            *dst.add(n - 1) = *s.add(n - 1);
        }
    }
}

/// Copies `n` bytes as four windows of `W`'s size at offsets `min(i * size, n - size)`, some
/// overlapping: one path without branches for `size <= n <= 4 * size` bytes.
///
/// # Safety
/// `s` must be valid for `n` reads and `dst` for `n` writes, not overlapping, with
/// `size_of::<W>() <= n <= 4 * size_of::<W>()`.
#[inline(always)]
unsafe fn copy_windows<W>(s: *const u8, dst: *mut u8, n: usize) {
    use core::ptr::{read_unaligned as rd, write_unaligned as wr};
    let size = core::mem::size_of::<W>();
    let last = n - size;
    let mut i = 0;
    while i < 4 * size {
        let o = if i < last { i } else { last };
        // SAFETY: `o <= n - size`, so the window lies within both `n`-byte ranges.
        unsafe { wr(dst.add(o).cast::<W>(), rd(s.add(o).cast::<W>())) };
        i += size;
    }
}

/// Writes `v` as a varint at `p` and returns the pointer past it.
///
/// # Safety
/// `p` must be valid for `varint_len(v)` writes.
#[inline(always)]
unsafe fn forward_varint(mut p: *mut u8, mut v: u64) -> *mut u8 {
    // SAFETY: guaranteed by the caller; exactly `varint_len(v)` bytes are written.
    unsafe {
        while v >= 0x80 {
            *p = (v as u8) | 0x80;
            p = p.add(1);
            v >>= 7;
        }
        *p = v as u8;
        p.add(1)
    }
}

impl<'a> ReverseWriter<'a> {
    /// A writer over the `len` bytes at `ptr`, which the caller borrows mutably for `'a`.
    fn fixed(ptr: *mut u8, len: usize) -> Self {
        ReverseWriter {
            ptr,
            len,
            pos: len,
            grow: None,
            deterministic: false,
            _buf: PhantomData,
        }
    }

    /// A writer over an initialized buffer; the message ends at the buffer's end.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Self::fixed(buf.as_mut_ptr(), buf.len())
    }

    /// A writer over uninitialized memory, such as a `Vec`'s spare capacity.
    pub fn new_uninit(buf: &'a mut [MaybeUninit<u8>]) -> Self {
        Self::fixed(buf.as_mut_ptr().cast(), buf.len())
    }

    /// A writer over a [`bytes::BufMut`] chunk.
    pub fn from_uninit_slice(buf: &'a mut UninitSlice) -> Self {
        Self::fixed(buf.as_mut_ptr(), buf.len())
    }

    /// A writer over the spare capacity of `buf` that grows it when it runs out of room: what
    /// was written moves to the end of a buffer at least twice as large. `buf` is cleared;
    /// the result is [`written_bytes`](Self::written_bytes), at the end of its capacity.
    pub fn growable(buf: &'a mut Vec<u8>) -> Self {
        buf.clear();
        let len = buf.capacity();
        ReverseWriter {
            ptr: buf.as_mut_ptr(),
            len,
            pos: len,
            grow: Some(buf),
            deterministic: false,
            _buf: PhantomData,
        }
    }

    /// Asks generated code to write map entries in key order, so that equal values encode to
    /// equal bytes whatever the maps' iteration order (protobuf's "deterministic"
    /// serialization). Off by default: hash maps are then written in their own order.
    pub fn set_deterministic(&mut self, on: bool) {
        self.deterministic = on;
    }

    /// Whether map entries are written in key order.
    #[inline(always)]
    pub fn is_deterministic(&self) -> bool {
        self.deterministic
    }

    /// The bytes written so far, in order.
    pub fn written_bytes(&self) -> &[u8] {
        // SAFETY: bytes `pos..len` of the buffer were initialized by writes, and the buffer is
        // borrowed (mutably, by us) for as long as the returned shared borrow of `self`.
        unsafe { core::slice::from_raw_parts(self.ptr.add(self.pos), self.len - self.pos) }
    }

    /// Out of room for `n` bytes: grow, or report the bug in a fixed-size encode.
    #[cold]
    #[inline(never)]
    #[track_caller]
    fn make_room(&mut self, n: usize) {
        let Some(vec) = self.grow.as_deref_mut() else {
            overflow(n, self.pos)
        };
        let written = self.len - self.pos;
        let need = written
            .checked_add(n)
            .expect("message larger than the address space");
        let cap = need.max(2 * self.len).max(256);
        let mut bigger: Vec<u8> = Vec::with_capacity(cap);
        let cap = bigger.capacity();
        // SAFETY: the `written` bytes at `ptr + pos` are initialized and lie in the old buffer;
        // the destination is the last `written` bytes of the new buffer's capacity, which
        // cannot overlap the old allocation.
        unsafe {
            core::ptr::copy_nonoverlapping(
                self.ptr.add(self.pos),
                bigger.as_mut_ptr().add(cap - written),
                written,
            );
        }
        *vec = bigger;
        self.ptr = vec.as_mut_ptr();
        self.len = cap;
        self.pos = cap - written;
    }

    /// Bytes written so far, counted from the end of the buffer.
    #[inline(always)]
    pub fn written(&self) -> usize {
        self.len - self.pos
    }

    /// Room left in front of what has been written.
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.pos
    }

    /// Reserves the `n` bytes in front of the cursor and returns a pointer to the first.
    #[inline(always)]
    fn claim(&mut self, n: usize) -> *mut u8 {
        if n > self.pos {
            self.make_room(n);
        }
        self.pos -= n;
        // SAFETY: `pos <= len`, so the result is inside (or one past) the buffer.
        unsafe { self.ptr.add(self.pos) }
    }

    /// Writes one byte.
    #[inline(always)]
    pub fn put_u8(&mut self, b: u8) {
        let p = self.claim(1);
        // SAFETY: `claim(1)` returned a pointer to one writable byte of the buffer.
        unsafe { p.write(b) };
    }

    /// Writes `bytes` so that they end where the cursor was.
    #[inline(always)]
    pub fn put_slice(&mut self, bytes: &[u8]) {
        let p = self.claim(bytes.len());
        // SAFETY: `claim` returned `bytes.len()` writable bytes of our buffer, which cannot
        // overlap `bytes`: the writer borrows its buffer mutably.
        unsafe { copy_bytes(bytes, p) };
    }

    /// Writes a varint.
    #[inline(always)]
    pub fn put_varint(&mut self, v: u64) {
        if v < 0x80 {
            self.put_u8(v as u8);
        } else {
            self.put_varint_multi(v);
        }
    }

    #[inline]
    fn put_varint_multi(&mut self, mut v: u64) {
        let n = wire::varint_len(v);
        let p = self.claim(n);
        let mut i = 0;
        while v >= 0x80 {
            // SAFETY: a varint of `v` has `n` bytes and `i < n - 1` here.
            unsafe { p.add(i).write((v as u8) | 0x80) };
            v >>= 7;
            i += 1;
        }
        // SAFETY: `i == n - 1`, the last of the `n` claimed bytes.
        unsafe { p.add(i).write(v as u8) };
    }

    /// Writes the length prefix of a body that started at `mark` (a previous [`written`](Self::written)).
    #[inline(always)]
    pub fn put_len(&mut self, mark: usize) {
        let len = self.written() - mark;
        self.put_varint(len as u64);
    }

    /// Writes a whole map entry whose key and value are `string` or `bytes` (key 1, value 2; an
    /// empty key or value is left out, as prost does) behind one bounds check.
    #[inline(always)]
    pub fn put_bytes_map_entry(&mut self, field_key: u32, k: &[u8], v: &[u8]) {
        self.bytes_map_entry::<false>(field_key, k, v);
    }

    /// [`put_bytes_map_entry`](Self::put_bytes_map_entry) with the key and value always
    /// written, empty or not, as C++ and upb write map entries (`mode=standalone`).
    #[inline(always)]
    pub fn put_full_bytes_map_entry(&mut self, field_key: u32, k: &[u8], v: &[u8]) {
        self.bytes_map_entry::<true>(field_key, k, v);
    }

    #[inline(always)]
    fn bytes_map_entry<const FULL: bool>(&mut self, field_key: u32, k: &[u8], v: &[u8]) {
        let part = |b: &[u8]| {
            if b.is_empty() && !FULL {
                0
            } else {
                1 + wire::len_delimited(b.len())
            }
        };
        let body = part(k) + part(v);
        let n = wire::varint_len(u64::from(field_key)) + wire::len_delimited(body);
        let mut p = self.claim(n);
        // SAFETY: `claim(n)` returned `n` writable bytes: exactly what is written forward here.
        unsafe {
            p = forward_varint(p, u64::from(field_key));
            p = forward_varint(p, body as u64);
            for (tag, b) in [(0x0a, k), (0x12, v)] {
                if FULL || !b.is_empty() {
                    *p = tag;
                    p = forward_varint(p.add(1), b.len() as u64);
                    copy_bytes(b, p);
                    p = p.add(b.len());
                }
            }
        }
    }

    /// Writes a length-delimited byte string (length prefix included, key excluded).
    #[inline(always)]
    pub fn put_bytes(&mut self, bytes: &[u8]) {
        self.put_slice(bytes);
        self.put_varint(bytes.len() as u64);
    }

    /// Writes a length-delimited `string`.
    #[inline(always)]
    pub fn put_string(&mut self, s: &str) {
        self.put_bytes(s.as_bytes());
    }

    /// Writes an `int32` (negative values as 10-byte varints) or enum value.
    #[inline(always)]
    pub fn put_int32(&mut self, v: i32) {
        self.put_varint(v as i64 as u64);
    }
    /// Writes an `int64`.
    #[inline(always)]
    pub fn put_int64(&mut self, v: i64) {
        self.put_varint(v as u64);
    }
    /// Writes a `uint32`.
    #[inline(always)]
    pub fn put_uint32(&mut self, v: u32) {
        self.put_varint(v as u64);
    }
    /// Writes a `uint64`.
    #[inline(always)]
    pub fn put_uint64(&mut self, v: u64) {
        self.put_varint(v);
    }
    /// Writes a `sint32`.
    #[inline(always)]
    pub fn put_sint32(&mut self, v: i32) {
        self.put_varint(wire::zigzag32(v) as u64);
    }
    /// Writes a `sint64`.
    #[inline(always)]
    pub fn put_sint64(&mut self, v: i64) {
        self.put_varint(wire::zigzag64(v));
    }
    /// Writes a `bool`.
    #[inline(always)]
    pub fn put_bool(&mut self, v: bool) {
        self.put_u8(v as u8);
    }
    /// Writes a `fixed32`.
    #[inline(always)]
    pub fn put_fixed32(&mut self, v: u32) {
        self.put_slice(&v.to_le_bytes());
    }
    /// Writes a `fixed64`.
    #[inline(always)]
    pub fn put_fixed64(&mut self, v: u64) {
        self.put_slice(&v.to_le_bytes());
    }
    /// Writes an `sfixed32`.
    #[inline(always)]
    pub fn put_sfixed32(&mut self, v: i32) {
        self.put_slice(&v.to_le_bytes());
    }
    /// Writes an `sfixed64`.
    #[inline(always)]
    pub fn put_sfixed64(&mut self, v: i64) {
        self.put_slice(&v.to_le_bytes());
    }
    /// Writes a `float`.
    #[inline(always)]
    pub fn put_float(&mut self, v: f32) {
        self.put_slice(&v.to_le_bytes());
    }
    /// Writes a `double`.
    #[inline(always)]
    pub fn put_double(&mut self, v: f64) {
        self.put_slice(&v.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_backward() {
        let mut buf = [0u8; 16];
        let mut w = ReverseWriter::new(&mut buf);
        let mark = w.written();
        w.put_string("hi");
        w.put_int32(-1);
        w.put_len(mark);
        w.put_u8(0x0a);
        let n = w.written();
        assert_eq!(
            &buf[16 - n..],
            &[0x0a, 13, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 2, b'h', b'i']
        );
    }

    #[test]
    fn varints_match_reference() {
        for v in [
            0u64,
            1,
            127,
            128,
            300,
            16383,
            16384,
            u32::MAX as u64,
            u64::MAX,
        ] {
            let mut buf = [0u8; 10];
            let mut w = ReverseWriter::new(&mut buf);
            w.put_varint(v);
            let n = w.written();
            assert_eq!(n, wire::varint_len(v));
            // Reference: the textbook forward encoder.
            let mut expect = Vec::new();
            let mut x = v;
            loop {
                if x < 0x80 {
                    expect.push(x as u8);
                    break;
                }
                expect.push((x as u8) | 0x80);
                x >>= 7;
            }
            assert_eq!(&buf[10 - n..], &expect[..]);
        }
    }

    #[test]
    fn slices_of_every_short_length_are_copied_exactly() {
        let src: Vec<u8> = (1..=70).collect();
        for n in 0..=70 {
            let mut buf = [0u8; 80];
            let mut w = ReverseWriter::new(&mut buf);
            w.put_u8(0xee);
            w.put_slice(&src[..n]);
            w.put_u8(0xdd);
            let start = 80 - n - 2;
            assert!(
                buf[..start].iter().all(|&b| b == 0),
                "n {n}: wrote before the cursor"
            );
            assert_eq!(buf[start], 0xdd);
            assert_eq!(&buf[start + 1..79], &src[..n], "n {n}");
            assert_eq!(buf[79], 0xee);
        }
    }

    #[test]
    fn growable_writer_keeps_what_it_wrote_across_growth() {
        let mut buf = Vec::new();
        let mut w = ReverseWriter::growable(&mut buf);
        let mut expected = Vec::new();
        for i in 0..2000u32 {
            w.put_varint(u64::from(i) * 1000);
            w.put_slice(&[i as u8; 3]);
            let mut item = vec![i as u8; 3];
            let mut tmp = [0u8; 10];
            let mut t = ReverseWriter::new(&mut tmp);
            t.put_varint(u64::from(i) * 1000);
            item.extend_from_slice(t.written_bytes());
            item.extend_from_slice(&expected);
            expected = item;
        }
        assert_eq!(w.written_bytes(), &expected[..]);
        let written = w.written();
        assert!(buf.capacity() >= written);
    }

    #[test]
    fn fused_map_entries_match_piecewise_writes() {
        let long = "x".repeat(200);
        for (k, v) in [
            ("", ""),
            ("k", ""),
            ("", "v"),
            ("key", "value"),
            ("k", long.as_str()),
        ] {
            let (mut a, mut b) = ([0u8; 300], [0u8; 300]);
            let mut fused = ReverseWriter::new(&mut a);
            fused.put_bytes_map_entry(0x92, k.as_bytes(), v.as_bytes());
            let n = fused.written();
            let mut w = ReverseWriter::new(&mut b);
            if !v.is_empty() {
                w.put_string(v);
                w.put_u8(0x12);
            }
            if !k.is_empty() {
                w.put_string(k);
                w.put_u8(0x0a);
            }
            w.put_len(0);
            w.put_slice(&[0x92, 0x01]);
            assert_eq!(n, w.written());
            assert_eq!(&a[300 - n..], &b[300 - n..], "{k:?} {v:?}");

            // Full entries: both parts always.
            let (mut a, mut b) = ([0u8; 300], [0u8; 300]);
            let mut fused = ReverseWriter::new(&mut a);
            fused.put_full_bytes_map_entry(0x92, k.as_bytes(), v.as_bytes());
            let n = fused.written();
            let mut w = ReverseWriter::new(&mut b);
            w.put_string(v);
            w.put_u8(0x12);
            w.put_string(k);
            w.put_u8(0x0a);
            w.put_len(0);
            w.put_slice(&[0x92, 0x01]);
            assert_eq!(n, w.written());
            assert_eq!(&a[300 - n..], &b[300 - n..], "full {k:?} {v:?}");
        }
    }

    #[test]
    #[should_panic(expected = "size and encode_reverse disagree")]
    fn overflow_panics_instead_of_writing_out_of_bounds() {
        let mut buf = [0u8; 2];
        let mut w = ReverseWriter::new(&mut buf);
        w.put_fixed32(7);
    }
}
