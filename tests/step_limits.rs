//! Step limits end to end: `expect.max_steps` bounds a conversation's model
//! requests, `expect.max_steps_per_turn` (BFCL's 20 a turn) those within one
//! user turn; reaching either ends the conversation as a step limit. The
//! model is an OpenAI-compatible server (wiremock) that never stops calling.

use std::path::Path;

use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

mod common;
use common::{calltape_blocking, csv_rows};

/// A chat completion that makes one more call and never answers.
fn always_a_call() -> Value {
    json!({
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"id\": \"7\"}"}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}
    })
}

/// Runs a three-turn scenario with these limits against a model that never
/// stops calling; returns the requests it got and the run's scenario row.
async fn run(expect_limits: Value) -> (usize, std::collections::HashMap<String, String>) {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(always_a_call())).mount(&server).await;
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    let mut expect = json!({"calls": [{"tool": "lookup", "args": {"id": ["7"]}}]});
    expect.as_object_mut().unwrap().extend(expect_limits.as_object().unwrap().clone());
    let scenario = json!({
        "id": "three-lookups",
        "description": "Three user turns, each asking for a record.",
        "tools": [{"name": "lookup", "description": "Look a record up", "sensitive": false,
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}],
        "messages": [{"role": "user", "content": "Look up record 7."}],
        "followups": ["And record 8?", {"user": "And record 9?"}],
        "tool_results": [{"tool": "*", "result": "found"}],
        "expect": expect
    });
    std::fs::write(suite.join("three-lookups.json"), serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        format!(
            "[run]\nsuites = [\"{}\"]\n[[models]]\nname = \"looping\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\n",
            suite.display(),
            server.uri()
        ),
    )
    .unwrap();
    let out = dir.path().join("reports");
    let args = ["run", "--config", config.to_str().unwrap(), "--mode", "live", "--out", out.to_str().unwrap(), "--no-arms"];
    let key = vec![("OPENAI_API_KEY".to_string(), "test-key".to_string())];
    let output = calltape_blocking(args.map(String::from).to_vec(), dir.path().to_path_buf(), key).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let requests = server.received_requests().await.unwrap().len();
    let rows = csv_rows(&Path::new(&out).join("latest").join("scenarios.csv"));
    assert_eq!(rows.len(), 1, "{rows:?}\n{stderr}");
    (requests, rows.into_iter().next().unwrap())
}

#[tokio::test]
async fn a_turn_limit_ends_the_conversation_within_its_turn() {
    let (requests, row) = run(json!({"max_steps": 9, "max_steps_per_turn": 2})).await;
    assert_eq!(requests, 2, "two steps in the first turn, then the end: {row:?}");
    assert_eq!(row["passed"], "false");
    assert!(row["reason"].contains("step limit (2)"), "{row:?}");
}

#[tokio::test]
async fn without_a_turn_limit_the_whole_limit_applies() {
    let (requests, row) = run(json!({"max_steps": 5})).await;
    assert_eq!(requests, 5, "{row:?}");
    assert!(row["reason"].contains("step limit (5)"), "{row:?}");
}
