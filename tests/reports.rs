//! The report files and the CI gate as users run them: `report` rebuilds
//! every output from the events alone, `compare` exits 1 on a regression
//! and 0 on the same run, JUnit and JSON carry every run.

use std::path::Path;
use std::process::{Command, Output};

fn calltape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("binary runs")
}

fn run(out: &Path, extra: &[&str]) {
    let mut args = vec!["run", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = calltape(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn compare_gates_a_run_without_repair_and_passes_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let (base, current) = (dir.path().join("base"), dir.path().join("norepair"));
    // One run per model (no arms), live: with repair, then without.
    run(&base, &["--suite", "scenarios/coding", "--model", "sim-*", "--no-arms", "--mode", "live"]);
    run(&current, &["--suite", "scenarios/coding", "--model", "sim-*", "--no-arms", "--repair", "off", "--mode", "live"]);
    let (b, c) = (base.join("latest"), current.join("latest"));
    let md = dir.path().join("compare.md");
    let out = calltape(&["compare", b.to_str().unwrap(), c.to_str().unwrap(), "--markdown", md.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("Gate: FAILED"), "{text}");
    // Without repair the cheap models retry their broken calls: more requests, more cost.
    assert!(text.contains("sim-cheap-types: total cost"), "{text}");
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.starts_with("# calltape compare\n") && markdown.contains("| model | runs | pass rate |"));

    let same = calltape(&["compare", b.to_str().unwrap(), b.to_str().unwrap()]);
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stdout));
    assert!(String::from_utf8_lossy(&same.stdout).contains("Gate: passed"));

    // Thresholds from flags: allow anything, and it passes.
    let lenient = calltape(&[
        "compare",
        b.to_str().unwrap(),
        c.to_str().unwrap(),
        "--max-pass-rate-drop",
        "1",
        "--max-cost-rise",
        "10",
        "--max-invalid-rate-rise",
        "1",
        "--max-p95-latency-rise",
        "10",
        "--allow-newly-failing",
    ]);
    assert_eq!(lenient.status.code(), Some(0), "{}", String::from_utf8_lossy(&lenient.stdout));

    let bad = calltape(&["compare", b.to_str().unwrap(), dir.path().to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("is not a run folder"));
}

#[test]
fn report_rebuilds_every_output_from_the_events() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), &["--trials", "2", "--model", "sim-strong", "--model", "sim-cheap-types", "--mode", "live", "--no-arms"]);
    let latest = dir.path().join("latest");
    let outputs = [
        "summary.csv",
        "by_tool.csv",
        "scenarios.csv",
        "by_scenario.csv",
        "suites.csv",
        "pairs.csv",
        "repairs.csv",
        "summary.json",
        "junit.xml",
        "report.md",
    ];
    let before: Vec<Vec<u8>> = outputs.iter().map(|f| std::fs::read(latest.join(f)).unwrap()).collect();
    for f in outputs {
        std::fs::remove_file(latest.join(f)).unwrap();
    }
    let out = calltape(&["report", latest.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (f, old) in outputs.iter().zip(before) {
        assert_eq!(std::fs::read(latest.join(f)).unwrap(), old, "{f} differs after `calltape report`");
    }

    let junit = std::fs::read_to_string(latest.join("junit.xml")).unwrap();
    let runs = 2 * 2 * calltape_scenarios();
    assert_eq!(junit.matches("<testcase ").count(), runs);
    assert!(junit.contains("<testsuite name=\"sim-strong\""));
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(latest.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary.as_array().unwrap().len(), 2);
    let strong = &summary[0];
    assert_eq!(strong["k"], 2);
    assert!(strong["pass_rate_lo"].as_f64().unwrap() <= strong["pass_rate"].as_f64().unwrap());
    let pairs = std::fs::read_to_string(latest.join("pairs.csv")).unwrap();
    assert!(pairs.lines().nth(1).unwrap().starts_with("sim-strong,sim-cheap-types,"), "{pairs}");

    let missing = calltape(&["report", dir.path().join("nope").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
}

/// Scenarios of the default suites: one a file in `scenarios/coding`, one a
/// line in `scenarios/bfcl-sample`.
fn calltape_scenarios() -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = |dir: &str, ext: &str| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == ext)).collect()
    };
    let lines = |dir: &str| -> usize { files(dir, "jsonl").iter().map(|p| std::fs::read_to_string(p).unwrap().lines().count()).sum() };
    files("scenarios/coding", "json").len()
        + lines("scenarios/bfcl-sample")
        + files("scenarios/stateful", "json").len()
        + lines("scenarios/bfcl-multi-turn")
        // Each injected scenario runs twice: clean and injected.
        + 2 * files("scenarios/injection", "json").len()
}
