//! The `calltape` binary as a user runs it: exit codes and messages.

use std::path::Path;
use std::process::{Command, Output};

mod common;

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

fn project_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn malformed_scenario_gives_one_line_with_file_line_column() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("broken");
    std::fs::create_dir(&suite).unwrap();
    std::fs::write(suite.join("a.json"), "{\n  \"id\": \"a\",\n  \"messages\": [\n    {\"role\": \"user\" \"content\": \"hi\"}\n  ]\n}\n")
        .unwrap();

    let out = calltape(&["check", suite.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr.lines().next().unwrap();
    assert!(first.starts_with("error: ") && first.ends_with("a.json:4:21: expected `,` or `}`"), "{stderr}");
    assert!(!stderr.contains("panicked"));

    // `run` refuses before any work starts, with the same message.
    let out = calltape(&["run", "--suite", suite.to_str().unwrap(), "--out", dir.path().join("r").to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a.json:4:21"));
    assert!(!dir.path().join("r").exists());
}

#[test]
fn bundled_suites_check_clean() {
    let out = calltape(
        &["check", "scenarios/coding", "scenarios/bfcl-sample", "scenarios/stateful", "scenarios/bfcl-multi-turn"],
        project_root(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: coding ("));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: bfcl-sample (300 scenarios)"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: stateful ("));
    // Each multi-turn entry's ground truth, sent as a model sends it, meets its own key.
    assert!(String::from_utf8_lossy(&out.stdout).contains("ok: bfcl-multi-turn (40 scenarios)"));
}

#[test]
fn unknown_model_is_named_with_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = calltape(&["run", "--model", "gpt-9"], project_root());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown model \"gpt-9\"") && stderr.contains("sim-strong"), "{stderr}");
    drop(dir);
}

#[test]
fn default_run_writes_the_reports_and_prints_both_tables() {
    // The bundled default, run once for every test binary (tests/common/default_run.rs).
    let run = common::default_run::default_run();
    let out_dir = run.project.join("reports");
    let stdout = &run.stdout;
    // The default view: the core figures (every table is `report --all`, tests/terminal_width.rs).
    assert!(stdout.contains("Per model and arm (") && stdout.contains("Per model × tool: the most invalid calls"), "{stdout}");
    assert!(stdout.contains("sim-strong"));
    // How long the units took and, on Linux, their peak memory.
    let ran = stdout.lines().find(|l| l.contains(" units ran in ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(!cfg!(target_os = "linux") || ran.contains(", peak memory "), "{ran}");
    for file in ["events.jsonl", "summary.csv", "by_tool.csv", "scenarios.csv", "report.md"] {
        assert!(out_dir.join("latest").join(file).is_file(), "missing {file}");
    }
    // The README's claim: report.md fits a pull-request comment (GitHub: 65,536 characters).
    let report_md = std::fs::read_to_string(out_dir.join("latest/report.md")).unwrap();
    assert!(report_md.chars().count() <= calltape::report::markdown::MAX_CHARS, "{} characters", report_md.chars().count());
    let summary = std::fs::read_to_string(out_dir.join("latest/summary.csv")).unwrap();
    let header = summary.lines().next().unwrap();
    for column in [
        "model",
        "scenarios",
        "passed",
        "pass_rate",
        "calls",
        "invalid",
        "invalid_rate",
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "latency_p50_ms",
        "latency_p95_ms",
    ] {
        assert!(header.split(',').any(|c| c == column), "summary.csv lacks {column}: {header}");
    }
    let by_tool = std::fs::read_to_string(out_dir.join("latest/by_tool.csv")).unwrap();
    let header: Vec<&str> = by_tool.lines().next().unwrap().split(',').collect();
    assert_eq!(header[..5], ["model", "tool", "calls", "invalid", "invalid_rate"]);
    for kind in
        ["unknown_tool", "parse_error", "missing_required", "wrong_type", "additional_property", "enum_mismatch", "constraint_violation"]
    {
        assert!(header.contains(&kind), "by_tool.csv lacks a column for {kind}");
    }
    let scenarios = std::fs::read_to_string(out_dir.join("latest/scenarios.csv")).unwrap();
    assert!(
        scenarios.starts_with(
            "model,suite,scenario,trial,passed,reason,passed_no_repair,latency_ms,cost_usd,errored,error_kind,\
             milestones_reached,milestones,last_milestone,state_checks_passed,state_checks\n"
        ),
        "{scenarios}"
    );
}
