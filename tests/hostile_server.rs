//! A hostile server on 127.0.0.1, speaking raw HTTP/1.1 so it can do what
//! wiremock will not: announce a 2 GB body, stream without end, send one
//! line that never ends, go silent mid-stream, ask for absurd waits. Each
//! behaviour stops by itself (a byte cap, a time cap, or the client going
//! away). The live transport must end every exchange with an error naming
//! the limit, within the limit, and never panic or abort.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use calltape::config::Config;
use calltape::transport::live::LiveTransport;
use calltape::transport::retry::RetryPolicy;
use calltape::transport::{HttpRequest, ResponseBody, Transport, TransportError};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// No behaviour sends more than this, whatever the client does.
const SERVER_BYTE_CAP: u64 = 256 * 1024 * 1024;
/// Nor goes on for longer than this.
const SERVER_TIME_CAP: Duration = Duration::from_secs(20);

#[derive(Clone, Copy)]
enum Hostile {
    /// Announces `Content-Length: 2 GiB` and sends zeros until stopped.
    AnnouncedHugeBody,
    /// No length, `Connection: close`, zeros until stopped.
    EndlessBody,
    /// An SSE stream of small events, one every few milliseconds, forever.
    EndlessStream,
    /// `data: xxxx…` with no newline, ever.
    GiantLine,
    /// One event, then silence with the connection open.
    SilentStream,
    /// `429` with this `Retry-After` on the first request, then a completion.
    RetryAfter(&'static str),
}

struct Server {
    url: String,
    /// Body bytes sent, over all connections.
    sent: Arc<AtomicU64>,
    requests: Arc<AtomicUsize>,
}

async fn serve(behaviour: Hostile) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let sent = Arc::new(AtomicU64::new(0));
    let requests = Arc::new(AtomicUsize::new(0));
    let (s, r) = (sent.clone(), requests.clone());
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let n = r.fetch_add(1, Ordering::SeqCst);
            let s = s.clone();
            tokio::spawn(async move {
                let _ = tokio::time::timeout(SERVER_TIME_CAP, answer(socket, behaviour, n, s)).await;
            });
        }
    });
    Server { url, sent, requests }
}

/// Reads one request (headers and a `Content-Length` body).
async fn read_request(socket: &mut TcpStream) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let header_end = loop {
        let n = socket.read(&mut chunk).await?;
        if n == 0 || buf.len() > 1 << 20 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..header_end]).to_ascii_lowercase();
    let length: usize = head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    while buf.len() < header_end + length {
        let n = socket.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(())
}

/// Writes `piece` again and again until the client goes away or a cap is hit.
async fn repeat(socket: &mut TcpStream, piece: &[u8], every: Duration, sent: &AtomicU64) {
    let mut total = 0u64;
    while total < SERVER_BYTE_CAP {
        if socket.write_all(piece).await.is_err() {
            return;
        }
        total += piece.len() as u64;
        sent.fetch_add(piece.len() as u64, Ordering::SeqCst);
        if !every.is_zero() {
            tokio::time::sleep(every).await;
        }
    }
}

async fn answer(mut socket: TcpStream, behaviour: Hostile, n: usize, sent: Arc<AtomicU64>) {
    if read_request(&mut socket).await.is_err() {
        return;
    }
    let sse = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    let zeros = vec![b'0'; 64 * 1024];
    match behaviour {
        Hostile::AnnouncedHugeBody => {
            let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2147483648\r\n\r\n";
            let _ = socket.write_all(head.as_bytes()).await;
            repeat(&mut socket, &zeros, Duration::ZERO, &sent).await;
        }
        Hostile::EndlessBody => {
            let _ = socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n").await;
            repeat(&mut socket, &zeros, Duration::ZERO, &sent).await;
        }
        Hostile::EndlessStream => {
            let _ = socket.write_all(sse.as_bytes()).await;
            let event = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"la \"}}]}\n\n";
            repeat(&mut socket, event, Duration::from_millis(5), &sent).await;
        }
        Hostile::GiantLine => {
            let _ = socket.write_all(sse.as_bytes()).await;
            let _ = socket.write_all(b"data: ").await;
            repeat(&mut socket, &zeros, Duration::ZERO, &sent).await;
        }
        Hostile::SilentStream => {
            let _ = socket.write_all(sse.as_bytes()).await;
            let _ = socket.write_all(b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n").await;
            tokio::time::sleep(SERVER_TIME_CAP).await;
        }
        Hostile::RetryAfter(value) => {
            let (status, body) = if n == 0 {
                ("429 Too Many Requests", json!({"error": {"message": "slow down"}}).to_string())
            } else {
                ("200 OK", completion().to_string())
            };
            let head = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\nretry-after: {value}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
        }
    }
    let _ = socket.shutdown().await;
}

fn completion() -> serde_json::Value {
    json!({"choices": [{"message": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 5, "completion_tokens": 1}})
}

fn model_config(base_url: &str, extra: &str) -> calltape::config::ModelConfig {
    let text = format!(
        "[[models]]\nname = \"hostile\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{base_url}\"\nmax_retries = 0\n{extra}\n"
    );
    Config::parse(&text, "test").unwrap().models.remove(0)
}

fn request(server: &Server) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        url: format!("{}/v1/chat/completions", server.url),
        headers: vec![("content-type".into(), "application/json".into())],
        body: json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true}),
    }
}

