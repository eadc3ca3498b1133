#![no_main]
//! Fuzz target: see `calltape::fuzz_targets::sse_parser` for the invariant it checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| calltape::fuzz_targets::sse_parser(data));
