//! Bodies: reading a request body under a size limit, draining what a failed call left unread
//! (over HTTP/1.1 a response sent before its request was read closes the connection, and the
//! client sees `EPIPE` while it writes), envelopes, gzip, and the body of a streaming response.

use core::future::Future as _;
use core::pin::Pin;
use core::task::{Context, Poll};
use core::time::Duration;
use std::io::Read as _;

use bytes::{Buf, Bytes, BytesMut};
use http::HeaderMap;
use http_body::{Body as _, Frame};
use http_body_util::BodyExt as _;
use tonic::body::Body;
use tonic::codegen::tokio_stream::Stream;
use tonic::Status;

use super::protocol::{end_stream_json, Compression};

/// A Connect envelope's flags: the payload is compressed.
pub(crate) const FLAG_COMPRESSED: u8 = 0b01;
/// A Connect envelope's flags: the end-of-stream message.
pub(crate) const FLAG_END_STREAM: u8 = 0b10;

/// The most of a request left unread that is read before answering, by default
/// ([`Server::drain_limit`](super::Server::drain_limit)) and in [`ConnectLayer`](super::ConnectLayer): 16 MiB.
pub(crate) const DRAIN_LIMIT: usize = 16 << 20;

/// How long draining an unread request body may take before the connection is given up.
const DRAIN_TIME: Duration = Duration::from_secs(5);

/// Reads the whole body, at most `limit` bytes. A larger body is drained (up to `drain`
/// bytes) and answered `resource_exhausted`.
pub(crate) async fn read_body(
    body: &mut Body,
    limit: usize,
    drain: usize,
) -> Result<Bytes, Status> {
    let mut out = BytesMut::new();
    let mut first: Option<Bytes> = None;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| Status::cancelled(format!("reading the request: {e}")))?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let len = first.as_ref().map_or(0, Bytes::len) + out.len() + data.len();
        if len > limit {
            drain_body(body, drain).await;
            return Err(Status::resource_exhausted(format!(
                "the request is over the server's limit of {limit} bytes"
            )));
        }
        // One frame is kept as it came; a second starts a copy.
        match first.take() {
            None if out.is_empty() => first = Some(data),
            None => out.extend_from_slice(&data),
            Some(f) => {
                out.reserve(len);
                out.extend_from_slice(&f);
                out.extend_from_slice(&data);
            }
        }
    }
    Ok(first.unwrap_or_else(|| out.freeze()))
}

