//! Hostile model output through the real binary: a fake OpenAI-compatible
//! server on 127.0.0.1 whose model calls tools named as spreadsheet
//! formulas, terminal escapes, HTML, Markdown links and XML-forbidden
//! characters, with a 1 MB argument, and a second model whose server fails
//! with such an error text. Every report file must carry them inert:
//! no CSV formula, no control character on the terminal, no markup or link
//! in report.md, well-formed junit.xml, nothing but the page's own elements
//! in report.html, and never the megabyte whole.

use std::path::Path;
use std::process::Command;

use serde_json::json;
use wiremock::matchers::{method, path_regex};
use wiremock::{Mock, MockServer, ResponseTemplate};

mod common;
use common::copy_dir;

/// Tool names a model might choose (each reaches `by_tool` as an unknown tool).
const HOSTILE_NAMES: &[&str] = &[
    "=HYPERLINK(\"http://evil.example\",\"x\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1)",
    " \t=1",
    "\u{1b}[2J\u{1b}[Hcleared",
    "\u{1b}]8;;http://evil.example\u{7}link\u{1b}]8;;\u{7}",
    "abc\u{202e}exe.txt",
    "\u{9b}31mred\u{7f}",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "![x](http://evil.example/p.png)",
    "@channel #1 www.evil.example",
    "a|b\nc\rd",
    "nul\u{0}ff\u{c}\u{fffe}]]>",
];

fn turn(calls: Vec<serde_json::Value>) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "<b>\u{1b}[31m@here</b>", "tool_calls": calls},
                     "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5}
    }))
}

