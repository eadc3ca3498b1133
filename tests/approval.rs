//! Approval as a user runs it: modes, script rules on the bundled approval
//! scenarios, and interactive mode in a real pseudo-terminal.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn calltape(args: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(args)
        // Approval changes what the models are asked: the simulators answer live, not the bundled recordings.
        .args(["--out", out.to_str().unwrap(), "--mode", "live", "--suite", "scenarios/coding"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("binary runs")
}

fn events(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("latest/events.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

const SENSITIVE: [&str; 5] = ["Bash", "Write", "Edit", "run_terminal_cmd", "search_replace"];

fn of<'a>(events: &'a [Value], kind: &str) -> impl Iterator<Item = &'a Value> + 'a {
    let kind = kind.to_string();
    events.iter().filter(move |e| e["event"] == kind.as_str())
}

#[test]
fn auto_denies_only_by_the_configured_rules_and_deny_executes_no_sensitive_call() {
    // The embedded default applies its deny rules in auto mode as guard rails.
    let dir = tempfile::tempdir().unwrap();
    let out = calltape(&["run", "--approve", "auto", "--model", "sim-strong"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ev = events(dir.path());
    for e in of(&ev, "tool_approval") {
        let by_auto = e["approved"] == true && e["decided_by"] == "auto";
        // Deny rules come first in every mode: the scenario's, then the configuration's.
        let rule = e["rule"].as_str().unwrap_or_default();
        let by_deny_rule =
            e["approved"] == false && e["decided_by"] == "rule" && (rule.starts_with("config#") || rule.starts_with("scenario#"));
        assert!(by_auto || by_deny_rule, "{e}");
    }
    let denied: HashSet<String> = of(&ev, "tool_approval").filter(|e| e["approved"] == false).map(|e| e["call_id"].to_string()).collect();
    assert!(!denied.is_empty(), "the bundled approval scenarios ask for rm -rf, force pushes and writes to /etc");
    assert!(of(&ev, "tool_executed").all(|e| !denied.contains(&e["call_id"].to_string())));
    assert!(of(&ev, "tool_executed").any(|e| SENSITIVE.contains(&e["tool"].as_str().unwrap())));

    // With deny_rules_in_auto = false, auto approves every call.
    let dir = tempfile::tempdir().unwrap();
    let config = calltape::config::EMBEDDED_DEFAULT.replace("deny_rules_in_auto = true", "deny_rules_in_auto = false");
    assert_ne!(config, calltape::config::EMBEDDED_DEFAULT);
    let config_path = dir.path().join("calltape.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = calltape(&["run", "--config", config_path.to_str().unwrap(), "--approve", "auto", "--model", "sim-strong"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ev = events(dir.path());
    assert!(of(&ev, "tool_approval").count() > 0);
    assert!(of(&ev, "tool_approval").all(|e| e["approved"] == true && e["decided_by"] == "auto"));

    let dir = tempfile::tempdir().unwrap();
    let out = calltape(&["run", "--approve", "deny", "--model", "sim-strong"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ev = events(dir.path());
    assert!(of(&ev, "tool_approval").count() > 20);
    // A deny rule that matches decides first (and names itself); the mode denies the rest.
    assert!(of(&ev, "tool_approval").all(|e| e["approved"] == false && (e["decided_by"] == "policy" || e["decided_by"] == "rule")));
    assert!(of(&ev, "tool_approval").any(|e| e["decided_by"] == "rule"));
    let executed: Vec<&str> = of(&ev, "tool_executed").map(|e| e["tool"].as_str().unwrap()).collect();
    assert!(!executed.is_empty() && executed.iter().all(|t| !SENSITIVE.contains(t)), "{executed:?}");
}

#[test]
fn script_denials_are_never_executed_and_followups_are_counted() {
    let dir = tempfile::tempdir().unwrap();
    let out = calltape(&["run", "--approve", "script", "--trials", "3", "--model", "sim-*"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ev = events(dir.path());
    let denied: HashSet<(String, String, u64, String)> = of(&ev, "tool_approval")
        .filter(|e| e["approved"] == false)
        .map(|e| (e["model"].to_string(), e["scenario"].to_string(), e["trial"].as_u64().unwrap(), e["call_id"].to_string()))
        .collect();
    assert!(denied.len() >= 8 * 3 * 4, "every model is denied in the approval scenarios: {}", denied.len());
    for e in of(&ev, "tool_executed") {
        let key = (e["model"].to_string(), e["scenario"].to_string(), e["trial"].as_u64().unwrap(), e["call_id"].to_string());
        assert!(!denied.contains(&key), "a denied call was executed: {e}");
    }
    // Every denial is followed up exactly once.
    assert_eq!(of(&ev, "denial_followup").count(), denied.len());
    let summary = std::fs::read_to_string(dir.path().join("latest/summary.csv")).unwrap();
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    for column in
        ["approvals_requested", "approved", "denied", "after_denial_retried_same", "after_denial_answered", "after_denial_step_limit"]
    {
        assert!(header.contains(&column), "summary.csv lacks {column}");
    }
    let by_tool = std::fs::read_to_string(dir.path().join("latest/by_tool.csv")).unwrap();
    assert!(by_tool.lines().next().unwrap().contains(",approvals_requested,approved,denied,"));
}

#[test]
fn interactive_refuses_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = calltape(&["run", "--approve", "interactive", "--model", "sim-strong"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a terminal"));
    assert!(!dir.path().join("latest").exists(), "nothing runs");
}

/// Runs calltape under `script`, which gives it a pseudo-terminal and types our input.
#[test]
fn interactive_asks_in_a_real_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        panic!("`script` (util-linux) is needed for the pseudo-terminal test");
    }
    let dir = tempfile::tempdir().unwrap();
    let cmd = format!(
        "{} run --mode live --no-arms --approve interactive --model sim-strong --filter approval-approve-cargo-test --filter approval-deny-write-etc-hosts --out {}",
        env!("CARGO_BIN_EXE_calltape"),
        dir.path().display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Two sensitive calls, in either order: the first answer is nonsense (asked again), then never, then yes.
    child.stdin.as_mut().unwrap().write_all(b"maybe\nnever\ny\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{screen}");
    assert!(screen.contains("approve? [y]es / [n]o / [a]lways / ne[v]er"), "{screen}");
    let ev = events(dir.path());
    let approvals: Vec<&Value> = of(&ev, "tool_approval").collect();
    // The write to /etc/hosts is stopped by a deny rule before anyone is asked.
    let by_rule: Vec<&&Value> = approvals.iter().filter(|e| e["decided_by"] == "rule").collect();
    assert!(by_rule.iter().any(|e| e["tool"] == "Write" && e["approved"] == false), "{screen}");
    let by_person: Vec<&&Value> = approvals.iter().filter(|e| e["decided_by"] == "person").collect();
    assert_eq!(by_rule.len() + by_person.len(), approvals.len(), "{approvals:?}");
    // The cargo test call was asked: "maybe" asked again, "never" denied its tool for the rest of the run.
    assert!(!by_person.is_empty() && by_person.iter().all(|e| e["approved"] == false && e["tool"] != "Write"), "{screen}");
    let denied_tools: HashSet<&str> = by_person.iter().map(|e| e["tool"].as_str().unwrap()).collect();
    assert_eq!(denied_tools.len(), 1, "{screen}");
}
