//! A small differential sample for Miri (`scripts/miri.sh` runs it under
//! `cargo +nightly miri test`): inputs spread over the checked-in fuzz corpora, through the
//! fuzz targets' checks (`vt_tests::checks`): prost against our decoders (owned, view,
//! `decode_into`, `mode=standalone`) and every encode entry point. Under Miri this drives the
//! runtime's unsafe paths on real messages: the reverse writer's raw writes into
//! uninitialized capacity, the reader's unchecked UTF-8 after its ASCII check, the `set_len`
//! calls of the encoders and the per-thread scratch buffer.
//!
//! On stable Rust it runs too (the full corpora replay in `fuzz_corpus.rs`); under Miri the
//! sample is smaller and its inputs shorter, to stay within a few minutes.

/// Inputs per corpus, and the longest input taken.
const SAMPLE: (usize, usize) = if cfg!(miri) { (24, 600) } else { (400, 4096) };

/// Every input of a packed corpus (a little-endian `u32` length, then the bytes).
fn unpack(mut rest: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    while let Some((len, tail)) = rest.split_first_chunk::<4>() {
        let len = u32::from_le_bytes(*len) as usize;
        out.push(&tail[..len]);
        rest = &tail[len..];
    }
    out
}

/// Runs `check` on inputs spread evenly over `corpus` (those not longer than the limit),
/// covering each message type the first byte selects; returns how many ran.
fn sample(corpus: &[u8], types: u8, check: fn(&[u8])) -> usize {
    let (count, longest) = SAMPLE;
    let short: Vec<&[u8]> = unpack(corpus)
        .into_iter()
        .filter(|i| !i.is_empty() && i.len() <= longest)
        .collect();
    let mut ran = 0;
    for which in 0..types {
        let of_type: Vec<&[u8]> = short
            .iter()
            .copied()
            .filter(|i| i[0] % types == which)
            .collect();
        let per_type = count / usize::from(types);
        let step = (of_type.len() / per_type).max(1);
        for input in of_type.iter().step_by(step).take(per_type) {
            check(input);
            ran += 1;
        }
    }
    ran
}

#[test]
fn workloads_sample() {
    let corpus = include_bytes!("../../fuzz/corpus/decode_workloads.corpus");
    let ran = sample(corpus, 6, vt_tests::checks::workloads);
    assert!(ran >= SAMPLE.0 / 2, "only {ran} inputs in the sample");
}

#[cfg(vt_conformance)]
#[test]
fn conformance_sample() {
    let corpus = include_bytes!("../../fuzz/corpus/decode_conformance.corpus");
    let ran = sample(corpus, 2, vt_tests::checks::conformance);
    assert!(ran >= SAMPLE.0 / 2, "only {ran} inputs in the sample");
}
