//! Hostile servers on 127.0.0.1 that echo the API key and the base URL's
//! credentials back — whole, split across TCP chunks, split across SSE
//! events, inside bytes that are not UTF-8, in error bodies and headers —
//! and base URLs whose credentials end up in the HTTP client's error text.
//! Nothing of it may get past the transport, nor into any file of a run
//! folder or a recordings folder, nor onto stderr.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use calltape::chat::{ChatMessage, ChatRequest};
use calltape::config::{Config, ModelConfig};
use calltape::transport::live::LiveTransport;
use calltape::transport::{HttpRequest, HttpResponse, ResponseBody, Transport};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

mod common;
use common::copy_dir;

/// The key the library tests read; distinctive, so a find is never chance.
const KEY_VAR: &str = "CALLTAPE_HOSTILE_SECRETS_KEY";
const KEY: &str = "ct-hostile-9Q7zX2mK4pL8vR3nW5";

fn model(base_url: &str, extra: &str) -> ModelConfig {
    std::env::set_var(KEY_VAR, KEY);
    let text = format!(
        "[[models]]\nname = \"live\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{base_url}\"\n\
         api_key_env = \"{KEY_VAR}\"\ntimeout_secs = 5\nmax_retries = 0\n{extra}\n"
    );
    Config::parse(&text, "test").unwrap().models.remove(0)
}

fn request(url: &str) -> HttpRequest {
    HttpRequest { method: "POST".into(), url: url.into(), headers: vec![], body: json!({"model": "m", "messages": []}) }
}

/// Everything a response carries, as one text to search.
fn all_text(response: &HttpResponse) -> String {
    format!("{response:?}")
}

fn delta(content: &str) -> String {
    format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"content": content}}]}))
}

fn tool_delta(arguments: &str) -> String {
    let call = json!({"index": 0, "id": "c1", "type": "function", "function": {"name": "read_file", "arguments": arguments}});
    format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
}

/// A server that answers one request with `chunks`, written one at a time
/// with a pause between, so the client sees exactly these boundaries.
async fn chunked_server(head: &'static str, chunks: Vec<Vec<u8>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let Ok((mut socket, _)) = listener.accept().await else { return };
        // Read the request head and whatever body came with it; the answer does not depend on it.
        let mut buf = vec![0u8; 64 * 1024];
        let mut seen = Vec::new();
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            match tokio::time::timeout(Duration::from_secs(5), socket.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => seen.extend_from_slice(&buf[..n]),
                _ => return,
            }
        }
        let _ = socket.write_all(head.as_bytes()).await;
        for chunk in chunks {
            let _ = socket.write_all(&chunk).await;
            let _ = socket.flush().await;
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        let _ = socket.shutdown().await;
    });
    url
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// The model's turn as the OpenAI streaming adapter assembles it.
fn assembled(model: &ModelConfig, response: &HttpResponse) -> String {
    let chat = ChatRequest {
        model_id: "m".into(),
        messages: vec![ChatMessage::User { content: "hi".into() }],
        tools: vec![],
        temperature: None,
        max_tokens: None,
        seed: None,
    };
    let turn = calltape::provider::for_model(model).parse_response(&chat, response).unwrap();
    format!("{turn:?}")
}

#[tokio::test]
async fn a_key_echoed_whole_in_a_json_error_and_a_header_is_redacted() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any())
        .respond_with(
            ResponseTemplate::new(401)
                .insert_header("x-echo", format!("key={KEY}").as_str())
                .set_body_json(json!({"error": {"message": format!("Incorrect API key provided: {KEY}"), "key": KEY}})),
        )
        .mount(&server)
        .await;
    let transport = LiveTransport::for_model(&model(&server.uri(), "")).unwrap();
    let response = transport.send(&request(&format!("{}/v1/chat/completions", server.uri()))).await.unwrap();
    assert_eq!(
        response.body,
        ResponseBody::Json(json!({"error": {"message": "Incorrect API key provided: [redacted]", "key": "[redacted]"}}))
    );
    assert!(response.headers.contains(&("x-echo".into(), "key=[redacted]".into())), "{:?}", response.headers);
    assert!(!all_text(&response).contains(KEY));
}

