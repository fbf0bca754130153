//! A Connect client: unary and server-streaming calls over HTTP/1.1 or HTTP/2 (prior
//! knowledge), binary or JSON, gzip both ways, Connect's errors and deadlines. Generated
//! clients (`<service>_connect::<Service>ConnectClient`) wrap it.

use core::future::Future as _;
use core::pin::Pin;
use core::task::{Context, Poll};
use core::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use http::header::{HeaderMap, HeaderValue, CONTENT_ENCODING, CONTENT_TYPE};
use http_body::Body as _;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tonic::codegen::tokio_stream::Stream;
use tonic::metadata::MetadataMap;
use tonic::{Code, Status};

use super::body::{decompress, envelope, gzip, FLAG_COMPRESSED, FLAG_END_STREAM};
use super::protocol::{code_of_http_status, code_of_name, content_type, Compression, Format};
use super::Codec;

/// A Connect client for one server (`http://host:port`, maybe with a path prefix), shared by
/// the generated clients of its services. Cloning it shares its connections.
#[derive(Clone, Debug)]
pub struct Client {
    http: hyper_util::client::legacy::Client<HttpConnector, Full<Bytes>>,
    base: String,
    format: Format,
    send_gzip: bool,
    compress_min_bytes: usize,
    max_message_size: usize,
    limits: crate::DecodeLimits,
}

impl Client {
    /// A client of the server at `base_url` (`http://127.0.0.1:8080`), over HTTP/1.1, sending
    /// and reading the binary encoding.
    pub fn new(base_url: impl Into<String>) -> Self {
        Client::with_http2(base_url, false)
    }

    /// The same over HTTP/2 with prior knowledge (`h2c`) when `http2` is set.
    pub fn with_http2(base_url: impl Into<String>, http2: bool) -> Self {
        let http = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .http2_only(http2)
            .build_http();
        Client {
            http,
            base: base_url.into().trim_end_matches('/').to_string(),
            format: Format::Proto,
            send_gzip: false,
            compress_min_bytes: 1024,
            max_message_size: 4 << 20,
            limits: crate::DecodeLimits::DEFAULT,
        }
    }

    /// Sends and reads ProtoJSON (`application/json`) instead of the binary encoding; the
    /// generated client must have JSON (`features=..+json`).
    pub fn json(mut self, json: bool) -> Self {
        self.format = if json { Format::Json } else { Format::Proto };
        self
    }

    /// Gzips requests of at least 1 KiB (answers are read gzipped either way).
    pub fn send_gzip(mut self, gzip: bool) -> Self {
        self.send_gzip = gzip;
        self
    }

    /// Requests from this size on are gzipped when [`send_gzip`](Client::send_gzip) is on
    /// (1 KiB by default).
    pub fn compress_min_bytes(mut self, bytes: usize) -> Self {
        self.compress_min_bytes = bytes;
        self
    }

    /// The largest answer message read, before and after decompression (4 MiB by default).
    pub fn max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// The limits answers are decoded under.
    pub fn decode_limits(mut self, limits: crate::DecodeLimits) -> Self {
        self.limits = limits;
        self
    }

    fn http_request(
        &self,
        path: &str,
        stream: bool,
        metadata: MetadataMap,
        body: Bytes,
    ) -> Result<(http::Request<Full<Bytes>>, Option<Duration>), Status> {
        let mut headers = metadata.into_headers();
        let deadline = headers
            .remove("grpc-timeout")
            .and_then(|v| grpc_timeout(v.to_str().ok()?));
        let mut body = body;
        let (encoding, accept) = if stream {
            ("connect-content-encoding", "connect-accept-encoding")
        } else {
            ("content-encoding", "accept-encoding")
        };
        if self.send_gzip && !stream && body.len() >= self.compress_min_bytes {
            body = gzip(0, &body).into();
            headers.insert(encoding, HeaderValue::from_static("gzip"));
        } else if self.send_gzip && stream {
            headers.insert(encoding, HeaderValue::from_static("gzip"));
        }
        headers.insert(accept, HeaderValue::from_static("gzip"));
        headers.insert(CONTENT_TYPE, content_type(stream, self.format));
        headers.insert("connect-protocol-version", HeaderValue::from_static("1"));
        if let Some(d) = deadline {
            headers.insert(
                "connect-timeout-ms",
                HeaderValue::from(d.as_millis().max(1) as u64),
            );
        }
        let mut request = http::Request::post(format!("{}{path}", self.base))
            .body(Full::new(body))
            .map_err(|e| Status::invalid_argument(format!("the request's URL: {e}")))?;
        *request.headers_mut() = headers;
        Ok((request, deadline))
    }

