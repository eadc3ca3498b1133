//! `ApplyPatch` / `apply_patch`: the patch format of OpenAI's Codex
//! (`*** Begin Patch`, `*** Add File:`, `*** Update File:` with `@@` hunks,
//! `*** Delete File:`, `*** End Patch`), parsed, then applied to the tree
//! all or nothing. Hunks are found from the previous hunk on, exactly, then
//! ignoring trailing, then surrounding whitespace (as Codex does).

use std::collections::BTreeMap;

use serde_json::Value;

use super::ToolReply;
use crate::world::path::{resolve, PathError};
use crate::world::tree::{Workspace, WriteError};

/// Why a text is no patch.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchSyntaxError {
    #[error("invalid patch: the first line must be '{BEGIN}'")]
    NoBegin,
    #[error("invalid patch: the last line must be '{END}'")]
    NoEnd,
    /// A line at fault (1-based, counting the begin line).
    #[error("invalid patch: line {line}: {problem}")]
    Line { line: usize, problem: PatchLineProblem },
    #[error("invalid patch: it changes no file")]
    NoChanges,
}

/// What is wrong with a line of a patch.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchLineProblem {
    #[error("every line of an added file starts with '+', found {0:?}")]
    AddedLine(String),
    #[error("unexpected line in an update hunk: {0:?}; hunk lines start with ' ', '-', '+' or '@@'")]
    HunkLine(String),
    #[error("'*** Update File: {0}' has no hunks")]
    NoHunks(String),
    #[error("expected '*** Add File: ', '*** Update File: ' or '*** Delete File: ', found {0:?}")]
    Operation(String),
}

/// Why a patch was not applied; every case but the missing input leaves
/// the tree as it was, and says so.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("missing required argument `input` (the patch text, from '*** Begin Patch' to '*** End Patch')")]
    MissingInput,
    #[error("{0}")]
    Syntax(#[from] PatchSyntaxError),
    #[error("{path:?} is the workspace root, not a file; name a file. No file was changed.")]
    Root { path: String },
    #[error("{0}. No file was changed.")]
    Path(#[source] PathError),
    #[error("cannot add {path}: the file already exists; use '*** Update File: {path}' to change it. No file was changed.")]
    AddExisting { path: String },
    #[error("cannot delete {path}: no such file. No file was changed.")]
    DeleteMissing { path: String },
    #[error("cannot update {path}: no such file (use '*** Add File: {path}' to create it). No file was changed.")]
    UpdateMissing { path: String },
    #[error(
        "could not find the line {anchor:?} (after @@ in hunk {hunk}) in {path}. No file was changed; \
         read the file again and copy the line exactly."
    )]
    AnchorNotFound { anchor: String, hunk: usize, path: String },
    #[error(
        "could not find the lines of hunk {hunk} in {path}:\n{}\nNo file was changed; read the file again \
         and make the context and '-' lines match it exactly.",
        old.join("\n")
    )]
    HunkNotFound { hunk: usize, path: String, old: Vec<String> },
    #[error("{0}. No file was changed.")]
    Write(#[source] WriteError),
}

/// A parsed patch: its operations in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub ops: Vec<PatchOp>,
}

/// One file's part of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOp {
    /// A new file with this text.
    Add { path: String, content: String },
    /// A file removed.
    Delete { path: String },
    /// A file changed hunk by hunk, and perhaps moved.
    Update { path: String, move_to: Option<String>, hunks: Vec<Hunk> },
}

/// One `@@` hunk: its lines in order, and where it must be.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// The text after `@@`, a line to find before the hunk (e.g. `fn main() {`).
    pub anchor: Option<String>,
    pub lines: Vec<HunkLine>,
    /// Marked `*** End of File`: the hunk ends the file.
    pub end_of_file: bool,
}

/// A line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    /// ` `: kept (the file's own spelling is kept when matched loosely).
    Context(String),
    /// `-`: removed.
    Remove(String),
    /// `+`: added.
    Add(String),
}

impl Hunk {
    /// The lines the hunk expects in the file: context and removed.
    pub fn old(&self) -> Vec<String> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Remove(s) => Some(s.clone()),
                HunkLine::Add(_) => None,
            })
            .collect()
    }
}

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";

