//! What a server's error response says, read the same way by the transport
//! (is this a rejected tool call, not worth retrying?) and by the provider
//! adapters (the message of an error body): it sits here, below both.

use serde_json::Value;

use super::{HttpResponse, ResponseBody};

/// A model's output that the server could not parse as a tool call, answered
/// with an error instead of a turn (llama.cpp and Ollama parse calls on the
/// server): the model's invalid call, not a network fault.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedCall {
    /// The server's message.
    pub message: String,
    /// The model's output, where the server quotes it (Ollama's `raw='...'`).
    pub raw: Option<String>,
}

/// What servers say when they reject a model's call: llama.cpp ("The model
/// produced output that does not match the expected peg-native format", and
/// older builds' "Failed to parse tool call"), Ollama ("error parsing tool call").
const REJECTION_MESSAGES: [&str; 3] = ["does not match the expected", "failed to parse tool call", "error parsing tool call"];

/// The rejected call in a response, if the response is a server's rejection
/// of the model's output (an error status, or an error event in a stream).
pub fn rejected_call(response: &HttpResponse) -> Option<RejectedCall> {
    let message = match &response.body {
        ResponseBody::Json(v) if response.status >= 400 => error_message(v),
        ResponseBody::Text(t) if response.status >= 400 => text_error_message(t),
        ResponseBody::Events(events) => events
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
            .find(|v| v.get("error").is_some())
            .map(|v| error_message(&v))?,
        _ => return None,
    };
    let lower = message.to_lowercase();
    if !REJECTION_MESSAGES.iter().any(|m| lower.contains(m)) {
        return None;
    }
    let raw = message.split_once("raw='").and_then(|(_, rest)| rest.rsplit_once("', err=").map(|(raw, _)| raw.to_string()));
    Some(RejectedCall { message, raw })
}

/// The message of an error body, in any of the shapes providers use:
/// `{"error": {"message", "type" | "status"}}` (OpenAI, Anthropic, Gemini),
/// `{"error": "..."}` (Ollama, llama.cpp), `{"message": "..."}` (vLLM),
/// `{"detail": "..."}`, or a one-element array of these (Gemini). Otherwise
/// the body itself, shortened.
pub fn error_message(body: &Value) -> String {
    let body = match body {
        Value::Array(items) if !items.is_empty() => &items[0],
        other => other,
    };
    let found = match body.get("error") {
        Some(Value::Object(e)) => e.get("message").and_then(Value::as_str).map(|m| {
            let kind = e.get("type").or_else(|| e.get("status")).and_then(Value::as_str).filter(|k| !k.is_empty());
            match kind {
                Some(k) => format!("{k}: {m}"),
                None => m.to_string(),
            }
        }),
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    found
        .or_else(|| body.get("message").and_then(Value::as_str).map(str::to_string))
        .or_else(|| body.get("detail").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| truncate(&body.to_string(), 300))
}

pub fn text_error_message(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => error_message(&v),
        Err(_) => truncate(text.trim(), 300),
    }
}

/// `s` cut to at most `max` bytes on a character boundary, with `…` if cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        s.to_string()
    } else {
        let cut = (0..=max).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
        format!("{}…", &s[..cut])
    }
}
