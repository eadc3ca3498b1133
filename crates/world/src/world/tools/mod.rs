//! The coding toolset acting on a [`Workspace`]: each tool takes the
//! argument names of the bundled toolsets (`scenarios/coding/toolsets/`,
//! Claude Code's and Codex's tools) and answers with the text a real agent
//! would get. Reading tools never change the tree; writing tools change it
//! all or nothing. Nothing here touches the host.

mod edit;
mod patch;
mod read;

use serde_json::Value;

use super::path::{resolve, shown, PathError};
use super::tree::{Workspace, WriteError};

pub use edit::EditError;
pub use patch::{parse_patch, Hunk, HunkLine, Patch, PatchError, PatchLineProblem, PatchOp, PatchSyntaxError};
pub(crate) use read::path_glob;
pub use read::ReadError;

/// A tool's answer: `Ok` is the result text, `Err` the error whose text
/// (its `Display`) the model reads.
pub type ToolReply = Result<String, WorkspaceToolError>;

/// Why a workspace tool failed, in the words the model reads: its arguments,
/// a path, a file that is not there, or what the tool itself refused.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceToolError {
    #[error("argument `{name}` must be a string, got {got}")]
    NotAString { name: String, got: Value },
    #[error("missing required argument `{0}` (a string)")]
    MissingString(String),
    #[error("argument `{name}` must be true or false, got {got}")]
    NotABool { name: String, got: Value },
    #[error("argument `{name}` must be a whole number of at least 1, got {got}")]
    NotALineNumber { name: String, got: Value },
    #[error("{0}")]
    Path(#[from] PathError),
    #[error("{0}")]
    Write(#[from] WriteError),
    #[error("{shown} is a directory, not a file; list it to see the files it holds.")]
    IsADirectory { shown: String },
    #[error("File does not exist: {shown}. Check the path (list the directory or search for the file).")]
    NoSuchFile { shown: String },
    #[error("{0}")]
    Read(#[from] ReadError),
    #[error("{0}")]
    Edit(#[from] EditError),
    #[error("{0}")]
    Patch(#[from] PatchError),
}

/// The tools this module answers, by the names the toolsets give them.
pub const WORKSPACE_TOOLS: [&str; 10] =
    ["read_file", "Read", "list_dir", "grep_search", "Write", "Edit", "MultiEdit", "search_replace", "ApplyPatch", "apply_patch"];

/// Runs `tool` on the workspace; `None` if it is not a workspace tool.
pub fn call(ws: &mut Workspace, tool: &str, args: &Value) -> Option<ToolReply> {
    Some(match tool {
        "read_file" => read::read_file(ws, args),
        "Read" => read::read_numbered(ws, args),
        "list_dir" => read::list_dir(ws, args),
        "grep_search" => read::grep_search(ws, args),
        "Write" => edit::write(ws, args),
        "Edit" => edit::edit(ws, args),
        "MultiEdit" => edit::multi_edit(ws, args),
        "search_replace" => edit::search_replace(ws, args),
        "ApplyPatch" | "apply_patch" => patch::apply_patch(ws, args),
        _ => return None,
    })
}

/// A required string argument.
fn str_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, WorkspaceToolError> {
    match args.get(name) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(WorkspaceToolError::NotAString { name: name.to_string(), got: other.clone() }),
        None => Err(WorkspaceToolError::MissingString(name.to_string())),
    }
}

/// An optional boolean argument (default false).
fn bool_arg(args: &Value, name: &str) -> Result<bool, WorkspaceToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(WorkspaceToolError::NotABool { name: name.to_string(), got: other.clone() }),
    }
}

/// An optional positive integer argument.
fn line_arg(args: &Value, name: &str) -> Result<Option<usize>, WorkspaceToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
            _ => Err(WorkspaceToolError::NotALineNumber { name: name.to_string(), got: v.clone() }),
        },
    }
}

/// A tool's path argument as a normalized relative path, and how to show it.
fn path_arg(ws: &Workspace, args: &Value, name: &str) -> Result<(String, String), WorkspaceToolError> {
    let raw = str_arg(args, name)?;
    let rel = resolve(ws.mount(), raw)?;
    Ok((shown(ws.mount(), &rel), rel))
}

/// The error for a file that is not there: a folder, or nothing.
fn missing_file(ws: &Workspace, rel: &str, shown: &str) -> WorkspaceToolError {
    let shown = shown.to_string();
    if ws.is_dir(rel) {
        WorkspaceToolError::IsADirectory { shown }
    } else {
        WorkspaceToolError::NoSuchFile { shown }
    }
}

#[cfg(test)]
mod tests;
