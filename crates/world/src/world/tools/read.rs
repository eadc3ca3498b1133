//! The reading tools: `read_file` (line ranges), Claude Code's `Read`
//! (numbered lines), `list_dir`, `grep_search`. They never change the tree.

use serde_json::Value;

use super::{bool_arg, line_arg, missing_file, path_arg, str_arg, ToolReply};
use crate::core::glob::glob_matches;
use crate::world::path::resolve;
use crate::world::tree::Workspace;

/// What a reading tool refuses, in the words the model reads.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{rel} is a directory, not a file; use list_dir to see what it holds.")]
    NotAFile { rel: String },
    #[error("File not found: {raw}. Use list_dir or grep_search to find the right path.")]
    FileNotFound { raw: String },
    #[error("start_line_one_indexed is {from}, but {rel} has only {total} lines.")]
    StartPastEnd { from: usize, rel: String, total: usize },
    #[error("end_line_one_indexed_inclusive ({to}) is before start_line_one_indexed ({from}).")]
    EndBeforeStart { from: usize, to: usize },
    #[error("offset is {offset}, but {shown} has only {lines} lines.")]
    OffsetPastEnd { offset: usize, shown: String, lines: usize },
    #[error("{name} is a file, not a directory; use read_file to read it.")]
    NotADirectory { name: String },
    #[error("Directory not found: {raw}. List the parent directory to see what exists.")]
    DirectoryNotFound { raw: String },
    #[error("invalid regex {query:?}: {source}\nEscape special characters (( ) [ ] {{ }} + * ? ^ $ | . \\) with \\ to search for them literally.")]
    BadRegex { query: String, source: regex::Error },
}

/// Most lines `read_file` shows at once unless the whole file is asked for.
pub const READ_FILE_MAX_LINES: usize = 250;
/// Most lines `Read` shows unless given a limit.
pub const READ_DEFAULT_LIMIT: usize = 2000;
/// Most matches `grep_search` reports.
pub const GREP_MAX_MATCHES: usize = 50;
/// Longest matched line `grep_search` shows, in characters.
const GREP_MAX_LINE: usize = 250;

/// `read_file`: the file's lines `start..=end` (1-indexed), at most 250 at
/// a time unless `should_read_entire_file`, with what was left out.
pub fn read_file(ws: &mut Workspace, args: &Value) -> ToolReply {
    let raw = str_arg(args, "target_file")?;
    let rel = resolve(ws.mount(), raw)?;
    let entire = bool_arg(args, "should_read_entire_file")?;
    let start = line_arg(args, "start_line_one_indexed")?;
    let end = line_arg(args, "end_line_one_indexed_inclusive")?;
    let Some(text) = ws.file(&rel) else {
        return Err(if ws.is_dir(&rel) { ReadError::NotAFile { rel } } else { ReadError::FileNotFound { raw: raw.to_string() } }.into());
    };
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    if total == 0 {
        return Ok(format!("File {rel} is empty."));
    }
    let (from, to) = if entire {
        (1, total)
    } else {
        let from = start.unwrap_or(1);
        if from > total {
            return Err(ReadError::StartPastEnd { from, rel, total }.into());
        }
        let to = end.unwrap_or(from + READ_FILE_MAX_LINES - 1);
        if to < from {
            return Err(ReadError::EndBeforeStart { from, to }.into());
        }
        (from, to.min(total).min(from + READ_FILE_MAX_LINES - 1))
    };
    let mut out = format!("Contents of {rel}, lines {from}-{to} (of {total}):\n");
    if from > 1 {
        out.push_str(&format!("[lines 1-{} not shown]\n", from - 1));
    }
    out.push_str(&lines[from - 1..to].join("\n"));
    if to < total {
        out.push_str(&format!("\n[lines {}-{total} not shown]", to + 1));
    }
    Ok(out)
}

