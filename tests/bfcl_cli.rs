//! The binary on BFCL suites: import, check, run (verdicts with BFCL's error
//! types in the reports) and bfcl-judge.

use std::path::Path;
use std::process::{Command, Output};

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bfcl").join(name).to_string_lossy().into_owned()
}

#[test]
fn import_check_run_and_judge() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("bfcl");
    let suite_arg = suite.to_str().unwrap();
    for (file, expected) in [
        ("BFCL_v4_simple_python.json", "imported 20 of 20 simple_python entries"),
        ("BFCL_v4_parallel.json", "imported 20 of 20 parallel entries"),
        ("BFCL_v4_irrelevance.json", "imported 5 of 20 irrelevance entries"),
    ] {
        let mut args = vec!["import", "bfcl", &fixture(file)].into_iter().map(String::from).collect::<Vec<_>>();
        args.extend(["--out".to_string(), suite_arg.to_string()]);
        if file.contains("irrelevance") {
            args.extend(["--limit", "5"].map(String::from));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = calltape(&args, dir.path());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).starts_with(expected), "{}", String::from_utf8_lossy(&out.stdout));
    }

    let out = calltape(&["check", suite_arg], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok: bfcl (45 scenarios)");

    let reports = dir.path().join("reports");
    let out = calltape(
        &[
            "run",
            "--no-arms",
            "--mode",
            "live",
            "--suite",
            suite_arg,
            "--out",
            reports.to_str().unwrap(),
            "--model",
            "sim-strong",
            "--model",
            "sim-cheap-types",
            "--model",
            "sim-cheap-extra",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = std::fs::read_to_string(reports.join("latest/scenarios.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 3 * 45);
    // Failures carry BFCL's error types; the cheap models make some.
    let reasons: Vec<&str> = rows.lines().skip(1).filter(|l| l.split(',').nth(4) == Some("false")).collect();
    assert!(!reasons.is_empty(), "{rows}");
    let known = [
        "simple_function_checker:",
        "parallel_function_checker_no_order:",
        "type_error:",
        "value_error:",
        "ast_decoder:",
        "irrelevance_error:",
    ];
    for row in &reasons {
        assert!(known.iter().any(|k| row.contains(k)), "not a BFCL reason: {row}");
    }
    // Every tool_call event of a valid call carries the arguments it went on with.
    let events = std::fs::read_to_string(reports.join("latest/events.jsonl")).unwrap();
    assert!(events.lines().any(|l| l.contains("\"event\":\"tool_call\"") && l.contains("\"final_arguments\":")));

    let answers = dir.path().join("answers.jsonl");
    std::fs::write(
        &answers,
        concat!(
            "{\"id\": \"simple_python_0\", \"calls\": [{\"calculate_triangle_area\": {\"base\": 10, \"height\": 5}}]}\n",
            "{\"id\": \"simple_python_0\", \"calls\": [{\"calculate_triangle_area\": {\"base\": 10, \"height\": 5, \"unit\": 2}}], \"tag\": \"x\"}\n",
            "{\"id\": \"irrelevance_0\", \"calls\": []}\n",
            "{\"id\": \"simple_python_0\", \"calls\": [{\"calculate_triangle_area\": {\"zz\": 1, \"base\": \"10\", \"height\": 5}}]}\n",
            "{\"id\": \"simple_python_0\", \"calls\": [{\"calculate_triangle_area\": {\"base\": \"10\", \"zz\": 1, \"height\": 5}}]}\n",
        ),
    )
    .unwrap();
    let out = calltape(&["bfcl-judge", "--suite", suite_arg, answers.to_str().unwrap()], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 5, "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(lines[0]["valid"], true);
    assert_eq!(lines[1]["valid"], false);
    assert_eq!(lines[1]["error_type"], "type_error:simple");
    assert_eq!(lines[1]["tag"], "x");
    assert_eq!(lines[2]["category"], "irrelevance");
    // Two faults: BFCL's `for param, value in model_params.items()` reports
    // the one of the parameter written first (Python dicts keep that order).
    assert_eq!(lines[3]["error_type"], "simple_function_checker:unexpected_param");
    assert_eq!(lines[4]["error_type"], "type_error:simple");

    let out = calltape(&["bfcl-judge", "--suite", suite_arg, answers.to_str().unwrap(), "--time", "2"], dir.path());
    let timing: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(timing["entries"], 4);
}

#[test]
fn import_names_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("BFCL_v4_memory_kv.json");
    std::fs::write(&bad, "{\"id\": \"memory_kv_0\", \"question\": [], \"function\": []}\n").unwrap();
    let out = calltape(&["import", "bfcl", bad.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("BFCL category `memory_kv` is not supported: memory categories need BFCL's memory backends"), "{stderr}");
    assert!(stderr.contains("calltape imports the single-turn categories (simple_python,"), "{stderr}");
    assert!(
        stderr.contains("and the multi-turn ones (multi_turn_base, multi_turn_miss_func, multi_turn_miss_param, multi_turn_long_context)"),
        "{stderr}"
    );

    // The retired composite category is named, not "unknown".
    let composite = dir.path().join("BFCL_v3_multi_turn_composite.json");
    std::fs::write(&composite, "{\"id\": \"multi_turn_composite_0\", \"question\": [], \"function\": []}\n").unwrap();
    let out = calltape(&["import", "bfcl", composite.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("BFCL category `multi_turn_composite` is not supported"));

    // Named by the first id when the file was renamed.
    let renamed = dir.path().join("mine.json");
    std::fs::write(&renamed, "{\"id\": \"web_search_base_3\", \"question\": [], \"function\": []}\n").unwrap();
    let out = calltape(&["import", "bfcl", renamed.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("BFCL category `web_search_base` is not supported"));

    // A file of no category BFCL has.
    let unknown = dir.path().join("other.json");
    std::fs::write(&unknown, "{\"id\": \"thing_0\", \"question\": [], \"function\": []}\n").unwrap();
    let out = calltape(&["import", "bfcl", unknown.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot tell the BFCL category"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_bad_answer_key_is_a_load_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("s");
    std::fs::create_dir(&suite).unwrap();
    let line = r#"{"id": "x", "tools": [{"name": "f", "parameters": {"type": "object", "properties": {}}}], "messages": [{"role": "user", "content": "hi"}], "expect": {"bfcl": {"category": "simple_python", "functions": [{"name": "g.h", "tool": "g_h"}], "ground_truth": []}}}"#;
    std::fs::write(suite.join("a.jsonl"), format!("{line}\n")).unwrap();
    let out = calltape(&["check", suite.to_str().unwrap()], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("a.jsonl:1:") && stderr.contains("category simple_python needs a ground_truth"), "{stderr}");
    assert!(stderr.contains("expect.bfcl names tool \"g_h\", which is not among the scenario's tools"), "{stderr}");
}
