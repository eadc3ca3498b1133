//! Provider adapters: turn a provider-agnostic `ChatRequest` into the
//! provider's HTTP request, and its HTTP response (a JSON body or a stream of
//! server-sent events) back into a `ModelTurn`.
//!
//! One module per wire protocol: OpenAI-compatible Chat Completions,
//! Anthropic Messages, Google Gemini. Each parses both whole and streamed
//! bodies; `Streamed` turns an adapter's request into its streaming form.
//! Adapters never touch the network and never see an API key: the transport
//! sends, and asks `ProviderKind::auth_header` how to present the key.

pub mod anthropic;
mod anthropic_stream;
mod anthropic_wire;
pub mod gemini;
mod gemini_schema;
mod gemini_stream;
mod gemini_wire;
pub mod names;
pub mod openai;
mod openai_stream;
mod openai_wire;
pub mod strict;
#[cfg(test)]
mod test_support;
pub mod text_tools;

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;

use crate::chat::{ChatMessage, ChatRequest, ModelTurn};
use crate::config::{ModelConfig, ProviderKind, ToolFormat};
use crate::transport::{sse, HttpRequest, HttpResponse, ResponseBody, SseEvent};
// Reading a server's error body is shared with the transport, below us.
pub use crate::transport::server_error::{error_message, rejected_call, RejectedCall};
pub(crate) use crate::transport::server_error::{text_error_message, truncate};

// The finish reason of a cut stream is read by the pipeline, below us.
pub use crate::pipeline::truncation::FINISH_TRUNCATED;

/// Why a response could not be read as a model turn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    #[error("HTTP {status}: {message}")]
    Status { status: u16, message: String },
    #[error("response is not of the expected shape: {0}")]
    Shape(String),
    /// The provider reported an error inside a stream that began with HTTP
    /// 200 (Anthropic's `error` event, an `error` object in a chunk).
    #[error("the stream reported an error: {0}")]
    Stream(String),
    /// A tool's schema that strict mode cannot take, for a model with
    /// `strict_tools`: the request is never sent.
    #[error(transparent)]
    StrictUnsupported(#[from] strict::StrictUnsupported),
}

/// One wire protocol.
pub trait Provider: Send + Sync {
    /// The HTTP request for a chat request.
    fn build_request(&self, request: &ChatRequest) -> HttpRequest;
    /// The HTTP request, or why this adapter as configured refuses to send
    /// it (a tool schema strict mode cannot take). The agent loop sends
    /// through this; adapters that refuse nothing keep the default.
    fn try_build_request(&self, request: &ChatRequest) -> Result<HttpRequest, ProviderError> {
        Ok(self.build_request(request))
    }
    /// The model's turn in the HTTP response to `request` (the request lets
    /// an adapter map tool names it had to rename on the way out back again).
    fn parse_response(&self, request: &ChatRequest, response: &HttpResponse) -> Result<ModelTurn, ProviderError>;
}

/// An adapter that can ask for a streamed (SSE) answer. Its `parse_response`
/// reads both forms, so only the request differs.
pub trait StreamingProvider: Provider {
    /// Turns the adapter's ordinary request into the streaming one.
    fn stream_request(&self, request: HttpRequest) -> HttpRequest;
}

/// An adapter whose requests ask for a streamed answer.
#[derive(Debug, Clone)]
pub struct Streamed<P>(pub P);

impl<P: StreamingProvider> Provider for Streamed<P> {
    fn build_request(&self, request: &ChatRequest) -> HttpRequest {
        self.0.stream_request(self.0.build_request(request))
    }

    fn try_build_request(&self, request: &ChatRequest) -> Result<HttpRequest, ProviderError> {
        self.0.try_build_request(request).map(|r| self.0.stream_request(r))
    }

    fn parse_response(&self, request: &ChatRequest, response: &HttpResponse) -> Result<ModelTurn, ProviderError> {
        self.0.parse_response(request, response)
    }
}

/// The base URL of a provider's public API, used when a model sets none.
pub fn default_base_url(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Sim => "sim://local/v1",
        ProviderKind::Openai => "https://api.openai.com/v1",
        ProviderKind::Anthropic => "https://api.anthropic.com/v1",
        ProviderKind::Gemini => "https://generativelanguage.googleapis.com/v1beta",
    }
}