/// Claude Code's `Read`: `limit` lines from line `offset` (1-indexed), each
/// numbered as `cat -n` does.
pub fn read_numbered(ws: &mut Workspace, args: &Value) -> ToolReply {
    let (shown, rel) = path_arg(ws, args, "file_path")?;
    let offset = line_arg(args, "offset")?.unwrap_or(1);
    let limit = line_arg(args, "limit")?.unwrap_or(READ_DEFAULT_LIMIT);
    let Some(text) = ws.file(&rel) else {
        return Err(missing_file(ws, &rel, &shown));
    };
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Ok(format!("The file {shown} exists but is empty."));
    }
    if offset > lines.len() {
        return Err(ReadError::OffsetPastEnd { offset, shown, lines: lines.len() }.into());
    }
    let numbered: Vec<String> = lines.iter().enumerate().skip(offset - 1).take(limit).map(|(i, l)| format!("{:>6}\t{l}", i + 1)).collect();
    Ok(numbered.join("\n"))
}

/// `list_dir`: a folder's children, folders first, with sizes and counts.
pub fn list_dir(ws: &mut Workspace, args: &Value) -> ToolReply {
    let raw = str_arg(args, "relative_workspace_path")?;
    let rel = resolve(ws.mount(), raw)?;
    let name = if rel.is_empty() { ".".to_string() } else { rel.clone() };
    let Some(entries) = ws.entries(&rel) else {
        return Err(if ws.file(&rel).is_some() {
            ReadError::NotADirectory { name }
        } else {
            ReadError::DirectoryNotFound { raw: raw.to_string() }
        }
        .into());
    };
    if entries.is_empty() {
        return Ok(format!("Directory {name} is empty."));
    }
    let child = |n: &str| if rel.is_empty() { n.to_string() } else { format!("{rel}/{n}") };
    let mut out = format!("Contents of directory {name}:\n");
    for e in entries.iter().filter(|e| e.is_dir) {
        let items = ws.entries(&child(&e.name)).map_or(0, |c| c.len());
        out.push_str(&format!("\n[dir]  {}/ ({items} item{})", e.name, if items == 1 { "" } else { "s" }));
    }
    for e in entries.iter().filter(|e| !e.is_dir) {
        let text = ws.file(&child(&e.name)).unwrap_or_default();
        let lines = text.lines().count();
        out.push_str(&format!("\n[file] {} ({}, {lines} line{})", e.name, size(text.len()), if lines == 1 { "" } else { "s" }));
    }
    Ok(out)
}

/// A size as a listing shows it.
fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

/// Whether a glob from `include_pattern`/`exclude_pattern` matches a file:
/// against its name when the glob has no `/` (as ripgrep's `-g` does),
/// else against its whole relative path.
pub(crate) fn path_glob(glob: &str, path: &str) -> bool {
    let glob = glob.trim_start_matches("./");
    if glob.contains('/') {
        glob_matches(glob, path) || glob_matches(&glob.replace("**/", ""), path)
    } else {
        glob_matches(glob, path.rsplit('/').next().unwrap_or(path))
    }
}

/// `grep_search`: lines matching the regex `query` as `path:line:text`,
/// case-sensitive unless `case_sensitive` is false, at most 50.
pub fn grep_search(ws: &mut Workspace, args: &Value) -> ToolReply {
    let query = str_arg(args, "query")?;
    let case_sensitive = match args.get("case_sensitive") {
        None | Some(Value::Null) => true,
        _ => bool_arg(args, "case_sensitive")?,
    };
    let include = args.get("include_pattern").and_then(Value::as_str).filter(|s| !s.is_empty());
    let exclude = args.get("exclude_pattern").and_then(Value::as_str).filter(|s| !s.is_empty());
    let re = regex::RegexBuilder::new(query)
        .case_insensitive(!case_sensitive)
        .size_limit(1 << 20)
        .build()
        .map_err(|source| ReadError::BadRegex { query: query.to_string(), source })?;
    let mut out = Vec::new();
    let mut capped = false;
    'files: for (path, text) in ws.files_under("") {
        if include.is_some_and(|g| !path_glob(g, path)) || exclude.is_some_and(|g| path_glob(g, path)) {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            if re.is_match(line) {
                if out.len() == GREP_MAX_MATCHES {
                    capped = true;
                    break 'files;
                }
                let line: String = line.chars().take(GREP_MAX_LINE).collect();
                out.push(format!("{path}:{}:{line}", i + 1));
            }
        }
    }
    if out.is_empty() {
        return Ok("No matches found.".to_string());
    }
    let mut text = out.join("\n");
    if capped {
        text.push_str(&format!(
            "\n[results capped at {GREP_MAX_MATCHES} matches; narrow the query or use include_pattern to see the rest]"
        ));
    }
    Ok(text)
}
