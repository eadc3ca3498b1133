//! A real cheap model, live: llama.cpp serving Qwen2.5-Coder-0.5B on
//! 127.0.0.1 (`tools/local-model/start.sh`, started by `.ci/run`, which sets
//! `CALLTAPE_LOCAL_MODEL_URL`). A small suite is recorded from it — whole,
//! streamed, and with tools as text — and then replayed from the cassettes
//! with the server untouched: the tables must be identical, whatever the
//! model answered. The model answers what it answers, so the other
//! assertions hold for any answer: every request is accounted for, and the
//! server's 500s for calls it could not parse are the model's invalid calls
//! (`server_rejected_call`), not request errors. It needs the server, so it
//! is `#[ignore]`d (`cargo test` lists it as ignored); `.ci/run` starts the
//! server and runs it. Run by hand without the variable, it fails saying so.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const MODELS: [(&str, &str); 3] = [
    ("qwen-0.5b-local", "stream = false\n"),
    ("qwen-0.5b-local-stream", "stream = true\n"),
    ("qwen-0.5b-local-text", "tool_format = \"text\"\n"),
];

fn run(root: &Path, config: &Path, mode: &str, recordings: &Path, out: &Path) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(["run", "--config", config.to_str().unwrap(), "--mode", mode, "--strict"])
        .args(["--recordings", recordings.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .current_dir(root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "the {mode} run completes: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
#[ignore = "needs a local model server: tools/local-model/start.sh 18080, then CALLTAPE_LOCAL_MODEL_URL=http://127.0.0.1:18080; .ci/run does both"]
fn a_small_suite_recorded_from_the_local_model_replays_identically() {
    let url = std::env::var("CALLTAPE_LOCAL_MODEL_URL").unwrap_or_else(|_| {
        panic!("CALLTAPE_LOCAL_MODEL_URL is not set: start the server with tools/local-model/start.sh 18080 and set it to http://127.0.0.1:18080")
    });
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    let mut text = format!(
        "[run]\nsuites = [\"{}\"]\nmax_steps = 3\n[pipeline]\nrepair = \"local\"\n",
        root.join("tests/fixtures/local-model-suite/local").display()
    );
    for (name, extra) in MODELS {
        text.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nbase_url = \"{url}/v1\"\nmodel_id = \"qwen2.5-coder-0.5b\"\ntier = \"cheap\"\n\
             temperature = 0.0\nseed = 7\nconcurrency = 1\ntimeout_secs = 300\nmax_retries = 1\nmax_tokens = 256\n{extra}"
        ));
    }
    std::fs::write(&config, text).unwrap();
    let recordings = dir.path().join("recordings");
    let (recorded, replayed) = (dir.path().join("recorded"), dir.path().join("replayed"));
    println!("{}", run(root, &config, "record", &recordings, &recorded));

    let events: Vec<Value> =
        std::fs::read_to_string(recorded.join("latest/events.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (model, _) in MODELS {
        let of = |kind: &str| events.iter().filter(|e| e["event"] == kind && e["model"] == model).collect::<Vec<_>>();
        assert_eq!(of("scenario_finished").len(), 3, "{model}: every scenario ends");
        let requests = of("model_request");
        assert!(!requests.is_empty(), "{model}");
        for r in &requests {
            match r["status"].as_u64() {
                // A rejected call is the model's answer, not a request error.
                Some(500) if r["rejected_call"].is_string() => assert!(r["error"].is_null(), "{r}"),
                Some(200) => {}
                Some(s) => panic!("{model}: unexpected HTTP {s}: {r}"),
                None => assert!(r["error"].as_str().is_some(), "{r}"),
            }
        }
        let rejected = requests.iter().filter(|r| r["rejected_call"].is_string()).count();
        let rejected_calls =
            of("tool_call").iter().filter(|c| c["invalid_kinds"].as_array().unwrap().iter().any(|k| k == "server_rejected_call")).count();
        assert_eq!(rejected, rejected_calls, "{model}: each rejection is counted as one invalid call");
        if model.ends_with("-text") {
            assert_eq!(rejected, 0, "with tools as text the server has no call to reject");
        }
        if model.ends_with("-stream") {
            let read = requests.iter().filter(|r| r["status"] == 200).count();
            let timed = requests.iter().filter(|r| r["ttft_ms"].as_f64().is_some_and(|t| t > 0.0)).count();
            assert!(read == 0 || timed > 0, "streamed requests measure time to first token");
        }
    }
    let cassettes = walk(&recordings);
    assert_eq!(cassettes.len(), 9, "one cassette per model × scenario: {cassettes:?}");

    // The server is still up, but replay must not need it: the strict replay
    // fails on any request without a recording.
    run(root, &config, "replay", &recordings, &replayed);
    assert_eq!(common::csv_tables(&recorded.join("latest")), common::csv_tables(&replayed.join("latest")));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}
