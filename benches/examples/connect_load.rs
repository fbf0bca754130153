//! Connect servers under load: rust-vt's `connect` side (`features=..+services+connect`,
//! `mode=standalone`, tonic's server) against connectrpc 0.9 on buffa 0.9's types, serving the
//! same search service (`proto/search.proto`) with the same answers.
//!
//! ```sh
//! cargo run --release -p vt-benches --example connect_load            # every call, ~1 minute
//! cargo run --release -p vt-benches --example connect_load -- find    # calls whose name contains it
//! ```
//!
//! The servers run on one tokio runtime with one worker, the client on another with one
//! worker (a core each on a 2-core machine), over 127.0.0.1: 64 concurrent calls over 4 HTTP/2 connections. The client sends pre-encoded
//! bodies and reads each answer whole without decoding it, so the rows compare the servers
//! (the client's own cost is the same on both sides of a row). The calls:
//!
//! - `find`: a small request, the 2,000-candidate answer (encode-heavy);
//! - `stream`: the same request, 100 candidates as a server stream, one message each;
//! - `ingest`: 2,000 candidates sent, an `Ack` answered (decode-heavy; both servers read the
//!   request as a view borrowing its buffer: our `server_views`, connectrpc's default);
//! - `record`: one small event, a small answer (per-call overhead);
//!
//! each in the binary encoding and in ProtoJSON (Connect), and `grpc find` / `grpc record`:
//! gRPC to the same server against a plain tonic server (`SearchServer`), the cost of putting
//! Connect on the same port. The servers alternate in rounds (0.2 s warm-up, 1 s measured, 3
//! rounds). Each row gives requests per second and the server's CPU time per request (the
//! server runtime's threads, from `/proc/self/task/<tid>/schedstat`; the client's CPU is not
//! counted) for both, and their ratios.
//! Before measuring, every call's answers from both servers are decoded and compared.
//!
//! Settings: `VT_CONNECT_HTTP1=1` makes the client use pooled HTTP/1.1 connections;
//! `VT_CONNECT_ROUNDS=n` measures n rounds (3 by default);
//! `VT_CONNECT_H2_ONLY=1` serves HTTP/2 alone from both tonic servers (ours and the plain
//! one; by default both also take HTTP/1.1, which costs hyper-util's protocol detection);
//! `VT_CONNECT_NODELAY=0` leaves the client's `TCP_NODELAY` off; `VT_NO_CONNECT_LAYER=1` serves
//! ours without `ConnectLayer`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tokio::net::TcpListener;
use vt_benches::{cr, vc};
use vt_benches::{envelope, ThreadSet};
use vtproto::Message as _;

const TASKS: usize = 64;
const CONNECTIONS: usize = 4;
const WARM_UP: Duration = Duration::from_millis(200);
const MEASURE: Duration = Duration::from_secs(1);

/// `answer_query(query, count)` over the candidate types in scope: the same answer from
/// both servers.
macro_rules! answer_query {
    () => {
        pub fn answer_query(query: &str, count: u32) -> CandidatesResponse {
            let candidates = (0..count)
                .map(|i| {
                    let mut c = Candidate {
                        id: format!("{query}-{i}"),
                        ..Default::default()
                    };
                    for (k, v) in [
                        (
                            "relevance_score",
                            format!("0.{:07}", (i * 7919) % 10_000_000),
                        ),
                        ("rank", i.to_string()),
                        ("source", "search".to_string()),
                    ] {
                        c.meta_data.insert(k.to_string(), v);
                    }
                    c
                })
                .collect();
            CandidatesResponse {
                candidates,
                ..Default::default()
            }
        }
    };
}

/// Our service, on our structs.
mod ours {
    use super::vc::vt::candidates::{Candidate, CandidatesResponse};
    use super::vc::vt::event::Event;
    use super::vc::vt::search::{
        search_server::Search, Ack, IngestRequestOwnedView, SearchRequest,
    };
    use tonic::{Request, Response, Status};

    answer_query!();

