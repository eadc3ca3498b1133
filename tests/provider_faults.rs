//! A run against providers that misbehave in every way we have seen: each
//! fault becomes an error row or a retry, never a panic, the run completes,
//! and the summary counts the errors per model.

use std::collections::BTreeMap;
use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// A server that accepts connections, reads a little, and closes them: the
/// client sees its connection reset mid-request.
fn resetting_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
            let _ = stream.read(&mut [0u8; 64]);
            drop(stream);
        }
    });
    format!("http://{addr}")
}

async fn faulty_server() -> MockServer {
    let server = MockServer::start().await;
    let error = |status: u16, message: &str| ResponseTemplate::new(status).set_body_json(json!({"error": {"message": message}}));
    let faults: Vec<(&str, ResponseTemplate)> = vec![
        ("storm429", error(429, "rate limited").insert_header("retry-after", "0")),
        ("e500", error(500, "internal error")),
        ("e502", ResponseTemplate::new(502).set_body_string("<html>bad gateway</html>")),
        ("e503", error(503, "overloaded")),
        ("slow", ResponseTemplate::new(200).set_body_json(json!({})).set_delay(Duration::from_secs(3))),
        ("notjson", ResponseTemplate::new(200).set_body_raw("<html>captive portal</html>", "text/html")),
        ("wrongshape", ResponseTemplate::new(200).set_body_json(json!({"id": "x", "object": "chat.completion", "result": "hello"}))),
        ("nochoices", ResponseTemplate::new(200).set_body_json(json!({"id": "x", "choices": [], "usage": {"prompt_tokens": 3}}))),
    ];
    for (name, response) in faults {
        Mock::given(method("POST")).and(path_regex(format!("^/{name}/"))).respond_with(response).mount(&server).await;
    }
    server
}

#[tokio::test(flavor = "multi_thread")]
async fn every_fault_becomes_an_error_row_and_the_run_completes() {
    let server = faulty_server().await;
    let reset = resetting_server();
    let dir = tempfile::tempdir().unwrap();
    let mut config = String::new();
    let mut models = vec![];
    for name in ["storm429", "e500", "e502", "e503", "slow", "notjson", "wrongshape", "nochoices", "reset"] {
        let base = if name == "reset" { format!("{reset}/v1") } else { format!("{}/{name}/v1", server.uri()) };
        config.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{base}\"\ntimeout_secs = 1\nmax_retries = 1\n\n"
        ));
        models.push(name);
    }
    let config_path = dir.path().join("calltape.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = dir.path().join("reports");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = tokio::task::spawn_blocking({
        let (config_path, out) = (config_path.clone(), out.clone());
        move || {
            Command::new(env!("CARGO_BIN_EXE_calltape"))
                .args(["run", "--config", config_path.to_str().unwrap(), "--filter", "read-cargo-toml", "--filter", "list-src-modules"])
                .args(["--out", out.to_str().unwrap()])
                .current_dir(root)
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The run completes (every report is written) and, since no model answered
    // a unit, says so with exit code 1 rather than reading as nine 0% models.
    assert_eq!(output.status.code(), Some(calltape::exit_codes::FAILURE), "the run completes: {stderr}");
    assert!(stderr.contains("error: models never answered (every unit errored): storm429, e500,"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let latest = out.join("latest");
    let mut reader = csv::Reader::from_path(latest.join("summary.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let mut errors = BTreeMap::new();
    for record in reader.records() {
        let r = record.unwrap();
        errors.insert(
            r[col("model")].to_string(),
            (r[col("errored")].to_string(), r[col("request_errors")].to_string(), r[col("passed")].to_string()),
        );
    }
    for m in &models {
        let (errored, request_errors, passed) = &errors[*m];
        assert_eq!((errored.as_str(), passed.as_str()), ("2", "0"), "{m}: both units errored");
        assert_eq!(request_errors, "2", "{m}: one failed request per scenario, retries inside it");
    }

    // Each error row says what went wrong.
    let events = std::fs::read_to_string(latest.join("events.jsonl")).unwrap();
    let first_error = |model: &str| -> String {
        events
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|e| e["event"] == "model_request" && e["model"] == model)
            .map(|e| e["error"].as_str().unwrap_or_default().to_string())
            .unwrap()
    };
    let expect = [
        ("storm429", "HTTP 429: rate limited"),
        ("e500", "HTTP 500: internal error"),
        ("e502", "HTTP 502: <html>bad gateway</html>"),
        ("e503", "HTTP 503: overloaded"),
        ("slow", "timed out"),
        ("notjson", "not JSON"),
        ("wrongshape", "no choices"),
        ("nochoices", "no choices"),
        ("reset", "connection failed"),
    ];
    for (model, text) in expect {
        let e = first_error(model);
        assert!(e.contains(text), "{model}: {e:?} should contain {text:?}");
    }
    // Retried faults were retried once; the rest were not.
    let received = server.received_requests().await.unwrap();
    let hits = |prefix: &str| received.iter().filter(|r| r.url.path().starts_with(&format!("/{prefix}/"))).count();
    assert_eq!(hits("e503"), 4, "2 scenarios × (1 attempt + 1 retry)");
    assert_eq!(hits("notjson"), 2, "a 200 that is not JSON is not retried");
}
