//! The [`Message`] trait: what generated code implements and what users call.

#[allow(unused_imports)]
use crate::prelude::*;

use core::mem::MaybeUninit;

use bytes::buf::UninitSlice;
use bytes::{BufMut, Bytes, BytesMut};

use crate::error::{DecodeError, EncodeError};
use crate::limits::DecodeLimits;
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

    /// Whether a `size` walk over any value of this type costs about as little as finding a
    /// scratch buffer, so that encoding should size exactly: generated code says so for
    /// messages with no repeated, map or recursive field at any depth.
    const SIZE_WALK_IS_CHEAP: bool = false;

    /// Whether a `size` walk over this value is cheap (see
    /// [`SIZE_WALK_IS_CHEAP`](Message::SIZE_WALK_IS_CHEAP)): generated code overrides it for
    /// messages whose recursive fields make it depend on the value (cheap while they are
    /// empty one level down).
    #[inline]
    fn size_walk_is_cheap(&self) -> bool {
        Self::SIZE_WALK_IS_CHEAP
    }

    /// The exact number of bytes [`encode_reverse`](Message::encode_reverse) writes.
    fn size(&self) -> usize;

    /// Writes the message so that it ends at the writer's cursor.
    ///
    /// The writer must have at least [`size`](Message::size) bytes of room.
    fn encode_reverse(&self, w: &mut ReverseWriter<'_>);

    /// Merges one field whose key was just read from `r`.
    fn merge_field(&mut self, key: u32, r: &mut Reader<'_>) -> Result<(), DecodeError>;

    /// Checks that the message and the messages in it have their required fields; the decode
    /// entry points call it. Generated in `mode=standalone` for messages that can miss one; a
    /// no-op otherwise (prost's structs can't tell a missing required field from a default).
    #[inline]
    fn check_initialized(&self) -> Result<(), DecodeError> {
        Ok(())
    }

    /// The message's fields by number, for error messages: `number:name` pairs separated by
    /// spaces (`"1:name 2:display_name"`); generated code lists them. One string literal is far
    /// cheaper to compile than an array of pairs, and is only read on an error.
    const FIELD_NAMES: &'static str = "";

    /// The name of field `number`, for error messages: from [`FIELD_NAMES`](Message::FIELD_NAMES),
    /// `"?"` for a number not there.
    #[cold]
    fn field_name(number: u32) -> &'static str {
        crate::error::field_name(Self::FIELD_NAMES, number)
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

    /// Replaces `self` with the message in `r`, reusing `self`'s allocations: string and
    /// vector capacity, the elements of repeated message fields (overwritten in place, the
    /// surplus truncated), and maps whose keys are unchanged (values overwritten in place).
    /// Generated code implements it; this default clears `self` and merges.
    ///
    /// After an error `self` holds part of the input and part of its earlier value: a valid
    /// value, fit to decode into again, but not meaningful.
    #[inline]
    fn merge_replace(&mut self, r: &mut Reader<'_>) -> Result<(), DecodeError> {
        *self = Self::default();
        self.merge(r)
    }

    /// Decodes `buf` into `self`: the same value as `*self = Self::decode(buf)?`, reusing
    /// `self`'s allocations (see [`merge_replace`](Message::merge_replace)). Decoding inputs
    /// of the same shape over and over allocates nothing once the value has grown to them.
    ///
    /// After an error `self` is valid but unspecified (part old, part new); decode into it
    /// again or reset it.
    #[inline]
    fn decode_into(&mut self, buf: &[u8]) -> Result<(), DecodeError> {
        self.merge_replace(&mut Reader::new(buf))?;
        self.check_initialized()
    }

    /// Merges an encoded message from `buf` into `self`.
    #[inline]
    fn merge_from_slice(&mut self, buf: &[u8]) -> Result<(), DecodeError> {
        self.merge(&mut Reader::new(buf))?;
        self.check_initialized()
    }

    /// Decodes a message from `buf`.
    // Always inlined: out of line, the message is built in this function's frame and then
    // copied to the caller's, and that copy reads back, in wider loads, the fields `merge`
    // has just stored: a store-forwarding stall, the hottest instruction of a small
    // message's decode when `perf` caught it (`mode=standalone`'s one-level `Node`).
    #[inline(always)]
    fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let mut msg = Self::default();
        msg.merge(&mut Reader::new(buf))?;
        msg.check_initialized()?;
        Ok(msg)
    }

    /// Decodes a message from `bytes`; `bytes`-typed fields of type [`Bytes`] share its memory.
    #[inline]
    fn decode_bytes(bytes: &Bytes) -> Result<Self, DecodeError> {
        let mut msg = Self::default();
        msg.merge(&mut Reader::from_bytes(bytes))?;
        msg.check_initialized()?;
        Ok(msg)
    }

    /// Decodes a message from `buf` under `limits` (input size, memory budget, nesting,
    /// unknown fields): a server's decode of what strangers send.
    #[inline]
    fn decode_with_limits(buf: &[u8], limits: &DecodeLimits) -> Result<Self, DecodeError> {
        limits.check_input(buf.len())?;
        let mut msg = Self::default();
        msg.merge(&mut Reader::new(buf).with_limits(limits))?;
        msg.check_initialized()?;
        Ok(msg)
    }

    /// [`decode_bytes`](Message::decode_bytes) under `limits`.
    #[inline]
    fn decode_bytes_with_limits(bytes: &Bytes, limits: &DecodeLimits) -> Result<Self, DecodeError> {
        limits.check_input(bytes.len())?;
        let mut msg = Self::default();
        msg.merge(&mut Reader::from_bytes(bytes).with_limits(limits))?;
        msg.check_initialized()?;
        Ok(msg)
    }

    /// [`decode_into`](Message::decode_into) under `limits`.
    #[inline]
    fn decode_into_with_limits(
        &mut self,
        buf: &[u8],
        limits: &DecodeLimits,
    ) -> Result<(), DecodeError> {
        limits.check_input(buf.len())?;
        self.merge_replace(&mut Reader::new(buf).with_limits(limits))?;
        self.check_initialized()
    }

    /// [`merge_from_slice`](Message::merge_from_slice) under `limits`.
    #[inline]
    fn merge_with_limits(&mut self, buf: &[u8], limits: &DecodeLimits) -> Result<(), DecodeError> {
        limits.check_input(buf.len())?;
        self.merge(&mut Reader::new(buf).with_limits(limits))?;
        self.check_initialized()
    }

    /// Decodes a length-prefixed message from the front of `buf` and advances `buf` past it.
    #[inline]
    fn decode_length_delimited(buf: &mut &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let msg = r.read_message::<Self>()?;
        msg.check_initialized()?;
        *buf = r.take_rest();
        Ok(msg)
    }

    /// Encodes into a new `Vec` of exactly the encoded length, with one allocation.
    ///
    /// Messages with repeated or map fields (or a recursive field set) are written backward
    /// into a per-thread scratch buffer (kept up to 4 MiB) with no `size` walk, then copied
    /// out; flat messages ([`size_walk_is_cheap`](Message::size_walk_is_cheap)), and messages
    /// that outgrew the scratch buffer, are sized first and written in place.
    #[inline]
    fn encode_to_vec(&self) -> Vec<u8> {
        with_scratch(self, <[u8]>::to_vec).unwrap_or_else(|| exact_vec(self, exact_size(self)))
    }

    /// Encodes at the end of `buf`; no allocation when `buf` has room.
    #[inline]
    fn append_to_vec(&self, buf: &mut Vec<u8>) {
        if with_scratch(self, |bytes| buf.extend_from_slice(bytes)).is_none() {
            append_exact(self, buf);
        }
    }

    /// Encodes with a varint length prefix into a new `Vec`.
    #[inline]
    fn encode_length_delimited_to_vec(&self) -> Vec<u8> {
        let prefixed = |bytes: &[u8]| {
            let mut out = Vec::with_capacity(wire::varint_len(bytes.len() as u64) + bytes.len());
            let mut prefix = [0u8; 10];
            let mut w = ReverseWriter::new(&mut prefix);
            w.put_varint(bytes.len() as u64);
            out.extend_from_slice(w.written_bytes());
            out.extend_from_slice(bytes);
            out
        };
        with_scratch(self, prefixed).unwrap_or_else(|| {
            let n = exact_size(self);
            let total = wire::varint_len(n as u64) + n;
            let mut buf = Vec::with_capacity(total);
            let mut w = ReverseWriter::new_uninit(&mut buf.spare_capacity_mut()[..total]);
            self.encode_reverse(&mut w);
            let len = w.written();
            w.put_varint(len as u64);
            assert_eq!(
                w.remaining(),
                0,
                "{}: size() disagrees with encode_reverse",
                Self::NAME
            );
            // SAFETY: the writer filled all `total` bytes of the spare capacity (checked above).
            unsafe { buf.set_len(total) };
            buf
        })
    }

    /// Encodes into a new `Vec` with map entries in key order: equal values give equal bytes
    /// whatever the order their hash maps iterate in (protobuf's deterministic serialization;
    /// byte-equal to the C++ and Python runtimes' in `mode=standalone`). Sizes first, then
    /// writes in place; each hash map is sorted as it is written.
    fn encode_deterministic_to_vec(&self) -> Vec<u8> {
        let n = self.size();
        let mut buf = Vec::with_capacity(n);
        let mut w = ReverseWriter::new_uninit(&mut buf.spare_capacity_mut()[..n]);
        w.set_deterministic(true);
        self.encode_reverse(&mut w);
        assert_eq!(
            w.remaining(),
            0,
            "{}: size() disagrees with encode_reverse",
            Self::NAME
        );
        // SAFETY: the writer filled all `n` bytes of the spare capacity (checked above).
        unsafe { buf.set_len(n) };
        buf
    }

    /// Encodes into a new [`Bytes`] (no copy after encoding).
    #[inline]
    fn encode_to_bytes(&self) -> Bytes {
        Bytes::from(self.encode_to_vec())
    }

    /// Encodes at the end of a `BytesMut`, reserving [`size`](Message::size) bytes and writing
    /// backward into its spare capacity.
    #[inline]
    fn encode_to_bytes_mut(&self, buf: &mut BytesMut) {
        let n = self.size();
        if buf.capacity() == 0 {
            // A new `BytesMut`: allocating it at its size skips `reserve`'s general path.
            *buf = BytesMut::with_capacity(n);
        } else {
            buf.reserve(n);
        }
        encode_into_buf_mut(self, n, buf);
    }

    /// Encodes into `buf`. When `buf`'s next chunk holds [`size`](Message::size) bytes (reserve
    /// first for that), the message is written straight into it; otherwise through one copy.
    ///
    /// Refuses messages over [`MAX_MESSAGE_SIZE`](wire::MAX_MESSAGE_SIZE) (2 GiB).
    #[inline]
    fn encode(&self, buf: &mut impl BufMut) -> Result<(), EncodeError> {
        let n = self.size();
        if n > wire::MAX_MESSAGE_SIZE {
            return Err(EncodeError::TooLarge { size: n });
        }
        if buf.remaining_mut() < n {
            return Err(EncodeError::BufferTooSmall {
                required: n,
                remaining: buf.remaining_mut(),
            });
        }
        encode_into_buf_mut(self, n, buf);
        Ok(())
    }

    /// [`encode_to_vec`](Message::encode_to_vec), refusing messages over
    /// [`MAX_MESSAGE_SIZE`](wire::MAX_MESSAGE_SIZE) (2 GiB), which other implementations would
    /// not read (`encode_to_vec` checks nothing, as prost's does not).
    fn try_encode_to_vec(&self) -> Result<Vec<u8>, EncodeError> {
        let n = self.size();
        if n > wire::MAX_MESSAGE_SIZE {
            return Err(EncodeError::TooLarge { size: n });
        }
        Ok(exact_vec(self, n))
    }
}

