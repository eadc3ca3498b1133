//! Every real provider response in `tests/fixtures/provider-fixtures`, served
//! by a wiremock server and read through the whole live path: the adapter
//! builds the request, the live transport sends it and splits streams into
//! events, the adapter assembles the calls.

use std::path::Path;

use calltape::chat::{ChatMessage, ChatRequest, ModelTurn};
use calltape::config::Config;
use calltape::provider;
use calltape::transport::live::LiveTransport;
use calltape::transport::{HttpRequest, Transport};
use serde_json::Value;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/provider-fixtures").join(name)).unwrap()
}

/// `*.chunks.txt` hold one `data:` payload a line; a server sends them as SSE.
fn chunks_as_sse(text: &str) -> String {
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("data: {l}\n\n")).collect()
}

fn request() -> ChatRequest {
    ChatRequest {
        model_id: "m".into(),
        messages: vec![ChatMessage::User { content: "What is the weather?".into() }],
        tools: vec![],
        temperature: None,
        max_tokens: None,
        seed: None,
    }
}

/// Serves `body` (SSE when `stream`) and reads it as `provider` would.
async fn through_http(provider: &str, stream: bool, body: String) -> ModelTurn {
    let server = MockServer::start().await;
    let response = if stream {
        ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")
    } else {
        ResponseTemplate::new(200).set_body_raw(body, "application/json")
    };
    Mock::given(method("POST")).respond_with(response).mount(&server).await;
    let text = format!(
        "[[models]]\nname = \"m\"\nprovider = \"{provider}\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\nstream = {stream}\n",
        server.uri()
    );
    let model = Config::parse(&text, "test").unwrap().models.remove(0);
    let adapter = provider::for_model(&model);
    let transport = LiveTransport::for_model(&model).unwrap();
    let chat = request();
    let http = adapter.build_request(&chat);
    let response = transport.send(&http).await.unwrap();
    adapter.parse_response(&chat, &response).unwrap_or_else(|e| panic!("{provider} stream={stream}: {e}"))
}

fn names(turn: &ModelTurn) -> Vec<&str> {
    turn.tool_calls.iter().map(|c| c.name.as_str()).collect()
}

fn args(turn: &ModelTurn, i: usize) -> Value {
    serde_json::from_str(&turn.tool_calls[i].arguments).unwrap_or_else(|e| panic!("{:?}: {e}", turn.tool_calls[i].arguments))
}

#[tokio::test]
async fn openai_whole_and_streamed() {
    let turn = through_http("openai", false, fixture("openai/test_completions.py@test_parse_pydantic_tool.json")).await;
    assert_eq!(names(&turn), ["GetWeatherArgs"]);
    assert_eq!(args(&turn, 0), serde_json::json!({"city": "Edinburgh", "country": "UK", "units": "c"}));
    let turn = through_http("openai", false, fixture("openai/test_completions.py@test_parse_multiple_pydantic_tools.json")).await;
    assert_eq!(names(&turn), ["GetWeatherArgs", "get_stock_price"]);

    let turn = through_http("openai", true, fixture("openai/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin")).await;
    assert_eq!(names(&turn), ["get_weather"]);
    args(&turn, 0);
    assert!(turn.ttft_ms.is_some());
    let turn = through_http("openai", true, fixture("openai/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin")).await;
    assert_eq!(names(&turn), ["GetWeatherArgs", "get_stock_price"]);
    assert!(turn.usage.input_tokens > 0, "the usage-only last chunk is read");
}

#[tokio::test]
async fn openai_compatible_servers() {
    for (file, stream) in [
        ("openai-compatible/groq-tool-call.json", false),
        ("openai-compatible/deepseek-tool-call.json", false),
        ("openai-compatible/groq-tool-call.chunks.txt", true),
        ("openai-compatible/deepseek-tool-call.chunks.txt", true),
    ] {
        let body = if stream { chunks_as_sse(&fixture(file)) } else { fixture(file) };
        let turn = through_http("openai", stream, body).await;
        assert_eq!(names(&turn), ["weather"], "{file}");
        args(&turn, 0);
        if file.contains("deepseek") {
            assert!(turn.reasoning.as_deref().is_some_and(|r| !r.is_empty()), "{file}: reasoning_content is kept");
        }
    }
}

