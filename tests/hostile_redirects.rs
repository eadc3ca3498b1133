//! Hostile servers on 127.0.0.1 that answer with a redirect to another
//! origin (another port here), for every provider and for a secret header
//! the configuration adds. The credentials must never reach the second
//! server: the request ends in an error row naming both origins, the run
//! goes on. A redirect within the same origin is still followed.

use std::path::Path;
use std::process::Command;

use wiremock::matchers::{any, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const KEY: &str = "ct-redirect-Kx8Qm2Vb7Np4Rt";
const HEADER_SECRET: &str = "hdr-secret-Zw3Lk9Pq5Dm1";

/// Runs the real binary live against `base_url` with `provider`; returns
/// (exit code, stdout + stderr, events.jsonl).
async fn live_run(provider: &str, base_url: String, extra: &str) -> (Option<i32>, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"redirected\"\nprovider = \"{provider}\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{base_url}\"\n\
             api_key_env = \"CALLTAPE_REDIRECT_KEY\"\nmax_retries = 0\ntimeout_secs = 5\n{extra}\n"
        ),
    )
    .unwrap();
    let out = dir.path().join("reports");
    let mut command = Command::new(env!("CARGO_BIN_EXE_calltape"));
    command
        .args(["run", "--config", config.to_str().unwrap(), "--filter", "read-*", "--mode", "live", "--out", out.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CALLTAPE_REDIRECT_KEY", KEY);
    let output = tokio::task::spawn_blocking(move || command.output().unwrap()).await.unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!said.contains("panicked"), "{said}");
    let events = std::fs::read_to_string(find(&out, "events.jsonl").unwrap_or_else(|| panic!("no events.jsonl: {said}"))).unwrap();
    (output.status.code(), said, events)
}

fn find(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.is_dir() {
            if let Some(found) = find(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// A server that sends every request on to `elsewhere` with a 307 (the
/// method and body are kept, so a client that follows re-sends its headers).
async fn redirecting_to(elsewhere: &MockServer) -> MockServer {
    let server = MockServer::start().await;
    let location = format!("{}/collect", elsewhere.uri());
    Mock::given(any()).respond_with(ResponseTemplate::new(307).insert_header("location", location.as_str())).mount(&server).await;
    server
}

async fn assert_refused(provider: &str, extra: &str, secret: &str) {
    let thief = MockServer::start().await;
    Mock::given(any()).respond_with(ResponseTemplate::new(200)).mount(&thief).await;
    let server = redirecting_to(&thief).await;
    let (code, said, events) = live_run(provider, format!("{}/v1", server.uri()), extra).await;
    let stolen = thief.received_requests().await.unwrap();
    assert!(stolen.is_empty(), "{provider}: the other origin got {} request(s): {:?}", stolen.len(), stolen[0].headers);
    assert!(!server.received_requests().await.unwrap().is_empty(), "{provider}: the first server was asked");
    let refused = format!("refused to follow a redirect from {} to another origin, {}/collect", server.uri(), thief.uri());
    assert!(events.contains(&refused), "{provider}: the error row names both origins: {events}");
    assert!(!events.contains(secret) && !said.contains(secret), "{provider}: the secret is written nowhere");
    // The run goes on and reports the errored units as it does any error row.
    assert!(matches!(code, Some(0 | 1)), "{provider}: {code:?} {said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn openai_key_never_follows_a_redirect_to_another_origin() {
    assert_refused("openai", "", KEY).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn anthropic_key_never_follows_a_redirect_to_another_origin() {
    assert_refused("anthropic", "", KEY).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn gemini_key_never_follows_a_redirect_to_another_origin() {
    assert_refused("gemini", "", KEY).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_configured_secret_header_never_follows_a_redirect_to_another_origin() {
    let extra = format!("headers = {{ \"x-custom-token\" = \"{HEADER_SECRET}\" }}");
    assert_refused("openai", &extra, HEADER_SECRET).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_within_the_same_origin_is_still_followed() {
    let server = MockServer::start().await;
    let moved = format!("{}/moved/chat/completions", server.uri());
    Mock::given(path("/v1/chat/completions"))
        .respond_with(ResponseTemplate::new(307).insert_header("location", moved.as_str()))
        .mount(&server)
        .await;
    Mock::given(path("/moved/chat/completions"))
        .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
            "id": "x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "done"}}]
        })))
        .mount(&server)
        .await;
    let (_, said, events) = live_run("openai", format!("{}/v1", server.uri()), "stream = false").await;
    let asked: Vec<String> = server.received_requests().await.unwrap().iter().map(|r| r.url.path().to_string()).collect();
    assert!(asked.iter().any(|p| p == "/moved/chat/completions"), "{asked:?} {said}");
    assert!(!events.contains("refused to follow"), "{events}");
}