/// Reads and drops what is left of a request body, at most `cap` bytes and for at most a few
/// seconds, so that an HTTP/1.1 connection can answer and stay open.
pub(crate) async fn drain_body(body: &mut Body, cap: usize) {
    let drain = async {
        let mut read = 0usize;
        while let Some(Ok(frame)) = body.frame().await {
            if let Some(data) = frame.data_ref() {
                read += data.len();
                if read > cap {
                    return;
                }
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME, drain).await;
}

/// Decompresses `bytes` compressed with `compression`, at most `limit` bytes out.
pub(crate) fn decompress(
    compression: Compression,
    bytes: Bytes,
    limit: usize,
) -> Result<Bytes, Status> {
    match compression {
        // Empty content is never compressed.
        _ if bytes.is_empty() => Ok(bytes),
        Compression::Identity => Ok(bytes),
        Compression::Gzip => {
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .take(limit as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| Status::invalid_argument(format!("gzip: {e}")))?;
            if out.len() > limit {
                return Err(Status::resource_exhausted(format!(
                    "the decompressed message is over the server's limit of {limit} bytes"
                )));
            }
            Ok(Bytes::from(out))
        }
    }
}

/// Compresses `bytes` with gzip, after `room` zero bytes.
pub(crate) fn gzip(room: usize, bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = Vec::with_capacity(room + bytes.len() / 2 + 32);
    out.resize(room, 0);
    let mut e = flate2::write::GzEncoder::new(out, flate2::Compression::fast());
    // Writing to a `Vec` cannot fail.
    let _ = e.write_all(bytes);
    e.finish().unwrap_or_default()
}

/// The one envelope of a request body: its flags and payload.
pub(crate) fn single_envelope(mut body: Bytes) -> Result<(u8, Bytes), Status> {
    if body.len() < 5 {
        return Err(Status::invalid_argument(
            "the request holds no complete envelope",
        ));
    }
    let flags = body[0];
    let len = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
    body.advance(5);
    if body.len() != len {
        return Err(Status::invalid_argument(format!(
            "the request's envelope says {len} bytes and {} follow: one message is expected",
            body.len()
        )));
    }
    if flags & !FLAG_COMPRESSED != 0 {
        return Err(Status::invalid_argument(format!(
            "a request envelope has flags {flags:#04x}"
        )));
    }
    Ok((flags, body))
}

/// An envelope around `payload`, compressed when `compression` says so and the payload is at
/// least `min` bytes.
pub(crate) fn envelope(mut payload: Vec<u8>, compression: Compression, min: usize) -> Bytes {
    let mut flags = 0;
    if compression == Compression::Gzip && payload.len() - 5 >= min {
        payload = gzip(5, &payload[5..]);
        flags = FLAG_COMPRESSED;
    }
    let len = (payload.len() - 5) as u32;
    payload[0] = flags;
    payload[1..5].copy_from_slice(&len.to_be_bytes());
    Bytes::from(payload)
}

/// The end-of-stream envelope.
pub(crate) fn end_stream(error: Option<&Status>, trailers: &HeaderMap) -> Bytes {
    let json = end_stream_json(error, trailers);
    let mut out = Vec::with_capacity(json.len() + 5);
    out.push(FLAG_END_STREAM);
    out.extend_from_slice(&(json.len() as u32).to_be_bytes());
    out.extend_from_slice(json.as_bytes());
    Bytes::from(out)
}

/// The most bytes of envelopes a streaming answer gathers into one frame.
const BATCH: usize = 32 << 10;

/// Encoded messages (each with 5 bytes of room ahead for its envelope) or the error that
/// ends the stream.
pub(crate) type Messages = Pin<Box<dyn Stream<Item = Result<Vec<u8>, Status>> + Send>>;

/// The body of a streaming response: an envelope per message, then the end-of-stream
/// envelope (with the error, if the stream ended with one, or the deadline passed).
pub(crate) struct StreamBody {
    messages: Option<Messages>,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    compression: Compression,
    min: usize,
    /// Sent at the end: an error found before the stream began, or none.
    error: Option<Status>,
    done: bool,
}

impl StreamBody {
    pub(crate) fn new(
        messages: Option<Messages>,
        error: Option<Status>,
        deadline: Option<tokio::time::Instant>,
        compression: Compression,
        min: usize,
    ) -> Self {
        StreamBody {
            messages,
            deadline: deadline.map(|d| Box::pin(tokio::time::sleep_until(d))),
            compression,
            min,
            error,
            done: false,
        }
    }

    /// The end-of-stream envelope, with `error`; the body is done after it.
    fn end_frame(&mut self, error: Option<Status>) -> Bytes {
        self.done = true;
        self.messages = None;
        let trailers = error
            .as_ref()
            .map(super::protocol::metadata_headers)
            .unwrap_or_default();
        end_stream(error.as_ref(), &trailers)
    }

    fn finish(&mut self, error: Option<Status>) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        Poll::Ready(Some(Ok(Frame::data(self.end_frame(error)))))
    }
}

impl http_body::Body for StreamBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        if let Some(deadline) = this.deadline.as_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                return this.finish(Some(Status::deadline_exceeded(
                    "the call's deadline passed",
                )));
            }
        }
        let Some(messages) = this.messages.as_mut() else {
            let error = this.error.take();
            return this.finish(error);
        };
        // The envelopes ready now go out as one frame (up to `BATCH` bytes): a frame per
        // small message costs more than the messages.
        let mut first: Option<Bytes> = None;
        let mut batch = BytesMut::new();
        let mut end = None;
        loop {
            match messages.as_mut().poll_next(cx) {
                Poll::Pending => break,
                Poll::Ready(None) => {
                    end = Some(None);
                    break;
                }
                Poll::Ready(Some(Err(status))) => {
                    end = Some(Some(status));
                    break;
                }
                Poll::Ready(Some(Ok(payload))) => {
                    let e = envelope(payload, this.compression, this.min);
                    match first.take() {
                        None if batch.is_empty() => first = Some(e),
                        None => batch.extend_from_slice(&e),
                        Some(f) => {
                            batch.extend_from_slice(&f);
                            batch.extend_from_slice(&e);
                        }
                    }
                    if first.as_ref().map_or(batch.len(), Bytes::len) >= BATCH {
                        break;
                    }
                }
            }
        }
        if let Some(error) = end {
            let last = this.end_frame(error);
            if let Some(f) = first.take() {
                batch.extend_from_slice(&f);
            }
            batch.extend_from_slice(&last);
        }
        match first {
            Some(f) => Poll::Ready(Some(Ok(Frame::data(f)))),
            None if batch.is_empty() => Poll::Pending,
            None => Poll::Ready(Some(Ok(Frame::data(batch.freeze())))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }
}

/// A request body handed to tonic that, if dropped before its end, gives itself back so the
/// caller can drain it before answering.
pub(crate) struct Reclaim {
    inner: Option<Body>,
    back: Option<tokio::sync::oneshot::Sender<Body>>,
}

