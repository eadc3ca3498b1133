//! The workspace as an [`Executor`]: the coding tools act on the tree, shell
//! tools (`Bash`, `run_terminal_cmd`) are answered from it where
//! [`shell`](crate::world::shell) can, and everything else falls back to the
//! scenario's scripted results.

use serde_json::Value;

use crate::core::scripted::ToolResultRule;
use crate::pipeline::execute::{scripted_result, Executor, ToolOutput};
use crate::world::tree::Workspace;
use crate::world::{shell, tools};

/// Tools that run a shell command given in their `command` argument.
pub const SHELL_TOOLS: [&str; 2] = ["Bash", "run_terminal_cmd"];

/// A tool's error result is wrapped in these, as Claude Code wraps it.
pub const TOOL_ERROR_OPEN: &str = "<tool_use_error>";
pub const TOOL_ERROR_CLOSE: &str = "</tool_use_error>";

/// Most characters of shell output returned, as Claude Code's Bash tool truncates.
pub const SHELL_MAX_OUTPUT: usize = 30_000;

/// Executes calls on a [`Workspace`]; see the module documentation.
#[derive(Debug, Clone)]
pub struct WorkspaceExecutor {
    workspace: Workspace,
    fallback: Vec<ToolResultRule>,
}

impl WorkspaceExecutor {
    /// An executor on `workspace`, answering what it cannot from `fallback`.
    pub fn new(workspace: Workspace, fallback: Vec<ToolResultRule>) -> WorkspaceExecutor {
        WorkspaceExecutor { workspace, fallback }
    }

    /// The tree as the calls so far have left it.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The final tree, for outcome checks.
    pub fn into_workspace(self) -> Workspace {
        self.workspace
    }
}

impl Executor for WorkspaceExecutor {
    fn execute(&mut self, tool: &str, args: &Value) -> ToolOutput {
        if let Some(reply) = tools::call(&mut self.workspace, tool, args) {
            return match reply {
                Ok(content) => ToolOutput { content, is_error: false, rule: None },
                // As Claude Code sends a tool's error to the model: the error's text, wrapped.
                Err(error) => ToolOutput { content: format!("{TOOL_ERROR_OPEN}{error}{TOOL_ERROR_CLOSE}"), is_error: true, rule: None },
            };
        }
        if SHELL_TOOLS.contains(&tool) {
            if let Some(reply) = args.get("command").and_then(Value::as_str).and_then(|c| shell::run(&self.workspace, c)) {
                return shell_output(reply);
            }
        }
        scripted_result(&self.fallback, tool, args)
    }

    fn workspace(&self) -> Option<&Workspace> {
        Some(&self.workspace)
    }
}

/// A shell reply as a tool result: the output (bounded), and a failing exit
/// code both marked as an error and said in the text.
fn shell_output(reply: shell::ShellReply) -> ToolOutput {
    let mut content = reply.output;
    if content.chars().count() > SHELL_MAX_OUTPUT {
        content = content.chars().take(SHELL_MAX_OUTPUT).collect();
        content.push_str(&format!("\n... [output truncated to {SHELL_MAX_OUTPUT} characters]"));
    }
    let content = content.trim_end_matches('\n').to_string();
    match (reply.exit_code, content.is_empty()) {
        (0, true) => ToolOutput { content: "(no output)".into(), is_error: false, rule: None },
        (0, false) => ToolOutput { content, is_error: false, rule: None },
        (code, true) => ToolOutput { content: format!("Exit code {code}"), is_error: true, rule: None },
        (code, false) => ToolOutput { content: format!("{content}\nExit code {code}"), is_error: true, rule: None },
    }
}

#[cfg(test)]
mod tests;
