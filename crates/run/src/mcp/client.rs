//! The MCP client: JSON-RPC 2.0 over any [`Transport`], one request per
//! exchange, so a cassette records and replays it like a model's HTTP.
//! `initialize` → `notifications/initialized` → `tools/list` (following
//! `nextCursor`) → `tools/call`. Ids count from 1 in each client, so the
//! same conversation makes the same requests (and the same cassette keys).

use serde_json::{json, Value};

use crate::transport::{HttpRequest, HttpResponse, ResponseBody, Transport, TransportError};

/// The protocol revision calltape asks for (streamable HTTP, tool results
/// with `isError`); a server may answer with another it supports.
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// More pages than any real tool list has: a server whose cursor never ends stops here.
const MAX_PAGES: usize = 100;

/// Why talking to an MCP server failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpError {
    /// No answer: the server could not be reached, exited, timed out, or a
    /// cassette holds no recording.
    #[error("MCP server {server}: {method}: {source}")]
    Transport {
        server: String,
        method: String,
        /// Boxed: the error stays small on every `Result`.
        #[source]
        source: Box<TransportError>,
    },
    /// An HTTP status that is not success.
    #[error("MCP server {server}: {method}: HTTP {status}: {body}")]
    Status { server: String, method: String, status: u16, body: String },
    /// A JSON-RPC error answer.
    #[error("MCP server {server}: {method} failed: {message} (JSON-RPC error {code})")]
    Rpc { server: String, method: String, code: i64, message: String },
    /// An answer that is not what the protocol says.
    #[error("MCP server {server}: {method}: {what}")]
    Malformed { server: String, method: String, what: String },
}

/// What a `tools/call` returned, as the model will read it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The text items joined by newlines; other items described.
    pub text: String,
    /// The server's `isError`: the tool ran and failed.
    pub is_error: bool,
}

/// A client of one server, speaking through `transport`.
pub struct McpClient<'t> {
    transport: &'t dyn Transport,
    /// The server as people know it (its command or URL), for errors.
    server: String,
    /// The URL requests carry: the server's for HTTP; a stand-in for stdio.
    url: String,
    next_id: u64,
    /// The revision the server agreed to, sent on every request after `initialize`.
    protocol: Option<String>,
}

