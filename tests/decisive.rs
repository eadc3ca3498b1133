//! Decisive comparisons, as a user runs them: the flip rate of each model,
//! the paired interval of every pair with whether it decides, and what the
//! undecided ones would still need.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

fn project_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// Two simulated models, `trials` each, on the BFCL sample.
fn two_models(out: &Path, trials: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--model",
        "sim-strong",
        "--model",
        "sim-cheap-types",
        "--no-arms",
        "--repair",
        "off",
        "--suite",
        "scenarios/bfcl-sample",
        "--trials",
        trials,
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    calltape(&args, project_root())
}

#[test]
fn trials_give_flip_rates_and_every_pair_says_whether_it_is_decided() {
    let dir = tempfile::tempdir().unwrap();
    let out = two_models(&dir.path().join("r"), "3", &[]);
    assert!(out.status.success(), "{}", text(&out));
    let latest = dir.path().join("r/latest");

    let summary = common::csv_rows(&latest.join("summary.csv"));
    for row in &summary {
        let flip: f64 = row["flip_rate"].parse().unwrap_or_else(|_| panic!("flip_rate of {}: {:?}", row["model"], row["flip_rate"]));
        assert!((0.0..=1.0).contains(&flip), "{row:?}");
        assert!(row["flip_scenarios"].parse::<u64>().unwrap() > 0, "{row:?}");
    }
    let by_scenario = common::csv_rows(&latest.join("by_scenario.csv"));
    assert!(by_scenario.iter().all(|r| r["flip_rate"].parse::<f64>().is_ok()), "three trials: every row has a flip rate");

    let pairs = common::csv_rows(&latest.join("pairs.csv"));
    assert_eq!(pairs.len(), 1);
    let p = &pairs[0];
    let (lo, hi, diff): (f64, f64, f64) =
        (p["diff_lo"].parse().unwrap(), p["diff_hi"].parse().unwrap(), p["pass_rate_diff"].parse().unwrap());
    assert!(lo <= diff && diff <= hi, "{p:?}");
    let decisive = p["decisive"] == "true";
    assert_eq!(decisive, lo > 0.0 || hi < 0.0, "{p:?}");
    // A decided pair needs nothing more (empty cells); an undecided one says what.
    if decisive {
        assert_eq!((p["trials_needed"].as_str(), p["cost_needed_usd"].as_str()), ("", ""), "{p:?}");
    } else {
        assert!(!p["trials_needed"].is_empty() || !p["scenarios_needed"].is_empty(), "{p:?}");
        assert!(p["cost_needed_usd"].parse::<f64>().is_ok(), "{p:?}");
    }
}

#[test]
fn one_trial_has_no_flip_rate() {
    let dir = tempfile::tempdir().unwrap();
    let out = two_models(&dir.path().join("r"), "1", &[]);
    assert!(out.status.success(), "{}", text(&out));
    let latest = dir.path().join("r/latest");
    let summary = common::csv_rows(&latest.join("summary.csv"));
    assert!(summary.iter().all(|r| r["flip_rate"].is_empty() && r["flip_scenarios"] == "0"), "{summary:?}");
    let pairs = common::csv_rows(&latest.join("pairs.csv"));
    assert!(pairs[0]["diff_lo"].parse::<f64>().is_ok(), "Newcombe's interval with one trial: {:?}", pairs[0]);
}

/// A run of sim-cheap-types alone, one trial, with `repair` and `seed`.
fn cheap_run(out: &Path, repair: &str, seed: &str) {
    let args = [
        "run",
        "--model",
        "sim-cheap-types",
        "--no-arms",
        "--repair",
        repair,
        "--seed",
        seed,
        "--suite",
        "scenarios/bfcl-sample",
        "--filter",
        "simple_python_*",
        "--out",
        out.to_str().unwrap(),
    ];
    let run = calltape(&args, project_root());
    assert!(run.status.success(), "{}", text(&run));
}

/// `compare` with only the pass rate (and newly failing) gated.
fn gate(base: &Path, current: &Path, extra: &[&str]) -> Output {
    let (base, current) = (base.join("latest"), current.join("latest"));
    let mut args = vec!["compare", base.to_str().unwrap(), current.to_str().unwrap()];
    args.extend_from_slice(&["--max-cost-rise", "100", "--max-p95-latency-rise", "100", "--max-invalid-rate-rise", "1"]);
    args.extend_from_slice(extra);
    calltape(&args, project_root())
}

