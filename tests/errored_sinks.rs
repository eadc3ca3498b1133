//! An unreachable model is `errored` in every sink, never a 0% model: the
//! quick start's project (`calltape init`) with its `my-model` pointed at a
//! closed port on 127.0.0.1, run through the real binary, then each report
//! read back — the terminal tables, summary.csv, report.md, report.html,
//! junit.xml, `show` — and `compare` against the simulated baseline, which
//! fails the gate on what it cannot compare unless a flag allows it.

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use calltape::exit_codes;

mod common;
mod start;
use common::csv_rows;

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("OPENAI_API_KEY", "sk-test-not-sent")
        .output()
        .expect("binary runs")
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A port on 127.0.0.1 that nothing listens on: bound, then let go.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// `calltape init proj` in `dir`, and its two simulated models' run copied to `proj/baseline`.
fn project_with_baseline(dir: &Path) -> PathBuf {
    assert!(calltape(&["init", "proj"], dir).status.success());
    let proj = dir.join("proj");
    let out = calltape(&["run"], &proj);
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{:?}", text(&out));
    common::copy_dir(&proj.join("reports/latest"), &proj.join("baseline"));
    proj
}

fn row<'a>(rows: &'a [HashMap<String, String>], model: &str) -> &'a HashMap<String, String> {
    rows.iter().find(|r| r["model"] == model).unwrap_or_else(|| panic!("no row for {model}"))
}

#[test]
fn an_unreachable_model_is_errored_in_every_sink_and_fails_compare() {
    let dir = tempfile::tempdir().unwrap();
    let proj = project_with_baseline(dir.path());
    let url = format!("http://127.0.0.1:{}/v1", closed_port());
    start::enable_my_model_with(&proj.join("calltape.toml"), &url, &["max_retries = 0"]);
    let out = calltape(&["run"], &proj);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE), "{stdout}\n{stderr}");

    // Terminal: `errored` where the rate would be, and the first error under the table.
    let my_row = stdout.lines().find(|l| l.starts_with("my-model ")).unwrap_or_else(|| panic!("{stdout}"));
    let cells: Vec<&str> = my_row.split_whitespace().collect();
    assert_eq!(&cells[..4], ["my-model", "0", "3", "errored"], "runs, errored, pass: {stdout}");
    assert_eq!(cells[4], "—", "an invalid rate over no calls is no figure: {stdout}");
    assert!(stdout.contains("Errored units: no answer, so neither passed nor failed"), "{stdout}");
    assert!(stdout.contains("errored: never answered  request failed"), "{stdout}");

    // With arms too: each arm's pass is `errored`.
    let (arms, _) = text(&calltape(&["run", "--arms", "off,full", "--out", "arms"], &proj));
    let cells: Vec<&str> =
        arms.lines().find(|l| l.starts_with("my-model ")).unwrap_or_else(|| panic!("{arms}")).split_whitespace().collect();
    assert_eq!(&cells[..4], ["my-model", "0", "errored", "errored"], "{arms}");

    // summary.csv: no rate, no interval, not on the Pareto front; the counts stay.
    let latest = proj.join("reports/latest");
    let summary = csv_rows(&latest.join("summary.csv"));
    let mine = row(&summary, "my-model");
    for (column, value) in [
        ("scenarios", "0"),
        ("errored", "3"),
        ("passed", "0"),
        ("pass_rate", ""),
        ("pass_rate_lo", ""),
        ("pass_rate_hi", ""),
        ("pareto", "false"),
    ] {
        assert_eq!(mine[column], value, "{column}: {mine:?}");
    }
    assert_eq!(mine["pass_rate_no_repair"], "");
    assert_ne!(mine["request_errors"], "0", "{mine:?}");
    assert_eq!(row(&summary, "sim-strong")["pass_rate"], "1");

    // report.md: an errored column, `errored` for the rate, no Pareto mark, the first error.
    let md = std::fs::read_to_string(latest.join("report.md")).unwrap();
    assert!(md.contains("| model | runs | errored | pass | 95% CI |"), "{md}");
    assert!(md.contains("| my-model | 0 | 3 | errored | errored | errored | 0 |"), "{md}");
    assert!(!md.contains("my-model *"), "{md}");
    assert!(md.contains("| my-model | 3 | 0 | errored: never answered | request failed"), "{md}");
    assert!(md.contains("## Failed scenarios (0)"), "errored units are not failures: {md}");

    // report.html: off the chart, and named.
    let html = std::fs::read_to_string(latest.join("report.html")).unwrap();
    assert!(!html.contains("<title>my-model:"), "my-model has no point on the chart");
    assert!(html.contains("Not on the chart, errored (every unit got no answer, so no pass rate): my-model;"), "{html}");

    // junit.xml: errors, not failures.
    let xml = std::fs::read_to_string(latest.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suite = doc.descendants().find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some("my-model")).unwrap();
    assert_eq!((suite.attribute("tests"), suite.attribute("failures"), suite.attribute("errors")), (Some("3"), Some("0"), Some("3")));
    assert_eq!(suite.descendants().filter(|n| n.has_tag_name("error") && n.attribute("type") == Some("errored")).count(), 3);
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("failure")).count(), 0, "{xml}");

    // show: the units are listed as errored, and each says so; none failed.
    let (listed, _) = text(&calltape(&["show", "reports/latest"], &proj));
    assert!(listed.starts_with("3 of 9 units errored in reports/latest (no answer: neither passed nor failed"), "{listed}");
    assert!(!listed.contains("failed in"), "{listed}");
    let command = listed.lines().nth(1).unwrap().trim().to_string();
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[..2], ["calltape", "show"], "{command}");
    let shown = calltape(&words[1..], &proj);
    let (story, _) = text(&shown);
    assert!(shown.status.success() && story.contains("ERRORED (no answer: neither passed nor failed)"), "{command}: {story}");

    // compare: the errored model fails the gate, named, with the flag that allows it.
    let out = calltape(&["compare", "baseline", "reports/latest"], &proj);
    let (compared, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE), "{compared}\n{stderr}");
    assert!(compared.contains("Gate: FAILED — 1 model not comparable"), "{compared}");
    // At the default width (100) the line is cut, but not before the flag; the Markdown has it whole.
    assert!(
        compared.contains("\n  my-model: 3 of 3 units errored, not compared (fix it, or pass --allow-errored); first error: "),
        "{compared}"
    );
    let out = calltape(&["compare", "baseline", "reports/latest", "--markdown", "compare.md"], &proj);
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE));
    let md = std::fs::read_to_string(proj.join("compare.md")).unwrap();
    assert!(md.contains("- my-model: 3 of 3 units errored, not compared (fix it, or pass --allow-errored); first error: request failed: connection failed"), "{md}");
    assert!(compared.contains("Only in the current run (1)\n  model my-model: errored: no answer in 3 units"), "{compared}");
    // The advice runs as printed.
    let out = calltape(&["compare", "baseline", "reports/latest", "--allow-errored"], &proj);
    let (allowed, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{allowed}\n{stderr}");
    assert!(allowed.contains("Gate: passed"), "{allowed}");
}

