//! Interleaved ratios of rust-vt's time to prost's, robust to a noisy host.
//!
//! ```sh
//! cargo run --release -p vt-benches --example ratio            # every row
//! cargo run --release -p vt-benches --example ratio -- C_deep  # rows whose name contains it
//! ```
//!
//! Criterion (`cargo bench`) times each peer for seconds, one after the other; on a shared
//! virtual machine the host's load drifts in between and moves a ratio by several hundredths.
//! Here prost and rust-vt alternate in batches of about 2 ms, 41 times, and each row prints
//! the median of the 41 ratios with its quartiles: drift cancels in each pair. Rows ending in
//! `_fresh64` encode 64 different messages in turn instead of one message over and over; rows
//! ending in `_exact` force the exact strategy (a `size` walk, then the write in place).

use std::hint::black_box;

use vt_benches::interleave::{cycle, row};
use vt_benches::{candidates, deep, event_batch, pb, Rng};

/// An encode row: `encode_to_vec` by each library, of the messages of `msgs` in turn.
///
/// With 64 different messages the branch predictor cannot learn one message's sequence of
/// string lengths, as it does when the same message is encoded over and over (and as it cannot
/// in a service, which encodes new data on every call).
fn encode<M: prost::Message + vtproto::Message>(filter: &str, name: &str, msgs: &[M]) {
    let (mut p, mut v) = (cycle(msgs), cycle(msgs));
    row(
        filter,
        name,
        || drop(black_box(prost::Message::encode_to_vec(black_box(p())))),
        || drop(black_box(vtproto::Message::encode_to_vec(black_box(v())))),
    );
}

/// An exact-strategy row: `encode_to_bytes_mut` (one `size` walk, then a backward write in
/// place: what `Message::encode` into a `BufMut` does) against prost's `encode_to_vec`.
fn exact<M: prost::Message + vtproto::Message>(filter: &str, name: &str, msgs: &[M]) {
    let (mut p, mut v) = (cycle(msgs), cycle(msgs));
    row(
        filter,
        name,
        || drop(black_box(prost::Message::encode_to_vec(black_box(p())))),
        || {
            let mut buf = bytes::BytesMut::new();
            vtproto::Message::encode_to_bytes_mut(black_box(v()), &mut buf);
            drop(black_box(buf))
        },
    );
}

/// A decode row: prost's encodings of the messages of `msgs`, decoded in turn by prost and by
/// `vt` (one rust-vt decode of one input).
fn decode_row<M: prost::Message + Default>(
    filter: &str,
    name: &str,
    msgs: &[M],
    mut vt: impl FnMut(&[u8]),
) {
    let all: Vec<Vec<u8>> = msgs.iter().map(prost::Message::encode_to_vec).collect();
    let (mut p, mut v) = (cycle(&all), cycle(&all));
    row(
        filter,
        name,
        || {
            drop(black_box(
                <M as prost::Message>::decode(black_box(&p()[..])).unwrap(),
            ))
        },
        || vt(black_box(&v()[..])),
    );
}

/// The owned decode.
fn decode<M: prost::Message + vtproto::Message + Default>(filter: &str, name: &str, msgs: &[M]) {
    decode_row(filter, name, msgs, |bytes| {
        drop(black_box(<M as vtproto::Message>::decode(bytes).unwrap()))
    });
}

/// `decode_into` one value, of the messages of `msgs` in turn (same shape, different
/// contents: the steady state of a service).
fn reuse<M: prost::Message + vtproto::Message + Default>(filter: &str, name: &str, msgs: &[M]) {
    let mut value = M::default();
    decode_row(filter, name, msgs, |bytes| {
        vtproto::Message::decode_into(&mut value, bytes).unwrap();
        black_box(&value);
    });
}

/// A view decode (`view` decodes one input).
fn view<M: prost::Message + Default>(filter: &str, name: &str, msgs: &[M], view: fn(&[u8])) {
    decode_row(filter, name, msgs, view);
}

/// Decodes a view of a `$view` and keeps it from being optimized away.
macro_rules! view_of {
    ($view:ty) => {
        |bytes: &[u8]| {
            let view: $view = vtproto::MessageView::decode_view(bytes).unwrap();
            black_box(&view);
        }
    };
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let f = filter.as_str();
    for n in [100, 500, 2000, 5000] {
        encode(f, &format!("A_candidates_{n}_encode"), &[candidates(n)]);
    }
    let seed = vt_benches::candidates_seed(2000);
    encode(f, "A_seed_2000_encode", std::slice::from_ref(&seed));
    for n in [100, 500] {
        let all = candidates(64 * n).candidates;
        let msgs: Vec<_> = all
            .chunks(n)
            .map(|c| pb::vt::candidates::CandidatesResponse {
                candidates: c.to_vec(),
            })
            .collect();
        encode(f, &format!("A_candidates_{n}_encode_fresh64"), &msgs);
        decode(f, &format!("A_candidates_{n}_decode_fresh64"), &msgs);
    }
    let one = [vt_benches::event(&mut Rng::new(0xE7E47))];
    encode(f, "B_event_1_encode", &one);
    encode(f, "B_event_10000_encode", &[event_batch(10_000)]);
    for depth in [1, 8, 32, 64, 100] {
        encode(f, &format!("C_deep_{depth}_encode"), &[deep(depth)]);
    }
    encode(f, "C_node20_encode", &[vt_benches::node20()]);
    for n in [100, 2000] {
        exact(
            f,
            &format!("A_candidates_{n}_encode_exact"),
            &[candidates(n)],
        );
    }
    exact(f, "B_event_1_encode_exact", &one);
    exact(f, "B_event_10000_encode_exact", &[event_batch(10_000)]);
    for n in [100, 2000] {
        decode(f, &format!("A_candidates_{n}_decode"), &[candidates(n)]);
    }
    decode(f, "B_event_1_decode", &one);
    decode(f, "B_event_10000_decode", &[event_batch(10_000)]);
    use pb::vt::{candidates::CandidatesResponseView, deep::NodeView, event};
    view(
        f,
        "A_seed_2000_decode_view",
        std::slice::from_ref(&seed),
        view_of!(CandidatesResponseView),
    );
    reuse(f, "A_seed_2000_decode_into", &[seed]);
    for n in [100, 2000] {
        let name = format!("A_candidates_{n}_decode_view");
        view(f, &name, &[candidates(n)], view_of!(CandidatesResponseView));
    }
    for n in [100, 2000] {
        let all = candidates(8 * n).candidates;
        let msgs: Vec<_> = all
            .chunks(n)
            .map(|c| pb::vt::candidates::CandidatesResponse {
                candidates: c.to_vec(),
            })
            .collect();
        reuse(f, &format!("A_candidates_{n}_decode_into_fresh8"), &msgs);
    }
    reuse(f, "B_event_10000_decode_into", &[event_batch(10_000)]);
    reuse(f, "C_deep_100_decode_into", &[deep(100)]);
    view(f, "B_event_1_decode_view", &one, view_of!(event::EventView));
    let batch = [event_batch(10_000)];
    view(
        f,
        "B_event_10000_decode_view",
        &batch,
        view_of!(event::EventBatchView),
    );
    for depth in [1, 32, 100] {
        let name = format!("C_deep_{depth}_decode_view");
        view(f, &name, &[deep(depth)], view_of!(NodeView));
    }
}
