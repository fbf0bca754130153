//! What serving gRPC through the `connect` server costs per call, without a network: the same
//! gRPC request (the search service's `Record`, one small event) answered by tonic's generated
//! server alone, by `search_connect::server` (which routes it to that same tonic server), and
//! by that behind `ConnectLayer`. Each call's answer is read whole, trailers included, on a
//! current-thread tokio runtime. The load benchmark (`examples/connect_load.rs`) measures the
//! same row over HTTP/2, where it is lost in the noise of a whole server's CPU.
//!
//! ```sh
//! cargo bench -p vt-benches --bench connect
//! ```

use std::convert::Infallible;
use std::hint::black_box;
use std::time::Duration;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use http_body_util::{BodyExt as _, Full};
use tonic::body::Body;
use tonic::{Request, Response, Status};
use tower_service::Service;
use vt_benches::vc::vt::candidates::{Candidate, CandidatesResponse};
use vt_benches::vc::vt::event::Event;
use vt_benches::vc::vt::search::search_server::{Search, SearchServer};
use vt_benches::vc::vt::search::{search_connect, Ack, IngestRequestOwnedView, SearchRequest};
use vtproto::Message as _;

/// The search service answering `Record` only.
#[derive(Clone, Copy, Default)]
struct Recorder;

type Candidates =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<Candidate, Status>> + Send>>;

#[tonic::async_trait]
impl Search for Recorder {
    async fn find(
        &self,
        _: Request<SearchRequest>,
    ) -> Result<Response<CandidatesResponse>, Status> {
        Err(Status::unimplemented("find"))
    }

    type StreamStream = Candidates;

    async fn stream(&self, _: Request<SearchRequest>) -> Result<Response<Candidates>, Status> {
        Err(Status::unimplemented("stream"))
    }

    async fn ingest(&self, _: Request<IngestRequestOwnedView>) -> Result<Response<Ack>, Status> {
        Err(Status::unimplemented("ingest"))
    }

    async fn record(&self, request: Request<Event>) -> Result<Response<Ack>, Status> {
        Ok(Response::new(vt_benches::record_ack(request.get_ref())))
    }
}

/// The gRPC request body: one enveloped event.
fn record_body() -> Bytes {
    vt_benches::envelope(&vt_benches::small_event().encode_to_vec())
}

fn request(body: &Bytes) -> http::Request<Body> {
    let mut request = http::Request::post("/vt.search.Search/Record")
        .version(http::Version::HTTP_2)
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(Body::new(Full::new(body.clone())))
        .unwrap();
    request
        .headers_mut()
        .insert("user-agent", "bench".parse().unwrap());
    request
}

/// One call: the answer read whole; its `grpc-status` must be 0.
async fn call<S>(service: &mut S, body: &Bytes) -> usize
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
{
    let response = service.call(request(body)).await.unwrap();
    let collected = response.into_body().collect().await.unwrap();
    let status = collected
        .trailers()
        .and_then(|t| t.get("grpc-status"))
        .map(|v| v.as_bytes().to_vec());
    assert_eq!(status.as_deref(), Some(&b"0"[..]));
    collected.to_bytes().len()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let body = record_body();
    let mut tonic_server = SearchServer::new(Recorder);
    let mut connect_server = search_connect::server(Recorder);
    let mut layered = tower_layer::Layer::layer(
        &vtproto::connect::ConnectLayer,
        search_connect::server(Recorder),
    );
    // All three give the same answer.
    let answers = runtime.block_on(async {
        [
            call(&mut tonic_server, &body).await,
            call(&mut connect_server, &body).await,
            call(&mut layered, &body).await,
        ]
    });
    assert!(answers.iter().all(|&a| a == answers[0] && a > 0));

    let mut group = c.benchmark_group("C_grpc_record_call");
    group.bench_function("tonic", |b| {
        b.iter(|| runtime.block_on(call(&mut tonic_server, black_box(&body))))
    });
    group.bench_function("connect_server", |b| {
        b.iter(|| runtime.block_on(call(&mut connect_server, black_box(&body))))
    });
    group.bench_function("connect_server_and_layer", |b| {
        b.iter(|| runtime.block_on(call(&mut layered, black_box(&body))))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
