//! BFCL's multi-turn categories through the binary: import (turns, held-out
//! functions, answer keys), check (each reference meets its key), run on
//! the API classes with the simulated models, served over HTTP so they are
//! recorded like remote ones (tools offered turn by turn, verdicts with
//! BFCL's failure types) and bfcl-judge on hand-made
//! trajectories. The data is a few real BFCL entries (tests/fixtures/bfcl-multi-turn).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;

const CATEGORIES: [&str; 4] = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"];

fn calltape(args: &[&str], cwd: &Path) -> Output {
    // Off a runtime's own threads, where a test serves models on them.
    let run = || Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs");
    match tokio::runtime::Handle::try_current() {
        Ok(_) => tokio::task::block_in_place(run),
        Err(_) => run(),
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bfcl-multi-turn").join(name)
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Imports the four fixture categories into `<dir>/mt`.
fn imported(dir: &Path) -> PathBuf {
    let suite = dir.join("mt");
    for category in CATEGORIES {
        let data = fixture(&format!("BFCL_v4_{category}.json"));
        let out = calltape(&["import", "bfcl", data.to_str().unwrap(), "--out", suite.to_str().unwrap()], dir);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            format!("imported 2 of 2 {category} entries → {}", suite.join(format!("{category}.jsonl")).display())
        );
    }
    suite
}

#[test]
fn import_makes_turns_tools_and_a_key_and_check_runs_each_reference() {
    let dir = tempfile::tempdir().unwrap();
    let suite = imported(dir.path());
    let miss_func = lines(&suite.join("multi_turn_miss_func.jsonl"));
    let s = &miss_func[0];
    assert_eq!(s["id"], "multi_turn_miss_func_46");
    // Turn 0 in the messages, the others as followups; the held-out function
    // is among the tools, offered from the turn BFCL adds it with BFCL's words.
    assert_eq!(s["messages"].as_array().unwrap().len(), 1);
    let followups = s["followups"].as_array().unwrap();
    let offering: Vec<&Value> = followups.iter().filter(|f| f.get("offer").is_some()).collect();
    assert_eq!(offering.len(), 1);
    assert_eq!(offering[0]["user"], "I have updated some more functions you can choose from. What about now?");
    let held = offering[0]["offer"][0].as_str().unwrap();
    assert!(s["tools"].as_array().unwrap().iter().any(|t| t["name"] == held));
    let key = &s["expect"]["bfcl_multi_turn"];
    assert_eq!(key["category"], "multi_turn_miss_func");
    assert_eq!(key["involved_classes"], serde_json::json!(["MessageAPI", "GorillaFileSystem"]));
    assert_eq!(key["ground_truth"].as_array().unwrap().len(), followups.len() + 1);
    // BFCL's step limit: it quits a turn after a 21st request's calls have run.
    assert_eq!(s["expect"]["max_steps"], 21 * (followups.len() as u64 + 1));
    assert_eq!(s["expect"]["max_steps_per_turn"], 21, "BFCL runs a 21st request's calls, then quits the turn");
    // The starting state keeps BFCL's order ("Drafts" before "ArchivedProjects"): `ls` lists a folder in it.
    let text = std::fs::read_to_string(suite.join("multi_turn_miss_func.jsonl")).unwrap();
    let first = text.lines().next().unwrap();
    assert!(first.find("\"Drafts\"").unwrap() < first.find("\"ArchivedProjects\"").unwrap());
    assert!(lines(&suite.join("multi_turn_long_context.jsonl"))[0]["expect"]["bfcl_multi_turn"]["long_context"].as_bool().unwrap());

    // Every reference, sent as a model sends it, meets its own key.
    let out = calltape(&["check", suite.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok: mt (8 scenarios)");
}

/// A configuration with two remote models served at `base_url`: the strong
/// and the cheap simulators (`remote-strong`, `remote-cheap`).
fn remote_config(dir: &Path, base_url: &str) -> PathBuf {
    let model = |name: &str, id: &str, tier: &str| common::served::remote_model_toml(name, id, tier, base_url);
    let text = [
        calltape::config::EMBEDDED_DEFAULT.to_string(),
        model("remote-strong", "sim-strong", "strong"),
        model("remote-cheap", "sim-cheap-types", "cheap"),
    ];
    let path = dir.join("remote.toml");
    std::fs::write(&path, text.concat()).unwrap();
    path
}

/// Runs two remote models (one strong with repair, one cheap without) of
/// `config` on `suite` in `mode`, with the cassettes in `recordings`, into `<dir>/<out>`.
fn run_sims(dir: &Path, config: &Path, suite: &Path, mode: &str, recordings: &Path, out: &str) -> Output {
    let out = dir.join(out);
    let args =
        ["run", "--config", config.to_str().unwrap(), "--mode", mode, "--model", "remote-strong@full", "--model", "remote-cheap@off"];
    let paths = ["--suite", suite.to_str().unwrap(), "--recordings", recordings.to_str().unwrap(), "--out", out.to_str().unwrap()];
    calltape(&[&args[..], &paths[..]].concat(), dir)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_offers_held_out_tools_from_their_turn_and_judges_by_state() {
    let dir = tempfile::tempdir().unwrap();
    let suite = imported(dir.path());
    let suites = calltape::scenario::load_suites(std::slice::from_ref(&suite)).unwrap();
    let embedded = calltape::config::Config::parse(calltape::config::EMBEDDED_DEFAULT, "embedded").unwrap();
    let server = common::served::serve_profiles(&embedded, &suites).await;
    let config = remote_config(dir.path(), &format!("{}/v1", server.uri()));
    let recordings = dir.path().join("rec");
    let out = run_sims(dir.path(), &config, &suite, "record", &recordings, "reports");
    assert!(out.status.success() || out.status.code() == Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let reports = dir.path().join("reports/latest");
    let rows: Vec<Value> = {
        let mut r = csv::Reader::from_path(reports.join("scenarios.csv")).unwrap();
        r.deserialize::<std::collections::HashMap<String, String>>().map(|row| serde_json::to_value(row.unwrap()).unwrap()).collect()
    };
    assert_eq!(rows.len(), 16);
    // Every verdict is BFCL's: passed, or one of its failure types.
    for row in &rows {
        let reason = row["reason"].as_str().unwrap();
        assert!(reason == "passed" || reason.starts_with("multi_turn:"), "{reason}");
        assert_eq!(row["errored"], "false", "{row}");
    }
    // The cheap model without repair misses some (BFCL's types make it through).
    assert!(rows.iter().any(|r| r["model"] == "remote-strong@full" && r["passed"] == "true"));

    // The held-out function is absent from the requests before its turn and offered after.
    let cassette: Value =
        serde_json::from_str(&std::fs::read_to_string(recordings.join("mt/remote-strong@full/multi_turn_miss_func_46.t0.json")).unwrap())
            .unwrap();
    let held = lines(&suite.join("multi_turn_miss_func.jsonl"))[0]["followups"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|f| f.get("offer"))
        .map(|o| o[0].as_str().unwrap().to_string())
        .unwrap();
    // A cassette writes each request as what changed since the one before (format 2).
    let mut offered: Vec<bool> = Vec::new();
    let mut tools: Vec<Value> = Vec::new();
    for i in cassette["interactions"].as_array().unwrap() {
        let request = &i["request"];
        if let Some(Value::Array(new)) = request["body"].get("tools") {
            if request["continues"].get("tools").is_none() {
                tools.clear();
            }
            tools.extend(new.iter().cloned());
        }
        offered.push(tools.iter().any(|t| t["function"]["name"] == held.as_str()));
    }
    assert!(!offered[0] && *offered.last().unwrap(), "{offered:?}");

    // `show` says which user turn each step belongs to (BFCL's failure types name the turn).
    let shown = calltape(
        &["show", reports.to_str().unwrap(), "--scenario", "multi_turn_miss_func_46", "--model", "remote-strong@full"],
        dir.path(),
    );
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("step 1 · user turn 0") && shown.contains("· user turn 1"), "{shown}");

    // Replayed from those recordings with no server, the verdicts are the same.
    drop(server);
    let again = run_sims(dir.path(), &config, &suite, "replay", &recordings, "replayed");
    assert!(again.status.success() || again.status.code() == Some(1), "{}", String::from_utf8_lossy(&again.stderr));
    let first = std::fs::read_to_string(reports.join("scenarios.csv")).unwrap();
    let second = std::fs::read_to_string(dir.path().join("replayed/latest/scenarios.csv")).unwrap();
    let verdicts = |t: &str| t.lines().map(|l| l.split(',').take(6).collect::<Vec<_>>().join(",")).collect::<Vec<_>>();
    assert_eq!(verdicts(&first), verdicts(&second));
}

#[test]
fn bfcl_judge_gives_bfcl_failure_types_on_hand_made_trajectories() {
    let dir = tempfile::tempdir().unwrap();
    let suite = imported(dir.path());
    let answers = lines(&fixture("possible_answer/BFCL_v4_multi_turn_base.json"));
    let truth: Vec<Vec<String>> = serde_json::from_value(answers[0]["ground_truth"].clone()).unwrap();
    let id = answers[0]["id"].as_str().unwrap();
    let mut cut = truth.clone();
    cut.pop();
    let mut empty = truth.clone();
    let filled = empty.iter().position(|t| !t.is_empty()).unwrap();
    empty[filled].clear();
    let mut wrong = truth.clone();
    wrong[filled] = vec!["cd(folder='nowhere')".to_string()];
    let input: String = [(&truth, "right"), (&cut, "cut"), (&empty, "empty"), (&wrong, "wrong")]
        .iter()
        .map(|(turns, tag)| serde_json::json!({"id": id, "tag": tag, "turns": turns}).to_string() + "\n")
        .collect();
    let path = dir.path().join("answers.jsonl");
    std::fs::write(&path, input).unwrap();
    let out = calltape(&["bfcl-judge", "--suite", suite.to_str().unwrap(), path.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let verdicts: Vec<Value> = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let got: Vec<(&str, Option<&str>)> = verdicts.iter().map(|v| (v["tag"].as_str().unwrap(), v["error_type"].as_str())).collect();
    assert_eq!(
        got,
        [
            ("right", None),
            ("cut", Some("multi_turn:force_terminated")),
            ("empty", Some("multi_turn:empty_turn_model_response")),
            ("wrong", Some("multi_turn:instance_state_mismatch")),
        ]
    );
    assert_eq!(verdicts[0]["category"], "multi_turn_base");
}

#[test]
fn import_errors_name_the_entry_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    // No function docs beside the data: the message says where it looked and which flag to pass.
    let data = dir.path().join("BFCL_v4_multi_turn_base.json");
    std::fs::copy(fixture("BFCL_v4_multi_turn_base.json"), &data).unwrap();
    std::fs::create_dir_all(dir.path().join("possible_answer")).unwrap();
    std::fs::copy(fixture("possible_answer/BFCL_v4_multi_turn_base.json"), dir.path().join("possible_answer/BFCL_v4_multi_turn_base.json"))
        .unwrap();
    let out = calltape(&["import", "bfcl", data.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("multi-turn entries need BFCL's function docs (pass --func-docs DIR)"), "{stderr}");
    // With --func-docs it imports.
    let docs = fixture("multi_turn_func_doc");
    let out = calltape(&["import", "bfcl", data.to_str().unwrap(), "--func-docs", docs.to_str().unwrap(), "--out", "s"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // A class calltape does not execute is named, with the line.
    let text = std::fs::read_to_string(&data).unwrap().replacen("\"MessageAPI\"", "\"MemoryAPI_kv\"", 1);
    std::fs::write(&data, text).unwrap();
    let out = calltape(&["import", "bfcl", data.to_str().unwrap(), "--func-docs", docs.to_str().unwrap(), "--out", "s"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("BFCL_v4_multi_turn_base.json:1: multi_turn_base_46: class MemoryAPI_kv is not one calltape executes"),
        "{stderr}"
    );
}

#[test]
fn bfcl_judge_of_a_file_tree_that_contains_itself_twice_ends_promptly_naming_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let suite = imported(dir.path());
    let answers = lines(&fixture("possible_answer/BFCL_v4_multi_turn_base.json"));
    let id = answers[0]["id"].as_str().unwrap();
    // `loop/loop` holds itself; a copy of it inside it makes every level hold two.
    let turns = vec![vec![
        "mkdir(dir_name='loop')".to_string(),
        "cp(source='loop', destination='loop')".to_string(),
        "cd(folder='loop')".to_string(),
        "cd(folder='loop')".to_string(),
        "cp(source='loop', destination='y')".to_string(),
    ]];
    let path = dir.path().join("answers.jsonl");
    std::fs::write(&path, serde_json::json!({"id": id, "tag": "loop", "turns": turns}).to_string() + "\n").unwrap();
    let started = std::time::Instant::now();
    let out = calltape(&["bfcl-judge", "--suite", suite.to_str().unwrap(), path.to_str().unwrap()], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "{:?}", started.elapsed());
    assert!(stdout.len() < 1 << 20, "the verdict stays small: {} bytes", stdout.len());
    let verdict: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(verdict["tag"], "loop");
    assert_eq!(verdict["error_type"], "multi_turn:instance_state_mismatch", "{verdict}");
    let reason = verdict["reason"].as_str().unwrap();
    assert!(reason.contains("is over the limit of 100000 entries; raise it with CALLTAPE_MAX_BFCL_TREE_ENTRIES=N"), "{reason}");
}
