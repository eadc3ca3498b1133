use serde_json::{json, Value};

use super::*;
use crate::world::tree::Limits;

fn ws() -> Workspace {
    Workspace::from_files(
        [
            ("README.md", "Clients recieve a token after login.\n"),
            ("src/main.rs", "fn main() {\n    let port = 8080;\n    println!(\"{port}\");\n}\n"),
            ("src/lib.rs", "pub fn retry() -> u32 {\n    3\n}\n// TODO: config\n"),
            ("src/util/mod.rs", "// todo later\npub fn x() {}\n"),
            ("notes.txt", "a\na\n"),
        ],
        Limits::default(),
    )
    .unwrap()
}

/// A tool's reply with the error as the text the model reads.
fn run(w: &mut Workspace, tool: &str, args: Value) -> Result<String, String> {
    call(w, tool, &args).expect("a workspace tool").map_err(|e| e.to_string())
}

#[test]
fn unknown_tools_are_not_answered() {
    assert!(call(&mut ws(), "web_search", &json!({"query": "x"})).is_none());
    assert!(call(&mut ws(), "Bash", &json!({"command": "ls"})).is_none());
}

#[test]
fn read_file_shows_ranges_and_what_was_left_out() {
    let mut w = ws();
    let args = json!({"target_file": "src/main.rs", "should_read_entire_file": false, "start_line_one_indexed": 2, "end_line_one_indexed_inclusive": 3});
    assert_eq!(
        run(&mut w, "read_file", args).unwrap(),
        "Contents of src/main.rs, lines 2-3 (of 4):\n[lines 1-1 not shown]\n    let port = 8080;\n    println!(\"{port}\");\n[lines 4-4 not shown]"
    );
    assert_eq!(
        run(&mut w, "read_file", json!({"target_file": "/workspace/README.md", "should_read_entire_file": true})).unwrap(),
        "Contents of README.md, lines 1-1 (of 1):\nClients recieve a token after login."
    );
    let mut long = Workspace::from_files([("big.txt", "x\n".repeat(300))], Limits::default()).unwrap();
    let out = run(&mut long, "read_file", json!({"target_file": "big.txt", "should_read_entire_file": false})).unwrap();
    assert!(out.starts_with("Contents of big.txt, lines 1-250 (of 300):\n") && out.ends_with("\n[lines 251-300 not shown]"));
}

#[test]
fn read_file_errors() {
    let mut w = ws();
    let r = |w: &mut Workspace, a: Value| run(w, "read_file", a).unwrap_err();
    assert_eq!(
        r(&mut w, json!({"target_file": "src/nope.rs", "should_read_entire_file": true})),
        "File not found: src/nope.rs. Use list_dir or grep_search to find the right path."
    );
    assert_eq!(
        r(&mut w, json!({"target_file": "src", "should_read_entire_file": true})),
        "src is a directory, not a file; use list_dir to see what it holds."
    );
    assert_eq!(
        r(&mut w, json!({"target_file": "README.md", "should_read_entire_file": false, "start_line_one_indexed": 5})),
        "start_line_one_indexed is 5, but README.md has only 1 lines."
    );
    assert_eq!(
        r(
            &mut w,
            json!({"target_file": "src/main.rs", "should_read_entire_file": false, "start_line_one_indexed": 3, "end_line_one_indexed_inclusive": 2})
        ),
        "end_line_one_indexed_inclusive (2) is before start_line_one_indexed (3)."
    );
    assert_eq!(r(&mut w, json!({"should_read_entire_file": true})), "missing required argument `target_file` (a string)");
}

