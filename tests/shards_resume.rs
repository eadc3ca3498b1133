//! Nothing lost and nothing doubled: a run split into shards and merged, or
//! stopped (SIGINT, SIGKILL) and resumed, gives the tables of a run made in
//! one go.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::json;

mod common;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn calltape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("binary runs")
}

fn run_dir(out: &Path) -> PathBuf {
    std::fs::read_dir(out).unwrap().map(|e| e.unwrap().path()).find(|p| !p.ends_with("latest")).expect("a run folder")
}

/// Every CSV table of a run, minus columns timed in-process.
fn tables(dir: &Path) -> BTreeMap<String, Vec<Vec<String>>> {
    let out = common::csv_tables(dir);
    assert!(out.len() >= 5, "{out:?}");
    out
}

#[test]
fn three_shards_merged_equal_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = |name: &str| dir.path().join(name);
    // Every configured model (simulated and replayed) in every arm, on two of
    // the bundled suites: the default's shape at a fifth of its size.
    const SUITES: [&str; 4] = ["--suite", "scenarios/coding", "--suite", "scenarios/stateful"];
    let whole = calltape(&[&["run", "--out", out("whole").to_str().unwrap()][..], &SUITES].concat());
    assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
    let mut shard_dirs = Vec::new();
    for i in 1..=3 {
        let shard = format!("{i}/3");
        let o = calltape(&[&["run", "--shard", &shard, "--out", out(&format!("s{i}")).to_str().unwrap()][..], &SUITES].concat());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        shard_dirs.push(run_dir(&out(&format!("s{i}"))));
    }
    let mut args = vec!["merge".to_string()];
    args.extend(shard_dirs.iter().map(|d| d.display().to_string()));
    args.extend(["--out".into(), out("merged").display().to_string()]);
    let merged = calltape(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert!(String::from_utf8_lossy(&merged.stdout).contains("3 runs merged: 2664 units"), "{}", String::from_utf8_lossy(&merged.stdout));
    assert_eq!(tables(&run_dir(&out("merged"))), tables(&run_dir(&out("whole"))));

    // The same shard twice is refused, naming the unit and both folders.
    let s1 = shard_dirs[0].display().to_string();
    let twice = calltape(&["merge", &s1, &s1, "--out", out("bad").to_str().unwrap()]);
    assert_eq!(twice.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("is in both"), "{}", String::from_utf8_lossy(&twice.stderr));
}

