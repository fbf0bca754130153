//! One Connect call, in each of the four shapes: the request read and decoded, the generated
//! server trait's method called with a `tonic::Request` as gRPC would call it, its answer
//! encoded.

use core::future::Future;
use std::sync::Arc;

use bytes::Bytes;
use http::header::{HeaderValue, CONTENT_ENCODING, CONTENT_TYPE};
use tonic::body::Body;
use tonic::codec::{DecodeBuf, Decoder};
use tonic::codegen::tokio_stream::{Stream, StreamExt as _};
use tonic::Status;

use super::body::{
    decompress, drain_body, gzip, read_body, single_envelope, Messages, StreamBody, FLAG_COMPRESSED,
};
use super::protocol::{self, Compression, Format, Protocol};
use super::{Config, MethodInfo};
use crate::tonic::resource_exhausted::over_limit;
use crate::{DecodeLimits, Message};

/// A boxed response future, as [`Dispatch::call`](super::Dispatch::call) returns it.
pub type BoxFuture =
    core::pin::Pin<Box<dyn Future<Output = http::Response<Body>> + Send + 'static>>;

/// How a method's request is read from a body and its response written, by [`Format`]:
/// [`Binary`] or, with ProtoJSON generated, [`Json`]. A server reads `Req` and writes `Resp`;
/// a client uses `Codec<Resp, Req>`, reading its answer and writing its request.
pub trait Codec<Req, Resp>: Copy + Send + Sync + 'static {
    /// Whether JSON bodies are read and written.
    const JSON: bool;
    /// Decodes a request.
    fn decode(self, format: Format, bytes: Bytes, limits: &DecodeLimits) -> Result<Req, Status>;
    /// Encodes a response, appended to `out`.
    fn encode(self, format: Format, msg: &Resp, out: &mut Vec<u8>) -> Result<(), Status>;
}

/// The binary encoding only: a JSON request is answered `415 Unsupported Media Type`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Binary;

fn decode_binary<Req: crate::tonic::Decode>(
    bytes: Bytes,
    limits: &DecodeLimits,
) -> Result<Req, Status> {
    Req::decode_from(bytes, limits).map_err(|e| {
        let message = format!("decoding {}: {e}", Req::NAME);
        match e.kind() {
            crate::DecodeErrorKind::MemoryBudget { .. }
            | crate::DecodeErrorKind::InputTooLarge { .. }
            | crate::DecodeErrorKind::UnknownFieldLimit { .. } => {
                Status::resource_exhausted(message)
            }
            _ => Status::invalid_argument(message),
        }
    })
}

impl<Req: crate::tonic::Decode, Resp: Message> Codec<Req, Resp> for Binary {
    const JSON: bool = false;

    fn decode(self, _: Format, bytes: Bytes, limits: &DecodeLimits) -> Result<Req, Status> {
        decode_binary(bytes, limits)
    }

    fn encode(self, _: Format, msg: &Resp, out: &mut Vec<u8>) -> Result<(), Status> {
        msg.append_to_vec(out);
        Ok(())
    }
}

/// The binary encoding and ProtoJSON (`features=..+json`).
#[cfg(feature = "json")]
#[derive(Clone, Copy, Debug, Default)]
pub struct Json;

/// A request that can be read from ProtoJSON: a [`JsonMessage`](crate::json::JsonMessage), or
/// an [`OwnedView`](crate::OwnedView) of one (read as the message, then viewed).
#[cfg(feature = "json")]
pub trait JsonRequest: crate::tonic::Decode {
    /// Reads the request from JSON.
    fn from_json(bytes: &[u8], limits: &DecodeLimits) -> Result<Self, Status>;
}

#[cfg(feature = "json")]
fn json_status(e: crate::json::JsonError) -> Status {
    match e.kind() {
        crate::json::JsonErrorKind::MemoryBudget { .. }
        | crate::json::JsonErrorKind::InputTooLarge { .. } => {
            Status::resource_exhausted(format!("reading JSON: {e}"))
        }
        _ => Status::invalid_argument(format!("reading JSON: {e}")),
    }
}