#[test]
fn paths_outside_the_workspace_are_refused_by_every_tool() {
    let mut w = ws();
    let before = w.clone();
    for (tool, args) in [
        ("read_file", json!({"target_file": "../../etc/passwd", "should_read_entire_file": true})),
        ("read_file", json!({"target_file": "/etc/passwd", "should_read_entire_file": true})),
        ("Read", json!({"file_path": "/workspace/../etc/passwd"})),
        ("list_dir", json!({"relative_workspace_path": ".."})),
        ("Write", json!({"file_path": "/etc/hosts", "content": "x"})),
        ("Write", json!({"file_path": "../escape.txt", "content": "x"})),
        ("Write", json!({"file_path": "~/.bashrc", "content": "x"})),
        ("Edit", json!({"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"})),
        ("MultiEdit", json!({"file_path": "../x", "edits": [{"old_string": "", "new_string": "b"}]})),
        ("search_replace", json!({"file_path": "/root/x", "old_string": "a", "new_string": "b"})),
        ("ApplyPatch", json!({"input": "*** Begin Patch\n*** Add File: ../../evil.sh\n+rm -rf /\n*** End Patch"})),
        ("ApplyPatch", json!({"input": "*** Begin Patch\n*** Delete File: /etc/passwd\n*** End Patch"})),
    ] {
        let err = run(&mut w, tool, args.clone()).unwrap_err();
        assert!(err.contains("outside the workspace") || err.contains("leaves the workspace"), "{tool} {args}: {err}");
    }
    assert_eq!(w, before);
}

#[test]
fn read_numbers_lines_like_claude_code() {
    let mut w = ws();
    assert_eq!(
        run(&mut w, "Read", json!({"file_path": "/workspace/src/main.rs", "offset": 2, "limit": 2})).unwrap(),
        "     2\t    let port = 8080;\n     3\t    println!(\"{port}\");"
    );
    assert_eq!(
        run(&mut w, "Read", json!({"file_path": "/workspace/nope"})).unwrap_err(),
        "File does not exist: /workspace/nope. Check the path (list the directory or search for the file)."
    );
}

#[test]
fn list_dir_lists_folders_then_files() {
    let mut w = ws();
    assert_eq!(
        run(&mut w, "list_dir", json!({"relative_workspace_path": "."})).unwrap(),
        "Contents of directory .:\n\n[dir]  src/ (3 items)\n[file] README.md (37 B, 1 line)\n[file] notes.txt (4 B, 2 lines)"
    );
    assert_eq!(
        run(&mut w, "list_dir", json!({"relative_workspace_path": "src/util"})).unwrap(),
        "Contents of directory src/util:\n\n[file] mod.rs (28 B, 2 lines)"
    );
    assert_eq!(
        run(&mut w, "list_dir", json!({"relative_workspace_path": "lib"})).unwrap_err(),
        "Directory not found: lib. List the parent directory to see what exists."
    );
    assert_eq!(
        run(&mut w, "list_dir", json!({"relative_workspace_path": "README.md"})).unwrap_err(),
        "README.md is a file, not a directory; use read_file to read it."
    );
}

#[test]
fn grep_search_finds_lines_with_filters() {
    let mut w = ws();
    assert_eq!(run(&mut w, "grep_search", json!({"query": "TODO"})).unwrap(), "src/lib.rs:4:// TODO: config");
    assert_eq!(
        run(&mut w, "grep_search", json!({"query": "todo", "case_sensitive": false})).unwrap(),
        "src/lib.rs:4:// TODO: config\nsrc/util/mod.rs:1:// todo later"
    );
    assert_eq!(
        run(&mut w, "grep_search", json!({"query": "fn \\w+", "include_pattern": "*.rs", "exclude_pattern": "src/util/*"})).unwrap(),
        "src/lib.rs:1:pub fn retry() -> u32 {\nsrc/main.rs:1:fn main() {"
    );
    assert_eq!(run(&mut w, "grep_search", json!({"query": "nothing here"})).unwrap(), "No matches found.");
    let err = run(&mut w, "grep_search", json!({"query": "fn main("})).unwrap_err();
    assert!(err.starts_with("invalid regex \"fn main(\": ") && err.ends_with("with \\ to search for them literally."), "{err}");
    let mut many = Workspace::from_files([("m.txt", "hit\n".repeat(60))], Limits::default()).unwrap();
    let out = run(&mut many, "grep_search", json!({"query": "hit"})).unwrap();
    assert_eq!(out.lines().count(), 51);
    assert!(out.ends_with("[results capped at 50 matches; narrow the query or use include_pattern to see the rest]"));
}

