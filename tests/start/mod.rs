//! What tests/install.rs and tests/quickstart.rs share: the binary copied
//! into a prefix of its own (as `cargo install` puts it), a fake
//! OpenAI-compatible server on 127.0.0.1, and the edit a user makes to the
//! `calltape.toml` that `calltape init` writes.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// `calltape` copied to `<prefix>/bin/`, away from the repository.
pub fn install(prefix: &Path) -> PathBuf {
    let bin = prefix.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let to = bin.join(Path::new(env!("CARGO_BIN_EXE_calltape")).file_name().unwrap());
    std::fs::copy(env!("CARGO_BIN_EXE_calltape"), &to).unwrap();
    // A test thread that forks while the copy is open for writing holds the
    // write descriptor until its child execs; running the copy meanwhile
    // fails with ETXTBSY ("text file busy"). Wait until it runs once.
    for _ in 0..200 {
        match std::process::Command::new(&to).arg("--version").output() {
            Err(e) if e.raw_os_error() == Some(26) => std::thread::sleep(std::time::Duration::from_millis(25)),
            _ => break,
        }
    }
    to
}

/// A real Chat Completions body (openai-python's test suite, gpt-4o:
/// tests/fixtures/provider-fixtures/openai/) with the call aimed at the
/// example toolset: `get_weather` for Paris, in celsius.
fn weather_call() -> serde_json::Value {
    let path =
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/provider-fixtures/openai/test_completions.py@test_parse_pydantic_tool.json");
    let mut body: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let function = &mut body["choices"][0]["message"]["tool_calls"][0]["function"];
    function["name"] = "get_weather".into();
    function["arguments"] = r#"{"city":"Paris","unit":"celsius"}"#.into();
    body
}

/// The same body as a final answer: the text, no call.
fn final_answer(text: &str) -> serde_json::Value {
    let mut body = weather_call();
    body["choices"][0]["message"]["tool_calls"] = serde_json::Value::Null;
    body["choices"][0]["message"]["content"] = text.into();
    body["choices"][0]["finish_reason"] = "stop".into();
    body
}

/// Answers like a model that always wants the weather: the call first, and
/// once a tool result is in the conversation, an answer that uses it.
struct WeatherModel;

impl Respond for WeatherModel {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let answered = body["messages"].as_array().is_some_and(|m| m.iter().any(|m| m["role"] == "tool"));
        ResponseTemplate::new(200).set_body_json(if answered { final_answer("It is 18 °C in Paris, light rain.") } else { weather_call() })
    }
}

/// A fake OpenAI-compatible server on 127.0.0.1 that wants `key` as its bearer token.
pub async fn fake_openai(key: &str) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(header("authorization", format!("Bearer {key}").as_str()))
        .respond_with(WeatherModel)
        .mount(&server)
        .await;
    server
}

/// What a user does to the `calltape.toml` that `calltape init` wrote:
/// uncomments the "my-model" block and points its base URL at `base_url`.
pub fn enable_my_model(config: &Path, base_url: &str) {
    enable_my_model_with(config, base_url, &[]);
}

/// `enable_my_model`, with `extra` lines (e.g. `max_retries = 0`) at the end of the block.
pub fn enable_my_model_with(config: &Path, base_url: &str, extra: &[&str]) {
    let text = std::fs::read_to_string(config).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.trim() == "# name = \"my-model\"").expect("the template has a my-model block") - 1;
    assert_eq!(lines[start], "# [[models]]");
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    let mut i = start;
    while i < lines.len() && lines[i].starts_with("# ") {
        let line = &lines[i][2..];
        out.push(if line.starts_with("base_url") { format!("base_url = \"{base_url}\"") } else { line.to_string() });
        i += 1;
    }
    out.extend(extra.iter().map(|l| l.to_string()));
    out.extend(lines[i..].iter().map(|l| l.to_string()));
    std::fs::write(config, out.join("\n") + "\n").unwrap();
}

/// The rows of a run folder's summary.csv, by model: column name → value.
pub fn summary(run: &Path) -> std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(run.join("summary.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let row: std::collections::BTreeMap<String, String> =
                headers.iter().zip(r.unwrap().iter()).map(|(h, v)| (h.to_string(), v.to_string())).collect();
            (row["model"].clone(), row)
        })
        .collect()
}
