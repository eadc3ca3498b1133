//! Stateful scenarios as a user runs them: a workspace the coding tools
//! change, outcome expectations (final state, milestones, minefields)
//! reported per run, `calltape check` holding each reference solution to
//! its own expectations, and nothing on the host touched.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

fn project_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A suite folder holding the bundled `agent` toolset and these scenarios.
fn suite(dir: &Path, scenarios: &[Value]) -> std::path::PathBuf {
    let suite = dir.join("mine");
    std::fs::create_dir_all(suite.join("toolsets")).unwrap();
    std::fs::copy(project_root().join("scenarios/stateful/toolsets/agent.json"), suite.join("toolsets/agent.json")).unwrap();
    for s in scenarios {
        let id = s["id"].as_str().unwrap();
        std::fs::write(suite.join(format!("{id}.json")), serde_json::to_string_pretty(s).unwrap()).unwrap();
    }
    suite
}

/// A scenario fixing `a.txt`; `reference` is its solution, `state` its checks.
fn scenario(id: &str, reference: Value, state: Value) -> Value {
    json!({
        "id": id,
        "toolset": "agent",
        "messages": [{"role": "user", "content": "In a.txt, change `one` to `two`."}],
        "workspace": {"files": {"a.txt": "one\n", "keep.txt": "keep\n"}},
        "reference": reference,
        "expect": {
            "state": state,
            "milestones": [{"name": "read", "call": {"tool": "Read"}}, {"name": "fixed", "state": [{"file": "a.txt", "contains": "two"}]}]
        }
    })
}

fn edit(old: &str, new: &str) -> Value {
    json!({"tool": "Edit", "args": {"file_path": ["/workspace/a.txt"], "old_string": [old], "new_string": [new]}})
}

fn read() -> Value {
    json!({"tool": "Read", "args": {"file_path": ["/workspace/a.txt"]}})
}

#[test]
fn the_bundled_stateful_suite_meets_its_own_expectations() {
    let out = calltape(&["check", "scenarios/stateful"], project_root());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let count: usize = stdout.split("ok: stateful (").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
    assert!(count >= 30, "{stdout}");
}