/// The adapter for a configured model: its provider kind, base URL (or the
/// provider's default) and whether it streams. Simulated models speak the
/// OpenAI-compatible protocol and never stream.
pub fn for_model(model: &ModelConfig) -> Arc<dyn Provider> {
    let base_url = model.base_url.clone().unwrap_or_else(|| default_base_url(model.provider).to_string());
    // Configuration refuses `strict_tools` where the protocol cannot carry it.
    let strict_tools = model.strict_tools;
    let adapter: Arc<dyn Provider> = match (model.provider, model.stream) {
        (ProviderKind::Sim, _) | (ProviderKind::Openai, false) => Arc::new(openai::OpenAi { base_url, strict_tools }),
        (ProviderKind::Openai, true) => Arc::new(Streamed(openai::OpenAi { base_url, strict_tools })),
        (ProviderKind::Anthropic, false) => Arc::new(anthropic::Anthropic::new(base_url)),
        (ProviderKind::Anthropic, true) => Arc::new(Streamed(anthropic::Anthropic::new(base_url))),
        (ProviderKind::Gemini, false) => Arc::new(gemini::Gemini { base_url }),
        (ProviderKind::Gemini, true) => Arc::new(Streamed(gemini::Gemini { base_url })),
    };
    match model.tool_format {
        ToolFormat::Native => adapter,
        ToolFormat::Text => Arc::new(text_tools::TextTools { inner: adapter }),
    }
}

/// Whether a model's tool-call arguments reach us as text, as the model
/// wrote them (OpenAI-compatible servers, Anthropic streams, calls written
/// in the answer's text), rather than as an object the provider built and
/// closed itself (Gemini, Anthropic's whole answers): only text shows where
/// a cut fell (see `pipeline::truncation::cut_call`).
pub fn arguments_as_text(model: &ModelConfig) -> bool {
    model.tool_format == ToolFormat::Text
        || match model.provider {
            ProviderKind::Sim | ProviderKind::Openai => true,
            ProviderKind::Anthropic => model.stream,
            ProviderKind::Gemini => false,
        }
}

/// A response body as the adapters read it.
enum Body<'a> {
    Json(Cow<'a, Value>),
    Events(Cow<'a, [SseEvent]>),
}

/// The body of a successful response; an HTTP error becomes
/// `ProviderError::Status` with the provider's own message. A text body that
/// is really an event stream (a transport that did not recognise the content
/// type) is read as one.
fn read_body(response: &HttpResponse) -> Result<Body<'_>, ProviderError> {
    let status = response.status;
    match &response.body {
        ResponseBody::Json(v) if status >= 400 => Err(ProviderError::Status { status, message: error_message(v) }),
        ResponseBody::Json(v) => Ok(Body::Json(Cow::Borrowed(v))),
        ResponseBody::Events(events) if status >= 400 => {
            let message = match events.iter().find_map(|e| serde_json::from_str::<Value>(&e.data).ok()) {
                Some(v) => error_message(&v),
                None => truncate(&events.iter().map(|e| e.data.as_str()).collect::<Vec<_>>().join("\n"), 300),
            };
            Err(ProviderError::Status { status, message })
        }
        ResponseBody::Events(events) => Ok(Body::Events(Cow::Borrowed(events))),
        ResponseBody::Text(t) if status >= 400 => Err(ProviderError::Status { status, message: text_error_message(t) }),
        ResponseBody::Text(t) if looks_like_sse(t) => Ok(Body::Events(Cow::Owned(sse::parse_all(t.as_bytes())))),
        // A JSON body under a wrong content type is still JSON.
        ResponseBody::Text(t) => match serde_json::from_str::<Value>(t) {
            Ok(v) => Ok(Body::Json(Cow::Owned(v))),
            Err(_) => Err(ProviderError::Shape(format!("body is not JSON: {}", truncate(t, 120)))),
        },
    }
}

fn looks_like_sse(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("data:") || t.starts_with("event:") || t.starts_with(": ")
}

/// How many tool calls the conversation already holds. An id made up for a
/// call the provider sent without one counts on from here, so ids stay unique
/// across the turns of a conversation (repair attempts are counted per id).
fn prior_call_count(request: &ChatRequest) -> usize {
    request
        .messages
        .iter()
        .map(|m| match m {
            ChatMessage::Assistant { tool_calls, .. } => tool_calls.len(),
            _ => 0,
        })
        .sum()
}