#[test]
fn require_decisive_fails_the_gate_only_on_a_decisive_regression() {
    let dir = tempfile::tempdir().unwrap();
    let (seed1, seed2, off) = (dir.path().join("seed1"), dir.path().join("seed2"), dir.path().join("off"));
    cheap_run(&seed1, "full", "1");
    cheap_run(&seed2, "full", "2");
    cheap_run(&off, "off", "1");

    // Repair off costs the cheap model about 26 points on 50 scenarios: decisive.
    let out = gate(&seed1, &off, &["--require-decisive"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("pass rate 0.980 → 0.720 (−0.260, allowed −0.02), decisive ["), "{}", text(&out));

    // Another seed drops 4 points: beyond a zero threshold, within noise.
    let out = gate(&seed1, &seed2, &["--max-pass-rate-drop", "0", "--require-decisive"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Beyond a threshold but not decisive (not failed on: --require-decisive) (2)"), "{}", text(&out));
    assert!(text(&out).contains("pass rate 0.980 → 0.940 (−0.040, allowed −0), not decisive ["), "{}", text(&out));
    // The default gate fails on it all the same.
    let out = gate(&seed1, &seed2, &["--max-pass-rate-drop", "0"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[tokio::test]
async fn dry_run_prints_the_bill_and_sends_nothing() {
    let server = wiremock::MockServer::start().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    let suite = project_root().join("scenarios/bfcl-sample");
    std::fs::write(
        &config,
        format!(
            "[run]\nsuites = [{:?}]\nmode = \"live\"\n[[models]]\nname = \"live-model\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\napi_key_env = \"DECISIVE_TEST_KEY\"\nprice = {{ input = 1.0, output = 4.0 }}\n",
            suite.to_str().unwrap(),
            server.uri()
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("reports");
    let args: Vec<String> = ["run", "--config", config.to_str().unwrap(), "--dry-run", "--trials", "2", "--out", out_dir.to_str().unwrap()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = common::calltape_blocking(args, dir.path().to_path_buf(), vec![("DECISIVE_TEST_KEY".into(), "sk-test".into())]).await;
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("nothing is sent, nothing is written"), "{stdout}");
    // 300 scenarios × 2 trials, assumed 2 requests of 1,000 + 60 tokens at $1/$4 per million:
    // $1.20 of input and $0.288 of output.
    let row = stdout.lines().find(|l| l.starts_with("live-model")).unwrap_or_else(|| panic!("{stdout}"));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cells[1..6], ["600", "1200", "1200000", "72000", "1.4880"], "{row}");
    assert!(row.ends_with("assumed (no cassette)"), "{row}");
    assert!(stdout.lines().any(|l| l.starts_with("total")), "{stdout}");
    let received = server.received_requests().await.unwrap_or_default();
    assert!(received.is_empty(), "a dry run sent {} requests", received.len());
    assert!(!out_dir.exists(), "a dry run wrote {}", out_dir.display());
}

/// A run `--until-decisive` of `models` (names in `config`, or the
/// embedded default's), starting at `trials`.
fn until_decisive(out: &Path, config: Option<&Path>, models: &[&str], trials: &str, max_trials: &str) -> Output {
    let mut args = vec!["run", "--no-arms", "--suite", "scenarios/bfcl-sample", "--filter", "simple_python_*", "--trials", trials];
    if let Some(c) = config {
        args.extend_from_slice(&["--config", c.to_str().unwrap()]);
    }
    for m in models {
        args.extend_from_slice(&["--model", m]);
    }
    args.extend_from_slice(&["--until-decisive", "--max-trials", max_trials, "--out", out.to_str().unwrap()]);
    calltape(&args, project_root())
}

fn trials_run(out: &Path) -> Vec<u64> {
    let rows = common::csv_rows(&out.join("latest/by_scenario.csv"));
    let mut trials: Vec<u64> = rows.iter().map(|r| r["trials"].parse().unwrap()).collect();
    trials.dedup();
    trials
}

#[test]
fn until_decisive_stops_on_a_clear_difference() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    let run = until_decisive(&out, None, &["sim-strong", "sim-cheap-types"], "2", "8");
    assert!(run.status.success(), "{}", text(&run));
    assert!(text(&run).contains("until decisive: stopped, every comparison is decided"), "{}", text(&run));
    let trials = trials_run(&out);
    assert!(trials.len() == 1 && trials[0] < 8, "stopped before the cap: {trials:?}\n{}", text(&run));
}

#[test]
fn until_decisive_runs_to_its_cap_on_a_null_difference() {
    let dir = tempfile::tempdir().unwrap();
    // One simulated model under two names: the same fault rates, independent draws.
    let profile = "provider = \"sim\"\nmodel_id = \"twin\"\ntier = \"cheap\"\nprice = { input = 0.15, output = 0.6 }\n[models.sim]\nfaults = [\"wrong_type\"]\nfault_rate = 0.2\nlatency_ms = 300\n";
    let config = dir.path().join("twins.toml");
    std::fs::write(&config, format!("[[models]]\nname = \"twin-a\"\n{profile}\n[[models]]\nname = \"twin-b\"\n{profile}")).unwrap();
    let out = dir.path().join("r");
    let run = until_decisive(&out, Some(&config), &["twin-a", "twin-b"], "1", "3");
    assert!(run.status.success(), "{}", text(&run));
    assert!(text(&run).contains("until decisive: stopped, the trial cap (3) is reached; 1 undecided"), "{}", text(&run));
    assert_eq!(trials_run(&out), [3]);
}
