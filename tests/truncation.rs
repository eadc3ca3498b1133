//! Real provider streams cut off at the output limit (or by a closed
//! connection) while a tool call was being written, served by a wiremock
//! server and run through the whole binary: the call is counted as
//! `truncated` — in the events, `summary.csv`, `by_tool.csv`, on the
//! terminal and in `report.html` — and never as a local fix. Lenient parsing
//! closes its text, so it still runs and is judged. A control serves the
//! same cut text with the recording's own `tool_calls` finish: there it is
//! an ordinary repaired call.
//! The fixtures and what was cut: `tests/fixtures/truncated/README.md`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use wiremock::matchers::{body_string_contains, method, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/truncated").join(name)).unwrap()
}

/// (model name, provider, served stream)
const MODELS: [(&str, &str, &str); 5] = [
    ("length", "openai", "openai-length.sse"),
    ("cut", "openai", "openai-cut.sse"),
    ("control", "openai", "openai-unclosed-tool-calls.sse"),
    ("claude", "anthropic", "anthropic-max-tokens.sse"),
    ("gemini", "gemini", "gemini-max-tokens.sse"),
];

/// A plain answer in the provider's whole-body form.
fn answer(provider: &str, text: &str) -> Value {
    match provider {
        "anthropic" => json!({"type": "message", "role": "assistant", "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 50, "output_tokens": 9}}),
        "gemini" => json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}),
        _ => json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 9}}),
    }
}

/// Each model's first request gets its stream; the request after a tool
/// result (run or refused) gets a plain answer.
async fn server() -> MockServer {
    let server = MockServer::start().await;
    for (name, provider, stream) in MODELS {
        let prefix = format!("^/{name}/");
        for after in ["Sunny", "invalid tool call"] {
            Mock::given(method("POST"))
                .and(path_regex(prefix.as_str()))
                .and(body_string_contains(after))
                .respond_with(ResponseTemplate::new(200).set_body_json(answer(provider, "Sorry, I could not finish that.")))
                .with_priority(1)
                .mount(&server)
                .await;
        }
        Mock::given(method("POST"))
            .and(path_regex(prefix.as_str()))
            .respond_with(ResponseTemplate::new(200).set_body_raw(fixture(stream), "text/event-stream"))
            .mount(&server)
            .await;
    }
    server
}

type Rows = BTreeMap<String, BTreeMap<String, String>>;