    fn check(count: u32) -> Result<(), Status> {
        if count > 100_000 {
            return Err(Status::invalid_argument("count must be at most 100000"));
        }
        Ok(())
    }

    type Candidates =
        std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<Candidate, Status>> + Send>>;

    #[derive(Clone, Copy, Default)]
    pub struct VtSearch;

    #[tonic::async_trait]
    impl Search for VtSearch {
        async fn find(
            &self,
            request: Request<SearchRequest>,
        ) -> Result<Response<CandidatesResponse>, Status> {
            let r = request.get_ref();
            check(r.count)?;
            Ok(Response::new(answer_query(&r.query, r.count)))
        }

        type StreamStream = Candidates;

        async fn stream(
            &self,
            request: Request<SearchRequest>,
        ) -> Result<Response<Candidates>, Status> {
            let r = request.get_ref();
            check(r.count)?;
            let items = answer_query(&r.query, r.count)
                .candidates
                .into_iter()
                .map(Ok);
            Ok(Response::new(Box::pin(tokio_stream::iter(items))))
        }

        async fn ingest(
            &self,
            request: Request<IngestRequestOwnedView>,
        ) -> Result<Response<Ack>, Status> {
            // The candidates' strings borrow the request's buffer.
            let r = request.get_ref().get();
            Ok(Response::new(Ack {
                count: r.candidates.len() as u32,
                entries: r.candidates.iter().map(|c| c.meta_data.len() as u32).sum(),
                ..Default::default()
            }))
        }

        async fn record(&self, request: Request<Event>) -> Result<Response<Ack>, Status> {
            Ok(Response::new(vt_benches::record_ack(request.get_ref())))
        }
    }
}

/// The same service on connectrpc and buffa.
mod theirs {
    use super::cr::vt::candidates::{Candidate, CandidatesResponse};
    use super::cr::vt::event::Event;
    use super::cr::vt::search::{Ack, IngestRequest, Search, SearchRequest};
    use connectrpc::{
        ConnectError, RequestContext, Response, ServiceRequest, ServiceResult, ServiceStream,
    };

    answer_query!();

    fn check(count: u32) -> Result<(), ConnectError> {
        if count > 100_000 {
            return Err(ConnectError::invalid_argument(
                "count must be at most 100000",
            ));
        }
        Ok(())
    }

    #[derive(Clone, Copy, Default)]
    pub struct CrSearch;

    #[allow(refining_impl_trait)]
    impl Search for CrSearch {
        async fn find(
            &self,
            _ctx: RequestContext,
            request: ServiceRequest<'_, SearchRequest>,
        ) -> ServiceResult<CandidatesResponse> {
            check(request.count)?;
            Response::ok(answer_query(request.query, request.count))
        }

        async fn stream(
            &self,
            _ctx: RequestContext,
            request: ServiceRequest<'_, SearchRequest>,
        ) -> ServiceResult<ServiceStream<Candidate>> {
            check(request.count)?;
            let items = answer_query(request.query, request.count).candidates;
            Response::stream_ok(tokio_stream::iter(items.into_iter().map(Ok)))
        }

        async fn ingest(
            &self,
            _ctx: RequestContext,
            request: ServiceRequest<'_, IngestRequest>,
        ) -> ServiceResult<Ack> {
            let entries: usize = request.candidates.iter().map(|c| c.meta_data.len()).sum();
            Response::ok(Ack {
                count: request.candidates.len() as u32,
                entries: entries as u32,
                ..Default::default()
            })
        }

        async fn record(
            &self,
            _ctx: RequestContext,
            request: ServiceRequest<'_, Event>,
        ) -> ServiceResult<Ack> {
            Response::ok(Ack {
                count: request.attrs.len() as u32,
                entries: request.readings.len() as u32,
                ..Default::default()
            })
        }
    }
}

/// A server of the benchmark.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Side {
    /// rust-vt's Connect side on tonic's server (with `ConnectLayer`).
    Vt,
    /// connectrpc 0.9.
    Connectrpc,
    /// A plain tonic server of the same service (gRPC only).
    Tonic,
}

