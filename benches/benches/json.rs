//! ProtoJSON: rust-vt's generated JSON (`features=..+json`, on prost's structs) against prost +
//! pbjson + serde_json (the common Rust setup, on the same structs) and buffa's serde JSON, on
//! the same data, in one run.
//!
//! ```sh
//! cargo bench -p vt-benches --bench json
//! python3 benches/report.py --json     # the ratio table of RESULTS.md
//! ```
//!
//! Group names are `J_<workload>_<size>_<op>`; functions are the peers. Every peer writes and
//! reads the same JSON (checked before measuring: each reads the others' output to the same
//! value).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use vt_benches::{bf, pj};

/// Benchmarks writing and reading `msg`'s JSON with every peer; `J` is pbjson's type and `B`
/// buffa's for the same message, decoded from prost's bytes so the data is identical.
fn json_groups<P, J, B>(c: &mut Criterion, name: &str, msg: &P)
where
    P: vtproto::json::JsonMessage
        + prost::Message
        + serde::Serialize
        + serde::de::DeserializeOwned
        + PartialEq
        + std::fmt::Debug,
    J: prost::Message
        + Default
        + serde::Serialize
        + serde::de::DeserializeOwned
        + PartialEq
        + std::fmt::Debug,
    B: buffa::Message + serde::Serialize + serde::de::DeserializeOwned,
{
    let bytes = prost::Message::encode_to_vec(msg);
    // Ours decoded from the bytes too: every peer's message then made its allocations in the
    // same order (the workload generators build theirs field by field, map by map).
    let msg = &<P as prost::Message>::decode(&bytes[..]).unwrap();
    let pj_msg = J::decode(&bytes[..]).unwrap();
    let bf_msg = <B as buffa::Message>::decode_from_slice(&bytes).unwrap();
    let ours = vtproto::json::to_string(msg).unwrap();
    let theirs = serde_json::to_string(&pj_msg).unwrap();
    let buffa_json = serde_json::to_string(&bf_msg).unwrap();
    // The same value through each peer's reader.
    assert_eq!(&vtproto::json::from_str::<P>(&theirs).unwrap(), msg);
    assert_eq!(&vtproto::json::from_str::<P>(&buffa_json).unwrap(), msg);
    assert_eq!(serde_json::from_str::<J>(&ours).unwrap(), pj_msg);
    assert_eq!(&serde_json::from_str::<P>(&ours).unwrap(), msg);
    assert_eq!(serde_json::to_string(msg).unwrap(), ours);

    let mut g = c.benchmark_group(format!("J_{name}_encode"));
    g.bench_function("pbjson", |b| {
        b.iter(|| serde_json::to_string(black_box(&pj_msg)).unwrap())
    });
    g.bench_function("vtproto", |b| {
        b.iter(|| vtproto::json::to_string(black_box(msg)).unwrap())
    });
    let mut reuse = String::with_capacity(ours.len());
    let options = vtproto::json::EncodeOptions::default();
    g.bench_function("vtproto_reuse", |b| {
        b.iter(|| {
            reuse.clear();
            vtproto::json::to_string_into(black_box(msg), &options, &mut reuse).unwrap()
        })
    });
    g.bench_function("buffa", |b| {
        b.iter(|| serde_json::to_string(black_box(&bf_msg)).unwrap())
    });
    // Our serde impls (`features=..+serde`), through serde_json as pbjson's are.
    g.bench_function("vtproto_serde", |b| {
        b.iter(|| serde_json::to_string(black_box(msg)).unwrap())
    });
    // What JSON costs over our binary codec, on the same value.
    g.bench_function("vtproto_binary", |b| {
        b.iter(|| vtproto::Message::encode_to_vec(black_box(msg)))
    });
    g.finish();

    let mut g = c.benchmark_group(format!("J_{name}_decode"));
    g.bench_function("pbjson", |b| {
        b.iter(|| serde_json::from_str::<J>(black_box(&ours)).unwrap())
    });
    g.bench_function("vtproto", |b| {
        b.iter(|| vtproto::json::from_str::<P>(black_box(&ours)).unwrap())
    });
    g.bench_function("buffa", |b| {
        b.iter(|| serde_json::from_str::<B>(black_box(&ours)).unwrap())
    });
    g.bench_function("vtproto_serde", |b| {
        b.iter(|| serde_json::from_str::<P>(black_box(&ours)).unwrap())
    });
    g.bench_function("vtproto_binary", |b| {
        b.iter(|| <P as vtproto::Message>::decode(black_box(&bytes)).unwrap())
    });
    g.finish();
}

fn workloads(c: &mut Criterion) {
    use bf::vt::{candidates as bfc, deep as bfd, event as bfe};
    use pj::vt::{candidates as pjc, deep as pjd, event as pje};
    for n in [100, 2000] {
        json_groups::<_, pjc::CandidatesResponse, bfc::CandidatesResponse>(
            c,
            &format!("A_candidates_{n}"),
            &vt_benches::candidates(n),
        );
    }
    json_groups::<_, pje::Event, bfe::Event>(
        c,
        "B_event_1",
        &vt_benches::event(&mut vt_benches::Rng::new(7)),
    );
    json_groups::<_, pje::EventBatch, bfe::EventBatch>(
        c,
        "B_event_1000",
        &vt_benches::event_batch(1000),
    );
    json_groups::<_, pjd::Node, bfd::Node>(c, "C_node20", &vt_benches::node20());
    json_groups::<_, pjd::Node, bfd::Node>(c, "C_deep_32", &vt_benches::deep(32));
    use bf::opentelemetry::proto::collector::trace::v1 as bfo;
    use pj::opentelemetry::proto::collector::trace::v1 as pjo;
    for (resources, spans) in [(1, 10), (5, 100)] {
        json_groups::<_, pjo::ExportTraceServiceRequest, bfo::ExportTraceServiceRequest>(
            c,
            &format!("D_otel_{resources}x{spans}"),
            &vt_benches::otel_request(resources, spans, 11),
        );
    }
    use bf::benchmarks::{proto2 as bf2, proto3 as bf3};
    use pj::benchmarks::{proto2 as pj2, proto3 as pj3};
    use vt_benches::pb::benchmarks::{proto2 as pb2, proto3 as pb3};
    // Each dataset holds one message.
    let m1p2 =
        vt_benches::google_messages::<pb2::GoogleMessage1>("google_message1_proto2").remove(0);
    json_groups::<_, pj2::GoogleMessage1, bf2::GoogleMessage1>(c, "E_message1_proto2", &m1p2);
    let m1p3 =
        vt_benches::google_messages::<pb3::GoogleMessage1>("google_message1_proto3").remove(0);
    json_groups::<_, pj3::GoogleMessage1, bf3::GoogleMessage1>(c, "E_message1_proto3", &m1p3);
    let m2 = vt_benches::google_messages::<pb2::GoogleMessage2>("google_message2").remove(0);
    json_groups::<_, pj2::GoogleMessage2, bf2::GoogleMessage2>(c, "E_message2", &m2);
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! {
    name = benches;
    config = config();
    targets = workloads
}
criterion_main!(benches);
