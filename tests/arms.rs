//! Arms: every unit run once per arm, paired, as a user runs it — the
//! tables per model × arm, the pairs between arms of one model and between
//! cheap and strong, recordings per arm, compare and merge on arm runs,
//! and arms that do not exist.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

/// The three repair arms.
const ARMS: &str = "off,local,full";

fn project_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A run (`mode`) of two simulated models in `arms` on a few BFCL entries.
fn arms_run(out: &Path, mode: &str, arms: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "--mode",
        mode,
        "--model",
        "sim-strong",
        "--model",
        "sim-cheap-types",
        "--arms",
        arms,
        "--suite",
        "scenarios/bfcl-sample",
        "--filter",
        "simple_python_*",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    calltape(&args, project_root())
}

#[test]
fn every_unit_runs_once_per_arm_and_the_arms_are_paired() {
    let dir = tempfile::tempdir().unwrap();
    let out = arms_run(&dir.path().join("r"), "live", ARMS, &[]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The default view: a row per model, its pass rate in each arm, the
    // paired difference of the last arm over the first and its p-value.
    assert!(stdout.starts_with("Per model and arm (2 models × 3 arms, paired on the same runs)"), "{stdout}");
    assert!(stdout.contains("off  local  full  full−off      p"), "{stdout}");
    assert!(!stdout.contains("w/o repair"), "the bound gives way to the measured arms: {stdout}");
    let all = calltape(&["report", dir.path().join("r/latest").to_str().unwrap(), "--all"], project_root());
    assert!(String::from_utf8_lossy(&all.stdout).contains("What each arm buys, paired with the model's first arm"), "{}", text(&all));

    let latest = dir.path().join("r/latest");
    let summary = common::csv_rows(&latest.join("summary.csv"));
    let names: Vec<&str> = summary.iter().map(|r| r["model"].as_str()).collect();
    assert_eq!(
        names,
        ["sim-strong@off", "sim-strong@local", "sim-strong@full", "sim-cheap-types@off", "sim-cheap-types@local", "sim-cheap-types@full"]
    );
    for r in &summary {
        let (base, arm) = r["model"].split_once('@').unwrap();
        assert_eq!((r["base_model"].as_str(), r["arm"].as_str(), r["arm_repair"].as_str()), (base, arm, arm));
    }
    let runs: Vec<&str> = summary.iter().map(|r| r["scenarios"].as_str()).collect();
    assert!(runs.windows(2).all(|w| w[0] == w[1]), "every arm runs every unit: {runs:?}");

    // BFCL's single answer: with repair off, an invalid call fails the entry;
    // the cheap model's `full` arm passes every entry `off` passes, and more.
    let pairs = common::csv_rows(&latest.join("pairs.csv"));
    let arm_pair = |a: &str, b: &str| pairs.iter().find(|p| p["model_a"] == a && p["model_b"] == b).unwrap().clone();
    let off_full = arm_pair("sim-cheap-types@off", "sim-cheap-types@full");
    assert_eq!((off_full["kind"].as_str(), off_full["arm_a"].as_str(), off_full["arm_b"].as_str()), ("arms", "off", "full"));
    assert_eq!(off_full["only_a"], "0", "{off_full:?}");
    assert!(off_full["only_b"].parse::<u32>().unwrap() > 0, "repair changes some verdicts: {off_full:?}");
    let diff: f64 = off_full["pass_rate_diff"].parse().unwrap();
    let (a, b): (f64, f64) = (off_full["pass_rate_a"].parse().unwrap(), off_full["pass_rate_b"].parse().unwrap());
    assert!((diff - (b - a)).abs() < 1e-9);
    assert!(off_full["p_value"].parse::<f64>().unwrap() <= 1.0);
    // Every cheap variant is paired with every strong one (in model order).
    let cheap_strong = arm_pair("sim-strong@full", "sim-cheap-types@full");
    assert_eq!(cheap_strong["kind"], "cheap_vs_strong");
    assert!(!cheap_strong["latency_ratio"].is_empty() && !cheap_strong["cost_ratio"].is_empty());

    // The run's events say which arm each model ran under.
    let events = std::fs::read_to_string(latest.join("events.jsonl")).unwrap();
    let started: serde_json::Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    assert_eq!(started["models"][1]["arm"], serde_json::json!({"name": "local", "base": "sim-strong", "repair": "local"}));
    let report = std::fs::read_to_string(latest.join("report.md")).unwrap();
    assert!(report.contains("What each arm buys") && report.contains("Cheap vs strong"), "{report}");
    // The cheap model comes first in its table, whatever the model order.
    let table = report.split("Cheap vs strong").nth(1).unwrap();
    let first_row = table.lines().find(|l| l.starts_with("| sim-")).unwrap();
    assert!(first_row.starts_with("| sim-cheap-types@"), "{first_row}");
    let html = std::fs::read_to_string(latest.join("report.html")).unwrap();
    assert!(html.contains("What each arm buys"));
}

#[tokio::test(flavor = "multi_thread")]
async fn arms_record_one_cassette_per_unit_and_arm_and_replay_them() {
    // A remote model (the cheap simulator served over HTTP): simulated
    // models themselves are computed, never recorded.
    let dir = tempfile::tempdir().unwrap();
    let mut suites = calltape::scenario::load_suites(&[project_root().join("scenarios/bfcl-sample")]).unwrap();
    suites[0].retain(|id| id.starts_with("simple_python_"));
    let embedded = calltape::config::Config::parse(calltape::config::EMBEDDED_DEFAULT, "embedded").unwrap();
    let server = common::served::serve_profiles(&embedded, &suites).await;
    let config = dir.path().join("calltape.toml");
    let remote = calltape::config::EMBEDDED_DEFAULT.to_string()
        + &common::served::remote_model_toml("remote-cheap", "sim-cheap-types", "cheap", &format!("{}/v1", server.uri()));
    std::fs::write(&config, remote).unwrap();
    let rec = dir.path().join("rec");
    let run = |out: &str, mode: &str, extra: &[&str]| {
        let mut args = vec!["run", "--config", config.to_str().unwrap(), "--mode", mode, "--model", "remote-cheap", "--arms", ARMS];
        args.extend_from_slice(&["--suite", "scenarios/bfcl-sample", "--filter", "simple_python_*", "--recordings", rec.to_str().unwrap()]);
        let out = dir.path().join(out);
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        args.extend_from_slice(extra);
        tokio::task::block_in_place(|| calltape(&args, project_root()))
    };
    let out = run("r1", "record", &[]);
    assert!(out.status.success(), "{}", text(&out));
    for arm in ["off", "local", "full"] {
        let folder = rec.join(format!("bfcl-sample/remote-cheap@{arm}"));
        assert!(folder.join("simple_python_100.t0.json").is_file(), "{}", folder.display());
    }
    drop(server);
    let replay = run("r2", "replay", &["--strict"]);
    assert!(replay.status.success(), "{}", text(&replay));
    assert_eq!(common::csv_tables(&dir.path().join("r1/latest")), common::csv_tables(&dir.path().join("r2/latest")));

    // compare reads two arm runs like any two runs.
    let cmp = calltape(
        &["compare", dir.path().join("r1/latest").to_str().unwrap(), dir.path().join("r2/latest").to_str().unwrap()],
        project_root(),
    );
    assert_eq!(cmp.status.code(), Some(0), "{}", text(&cmp));
}

#[test]
fn shards_of_an_arms_run_merge_into_the_whole() {
    let dir = tempfile::tempdir().unwrap();
    let whole = arms_run(&dir.path().join("whole"), "live", ARMS, &[]);
    assert!(whole.status.success(), "{}", text(&whole));
    let mut shards = Vec::new();
    for i in 1..=2 {
        let o = arms_run(&dir.path().join(format!("s{i}")), "live", ARMS, &["--shard", &format!("{i}/2")]);
        assert!(o.status.success(), "{}", text(&o));
        shards.push(dir.path().join(format!("s{i}/latest")).canonicalize().unwrap().display().to_string());
    }
    let merged_dir = dir.path().join("merged");
    let mut args = vec!["merge"];
    args.extend(shards.iter().map(String::as_str));
    args.extend(["--out", merged_dir.to_str().unwrap()]);
    let merged = calltape(&args, project_root());
    assert!(merged.status.success(), "{}", text(&merged));
    assert_eq!(common::csv_tables(&merged_dir.join("latest")), common::csv_tables(&dir.path().join("whole/latest")));
}

#[test]
fn an_unknown_arm_is_refused_naming_the_known_ones_and_custom_arms_work() {
    let dir = tempfile::tempdir().unwrap();
    let out = arms_run(&dir.path().join("r"), "live", "off,fixit", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("run.arms names \"fixit\"") && stderr.contains("known arms: off, local, full, strict"), "{stderr}");

    let config = dir.path().join("calltape.toml");
    let embedded = std::fs::read_to_string(project_root().join("calltape.toml")).unwrap();
    std::fs::write(&config, format!("{embedded}\n[arms.nofix]\nrepair = \"off\"\n")).unwrap();
    let out = calltape(
        &[
            "run",
            "--config",
            config.to_str().unwrap(),
            "--mode",
            "live",
            "--model",
            "sim-cheap-types",
            "--arms",
            "nofix,full",
            "--suite",
            "scenarios/bfcl-sample",
            "--filter",
            "simple_python_2*",
            "--out",
            dir.path().join("c").to_str().unwrap(),
        ],
        project_root(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let summary = common::csv_rows(&dir.path().join("c/latest/summary.csv"));
    assert_eq!(summary[0]["model"], "sim-cheap-types@nofix");
    assert_eq!(summary[0]["arm_repair"], "off");
}

#[test]
fn an_arm_a_provider_cannot_honour_is_reported_never_ignored() {
    let dir = tempfile::tempdir().unwrap();
    // The strict arm on a schema strict mode cannot take: that unit errors,
    // named, and the others run.
    let out = calltape(
        &[
            "run",
            "--mode",
            "live",
            "--model",
            "sim-cheap-types",
            "--arms",
            "off,strict",
            "--suite",
            "scenarios/bfcl-sample",
            "--filter",
            "{multiple_136,multiple_0}",
            "--out",
            dir.path().join("s").to_str().unwrap(),
        ],
        project_root(),
    );
    assert!(out.status.success(), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("sim-cheap-types@strict: 1 of 2 units errored"), "{stderr}");
    let rows = common::csv_rows(&dir.path().join("s/latest/scenarios.csv"));
    let refused = rows.iter().find(|r| r["model"] == "sim-cheap-types@strict" && r["scenario"] == "multiple_136").unwrap();
    assert_eq!(refused["error_kind"], "strict_unsupported");
    assert!(refused["reason"].contains("schema not supported by strict mode: tool `poker_game_winner`"), "{refused:?}");

    // A provider with no strict mode at all is refused before anything runs.
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        "[run]\nsuites = []\n[[models]]\nname = \"claude\"\nprovider = \"anthropic\"\nmodel_id = \"claude-x\"\ntier = \"strong\"\napi_key_env = \"NO_SUCH_KEY\"\n",
    )
    .unwrap();
    let out =
        calltape(&["run", "--config", config.to_str().unwrap(), "--arms", "full,strict", "--suite", "scenarios/bfcl-sample"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot honour strict_tools"), "{}", text(&out));
}

#[test]
fn the_default_runs_arms_and_no_arms_runs_each_model_once() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| {
        let out_dir = dir.path().join(out);
        let mut args = vec!["run", "--mode", "live", "--suite", "scenarios/bfcl-sample", "--filter", "simple_python_3*", "--out"];
        args.push(out_dir.to_str().unwrap());
        args.extend_from_slice(extra);
        let o = calltape(&args, project_root());
        assert!(o.status.success(), "{}", text(&o));
        common::csv_rows(&out_dir.join("latest/summary.csv")).into_iter().map(|r| r["model"].clone()).collect::<Vec<_>>()
    };
    assert_eq!(run(&["--model", "sim-strong"], "a"), ["sim-strong@off", "sim-strong@local", "sim-strong@full"]);
    assert_eq!(run(&["--model", "sim-strong", "--no-arms"], "b"), ["sim-strong"]);
}

/// `--repair X` on the default's arms: each model runs its arm that
/// repairs X, said on stderr, and the table is that arm's. A model with no
/// such arm is left out and named; with none left, the run is refused.
#[test]
fn repair_on_arms_runs_the_arm_that_repairs_so_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| {
        let out_dir = dir.path().join(name);
        let mut args = vec!["run", "--suite", "scenarios/bfcl-sample", "--filter", "simple_python_1*", "--out", out_dir.to_str().unwrap()];
        args.extend_from_slice(extra);
        (calltape(&args, project_root()), out_dir.join("latest/summary.csv"))
    };
    let (default, _) = run("default", &[]);
    let (off, summary) = run("off", &["--repair", "off"]);
    assert!(off.status.success() && default.status.success(), "{}", text(&off));
    let (default, off_out) = (String::from_utf8_lossy(&default.stdout), String::from_utf8_lossy(&off.stdout));
    let table = |s: &str| s.split("\n\n").next().unwrap().to_string();
    assert_ne!(table(&default), table(&off_out), "--repair off changes the table");
    assert!(off_out.starts_with("Per model and arm (12 models × 1 arm, 1 without arms)\n"), "{off_out}");
    assert!(off_out.contains(" off ") && !off_out.contains(" full ") && !off_out.contains("off−off"), "{off_out}");
    let stderr = String::from_utf8_lossy(&off.stderr);
    assert!(
        stderr.contains(
            "note: --repair off with arms runs the arm that repairs off: `off` for 12 models; `--no-arms --repair off` runs without arms"
        ),
        "{stderr}"
    );
    let summary = std::fs::read_to_string(summary).unwrap();
    let rows: Vec<&str> = summary.lines().skip(1).collect();
    assert_eq!(rows.len(), 13, "{summary}");
    assert!(rows.iter().all(|r| r.contains("@off,") || r.starts_with("qwen2.5-coder-1.5b-local,")), "{summary}");
    let errored = summary.lines().next().unwrap().split(',').position(|c| c == "errored").expect("an errored column");
    assert!(rows.iter().all(|r| r.split(',').nth(errored) == Some("0")), "no errored unit: {summary}");

    // The qwen 0.5b models have no `local` arm: left out, and named.
    let (local, _) = run("local", &["--repair", "local"]);
    assert!(local.status.success(), "{}", text(&local));
    assert!(
        String::from_utf8_lossy(&local.stderr).contains(
            "note: --repair local: left out, no arm repairs local: qwen2.5-coder-0.5b-local has arms off, full; qwen2.5-coder-0.5b-local-text has arms off, full"
        ),
        "{}",
        text(&local)
    );
    let (refused, _) = run("refused", &["--repair", "local", "--model", "qwen2.5-coder-0.5b-local"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("run `--no-arms --repair local` for one run without arms, or name an arm with --arms"),
        "{}",
        text(&refused)
    );
    // An arm named and another picked by --repair: refused, not an empty run.
    let (both, _) = run("both", &["--repair", "off", "--model", "sim-strong@full"]);
    assert_eq!(both.status.code(), Some(2), "{}", text(&both));
    assert!(text(&both).contains("--model sim-strong@full names other arms than the one --repair off picks"), "{}", text(&both));
}

/// `--no-arms --repair off`, as `--repair off` advises: every model runs
/// once, and the recorded local models replay their `off` arm's
/// recordings (the same settings made the same exchanges): no unit errors.
#[test]
fn no_arms_with_repair_off_replays_the_recorded_arm_with_those_settings() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let args = [
        "run",
        "--no-arms",
        "--repair",
        "off",
        "--suite",
        "scenarios/bfcl-sample",
        "--filter",
        "irrelevance_5",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let out = calltape(&args, project_root());
    assert!(out.status.success(), "{}", text(&out));
    let rows = common::csv_rows(&out_dir.join("latest/summary.csv"));
    assert_eq!(rows.len(), 13);
    assert!(rows.iter().all(|r| !r["model"].contains('@') && r["errored"] == "0"), "{rows:?}");
    let qwen = rows.iter().find(|r| r["model"] == "qwen2.5-coder-0.5b-local").expect("the recorded model runs");
    assert_ne!(qwen["scenarios"], "0", "{qwen:?}");
}