async fn serve(side: Side) -> String {
    // Both tonic servers take HTTP/1.1 beside HTTP/2 (as Connect's browsers need), unless
    // VT_CONNECT_H2_ONLY is set.
    let http1 = std::env::var_os("VT_CONNECT_H2_ONLY").is_none();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    match side {
        Side::Vt => {
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            let service =
                vc::vt::search::search_connect::server(ours::VtSearch).max_message_size(64 << 20);
            // With ConnectLayer (Connect's answer for unknown services), as the guide serves,
            // unless VT_NO_CONNECT_LAYER is set.
            let builder = tonic::transport::Server::builder().accept_http1(http1);
            if std::env::var_os("VT_NO_CONNECT_LAYER").is_none() {
                let mut builder = builder.layer(vtproto::connect::ConnectLayer);
                tokio::spawn(builder.add_service(service).serve_with_incoming(incoming));
            } else {
                let mut builder = builder;
                tokio::spawn(builder.add_service(service).serve_with_incoming(incoming));
            }
        }
        Side::Tonic => {
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            let service = vc::vt::search::search_server::SearchServer::new(ours::VtSearch)
                .max_decoding_message_size(64 << 20);
            tokio::spawn(
                tonic::transport::Server::builder()
                    .accept_http1(http1)
                    .add_service(service)
                    .serve_with_incoming(incoming),
            );
        }
        Side::Connectrpc => {
            let service = connectrpc::ConnectRpcService::new(cr::vt::search::SearchServer::new(
                theirs::CrSearch,
            ))
            .with_limits(
                connectrpc::Limits::default()
                    .with_max_request_body_size(64 << 20)
                    .with_max_message_size(64 << 20),
            );
            tokio::spawn(connectrpc::Server::from_listener(listener).serve_with_service(service));
        }
    }
    url
}

/// One call as the client sends it.
struct Call {
    name: &'static str,
    path: &'static str,
    content_type: &'static str,
    body: Bytes,
    /// The peer this row compares our server with.
    peer: Side,
}

