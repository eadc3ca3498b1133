//! Each expected text is what BFCL's Python class returned for the same
//! calls on the same scenario (through BFCL's executor's result text).

use super::*;
use crate::bfcl::multi_turn::pycall::parse_call;
use crate::bfcl::multi_turn::World;

const SCENARIO: &str = r#"{"root": {"alex": {"type": "directory", "contents": {
    "documents": {"type": "directory", "contents": {
        "notes.txt": {"type": "file", "content": "b line\na line\nc"},
        "report.txt": {"type": "file", "content": "x y z\nline two"}}},
    ".hidden": {"type": "file", "content": ""},
    "photos": {"type": "directory", "contents": {}},
    "readme.txt": {"type": "file", "content": "Hello"}}}}}"#;

fn world(long_context: bool) -> World {
    let config: Py = serde_json::from_str(SCENARIO).expect("test scenario is JSON");
    let config = Py::Dict(vec![("GorillaFileSystem".into(), config)]);
    World::new(&["GorillaFileSystem".to_string()], &config, long_context).expect("known class")
}

/// Runs the calls in order, asserting each result text.
fn check(world: &mut World, expected: &[(&str, &str)]) {
    for (call, want) in expected {
        let got = world.execute(&parse_call(call).expect("test call parses"));
        assert_eq!(got, *want, "{call}");
    }
}

fn root_state(world: &World) -> Py {
    let state = world.state();
    state[0].1.iter().find(|(k, _)| k == "root").map(|(_, v)| v.clone()).expect("root attribute")
}

