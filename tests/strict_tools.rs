//! Provider strict mode for tool schemas (`strict_tools = true`), end to
//! end: the configuration refuses it where a provider cannot honour it, an
//! OpenAI-compatible server is sent `strict: true` with the adjusted schema,
//! strict mode's nulls for optional arguments are not counted as invalid, a
//! simulated model under strict mode makes no syntax or schema faults, and a
//! tool strict mode cannot take errors its unit as `strict_unsupported`
//! rather than running it non-strict.

use std::path::Path;
use std::process::Command;

use calltape::chat::{ChatMessage, ChatRequest, ToolDefinition};
use calltape::config::Config;
use calltape::provider::{self, ProviderError};
use calltape::transport::live::LiveTransport;
use calltape::transport::Transport;
use serde_json::{json, Value};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

mod common;
use common::{copy_dir, csv_rows};

fn model(provider: &str, extra: &str) -> Result<calltape::config::ModelConfig, String> {
    let text = format!(
        "[[models]]\nname = \"m\"\nprovider = \"{provider}\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"http://127.0.0.1:9/v1\"\n{extra}\n"
    );
    Config::parse(&text, "test.toml").map(|mut c| c.models.remove(0)).map_err(|e| e.to_string())
}

#[test]
fn strict_tools_is_refused_where_a_provider_cannot_honour_it() {
    assert!(!model("openai", "").unwrap().strict_tools, "off by default");
    assert!(model("openai", "strict_tools = true").unwrap().strict_tools);
    assert!(model("openai", "strict_tools = true\nstream = true").is_ok());
    for (provider, extra, why) in [
        ("gemini", "", "provider gemini (its API has no strict flag for tools) cannot honour strict_tools"),
        ("anthropic", "", "provider anthropic (not implemented in calltape) cannot honour strict_tools"),
        ("openai", "tool_format = \"text\"", "tool_format = \"text\" (tools described in the prompt) cannot honour strict_tools"),
    ] {
        let e = model(provider, &format!("strict_tools = true\n{extra}")).unwrap_err();
        assert!(e.contains("test.toml"), "{e}");
        assert!(e.contains(&format!("model \"m\": {why}; remove `strict_tools = true` from this model")), "{e}");
    }
}

fn weather_tool() -> ToolDefinition {
    ToolDefinition {
        name: "get_weather".into(),
        description: "Weather for a city".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["c", "f"], "default": "c"}
            },
            "required": ["city"]
        }),
    }
}

fn chat(tools: Vec<ToolDefinition>) -> ChatRequest {
    ChatRequest {
        model_id: "m".into(),
        messages: vec![ChatMessage::User { content: "Weather in Oslo?".into() }],
        tools,
        temperature: None,
        max_tokens: None,
        seed: None,
    }
}

