//! The named exit codes (`calltape::exit_codes`) are what the binary exits
//! with, and the library's errors keep what caused them as their source,
//! with the messages users and scripts already read.

use std::error::Error;
use std::path::Path;
use std::process::{Command, Output};

use calltape::exit_codes;

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

fn project_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A suite folder with two scenario files that do not parse.
fn broken_suite(dir: &Path) -> std::path::PathBuf {
    let suite = dir.join("broken");
    std::fs::create_dir(&suite).unwrap();
    std::fs::write(suite.join("a.json"), "{\"id\": \"a\" \"messages\": []}\n").unwrap();
    std::fs::write(suite.join("b.json"), "{\"id\": \"b\",\n\"messages\": [}\n").unwrap();
    suite
}

#[test]
fn each_named_code_is_what_the_binary_exits_with() {
    let dir = tempfile::tempdir().unwrap();
    let out = calltape(&["check", "scenarios/coding"], project_root());
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS));

    let suite = broken_suite(dir.path());
    let out = calltape(&["check", suite.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE));
    assert!(String::from_utf8_lossy(&out.stderr).ends_with("2 problems found; fix them and run again (`calltape check` lists them too)\n"));

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = calltape(&["compare", "empty", "empty"], dir.path());
    assert_eq!(out.status.code(), Some(exit_codes::BAD_INPUT));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "error: empty is not a run folder: it has no events.jsonl\n");

    // clap's own usage errors share the code.
    let out = calltape(&["run", "--replay-speed", "fast"], dir.path());
    assert_eq!(out.status.code(), Some(exit_codes::BAD_INPUT));
    assert!(String::from_utf8_lossy(&out.stderr).contains("got text that is not a number"));
}

#[test]
fn help_lists_the_exit_codes() {
    let out = calltape(&["--help"], project_root());
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for code in [exit_codes::SUCCESS, exit_codes::FAILURE, exit_codes::BAD_INPUT, exit_codes::INTERRUPTED] {
        assert!(help.contains(&format!(" {code} ")), "--help does not list exit code {code}:\n{help}");
    }
}

#[test]
fn a_run_on_broken_suites_lists_every_problem_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let suite = broken_suite(dir.path());
    let out = calltape(&["run", "--suite", suite.to_str().unwrap(), "--out", "r"], dir.path());
    assert_eq!(out.status.code(), Some(exit_codes::BAD_INPUT));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(lines[0].starts_with("error: ") && lines[0].contains("a.json:1:"), "{stderr}");
    assert!(lines[1].starts_with("error: ") && lines[1].contains("b.json:2:"), "{stderr}");
    assert_eq!(lines[2], "fix them and run again (`calltape check` lists them too)");
    assert!(!dir.path().join("r").exists(), "nothing is written before the suites check");
}

#[test]
fn plan_load_errors_are_the_loaders_own() {
    let dir = tempfile::tempdir().unwrap();
    let suite = broken_suite(dir.path());
    let (mut config, _) = calltape::config::Config::discover(Some(&project_root().join("calltape.toml"))).unwrap();
    config.run.suites = vec![suite];
    let plan = calltape::plan::RunPlan::whole(config, "calltape.toml");
    let Err(calltape::plan::PlanError::Load(errors)) = plan.suites() else { panic!("the broken suite loaded") };
    assert_eq!(errors.len(), 2);
    assert!(errors[0].to_string().contains("a.json:1:") && errors[1].to_string().contains("b.json:2:"));
}

#[test]
fn a_setup_error_keeps_the_live_error_as_its_source() {
    use calltape::transport::live::LiveError;
    let live = LiveError::MissingKey { model: "m".into(), variable: "M_KEY".into() };
    let message = live.to_string();
    let e = calltape::runner::RunError::from(live);
    assert_eq!(e.to_string(), message, "the message is unchanged");
    let source = e.source().and_then(|s| s.downcast_ref::<LiveError>()).expect("the LiveError as source");
    assert!(matches!(source, LiveError::MissingKey { variable, .. } if variable == "M_KEY"));
}

#[test]
fn a_cassette_miss_is_typed_and_says_how_to_record() {
    use calltape::transport::{CassetteMiss, NoRecording, TransportError};
    let miss = CassetteMiss::NoRecording {
        unit: "coding/read-file (sim-a, trial 1)".into(),
        model: Some("judge".into()),
        key: "abc123".into(),
        why: Box::new(NoRecording::Absent { path: "recordings/x.json".into() }),
        record: "calltape run --mode record".into(),
    };
    let e = TransportError::from(miss.clone());
    assert_eq!(
        e.to_string(),
        "no recording for coding/read-file (sim-a, trial 1), a request to judge (request key abc123): there is no cassette \
         recordings/x.json. Record it with `calltape run --mode record`, or run with --mode live"
    );
    assert_eq!(e.source().and_then(|s| s.downcast_ref::<CassetteMiss>()), Some(&miss));
    let own = CassetteMiss::NoRecording {
        unit: "u".into(),
        model: None,
        key: "k".into(),
        why: Box::new(NoRecording::NotHeld { path: "c.json".into() }),
        record: "r".into(),
    };
    assert_eq!(
        own.to_string(),
        "no recording for u (request key k): c.json holds no recording of it. Record it with `r`, or run with --mode live"
    );
}

