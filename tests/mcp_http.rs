//! MCP over streamable HTTP against a wiremock server: the session the
//! server gives on `initialize` is sent on every later request, an answer
//! may come as an event stream (after the server's own notifications), and
//! a server that refuses is an error naming it, the method and the status.

use std::time::Duration;

use calltape::core::mcp::McpServerSpec;
use calltape::mcp::http::StreamableHttp;
use calltape::mcp::lock::list_tools;
use calltape::mcp::McpClient;
use serde_json::json;
use wiremock::matchers::{body_partial_json, header, header_exists, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn server() -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .and(body_partial_json(json!({"method": "initialize"})))
        .respond_with(
            ResponseTemplate::new(200).insert_header("mcp-session-id", "s-123").set_body_json(
                json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}}),
            ),
        )
        .mount(&server)
        .await;
    // Later requests are answered only with the session (and the agreed revision).
    Mock::given(method("POST"))
        .and(header("mcp-session-id", "s-123"))
        .and(header("mcp-protocol-version", "2025-06-18"))
        .and(body_partial_json(json!({"method": "notifications/initialized"})))
        .respond_with(ResponseTemplate::new(202))
        .mount(&server)
        .await;
    let stream = concat!(
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"listing\"}}\n\n",
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"echo\",\"description\":\"Echoes\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}]}}\n\n",
    );
    Mock::given(method("POST"))
        .and(header("mcp-session-id", "s-123"))
        .and(body_partial_json(json!({"method": "tools/list"})))
        .respond_with(ResponseTemplate::new(200).set_body_raw(stream, "text/event-stream"))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(header_exists("mcp-session-id"))
        .and(body_partial_json(json!({"method": "tools/call"})))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "hello"}], "isError": false}}),
        ))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn the_session_is_kept_and_streamed_answers_are_read() {
    let server = server().await;
    let url = format!("{}/mcp", server.uri());
    let transport = StreamableHttp::new(&url, Duration::from_secs(10)).unwrap();
    let mut client = McpClient::new(&transport, &url, &url);
    client.initialize().await.unwrap();
    assert_eq!(transport.session().as_deref(), Some("s-123"));
    let tools = client.list_tools().await.unwrap();
    assert_eq!(tools[0]["name"], "echo");
    let result = client.call_tool("echo", &json!({"text": "hello"})).await.unwrap();
    assert_eq!((result.text.as_str(), result.is_error), ("hello", false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_from_a_url() {
    let server = server().await;
    let spec = McpServerSpec { url: Some(format!("{}/mcp", server.uri())), ..McpServerSpec::default() };
    let tools = tokio::task::spawn_blocking(move || list_tools(&spec)).await.unwrap().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!((tools[0].name.as_str(), tools[0].description.as_str()), ("echo", "Echoes"));
    assert_eq!(tools[0].parameters["properties"]["text"]["type"], "string");
}

#[tokio::test]
async fn a_server_that_refuses_is_named_with_its_status() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(401).set_body_string("missing bearer token")).mount(&server).await;
    let url = format!("{}/mcp", server.uri());
    let transport = StreamableHttp::new(&url, Duration::from_secs(10)).unwrap();
    let e = McpClient::new(&transport, &url, &url).initialize().await.unwrap_err().to_string();
    assert_eq!(e, format!("MCP server {url}: initialize: HTTP 401: missing bearer token"));
}
