//! The same checks on the project's workload types (candidates, event, deep) and test types.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    vt_tests::checks::workloads(data);
});