/// The id given to the `n`-th call of a conversation that came without one.
fn made_up_call_id(n: usize) -> String {
    format!("call_{n}")
}

/// The JSON object a call's argument text holds, if it holds one.
fn arguments_object(arguments: &str) -> Option<serde_json::Map<String, Value>> {
    if arguments.trim().is_empty() {
        return Some(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(o)) => Some(o),
        _ => None,
    }
}

/// `provider_state` written by the adapter named `provider`, if this state is
/// one (state from another adapter is ignored, not misread).
fn own_state<'a>(state: Option<&'a Value>, provider: &str) -> Option<&'a Value> {
    state.filter(|s| s.get("provider").and_then(Value::as_str) == Some(provider))
}

/// All system messages, in order, joined by a blank line (the protocols that
/// take the system prompt apart from the messages take one).
fn system_text(request: &ChatRequest) -> Option<String> {
    let parts: Vec<&str> = request
        .messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::System { content } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Sets each count to the number `usage` reports under its field, keeping
/// the counts it does not report (streams report usage several times, each
/// time with some of the fields).
fn take_counts<const N: usize>(usage: Option<&Value>, counts: [(&str, &mut u64); N]) {
    let Some(usage) = usage else { return };
    for (field, count) in counts {
        if let Some(n) = usage.get(field).and_then(Value::as_u64) {
            *count = n;
        }
    }
}

/// Notes that a streamed event carried model output (text, reasoning or a
/// tool-call delta): the first one's offset is the time to first token.
fn mark_first_content(ttft: &mut Option<f64>, offset_ms: f64) {
    if ttft.is_none() {
        *ttft = Some(offset_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::prices::Tier;

    fn model(provider: ProviderKind, stream: bool, base_url: Option<&str>) -> ModelConfig {
        ModelConfig {
            name: "m".into(),
            provider,
            model_id: "model-x".into(),
            tier: Tier::Cheap,
            price: Default::default(),
            concurrency: 1,
            temperature: None,
            base_url: base_url.map(str::to_string),
            api_key_env: None,
            timeout_secs: 10,
            limits: Default::default(),
            stream,
            max_retries: 0,
            requests_per_minute: None,
            tokens_per_minute: None,
            max_tokens: None,
            seed: None,
            headers: Default::default(),
            mode: None,
            sim: None,
            profile: None,
            fitted: None,
            tool_format: ToolFormat::Native,
            scenarios: Vec::new(),
            max_trials: None,
            arms: None,
            arm: None,
            strict_tools: false,
            recorded_as: None,
        }
    }

    #[test]
    fn server_rejections_of_a_call_are_told_apart_from_other_errors() {
        let response = |status, body: Value| HttpResponse { status, headers: vec![], body: ResponseBody::Json(body), latency_ms: 0.0 };
        // llama.cpp's answer, as the local model's server sends it.
        let llama = response(
            500,
            serde_json::json!({"error": {"code": 500, "type": "server_error",
                "message": "The model produced output that does not match the expected peg-native format"}}),
        );
        let r = rejected_call(&llama).unwrap();
        assert!(r.message.contains("peg-native") && r.raw.is_none());
        // Ollama quotes the model's output.
        let ollama = response(
            500,
            serde_json::json!({"error": "error parsing tool call: raw='{\"path\": \"a.rs\"', err=unexpected end of JSON input"}),
        );
        assert_eq!(rejected_call(&ollama).unwrap().raw.as_deref(), Some("{\"path\": \"a.rs\""));
        // A streamed rejection arrives as an error event.
        let streamed = HttpResponse {
            status: 200,
            headers: vec![],
            body: ResponseBody::Events(vec![SseEvent {
                event: None,
                data: r#"{"error":{"message":"Failed to parse tool call arguments"}}"#.into(),
                offset_ms: 1.0,
            }]),
            latency_ms: 0.0,
        };
        assert!(rejected_call(&streamed).is_some());
        for other in [
            response(500, serde_json::json!({"error": {"message": "internal error"}})),
            response(400, serde_json::json!({"error": {"message": "context length exceeded"}})),
            response(200, serde_json::json!({"choices": []})),
        ] {
            assert_eq!(rejected_call(&other), None, "{:?}", other.body);
        }
    }

    fn request() -> ChatRequest {
        ChatRequest {
            model_id: "model-x".into(),
            messages: vec![ChatMessage::User { content: "hi".into() }],
            tools: vec![],
            temperature: None,
            max_tokens: None,
            seed: None,
        }
    }

    #[test]
    fn for_model_picks_protocol_base_url_and_streaming() {
        let cases = [
            (ProviderKind::Sim, true, None, "sim://local/v1/chat/completions", false),
            (ProviderKind::Openai, false, None, "https://api.openai.com/v1/chat/completions", false),
            (ProviderKind::Openai, true, Some("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080/v1/chat/completions", true),
            (ProviderKind::Anthropic, false, None, "https://api.anthropic.com/v1/messages", false),
            (ProviderKind::Anthropic, true, None, "https://api.anthropic.com/v1/messages", true),
            (ProviderKind::Gemini, false, None, "https://generativelanguage.googleapis.com/v1beta/models/model-x:generateContent", false),
            (
                ProviderKind::Gemini,
                true,
                None,
                "https://generativelanguage.googleapis.com/v1beta/models/model-x:streamGenerateContent?alt=sse",
                false,
            ),
        ];
        for (kind, stream, base, url, stream_in_body) in cases {
            let http = for_model(&model(kind, stream, base)).build_request(&request());
            assert_eq!(http.url, url, "{kind:?} stream={stream}");
            assert_eq!(http.body.get("stream") == Some(&Value::Bool(true)), stream_in_body, "{kind:?} stream={stream}");
        }
    }

    #[test]
    fn auth_headers_per_provider() {
        assert_eq!(ProviderKind::Openai.auth_header("k1"), ("authorization".into(), "Bearer k1".into()));
        assert_eq!(ProviderKind::Sim.auth_header("k1"), ("authorization".into(), "Bearer k1".into()));
        assert_eq!(ProviderKind::Anthropic.auth_header("k2"), ("x-api-key".into(), "k2".into()));
        assert_eq!(ProviderKind::Gemini.auth_header("k3"), ("x-goog-api-key".into(), "k3".into()));
    }

    #[test]
    fn error_messages_in_every_shape() {
        use serde_json::json;
        let cases = [
            (
                json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}),
                "invalid_request_error: Incorrect API key provided",
            ),
            (json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}), "overloaded_error: Overloaded"),
            (
                json!({"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}),
                "INVALID_ARGUMENT: API key not valid.",
            ),
            (
                json!([{"error": {"code": 429, "message": "Quota exceeded", "status": "RESOURCE_EXHAUSTED"}}]),
                "RESOURCE_EXHAUSTED: Quota exceeded",
            ),
            (json!({"error": "model 'x' not found"}), "model 'x' not found"),
            (json!({"object": "error", "message": "max_tokens too large", "type": "BadRequestError", "code": 400}), "max_tokens too large"),
            (json!({"detail": "Not Found"}), "Not Found"),
            (json!({"weird": 1}), "{\"weird\":1}"),
        ];
        for (body, want) in cases {
            assert_eq!(error_message(&body), want, "{body}");
        }
    }

    /// The three adapters, each for a request offering one dotted tool name.
    fn adapters() -> Vec<Box<dyn Provider>> {
        vec![
            Box::new(openai::OpenAi { base_url: "x".into(), strict_tools: false }),
            Box::new(anthropic::Anthropic::new("x")),
            Box::new(gemini::Gemini { base_url: "x".into() }),
        ]
    }

    #[test]
    fn raw_streams_cut_at_any_byte_never_fail() {
        let files = [
            "openai/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin",
            "openai/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin",
            "anthropic/tool_use_response.txt",
        ];
        let request = request();
        for (file, adapter) in files.iter().zip([0, 0, 1]) {
            let raw = test_support::fixture_text(file);
            let provider = &adapters()[adapter];
            for cut in (0..=raw.len()).step_by(3).filter(|c| raw.is_char_boundary(*c)) {
                let events = sse::parse_all(&raw.as_bytes()[..cut]);
                let response = HttpResponse { status: 200, headers: vec![], body: ResponseBody::Events(events), latency_ms: 1.0 };
                let turn = provider.parse_response(&request, &response);
                assert!(turn.is_ok(), "{file} cut at byte {cut}: {turn:?}");
            }
        }
    }

    #[test]
    fn garbage_from_the_network_never_panics() {
        use serde_json::json;
        let bodies = [
            json!(null),
            json!(1),
            json!("x"),
            json!([]),
            json!([null, 1]),
            json!({"choices": null}),
            json!({"choices": [null]}),
            json!({"choices": [{"message": null, "delta": 5}]}),
            json!({"choices": [{"message": {"content": 5, "tool_calls": [null, 1, {"function": null}, {"function": {"name": 5, "arguments": [1]}}]}}]}),
            json!({"choices": [{"delta": {"content": [1], "tool_calls": [null, 1, {"index": -1}, {"index": 2, "function": {"arguments": 5}}]}}]}),
            json!({"usage": "many", "error": null, "choices": []}),
            json!({"type": "content_block_start", "index": 0, "content_block": "text"}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}}),
            json!({"type": "content_block_delta", "index": 3, "delta": {"type": "signature_delta"}}),
            json!({"type": "content_block_delta", "index": 4, "delta": {"type": "citations_delta", "citation": 1}}),
            json!({"type": "message_delta", "delta": null, "usage": [1]}),
            json!({"content": [null, 5, {"type": "tool_use", "input": "str"}, {"type": "text", "text": null}], "usage": null}),
            json!({"candidates": [null]}),
            json!({"candidates": [{"content": {"parts": [null, 5, {"text": 5}, {"functionCall": null}, {"functionCall": 7}]}}]}),
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": true}}]}}]}),
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [null, 1, {"jsonPath": 5}, {"jsonPath": "$[0][1]", "stringValue": "a"}, {"jsonPath": "$.a[99999999]", "numberValue": 1}]}}]}}]}),
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.a", "stringValue": "x", "willContinue": true}, {"jsonPath": "$.a.b", "boolValue": true}]}}]}}]}),
            json!({"candidates": [{"content": {"parts": [{"text": "a", "thought": "yes"}, {"text": "b", "thoughtSignature": 5}]}, "finishReason": 3}]}),
            json!({"usageMetadata": {"promptTokenCount": -1, "candidatesTokenCount": 1e30}}),
        ];
        let request = request();
        for provider in adapters() {
            for status in [200, 500] {
                for body in &bodies {
                    let _ = provider.parse_response(
                        &request,
                        &HttpResponse { status, headers: vec![], body: ResponseBody::Json(body.clone()), latency_ms: 1.0 },
                    );
                }
                let events: Vec<SseEvent> = bodies.iter().map(|b| SseEvent { offset_ms: 0.0, event: None, data: b.to_string() }).collect();
                let _ = provider.parse_response(
                    &request,
                    &HttpResponse { status, headers: vec![], body: ResponseBody::Events(events), latency_ms: 1.0 },
                );
                for text in ["", "data:", "data: [DONE]", "{", "event: error\ndata: {\"type\":\"error\"}\n\n", "\u{0}\u{1}"] {
                    let _ = provider.parse_response(
                        &request,
                        &HttpResponse { status, headers: vec![], body: ResponseBody::Text(text.into()), latency_ms: 1.0 },
                    );
                }
            }
        }
    }

    #[test]
    fn http_errors_in_text_and_event_bodies() {
        let text =
            HttpResponse { status: 502, headers: vec![], body: ResponseBody::Text("<html>Bad gateway</html>".into()), latency_ms: 1.0 };
        assert!(matches!(read_body(&text), Err(ProviderError::Status { status: 502, message }) if message == "<html>Bad gateway</html>"));
        let events = HttpResponse {
            status: 429,
            headers: vec![],
            body: ResponseBody::Events(vec![SseEvent {
                offset_ms: 0.0,
                event: None,
                data: r#"{"error":{"message":"slow down","type":"rate_limit"}}"#.into(),
            }]),
            latency_ms: 1.0,
        };
        assert!(matches!(read_body(&events), Err(ProviderError::Status { status: 429, message }) if message == "rate_limit: slow down"));
        let not_json = HttpResponse { status: 200, headers: vec![], body: ResponseBody::Text("hello".into()), latency_ms: 1.0 };
        assert!(matches!(read_body(&not_json), Err(ProviderError::Shape(m)) if m.contains("not JSON")));
        let sse_text =
            HttpResponse { status: 200, headers: vec![], body: ResponseBody::Text("data: {}\n\ndata: [DONE]\n\n".into()), latency_ms: 1.0 };
        assert!(matches!(read_body(&sse_text), Ok(Body::Events(e)) if e.len() == 2));
    }
}
