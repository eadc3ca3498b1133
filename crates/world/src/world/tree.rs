//! The workspace: an in-memory tree of UTF-8 text files keyed by normalized
//! relative path, built from a scenario's inline JSON or by reading a folder
//! (bounded, symlinks never followed, the host only ever read). It keeps the
//! tree it started from, so the final state can be compared with it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;
use thiserror::Error;

use super::diff;
use super::path::{normalize, PathError, DEFAULT_MOUNT};

/// How large a workspace may grow, whether loaded or written by tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most files the tree may hold (a loaded folder's skipped entries count too).
    pub max_files: usize,
    /// Largest file, in bytes.
    pub max_file_bytes: usize,
    /// Largest total of all files, in bytes.
    pub max_total_bytes: usize,
}

impl Default for Limits {
    /// Room for a real project's sources, not for its build output.
    fn default() -> Self {
        Limits { max_files: 5_000, max_file_bytes: 1 << 20, max_total_bytes: 32 << 20 }
    }
}

/// Why a workspace could not be built.
#[derive(Debug, Error)]
pub enum TreeError {
    /// A file's path is not a workspace path.
    #[error("workspace file {path:?}: {source}")]
    BadPath {
        path: String,
        #[source]
        source: PathError,
    },
    /// The inline tree is not a JSON object.
    #[error("the inline workspace must be a JSON object of \"path\": \"content\" pairs, found {found}")]
    NotAnObject { found: &'static str },
    /// An inline file's content is not a string.
    #[error("workspace file {path:?}: the content must be a string (the file's UTF-8 text), found {found}")]
    NotText { path: String, found: &'static str },
    /// Two spellings of one path.
    #[error("workspace file {path:?} is given twice (as {first:?} and {second:?}); keep one of them")]
    Duplicate { path: String, first: String, second: String },
    /// A path is used both as a file and as a folder.
    #[error("workspace file {file:?} is also the folder of {under:?}; a path is either a file or a folder")]
    FileIsFolder { file: String, under: String },
    /// Outside the limits.
    #[error("the workspace is too large: {what}; trim the starting tree (or raise the limit where the scenario is loaded)")]
    TooLarge { what: String },
    /// The folder (or a file in it) could not be read.
    #[error("cannot read workspace folder {}: {source}; check that it exists and is readable", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The folder itself is a symlink or not a folder.
    #[error("workspace folder {}: {why}; give the path of a real folder", path.display())]
    NotAFolder { path: PathBuf, why: &'static str },
}

/// An entry of a loaded folder that was left out, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Its path relative to the folder (lossy if not UTF-8).
    pub path: String,
    /// Why: a symlink, not UTF-8 text, not a regular file, a `.git` folder.
    pub why: &'static str,
}

/// How a path differs between the starting tree and now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChangeKind {
    /// Not in the starting tree.
    Added,
    /// In both, with other content.
    Modified,
    /// In the starting tree only.
    Deleted,
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub kind: ChangeKind,
}

/// A child of a folder in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The child's own name (one path segment).
    pub name: String,
    /// Whether it is a folder (folders exist only as the parents of files).
    pub is_dir: bool,
}

/// Why a tool's write was refused; the text is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WriteError {
    #[error("{0} is a directory, not a file; choose a file path inside it")]
    IsFolder(String),
    #[error("cannot create {path}: {file} is a file, not a directory")]
    ParentIsFile { path: String, file: String },
    #[error("{path} would be {size} bytes, more than the workspace's limit of {limit} bytes per file; write less")]
    FileTooLarge { path: String, size: usize, limit: usize },
    #[error("the workspace would hold more than {limit} files; nothing was written")]
    TooManyFiles { limit: usize },
    #[error("the workspace would hold more than {limit} bytes in all; nothing was written")]
    TooManyBytes { limit: usize },
}

/// An in-memory file tree that tools read and change; the host is never written.
#[derive(Debug, Clone, PartialEq)]
pub struct Workspace {
    mount: String,
    files: BTreeMap<String, String>,
    start: BTreeMap<String, String>,
    limits: Limits,
    skipped: Vec<Skipped>,
}

