//! A model that never answered never reads as a model that scored 0%:
//! units that could not run (no recording in replay, a refused key, a
//! failed request) are counted as `errored`, apart from the pass rates;
//! `run` names each such model on stderr with its most common reason, and
//! exits 1 when some model answered no unit at all.

use std::path::Path;
use std::process::{Command, Output};

use calltape::exit_codes;

mod common;
use common::answering::answering_server;
use common::{copy_dir, csv_rows};

fn calltape(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_calltape"));
    command.args(args).current_dir(cwd).env_remove("NO_COLOR");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("binary runs")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled coding suite copied under a new name: nothing is recorded for it.
fn unrecorded_suite(dir: &Path) -> String {
    let to = dir.join("mine");
    copy_dir(&root().join("scenarios/coding"), &to);
    to.display().to_string()
}

fn row_of<'a>(rows: &'a [std::collections::HashMap<String, String>], model: &str) -> &'a std::collections::HashMap<String, String> {
    rows.iter().find(|r| r["model"] == model).unwrap_or_else(|| panic!("no row for {model}"))
}

#[test]
fn a_suite_with_no_recording_errors_and_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let suite = unrecorded_suite(dir.path());
    let config = root().join("calltape.toml").display().to_string();
    let out =
        calltape(&["run", "--no-arms", "--config", &config, "--suite", &suite, "--model", "qwen2.5-coder-0.5b-local"], dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE), "{stderr}");
    assert!(stderr.contains("error: qwen2.5-coder-0.5b-local: 6 of 6 units errored and are not in its pass rates; most often no recording to replay (6), e.g. request failed: no recording for model qwen2.5-coder-0.5b-local"), "{stderr}");
    assert!(stderr.contains("error: a model never answered (every unit errored): qwen2.5-coder-0.5b-local;"), "{stderr}");

    let summary = csv_rows(&dir.path().join("reports/latest/summary.csv"));
    let strong = row_of(&summary, "qwen2.5-coder-0.5b-local");
    assert_eq!((strong["scenarios"].as_str(), strong["errored"].as_str(), strong["passed"].as_str()), ("0", "6", "0"));
    let runs = csv_rows(&dir.path().join("reports/latest/scenarios.csv"));
    assert_eq!(runs.len(), 6);
    assert!(runs.iter().all(|r| r["errored"] == "true" && r["error_kind"] == "no_recording" && r["passed"] == "false"));
}

#[test]
fn errored_units_are_left_out_of_the_pass_rate_of_a_model_that_answered_others() {
    let dir = tempfile::tempdir().unwrap();
    let suite = unrecorded_suite(dir.path());
    let config = root().join("calltape.toml").display().to_string();
    let recorded = root().join("scenarios/coding").display().to_string();
    let recordings = root().join("recordings").display().to_string();
    let args = [
        "run",
        "--config",
        &config,
        "--suite",
        &recorded,
        "--suite",
        &suite,
        "--recordings",
        &recordings,
        "--model",
        "qwen2.5-coder-0.5b-local-text@full",
    ];
    let out = calltape(&args, dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Some units answered: the errors are shown, and the run is not failed for them.
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{stderr}");
    assert!(
        stderr
            .contains("error: qwen2.5-coder-0.5b-local-text@full: 6 of 12 units errored and are not in its pass rates; most often no recording to replay (6)"),
        "{stderr}"
    );

    let summary = csv_rows(&dir.path().join("reports/latest/summary.csv"));
    let strong = row_of(&summary, "qwen2.5-coder-0.5b-local-text@full");
    let (answered, passed): (u64, u64) = (strong["scenarios"].parse().unwrap(), strong["passed"].parse().unwrap());
    assert_eq!((answered, strong["errored"].as_str()), (6, "6"));
    let rate: f64 = strong["pass_rate"].parse().unwrap();
    assert!((rate - passed as f64 / 6.0).abs() < 1e-9, "the pass rate is over the 6 answered units: {rate} for {passed} passed");
    assert!(passed > 0, "the recorded suite passes some scenarios");
    let suites = csv_rows(&dir.path().join("reports/latest/suites.csv"));
    let mine = suites.iter().find(|r| r["suite"] == "mine").unwrap();
    // No unit of the suite answered: it has no pass rate, not a rate of 0.
    assert_eq!((mine["scenarios"].as_str(), mine["errored"].as_str(), mine["pass_rate"].as_str()), ("0", "6", ""));
}

/// An OpenAI-compatible server that refuses every key (HTTP 401).
fn refusing_server() -> String {
    let answer = r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    answering_server("401 Unauthorized", answer.to_string())
}

#[test]
fn a_refused_key_is_an_error_of_its_model_not_a_zero() {
    let dir = tempfile::tempdir().unwrap();
    let url = refusing_server();
    let base = std::fs::read_to_string(root().join("calltape.toml")).unwrap();
    let config = format!(
        "{base}\n[[models]]\nname = \"gpt-bad-key\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{url}\"\napi_key_env = \"R3_ERRORS_TEST_KEY\"\nmax_retries = 0\ntimeout_secs = 5\n"
    );
    std::fs::write(dir.path().join("calltape.toml"), config).unwrap();
    let suite = root().join("scenarios/coding").display().to_string();
    let args = [
        "run",
        "--no-arms",
        "--suite",
        &suite,
        "--mode",
        "live",
        "--model",
        "sim-strong",
        "--model",
        "gpt-bad-key",
        "--filter",
        "read-cargo-toml",
    ];
    let out = calltape(&args, dir.path(), &[("R3_ERRORS_TEST_KEY", "sk-wrong")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE), "{stderr}");
    assert!(
        stderr.contains("error: gpt-bad-key: 1 of 1 units errored and are not in its pass rates; most often the server refused the API key (HTTP 401/403) (1), e.g. request failed: HTTP 401"),
        "{stderr}"
    );
    assert!(stderr.contains("error: a model never answered (every unit errored): gpt-bad-key;"), "{stderr}");
    assert!(!stderr.contains("error: sim-strong"), "the simulated model answered: {stderr}");
    let summary = csv_rows(&dir.path().join("reports/latest/summary.csv"));
    assert_eq!(row_of(&summary, "gpt-bad-key")["errored"], "1");
    assert_eq!((row_of(&summary, "sim-strong")["errored"].as_str(), row_of(&summary, "sim-strong")["scenarios"].as_str()), ("0", "1"));
}
