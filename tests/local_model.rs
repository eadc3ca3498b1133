//! A real cheap model, live: llama.cpp serving Qwen2.5-Coder-0.5B on
//! 127.0.0.1 (`tools/local-model/start.sh`, started by `.ci/run`, which sets
//! `CALLTAPE_LOCAL_MODEL_URL`). A small suite runs against it whole and
//! streamed. The model answers what it answers, so the assertions hold for
//! any answer: the run completes, every request is accounted for, and the
//! server's 500s for calls it could not parse are error rows with the
//! server's message, not crashes. Without the variable the test says it
//! skipped and passes.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[test]
fn a_small_suite_runs_live_against_the_local_model() {
    let Ok(url) = std::env::var("CALLTAPE_LOCAL_MODEL_URL") else {
        eprintln!("skipped: CALLTAPE_LOCAL_MODEL_URL is not set (tools/local-model/start.sh starts the server; .ci/run does both)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    let mut text = format!(
        "[run]\nsuites = [\"{}\"]\nmax_steps = 3\n[pipeline]\nrepair = \"local\"\n",
        root.join("tests/fixtures/local-model-suite/local").display()
    );
    for (name, stream) in [("qwen-0.5b-local", false), ("qwen-0.5b-local-stream", true)] {
        text.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nbase_url = \"{url}/v1\"\nmodel_id = \"qwen2.5-coder-0.5b\"\ntier = \"cheap\"\n\
             temperature = 0.0\nseed = 7\nconcurrency = 1\ntimeout_secs = 300\nmax_retries = 1\nmax_tokens = 256\nstream = {stream}\n"
        ));
    }
    std::fs::write(&config, text).unwrap();
    let out = dir.path().join("reports");
    let output = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(["run", "--config", config.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .current_dir(root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the run completes: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    println!("{}", String::from_utf8_lossy(&output.stdout));

    let events: Vec<Value> =
        std::fs::read_to_string(out.join("latest/events.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let of = |kind: &str, model: &str| events.iter().filter(|e| e["event"] == kind && e["model"] == model).count();
    for model in ["qwen-0.5b-local", "qwen-0.5b-local-stream"] {
        assert_eq!(of("scenario_finished", model), 3, "{model}: every scenario ends");
        let requests: Vec<&Value> = events.iter().filter(|e| e["event"] == "model_request" && e["model"] == model).collect();
        assert!(!requests.is_empty(), "{model}");
        for r in &requests {
            // Every request either came back and was read, or is an error row saying why.
            match r["status"].as_u64() {
                Some(200) => assert!(r["error"].is_null() || r["error"].as_str().is_some(), "{r}"),
                Some(500) => assert!(r["error"].as_str().is_some_and(|e| e.contains("500")), "{r}"),
                Some(s) => panic!("{model}: unexpected HTTP {s}: {r}"),
                None => assert!(r["error"].as_str().is_some(), "{r}"),
            }
        }
        let turns_ok = requests.iter().filter(|r| r["status"] == 200 && r["error"].is_null()).count();
        assert!(turns_ok > 0, "{model}: at least one answer was read");
        if model.ends_with("stream") {
            assert!(
                requests.iter().any(|r| r["ttft_ms"].as_f64().is_some_and(|t| t > 0.0)),
                "streamed requests measure time to first token"
            );
        }
    }
}