/// Sends one request to a server behaving so, and returns the limit error.
async fn limit_error(behaviour: Hostile, extra: &str) -> (String, Server, Duration) {
    let server = serve(behaviour).await;
    let transport = LiveTransport::for_model(&model_config(&server.url, extra)).unwrap();
    let started = Instant::now();
    let result = transport.send(&request(&server)).await;
    let elapsed = started.elapsed();
    match result {
        Err(TransportError::Limit(message)) => (message, server, elapsed),
        other => panic!("expected a limit error, got {other:?}"),
    }
}

#[tokio::test]
async fn an_announced_2_gib_body_is_refused_before_reading_it() {
    let (message, server, _) = limit_error(Hostile::AnnouncedHugeBody, "limits = { max_body_bytes = 1048576 }").await;
    assert!(message.contains("announced 2147483648 bytes, more than 1048576 bytes (limits.max_body_bytes)"), "{message}");
    assert!(message.contains("`limits = { max_body_bytes = N }`") && message.contains("\"hostile\""), "{message}");
    // Only what the socket buffers took before the client hung up.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(server.sent.load(Ordering::SeqCst) < 16 << 20, "{}", server.sent.load(Ordering::SeqCst));
    assert_eq!(server.requests.load(Ordering::SeqCst), 1, "a limit error is not retried");
}