/// Parses a patch; the error names the line at fault (1-based) and what was expected.
pub fn parse_patch(text: &str) -> Result<Patch, PatchSyntaxError> {
    let lines: Vec<&str> = text.trim().lines().collect();
    if lines.first().map(|l| l.trim()) != Some(BEGIN) {
        return Err(PatchSyntaxError::NoBegin);
    }
    if lines.len() < 2 || lines.last().map(|l| l.trim()) != Some(END) {
        return Err(PatchSyntaxError::NoEnd);
    }
    let body = &lines[1..lines.len() - 1];
    let mut ops = Vec::new();
    let mut i = 0;
    let bad = |i: usize, problem: PatchLineProblem| PatchSyntaxError::Line { line: i + 2, problem };
    while i < body.len() {
        let line = body[i];
        if line.trim().is_empty() {
            i += 1;
        } else if let Some(path) = line.strip_prefix("*** Add File: ") {
            let mut content = String::new();
            i += 1;
            while i < body.len() && !body[i].starts_with("*** ") {
                match body[i].strip_prefix('+') {
                    Some(l) => {
                        content.push_str(l);
                        content.push('\n');
                    }
                    None => return Err(bad(i, PatchLineProblem::AddedLine(body[i].to_string()))),
                }
                i += 1;
            }
            ops.push(PatchOp::Add { path: path.trim().to_string(), content });
        } else if let Some(path) = line.strip_prefix("*** Delete File: ") {
            ops.push(PatchOp::Delete { path: path.trim().to_string() });
            i += 1;
        } else if let Some(path) = line.strip_prefix("*** Update File: ") {
            let start = i;
            i += 1;
            let mut move_to = None;
            if let Some(to) = body.get(i).and_then(|l| l.strip_prefix("*** Move to: ")) {
                move_to = Some(to.trim().to_string());
                i += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            let mut hunk = Hunk::default();
            while i < body.len() && (!body[i].starts_with("*** ") || body[i].trim() == "*** End of File") {
                let l = body[i];
                if l.trim() == "*** End of File" {
                    hunk.end_of_file = true;
                } else if let Some(anchor) = l.strip_prefix("@@") {
                    if !hunk.lines.is_empty() {
                        hunks.push(std::mem::take(&mut hunk));
                    }
                    let anchor = anchor.trim();
                    hunk.anchor = (!anchor.is_empty()).then(|| anchor.to_string());
                } else if let Some(c) = l.strip_prefix(' ') {
                    hunk.lines.push(HunkLine::Context(c.to_string()));
                } else if l.is_empty() {
                    // An empty context line whose leading space was trimmed away.
                    hunk.lines.push(HunkLine::Context(String::new()));
                } else if let Some(r) = l.strip_prefix('-') {
                    hunk.lines.push(HunkLine::Remove(r.to_string()));
                } else if let Some(a) = l.strip_prefix('+') {
                    hunk.lines.push(HunkLine::Add(a.to_string()));
                } else {
                    return Err(bad(i, PatchLineProblem::HunkLine(l.to_string())));
                }
                i += 1;
            }
            if !hunk.lines.is_empty() {
                hunks.push(hunk);
            }
            if hunks.is_empty() && move_to.is_none() {
                return Err(bad(start, PatchLineProblem::NoHunks(path.trim().to_string())));
            }
            ops.push(PatchOp::Update { path: path.trim().to_string(), move_to, hunks });
        } else {
            return Err(bad(i, PatchLineProblem::Operation(line.to_string())));
        }
    }
    if ops.is_empty() {
        return Err(PatchSyntaxError::NoChanges);
    }
    Ok(Patch { ops })
}

/// Where `want` occurs in `lines` at or after `from`: exactly, then ignoring
/// trailing whitespace, then ignoring surrounding whitespace.
fn seek(lines: &[String], want: &[String], from: usize, end_of_file: bool) -> Option<usize> {
    if want.len() > lines.len() {
        return None;
    }
    let norms: [fn(&str) -> &str; 3] = [|s| s, str::trim_end, str::trim];
    let last = lines.len() - want.len();
    for norm in norms {
        let at = |j: usize| lines[j..j + want.len()].iter().zip(want).all(|(a, b)| norm(a) == norm(b));
        if end_of_file && last >= from && at(last) {
            return Some(last);
        }
        if let Some(j) = (from..=last).find(|&j| at(j)) {
            return Some(j);
        }
    }
    None
}

/// An added line's text.
fn added(line: &HunkLine) -> Option<String> {
    match line {
        HunkLine::Add(a) => Some(a.clone()),
        _ => None,
    }
}

/// A file's text after its hunks.
fn apply_hunks(path: &str, text: &str, hunks: &[Hunk]) -> Result<String, PatchError> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cursor = 0;
    for (k, hunk) in hunks.iter().enumerate() {
        if let Some(anchor) = &hunk.anchor {
            let found = seek(&lines, std::slice::from_ref(anchor), cursor, false).ok_or_else(|| PatchError::AnchorNotFound {
                anchor: anchor.clone(),
                hunk: k + 1,
                path: path.to_string(),
            })?;
            cursor = found + 1;
        }
        let mut body: &[HunkLine] = &hunk.lines;
        let old = hunk.old();
        if old.is_empty() {
            // Only additions: after the anchor line, or at the end of the file.
            let at = if hunk.anchor.is_some() { cursor } else { lines.len() };
            let added: Vec<String> = body.iter().filter_map(added).collect();
            cursor = at + added.len();
            lines.splice(at..at, added);
            continue;
        }
        let mut want: &[String] = &old;
        let mut found = seek(&lines, want, cursor, hunk.end_of_file);
        // A trailing empty context line stands for the end of the file.
        if found.is_none() && matches!(body.last(), Some(HunkLine::Context(c)) if c.is_empty()) {
            (want, body) = (&want[..want.len() - 1], &body[..body.len() - 1]);
            found = seek(&lines, want, cursor, hunk.end_of_file);
        }
        let Some(at) = found else {
            return Err(PatchError::HunkNotFound { hunk: k + 1, path: path.to_string(), old });
        };
        // Context lines keep the file's own text; removed lines go; added lines come in.
        let mut matched = lines[at..at + want.len()].iter();
        let mut replaced = Vec::with_capacity(body.len());
        for line in body {
            match line {
                HunkLine::Context(_) => replaced.extend(matched.next().cloned()),
                HunkLine::Remove(_) => {
                    matched.next();
                }
                HunkLine::Add(a) => replaced.push(a.clone()),
            }
        }
        cursor = at + replaced.len();
        lines.splice(at..at + want.len(), replaced);
    }
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

/// `ApplyPatch`: the patch in `input` (Codex's name; `patch` is accepted too).
pub fn apply_patch(ws: &mut Workspace, args: &Value) -> ToolReply {
    Ok(patched(ws, args)?)
}

fn patched(ws: &mut Workspace, args: &Value) -> Result<String, PatchError> {
    let text = match args.get("input").or_else(|| args.get("patch")) {
        Some(Value::String(s)) => s,
        _ => return Err(PatchError::MissingInput),
    };
    let patch = parse_patch(text)?;
    let rel = |p: &str| match resolve(ws.mount(), p) {
        Ok(rel) if rel.is_empty() => Err(PatchError::Root { path: p.to_string() }),
        Ok(rel) => Ok(rel),
        Err(e) => Err(PatchError::Path(e)),
    };
    // The files as the patch has left them so far: later operations see earlier ones.
    let mut view: BTreeMap<String, Option<String>> = BTreeMap::new();
    let current = |view: &BTreeMap<String, Option<String>>, p: &str| match view.get(p) {
        Some(v) => v.clone(),
        None => ws.file(p).map(str::to_string),
    };
    let mut report = Vec::new();
    for op in &patch.ops {
        match op {
            PatchOp::Add { path, content } => {
                let p = rel(path)?;
                if current(&view, &p).is_some() {
                    return Err(PatchError::AddExisting { path: path.clone() });
                }
                view.insert(p, Some(content.clone()));
                report.push(format!("A {path}"));
            }
            PatchOp::Delete { path } => {
                let p = rel(path)?;
                if current(&view, &p).is_none() {
                    return Err(PatchError::DeleteMissing { path: path.clone() });
                }
                view.insert(p, None);
                report.push(format!("D {path}"));
            }
            PatchOp::Update { path, move_to, hunks } => {
                let p = rel(path)?;
                let Some(old) = current(&view, &p) else {
                    return Err(PatchError::UpdateMissing { path: path.clone() });
                };
                let new = apply_hunks(path, &old, hunks)?;
                match move_to {
                    Some(to) => {
                        let q = rel(to)?;
                        view.insert(p, None);
                        view.insert(q, Some(new));
                        report.push(format!("M {to}"));
                    }
                    None => {
                        view.insert(p, Some(new));
                        report.push(format!("M {path}"));
                    }
                }
            }
        }
    }
    let changes: Vec<(String, Option<String>)> = view.into_iter().collect();
    ws.apply(&changes).map_err(PatchError::Write)?;
    Ok(format!("Success. Updated the following files:\n{}", report.join("\n")))
}