impl<'t> McpClient<'t> {
    /// A client that has not yet initialised the session.
    pub fn new(transport: &'t dyn Transport, server: &str, url: &str) -> McpClient<'t> {
        McpClient { transport, server: server.to_string(), url: url.to_string(), next_id: 1, protocol: None }
    }

    /// Whether `initialize` has succeeded.
    pub fn is_initialized(&self) -> bool {
        self.protocol.is_some()
    }

    /// Opens the session: `initialize`, then `notifications/initialized`.
    pub async fn initialize(&mut self) -> Result<(), McpError> {
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            // A fixed version: the request is part of every recording's keys,
            // which must not change with each calltape release.
            "clientInfo": {"name": "calltape", "version": "1"},
        });
        let result = self.request("initialize", params).await?;
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSION).to_string();
        self.protocol = Some(version);
        self.notify("notifications/initialized").await
    }

    /// Every tool the server lists, page by page, as `tools/list` gives them.
    pub async fn list_tools(&mut self) -> Result<Vec<Value>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let limit = crate::core::limits::MCP_TOOLS_LIST_BYTES;
        let mut listed_bytes: u64 = 0;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = self.request("tools/list", params).await?;
            let Some(listed) = page.get("tools").and_then(Value::as_array) else {
                return Err(self.malformed("tools/list", "the answer has no \"tools\" list"));
            };
            listed_bytes += listed.iter().map(|t| t.to_string().len() as u64).sum::<u64>();
            if listed_bytes > limit.in_force() {
                return Err(self.malformed("tools/list", &limit.passed(&format!("the tool list, {listed_bytes} bytes so far,"))));
            }
            tools.extend(listed.iter().cloned());
            match page.get("nextCursor").and_then(Value::as_str) {
                Some(next) if !next.is_empty() => cursor = Some(next.to_string()),
                _ => return Ok(tools),
            }
        }
        Err(self.malformed("tools/list", &format!("the list went on for more than {MAX_PAGES} pages")))
    }

    /// Calls `tool` with `arguments`.
    pub async fn call_tool(&mut self, tool: &str, arguments: &Value) -> Result<CallResult, McpError> {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments})).await?;
        Ok(call_result(&result))
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Value, McpError> {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.send(method, body).await?;
        self.answer(method, &response, id)
    }

    async fn notify(&mut self, method: &str) -> Result<(), McpError> {
        let response = self.send(method, json!({"jsonrpc": "2.0", "method": method})).await?;
        if !(200..300).contains(&response.status) {
            return Err(self.status(method, &response));
        }
        Ok(())
    }

    async fn send(&self, method: &str, body: Value) -> Result<HttpResponse, McpError> {
        let headers = self.protocol.iter().map(|v| ("mcp-protocol-version".to_string(), v.clone())).collect();
        let request = HttpRequest { method: "POST".into(), url: self.url.clone(), headers, body };
        self.transport.send(&request).await.map_err(|source| McpError::Transport {
            server: self.server.clone(),
            method: method.to_string(),
            source: Box::new(source),
        })
    }

    /// The `result` of the answer to request `id`, wherever the body holds it.
    fn answer(&self, method: &str, response: &HttpResponse, id: u64) -> Result<Value, McpError> {
        if !(200..300).contains(&response.status) {
            return Err(self.status(method, response));
        }
        let Some(message) = find_answer(&response.body, id) else {
            return Err(self.malformed(method, &format!("no answer to request {id} in what the server sent")));
        };
        if let Some(error) = message.get("error") {
            return Err(McpError::Rpc {
                server: self.server.clone(),
                method: method.to_string(),
                code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                message: error.get("message").and_then(Value::as_str).unwrap_or("(no message)").to_string(),
            });
        }
        message.get("result").cloned().ok_or_else(|| self.malformed(method, "the answer has neither \"result\" nor \"error\""))
    }

    fn status(&self, method: &str, response: &HttpResponse) -> McpError {
        let body = match &response.body {
            ResponseBody::Json(v) => v.to_string(),
            ResponseBody::Text(t) => t.clone(),
            ResponseBody::Events(e) => e.iter().map(|e| e.data.as_str()).collect::<Vec<_>>().join("\n"),
        };
        let body = crate::quote::bounded(&body, 300).into_owned();
        McpError::Status { server: self.server.clone(), method: method.to_string(), status: response.status, body }
    }

    fn malformed(&self, method: &str, what: &str) -> McpError {
        McpError::Malformed { server: self.server.clone(), method: method.to_string(), what: what.to_string() }
    }
}

/// The JSON-RPC answer to `id` in a body: the object itself, one of a
/// batch, or the data of one of a stream's events (a stream may carry the
/// server's notifications before it).
fn find_answer(body: &ResponseBody, id: u64) -> Option<Value> {
    let is_answer = |m: &Value| m.get("id").and_then(Value::as_u64) == Some(id) && m.get("method").is_none();
    let from = |v: Value| match v {
        Value::Array(items) => items.into_iter().find(is_answer),
        v => is_answer(&v).then_some(v),
    };
    match body {
        ResponseBody::Json(v) => from(v.clone()),
        ResponseBody::Text(_) => None,
        ResponseBody::Events(events) => events.iter().filter_map(|e| serde_json::from_str(&e.data).ok()).find_map(from),
    }
}

