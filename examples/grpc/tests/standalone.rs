//! gRPC without prost: our structs and the stubs our generator writes through tonic-build
//! (`mode=standalone`, `proto/test/services.proto`), client and server over a real socket on
//! 127.0.0.1: the interop cases of gRPC's test suite that need no second implementation
//! (unary, large unary, client, server and bidirectional streaming, empty stream, status
//! codes and messages, unimplemented methods), gzip in both directions, size limits, and
//! malformed bodies.

use std::collections::HashMap;
use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::codec::CompressionEncoding;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Server};
use tonic::Code;
use vt_grpc_example::raw::RawCodec;
use vt_grpc_example::standalone::pb::vt::test::services::echo_client::EchoClient;
use vt_grpc_example::standalone::pb::vt::test::services::echo_server::EchoServer;
use vt_grpc_example::standalone::pb::vt::test::services::{EchoRequest, Payload};
use vt_grpc_example::standalone::EchoService;
use vtproto::Message;

/// Serves `Echo`, configured by `configure`, on a fresh port.
async fn serve(configure: fn(EchoServer<EchoService>) -> EchoServer<EchoService>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let incoming = TcpListenerStream::new(listener);
    let service = configure(EchoServer::new(EchoService));
    tokio::spawn(async move {
        Server::builder()
            .layer(vtproto::tonic::ResourceExhaustedLayer)
            .add_service(service)
            .serve_with_incoming(incoming)
            .await
            .unwrap();
    });
    addr
}

async fn channel(addr: SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap()
}