#[test]
fn bfcl_judge_errors_name_the_line_and_keep_the_parser_error() {
    use calltape::bfcl_outputs::{judge_lines, JudgeError};
    let e = judge_lines(&[], "\n{\"id\": 1\n".as_bytes(), std::io::sink()).unwrap_err();
    assert!(matches!(e, JudgeError::NotJson { line: 2, .. }), "{e:?}");
    assert!(e.to_string().starts_with("line 2: not JSON: "));
    assert!(e.source().and_then(|s| s.downcast_ref::<serde_json::Error>()).is_some());
    let e = judge_lines(&[], "{\"id\": \"x\"}\n".as_bytes(), std::io::sink()).unwrap_err();
    assert_eq!(e.to_string(), "line 1: no BFCL scenario with id \"x\" in the suites");
}

#[test]
fn impossible_run_flags_are_refused_with_the_usage_code() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, says) in [
        (&["--trials", "0"][..], "--trials"),
        (&["--max-steps", "0"], "--max-steps"),
        (&["--shard", "0/4"], "1 <= i <= n"),
        (&["--shard", "5/4"], "1 <= i <= n"),
        (&["--filter", ""], "an empty glob matches nothing"),
        (&["--filter", "read-[ab"], "never closed by `]`"),
        (&["--filter", "{read,write"], "never closed by `}`"),
        (&["--model", "sim-[x"], "never closed by `]`"),
        (&["--replay-speed", "0"], "the replay speed must be a positive number"),
        (&["--replay-speed", "5000"], "the replay speed must be a positive number"),
    ] {
        let mut args = vec!["run"];
        args.extend_from_slice(flags);
        // Refused before anything runs: no run folder is made in the cwd.
        let out = calltape(&args, dir.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(exit_codes::BAD_INPUT), "{flags:?}: {stderr}");
        assert!(stderr.contains(says), "{flags:?}: {stderr}");
        assert!(!dir.path().join("reports").exists(), "{flags:?} ran something");
    }
}

#[test]
fn an_impossible_glob_in_the_configuration_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(project_root().join("calltape.toml")).unwrap();
    // The first model runs only the scenarios of a glob that never closes.
    let text = text.replacen("[[models]]\n", "[[models]]\nscenarios = [\"read-{a,b\"]\n", 1);
    std::fs::write(dir.path().join("calltape.toml"), text).unwrap();
    let out = calltape(&["check"], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(exit_codes::BAD_INPUT), "{stderr}");
    assert!(stderr.contains("scenarios: invalid glob \"read-{a,b\": a `{` is never closed by `}`"), "{stderr}");
}

#[test]
fn repair_exits_1_when_the_outcome_is_still_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let schema = dir.path().join("schema.json");
    std::fs::write(&schema, r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#).unwrap();
    let schema = schema.to_str().unwrap();
    let outcome = |out: &Output| -> String {
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
        report["outcome"].as_str().unwrap().to_string()
    };

    let fixed = calltape(&["repair", "--schema", schema, r#"{"path": "a.txt",}"#], dir.path());
    assert_eq!((fixed.status.code(), outcome(&fixed).as_str()), (Some(exit_codes::SUCCESS), "repaired"));
    let valid = calltape(&["repair", "--schema", schema, r#"{"path": "a.txt"}"#], dir.path());
    assert_eq!((valid.status.code(), outcome(&valid).as_str()), (Some(exit_codes::SUCCESS), "valid"));
    // A required field with no default: still invalid, and the exit code says so.
    let still = calltape(&["repair", "--schema", schema, "{}"], dir.path());
    assert_eq!((still.status.code(), outcome(&still).as_str()), (Some(exit_codes::FAILURE), "invalid"));
    assert!(String::from_utf8_lossy(&still.stderr).contains("still not valid (outcome invalid)"));

    // A batch exits 1 when any line is still invalid (or unreadable), 0 when all are fixed.
    let good = dir.path().join("good.jsonl");
    std::fs::write(&good, "{\"args\": \"{\\\"path\\\": \\\"a\\\",}\"}\n{\"args\": \"{\\\"path\\\": \\\"b\\\"}\"}\n").unwrap();
    let out = calltape(&["repair", "--schema", schema, "--batch", good.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{}", String::from_utf8_lossy(&out.stderr));
    let mixed = dir.path().join("mixed.jsonl");
    std::fs::write(&mixed, "{\"args\": \"{\\\"path\\\": \\\"a\\\"}\"}\n{\"args\": \"{}\"}\n").unwrap();
    let out = calltape(&["repair", "--schema", schema, "--batch", mixed.to_str().unwrap()], dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE), "{stderr}");
    assert!(stderr.contains("1 valid, 0 repaired, 1 invalid, 0 unreadable lines"), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2, "every line is still reported");
    let unreadable = dir.path().join("bad.jsonl");
    std::fs::write(&unreadable, "not json\n").unwrap();
    let out = calltape(&["repair", "--batch", unreadable.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(exit_codes::FAILURE));
}

#[test]
fn a_filter_that_matches_nothing_names_what_there_is() {
    let out = calltape(&["run", "--suite", "scenarios/coding", "--model", "sim-strong", "--filter", "no-such-*"], project_root());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no scenario matches the filters [\"no-such-*\"]; the suites hold coding (55: "), "{stderr}");
    assert!(stderr.contains(", …) (a filter is a glob over scenario ids)"), "{stderr}");
}
