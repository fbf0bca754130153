//! A tonic codec for rust-vt messages (feature `tonic`, tonic 0.14).
//!
//! Drop-in for `tonic_prost::ProstCodec`: the bytes on the wire are the same. Encoding takes
//! `encode_to_vec`'s strategy into tonic's buffer: a message with repeated or map fields is
//! written backward into the per-thread scratch buffer, with no `size` walk, and copied in
//! once; a flat one is sized once and written backward straight into it. Decoding reads
//! tonic's buffer in place, and `bytes::Bytes` fields share it. With `tonic-prost-build`, point the generated stubs at it:
//!
//! ```ignore
//! tonic_prost_build::configure()
//!     .codec_path("::vtproto::tonic::VtCodec")
//!     .compile_protos(&["proto/search.proto"], &["proto"])?;
//! ```
//!
//! A server can take a request as an [`OwnedView`] instead (its strings
//! borrow tonic's buffer, and it can be held across an `await`): generate its stubs with the
//! request mapped to the view, `.extern_path(".pkg.Req", "crate::pb::pkg::ReqOwnedView")`
//! and `.build_client(false)`; the client keeps the usual stubs, the wire is the same.

mod limits;
pub(crate) mod resource_exhausted;

pub use limits::{with_decode_limits, LimitsBody, LimitsFuture, WithDecodeLimits};

pub use resource_exhausted::{
    ResourceExhausted, ResourceExhaustedLayer, ResponseFuture, StatusBody,
};

use core::marker::PhantomData;

use bytes::Buf;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::Status;

use bytes::Bytes;

use crate::{DecodeError, DecodeLimits, Message, MessageView, OwnedView, ViewFamily};

/// What [`VtCodec`] can decode: every [`Message`], and [`OwnedView`]s.
pub trait Decode: Sized {
    /// The message's full protobuf name, for errors.
    const NAME: &'static str;

    /// Decodes from tonic's buffer, split off without a copy, under `limits`.
    fn decode_from(bytes: Bytes, limits: &DecodeLimits) -> Result<Self, DecodeError>;
}

impl<M: Message> Decode for M {
    const NAME: &'static str = M::NAME;

    fn decode_from(bytes: Bytes, limits: &DecodeLimits) -> Result<Self, DecodeError> {
        M::decode_bytes_with_limits(&bytes, limits)
    }
}

impl<F: ViewFamily> Decode for OwnedView<F> {
    const NAME: &'static str = <<F::View<'static> as MessageView<'static>>::Owned as Message>::NAME;

    fn decode_from(bytes: Bytes, limits: &DecodeLimits) -> Result<Self, DecodeError> {
        OwnedView::decode_with_limits(bytes, limits)
    }
}

/// A [`Codec`] encoding `T` and decoding `U` with their [`Message`] impls.
pub struct VtCodec<T, U>(PhantomData<fn(T) -> U>);

impl<T, U> Default for VtCodec<T, U> {
    fn default() -> Self {
        VtCodec(PhantomData)
    }
}

impl<T, U> Codec for VtCodec<T, U>
where
    T: Message + Send + 'static,
    U: Decode + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = VtEncoder<T>;
    type Decoder = VtDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        VtEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        VtDecoder(PhantomData)
    }
}

/// The encoding half of [`VtCodec`].
pub struct VtEncoder<T>(PhantomData<fn(T)>);

impl<T: Message> Encoder for VtEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        use bytes::BufMut;
        // As `encode_to_vec` does: a message with collections is written backward into the
        // per-thread scratch buffer with no size walk and copied once; a flat one is sized once
        // and written in place.
        let copied = crate::message::with_scratch(&item, |bytes| {
            buf.reserve(bytes.len());
            buf.put_slice(bytes);
        });
        if copied.is_none() {
            let n = crate::message::exact_size(&item);
            buf.reserve(n);
            crate::message::encode_into_buf_mut(&item, n, buf);
        }
        Ok(())
    }
}

/// The decoding half of [`VtCodec`].
pub struct VtDecoder<U>(PhantomData<fn() -> U>);

impl<U: Decode> Decoder for VtDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        // A split of tonic's buffer, not a copy.
        let bytes = buf.copy_to_bytes(buf.remaining());
        U::decode_from(bytes, &limits::current())
            .map(Some)
            .map_err(status_of::<U>)
    }
}

/// The status a decoding error answers: `RESOURCE_EXHAUSTED` past a [`DecodeLimits`](crate::DecodeLimits) limit, as
/// gRPC's other implementations answer input over their limits; `INTERNAL` otherwise, as
/// tonic-prost does.
fn status_of<U: Decode>(e: crate::DecodeError) -> Status {
    let message = format!("decoding {}: {e}", U::NAME);
    match e.kind() {
        crate::DecodeErrorKind::MemoryBudget { .. }
        | crate::DecodeErrorKind::InputTooLarge { .. }
        | crate::DecodeErrorKind::UnknownFieldLimit { .. } => Status::resource_exhausted(message),
        _ => Status::internal(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DecodeError, DecodeErrorKind};

    #[test]
    fn over_budget_input_answers_resource_exhausted() {
        let e = DecodeError::new(DecodeErrorKind::MemoryBudget { budget: 1024 });
        let status = status_of::<f64>(e);
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        assert!(status.message().contains("memory budget of 1024 bytes"));
        let status = status_of::<f64>(DecodeError::new(DecodeErrorKind::Truncated));
        assert_eq!(status.code(), tonic::Code::Internal);
    }
}
