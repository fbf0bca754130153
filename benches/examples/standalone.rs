//! `mode=standalone` against `mode=prost`, interleaved: our own structs (with their unknown
//! fields, empty here) against prost's structs with our impls, on the same workloads, encode
//! and decode. A ratio of 1.00 means no cost for the standalone structs.
//!
//! ```sh
//! cargo run --release -p vt-benches --example standalone            # every row
//! cargo run --release -p vt-benches --example standalone -- A_seed  # rows whose name contains it
//! ```

use std::hint::black_box;

use vt_benches::interleave::labelled_row;
use vt_benches::{candidates, candidates_seed, deep, event, event_batch, node20, sa, Rng};
use vtproto::Message;

const LABELS: (&str, &str) = ("mode=prost", "standalone/prost-mode");

/// The same message as prost-mode type `P` and standalone type `S` (decoded from `P`'s bytes).
fn pair<P: Message, S: Message>(p: P) -> (P, S) {
    let s = S::decode(&p.encode_to_vec()).expect("standalone decodes mode=prost's encoding");
    assert!(s.encode_to_vec().len() == p.encode_to_vec().len());
    (p, s)
}

fn encode<P: Message, S: Message>(filter: &str, name: &str, (p, s): &(P, S)) {
    labelled_row(
        filter,
        name,
        LABELS,
        || drop(black_box(black_box(p).encode_to_vec())),
        || drop(black_box(black_box(s).encode_to_vec())),
    );
}

fn decode<P: Message, S: Message>(filter: &str, name: &str, (p, _): &(P, S)) {
    let bytes = p.encode_to_vec();
    labelled_row(
        filter,
        name,
        LABELS,
        || drop(black_box(P::decode(black_box(&bytes)).unwrap())),
        || drop(black_box(S::decode(black_box(&bytes)).unwrap())),
    );
}

fn main() {
    use sa::vt::{candidates::CandidatesResponse, deep::Node, event::Event, event::EventBatch};
    let filter = std::env::args().nth(1).unwrap_or_default();
    let f = filter.as_str();
    for n in [100, 2000] {
        let a = pair::<_, CandidatesResponse>(candidates(n));
        encode(f, &format!("A_candidates_{n}_encode"), &a);
        decode(f, &format!("A_candidates_{n}_decode"), &a);
    }
    let seed = pair::<_, CandidatesResponse>(candidates_seed(2000));
    encode(f, "A_seed_2000_encode", &seed);
    decode(f, "A_seed_2000_decode", &seed);
    let one = pair::<_, Event>(event(&mut Rng::new(0xE7E47)));
    encode(f, "B_event_1_encode", &one);
    decode(f, "B_event_1_decode", &one);
    let batch = pair::<_, EventBatch>(event_batch(10_000));
    encode(f, "B_event_10000_encode", &batch);
    decode(f, "B_event_10000_decode", &batch);
    for depth in [1, 32, 100] {
        let c = pair::<_, Node>(deep(depth));
        encode(f, &format!("C_deep_{depth}_encode"), &c);
        decode(f, &format!("C_deep_{depth}_decode"), &c);
    }
    let node = pair::<_, Node>(node20());
    encode(f, "C_node20_encode", &node);
    decode(f, "C_node20_decode", &node);
}