#[test]
fn write_creates_and_overwrites() {
    let mut w = ws();
    assert_eq!(
        run(&mut w, "Write", json!({"file_path": "/workspace/src/new.rs", "content": "x\n"})).unwrap(),
        "File created successfully at: /workspace/src/new.rs"
    );
    assert_eq!(
        run(&mut w, "Write", json!({"file_path": "README.md", "content": "y\n"})).unwrap(),
        "The file /workspace/README.md has been updated."
    );
    assert_eq!(w.changed_paths(), ["README.md", "src/new.rs"]);
    assert_eq!(
        run(&mut w, "Write", json!({"file_path": "/workspace/src", "content": ""})).unwrap_err(),
        "src is a directory, not a file; choose a file path inside it"
    );
    assert_eq!(run(&mut w, "Write", json!({"file_path": "a"})).unwrap_err(), "missing required argument `content` (a string)");
}

#[test]
fn edit_replaces_exactly_one_or_all() {
    let mut w = ws();
    let edit = json!({"file_path": "/workspace/README.md", "old_string": "recieve", "new_string": "receive"});
    assert_eq!(run(&mut w, "Edit", edit).unwrap(), "The file /workspace/README.md has been updated.");
    assert_eq!(w.file("README.md"), Some("Clients receive a token after login.\n"));
    let all = json!({"file_path": "notes.txt", "old_string": "a", "new_string": "b", "replace_all": true});
    assert_eq!(
        run(&mut w, "Edit", all).unwrap(),
        "The file /workspace/notes.txt has been updated. All occurrences of 'a' were successfully replaced with 'b'."
    );
    assert_eq!(w.file("notes.txt"), Some("b\nb\n"));
    let create = json!({"file_path": "docs/new.md", "old_string": "", "new_string": "# New\n"});
    assert_eq!(run(&mut w, "Edit", create).unwrap(), "File created successfully at: /workspace/docs/new.md");
}

#[test]
fn edit_errors_are_claude_codes() {
    let mut w = ws();
    let before = w.clone();
    let e = |w: &mut Workspace, a: Value| run(w, "Edit", a).unwrap_err();
    assert_eq!(
        e(&mut w, json!({"file_path": "README.md", "old_string": "receive", "new_string": "x"})),
        "String to replace not found in file.\nString: receive"
    );
    assert_eq!(
        e(&mut w, json!({"file_path": "notes.txt", "old_string": "a", "new_string": "b"})),
        "Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set \
         replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the \
         instance.\nString: a"
    );
    assert_eq!(
        e(&mut w, json!({"file_path": "/workspace/missing.rs", "old_string": "a", "new_string": "b"})),
        "File does not exist: /workspace/missing.rs. Check the path (list the directory or search for the file)."
    );
    assert_eq!(
        e(&mut w, json!({"file_path": "README.md", "old_string": "x", "new_string": "x"})),
        "No changes to make: old_string and new_string are exactly the same."
    );
    assert_eq!(
        e(&mut w, json!({"file_path": "README.md", "old_string": "", "new_string": "x"})),
        "Cannot create new file - file already exists: /workspace/README.md. Give the text to change in old_string."
    );
    assert_eq!(
        e(&mut w, json!({"file_path": "src", "old_string": "a", "new_string": "b"})),
        "/workspace/src is a directory, not a file; list it to see the files it holds."
    );
    assert_eq!(
        e(&mut w, json!({"file_path": "README.md", "old_string": "a", "new_string": "b", "replace_all": "yes"})),
        "argument `replace_all` must be true or false, got \"yes\""
    );
    assert_eq!(w, before, "a failed edit changes nothing");
}

#[test]
fn multi_edit_is_all_or_nothing() {
    let mut w = ws();
    let ok = json!({"file_path": "src/main.rs", "edits": [
        {"old_string": "8080", "new_string": "9090"},
        {"old_string": "port", "new_string": "p", "replace_all": true}
    ]});
    assert_eq!(
        run(&mut w, "MultiEdit", ok).unwrap(),
        "Applied 2 edits to /workspace/src/main.rs:\n1. Replaced \"8080\" with \"9090\"\n2. Replaced \"port\" with \"p\""
    );
    assert_eq!(w.file("src/main.rs"), Some("fn main() {\n    let p = 9090;\n    println!(\"{p}\");\n}\n"));
    let before = w.clone();
    let bad = json!({"file_path": "src/main.rs", "edits": [
        {"old_string": "9090", "new_string": "1"},
        {"old_string": "absent", "new_string": "x"}
    ]});
    assert_eq!(
        run(&mut w, "MultiEdit", bad).unwrap_err(),
        "Edit 2 of 2 failed, so no edits were applied to /workspace/src/main.rs: String to replace not found in file.\nString: absent"
    );
    assert_eq!(w, before);
    assert!(run(&mut w, "MultiEdit", json!({"file_path": "a", "edits": []})).unwrap_err().starts_with("`edits` is empty"));
    let create = json!({"file_path": "n.rs", "edits": [{"old_string": "", "new_string": "a b"}, {"old_string": "b", "new_string": "c"}]});
    assert!(run(&mut w, "MultiEdit", create).unwrap().starts_with("Applied 2 edits to /workspace/n.rs (a new file):"));
    assert_eq!(w.file("n.rs"), Some("a c"));
}

