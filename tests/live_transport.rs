//! The live transport against wiremock servers: retries, Retry-After,
//! timeouts, bodies that are not JSON, cut-off streams, the API key, and a
//! whole run whose requests fail becoming error rows.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use calltape::config::Config;
use calltape::transport::live::LiveTransport;
use calltape::transport::retry::RetryPolicy;
use calltape::transport::{HttpRequest, ResponseBody, Transport, TransportError};
use serde_json::json;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

mod common;

fn model_config(base_url: &str, extra: &str) -> calltape::config::ModelConfig {
    let text = format!(
        "[[models]]\nname = \"live\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{base_url}\"\ntimeout_secs = 1\n{extra}\n"
    );
    Config::parse(&text, "test").unwrap().models.remove(0)
}

fn quick_retries(max_retries: u32) -> RetryPolicy {
    RetryPolicy { max_retries, base_delay: Duration::from_millis(10), max_delay: Duration::from_secs(5) }
}

fn request(server: &MockServer) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        url: format!("{}/v1/chat/completions", server.uri()),
        headers: vec![("content-type".into(), "application/json".into())],
        body: json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
    }
}

fn completion() -> serde_json::Value {
    json!({"choices": [{"message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 5, "completion_tokens": 1}})
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_out_then_retried() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(429).insert_header("retry-after", "1").set_body_json(json!({"error": {"message": "slow down"}})),
        )
        .up_to_n_times(1)
        .mount(&server)
        .await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(completion())).mount(&server).await;

    let transport = LiveTransport::for_model(&model_config(&server.uri(), "")).unwrap().with_retry(quick_retries(3));
    let started = Instant::now();
    let response = transport.send(&request(&server)).await.unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.body, ResponseBody::Json(completion()));
    // Backoff alone would have waited ~10 ms; the server asked for a second.
    assert!(started.elapsed() >= Duration::from_millis(950), "{:?}", started.elapsed());
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_500_then_success_and_a_500_that_never_ends() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(500)).up_to_n_times(1).mount(&server).await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(completion())).mount(&server).await;
    let transport = LiveTransport::for_model(&model_config(&server.uri(), "")).unwrap().with_retry(quick_retries(2));
    assert_eq!(transport.send(&request(&server)).await.unwrap().status, 200);

    let failing = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_json(json!({"error": {"message": "overloaded"}})))
        .mount(&failing)
        .await;
    let transport = LiveTransport::for_model(&model_config(&failing.uri(), "")).unwrap().with_retry(quick_retries(2));
    let response = transport.send(&request(&failing)).await.unwrap();
    assert_eq!(response.status, 503, "the last answer comes back for the adapter to report");
    assert_eq!(failing.received_requests().await.unwrap().len(), 3, "one attempt and two retries");
}

#[tokio::test]
async fn a_server_rejecting_the_models_output_is_not_retried() {
    // llama.cpp's answer when the model's tool call does not parse.
    let server = MockServer::start().await;
    let body = json!({"error": {"code": 500, "message": "The model produced output that does not match the expected peg-native format", "type": "server_error"}});
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(500).set_body_json(body)).mount(&server).await;
    let transport = LiveTransport::for_model(&model_config(&server.uri(), "")).unwrap().with_retry(quick_retries(3));
    assert_eq!(transport.send(&request(&server)).await.unwrap().status, 500);
    assert_eq!(server.received_requests().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_slow_server_times_out_after_the_retries() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion()).set_delay(Duration::from_secs(3)))
        .mount(&server)
        .await;
    let transport = LiveTransport::for_model(&model_config(&server.uri(), "")).unwrap().with_retry(quick_retries(1));
    let error = transport.send(&request(&server)).await.unwrap_err();
    assert_eq!(error, TransportError::Timeout(1));
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[tokio::test]
async fn nobody_listening_is_a_connection_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let transport = LiveTransport::for_model(&model_config(&url, "")).unwrap().with_retry(quick_retries(1));
    let req = HttpRequest { method: "POST".into(), url: format!("{url}/v1/chat/completions"), headers: vec![], body: json!({}) };
    match transport.send(&req).await.unwrap_err() {
        TransportError::Connection(message) => assert!(message.to_lowercase().contains("connect"), "{message}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_body_that_is_not_json_is_kept_as_text() {
    let server = MockServer::start().await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_string("<html>gateway</html>")).mount(&server).await;
    let transport = LiveTransport::for_model(&model_config(&server.uri(), "")).unwrap();
    let response = transport.send(&request(&server)).await.unwrap();
    assert_eq!(response.body, ResponseBody::Text("<html>gateway</html>".into()));
}

