//! The writing tools: `Write`, `Edit`, `MultiEdit` (Claude Code's, with its
//! error texts) and `search_replace` (Cursor's). Each changes one file or
//! nothing.

use serde_json::Value;

use super::{bool_arg, missing_file, path_arg, str_arg, ToolReply, WorkspaceToolError};
use crate::world::tree::Workspace;

/// What a writing tool refuses, in the words the model reads (Claude Code's
/// where it has them).
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("{shown} is the workspace root, a directory; give a file path inside it.")]
    WorkspaceRoot { shown: String },
    #[error("No changes to make: old_string and new_string are exactly the same.")]
    NoChange,
    #[error("String to replace not found in file.\nString: {old}")]
    NotFound { old: String },
    #[error(
        "Found {count} matches of the string to replace, but replace_all is false. To replace all occurrences, \
         set replace_all to true. To replace only one occurrence, please provide more context to uniquely \
         identify the instance.\nString: {old}"
    )]
    Ambiguous { count: usize, old: String },
    #[error("Cannot create new file - file already exists: {shown}. Give the text to change in old_string.")]
    FileExists { shown: String },
    #[error("`edits` is empty; give at least one {{old_string, new_string}} edit.")]
    NoEdits,
    #[error("missing required argument `edits` (an array of {{old_string, new_string, replace_all}})")]
    MissingEdits,
    /// One edit of a `MultiEdit` failed, so none was applied.
    #[error("Edit {number} of {of} failed, so no edits were applied to {shown}: {source}")]
    InMultiEdit { number: usize, of: usize, shown: String, source: Box<WorkspaceToolError> },
    #[error("old_string is empty; give the exact text to replace, with enough context to be unique.")]
    EmptyOld,
}

/// `Write`: creates or overwrites a file.
pub fn write(ws: &mut Workspace, args: &Value) -> ToolReply {
    let (shown, rel) = path_arg(ws, args, "file_path")?;
    let content = str_arg(args, "content")?;
    if rel.is_empty() {
        return Err(EditError::WorkspaceRoot { shown }.into());
    }
    match ws.write(&rel, content)? {
        true => Ok(format!("File created successfully at: {shown}")),
        false => Ok(format!("The file {shown} has been updated.")),
    }
}

/// Replaces `old` by `new` in `text`: exactly one occurrence unless `all`.
/// The errors are Claude Code's.
fn replace(text: &str, old: &str, new: &str, all: bool) -> Result<String, EditError> {
    if old == new {
        return Err(EditError::NoChange);
    }
    let count = text.matches(old).count();
    if count == 0 {
        return Err(EditError::NotFound { old: old.to_string() });
    }
    if count > 1 && !all {
        return Err(EditError::Ambiguous { count, old: old.to_string() });
    }
    Ok(if all { text.replace(old, new) } else { text.replacen(old, new, 1) })
}

/// The new text of a file after one edit; `current` is `None` for a file that
/// does not exist, which only an empty `old_string` may create.
fn edited(
    ws: &Workspace,
    rel: &str,
    shown: &str,
    current: Option<&str>,
    old: &str,
    new: &str,
    all: bool,
) -> Result<String, WorkspaceToolError> {
    match current {
        None if old.is_empty() && !ws.is_dir(rel) => Ok(new.to_string()),
        None => Err(missing_file(ws, rel, shown)),
        Some(_) if old.is_empty() => Err(EditError::FileExists { shown: shown.to_string() }.into()),
        Some(text) => Ok(replace(text, old, new, all)?),
    }
}

/// `Edit`: one exact replacement (or all, with `replace_all`); an empty
/// `old_string` creates a file that does not exist yet.
pub fn edit(ws: &mut Workspace, args: &Value) -> ToolReply {
    let (shown, rel) = path_arg(ws, args, "file_path")?;
    let (old, new) = (str_arg(args, "old_string")?, str_arg(args, "new_string")?);
    let all = bool_arg(args, "replace_all")?;
    let current = ws.file(&rel);
    let created = current.is_none();
    let text = edited(ws, &rel, &shown, current, old, new, all)?;
    ws.write(&rel, &text)?;
    Ok(match (created, all) {
        (true, _) => format!("File created successfully at: {shown}"),
        (false, true) => {
            format!("The file {shown} has been updated. All occurrences of '{old}' were successfully replaced with '{new}'.")
        }
        (false, false) => format!("The file {shown} has been updated."),
    })
}

/// `MultiEdit`: edits applied in order to one file, all or none.
pub fn multi_edit(ws: &mut Workspace, args: &Value) -> ToolReply {
    let (shown, rel) = path_arg(ws, args, "file_path")?;
    let edits = match args.get("edits") {
        Some(Value::Array(e)) if !e.is_empty() => e,
        Some(Value::Array(_)) => return Err(EditError::NoEdits.into()),
        _ => return Err(EditError::MissingEdits.into()),
    };
    let n = edits.len();
    let mut text: Option<String> = ws.file(&rel).map(str::to_string);
    let created = text.is_none();
    let mut summary = Vec::with_capacity(n);
    for (i, e) in edits.iter().enumerate() {
        let failed = |err: WorkspaceToolError| EditError::InMultiEdit { number: i + 1, of: n, shown: shown.clone(), source: Box::new(err) };
        let (old, new) = (str_arg(e, "old_string").map_err(failed)?, str_arg(e, "new_string").map_err(failed)?);
        let all = bool_arg(e, "replace_all").map_err(failed)?;
        text = Some(edited(ws, &rel, &shown, text.as_deref(), old, new, all).map_err(failed)?);
        summary.push(format!("{}. Replaced \"{}\" with \"{}\"", i + 1, brief(old), brief(new)));
    }
    ws.write(&rel, text.as_deref().unwrap_or_default())?;
    let created = if created { " (a new file)" } else { "" };
    Ok(format!("Applied {n} edit{} to {shown}{created}:\n{}", if n == 1 { "" } else { "s" }, summary.join("\n")))
}

/// The start of an edit's text for a summary line.
fn brief(s: &str) -> String {
    let first = s.lines().next().unwrap_or("");
    let cut: String = first.chars().take(60).collect();
    if cut.len() < s.len() {
        format!("{cut}...")
    } else {
        cut
    }
}

/// `search_replace`: one unique occurrence of `old_string` replaced.
pub fn search_replace(ws: &mut Workspace, args: &Value) -> ToolReply {
    let (shown, rel) = path_arg(ws, args, "file_path")?;
    let (old, new) = (str_arg(args, "old_string")?, str_arg(args, "new_string")?);
    if old.is_empty() {
        return Err(EditError::EmptyOld.into());
    }
    let Some(current) = ws.file(&rel) else {
        return Err(missing_file(ws, &rel, &shown));
    };
    let text = replace(current, old, new, false)?;
    ws.write(&rel, &text)?;
    Ok(format!("The file {shown} has been updated."))
}