#[test]
fn state_is_the_tree_without_parents_in_insertion_order() {
    let mut w = world(false);
    check(&mut w, &[("cd('photos')", r#"{"current_working_directory": "photos"}"#), ("touch('a.txt')", "None")]);
    assert!(matches!(&w.state()[0].1[0], (name, Py::Bool(false)) if name == "long_context"));
    assert_eq!(
        root_state(&w).json_dumps(),
        r#"{"name": "alex", "contents": {"documents": {"name": "documents", "contents": {"notes.txt": {"name": "notes.txt", "content": "b line\na line\nc"}, "report.txt": {"name": "report.txt", "content": "x y z\nline two"}}}, ".hidden": {"name": ".hidden", "content": ""}, "photos": {"name": "photos", "contents": {"a.txt": {"name": "a.txt", "content": ""}}}, "readme.txt": {"name": "readme.txt", "content": "Hello"}}}"#
    );
}

#[test]
fn empty_config_is_the_default_root_named_slash() {
    let mut w = World::new(&["GorillaFileSystem".to_string()], &Py::Dict(Vec::new()), false).expect("known class");
    check(
        &mut w,
        &[
            ("pwd()", r#"{"current_working_directory": "//"}"#),
            ("ls()", r#"{"current_directory_content": []}"#),
            ("cd('..')", r#"{"error": "Current directory is already the root. Cannot go back."}"#),
        ],
    );
}

#[test]
fn pwd_ls_cd() {
    check(
        &mut world(false),
        &[
            ("pwd()", r#"{"current_working_directory": "/alex"}"#),
            ("ls()", r#"{"current_directory_content": ["documents", "photos", "readme.txt"]}"#),
            ("ls(a=True)", r#"{"current_directory_content": ["documents", ".hidden", "photos", "readme.txt"]}"#),
            ("cd('documents/x')", r#"{"error": "cd: documents/x: Unsupported path. Only one folder level at a time is supported."}"#),
            ("cd('..')", r#"{"error": "Current directory is already the root. Cannot go back."}"#),
            ("cd('nope')", r#"{"error": "cd: 'nope': No such file or directory"}"#),
            ("cd('readme.txt')", r#"{"error": "cd: 'readme.txt': No such file or directory"}"#),
            ("cd('documents/')", r#"{"current_working_directory": "documents"}"#),
            ("pwd()", r#"{"current_working_directory": "/alex/documents"}"#),
            ("cd('..')", "{}"),
            ("pwd()", r#"{"current_working_directory": "/alex"}"#),
            ("cd('/')", r#"{"current_working_directory": "alex"}"#),
            ("cd(5)", "Error during execution: 'int' object has no attribute 'rstrip'"),
        ],
    );
}

#[test]
fn mkdir_and_touch() {
    check(
        &mut world(false),
        &[
            ("mkdir('new')", "None"),
            ("mkdir('new')", r#"{"error": "mkdir: cannot create directory 'new': File exists"}"#),
            ("mkdir('a/b')", r#"{"error": "mkdir: cannot create directory 'a/b': Invalid character"}"#),
            ("mkdir(5)", "Error during execution: argument of type 'int' is not iterable"),
            ("touch('t.txt')", "None"),
            ("touch('t.txt')", r#"{"error": "touch: cannot touch 't.txt': File exists"}"#),
            ("touch('a:b')", r#"{"error": "touch: cannot touch 'a:b': Invalid character"}"#),
            ("ls()", r#"{"current_directory_content": ["documents", "photos", "readme.txt", "new", "t.txt"]}"#),
        ],
    );
}

#[test]
fn echo_and_cat() {
    check(
        &mut world(false),
        &[
            ("echo('hi')", r#"{"terminal_output": "hi"}"#),
            ("echo('hi', 'readme.txt')", "None"),
            ("cat('readme.txt')", r#"{"file_content": "hi"}"#),
            ("echo('x', 'missing.txt')", r#"{"error": "echo: cannot write to 'missing.txt': No such file"}"#),
            ("echo('x', 'photos')", "Error during execution: 'Directory' object has no attribute '_write'"),
            ("echo('x', '')", r#"{"terminal_output": "x"}"#),
            ("cat('photos')", r#"{"error": "cat: 'photos': Is a directory"}"#),
            ("cat('nope')", r#"{"error": "cat: 'nope': No such file or directory"}"#),
            ("cat('a|b')", r#"{"error": "cat: 'a|b': Invalid character"}"#),
            // Python stores whatever is echoed; string methods then fail on it.
            ("echo(5, 'readme.txt')", "None"),
            ("cat('readme.txt')", r#"{"file_content": 5}"#),
            ("wc('readme.txt')", "Error during execution: 'int' object has no attribute 'splitlines'"),
            ("du()", "Error during execution: 'int' object has no attribute 'encode'"),
        ],
    );
}

#[test]
fn find_walks_depth_first_from_the_path_as_written() {
    check(
        &mut world(false),
        &[
            (
                "find()",
                r#"{"matches": ["./documents", "./documents/notes.txt", "./documents/report.txt", "./.hidden", "./photos", "./readme.txt"]}"#,
            ),
            (
                "find(name='t')",
                r#"{"matches": ["./documents", "./documents/notes.txt", "./documents/report.txt", "./photos", "./readme.txt"]}"#,
            ),
            ("find(path='/', name='notes')", r#"{"matches": ["/documents/notes.txt"]}"#),
            ("find(path='documents/')", r#"{"matches": ["documents/notes.txt", "documents/report.txt"]}"#),
            ("find(path='nope')", r#"{"error": "find: 'nope': No such file or directory"}"#),
            ("find(path=None)", "Error during execution: 'NoneType' object has no attribute 'rstrip'"),
        ],
    );
}

#[test]
fn text_commands() {
    check(
        &mut world(false),
        &[
            ("cd('documents')", r#"{"current_working_directory": "documents"}"#),
            ("wc('notes.txt')", r#"{"count": 3, "type": "lines"}"#),
            ("wc('report.txt', 'w')", r#"{"count": 5, "type": "words"}"#),
            ("wc('report.txt', 'c')", r#"{"count": 14, "type": "characters"}"#),
            ("wc('report.txt', 'x')", r#"{"error": "wc: invalid mode 'x'"}"#),
            ("wc('nope')", r#"{"error": "wc: nope: No such file or directory"}"#),
            ("wc(5)", r#"{"error": "wc: 5: No such file or directory"}"#),
            ("sort('notes.txt')", r#"{"sorted_content": "a line\nb line\nc"}"#),
            ("sort('nope')", r#"{"error": "sort: nope: No such file or directory"}"#),
            ("grep('notes.txt', 'line')", r#"{"matching_lines": ["b line", "a line"]}"#),
            ("grep('nope', 'x')", r#"{"error": "grep: nope: No such file or directory"}"#),
            ("tail('notes.txt', 2)", r#"{"last_lines": "a line\nc"}"#),
            ("tail('notes.txt', 0)", r#"{"last_lines": "b line\na line\nc"}"#),
            ("tail('notes.txt', -1)", r#"{"last_lines": "a line\nc"}"#),
            ("tail('notes.txt')", r#"{"last_lines": "b line\na line\nc"}"#),
            // Python: a big `lines` is cut to the length; content[2**130:] is [] (slices clamp).
            ("tail('notes.txt', 0x4_0000000000000000_0000000000000000)", r#"{"last_lines": "b line\na line\nc"}"#),
            ("tail('notes.txt', -0x4_0000000000000000_0000000000000000)", r#"{"last_lines": ""}"#),
            ("diff('notes.txt', 'report.txt')", r#"{"diff_lines": "- b line\n+ x y z\n- a line\n+ line two"}"#),
            ("diff('notes.txt', 'nope')", r#"{"error": "diff: notes.txt or nope: No such file or directory"}"#),
            ("du()", r#"{"disk_usage": "29 bytes"}"#),
            ("cd('..')", "{}"),
            ("du()", r#"{"disk_usage": "34 bytes"}"#),
            ("du(human_readable=True)", r#"{"disk_usage": "34.00 B"}"#),
        ],
    );
}

#[test]
fn mv_renames_or_moves_into_a_directory() {
    let mut w = world(false);
    check(
        &mut w,
        &[
            ("mv('readme.txt', 'README.md')", r#"{"result": "'readme.txt' moved to 'README.md'"}"#),
            ("mv('README.md', 'documents')", r#"{"result": "'README.md' moved to 'documents/README.md'"}"#),
            ("mv('nope', 'x')", r#"{"error": "mv: cannot move 'nope': No such file or directory"}"#),
            ("mv('photos', 'a/b')", r#"{"error": "mv: path not allowed in destination. Provide only a file or directory name."}"#),
            ("mv('.hidden', 'documents')", r#"{"result": "'.hidden' moved to 'documents/.hidden'"}"#),
            ("touch('notes.txt')", "None"),
            ("mv('notes.txt', 'documents')", r#"{"error": "mv: cannot move 'notes.txt' to 'documents/notes.txt': File exists"}"#),
            ("mv('notes.txt', 'notes.txt')", r#"{"error": "mv: cannot move 'notes.txt' to 'notes.txt': Not a directory"}"#),
            ("ls(a=True)", r#"{"current_directory_content": ["documents", "photos", "notes.txt"]}"#),
            ("cd('documents')", r#"{"current_working_directory": "documents"}"#),
            ("ls(a=True)", r#"{"current_directory_content": ["notes.txt", "report.txt", "README.md", ".hidden"]}"#),
        ],
    );
}

#[test]
fn a_moved_directorys_children_keep_their_old_parent() {
    check(
        &mut world(false),
        &[
            ("cd('documents')", r#"{"current_working_directory": "documents"}"#),
            ("mkdir('sub')", "None"),
            ("cd('..')", "{}"),
            ("mv('documents', 'docs')", r#"{"result": "'documents' moved to 'docs'"}"#),
            ("cd('docs')", r#"{"current_working_directory": "docs"}"#),
            ("cd('sub')", r#"{"current_working_directory": "sub"}"#),
            ("pwd()", r#"{"current_working_directory": "/alex/documents/sub"}"#),
            ("cd('..')", "{}"),
            ("pwd()", r#"{"current_working_directory": "/alex/documents"}"#),
            ("ls()", r#"{"current_directory_content": ["notes.txt", "report.txt", "sub"]}"#),
        ],
    );
}

#[test]
fn rm_and_rmdir() {
    check(
        &mut world(false),
        &[
            ("rm('readme.txt')", r#"{"result": "'readme.txt' removed"}"#),
            ("rm('nope')", r#"{"error": "rm: cannot remove 'nope': No such file or directory"}"#),
            ("rmdir('documents')", r#"{"error": "rmdir: cannot remove 'documents': Directory not empty"}"#),
            ("rmdir('.hidden')", r#"{"error": "rmdir: cannot remove '.hidden': Not a directory"}"#),
            ("rmdir('photos')", r#"{"result": "'photos' removed"}"#),
            ("rmdir('nope')", r#"{"error": "rmdir: cannot remove 'nope': No such file or directory"}"#),
            ("rm('documents')", r#"{"result": "'documents' removed"}"#),
            ("ls(a=True)", r#"{"current_directory_content": [".hidden"]}"#),
        ],
    );
}

#[test]
fn cp_copies_and_a_copied_directory_shares_its_files() {
    check(
        &mut world(false),
        &[
            ("cp('readme.txt', 'copy.txt')", r#"{"result": "'readme.txt' copied to 'copy.txt'"}"#),
            ("cp('readme.txt', 'photos')", r#"{"result": "'readme.txt' copied to 'photos/readme.txt'"}"#),
            ("cp('readme.txt', 'photos')", "Error during execution: File 'readme.txt' already exists in directory 'photos'."),
            ("cp('readme.txt', 'copy.txt')", r#"{"error": "cp: cannot copy 'readme.txt' to 'copy.txt': Not a directory"}"#),
            ("cp('documents', 'docs2')", r#"{"result": "'documents' copied to 'docs2'"}"#),
            ("cd('docs2')", r#"{"current_working_directory": "docs2"}"#),
            ("echo('changed', 'notes.txt')", "None"),
            ("cd('..')", "{}"),
            ("cd('documents')", r#"{"current_working_directory": "documents"}"#),
            ("cat('notes.txt')", r#"{"file_content": "changed"}"#),
            ("cp('nope', 'x')", r#"{"error": "cp: cannot copy 'nope': No such file or directory"}"#),
        ],
    );
}

#[test]
fn a_file_named_dot_is_found_as_the_directory_itself() {
    check(
        &mut world(false),
        &[
            ("touch('.')", "None"),
            ("cat('.')", r#"{"error": "cat: '.': Is a directory"}"#),
            ("tail('.')", r#"{"error": "tail: .: No such file or directory"}"#),
            ("rm('.')", r#"{"result": "'.' removed"}"#),
            ("ls(a=True)", r#"{"current_directory_content": ["documents", ".hidden", "photos", "readme.txt"]}"#),
        ],
    );
}

#[test]
fn long_context_pads_files_and_innermost_directories() {
    let mut w = world(true);
    check(
        &mut w,
        &[
            ("cd('documents')", r#"{"current_working_directory": "documents"}"#),
            // Only names outside FILES_TAIL_USED get the extension.
            ("wc('notes.txt', 'c')", r#"{"count": 3266, "type": "characters"}"#),
            ("cd('..')", "{}"),
            ("wc('readme.txt', 'c')", r#"{"count": 3256, "type": "characters"}"#),
            ("du()", r#"{"disk_usage": "9859 bytes"}"#),
            ("du(human_readable=True)", r#"{"disk_usage": "9.63 KB"}"#),
            ("cd('photos')", r#"{"current_working_directory": "photos"}"#),
        ],
    );
    let listed = w.execute(&parse_call("ls()").expect("parses"));
    assert!(listed.starts_with(r#"{"current_directory_content": ["image_344822349461074042.jpg", "image_8219547643081662353.jpg", "#));
    assert!(listed.ends_with(r#""image_1912245706439755759.jpg"]}"#));
    assert!(matches!(&w.state()[0].1[0], (name, Py::Bool(true)) if name == "long_context"));
}

#[test]
fn bundled_long_context_data_parses() {
    assert_eq!(LONG_CONTEXT.populate_file_extension.len(), 30);
    assert_eq!(LONG_CONTEXT.files_tail_used.len(), 9);
    assert_eq!(LONG_CONTEXT.file_content_extension.chars().count(), 3251);
}

#[test]
fn splitlines_and_split_follow_python() {
    assert_eq!(text::splitlines("a\r\nb\rc\x1cd\u{2028}e\n"), ["a", "b", "c", "d", "e"]);
    assert_eq!(text::splitlines("a\n\nb"), ["a", "", "b"]);
    assert!(text::splitlines("").is_empty());
    assert_eq!("a\x1fb \u{a0}c".split(text::is_py_space).filter(|w| !w.is_empty()).count(), 3);
}

#[test]
fn a_directory_copied_into_itself_is_a_cycle_that_ends_in_recursion_errors() {
    let mut w = world(false);
    // Python copies after adding, so `documents/documents` contains itself.
    check(
        &mut w,
        &[
            ("cp('documents', 'documents')", r#"{"result": "'documents' copied to 'documents/documents'"}"#),
            ("du()", "Error during execution: maximum recursion depth exceeded"),
            ("find(name='zzz')", "Error during execution: maximum recursion depth exceeded"),
        ],
    );
    assert!(root_state(&w).json_dumps().contains(r#""documents": {"name": "documents", "contents": {"notes.txt""#));
}

#[test]
fn a_directory_that_contains_itself_twice_is_walked_within_the_limit() {
    let mut w = world(false);
    // documents/documents holds itself; a copy of it beside it, inside it, doubles the walk at every level.
    check(
        &mut w,
        &[
            ("cp('documents', 'documents')", r#"{"result": "'documents' copied to 'documents/documents'"}"#),
            ("cd('documents')", r#"{"current_working_directory": "documents"}"#),
            ("cd('documents')", r#"{"current_working_directory": "documents"}"#),
            ("cp('documents', 'y')", r#"{"result": "'documents' copied to 'y'"}"#),
        ],
    );
    let started = std::time::Instant::now();
    // Depth first, these meet Python's recursion limit before the walk doubles far.
    let deep = "Error during execution: maximum recursion depth exceeded";
    check(&mut w, &[("du()", deep), ("find(name='zzz')", deep)]);
    let state = root_state(&w).json_dumps();
    assert!(state.contains("CALLTAPE_MAX_BFCL_TREE_ENTRIES"), "the cut state names the limit");
    assert!(state.len() < 64 << 20, "{} bytes", state.len());
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
}
