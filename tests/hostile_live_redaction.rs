//! A hostile server on 127.0.0.1 that echoes the API key inside a model's
//! streamed turn in every shape a reader could reassemble: split across
//! interleaved chunks of parallel tool calls, upper-cased, base64 (standard
//! and URL-safe, at each byte offset), percent-encoded, and cut in two
//! across two argument values. Under `--mode live` (no cassette to refuse)
//! none of it may reach `events.jsonl` or `transcripts.html`.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const KEY: &str = "ct-live-redact-4Fq9Zm2Lx7Wv";

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

fn percent(text: &str) -> String {
    text.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// One streamed chunk holding one piece of the arguments of call `index`.
fn piece(index: u32, arguments: &str, first: bool) -> String {
    let mut call = json!({"index": index, "function": {"arguments": arguments}});
    if first {
        call["id"] = json!(format!("call_{index}"));
        call["type"] = json!("function");
        call["function"]["name"] = json!("read_file");
    }
    format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}))
}

/// The model's turn: three parallel calls whose argument pieces interleave.
fn hostile_stream() -> String {
    let (a, b) = KEY.split_at(11);
    let b64 = base64(format!("x{KEY}yz").as_bytes());
    let url_safe = base64(format!("ab{KEY}").as_bytes()).replace('+', "-").replace('/', "_");
    let call0 = [r#"{"target_file": "/tmp/"#.to_string(), a.to_string(), b.to_string(), r#""}"#.to_string()];
    let call1 = [r#"{"target_file": ""#.to_string(), KEY.to_uppercase(), format!(" {b64} {url_safe}"), r#""}"#.to_string()];
    let call2 = [r#"{"target_file": "q="#.to_string(), percent(KEY), format!(r#"", "mode": "{a}"#), format!(r#"", "z": "{b}!"}}"#)];
    let mut chunks = Vec::new();
    for i in 0..4 {
        for (index, call) in [&call0, &call1, &call2].into_iter().enumerate() {
            chunks.push(piece(index as u32, &call[i], i == 0));
        }
    }
    chunks.push(format!("data: {}\n\n", json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})));
    chunks.push("data: [DONE]\n\n".into());
    chunks.concat()
}

struct Hostile;
impl Respond for Hostile {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        ResponseTemplate::new(200).set_body_raw(hostile_stream(), "text/event-stream")
    }
}

fn read_named(dir: &Path, name: &str) -> Option<String> {
    for entry in std::fs::read_dir(dir).ok()? {
        let path = entry.ok()?.path();
        if path.is_dir() {
            if let Some(found) = read_named(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return std::fs::read_to_string(path).ok();
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread")]
async fn a_live_run_writes_the_key_nowhere_whatever_its_encoding_or_the_streams_shape() {
    let server = MockServer::start().await;
    Mock::given(wiremock::matchers::any()).respond_with(Hostile).mount(&server).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    std::fs::write(
        &config,
        format!(
            "[[models]]\nname = \"hostile\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\n\
             api_key_env = \"CALLTAPE_LIVE_REDACT_KEY\"\nmax_retries = 0\ntimeout_secs = 5\nstream = true\n",
            server.uri()
        ),
    )
    .unwrap();
    let out = dir.path().join("reports");
    let output = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(["run", "--config", config.to_str().unwrap(), "--filter", "read-*", "--mode", "live", "--no-arms"])
        .args(["--out", out.to_str().unwrap()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("CALLTAPE_LIVE_REDACT_KEY", KEY)
        .output()
        .unwrap();
    let said = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!said.contains("panicked"), "{said}");
    assert!(!server.received_requests().await.unwrap().is_empty(), "{said}");
    let events = read_named(&out, "events.jsonl").unwrap_or_else(|| panic!("no events.jsonl: {said}"));
    assert!(events.contains("\"tool_call\""), "the calls were recorded: {events}");
    assert!(events.contains("[redacted]"), "{events}");
    let transcripts = read_named(&out, "transcripts.html").unwrap_or_else(|| panic!("no transcripts.html: {said}"));
    assert!(transcripts.contains("read_file"), "the failed units' calls are in transcripts.html");
    let (a, b) = KEY.split_at(11);
    let mut forms = vec![KEY.to_string(), KEY.to_uppercase(), KEY.to_lowercase(), percent(KEY), a.to_string(), b.to_string()];
    for prefix in ["", "x", "ab"] {
        // The characters of the key's own bits, at each of the 3 offsets.
        let encoded = base64(format!("{prefix}{KEY}").as_bytes());
        let middle = &encoded[(prefix.len() * 8).div_ceil(6)..(prefix.len() + KEY.len()) * 8 / 6];
        forms.push(middle.to_string());
        forms.push(middle.replace('+', "-").replace('/', "_"));
    }
    for form in &forms {
        assert!(!events.contains(form.as_str()), "{form} in events.jsonl: {events}");
        assert!(!transcripts.contains(form.as_str()), "{form} in transcripts.html");
        assert!(!said.contains(form.as_str()), "{form} on the terminal: {said}");
    }
}