/// Largest scratch buffer a thread keeps between encodes (gRPC's default message size limit).
/// Messages up to this size encode with one allocation (the result); a thread that just encoded
/// a larger one sizes its next encode exactly instead, since regrowing a dropped scratch would
/// cost more than the `size` walk.
#[cfg(feature = "std")]
const SCRATCH_LIMIT: usize = 4 << 20;

/// Most bytes all threads' scratch buffers keep together: a process with many threads that
/// encode large messages (a runtime's blocking pool, say) does not keep `SCRATCH_LIMIT` per
/// thread. A thread whose buffer would take the total past it frees its buffer after use.
#[cfg(feature = "std")]
const SCRATCH_TOTAL_LIMIT: usize = 64 << 20;

/// Bytes kept by all threads' scratch buffers (their capacities).
#[cfg(feature = "std")]
static SCRATCH_RETAINED: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// The bytes all threads' scratch buffers keep now (at most 64 MiB).
#[cfg(feature = "std")]
pub fn scratch_bytes_retained() -> usize {
    SCRATCH_RETAINED.load(core::sync::atomic::Ordering::Relaxed)
}

/// A thread's scratch buffer, whether the last message it encoded was too large for it, and
/// the capacity counted in [`SCRATCH_RETAINED`] for it.
#[cfg(feature = "std")]
struct Scratch {
    buf: Vec<u8>,
    last_was_large: bool,
    counted: usize,
}