    /// A unary call of `path` (`/pkg.Service/Method`).
    pub async fn unary<C, Req, Resp>(
        &self,
        codec: C,
        path: &str,
        request: tonic::Request<Req>,
    ) -> Result<tonic::Response<Resp>, Status>
    where
        C: Codec<Resp, Req>,
    {
        let (metadata, _, message) = request.into_parts();
        let mut body = Vec::new();
        codec.encode(self.format, &message, &mut body)?;
        let (request, deadline) = self.http_request(path, false, metadata, body.into())?;
        let call = async {
            let response = self.http.request(request).await.map_err(unavailable)?;
            let (parts, body) = response.into_parts();
            let bytes = read_limited(body, self.max_message_size).await?;
            if parts.status != http::StatusCode::OK {
                return Err(error_of(parts.status, &parts.headers, &bytes));
            }
            check_content_type(&parts.headers, false, self.format)?;
            let compression = Compression::named(header(&parts.headers, CONTENT_ENCODING.as_str()))
                .map_err(|s| Status::internal(s.message().to_string()))?;
            let bytes = decompress(compression, bytes, self.max_message_size)?;
            let message = codec
                .decode(self.format, bytes, &self.limits)
                .map_err(|s| Status::internal(s.message().to_string()))?;
            Ok(tonic::Response::from_parts(
                MetadataMap::from_headers(parts.headers),
                message,
                tonic::Extensions::default(),
            ))
        };
        match deadline {
            None => call.await,
            Some(d) => tokio::time::timeout(d, call)
                .await
                .unwrap_or_else(|_| Err(Status::deadline_exceeded("the call's deadline passed"))),
        }
    }

    /// A server-streaming call of `path`: the answers as a stream, which ends with the
    /// server's error if it sent one.
    pub async fn server_streaming<C, Req, Resp>(
        &self,
        codec: C,
        path: &str,
        request: tonic::Request<Req>,
    ) -> Result<tonic::Response<ConnectStream<Resp>>, Status>
    where
        C: Codec<Resp, Req>,
        Resp: 'static,
    {
        let (metadata, _, message) = request.into_parts();
        let mut payload = vec![0; 5];
        codec.encode(self.format, &message, &mut payload)?;
        let compression = if self.send_gzip {
            Compression::Gzip
        } else {
            Compression::Identity
        };
        let body = envelope(payload, compression, self.compress_min_bytes);
        let (request, deadline) = self.http_request(path, true, metadata, body)?;
        let sleep = deadline.map(|d| Box::pin(tokio::time::sleep(d)));
        let start = async {
            let response = self.http.request(request).await.map_err(unavailable)?;
            let (parts, body) = response.into_parts();
            if parts.status != http::StatusCode::OK {
                let bytes = read_limited(body, self.max_message_size).await?;
                return Err(error_of(parts.status, &parts.headers, &bytes));
            }
            check_content_type(&parts.headers, true, self.format)?;
            let compression =
                Compression::named(header(&parts.headers, "connect-content-encoding"))
                    .map_err(|s| Status::internal(s.message().to_string()))?;
            Ok((parts, body, compression))
        };
        let (parts, body, compression) = match deadline {
            None => start.await?,
            Some(d) => tokio::time::timeout(d, start)
                .await
                .unwrap_or_else(|_| Err(Status::deadline_exceeded("the call's deadline passed")))?,
        };
        let (format, limits) = (self.format, self.limits);
        let stream = ConnectStream {
            body: Box::pin(body),
            buffer: BytesMut::new(),
            decode: Box::new(move |bytes| codec.decode(format, bytes, &limits)),
            compression,
            max_message_size: self.max_message_size,
            deadline: sleep,
            trailers: None,
            done: false,
        };
        Ok(tonic::Response::from_parts(
            MetadataMap::from_headers(parts.headers),
            stream,
            tonic::Extensions::default(),
        ))
    }
}

/// The answers of a server-streaming call, then the server's error if it ended with one.
pub struct ConnectStream<Resp> {
    body: Pin<Box<hyper::body::Incoming>>,
    buffer: BytesMut,
    decode: Box<dyn FnMut(Bytes) -> Result<Resp, Status> + Send>,
    compression: Compression,
    max_message_size: usize,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    trailers: Option<MetadataMap>,
    done: bool,
}

