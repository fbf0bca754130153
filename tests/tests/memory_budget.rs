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

#[test]
fn unknown_field_caps_and_the_input_size_are_typed_errors() {
    use vtproto::DecodeLimits;
    // 1000 unknown fields of 4 bytes each (field 8191, varint 0).
    let input = [0xf8, 0xff, 0x03, 0x00].repeat(1000);
    let pool = vtproto::reflect::DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap();
    let desc = pool
        .get_message_by_name("vt.test.proto3.Repeateds")
        .unwrap();
    let decode = |limits: &DecodeLimits| {
        let owned = standalone::Repeateds::decode_with_limits(&input, limits).map(drop);
        let dynamic = vtproto::reflect::DynamicMessage::new(desc.clone())
            .merge(&mut Reader::new(&input).with_limits(limits));
        [owned, dynamic]
    };
    for result in decode(&DecodeLimits::default()) {
        result.unwrap();
    }
    // A view keeps no unknown fields: nothing to cap.
    let tight = DecodeLimits {
        max_unknown_fields: 1,
        ..DecodeLimits::default()
    };
    standalone::RepeatedsView::decode_view_with_limits(&input, &tight).unwrap();
    for (fields, bytes) in [(999, usize::MAX), (usize::MAX, 3999), (10, 10)] {
        let limits = DecodeLimits {
            max_unknown_fields: fields,
            max_unknown_bytes: bytes,
            ..DecodeLimits::default()
        };
        for result in decode(&limits) {
            let e = result.unwrap_err();
            assert_eq!(
                *e.kind(),
                DecodeErrorKind::UnknownFieldLimit {
                    max_fields: fields,
                    max_bytes: bytes
                },
                "{e}"
            );
        }
    }
    // Exactly at the caps: kept.
    let limits = DecodeLimits {
        max_unknown_fields: 1000,
        max_unknown_bytes: 4000,
        ..DecodeLimits::default()
    };
    let kept = standalone::Repeateds::decode_with_limits(&input, &limits).unwrap();
    assert_eq!(kept.encode_to_vec(), input);

    // The input's size, on every entry point.
    let limits = DecodeLimits {
        max_input_size: 100,
        ..DecodeLimits::default()
    };
    let too_large = DecodeErrorKind::InputTooLarge {
        size: input.len(),
        limit: 100,
    };
    for result in [
        standalone::Repeateds::decode_with_limits(&input, &limits).map(drop),
        prost_mode::Repeateds::decode_with_limits(&input, &limits).map(drop),
        standalone::Repeateds::default().decode_into_with_limits(&input, &limits),
        standalone::Repeateds::default().merge_with_limits(&input, &limits),
        standalone::RepeatedsView::decode_view_with_limits(&input, &limits).map(drop),
    ] {
        assert_eq!(*result.unwrap_err().kind(), too_large);
    }
    let json = format!("{{\"rInt32\":[{}]}}", vec!["0"; 100].join(","));
    let options = vtproto::json::DecodeOptions {
        limits,
        ..Default::default()
    };
    let e = vtproto::json::from_str_with::<standalone::Repeateds>(&json, &options).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            vtproto::json::JsonErrorKind::InputTooLarge { limit: 100, .. }
        ),
        "{e}"
    );
    let text = "r_int32: 0 ".repeat(20);
    let options = vtproto::text::DecodeOptions {
        limits,
        ..Default::default()
    };
    let e = vtproto::text::from_str_with::<standalone::Repeateds>(&text, &options).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            vtproto::text::TextErrorKind::InputTooLarge { limit: 100, .. }
        ),
        "{e}"
    );
}

