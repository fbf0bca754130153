//! The Connect protocol over plain HTTP, as curl and hand-made requests send it: the example's
//! curl lines, and bad input (malformed envelopes, wrong content types, bodies that are not the
//! message, oversized messages, bad headers), each answered with a Connect error of the right
//! code, never a panic or a dropped connection.

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

async fn start() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(vt_connect_example::serve(listener));
    format!("http://{addr}/vt.connect.v1.SayService")
}

struct Answer {
    status: u16,
    headers: http::HeaderMap,
    body: Bytes,
}

impl Answer {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The code of the Connect error JSON in the body.
    fn code(&self) -> String {
        let text = self.text();
        let start = text
            .find("\"code\":\"")
            .unwrap_or_else(|| panic!("no code in {text}"))
            + 8;
        text[start..start + text[start..].find('"').unwrap()].to_string()
    }

    /// The end-of-stream message's error code, from a streaming answer's last envelope.
    fn end_stream_code(&self) -> Option<String> {
        let mut rest = &self.body[..];
        let mut last = None;
        while rest.len() >= 5 {
            let len = u32::from_be_bytes([rest[1], rest[2], rest[3], rest[4]]) as usize;
            last = Some((rest[0], &rest[5..5 + len]));
            rest = &rest[5 + len..];
        }
        let (flags, json) = last.expect("an envelope");
        assert_eq!(flags & 2, 2, "the last envelope ends the stream");
        let json = String::from_utf8_lossy(json);
        let start = json.find("\"code\":\"")? + 8;
        Some(json[start..start + json[start..].find('"').unwrap()].to_string())
    }
}

async fn send(
    h2: bool,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: impl Into<Bytes>,
) -> Answer {
    let client = Client::builder(TokioExecutor::new())
        .http2_only(h2)
        .build_http::<Full<Bytes>>();
    let mut request = http::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = client
        .request(request.body(Full::new(body.into())).unwrap())
        .await
        .expect("an answer, not a dropped connection");
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status.as_u16(),
        headers: parts.headers,
        body: body.collect().await.unwrap().to_bytes(),
    }
}

/// What is sent (headers, body), and the HTTP status and Connect code it is answered with.
type UnaryCase = (
    &'static str,
    Vec<(&'static str, &'static str)>,
    Vec<u8>,
    u16,
    &'static str,
);

const JSON: (&str, &str) = ("content-type", "application/json");
const PROTO: (&str, &str) = ("content-type", "application/proto");
const STREAM_PROTO: (&str, &str) = ("content-type", "application/connect+proto");

fn envelope(flags: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![flags];
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(payload);
    out
}

