//! Interleaved ratios of `vtproto::reflect::DynamicMessage`'s ProtoJSON time (labels
//! `rust-vt dynamic`), and of generated structs whose JSON the reflection tables serve
//! (`tables=.`, labels `rust-vt tables`), to two peers on the same messages: prost + pbjson +
//! serde_json (generated serde impls, the common Rust way: labels `pbjson`) and prost-reflect
//! 0.16's `DynamicMessage` through serde_json (labels `prost-reflect`). The same reads by
//! generated JSON code (`features=json`, prost's structs, labels `rust-vt generated`) are
//! the reference: the tables read the same JSON with one walker instead of code per type. See `ratio.rs` for the method: the sides alternate in batches of about
//! 2 ms, and each row prints the median ratio with its quartiles.
//!
//! ```sh
//! cargo run --release -p vt-benches --example reflect_json_ratio            # every row
//! cargo run --release -p vt-benches --example reflect_json_ratio -- events   # rows containing it
//! ```

use std::hint::black_box;

use prost::Message as _;
use serde::de::DeserializeOwned;
use serde::Serialize;
use vt_benches::interleave::{cycle, labelled_row};

/// One decode row: `M` read from each of `texts` by `vtproto::json::from_str`, against
/// `peer` reading the same texts (pbjson's `J`, or prost-reflect's `DynamicMessage` of
/// `desc`).
fn decode_row<J, M>(
    filter: &str,
    name: &str,
    labels: (&str, &str),
    texts: &[String],
    desc: &prost_reflect::MessageDescriptor,
) where
    J: DeserializeOwned,
    M: vtproto::Message + vtproto::json::JsonMessage,
{
    let (mut a, mut b) = (cycle(texts), cycle(texts));
    labelled_row(
        filter,
        &format!("{name}_json_decode"),
        labels,
        || {
            if labels.0 == "pbjson" {
                drop(black_box(
                    serde_json::from_str::<J>(black_box(a())).unwrap(),
                ))
            } else {
                let mut de = serde_json::Deserializer::from_str(black_box(a()));
                let m = prost_reflect::DynamicMessage::deserialize(desc.clone(), &mut de);
                drop(black_box(m.unwrap()))
            }
        },
        || {
            drop(black_box(
                vtproto::json::from_str::<M>(black_box(b())).unwrap(),
            ))
        },
    );
}

