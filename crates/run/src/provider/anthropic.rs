//! Anthropic Messages: request building and whole (`message`) bodies.
//! Streams are assembled in `anthropic_stream`.
//!
//! The system prompt goes apart from the messages; tool calls are
//! `tool_use` content blocks and their results `tool_result` blocks in a user
//! message (consecutive results share one). The assistant's content blocks
//! are kept verbatim in `provider_state` and sent back as they came:
//! thinking blocks must return with their signatures, and server tools'
//! blocks (`server_tool_use`, `web_search_tool_result`, …) were run by
//! Anthropic and are history, never calls for calltape to execute.

use serde_json::{json, Value};

use super::anthropic_wire::{turn_from_blocks, UsageCounts, STATE_TAG};
use super::names::{NameRule, ToolNames};
use super::openai::object_schema;
use super::{
    anthropic_stream, arguments_object, own_state, prior_call_count, read_body, system_text, Body, Provider, ProviderError,
    StreamingProvider,
};
use crate::chat::{ChatMessage, ChatRequest, ModelTurn, ToolCall, Usage};
use crate::transport::{HttpRequest, HttpResponse};

/// `max_tokens` is required by the Messages API; this is sent when a request sets none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// The API version this adapter speaks.
pub const API_VERSION: &str = "2023-06-01";

/// The Anthropic Messages adapter.
#[derive(Debug, Clone)]
pub struct Anthropic {
    /// Base URL up to and including `/v1`.
    pub base_url: String,
    /// `max_tokens` for requests that set none.
    pub default_max_tokens: u32,
}

impl Anthropic {
    /// The adapter for an API at `base_url`, with the default `max_tokens`.
    pub fn new(base_url: impl Into<String>) -> Anthropic {
        Anthropic { base_url: base_url.into(), default_max_tokens: DEFAULT_MAX_TOKENS }
    }
}

impl Provider for Anthropic {
    fn build_request(&self, request: &ChatRequest) -> HttpRequest {
        let names = ToolNames::for_request(request, NameRule::Basic);
        let mut body = json!({
            "model": request.model_id,
            "max_tokens": request.max_tokens.unwrap_or(self.default_max_tokens),
            "messages": messages_json(&request.messages, &names),
        });
        if let Some(system) = system_text(request) {
            body["system"] = json!(system);
        }
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| {
                    let mut tool = json!({"name": names.to_wire(&t.name)});
                    if !t.description.is_empty() {
                        tool["description"] = json!(t.description);
                    }
                    tool["input_schema"] = object_schema(&t.parameters);
                    tool
                })
                .collect();
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        HttpRequest {
            method: "POST".into(),
            url: format!("{}/messages", self.base_url.trim_end_matches('/')),
            headers: vec![("content-type".into(), "application/json".into()), ("anthropic-version".into(), API_VERSION.into())],
            body,
        }
    }

    fn parse_response(&self, request: &ChatRequest, response: &HttpResponse) -> Result<ModelTurn, ProviderError> {
        let names = ToolNames::for_request(request, NameRule::Basic);
        let first_id = prior_call_count(request);
        match read_body(response)? {
            Body::Json(body) => parse_message(&body, &names, first_id),
            Body::Events(events) => anthropic_stream::assemble(&events, &names, first_id),
        }
    }
}

impl StreamingProvider for Anthropic {
    fn stream_request(&self, mut request: HttpRequest) -> HttpRequest {
        request.body["stream"] = json!(true);
        request.headers.push(("accept".into(), "text/event-stream".into()));
        request
    }
}

/// Parses a non-streaming `message` body.
pub fn parse_message(body: &Value, names: &ToolNames, first_id: usize) -> Result<ModelTurn, ProviderError> {
    if body.get("type").and_then(Value::as_str) == Some("error") {
        return Err(ProviderError::Stream(super::error_message(body)));
    }
    let content = body.get("content").and_then(Value::as_array).ok_or_else(|| ProviderError::Shape("no content in the message".into()))?;
    let mut content = content.clone();
    let mut turn = turn_from_blocks(&mut content, names, first_id);
    turn.usage = parse_usage(body.get("usage"));
    turn.finish_reason = body.get("stop_reason").and_then(Value::as_str).map(str::to_string);
    Ok(turn)
}

