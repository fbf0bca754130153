//! Decode, round trip and differential checks on the conformance suite's message types:
//! proto2 and proto3, prost's structs (against prost itself) and our own (`mode=standalone`),
//! owned, view and `decode_into`. The first byte picks the type.
#![no_main]

// Counts what each decode holds, for the memory budget's property (`vt_tests::checks`).
#[global_allocator]
static A: vt_tests::alloc_stats::Tracking = vt_tests::alloc_stats::Tracking;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    vt_tests::checks::conformance(data);
});
