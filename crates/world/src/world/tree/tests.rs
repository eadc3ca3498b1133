use super::*;
use serde_json::json;

fn ws(files: &[(&str, &str)]) -> Workspace {
    Workspace::from_files(files.iter().map(|(p, c)| (p.to_string(), c.to_string())), Limits::default()).unwrap()
}

#[test]
fn inline_json_builds_a_normalized_tree() {
    let w = Workspace::from_json(&json!({"./src//main.rs": "fn main() {}\n", "README.md": "hi\n"})).unwrap();
    assert_eq!(w.files().collect::<Vec<_>>(), vec![("README.md", "hi\n"), ("src/main.rs", "fn main() {}\n")]);
    assert_eq!(w.file("./src/main.rs"), Some("fn main() {}\n"));
    assert_eq!(w.file("/etc/passwd"), None);
    assert!(w.is_dir("src") && w.is_dir("") && !w.is_dir("src/main.rs"));
    assert_eq!(w.mount(), "/workspace");
    assert!(w.changed_paths().is_empty());
}

#[test]
fn inline_json_errors_say_what_and_where() {
    let err = |v: serde_json::Value| Workspace::from_json(&v).unwrap_err().to_string();
    assert_eq!(err(json!(["a"])), "the inline workspace must be a JSON object of \"path\": \"content\" pairs, found an array");
    assert_eq!(err(json!({"a.rs": 5})), "workspace file \"a.rs\": the content must be a string (the file's UTF-8 text), found a number");
    assert_eq!(
        err(json!({"../../etc/passwd": "x"})),
        "workspace file \"../../etc/passwd\": path \"../../etc/passwd\" leaves the workspace through `..`; only files inside the workspace can be used"
    );
    assert!(err(json!({"/etc/passwd": "x"})).contains("is absolute"));
    assert!(err(json!({"a\u{0}b": "x"})).contains("control character"));
    assert!(err(json!({"a": "x", "./a": "y"})).contains("is given twice"));
    assert_eq!(
        err(json!({"a": "x", "a/b": "y"})),
        "workspace file \"a\" is also the folder of \"a/b\"; a path is either a file or a folder"
    );
    assert!(err(json!({".": "x"})).contains("the path is empty"));
}

#[test]
fn limits_bound_the_tree_and_writes() {
    let small = Limits { max_files: 2, max_file_bytes: 4, max_total_bytes: 6 };
    assert!(Workspace::from_files([("a", "12345")], small).unwrap_err().to_string().contains("more than 4"));
    assert!(Workspace::from_files([("a", "1"), ("b", "2"), ("c", "3")], small).is_err());
    let mut w = Workspace::from_files([("a", "1234")], small).unwrap();
    assert_eq!(
        w.write("b", "12345").unwrap_err().to_string(),
        "b would be 5 bytes, more than the workspace's limit of 4 bytes per file; write less"
    );
    assert_eq!(w.write("b", "123").unwrap_err(), WriteError::TooManyBytes { limit: 6 });
    w.write("b", "12").unwrap();
    assert_eq!(w.write("c", "").unwrap_err(), WriteError::TooManyFiles { limit: 2 });
    assert_eq!(w.file("c"), None, "a refused write leaves the tree as it was");
}

#[test]
fn writes_keep_files_and_folders_apart() {
    let mut w = ws(&[("src/a.rs", "a\n")]);
    assert_eq!(w.write("src", "x").unwrap_err().to_string(), "src is a directory, not a file; choose a file path inside it");
    assert_eq!(w.write("src/a.rs/b", "x").unwrap_err().to_string(), "cannot create src/a.rs/b: src/a.rs is a file, not a directory");
    assert!(w.write("src/new/b.rs", "b\n").unwrap());
    assert!(!w.write("src/a.rs", "A\n").unwrap());
    let changes = vec![("src/a.rs".to_string(), None), ("src/a.rs".to_string(), Some("again".to_string()))];
    w.apply(&changes).unwrap();
    assert_eq!(w.file("src/a.rs"), Some("again"));
}

