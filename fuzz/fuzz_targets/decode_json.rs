//! ProtoJSON reading on the project's workload and test messages (`mode=standalone`): no
//! panic on any input, and what reads round-trips through JSON and binary. The first byte
//! picks the type.
#![no_main]

// Counts what each decode holds, for the memory budget's property (`vt_tests::checks`).
#[global_allocator]
static A: vt_tests::alloc_stats::Tracking = vt_tests::alloc_stats::Tracking;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    vt_tests::checks::json(data);
});