#[cfg(feature = "json")]
impl<M: crate::json::JsonMessage> JsonRequest for M {
    fn from_json(bytes: &[u8], limits: &DecodeLimits) -> Result<Self, Status> {
        let options = crate::json::DecodeOptions {
            limits: *limits,
            ..Default::default()
        };
        crate::json::from_slice_with(bytes, &options).map_err(json_status)
    }
}

#[cfg(feature = "json")]
impl<F: crate::ViewFamily> JsonRequest for crate::OwnedView<F>
where
    <F::View<'static> as crate::MessageView<'static>>::Owned: crate::json::JsonMessage,
{
    fn from_json(bytes: &[u8], limits: &DecodeLimits) -> Result<Self, Status> {
        type Owned<F> =
            <<F as crate::ViewFamily>::View<'static> as crate::MessageView<'static>>::Owned;
        let owned = <Owned<F> as JsonRequest>::from_json(bytes, limits)?;
        decode_binary(Bytes::from(owned.encode_to_vec()), limits)
    }
}

#[cfg(feature = "json")]
impl<Req: JsonRequest, Resp: crate::json::JsonMessage> Codec<Req, Resp> for Json {
    const JSON: bool = true;

    fn decode(self, format: Format, bytes: Bytes, limits: &DecodeLimits) -> Result<Req, Status> {
        match format {
            Format::Proto => decode_binary(bytes, limits),
            Format::Json => Req::from_json(&bytes, limits),
        }
    }

    fn encode(self, format: Format, msg: &Resp, out: &mut Vec<u8>) -> Result<(), Status> {
        match format {
            Format::Proto => {
                msg.append_to_vec(out);
                Ok(())
            }
            Format::Json => crate::json::to_vec_into(msg, &Default::default(), out)
                .map_err(|e| Status::internal(format!("writing JSON: {e}"))),
        }
    }
}

/// A Connect call routed to one method: what [`Dispatch::call`](super::Dispatch::call) gets,
/// and hands to the method's shape ([`unary`](Call::unary), ...) with the handler.
pub struct Call {
    pub(crate) parts: http::request::Parts,
    pub(crate) body: Body,
    pub(crate) protocol: Protocol,
    pub(crate) config: Arc<Config>,
    pub(crate) method: &'static MethodInfo,
}

impl core::fmt::Debug for Call {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Call")
            .field("method", &self.method.name)
            .field("protocol", &self.protocol)
            .finish_non_exhaustive()
    }
}

/// The part of a call both unary forms share: what they read.
struct Read {
    format: Format,
    payload: Bytes,
}

impl Call {
    /// The message of a unary call: a POST's body or a GET's query.
    async fn read_unary(&mut self) -> Result<Read, Status> {
        let config = &self.config;
        match self.protocol {
            Protocol::Unary(format) => {
                let compression =
                    Compression::named(header(&self.parts.headers, "content-encoding"));
                let compression = match compression {
                    Ok(c) => c,
                    Err(e) => {
                        drain_body(&mut self.body, config.drain_limit).await;
                        return Err(e);
                    }
                };
                let bytes =
                    read_body(&mut self.body, config.max_message_size, config.drain_limit).await?;
                let payload = decompress(compression, bytes, config.max_message_size)?;
                Ok(Read { format, payload })
            }
            _ => get_query(
                self.parts.uri.query().unwrap_or(""),
                config.max_message_size,
            ),
        }
    }

