//! Google Gemini `generateContent`: request building and whole responses.
//! Streams (`streamGenerateContent?alt=sse`) are assembled in `gemini_stream`.
//!
//! Turns are `contents` with roles `user` and `model`; the system prompt is
//! `systemInstruction`; tools are `functionDeclarations` with schemas cut
//! down to what Gemini accepts (`gemini_schema`). Calls are `functionCall`
//! parts, results `functionResponse` parts naming the call they answer.
//!
//! Gemini's calls often come without an id: such a call gets `call_<n>`
//! (numbered through the conversation), and its result goes back by the
//! call's name alone. The model's parts are kept verbatim in
//! `provider_state` and sent back as they came, because Gemini 3 requires
//! each part's `thoughtSignature` back with it; a call turn Gemini did not
//! write gets Google's placeholder signature instead.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::gemini_wire::{first_candidate, parse_usage, turn_from_parts, STATE_TAG};
use super::names::{NameRule, ToolNames};
use super::{
    arguments_object, gemini_schema, gemini_stream, own_state, prior_call_count, read_body, system_text, Body, Provider, ProviderError,
    StreamingProvider,
};
use crate::chat::{ChatMessage, ChatRequest, ModelTurn, ToolCall};
use crate::transport::{HttpRequest, HttpResponse, SseEvent};

/// The Gemini adapter.
#[derive(Debug, Clone)]
pub struct Gemini {
    /// Base URL up to and including the API version (`…/v1beta`).
    pub base_url: String,
}

impl Provider for Gemini {
    fn build_request(&self, request: &ChatRequest) -> HttpRequest {
        let names = ToolNames::for_request(request, NameRule::Gemini);
        let mut body = json!({"contents": contents_json(&request.messages, &names)});
        if let Some(system) = system_text(request) {
            body["systemInstruction"] = json!({"parts": [{"text": system}]});
        }
        if !request.tools.is_empty() {
            let declarations: Vec<Value> = request
                .tools
                .iter()
                .map(|t| {
                    let mut d = json!({"name": names.to_wire(&t.name), "description": t.description});
                    if let Some(p) = gemini_schema::parameters(&t.parameters) {
                        d["parameters"] = p;
                    }
                    d
                })
                .collect();
            body["tools"] = json!([{"functionDeclarations": declarations}]);
        }
        let mut generation = serde_json::Map::new();
        if let Some(t) = request.temperature {
            generation.insert("temperature".into(), json!(t));
        }
        if let Some(m) = request.max_tokens {
            generation.insert("maxOutputTokens".into(), json!(m));
        }
        if let Some(s) = request.seed {
            // Gemini's seed is an int32.
            generation.insert("seed".into(), json!(s as u32 as i32));
        }
        if !generation.is_empty() {
            body["generationConfig"] = Value::Object(generation);
        }
        let model = match request.model_id.as_str() {
            id if id.starts_with("models/") || id.starts_with("tunedModels/") => id.to_string(),
            id => format!("models/{id}"),
        };
        HttpRequest {
            method: "POST".into(),
            url: format!("{}/{model}:generateContent", self.base_url.trim_end_matches('/')),
            headers: vec![("content-type".into(), "application/json".into())],
            body,
        }
    }

    fn parse_response(&self, request: &ChatRequest, response: &HttpResponse) -> Result<ModelTurn, ProviderError> {
        let names = ToolNames::for_request(request, NameRule::Gemini);
        let first_id = prior_call_count(request);
        match read_body(response)? {
            // `streamGenerateContent` without `alt=sse` answers a JSON array of chunks.
            Body::Json(body) if body.is_array() => {
                let chunks = body.as_array().map(Vec::as_slice).unwrap_or_default();
                let events: Vec<SseEvent> = chunks.iter().map(|c| SseEvent { offset_ms: 0.0, event: None, data: c.to_string() }).collect();
                gemini_stream::assemble(&events, &names, first_id)
            }
            Body::Json(body) => parse_generated(&body, &names, first_id),
            Body::Events(events) => gemini_stream::assemble(&events, &names, first_id),
        }
    }
}

impl StreamingProvider for Gemini {
    fn stream_request(&self, mut request: HttpRequest) -> HttpRequest {
        if let Some(base) = request.url.strip_suffix(":generateContent") {
            request.url = format!("{base}:streamGenerateContent?alt=sse");
        }
        request.headers.push(("accept".into(), "text/event-stream".into()));
        request
    }
}

