//! OpenAI Chat Completions, which OpenAI-compatible servers (OpenRouter,
//! DeepSeek, Groq, Together, vLLM, llama.cpp, Ollama) also speak.

use serde_json::{json, Value};

use super::{Provider, ProviderError};
use crate::chat::{ChatMessage, ChatRequest, ModelTurn, ToolCall, Usage};
use crate::transport::{HttpRequest, HttpResponse, ResponseBody};

/// The OpenAI-compatible adapter.
#[derive(Debug, Clone)]
pub struct OpenAi {
    /// Base URL up to and including `/v1`.
    pub base_url: String,
}

impl Provider for OpenAi {
    fn build_request(&self, request: &ChatRequest) -> HttpRequest {
        let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
        let mut body = json!({"model": request.model_id, "messages": messages});
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(
                    |t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}),
                )
                .collect();
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if let Some(m) = request.max_tokens {
            body["max_tokens"] = json!(m);
        }
        if let Some(s) = request.seed {
            body["seed"] = json!(s);
        }
        HttpRequest {
            method: "POST".into(),
            url: format!("{}/chat/completions", self.base_url.trim_end_matches('/')),
            headers: vec![("content-type".into(), "application/json".into())],
            body,
        }
    }

    fn parse_response(&self, _request: &ChatRequest, response: &HttpResponse) -> Result<ModelTurn, ProviderError> {
        let body = match &response.body {
            ResponseBody::Json(v) => v,
            ResponseBody::Text(t) => {
                return Err(if response.status >= 400 {
                    ProviderError::Status { status: response.status, message: truncate(t, 300) }
                } else {
                    ProviderError::Shape(format!("body is not JSON: {}", truncate(t, 120)))
                })
            }
            // Streaming is assembled by the streaming adapter (issue 4); until then say so.
            ResponseBody::Events(_) => return Err(ProviderError::Shape("streamed responses are not supported yet".into())),
        };
        if response.status >= 400 {
            let message = body
                .pointer("/error/message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| truncate(&body.to_string(), 300));
            return Err(ProviderError::Status { status: response.status, message });
        }
        parse_completion(body)
    }
}

/// Parses a non-streaming `chat.completion` body.
pub fn parse_completion(body: &Value) -> Result<ModelTurn, ProviderError> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| ProviderError::Shape("no choices in the response".into()))?;
    let message = choice.get("message").ok_or_else(|| ProviderError::Shape("choice has no message".into()))?;
    let text = message.get("content").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (i, call) in calls.iter().enumerate() {
            let function = call.get("function").ok_or_else(|| ProviderError::Shape(format!("tool call {i} has no function")))?;
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                // Some servers send the arguments as an object rather than a string.
                Some(v @ Value::Object(_)) => v.to_string(),
                _ => String::new(),
            };
            tool_calls.push(ToolCall {
                id: call.get("id").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("call_{i}")),
                name: function.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                arguments,
            });
        }
    }
    Ok(ModelTurn {
        text,
        tool_calls,
        usage: parse_usage(body.get("usage")),
        finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(str::to_string),
        ..Default::default()
    })
}

fn parse_usage(usage: Option<&Value>) -> Usage {
    let Some(u) = usage else { return Usage::default() };
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("/prompt_tokens"),
        output_tokens: n("/completion_tokens"),
        cached_input_tokens: n("/prompt_tokens_details/cached_tokens").max(n("/prompt_cache_hit_tokens")),
    }
}

fn message_json(m: &ChatMessage) -> Value {
    match m {
        ChatMessage::System { content } => json!({"role": "system", "content": content}),
        ChatMessage::User { content } => json!({"role": "user", "content": content}),
        ChatMessage::Assistant { content, tool_calls, .. } => {
            let mut v = json!({"role": "assistant", "content": content});
            if !tool_calls.is_empty() {
                v["tool_calls"] = tool_calls
                    .iter()
                    .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
                    .collect();
            }
            v
        }
        ChatMessage::Tool { call_id, content, .. } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        s.to_string()
    } else {
        let cut = (0..=max).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
        format!("{}…", &s[..cut])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Value {
        let path = format!("{}/tests/fixtures/provider-fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    #[test]
    fn parses_real_openai_completion_with_one_call() {
        let turn = parse_completion(&fixture("openai/test_completions.py@test_parse_pydantic_tool.json")).unwrap();
        assert_eq!(turn.text, None);
        assert_eq!(turn.tool_calls.len(), 1);
        assert_eq!(turn.tool_calls[0].name, "GetWeatherArgs");
        assert_eq!(turn.tool_calls[0].arguments, r#"{"city":"Edinburgh","country":"UK","units":"c"}"#);
        assert_eq!(turn.usage, Usage { input_tokens: 76, output_tokens: 24, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn parses_groq_call_with_no_content_field() {
        let turn = parse_completion(&fixture("openai-compatible/groq-tool-call.json")).unwrap();
        assert_eq!(turn.tool_calls[0].id, "ax9fskhev");
        assert_eq!(turn.tool_calls[0].arguments, "{}");
        assert_eq!(turn.usage.input_tokens, 218);
    }

    #[test]
    fn error_status_carries_the_message() {
        let p = OpenAi { base_url: "http://x/v1".into() };
        let resp = HttpResponse {
            status: 500,
            headers: vec![],
            body: ResponseBody::Json(json!({"error": {"code": 500, "message": "boom"}})),
            latency_ms: 1.0,
        };
        let request =
            ChatRequest { model_id: "m".into(), messages: vec![], tools: vec![], temperature: None, max_tokens: None, seed: None };
        assert_eq!(p.parse_response(&request, &resp).unwrap_err(), ProviderError::Status { status: 500, message: "boom".into() });
    }
}