#[tokio::test]
async fn a_stream_cut_off_mid_event_keeps_what_arrived() {
    let server = MockServer::start().await;
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"he\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"pa";
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream")).mount(&server).await;
    let transport = LiveTransport::for_model(&model_config(&server.uri(), "")).unwrap();
    let response = transport.send(&request(&server)).await.unwrap();
    let ResponseBody::Events(events) = response.body else { panic!("not a stream: {:?}", response.body) };
    assert_eq!(events.len(), 2);
    assert!(events[1].data.ends_with("{\\\"pa"), "{}", events[1].data);
    assert!(events.iter().all(|e| e.offset_ms >= 0.0 && e.offset_ms <= response.latency_ms));
}

#[tokio::test]
async fn the_key_comes_from_the_named_variable_and_goes_in_the_header() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(header("authorization", "Bearer sk-test-123"))
        .and(header("http-referer", "https://example.test"))
        .respond_with(ResponseTemplate::new(200).set_body_json(completion()))
        .mount(&server)
        .await;
    std::env::set_var("CALLTAPE_TEST_KEY_A", "sk-test-123");
    let config =
        model_config(&server.uri(), "api_key_env = \"CALLTAPE_TEST_KEY_A\"\nheaders = { HTTP-Referer = \"https://example.test\" }");
    let transport = LiveTransport::for_model(&config).unwrap();
    assert_eq!(transport.send(&request(&server)).await.unwrap().status, 200);

    // A server that echoes the key in an error does not get it past the transport.
    let echo = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({"error": {"message": "Incorrect API key provided: sk-test-123"}})))
        .mount(&echo)
        .await;
    let transport = LiveTransport::for_model(&model_config(&echo.uri(), "api_key_env = \"CALLTAPE_TEST_KEY_A\"\nmax_retries = 0")).unwrap();
    let response = transport.send(&request(&echo)).await.unwrap();
    assert_eq!(response.body, ResponseBody::Json(json!({"error": {"message": "Incorrect API key provided: [redacted]"}})));

    let config = model_config(&server.uri(), "api_key_env = \"CALLTAPE_TEST_KEY_UNSET\"");
    let message = LiveTransport::for_model(&config).err().unwrap().to_string();
    assert!(message.contains("CALLTAPE_TEST_KEY_UNSET") && message.contains("\"live\""), "{message}");
}

/// A whole run against a server that fails every request: the run completes,
/// every unit is an error row with the status and message, and nothing panics.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_against_a_failing_server_ends_with_error_rows() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(401).set_body_json(json!({"error": {"message": "invalid api key"}})))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"live\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\nmax_retries = 0\n",
            server.uri()
        ),
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = dir.path().join("reports");
    let args = ["run", "--config", config.to_str().unwrap(), "--filter", "read-*", "--out", out.to_str().unwrap()];
    let output = common::calltape_blocking(args.map(String::from).to_vec(), root.to_path_buf(), vec![]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(dir.path().join("reports").is_dir(), "{stderr}");
    let run = std::fs::read_dir(dir.path().join("reports")).unwrap().map(|e| e.unwrap().path()).find(|p| !p.ends_with("latest")).unwrap();
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    let requests: Vec<serde_json::Value> =
        events.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).filter(|e| e["event"] == "model_request").collect();
    assert!(!requests.is_empty());
    assert_eq!(requests.len(), server.received_requests().await.unwrap().len(), "every request is accounted for");
    for r in &requests {
        assert_eq!(r["status"], 401);
        assert!(r["error"].as_str().unwrap().contains("invalid api key"), "{r}");
    }
}

#[test]
fn a_missing_key_stops_the_run_before_any_work_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        "[[models]]\nname = \"gpt\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\napi_key_env = \"CALLTAPE_TEST_NEVER_SET\"\n",
    )
    .unwrap();
    let out = dir.path().join("reports");
    let output = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CALLTAPE_TEST_NEVER_SET")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim(),
        "error: model \"gpt\": the environment variable CALLTAPE_TEST_NEVER_SET is not set; export it with the API key (calltape never reads keys from files)"
    );
    assert!(!out.exists(), "no run folder for a run that never started");
}
