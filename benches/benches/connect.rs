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

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use vt_benches::grpc_call::{call, record_body, Recorder};
use vt_benches::vc::vt::search::search_connect;
use vt_benches::vc::vt::search::search_server::SearchServer;

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
