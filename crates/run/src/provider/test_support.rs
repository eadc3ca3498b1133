//! Fixtures and builders shared by the adapters' tests.

use serde_json::{json, Value};

use crate::chat::{ChatMessage, ChatRequest, ToolDefinition};
use crate::transport::{sse, HttpResponse, ResponseBody, SseEvent};

/// The text of a file under `tests/fixtures/provider-fixtures`.
pub fn fixture_text(name: &str) -> String {
    let path = format!("{}/../../tests/fixtures/provider-fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A JSON fixture.
pub fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&fixture_text(name)).unwrap()
}

/// A raw SSE fixture, parsed.
pub fn fixture_sse(name: &str) -> Vec<SseEvent> {
    sse::parse_all(fixture_text(name).as_bytes())
}

/// A `*.chunks.txt` fixture: one `data:` payload a line.
pub fn chunk_events(name: &str) -> Vec<SseEvent> {
    fixture_text(name)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| SseEvent { offset_ms: 0.0, event: None, data: l.to_string() })
        .collect()
}

/// The events with arrival offsets 10, 20, 30… ms, to check TTFT.
pub fn timed(mut events: Vec<SseEvent>) -> Vec<SseEvent> {
    for (i, e) in events.iter_mut().enumerate() {
        e.offset_ms = (i as f64 + 1.0) * 10.0;
    }
    events
}

/// Every way the stream can be cut off: after each whole event, and in the
/// middle of the next event's data.
pub fn cut_at_every_event(events: &[SseEvent]) -> Vec<Vec<SseEvent>> {
    let mut cuts = Vec::new();
    for k in 0..events.len() {
        cuts.push(events[..k].to_vec());
        let data = &events[k].data;
        let half = (0..=data.len() / 2).rev().find(|i| data.is_char_boundary(*i)).unwrap_or(0);
        let mut cut = events[..k].to_vec();
        cut.push(SseEvent { data: data[..half].to_string(), ..events[k].clone() });
        cuts.push(cut);
    }
    cuts
}

/// A response with a JSON body.
pub fn json_response(status: u16, body: Value) -> HttpResponse {
    HttpResponse { status, headers: vec![], body: ResponseBody::Json(body), latency_ms: 12.5 }
}

/// A tool with a generated description.
pub fn tool(name: &str, parameters: Value) -> ToolDefinition {
    ToolDefinition { name: name.into(), description: format!("{name} does things"), parameters }
}

/// A request with these messages and tools and nothing else set.
pub fn chat_request(messages: Vec<ChatMessage>, tools: Vec<ToolDefinition>) -> ChatRequest {
    ChatRequest { model_id: "model-x".into(), messages, tools, temperature: None, max_tokens: None, seed: None }
}

/// `{"type": "object"}` with these string properties, all required.
pub fn string_params(props: &[&str]) -> Value {
    let properties: serde_json::Map<String, Value> = props.iter().map(|p| (p.to_string(), json!({"type": "string"}))).collect();
    json!({"type": "object", "properties": properties, "required": props})
}
