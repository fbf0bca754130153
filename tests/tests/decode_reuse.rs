//! Allocations of the read paths, counted: `decode_into` allocates nothing in the steady state
//! (the same value re-decoding fresh inputs of the same shape), and a view allocates once per
//! collection, never per string or bytes field. The values themselves are checked against
//! prost by the differential test.

use vt_tests::own::vt::candidates::{
    Candidate, CandidateView, CandidatesResponse, CandidatesResponseView,
};
use vt_tests::own::vt::deep::{Node, NodeView};
use vt_tests::own::vt::event::{Event, EventBatch, EventBatchView};
use vtproto::{Message, MessageView};

#[global_allocator]
static ALLOC: alloc_stats::Tracking = alloc_stats::Tracking;

fn allocations(f: impl FnOnce()) -> usize {
    alloc_stats::measure(f).1.count
}

/// A response of `n` candidates with the six metadata keys of the workload; `salt` changes
/// every value (and some lengths), not the shape.
fn candidates(n: usize, salt: u64) -> CandidatesResponse {
    let candidates = (0..n as u64)
        .map(|i| {
            let x = i.wrapping_mul(0x9E37_79B9).wrapping_add(salt);
            let mut c = Candidate {
                id: format!("{x:036}"),
                ..Default::default()
            };
            let meta = [
                ("relevance_score", format!("0.{:07}", x % 10_000_000)),
                ("cursor", format!("{:062x}", x)),
                ("catalog_id", format!("{:036}", x ^ salt)),
                ("product_id", format!("sku-{:020}", x)),
                (
                    "source",
                    ["search", "ads", "recs"][(x % 3) as usize].to_string(),
                ),
                ("rank", (x % 1000).to_string()),
            ];
            for (k, v) in meta {
                c.meta_data.insert(k.to_string(), v);
            }
            c
        })
        .collect();
    CandidatesResponse { candidates }
}

fn events(n: usize, salt: u64) -> EventBatch {
    let events = (0..n as u64)
        .map(|i| Event {
            id: format!("event-{:08}", i + salt),
            ts: (i * 1000 + salt) as i64,
            region: ["eu-west-1", "us-east-2"][(i % 2) as usize].into(),
            readings: vec![i as f64, salt as f64, 0.5, -1.0],
            attrs: [("host", "h1"), ("zone", "b"), ("tier", "gold")]
                .iter()
                .map(|(k, v)| (k.to_string(), format!("{v}-{}", (i + salt) % 7)))
                .collect(),
        })
        .collect();
    EventBatch { events }
}

fn deep(depth: usize, salt: i64) -> Node {
    let mut node = Node {
        value: salt,
        label: format!("leaf-{salt}"),
        child: None,
    };
    for level in 1..depth {
        node = Node {
            value: level as i64 + salt,
            label: format!("level-{level}"),
            child: Some(Box::new(node)),
        };
    }
    node
}

/// Decodes `inputs` in turn into one value, twice around to reach the steady state, then
/// counts the allocations of a third round; checks each decode against a fresh one.
fn steady_state<M: Message + PartialEq + std::fmt::Debug>(inputs: &[Vec<u8>]) -> usize {
    let mut value = M::default();
    for _ in 0..2 {
        for input in inputs {
            value.decode_into(input).unwrap();
            assert_eq!(value, M::decode(input).unwrap());
        }
    }
    allocations(|| {
        for input in inputs {
            value.decode_into(input).unwrap();
        }
    })
}

#[test]
fn decode_into_allocates_nothing_in_the_steady_state() {
    let a: Vec<Vec<u8>> = (0..3).map(|s| candidates(500, s).encode_to_vec()).collect();
    assert_eq!(steady_state::<CandidatesResponse>(&a), 0, "candidates");
    let b: Vec<Vec<u8>> = (0..3).map(|s| events(300, s).encode_to_vec()).collect();
    assert_eq!(steady_state::<EventBatch>(&b), 0, "events");
    let c: Vec<Vec<u8>> = (0..3).map(|s| deep(100, s).encode_to_vec()).collect();
    assert_eq!(steady_state::<Node>(&c), 0, "deep");
}