/// Parses a non-streaming `GenerateContentResponse`.
pub fn parse_generated(body: &Value, names: &ToolNames, first_id: usize) -> Result<ModelTurn, ProviderError> {
    let candidate = first_candidate(body)?;
    let parts = candidate.pointer("/content/parts").and_then(Value::as_array);
    let finish_reason = candidate.get("finishReason").and_then(Value::as_str).map(str::to_string);
    if parts.is_none() && finish_reason.is_none() {
        return Err(ProviderError::Shape("candidate has neither content nor a finish reason".into()));
    }
    let parts = parts.map(Vec::as_slice).unwrap_or_default();
    let mut turn = turn_from_parts(parts.to_vec(), &[], names, first_id);
    turn.usage = parse_usage(body.get("usageMetadata"));
    turn.finish_reason = finish_reason;
    Ok(turn)
}

/// What the contents so far say about a call: the name it was sent under,
/// and its id if Gemini gave it one.
struct SentCall {
    wire_name: String,
    gemini_id: Option<String>,
}

fn contents_json(messages: &[ChatMessage], names: &ToolNames) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut sent: HashMap<&str, SentCall> = HashMap::new();
    for m in messages {
        match m {
            ChatMessage::System { .. } => {}
            ChatMessage::User { content } if content.is_empty() => {}
            ChatMessage::User { content } => push_parts(&mut out, "user", vec![json!({"text": content})]),
            ChatMessage::Assistant { content, tool_calls, provider_state } => {
                let parts = model_parts(content.as_deref(), tool_calls, provider_state.as_ref(), names, &mut sent);
                push_parts(&mut out, "model", parts);
            }
            ChatMessage::Tool { call_id, name, content } => {
                let (wire_name, id) = match sent.get(call_id.as_str()) {
                    Some(call) => (call.wire_name.clone(), call.gemini_id.clone()),
                    None => (names.to_wire(name), None),
                };
                let mut response = json!({"name": wire_name, "response": response_object(content)});
                if let Some(id) = id {
                    response["id"] = json!(id);
                }
                push_parts(&mut out, "user", vec![json!({"functionResponse": response})]);
            }
        }
    }
    out
}

/// Appends parts as a turn of `role`, joining the previous turn if it has the
/// same role (a call's results and a user turn after them make one turn).
fn push_parts(out: &mut Vec<Value>, role: &str, parts: Vec<Value>) {
    if parts.is_empty() {
        return;
    }
    if let Some(last) = out.last_mut().filter(|c| c.get("role").and_then(Value::as_str) == Some(role)) {
        if let Some(existing) = last.get_mut("parts").and_then(Value::as_array_mut) {
            existing.extend(parts);
            return;
        }
    }
    out.push(json!({"role": role, "parts": parts}));
}

/// A model turn's parts: the parts Gemini sent, verbatim, when this adapter
/// kept them, else parts made from the message. The i-th call is the i-th
/// `functionCall` part; kept call parts beyond the message's calls are
/// dropped (no result would answer them) and calls beyond the kept parts
/// get parts of their own.
fn model_parts<'a>(
    content: Option<&str>,
    tool_calls: &'a [ToolCall],
    state: Option<&Value>,
    names: &ToolNames,
    sent: &mut HashMap<&'a str, SentCall>,
) -> Vec<Value> {
    let kept = own_state(state, STATE_TAG).and_then(|s| s.get("parts")).and_then(Value::as_array);
    let mut parts = Vec::new();
    let mut calls = tool_calls.iter();
    match kept {
        Some(kept) => {
            for part in kept {
                let Some(function_call) = part.get("functionCall") else {
                    parts.push(part.clone());
                    continue;
                };
                let Some(call) = calls.next() else { continue };
                let wire_name =
                    function_call.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| names.to_wire(&call.name));
                let gemini_id = function_call.get("id").and_then(Value::as_str).map(str::to_string);
                sent.insert(&call.id, SentCall { wire_name, gemini_id });
                parts.push(part.clone());
            }
        }
        None => {
            if let Some(text) = content.filter(|t| !t.is_empty()) {
                parts.push(json!({"text": text}));
            }
        }
    }
    for call in calls {
        let wire_name = names.to_wire(&call.name);
        let args = arguments_object(&call.arguments).unwrap_or_default();
        let mut part = json!({"functionCall": {"name": wire_name, "args": args}});
        // Gemini 3 rejects a call turn whose first call has no signature (HTTP 400).
        // A turn Gemini did not write (scripted history, another model's calls in a
        // repair request) has none, and Google's documented placeholder says so.
        if kept.is_none() && !parts.iter().any(|p| p.get("functionCall").is_some()) {
            part["thoughtSignature"] = json!(FOREIGN_CALL_SIGNATURE);
        }
        parts.push(part);
        sent.insert(&call.id, SentCall { wire_name, gemini_id: None });
    }
    parts
}