#[cfg(feature = "std")]
impl Scratch {
    /// Accounts for the buffer's capacity after a use, freeing it if this thread's share would
    /// take all threads past [`SCRATCH_TOTAL_LIMIT`].
    #[inline]
    fn account(&mut self) {
        use core::sync::atomic::Ordering::Relaxed;
        let cap = self.buf.capacity();
        if cap == self.counted {
            return;
        }
        let total = if cap > self.counted {
            SCRATCH_RETAINED.fetch_add(cap - self.counted, Relaxed) + (cap - self.counted)
        } else {
            SCRATCH_RETAINED.fetch_sub(self.counted - cap, Relaxed) - (self.counted - cap)
        };
        self.counted = cap;
        if total > SCRATCH_TOTAL_LIMIT {
            SCRATCH_RETAINED.fetch_sub(cap, Relaxed);
            self.buf = Vec::new();
            self.counted = 0;
        }
    }
}

#[cfg(feature = "std")]
impl Drop for Scratch {
    fn drop(&mut self) {
        SCRATCH_RETAINED.fetch_sub(self.counted, core::sync::atomic::Ordering::Relaxed);
    }
}

#[cfg(feature = "std")]
std::thread_local! {
    static SCRATCH: core::cell::RefCell<Scratch> = const {
        core::cell::RefCell::new(Scratch { buf: Vec::new(), last_was_large: false, counted: 0 })
    };
}