#[test]
fn shard_flag_is_checked() {
    let o = calltape(&["run", "--shard", "4/3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not i/n"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A live model that answers every request after a delay, so a run takes
/// long enough to be stopped half-way.
async fn slow_server() -> MockServer {
    let server = MockServer::start().await;
    let body = json!({"choices": [{"message": {"role": "assistant", "content": "I would rather not use tools."}, "finish_reason": "stop"}],
                      "usage": {"prompt_tokens": 100, "completion_tokens": 10}});
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(body).set_delay(Duration::from_millis(120)))
        .mount(&server)
        .await;
    server
}

fn config_for(server: &MockServer, dir: &Path) -> PathBuf {
    let path = dir.join("calltape.toml");
    let text = format!(
        "[run]\nsuites = [\"{}/scenarios/coding\"]\n[[models]]\nname = \"slow\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\nconcurrency = 2\nprice = {{ input = 1.0, output = 2.0 }}\n",
        env!("CARGO_MANIFEST_DIR"),
        server.uri()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// Scenario outcomes, which must not depend on how the run was cut.
fn outcomes(run: &Path) -> Vec<Vec<String>> {
    let rows = &tables(run)["scenarios.csv"];
    let cols: Vec<usize> =
        ["model", "suite", "scenario", "trial", "passed", "reason"].iter().map(|c| rows[0].iter().position(|h| h == c).unwrap()).collect();
    let mut out: Vec<Vec<String>> = rows[1..].iter().map(|r| cols.iter().map(|&i| r[i].clone()).collect()).collect();
    out.sort();
    out
}

async fn interrupted_then_resumed(signal: &str) {
    let server = slow_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_for(&server, dir.path());
    let out = dir.path().join("reports");
    let child = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let killed = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let run = run_dir(&out);
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    let finished_before = events.matches("\"event\":\"scenario_finished\"").count();
    assert!(finished_before > 0 && finished_before < 55, "{finished_before} units finished before {signal}");
    if signal == "-INT" {
        assert_eq!(output.status.code(), Some(130), "{stderr}");
        // The advice names the configuration: resume checks the plan's endpoints against it.
        let advice = format!("resume with: calltape run --resume {} --config {}", run.display(), config.display());
        assert!(stderr.contains(&advice), "{stderr}");
        assert!(events.contains("\"event\":\"run_interrupted\""));
    }

    let resumed = tokio::task::spawn_blocking({
        let (run, config) = (run.clone(), config.clone());
        move || calltape(&["run", "--resume", run.to_str().unwrap(), "--config", config.to_str().unwrap()])
    })
    .await
    .unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert_eq!(events.matches("\"event\":\"scenario_finished\"").count(), 55, "every unit exactly once");
    assert_eq!(events.matches("\"event\":\"run_started\"").count(), 1);
    assert!(!events.contains("run_interrupted"));
    let requests = events.matches("\"event\":\"model_request\"").count();

    // The same plan in one go.
    let whole_out = dir.path().join("whole");
    let whole = tokio::task::spawn_blocking({
        let (config, whole_out) = (config.clone(), whole_out.clone());
        move || calltape(&["run", "--config", config.to_str().unwrap(), "--out", whole_out.to_str().unwrap()])
    })
    .await
    .unwrap();
    assert!(whole.status.success());
    let whole_run = run_dir(&whole_out);
    assert_eq!(outcomes(&run), outcomes(&whole_run));
    let whole_events = std::fs::read_to_string(whole_run.join("events.jsonl")).unwrap();
    assert_eq!(requests, whole_events.matches("\"event\":\"model_request\"").count(), "no request counted twice");
}

#[tokio::test(flavor = "multi_thread")]
async fn sigint_stops_cleanly_and_resume_finishes_the_run() {
    interrupted_then_resumed("-INT").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sigkill_loses_nothing_that_resume_cannot_redo() {
    interrupted_then_resumed("-KILL").await;
}

/// A shard takes its share of a live model's provider limits, says so as it
/// starts, and saves the divided figures in its plan, which a resume runs
/// with; a simulated model keeps its own. `--shard-limits whole` keeps them all.
#[tokio::test(flavor = "multi_thread")]
async fn a_shard_takes_its_share_of_a_live_models_limits() {
    let server = slow_server().await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    let text = format!(
        "[run]\nsuites = [\"{}/scenarios/coding\"]\n\
         [[models]]\nname = \"gpt-4.1-mini\"\nprovider = \"openai\"\nmodel_id = \"gpt-4.1-mini\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\n\
         requests_per_minute = 500\ntokens_per_minute = 200001\nconcurrency = 4\n\
         [[models]]\nname = \"sim\"\nprovider = \"sim\"\nmodel_id = \"sim\"\ntier = \"cheap\"\nconcurrency = 8\n[models.sim]\n",
        env!("CARGO_MANIFEST_DIR"),
        server.uri()
    );
    std::fs::write(&config, text).unwrap();
    let config = config.display().to_string();
    let run = |out: &Path, extra: &[&str]| {
        let mut args: Vec<String> =
            ["run", "--config", &config, "--shard", "1/2", "--filter", "read-*", "--out"].map(String::from).to_vec();
        args.push(out.display().to_string());
        args.extend(extra.iter().map(|a| a.to_string()));
        common::calltape_blocking(args, env!("CARGO_MANIFEST_DIR").into(), Vec::new())
    };
    let limits = |run: &Path| {
        let plan: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run.join("plan.json")).unwrap()).unwrap();
        let models = plan["config"]["models"].as_array().unwrap().clone();
        let figures = models.iter().map(|m| json!([m["requests_per_minute"], m["tokens_per_minute"], m["concurrency"]])).collect();
        (plan["shard_limits"].clone(), figures)
    };
    let line = "shard 1/2: gpt-4.1-mini gets 250 requests/min, 100000 tokens/min, 2 concurrent (1/2 of its limits; --shard-limits whole keeps them whole)";

    let out = dir.path().join("shared");
    let shared = run(&out, &[]).await;
    let stderr = String::from_utf8_lossy(&shared.stderr);
    assert!(shared.status.success(), "{stderr}");
    assert!(stderr.lines().any(|l| l == line), "{stderr}");
    assert_eq!(stderr.matches("shard 1/2:").count(), 1, "the simulated model is not divided: {stderr}");
    assert!(!server.received_requests().await.unwrap().is_empty(), "the live model was asked");
    let shard_run = run_dir(&out);
    assert_eq!(limits(&shard_run), (json!("share"), vec![json!([250, 100000, 2]), json!([null, null, 8])]));

    // A resume runs with the plan's figures, and says them again.
    let resumed = common::calltape_blocking(
        vec!["run".into(), "--resume".into(), shard_run.display().to_string(), "--config".into(), config.clone()],
        env!("CARGO_MANIFEST_DIR").into(),
        Vec::new(),
    )
    .await;
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert!(resumed.status.success(), "{stderr}");
    assert!(stderr.lines().any(|l| l == line), "{stderr}");
    assert_eq!(limits(&shard_run).1[0], json!([250, 100000, 2]));

    let out = dir.path().join("whole");
    let whole = run(&out, &["--shard-limits", "whole"]).await;
    let stderr = String::from_utf8_lossy(&whole.stderr);
    assert!(whole.status.success(), "{stderr}");
    assert!(!stderr.contains("shard 1/2:"), "{stderr}");
    assert_eq!(limits(&run_dir(&out)), (json!("whole"), vec![json!([500, 200001, 4]), json!([null, null, 8])]));

    // The flag shapes a shard's plan: refused without --shard, and on a resume.
    let alone = calltape(&["run", "--shard-limits", "whole"]);
    assert_eq!(alone.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&alone.stderr).contains("--shard <i/n>"), "{}", String::from_utf8_lossy(&alone.stderr));
    let resume = calltape(&["run", "--resume", shard_run.to_str().unwrap(), "--shard-limits", "whole"]);
    assert_eq!(resume.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&resume.stderr).contains("cannot be used with"), "{}", String::from_utf8_lossy(&resume.stderr));
}
