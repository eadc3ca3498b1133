//! HTTP as data: a request as a provider adapter builds it, a response and
//! its body (JSON, text or server-sent events), the limits a live body is
//! read within, and the scrubbing of credentials and redaction of secrets
//! in all of them. Below the event log and the configuration, which hold
//! a redactor and response limits; the transports carry these.

pub mod body;
pub mod redact;
pub mod scrub;
pub mod sse;

use serde_json::Value;

pub use sse::SseEvent;

/// An HTTP request as a provider adapter builds it.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

/// The body of a response.
#[derive(Debug, Clone, PartialEq)]
pub enum ResponseBody {
    Json(Value),
    /// A body that is not JSON, kept as text for the error message.
    Text(String),
    /// A streamed (`text/event-stream`) body: its events, each with its arrival offset.
    Events(Vec<SseEvent>),
}

/// An HTTP response, with how long it took.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: ResponseBody,
    /// Total latency of the exchange (simulated, measured, or recorded).
    pub latency_ms: f64,
}