#[test]
fn decode_into_shrinks_and_grows_with_the_input() {
    let mut value = CandidatesResponse::default();
    for n in [100, 3, 0, 250, 1] {
        let input = candidates(n, n as u64).encode_to_vec();
        value.decode_into(&input).unwrap();
        assert_eq!(value.candidates.len(), n);
        assert_eq!(value, CandidatesResponse::decode(&input).unwrap());
    }
    // A map whose keys change between inputs is rebuilt, not patched.
    let mut c = Candidate::decode(&candidates(1, 0).candidates[0].encode_to_vec()).unwrap();
    let other = Candidate {
        id: "x".into(),
        meta_data: [("only".to_string(), "one".to_string())].into(),
    };
    c.decode_into(&other.encode_to_vec()).unwrap();
    assert_eq!(c, other);
}

#[test]
fn views_allocate_per_collection_not_per_string() {
    let a = candidates(200, 1).encode_to_vec();
    // The list of candidates grows by doubling from 4 (7 allocations up to 256); each
    // candidate's metadata list grows twice (4, then 8 entries); no string is copied.
    let n = allocations(|| {
        let view = CandidatesResponseView::decode_view(&a).unwrap();
        assert_eq!(view.candidates.len(), 200);
    });
    assert_eq!(n, 7 + 2 * 200);
    let one = candidates(1, 1).candidates[0].encode_to_vec();
    let n = allocations(|| {
        let view = CandidateView::decode_view(&one).unwrap();
        assert_eq!(view.meta_data.len(), 6);
    });
    assert_eq!(n, 2);
    let b = events(10, 1).encode_to_vec();
    let n = allocations(|| drop(EventBatchView::decode_view(&b).unwrap()));
    assert!(n <= 4 + 10 * 3, "{n}");
    let c = deep(50, 1).encode_to_vec();
    let n = allocations(|| drop(NodeView::decode_view(&c).unwrap()));
    assert_eq!(n, 49, "one box per nested level");
}

/// A key that changes mid-map, in a `BTreeMap` (prost-types' `Struct`): removing an entry moves
/// the others, which once made `decode_into` drop a key it had just overwritten.
#[test]
fn decode_into_a_btree_map_whose_keys_change() {
    use prost_types::{value::Kind, Struct, Value};
    let strukt = |keys: &[&str]| Struct {
        fields: keys
            .iter()
            .map(|k| {
                (
                    k.to_string(),
                    Value {
                        kind: Some(Kind::BoolValue(true)),
                    },
                )
            })
            .collect(),
    };
    let mut value = Struct::default();
    for keys in [
        &["", "k1", "k2"][..],
        &["", "k1", "k2"],
        &["", "k1", "k3"],
        &["k1"],
        &["a", "b", "c", "k1"],
    ] {
        let input = strukt(keys).encode_to_vec();
        value.decode_into(&input).unwrap();
        assert_eq!(value, Struct::decode(&input).unwrap(), "{keys:?}");
    }
}

/// An owned view keeps its input alive: it can move to another thread (and outlive the
/// caller's handle on the bytes) and still reads the same strings, without copying them.
#[test]
fn owned_views_own_their_input() {
    use vt_tests::own::vt::candidates::CandidatesResponseOwnedView;
    let message = candidates(50, 7);
    let bytes = bytes::Bytes::from(message.encode_to_vec());
    let owned = CandidatesResponseOwnedView::decode(bytes.clone()).unwrap();
    let copy = owned.clone();
    drop(bytes);
    let from_thread = std::thread::spawn(move || {
        let view = owned.get();
        let first = view.candidates[0].id.to_string();
        (first, owned.to_owned_message())
    })
    .join()
    .unwrap();
    assert_eq!(from_thread.0, message.candidates[0].id);
    assert_eq!(from_thread.1, message);
    let view = copy.get();
    let input = copy.bytes().as_ptr_range();
    assert!(
        input.contains(&view.candidates[1].id.as_ptr()),
        "the id borrows the input"
    );
    assert!(CandidatesResponseOwnedView::decode(bytes::Bytes::from_static(&[0x0a, 0x05])).is_err());
}

