//! The generator on structured, arbitrary requests (`vt_tests::checks::codegen`): it must
//! answer with code or an error, never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    vt_tests::checks::codegen(data);
});