#[test]
fn check_reports_a_reference_solution_that_misses_its_own_expectations() {
    let dir = tempfile::tempdir().unwrap();
    let good = scenario("good", json!([read(), edit("one", "two")]), json!([{"file": "a.txt", "equals": "two"}]));
    // Edits without reading first, and leaves the wrong text.
    let bad = scenario("bad", json!([edit("one", "three")]), json!([{"file": "a.txt", "equals": "two"}, {"only_changed": ["a.txt"]}]));
    let suite = suite(dir.path(), &[good, bad]);
    let out = calltape(&["check", suite.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("bad.json:1: scenario \"bad\": its reference solution does not meet its own expectations: milestones 0/2 (next: \"read\"); state 1/2 checks hold: /workspace/a.txt is not the expected text: line 1 is \"three\" (expected \"two\")"),
        "{stderr}"
    );
}

#[test]
fn outcome_expectations_need_a_workspace_and_sound_checks() {
    let dir = tempfile::tempdir().unwrap();
    let mut no_tree = scenario("no-tree", json!([]), json!([{"file": "a.txt", "contains": "two"}]));
    no_tree.as_object_mut().unwrap().remove("workspace");
    let folder = suite(dir.path(), &[no_tree]);
    let out = calltape(&["check", folder.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("state checks need a starting tree"), "{}", String::from_utf8_lossy(&out.stderr));

    let dir = tempfile::tempdir().unwrap();
    let silent = scenario("silent", json!([]), json!([{"file": "a.txt"}]));
    let folder = suite(dir.path(), &[silent]);
    let out = calltape(&["check", folder.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("silent.json:") && stderr.contains("says nothing about it"), "{stderr}");
}

#[test]
fn a_run_reports_each_outcome_expectation_and_touches_nothing_on_the_host() {
    let dir = tempfile::tempdir().unwrap();
    // A tree read from a folder, with a symlink to a host file beside it.
    let host_file = dir.path().join("host-secret.txt");
    std::fs::write(&host_file, "host\n").unwrap();
    let good =
        scenario("good", json!([read(), edit("one", "two")]), json!([{"file": "a.txt", "equals": "two"}, {"only_changed": ["a.txt"]}]));
    let mut bad = scenario(
        "bad",
        json!([edit("one", "three")]),
        json!([{"file": "a.txt", "equals": "two"}, {"file": "keep.txt", "unchanged": true}]),
    );
    bad["workspace"] = json!({"folder": "trees/bad"});
    bad["reference"].as_array_mut().unwrap().extend([
        json!({"tool": "Write", "args": {"file_path": ["/workspace/link.txt"], "content": ["overwritten"]}}),
        json!({"tool": "Write", "args": {"file_path": ["/workspace/../host-secret.txt"], "content": ["overwritten"]}}),
        json!({"tool": "Bash", "args": {"command": ["cat /workspace/../host-secret.txt"]}}),
    ]);
    let suite = suite(dir.path(), &[good, bad]);
    let tree = suite.join("trees/bad");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::write(tree.join("a.txt"), "one\n").unwrap();
    std::fs::write(tree.join("keep.txt"), "keep\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&host_file, tree.join("link.txt")).unwrap();

    let out_dir = dir.path().join("out");
    let out = calltape(
        &["run", "--mode", "live", "--model", "sim-strong", "--suite", suite.to_str().unwrap(), "--out", out_dir.to_str().unwrap()],
        project_root(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = common::csv_rows(&out_dir.join("latest/scenarios.csv"));
    let row = |id: &str| rows.iter().find(|r| r["scenario"] == id).unwrap().clone();
    let good = row("good");
    assert_eq!(good["passed"], "true", "{good:?}");
    assert_eq!(
        (
            &*good["milestones_reached"],
            &*good["milestones"],
            &*good["last_milestone"],
            &*good["state_checks_passed"],
            &*good["state_checks"]
        ),
        ("2", "2", "fixed", "2", "2")
    );
    let bad = row("bad");
    assert_eq!(bad["passed"], "false");
    assert_eq!((&*bad["milestones_reached"], &*bad["last_milestone"], &*bad["state_checks_passed"]), ("0", "", "1"), "{bad:?}");
    assert!(bad["reason"].starts_with("milestones 0/2 (next: \"read\")"), "{}", bad["reason"]);
    let by_scenario = common::csv_rows(&out_dir.join("latest/by_scenario.csv"));
    assert_eq!(by_scenario.iter().find(|r| r["scenario"] == "good").unwrap()["mean_milestones_reached"], "2");
    // A scenario without outcome expectations leaves the columns empty.
    assert!(rows.iter().all(|r| r.contains_key("milestones")));

    // The symlinked file was never part of the tree; the host is as it was.
    assert_eq!(std::fs::read_to_string(&host_file).unwrap(), "host\n");
    assert!(!tree.join("link.txt").symlink_metadata().unwrap().is_file());
    assert_eq!(std::fs::read_to_string(tree.join("a.txt")).unwrap(), "one\n");
    let events = std::fs::read_to_string(out_dir.join("latest/events.jsonl")).unwrap();
    let finished: Vec<Value> =
        events.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|e| e["event"] == "scenario_finished").collect();
    let bad_event = finished.iter().find(|e| e["scenario"] == "bad").unwrap();
    assert_eq!(bad_event["outcome"]["changed"], json!(["a.txt", "link.txt"]), "the Write made link.txt in memory only");
    assert!(events.contains("outside the workspace") || events.contains("leaves the workspace"), "the escape was refused");

    // `show` says what failed and which files the model changed.
    let out = calltape(&["show", out_dir.join("latest").to_str().unwrap(), "--scenario", "bad"], project_root());
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("missed    `milestones`"), "{shown}");
    assert!(shown.contains("changed   a.txt, link.txt"), "{shown}");
}