/// A group closed by an end key written as an overlong varint: `decode_into` finds where the
/// group ends by reading keys, as the plain decode does, not by assuming the key's length.
#[test]
fn decode_into_a_group_closed_by_an_overlong_end_key() {
    use vt_tests::own::vt::test::proto2::Groups;
    // Single { a: 5 } (end key 0x0c as 8c 00), Multi [{ c: 1 }] (end key 0x24 as a4 00), after 7.
    let input = [
        0x0b, 0x10, 0x05, 0x8c, 0x00, 0x23, 0x28, 0x01, 0xa4, 0x00, 0x50, 0x07,
    ];
    let fresh = Groups::decode(&input).unwrap();
    assert_eq!(fresh.after, Some(7));
    let mut reused = Groups::default();
    for _ in 0..2 {
        reused.decode_into(&input).unwrap();
        assert_eq!(reused, fresh);
    }
}

/// Maps of values that hold nothing: `map<string, Empty>` (a field-less struct, zero-sized in
/// `mode=prost`) and `map<string, google.protobuf.Empty>` (prost's `()`), as `HashMap`s and
/// `BTreeMap`s, also inside another map's values, beside the other fields of such values. A
/// B-tree's zero-sized values share one address, so the in-place map patching once took every
/// old key for one the input named: the keys of the previous input leaked into the next value.
/// Both modes, every order of the inputs.
#[test]
fn decode_into_drops_old_entries_of_maps_of_empty_values() {
    use std::collections::HashMap;
    use vt_tests::own::vt::test::proto3::{empty_values::Choice, Empty, EmptyValues};
    use vt_tests::own_standalone::vt::test::proto3 as standalone;
    let value = |keys: &[&str], inner: &[&str]| {
        let own: HashMap<String, Empty> = keys.iter().map(|k| (k.to_string(), Empty {})).collect();
        let wkt: HashMap<String, ()> = keys.iter().map(|k| (k.to_string(), ())).collect();
        let nested = keys
            .iter()
            .map(|k| {
                let inner = EmptyValues {
                    own_empty: inner.iter().map(|k| (k.to_string(), Empty {})).collect(),
                    wkt_empty: inner.iter().map(|k| (k.to_string(), ())).collect(),
                    own_empty_ordered: inner.iter().map(|k| (k.to_string(), Empty {})).collect(),
                    wkt_empty_ordered: inner.iter().map(|k| (k.to_string(), ())).collect(),
                    ..Default::default()
                };
                (k.to_string(), inner)
            })
            .collect();
        EmptyValues {
            own_empty_ordered: own.clone().into_iter().collect(),
            wkt_empty_ordered: wkt.clone().into_iter().collect(),
            own_empty: own,
            wkt_empty: wkt,
            nested,
            by_number: (0..keys.len() as i32).map(|i| (i, Empty {})).collect(),
            list: vec![Empty {}; keys.len()],
            single: (!keys.is_empty()).then_some(Empty {}),
            choice: match keys.len() % 3 {
                0 => None,
                1 => Some(Choice::Own(Empty {})),
                _ => Some(Choice::Wkt(())),
            },
        }
    };
    let inputs: Vec<Vec<u8>> = [
        value(&["a", "b", "c"], &["x", "y"]),
        value(&["a"], &["x"]),
        value(&["a", "b"], &[]),
        value(&[], &[]),
        value(&["b", "a", "c", "d"], &["y"]),
        value(&["a", "b", "c"], &["x", "y"]),
    ]
    .iter()
    .map(|v| v.encode_to_vec())
    .collect();
    let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    vt_tests::properties::check_reuse::<EmptyValues>(&refs);
    vt_tests::properties::check_reuse::<standalone::EmptyValues>(&refs);
    // The report's case, spelled out: a subset of the keys, then none.
    let mut reused = EmptyValues::default();
    for input in [&inputs[0], &inputs[1], &inputs[3]] {
        reused.decode_into(input).unwrap();
        assert_eq!(reused, EmptyValues::decode(input).unwrap());
    }
    assert!(reused.own_empty_ordered.is_empty() && reused.wkt_empty_ordered.is_empty());
}

