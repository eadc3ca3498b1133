//! Record a suite from a live (wiremock) server, whole and streamed, then
//! replay it with the server gone: the tables are identical.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::json;
use wiremock::matchers::{body_partial_json, method};
use wiremock::{Mock, MockServer, ResponseTemplate};

mod common;

fn calltape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("binary runs")
}

/// Every CSV table of the run in `out/latest`, minus columns timed in-process.
fn tables(out: &Path) -> BTreeMap<String, Vec<Vec<String>>> {
    common::csv_tables(&out.join("latest"))
}

#[tokio::test(flavor = "multi_thread")]
async fn recorded_from_a_live_server_replays_identically_without_it() {
    let server = MockServer::start().await;
    let call = json!({"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"target_file\": \"Cargo.toml\", \"should_read_entire_file\": true}"}});
    let whole = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [call]}, "finish_reason": "tool_calls"}],
                       "usage": {"prompt_tokens": 120, "completion_tokens": 20}});
    let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"The edition is 2021.\"}}]}\n\n\
               data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
               data: {\"choices\":[],\"usage\":{\"prompt_tokens\":150,\"completion_tokens\":8}}\n\ndata: [DONE]\n\n";
    Mock::given(method("POST"))
        .and(body_partial_json(json!({"stream": true})))
        .respond_with(ResponseTemplate::new(200).set_body_raw(sse, "text/event-stream"))
        .mount(&server)
        .await;
    Mock::given(method("POST")).respond_with(ResponseTemplate::new(200).set_body_json(whole)).mount(&server).await;

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("calltape.toml");
    let mut text = String::from("[run]\nmax_steps = 3\n");
    for (name, stream) in [("live-whole", false), ("live-stream", true)] {
        text.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\nbase_url = \"{}/v1\"\nstream = {stream}\nprice = {{ input = 1.0, output = 4.0 }}\n",
            server.uri()
        ));
    }
    std::fs::write(&config, text).unwrap();
    let (config, recordings) = (config.to_str().unwrap().to_string(), dir.path().join("recordings").to_str().unwrap().to_string());
    let (rec_out, replay_out) = (dir.path().join("recorded"), dir.path().join("replayed"));
    let run = |mode: &str, out: &Path| {
        let (config, recordings, mode, out) = (config.clone(), recordings.clone(), mode.to_string(), out.to_str().unwrap().to_string());
        move || calltape(&["run", "--config", &config, "--mode", &mode, "--recordings", &recordings, "--filter", "read-*", "--out", &out])
    };
    let recorded = tokio::task::spawn_blocking(run("record", &rec_out)).await.unwrap();
    assert!(recorded.status.success(), "{}", String::from_utf8_lossy(&recorded.stderr));
    let served = server.received_requests().await.unwrap().len();
    assert!(served > 0);
    drop(server);

    let replayed = tokio::task::spawn_blocking(run("replay", &replay_out)).await.unwrap();
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    assert!(
        String::from_utf8_lossy(&replayed.stdout).contains(&format!("{} replayed", calltape::core::plural::count(served, "interaction"))),
        "{}",
        String::from_utf8_lossy(&replayed.stdout)
    );
    let (a, b) = (tables(&rec_out), tables(&replay_out));
    assert!(a.len() >= 5);
    assert_eq!(a, b, "replayed tables differ from the recorded run's");
    // The streamed model's time to first token comes from the recording too.
    let summary = &a["summary.csv"];
    let ttft = summary[0].iter().position(|h| h == "ttft_p50_ms").unwrap();
    let streamed = summary.iter().find(|r| r[0] == "live-stream").unwrap();
    assert!(!streamed[ttft].is_empty(), "{streamed:?}");
}