/// Token counts. Anthropic's `input_tokens` leaves out cache reads and cache
/// writes; calltape's input count includes them (cache writes are priced as
/// ordinary input), with the reads also counted as cached.
pub(super) fn parse_usage(usage: Option<&Value>) -> Usage {
    let mut counts = UsageCounts::default();
    counts.update(usage);
    counts.usage()
}

/// The messages array: system messages left out (they go in `system`),
/// tool results gathered into user messages.
fn messages_json(messages: &[ChatMessage], names: &ToolNames) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for m in messages {
        match m {
            ChatMessage::System { .. } => {}
            // The API rejects empty text.
            ChatMessage::User { content } if content.is_empty() => {}
            ChatMessage::User { content } => match open_user_blocks(&mut out) {
                // A user turn right after tool results joins their message, after them.
                Some(blocks) => blocks.push(json!({"type": "text", "text": content})),
                None => out.push(json!({"role": "user", "content": content})),
            },
            ChatMessage::Assistant { content, tool_calls, provider_state } => {
                let blocks = assistant_blocks(content.as_deref(), tool_calls, provider_state.as_ref(), names);
                if !blocks.is_empty() {
                    out.push(json!({"role": "assistant", "content": blocks}));
                }
            }
            ChatMessage::Tool { call_id, content, .. } => {
                let block = json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                match open_user_blocks(&mut out) {
                    Some(blocks) => blocks.push(block),
                    None => out.push(json!({"role": "user", "content": [block]})),
                }
            }
        }
    }
    out
}

/// The blocks of the last message if it is a user message of tool results.
fn open_user_blocks(out: &mut [Value]) -> Option<&mut Vec<Value>> {
    let last = out.last_mut()?;
    if last.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    last.get_mut("content")?.as_array_mut()
}

