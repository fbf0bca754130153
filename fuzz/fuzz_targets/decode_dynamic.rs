//! `DynamicMessage` (reflection) on the conformance suite's message types, built from their
//! descriptors alone, against the generated `mode=standalone` structs: same verdict, same
//! bytes written, round trips. The first byte picks the type; seed it with the
//! `decode_conformance` corpus, whose inputs have the same shape.
#![no_main]

// Counts what each decode holds, for the memory budget's property (`vt_tests::checks`).
#[global_allocator]
static A: vt_tests::alloc_stats::Tracking = vt_tests::alloc_stats::Tracking;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    vt_tests::checks::dynamic(data);
});
