//! An MCP toolset with no server: the committed recording of the reference
//! memory server (tests/fixtures/mcp) replays with the server's command
//! replaced by one that does not exist; a missing exchange is a cassette
//! miss naming the toolset; a server whose tools changed since the lock was
//! written stops the run with the tools named; a lock is written when missing.

mod mcp_support;

use calltape::core::mcp::{fingerprint, ToolLock};
use calltape::core::modes::CassetteMode;
use calltape::mcp::lock::sync_locks;
use calltape::scenario;
use mcp_support::{assert_served_by_the_memory_server, fixture, run, suite_with_server};
use serde_json::{json, Value};

fn no_server() -> Value {
    json!({"command": ["calltape-no-such-mcp-server"]})
}

#[tokio::test]
async fn a_recorded_mcp_unit_replays_with_no_server() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with_server(tmp.path(), no_server());
    let ran = run(&suite, &fixture().join("recordings"), &tmp.path().join("out"), CassetteMode::Replay).await;
    assert_served_by_the_memory_server(&ran);
    let c = &ran.folder.cassettes;
    // The server's four exchanges; the simulated model is computed, not replayed.
    assert_eq!((c.replayed, c.missing, c.unused), (4, 0, 0), "{:?}", c.warnings);
}

#[tokio::test]
async fn a_missing_exchange_is_a_cassette_miss_naming_the_toolset() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with_server(tmp.path(), no_server());
    let recordings = tmp.path().join("recordings");
    let unit = "memory/sim-strong/remember-and-recall.t0.json";
    std::fs::create_dir_all(recordings.join("memory/sim-strong")).unwrap();
    let mut cassette: Value = serde_json::from_str(&std::fs::read_to_string(fixture().join("recordings").join(unit)).unwrap()).unwrap();
    let interactions = cassette["interactions"].as_array_mut().unwrap();
    interactions.retain(|i| i["request"]["body"]["params"]["name"] != "search_nodes");
    std::fs::write(recordings.join(unit), serde_json::to_string_pretty(&cassette).unwrap()).unwrap();

    let ran = run(&suite, &recordings, &tmp.path().join("out"), CassetteMode::Replay).await;
    let (tool, is_error, _, result) = &ran.calls[1];
    assert_eq!(tool, "search_nodes");
    assert!(is_error, "{result}");
    assert!(result.starts_with("error: MCP server calltape-no-such-mcp-server: tools/call: no recording for model sim-strong, scenario memory/remember-and-recall, trial 0, a request to mcp:memory"), "{result}");
    let c = &ran.folder.cassettes;
    // The simulated model is computed: it answers the error as it comes.
    assert_eq!(c.missing, 1);
    assert!(
        c.warnings.iter().any(|w| w.contains("a request to mcp:memory") && w.contains("calltape run --mode record")),
        "{:?}",
        c.warnings
    );
}

/// A stdio "server" in sh that answers `initialize` and lists the tools in
/// its environment's `TOOLS` (set through the toolset's `env`).
fn fake_server(tools: &Value) -> Value {
    let script = r#"while IFS= read -r line; do
  case "$line" in
    *'"method":"initialize"'*) echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"0"}}}' ;;
    *'"method":"tools/list"'*) echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":$TOOLS}}" ;;
  esac
done"#;
    json!({"command": ["sh", "-c", script], "env": {"TOOLS": tools.to_string()}})
}

/// The locked tools as `tools/list` gives them.
fn listed(lock: &ToolLock) -> Vec<Value> {
    lock.tools.iter().map(|t| json!({"name": t.name, "description": t.description, "inputSchema": t.parameters})).collect()
}

fn committed_lock() -> ToolLock {
    serde_json::from_str(&std::fs::read_to_string(fixture().join("memory/toolsets/memory.tools.lock")).unwrap()).unwrap()
}

#[test]
fn changed_server_tools_stop_the_run_naming_them() {
    let lock = committed_lock();
    let mut tools = listed(&lock);
    tools.retain(|t| t["name"] == "create_entities" || t["name"] == "search_nodes");
    tools[0]["description"] = json!("Create entities, now differently");
    tools.push(json!({"name": "forget_everything", "inputSchema": {"type": "object"}}));
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with_server(tmp.path(), fake_server(&Value::Array(tools)));

    let errors = sync_locks(std::slice::from_ref(&suite)).unwrap_err();
    assert_eq!(errors.len(), 1);
    let message = errors[0].to_string();
    assert!(
        message.contains(
            "the MCP server's tools changed since {lock} was written: added forget_everything; removed add_observations, \
             create_relations, delete_entities, delete_observations, delete_relations, open_nodes, read_graph; changed create_entities"
                .replace("{lock}", &suite.join("toolsets/memory.tools.lock").display().to_string())
                .as_str()
        ),
        "{message}"
    );
    assert!(message.contains(&format!("run `calltape run --mode record --suite {}`", suite.display())), "{message}");
    // Nothing was overwritten: the lock still says what the recordings were made with.
    assert_eq!(std::fs::read_to_string(suite.join("toolsets/memory.tools.lock")).unwrap(), lock.to_text());
}

