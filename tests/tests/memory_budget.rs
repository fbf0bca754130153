//! The memory budget of a binary decode (`Reader::with_memory_budget`; by default the input's
//! size plus `DEFAULT_MEMORY_BUDGET`, 32 MiB): inputs that turn a few bytes into a struct
//! each (repeated empty messages, repeated empty strings, map entries of defaults, packed
//! 1-byte varints, unknown fields) are refused with `MemoryBudget` before they allocate past
//! it, on every binary decode path (owned in both modes, `merge`, `decode_into`, views,
//! `DynamicMessage`), and
//! the bytes allocated stay within four times the budget plus a constant (what is charged is
//! what the values hold; a `Vec` holds up to twice that while it grows, and the bytes counted
//! here are every request, each reallocation's new size included, a geometric series that
//! sums to twice the last); inputs that fit decode as before.

use vt_tests::own::vt::test::proto3 as prost_mode;
use vt_tests::own_standalone::vt::test::proto3 as standalone;
use vtproto::{DecodeError, DecodeErrorKind, Message, MessageView, Reader};

#[global_allocator]
static A: alloc_stats::Tracking = alloc_stats::Tracking;

/// `n` records of `key` with an empty length-delimited value.
fn empty_records(key: &[u8], n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * (key.len() + 1));
    for _ in 0..n {
        out.extend_from_slice(key);
        out.push(0);
    }
    out
}

/// The amplifying inputs, by name: each fits a budget of `small` bytes' worth of elements
/// many times over.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let n = 100_000;
    let mut packed = vec![0x2a]; // Repeateds.r_int32 = 5, packed
    let body = vec![1u8; n];
    let mut len = body.len();
    while len >= 0x80 {
        packed.push((len as u8) | 0x80);
        len >>= 7;
    }
    packed.push(len as u8);
    packed.extend_from_slice(&body);
    let mut unknown = Vec::new();
    for _ in 0..n {
        unknown.extend_from_slice(&[0xf8, 0xff, 0x03, 0x00]); // field 8191, varint 0
    }
    vec![
        // Repeateds.r_message = 17: an empty Scalars each (3 bytes).
        ("repeated empty messages", empty_records(&[0x8a, 0x01], n)),
        // Repeateds.r_string = 9: an empty string each (2 bytes).
        ("repeated empty strings", empty_records(&[0x4a], n)),
        ("packed 1-byte varints", packed),
        ("unknown fields", unknown),
    ]
}

fn over_budget(e: &DecodeError, budget: usize) -> bool {
    *e.kind() == DecodeErrorKind::MemoryBudget { budget }
}

/// Decodes `input` with `budget` through `decode`, checking the verdict and the bytes
/// allocated.
fn check(
    path: &str,
    input: &[u8],
    budget: usize,
    decode: impl FnOnce(Reader<'_>) -> Result<(), DecodeError>,
) {
    let (result, stats) =
        alloc_stats::measure(|| decode(Reader::new(input).with_memory_budget(budget)));
    match result {
        Err(e) => assert!(over_budget(&e, budget), "{path}: {e}"),
        Ok(()) => panic!(
            "{path}: {} bytes decoded within a budget of {budget}",
            input.len()
        ),
    }
    // A `Vec` grows to twice what it holds, and its reallocations sum to twice that; the
    // error and the reader's own work are the rest.
    assert!(
        stats.bytes <= 4 * budget + 64 * 1024,
        "{path}: {} bytes allocated under a budget of {budget}",
        stats.bytes
    );
}

#[test]
fn amplifying_inputs_stop_at_the_budget_on_every_path() {
    let budget = 256 * 1024;
    let pool = vtproto::reflect::DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap();
    for (name, input) in inputs() {
        let unknown = name == "unknown fields";
        if !unknown {
            // prost's structs keep no unknown fields: nothing to charge.
            check(&format!("{name}, mode=prost"), &input, budget, |mut r| {
                prost_mode::Repeateds::default().merge(&mut r)
            });
            check(&format!("{name}, view"), &input, budget, |mut r| {
                let mut v = standalone::RepeatedsView::default();
                v.merge(&mut r)
            });
        }
        check(
            &format!("{name}, mode=standalone"),
            &input,
            budget,
            |mut r| standalone::Repeateds::default().merge(&mut r),
        );
        let desc = pool
            .get_message_by_name("vt.test.proto3.Repeateds")
            .unwrap();
        check(
            &format!("{name}, DynamicMessage"),
            &input,
            budget,
            |mut r| vtproto::reflect::DynamicMessage::new(desc).merge(&mut r),
        );
        check(&format!("{name}, decode_into"), &input, budget, |mut r| {
            let mut reused = standalone::Repeateds::default();
            reused.merge_replace(&mut r)
        });
        // The same input under no budget decodes, and allocates more than the budget.
        let (ok, stats) = alloc_stats::measure(|| {
            standalone::Repeateds::default()
                .merge(&mut Reader::new(&input).with_memory_budget(usize::MAX))
        });
        ok.unwrap();
        assert!(stats.bytes > budget, "{name}: {} bytes", stats.bytes);
    }
}

#[test]
fn the_default_budget_stops_a_4_mib_amplification() {
    // 1.4 million empty Scalars in 4 MiB: hundreds of MiB of structs without a budget.
    let input = empty_records(&[0x8a, 0x01], (4 << 20) / 3);
    let budget = input.len() + vtproto::DEFAULT_MEMORY_BUDGET;
    let (result, stats) = alloc_stats::measure(|| standalone::Repeateds::decode(&input));
    assert!(over_budget(&result.unwrap_err(), budget));
    assert!(
        stats.bytes <= 4 * budget + (1 << 20),
        "{} bytes",
        stats.bytes
    );
    let err = prost_mode::Repeateds::decode(&input).unwrap_err();
    assert!(over_budget(&err, budget), "{err}");
    assert!(err.to_string().contains("memory budget"), "{err}");
}

#[test]
fn values_as_large_as_their_encoding_fit_the_default_budget() {
    // A 48 MiB bytes value: past 32 MiB, but no larger than the input that carries it.
    let big = standalone::Repeateds {
        r_bytes: vec![vec![7u8; 48 << 20]],
        ..Default::default()
    };
    let input = big.encode_to_vec();
    assert_eq!(standalone::Repeateds::decode(&input).unwrap(), big);
    // And ordinary messages, in every mode and path.
    let small = standalone::Repeateds {
        r_message: vec![Default::default(); 100],
        r_string: vec!["a".into(); 100],
        r_int32: (0..1000).collect(),
        ..Default::default()
    };
    let input = small.encode_to_vec();
    assert_eq!(standalone::Repeateds::decode(&input).unwrap(), small);
    prost_mode::Repeateds::decode(&input).unwrap();
    standalone::RepeatedsView::decode_view(&input).unwrap();
    let mut reused = standalone::Repeateds::default();
    reused.decode_into(&input).unwrap();
    assert_eq!(reused, small);
}