impl Workspace {
    /// A workspace holding `files` (relative path → text), checked like an inline tree.
    pub fn from_files<I, K, V>(files: I, limits: Limits) -> Result<Workspace, TreeError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let mut tree: BTreeMap<String, String> = BTreeMap::new();
        let mut spelled: BTreeMap<String, String> = BTreeMap::new();
        for (raw, content) in files {
            let raw = raw.into();
            let path = normalize(&raw).map_err(|source| TreeError::BadPath { path: raw.clone(), source })?;
            if path.is_empty() {
                return Err(TreeError::BadPath { path: raw, source: PathError::Empty });
            }
            if let Some(first) = spelled.insert(path.clone(), raw.clone()) {
                return Err(TreeError::Duplicate { path, first, second: raw });
            }
            tree.insert(path, content.into());
        }
        check_shape(&tree)?;
        let total: usize = tree.values().map(String::len).sum();
        if tree.len() > limits.max_files {
            return Err(TreeError::TooLarge { what: format!("{} files, more than {}", tree.len(), limits.max_files) });
        }
        if let Some((p, c)) = tree.iter().find(|(_, c)| c.len() > limits.max_file_bytes) {
            return Err(TreeError::TooLarge { what: format!("{p} is {} bytes, more than {}", c.len(), limits.max_file_bytes) });
        }
        if total > limits.max_total_bytes {
            return Err(TreeError::TooLarge { what: format!("{total} bytes in all, more than {}", limits.max_total_bytes) });
        }
        Ok(Workspace { mount: DEFAULT_MOUNT.to_string(), start: tree.clone(), files: tree, limits, skipped: Vec::new() })
    }

    /// A workspace from a scenario's inline tree: `{"path": "content", ...}`.
    pub fn from_json(value: &Value) -> Result<Workspace, TreeError> {
        let Value::Object(map) = value else {
            return Err(TreeError::NotAnObject { found: json_kind(value) });
        };
        let mut files = Vec::with_capacity(map.len());
        for (path, content) in map {
            match content {
                Value::String(s) => files.push((path.clone(), s.clone())),
                other => return Err(TreeError::NotText { path: path.clone(), found: json_kind(other) }),
            }
        }
        Workspace::from_files(files, Limits::default())
    }

    /// A workspace read from a folder on the host, which is only read.
    /// Symlinks are never followed (they are skipped, as are `.git` folders,
    /// files that are not UTF-8 text and anything not a regular file; see
    /// [`Workspace::skipped`]); the folder itself must not be a symlink.
    pub fn from_folder(dir: &Path, limits: Limits) -> Result<Workspace, TreeError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| TreeError::Io { path, source }
        };
        let meta = std::fs::symlink_metadata(dir).map_err(io(dir))?;
        if meta.file_type().is_symlink() {
            return Err(TreeError::NotAFolder { path: dir.into(), why: "it is a symlink, and calltape never follows symlinks" });
        }
        if !meta.is_dir() {
            return Err(TreeError::NotAFolder { path: dir.into(), why: "it is not a folder" });
        }
        let (mut files, mut skipped, mut total) = (Vec::new(), Vec::new(), 0usize);
        // Folders count too, against a looser bound: a tree of empty folders is still work.
        let mut visited = 0usize;
        let mut stack = vec![(dir.to_path_buf(), String::new())];
        while let Some((folder, rel)) = stack.pop() {
            let mut entries: Vec<_> =
                std::fs::read_dir(&folder).map_err(io(&folder))?.collect::<Result<Vec<_>, _>>().map_err(io(&folder))?;
            entries.sort_by_key(|e| e.file_name());
            for entry in entries.into_iter().rev() {
                visited += 1;
                if files.len() + skipped.len() >= limits.max_files || visited > limits.max_files.saturating_mul(4) {
                    return Err(TreeError::TooLarge { what: format!("{} has more than {} entries", dir.display(), limits.max_files) });
                }
                let name = entry.file_name();
                let shown = |name: &str| if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
                let Some(name) = name.to_str() else {
                    skipped.push(Skipped { path: shown(&name.to_string_lossy()), why: "its name is not UTF-8" });
                    continue;
                };
                let path = shown(name);
                // `symlink_metadata`: the entry itself, never what a link points to.
                let kind = std::fs::symlink_metadata(entry.path()).map_err(io(&entry.path()))?;
                let ft = kind.file_type();
                if ft.is_symlink() {
                    skipped.push(Skipped { path, why: "a symlink (never followed)" });
                } else if ft.is_dir() {
                    if name == ".git" {
                        skipped.push(Skipped { path, why: "a .git folder (the starting tree is the history)" });
                    } else {
                        stack.push((entry.path(), path));
                    }
                } else if !ft.is_file() {
                    skipped.push(Skipped { path, why: "not a regular file" });
                } else if normalize(&path).is_err() {
                    skipped.push(Skipped { path, why: "its name is not a plain file name" });
                } else {
                    let text = read_bounded(&entry.path(), &kind, limits.max_file_bytes)?;
                    match text {
                        Loaded::Text(text) => {
                            total += text.len();
                            if total > limits.max_total_bytes {
                                return Err(TreeError::TooLarge {
                                    what: format!("{} holds more than {} bytes", dir.display(), limits.max_total_bytes),
                                });
                            }
                            files.push((path, text));
                        }
                        Loaded::NotText => skipped.push(Skipped { path, why: "not UTF-8 text" }),
                        Loaded::Swapped => skipped.push(Skipped { path, why: "replaced while being read (never followed)" }),
                    }
                }
            }
        }
        let mut ws = Workspace::from_files(files, limits)?;
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        ws.skipped = skipped;
        Ok(ws)
    }

    /// The same workspace shown to the model under another mount point.
    pub fn with_mount(mut self, mount: &str) -> Workspace {
        self.mount = mount.to_string();
        self
    }

    /// Where the workspace appears to the model (`/workspace`).
    pub fn mount(&self) -> &str {
        &self.mount
    }

    /// The limits writes are held to.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Entries of a loaded folder that were left out.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// A file's text now; `None` if there is none (or the path is not a workspace path).
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files.get(&normalize(path).ok()?).map(String::as_str)
    }

    /// A file's text in the starting tree.
    pub fn start_file(&self, path: &str) -> Option<&str> {
        self.start.get(&normalize(path).ok()?).map(String::as_str)
    }

    /// Every file now, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.files.iter().map(|(p, c)| (p.as_str(), c.as_str()))
    }

    /// Whether `path` (normalized) is a folder now: the root, or the parent of a file.
    pub fn is_dir(&self, path: &str) -> bool {
        is_dir_in(&self.files, path)
    }

    /// Whether `path` (normalized) was a folder in the starting tree.
    pub fn was_dir(&self, path: &str) -> bool {
        is_dir_in(&self.start, path)
    }

    /// The children of a folder (normalized path), folders and files by name;
    /// `None` if it is not a folder.
    pub fn entries(&self, dir: &str) -> Option<Vec<Entry>> {
        if !self.is_dir(dir) {
            return None;
        }
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        let mut seen: BTreeMap<&str, bool> = BTreeMap::new();
        for path in self.files.range(prefix.clone()..).map(|(p, _)| p).take_while(|p| p.starts_with(&prefix)) {
            let rest = &path[prefix.len()..];
            match rest.split_once('/') {
                Some((name, _)) => seen.insert(name, true),
                None => seen.insert(rest, false),
            };
        }
        Some(seen.into_iter().map(|(name, is_dir)| Entry { name: name.to_string(), is_dir }).collect())
    }

    /// Files under a folder (normalized; `""` for all), in path order.
    pub fn files_under<'a>(&'a self, dir: &str) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
        self.files.range(prefix.clone()..).take_while(move |(p, _)| p.starts_with(&prefix)).map(|(p, c)| (p.as_str(), c.as_str()))
    }

    /// Writes (`Some`) or deletes (`None`) files, all or none: every write is
    /// checked against the tree's shape and limits before any is made.
    /// Paths are normalized relative paths.
    pub fn apply(&mut self, changes: &[(String, Option<String>)]) -> Result<(), WriteError> {
        let mut next = self.files.clone();
        for (path, content) in changes {
            match content {
                None => {
                    next.remove(path);
                }
                Some(text) => {
                    if is_dir_in(&next, path) {
                        return Err(WriteError::IsFolder(path.clone()));
                    }
                    let mut at = 0;
                    while let Some(i) = path[at..].find('/') {
                        let parent = &path[..at + i];
                        if next.contains_key(parent) {
                            return Err(WriteError::ParentIsFile { path: path.clone(), file: parent.to_string() });
                        }
                        at += i + 1;
                    }
                    if text.len() > self.limits.max_file_bytes {
                        return Err(WriteError::FileTooLarge { path: path.clone(), size: text.len(), limit: self.limits.max_file_bytes });
                    }
                    next.insert(path.clone(), text.clone());
                }
            }
        }
        if next.len() > self.limits.max_files {
            return Err(WriteError::TooManyFiles { limit: self.limits.max_files });
        }
        if next.values().map(String::len).sum::<usize>() > self.limits.max_total_bytes {
            return Err(WriteError::TooManyBytes { limit: self.limits.max_total_bytes });
        }
        self.files = next;
        Ok(())
    }

    /// Writes one file (normalized path): `Ok(true)` if it was created.
    pub fn write(&mut self, path: &str, content: &str) -> Result<bool, WriteError> {
        let created = !self.files.contains_key(path);
        self.apply(&[(path.to_string(), Some(content.to_string()))])?;
        Ok(created)
    }

    /// What differs from the starting tree, in path order.
    pub fn changes(&self) -> Vec<Change> {
        let paths: BTreeSet<&String> = self.files.keys().chain(self.start.keys()).collect();
        paths
            .into_iter()
            .filter_map(|p| {
                let kind = match (self.start.get(p), self.files.get(p)) {
                    (None, Some(_)) => ChangeKind::Added,
                    (Some(_), None) => ChangeKind::Deleted,
                    (Some(a), Some(b)) if a != b => ChangeKind::Modified,
                    _ => return None,
                };
                Some(Change { path: p.clone(), kind })
            })
            .collect()
    }

    /// The paths added, modified or deleted since the start, in order: what a
    /// final-state check ("nothing outside this set changed") reads.
    pub fn changed_paths(&self) -> Vec<String> {
        self.changes().into_iter().map(|c| c.path).collect()
    }

    /// Every change since the start as a git-style unified diff, added files
    /// included (unlike `git diff`, which leaves untracked files out).
    pub fn diff(&self) -> String {
        self.changes()
            .iter()
            .map(|c| diff::unified(&c.path, self.start.get(&c.path).map(String::as_str), self.files.get(&c.path).map(String::as_str)))
            .collect()
    }
}

