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
