//! MCP's streamable HTTP transport: every JSON-RPC message is a POST to the
//! server's one endpoint, answered with `application/json` or with a
//! `text/event-stream` whose events carry the answer (and maybe the server's
//! own notifications first). A server may give an `Mcp-Session-Id` on the
//! answer to `initialize`; every later request must send it back. The
//! session is kept here, below the cassette, because it is a property of
//! the connection, not of what was asked: recordings stay free of it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::transport::sse::parse_all;
use crate::transport::{BoxFuture, HttpRequest, HttpResponse, ResponseBody, Transport, TransportError};

/// The session header (case-insensitive on the wire).
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The largest answer read from a server.
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

/// A streamable HTTP MCP server at one URL.
pub struct StreamableHttp {
    client: reqwest::Client,
    url: String,
    session: Mutex<Option<String>>,
    timeout: Duration,
}

impl StreamableHttp {
    /// A transport to `url`, waiting at most `timeout` for each answer.
    pub fn new(url: &str, timeout: Duration) -> Result<StreamableHttp, TransportError> {
        let client = crate::transport::client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| TransportError::Connection(format!("cannot build the HTTP client for the MCP server {url}: {e}")))?;
        Ok(StreamableHttp { client, url: url.to_string(), session: Mutex::new(None), timeout })
    }

    /// The session the server gave, if any.
    pub fn session(&self) -> Option<String> {
        self.session.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    async fn exchange(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let started = Instant::now();
        let mut post = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(request.body.to_string());
        for (name, value) in &request.headers {
            post = post.header(name, value);
        }
        if let Some(session) = self.session() {
            post = post.header(SESSION_HEADER, session);
        }
        let response = post.send().await.map_err(|e| self.failed(&e))?;
        let status = response.status().as_u16();
        if let Some(session) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
            *self.session.lock().unwrap_or_else(|p| p.into_inner()) = Some(session.to_string());
        }
        let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
        if response.content_length().is_some_and(|n| n > MAX_BODY_BYTES as u64) {
            return Err(TransportError::Limit(format!("the MCP server {} announced an answer over {MAX_BODY_BYTES} bytes", self.url)));
        }
        // Read chunk by chunk: a body with no length is stopped at the limit, not held whole.
        let mut response = response;
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| self.failed(&e))? {
            if bytes.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(TransportError::Limit(format!("the MCP server {} answered with over {MAX_BODY_BYTES} bytes", self.url)));
            }
            bytes.extend_from_slice(&chunk);
        }
        let body = if content_type.starts_with("text/event-stream") {
            ResponseBody::Events(parse_all(&bytes))
        } else {
            match serde_json::from_slice(&bytes) {
                Ok(v) => ResponseBody::Json(v),
                Err(_) => ResponseBody::Text(String::from_utf8_lossy(&bytes).into_owned()),
            }
        };
        let headers = if content_type.is_empty() { vec![] } else { vec![("content-type".to_string(), content_type)] };
        Ok(HttpResponse { status, headers, body, latency_ms: started.elapsed().as_secs_f64() * 1e3 })
    }

    fn failed(&self, e: &reqwest::Error) -> TransportError {
        if e.is_timeout() {
            TransportError::Timeout(self.timeout.as_secs())
        } else if let Some(refused) = crate::transport::redirect::refused(e) {
            TransportError::Refused(format!("the MCP server {}: {refused}", self.url))
        } else {
            TransportError::Connection(format!("the MCP server {}: {e}", self.url))
        }
    }
}

impl Transport for StreamableHttp {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        Box::pin(self.exchange(request))
    }
}