/// A `tools/call` result as text: its text items joined by newlines, other
/// items described; with no content, the structured content as JSON.
pub fn call_result(result: &Value) -> CallResult {
    let items = result.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let parts: Vec<String> = items
        .iter()
        .map(|item| match item.get("type").and_then(Value::as_str) {
            Some("text") => item.get("text").and_then(Value::as_str).unwrap_or_default().to_string(),
            Some("resource") => match item.pointer("/resource/text").and_then(Value::as_str) {
                Some(text) => text.to_string(),
                None => format!("[resource {}]", item.pointer("/resource/uri").and_then(Value::as_str).unwrap_or("?")),
            },
            Some(kind) => format!("[{kind} {}]", item.get("mimeType").and_then(Value::as_str).unwrap_or_default()).replace(" ]", "]"),
            None => item.to_string(),
        })
        .collect();
    let text = match (parts.is_empty(), result.get("structuredContent")) {
        (true, Some(structured)) => structured.to_string(),
        _ => parts.join("\n"),
    };
    CallResult { text, is_error: result.get("isError").and_then(Value::as_bool).unwrap_or(false) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{BoxFuture, SseEvent};
    use std::sync::Mutex;

    /// Answers each request with the next scripted response, keeping the requests.
    struct Scripted {
        answers: Mutex<Vec<HttpResponse>>,
        seen: Mutex<Vec<HttpRequest>>,
    }

    impl Transport for Scripted {
        fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
            self.seen.lock().unwrap().push(request.clone());
            let mut answers = self.answers.lock().unwrap();
            let next = if answers.is_empty() { Err(TransportError::Connection("closed".into())) } else { Ok(answers.remove(0)) };
            Box::pin(async move { next })
        }
    }

    fn json(status: u16, body: Value) -> HttpResponse {
        HttpResponse { status, headers: vec![], body: ResponseBody::Json(body), latency_ms: 1.0 }
    }

    fn scripted(answers: Vec<HttpResponse>) -> Scripted {
        Scripted { answers: Mutex::new(answers), seen: Mutex::new(vec![]) }
    }

    #[tokio::test]
    async fn initialize_then_list_every_page() {
        let t = scripted(vec![
            json(200, json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-03-26", "capabilities": {}}})),
            HttpResponse { status: 202, headers: vec![], body: ResponseBody::Text(String::new()), latency_ms: 0.0 },
            json(200, json!({"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": "a"}], "nextCursor": "p2"}})),
            json(200, json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [{"name": "b"}]}})),
        ]);
        let mut client = McpClient::new(&t, "srv", "/mcp");
        client.initialize().await.unwrap();
        let tools = client.list_tools().await.unwrap();
        assert_eq!(tools, vec![json!({"name": "a"}), json!({"name": "b"})]);
        let seen = t.seen.lock().unwrap();
        assert_eq!(seen[1].body, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert_eq!(seen[3].body["params"], json!({"cursor": "p2"}));
        // The agreed revision goes on every request after initialize.
        assert!(seen[0].headers.is_empty());
        assert_eq!(seen[3].headers, vec![("mcp-protocol-version".to_string(), "2025-03-26".to_string())]);
    }

    #[tokio::test]
    async fn an_answer_in_a_stream_after_notifications() {
        let events = vec![
            SseEvent {
                offset_ms: 1.0,
                event: Some("message".into()),
                data: r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#.into(),
            },
            SseEvent {
                offset_ms: 2.0,
                event: Some("message".into()),
                data: r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}"#.into(),
            },
        ];
        let t = scripted(vec![HttpResponse { status: 200, headers: vec![], body: ResponseBody::Events(events), latency_ms: 2.0 }]);
        let mut client = McpClient::new(&t, "srv", "/mcp");
        assert_eq!(client.call_tool("greet", &json!({})).await.unwrap(), CallResult { text: "hi".into(), is_error: false });
    }

    #[tokio::test]
    async fn errors_name_the_server_the_method_and_the_cause() {
        let t = scripted(vec![
            json(200, json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: nope"}})),
            HttpResponse { status: 404, headers: vec![], body: ResponseBody::Text("session not found".into()), latency_ms: 0.0 },
            json(200, json!({"jsonrpc": "2.0", "id": 99, "result": {}})),
        ]);
        let mut client = McpClient::new(&t, "npx srv", "/mcp");
        let e = client.call_tool("nope", &json!({})).await.unwrap_err().to_string();
        assert_eq!(e, "MCP server npx srv: tools/call failed: Unknown tool: nope (JSON-RPC error -32602)");
        let e = client.list_tools().await.unwrap_err().to_string();
        assert_eq!(e, "MCP server npx srv: tools/list: HTTP 404: session not found");
        let e = client.list_tools().await.unwrap_err().to_string();
        assert_eq!(e, "MCP server npx srv: tools/list: no answer to request 3 in what the server sent");
        let e = client.list_tools().await.unwrap_err().to_string();
        assert_eq!(e, "MCP server npx srv: tools/list: connection failed: closed");
    }

    #[test]
    fn results_become_text() {
        let r = call_result(
            &json!({"content": [{"type": "text", "text": "a"}, {"type": "image", "mimeType": "image/png", "data": "…"}, {"type": "text", "text": "b"}], "isError": true}),
        );
        assert_eq!(r, CallResult { text: "a\n[image image/png]\nb".into(), is_error: true });
        assert_eq!(call_result(&json!({"content": [], "structuredContent": {"n": 1}})).text, r#"{"n":1}"#);
        assert_eq!(call_result(&json!({})), CallResult { text: String::new(), is_error: false });
    }
}
