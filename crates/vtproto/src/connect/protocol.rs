//! The Connect protocol's vocabulary (connectrpc.com/docs/protocol): content types, error
//! codes and their HTTP statuses, the error and end-of-stream JSON, timeouts, compression
//! names.

use bytes::Bytes;
use http::header::{HeaderMap, HeaderValue};
use http::StatusCode;
use tonic::{Code, Status};

/// A request body's format: the protobuf binary encoding or ProtoJSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `application/proto`, `application/connect+proto`, `encoding=proto`.
    Proto,
    /// `application/json`, `application/connect+json`, `encoding=json`.
    Json,
}

/// The `encoding` a GET's query names, if it is one of the two formats.
pub(crate) fn get_encoding(query: &str) -> Option<Format> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix("encoding="))
        .and_then(|v| match v {
            "proto" => Some(Format::Proto),
            "json" => Some(Format::Json),
            _ => None,
        })
}

/// What a request's method and content type ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// gRPC or, `web`, gRPC-Web (`application/grpc...`, `application/grpc-web...`),
    /// answered by tonic.
    Grpc {
        /// gRPC-Web.
        web: bool,
    },
    /// A Connect unary call: a POST of one message (`application/proto`, `application/json`).
    Unary(Format),
    /// A Connect unary call as a GET, the message in the query.
    Get,
    /// A Connect streaming call (`application/connect+proto`, `application/connect+json`).
    Stream(Format),
    /// Anything else: answered `415 Unsupported Media Type` (or `405` for a method other than
    /// POST and GET).
    Unsupported,
}

impl Protocol {
    pub(crate) fn of(method: &http::Method, headers: &HeaderMap) -> Protocol {
        // Bytes, not text: every name below is ASCII, so a byte outside it (which made the
        // text check fail, and the request unsupported) matters only where it is compared:
        // the media type before any parameters.
        let content_type = headers
            .get(http::header::CONTENT_TYPE)
            .map_or(&b""[..], HeaderValue::as_bytes);
        let media = content_type
            .split(|&b| b == b';')
            .next()
            .unwrap_or_default()
            .trim_ascii();
        if media.len() >= 16 && media[..16].eq_ignore_ascii_case(b"application/grpc") {
            let web = media[16..]
                .get(..4)
                .is_some_and(|w| w.eq_ignore_ascii_case(b"-web"));
            return Protocol::Grpc { web };
        }
        if method == http::Method::GET {
            return Protocol::Get;
        }
        if method != http::Method::POST {
            return Protocol::Unsupported;
        }
        [
            ("application/proto", Protocol::Unary(Format::Proto)),
            ("application/json", Protocol::Unary(Format::Json)),
            ("application/connect+proto", Protocol::Stream(Format::Proto)),
            ("application/connect+json", Protocol::Stream(Format::Json)),
        ]
        .into_iter()
        .find(|(name, _)| media.eq_ignore_ascii_case(name.as_bytes()))
        .map_or(Protocol::Unsupported, |(_, protocol)| protocol)
    }

    /// Errors of a streaming call go in its end-of-stream message, with HTTP 200.
    pub(crate) fn is_stream(self) -> bool {
        matches!(self, Protocol::Stream(_))
    }
}

/// The content type of a Connect response in `format`.
pub(crate) fn content_type(stream: bool, format: Format) -> HeaderValue {
    HeaderValue::from_static(match (stream, format) {
        (false, Format::Proto) => "application/proto",
        (false, Format::Json) => "application/json",
        (true, Format::Proto) => "application/connect+proto",
        (true, Format::Json) => "application/connect+json",
    })
}

/// The compressions this server reads and writes, beside `identity`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compression {
    Identity,
    Gzip,
}

impl Compression {
    /// The compression a header names; `Err` names one this server does not know.
    pub(crate) fn named(name: Option<&str>) -> Result<Compression, Status> {
        match name.map(str::trim) {
            None | Some("") => Ok(Compression::Identity),
            Some(n) if n.eq_ignore_ascii_case("identity") => Ok(Compression::Identity),
            Some(n) if n.eq_ignore_ascii_case("gzip") => Ok(Compression::Gzip),
            Some(other) => Err(Status::unimplemented(format!(
                "unknown compression {other:?}: this server reads gzip and identity"
            ))),
        }
    }

