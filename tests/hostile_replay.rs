//! Numbers that become waits in a replay: a hostile cassette's recorded
//! times, and `--replay-speed`. None may panic or make a replay sleep for
//! ages, and a replay with recorded timing stops promptly on SIGTERM.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn calltape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(root()).output().expect("binary runs")
}

const CASSETTE: &str = "coding/qwen2.5-coder-0.5b-local@full/read-cargo-toml.t0.json";

/// A copy of the bundled recordings of one unit, its text changed by `edit`.
fn recordings_with(edit: impl Fn(&str) -> String) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let recordings = dir.path().join("recordings");
    let file = recordings.join(CASSETTE);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(root().join("recordings").join(CASSETTE)).unwrap();
    let edited = edit(&text);
    assert_ne!(edited, text, "the edit changed nothing");
    std::fs::write(&file, edited).unwrap();
    (dir, recordings)
}

#[test]
fn a_cassette_with_absurd_recorded_times_is_a_clear_error_row_not_a_panic_or_a_hang() {
    for (latency, shown) in [("1e300", "1e300"), ("-5", "-5.0"), ("86400001", "86400001.0")] {
        let (dir, recordings) = recordings_with(|t| t.replacen("\"latency_ms\": 34840.130363", &format!("\"latency_ms\": {latency}"), 1));
        let out = dir.path().join("out");
        let started = Instant::now();
        let output = calltape(&[
            "run",
            "--mode",
            "replay",
            "--model",
            "qwen2.5-coder-0.5b-local@full",
            "--filter",
            "read-cargo-toml",
            "--recordings",
            recordings.to_str().unwrap(),
            "--replay-timing",
            "recorded",
            "--out",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(started.elapsed() < Duration::from_secs(30), "{latency}: took {:?}", started.elapsed());
        assert!(!stderr.contains("panicked") && output.status.code().is_some(), "{stderr}");
        assert!(
            stderr.contains("interaction 1 (key ") && stderr.contains(&format!("latency_ms is {shown}, not a time from 0 to")),
            "{stderr}"
        );
        let events = std::fs::read_to_string(out.join("latest/events.jsonl")).unwrap();
        assert!(events.contains("cannot use the cassette") && events.contains(&format!("latency_ms is {shown}")), "{events}");
        assert!(out.join("latest/report.md").is_file());

        // `cassettes verify` names the same problem.
        let verify = calltape(&["cassettes", "verify", recordings.to_str().unwrap()]);
        let text = format!("{}{}", String::from_utf8_lossy(&verify.stdout), String::from_utf8_lossy(&verify.stderr));
        assert!(!verify.status.success() && text.contains(&format!("latency_ms is {shown}")), "{text}");
    }
}

#[test]
fn replay_speeds_outside_the_range_are_refused_by_the_parser() {
    for speed in ["0", "-1", "NaN", "inf", "-inf", "1e-300", "1e400", "1001", "0.0009", "fast", ""] {
        for args in [vec!["run".to_string(), "--replay-speed".into(), speed.into()], vec!["run".into(), format!("--replay-speed={speed}")]]
        {
            let out = Command::new(env!("CARGO_BIN_EXE_calltape")).args(&args).current_dir(root()).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            if speed == "-inf" && args.len() == 3 {
                // Clap reads a separate `-inf` as flags (`-i`…), and refuses it as such.
                assert!(stderr.contains("unexpected argument"), "{stderr}");
                continue;
            }
            assert!(stderr.contains("--replay-speed"), "{args:?}: {stderr}");
            assert!(stderr.contains("speed must be a positive number from 0.001 to 1000"), "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
}

/// The slowest legal speed on the bundled recordings: each delay is capped,
/// and SIGTERM ends the replay's sleeps so the run stops within seconds.
#[cfg(unix)]
#[test]
fn a_slow_replay_stops_promptly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args([
            "run",
            "--mode",
            "replay",
            "--model",
            "qwen2.5-coder-0.5b-local@full",
            "--filter",
            "read-cargo-toml",
            "--replay-timing",
            "recorded",
        ])
        .args(["--replay-speed", "0.001", "--out", out.to_str().unwrap()])
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Signal once the run has opened its folder (its handlers are set then),
    // however long a loaded machine takes to get there.
    let opened = Instant::now();
    while !std::fs::read_dir(&out).is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.path().join("events.jsonl").is_file()))) {
        assert!(child.try_wait().unwrap().is_none(), "the replay ended before it opened its run folder");
        assert!(opened.elapsed() < Duration::from_secs(120), "no run folder after 120 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(child.try_wait().unwrap().is_none(), "the replay should still be sleeping its first recorded delay");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("still running 30 s after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(signalled.elapsed() < Duration::from_secs(10), "{:?}: {stderr}", signalled.elapsed());
    assert!(status.code().is_some(), "ended by its own hand, not the signal: {status:?} {stderr}");
    assert!(stderr.contains("stopping"), "{stderr}");
    assert!(out.join("latest/events.jsonl").is_file(), "{stderr}");
}
