//! Interleaved ratios of `vtproto::reflect::DynamicMessage`'s time to prost-reflect 0.16's
//! `DynamicMessage`, both built from the same descriptor set at run time, on the same bytes
//! (see `ratio.rs` for the method: the two sides alternate in batches of about 2 ms, and each
//! row prints the median ratio with its quartiles).
//!
//! ```sh
//! cargo run --release -p vt-benches --example reflect_ratio            # every row
//! cargo run --release -p vt-benches --example reflect_ratio -- events   # rows containing it
//! ```

use std::hint::black_box;

use prost::Message as _;
use vt_benches::interleave::{cycle, labelled_row};

const LABELS: (&str, &str) = ("prost-reflect", "rust-vt/prost-reflect");

fn rows(filter: &str, name: &str, full_name: &str, inputs: &[Vec<u8>]) {
    let fds = std::fs::read(concat!(env!("OUT_DIR"), "/bench.fds")).unwrap();
    let theirs_pool = prost_reflect::DescriptorPool::decode(&fds[..]).unwrap();
    let ours_pool = vtproto::reflect::DescriptorPool::decode(&fds).unwrap();
    let theirs_desc = theirs_pool.get_message_by_name(full_name).unwrap();
    let ours_desc = ours_pool.get_message_by_name(full_name).unwrap();
    let theirs: Vec<prost_reflect::DynamicMessage> = inputs
        .iter()
        .map(|b| prost_reflect::DynamicMessage::decode(theirs_desc.clone(), &b[..]).unwrap())
        .collect();
    let ours: Vec<vtproto::reflect::DynamicMessage> = inputs
        .iter()
        .map(|b| vtproto::reflect::DynamicMessage::decode(ours_desc.clone(), b).unwrap())
        .collect();
    // Both write the input's bytes back (maps may reorder: then the same length).
    for ((t, o), b) in theirs.iter().zip(&ours).zip(inputs) {
        assert_eq!(t.encode_to_vec().len(), b.len());
        assert_eq!(o.encode_to_vec().len(), b.len());
    }
    let (mut p, mut v) = (cycle(inputs), cycle(inputs));
    let (td, od) = (theirs_desc.clone(), ours_desc.clone());
    labelled_row(
        filter,
        &format!("{name}_decode"),
        LABELS,
        || {
            let m = prost_reflect::DynamicMessage::decode(td.clone(), &black_box(p())[..]);
            drop(black_box(m.unwrap()))
        },
        || {
            let m = vtproto::reflect::DynamicMessage::decode(od.clone(), black_box(v()));
            drop(black_box(m.unwrap()))
        },
    );
    let (mut p, mut v) = (cycle(&theirs), cycle(&ours));
    labelled_row(
        filter,
        &format!("{name}_encode"),
        LABELS,
        || drop(black_box(black_box(p()).encode_to_vec())),
        || drop(black_box(black_box(v()).encode_to_vec())),
    );
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let candidates: Vec<Vec<u8>> = [100, 2000]
        .iter()
        .map(|&n| vt_benches::candidates(n).encode_to_vec())
        .collect();
    rows(
        &filter,
        "candidates",
        "vt.candidates.CandidatesResponse",
        &candidates,
    );
    let mut rng = vt_benches::Rng::new(7);
    let events: Vec<Vec<u8>> = (0..64)
        .map(|_| vt_benches::event(&mut rng).encode_to_vec())
        .collect();
    rows(&filter, "events_fresh64", "vt.event.Event", &events);
    let batches = vec![vt_benches::event_batch(1000).encode_to_vec()];
    rows(&filter, "event_batch_1000", "vt.event.EventBatch", &batches);
    let deep: Vec<Vec<u8>> = [10, 100]
        .iter()
        .map(|&d| vt_benches::deep(d).encode_to_vec())
        .collect();
    rows(&filter, "deep", "vt.deep.Node", &deep);
    let otel: Vec<Vec<u8>> = (0..8)
        .map(|s| vt_benches::otel_request(4, 50, s).encode_to_vec())
        .collect();
    rows(
        &filter,
        "otel",
        "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
        &otel,
    );
}