    /// What to answer in, from an accept header's list: gzip when the client takes it.
    pub(crate) fn accepted(headers: &HeaderMap, header: &str) -> Compression {
        let takes_gzip = headers.get_all(header).iter().any(|v| {
            v.to_str().is_ok_and(|list| {
                list.split(',').any(|c| {
                    let mut parts = c.split(';');
                    let named = parts
                        .next()
                        .is_some_and(|n| n.trim().eq_ignore_ascii_case("gzip"));
                    // `gzip;q=0` refuses it.
                    let refused = parts.any(|p| {
                        p.trim()
                            .strip_prefix("q=")
                            .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
                    });
                    named && !refused
                })
            })
        });
        if takes_gzip {
            Compression::Gzip
        } else {
            Compression::Identity
        }
    }
}

/// `Connect-Timeout-Ms`: a positive integer of at most 10 digits.
pub(crate) fn timeout(headers: &HeaderMap) -> Result<Option<core::time::Duration>, Status> {
    let Some(value) = headers.get("connect-timeout-ms") else {
        return Ok(None);
    };
    let text = value.to_str().unwrap_or("");
    let positive = text.bytes().any(|b| b != b'0');
    if text.is_empty() || text.len() > 10 || !text.bytes().all(|b| b.is_ascii_digit()) || !positive
    {
        return Err(Status::invalid_argument(format!(
            "connect-timeout-ms {text:?} is not a positive integer of at most 10 digits"
        )));
    }
    Ok(Some(core::time::Duration::from_millis(
        text.parse::<u64>().unwrap_or(u64::MAX),
    )))
}

/// `Connect-Protocol-Version`, when sent, must be `1`.
pub(crate) fn check_version(headers: &HeaderMap) -> Result<(), Status> {
    match headers.get("connect-protocol-version") {
        None => Ok(()),
        Some(v) if v.as_bytes() == b"1" => Ok(()),
        Some(v) => Err(Status::invalid_argument(format!(
            "connect-protocol-version must be \"1\", not {:?}",
            String::from_utf8_lossy(v.as_bytes())
        ))),
    }
}

/// A code's name in the Connect protocol (`not_found`).
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "ok",
        Code::Cancelled => "canceled",
        Code::Unknown => "unknown",
        Code::InvalidArgument => "invalid_argument",
        Code::DeadlineExceeded => "deadline_exceeded",
        Code::NotFound => "not_found",
        Code::AlreadyExists => "already_exists",
        Code::PermissionDenied => "permission_denied",
        Code::ResourceExhausted => "resource_exhausted",
        Code::FailedPrecondition => "failed_precondition",
        Code::Aborted => "aborted",
        Code::OutOfRange => "out_of_range",
        Code::Unimplemented => "unimplemented",
        Code::Internal => "internal",
        Code::Unavailable => "unavailable",
        Code::DataLoss => "data_loss",
        Code::Unauthenticated => "unauthenticated",
    }
}

/// The code a Connect name stands for.
pub fn code_of_name(name: &str) -> Option<Code> {
    (1..=16).map(Code::from_i32).find(|&c| code_name(c) == name)
}

/// The HTTP status a unary error answers with.
pub fn http_status(code: Code) -> StatusCode {
    let n = match code {
        Code::Ok => 200,
        Code::Cancelled => 499,
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => 400,
        Code::DeadlineExceeded => 504,
        Code::NotFound => 404,
        Code::AlreadyExists | Code::Aborted => 409,
        Code::PermissionDenied => 403,
        Code::ResourceExhausted => 429,
        Code::Unimplemented => 501,
        Code::Unavailable => 503,
        Code::Unauthenticated => 401,
        Code::Unknown | Code::Internal | Code::DataLoss => 500,
    };
    StatusCode::from_u16(n).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The code an HTTP status stands for when a response carries no Connect error.
pub fn code_of_http_status(status: StatusCode) -> Code {
    match status.as_u16() {
        400 => Code::Internal,
        401 => Code::Unauthenticated,
        403 => Code::PermissionDenied,
        404 => Code::Unimplemented,
        429 | 502..=504 => Code::Unavailable,
        _ => Code::Unknown,
    }
}

/// A status as the Connect error JSON: `{"code":..,"message":..,"details":[..]}`, each detail
/// of the status's `google.rpc.Status` as `{"type":..,"value":<base64>}`.
pub(crate) fn error_json(status: &Status, out: &mut String) {
    out.push_str("{\"code\":");
    json_string(code_name(error_code(status)), out);
    if !status.message().is_empty() {
        out.push_str(",\"message\":");
        json_string(status.message(), out);
    }
    let details = rpc_status_details(status.details());
    if !details.is_empty() {
        out.push_str(",\"details\":[");
        for (i, (type_url, value)) in details.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"type\":");
            let name = type_url.rsplit('/').next().unwrap_or(type_url);
            json_string(name, out);
            out.push_str(",\"value\":");
            use base64::Engine as _;
            json_string(
                &base64::engine::general_purpose::STANDARD_NO_PAD.encode(value),
                out,
            );
            out.push('}');
        }
        out.push(']');
    }
    out.push('}');
}

