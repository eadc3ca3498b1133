//! The tool lists of a run's MCP servers, checked at its start. A suite
//! loads its MCP toolsets' tools from `toolsets/<name>.tools.lock`, so that
//! `calltape check` and a replay need no server. A run that reaches the
//! servers (any model not in replay mode) first lists each server's tools
//! and compares them with the lock: a missing lock is written; a different
//! list is an error naming the added, removed and changed tools, before any
//! unit runs against tools its recordings and scenarios do not know.

use std::path::{Path, PathBuf};

use crate::core::mcp::{lock_file_name, tool_spec_of, McpServerSpec, McpToolsetFile, ToolDrift, ToolLock};
use crate::core::tools::ToolSpec;

use super::client::{McpClient, McpError};

/// Why a server's tools could not be checked against its lock.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The toolset file does not parse; `calltape check` says where.
    #[error("{}: {source} (`calltape check` shows where)", file.display())]
    Toolset { file: PathBuf, source: serde_json::Error },
    /// The toolset's `mcp` entry names no usable server.
    #[error("{}: {source}", file.display())]
    Spec { file: PathBuf, source: crate::core::mcp::McpSpecError },
    #[error("{}: cannot list the tools of its MCP server: {source}", file.display())]
    Server {
        file: PathBuf,
        #[source]
        source: Box<McpError>,
    },
    #[error(
        "{}: the MCP server's tools changed since {} was written: {drift}. Scenarios and recordings were made for the old \
         tools: delete {} and run `calltape run --mode record --suite {}` to list them again and re-record",
        toolset.display(), lock.display(), lock.display(), crate::quote::shell_word(&suite.display().to_string())
    )]
    Drift { toolset: PathBuf, lock: PathBuf, suite: PathBuf, drift: Box<ToolDrift> },
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What checking one toolset found, for the line a run prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockNote {
    pub lock: PathBuf,
    pub tools: usize,
    /// The lock was missing and has been written.
    pub written: bool,
}

/// Lists the tools of every MCP toolset in `suite_dirs` and checks them
/// against their locks, writing the missing ones. Every toolset is checked;
/// all the problems are returned together.
pub fn sync_locks(suite_dirs: &[PathBuf]) -> Result<Vec<LockNote>, Vec<LockError>> {
    let mut notes = Vec::new();
    let mut errors = Vec::new();
    for suite in suite_dirs {
        for (file, toolset) in mcp_toolsets(&suite.join("toolsets"), &mut errors) {
            match sync_one(suite, &file, &toolset) {
                Ok(note) => notes.push(note),
                Err(e) => errors.push(e),
            }
        }
    }
    if errors.is_empty() {
        Ok(notes)
    } else {
        Err(errors)
    }
}

/// Every MCP server command the suites would start: (toolset file,
/// command line). Toolsets that do not parse are left to `sync_locks`.
pub fn commands(suite_dirs: &[PathBuf]) -> Vec<(PathBuf, String)> {
    let mut ignored = Vec::new();
    let toolsets = suite_dirs.iter().flat_map(|suite| mcp_toolsets(&suite.join("toolsets"), &mut ignored));
    toolsets.filter_map(|(file, toolset)| toolset.mcp.command.is_some().then(|| (file, toolset.mcp.describe()))).collect()
}

/// The toolset files in `dir` that name an MCP server.
fn mcp_toolsets(dir: &Path, errors: &mut Vec<LockError>) -> Vec<(PathBuf, McpToolsetFile)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "json")).collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(&file).ok()?;
            match McpToolsetFile::detect(&text)? {
                Ok(t) => match t.mcp.validate() {
                    Ok(()) => Some((file, t)),
                    Err(source) => {
                        errors.push(LockError::Spec { file, source });
                        None
                    }
                },
                Err(e) => {
                    errors.push(LockError::Toolset { file, source: e });
                    None
                }
            }
        })
        .collect()
}

fn sync_one(suite: &Path, file: &Path, toolset: &McpToolsetFile) -> Result<LockNote, LockError> {
    let listed = list_tools(&toolset.mcp).map_err(|source| LockError::Server { file: file.to_path_buf(), source: Box::new(source) })?;
    let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let lock = file.with_file_name(lock_file_name(&stem));
    let note = LockNote { lock: lock.clone(), tools: listed.len(), written: false };
    if let Some(locked) = std::fs::read_to_string(&lock).ok().and_then(|t| serde_json::from_str::<ToolLock>(&t).ok()) {
        return match ToolDrift::between(&locked.tools, &listed) {
            None => Ok(note),
            Some(drift) => Err(LockError::Drift { toolset: file.to_path_buf(), lock, suite: suite.to_path_buf(), drift: Box::new(drift) }),
        };
    }
    // No lock (or one that does not parse, which loading reports): write what the server lists.
    let text = ToolLock::new(&toolset.mcp, listed).to_text();
    write_atomic(&lock, &text).map_err(|source| LockError::Write { path: lock.clone(), source })?;
    Ok(LockNote { written: true, ..note })
}

fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let tmp = path.with_extension("lock.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// The tools `server` lists now, started (or reached) and closed again.
pub fn list_tools(server: &McpServerSpec) -> Result<Vec<ToolSpec>, McpError> {
    let spec = server.clone();
    let label = server.describe();
    let failed = |what: String| McpError::Malformed { server: label.clone(), method: "tools/list".into(), what };
    let listed = super::on_own_thread(move |runtime| {
        let transport = super::connect(&spec).map_err(|source| McpError::Transport {
            server: spec.describe(),
            method: "initialize".into(),
            source: Box::new(source),
        })?;
        let mut client = McpClient::new(transport.as_ref(), &spec.describe(), &super::request_url(&spec));
        runtime.block_on(async {
            client.initialize().await?;
            client.list_tools().await
        })
    })
    .map_err(|e| failed(e.to_string()))??;
    listed
        .iter()
        .enumerate()
        .map(|(i, t)| tool_spec_of(t).ok_or_else(|| failed(format!("tool {} of the list has no name", i + 1))))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn a_toolset_whose_server_is_unusable_keeps_the_spec_error_as_its_source() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bad.json"), r#"{"mcp": {"url": "ftp://h"}}"#).unwrap();
        let mut errors = Vec::new();
        assert!(mcp_toolsets(dir.path(), &mut errors).is_empty());
        let [err] = &errors[..] else { panic!("{errors:?}") };
        assert!(err.to_string().ends_with("bad.json: mcp.url must be an http:// or https:// URL, not \"ftp://h\""), "{err}");
        assert!(err.source().and_then(|s| s.downcast_ref::<crate::core::mcp::McpSpecError>()).is_some());
    }
}