#[tokio::test]
async fn a_key_split_across_two_tcp_chunks_is_redacted() {
    let event = delta(&format!("your key is {KEY}, isn't it"));
    let cut = event.find(KEY).unwrap() + 9;
    let chunks = vec![event.as_bytes()[..cut].to_vec(), event.as_bytes()[cut..].to_vec(), b"data: [DONE]\n\n".to_vec()];
    let url = chunked_server(SSE_HEAD, chunks).await;
    let config = model(&format!("{url}/v1"), "stream = true");
    let response = LiveTransport::for_model(&config).unwrap().send(&request(&format!("{url}/v1/chat/completions"))).await.unwrap();
    assert!(!all_text(&response).contains(KEY), "{response:?}");
    assert!(
        assembled(&config, &response).contains("text: Some(\"your key is [redacted], isn't it\")"),
        "{}",
        assembled(&config, &response)
    );
}

#[tokio::test]
async fn a_key_split_across_sse_events_in_text_and_in_tool_arguments_is_redacted() {
    // Split mid-character, too: `é` is two bytes and the chunk ends between them.
    let (a, b) = KEY.split_at(11);
    let (c, d) = KEY.split_at(20);
    let body = [
        delta(&format!("é {a}")),
        delta(&format!("{b} é")),
        tool_delta(&format!("{{\"path\": \"{c}")),
        tool_delta(&format!("{d}\"}}")),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat()
    .into_bytes();
    let split = body.iter().position(|&x| x == 0xC3).unwrap() + 1;
    let url = chunked_server(SSE_HEAD, vec![body[..split].to_vec(), body[split..].to_vec()]).await;
    let config = model(&format!("{url}/v1"), "stream = true");
    let response = LiveTransport::for_model(&config).unwrap().send(&request(&format!("{url}/v1/chat/completions"))).await.unwrap();
    let ResponseBody::Events(events) = &response.body else { panic!("a stream: {response:?}") };
    assert_eq!(events.len(), 5);
    let turn = assembled(&config, &response);
    assert!(!turn.contains(KEY) && !all_text(&response).contains(KEY), "{turn}");
    assert!(turn.contains("text: Some(\"é [redacted] é\")"), "{turn}");
    assert!(turn.contains(r#"{\"path\": \"[redacted]\"}"#), "{turn}");
    // Neither half survives on its own either.
    for half in [a, b, c, d] {
        assert!(!all_text(&response).contains(half) || half.len() < 10, "{half}: {response:?}");
    }
}

#[tokio::test]
async fn a_key_inside_a_body_that_is_not_utf8_is_redacted_and_the_rest_kept() {
    let server = MockServer::start().await;
    let mut body = b"bad \xff\xfe bytes; key ".to_vec();
    body.extend_from_slice(KEY.as_bytes());
    body.extend_from_slice(b" then \xc3(");
    Mock::given(wiremock::matchers::any()).respond_with(ResponseTemplate::new(500).set_body_raw(body, "text/plain")).mount(&server).await;
    let transport = LiveTransport::for_model(&model(&server.uri(), "")).unwrap();
    let response = transport.send(&request(&format!("{}/v1/chat/completions", server.uri()))).await.unwrap();
    assert_eq!(response.body, ResponseBody::Text("bad \u{fffd}\u{fffd} bytes; key [redacted] then \u{fffd}(".into()));
}

/// Answers every request with `status` and a body that repeats everything
/// the request carried: its URL (query included) and every header (the
/// bearer key, Basic authentication built from the URL's user-info).
struct EchoAll(u16);

impl Respond for EchoAll {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let headers: Vec<String> = request.headers.iter().map(|(k, v)| format!("{k}: {}", v.to_str().unwrap_or("?"))).collect();
        ResponseTemplate::new(self.0)
            .set_body_json(json!({"error": {"message": format!("you sent {} with {}", request.url, headers.join("; "))}}))
    }
}

#[tokio::test]
async fn url_credentials_never_reach_an_error_or_an_echoed_body() {
    // A closed port: the HTTP client's own error text names the URL.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let base = format!("http://alice:pw-Secret-One@127.0.0.1:{port}/v1?key=QK-Secret-Two&alt=sse");
    let transport = LiveTransport::for_model(&model(&base, "")).unwrap();
    let error = transport.send(&request(&format!("{base}/chat/completions"))).await.unwrap_err().to_string();
    for secret in ["pw-Secret-One", "QK-Secret-Two", "alice", KEY] {
        assert!(!error.contains(secret), "{secret} in {error}");
    }
    assert!(error.starts_with("connection failed: ") && error.contains("127.0.0.1"), "{error}");

    // A server that echoes all it received in a 500.
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any()).respond_with(EchoAll(500)).mount(&server).await;
    let base = server.uri().replace("http://", "http://alice:pw-Secret-One@") + "/v1?key=QK-Secret-Two";
    let transport = LiveTransport::for_model(&model(&base, "headers = { X-Api-Token = \"hdr-Secret-Three\" }")).unwrap();
    let response = transport.send(&request(&format!("{base}/chat/completions"))).await.unwrap();
    let text = all_text(&response);
    assert!(text.contains("you sent") && text.contains("[redacted]"), "{text}");
    // The Basic-auth form of `alice:pw-Secret-One`, too.
    for secret in ["pw-Secret-One", "QK-Secret-Two", "hdr-Secret-Three", "YWxpY2U6cHctU2VjcmV0LU9uZQ==", KEY] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
}

/// Every file under `dir`, with its text (lossily decoded).
fn files_under(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push((path.display().to_string(), String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned()));
        }
    }
    out
}