fn call(id: usize, name: &str, arguments: &str) -> serde_json::Value {
    json!({"id": format!("call_{id}"), "type": "function", "function": {"name": name, "arguments": arguments}})
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_tool_names_errors_and_a_megabyte_argument_reach_every_report_inert() {
    let huge = format!("=cmd|{}", "x".repeat(1 << 20));
    let mut calls: Vec<serde_json::Value> = HOSTILE_NAMES.iter().enumerate().map(|(i, n)| call(i, n, "{}")).collect();
    let args = json!({"target_file": huge, "should_read_entire_file": true}).to_string();
    calls.push(call(99, "read_file", &args));

    let server = MockServer::start().await;
    Mock::given(method("POST")).and(path_regex("^/hostile/")).respond_with(turn(calls)).mount(&server).await;
    let error_text = HOSTILE_NAMES.join(" ");
    Mock::given(method("POST"))
        .and(path_regex("^/failing/"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({"error": {"message": error_text}})))
        .mount(&server)
        .await;

    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = dir.path().join("suite");
    copy_dir(&root.join("tests/fixtures/local-model-suite/local"), &suite);
    let mut config = format!("[run]\nsuites = [\"{}\"]\nmax_steps = 2\n", suite.display());
    for name in ["hostile", "failing"] {
        config.push_str(&format!(
            "[[models]]\nname = \"{name}\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\n\
             base_url = \"{}/{name}/v1\"\napi_key_env = \"CALLTAPE_HOSTILE_TEST_KEY\"\nmax_retries = 0\n",
            server.uri()
        ));
    }
    let config_path = dir.path().join("calltape.toml");
    std::fs::write(&config_path, config).unwrap();
    let out = dir.path().join("reports");
    let output = tokio::task::spawn_blocking({
        let (config_path, out) = (config_path.clone(), out.clone());
        move || {
            Command::new(env!("CARGO_BIN_EXE_calltape"))
                .args(["run", "--config", config_path.to_str().unwrap(), "--mode", "live"])
                .args(["--filter", "read-cargo-toml", "--out", out.to_str().unwrap()])
                .env("CALLTAPE_HOSTILE_TEST_KEY", "sk-test-not-a-real-key")
                .current_dir(dir_of(&config_path))
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(!stderr.contains("panicked"), "{stderr}");
    let latest = out.join("latest");
    assert!(latest.join("by_tool.csv").is_file(), "stdout: {stdout}\nstderr: {stderr}");

    // The run really carried the hostile texts: the tool names are rows, the reasons quote them.
    let by_tool = std::fs::read_to_string(latest.join("by_tool.csv")).unwrap();
    let tools: Vec<String> = csv::Reader::from_reader(by_tool.as_bytes()).records().map(|r| r.unwrap()[1].to_string()).collect();
    for name in HOSTILE_NAMES {
        assert!(tools.iter().any(|t| t == &format!("'{name}") || t == name), "{name:?} not in {tools:?}");
    }
    let scenarios = std::fs::read_to_string(latest.join("scenarios.csv")).unwrap();
    assert!(scenarios.contains("x… (1048583 bytes, 1048383 not shown)"), "the argument is quoted bounded: {scenarios}");
    assert!(scenarios.contains("request failed"), "{scenarios}");

    // CSV: no text cell starts a formula; numbers stay numbers.
    for file in ["by_tool.csv", "scenarios.csv", "summary.csv", "by_scenario.csv", "repairs.csv"] {
        let text = std::fs::read_to_string(latest.join(file)).unwrap();
        for record in csv::Reader::from_reader(text.as_bytes()).records() {
            for cell in record.unwrap().iter() {
                let first = cell.trim_start().chars().next();
                assert!(!first.is_some_and(|c| "=+-@".contains(c)) || cell.parse::<f64>().is_ok(), "{file}: {cell:?}");
                assert!(!cell.starts_with(['\t', '\r']), "{file}: {cell:?}");
            }
        }
    }

    // Terminal: the tables printed carry no control character but line ends.
    assert!(stdout.contains("Per model × tool"), "{stdout}");
    let control = |c: char| (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    assert!(!stdout.chars().any(control), "{stdout:?}");
    assert!(stdout.contains("\\x1b[2J"), "escapes are shown, not sent: {stdout}");

    // Markdown: no HTML, link, image, mention or autolink from model text.
    let md = std::fs::read_to_string(latest.join("report.md")).unwrap();
    // The report's own links to transcripts.html (report::anchor ids) are its only links.
    let own_link = regex::Regex::new(r"\[why\]\(transcripts\.html#[A-Za-z0-9._~-]+\)").unwrap();
    let unescaped = own_link.replace_all(&md, "").replace("\\\\", "").replace("\\]", "");
    assert!(!md.contains('<') && !unescaped.contains("](") && !md.contains("://") && !md.contains("@channel"), "{md}");
    assert!(md.contains("&lt;img src=x onerror=alert(1)&gt;") && md.contains("@&#8203;channel"), "{md}");
    for line in md.lines().filter(|l| l.starts_with("| ")) {
        assert!(line.ends_with(" |"), "a table row broken by model text: {line}");
    }

    // JUnit: well-formed XML 1.0, failures intact; the failing server's unit got no answer: an error, not a failure.
    let xml = std::fs::read_to_string(latest.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("junit.xml is not well-formed: {e}"));
    assert_eq!(doc.descendants().filter(|n| n.has_tag_name("failure")).count(), 1);
    let errors: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("error")).map(|n| n.attribute("message").unwrap()).collect();
    assert!(errors.len() == 1 && errors[0].contains("request failed"), "{errors:?}");

    // HTML: only the page's own elements.
    let html = std::fs::read_to_string(latest.join("report.html")).unwrap();
    let own_link = regex::Regex::new(r#"<a href="transcripts\.html#[A-Za-z0-9._~-]+">why</a>"#).unwrap();
    let html = own_link.replace_all(&html, "");
    for tag in ["<img", "<script", "<a ", "<iframe"] {
        assert!(!html.contains(tag), "{tag} in report.html");
    }

    // No report holds the megabyte argument, or even a tenth of it.
    let tenth = "x".repeat(100 << 10);
    for entry in std::fs::read_dir(&latest).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name == "events.jsonl" || name == "plan.json" {
            continue; // the event log keeps the call as it was
        }
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).to_string();
        assert!(!text.contains(&tenth), "{name} quotes the 1 MB argument");
    }
    assert!(!stdout.contains(&tenth) && !stderr.contains(&tenth));
}

fn dir_of(path: &Path) -> &Path {
    path.parent().unwrap()
}

/// An error that quotes a hostile name (here a path a CI artifact could
/// carry) reaches stderr with its control characters shown escaped.
#[test]
fn errors_on_stderr_show_control_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let hostile = dir.path().join("run\u{1b}]8;;http://x\u{7}\u{1b}[2J\u{202e}");
    let out = Command::new(env!("CARGO_BIN_EXE_calltape")).arg("report").arg(&hostile).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!out.status.success());
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.chars().any(|c| c == '\u{1b}' || c == '\u{7}' || c == '\u{202e}'), "{stderr:?}");
    assert!(stderr.contains("\\x1b[2J"), "{stderr}");
}