fn calls() -> Vec<Call> {
    use vc::vt::search::{IngestRequest, SearchRequest};
    let find = SearchRequest {
        query: "q".into(),
        count: 2000,
        ..Default::default()
    };
    let stream = SearchRequest {
        query: "q".into(),
        count: 100,
        ..Default::default()
    };
    let ingest = IngestRequest {
        candidates: ours::answer_query("in", 2000).candidates,
        ..Default::default()
    };
    let event = vt_benches::small_event();
    let json = |m: &dyn Fn() -> String| Bytes::from(m());
    let mut calls = Vec::new();
    for (name, path, proto, text) in [
        (
            "find",
            "/vt.search.Search/Find",
            find.encode_to_vec(),
            json(&|| vtproto::json::to_string(&find).unwrap()),
        ),
        (
            "ingest",
            "/vt.search.Search/Ingest",
            ingest.encode_to_vec(),
            json(&|| vtproto::json::to_string(&ingest).unwrap()),
        ),
        (
            "record",
            "/vt.search.Search/Record",
            event.encode_to_vec(),
            json(&|| vtproto::json::to_string(&event).unwrap()),
        ),
    ] {
        calls.push(Call {
            name: leak(format!("{name} proto")),
            path,
            content_type: "application/proto",
            body: proto.into(),
            peer: Side::Connectrpc,
        });
        calls.push(Call {
            name: leak(format!("{name} json")),
            path,
            content_type: "application/json",
            body: text,
            peer: Side::Connectrpc,
        });
    }
    let text = vtproto::json::to_string(&stream).unwrap();
    calls.push(Call {
        name: "stream proto",
        path: "/vt.search.Search/Stream",
        content_type: "application/connect+proto",
        body: envelope(&stream.encode_to_vec()),
        peer: Side::Connectrpc,
    });
    calls.push(Call {
        name: "stream json",
        path: "/vt.search.Search/Stream",
        content_type: "application/connect+json",
        body: envelope(text.as_bytes()),
        peer: Side::Connectrpc,
    });
    calls.push(Call {
        name: "grpc find",
        path: "/vt.search.Search/Find",
        content_type: "application/grpc",
        body: envelope(&find.encode_to_vec()),
        peer: Side::Tonic,
    });
    calls.push(Call {
        name: "grpc record",
        path: "/vt.search.Search/Record",
        content_type: "application/grpc",
        body: envelope(&event.encode_to_vec()),
        peer: Side::Tonic,
    });
    calls
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

type HttpClient = Client<HttpConnector, Full<Bytes>>;

fn clients() -> Vec<HttpClient> {
    (0..CONNECTIONS)
        .map(|_| {
            // TCP_NODELAY, as tonic's and grpc-go's clients set it: without it a request's
            // HEADERS and DATA frames wait on the server's delayed ACK (40 ms).
            // `VT_CONNECT_NODELAY=0` leaves it off, to see the difference.
            let mut connector = HttpConnector::new();
            connector.set_nodelay(std::env::var("VT_CONNECT_NODELAY").as_deref() != Ok("0"));
            Client::builder(TokioExecutor::new())
                .http2_only(std::env::var_os("VT_CONNECT_HTTP1").is_none())
                .build(connector)
        })
        .collect()
}

/// Sends `call` once; returns the answer's body and trailers, after checking its status.
async fn send(client: &HttpClient, url: &str, call: &Call) -> (Bytes, Option<http::HeaderMap>) {
    let mut request = http::Request::post(format!("{url}{}", call.path))
        .header("content-type", call.content_type)
        .body(Full::new(call.body.clone()))
        .unwrap();
    if call.content_type == "application/grpc" {
        request
            .headers_mut()
            .insert("te", "trailers".parse().unwrap());
    }
    let response = client.request(request).await.expect("an answer");
    assert_eq!(response.status(), 200, "{} to {url}", call.name);
    let collected = response.into_body().collect().await.expect("a body");
    let trailers = collected.trailers().cloned();
    (collected.to_bytes(), trailers)
}

/// The messages of an enveloped body (a stream's, or gRPC's), without the end of stream.
fn envelopes(mut body: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while body.len() >= 5 {
        let len = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
        if body[0] & 2 == 0 {
            out.push(&body[5..5 + len]);
        }
        body = &body[5 + len..];
    }
    out
}

/// Whether two servers' answers to `call` decode, as our types, to equal messages.
fn same_answers(call: &Call, a: &[u8], b: &[u8]) -> bool {
    use vc::vt::candidates::{Candidate, CandidatesResponse};
    use vc::vt::search::Ack;
    fn decode<M: vtproto::json::JsonMessage>(json: bool, bytes: &[u8]) -> M {
        if json {
            vtproto::json::from_slice(bytes).expect("a JSON answer")
        } else {
            M::decode(bytes).expect("a binary answer")
        }
    }
    fn all<M: vtproto::json::JsonMessage + PartialEq>(
        json: bool,
        enveloped: bool,
        a: &[u8],
        b: &[u8],
    ) -> bool {
        let parts = |body| {
            if enveloped {
                envelopes(body)
            } else {
                vec![body]
            }
        };
        let (a, b) = (parts(a), parts(b));
        !a.is_empty()
            && a.len() == b.len()
            && a.iter()
                .zip(&b)
                .all(|(x, y)| decode::<M>(json, x) == decode::<M>(json, y))
    }
    let json = call.content_type.contains("json");
    let enveloped = call.content_type.contains("grpc") || call.content_type.contains("connect+");
    match call.path {
        "/vt.search.Search/Find" => all::<CandidatesResponse>(json, enveloped, a, b),
        "/vt.search.Search/Stream" => all::<Candidate>(json, enveloped, a, b),
        _ => all::<Ack>(json, enveloped, a, b),
    }
}

struct Measure {
    calls: u64,
    cpu: Duration,
    wall: Duration,
}

async fn measure(
    clients: &[HttpClient],
    url: &str,
    call: &Arc<Call>,
    servers: &ThreadSet,
) -> Measure {
    let done = Arc::new(AtomicBool::new(false));
    let counting = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for t in 0..TASKS {
        let (client, url, call) = (
            clients[t % CONNECTIONS].clone(),
            url.to_string(),
            call.clone(),
        );
        let (done, counting, count) = (done.clone(), counting.clone(), count.clone());
        tasks.push(tokio::spawn(async move {
            while !done.load(Ordering::Relaxed) {
                let (_, trailers) = send(&client, &url, &call).await;
                if let Some(t) = trailers {
                    assert_eq!(t.get("grpc-status").map(|v| v.as_bytes()), Some(&b"0"[..]));
                }
                if counting.load(Ordering::Relaxed) {
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    tokio::time::sleep(WARM_UP).await;
    let (cpu0, wall0) = (servers.cpu_time(), Instant::now());
    counting.store(true, Ordering::Relaxed);
    tokio::time::sleep(MEASURE).await;
    counting.store(false, Ordering::Relaxed);
    let m = Measure {
        calls: count.load(Ordering::Relaxed),
        cpu: servers.cpu_time() - cpu0,
        wall: wall0.elapsed(),
    };
    done.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.unwrap();
    }
    m
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let rounds: usize = std::env::var("VT_CONNECT_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    // The servers and the client on runtimes of their own, one worker each (one core each on
    // a 2-core machine), so the servers' threads' CPU time is counted apart from the client's.
    let servers = ThreadSet::default();
    let server_runtime = {
        let threads = servers.clone();
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("bench-server")
            .on_thread_start(move || threads.register())
            .enable_all()
            .build()
            .unwrap()
    };
    let client_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("bench-client")
        .enable_all()
        .build()
        .unwrap();
    let mut urls = std::collections::HashMap::new();
    for side in [Side::Vt, Side::Connectrpc, Side::Tonic] {
        // Spawned from the server runtime's context, the servers' tasks run on it.
        urls.insert(side, server_runtime.block_on(serve(side)));
    }
    client_runtime.block_on(async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let clients = clients();
        println!("| call | rust-vt req/s | peer req/s | rust-vt / peer | rust-vt server CPU µs/req | peer server CPU µs/req | rust-vt / peer |");
        println!("|---|---:|---:|---:|---:|---:|---:|");
        for call in calls().into_iter().filter(|c| c.name.contains(filter.as_str())) {
            // Both servers give the same answer.
            let (ours, _) = send(&clients[0], &urls[&Side::Vt], &call).await;
            let (theirs, _) = send(&clients[0], &urls[&call.peer], &call).await;
            assert!(same_answers(&call, &ours, &theirs), "{}: the answers differ", call.name);
            let call = Arc::new(call);
            let (mut vt, mut peer) = (Vec::new(), Vec::new());
            for _ in 0..rounds {
                vt.push(measure(&clients, &urls[&Side::Vt], &call, &servers).await);
                peer.push(measure(&clients, &urls[&call.peer], &call, &servers).await);
            }
            let rate = |ms: &[Measure]| {
                ms.iter().map(|m| m.calls as f64).sum::<f64>()
                    / ms.iter().map(|m| m.wall.as_secs_f64()).sum::<f64>()
            };
            let cpu = |ms: &[Measure]| {
                ms.iter().map(|m| m.cpu.as_secs_f64()).sum::<f64>() * 1e6
                    / ms.iter().map(|m| m.calls as f64).sum::<f64>()
            };
            let peer_name = if call.peer == Side::Tonic { "tonic" } else { "connectrpc" };
            println!(
                "| {} (vs {peer_name}) | {:.0} | {:.0} | {:.2} | {:.1} | {:.1} | {:.2} |",
                call.name,
                rate(&vt),
                rate(&peer),
                rate(&vt) / rate(&peer),
                cpu(&vt),
                cpu(&peer),
                cpu(&vt) / cpu(&peer),
            );
        }
    });
}