/// The end-of-stream message: `{"error":..,"metadata":{..}}`, both optional.
pub(crate) fn end_stream_json(error: Option<&Status>, trailers: &HeaderMap) -> String {
    let mut out = String::from("{");
    if let Some(status) = error {
        out.push_str("\"error\":");
        error_json(status, &mut out);
    }
    if !trailers.is_empty() {
        if error.is_some() {
            out.push(',');
        }
        out.push_str("\"metadata\":{");
        for (i, name) in trailers.keys().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(name.as_str(), &mut out);
            out.push_str(":[");
            for (j, v) in trailers.get_all(name).iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                json_string(&String::from_utf8_lossy(v.as_bytes()), &mut out);
            }
            out.push(']');
        }
        out.push('}');
    }
    out.push('}');
    out
}

/// The headers of a status's metadata that may travel as HTTP headers: not gRPC's own, not
/// the ones that frame a body.
pub(crate) fn metadata_headers(status: &Status) -> HeaderMap {
    without_reserved(status.metadata().clone().into_headers())
}

/// `headers` without gRPC's own and the ones that frame a body.
pub(crate) fn without_reserved(mut headers: HeaderMap) -> HeaderMap {
    for reserved in [
        "grpc-status",
        "grpc-message",
        "grpc-status-details-bin",
        "content-type",
        "content-length",
        "content-encoding",
        "transfer-encoding",
        "connection",
        "te",
        "trailer",
    ] {
        headers.remove(reserved);
    }
    headers
}

/// A status's code as an error: `OK` is no error, so a failure that says it is one is
/// `unknown`.
fn error_code(status: &Status) -> Code {
    match status.code() {
        Code::Ok => Code::Unknown,
        code => code,
    }
}