#[test]
fn json_and_text_stop_at_the_budget() {
    use vtproto::DecodeLimits;
    let limits = DecodeLimits {
        memory_budget: 64 * 1024,
        ..DecodeLimits::default()
    };
    // 30,000 empty messages: 90 KB of JSON, megabytes of structs.
    let json = format!("{{\"rMessage\":[{}]}}", vec!["{}"; 30_000].join(","));
    let options = vtproto::json::DecodeOptions {
        limits,
        ..Default::default()
    };
    let e = vtproto::json::from_str_with::<standalone::Repeateds>(&json, &options).unwrap_err();
    assert_eq!(
        *e.kind(),
        vtproto::json::JsonErrorKind::MemoryBudget {
            budget: json.len() + 64 * 1024
        }
    );
    assert!(e.to_string().contains("memory budget"), "{e}");
    // The default budget takes it.
    vtproto::json::from_str::<standalone::Repeateds>(&json).unwrap();
    let text = format!("r_message: [{}]", vec!["{}"; 30_000].join(","));
    let options = vtproto::text::DecodeOptions {
        limits,
        ..Default::default()
    };
    let e = vtproto::text::from_str_with::<standalone::Repeateds>(&text, &options).unwrap_err();
    assert_eq!(
        *e.kind(),
        vtproto::text::TextErrorKind::MemoryBudget {
            budget: text.len() + 64 * 1024
        }
    );
    vtproto::text::from_str::<standalone::Repeateds>(&text).unwrap();
}

/// `body` as the value of `Tree.left` (field 1), nested `levels` deep.
fn in_left(body: Vec<u8>, levels: usize) -> Vec<u8> {
    (0..levels).fold(body, |inner, _| {
        let mut out = vec![0x0a];
        prost::encoding::encode_varint(inner.len() as u64, &mut out);
        out.extend_from_slice(&inner);
        out
    })
}

#[test]
fn a_limit_reached_in_a_nested_message_reports_the_decode_s_figures() {
    // Only the outermost reader keeps the figures; a nested one's error gets them on its way
    // out, on every path.
    let pool = vtproto::reflect::DescriptorPool::decode(vt_tests::OWN_DESCRIPTORS).unwrap();
    let tree = pool.get_message_by_name("vt.test.proto3.Tree").unwrap();
    for levels in [1, 3] {
        // Tree.children = 4: an empty Tree each.
        let input = in_left(empty_records(&[0x22], 20_000), levels);
        let limits = vtproto::DecodeLimits {
            memory_budget: 4096,
            ..vtproto::DecodeLimits::default()
        };
        let budget = limits.budget_for(input.len());
        let errors = [
            standalone::Tree::decode_with_limits(&input, &limits).unwrap_err(),
            standalone::Tree::default()
                .decode_into_with_limits(&input, &limits)
                .unwrap_err(),
            prost_mode::Tree::decode_with_limits(&input, &limits).unwrap_err(),
            standalone::TreeView::decode_view_with_limits(&input, &limits).unwrap_err(),
            vtproto::reflect::DynamicMessage::new(tree.clone())
                .merge(&mut Reader::new(&input).with_limits(&limits))
                .unwrap_err(),
        ];
        for e in errors {
            assert!(over_budget(&e, budget), "{levels} levels: {e}");
        }
        let mut unknown = Vec::new();
        for _ in 0..100 {
            unknown.extend_from_slice(&[0xf8, 0xff, 0x03, 0x00]); // field 8191, varint 0
        }
        let input = in_left(unknown, levels);
        for (fields, bytes) in [(10, usize::MAX), (usize::MAX, 30)] {
            let limits = vtproto::DecodeLimits {
                max_unknown_fields: fields,
                max_unknown_bytes: bytes,
                ..vtproto::DecodeLimits::default()
            };
            let errors = [
                standalone::Tree::decode_with_limits(&input, &limits).unwrap_err(),
                standalone::Tree::default()
                    .decode_into_with_limits(&input, &limits)
                    .unwrap_err(),
                vtproto::reflect::DynamicMessage::new(tree.clone())
                    .merge(&mut Reader::new(&input).with_limits(&limits))
                    .unwrap_err(),
            ];
            for e in errors {
                assert_eq!(
                    *e.kind(),
                    DecodeErrorKind::UnknownFieldLimit {
                        max_fields: fields,
                        max_bytes: bytes
                    },
                    "{levels} levels: {e}"
                );
            }
        }
    }
}
