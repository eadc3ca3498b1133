//! `calltape show` and `calltape diff`: transcripts and aligned trajectories
//! rebuilt from events — on hand-made event sequences (snapshots, reviewed
//! with `cargo insta review`) and on the bundled default run.

use std::path::Path;
use std::process::{Command, Output};

use calltape::check::{ExpectationKind, FailedExpectation};
use calltape::events::{
    Event, EventKind, ModelRequestEvent, RepairStage, RequestPurpose, ScenarioFinishedEvent, ScenarioStartedEvent, ToolApprovalEvent,
    ToolCallEvent, ToolExecutedEvent, ToolRepairEvent, UnitKey,
};
use calltape::pipeline::approval::Decider;
use calltape::pipeline::{CallIssue, CallOutcome, Fix, FixStage, InvalidKind};
use calltape::transcript::align::{align, Op};
use calltape::transcript::render::{self, Look};
use calltape::transcript::transcripts;
use serde_json::json;

fn key(model: &str) -> UnitKey {
    UnitKey { model: model.into(), suite: "coding".into(), scenario: "fix-and-test".into(), trial: 0 }
}

fn ev(kind: EventKind) -> Event {
    Event { ts_ms: 0, kind }
}

fn turn(u: &UnitKey, step: u32, text: Option<&str>, finish: &str) -> Event {
    ev(EventKind::ModelRequest(ModelRequestEvent {
        unit: u.clone(),
        step,
        purpose: RequestPurpose::Turn,
        repair_of: None,
        status: Some(200),
        input_tokens: 10,
        output_tokens: 5,
        cached_input_tokens: 0,
        cost_usd: 0.0,
        latency_ms: 1.0,
        ttft_ms: None,
        error: None,
        rejected_call: None,
        text: text.map(str::to_string),
        reasoning: (step == 1).then(|| "I should read the file first.".to_string()),
        finish_reason: Some(finish.into()),
    }))
}

/// A call, its approval and (when approved) its result; `how` is
/// (repaired, approved).
fn call(u: &UnitKey, step: u32, id: &str, tool: &str, sent: &str, args: serde_json::Value, how: (bool, bool)) -> Vec<Event> {
    let (repaired, approved) = how;
    let mut out = Vec::new();
    let fixes = if repaired {
        vec![Fix { stage: FixStage::Schema, kind: "coerced_type".into(), path: "/line".into(), detail: "\"3\" → 3".into() }]
    } else {
        vec![]
    };
    if repaired {
        out.push(ev(EventKind::ToolRepair(ToolRepairEvent {
            unit: u.clone(),
            call_id: id.into(),
            tool: tool.into(),
            stage: RepairStage::Local,
            attempt: 1,
            fixes: fixes.clone(),
            succeeded: true,
            latency_us: Some(3.0),
            latency_ms: None,
            error: None,
        })));
    }
    out.push(ev(EventKind::ToolCall(ToolCallEvent {
        unit: u.clone(),
        step,
        call_id: id.into(),
        raw_name: tool.into(),
        tool: tool.into(),
        arguments: sent.into(),
        outcome: if repaired { CallOutcome::Repaired } else { CallOutcome::Valid },
        repaired_by: repaired.then_some(RepairStage::Local),
        invalid_kinds: if repaired { vec![InvalidKind::WrongType] } else { vec![] },
        issues: if repaired {
            vec![CallIssue { kind: InvalidKind::WrongType, path: "/line".into(), message: "\"3\" is not of type \"integer\"".into() }]
        } else {
            vec![]
        },
        remaining_kinds: vec![],
        fixes,
        timings: Default::default(),
        final_arguments: Some(args.clone()),
    })));
    out.push(ev(EventKind::ToolApproval(ToolApprovalEvent {
        unit: u.clone(),
        call_id: id.into(),
        tool: tool.into(),
        arguments: args,
        approved,
        reason: (!approved).then(|| "never delete the workspace".to_string()),
        decided_by: if approved { Decider::Auto } else { Decider::Rule },
        rule: (!approved).then(|| "scenario#1".to_string()),
        warning: None,
        latency_ms: 0.0,
    })));
    if approved {
        out.push(ev(EventKind::ToolExecuted(ToolExecutedEvent {
            unit: u.clone(),
            call_id: id.into(),
            tool: tool.into(),
            is_error: false,
            scripted: true,
            result: Some(format!("ok from {tool}\nsecond line")),
        })));
    }
    out
}

