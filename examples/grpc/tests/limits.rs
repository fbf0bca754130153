//! Decode limits over real sockets: a server given its own limits (`with_decode_limits`)
//! answers an amplifying request (1 MiB of empty candidates: 2 bytes each on the wire, a
//! struct each in memory, 36 MiB in all) with `RESOURCE_EXHAUSTED`, and while 64 such requests
//! arrive at once the process holds their bodies and a few budgets, where the same server
//! without a budget holds 36 MiB more per decode under way.

use std::net::SocketAddr;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Server};
use tonic::Code;
use vt_grpc_example::raw::RawCodec;
use vt_grpc_example::{vt_codec, SearchService};
use vtproto::tonic::with_decode_limits;
use vtproto::DecodeLimits;

#[global_allocator]
static A: alloc_stats::Tracking = alloc_stats::Tracking;

/// The request: `IngestRequest.candidates`, an empty `Candidate` each, 1 MiB in all.
fn amplifying_request() -> Vec<u8> {
    [0x0a, 0x00].repeat(1 << 19)
}

async fn serve(limits: Option<DecodeLimits>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let incoming = TcpListenerStream::new(listener);
    tokio::spawn(async move {
        let server = vt_codec::search_server::SearchServer::new(SearchService)
            .max_decoding_message_size(2 << 20);
        let mut builder = Server::builder();
        let result = match limits {
            Some(limits) => {
                builder
                    .add_service(with_decode_limits(server, limits))
                    .serve_with_incoming(incoming)
                    .await
            }
            None => {
                builder
                    .add_service(server)
                    .serve_with_incoming(incoming)
                    .await
            }
        };
        result.unwrap();
    });
    addr
}

/// Sends `n` amplifying requests at once; their statuses, and the most bytes the process held
/// meanwhile beyond what it held before.
async fn flood(addr: SocketAddr, n: usize) -> (Vec<Result<(), tonic::Status>>, usize) {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let body = amplifying_request();
    let counter = alloc_stats::Process::start();
    let calls = (0..n).map(|_| {
        let mut raw = tonic::client::Grpc::new(channel.clone()).max_encoding_message_size(4 << 20);
        let body = body.clone();
        tokio::spawn(async move {
            raw.ready().await.unwrap();
            raw.unary::<Vec<u8>, Vec<u8>, _>(
                tonic::Request::new(body),
                PathAndQuery::from_static("/vt.search.Search/Ingest"),
                RawCodec,
            )
            .await
            .map(drop)
        })
    });
    let calls: Vec<_> = calls.collect();
    let mut out = Vec::new();
    for call in calls {
        out.push(call.await.unwrap());
    }
    (out, counter.peak())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budgeted_server_refuses_amplification_and_stays_small() {
    let limits = DecodeLimits {
        memory_budget: 1 << 20,
        ..DecodeLimits::default()
    };
    let budgeted = serve(Some(limits)).await;
    let (one, _) = flood(budgeted, 1).await;
    let status = one[0].as_ref().unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert!(status.message().contains("memory budget"), "{status:?}");

    let (statuses, peak_budgeted) = flood(budgeted, 64).await;
    for s in &statuses {
        let status = s.as_ref().unwrap_err();
        assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    }
    // The same requests to the same server without a budget all decode.
    let free = serve(Some(DecodeLimits {
        memory_budget: usize::MAX,
        ..DecodeLimits::default()
    }))
    .await;
    let (statuses, peak_free) = flood(free, 64).await;
    assert!(statuses.iter().all(Result::is_ok), "{statuses:?}");
    // The default limits (the input's size plus 32 MiB) let a 1 MiB request grow to 33 MiB:
    // this one, 36 MiB of structs, is refused there too.
    let default = serve(None).await;
    let (one, _) = flood(default, 1).await;
    assert_eq!(one[0].as_ref().unwrap_err().code(), Code::ResourceExhausted);
    println!(
        "64 requests of 1 MiB: the process held {} MiB at most with a 1 MiB budget, {} MiB without",
        peak_budgeted >> 20,
        peak_free >> 20
    );
    // The request bodies (a client's and a server's copy each, 128 MiB), and what the
    // decodes under way hold: a few budgets at a time.
    assert!(
        peak_budgeted < 200 << 20,
        "{} MiB held with a 1 MiB budget",
        peak_budgeted >> 20
    );
    // Without the budget each decode under way holds 36 MiB of structs more.
    assert!(
        peak_budgeted + (30 << 20) < peak_free,
        "{} MiB with a budget, {} MiB without",
        peak_budgeted >> 20,
        peak_free >> 20
    );
}