#[test]
fn search_replace_needs_a_unique_match() {
    let mut w = ws();
    let ok = json!({"file_path": "src/lib.rs", "old_string": "    3\n", "new_string": "    5\n"});
    assert_eq!(run(&mut w, "search_replace", ok).unwrap(), "The file /workspace/src/lib.rs has been updated.");
    assert!(w.file("src/lib.rs").unwrap().contains("    5\n"));
    let dup = json!({"file_path": "notes.txt", "old_string": "a", "new_string": "b"});
    assert!(run(&mut w, "search_replace", dup).unwrap_err().starts_with("Found 2 matches"));
}

const UPDATE: &str = "*** Begin Patch
*** Update File: src/main.rs
@@ fn main() {
-    let port = 8080;
+    let port = 9090;
     println!(\"{port}\");
*** Add File: src/config.rs
+pub const PORT: u16 = 9090;
*** Delete File: notes.txt
*** End Patch";

#[test]
fn apply_patch_adds_updates_and_deletes() {
    let mut w = ws();
    assert_eq!(
        run(&mut w, "ApplyPatch", json!({"input": UPDATE})).unwrap(),
        "Success. Updated the following files:\nM src/main.rs\nA src/config.rs\nD notes.txt"
    );
    assert_eq!(w.file("src/main.rs"), Some("fn main() {\n    let port = 9090;\n    println!(\"{port}\");\n}\n"));
    assert_eq!(w.file("src/config.rs"), Some("pub const PORT: u16 = 9090;\n"));
    assert_eq!(w.file("notes.txt"), None);
    assert_eq!(w.changed_paths(), ["notes.txt", "src/config.rs", "src/main.rs"]);
}

#[test]
fn apply_patch_moves_and_finds_hunks_in_order() {
    let mut w = Workspace::from_files([("a.py", "x = 1\ny = 1\nx = 1\nz = 1  \n")], Limits::default()).unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 2\n@@\n-x = 1\n+x = 3\n@@\n z = 1\n+end\n*** End of File\n*** End Patch\n";
    assert_eq!(run(&mut w, "apply_patch", json!({"patch": patch})).unwrap(), "Success. Updated the following files:\nM b.py");
    assert_eq!(w.file("a.py"), None);
    assert_eq!(w.file("b.py"), Some("x = 2\ny = 1\nx = 3\nz = 1  \nend\n"));
}

#[test]
fn apply_patch_mismatch_changes_nothing() {
    let mut w = ws();
    let before = w.clone();
    let patch = "*** Begin Patch\n*** Add File: ok.txt\n+fine\n*** Update File: src/lib.rs\n@@\n pub fn retry() -> u32 {\n-    4\n+    5\n }\n*** End Patch";
    assert_eq!(
        run(&mut w, "ApplyPatch", json!({"input": patch})).unwrap_err(),
        "could not find the lines of hunk 1 in src/lib.rs:\npub fn retry() -> u32 {\n    4\n}\nNo file was changed; read the file \
         again and make the context and '-' lines match it exactly."
    );
    let anchored = "*** Begin Patch\n*** Update File: src/lib.rs\n@@ fn missing() {\n-    3\n+    4\n*** End Patch";
    assert!(run(&mut w, "ApplyPatch", json!({"input": anchored})).unwrap_err().starts_with("could not find the line \"fn missing() {\""));
    let add_existing = "*** Begin Patch\n*** Add File: README.md\n+x\n*** End Patch";
    assert_eq!(
        run(&mut w, "ApplyPatch", json!({"input": add_existing})).unwrap_err(),
        "cannot add README.md: the file already exists; use '*** Update File: README.md' to change it. No file was changed."
    );
    let update_missing = "*** Begin Patch\n*** Update File: gone.rs\n@@\n-a\n+b\n*** End Patch";
    assert!(run(&mut w, "ApplyPatch", json!({"input": update_missing})).unwrap_err().starts_with("cannot update gone.rs: no such file"));
    let root = "*** Begin Patch\n*** Add File: ./\n+x\n*** End Patch";
    assert_eq!(
        run(&mut w, "ApplyPatch", json!({"input": root})).unwrap_err(),
        "\"./\" is the workspace root, not a file; name a file. No file was changed."
    );
    let delete_missing = "*** Begin Patch\n*** Delete File: gone.rs\n*** End Patch";
    assert_eq!(
        run(&mut w, "ApplyPatch", json!({"input": delete_missing})).unwrap_err(),
        "cannot delete gone.rs: no such file. No file was changed."
    );
    assert_eq!(w, before);
}

#[test]
fn apply_patch_format_errors_name_the_line() {
    let e = |p: &str| parse_patch(p).unwrap_err().to_string();
    assert_eq!(e("--- a/x\n+++ b/x"), "invalid patch: the first line must be '*** Begin Patch'");
    assert_eq!(e("*** Begin Patch\n*** Add File: a\n+x"), "invalid patch: the last line must be '*** End Patch'");
    assert_eq!(
        e("*** Begin Patch\n*** Add File: a\nx\n*** End Patch"),
        "invalid patch: line 3: every line of an added file starts with '+', found \"x\""
    );
    assert_eq!(
        e("*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch"),
        "invalid patch: line 4: unexpected line in an update hunk: \"?x\"; hunk lines start with ' ', '-', '+' or '@@'"
    );
    assert_eq!(
        e("*** Begin Patch\n*** Rename File: a\n*** End Patch"),
        "invalid patch: line 2: expected '*** Add File: ', '*** Update File: ' or '*** Delete File: ', found \"*** Rename File: a\""
    );
    assert_eq!(e("*** Begin Patch\n*** End Patch"), "invalid patch: it changes no file");
    assert_eq!(e("*** Begin Patch\n*** Update File: a\n*** End Patch"), "invalid patch: line 2: '*** Update File: a' has no hunks");
    let mut w = ws();
    assert_eq!(
        run(&mut w, "ApplyPatch", json!({})).unwrap_err(),
        "missing required argument `input` (the patch text, from '*** Begin Patch' to '*** End Patch')"
    );
}

#[test]
fn tool_errors_keep_their_cause_as_source() {
    use std::error::Error;
    let mut w = ws();
    let bad_regex = call(&mut w, "grep_search", &json!({"query": "fn main("})).unwrap().unwrap_err();
    let source = bad_regex.source().expect("the read error");
    assert!(source.source().and_then(|s| s.downcast_ref::<regex::Error>()).is_some(), "{source:?}");
    let escaping = call(&mut w, "Read", &json!({"file_path": "../etc/passwd"})).unwrap().unwrap_err();
    assert!(escaping.source().and_then(|s| s.downcast_ref::<crate::world::path::PathError>()).is_some(), "{escaping:?}");
    let edits = json!({"file_path": "README.md", "edits": [{"old_string": "nowhere", "new_string": "x"}]});
    let multi = call(&mut w, "MultiEdit", &edits).unwrap().unwrap_err();
    let WorkspaceToolError::Edit(EditError::InMultiEdit { source, .. }) = &multi else { panic!("{multi:?}") };
    assert!(matches!(**source, WorkspaceToolError::Edit(EditError::NotFound { .. })), "{source:?}");
    assert!(multi.source().and_then(|s| s.source()).is_some());
    let patch = "*** Begin Patch\n*** Delete File: ../x\n*** End Patch";
    let outside = call(&mut w, "ApplyPatch", &json!({"input": patch})).unwrap().unwrap_err();
    assert_eq!(outside.to_string(), format!("{}. No file was changed.", crate::world::path::resolve("/workspace", "../x").unwrap_err()));
    assert!(outside.source().and_then(|s| s.source()).and_then(|s| s.downcast_ref::<crate::world::path::PathError>()).is_some());
}