/// Whether `path` is the root or the parent of a file in `files`.
fn is_dir_in(files: &BTreeMap<String, String>, path: &str) -> bool {
    if path.is_empty() {
        return true;
    }
    let prefix = format!("{path}/");
    files.range(prefix.clone()..).next().is_some_and(|(p, _)| p.starts_with(&prefix))
}

/// A tree where no file is also the folder of another.
fn check_shape(tree: &BTreeMap<String, String>) -> Result<(), TreeError> {
    for path in tree.keys() {
        let prefix = format!("{path}/");
        if let Some((under, _)) = tree.range(prefix.clone()..).next().filter(|(p, _)| p.starts_with(&prefix)) {
            return Err(TreeError::FileIsFolder { file: path.clone(), under: under.clone() });
        }
    }
    Ok(())
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// What reading one file of a folder gave.
enum Loaded {
    Text(String),
    NotText,
    /// The path no longer named the entry that was inspected (a link swapped in).
    Swapped,
}

/// A regular file's text, at most `limit` bytes, making sure the file opened
/// is the entry inspected without following links: a symlink swapped in
/// between the look and the open is caught by comparing the two identities.
fn read_bounded(path: &Path, seen: &std::fs::Metadata, limit: usize) -> Result<Loaded, TreeError> {
    let io = |source| TreeError::Io { path: path.to_path_buf(), source };
    if seen.len() > limit as u64 {
        return Err(TreeError::TooLarge { what: format!("{} is {} bytes, more than {limit}", path.display(), seen.len()) });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let opened = file.metadata().map_err(io)?;
    if !same_file(seen, &opened) {
        return Ok(Loaded::Swapped);
    }
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() > limit {
        return Err(TreeError::TooLarge { what: format!("{} is more than {limit} bytes", path.display()) });
    }
    Ok(String::from_utf8(bytes).map_or(Loaded::NotText, Loaded::Text))
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino() && b.is_file()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    b.is_file()
}

#[cfg(test)]
mod tests;
