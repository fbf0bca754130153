//! The backward writer: fills a buffer from its end toward its start.
//!
//! Fields are written last-to-first, so the bytes come out in field-number order. A
//! length-delimited value is written body first; its length is then `written() - mark`, a
//! subtraction instead of a second sizing walk. The writer never writes outside its buffer:
//! running out of room means `size` and `encode_reverse` disagree, a bug, and panics.

use core::mem::MaybeUninit;

use bytes::buf::UninitSlice;

use crate::wire;

/// Writes protobuf data backward into a fixed buffer, which may be uninitialized.
pub struct ReverseWriter<'a> {
    buf: &'a mut UninitSlice,
    /// Bytes `pos..` are written; `..pos` are free.
    pos: usize,
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

impl<'a> ReverseWriter<'a> {
    /// A writer over an initialized buffer; the message ends at the buffer's end.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Self::from_uninit_slice(UninitSlice::new(buf))
    }

    /// A writer over uninitialized memory, such as a `Vec`'s spare capacity.
    pub fn new_uninit(buf: &'a mut [MaybeUninit<u8>]) -> Self {
        Self::from_uninit_slice(UninitSlice::uninit(buf))
    }

    /// A writer over a [`bytes::BufMut`] chunk.
    pub fn from_uninit_slice(buf: &'a mut UninitSlice) -> Self {
        let pos = buf.len();
        ReverseWriter { buf, pos }
    }

    /// Bytes written so far, counted from the end of the buffer.
    #[inline(always)]
    pub fn written(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Room left in front of what has been written.
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.pos
    }

    #[inline(always)]
    fn claim(&mut self, n: usize) -> usize {
        if n > self.pos {
            overflow(n, self.pos);
        }
        self.pos -= n;
        self.pos
    }

    /// Writes one byte.
    #[inline(always)]
    pub fn put_u8(&mut self, b: u8) {
        let i = self.claim(1);
        self.buf.write_byte(i, b);
    }

    /// Writes `bytes` so that they end where the cursor was.
    #[inline(always)]
    pub fn put_slice(&mut self, bytes: &[u8]) {
        let i = self.claim(bytes.len());
        self.buf[i..i + bytes.len()].copy_from_slice(bytes);
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
        let mut tmp = [0u8; 10];
        let mut i = 0;
        while v >= 0x80 {
            tmp[i] = (v as u8) | 0x80;
            v >>= 7;
            i += 1;
        }
        tmp[i] = v as u8;
        let start = self.claim(n);
        self.buf[start..start + n].copy_from_slice(&tmp[..n]);
    }

    /// Writes the length prefix of a body that started at `mark` (a previous [`written`](Self::written)).
    #[inline(always)]
    pub fn put_len(&mut self, mark: usize) {
        let len = self.written() - mark;
        self.put_varint(len as u64);
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
    #[should_panic(expected = "size and encode_reverse disagree")]
    fn overflow_panics_instead_of_writing_out_of_bounds() {
        let mut buf = [0u8; 2];
        let mut w = ReverseWriter::new(&mut buf);
        w.put_fixed32(7);
    }
}