#[test]
fn changes_and_diff_are_against_the_start() {
    let mut w = ws(&[("a.txt", "one\n"), ("b.txt", "two\n"), ("c.txt", "same\n")]);
    w.write("a.txt", "ONE\n").unwrap();
    w.apply(&[("b.txt".into(), None)]).unwrap();
    w.write("d.txt", "new\n").unwrap();
    w.write("c.txt", "changed\n").unwrap();
    w.write("c.txt", "same\n").unwrap();
    assert_eq!(
        w.changes(),
        vec![
            Change { path: "a.txt".into(), kind: ChangeKind::Modified },
            Change { path: "b.txt".into(), kind: ChangeKind::Deleted },
            Change { path: "d.txt".into(), kind: ChangeKind::Added },
        ]
    );
    assert_eq!(w.changed_paths(), ["a.txt", "b.txt", "d.txt"]);
    assert_eq!(w.start_file("b.txt"), Some("two\n"));
    assert_eq!(
        w.diff(),
        "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+ONE\n\
         diff --git a/b.txt b/b.txt\ndeleted file mode 100644\n--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-two\n\
         diff --git a/d.txt b/d.txt\nnew file mode 100644\n--- /dev/null\n+++ b/d.txt\n@@ -0,0 +1 @@\n+new\n"
    );
}

#[test]
fn entries_list_children_once() {
    let w = ws(&[("src/a.rs", ""), ("src/b/c.rs", ""), ("src/b/d.rs", ""), ("top", "")]);
    let names = |d: &str| w.entries(d).map(|es| es.into_iter().map(|e| (e.name, e.is_dir)).collect::<Vec<_>>());
    assert_eq!(names(""), Some(vec![("src".into(), true), ("top".into(), false)]));
    assert_eq!(names("src"), Some(vec![("a.rs".into(), false), ("b".into(), true)]));
    assert_eq!(names("top"), None);
    assert_eq!(names("sr"), None);
    assert_eq!(w.files_under("src/b").map(|(p, _)| p).collect::<Vec<_>>(), ["src/b/c.rs", "src/b/d.rs"]);
}

#[cfg(unix)]
#[test]
fn a_folder_is_read_without_following_symlinks_and_never_written() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/nested")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(root.join("src/nested/lib.rs"), "pub fn f() {}\n").unwrap();
    std::fs::write(root.join("logo.bin"), [0xff, 0xfe, 0x00]).unwrap();
    symlink(outside.path().join("secret.txt"), root.join("link.txt")).unwrap();
    symlink(outside.path(), root.join("linked_dir")).unwrap();
    let before = snapshot(root);

    let mut w = Workspace::from_folder(root, Limits::default()).unwrap();
    assert_eq!(w.files().map(|(p, _)| p).collect::<Vec<_>>(), ["src/main.rs", "src/nested/lib.rs"]);
    let skipped: Vec<(&str, &str)> = w.skipped().iter().map(|s| (s.path.as_str(), s.why)).collect();
    assert_eq!(
        skipped,
        [
            (".git", "a .git folder (the starting tree is the history)"),
            ("link.txt", "a symlink (never followed)"),
            ("linked_dir", "a symlink (never followed)"),
            ("logo.bin", "not UTF-8 text"),
        ]
    );
    assert!(w.files().all(|(_, c)| !c.contains("secret")));

    w.write("src/main.rs", "fn main() { changed(); }\n").unwrap();
    w.write("new.txt", "new\n").unwrap();
    w.apply(&[("src/nested/lib.rs".into(), None)]).unwrap();
    assert_eq!(w.changed_paths(), ["new.txt", "src/main.rs", "src/nested/lib.rs"]);
    assert_eq!(snapshot(root), before, "the folder on disk is unchanged");
    assert_eq!(std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(), "secret\n");
}

#[cfg(unix)]
#[test]
fn a_symlinked_folder_or_a_missing_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
    let err = Workspace::from_folder(&dir.path().join("link"), Limits::default()).unwrap_err().to_string();
    assert!(err.ends_with("it is a symlink, and calltape never follows symlinks; give the path of a real folder"), "{err}");
    let err = Workspace::from_folder(&dir.path().join("nope"), Limits::default()).unwrap_err().to_string();
    assert!(err.starts_with("cannot read workspace folder") && err.contains("check that it exists"), "{err}");
    std::fs::write(dir.path().join("real/a"), "12345").unwrap();
    let small = Limits { max_files: 10, max_file_bytes: 4, max_total_bytes: 100 };
    let err = Workspace::from_folder(&dir.path().join("real"), small).unwrap_err().to_string();
    assert!(err.starts_with("the workspace is too large:") && err.contains("more than 4"), "{err}");
}

/// Every entry under `root` with its kind and bytes (links not followed).
#[cfg(unix)]
fn snapshot(root: &std::path::Path) -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let ft = std::fs::symlink_metadata(&p).unwrap().file_type();
            let rel = p.strip_prefix(root).unwrap().display().to_string();
            if ft.is_symlink() {
                out.push((rel, "link".into(), std::fs::read_link(&p).unwrap().display().to_string().into_bytes()));
            } else if ft.is_dir() {
                out.push((rel, "dir".into(), Vec::new()));
                stack.push(p);
            } else {
                out.push((rel, "file".into(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}