#[tokio::test]
async fn an_endless_body_stops_near_the_limit() {
    let (message, server, _) = limit_error(Hostile::EndlessBody, "limits = { max_body_bytes = 1048576 }").await;
    assert!(message.contains("passed 1048576 bytes (limits.max_body_bytes) and was not read further"), "{message}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The client read at most the limit and a chunk; the rest is socket buffers.
    let sent = server.sent.load(Ordering::SeqCst);
    assert!((1 << 20..16 << 20).contains(&sent), "{sent}");
}

#[tokio::test]
async fn an_endless_stream_ends_at_the_timeout_with_an_error_not_a_truncated_answer() {
    let (message, server, elapsed) = limit_error(Hostile::EndlessStream, "stream = true\ntimeout_secs = 1").await;
    assert!(message.contains("the stream was still going after 1 s"), "{message}");
    assert!(message.contains("raise timeout_secs on the [[models]] entry \"hostile\""), "{message}");
    assert!(elapsed < Duration::from_secs(4), "{elapsed:?}");
    assert!(server.sent.load(Ordering::SeqCst) > 0);
}

#[tokio::test]
async fn an_endless_stream_of_tiny_events_stops_at_the_event_limit() {
    let (message, _, elapsed) =
        limit_error(Hostile::EndlessStream, "stream = true\ntimeout_secs = 30\nlimits = { max_stream_events = 50 }").await;
    assert!(message.contains("passed 50 events (limits.max_stream_events)"), "{message}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[tokio::test]
async fn a_giant_line_stops_at_the_event_limit() {
    let (message, server, _) = limit_error(Hostile::GiantLine, "stream = true\nlimits = { max_event_bytes = 65536 }").await;
    assert!(message.contains("one stream event or line passed 65536 bytes (limits.max_event_bytes"), "{message}");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let sent = server.sent.load(Ordering::SeqCst);
    assert!(sent < 16 << 20, "{sent}");
}

#[tokio::test]
async fn a_stream_that_goes_silent_fails_at_the_idle_limit() {
    let (message, _, elapsed) =
        limit_error(Hostile::SilentStream, "stream = true\ntimeout_secs = 30\nlimits = { idle_timeout_secs = 1 }").await;
    assert!(message.contains("sent nothing for 1 s after") && message.contains("limits.idle_timeout_secs"), "{message}");
    assert!(elapsed >= Duration::from_millis(900) && elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn hostile_retry_after_values_are_capped_or_ignored_never_a_panic() {
    // 1e300 and inf are capped at the policy's longest wait; NaN, negative and junk fall back to backoff.
    for (value, at_least) in
        [("1e300", 300), ("inf", 300), ("NaN", 0), ("-5", 0), ("99999999999999999999999", 300), ("Thu, 01 Jan 1970 00:00:00 GMT", 0)]
    {
        let server = serve(Hostile::RetryAfter(value)).await;
        let retry = RetryPolicy { max_retries: 1, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(300) };
        let transport = LiveTransport::for_model(&model_config(&server.url, "")).unwrap().with_retry(retry);
        let started = Instant::now();
        let response = transport.send(&request(&server)).await.unwrap_or_else(|e| panic!("{value}: {e}"));
        let elapsed = started.elapsed();
        assert_eq!(response.status, 200, "{value}");
        assert_eq!(response.body, ResponseBody::Json(completion()), "{value}");
        assert!(elapsed >= Duration::from_millis(at_least) && elapsed < Duration::from_secs(3), "{value}: {elapsed:?}");
        assert_eq!(server.requests.load(Ordering::SeqCst), 2, "{value}");
    }
}

/// The real binary against servers that send too much: the run finishes,
/// every request is an error row naming the limit, and the reports are written.
#[tokio::test(flavor = "multi_thread")]
async fn a_live_run_against_hostile_servers_ends_with_error_rows_and_reports() {
    let body = serve(Hostile::EndlessBody).await;
    let stream = serve(Hostile::GiantLine).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    let model = |name: &str, url: &str, extra: &str| {
        format!("[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{url}/v1\"\napi_key_env = \"CALLTAPE_HOSTILE_KEY\"\nmax_retries = 2\n{extra}\n")
    };
    std::fs::write(
        &config,
        model("big-body", &body.url, "limits = { max_body_bytes = 200000 }")
            + &model("giant-line", &stream.url, "stream = true\nlimits = { max_event_bytes = 10000 }"),
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = dir.path().join("reports");
    let out2 = out.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_calltape"))
            .args(["run", "--config", config.to_str().unwrap(), "--mode", "live", "--filter", "read-*", "--out", out2.to_str().unwrap()])
            .env("CALLTAPE_HOSTILE_KEY", "sk-hostile-test-0000")
            .current_dir(root)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked") && output.status.code().is_some(), "{stderr}");
    for file in ["events.jsonl", "summary.csv", "by_tool.csv", "scenarios.csv", "report.md"] {
        assert!(out.join("latest").join(file).is_file(), "missing {file}: {stderr}");
    }
    let events = std::fs::read_to_string(out.join("latest/events.jsonl")).unwrap();
    let requests: Vec<serde_json::Value> =
        events.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()).filter(|e| e["event"] == "model_request").collect();
    for (model, limit) in [("big-body", "limits.max_body_bytes"), ("giant-line", "limits.max_event_bytes")] {
        let mine: Vec<_> = requests.iter().filter(|r| r["model"] == model).collect();
        assert!(!mine.is_empty(), "no request from {model}: {events}");
        for r in mine {
            assert!(r["error"].as_str().unwrap_or_default().contains(limit), "{r}");
        }
    }
    // One request per unit reached each server: a limit error is not retried.
    assert_eq!(body.requests.load(Ordering::SeqCst), requests.iter().filter(|r| r["model"] == "big-body").count());
    let scenarios = std::fs::read_to_string(out.join("latest/scenarios.csv")).unwrap();
    assert!(scenarios.lines().skip(1).all(|l| l.contains(",false,")), "{scenarios}");
}

#[test]
fn limits_in_the_config_are_checked_and_named() {
    let base = "[[models]]\nname = \"x\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\n";
    let err = Config::parse(&format!("{base}limits = {{ max_body_bytes = 0 }}\n"), "c.toml").unwrap_err().to_string();
    assert_eq!(err, "c.toml: model \"x\": limits.max_body_bytes must be at least 1");
    let err = Config::parse(&format!("{base}limits = {{ max_body = 5 }}\n"), "c.toml").unwrap_err().to_string();
    assert!(err.contains("max_body") && err.contains("max_body_bytes"), "an unknown key lists the known ones: {err}");
    let err = Config::parse(&format!("{base}limits = {{ idle_timeout_secs = -1 }}\n"), "c.toml").unwrap_err().to_string();
    assert!(err.contains("idle_timeout_secs"), "{err}");
    let m = Config::parse(&format!("{base}[models.limits]\nmax_event_bytes = 100\n"), "c.toml").unwrap().models.remove(0);
    assert_eq!((m.limits.max_event_bytes, m.limits.max_body_bytes, m.limits.idle_timeout_secs), (100, 32 << 20, 60));
}

#[tokio::test]
async fn the_largest_configurable_timeouts_do_not_overflow_a_deadline() {
    let server = serve(Hostile::RetryAfter("0")).await;
    // The configuration refuses such a timeout by name; a ModelConfig built
    // in code still must not overflow a deadline.
    let huge = "timeout_secs = 9223372036854775807";
    let text = format!(
        "[[models]]\nname = \"hostile\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}\"\n{huge}\n",
        server.url
    );
    let refused = Config::parse(&text, "test").unwrap_err().to_string();
    assert!(refused.contains("timeout_secs"), "{refused}");
    let mut model = model_config(&server.url, "");
    model.timeout_secs = i64::MAX as u64;
    model.limits.idle_timeout_secs = i64::MAX as u64;
    let transport = LiveTransport::for_model(&model).unwrap().with_retry(RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(100),
    });
    assert_eq!(transport.send(&request(&server)).await.unwrap().status, 200);
}