/// A unary error response: the code's HTTP status, the error JSON, the status's metadata as
/// headers.
pub(crate) fn unary_error(status: &Status) -> http::Response<tonic::body::Body> {
    let mut text = String::new();
    error_json(status, &mut text);
    let mut response = http::Response::new(tonic::body::Body::new(http_body_util::Full::new(
        Bytes::from(text),
    )));
    *response.status_mut() = http_status(error_code(status));
    let headers = response.headers_mut();
    headers.extend(metadata_headers(status));
    headers.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// Writes `s` as a JSON string.
pub(crate) fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The `details` of an encoded `google.rpc.Status` (field 3, `repeated Any`): each Any's
/// `type_url` and `value`. Bytes that are not a `Status` give none.
pub(crate) fn rpc_status_details(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    fn any(bytes: &[u8]) -> Result<(String, Vec<u8>), crate::DecodeError> {
        let mut r = crate::Reader::new(bytes);
        let (mut type_url, mut value) = (String::new(), Vec::new());
        while !r.is_empty() {
            match r.read_key()? {
                k if k == 1 << 3 | 2 => type_url = r.read_string()?,
                k if k == 2 << 3 | 2 => value = r.read_byte_vec()?,
                k => r.skip_field(k)?,
            }
        }
        Ok((type_url, value))
    }
    fn status(bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, crate::DecodeError> {
        let mut r = crate::Reader::new(bytes);
        let mut details = Vec::new();
        while !r.is_empty() {
            match r.read_key()? {
                k if k == 3 << 3 | 2 => details.push(any(r.read_len_delimited()?)?),
                k => r.skip_field(k)?,
            }
        }
        Ok(details)
    }
    status(bytes).unwrap_or_default()
}

/// Encodes details as a `google.rpc.Status` (code, message, details), as gRPC's
/// `grpc-status-details-bin` carries them.
pub(crate) fn rpc_status_bytes(code: Code, message: &str, details: &[(String, Vec<u8>)]) -> Bytes {
    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }
    fn field(number: u64, bytes: &[u8], out: &mut Vec<u8>) {
        varint(number << 3 | 2, out);
        varint(bytes.len() as u64, out);
        out.extend_from_slice(bytes);
    }
    let mut out = Vec::new();
    if code != Code::Ok {
        varint(8, &mut out);
        varint(code as i32 as u64, &mut out);
    }
    if !message.is_empty() {
        field(2, message.as_bytes(), &mut out);
    }
    for (type_url, value) in details {
        let mut any = Vec::new();
        field(1, type_url.as_bytes(), &mut any);
        field(2, value, &mut any);
        field(3, &any, &mut out);
    }
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_their_names() {
        for n in 0..=16 {
            let code = Code::from_i32(n);
            if code != Code::Ok {
                assert_eq!(code_of_name(code_name(code)), Some(code));
            }
        }
        assert_eq!(code_of_name("ok"), None);
        assert_eq!(code_of_name("nope"), None);
    }

    #[test]
    fn error_json_carries_code_message_and_details() {
        let details = rpc_status_bytes(
            Code::NotFound,
            "gone",
            &[(
                "type.googleapis.com/google.rpc.ErrorInfo".into(),
                vec![1, 2, 255],
            )],
        );
        let status = Status::with_details(Code::NotFound, "gone \"x\"\n", details);
        let mut out = String::new();
        error_json(&status, &mut out);
        assert_eq!(
            out,
            r#"{"code":"not_found","message":"gone \"x\"\n","details":[{"type":"google.rpc.ErrorInfo","value":"AQL/"}]}"#
        );
        assert_eq!(http_status(status.code()), StatusCode::NOT_FOUND);
    }

    #[test]
    fn malformed_status_details_give_none() {
        assert!(rpc_status_details(&[0x1a, 0x05, 0x0a]).is_empty());
        assert!(rpc_status_details(&[0xff]).is_empty());
    }

    #[test]
    fn content_types_choose_the_protocol() {
        let mut h = HeaderMap::new();
        let post = http::Method::POST;
        for (ct, want) in [
            ("application/proto", Protocol::Unary(Format::Proto)),
            (
                "application/json; charset=utf-8",
                Protocol::Unary(Format::Json),
            ),
            ("application/connect+proto", Protocol::Stream(Format::Proto)),
            ("Application/Connect+JSON", Protocol::Stream(Format::Json)),
            ("application/grpc-web+proto", Protocol::Grpc { web: true }),
            ("Application/gRPC-Web", Protocol::Grpc { web: true }),
            ("application/grpc", Protocol::Grpc { web: false }),
            (
                "application/grpc+proto; charset=x",
                Protocol::Grpc { web: false },
            ),
            ("application/grpcweb", Protocol::Grpc { web: false }),
            (" application/json ;x", Protocol::Unary(Format::Json)),
            ("application/grp", Protocol::Unsupported),
            ("text/plain", Protocol::Unsupported),
        ] {
            h.insert(http::header::CONTENT_TYPE, HeaderValue::from_static(ct));
            assert_eq!(Protocol::of(&post, &h), want, "{ct}");
        }
        // Bytes past ASCII: in a parameter they do not change the media type; in it, they
        // make another one.
        for (ct, want) in [
            (
                &b"application/json; x=\xff"[..],
                Protocol::Unary(Format::Json),
            ),
            (&b"application/js\xffon"[..], Protocol::Unsupported),
        ] {
            h.insert(
                http::header::CONTENT_TYPE,
                HeaderValue::from_bytes(ct).unwrap(),
            );
            assert_eq!(Protocol::of(&post, &h), want);
        }
        assert_eq!(Protocol::of(&http::Method::PUT, &h), Protocol::Unsupported);
    }

    #[test]
    fn timeouts_are_checked() {
        let mut h = HeaderMap::new();
        assert_eq!(timeout(&h).unwrap(), None);
        h.insert("connect-timeout-ms", HeaderValue::from_static("1500"));
        assert_eq!(
            timeout(&h).unwrap(),
            Some(core::time::Duration::from_millis(1500))
        );
        for bad in ["", "-1", "12345678901", "1.5", "0"] {
            h.insert("connect-timeout-ms", HeaderValue::from_str(bad).unwrap());
            assert_eq!(timeout(&h).unwrap_err().code(), Code::InvalidArgument);
        }
    }
}
