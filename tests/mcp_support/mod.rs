//! What the MCP tests share: the fixture suite copied with another server
//! command, and a run of it whose tool results and cassette are read back.

use std::path::{Path, PathBuf};

use calltape::config::{Config, EMBEDDED_DEFAULT};
use calltape::core::modes::CassetteMode;
use calltape::events::{self, EventKind};
use calltape::runner::{self, RunFolder};
use calltape::scenario;
use serde_json::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The committed fixture (suite and recordings).
pub fn fixture() -> PathBuf {
    root().join("tests/fixtures/mcp")
}

/// Copies the fixture suite into `dir` (as `dir/memory`) with its toolset's
/// `mcp` object replaced by `mcp`; returns the suite's folder.
pub fn suite_with_server(dir: &Path, mcp: Value) -> PathBuf {
    let suite = dir.join("memory");
    std::fs::create_dir_all(suite.join("toolsets")).unwrap();
    let from = fixture().join("memory");
    for name in ["remember-and-recall.json", "toolsets/memory.tools.lock"] {
        std::fs::copy(from.join(name), suite.join(name)).unwrap();
    }
    let mut toolset: Value = serde_json::from_str(&std::fs::read_to_string(from.join("toolsets/memory.json")).unwrap()).unwrap();
    toolset["mcp"] = mcp;
    std::fs::write(suite.join("toolsets/memory.json"), toolset.to_string()).unwrap();
    suite
}

/// What a run of the suite did: each executed call as (tool, is_error,
/// scripted, result), whether the scenario passed, and the cassettes' summary.
pub struct Ran {
    pub calls: Vec<(String, bool, bool, String)>,
    pub passed: bool,
    pub folder: RunFolder,
}

/// Runs `suite` on sim-strong in `mode` with cassettes under `recordings`.
pub async fn run(suite: &Path, recordings: &Path, out: &Path, mode: CassetteMode) -> Ran {
    let mut config = Config::parse(EMBEDDED_DEFAULT, "embedded").unwrap();
    config.select_models(&["sim-strong".to_string()]).unwrap();
    config.run.out_dir = out.to_path_buf();
    config.run.mode = mode;
    config.cassettes.dir = recordings.to_path_buf();
    let suites = scenario::load_suites(&[suite.to_path_buf()]).unwrap_or_else(|e| panic!("{e:?}"));
    let plan = calltape::plan::RunPlan::whole(config.clone(), "test");
    let folder = runner::run(&config, "test", &suites, false, runner::RunTarget::New(&plan)).await.unwrap();
    let events = events::read_events(&folder.dir.join("events.jsonl")).unwrap();
    let mut calls = Vec::new();
    let mut passed = false;
    for e in events {
        match e.kind {
            EventKind::ToolExecuted(t) => calls.push((t.tool, t.is_error, t.scripted, t.result.unwrap_or_default())),
            EventKind::ScenarioFinished(f) => passed = f.passed,
            _ => {}
        }
    }
    Ran { calls, passed, folder }
}

/// The memory server's answers to the fixture scenario: it stored the
/// entity, then found it.
pub fn assert_served_by_the_memory_server(ran: &Ran) {
    let tools: Vec<&str> = ran.calls.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(tools, ["create_entities", "search_nodes"]);
    for (tool, is_error, scripted, result) in &ran.calls {
        assert!(!is_error && !scripted, "{tool}: {result}");
        assert!(result.contains("\"name\": \"Ada Lovelace\"") && result.contains("wrote the first program"), "{tool}: {result}");
    }
    assert!(ran.calls[1].3.contains("\"entities\""), "search_nodes answers with the graph it found: {}", ran.calls[1].3);
    assert!(ran.passed);
}
