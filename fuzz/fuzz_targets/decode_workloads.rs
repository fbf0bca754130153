//! The same checks on the project's workload types (candidates, event, deep) and test types.
#![no_main]

// Counts what each decode holds, for the memory budget's property (`vt_tests::checks`).
#[global_allocator]
static A: vt_tests::alloc_stats::Tracking = vt_tests::alloc_stats::Tracking;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    vt_tests::checks::workloads(data);
});
