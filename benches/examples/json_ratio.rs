//! Interleaved ratios of rust-vt's ProtoJSON time to pbjson's (prost + pbjson + serde_json),
//! robust to a noisy host (see `ratio.rs`: the two sides alternate in batches of about 2 ms,
//! and each row prints the median ratio with its quartiles).
//!
//! ```sh
//! cargo run --release -p vt-benches --example json_ratio              # every row
//! cargo run --release -p vt-benches --example json_ratio -- candidates  # rows containing it
//! ```
//!
//! Rows with `_serde_` time our serde impls (`features=..+json+serde`) through `serde_json`
//! instead of the direct path. Rows with `_fresh64` go through 64 different messages in turn,
//! so the branch predictor cannot learn one message's sequence of string lengths and keys.
//! Rows with `_decode_floor` time `clone` of the message against pbjson's reading: the
//! allocations any reader into prost's structs makes, without parsing; rows with
//! `_encode_floor` time a copy of the output text into a new `String` against pbjson's
//! writing: what any writer returning a new `String` does, without formatting.

use std::hint::black_box;

use vt_benches::interleave::{cycle, labelled_row};
use vt_benches::{pb, pj, Rng};

const LABELS: (&str, &str) = ("pbjson", "rust-vt/pbjson");

/// Encode and decode rows for the messages of `msgs` (each side's copies decoded from prost's
/// bytes, so the data and the order of its allocations are the same).
fn rows<P, J>(filter: &str, name: &str, msgs: &[P])
where
    P: vtproto::json::JsonMessage
        + prost::Message
        + Default
        + Clone
        + PartialEq
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned,
    J: prost::Message + Default + serde::Serialize + serde::de::DeserializeOwned,
{
    let theirs: Vec<J> = msgs
        .iter()
        .map(|m| J::decode(&prost::Message::encode_to_vec(m)[..]).unwrap())
        .collect();
    // Ours decoded from the same bytes: both sides' messages then made their allocations in
    // the same order (the workload generators build theirs field by field, map by map, which
    // leaves the strings of a map elsewhere on the heap than a decoder does).
    let msgs: Vec<P> = msgs
        .iter()
        .map(|m| <P as prost::Message>::decode(&prost::Message::encode_to_vec(m)[..]).unwrap())
        .collect();
    let msgs = &msgs[..];
    let texts: Vec<String> = msgs
        .iter()
        .map(|m| vtproto::json::to_string(m).unwrap())
        .collect();
    for (m, text) in msgs.iter().zip(&texts) {
        // pbjson reads our text to the same value (compared through prost's bytes).
        let read: J = serde_json::from_str(text).unwrap();
        assert!(<P as prost::Message>::decode(&read.encode_to_vec()[..]).unwrap() == *m);
        assert!(vtproto::json::from_str::<P>(text).unwrap() == *m);
        assert!(serde_json::from_str::<P>(text).unwrap() == *m);
    }
    let (mut p, mut v) = (cycle(&theirs), cycle(msgs));
    labelled_row(
        filter,
        &format!("{name}_encode"),
        LABELS,
        || drop(black_box(serde_json::to_string(black_box(p())).unwrap())),
        || drop(black_box(vtproto::json::to_string(black_box(v())).unwrap())),
    );
    // What no writer returning a new `String` can go below: allocating the output, exactly
    // sized, and copying its bytes in, against pbjson's writing.
    let (mut p, mut v) = (cycle(&theirs), cycle(&texts));
    labelled_row(
        filter,
        &format!("{name}_encode_floor"),
        ("pbjson", "copy/pbjson"),
        || drop(black_box(serde_json::to_string(black_box(p())).unwrap())),
        || drop(black_box(String::from(black_box(v().as_str())))),
    );
    let (mut p, mut v) = (cycle(&texts), cycle(&texts));
    labelled_row(
        filter,
        &format!("{name}_decode"),
        LABELS,
        || {
            drop(black_box(
                serde_json::from_str::<J>(black_box(p())).unwrap(),
            ))
        },
        || {
            drop(black_box(
                vtproto::json::from_str::<P>(black_box(v())).unwrap(),
            ))
        },
    );
    // What no reader can go below: `clone` makes the same allocations as reading the message
    // (every string, box, vector and map table, copied, map keys not even hashed), against
    // pbjson's reading. Where this reads above 0.6, so must every decoder into these structs.
    let (mut p, mut v) = (cycle(&texts), cycle(msgs));
    labelled_row(
        filter,
        &format!("{name}_decode_floor"),
        ("pbjson", "clone/pbjson"),
        || {
            drop(black_box(
                serde_json::from_str::<J>(black_box(p())).unwrap(),
            ))
        },
        || drop(black_box(black_box(v()).clone())),
    );
    // Our serde impls (`features=..+json+serde`) through serde_json, as pbjson's are called.
    let (mut p, mut v) = (cycle(&theirs), cycle(msgs));
    labelled_row(
        filter,
        &format!("{name}_serde_encode"),
        LABELS,
        || drop(black_box(serde_json::to_string(black_box(p())).unwrap())),
        || drop(black_box(serde_json::to_string(black_box(v())).unwrap())),
    );
    let (mut p, mut v) = (cycle(&texts), cycle(&texts));
    labelled_row(
        filter,
        &format!("{name}_serde_decode"),
        LABELS,
        || {
            drop(black_box(
                serde_json::from_str::<J>(black_box(p())).unwrap(),
            ))
        },
        || {
            drop(black_box(
                serde_json::from_str::<P>(black_box(v())).unwrap(),
            ))
        },
    );
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let f = filter.as_str();
    use pb::vt::{candidates::CandidatesResponse, event::EventBatch};
    use pj::vt::{candidates as pjc, deep as pjd, event as pje};
    for n in [100, 2000] {
        let one = [vt_benches::candidates(n)];
        rows::<_, pjc::CandidatesResponse>(f, &format!("A_candidates_{n}"), &one);
    }
    // The candidates' floor with their maps built as any reader must build them: every key
    // hashed into prost's `HashMap`, the table sized once (a reader knows the size only by
    // reading the entries before storing them).
    for n in [100, 2000] {
        let msg = vt_benches::candidates(n);
        let text = vtproto::json::to_string(&msg).unwrap();
        let pbjson = || {
            drop(black_box(
                serde_json::from_str::<pjc::CandidatesResponse>(black_box(&text)).unwrap(),
            ))
        };
        labelled_row(
            f,
            &format!("A_candidates_{n}_decode_floor_insert"),
            ("pbjson", "rebuild/pbjson"),
            pbjson,
            || {
                let candidates = black_box(&msg)
                    .candidates
                    .iter()
                    .map(|c| pb::vt::candidates::Candidate {
                        id: c.id.clone(),
                        meta_data: c
                            .meta_data
                            .iter()
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                    })
                    .collect();
                drop(black_box(CandidatesResponse { candidates }))
            },
        );
        // The same with each map grown from empty, entry by entry, as a reader that cannot
        // count the entries first builds it: what sizing the table once would save.
        labelled_row(
            f,
            &format!("A_candidates_{n}_decode_floor_grow"),
            ("pbjson", "grow/pbjson"),
            pbjson,
            || {
                let candidates = black_box(&msg)
                    .candidates
                    .iter()
                    .map(|c| {
                        let mut meta_data = std::collections::HashMap::new();
                        for (k, v) in &c.meta_data {
                            meta_data.insert(k.clone(), v.clone());
                        }
                        pb::vt::candidates::Candidate {
                            id: c.id.clone(),
                            meta_data,
                        }
                    })
                    .collect();
                drop(black_box(CandidatesResponse { candidates }))
            },
        );
    }
    let all = vt_benches::candidates(64 * 100).candidates;
    let msgs: Vec<_> = all
        .chunks(100)
        .map(|c| CandidatesResponse {
            candidates: c.to_vec(),
        })
        .collect();
    rows::<_, pjc::CandidatesResponse>(f, "A_candidates_100_fresh64", &msgs);
    let mut rng = Rng::new(7);
    rows::<_, pje::Event>(f, "B_event_1", &[vt_benches::event(&mut rng)]);
    let events: Vec<_> = (0..64).map(|_| vt_benches::event(&mut rng)).collect();
    rows::<_, pje::Event>(f, "B_event_1_fresh64", &events);
    rows::<_, pje::EventBatch>(f, "B_event_1000", &[vt_benches::event_batch(1000)]);
    let batches: Vec<EventBatch> = vt_benches::event_batch(64 * 50)
        .events
        .chunks(50)
        .map(|c| EventBatch { events: c.to_vec() })
        .collect();
    rows::<_, pje::EventBatch>(f, "B_event_50_fresh64", &batches);
    rows::<_, pjd::Node>(f, "C_node20", &[vt_benches::node20()]);
    for depth in [1, 32, 100] {
        rows::<_, pjd::Node>(f, &format!("C_deep_{depth}"), &[vt_benches::deep(depth)]);
    }
    use pj::opentelemetry::proto::collector::trace::v1 as pjo;
    for (resources, spans) in [(1, 10), (5, 100)] {
        let request = [vt_benches::otel_request(resources, spans, 11)];
        let name = format!("D_otel_{resources}x{spans}");
        rows::<_, pjo::ExportTraceServiceRequest>(f, &name, &request);
    }
    let requests: Vec<_> = (0..64)
        .map(|seed| vt_benches::otel_request(1, 10, seed))
        .collect();
    rows::<_, pjo::ExportTraceServiceRequest>(f, "D_otel_1x10_fresh64", &requests);
    use pj::benchmarks::{proto2 as pj2, proto3 as pj3};
    rows::<pb::benchmarks::proto2::GoogleMessage1, pj2::GoogleMessage1>(
        f,
        "E_google_message1_proto2",
        &vt_benches::google_messages("google_message1_proto2"),
    );
    rows::<pb::benchmarks::proto3::GoogleMessage1, pj3::GoogleMessage1>(
        f,
        "E_google_message1_proto3",
        &vt_benches::google_messages("google_message1_proto3"),
    );
    rows::<pb::benchmarks::proto2::GoogleMessage2, pj2::GoogleMessage2>(
        f,
        "E_google_message2",
        &vt_benches::google_messages("google_message2"),
    );
}