/// Runs the real binary in record mode against `base_url`, with the key in
/// the child's environment only; returns (stdout + stderr, every file written).
async fn record_run(base_url: String, stream: bool) -> (String, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"hostile\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{base_url}\"\n\
             api_key_env = \"CALLTAPE_HOSTILE_BIN_KEY\"\nmax_retries = 0\ntimeout_secs = 5\nstream = {stream}\n"
        ),
    )
    .unwrap();
    let (out, rec) = (dir.path().join("reports"), dir.path().join("recordings"));
    let args = ["run", "--config", config.to_str().unwrap(), "--filter", "read-*", "--mode", "record"];
    let mut command = Command::new(env!("CARGO_BIN_EXE_calltape"));
    command
        .args(args)
        .args(["--out", out.to_str().unwrap(), "--recordings", rec.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CALLTAPE_HOSTILE_BIN_KEY", BIN_KEY);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap()).await.unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!said.contains("panicked"), "{said}");
    let mut files = files_under(&out);
    files.extend(files_under(&rec));
    assert!(files.iter().any(|(p, _)| p.ends_with("events.jsonl")), "{said}");
    (said, files)
}

const BIN_KEY: &str = "ct-binary-7Hq2Lm9Xv4Rb8Tz1";

fn assert_nowhere(secrets: &[&str], said: &str, files: &[(String, String)]) {
    for secret in secrets {
        assert!(!said.contains(secret), "{secret} on the terminal: {said}");
        for (path, text) in files {
            assert!(!text.contains(secret), "{secret} in {path}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recorded_run_against_an_echoing_stream_writes_the_key_nowhere() {
    // Every answer echoes the key split across events of the text, across
    // events of a tool call's arguments, and whole in a header.
    struct SplitEcho;
    impl Respond for SplitEcho {
        fn respond(&self, _: &Request) -> ResponseTemplate {
            let (a, b) = BIN_KEY.split_at(10);
            let body = [
                delta(&format!("I was sent {a}")),
                delta(&format!("{b}.")),
                tool_delta(&format!("{{\"target_file\": \"{a}")),
                tool_delta(&format!("{b}\"}}")),
                "data: [DONE]\n\n".to_string(),
            ]
            .concat();
            ResponseTemplate::new(200).insert_header("x-echo", BIN_KEY).set_body_raw(body, "text/event-stream")
        }
    }
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any()).respond_with(SplitEcho).mount(&server).await;
    let (said, files) = record_run(format!("{}/v1", server.uri()), true).await;
    assert!(!server.received_requests().await.unwrap().is_empty());
    let cassettes: Vec<&(String, String)> = files.iter().filter(|(p, _)| p.contains("recordings")).collect();
    assert!(!cassettes.is_empty(), "the redacted answers are recorded: {said}");
    assert!(cassettes.iter().all(|(_, text)| text.contains("[redacted]")), "the echo reached the cassettes, redacted");
    assert_nowhere(&[BIN_KEY, &BIN_KEY[..10], &BIN_KEY[10..]], &said, &files);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_whose_base_url_holds_credentials_writes_them_nowhere() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any()).respond_with(EchoAll(500)).mount(&server).await;
    let base = server.uri().replace("http://", "http://alice:pw-Secret-One@") + "/v1?key=QK-Secret-Two";
    let (said, files) = record_run(base, false).await;
    let events = files.iter().find(|(p, _)| p.ends_with("events.jsonl")).unwrap();
    assert!(events.1.contains("you sent"), "the server's echo is in the error rows, redacted: {}", events.1);
    assert_nowhere(&["pw-Secret-One", "QK-Secret-Two", "YWxpY2U6cHctU2VjcmV0LU9uZQ==", BIN_KEY], &said, &files);

    // The same base URL on a closed port: the client's error text names the URL.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let (said, files) = record_run(format!("http://alice:pw-Secret-One@127.0.0.1:{port}/v1?key=QK-Secret-Two"), false).await;
    let events = files.iter().find(|(p, _)| p.ends_with("events.jsonl")).unwrap();
    assert!(events.1.contains("connection failed"), "{}", events.1);
    assert_nowhere(&["pw-Secret-One", "QK-Secret-Two", BIN_KEY], &said, &files);
}

#[test]
fn cassettes_verify_fails_on_a_key_split_across_events_or_in_a_url() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let r = rec.to_str().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    // The bundled recordings of a real local model's runs of the coding suite.
    let model = "qwen2.5-coder-0.5b-local@full";
    let folder = rec.join("coding").join(model);
    copy_dir(&Path::new(root).join("recordings/coding").join(model), &folder);
    let mut names: Vec<String> =
        std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    let rewrite = |name: &str, change: &dyn Fn(&mut serde_json::Value)| {
        let path = folder.join(name);
        let mut c: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        change(&mut c);
        std::fs::write(&path, format!("{}\n", serde_json::to_string_pretty(&c).unwrap())).unwrap();
    };
    // A key-shaped string no single line holds: its halves in two events.
    let key = ["sk-", "proj-Q7h2Lx9Vb4Nm8Kc3Zt6Rw1Yp5Jd0Gf"].concat();
    let (a, b) = key.split_at(14);
    let stream = json!({"events": [
        {"offset_ms": 1.0, "data": json!({"choices": [{"delta": {"content": a}}]}).to_string()},
        {"offset_ms": 2.0, "data": json!({"choices": [{"delta": {"content": b}}]}).to_string()},
    ]});
    rewrite(&names[0], &|c| c["interactions"][0]["response"]["body"] = stream.clone());
    rewrite(&names[1], &|c| c["interactions"][0]["request"]["path"] = json!("/v1/chat/completions?api_key=abc123"));
    rewrite(&names[2], &|c| c["interactions"][0]["request"]["path"] = json!("https://bob:hunter2@h/v1/chat/completions"));

    let out = Command::new(env!("CARGO_BIN_EXE_calltape")).args(["cassettes", "verify", r]).current_dir(root).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let line = |name: &str, says: &str| {
        let path = folder.join(name).display().to_string();
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("error: {path}: ")) && l.contains(says)),
            "no {says} for {path} in\n{stdout}"
        );
    };
    line(&names[0], "interaction #1: events #1–#2 of its stream (/choices/0/delta/content joined) holds an OpenAI-style API key");
    line(&names[1], "the request path of interaction #1 holds a credential in its URL's query parameter \"api_key\"");
    line(&names[2], "the request path of interaction #1 holds a user name or password");
    for secret in [key.as_str(), a, b, "abc123", "hunter2"] {
        assert!(!stdout.contains(secret), "verify repeats {secret}:\n{stdout}");
    }
}
