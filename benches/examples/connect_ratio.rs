//! Interleaved ratio of a small gRPC call's time through `search_connect::server` (labels
//! `rust-vt connect`), and behind `ConnectLayer` as well (`rust-vt connect+layer`), to the
//! same call answered by tonic's generated server alone (labels `tonic`): the `Record` call
//! of `benches/connect.rs`, in process, its answer read whole, on a current-thread runtime.
//! The sides alternate in batches of about 2 ms (see `ratio.rs`), so that the machine's
//! drift falls on both; each row prints the median ratio with its quartiles.
//!
//! ```sh
//! cargo run --release -p vt-benches --example connect_ratio
//! ```

use std::hint::black_box;

use vt_benches::grpc_call::{call, record_body, Recorder};
use vt_benches::interleave::labelled_row;
use vt_benches::vc::vt::search::search_connect;
use vt_benches::vc::vt::search::search_server::SearchServer;

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
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
    let mut tonic_again = SearchServer::new(Recorder);
    labelled_row(
        &filter,
        "grpc_record_call",
        ("tonic", "rust-vt connect"),
        || {
            black_box(runtime.block_on(call(&mut tonic_server, black_box(&body))));
        },
        || {
            black_box(runtime.block_on(call(&mut connect_server, black_box(&body))));
        },
    );
    labelled_row(
        &filter,
        "grpc_record_call",
        ("tonic", "rust-vt connect+layer"),
        || {
            black_box(runtime.block_on(call(&mut tonic_again, black_box(&body))));
        },
        || {
            black_box(runtime.block_on(call(&mut layered, black_box(&body))));
        },
    );
}