#[test]
fn the_same_tools_pass_and_a_missing_lock_is_written() {
    let lock = committed_lock();
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with_server(tmp.path(), fake_server(&Value::Array(listed(&lock))));
    let notes = sync_locks(std::slice::from_ref(&suite)).unwrap();
    assert_eq!((notes.len(), notes[0].tools, notes[0].written), (1, 9, false));

    let lock_path = suite.join("toolsets/memory.tools.lock");
    std::fs::remove_file(&lock_path).unwrap();
    let err = scenario::load_suite(&suite).unwrap_err();
    assert!(err[0].message.contains("the tools of this MCP server have not been listed"), "{}", err[0]);
    assert!(err[0].message.contains("calltape run --mode record --suite"), "{}", err[0]);

    let notes = sync_locks(std::slice::from_ref(&suite)).unwrap();
    assert!(notes[0].written);
    let written: ToolLock = serde_json::from_str(&std::fs::read_to_string(&lock_path).unwrap()).unwrap();
    assert_eq!((&written.tools, &written.fingerprint), (&lock.tools, &fingerprint(&lock.tools)));
    assert!(written.server.starts_with("sh -c while"), "{}", written.server);
    scenario::load_suite(&suite).unwrap();
}

#[test]
fn a_hand_edited_lock_and_an_unknown_sensitive_name_are_load_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with_server(tmp.path(), no_server());
    let lock_path = suite.join("toolsets/memory.tools.lock");
    let edited = std::fs::read_to_string(&lock_path).unwrap().replace("Create multiple new entities", "Create many entities");
    std::fs::write(&lock_path, edited).unwrap();
    let toolset = suite.join("toolsets/memory.json");
    let text = std::fs::read_to_string(&toolset).unwrap().replace("delete_*", "drop_*");
    std::fs::write(&toolset, text).unwrap();
    let errors: Vec<String> = scenario::load_suite(&suite).unwrap_err().iter().map(ToString::to_string).collect();
    assert!(
        errors.iter().any(|e| e.contains("the fingerprint does not match the tools listed") && e.contains("memory.tools.lock:2:")),
        "{errors:?}"
    );
}

#[test]
fn mcp_tools_are_the_scenarios_tools_with_the_toolsets_sensitive_ones() {
    let suites = scenario::load_suites(&[fixture().join("memory")]).unwrap();
    let scenario = suites[0].scenario(0).unwrap();
    let names: Vec<(&str, bool)> = scenario.tools.iter().map(|t| (t.spec.name.as_str(), t.spec.sensitive)).collect();
    assert_eq!(names, [("create_entities", false), ("search_nodes", false), ("delete_entities", true)]);
    let set = suites[0].mcp_toolset_of(&scenario).unwrap();
    assert_eq!((set.name.as_str(), set.tools.len()), ("memory", 9));
}

#[tokio::test]
async fn a_secret_from_the_toolsets_env_echoed_by_the_server_is_never_written() {
    let script = r#"while IFS= read -r line; do
  case "$line" in
    *'"method":"initialize"'*) echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}' ;;
    *'"method":"tools/call"'*) id=$(echo "$line" | sed 's/^{"id":\([0-9]*\).*/\1/'); echo "{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"using $API_TOKEN\"}]}}" ;;
  esac
done"#;
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with_server(tmp.path(), json!({"command": ["sh", "-c", script], "env": {"API_TOKEN": "t0ps3cr3t-value-42"}}));
    let ran = run(&suite, &tmp.path().join("recordings"), &tmp.path().join("out"), CassetteMode::Record).await;
    assert_eq!(ran.calls[0].3, "using [redacted]", "a configured secret in a tool result is redacted before anything reads it");
    let c = &ran.folder.cassettes;
    assert_eq!(c.written, 0);
    assert!(
        c.errors.iter().any(|e| e.contains("refused to write") && e.contains("the value of $API_TOKEN (env of MCP toolset memory)")),
        "{:?}",
        c.errors
    );
    assert!(!tmp.path().join("recordings/memory/sim-strong/remember-and-recall.t0.json").exists());
}

#[test]
fn calltape_run_checks_the_tools_first_unless_it_replays() {
    let mut tools = listed(&committed_lock());
    tools.retain(|t| t["name"] != "read_graph");
    let tmp = tempfile::tempdir().unwrap();
    let suite = suite_with_server(tmp.path(), fake_server(&Value::Array(tools)));
    let calltape = |mode: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_calltape"))
            .current_dir(tmp.path())
            .args(["run", "--no-arms", "--allow-mcp-commands", "--mode", mode, "--model", "sim-strong", "--suite"])
            .arg(&suite)
            .arg("--recordings")
            .arg(fixture().join("recordings"))
            .arg("--out")
            .arg(tmp.path().join("out"))
            .output()
            .unwrap()
    };
    let live = calltape("live");
    let stderr = String::from_utf8_lossy(&live.stderr);
    assert_eq!(live.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the MCP server's tools changed since") && stderr.contains(": removed read_graph."), "{stderr}");
    // A replay reads the lock alone: the server is never asked.
    let replay = calltape("replay");
    assert_eq!(replay.status.code(), Some(0), "{}", String::from_utf8_lossy(&replay.stderr));
}