fn finished(u: &UnitKey, passed: bool, reason: &str, expectation: Option<FailedExpectation>) -> Event {
    ev(EventKind::ScenarioFinished(ScenarioFinishedEvent {
        outcome: None,
        unit: u.clone(),
        passed,
        reason: reason.into(),
        steps: 3,
        error: false,
        expectation,
        error_kind: None,
    }))
}

/// The strong model reads, edits, tests and answers; the cheap one reads,
/// lists the folder, tries `rm -rf` (denied) where the strong one tested,
/// edits another line sent as text (repaired), and fails on `calls`.
fn two_units() -> Vec<Event> {
    let (s, c) = (key("strong"), key("cheap"));
    let mut e = vec![ev(EventKind::ScenarioStarted(ScenarioStartedEvent { unit: s.clone() })), turn(&s, 1, None, "tool_calls")];
    e.extend(call(&s, 1, "c1", "read_file", r#"{"path":"a.rs"}"#, json!({"path": "a.rs"}), (false, true)));
    e.push(turn(&s, 2, None, "tool_calls"));
    e.extend(call(&s, 2, "c2", "edit", r#"{"path":"a.rs","line":3}"#, json!({"path": "a.rs", "line": 3}), (false, true)));
    e.extend(call(&s, 2, "c3", "bash", r#"{"command":"cargo test"}"#, json!({"command": "cargo test"}), (false, true)));
    e.push(turn(&s, 3, Some("Fixed: the tests pass."), "stop"));
    e.push(finished(&s, true, "passed", None));

    e.push(ev(EventKind::ScenarioStarted(ScenarioStartedEvent { unit: c.clone() })));
    e.push(turn(&c, 1, Some("Let me look."), "tool_calls"));
    e.extend(call(&c, 1, "c1", "read_file", r#"{"path":"a.rs"}"#, json!({"path": "a.rs"}), (false, true)));
    e.extend(call(&c, 1, "c4", "list_dir", "{}", json!({}), (false, true)));
    e.push(turn(&c, 2, None, "tool_calls"));
    e.extend(call(&c, 2, "c2", "bash", r#"{"command":"rm -rf ."}"#, json!({"command": "rm -rf ."}), (false, false)));
    e.extend(call(&c, 2, "c3", "edit", r#"{"path":"a.rs","line":"4"}"#, json!({"path": "a.rs", "line": 4}), (true, true)));
    e.push(turn(&c, 3, Some("Done \u{1b}[31mtrust me\u{1b}[0m."), "stop"));
    let expectation = FailedExpectation {
        kind: ExpectationKind::Calls,
        tool: Some("edit".into()),
        expected: Some(r#"{"tool":"edit","args":{"line":[3]}}"#.into()),
    };
    e.push(finished(&c, false, "`edit`: argument `line` = 4 is not an accepted value", Some(expectation)));
    e
}

#[test]
fn a_transcript_tells_the_unit_s_story() {
    let all = transcripts(&two_units());
    let cheap = all.iter().find(|t| t.unit.model == "cheap").unwrap();
    let calls: Vec<_> = cheap.calls().collect();
    assert_eq!(calls.len(), 4);
    assert!(calls[2].denied() && calls[2].result.is_none(), "a denied call has no result");
    assert_eq!(calls[3].repairs.len(), 1, "the local repair is attached to its call");
    assert_eq!(calls[0].result.as_ref().and_then(|r| r.content.as_deref()), Some("ok from read_file\nsecond line"));
    let text = render::transcript(cheap, &Look::plain(100));
    assert!(!text.contains('\u{1b}'), "no escape sequence from the model reaches the terminal");
    insta::assert_snapshot!("transcript_cheap", text);
}

#[test]
fn a_diff_aligns_the_steps_and_names_what_decided_the_verdict() {
    let all = transcripts(&two_units());
    let (cheap, strong) = (&all[0], &all[1]);
    assert_eq!((cheap.unit.model.as_str(), strong.unit.model.as_str()), ("cheap", "strong"));
    let al = align(strong, cheap, ("strong", "cheap"));
    let ops: Vec<Op> = al.rows.iter().map(|r| r.op).collect();
    // read = read; edit changed (line 3 → 4, repaired); bash changed
    // (`cargo test` → `rm -rf .`, denied); list_dir only in B.
    assert_eq!(ops, vec![Op::Same, Op::Changed, Op::Changed, Op::OnlyB]);
    let (b_edit, b_bash) = (al.rows[1].b.unwrap(), al.rows[2].b.unwrap());
    let cheap_calls: Vec<_> = cheap.calls().collect();
    assert_eq!(cheap_calls[b_edit].outcome, CallOutcome::Repaired);
    assert!(cheap_calls[b_bash].denied());
    assert_eq!(al.first_divergence, Some(1));
    assert_eq!(al.decision.expectation.as_ref().map(|e| e.kind), Some(ExpectationKind::Calls));
    assert_eq!(al.decision.row, Some(1), "the missed `edit` expectation shows at the changed edit");
    assert!(al.decision.summary.starts_with("strong met `calls` on `edit`"), "{}", al.decision.summary);
    insta::assert_snapshot!("diff_strong_cheap", render::diff(strong, cheap, ("strong", "cheap"), &al, &Look::plain(100)));
    // The other way round, the same difference decides.
    let back = align(cheap, strong, ("cheap", "strong"));
    assert!(back.decision.summary.starts_with("strong met `calls` on `edit`"), "{}", back.decision.summary);
    assert!(back.decision.summary.contains("; cheap missed it: `edit`: argument `line` = 4"), "{}", back.decision.summary);
}

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).env("NO_COLOR", "1").output().expect("binary runs")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Runs a command line calltape printed as advice, word by word (the
/// printed paths and names need no shell quoting here).
fn run_printed(line: &str, cwd: &Path) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0], "calltape", "{line}");
    stdout(&calltape(&words[1..], cwd))
}

#[test]
fn on_the_bundled_run_show_and_diff_explain_why_the_cheap_model_failed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let out_dir = tmp.path().join("r");
    let out_arg = out_dir.to_str().unwrap();
    stdout(&calltape(&["run", "--model", "sim-strong@full", "--model", "sim-cheap-types@full", "--out", out_arg], root));
    let run = out_dir.join("latest");
    let run_arg = run.to_str().unwrap();

    // sim-strong@full passes coding/read-write-test-run; sim-cheap-types@full runs the tests in the background.
    let show = stdout(&calltape(&["show", run_arg, "--model", "sim-cheap-types@full", "--scenario", "coding/read-write-test-run"], root));
    assert!(show.contains("FAILED in 4 steps: `Bash`: argument `run_in_background` = true is not an accepted value"), "{show}");
    assert!(show.contains(r#"as sent   Bash {"command":"cargo test --test slug","run_in_background":true}"#), "{show}");
    assert!(show.contains("missed    `calls` on `Bash`"), "{show}");
    assert!(show.contains("model     Done."), "the model's final text is in the events: {show}");

    let diff = stdout(&calltape(
        &["diff", run_arg, "--model", "sim-strong@full", "--model", "sim-cheap-types@full", "--scenario", "read-write-test-run"],
        root,
    ));
    assert!(diff.contains("decided   sim-strong@full met `calls` on `Bash`"), "{diff}");
    assert!(diff.contains("      run_in_background: false → true"), "the changed argument is named: {diff}");

    // The README's examples name models by their configured names: each
    // stands for its arms (here the one run, @full), and they run as printed.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("calltape show reports/latest --model") || l.starts_with("calltape diff reports/latest --model"))
        .map(|l| l.split('#').next().unwrap().trim())
        .collect();
    assert_eq!(examples.len(), 2, "{examples:?}");
    for example in examples {
        let printed = run_printed(&example.replace("reports/latest", run_arg), root);
        assert!(printed.contains("sim-cheap-types@full") && printed.contains("FAILED"), "{example}: {printed}");
    }
    // A name that ran nowhere: the error lists the names that did.
    for args in [&["show", run_arg, "--model", "sim-nope"][..], &["diff", run_arg, "--model", "sim-nope", "--model", "sim-strong"]] {
        let out = calltape(args, root);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("sim-cheap-types@full, sim-strong@full") || err.contains("sim-strong@full, sim-cheap-types@full"), "{err}");
    }

    // bfcl-multi-turn/multi_turn_base_122: the cheap model's place_order is
    // repaired to the same arguments (step 1: where they part, not what
    // decides); the order it then asks for, 12447 not 12446, decides (step 2).
    let diff = stdout(&calltape(
        &["diff", run_arg, "--model", "sim-strong@full", "--model", "sim-cheap-types@full", "--scenario", "multi_turn_base_122"],
        root,
    ));
    assert!(diff.contains("(shows at step #2 below)"), "{diff}");
    let step = |n: &str| diff.lines().find(|l| l.trim_start().starts_with(n)).unwrap_or_else(|| panic!("{diff}"));
    assert!(step("1 ≠ place_order").ends_with("← first divergence"), "{diff}");
    assert!(step("2 ~ get_order_details").ends_with("← decides"), "{diff}");
    assert!(diff.contains("order_id: 12446 → 12447"), "{diff}");

    // With no selection, `show` lists the failed units with commands that run as printed.
    let list = stdout(&calltape(&["show", run_arg], root));
    let first = list.lines().find(|l| l.trim_start().starts_with("calltape show")).expect("a command to show a failed unit");
    assert!(run_printed(first.trim(), root).contains("FAILED"), "{first}");
    // `diff` without a scenario lists the units whose verdicts differ, each with its command.
    let differing = stdout(&calltape(&["diff", run_arg, "--model", "sim-strong@full", "--model", "sim-cheap-types@full"], root));
    let command = differing.lines().find(|l| l.trim_start().starts_with("calltape diff")).expect("a command per differing unit");
    assert!(run_printed(command.trim(), root).contains("decided"), "{command}");

    // compare names the diff command for a newly failing scenario, and it runs as printed.
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    let base_dir = tmp.path().join("base");
    std::fs::create_dir(&base_dir).unwrap();
    let flipped: Vec<String> = events
        .lines()
        .map(|l| {
            if l.contains(r#""event":"scenario_finished","model":"sim-cheap-types@full","suite":"coding","scenario":"read-write-test-run""#)
            {
                l.replace(r#""passed":false"#, r#""passed":true"#)
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(base_dir.join("events.jsonl"), flipped.join("\n")).unwrap();
    // With --all, a command per scenario; by default one that lists them, each with its command.
    let compared = calltape(&["compare", base_dir.to_str().unwrap(), run_arg, "--all"], root);
    let text = String::from_utf8(compared.stdout).unwrap();
    let advice = text.lines().find(|l| l.contains("calltape diff")).unwrap_or_else(|| panic!("no diff command in: {text}"));
    let explained = run_printed(advice.trim(), root);
    assert!(explained.contains("sim-cheap-types@full (current): FAILED"), "{explained}");
    let compared = calltape(&["compare", base_dir.to_str().unwrap(), run_arg], root);
    let text = String::from_utf8(compared.stdout).unwrap();
    let advice = text.lines().find(|l| l.contains("calltape diff")).unwrap_or_else(|| panic!("no diff command in: {text}"));
    let listed = run_printed(advice.trim(), root);
    assert!(listed.contains("--scenario coding/read-write-test-run"), "{listed}");
}
