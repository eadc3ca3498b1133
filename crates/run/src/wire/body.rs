//! Reading a live response body within bounds. A server chooses how much it
//! sends and for how long; calltape chooses how much it keeps. Past a limit
//! the read stops and the exchange fails with an error that names the limit
//! and how to raise it, so the unit gets an error row and the run goes on.
//!
//! The limits are a model's `limits` table in `calltape.toml`; the request
//! deadline is its `timeout_secs`, which bounds a whole stream as well.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::time::Instant;

const MIB: u64 = 1024 * 1024;

/// How much of a response calltape reads (`limits = { … }` on a model).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ResponseLimits {
    /// Bytes of one response body, or of one whole stream.
    pub max_body_bytes: u64,
    /// Bytes of one SSE line or of one event's joined `data:` lines.
    pub max_event_bytes: u64,
    /// Events of one stream (each costs memory beyond its bytes).
    pub max_stream_events: u64,
    /// Seconds without a byte once the response has begun.
    pub idle_timeout_secs: u64,
}

impl Default for ResponseLimits {
    fn default() -> Self {
        ResponseLimits { max_body_bytes: 32 * MIB, max_event_bytes: 4 * MIB, max_stream_events: 250_000, idle_timeout_secs: 60 }
    }
}

/// A response limit set to 0, which no response could meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("limits.{field} must be at least 1")]
pub struct LimitsError {
    /// The field under `limits`, e.g. `max_body_bytes`.
    pub field: &'static str,
}

impl ResponseLimits {
    /// Checks what the types cannot; the error names the field.
    pub fn validate(&self) -> Result<(), LimitsError> {
        for (name, value) in [
            ("max_body_bytes", self.max_body_bytes),
            ("max_event_bytes", self.max_event_bytes),
            ("max_stream_events", self.max_stream_events),
            ("idle_timeout_secs", self.idle_timeout_secs),
        ] {
            if value == 0 {
                return Err(LimitsError { field: name });
            }
        }
        Ok(())
    }

    /// The sentence every limit error ends with.
    fn raise(&self, model: &str, key: &str, value: u64) -> String {
        format!("raise it with `limits = {{ {key} = N }}` under the [[models]] entry {model:?} in calltape.toml (now {value})")
    }
}

/// Why a body read stopped early.
#[derive(Debug)]
pub enum ReadError {
    /// The server or the connection failed.
    Http(reqwest::Error),
    /// No answer within the request's `timeout_secs` (a plain body).
    Deadline,
    /// A limit was reached; the message names it and how to raise it.
    Limit(String),
}

/// Reads one response's body chunk by chunk, counting bytes and time.
pub struct BoundedBody<'a> {
    limits: &'a ResponseLimits,
    model: &'a str,
    deadline: Instant,
    timeout: Duration,
    received: u64,
}

