//! gRPC interop with an implementation nobody here wrote: Python grpcio (client and server,
//! stubs from grpcio-tools; installed into `target/py-grpc` by `scripts/grpc-env.sh`, named
//! by `VT_GRPC_PYTHON`), against the standalone `Echo` service (`mode=standalone`, no prost):
//!
//! - a Python client against our server: gRPC's interop cases (empty_unary, large_unary,
//!   client_streaming, server_streaming, ping_pong, empty_stream, status_code_and_message,
//!   special_status_message, custom_metadata, unimplemented_method, unimplemented_service,
//!   timeout_on_sleeping_server), the response's bytes against Python protobuf's for the same
//!   value, gzip both ways, a request over the size limit (`RESOURCE_EXHAUSTED`), a health
//!   check and reflection (`scripts/grpc-interop.py`);
//! - our generated client against a Python server: every call shape, statuses, gzip.
//!
//! Skipped without `VT_GRPC_PYTHON` (a failure with `VT_REQUIRE_PYTHON=1`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::codec::CompressionEncoding;
use tonic::Code;
use vt_grpc_example::standalone::pb::vt::test::services::echo_client::EchoClient;
use vt_grpc_example::standalone::pb::vt::test::services::{EchoRequest, Payload};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python with grpcio, and the folder of its stubs for `proto/test/services.proto`.
fn python() -> Option<(String, PathBuf)> {
    let python = match std::env::var("VT_GRPC_PYTHON") {
        Ok(p) => p,
        Err(_) if std::env::var_os("VT_REQUIRE_PYTHON").is_some_and(|v| v == "1") => {
            panic!("VT_REQUIRE_PYTHON=1 but VT_GRPC_PYTHON is not set (scripts/grpc-env.sh)")
        }
        Err(_) => {
            eprintln!("skipped: set VT_GRPC_PYTHON (scripts/grpc-env.sh prints it)");
            return None;
        }
    };
    let stubs = root().join("target/grpc-interop");
    std::fs::create_dir_all(stubs.join("test")).unwrap();
    let status = Command::new(&python)
        .args(["-m", "grpc_tools.protoc", "-I"])
        .arg(root().join("proto"))
        .arg(format!("--python_out={}", stubs.display()))
        .arg(format!("--grpc_python_out={}", stubs.display()))
        .arg("test/services.proto")
        .status()
        .unwrap();
    assert!(status.success(), "grpcio-tools failed");
    // A regular package, so that it wins over the standard library's `test`.
    std::fs::write(stubs.join("test/__init__.py"), "").unwrap();
    Some((python, stubs))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_client_against_our_server() {
    let Some((python, stubs)) = python() else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        vt_grpc_example::standalone::router()
            .serve_with_incoming(TcpListenerStream::new(listener))
            .await
            .unwrap();
    });
    let out = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .arg(root().join("scripts/grpc-interop.py"))
            .arg("client")
            .arg(port.to_string())
            .arg(&stubs)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(passed, 17, "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_a_python_server() {
    let Some((python, stubs)) = python() else {
        return;
    };
    let mut server = Command::new(python)
        .arg(root().join("scripts/grpc-interop.py"))
        .arg("server")
        .arg(&stubs)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line
        .trim()
        .strip_prefix("PORT ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("the Python server said {line:?}"));
    let channel = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut client = EchoClient::new(channel)
        .send_compressed(CompressionEncoding::Gzip)
        .accept_compressed(CompressionEncoding::Gzip);

    let payload = Payload {
        body: b"abc".to_vec(),
        label: "snow ☃".into(),
        counts: HashMap::from([("a".to_string(), -1), ("z".to_string(), i64::MIN)]),
        at: Some(vtproto::types::Timestamp {
            seconds: -62_135_596_800,
            nanos: 999_999_999,
            ..Default::default()
        }),
        ..Default::default()
    };
    let unary = EchoRequest {
        payload: Some(payload.clone()),
        ..Default::default()
    };
    let got = client.unary(unary.clone()).await.unwrap().into_inner();
    assert_eq!(got.payload.as_ref(), Some(&payload));
    let empty = client.ping(vtproto::types::Empty::default()).await.unwrap();
    assert_eq!(empty.into_inner(), vtproto::types::Empty::default());

    let large = EchoRequest {
        payload: Some(Payload {
            body: vec![0; 271_828],
            ..Default::default()
        }),
        response_size: 314_159,
        ..Default::default()
    };
    let got = client.unary(large).await.unwrap().into_inner();
    assert_eq!(got.payload.unwrap().body.len(), 314_159);

    let parts = [vec![1u8; 27_182], vec![2; 8], vec![3; 1_828]];
    let requests: Vec<EchoRequest> = parts
        .iter()
        .map(|b| EchoRequest {
            payload: Some(Payload {
                body: b.clone(),
                ..Default::default()
            }),
            ..Default::default()
        })
        .collect();
    let got = client
        .client_stream(tokio_stream::iter(requests.clone()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.payload.unwrap().body, parts.concat());

    let mut stream = client
        .server_stream(EchoRequest {
            payload: Some(Payload {
                body: vec![9, 8, 7],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut bytes = Vec::new();
    while let Some(r) = stream.message().await.unwrap() {
        bytes.extend(r.payload.unwrap().body);
    }
    assert_eq!(bytes, [9, 8, 7]);

    let mut replies = client
        .bidi(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    let mut sizes = Vec::new();
    while let Some(r) = replies.message().await.unwrap() {
        sizes.push(r.payload.unwrap().body.len());
    }
    assert_eq!(sizes, [27_182, 8, 1_828]);

    let message = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n";
    let status = client
        .unary(EchoRequest {
            fail_with: Code::Unknown as i32,
            fail_message: message.into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!((status.code(), status.message()), (Code::Unknown, message));

    drop(server.stdin.take());
    let _ = server.wait();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpcurl_lists_describes_and_calls_through_reflection() {
    let Some((python, _)) = python() else {
        return;
    };
    // Installed beside the Python (scripts/grpc-env.sh).
    let grpcurl = PathBuf::from(python).with_file_name("grpcurl");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        vt_grpc_example::standalone::router()
            .serve_with_incoming(TcpListenerStream::new(listener))
            .await
            .unwrap();
    });
    let run = move |args: Vec<String>| {
        let out = Command::new(&grpcurl).args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "grpcurl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let (list, describe, call) = tokio::task::spawn_blocking(move || {
        let a = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        (
            run(a(&["-plaintext", &addr, "list"])),
            run(a(&[
                "-plaintext",
                &addr,
                "describe",
                "vt.test.services.EchoRequest",
            ])),
            run(a(&[
                "-plaintext",
                "-d",
                r#"{"payload": {"body": "AAE=", "label": "hi", "counts": {"a": "5"}}}"#,
                &addr,
                "vt.test.services.Echo/Unary",
            ])),
        )
    })
    .await
    .unwrap();
    assert!(list.lines().any(|l| l == "vt.test.services.Echo"), "{list}");
    assert!(describe.contains("int32 response_size = 2;"), "{describe}");
    let json: String = call.split_whitespace().collect();
    assert!(
        json.contains(r#""body":"AAE=","label":"hi","counts":{"a":"5"}"#),
        "{call}"
    );
}