impl Reclaim {
    /// `body` as it is if it has ended already (nothing can be left unread), else wrapped,
    /// with the receiver it comes back on if it is dropped unread.
    pub(crate) fn unless_ended(body: Body) -> (Body, Option<tokio::sync::oneshot::Receiver<Body>>) {
        if body.is_end_stream() {
            return (body, None);
        }
        let (reclaim, back) = Reclaim::new(body);
        (Body::new(reclaim), Some(back))
    }

    pub(crate) fn new(body: Body) -> (Reclaim, tokio::sync::oneshot::Receiver<Body>) {
        let (tx, rx) = tokio::sync::oneshot::channel();
        (
            Reclaim {
                inner: Some(body),
                back: Some(tx),
            },
            rx,
        )
    }
}

impl http_body::Body for Reclaim {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = Pin::new(inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            // Read to its end: nothing to give back.
            this.inner = None;
            this.back = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(Body::is_end_stream)
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| http_body::SizeHint::with_exact(0), Body::size_hint)
    }
}

impl Drop for Reclaim {
    fn drop(&mut self) {
        if let (Some(body), Some(back)) = (self.inner.take(), self.back.take()) {
            if !body.is_end_stream() {
                let _ = back.send(body);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_frame_and_compress() {
        let payload = vec![0, 0, 0, 0, 0, 7, 8, 9];
        let e = envelope(payload.clone(), Compression::Identity, 0);
        assert_eq!(&e[..], &[0, 0, 0, 0, 3, 7, 8, 9]);
        let (flags, body) = single_envelope(e).unwrap();
        assert_eq!((flags, &body[..]), (0, &[7u8, 8, 9][..]));
        let z = envelope(payload.clone(), Compression::Gzip, 0);
        assert_eq!(z[0], FLAG_COMPRESSED);
        let (_, body) = single_envelope(z).unwrap();
        let plain = decompress(Compression::Gzip, body, 100).unwrap();
        assert_eq!(&plain[..], &[7, 8, 9]);
        // Under the threshold, no compression.
        assert_eq!(envelope(payload, Compression::Gzip, 4)[0], 0);
    }

    #[test]
    fn a_stream_s_ready_messages_go_out_in_one_frame_with_its_end() {
        struct Noop;
        impl std::task::Wake for Noop {
            fn wake(self: std::sync::Arc<Self>) {}
        }
        let waker = std::task::Waker::from(std::sync::Arc::new(Noop));
        let mut cx = Context::from_waker(&waker);
        let messages: Messages = Box::pin(tonic::codegen::tokio_stream::iter(
            [vec![0, 0, 0, 0, 0, 1], vec![0, 0, 0, 0, 0, 2, 2]].map(Ok),
        ));
        let mut body = StreamBody::new(Some(messages), None, None, Compression::Identity, 0);
        let frame = match Pin::new(&mut body).poll_frame(&mut cx) {
            Poll::Ready(Some(Ok(frame))) => frame.into_data().unwrap(),
            _ => panic!("a frame"),
        };
        assert_eq!(
            &frame[..],
            b"\0\0\0\0\x01\x01\0\0\0\0\x02\x02\x02\x02\0\0\0\x02{}"
        );
        assert!(body.is_end_stream());
        assert!(matches!(
            Pin::new(&mut body).poll_frame(&mut cx),
            Poll::Ready(None)
        ));
        // An error ends the stream with its code.
        let messages: Messages = Box::pin(tonic::codegen::tokio_stream::iter([
            Ok(vec![0, 0, 0, 0, 0, 1]),
            Err(Status::aborted("x")),
        ]));
        let mut body = StreamBody::new(Some(messages), None, None, Compression::Identity, 0);
        let Poll::Ready(Some(Ok(frame))) = Pin::new(&mut body).poll_frame(&mut cx) else {
            panic!("a frame")
        };
        let frame = frame.into_data().unwrap();
        assert!(
            frame.ends_with(br#"{"error":{"code":"aborted","message":"x"}}"#),
            "{frame:?}"
        );
    }

    #[test]
    fn bad_envelopes_are_invalid_arguments() {
        for bad in [
            &[0u8, 0, 0][..],
            &[0, 0, 0, 0, 4, 1],
            &[0, 0, 0, 0, 1, 1, 2],
            &[2, 0, 0, 0, 0],
            &[0x80, 0, 0, 0, 0],
        ] {
            let e = single_envelope(Bytes::copy_from_slice(bad)).unwrap_err();
            assert_eq!(e.code(), tonic::Code::InvalidArgument, "{bad:?}");
        }
    }

    #[test]
    fn decompression_is_bounded() {
        let big = gzip(0, &vec![0u8; 100_000]);
        let e = decompress(Compression::Gzip, Bytes::from(big), 1000).unwrap_err();
        assert_eq!(e.code(), tonic::Code::ResourceExhausted);
        let e = decompress(Compression::Gzip, Bytes::from_static(b"not gzip"), 1000).unwrap_err();
        assert_eq!(e.code(), tonic::Code::InvalidArgument);
    }
}