#[test]
fn a_model_in_one_run_only_is_listed_with_its_figures_and_a_missing_one_fails_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let proj = project_with_baseline(dir.path());
    let out = calltape(&["run", "--model", "sim-strong", "--out", "strong-only"], &proj);
    assert!(out.status.success(), "{:?}", text(&out));
    let strong_only = "strong-only/latest";

    // A model only in the current run: its own figures, and the gate holds.
    let out = calltape(&["compare", strong_only, "baseline"], &proj);
    let (compared, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{compared}\n{stderr}");
    let cheap = row(&csv_rows(&proj.join("baseline/summary.csv")), "sim-cheap").clone();
    let cost: f64 = cheap["total_cost_usd"].parse().unwrap();
    let p95: f64 = cheap["latency_p95_ms"].parse().unwrap();
    let listed = format!("  model sim-cheap: 3 runs, pass 1.000, invalid 0.667, cost ${cost:.4}, p95 {p95:.0} ms");
    assert!(compared.contains(&format!("Only in the current run (1)\n{listed}\n")), "{listed}\n{compared}");

    // A baseline model missing from the current run fails the gate, named, with its figures.
    let out = calltape(&["compare", "baseline", strong_only], &proj);
    let (compared, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE), "{compared}\n{stderr}");
    assert!(compared.contains("Gate: FAILED — 1 model not comparable"), "{compared}");
    assert!(
        compared.contains("\n  sim-cheap: missing from the current run, not compared (run it, or pass --allow-missing)\n"),
        "{compared}"
    );
    assert!(compared.contains("Only in the base run (1)\n  model sim-cheap: 3 runs, pass 1.000"), "{compared}");
    let out = calltape(&["compare", "baseline", strong_only, "--allow-missing"], &proj);
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{:?}", text(&out));

    // Both flags are in `compare --help`.
    let (help, _) = text(&calltape(&["compare", "--help"], &proj));
    assert!(help.contains("--allow-errored") && help.contains("--allow-missing"), "{help}");
}
