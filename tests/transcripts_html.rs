//! `transcripts.html` through the real binary: every failed unit report.html
//! and report.md link resolves to a section of it, the page keeps the
//! report's no-script, strict-CSP rule, `calltape report` rewrites it byte
//! for byte, and a hostile model's text reaches it escaped.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

mod common;
use common::copy_dir;

const CSP: &str = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">";

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).current_dir(cwd).output().expect("binary runs")
}

/// The run folder under `out` (not `latest`, its copy).
fn run_folder(out: &Path) -> PathBuf {
    let dirs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().is_some_and(|n| n != "latest"))
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs[0].clone()
}

/// The ids `text` links to in transcripts.html, in order.
fn linked_ids(text: &str) -> Vec<String> {
    text.split("transcripts.html#")
        .skip(1)
        .map(|rest| rest.chars().take_while(|c| c.is_ascii_alphanumeric() || "-_.~".contains(*c)).collect())
        .collect()
}

/// The element ids of a page.
fn element_ids(html: &str) -> HashSet<String> {
    html.split(" id=\"").skip(1).map(|rest| rest.split('"').next().unwrap().to_string()).collect()
}

#[test]
fn every_failed_unit_links_to_its_transcript_and_report_rewrites_the_page_identically() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("reports");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = calltape(&["run", "--model", "sim-strong@full", "--model", "sim-cheap-types@full", "--out", out.to_str().unwrap()], root);
    assert!(run.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&run.stderr));
    let folder = run_folder(&out);
    let read = |name: &str| std::fs::read_to_string(folder.join(name)).unwrap();
    let (page, html, md) = (read("transcripts.html"), read("report.html"), read("report.md"));

    let ids = element_ids(&page);
    let failed = read("scenarios.csv").lines().skip(1).filter(|l| l.split(',').nth(4) == Some("false")).count();
    assert!(failed > 0, "the bundled default has failures to link");
    let (from_html, from_md) = (linked_ids(&html), linked_ids(&md));
    assert_eq!(from_html.len(), failed, "one link per failed unit in report.html");
    assert_eq!(from_md.len(), failed, "one link per failed unit in report.md");
    for id in from_html.iter().chain(&from_md) {
        assert!(ids.contains(id), "{id} is not an id in transcripts.html");
    }
    assert_eq!(page.matches("<section class=\"unit\"").count(), failed);
    // A section tells the story: the verdict and at least one step.
    let first = page.split("<section class=\"unit\"").nth(1).unwrap();
    assert!(first.contains("FAILED") && first.contains("<h3>step "), "{first}");
    assert!(md.contains(&format!("[why](transcripts.html#{})", from_md[0])), "{md}");

    assert!(!page.to_ascii_lowercase().contains("<script") && page.contains(CSP), "{page}");
    assert!(!page.contains("src=") && !page.contains("http://") && !page.contains("https://"));

    // `calltape report` rebuilds the same page from events.jsonl.
    std::fs::remove_file(folder.join("transcripts.html")).unwrap();
    let report = calltape(&["report", folder.to_str().unwrap()], root);
    assert!(report.status.success(), "{}", String::from_utf8_lossy(&report.stderr));
    assert_eq!(read("transcripts.html"), page);
    // The copy in latest has the page too.
    assert!(out.join("latest/transcripts.html").is_file());
}

fn turn(content: &str, calls: Vec<serde_json::Value>) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content, "tool_calls": calls},
                     "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}
    }))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_hostile_models_text_and_calls_reach_the_page_escaped() {
    let hostile = "<script>alert(1)</script><img src=x onerror=alert(1)> \u{1b}[2J abc\u{202e}exe.txt\r\n<!-- x --> ]]>";
    let call = json!({"id": "call_1", "type": "function",
                      "function": {"name": "<b onmouseover=alert(1)>read_file", "arguments": "{\"x\": \"</pre><script>\"}"}});
    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path_regex("^/hostile/")).respond_with(turn(hostile, vec![call])).mount(&server).await;

    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = dir.path().join("suite");
    copy_dir(&root.join("tests/fixtures/local-model-suite/local"), &suite);
    let config = format!(
        "[run]\nsuites = [\"{}\"]\nmax_steps = 2\n[[models]]\nname = \"hostile\"\nprovider = \"openai\"\nmodel_id = \"m\"\n\
         tier = \"cheap\"\nbase_url = \"{}/hostile/v1\"\napi_key_env = \"CALLTAPE_TRANSCRIPTS_TEST_KEY\"\nmax_retries = 0\n",
        suite.display(),
        server.uri()
    );
    let config_path = dir.path().join("calltape.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = dir.path().join("reports");
    let args =
        ["run", "--config", config_path.to_str().unwrap(), "--mode", "live", "--filter", "read-cargo-toml", "--out", out.to_str().unwrap()];
    let key = vec![("CALLTAPE_TRANSCRIPTS_TEST_KEY".to_string(), "sk-test-not-a-real-key".to_string())];
    let output = common::calltape_blocking(args.map(String::from).to_vec(), dir.path().to_path_buf(), key).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let page = std::fs::read_to_string(out.join("latest/transcripts.html")).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(page.matches("<section class=\"unit\"").count(), 1, "the unit failed and is on the page: {page}");
    // The model's text and call are there, inert; controls shown escaped.
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; \\x1b[2J abc\\u{202e}exe.txt"),
        "{page}"
    );
    assert!(page.contains("&lt;b onmouseover=alert(1)&gt;read_file"), "{page}");
    let lower = page.to_ascii_lowercase();
    for bad in ["<script", "<img", "<b ", "<!--", "\u{1b}", "\u{202e}", "\r"] {
        assert!(!lower.contains(bad), "{bad:?} in the page");
    }
    assert!(page.contains(CSP));
}
