//! `calltape run` judges a BFCL answer's arguments in the order the model
//! wrote them, as BFCL does: its `simple_function_checker` walks
//! `model_params.items()`, the model's dict in written order (`json.loads`
//! keeps it), so of two wrong arguments the first written names the error
//! type. A served model answers with `unit` (a wrong string) before `base`
//! (a wrong integer): BFCL says `value_error:string`; in key order `base`
//! would come first (`value_error:others`).

use std::path::Path;
use std::process::Command;

mod common;
use common::answering::answering_server;
use common::csv_rows;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// An OpenAI-compatible server whose model always makes the same call.
fn serve_one_call(arguments: &str) -> String {
    let call = serde_json::json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function",
                            "function": {"name": "calculate_triangle_area", "arguments": arguments}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}});
    answering_server("200 OK", call.to_string())
}

#[test]
fn of_two_wrong_arguments_the_first_written_names_the_error_type() {
    let dir = tempfile::tempdir().unwrap();
    let calltape = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_calltape"))
            .args(args)
            .current_dir(dir.path())
            .env("ARG_ORDER_TEST_KEY", "k")
            .output()
            .expect("binary runs");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    let suite = dir.path().join("bfcl");
    let fixture = root().join("tests/fixtures/bfcl/BFCL_v4_simple_python.json");
    calltape(&["import", "bfcl", fixture.to_str().unwrap(), "--out", suite.to_str().unwrap(), "--limit", "1"]);

    // simple_python_0 expects base 10, height 5, unit "units" or omitted.
    let url = serve_one_call(r#"{"unit": "km", "base": 11, "height": 5}"#);
    let base = std::fs::read_to_string(root().join("calltape.toml")).unwrap();
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        format!("{base}\n[[models]]\nname = \"gpt-order\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{url}\"\napi_key_env = \"ARG_ORDER_TEST_KEY\"\nmax_retries = 0\ntimeout_secs = 5\n"),
    )
    .unwrap();
    let reports = dir.path().join("reports");
    calltape(&[
        "run",
        "--no-arms",
        "--mode",
        "live",
        "--config",
        config.to_str().unwrap(),
        "--suite",
        suite.to_str().unwrap(),
        "--out",
        reports.to_str().unwrap(),
        "--model",
        "gpt-order",
    ]);
    let rows = csv_rows(&reports.join("latest/scenarios.csv"));
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["passed"], "false");
    let reason = row.values().find(|v| v.contains("_error:")).unwrap_or_else(|| panic!("no BFCL error type in {row:?}"));
    assert!(reason.contains("value_error:string"), "{reason}");
}