impl<'a> BoundedBody<'a> {
    /// A reader for a response of `model` whose request started at `started`
    /// and must be over within `timeout`.
    pub fn new(limits: &'a ResponseLimits, model: &'a str, started: Instant, timeout: Duration) -> BoundedBody<'a> {
        BoundedBody { limits, model, deadline: later(started, timeout), timeout, received: 0 }
    }

    /// Bytes read so far.
    pub fn received(&self) -> u64 {
        self.received
    }

    /// The next chunk, `None` at the end. Fails past the byte limit, after
    /// `idle_timeout_secs` without a byte, or at the deadline.
    pub async fn next_chunk(&mut self, response: &mut reqwest::Response) -> Result<Option<bytes::Bytes>, ReadError> {
        let idle = Duration::from_secs(self.limits.idle_timeout_secs);
        let idle_until = later(Instant::now(), idle);
        let idle_first = idle_until < self.deadline;
        let until = if idle_first { idle_until } else { self.deadline };
        let chunk = match tokio::time::timeout_at(until, response.chunk()).await {
            Ok(chunk) => chunk.map_err(ReadError::Http)?,
            Err(_) if idle_first => {
                return Err(ReadError::Limit(format!(
                    "model {:?}: the server sent nothing for {} s after {} bytes (limits.idle_timeout_secs); {}",
                    self.model,
                    idle.as_secs(),
                    self.received,
                    self.limits.raise(self.model, "idle_timeout_secs", self.limits.idle_timeout_secs)
                )))
            }
            Err(_) => return Err(ReadError::Deadline),
        };
        if let Some(bytes) = &chunk {
            self.received += bytes.len() as u64;
            if self.received > self.limits.max_body_bytes {
                return Err(self.too_large("passed"));
            }
        }
        Ok(chunk)
    }

    /// A whole plain body. Chunks are read as they come, so memory stays
    /// within the byte limit whatever `Content-Length` says.
    pub async fn read_all(&mut self, response: &mut reqwest::Response) -> Result<Vec<u8>, ReadError> {
        if let Some(announced) = response.content_length().filter(|&n| n > self.limits.max_body_bytes) {
            return Err(self.too_large(&format!("announced {announced} bytes, more than")));
        }
        let mut body = Vec::new();
        while let Some(bytes) = self.next_chunk(response).await? {
            body.extend_from_slice(&bytes);
        }
        Ok(body)
    }

    fn too_large(&self, what: &str) -> ReadError {
        ReadError::Limit(format!(
            "model {:?}: the response {what} {} bytes (limits.max_body_bytes) and was not read further; {}",
            self.model,
            self.limits.max_body_bytes,
            self.limits.raise(self.model, "max_body_bytes", self.limits.max_body_bytes)
        ))
    }

    /// The error for a stream still going at the deadline: an endless stream
    /// ends here rather than being taken for a complete answer.
    pub fn stream_deadline(&self, events: usize) -> String {
        format!(
            "model {:?}: the stream was still going after {} s ({events} events, {} bytes) and was cut off (timeout_secs bounds a whole stream); raise timeout_secs on the [[models]] entry {:?} in calltape.toml (now {})",
            self.model,
            self.timeout.as_secs(),
            self.received,
            self.model,
            self.timeout.as_secs()
        )
    }

    /// The error for a stream with too many events, if it has.
    pub fn check_events(&self, events: usize) -> Result<(), ReadError> {
        if events as u64 <= self.limits.max_stream_events {
            return Ok(());
        }
        Err(ReadError::Limit(format!(
            "model {:?}: the stream passed {} events (limits.max_stream_events) and was not read further; {}",
            self.model,
            self.limits.max_stream_events,
            self.limits.raise(self.model, "max_stream_events", self.limits.max_stream_events)
        )))
    }

    /// The error for an SSE line or event longer than `max_event_bytes`.
    pub fn event_too_long(&self, bytes: usize) -> ReadError {
        ReadError::Limit(format!(
            "model {:?}: one stream event or line passed {} bytes (limits.max_event_bytes; {bytes} bytes seen) and was not read further; {}",
            self.model,
            self.limits.max_event_bytes,
            self.limits.raise(self.model, "max_event_bytes", self.limits.max_event_bytes)
        ))
    }
}

/// `at + wait`, or a time decades away when a configured number of seconds
/// is too large to add (`Instant + Duration` panics on overflow).
fn later(at: Instant, wait: Duration) -> Instant {
    at.checked_add(wait).unwrap_or_else(|| at + Duration::from_secs(100 * 365 * 86_400))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_zero_is_named() {
        assert_eq!(ResponseLimits::default().validate(), Ok(()));
        let l = ResponseLimits { idle_timeout_secs: 0, ..ResponseLimits::default() };
        assert_eq!(l.validate(), Err(LimitsError { field: "idle_timeout_secs" }));
        assert_eq!(l.validate().unwrap_err().to_string(), "limits.idle_timeout_secs must be at least 1");
    }

    #[test]
    fn huge_configured_seconds_do_not_overflow() {
        let l = ResponseLimits { idle_timeout_secs: u64::MAX, ..ResponseLimits::default() };
        let body = BoundedBody::new(&l, "m", Instant::now(), Duration::from_secs(u64::MAX));
        assert!(body.deadline > later(Instant::now(), Duration::from_secs(86_400)));
    }

    #[test]
    fn limit_errors_say_how_to_raise_them() {
        let l = ResponseLimits::default();
        let body = BoundedBody::new(&l, "gpt", Instant::now(), Duration::from_secs(120));
        let ReadError::Limit(m) = body.event_too_long(5_000_000) else { panic!() };
        assert!(m.contains("limits.max_event_bytes") && m.contains("`limits = { max_event_bytes = N }`"), "{m}");
        assert!(m.contains("\"gpt\"") && m.contains("(now 4194304)"), "{m}");
        assert!(body.check_events(250_000).is_ok() && body.check_events(250_001).is_err());
        assert!(body.stream_deadline(3).contains("after 120 s (3 events, 0 bytes)"));
    }
}