/// An assistant message's blocks: the blocks the model sent, verbatim, if
/// this adapter kept them, else text and `tool_use` blocks made from the
/// message. A kept `tool_use` block whose call is no longer in the message
/// is dropped (no result would follow it), and a call without a block gets one.
fn assistant_blocks(content: Option<&str>, tool_calls: &[ToolCall], state: Option<&Value>, names: &ToolNames) -> Vec<Value> {
    let kept = own_state(state, STATE_TAG).and_then(|s| s.get("content")).and_then(Value::as_array);
    let mut blocks = Vec::new();
    let mut placed: Vec<&str> = Vec::new();
    match kept {
        Some(kept) => {
            for block in kept {
                if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                    blocks.push(block.clone());
                    continue;
                }
                let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
                let Some(call) = tool_calls.iter().find(|c| c.id == id) else { continue };
                let mut block = block.clone();
                if let Some(input) = arguments_object(&call.arguments) {
                    block["input"] = Value::Object(input);
                }
                blocks.push(block);
                placed.push(&call.id);
            }
        }
        None => {
            if let Some(text) = content.filter(|t| !t.is_empty()) {
                blocks.push(json!({"type": "text", "text": text}));
            }
        }
    }
    for call in tool_calls.iter().filter(|c| !placed.contains(&c.id.as_str())) {
        let input = arguments_object(&call.arguments).unwrap_or_default();
        blocks.push(json!({"type": "tool_use", "id": call.id, "name": names.to_wire(&call.name), "input": input}));
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ToolDefinition;
    use crate::provider::test_support::{chat_request, fixture_json, json_response, string_params, tool};
    use crate::provider::Streamed;
    use crate::transport::{sse, ResponseBody};

    fn provider() -> Anthropic {
        Anthropic::new("https://api.anthropic.com/v1")
    }

    #[test]
    fn parses_a_text_and_an_argumentless_call() {
        let request = chat_request(vec![], vec![]);
        let turn = provider().parse_response(&request, &json_response(200, fixture_json("anthropic/anthropic-tool-no-args.json"))).unwrap();
        assert_eq!(
            turn.text.as_deref(),
            Some(
                "<thinking>\nThe updateIssueList tool was provided in the list of available functions. The tool has no required \
parameters, so it can be called without any additional information needed from the user.\n</thinking>\n\nOkay, I will update the current issue list:"
            )
        );
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall { id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1".into(), name: "updateIssueList".into(), arguments: "{}".into() }]
        );
        assert_eq!(turn.usage, Usage { input_tokens: 602, output_tokens: 93, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(turn.reasoning, None);
        assert_eq!(turn.ttft_ms, None);
    }

    /// The tools of a recorded request, as calltape would define them.
    fn recorded_tools(body: &Value) -> Vec<ToolDefinition> {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| ToolDefinition {
                name: t["name"].as_str().unwrap().into(),
                description: t["description"].as_str().unwrap().into(),
                parameters: t["input_schema"].clone(),
            })
            .collect()
    }

    /// Replays a recorded two-round conversation: our request for each round
    /// must equal the recorded one, and each recorded response must parse.
    fn replay(file: &str, adapter: &dyn Provider, stream: bool) -> Vec<ModelTurn> {
        let rounds = fixture_json(file);
        let rounds = rounds.as_array().unwrap();
        assert_eq!(rounds.len(), 2);
        let first_body = &rounds[0]["request"]["body"];
        let mut request = ChatRequest {
            model_id: "claude-haiku-4-5".into(),
            messages: vec![ChatMessage::User { content: "What is the weather in SF?".into() }],
            tools: recorded_tools(first_body),
            temperature: None,
            max_tokens: Some(1024),
            seed: None,
        };
        let results = [
            "RuntimeError('Unexpected error, try again')",
            r#"{"location": "San Francisco, CA", "temperature": "68\u00b0F", "condition": "Sunny"}"#,
        ];
        let mut turns = Vec::new();
        for (i, round) in rounds.iter().enumerate() {
            let http = adapter.build_request(&request);
            let mut want = round["request"]["body"].clone();
            // calltape's tool results carry no error flag (`is_error`): the error is in the text.
            if let Some(Value::Object(block)) = want.pointer_mut("/messages/2/content/0") {
                block.remove("is_error");
            }
            assert_eq!(http.body, want, "{file} round {i}");
            assert_eq!(http.method, round["request"]["method"]);
            assert_eq!(http.url, round["request"]["url"].as_str().unwrap().trim_end_matches("?beta=true"));
            for (name, value) in &http.headers {
                if name != "accept" {
                    assert_eq!(round["request"]["headers"][name].as_str(), Some(value.as_str()), "header {name}");
                }
            }
            let body = match &round["response"]["body"] {
                Value::String(raw) => {
                    assert!(stream);
                    ResponseBody::Events(sse::parse_all(raw.as_bytes()))
                }
                json => ResponseBody::Json(json.clone()),
            };
            let status = round["response"]["status_code"].as_u64().unwrap() as u16;
            let turn = adapter.parse_response(&request, &HttpResponse { status, headers: vec![], body, latency_ms: 1.0 }).unwrap();
            request.messages.push(ChatMessage::Assistant {
                content: turn.text.clone(),
                tool_calls: turn.tool_calls.clone(),
                provider_state: turn.provider_state.clone(),
            });
            for call in &turn.tool_calls {
                request.messages.push(ChatMessage::Tool {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: results[stream as usize].into(),
                });
            }
            turns.push(turn);
        }
        turns
    }

    #[test]
    fn recorded_conversation_round_by_round() {
        let turns = replay("anthropic/10e53c1d-51be-4c64-b5bf-99adb3fa4719.json", &provider(), false);
        assert_eq!(turns[0].text, None);
        assert_eq!(
            turns[0].tool_calls,
            vec![ToolCall {
                id: "toolu_01A9HHF5Ezy3oBrKmSgfASm9".into(),
                name: "get_weather".into(),
                arguments: r#"{"location":"San Francisco, CA","units":"f"}"#.into()
            }]
        );
        assert_eq!(turns[0].usage, Usage { input_tokens: 656, output_tokens: 74, cached_input_tokens: 0 });
        assert_eq!(turns[0].finish_reason.as_deref(), Some("tool_use"));
        assert!(turns[1].tool_calls.is_empty());
        assert!(turns[1].text.as_deref().unwrap().starts_with("I apologize, but I'm getting an error when trying to fetch the weather"));
        assert_eq!(turns[1].usage, Usage { input_tokens: 760, output_tokens: 63, cached_input_tokens: 0 });
        assert_eq!(turns[1].finish_reason.as_deref(), Some("end_turn"));
    }

    #[test]
    fn recorded_streamed_conversation_round_by_round() {
        let turns = replay("anthropic/771c64ff-a0af-4cd9-8080-a5a539da7cb9.json", &Streamed(provider()), true);
        assert_eq!(
            turns[0].tool_calls,
            vec![ToolCall {
                id: "toolu_01TJoxvFknVdnV9XpWFPaRmY".into(),
                name: "get_weather".into(),
                arguments: r#"{"location": "San Francisco, CA", "units": "f"}"#.into()
            }]
        );
        assert_eq!(turns[0].usage, Usage { input_tokens: 656, output_tokens: 74, cached_input_tokens: 0 });
        assert_eq!(turns[0].finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(turns[1].text.as_deref(), Some("The weather in San Francisco, CA is currently **68°F and Sunny**. It's a nice day!"));
        assert_eq!(turns[1].usage, Usage { input_tokens: 770, output_tokens: 27, cached_input_tokens: 0 });
        assert_eq!(turns[1].finish_reason.as_deref(), Some("end_turn"));
    }

    #[test]
    fn builds_the_exact_request_body() {
        let request = ChatRequest {
            model_id: "claude-sonnet-4-5".into(),
            messages: vec![
                ChatMessage::System { content: "Be brief.".into() },
                ChatMessage::User { content: "Read a and b.".into() },
                ChatMessage::Assistant {
                    content: Some("Reading both.".into()),
                    tool_calls: vec![
                        ToolCall { id: "t1".into(), name: "fs.read".into(), arguments: r#"{"path": "a"}"#.into() },
                        ToolCall { id: "t2".into(), name: "fs.read".into(), arguments: r#"{"path": "b",}"#.into() },
                    ],
                    provider_state: None,
                },
                ChatMessage::Tool { call_id: "t1".into(), name: "fs.read".into(), content: "A".into() },
                ChatMessage::Tool { call_id: "t2".into(), name: "fs.read".into(), content: "invalid arguments".into() },
                ChatMessage::User { content: "Thanks.".into() },
            ],
            tools: vec![
                tool("fs.read", string_params(&["path"])),
                ToolDefinition { name: "noop".into(), description: String::new(), parameters: Value::Null },
            ],
            temperature: Some(0.2),
            max_tokens: None,
            seed: Some(1),
        };
        let http = provider().build_request(&request);
        assert_eq!(http.url, "https://api.anthropic.com/v1/messages");
        assert_eq!(
            http.headers,
            vec![("content-type".to_string(), "application/json".to_string()), ("anthropic-version".to_string(), "2023-06-01".to_string())]
        );
        assert_eq!(
            http.body,
            json!({
                "model": "claude-sonnet-4-5",
                "max_tokens": 4096,
                "system": "Be brief.",
                "messages": [
                    {"role": "user", "content": "Read a and b."},
                    {"role": "assistant", "content": [
                        {"type": "text", "text": "Reading both."},
                        {"type": "tool_use", "id": "t1", "name": "fs_read", "input": {"path": "a"}},
                        {"type": "tool_use", "id": "t2", "name": "fs_read", "input": {}}
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "t1", "content": "A"},
                        {"type": "tool_result", "tool_use_id": "t2", "content": "invalid arguments"},
                        {"type": "text", "text": "Thanks."}
                    ]}
                ],
                "tools": [
                    {"name": "fs_read", "description": "fs.read does things", "input_schema": string_params(&["path"])},
                    {"name": "noop", "input_schema": {"type": "object", "properties": {}}}
                ],
                "temperature": 0.2
            })
        );
        // The renamed tool maps back.
        let body =
            json!({"content": [{"type": "tool_use", "id": "t3", "name": "fs_read", "input": {"path": "c"}}], "stop_reason": "tool_use"});
        assert_eq!(provider().parse_response(&request, &json_response(200, body)).unwrap().tool_calls[0].name, "fs.read");
    }

    #[test]
    fn server_tools_and_thinking_stay_in_the_state_and_go_back_verbatim() {
        let content = json!([
            {"type": "thinking", "thinking": "Search first.", "signature": "sig=="},
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "tokio release"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://tokio.rs", "title": "Tokio"}]},
            {"type": "text", "text": "Tokio 1.54 is out. "},
            {"type": "text", "text": "Bumping.", "citations": [{"type": "web_search_result_location", "url": "https://tokio.rs"}]},
            {"type": "tool_use", "id": "toolu_9", "name": "Edit", "input": {"file": "Cargo.toml"}}
        ]);
        let body = json!({"type": "message", "role": "assistant", "content": content, "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5, "output_tokens": 20}});
        let request = chat_request(vec![ChatMessage::User { content: "Bump tokio".into() }], vec![tool("Edit", json!({}))]);
        let turn = provider().parse_response(&request, &json_response(200, body)).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall { id: "toolu_9".into(), name: "Edit".into(), arguments: r#"{"file":"Cargo.toml"}"#.into() }]
        );
        assert_eq!(turn.text.as_deref(), Some("Tokio 1.54 is out. Bumping."));
        assert_eq!(turn.reasoning.as_deref(), Some("Search first."));
        assert_eq!(turn.usage, Usage { input_tokens: 115, output_tokens: 20, cached_input_tokens: 100 });
        let mut next = request.clone();
        next.messages.push(ChatMessage::Assistant {
            content: turn.text.clone(),
            tool_calls: turn.tool_calls.clone(),
            provider_state: turn.provider_state,
        });
        next.messages.push(ChatMessage::Tool { call_id: "toolu_9".into(), name: "Edit".into(), content: "ok".into() });
        let sent = provider().build_request(&next).body;
        assert_eq!(sent["messages"][1], json!({"role": "assistant", "content": content}));
        assert_eq!(
            sent["messages"][2],
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "ok"}]})
        );
    }

    #[test]
    fn errors_and_wrong_shapes() {
        let request = chat_request(vec![], vec![]);
        let overloaded = json_response(529, json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
        assert_eq!(
            provider().parse_response(&request, &overloaded).unwrap_err(),
            ProviderError::Status { status: 529, message: "overloaded_error: Overloaded".into() }
        );
        let no_content = provider().parse_response(&request, &json_response(200, json!({"type": "message"}))).unwrap_err();
        assert_eq!(no_content, ProviderError::Shape("no content in the message".into()));
        let odd = json!({"content": [{"type": "tool_use"}, {"type": "text"}, 5], "usage": "x"});
        let turn = provider().parse_response(&request, &json_response(200, odd)).unwrap();
        assert_eq!(turn.tool_calls, vec![ToolCall { id: "call_0".into(), name: String::new(), arguments: "{}".into() }]);
    }
}
