//! What self-hosted servers do with a small model's calls, served by
//! wiremock: llama.cpp's 500 for output it cannot parse as a call, Ollama's
//! 500 that quotes the output, a call written as text in `content`, and
//! `tool_format = "text"`, where calltape reads the calls itself. Each ends
//! up in the tables as the model's invalid call of its own kind.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use wiremock::matchers::{body_string_contains, method, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

const READ_CARGO: &str = r#"{"name": "read_file", "arguments": {"target_file": "Cargo.toml", "should_read_entire_file": true}}"#;

fn answer(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20}
    }))
}

async fn server() -> MockServer {
    let server = MockServer::start().await;
    let mount = |prefix: &'static str, response: ResponseTemplate| {
        Mock::given(method("POST")).and(path_regex(format!("^/{prefix}/"))).respond_with(response)
    };
    // llama.cpp, as the local model's server answers (tools/local-model).
    mount(
        "llama",
        ResponseTemplate::new(500).set_body_json(json!({"error": {"code": 500, "type": "server_error",
            "message": "The model produced output that does not match the expected peg-native format"}})),
    )
    .mount(&server)
    .await;
    mount(
        "ollama",
        ResponseTemplate::new(500).set_body_json(json!({"error":
            "error parsing tool call: raw='{\"name\": \"read_file\", \"arguments\": {\"target_file\": \"Cargo.toml\"', err=unexpected end of JSON input"})),
    )
    .mount(&server)
    .await;
    // After the tool result, both text-writing servers answer.
    for prefix in ["textcall", "texttools"] {
        Mock::given(method("POST"))
            .and(path_regex(format!("^/{prefix}/")))
            .and(body_string_contains("edition = \\\"2021\\\""))
            .respond_with(answer("The edition is 2021."))
            .with_priority(1)
            .mount(&server)
            .await;
    }
    mount("textcall", answer(&format!("I'll read it.\n```json\n{READ_CARGO}\n```"))).mount(&server).await;
    // Asked for text, the model writes a tagged call with Python-style quotes.
    mount(
        "texttools",
        answer("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {'target_file': 'Cargo.toml', 'should_read_entire_file': True}}\n</tool_call>"),
    )
    .mount(&server)
    .await;
    server
}

/// Runs the one-scenario suite against every server model with `repair`,
/// and returns the summary and per-tool rows by model (and tool) and the events.
async fn run(server: &MockServer, repair: &str) -> (BTreeMap<String, BTreeMap<String, String>>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config = format!(
        "[run]\nsuites = [\"{}\"]\nmax_steps = 4\n[pipeline]\nrepair = \"{repair}\"\n",
        root.join("tests/fixtures/local-model-suite/local").display()
    );
    for name in ["llama", "ollama", "textcall", "texttools"] {
        let format = if name == "texttools" { "tool_format = \"text\"\n" } else { "" };
        config.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/{name}/v1\"\nmax_retries = 2\n{format}",
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
                .args(["run", "--config", config_path.to_str().unwrap(), "--filter", "read-cargo-toml", "--out", out.to_str().unwrap()])
                .current_dir(root)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let latest = out.join("latest");
    let mut rows = BTreeMap::new();
    for (file, key) in [("summary.csv", "model"), ("by_tool.csv", "tool")] {
        let mut reader = csv::Reader::from_path(latest.join(file)).unwrap();
        let headers = reader.headers().unwrap().clone();
        for record in reader.records() {
            let record = record.unwrap();
            let row: BTreeMap<String, String> = headers.iter().zip(record.iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect();
            let name = if key == "model" { row["model"].clone() } else { format!("{}/{}", row["model"], row["tool"]) };
            rows.insert(name, row);
        }
    }
    let events = std::fs::read_to_string(latest.join("events.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (rows, events)
}

#[tokio::test(flavor = "multi_thread")]
async fn server_rejections_and_calls_in_text_are_the_models_invalid_calls() {
    let server = server().await;
    let (rows, events) = run(&server, "local").await;
    let get = |row: &str, col: &str| rows[row][col].clone();

    // A rejection is an invalid call, not a request error, and is not retried.
    for model in ["llama", "ollama"] {
        assert_eq!(
            (get(model, "server_rejected_call"), get(model, "invalid"), get(model, "still_invalid")),
            ("1".into(), "1".into(), "1".into())
        );
        assert_eq!((get(model, "request_errors"), get(model, "passed")), ("0".into(), "0".into()), "{model}");
    }
    assert_eq!(get("llama/(rejected by server)", "server_rejected_call"), "1", "the call's tool is lost with its text");
    assert_eq!(get("ollama/read_file", "server_rejected_call"), "1", "Ollama quotes the output, so the tool is known");
    let received = server.received_requests().await.unwrap();
    let hits = |prefix: &str| received.iter().filter(|r| r.url.path().starts_with(&format!("/{prefix}/"))).count();
    assert_eq!(hits("llama"), 1, "the model's answer is not asked for again");
    let rejected = events.iter().find(|e| e["event"] == "model_request" && e["model"] == "llama").unwrap();
    assert!(rejected["error"].is_null() && rejected["rejected_call"].as_str().unwrap().contains("peg-native"), "{rejected}");

    // A call in a code fence is counted as written as text, and repair takes it out.
    assert_eq!(
        (get("textcall", "text_call"), get("textcall", "repaired_local"), get("textcall", "passed")),
        ("1".into(), "1".into(), "1".into())
    );
    assert_eq!(get("textcall", "pass_rate_no_repair"), "0", "without repair the call would not have run");

    // Tools as text: the server sees no `tools`, the system prompt lists them,
    // and the model's broken quoting reaches the pipeline as a parse error.
    let asked: Value = serde_json::from_slice(&received.iter().find(|r| r.url.path().starts_with("/texttools/")).unwrap().body).unwrap();
    assert!(asked.get("tools").is_none(), "{asked}");
    assert!(asked["messages"][0]["content"].as_str().unwrap().contains("<tools>\n{\"function\""), "{asked}");
    assert_eq!((get("texttools", "text_call"), get("texttools", "parse_error")), ("0".into(), "1".into()), "text is the format asked for");
    assert_eq!((get("texttools", "repaired_local"), get("texttools", "passed")), ("1".into(), "1".into()));
    let second = received.iter().filter(|r| r.url.path().starts_with("/texttools/")).nth(1).unwrap();
    let second: Value = serde_json::from_slice(&second.body).unwrap();
    let last = second["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(last["content"].as_str().unwrap().starts_with("<tool_response>\n[package]"), "{last}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_repair_a_call_written_as_text_is_counted_and_not_run() {
    let server = server().await;
    let (rows, events) = run(&server, "off").await;
    let get = |col: &str| rows["textcall"][col].clone();
    assert_eq!((get("text_call"), get("still_invalid"), get("passed")), ("1".into(), "1".into(), "0".into()));
    assert!(!events.iter().any(|e| e["event"] == "tool_executed" && e["model"] == "textcall"), "an unrecovered call is not run");
}