#[tokio::test]
async fn the_examples_curl_lines_answer() {
    let url = start().await;
    let curl = |args: &[&str]| {
        let out = std::process::Command::new("curl")
            .args(["-sS", "-i"])
            .args(args)
            .output();
        match out {
            Ok(out) if out.status.success() => Some(String::from_utf8(out.stdout).unwrap()),
            Ok(out) => panic!("curl failed: {}", String::from_utf8_lossy(&out.stderr)),
            Err(_) => None,
        }
    };
    let url2 = url.clone();
    let answers = tokio::task::spawn_blocking(move || {
        let post = curl(&[
            "-H",
            "Content-Type: application/json",
            "-d",
            r#"{"sentence":"hello"}"#,
            &format!("{url2}/Say"),
        ])?;
        let get = curl(&[&format!(
            "{url2}/Say?encoding=json&message=%7B%22sentence%22%3A%22hello%22%7D"
        )])?;
        let error = curl(&[
            "-H",
            "Content-Type: application/json",
            "-d",
            r#"{"failWith":"not_found"}"#,
            &format!("{url2}/Say"),
        ])?;
        Some((post, get, error))
    })
    .await
    .unwrap();
    let Some((post, get, error)) = answers else {
        eprintln!("skipped: no curl here");
        return;
    };
    for answer in [&post, &get] {
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            answer.contains("content-type: application/json"),
            "{answer}"
        );
        assert!(
            answer.ends_with(r#"{"sentence":"hello","number":1}"#),
            "{answer}"
        );
    }
    assert!(error.starts_with("HTTP/1.1 404"), "{error}");
    assert!(
        error.contains(r#"{"code":"not_found","message":"asked to fail with not_found","details":[{"type":"vt.connect.v1.SayRequest","value":""#),
        "{error}"
    );
    // The same over HTTP/2 (prior knowledge), as a JSON POST.
    let a = send(
        true,
        "POST",
        &format!("{url}/Say"),
        &[JSON],
        r#"{"sentence":"h2"}"#,
    )
    .await;
    assert_eq!(
        (a.status, a.text()),
        (200, r#"{"sentence":"h2","number":1}"#.into())
    );
}

#[tokio::test]
async fn bad_unary_requests_get_connect_errors() {
    let url = start().await;
    let say = format!("{url}/Say");
    for h2 in [false, true] {
        let cases: Vec<UnaryCase> = vec![
            (
                "not the message",
                vec![PROTO],
                vec![0xff; 10],
                400,
                "invalid_argument",
            ),
            (
                "a truncated message",
                vec![PROTO],
                vec![0x0a, 0x05, b'a'],
                400,
                "invalid_argument",
            ),
            (
                "not JSON",
                vec![JSON],
                b"{\"sentence\":".to_vec(),
                400,
                "invalid_argument",
            ),
            (
                "JSON of another shape",
                vec![JSON],
                b"[1,2]".to_vec(),
                400,
                "invalid_argument",
            ),
            (
                "invalid UTF-8 in JSON",
                vec![JSON],
                b"{\"sentence\":\"\xff\"}".to_vec(),
                400,
                "invalid_argument",
            ),
            (
                "an unknown field",
                vec![JSON],
                b"{\"nope\":1}".to_vec(),
                400,
                "invalid_argument",
            ),
            (
                "a message over the limit",
                vec![PROTO],
                vec![0; 2 << 20],
                429,
                "resource_exhausted",
            ),
            (
                "a gzip body that is not gzip",
                vec![PROTO, ("content-encoding", "gzip")],
                vec![1, 2, 3],
                400,
                "invalid_argument",
            ),
            (
                "an unknown compression",
                vec![PROTO, ("content-encoding", "br")],
                vec![],
                501,
                "unimplemented",
            ),
            (
                "a bad timeout",
                vec![PROTO, ("connect-timeout-ms", "soon")],
                vec![],
                400,
                "invalid_argument",
            ),
            (
                "another protocol version",
                vec![PROTO, ("connect-protocol-version", "2")],
                vec![],
                400,
                "invalid_argument",
            ),
        ];
        for (what, headers, body, status, code) in cases {
            let a = send(h2, "POST", &say, &headers, body).await;
            assert_eq!(
                (a.status, a.code()),
                (status, code.to_string()),
                "{what} (h2: {h2}): {}",
                a.text()
            );
            assert_eq!(a.headers["content-type"], "application/json", "{what}");
        }
        // A gzip bomb: 64 MiB of zeros in 64 KiB, past the 1 MiB limit once inflated.
        let bomb = gzip(&vec![0u8; 64 << 20]);
        let a = send(
            h2,
            "POST",
            &say,
            &[PROTO, ("content-encoding", "gzip")],
            bomb,
        )
        .await;
        assert_eq!((a.status, a.code()), (429, "resource_exhausted".into()));
        // Content types that are not Connect's, and methods other than POST and GET.
        let a = send(h2, "POST", &say, &[("content-type", "text/plain")], "hi").await;
        assert_eq!(a.status, 415);
        assert_eq!(
            a.headers["accept-post"],
            "application/proto, application/json"
        );
        let a = send(h2, "PUT", &say, &[PROTO], "").await;
        assert_eq!(a.status, 405);
        // An empty body is never compressed: the empty message.
        let a = send(h2, "POST", &say, &[PROTO, ("content-encoding", "gzip")], "").await;
        assert_eq!(a.status, 200, "{}", a.text());
        // A unary content type for a streaming method, and the other way round.
        let a = send(h2, "POST", &format!("{url}/Words"), &[PROTO], "").await;
        assert_eq!(a.status, 415);
        let a = send(h2, "POST", &say, &[STREAM_PROTO], envelope(0, b"")).await;
        assert_eq!(a.status, 415);
        // GET only for methods without side effects, with a well-formed query.
        let a = send(
            h2,
            "GET",
            &format!("{url}/Words?encoding=proto&message="),
            &[],
            "",
        )
        .await;
        assert_eq!(
            (a.status, a.headers["allow"].to_str().unwrap()),
            (405, "POST")
        );
        for (query, code) in [
            ("encoding=proto", "invalid_argument"),
            ("encoding=proto&base64=1&message=%%%", "invalid_argument"),
            ("encoding=json&message=%7B", "invalid_argument"),
            ("encoding=proto&message=&compression=zstd", "unimplemented"),
        ] {
            let a = send(h2, "GET", &format!("{say}?{query}"), &[], "").await;
            assert_eq!(a.code(), code, "GET ?{query}: {}", a.text());
        }
        // A GET's encoding is its content type: none, or one not served, is 415.
        for query in ["message=", "encoding=xml&message="] {
            let a = send(h2, "GET", &format!("{say}?{query}"), &[], "").await;
            assert_eq!(a.status, 415, "GET ?{query}");
        }
        // Methods other than GET and POST: 405, with what is allowed.
        let a = send(h2, "DELETE", &say, &[], "").await;
        assert_eq!(
            (a.status, a.headers["allow"].to_str().unwrap()),
            (405, "GET, POST")
        );
        // The server still answers.
        let a = send(h2, "POST", &say, &[JSON], r#"{"sentence":"ok"}"#).await;
        assert_eq!(a.status, 200);
    }
}

#[tokio::test]
async fn bad_streams_end_with_connect_errors() {
    let url = start().await;
    let words = format!("{url}/Words");
    let collect = format!("{url}/Collect");
    for h2 in [false, true] {
        let cases: Vec<(&str, &str, Vec<u8>, &str)> = vec![
            ("no envelope", &words, vec![], "invalid_argument"),
            (
                "a truncated envelope",
                &words,
                vec![0, 0, 0, 0, 9, 1],
                "invalid_argument",
            ),
            (
                "two envelopes for a server stream",
                &words,
                [envelope(0, b""), envelope(0, b"")].concat(),
                "invalid_argument",
            ),
            (
                "an end-stream flag from the client",
                &words,
                envelope(2, b""),
                "invalid_argument",
            ),
            (
                "unknown flags",
                &words,
                envelope(0x80, b""),
                "invalid_argument",
            ),
            (
                "a compressed envelope without an encoding",
                &words,
                envelope(1, b"xx"),
                "invalid_argument",
            ),
            (
                "not the message",
                &words,
                envelope(0, &[0xff; 8]),
                "invalid_argument",
            ),
            (
                "an envelope over the limit",
                &words,
                envelope(0, &vec![0; 2 << 20]),
                "resource_exhausted",
            ),
            (
                "a client stream's envelope over the limit",
                &collect,
                envelope(0, &vec![0; 2 << 20]),
                "resource_exhausted",
            ),
            (
                "a client stream's bad message",
                &collect,
                envelope(0, &[0xff; 8]),
                "invalid_argument",
            ),
            (
                "a client stream cut short",
                &collect,
                vec![0, 0, 0, 1, 0, 1, 2],
                "internal",
            ),
        ];
        for (what, path, body, code) in cases {
            let a = send(h2, "POST", path, &[STREAM_PROTO], body).await;
            assert_eq!(a.status, 200, "{what}: a stream's errors end it");
            assert_eq!(
                a.headers["content-type"], "application/connect+proto",
                "{what}"
            );
            let got = a.end_stream_code();
            // A cut-short stream is tonic's to name; any error will do there.
            if code == "internal" {
                assert!(got.is_some(), "{what}");
            } else {
                assert_eq!(got.as_deref(), Some(code), "{what} (h2: {h2})");
            }
        }
        // And a good one after.
        let request = vt_connect_example::pb::SayRequest {
            sentence: "a b".into(),
            ..Default::default()
        };
        let a = send(
            h2,
            "POST",
            &words,
            &[STREAM_PROTO],
            envelope(0, &vtproto::Message::encode_to_vec(&request)),
        )
        .await;
        assert_eq!(a.status, 200);
        assert_eq!(a.end_stream_code(), None);
    }
}

#[tokio::test]
async fn random_bodies_never_break_the_server() {
    let url = start().await;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let types = [
        "application/proto",
        "application/json",
        "application/connect+proto",
        "application/connect+json",
        "application/grpc-web+proto",
        "application/grpc",
    ];
    for i in 0..300 {
        let len = (next() % 64) as usize;
        let mut body: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if i % 3 == 0 && body.len() >= 5 {
            // A plausible envelope header over random bytes.
            body[0] = (next() % 3) as u8;
            body[1..5].copy_from_slice(&((len - 5) as u32).to_be_bytes());
        }
        let method = ["Say", "Words", "Collect", "Chat", "Nope"][(next() % 5) as usize];
        let content_type = types[(next() % types.len() as u64) as usize];
        // gRPC itself needs HTTP/2.
        let h2 = content_type == "application/grpc" || next() % 2 == 0;
        let a = send(
            h2,
            "POST",
            &format!("{url}/{method}"),
            &[("content-type", content_type)],
            body,
        )
        .await;
        assert!(
            a.status < 500 || a.status == 501,
            "{method} {content_type}: {}",
            a.status
        );
    }
    let a = send(
        false,
        "POST",
        &format!("{url}/Say"),
        &[JSON],
        r#"{"sentence":"alive"}"#,
    )
    .await;
    assert_eq!(a.text(), r#"{"sentence":"alive","number":1}"#);
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}
