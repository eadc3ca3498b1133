//! The live MCP test: the reference memory server from npm
//! (`@modelcontextprotocol/server-memory`), started by calltape as a child
//! process, lists the tools the committed lock holds, executes the fixture
//! scenario's calls, and what was recorded replays with no server.
//!
//! Needs the package installed: `.ci/run` does
//! `npm install --prefix target/mcp-servers @modelcontextprotocol/server-memory@2026.8.31`;
//! `CALLTAPE_MCP_MEMORY_SERVER` may name its `dist/index.js` elsewhere.
//! Without it the test fails saying so: it never passes without the server.

mod mcp_support;

use std::path::PathBuf;

use calltape::core::mcp::ToolLock;
use calltape::core::modes::CassetteMode;
use calltape::mcp::lock::{list_tools, sync_locks};
use mcp_support::{assert_served_by_the_memory_server, fixture, root, run, suite_with_server};
use serde_json::json;

fn server_script() -> PathBuf {
    let path = std::env::var_os("CALLTAPE_MCP_MEMORY_SERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/mcp-servers/node_modules/@modelcontextprotocol/server-memory/dist/index.js"));
    assert!(
        path.is_file(),
        "{} is missing: install the server with `npm install --prefix target/mcp-servers @modelcontextprotocol/server-memory@2026.8.31` \
         (or set CALLTAPE_MCP_MEMORY_SERVER to its dist/index.js)",
        path.display()
    );
    path
}

#[tokio::test]
#[ignore = "needs @modelcontextprotocol/server-memory from npm (and node); .ci/run installs it"]
async fn the_memory_server_live_then_replayed_without_it() {
    let tmp = tempfile::tempdir().unwrap();
    // A fresh state file: the server keeps its graph there between runs.
    let server = json!({
        "command": ["node", server_script()],
        "env": {"MEMORY_FILE_PATH": tmp.path().join("memory.jsonl")},
    });
    let suite = suite_with_server(tmp.path(), server.clone());

    // The server lists exactly the tools of the committed lock.
    let committed: ToolLock =
        serde_json::from_str(&std::fs::read_to_string(fixture().join("memory/toolsets/memory.tools.lock")).unwrap()).unwrap();
    let spec = serde_json::from_value(server).unwrap();
    assert_eq!(list_tools(&spec).unwrap(), committed.tools, "the server's tools changed: re-record tests/fixtures/mcp (see its README)");
    let notes = sync_locks(std::slice::from_ref(&suite)).unwrap();
    assert!(!notes[0].written && notes[0].tools == 9);

    // Live, recorded: the calls reach the server and its answers come back.
    let recordings = tmp.path().join("recordings");
    let live = run(&suite, &recordings, &tmp.path().join("out"), CassetteMode::Record).await;
    assert_served_by_the_memory_server(&live);
    // The server's four exchanges; the simulated model is computed, never recorded.
    assert_eq!((live.folder.cassettes.recorded, live.folder.cassettes.written), (4, 1), "{:?}", live.folder.cassettes.errors);

    // Replayed with the server's command gone: the same answers.
    let suite = suite_with_server(&tmp.path().join("replay"), json!({"command": ["calltape-no-such-mcp-server"]}));
    let replayed = run(&suite, &recordings, &tmp.path().join("out"), CassetteMode::Replay).await;
    assert_eq!(replayed.calls, live.calls);
    assert_eq!(replayed.folder.cassettes.missing, 0);
}
