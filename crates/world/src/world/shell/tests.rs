use super::*;
use crate::world::tree::Limits;

fn ws() -> Workspace {
    Workspace::from_files(
        [
            ("Cargo.toml", "[package]\nname = \"demo\"\n"),
            (".env", "KEY=1\n"),
            ("src/main.rs", "fn main() {\n    // TODO: port\n    serve(8080);\n}\n"),
            ("src/net/mod.rs", "pub fn serve(port: u16) {}\n// todo: tls\n"),
            ("old.txt", "bye\n"),
        ],
        Limits::default(),
    )
    .unwrap()
}

fn sh(w: &Workspace, cmd: &str) -> ShellReply {
    run(w, cmd).unwrap_or_else(|| panic!("{cmd:?} was not answered"))
}

fn ok(output: &str) -> ShellReply {
    ShellReply { output: output.to_string(), exit_code: 0 }
}

#[test]
fn anything_a_shell_would_do_more_with_is_not_answered() {
    let w = ws();
    for cmd in [
        "cargo test",
        "ls | wc -l",
        "cat a > b",
        "rm -rf /",
        "echo $HOME",
        "cat `which x`",
        "ls *.rs",
        "ls ~",
        "ls -l",
        "cat",
        "cat - a",
        "grep foo",
        "git log",
        "git status --ignored",
        "git diff --stat",
        "cd /tmp && ls",
        "ls; rm x",
        "cat 'unterminated",
        "",
    ] {
        assert_eq!(run(&w, cmd), None, "{cmd:?}");
    }
}

#[test]
fn pwd_and_ls() {
    let w = ws();
    assert_eq!(sh(&w, "pwd"), ok("/workspace\n"));
    assert_eq!(sh(&w, "ls"), ok("Cargo.toml\nold.txt\nsrc\n"));
    assert_eq!(sh(&w, "ls -a"), ok(".\n..\n.env\nCargo.toml\nold.txt\nsrc\n"));
    assert_eq!(sh(&w, "ls -Ap /workspace/src"), ok("main.rs\nnet/\n"));
    assert_eq!(sh(&w, "cd /workspace && ls src/net"), ok("mod.rs\n"));
    assert_eq!(sh(&w, "ls src/main.rs old.txt"), ok("old.txt\nsrc/main.rs\n"));
    assert_eq!(sh(&w, "ls src Cargo.toml"), ok("Cargo.toml\n\nsrc:\nmain.rs\nnet\n"));
    assert_eq!(
        sh(&w, "ls nope /etc"),
        ShellReply {
            output: "ls: cannot access 'nope': No such file or directory\nls: cannot access '/etc': No such file or directory\n".into(),
            exit_code: 2
        }
    );
}

#[test]
fn cat_prints_files_and_errors() {
    let w = ws();
    assert_eq!(sh(&w, "cat old.txt Cargo.toml"), ok("bye\n[package]\nname = \"demo\"\n"));
    assert_eq!(sh(&w, "cat -n old.txt | cat"), ok("     1\tbye\n"));
    assert_eq!(
        sh(&w, "cat src \"/etc/passwd\" ../../etc/passwd"),
        ShellReply {
            output:
                "cat: src: Is a directory\ncat: /etc/passwd: No such file or directory\ncat: ../../etc/passwd: No such file or directory\n"
                    .into(),
            exit_code: 1
        }
    );
}

#[test]
fn grep_finds_lines_like_gnu_grep() {
    let w = ws();
    assert_eq!(sh(&w, "grep -rn TODO ."), ok("./src/main.rs:2:    // TODO: port\n"));
    assert_eq!(sh(&w, "grep -rni 'todo' src"), ok("src/main.rs:2:    // TODO: port\nsrc/net/mod.rs:2:// todo: tls\n"));
    assert_eq!(sh(&w, "grep -ri todo --include=*.rs"), ok("src/main.rs:    // TODO: port\nsrc/net/mod.rs:// todo: tls\n"));
    assert_eq!(sh(&w, "grep -n 'serve(' src/main.rs"), ok("3:    serve(8080);\n"));
    assert_eq!(sh(&w, "grep -E 'serve\\(8080|nothing' src/main.rs"), ok("    serve(8080);\n"));
    assert_eq!(sh(&w, "grep -l serve -r src"), ok("src/main.rs\nsrc/net/mod.rs\n"));
    assert_eq!(run(&w, "grep -c x old.txt"), None, "an unknown flag is not answered");
    assert_eq!(sh(&w, "grep nothing old.txt"), ShellReply { output: String::new(), exit_code: 1 });
    assert_eq!(sh(&w, "grep bye src"), ShellReply { output: "grep: src: Is a directory\n".into(), exit_code: 2 });
    assert_eq!(sh(&w, "grep x missing.txt"), ShellReply { output: "grep: missing.txt: No such file or directory\n".into(), exit_code: 2 });
}

#[test]
fn git_status_and_diff_against_the_start() {
    let mut w = ws();
    assert_eq!(sh(&w, "git status"), ok("On branch main\nnothing to commit, working tree clean\n"));
    assert_eq!(sh(&w, "git diff"), ok(""));
    w.write("src/main.rs", "fn main() {\n    // TODO: port\n    serve(9090);\n}\n").unwrap();
    w.apply(&[("old.txt".into(), None)]).unwrap();
    w.write("src/tls/mod.rs", "// new\n").unwrap();
    w.write("NEW.md", "new\n").unwrap();
    assert_eq!(sh(&w, "git status --porcelain"), ok(" D old.txt\n M src/main.rs\n?? NEW.md\n?? src/tls/\n"));
    assert_eq!(
        sh(&w, "git status"),
        ok("On branch main\nChanges not staged for commit:\n  (use \"git add/rm <file>...\" to update what will be committed)\n  \
            (use \"git restore <file>...\" to discard changes in working directory)\n\tdeleted:    old.txt\n\tmodified:   src/main.rs\n\n\
            Untracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n\tNEW.md\n\tsrc/tls/\n\n\
            no changes added to commit (use \"git add\" and/or \"git commit -a\")\n")
    );
    assert_eq!(
        sh(&w, "git --no-pager diff"),
        ok("diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\
            diff --git a/src/main.rs b/src/main.rs\n--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1,4 +1,4 @@\n fn main() {\n     \
            // TODO: port\n-    serve(8080);\n+    serve(9090);\n }\n")
    );
    assert_eq!(sh(&w, "git diff --name-only"), ok("old.txt\nsrc/main.rs\n"));
    assert_eq!(sh(&w, "git diff --name-status -- src"), ok("M\tsrc/main.rs\n"));
    assert_eq!(sh(&w, "git diff --cached"), ok(""));
    assert!(sh(&w, "git diff src/main.rs").output.starts_with("diff --git a/src/main.rs b/src/main.rs\n"));
    assert_eq!(sh(&w, "git diff nowhere").exit_code, 128);
}

#[test]
fn words_follow_shell_quoting() {
    assert_eq!(words(r#"grep -n "a \"b\" c" 'd e' f\ g"#).unwrap(), ["grep", "-n", "a \"b\" c", "d e", "f g"]);
    assert_eq!(words("a  b\t c").unwrap(), ["a", "b", "c"]);
    assert_eq!(words("grep ''").unwrap(), ["grep", ""]);
    assert_eq!(words("echo \"$HOME\""), None);
    assert_eq!(from_basic(r"a\(b\|c\)+"), r"a(b|c)\+");
}