impl<Resp> core::fmt::Debug for ConnectStream<Resp> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ConnectStream")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<Resp> ConnectStream<Resp> {
    /// The end-of-stream message's metadata, once the stream has ended.
    pub fn trailers(&self) -> Option<&MetadataMap> {
        self.trailers.as_ref()
    }
}

impl<Resp> Stream for ConnectStream<Resp> {
    type Item = Result<Resp, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(None);
        }
        if let Some(deadline) = this.deadline.as_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                this.done = true;
                return Poll::Ready(Some(Err(Status::deadline_exceeded(
                    "the call's deadline passed",
                ))));
            }
        }
        loop {
            if let Some(item) = this.next_envelope() {
                return Poll::Ready(Some(item));
            }
            if this.done {
                return Poll::Ready(None);
            }
            match this.body.as_mut().poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(None) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(Status::internal(
                        "the stream ended without its end-of-stream message",
                    ))));
                }
                Poll::Ready(Some(Err(e))) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(unavailable(e))));
                }
                Poll::Ready(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        this.buffer.extend_from_slice(&data);
                    }
                }
            }
        }
    }
}

impl<Resp> ConnectStream<Resp> {
    /// The next complete envelope's answer, error or end.
    fn next_envelope(&mut self) -> Option<Result<Resp, Status>> {
        if self.buffer.len() < 5 {
            return None;
        }
        let flags = self.buffer[0];
        let len = u32::from_be_bytes([
            self.buffer[1],
            self.buffer[2],
            self.buffer[3],
            self.buffer[4],
        ]) as usize;
        if len > self.max_message_size {
            self.done = true;
            return Some(Err(Status::resource_exhausted(format!(
                "an answer of {len} bytes is over the client's limit of {} bytes",
                self.max_message_size
            ))));
        }
        if self.buffer.len() < 5 + len {
            return None;
        }
        self.buffer.advance(5);
        let mut payload = self.buffer.split_to(len).freeze();
        if flags & FLAG_COMPRESSED != 0 {
            if self.compression == Compression::Identity {
                self.done = true;
                return Some(Err(Status::internal(
                    "a compressed envelope, and no connect-content-encoding",
                )));
            }
            match decompress(self.compression, payload, self.max_message_size) {
                Ok(p) => payload = p,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        if flags & FLAG_END_STREAM != 0 {
            self.done = true;
            let (error, trailers) = end_stream_of(&payload);
            self.trailers = Some(trailers.clone());
            return error.map(|mut status| {
                *status.metadata_mut() = trailers;
                Err(status)
            });
        }
        Some((self.decode)(payload).map_err(|s| Status::internal(s.message().to_string())))
    }
}

/// An answer in another format than the request's is an error.
fn check_content_type(headers: &HeaderMap, stream: bool, format: Format) -> Result<(), Status> {
    let want = content_type(stream, format);
    let got = header(headers, CONTENT_TYPE.as_str()).unwrap_or("");
    let media = got.split(';').next().unwrap_or("").trim();
    if media.eq_ignore_ascii_case(want.to_str().unwrap_or("")) {
        Ok(())
    } else {
        Err(Status::internal(format!(
            "the answer's content type is {got:?}, not {want:?}"
        )))
    }
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn unavailable(e: impl core::fmt::Display) -> Status {
    Status::unavailable(format!("the connection failed: {e}"))
}

/// Reads a whole answer body, at most `limit` bytes.
async fn read_limited(body: hyper::body::Incoming, limit: usize) -> Result<Bytes, Status> {
    let limited = http_body_util::Limited::new(body, limit);
    match limited.collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(Status::resource_exhausted(
            format!("an answer is over the client's limit of {limit} bytes"),
        )),
        Err(e) => Err(unavailable(e)),
    }
}

/// The status of a failed unary answer: its error JSON, or its HTTP status.
fn error_of(status: http::StatusCode, headers: &HeaderMap, body: &[u8]) -> Status {
    let metadata =
        MetadataMap::from_headers(super::protocol::metadata_headers(&Status::with_metadata(
            Code::Unknown,
            "",
            MetadataMap::from_headers(headers.clone()),
        )));
    match json::error(body) {
        Some((code, message, details)) => {
            let bytes = super::protocol::rpc_status_bytes(code, &message, &details);
            Status::with_details_and_metadata(code, message, bytes, metadata)
        }
        None => Status::with_metadata(
            code_of_http_status(status),
            format!("HTTP {status}"),
            metadata,
        ),
    }
}

/// The end-of-stream message's error and metadata.
fn end_stream_of(json: &[u8]) -> (Option<Status>, MetadataMap) {
    let Some(message) = json::parse(json) else {
        return (
            Some(Status::internal(
                "an end-of-stream message that is not JSON",
            )),
            MetadataMap::new(),
        );
    };
    let mut headers = HeaderMap::new();
    if let Some(json::Value::Object(fields)) = message.get("metadata") {
        for (key, values) in fields {
            let (Ok(name), json::Value::Array(values)) =
                (http::HeaderName::from_bytes(key.as_bytes()), values)
            else {
                continue;
            };
            for v in values {
                if let Some(Ok(v)) = v.as_str().map(HeaderValue::from_str) {
                    headers.append(name.clone(), v);
                }
            }
        }
    }
    let error = message.get("error").map(|e| match json::error_of_value(e) {
        Some((code, message, details)) => {
            let bytes = super::protocol::rpc_status_bytes(code, &message, &details);
            Status::with_details(code, message, bytes)
        }
        None => Status::unknown("an end-of-stream error without a code"),
    });
    (error, MetadataMap::from_headers(headers))
}

/// `grpc-timeout`'s value (`100m`) as a duration.
fn grpc_timeout(value: &str) -> Option<Duration> {
    let (digits, unit) = value.split_at(value.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// Just enough JSON for Connect's error and end-of-stream messages.
mod json {
    use tonic::Code;

    pub(super) enum Value {
        Null,
        Bool,
        Number,
        String(String),
        Array(Vec<Value>),
        Object(Vec<(String, Value)>),
    }

    impl Value {
        pub(super) fn get(&self, key: &str) -> Option<&Value> {
            match self {
                Value::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
                _ => None,
            }
        }

        pub(super) fn as_str(&self) -> Option<&str> {
            match self {
                Value::String(s) => Some(s),
                _ => None,
            }
        }
    }

    pub(super) fn parse(bytes: &[u8]) -> Option<Value> {
        let mut p = Parser {
            bytes,
            at: 0,
            depth: 0,
        };
        let v = p.value()?;
        p.space();
        (p.at == bytes.len()).then_some(v)
    }

    /// An error JSON's code, message and details (`type`, decoded `value`).
    /// A Connect error: its code, message and details (`type_url`, `value`).
    pub(super) type Error = (Code, String, Vec<(String, Vec<u8>)>);

    pub(super) fn error(bytes: &[u8]) -> Option<Error> {
        error_of_value(&parse(bytes)?)
    }

    pub(super) fn error_of_value(v: &Value) -> Option<Error> {
        use base64::Engine as _;
        let code = super::code_of_name(v.get("code")?.as_str()?)?;
        let message = v.get("message").and_then(Value::as_str).unwrap_or("");
        let mut details = Vec::new();
        if let Some(Value::Array(list)) = v.get("details") {
            for d in list {
                let (Some(ty), Some(value)) = (
                    d.get("type").and_then(Value::as_str),
                    d.get("value").and_then(Value::as_str),
                ) else {
                    continue;
                };
                let value = value.trim_end_matches('=');
                let decoded = base64::engine::general_purpose::STANDARD_NO_PAD
                    .decode(value)
                    .or_else(|_| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(value));
                if let Ok(bytes) = decoded {
                    details.push((format!("type.googleapis.com/{ty}"), bytes));
                }
            }
        }
        Some((code, message.to_string(), details))
    }

    struct Parser<'a> {
        bytes: &'a [u8],
        at: usize,
        depth: u32,
    }

    impl Parser<'_> {
        fn space(&mut self) {
            while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
                self.at += 1;
            }
        }

        fn eat(&mut self, b: u8) -> bool {
            self.space();
            let ok = self.bytes.get(self.at) == Some(&b);
            self.at += usize::from(ok);
            ok
        }

        fn value(&mut self) -> Option<Value> {
            self.space();
            self.depth += 1;
            if self.depth > 64 {
                return None;
            }
            let v = match *self.bytes.get(self.at)? {
                b'{' => {
                    self.at += 1;
                    let mut fields = Vec::new();
                    if !self.eat(b'}') {
                        loop {
                            self.space();
                            let key = self.string()?;
                            if !self.eat(b':') {
                                return None;
                            }
                            fields.push((key, self.value()?));
                            if self.eat(b'}') {
                                break;
                            }
                            if !self.eat(b',') {
                                return None;
                            }
                        }
                    }
                    Value::Object(fields)
                }
                b'[' => {
                    self.at += 1;
                    let mut items = Vec::new();
                    if !self.eat(b']') {
                        loop {
                            items.push(self.value()?);
                            if self.eat(b']') {
                                break;
                            }
                            if !self.eat(b',') {
                                return None;
                            }
                        }
                    }
                    Value::Array(items)
                }
                b'"' => Value::String(self.string()?),
                b't' => self.word("true", Value::Bool)?,
                b'f' => self.word("false", Value::Bool)?,
                b'n' => self.word("null", Value::Null)?,
                b'-' | b'0'..=b'9' => {
                    while self
                        .bytes
                        .get(self.at)
                        .is_some_and(|b| b"+-.eE0123456789".contains(b))
                    {
                        self.at += 1;
                    }
                    Value::Number
                }
                _ => return None,
            };
            self.depth -= 1;
            Some(v)
        }

        fn word(&mut self, word: &str, v: Value) -> Option<Value> {
            let end = self.at + word.len();
            (self.bytes.get(self.at..end)? == word.as_bytes()).then(|| {
                self.at = end;
                v
            })
        }

        fn string(&mut self) -> Option<String> {
            if self.bytes.get(self.at) != Some(&b'"') {
                return None;
            }
            self.at += 1;
            let mut out = Vec::new();
            loop {
                let b = *self.bytes.get(self.at)?;
                self.at += 1;
                match b {
                    b'"' => return String::from_utf8(out).ok(),
                    b'\\' => {
                        let e = *self.bytes.get(self.at)?;
                        self.at += 1;
                        let c = match e {
                            b'"' => '"',
                            b'\\' => '\\',
                            b'/' => '/',
                            b'b' => '\u{8}',
                            b'f' => '\u{c}',
                            b'n' => '\n',
                            b'r' => '\r',
                            b't' => '\t',
                            b'u' => {
                                let hex =
                                    core::str::from_utf8(self.bytes.get(self.at..self.at + 4)?)
                                        .ok()?;
                                self.at += 4;
                                let mut n = u32::from_str_radix(hex, 16).ok()?;
                                if (0xd800..0xdc00).contains(&n) {
                                    // A surrogate pair: `\uD83D\uDE00`.
                                    let low = self.bytes.get(self.at..self.at + 6)?;
                                    let low =
                                        core::str::from_utf8(low.strip_prefix(b"\\u")?).ok()?;
                                    let low = u32::from_str_radix(low, 16).ok()?;
                                    self.at += 6;
                                    n = 0x10000
                                        + ((n - 0xd800) << 10)
                                        + (low.checked_sub(0xdc00)?);
                                }
                                char::from_u32(n)?
                            }
                            _ => return None,
                        };
                        let mut buf = [0; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    b => out.push(b),
                }
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn errors_are_read_from_their_json() {
            let (code, message, details) = error(
                br#"{"code":"not_found","message":"gone \"x\"\n\u00e9\ud83d\ude00","details":[{"type":"a.B","value":"AQL/","debug":{"x":[1,true,null]}}]}"#,
            )
            .unwrap();
            assert_eq!(code, Code::NotFound);
            assert_eq!(message, "gone \"x\"\n\u{e9}\u{1f600}");
            assert_eq!(
                details,
                [("type.googleapis.com/a.B".to_string(), vec![1, 2, 255])]
            );
            for bad in [
                &b"{"[..],
                b"{\"code\":1}",
                b"[]",
                b"{\"code\":\"nope\"}",
                b"{} x",
            ] {
                assert!(error(bad).is_none(), "{:?}", String::from_utf8_lossy(bad));
            }
            let deep = "[".repeat(1000);
            assert!(parse(deep.as_bytes()).is_none());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeouts_are_read() {
        assert_eq!(grpc_timeout("100m"), Some(Duration::from_millis(100)));
        assert_eq!(grpc_timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(grpc_timeout("5u"), Some(Duration::from_micros(5)));
        assert_eq!(grpc_timeout(""), None);
        assert_eq!(grpc_timeout("10x"), None);
    }

    #[test]
    fn end_stream_messages_give_their_error_and_metadata() {
        let (error, trailers) = end_stream_of(
            br#"{"error":{"code":"aborted","message":"m"},"metadata":{"x-a":["1","2"]}}"#,
        );
        let error = error.unwrap();
        assert_eq!((error.code(), error.message()), (Code::Aborted, "m"));
        let got: Vec<_> = trailers
            .get_all("x-a")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert_eq!(got, ["1", "2"]);
        assert!(end_stream_of(b"{}").0.is_none());
        assert_eq!(end_stream_of(b"nope").0.unwrap().code(), Code::Internal);
    }
}
