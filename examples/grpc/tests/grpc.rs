//! Over real sockets on 127.0.0.1: the vt codec on the server only, the client only, both, and
//! neither; unary and server-streaming calls; and malformed request bodies.

use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Server};
use tonic::Code;
use vt_grpc_example::pb::vt::candidates::{Candidate, CandidatesResponse};
use vt_grpc_example::pb::vt::search::SearchRequest;
use vt_grpc_example::raw::RawCodec;
use vt_grpc_example::{answer, prost_codec, vt_codec, vt_view, SearchService, ViewSearchService};

async fn serve(vt: bool) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let incoming = TcpListenerStream::new(listener);
    tokio::spawn(async move {
        let mut server = Server::builder();
        let result = if vt {
            server
                .add_service(vt_codec::search_server::SearchServer::new(SearchService))
                .serve_with_incoming(incoming)
                .await
        } else {
            server
                .add_service(prost_codec::search_server::SearchServer::new(SearchService))
                .serve_with_incoming(incoming)
                .await
        };
        result.unwrap();
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

async fn call(
    addr: SocketAddr,
    vt: bool,
    request: SearchRequest,
) -> (CandidatesResponse, Vec<Candidate>) {
    let channel = channel(addr).await;
    let mut streamed = Vec::new();
    if vt {
        let mut client = vt_codec::search_client::SearchClient::new(channel);
        let found = client.find(request.clone()).await.unwrap().into_inner();
        let mut stream = client.stream(request).await.unwrap().into_inner();
        while let Some(c) = stream.message().await.unwrap() {
            streamed.push(c);
        }
        (found, streamed)
    } else {
        let mut client = prost_codec::search_client::SearchClient::new(channel);
        let found = client.find(request.clone()).await.unwrap().into_inner();
        let mut stream = client.stream(request).await.unwrap().into_inner();
        while let Some(c) = stream.message().await.unwrap() {
            streamed.push(c);
        }
        (found, streamed)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_codec_pairing_agrees() {
    for server_vt in [true, false] {
        let addr = serve(server_vt).await;
        for client_vt in [true, false] {
            for count in [0, 1, 250] {
                let request = SearchRequest {
                    query: format!("q{count}"),
                    count,
                };
                let expected = answer(&request);
                let (found, streamed) = call(addr, client_vt, request).await;
                assert_eq!(
                    found, expected,
                    "server vt {server_vt}, client vt {client_vt}"
                );
                assert_eq!(
                    streamed, expected.candidates,
                    "streamed, server vt {server_vt}"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_a_status_and_the_server_keeps_serving() {
    let addr = serve(true).await;
    let mut raw = tonic::client::Grpc::new(channel(addr).await);
    for body in [
        vec![0xff, 0xff],
        vec![0x0a, 0x05, b'a'],
        vec![0x0a, 0x02, 0xc3, 0x28],
    ] {
        raw.ready().await.unwrap();
        let status = raw
            .unary::<Vec<u8>, Vec<u8>, _>(
                tonic::Request::new(body.clone()),
                PathAndQuery::from_static("/vt.search.Search/Find"),
                RawCodec,
            )
            .await
            .expect_err("malformed body must fail");
        assert_eq!(status.code(), Code::Internal, "{status:?}");
        assert!(
            status
                .message()
                .contains("decoding vt.search.SearchRequest"),
            "{}",
            status.message()
        );
    }
    // Still serving, and application errors pass through.
    let (found, _) = call(
        addr,
        true,
        SearchRequest {
            query: "ok".into(),
            count: 2,
        },
    )
    .await;
    assert_eq!(found.candidates.len(), 2);
    let mut client = vt_codec::search_client::SearchClient::new(channel(addr).await);
    let status = client
        .find(SearchRequest {
            query: "big".into(),
            count: 200_000,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
}

/// A handler that takes its request as an owned view, over a real socket, from a client with
/// either codec.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_receives_an_owned_view() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        Server::builder()
            .add_service(vt_view::search_server::SearchServer::new(ViewSearchService))
            .serve_with_incoming(TcpListenerStream::new(listener))
            .await
            .unwrap();
    });
    for vt in [true, false] {
        for count in [0, 1, 300] {
            let request = SearchRequest {
                query: format!("view-é-{count}"),
                count,
            };
            let (found, streamed) = call(addr, vt, request.clone()).await;
            let expected = answer(&request);
            assert_eq!(found, expected);
            assert_eq!(streamed, expected.candidates);
        }
    }
    let mut client = vt_codec::search_client::SearchClient::new(channel(addr).await);
    let status = client
        .find(SearchRequest {
            query: "too many".into(),
            count: 200_000,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
}

/// The load benchmark's other two calls, in every pairing, the owned-view server included: a
/// large request the server reads (ingest) and one small event (record).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingest_and_record_in_every_pairing() {
    use vt_grpc_example::pb::vt::event::Event;
    use vt_grpc_example::pb::vt::search::IngestRequest;
    use vt_grpc_example::{ingest_ack, record_ack};

    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let view_addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        Server::builder()
            .add_service(vt_view::search_server::SearchServer::new(ViewSearchService))
            .serve_with_incoming(TcpListenerStream::new(listener))
            .await
            .unwrap();
    });
    let ingest = IngestRequest {
        candidates: answer(&SearchRequest {
            query: "in".into(),
            count: 500,
        })
        .candidates,
    };
    let mut event = Event {
        id: "e".into(),
        readings: vec![1.0, 2.0],
        ..Default::default()
    };
    event.attrs.insert("k".into(), "v".into());
    let (want_ingest, want_record) = (ingest_ack(&ingest), record_ack(&event));
    assert_eq!((want_ingest.count, want_ingest.entries), (500, 1500));
    for addr in [serve(true).await, serve(false).await, view_addr] {
        let channel = channel(addr).await;
        let mut vt = vt_codec::search_client::SearchClient::new(channel.clone());
        let mut prost = prost_codec::search_client::SearchClient::new(channel);
        assert_eq!(
            vt.ingest(ingest.clone()).await.unwrap().into_inner(),
            want_ingest
        );
        assert_eq!(
            prost.ingest(ingest.clone()).await.unwrap().into_inner(),
            want_ingest
        );
        assert_eq!(
            vt.record(event.clone()).await.unwrap().into_inner(),
            want_record
        );
        assert_eq!(
            prost.record(event.clone()).await.unwrap().into_inner(),
            want_record
        );
    }
}
