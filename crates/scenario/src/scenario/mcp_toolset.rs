//! A toolset that names an MCP server (`toolsets/<name>.json` holding
//! `{"mcp": {...}}`): its tools are read from the lock beside it,
//! `toolsets/<name>.tools.lock`, which a run that reaches the server writes
//! (see `crate::mcp::lock`), so loading and replaying need no server.

use std::path::Path;
use std::sync::Arc;

use super::source::{LoadError, SourceText};
use crate::core::glob::glob_matches;
use crate::core::mcp::{fingerprint, lock_file_name, McpServerSpec, McpToolsetFile, ToolLock};
use crate::pipeline::tool::{compile_tool, Tool};

/// An MCP toolset of a suite: the server and the tools its lock lists.
#[derive(Debug, Clone)]
pub struct McpToolset {
    /// The toolset's name (the file stem in `toolsets/`).
    pub name: String,
    pub server: McpServerSpec,
    /// Shared with the scenarios that offer them (the same `Arc`s).
    pub tools: Vec<Arc<Tool>>,
}

impl McpToolset {
    /// Whether `tool` is one of this server's (the very tool, not a namesake defined inline).
    pub fn serves(&self, tool: &Arc<Tool>) -> bool {
        self.tools.iter().any(|t| Arc::ptr_eq(t, tool))
    }
}

/// Loads the MCP toolset in `path` (its text `text`, parsed as `parsed`);
/// problems are pushed to `errors`, placed in the file at fault.
pub(super) fn load(
    path: &Path,
    name: &str,
    text: &str,
    parsed: Result<McpToolsetFile, serde_json::Error>,
    errors: &mut Vec<LoadError>,
) -> Option<McpToolset> {
    let src = SourceText { path, text, first_line: 1 };
    let file = match parsed {
        Ok(f) => f,
        Err(e) => {
            errors.push(LoadError::from_json(path, text, 1, &e));
            return None;
        }
    };
    if let Err(message) = file.mcp.validate() {
        errors.push(src.error_at("/mcp", message.to_string()));
        return None;
    }
    let lock_path = path.with_file_name(lock_file_name(name));
    let suite = path.parent().and_then(Path::parent).map(|p| p.display().to_string()).unwrap_or_default();
    let lock_text = match std::fs::read_to_string(&lock_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            errors.push(src.error_at(
                "/mcp",
                format!(
                    "the tools of this MCP server have not been listed: {} is missing. `calltape run --mode record --suite {}` \
                     (or --mode live) lists them from the server and writes it",
                    lock_path.display(),
                    crate::quote::shell_word(&suite)
                ),
            ));
            return None;
        }
        Err(e) => {
            errors.push(LoadError::new(&lock_path, 0, 0, format!("cannot read the tool lock: {e}")));
            return None;
        }
    };
    let lock: ToolLock = match serde_json::from_str(&lock_text) {
        Ok(l) => l,
        Err(e) => {
            errors.push(LoadError::from_json(&lock_path, &lock_text, 1, &e));
            return None;
        }
    };
    if lock.fingerprint != fingerprint(&lock.tools) {
        let lock_src = SourceText { path: &lock_path, text: &lock_text, first_line: 1 };
        errors.push(lock_src.error_at(
            "/fingerprint",
            format!(
                "the fingerprint does not match the tools listed (now {}): the file was edited by hand. Delete it and run \
                 `calltape run --mode record --suite {}` to list the server's tools again",
                fingerprint(&lock.tools),
                crate::quote::shell_word(&suite)
            ),
        ));
        return None;
    }
    for (i, pattern) in file.sensitive.iter().enumerate() {
        if !lock.tools.iter().any(|t| glob_matches(pattern, &t.name)) {
            let names: Vec<&str> = lock.tools.iter().map(|t| t.name.as_str()).collect();
            errors.push(src.error_at(&format!("/sensitive/{i}"), format!("{pattern:?} names none of the server's tools ({names:?})")));
        }
    }
    let lock_src = SourceText { path: &lock_path, text: &lock_text, first_line: 1 };
    let mut tools = Vec::new();
    for (i, mut spec) in lock.tools.into_iter().enumerate() {
        spec.sensitive = file.sensitive.iter().any(|p| glob_matches(p, &spec.name));
        match compile_tool(spec) {
            Ok(t) => tools.push(Arc::new(t)),
            Err(e) => errors.push(lock_src.error_at(&format!("/tools/{i}/parameters"), e.to_string())),
        }
    }
    Some(McpToolset { name: name.to_string(), server: file.mcp, tools })
}