/// Rows of a CSV table, keyed by `key` (joined by `/`).
fn rows(file: &Path, key: &[&str]) -> Rows {
    let mut reader = csv::Reader::from_path(file).unwrap();
    let headers = reader.headers().unwrap().clone();
    let mut out = BTreeMap::new();
    for record in reader.records() {
        let row: BTreeMap<String, String> =
            headers.iter().zip(record.unwrap().iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect();
        out.insert(key.iter().map(|k| row[*k].clone()).collect::<Vec<_>>().join("/"), row);
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn truncated_streams_are_counted_as_truncated_through_the_whole_run() {
    let server = server().await;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let mut config = format!(
        "[run]\nsuites = [\"{}\"]\n[pipeline]\nrepair = \"local\"\n",
        root.join("tests/fixtures/truncated/suite").display().to_string().replace('\\', "/")
    );
    for (name, provider, _) in MODELS {
        let version = if provider == "gemini" { "v1beta" } else { "v1" };
        config.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"{provider}\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/{name}/{version}\"\nstream = true\nmax_retries = 0\n",
            server.uri()
        ));
    }
    let config_path = dir.path().join("calltape.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = dir.path().join("reports");
    let output = tokio::task::spawn_blocking({
        let (config_path, out) = (config_path.clone(), out.clone());
        move || {
            Command::new(env!("CARGO_BIN_EXE_calltape"))
                .args(["run", "--config", config_path.to_str().unwrap(), "--out", out.to_str().unwrap()])
                .env("COLUMNS", "200")
                .current_dir(root)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Failed scenarios are results, not errors (no gate is configured).
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let latest = out.join("latest");

    // summary.csv: one truncated call per cut stream, none fixed locally, none left invalid.
    let summary = rows(&latest.join("summary.csv"), &["model"]);
    let get = |model: &str, column: &str| summary[model][column].as_str();
    let counts = |model: &str| ["calls", "invalid", "truncated", "repaired_local", "still_invalid", "parse_error"].map(|c| get(model, c));
    for model in ["length", "cut", "claude", "gemini"] {
        assert_eq!(counts(model), ["1", "1", "1", "0", "0", "0"], "{model}: {:?}", summary[model]);
    }
    // The same unclosed text, with the recording's own `tool_calls` finish: a fix.
    assert_eq!(counts("control"), ["1", "1", "0", "1", "0", "1"], "{:?}", summary["control"]);
    // The closed call is judged like any other ("New York" is an accepted
    // city), but only repair made it runnable.
    let scenarios = std::fs::read_to_string(latest.join("scenarios.csv")).unwrap();
    for model in ["length", "control"] {
        assert_eq!((get(model, "passed"), get(model, "passed_no_repair")), ("1", "0"), "{model}: {scenarios}");
    }

    // by_tool.csv: per model × tool.
    let by_tool = rows(&latest.join("by_tool.csv"), &["model", "tool"]);
    for (key, truncated) in [
        ("length/get_weather", "1"),
        ("cut/get_weather", "1"),
        ("claude/get_weather", "1"),
        ("gemini/weather", "1"),
        ("control/get_weather", "0"),
    ] {
        assert_eq!(by_tool[key]["truncated"], truncated, "{key}: {:?}", by_tool[key]);
        assert_eq!(by_tool[key]["repaired_local"], if truncated == "1" { "0" } else { "1" }, "{key}: {:?}", by_tool[key]);
    }

    // The events: the call as it arrived, filed as truncated; it ran as closed.
    let events: Vec<Value> =
        std::fs::read_to_string(latest.join("events.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let of = |kind: &str, model: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == kind && e["model"] == model).collect() };
    for (model, arguments, closed, says) in [
        ("length", r#"{"city":"New York"#, json!({"city": "New York"}), "finish reason `length`"),
        ("cut", r#"{"city":"New York"#, json!({"city": "New York"}), "the stream ended before the provider finished it"),
        ("claude", r#"{"location": "P"#, json!({"location": "P"}), "finish reason `max_tokens`"),
        ("gemini", r#"{"location":"San Francisco"}"#, json!({"location": "San Francisco"}), "finish reason `MAX_TOKENS`"),
    ] {
        let calls = of("tool_call", model);
        assert_eq!(calls.len(), 1, "{model}");
        let call = calls[0];
        assert_eq!(
            (
                &call["arguments"],
                &call["outcome"],
                &call["repaired_by"],
                &call["invalid_kinds"],
                &call["remaining_kinds"],
                &call["final_arguments"]
            ),
            (&json!(arguments), &json!("truncated"), &Value::Null, &json!(["truncated"]), &json!([]), &closed),
            "{model}: {call}"
        );
        assert!(call["issues"][0]["message"].as_str().unwrap().contains(says), "{model}: {call}");
        assert_eq!(of("tool_executed", model).len(), 1, "{model}: the closed call runs, so the turn goes on");
        assert!(of("tool_repair", model).is_empty(), "{model}: no repair is counted");
    }
    let control = of("tool_call", "control");
    assert_eq!((&control[0]["outcome"], &control[0]["final_arguments"]), (&json!("repaired"), &json!({"city": "New York"})));

    // The terminal's default view shows the column when a run has truncated calls…
    let per_model = stdout.lines().nth(1).unwrap_or_else(|| panic!("{stdout}"));
    assert!(per_model.contains("truncated"), "{stdout}");
    // …and so does the per-kind table of `report --all`.
    let all = Command::new(env!("CARGO_BIN_EXE_calltape")).args(["report", "--all"]).arg(&latest).output().unwrap();
    let all = String::from_utf8_lossy(&all.stdout);
    let kinds = all.split("Per model: invalid calls by kind").nth(1).unwrap_or_else(|| panic!("{all}"));
    let header = kinds.lines().nth(1).unwrap();
    assert!(header.contains("truncated") && header.contains("parse error"), "{header}");

    // So do the HTML report's tables, and its chart of kinds a legend entry.
    let html = std::fs::read_to_string(latest.join("report.html")).unwrap();
    assert!(html.contains(">truncated</th>") && html.contains(">truncated</text>"), "report.html lacks the truncated column or legend");
    assert!(html.contains("<title>length: 1 truncated</title>"), "the bar says what it counts");
}
