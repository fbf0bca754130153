//! Our Connect client (`SayServiceConnectClient`, `vtproto::connect::Client`): unary and
//! server-streaming calls over HTTP/1.1 and HTTP/2, binary and JSON, gzip, errors with details
//! and metadata, deadlines; against our own server, and against connect-node's own server
//! (`node/server.mjs`, from the folder `scripts/node-env.sh` makes: `VT_NODE_CLIENTS`).

use std::io::BufRead as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use tokio_stream::StreamExt as _;
use vt_connect_example::pb::say_service_connect::SayServiceConnectClient;
use vt_connect_example::pb::{SayRequest, SayResponse};

fn request(sentence: &str) -> SayRequest {
    SayRequest {
        sentence: sentence.into(),
        ..Default::default()
    }
}

/// Every check, through one client configuration; `what` names it in failures.
async fn check(client: SayServiceConnectClient, what: &str) {
    // Unary, with a header echoed back.
    let mut req = tonic::Request::new(request("hello"));
    req.metadata_mut().insert("x-echo", "hi".parse().unwrap());
    let answer = client
        .say(req)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(answer.metadata().get("x-echo").unwrap(), "hi", "{what}");
    assert_eq!(
        answer.into_inner(),
        SayResponse {
            sentence: "hello".into(),
            number: 1,
            ..Default::default()
        },
        "{what}"
    );
    // A large, compressible answer.
    let mut big = request("abcdefgh");
    big.repeat = 5000;
    let answer = client.say(big).await.unwrap().into_inner();
    assert_eq!(answer.sentence.len(), 5000 * 9 - 1, "{what}");
    // An error with its detail and metadata.
    let mut failing = request("s");
    failing.fail_with = "not_found".into();
    let e = client.say(failing.clone()).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::NotFound, "{what}: {e}");
    assert_eq!(e.message(), "asked to fail with not_found", "{what}");
    assert_eq!(e.metadata().get("x-failed").unwrap(), "yes", "{what}");
    let details = detail_values(e.details());
    assert_eq!(details.len(), 1, "{what}");
    assert_eq!(
        <SayRequest as vtproto::Message>::decode(&details[0]).unwrap(),
        failing,
        "{what}"
    );
    // A deadline.
    let mut late = request("late");
    late.delay_ms = 3000;
    let mut req = tonic::Request::new(late);
    req.set_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let e = client.say(req).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::DeadlineExceeded, "{what}: {e}");
    assert!(started.elapsed() < Duration::from_secs(2), "{what}");
    // Server streaming.
    let mut stream = client
        .words(request("one two three"))
        .await
        .unwrap()
        .into_inner();
    let mut got = Vec::new();
    while let Some(answer) = stream.next().await {
        let answer = answer.unwrap_or_else(|e| panic!("{what}: {e}"));
        got.push((answer.sentence, answer.number));
    }
    let want: Vec<(String, u32)> = vec![("one".into(), 1), ("two".into(), 2), ("three".into(), 3)];
    assert_eq!(got, want, "{what}");
    assert!(stream.trailers().is_some(), "{what}");
    // A stream ending with an error, its detail and metadata (as trailers).
    let mut failing = request("a b");
    failing.fail_with = "aborted".into();
    let mut stream = client.words(failing).await.unwrap().into_inner();
    let mut got = Vec::new();
    let error = loop {
        match stream.next().await {
            Some(Ok(answer)) => got.push(answer.sentence),
            Some(Err(e)) => break e,
            None => panic!("{what}: no error"),
        }
    };
    assert_eq!(got, ["a", "b"], "{what}");
    assert_eq!(error.code(), tonic::Code::Aborted, "{what}");
    assert_eq!(error.metadata().get("x-failed").unwrap(), "yes", "{what}");
    assert_eq!(detail_values(error.details()).len(), 1, "{what}");
    assert!(stream.next().await.is_none(), "{what}");
    // A stream past its deadline.
    let mut slow = request("a b c");
    slow.delay_ms = 400;
    let mut req = tonic::Request::new(slow);
    req.set_timeout(Duration::from_millis(600));
    let result: Result<Vec<SayResponse>, tonic::Status> = async {
        let mut stream = client.words(req).await?.into_inner();
        let mut all = Vec::new();
        while let Some(answer) = stream.next().await {
            all.push(answer?);
        }
        Ok(all)
    }
    .await;
    assert_eq!(
        result.unwrap_err().code(),
        tonic::Code::DeadlineExceeded,
        "{what}"
    );
}

/// The `value`s of the `Any` details in an encoded `google.rpc.Status`.
fn detail_values(status: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut r = vtproto::Reader::new(status);
    while !r.is_empty() {
        let key = r.read_key().unwrap();
        if key == 3 << 3 | 2 {
            let mut any = vtproto::Reader::new(r.read_len_delimited().unwrap());
            while !any.is_empty() {
                let key = any.read_key().unwrap();
                if key == 2 << 3 | 2 {
                    out.push(any.read_byte_vec().unwrap());
                } else {
                    any.skip_field(key).unwrap();
                }
            }
        } else {
            r.skip_field(key).unwrap();
        }
    }
    out
}

/// Every client configuration against the servers at `h1` and `h2`.
async fn check_all(h1: &str, h2: &str) {
    for http2 in [false, true] {
        for json in [false, true] {
            for gzip in [false, true] {
                let base = if http2 { h2 } else { h1 };
                let client = vtproto::connect::Client::with_http2(base, http2)
                    .json(json)
                    .send_gzip(gzip);
                let what = format!("{base} http2={http2} json={json} gzip={gzip}");
                check(SayServiceConnectClient(client), &what).await;
            }
        }
    }
}

#[tokio::test]
async fn our_client_calls_our_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(vt_connect_example::serve(listener));
    check_all(&url, &url).await;
    // A server that is not there.
    let e = SayServiceConnectClient::new("http://127.0.0.1:1")
        .say(request("x"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::Unavailable);
}

#[tokio::test]
async fn our_client_calls_connect_nodes_server() {
    let dir = match std::env::var_os("VT_NODE_CLIENTS") {
        Some(dir) if Path::new(&dir).join("node_modules").is_dir() => dir,
        _ => {
            assert_ne!(
                std::env::var("VT_REQUIRE_NODE").as_deref(),
                Ok("1"),
                "VT_REQUIRE_NODE=1 and no clients: export VT_NODE_CLIENTS=$(scripts/node-env.sh)"
            );
            eprintln!("skipped: no Node (export VT_NODE_CLIENTS=$(scripts/node-env.sh))");
            return;
        }
    };
    let mut server = Command::new("node")
        .arg(Path::new(&dir).join("server.mjs"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut line = String::new();
    std::io::BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = |key: &str| -> String {
        let start = line.find(&format!("\"{key}\":")).expect("ports") + key.len() + 3;
        line[start..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect()
    };
    let (h1, h2) = (
        format!("http://127.0.0.1:{}", port("h1")),
        format!("http://127.0.0.1:{}", port("h2")),
    );
    check_all(&h1, &h2).await;
    drop(server.stdin.take());
    server.wait().unwrap();
}
