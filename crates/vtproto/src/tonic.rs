//! A tonic codec for rust-vt messages (feature `tonic`, tonic 0.14).
//!
//! Drop-in for `tonic_prost::ProstCodec`: the bytes on the wire are the same. Encoding reserves
//! `size()` bytes in tonic's buffer and writes the message backward straight into it (no
//! intermediate `Vec`); decoding reads tonic's buffer in place, and `bytes::Bytes` fields share
//! it. With `tonic-prost-build`, point the generated stubs at it:
//!
//! ```ignore
//! tonic_prost_build::configure()
//!     .codec_path("::vtproto::tonic::VtCodec")
//!     .compile_protos(&["proto/search.proto"], &["proto"])?;
//! ```

use core::marker::PhantomData;

use bytes::Buf;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::Status;

use crate::Message;

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
    U: Message + Send + 'static,
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
        buf.reserve(item.size());
        item.encode(buf)
            .map_err(|e| Status::internal(format!("encoding {}: {e}", T::NAME)))
    }
}

/// The decoding half of [`VtCodec`].
pub struct VtDecoder<U>(PhantomData<fn() -> U>);

impl<U: Message> Decoder for VtDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        // A split of tonic's buffer, not a copy.
        let bytes = buf.copy_to_bytes(buf.remaining());
        U::decode_bytes(&bytes)
            .map(Some)
            .map_err(|e| Status::internal(format!("decoding {}: {e}", U::NAME)))
    }
}
