//! Replays every input kept from fuzzing (`fuzz/regressions/<target>/`) and
//! a few hand-made edge cases through the fuzz targets' bodies, so what the
//! fuzzers once found stays fixed without a fuzzer installed; and the seed
//! corpora kept in `fuzz/seeds/<target>/`.

use std::path::Path;

use calltape::fuzz_targets;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    replay_dir("regressions", target, run)
}

/// Runs every file of `fuzz/<kind>/<target>/` through `run`; returns how many.
fn replay_dir(kind: &str, target: &str, run: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(kind).join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_file() && path.file_name().is_some_and(|n| n != ".gitkeep") {
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{} fails again", path.display());
            n += 1;
        }
    }
    n
}

#[test]
fn lenient_parser_regressions() {
    replay("lenient_parser", fuzz_targets::lenient_parser);
    for edge in [&b""[..], b"{", b"[[[[[[[[[[", b"{\"a\":", b"'''", b"\xff\xfe", b"{\"a\": 1e999999}", b"--", b"}{"] {
        fuzz_targets::lenient_parser(edge);
    }
    // Deep nesting must not overflow the stack.
    fuzz_targets::lenient_parser("[".repeat(100_000).as_bytes());
    fuzz_targets::lenient_parser(format!("{}1{}", "{\"a\":".repeat(50_000), "}".repeat(50_000)).as_bytes());
}

#[test]
fn sse_parser_regressions() {
    replay("sse_parser", fuzz_targets::sse_parser);
    for edge in [&b""[..], b"\x00", b"\x03data: x\r\n\r\n", b"\x05:\n\n\n", b"\x01data\ndata:\n\n", b"\xffevent: e\xffdata: \xff\n\n"] {
        fuzz_targets::sse_parser(edge);
    }
}

#[test]
fn repair_pipeline_regressions() {
    replay("repair_pipeline", fuzz_targets::repair_pipeline);
    for edge in
        [&b""[..], b"read_file\n", b"Bash\n{\"command\": [1]}", b"READ-FILE\n{'target_file': 'a', 'should_read_entire_file': 'yes'}"]
    {
        fuzz_targets::repair_pipeline(edge);
    }
    let huge = format!("read_file\n{{\"target_file\": \"{}\", \"should_read_entire_file\": true}}", "x".repeat(4 << 20));
    fuzz_targets::repair_pipeline(huge.as_bytes());
}

#[test]
fn scenario_loader_regressions() {
    replay("scenario_loader", fuzz_targets::scenario_loader);
    for edge in [&b""[..], b"{}", b"\n\n{\"id\": 1}\n", b"{\"id\": \"a\", \"messages\": []}", b"\xff"] {
        fuzz_targets::scenario_loader(edge);
    }
}

#[test]
fn report_writers_seeds_and_regressions() {
    replay("report_writers", fuzz_targets::report_writers);
    assert!(replay_dir("seeds", "report_writers", fuzz_targets::report_writers) >= 5, "the hostile seed texts are there");
    for edge in [&b""[..], b"\xff", b"\xff\xff\xff", b"=", b"\x00", b"\r\n", b"|", b"\\", b"&#0;", b"\xef\xbf\xbe"] {
        fuzz_targets::report_writers(edge);
    }
    // A megabyte tool name and reason: no report carries it whole.
    let mut huge = b"@".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 1 << 20));
    fuzz_targets::report_writers(&huge);
}