/// The scratch strategy: if this thread's scratch buffer is free (and its last message was not
/// over the limit), writes `msg` backward into it with no `size` walk and hands the bytes to
/// `f`; otherwise returns `None` and the caller sizes exactly. Measured in `benches/RESULTS.md`:
/// the walk visits every element of every repeated and map field, which costs more than
/// copying the finished bytes once; for flat messages ([`Message::size_walk_is_cheap`]) it
/// does not, and the scratch buffer is not used.
#[inline]
pub(crate) fn with_scratch<M: Message, R>(msg: &M, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    if msg.size_walk_is_cheap() {
        return None;
    }
    scratch_encode(msg, f)
}

/// [`with_scratch`] once the message is known to need it: out of line, so that the exact path
/// of a flat message stays small enough to inline.
#[inline(never)]
#[cfg(feature = "std")]
fn scratch_encode<M: Message, R>(msg: &M, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    SCRATCH
        .try_with(|cell| {
            let mut scratch = cell.try_borrow_mut().ok().filter(|s| !s.last_was_large)?;
            let mut w = ReverseWriter::growable(&mut scratch.buf);
            msg.encode_reverse(&mut w);
            let large = w.written() > SCRATCH_LIMIT;
            let result = f(w.written_bytes());
            if large || scratch.buf.capacity() > SCRATCH_LIMIT {
                scratch.buf = Vec::new();
                scratch.last_was_large = large;
            }
            scratch.account();
            Some(result)
        })
        .ok()
        .flatten()
}