fn request(body: Vec<u8>) -> EchoRequest {
    EchoRequest {
        payload: Some(Payload {
            body,
            label: "héllo".into(),
            counts: HashMap::from([("a".to_string(), -1), ("b".to_string(), i64::MAX)]),
            at: Some(vtproto::types::Timestamp {
                seconds: 1_700_000_000,
                nanos: 5,
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_shape_round_trips() {
    let addr = serve(|s| s).await;
    let mut client = EchoClient::new(channel(addr).await);

    // empty_unary, and a request with every kind of field.
    let empty = client
        .ping(vtproto::types::Empty::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(empty, vtproto::types::Empty::default());
    let sent = request(b"abc".to_vec());
    let got = client.unary(sent.clone()).await.unwrap().into_inner();
    assert_eq!(got.payload, sent.payload);

    // large_unary: 271,828 bytes in, 314,159 out.
    let mut large = request(vec![0; 271_828]);
    large.response_size = 314_159;
    let got = client.unary(large).await.unwrap().into_inner();
    assert_eq!(got.payload.unwrap().body.len(), 314_159);

    // client_streaming: the bodies joined.
    let parts = [
        vec![1u8; 27_182],
        vec![2; 8],
        vec![3; 1_828],
        vec![4; 45_904],
    ];
    let requests: Vec<EchoRequest> = parts.iter().map(|p| request(p.clone())).collect();
    let got = client
        .client_stream(tokio_stream::iter(requests))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.payload.unwrap().body, parts.concat());

    // server_streaming: a response per byte.
    let mut stream = client
        .server_stream(request(vec![9, 8, 7]))
        .await
        .unwrap()
        .into_inner();
    let mut bytes = Vec::new();
    while let Some(r) = stream.message().await.unwrap() {
        bytes.extend(r.payload.unwrap().body);
    }
    assert_eq!(bytes, [9, 8, 7]);

    // ping_pong, then empty_stream.
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    let mut replies = client
        .bidi(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    for size in [31_415usize, 9, 2_653, 58_979] {
        tx.send(request(vec![5; size])).await.unwrap();
        let reply = replies.message().await.unwrap().unwrap();
        assert_eq!(reply.payload.unwrap().body.len(), size);
    }
    drop(tx);
    assert!(replies.message().await.unwrap().is_none());
    let mut none = client
        .bidi(tokio_stream::iter(Vec::<EchoRequest>::new()))
        .await
        .unwrap()
        .into_inner();
    assert!(none.message().await.unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statuses_pass_through_with_their_messages() {
    let addr = serve(|s| s).await;
    let mut client = EchoClient::new(channel(addr).await);
    for message in [
        "test status message",
        "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n",
    ] {
        let mut r = request(Vec::new());
        r.fail_with = Code::Unknown as i32;
        r.fail_message = message.into();
        let status = client.unary(r.clone()).await.unwrap_err();
        assert_eq!((status.code(), status.message()), (Code::Unknown, message));
        // The same through a stream.
        let mut replies = client
            .bidi(tokio_stream::iter(vec![r]))
            .await
            .unwrap()
            .into_inner();
        let status = replies.message().await.unwrap_err();
        assert_eq!((status.code(), status.message()), (Code::Unknown, message));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gzip_both_ways_and_size_limits() {
    let addr = serve(|s| {
        s.accept_compressed(CompressionEncoding::Gzip)
            .send_compressed(CompressionEncoding::Gzip)
            .max_decoding_message_size(64 * 1024)
    })
    .await;
    let mut client = EchoClient::new(channel(addr).await)
        .send_compressed(CompressionEncoding::Gzip)
        .accept_compressed(CompressionEncoding::Gzip);
    let sent = request(vec![7; 10_000]);
    let got = client.unary(sent.clone()).await.unwrap().into_inner();
    assert_eq!(got.payload, sent.payload);
    // Over the server's limit: refused by tonic before our decoder runs, with gRPC's code
    // (tonic says OUT_OF_RANGE; `ResourceExhaustedLayer` gives it RESOURCE_EXHAUSTED), in a
    // unary call and in a stream.
    let mut plain = EchoClient::new(channel(addr).await);
    let status = plain.unary(request(vec![1; 100_000])).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let mut replies = plain
        .bidi(tokio_stream::iter(vec![
            request(vec![1; 10]),
            request(vec![1; 100_000]),
        ]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        replies
            .message()
            .await
            .unwrap()
            .unwrap()
            .payload
            .unwrap()
            .body,
        vec![1; 10]
    );
    let status = replies.message().await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("too large"), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_bytes_malformed_bodies_and_unknown_methods() {
    let addr = serve(|s| s).await;
    let mut raw = tonic::client::Grpc::new(channel(addr).await);
    // The bytes on the wire are our encoding, which decodes back to the value.
    let sent = request(b"xyz".to_vec());
    raw.ready().await.unwrap();
    let answer = raw
        .unary::<Vec<u8>, Vec<u8>, _>(
            tonic::Request::new(sent.encode_to_vec()),
            PathAndQuery::from_static("/vt.test.services.Echo/Unary"),
            RawCodec,
        )
        .await
        .unwrap()
        .into_inner();
    let decoded =
        vt_grpc_example::standalone::pb::vt::test::services::EchoResponse::decode(&answer).unwrap();
    assert_eq!(decoded.payload, sent.payload);
    // A truncated field inside the payload: INTERNAL, naming where.
    for body in [vec![0x0a, 0x05, 0x12, 0x09, b'a'], vec![0xff, 0xff]] {
        raw.ready().await.unwrap();
        let status = raw
            .unary::<Vec<u8>, Vec<u8>, _>(
                tonic::Request::new(body),
                PathAndQuery::from_static("/vt.test.services.Echo/Unary"),
                RawCodec,
            )
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::Internal, "{status:?}");
        assert!(
            status.message().contains("vt.test.services.EchoRequest"),
            "{}",
            status.message()
        );
    }
    // unimplemented_method and unimplemented_service.
    for path in [
        "/vt.test.services.Echo/NoSuchMethod",
        "/vt.test.services.NoSuchService/Unary",
    ] {
        raw.ready().await.unwrap();
        let status = raw
            .unary::<Vec<u8>, Vec<u8>, _>(
                tonic::Request::new(Vec::new()),
                PathAndQuery::from_maybe_shared(path).unwrap(),
                RawCodec,
            )
            .await
            .unwrap_err();
        assert_eq!(status.code(), Code::Unimplemented, "{path}: {status:?}");
    }
}
