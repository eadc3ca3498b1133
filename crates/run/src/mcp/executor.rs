//! [`McpExecutor`]: approved calls to an MCP toolset's tools go to its
//! server (`tools/call`); every other call goes to the executor it wraps
//! (the scenario's scripted results, or a workspace). Only approved calls
//! reach an executor: approval stays before execution.
//!
//! `Executor` is synchronous and the transport is not, so each executor
//! has a thread of its own with its own small runtime: calls are handed to
//! it one at a time and answered in order. The session is opened (and the
//! server started, live) at the first call, so a unit that calls none of
//! the server's tools costs nothing.

use std::collections::BTreeSet;
use std::sync::mpsc;
use std::sync::Arc;
use std::thread::JoinHandle;

use serde_json::Value;

use super::client::McpClient;
use crate::pipeline::execute::{Executor, ToolOutput};
use crate::transport::Transport;

/// What a unit needs to reach one toolset's server: its tools' names, how
/// it is known, and the transport (the unit's cassette, or the server live).
#[derive(Clone)]
pub struct McpLink {
    /// The toolset's name (the file stem in `toolsets/`).
    pub toolset: String,
    /// The server as people know it (command or URL), for errors.
    pub server: String,
    /// The URL requests carry (`super::request_url`).
    pub url: String,
    /// The tools the server serves.
    pub tools: BTreeSet<String>,
    pub transport: Arc<dyn Transport>,
}

/// One call handed to the worker, and where its answer goes.
struct Job {
    tool: String,
    args: Value,
    reply: mpsc::Sender<ToolOutput>,
}

/// Executes a toolset's tools on its MCP server, and the rest with `fallback`.
pub struct McpExecutor<'a> {
    tools: BTreeSet<String>,
    server: String,
    jobs: Option<mpsc::Sender<Job>>,
    worker: Option<JoinHandle<()>>,
    fallback: Box<dyn Executor + 'a>,
}

impl<'a> McpExecutor<'a> {
    /// An executor sending `link`'s tools to its server and the rest to `fallback`.
    pub fn new(link: McpLink, fallback: Box<dyn Executor + 'a>) -> McpExecutor<'a> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let tools = link.tools.clone();
        let server = link.server.clone();
        let worker = std::thread::Builder::new().name(format!("mcp-{}", link.toolset)).spawn(move || serve(link, inbox)).ok();
        McpExecutor { tools, server, jobs: worker.is_some().then_some(jobs), worker, fallback }
    }

    /// The executor calls that are not the server's go to.
    pub fn fallback(&self) -> &dyn Executor {
        self.fallback.as_ref()
    }

    fn error(&self, what: &str) -> ToolOutput {
        ToolOutput { content: format!("error: MCP server {}: {what}", self.server), is_error: true, rule: None }
    }
}

impl Executor for McpExecutor<'_> {
    fn workspace(&self) -> Option<&crate::world::Workspace> {
        self.fallback.workspace()
    }

    fn execute(&mut self, tool: &str, args: &Value) -> ToolOutput {
        if !self.tools.contains(tool) {
            return self.fallback.execute(tool, args);
        }
        let (reply, answer) = mpsc::channel();
        let job = Job { tool: tool.to_string(), args: args.clone(), reply };
        match self.jobs.as_ref().map(|jobs| jobs.send(job)) {
            Some(Ok(())) => answer.recv().unwrap_or_else(|_| self.error("its thread ended without answering")),
            _ => self.error("its thread could not be started"),
        }
    }
}

