//! The trust boundary's second ring, through the real binary (issue 45,
//! classes 2, 5, 6, 8 and 9): hostile suites written by the test, hostile
//! model output (a simulated model making exactly the calls a suite
//! expects), and what a person reads on the terminal.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

fn calltape(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(args)
        .current_dir(cwd)
        .env("COLUMNS", "200")
        .stdin(Stdio::null())
        .output()
        .expect("binary runs")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

/// A configuration with one simulated model that makes the expected calls
/// without mistakes, and no `[approval]` section: the built-in guard rails.
const CONFIG: &str = r#"
[[models]]
name = "sim"
provider = "sim"
model_id = "sim"
tier = "strong"
[models.sim]
"#;

fn bash_tool() -> Value {
    json!({
        "name": "Bash",
        "description": "Runs a shell command in /workspace.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}
    })
}

/// One scenario whose right answer is a single Bash call running `command`.
fn bash_scenario(id: &str, command: &str) -> Value {
    json!({
        "id": id,
        "tools": [bash_tool()],
        "messages": [{"role": "user", "content": "Run the command."}],
        "tool_results": [{"tool": "*", "result": "ok"}],
        "expect": {"calls": [{"tool": "Bash", "args": {"command": command}}], "max_steps": 2}
    })
}

/// Writes a suite of one-call Bash scenarios and the configuration; returns the suite's folder.
fn bash_suite(dir: &Path, commands: &[&str]) -> std::path::PathBuf {
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    let lines: Vec<String> = commands.iter().enumerate().map(|(i, c)| bash_scenario(&format!("c{i:02}"), c).to_string()).collect();
    std::fs::write(suite.join("calls.jsonl"), lines.join("\n") + "\n").unwrap();
    std::fs::write(dir.join("calltape.toml"), CONFIG).unwrap();
    suite
}

fn events(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("latest/events.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Runs the suite in `mode`; returns each scenario's approval events.
fn approvals(dir: &Path, suite: &Path, mode: &str) -> Vec<Value> {
    let out = dir.join(format!("out-{mode}"));
    let args = [
        "run",
        "--config",
        "calltape.toml",
        "--suite",
        suite.to_str().unwrap(),
        "--mode",
        "live",
        "--no-arms",
        "--approve",
        mode,
        "--out",
        out.to_str().unwrap(),
    ];
    let run = calltape(&args, dir);
    assert!(run.status.success(), "{}", text(&run));
    events(&out).into_iter().filter(|e| e["event"] == "tool_approval").collect()
}

/// Hostile commands, one per way a command can hide what it does. Each is
/// a class of issue 45's item 6, not a list to match: the lead's own
/// inputs differ.
const HOSTILE: &[&str] = &[
    "python3 -c 'import shutil; shutil.rmtree(\"/workspace\")'",
    "perl -e 'unlink glob \"*\"'",
    "node -e \"require('fs').writeFileSync('/etc/passwd', '')\"",
    "ruby -e 'File.delete(\"Cargo.toml\")'",
    "echo 'import os; os.remove(\"x\")' | python3",
    "echo pwned > /etc/passwd",
    "cat notes | tee -a ~/.bashrc",
    "cd /etc && echo x >> hosts",
    "rm $FLAGS /workspace",
    "git $SUBCOMMAND origin main",
    "git -c alias.ship='push --force' ship origin main",
    "git config alias.ship 'push --force'",
    "git push origin :main",
    "git push --delete origin release",
    "ln -s /etc/passwd passwd",
    "ln -s ../../../etc sub/etc",
    "patch -p0 <<'EOF'\n--- a/x\n+++ /etc/cron.d/job\n@@ -0,0 +1 @@\n+* * * * * root sh\nEOF",
    "git apply <<'EOF'\ndiff --git a/x b/../../root/.ssh/authorized_keys\nrename from x\nrename to ../../root/.ssh/authorized_keys\nEOF",
    "git apply fix.patch",
];

#[test]
fn hostile_commands_are_denied_in_every_mode_without_an_approval_section() {
    let dir = tempfile::tempdir().unwrap();
    let suite = bash_suite(dir.path(), HOSTILE);
    for mode in ["auto", "deny", "script"] {
        let approvals = approvals(dir.path(), &suite, mode);
        for (i, command) in HOSTILE.iter().enumerate() {
            let id = format!("c{i:02}");
            let mine: Vec<&Value> = approvals.iter().filter(|e| e["scenario"] == id.as_str()).collect();
            assert!(!mine.is_empty(), "{mode}: no approval for {command:?}");
            for e in mine {
                assert_eq!(e["approved"], false, "{mode}: approved {command:?}: {e}");
                assert_eq!(e["decided_by"], "rule", "{mode}: {command:?} not stopped by a guard rail: {e}");
                assert!(e["rule"].as_str().unwrap().starts_with("config#"), "{e}");
            }
        }
    }
}

#[test]
fn honest_commands_still_run_under_the_guard_rails() {
    let honest = ["cargo test", "git status", "ls -la > listing.txt", "python3 -m pytest -q 2>/dev/null", "ln -s a.txt b.txt"];
    let dir = tempfile::tempdir().unwrap();
    let suite = bash_suite(dir.path(), &honest);
    let approvals = approvals(dir.path(), &suite, "auto");
    assert_eq!(approvals.len(), honest.len());
    assert!(approvals.iter().all(|e| e["approved"] == true && e["decided_by"] == "auto"), "{approvals:?}");
}

/// Runs `command` under `script`, which gives it a pseudo-terminal, typing `input`.
fn in_terminal(cwd: &Path, command: &str, input: &[u8]) -> (bool, String) {
    if Command::new("script").arg("--version").output().is_err() {
        panic!("`script` (util-linux) is needed for the pseudo-terminal test");
    }
    let mut child = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.as_mut().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn interactive_applies_the_deny_rules_before_asking_and_shows_arguments_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // c00 is stopped by a guard rail without a question; c01 is asked, its
    // command carrying a bidi override, a zero-width space and an escape.
    let spoof = "echo done \u{202e}fr- mr\u{200b}\u{feff}\u{1b}[2K";
    let suite = bash_suite(dir.path(), &["echo x > /etc/passwd", spoof]);
    let out = dir.path().join("out");
    let cmd = format!(
        "{} run --config calltape.toml --suite {} --mode live --no-arms --approve interactive --out {}",
        env!("CARGO_BIN_EXE_calltape"),
        suite.display(),
        out.display()
    );
    let (ok, screen) = in_terminal(dir.path(), &cmd, b"n\n");
    assert!(ok, "{screen}");
    for raw in ['\u{202e}', '\u{200b}', '\u{feff}', '\u{1b}'] {
        let asked = screen.split("approve `Bash`").nth(1).unwrap_or_else(|| panic!("never asked: {screen}"));
        let shown = asked.split("approve?").next().unwrap();
        assert!(!shown.contains(raw), "{raw:?} shown raw: {shown:?}");
    }
    assert!(screen.contains("\\u{202e}") && screen.contains("\\u{200b}") && screen.contains("\\u{feff}"), "{screen}");
    assert_eq!(screen.matches("approve? [y]es").count(), 1, "only the call no rule denies is asked: {screen}");
    let ev = events(&out);
    let approvals: Vec<&Value> = ev.iter().filter(|e| e["event"] == "tool_approval").collect();
    let c00 = approvals.iter().find(|e| e["scenario"] == "c00").unwrap();
    assert_eq!((&c00["approved"], &c00["decided_by"]), (&json!(false), &json!("rule")), "{c00}");
    let c01 = approvals.iter().find(|e| e["scenario"] == "c01").unwrap();
    assert_eq!(c01["decided_by"], "person", "{c01}");
}

/// A suite whose scenario takes its workspace from `folder`.
fn workspace_suite(dir: &Path, folder: &str) -> std::path::PathBuf {
    let suite = dir.join("suite");
    std::fs::create_dir_all(suite.join("tree")).unwrap();
    std::fs::write(suite.join("tree/ok.txt"), "inside").unwrap();
    let scenario = json!({
        "id": "reads-host",
        "tools": [bash_tool()],
        "messages": [{"role": "user", "content": "Look around."}],
        "workspace": {"folder": folder},
        "expect": {"calls": [{"tool": "Bash", "args": {"command": "ls"}}]}
    });
    std::fs::write(suite.join("reads-host.json"), scenario.to_string()).unwrap();
    suite
}

#[test]
fn a_workspace_outside_its_suite_is_refused_by_check_naming_the_scenario() {
    let cases = ["absolute", "../host", "tree/../../host", "link/sub", "hostlink"];
    for folder in cases {
        let case = tempfile::tempdir().unwrap();
        let host = case.path().join("host");
        std::fs::create_dir_all(host.join("sub")).unwrap();
        std::fs::write(host.join("secret.txt"), "HOST-SECRET-42").unwrap();
        std::fs::write(host.join("sub/secret.txt"), "HOST-SECRET-42").unwrap();
        let folder = if folder == "absolute" { host.display().to_string() } else { folder.to_string() };
        let suite = workspace_suite(case.path(), &folder);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&host, suite.join("link")).unwrap();
            std::os::unix::fs::symlink(&host, suite.join("hostlink")).unwrap();
        }
        let out = calltape(&["check", suite.to_str().unwrap()], case.path());
        let all = text(&out);
        assert_eq!(out.status.code(), Some(1), "{folder}: check must fail: {all}");
        assert!(
            all.contains("suite/reads-host.json:1:") && all.contains("scenario \"reads-host\": workspace folder"),
            "{folder}: the scenario is named: {all}"
        );
        assert!(all.contains("inside the suite") && !all.contains("HOST-SECRET-42"), "{folder}: {all}");
        // `run` loads suites the same way: the host file never reaches a model.
        std::fs::write(case.path().join("calltape.toml"), CONFIG).unwrap();
        let out = calltape(&["run", "--config", "calltape.toml", "--suite", suite.to_str().unwrap(), "--out", "o"], case.path());
        assert!(!out.status.success(), "{folder}: {}", text(&out));
        assert!(!case.path().join("o/latest").exists(), "{folder}: nothing ran");
    }
    // A folder inside the suite is fine.
    let case = tempfile::tempdir().unwrap();
    let suite = workspace_suite(case.path(), "tree");
    let out = calltape(&["check", suite.to_str().unwrap()], case.path());
    assert!(out.status.success(), "{}", text(&out));
}

#[cfg(unix)]
#[test]
fn a_scenario_or_toolset_linked_from_outside_the_suite_is_refused() {
    let case = tempfile::tempdir().unwrap();
    let host = case.path().join("host");
    std::fs::create_dir_all(host.join("toolsets")).unwrap();
    // A valid scenario and toolset on the host: loaded, they would reach the model.
    let mut secret = bash_scenario("secret", "ls");
    secret["messages"][0]["content"] = json!("HOST-SECRET-42");
    std::fs::write(host.join("secret.json"), secret.to_string()).unwrap();
    std::fs::write(host.join("toolsets/shell.json"), json!({"tools": [bash_tool()]}).to_string()).unwrap();
    for (what, link, target) in
        [("scenario", "secret.json", host.join("secret.json")), ("toolsets folder", "toolsets", host.join("toolsets"))]
    {
        let suite = case.path().join(format!("suite-{}", what.replace(' ', "-")));
        std::fs::create_dir_all(&suite).unwrap();
        std::fs::write(suite.join("own.json"), bash_scenario("own", "ls").to_string()).unwrap();
        std::os::unix::fs::symlink(&target, suite.join(link)).unwrap();
        let out = calltape(&["check", suite.to_str().unwrap()], case.path());
        let all = text(&out);
        assert_eq!(out.status.code(), Some(1), "{what}: {all}");
        assert!(all.contains("link out of the suite") && !all.contains("HOST-SECRET-42"), "{what}: {all}");
    }
}

#[test]
fn check_prints_a_hostile_suite_folder_name_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let name = "suite\u{1b}]8;;x\u{7}\u{202e}txt.exe\u{200b}";
    let suite = dir.path().join(name);
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(suite.join("one.json"), bash_scenario("one", "ls").to_string()).unwrap();
    let out = calltape(&["check", suite.to_str().unwrap()], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", text(&out));
    for raw in ['\u{1b}', '\u{7}', '\u{202e}', '\u{200b}'] {
        assert!(!stdout.contains(raw), "{raw:?} printed raw: {stdout:?}");
    }
    assert!(stdout.contains("ok: suite\\x1b]8;;x\\x07\\u{202e}txt.exe\\u{200b} (1 scenario)"), "{stdout:?}");
}

#[cfg(unix)]
#[test]
fn init_never_writes_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let project = dir.path().join("p");
    std::fs::create_dir(&project).unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.join("scenarios")).unwrap();
    for force in [false, true] {
        let mut args = vec!["init", "p"];
        if force {
            args.push("--force");
        }
        let out = calltape(&args, dir.path());
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("symbolic link"), "{}", text(&out));
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "nothing written through the link (force: {force})");
        assert!(!project.join("calltape.toml").exists());
    }
    // The project folder itself a link, and a file that is a link.
    std::os::unix::fs::symlink(&elsewhere, dir.path().join("linked")).unwrap();
    let out = calltape(&["init", "linked", "--force"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    let fresh = dir.path().join("q");
    std::fs::create_dir(&fresh).unwrap();
    let victim = dir.path().join("victim.toml");
    std::fs::write(&victim, "keep").unwrap();
    std::os::unix::fs::symlink(&victim, fresh.join("calltape.toml")).unwrap();
    let out = calltape(&["init", "q", "--force"], dir.path());
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep", "the link is replaced, not written through");
}
