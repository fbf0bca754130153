//! Every encoding entry point produces the same bytes, whichever strategy runs underneath: the
//! per-thread scratch buffer (messages with collections), the exact `size` walk (flat messages,
//! messages over the scratch limit), or an in-place write into a caller's buffer.

use bytes::BytesMut;
use vt_tests::own::vt::candidates::{Candidate, CandidatesResponse};
use vt_tests::own::vt::deep::Node;
use vtproto::Message;

fn response(n: usize, value_len: usize) -> CandidatesResponse {
    let candidates = (0..n)
        .map(|i| {
            let mut c = Candidate {
                id: format!("c{i}"),
                ..Default::default()
            };
            c.meta_data.insert("rank".into(), i.to_string());
            c.meta_data.insert("blob".into(), "x".repeat(value_len));
            c
        })
        .collect();
    CandidatesResponse { candidates }
}

fn assert_all_paths_agree<M: Message + prost::Message + PartialEq + std::fmt::Debug>(msg: &M) {
    let to_vec = vtproto::Message::encode_to_vec(msg);
    assert_eq!(to_vec.len(), vtproto::Message::size(msg));
    assert_eq!(<M as prost::Message>::decode(&to_vec[..]).unwrap(), *msg);

    let mut appended = b"prefix".to_vec();
    msg.append_to_vec(&mut appended);
    assert_eq!(&appended[6..], &to_vec[..]);

    let mut in_place = BytesMut::new();
    msg.encode_to_bytes_mut(&mut in_place);
    assert_eq!(&in_place[..], &to_vec[..]);

    let mut after_prefix = BytesMut::from(&b"prefix"[..]);
    msg.encode_to_bytes_mut(&mut after_prefix);
    assert_eq!(&after_prefix[..6], b"prefix");
    assert_eq!(&after_prefix[6..], &to_vec[..]);

    let mut small_chunks = Vec::new();
    vtproto::Message::encode(msg, &mut small_chunks).unwrap();
    assert_eq!(small_chunks, to_vec);

    let delimited = vtproto::Message::encode_length_delimited_to_vec(msg);
    let mut rest = &delimited[..];
    assert_eq!(
        <M as vtproto::Message>::decode_length_delimited(&mut rest).unwrap(),
        *msg
    );
    assert!(rest.is_empty());
}

#[test]
fn scratch_and_exact_encodings_agree() {
    assert_all_paths_agree(&response(50, 10));
    assert_all_paths_agree(&CandidatesResponse::default());
    let mut deep = Node::default();
    for i in 0..50 {
        deep = Node {
            child: Some(Box::new(deep)),
            value: i,
            label: "n".into(),
        };
    }
    assert_all_paths_agree(&deep);
}

#[test]
fn messages_larger_than_the_scratch_buffer() {
    // 6 MiB, over the 4 MiB limit: the first encode outgrows the scratch buffer, the next ones
    // size exactly, and a small message afterwards goes back to the scratch buffer.
    let big = response(6000, 1024);
    let first = vtproto::Message::encode_to_vec(&big);
    assert!(first.len() > 6 << 20);
    for _ in 0..2 {
        assert_eq!(vtproto::Message::encode_to_vec(&big), first);
    }
    assert_eq!(
        <CandidatesResponse as prost::Message>::decode(&first[..]).unwrap(),
        big
    );
    let small = response(3, 3);
    assert_all_paths_agree(&small);
    assert_all_paths_agree(&small);
    assert_all_paths_agree(&big);
}

#[test]
fn encoding_inside_an_encoding_thread_is_independent() {
    // Two threads, each with its own scratch buffer, encoding different messages.
    let a = response(200, 5);
    let b = response(7, 300);
    let (ea, eb) = (a.encode_to_vec(), b.encode_to_vec());
    std::thread::scope(|s| {
        let ta = s.spawn(|| (0..50).all(|_| a.encode_to_vec() == ea));
        let tb = s.spawn(|| (0..50).all(|_| b.encode_to_vec() == eb));
        assert!(ta.join().unwrap() && tb.join().unwrap());
    });
}

#[global_allocator]
static ALLOC: alloc_stats::Tracking = alloc_stats::Tracking;

fn allocations(f: impl FnOnce()) -> usize {
    alloc_stats::measure(f).1.count
}

#[test]
fn one_allocation_per_encode_to_vec_and_none_into_reused_buffers() {
    let msg = response(500, 20);
    let flat = Node {
        label: "flat".into(),
        ..Default::default()
    };
    // Warm this thread's scratch buffer.
    let expected = msg.encode_to_vec();
    let mut out = Vec::new();
    assert_eq!(allocations(|| out = msg.encode_to_vec()), 1);
    assert_eq!(out, expected);
    assert_eq!(allocations(|| drop(flat.encode_to_vec())), 1);
    // A nested chain goes through the scratch buffer, not a size walk per level: still one.
    let mut deep = flat.clone();
    for _ in 0..100 {
        deep = Node {
            child: Some(Box::new(deep)),
            ..flat.clone()
        };
    }
    assert!(flat.size_walk_is_cheap() && !deep.size_walk_is_cheap());
    let deep_expected = prost::Message::encode_to_vec(&deep);
    assert_eq!(allocations(|| out = deep.encode_to_vec()), 1);
    assert_eq!(out, deep_expected);
    let delimited = || drop(vtproto::Message::encode_length_delimited_to_vec(&flat));
    assert_eq!(allocations(delimited), 1);
    assert_eq!(
        allocations(|| drop(vtproto::Message::encode_length_delimited_to_vec(&msg))),
        1
    );

    let mut reused = Vec::with_capacity(expected.len());
    assert_eq!(allocations(|| msg.append_to_vec(&mut reused)), 0);
    reused.clear();
    assert_eq!(allocations(|| flat.append_to_vec(&mut reused)), 0);

    // What tonic's codec does with its buffer: reserve, then write in place.
    let mut tonic_like = BytesMut::with_capacity(expected.len());
    assert_eq!(allocations(|| msg.encode_to_bytes_mut(&mut tonic_like)), 0);
    assert_eq!(&tonic_like[..], &expected[..]);
}

/// The per-thread scratch buffers are bounded together, not only per thread: 64 threads that
/// each encode a 1.4 MB message (and would each keep a buffer of 1.4 to 2.9 MB, as it grew)
/// keep at most 64 MiB between them, and give it back when they end.
#[test]
fn scratch_buffers_are_bounded_across_threads() {
    use std::sync::{Arc, Barrier};
    let msg = Arc::new(response(1_400, 1_000));
    let size = msg.encode_to_vec().len();
    assert!(size > 1 << 20 && size < 2 << 20, "{size}");
    let threads = 64;
    let (encoded, check) = (
        Arc::new(Barrier::new(threads + 1)),
        Arc::new(Barrier::new(threads + 1)),
    );
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (msg, encoded, check) = (msg.clone(), encoded.clone(), check.clone());
            std::thread::spawn(move || {
                let bytes = msg.encode_to_vec();
                encoded.wait();
                check.wait();
                bytes.len()
            })
        })
        .collect();
    encoded.wait();
    let retained = vtproto::scratch_bytes_retained();
    assert!(
        retained <= 64 << 20,
        "{} MiB kept by {threads} threads",
        retained >> 20
    );
    assert!(
        retained >= 4 << 20,
        "the buffers are kept at all: {retained}"
    );
    check.wait();
    for h in handles {
        assert_eq!(h.join().unwrap(), size);
    }
    assert!(
        vtproto::scratch_bytes_retained() < 4 << 20,
        "threads that ended gave theirs back"
    );
}