/// The thinned inputs the reuse checks pair with each input drop records at every level: whole
/// elements, and entries inside an element kept.
#[test]
fn thinning_drops_records_at_every_level() {
    let input = candidates(3, 1).encode_to_vec();
    let (mut fewer, mut inner) = (false, false);
    for salt in 0..200 {
        let Ok(thinned) = CandidatesResponse::decode(&vt_tests::properties::thin(&input, salt))
        else {
            continue;
        };
        fewer |= thinned.candidates.len() < 3;
        inner |= thinned.candidates.len() == 3
            && thinned.candidates.iter().any(|c| c.meta_data.len() < 6);
    }
    assert!(
        fewer && inner,
        "fewer elements: {fewer}, fewer entries inside: {inner}"
    );
}

/// What a value reused by `decode_into` holds after a large input then a small one, against
/// the small one decoded fresh: at most twice that plus what a collection or string keeps
/// whatever it holds (`RETAIN_LARGE`, 64 KiB; these inputs leave little below it), where it
/// held the large input's capacity before.
fn retains_little<M: Message + PartialEq + std::fmt::Debug>(large: &[u8], small: &[u8]) {
    let (reused, stats) = alloc_stats::measure(|| {
        let mut value = M::default();
        value.decode_into(large).unwrap();
        value.decode_into(small).unwrap();
        value
    });
    assert_eq!(reused, M::decode(small).unwrap());
    let (fresh, fresh_stats) = alloc_stats::measure(|| M::decode(small).unwrap());
    drop(fresh);
    assert!(
        stats.held <= 2 * fresh_stats.held + 64 * 1024,
        "{}: {} bytes held after a {}-byte input then a {}-byte one, {} decoded fresh",
        M::NAME,
        stats.held,
        large.len(),
        small.len(),
        fresh_stats.held
    );
    drop(reused);
}

#[test]
fn decode_into_gives_back_what_a_large_input_grew() {
    use vt_tests::own::vt::test::proto3::{Maps, Repeateds, Scalars};
    retains_little::<CandidatesResponse>(
        &candidates(20_000, 1).encode_to_vec(),
        &candidates(3, 2).encode_to_vec(),
    );
    retains_little::<EventBatch>(
        &events(20_000, 1).encode_to_vec(),
        &events(2, 2).encode_to_vec(),
    );
    // One large string, then a short one and none; repeated scalars, strings and messages.
    let large = Repeateds {
        r_int64: (0..200_000).collect(),
        r_string: vec!["x".repeat(1 << 20), "y".repeat(300)],
        r_bytes: vec![vec![1; 1 << 20]; 2],
        r_message: vec![
            Scalars {
                f_string: "z".repeat(1 << 20),
                ..Default::default()
            };
            3
        ],
        ..Default::default()
    };
    let small = Repeateds {
        r_int64: vec![1, 2],
        r_string: vec!["a".into()],
        r_message: vec![Scalars::default()],
        ..Default::default()
    };
    retains_little::<Repeateds>(&large.encode_to_vec(), &small.encode_to_vec());
    retains_little::<Repeateds>(&large.encode_to_vec(), &[]);
    let large = Maps {
        m_int32_int32: (0..100_000).map(|i| (i, i)).collect(),
        m_string_string: (0..50_000).map(|i| (i.to_string(), "v".into())).collect(),
        ..Default::default()
    };
    let small = Maps {
        m_int32_int32: [(1, 1)].into(),
        m_string_string: [("k".to_string(), "v".to_string())].into(),
        ..Default::default()
    };
    retains_little::<Maps>(&large.encode_to_vec(), &small.encode_to_vec());
}
