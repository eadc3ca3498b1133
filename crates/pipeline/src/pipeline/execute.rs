//! Stage 8: execution, after approval. An [`Executor`] answers each approved
//! call: [`Scripted`] (the scenario says what each call returns) or the
//! workspace (`pipeline::workspace_executor`: coding tools act on an in-memory
//! tree). No tool is ever really run, and model output never reaches a shell.

use serde_json::Value;

use crate::core::matcher::StringComparison;
use crate::core::scripted::ToolResultRule;
use crate::world::Workspace;

/// What an executed tool returned.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The result text the model reads.
    pub content: String,
    /// Whether it is an error result (a scripted error, or a tool's own).
    pub is_error: bool,
    /// Index of the scripted rule that produced it; `None` when no rule
    /// matched, or when another executor (the workspace) answered.
    pub rule: Option<usize>,
}

/// What answers an approved call: one implementation per kind of world.
/// An executor may change its state (a workspace's files), so it is `&mut`;
/// its errors are results the model reads (`is_error`), never failures of the run.
pub trait Executor: Send {
    /// The result of calling `tool` with `args`.
    fn execute(&mut self, tool: &str, args: &Value) -> ToolOutput;

    /// The tree the calls act on, for outcome checks (`None`: no world).
    fn workspace(&self) -> Option<&Workspace> {
        None
    }
}

/// The scenario's scripted results as an [`Executor`] (see [`scripted_result`]).
#[derive(Debug, Clone, Copy)]
pub struct Scripted<'a> {
    /// The scenario's rules, first match wins.
    pub rules: &'a [ToolResultRule],
}

impl Executor for Scripted<'_> {
    fn execute(&mut self, tool: &str, args: &Value) -> ToolOutput {
        scripted_result(self.rules, tool, args)
    }
}

/// The result of calling `tool` with `args`: the first matching rule's.
pub fn scripted_result(rules: &[ToolResultRule], tool: &str, args: &Value) -> ToolOutput {
    let matched = rules.iter().enumerate().find(|(_, r)| {
        (r.tool == "*" || r.tool == tool) && r.when.iter().all(|(k, m)| m.matches_field(args.get(k), StringComparison::Exact))
    });
    match matched {
        Some((i, rule)) => match (&rule.error, &rule.result) {
            (Some(err), _) => ToolOutput { content: format!("error: {err}"), is_error: true, rule: Some(i) },
            (None, Some(Value::String(s))) => ToolOutput { content: s.clone(), is_error: false, rule: Some(i) },
            (None, Some(v)) => ToolOutput { content: v.to_string(), is_error: false, rule: Some(i) },
            (None, None) => ToolOutput { content: "ok".into(), is_error: false, rule: Some(i) },
        },
        None => ToolOutput { content: "ok".into(), is_error: false, rule: None },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn first_matching_rule_wins() {
        let rules: Vec<ToolResultRule> = serde_json::from_value(json!([
            {"tool": "Bash", "when": {"command": {"regex": "^cargo test"}}, "error": "exit 101"},
            {"tool": "Bash", "when": {"command": "ls"}, "result": "src\nCargo.toml"},
            {"tool": "*", "result": {"ok": true}}
        ]))
        .unwrap();
        let r = scripted_result(&rules, "Bash", &json!({"command": "cargo test -q"}));
        assert_eq!(r, ToolOutput { content: "error: exit 101".into(), is_error: true, rule: Some(0) });
        assert_eq!(scripted_result(&rules, "Bash", &json!({"command": "ls"})).content, "src\nCargo.toml");
        assert_eq!(scripted_result(&rules, "Write", &json!({})).content, r#"{"ok":true}"#);
        assert_eq!(scripted_result(&[], "Write", &json!({})).rule, None);
    }

    #[test]
    fn the_scripted_executor_is_scripted_result() {
        let rules: Vec<ToolResultRule> = serde_json::from_value(json!([{"tool": "Bash", "error": "exit 1"}])).unwrap();
        let mut exec = Scripted { rules: &rules };
        let args = json!({"command": "ls"});
        assert_eq!(exec.execute("Bash", &args), scripted_result(&rules, "Bash", &args));
        assert_eq!(exec.execute("Write", &args).content, "ok");
    }
}
