use serde_json::json;

use super::*;
use crate::world::tree::Limits;

fn executor() -> WorkspaceExecutor {
    let ws = Workspace::from_json(&json!({"README.md": "Clients recieve a token.\n", "src/a.rs": "fn a() {}\n"})).unwrap();
    let rules: Vec<ToolResultRule> = serde_json::from_value(json!([
        {"tool": "Bash", "when": {"command": {"regex": "^cargo test"}}, "result": "test result: ok. 3 passed"},
        {"tool": "web_search", "result": "no results"}
    ]))
    .unwrap();
    WorkspaceExecutor::new(ws, rules)
}

fn out(content: &str, is_error: bool) -> ToolOutput {
    ToolOutput { content: content.to_string(), is_error, rule: None }
}

#[test]
fn coding_tools_act_on_the_tree() {
    let mut e = executor();
    let edit = json!({"file_path": "/workspace/README.md", "old_string": "recieve", "new_string": "receive"});
    assert_eq!(e.execute("Edit", &edit), out("The file /workspace/README.md has been updated.", false));
    assert_eq!(
        e.execute("Edit", &edit),
        out("<tool_use_error>String to replace not found in file.\nString: recieve</tool_use_error>", true),
        "the second time the tree has changed"
    );
    assert_eq!(e.workspace().file("README.md"), Some("Clients receive a token.\n"));
    assert_eq!(e.clone().into_workspace().changed_paths(), ["README.md"]);
}

#[test]
fn shell_commands_are_answered_from_the_tree_or_scripted() {
    let mut e = executor();
    e.execute("Write", &json!({"file_path": "src/a.rs", "content": "fn a() { 1 }\n"}));
    assert_eq!(e.execute("Bash", &json!({"command": "git status -s"})), out(" M src/a.rs", false));
    assert_eq!(e.execute("run_terminal_cmd", &json!({"command": "cat src/a.rs", "is_background": false})), out("fn a() { 1 }", false));
    assert_eq!(e.execute("Bash", &json!({"command": "cat nope"})), out("cat: nope: No such file or directory\nExit code 1", true));
    assert_eq!(e.execute("Bash", &json!({"command": "grep zzz README.md"})), out("Exit code 1", true));
    assert_eq!(e.execute("Bash", &json!({"command": "git diff --cached"})), out("(no output)", false));
    // Not answerable from the tree: the scenario's scripted rules answer.
    let scripted = e.execute("Bash", &json!({"command": "cargo test -q"}));
    assert_eq!(scripted, ToolOutput { content: "test result: ok. 3 passed".into(), is_error: false, rule: Some(0) });
    assert_eq!(e.execute("web_search", &json!({"query": "x"})).rule, Some(1));
    assert_eq!(e.execute("Bash", &json!({"command": "rm -rf /"})), ToolOutput { content: "ok".into(), is_error: false, rule: None });
}

#[test]
fn long_shell_output_is_truncated() {
    let ws = Workspace::from_files([("big.txt", "y".repeat(SHELL_MAX_OUTPUT + 10))], Limits::default()).unwrap();
    let mut e = WorkspaceExecutor::new(ws, Vec::new());
    let got = e.execute("Bash", &json!({"command": "cat big.txt"}));
    assert!(got.content.ends_with("\n... [output truncated to 30000 characters]"));
    assert_eq!(got.content.len(), SHELL_MAX_OUTPUT + "\n... [output truncated to 30000 characters]".len());
}

#[test]
fn executors_are_interchangeable() {
    let rules: Vec<ToolResultRule> = serde_json::from_value(json!([{"tool": "read_file", "result": "scripted"}])).unwrap();
    let args = json!({"target_file": "src/a.rs", "should_read_entire_file": true});
    let mut both: Vec<Box<dyn Executor + '_>> = vec![Box::new(crate::pipeline::execute::Scripted { rules: &rules }), Box::new(executor())];
    let got: Vec<String> = both.iter_mut().map(|e| e.execute("read_file", &args).content).collect();
    assert_eq!(got, ["scripted", "Contents of src/a.rs, lines 1-1 (of 1):\nfn a() {}"]);
}

#[cfg(unix)]
#[test]
fn a_loaded_folder_is_unchanged_on_disk_after_edits() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/a.rs"), "fn a() {}\n").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.path().join("passwd")).unwrap();
    let ws = Workspace::from_folder(dir.path(), Limits::default()).unwrap();
    let mut e = WorkspaceExecutor::new(ws, Vec::new());
    let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-fn a() {}\n+fn a() { todo!() }\n*** Add File: b.rs\n+b\n*** End Patch";
    assert!(!e.execute("ApplyPatch", &json!({"input": patch})).is_error);
    assert!(!e.execute("Write", &json!({"file_path": "/workspace/passwd", "content": "x"})).is_error);
    assert!(e.execute("read_file", &json!({"target_file": "passwd", "should_read_entire_file": true})).content.contains("x"));
    assert_eq!(e.workspace().changed_paths(), ["b.rs", "passwd", "src/a.rs"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("src/a.rs")).unwrap(), "fn a() {}\n");
    assert!(!dir.path().join("b.rs").exists());
    assert_eq!(std::fs::read_link(dir.path().join("passwd")).unwrap(), std::path::Path::new("/etc/passwd"));
}
