//! MCP servers as toolsets: a suite's toolset may name a server (a command
//! started as a child process, or a streamable HTTP URL); its listed tools
//! become the toolset's tools, and approved calls to them are executed on
//! it. Every JSON-RPC exchange is one `HttpRequest` → `HttpResponse` through
//! the unit's transport, so the unit's cassette records and replays it like
//! a model's HTTP (model `mcp:<toolset>`), and a replay needs no server.
//!
//! - `client`: the JSON-RPC client (initialize, list tools, call a tool).
//! - `http`: the streamable HTTP transport (JSON or event-stream answers, the session header).
//! - `executor`: [`McpExecutor`], the `Executor` that sends approved calls to the server.
//! - `lock`: at the start of a run that reaches servers, their tool lists
//!   checked against (or written to) `toolsets/<name>.tools.lock`.
//!
//! The stdio transport is `transport::stdio`. The client is written by hand
//! rather than with the `rmcp` SDK: see docs/mcp.md for why.

pub mod client;
pub mod executor;
pub mod http;
pub mod lock;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use crate::core::mcp::McpServerSpec;
use crate::transport::stdio::StdioTransport;
use crate::transport::{BoxFuture, HttpRequest, HttpResponse, Transport, TransportError};

pub use client::{McpClient, McpError};
pub use executor::{McpExecutor, McpLink};

pub use crate::core::mcp::CASSETTE_MODEL_PREFIX;

/// The name a toolset's exchanges are recorded under in a unit's cassette.
pub fn cassette_model(toolset: &str) -> String {
    format!("{CASSETTE_MODEL_PREFIX}{toolset}")
}

/// The URL requests to a server carry: its own for HTTP; for a child
/// process, which has none, a fixed stand-in (what the cassette records).
pub fn request_url(spec: &McpServerSpec) -> String {
    spec.url.clone().unwrap_or_else(|| "mcp:stdio".to_string())
}

/// A live transport to the server that starts it (or opens the HTTP client)
/// on the first request, so a unit that calls none of its tools starts nothing.
///
/// In auto mode a unit may replay its `initialize` from the cassette and
/// then send a call that was not recorded: the server it reaches was never
/// initialised, so the handshake is made here first, below the cassette
/// (not recorded: the recording already has the unit's own).
pub struct LazyServer {
    spec: McpServerSpec,
    connected: OnceLock<Result<Box<dyn Transport>, TransportError>>,
    initialized: AtomicBool,
}

impl LazyServer {
    pub fn new(spec: McpServerSpec) -> LazyServer {
        LazyServer { spec, connected: OnceLock::new(), initialized: AtomicBool::new(false) }
    }
}

impl Transport for LazyServer {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        Box::pin(async move {
            let transport = self.connected.get_or_init(|| connect(&self.spec)).as_ref().map_err(Clone::clone)?;
            let method = request.body.get("method").and_then(serde_json::Value::as_str);
            if method == Some("initialize") {
                self.initialized.store(true, Ordering::Relaxed);
            } else if !self.initialized.swap(true, Ordering::Relaxed) {
                let mut client = McpClient::new(transport.as_ref(), &self.spec.describe(), &request.url);
                client.initialize().await.map_err(|e| TransportError::Connection(format!("opening the session first: {e}")))?;
            }
            transport.send(request).await
        })
    }
}

/// A live transport to the server: the started command, or its URL.
pub fn connect(spec: &McpServerSpec) -> Result<Box<dyn Transport>, TransportError> {
    let timeout = Duration::from_secs(spec.timeout_secs());
    match (&spec.command, &spec.url) {
        (Some(command), _) => Ok(Box::new(StdioTransport::spawn(command, &spec.child_env(|name| std::env::var(name).ok()), timeout)?)),
        (None, Some(url)) => Ok(Box::new(http::StreamableHttp::new(url, timeout)?)),
        (None, None) => Err(TransportError::Connection("the MCP toolset names neither a command nor a url".into())),
    }
}

/// Runs `work` to its end on a thread of its own with its own runtime, and
/// returns what it returned: MCP's blocking I/O and the synchronous
/// `Executor` interface meet here, whatever runtime (if any) the caller is on.
pub fn on_own_thread<T: Send + 'static>(work: impl FnOnce(&tokio::runtime::Runtime) -> T + Send + 'static) -> Result<T, ThreadError> {
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(ThreadError::Runtime)?;
        Ok(work(&runtime))
    })
    .join()
    .map_err(|_| ThreadError::Panicked)?
}

/// Why [`on_own_thread`] returned no answer.
#[derive(Debug, thiserror::Error)]
pub enum ThreadError {
    #[error("cannot start a runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("the MCP thread panicked")]
    Panicked,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A server that answers a call with whether it saw `initialize` first.
    fn picky_server() -> McpServerSpec {
        let script = r#"state=cold
while IFS= read -r line; do
  case "$line" in
    *'"method":"initialize"'*) state=warm; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\"}}" ;;
    *'"method":"tools/call"'*) echo "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"$state\"}]}}" ;;
  esac
done"#;
        McpServerSpec { command: Some(vec!["sh".into(), "-c".into(), script.into()]), ..McpServerSpec::default() }
    }

    #[tokio::test]
    async fn a_call_to_a_server_never_initialised_opens_the_session_first() {
        let server = LazyServer::new(picky_server());
        let call = HttpRequest {
            method: "POST".into(),
            url: "mcp:stdio".into(),
            headers: vec![],
            body: json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "t", "arguments": {}}}),
        };
        let answer = server.send(&call).await.unwrap();
        assert_eq!(client::call_result(&answer_result(&answer)).text, "warm");
    }

    fn answer_result(r: &HttpResponse) -> serde_json::Value {
        match &r.body {
            crate::transport::ResponseBody::Json(v) => v["result"].clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_server_that_cannot_start_fails_every_request_the_same_way() {
        let server = LazyServer::new(McpServerSpec { command: Some(vec!["calltape-no-such-server".into()]), ..McpServerSpec::default() });
        let call =
            HttpRequest { method: "POST".into(), url: "mcp:stdio".into(), headers: vec![], body: json!({"id": 1, "method": "initialize"}) };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let first = runtime.block_on(server.send(&call)).unwrap_err();
        assert!(first.to_string().contains("cannot start the MCP server `calltape-no-such-server`"), "{first}");
        assert_eq!(runtime.block_on(server.send(&call)).unwrap_err(), first);
    }
}
