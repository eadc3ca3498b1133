#![no_main]
//! Fuzz target: see `calltape::fuzz_targets::report_writers` for the invariants it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| calltape::fuzz_targets::report_writers(data));