/// The `thoughtSignature` Google documents for function calls that no
/// Gemini model wrote (https://ai.google.dev/gemini-api/docs/thought-signatures).
pub const FOREIGN_CALL_SIGNATURE: &str = "skip_thought_signature_validator";

/// A tool's result as the object `functionResponse.response` must be: the
/// result itself if it is a JSON object, else `{"result": <text>}`.
fn response_object(content: &str) -> Value {
    match serde_json::from_str::<Value>(content) {
        Ok(v @ Value::Object(_)) => v,
        _ => json!({"result": content}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::Usage;
    use crate::provider::test_support::{chat_request, fixture_json, json_response, string_params, tool};
    use crate::provider::Streamed;

    fn provider() -> Gemini {
        Gemini { base_url: "https://generativelanguage.googleapis.com/v1beta".into() }
    }

    const SIGNATURE: &str = "EskgCsYgAb4+9vtF7/499YQS2bjZs3xcQI+iAl+ILn29nK1j0Kg6su7QsUUUk3nrAAfnS2w5WiVvlcCqu9fAebJ2cvfaEyBahEt5";

    #[test]
    fn parses_a_call_with_a_thought_signature() {
        let request =
            chat_request(vec![ChatMessage::User { content: "Weather in SF?".into() }], vec![tool("weather", string_params(&["location"]))]);
        let turn = provider().parse_response(&request, &json_response(200, fixture_json("google/google-tool-call.json"))).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall { id: "call_0".into(), name: "weather".into(), arguments: r#"{"location":"San Francisco"}"#.into() }]
        );
        assert_eq!(turn.text, None);
        assert_eq!(turn.reasoning, None);
        assert_eq!(turn.usage, Usage { input_tokens: 29, output_tokens: 15 + 893, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("STOP"));
        assert_eq!(turn.provider_state.as_ref().unwrap()["parts"][0]["thoughtSignature"], json!(SIGNATURE));

        // Round two: the part goes back verbatim, signature included, and the result names the call.
        let mut next = request.clone();
        next.messages.push(ChatMessage::Assistant {
            content: None,
            tool_calls: turn.tool_calls.clone(),
            provider_state: turn.provider_state.clone(),
        });
        next.messages.push(ChatMessage::Tool { call_id: "call_0".into(), name: "weather".into(), content: r#"{"temp_c": 18}"#.into() });
        let body = provider().build_request(&next).body;
        assert_eq!(
            body["contents"],
            json!([
                {"role": "user", "parts": [{"text": "Weather in SF?"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "weather", "args": {"location": "San Francisco"}}, "thoughtSignature": SIGNATURE}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "weather", "response": {"temp_c": 18}}}]}
            ])
        );
        // The next answer's made-up ids count on from the calls already made.
        let again = provider().parse_response(&next, &json_response(200, fixture_json("google/google-tool-call.json"))).unwrap();
        assert_eq!(again.tool_calls[0].id, "call_1");
    }

    #[test]
    fn builds_the_exact_request_body() {
        let request = ChatRequest {
            model_id: "gemini-2.5-flash".into(),
            messages: vec![
                ChatMessage::System { content: "Be brief.".into() },
                ChatMessage::User { content: "5! and gcd(4, 6)?".into() },
                ChatMessage::Assistant {
                    content: Some("Computing.".into()),
                    tool_calls: vec![
                        ToolCall { id: "call_0".into(), name: "math.factorial".into(), arguments: r#"{"n": 5}"#.into() },
                        ToolCall { id: "call_1".into(), name: "gcd tool".into(), arguments: "{a: 4".into() },
                    ],
                    provider_state: None,
                },
                ChatMessage::Tool { call_id: "call_0".into(), name: "math.factorial".into(), content: "120".into() },
                ChatMessage::Tool { call_id: "call_1".into(), name: "gcd tool".into(), content: "invalid arguments".into() },
                ChatMessage::User { content: "And then?".into() },
            ],
            tools: vec![
                tool(
                    "math.factorial",
                    json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": false}),
                ),
                tool("gcd tool", json!({"type": "object", "properties": {}})),
            ],
            temperature: Some(0.5),
            max_tokens: Some(100),
            seed: Some(42),
        };
        let http = provider().build_request(&request);
        assert_eq!(http.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent");
        assert_eq!(
            http.body,
            json!({
                "systemInstruction": {"parts": [{"text": "Be brief."}]},
                "contents": [
                    {"role": "user", "parts": [{"text": "5! and gcd(4, 6)?"}]},
                    {"role": "model", "parts": [
                        {"text": "Computing."},
                        {"functionCall": {"name": "math.factorial", "args": {"n": 5}}, "thoughtSignature": "skip_thought_signature_validator"},
                        {"functionCall": {"name": "gcd_tool", "args": {}}}
                    ]},
                    {"role": "user", "parts": [
                        {"functionResponse": {"name": "math.factorial", "response": {"result": "120"}}},
                        {"functionResponse": {"name": "gcd_tool", "response": {"result": "invalid arguments"}}},
                        {"text": "And then?"}
                    ]}
                ],
                "tools": [{"functionDeclarations": [
                    {"name": "math.factorial", "description": "math.factorial does things",
                     "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
                    {"name": "gcd_tool", "description": "gcd tool does things"}
                ]}],
                "generationConfig": {"temperature": 0.5, "maxOutputTokens": 100, "seed": 42}
            })
        );
        let streamed = Streamed(provider()).build_request(&request);
        assert_eq!(streamed.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
        assert_eq!(streamed.body, http.body);
        // Renamed names map back.
        let answer = json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "gcd_tool", "args": {"a": 4, "b": 6}, "id": "fc-1"}}]}, "finishReason": "STOP"}]});
        let turn = provider().parse_response(&request, &json_response(200, answer)).unwrap();
        assert_eq!(turn.tool_calls, vec![ToolCall { id: "fc-1".into(), name: "gcd tool".into(), arguments: r#"{"a":4,"b":6}"#.into() }]);
    }

    #[test]
    fn gemini_ids_go_back_with_their_results() {
        let parts = json!([{"text": "Thinking about it", "thought": true}, {"text": "Let me look."}, {"functionCall": {"id": "abc", "name": "read_file", "args": {"path": "a"}}}]);
        let answer = json!({"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 100, "cachedContentTokenCount": 60, "candidatesTokenCount": 7, "thoughtsTokenCount": 3, "toolUsePromptTokenCount": 5}});
        let mut request =
            chat_request(vec![ChatMessage::User { content: "Read a".into() }], vec![tool("read_file", string_params(&["path"]))]);
        let turn = provider().parse_response(&request, &json_response(200, answer)).unwrap();
        assert_eq!(turn.reasoning.as_deref(), Some("Thinking about it"));
        assert_eq!(turn.text.as_deref(), Some("Let me look."));
        assert_eq!(turn.usage, Usage { input_tokens: 105, output_tokens: 10, cached_input_tokens: 60 });
        request.messages.push(ChatMessage::Assistant {
            content: turn.text.clone(),
            tool_calls: turn.tool_calls.clone(),
            provider_state: turn.provider_state,
        });
        request.messages.push(ChatMessage::Tool { call_id: "abc".into(), name: "read_file".into(), content: "A".into() });
        let body = provider().build_request(&request).body;
        assert_eq!(body["contents"][1]["parts"], parts);
        assert_eq!(
            body["contents"][2]["parts"][0],
            json!({"functionResponse": {"name": "read_file", "id": "abc", "response": {"result": "A"}}})
        );
    }

    #[test]
    fn errors_blocked_prompts_and_wrong_shapes() {
        let request = chat_request(vec![], vec![]);
        let p = provider();
        let bad_key = json_response(
            400,
            json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}),
        );
        assert_eq!(
            p.parse_response(&request, &bad_key).unwrap_err(),
            ProviderError::Status { status: 400, message: "INVALID_ARGUMENT: API key not valid. Please pass a valid API key.".into() }
        );
        let blocked = json_response(200, json!({"promptFeedback": {"blockReason": "SAFETY"}}));
        assert_eq!(
            p.parse_response(&request, &blocked).unwrap_err(),
            ProviderError::Shape("no candidates: the prompt was blocked (SAFETY)".into())
        );
        assert_eq!(
            p.parse_response(&request, &json_response(200, json!({}))).unwrap_err(),
            ProviderError::Shape("no candidates in the response".into())
        );
        let empty = json_response(200, json!({"candidates": [{"index": 0}]}));
        assert!(matches!(p.parse_response(&request, &empty).unwrap_err(), ProviderError::Shape(m) if m.contains("neither content")));
        let max_tokens = json_response(200, json!({"candidates": [{"finishReason": "MAX_TOKENS"}]}));
        assert_eq!(p.parse_response(&request, &max_tokens).unwrap().finish_reason.as_deref(), Some("MAX_TOKENS"));
    }
}