fn rows<J, T, G>(filter: &str, name: &str, full_name: &str, inputs: &[Vec<u8>])
where
    J: Serialize + DeserializeOwned + prost::Message + Default + PartialEq,
    T: vtproto::Message + vtproto::json::JsonMessage,
    G: vtproto::Message + vtproto::json::JsonMessage,
{
    let fds = std::fs::read(concat!(env!("OUT_DIR"), "/bench.fds")).unwrap();
    let theirs_pool = prost_reflect::DescriptorPool::decode(&fds[..]).unwrap();
    let ours_pool = vtproto::reflect::DescriptorPool::decode(&fds).unwrap();
    let theirs_desc = theirs_pool.get_message_by_name(full_name).unwrap();
    let ours_desc = ours_pool.get_message_by_name(full_name).unwrap();
    let pbjson: Vec<J> = inputs.iter().map(|b| J::decode(&b[..]).unwrap()).collect();
    let theirs: Vec<prost_reflect::DynamicMessage> = inputs
        .iter()
        .map(|b| prost_reflect::DynamicMessage::decode(theirs_desc.clone(), &b[..]).unwrap())
        .collect();
    let ours: Vec<vtproto::reflect::DynamicMessage> = inputs
        .iter()
        .map(|b| vtproto::reflect::DynamicMessage::decode(ours_desc.clone(), b).unwrap())
        .collect();
    let tables: Vec<T> = inputs.iter().map(|b| T::decode(b).unwrap()).collect();
    let texts: Vec<String> = ours.iter().map(|m| m.to_json().unwrap()).collect();
    // Every side reads our JSON to the input's value (compared through its bytes' length:
    // maps may reorder).
    for ((text, b), p) in texts.iter().zip(inputs).zip(&pbjson) {
        let read: J = serde_json::from_str(text).unwrap();
        assert_eq!(read.encoded_len(), b.len());
        assert!(read == *p);
        let mut de = serde_json::Deserializer::from_str(text);
        let t = prost_reflect::DynamicMessage::deserialize(theirs_desc.clone(), &mut de).unwrap();
        assert_eq!(t.encode_to_vec().len(), b.len());
        let o = vtproto::reflect::DynamicMessage::from_json(ours_desc.clone(), text).unwrap();
        assert_eq!(o.encode_to_vec().len(), b.len());
        let t: T = vtproto::json::from_str(text).unwrap();
        assert_eq!(vtproto::Message::encode_to_vec(&t).len(), b.len());
    }
    for (t, text) in tables.iter().zip(&texts) {
        assert_eq!(vtproto::json::to_string(t).unwrap().len(), text.len());
    }
    for (peer, label) in [
        ("pbjson", "rust-vt tables/pbjson"),
        ("prost-reflect", "rust-vt tables/prost-reflect"),
    ] {
        let mut t = cycle(&tables);
        let (mut j, mut p) = (cycle(&pbjson), cycle(&theirs));
        labelled_row(
            filter,
            &format!("{name}_json_encode"),
            (peer, label),
            || {
                if peer == "pbjson" {
                    drop(black_box(serde_json::to_string(black_box(j())).unwrap()))
                } else {
                    drop(black_box(serde_json::to_string(black_box(p())).unwrap()))
                }
            },
            || drop(black_box(vtproto::json::to_string(black_box(t())).unwrap())),
        );
        decode_row::<J, T>(filter, name, (peer, label), &texts, &theirs_desc);
    }
    // The reference the tables are measured against: the same read by generated JSON code
    // (`features=json`, labels `rust-vt generated`).
    for (peer, label) in [
        ("pbjson", "rust-vt generated/pbjson"),
        ("prost-reflect", "rust-vt generated/prost-reflect"),
    ] {
        decode_row::<J, G>(filter, name, (peer, label), &texts, &theirs_desc);
    }
    let (mut j, mut v) = (cycle(&pbjson), cycle(&ours));
    labelled_row(
        filter,
        &format!("{name}_json_encode"),
        ("pbjson", "rust-vt dynamic/pbjson"),
        || drop(black_box(serde_json::to_string(black_box(j())).unwrap())),
        || drop(black_box(black_box(v()).to_json().unwrap())),
    );
    let (mut p, mut v) = (cycle(&theirs), cycle(&ours));
    labelled_row(
        filter,
        &format!("{name}_json_encode"),
        ("prost-reflect", "rust-vt dynamic/prost-reflect"),
        || drop(black_box(serde_json::to_string(black_box(p())).unwrap())),
        || drop(black_box(black_box(v()).to_json().unwrap())),
    );
    let (mut j, mut v) = (cycle(&texts), cycle(&texts));
    let od = ours_desc.clone();
    labelled_row(
        filter,
        &format!("{name}_json_decode"),
        ("pbjson", "rust-vt dynamic/pbjson"),
        || {
            drop(black_box(
                serde_json::from_str::<J>(black_box(j())).unwrap(),
            ))
        },
        || {
            let m = vtproto::reflect::DynamicMessage::from_json(od.clone(), black_box(v()));
            drop(black_box(m.unwrap()))
        },
    );
    let (mut p, mut v) = (cycle(&texts), cycle(&texts));
    let (td, od) = (theirs_desc.clone(), ours_desc.clone());
    labelled_row(
        filter,
        &format!("{name}_json_decode"),
        ("prost-reflect", "rust-vt dynamic/prost-reflect"),
        || {
            let mut de = serde_json::Deserializer::from_str(black_box(p()));
            let m = prost_reflect::DynamicMessage::deserialize(td.clone(), &mut de);
            drop(black_box(m.unwrap()))
        },
        || {
            let m = vtproto::reflect::DynamicMessage::from_json(od.clone(), black_box(v()));
            drop(black_box(m.unwrap()))
        },
    );
}

fn main() {
    use vt_benches::{pb, pj};
    let filter = std::env::args().nth(1).unwrap_or_default();
    let candidates: Vec<Vec<u8>> = [100, 2000]
        .iter()
        .map(|&n| vt_benches::candidates(n).encode_to_vec())
        .collect();
    use vt_benches::tb;
    rows::<
        pj::vt::candidates::CandidatesResponse,
        tb::vt::candidates::CandidatesResponse,
        pb::vt::candidates::CandidatesResponse,
    >(
        &filter,
        "candidates",
        "vt.candidates.CandidatesResponse",
        &candidates,
    );
    let mut rng = vt_benches::Rng::new(7);
    let events: Vec<Vec<u8>> = (0..64)
        .map(|_| vt_benches::event(&mut rng).encode_to_vec())
        .collect();
    rows::<pj::vt::event::Event, tb::vt::event::Event, pb::vt::event::Event>(
        &filter,
        "events_fresh64",
        "vt.event.Event",
        &events,
    );
    let batches = vec![vt_benches::event_batch(1000).encode_to_vec()];
    rows::<pj::vt::event::EventBatch, tb::vt::event::EventBatch, pb::vt::event::EventBatch>(
        &filter,
        "event_batch_1000",
        "vt.event.EventBatch",
        &batches,
    );
    let deep: Vec<Vec<u8>> = [10, 100]
        .iter()
        .map(|&d| vt_benches::deep(d).encode_to_vec())
        .collect();
    rows::<pj::vt::deep::Node, tb::vt::deep::Node, pb::vt::deep::Node>(
        &filter,
        "deep",
        "vt.deep.Node",
        &deep,
    );
    let otel: Vec<Vec<u8>> = (0..8)
        .map(|s| vt_benches::otel_request(4, 50, s).encode_to_vec())
        .collect();
    rows::<
        pj::opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest,
        tb::opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest,
        pb::opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest,
    >(
        &filter,
        "otel",
        "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
        &otel,
    );
}