    /// The one message of a server-streaming call: one envelope.
    async fn read_one_envelope(&mut self, format: Format) -> Result<Read, Status> {
        let config = &self.config;
        let compression =
            Compression::named(header(&self.parts.headers, "connect-content-encoding"));
        let compression = match compression {
            Ok(c) => c,
            Err(e) => {
                drain_body(&mut self.body, config.drain_limit).await;
                return Err(e);
            }
        };
        let bytes = read_body(
            &mut self.body,
            config.max_message_size.saturating_add(5),
            config.drain_limit,
        )
        .await?;
        let (flags, payload) = single_envelope(bytes)?;
        let payload = if flags & FLAG_COMPRESSED != 0 {
            if compression == Compression::Identity {
                return Err(Status::invalid_argument(
                    "a compressed envelope, and no connect-content-encoding",
                ));
            }
            decompress(compression, payload, config.max_message_size)?
        } else {
            payload
        };
        Ok(Read { format, payload })
    }

    /// A unary method: a POST (`application/proto`, `application/json`) or a GET.
    pub fn unary<C, Req, Resp, F, Fut>(mut self, codec: C, handler: F) -> BoxFuture
    where
        C: Codec<Req, Resp>,
        Req: Send + 'static,
        Resp: Send + 'static,
        F: FnOnce(tonic::Request<Req>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<tonic::Response<Resp>, Status>> + Send + 'static,
    {
        Box::pin(async move {
            let config = self.config.clone();
            let answer = async move {
                // The deadline runs from the call's start: reading the request counts.
                let checked = protocol::check_version(&self.parts.headers)
                    .and_then(|()| protocol::timeout(&self.parts.headers));
                let deadline = match checked {
                    Ok(d) => d.map(|d| tokio::time::Instant::now() + d),
                    Err(status) => {
                        drain_body(&mut self.body, self.config.drain_limit).await;
                        return Err(status);
                    }
                };
                let work = async move {
                    let read = self.read_unary().await?;
                    if read.format == Format::Json && !C::JSON {
                        return Err(Status::invalid_argument("this service reads no JSON"));
                    }
                    let accept = Compression::accepted(&self.parts.headers, "accept-encoding");
                    let message = codec.decode(read.format, read.payload, &self.config.limits)?;
                    let response = handler(request(self.parts, message)).await?;
                    Ok((read.format, accept, response))
                };
                let (format, accept, response) = with_deadline_at(deadline, work).await?;
                let (metadata, message, _) = response.into_parts();
                let mut body = Vec::new();
                codec.encode(format, &message, &mut body)?;
                let mut response = http::Response::new(());
                let headers = response.headers_mut();
                *headers = metadata.into_headers();
                headers.insert(CONTENT_TYPE, protocol::content_type(false, format));
                if accept == Compression::Gzip && body.len() >= config.compress_min_bytes {
                    body = gzip(0, &body);
                    headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
                }
                Ok::<_, Status>(response.map(|()| full(body)))
            };
            answer.await.unwrap_or_else(|s| protocol::unary_error(&s))
        })
    }

    /// A server-streaming method: one enveloped request, enveloped responses.
    pub fn server_streaming<C, Req, Resp, S, F, Fut>(mut self, codec: C, handler: F) -> BoxFuture
    where
        C: Codec<Req, Resp>,
        Req: Send + 'static,
        Resp: Send + 'static,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
        F: FnOnce(tonic::Request<Req>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<tonic::Response<S>, Status>> + Send + 'static,
    {
        Box::pin(async move {
            let format = self.stream_format();
            let start = self.stream_start();
            let answer = async {
                let checked =
                    protocol::check_version(&self.parts.headers).and(start.deadline.clone());
                let deadline = match checked {
                    Ok(d) => d,
                    Err(status) => {
                        drain_body(&mut self.body, self.config.drain_limit).await;
                        return Err(status);
                    }
                };
                // The deadline runs from the call's start: reading the request counts.
                let work = async move {
                    let read = self.read_one_envelope(format).await?;
                    let message = codec.decode(format, read.payload, &self.config.limits)?;
                    handler(request(self.parts, message)).await
                };
                with_deadline_at(deadline, work).await
            };
            match answer.await {
                Ok(response) => start.answer(codec, format, response, |s| s),
                Err(status) => start.fail(format, status),
            }
        })
    }

    /// A client-streaming method: enveloped requests, one response in a stream's form.
    pub fn client_streaming<C, Req, Resp, F, Fut>(self, codec: C, handler: F) -> BoxFuture
    where
        C: Codec<Req, Resp>,
        Req: Send + 'static,
        Resp: Send + 'static,
        F: FnOnce(tonic::Request<tonic::Streaming<Req>>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<tonic::Response<Resp>, Status>> + Send + 'static,
    {
        self.streaming_request(codec, handler, |one| {
            tonic::codegen::tokio_stream::once(Ok::<_, Status>(one))
        })
    }

    /// A bidirectional-streaming method (HTTP/2, or HTTP/1.1 half duplex).
    pub fn bidi_streaming<C, Req, Resp, S, F, Fut>(self, codec: C, handler: F) -> BoxFuture
    where
        C: Codec<Req, Resp>,
        Req: Send + 'static,
        Resp: Send + 'static,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
        F: FnOnce(tonic::Request<tonic::Streaming<Req>>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<tonic::Response<S>, Status>> + Send + 'static,
    {
        self.streaming_request(codec, handler, |s| s)
    }

    fn streaming_request<C, Req, Resp, T, S, F, Fut>(
        mut self,
        codec: C,
        handler: F,
        to_stream: fn(T) -> S,
    ) -> BoxFuture
    where
        C: Codec<Req, Resp>,
        Req: Send + 'static,
        Resp: Send + 'static,
        T: Send + 'static,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
        F: FnOnce(tonic::Request<tonic::Streaming<Req>>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<tonic::Response<T>, Status>> + Send + 'static,
    {
        Box::pin(async move {
            let format = self.stream_format();
            let start = self.stream_start();
            let answer = async {
                let checked = protocol::check_version(&self.parts.headers)
                    .and(start.deadline.clone())
                    .and_then(|deadline| {
                        let name = header(&self.parts.headers, "connect-content-encoding");
                        Ok((deadline, Compression::named(name)?))
                    });
                // Over HTTP/1.1 the client sends its whole request before it reads: what the
                // handler leaves unread is read before the answer goes. Over HTTP/2 the client
                // may wait for the answer with its stream open.
                let http1 = self.parts.version < http::Version::HTTP_2;
                let (deadline, compression) = match checked {
                    Ok(checked) => checked,
                    Err(status) => {
                        if http1 {
                            drain_body(&mut self.body, self.config.drain_limit).await;
                        }
                        return Err(status);
                    }
                };
                let drain = self.config.drain_limit;
                let (body, back) = if http1 {
                    super::body::Reclaim::unless_ended(self.body)
                } else {
                    (self.body, None)
                };
                let decoder = StreamDecoder {
                    codec,
                    format,
                    limits: self.config.limits,
                    _types: core::marker::PhantomData,
                };
                let encoding = match compression {
                    Compression::Identity => None,
                    Compression::Gzip => Some(tonic::codec::CompressionEncoding::Gzip),
                };
                let streaming = tonic::Streaming::new_request(
                    decoder,
                    body,
                    encoding,
                    Some(self.config.max_message_size),
                );
                let request = request(self.parts, streaming);
                let answer = with_deadline_at(deadline, handler(request)).await;
                if let Some(mut left) = back.and_then(|mut b| b.try_recv().ok()) {
                    drain_body(&mut left, drain).await;
                }
                answer
            };
            match answer.await {
                Ok(response) => start.answer(codec, format, response, to_stream),
                Err(status) => start.fail(format, status),
            }
        })
    }

    fn stream_format(&self) -> Format {
        match self.protocol {
            Protocol::Stream(format) => format,
            _ => Format::Proto,
        }
    }

    fn stream_start(&self) -> StreamStart {
        let deadline = protocol::timeout(&self.parts.headers)
            .map(|d| d.map(|d| tokio::time::Instant::now() + d));
        StreamStart {
            deadline,
            accept: Compression::accepted(&self.parts.headers, "connect-accept-encoding"),
            min: self.config.compress_min_bytes,
        }
    }

    /// Answers that the method is not one this server has (`unimplemented`), after reading
    /// the request.
    pub fn unimplemented(mut self) -> BoxFuture {
        Box::pin(async move {
            // A streaming client on HTTP/2 may wait for the answer with its stream open.
            if self.parts.version < http::Version::HTTP_2 || !self.protocol.is_stream() {
                drain_body(&mut self.body, self.config.drain_limit).await;
            }
            protocol::unary_error(&Status::unimplemented(format!(
                "{} is not implemented",
                self.parts.uri.path()
            )))
        })
    }
}

/// What a streaming answer needs from its request's headers.
struct StreamStart {
    deadline: Result<Option<tokio::time::Instant>, Status>,
    accept: Compression,
    min: usize,
}

impl StreamStart {
    fn answer<C, Req, Resp, T, S>(
        self,
        codec: C,
        format: Format,
        response: tonic::Response<T>,
        to_stream: impl FnOnce(T) -> S,
    ) -> http::Response<Body>
    where
        C: Codec<Req, Resp>,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
    {
        let (metadata, messages, _) = response.into_parts();
        let encoded: Messages = Box::pin(to_stream(messages).map(move |item| {
            let mut out = vec![0; 5];
            codec.encode(format, &item.map_err(over_limit)?, &mut out)?;
            Ok(out)
        }));
        let body = StreamBody::new(
            Some(encoded),
            None,
            self.deadline.clone().ok().flatten(),
            self.accept,
            self.min,
        );
        self.response(format, metadata.into_headers(), body)
    }

    fn fail(self, format: Format, status: Status) -> http::Response<Body> {
        let body = StreamBody::new(None, Some(over_limit(status)), None, self.accept, self.min);
        self.response(format, http::HeaderMap::new(), body)
    }

    fn response(
        self,
        format: Format,
        mut headers: http::HeaderMap,
        body: StreamBody,
    ) -> http::Response<Body> {
        headers.insert(CONTENT_TYPE, protocol::content_type(true, format));
        if self.accept == Compression::Gzip {
            headers.insert("connect-content-encoding", HeaderValue::from_static("gzip"));
        }
        let mut response = http::Response::new(Body::new(body));
        *response.headers_mut() = headers;
        response
    }
}

/// The decoder of a streaming request's messages, for `tonic::Streaming` (whose envelopes
/// are Connect's: a flags byte, bit 0 for compression, and a big-endian length).
struct StreamDecoder<C, Req, Resp> {
    codec: C,
    format: Format,
    limits: DecodeLimits,
    _types: core::marker::PhantomData<fn() -> (Req, Resp)>,
}

impl<C: Codec<Req, Resp>, Req, Resp> Decoder for StreamDecoder<C, Req, Resp> {
    type Item = Req;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Req>, Status> {
        use bytes::Buf as _;
        let bytes = buf.copy_to_bytes(buf.remaining());
        self.codec
            .decode(self.format, bytes, &self.limits)
            .map(Some)
    }
}

fn header<'h>(headers: &'h http::HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn full(body: Vec<u8>) -> Body {
    Body::new(http_body_util::Full::new(Bytes::from(body)))
}

/// The request the server trait gets: the HTTP request's headers as metadata, its extensions.
fn request<T>(parts: http::request::Parts, message: T) -> tonic::Request<T> {
    tonic::Request::from_http(http::Request::from_parts(parts, message))
}

async fn with_deadline_at<T>(
    deadline: Option<tokio::time::Instant>,
    call: impl Future<Output = Result<T, Status>>,
) -> Result<T, Status> {
    match deadline {
        None => call.await,
        Some(at) => tokio::time::timeout_at(at, call)
            .await
            .unwrap_or_else(|_| Err(Status::deadline_exceeded("the call's deadline passed"))),
    }
}

/// A GET's query: `message`, `encoding`, `base64`, `compression`, `connect`.
fn get_query(query: &str, limit: usize) -> Result<Read, Status> {
    let (mut message, mut encoding, mut base64, mut compression) = (None, None, false, None);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match key {
            "message" => message = Some(percent_decode(value)?),
            "encoding" => encoding = Some(percent_decode(value)?),
            "base64" => base64 = value == "1",
            "compression" => compression = Some(percent_decode(value)?),
            "connect" if value != "v1" => {
                return Err(Status::invalid_argument(format!(
                    "connect={value}: this server speaks v1"
                )))
            }
            _ => {}
        }
    }
    let encoding = encoding.ok_or_else(|| Status::invalid_argument("the query has no encoding"))?;
    let format = match encoding.as_slice() {
        b"proto" => Format::Proto,
        b"json" => Format::Json,
        other => {
            return Err(Status::invalid_argument(format!(
                "encoding={}: proto or json",
                String::from_utf8_lossy(other)
            )))
        }
    };
    let mut payload =
        message.ok_or_else(|| Status::invalid_argument("the query has no message"))?;
    if base64 {
        use base64::Engine as _;
        let text: Vec<u8> = payload.into_iter().filter(|&b| b != b'=').collect();
        payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(&text)
            .map_err(|e| Status::invalid_argument(format!("message is not base64url: {e}")))?;
    }
    if payload.len() > limit {
        return Err(Status::resource_exhausted(format!(
            "the request is over the server's limit of {limit} bytes"
        )));
    }
    let compression = match compression.map(String::from_utf8) {
        None => None,
        Some(Ok(name)) => Some(name),
        Some(Err(_)) => {
            return Err(Status::unimplemented(
                "compression is not a name this server knows",
            ))
        }
    };
    let compression = Compression::named(compression.as_deref())?;
    let payload = decompress(compression, Bytes::from(payload), limit)?;
    Ok(Read { format, payload })
}

fn percent_decode(text: &str) -> Result<Vec<u8>, Status> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                    .and_then(|h| core::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| Status::invalid_argument("a bad %-escape in the query"))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_queries_are_read() {
        let r = get_query("encoding=json&message=%7B%22a%22%3A1%7D&connect=v1", 100).unwrap();
        assert_eq!(
            (r.format, &r.payload[..]),
            (Format::Json, &b"{\"a\":1}"[..])
        );
        let r = get_query("message=CgNhYmM&base64=1&encoding=proto", 100).unwrap();
        assert_eq!(&r.payload[..], b"\n\x03abc");
        let r = get_query("message=CgNhYmM%3D&base64=1&encoding=proto", 100).unwrap();
        assert_eq!(&r.payload[..], b"\n\x03abc");
        for (bad, code) in [
            ("message=x", tonic::Code::InvalidArgument),
            ("encoding=xml", tonic::Code::InvalidArgument),
            ("encoding=proto&connect=v2", tonic::Code::InvalidArgument),
            ("encoding=proto&message=%zz", tonic::Code::InvalidArgument),
            ("encoding=proto&message=%+1", tonic::Code::InvalidArgument),
            ("encoding=proto", tonic::Code::InvalidArgument),
            ("encoding=proto&message=&compression=%FF", tonic::Code::Unimplemented),
            ("encoding=proto&base64=1&message=!!", tonic::Code::InvalidArgument),
            ("encoding=proto&message=&compression=br", tonic::Code::Unimplemented),
            ("encoding=proto&message=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", tonic::Code::ResourceExhausted),
        ] {
            assert_eq!(get_query(bad, 100).err().map(|s| s.code()), Some(code), "{bad}");
        }
    }
}
