//! The [`Message`] trait: what generated code implements and what users call.

use core::mem::MaybeUninit;

use bytes::buf::UninitSlice;
use bytes::{BufMut, Bytes, BytesMut};

use crate::error::{DecodeError, EncodeError};
use crate::reader::Reader;
use crate::wire;
use crate::writer::ReverseWriter;

/// A protobuf message with a backward encoder and a slice decoder.
///
/// Implemented by generated code for prost-built structs (and by this crate for the well-known
/// types prost maps to Rust primitives). Only [`size`](Message::size),
/// [`encode_reverse`](Message::encode_reverse) and [`merge_field`](Message::merge_field) are
/// generated; everything else is provided.
pub trait Message: Default {
    /// The message's full protobuf name, such as `google.protobuf.Timestamp`.
    const NAME: &'static str;

    /// The exact number of bytes [`encode_reverse`](Message::encode_reverse) writes.
    fn size(&self) -> usize;

    /// Writes the message so that it ends at the writer's cursor.
    ///
    /// The writer must have at least [`size`](Message::size) bytes of room.
    fn encode_reverse(&self, w: &mut ReverseWriter<'_>);

    /// Merges one field whose key was just read from `r`.
    fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError>;

    /// The name of field `number`, for error messages.
    fn field_name(number: u32) -> &'static str {
        let _ = number;
        "?"
    }

    /// Merges every field left in `r` into `self`: last scalar wins, repeated fields append,
    /// messages merge.
    #[inline]
    fn merge(&mut self, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        while !r.is_empty() {
            let key = r.read_key()?;
            if let Err(e) = self.merge_field(key, r) {
                return Err(e.push(Self::NAME, Self::field_name(key >> 3)));
            }
        }
        Ok(())
    }

    /// Merges an encoded message from `buf` into `self`.
    fn merge_from_slice(&mut self, buf: &[u8]) -> Result<(), DecodeError> {
        self.merge(&mut Reader::new(buf))
    }

    /// Decodes a message from `buf`.
    fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let mut msg = Self::default();
        msg.merge(&mut Reader::new(buf))?;
        Ok(msg)
    }

    /// Decodes a message from `bytes`; `bytes`-typed fields of type [`Bytes`] share its memory.
    fn decode_bytes(bytes: &Bytes) -> Result<Self, DecodeError> {
        let mut msg = Self::default();
        msg.merge(&mut Reader::from_bytes(bytes))?;
        Ok(msg)
    }

    /// Decodes a length-prefixed message from the front of `buf` and advances `buf` past it.
    fn decode_length_delimited(buf: &mut &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let msg = r.read_message::<Self>()?;
        *buf = r.take_rest();
        Ok(msg)
    }

    /// Encodes into a new `Vec` of exactly [`size`](Message::size) bytes: one size walk, one
    /// backward write, one allocation.
    fn encode_to_vec(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.append_to_vec(&mut buf);
        buf
    }

    /// Encodes at the end of `buf`, growing it at most once; no allocation when `buf` has room.
    fn append_to_vec(&self, buf: &mut Vec<u8>) {
        let n = self.size();
        buf.reserve(n);
        let len = buf.len();
        let written = write_exact(self, n, 0, &mut buf.spare_capacity_mut()[..n]);
        // SAFETY: `write_exact` initialized the first `written` bytes of the spare capacity.
        unsafe { buf.set_len(len + written) };
    }

    /// Encodes with a varint length prefix into a new `Vec`.
    fn encode_length_delimited_to_vec(&self) -> Vec<u8> {
        let n = self.size();
        let total = wire::varint_len(n as u64) + n;
        let mut buf = Vec::with_capacity(total);
        let written = write_exact(self, n, total - n, &mut buf.spare_capacity_mut()[..total]);
        // SAFETY: `write_exact` initialized the first `written` bytes of the spare capacity.
        unsafe { buf.set_len(written) };
        buf
    }

    /// Encodes into a new [`Bytes`] (no copy after encoding).
    fn encode_to_bytes(&self) -> Bytes {
        Bytes::from(self.encode_to_vec())
    }

    /// Encodes at the end of a `BytesMut`, reserving [`size`](Message::size) bytes and writing
    /// backward into its spare capacity.
    fn encode_to_bytes_mut(&self, buf: &mut BytesMut) {
        let n = self.size();
        buf.reserve(n);
        encode_into_buf_mut(self, n, buf);
    }

    /// Encodes into `buf`. When `buf`'s next chunk holds [`size`](Message::size) bytes (reserve
    /// first for that), the message is written straight into it; otherwise through one copy.
    fn encode(&self, buf: &mut impl BufMut) -> Result<(), EncodeError> {
        let n = self.size();
        if buf.remaining_mut() < n {
            return Err(EncodeError {
                required: n,
                remaining: buf.remaining_mut(),
            });
        }
        encode_into_buf_mut(self, n, buf);
        Ok(())
    }
}

/// Writes `msg` (of size `n`) backward into `dst`, preceded by its length prefix when
/// `prefix > 0`, and moves the result to the front of `dst` if `size` overestimated.
/// Returns the number of initialized bytes at the front of `dst`.
fn write_exact<M: Message>(msg: &M, n: usize, prefix: usize, dst: &mut [MaybeUninit<u8>]) -> usize {
    let total = dst.len();
    let mut w = ReverseWriter::new_uninit(dst);
    msg.encode_reverse(&mut w);
    if prefix > 0 {
        let len = w.written();
        w.put_varint(len as u64);
    }
    let gap = w.remaining();
    if gap != 0 {
        // `size` overestimated: a bug in the impl, but never a reason to expose uninitialized bytes.
        debug_assert_eq!(gap, 0, "{}: size() {n} exceeds the bytes written", M::NAME);
        dst.copy_within(gap..total, 0);
    }
    total - gap
}

fn encode_into_buf_mut<M: Message>(msg: &M, n: usize, buf: &mut impl BufMut) {
    let chunk: &mut UninitSlice = buf.chunk_mut();
    if chunk.len() >= n {
        let chunk = &mut chunk[..n];
        // SAFETY: the writer only writes bytes into `chunk`; it never reads them, and an
        // `UninitSlice` may hold uninitialized memory, so viewing it as `MaybeUninit` is sound.
        let dst = unsafe { chunk.as_uninit_slice_mut() };
        let written = write_exact(msg, n, 0, dst);
        // SAFETY: `write_exact` initialized the first `written` bytes of this chunk.
        unsafe { buf.advance_mut(written) };
    } else {
        buf.put_slice(&msg.encode_to_vec());
    }
}