impl Drop for McpExecutor<'_> {
    fn drop(&mut self) {
        // Closing the queue ends the worker; joining it drops its transport
        // (a started server is killed) before the unit's cassette is finished.
        self.jobs = None;
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

/// The worker: opens the session at the first call, then answers each.
fn serve(link: McpLink, inbox: mpsc::Receiver<Job>) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            for job in inbox {
                let content = format!("error: MCP server {}: cannot start a runtime: {e}", link.server);
                let _ = job.reply.send(ToolOutput { content, is_error: true, rule: None });
            }
            return;
        }
    };
    let mut client = McpClient::new(link.transport.as_ref(), &link.server, &link.url);
    for job in inbox {
        let answer = runtime.block_on(async {
            if !client.is_initialized() {
                client.initialize().await?;
            }
            client.call_tool(&job.tool, &job.args).await
        });
        let output = match answer {
            Ok(result) => ToolOutput { content: result.text, is_error: result.is_error, rule: None },
            // A failure to reach the server is the model's error result, as a
            // tool's own error is; a cassette miss is counted by the cassette.
            Err(e) => ToolOutput { content: format!("error: {e}"), is_error: true, rule: None },
        };
        let _ = job.reply.send(output);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::execute::Scripted;
    use crate::transport::{BoxFuture, HttpRequest, HttpResponse, ResponseBody, TransportError};
    use serde_json::json;
    use std::sync::Mutex;

    /// A server that answers initialize, acknowledges notifications, and echoes calls.
    struct Echo(Mutex<Vec<Value>>);

    impl Transport for Echo {
        fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
            self.0.lock().unwrap().push(request.body.clone());
            let body = &request.body;
            let answer = match body["method"].as_str() {
                Some("initialize") => json!({"jsonrpc": "2.0", "id": body["id"], "result": {"protocolVersion": "2025-06-18"}}),
                Some("tools/call") if body["params"]["name"] == "fail" => {
                    json!({"jsonrpc": "2.0", "id": body["id"], "result": {"content": [{"type": "text", "text": "no such entity"}], "isError": true}})
                }
                Some("tools/call") => {
                    json!({"jsonrpc": "2.0", "id": body["id"], "result": {"content": [{"type": "text", "text": body["params"]["arguments"].to_string()}]}})
                }
                _ => Value::Null,
            };
            let status = if answer.is_null() { 202 } else { 200 };
            let body = if answer.is_null() { ResponseBody::Text(String::new()) } else { ResponseBody::Json(answer) };
            Box::pin(async move { Ok(HttpResponse { status, headers: vec![], body, latency_ms: 1.0 }) })
        }
    }

    #[test]
    fn the_servers_tools_go_to_it_and_the_rest_to_the_fallback() {
        let echo = Arc::new(Echo(Mutex::new(vec![])));
        let link = McpLink {
            toolset: "mem".into(),
            server: "srv".into(),
            url: "mcp:stdio".into(),
            tools: ["echo".to_string(), "fail".to_string()].into(),
            transport: echo.clone(),
        };
        let mut exec = McpExecutor::new(link, Box::new(Scripted { rules: &[] }));
        let out = exec.execute("echo", &json!({"a": 1}));
        assert_eq!(out, ToolOutput { content: r#"{"a":1}"#.into(), is_error: false, rule: None });
        assert!(exec.execute("fail", &json!({})).is_error);
        assert_eq!(exec.execute("Write", &json!({})).content, "ok", "not the server's: scripted");
        drop(exec);
        let methods: Vec<String> = echo.0.lock().unwrap().iter().map(|b| b["method"].as_str().unwrap().to_string()).collect();
        assert_eq!(methods, ["initialize", "notifications/initialized", "tools/call", "tools/call"], "one session for the unit");
    }

    #[test]
    fn an_unreachable_server_is_an_error_result_naming_it() {
        struct Down;
        impl Transport for Down {
            fn send<'a>(&'a self, _: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
                Box::pin(async { Err(TransportError::Connection("refused".into())) })
            }
        }
        let link = McpLink {
            toolset: "m".into(),
            server: "http://127.0.0.1:9/mcp".into(),
            url: "http://127.0.0.1:9/mcp".into(),
            tools: ["t".to_string()].into(),
            transport: Arc::new(Down),
        };
        let out = McpExecutor::new(link, Box::new(Scripted { rules: &[] })).execute("t", &json!({}));
        assert!(out.is_error);
        assert_eq!(out.content, "error: MCP server http://127.0.0.1:9/mcp: initialize: connection failed: refused");
    }
}