#[tokio::test]
async fn a_strict_model_sends_strict_true_and_the_adjusted_schema() {
    let server = MockServer::start().await;
    // The answer strict decoding gives: every property present, null for the optional one.
    let completion = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\", \"unit\": null}"}}
    ]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 5, "completion_tokens": 5}});
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(completion)).mount(&server).await;
    let text = format!(
        "[[models]]\nname = \"m\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\nstrict_tools = true\n",
        server.uri()
    );
    let model = Config::parse(&text, "test").unwrap().models.remove(0);
    let adapter = provider::for_model(&model);
    let transport = LiveTransport::for_model(&model).unwrap();
    let request = chat(vec![weather_tool()]);
    let http = adapter.try_build_request(&request).unwrap();
    let response = transport.send(&http).await.unwrap();

    let received = server.received_requests().await.unwrap();
    let body: Value = serde_json::from_slice(&received[0].body).unwrap();
    assert_eq!(
        body["tools"][0],
        json!({"type": "function", "function": {
            "name": "get_weather",
            "description": "Weather for a city",
            "strict": true,
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"], "enum": ["c", "f", null]}},
                "required": ["city", "unit"],
                "additionalProperties": false
            }
        }})
    );
    // The null stood for "absent": the pipeline gets the call the original schema accepts.
    let turn = adapter.parse_response(&request, &response).unwrap();
    assert_eq!(turn.tool_calls[0].arguments, r#"{"city":"Oslo"}"#);

    // Without strict_tools, nothing changes: no flag, the schema as written.
    let plain = provider::for_model(&calltape::config::ModelConfig { strict_tools: false, ..model.clone() });
    let sent = plain.try_build_request(&request).unwrap().body;
    assert_eq!(sent["tools"][0]["function"].get("strict"), None);
    assert_eq!(sent["tools"][0]["function"]["parameters"], weather_tool().parameters);
    let turn = plain.parse_response(&request, &response).unwrap();
    assert_eq!(turn.tool_calls[0].arguments, "{\"city\": \"Oslo\", \"unit\": null}");

    // A schema strict mode cannot take is refused before anything is sent.
    let mut odd = weather_tool();
    odd.parameters["properties"]["tags"] = json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}}});
    let refused = adapter.try_build_request(&chat(vec![odd])).unwrap_err();
    assert!(matches!(refused, ProviderError::StrictUnsupported(_)));
    assert!(
        refused.to_string().starts_with(
            "schema not supported by strict mode: tool `get_weather`: /properties/tags/patternProperties: `patternProperties` is not supported"
        ),
        "{refused}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

/// A suite of one scenario whose tool strict mode cannot take.
fn odd_suite(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let scenario = json!({
        "id": "lookup-with-labels",
        "description": "A tool whose labels are free-form keys: strict mode cannot take it.",
        "tags": ["strict"],
        "tools": [{"name": "lookup", "description": "Look a record up", "sensitive": false, "parameters": {
            "type": "object",
            "properties": {"id": {"type": "string"}, "labels": {"type": "object", "patternProperties": {"^[a-z]+$": {"type": "string"}}}},
            "required": ["id"]
        }}],
        "messages": [{"role": "user", "content": "Look up record 7."}],
        "tool_results": [{"tool": "*", "result": "found"}],
        "expect": {"calls": [{"tool": "lookup", "args": {"id": ["7"]}}], "max_steps": 3}
    });
    std::fs::write(dir.join("lookup-with-labels.json"), serde_json::to_string_pretty(&scenario).unwrap()).unwrap();
}

#[test]
fn a_strict_sim_model_makes_no_faults_and_an_unsupported_schema_errors_its_unit() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let coding = dir.path().join("coding");
    copy_dir(&root.join("scenarios/coding"), &coding);
    let odd = dir.path().join("odd");
    odd_suite(&odd);
    let profile =
        "[models.sim]\nfaults = [\"trailing_comma\", \"wrong_type\", \"omit_required\", \"extra_property\", \"unquoted_value\"]\n\
                   fault_rate = 0.9\nlatency_ms = 1\nms_per_output_token = 0\n";
    let mut config = format!("[run]\nsuites = [\"{}\", \"{}\"]\nseed = 7\n[pipeline]\nrepair = \"off\"\n", coding.display(), odd.display());
    for (name, strict) in [("noisy", false), ("noisy-strict", true)] {
        config.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"sim\"\nmodel_id = \"{name}\"\ntier = \"cheap\"\nstrict_tools = {strict}\n{profile}"
        ));
    }
    let config_path = dir.path().join("calltape.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = dir.path().join("reports");
    let output = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(["run", "--config", config_path.to_str().unwrap(), "--mode", "live", "--out", out.to_str().unwrap()])
        .args(["--filter", "read-*", "--filter", "lookup-*"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let latest = out.join("latest");
    let summary = csv_rows(&latest.join("summary.csv"));
    let row = |name: &str| summary.iter().find(|r| r["model"] == name).unwrap_or_else(|| panic!("no {name} in {summary:?}\n{stderr}"));
    // Same profile: without strict mode most calls are invalid; with it none is.
    let (noisy, strict) = (row("noisy"), row("noisy-strict"));
    assert!(noisy["invalid"].parse::<u32>().unwrap() > 0, "{noisy:?}");
    assert_eq!(noisy["errored"], "0", "{noisy:?}");
    assert!(strict["calls"].parse::<u32>().unwrap() > 0, "{strict:?}");
    assert_eq!(strict["invalid"], "0", "{strict:?}");
    // Strict decoding fills optional arguments with null; they are not held against it.
    assert_eq!(strict["passed"], strict["scenarios"], "{strict:?}");
    assert_eq!(strict["errored"], "1", "{strict:?}");

    let runs = csv_rows(&latest.join("scenarios.csv"));
    let run = |model: &str| {
        runs.iter().find(|r| r["model"] == model && r["scenario"] == "lookup-with-labels").unwrap_or_else(|| panic!("{runs:?}"))
    };
    assert_eq!((run("noisy")["errored"].as_str(), run("noisy")["error_kind"].as_str()), ("false", ""));
    let errored = run("noisy-strict");
    assert_eq!((errored["errored"].as_str(), errored["error_kind"].as_str()), ("true", "strict_unsupported"));
    assert!(
        errored["reason"].contains(
            "schema not supported by strict mode: tool `lookup`: /properties/labels/patternProperties: `patternProperties` is not supported"
        ),
        "{errored:?}"
    );
    assert!(
        stderr.contains("noisy-strict: 1 of") && stderr.contains("schema not supported by strict mode (strict_tools) (1)"),
        "the errored line names the kind: {stderr}"
    );
}