/// Without `std` there is no per-thread buffer: every message is sized exactly.
#[cfg(not(feature = "std"))]
fn scratch_encode<M: Message, R>(_msg: &M, _f: impl FnOnce(&[u8]) -> R) -> Option<R> {
    None
}

/// The exact strategy's size walk; also tells this thread's scratch buffer whether messages
/// of this size fit it.
#[inline]
pub(crate) fn exact_size<M: Message>(msg: &M) -> usize {
    let n = msg.size();
    #[cfg(feature = "std")]
    if !msg.size_walk_is_cheap() {
        let _ = SCRATCH.try_with(|cell| {
            if let Ok(mut s) = cell.try_borrow_mut() {
                s.last_was_large = n > SCRATCH_LIMIT;
            }
        });
    }
    n
}

/// The exact strategy into a new `Vec` of exactly `n` (the message's `size()`) bytes.
#[inline]
fn exact_vec<M: Message>(msg: &M, n: usize) -> Vec<u8> {
    let mut buf = Vec::with_capacity(n);
    let written = write_exact(msg, n, &mut buf.spare_capacity_mut()[..n]);
    // SAFETY: `write_exact` initialized the first `written` bytes of the spare capacity.
    unsafe { buf.set_len(written) };
    buf
}

/// The exact strategy into the end of `buf`: one `size` walk, at most one allocation.
fn append_exact<M: Message>(msg: &M, buf: &mut Vec<u8>) {
    let n = exact_size(msg);
    buf.reserve(n);
    let len = buf.len();
    let written = write_exact(msg, n, &mut buf.spare_capacity_mut()[..n]);
    // SAFETY: `write_exact` initialized `written` bytes after the first `len`.
    unsafe { buf.set_len(len + written) };
}

/// Writes `msg` (of size `n`) backward into `dst` and moves the result to the front of `dst`
/// if `size` overestimated. Returns the number of initialized bytes at the front of `dst`.
#[inline]
fn write_exact<M: Message>(msg: &M, n: usize, dst: &mut [MaybeUninit<u8>]) -> usize {
    let total = dst.len();
    let mut w = ReverseWriter::new_uninit(dst);
    msg.encode_reverse(&mut w);
    let gap = w.remaining();
    if gap != 0 {
        // `size` overestimated: a bug in the impl, but never a reason to expose uninitialized bytes.
        debug_assert_eq!(gap, 0, "{}: size() {n} exceeds the bytes written", M::NAME);
        dst.copy_within(gap..total, 0);
    }
    total - gap
}

#[inline]
pub(crate) fn encode_into_buf_mut<M: Message>(msg: &M, n: usize, buf: &mut impl BufMut) {
    let chunk: &mut UninitSlice = buf.chunk_mut();
    if chunk.len() >= n {
        let chunk = &mut chunk[..n];
        // SAFETY: the writer only writes bytes into `chunk`; it never reads them, and an
        // `UninitSlice` may hold uninitialized memory, so viewing it as `MaybeUninit` is sound.
        let dst = unsafe { chunk.as_uninit_slice_mut() };
        let written = write_exact(msg, n, dst);
        // SAFETY: `write_exact` initialized the first `written` bytes of this chunk.
        unsafe { buf.advance_mut(written) };
    } else {
        if with_scratch(msg, |bytes| buf.put_slice(bytes)).is_none() {
            buf.put_slice(&exact_vec(msg, n));
        }
    }
}