#[tokio::test]
async fn anthropic_whole_and_streamed() {
    let turn = through_http("anthropic", true, fixture("anthropic/tool_use_response.txt")).await;
    assert_eq!(names(&turn), ["get_weather"]);
    assert!(turn.text.is_some(), "text before the tool block is kept");
    args(&turn, 0);
    let turn = through_http("anthropic", false, fixture("anthropic/anthropic-tool-no-args.json")).await;
    assert_eq!(names(&turn), ["updateIssueList"]);
    let turn = through_http("anthropic", true, chunks_as_sse(&fixture("anthropic/anthropic-tool-no-args.chunks.txt"))).await;
    assert_eq!(names(&turn), ["updateIssueList"]);
    assert_eq!(turn.tool_calls[0].arguments, "{}", "an empty partial_json means no arguments");
}

#[tokio::test]
async fn gemini_whole_and_streamed() {
    let turn = through_http("gemini", false, fixture("google/google-tool-call.json")).await;
    assert_eq!(names(&turn), ["weather"]);
    assert!(turn.provider_state.is_some(), "the parts (with thoughtSignature) are kept to send back");
    let turn = through_http("gemini", true, chunks_as_sse(&fixture("google/google-tool-call.chunks.txt"))).await;
    assert_eq!(names(&turn), ["weather"]);
    let turn = through_http("gemini", true, chunks_as_sse(&fixture("google/google-stream-tool-call-arguments.chunks.txt"))).await;
    assert!(!turn.tool_calls.is_empty() && turn.tool_calls.iter().all(|c| c.name == "getWeather"), "{:?}", names(&turn));
    args(&turn, 0);
}

/// The two recorded Anthropic conversations, round by round: each recorded
/// request goes to a server that answers with the recorded response.
#[tokio::test]
async fn anthropic_recordings_replayed_round_by_round() {
    for file in ["anthropic/10e53c1d-51be-4c64-b5bf-99adb3fa4719.json", "anthropic/771c64ff-a0af-4cd9-8080-a5a539da7cb9.json"] {
        let rounds: Vec<Value> = serde_json::from_str(&fixture(file)).unwrap();
        let mut calls_per_round = Vec::new();
        for round in &rounds {
            let streamed = round["request"]["body"]["stream"] == true;
            let body = match &round["response"]["body"] {
                Value::String(sse) => sse.clone(),
                json => json.to_string(),
            };
            let server = MockServer::start().await;
            let content_type = if streamed { "text/event-stream" } else { "application/json" };
            Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_raw(body, content_type)).mount(&server).await;
            let text = format!(
                "[[models]]\nname = \"m\"\nprovider = \"anthropic\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\nstream = {streamed}\n",
                server.uri()
            );
            let model = Config::parse(&text, "test").unwrap().models.remove(0);
            let transport = LiveTransport::for_model(&model).unwrap();
            let http = HttpRequest {
                method: "POST".into(),
                url: format!("{}/v1/messages", server.uri()),
                headers: vec![("content-type".into(), "application/json".into())],
                body: round["request"]["body"].clone(),
            };
            let response = transport.send(&http).await.unwrap();
            assert_eq!(server.received_requests().await.unwrap()[0].body_json::<Value>().unwrap(), round["request"]["body"]);
            let turn = provider::for_model(&model).parse_response(&request(), &response).unwrap();
            calls_per_round.push(names(&turn).iter().map(|s| s.to_string()).collect::<Vec<_>>());
        }
        assert_eq!(calls_per_round[0], ["get_weather"], "{file}: round 1 calls the tool");
        assert!(calls_per_round[1].is_empty(), "{file}: round 2 answers from the tool result");
    }
}
