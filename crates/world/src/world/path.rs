//! Workspace paths: every path a tool or a scenario names is folded to one
//! normalized relative form (`src/main.rs`) before it reaches the tree, so
//! `./src//main.rs`, `src/x/../main.rs` and `/workspace/src/main.rs` are the
//! same file and nothing can name a file outside the workspace.

use thiserror::Error;

/// Where the workspace appears to the model unless a scenario says otherwise:
/// the coding prompts tell the model its working directory is `/workspace`.
pub const DEFAULT_MOUNT: &str = "/workspace";

/// Why a path cannot name a file of the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PathError {
    /// Empty where a file was needed.
    #[error("the path is empty; name a file relative to the workspace root, e.g. `src/main.rs`")]
    Empty,
    /// A NUL or another control character: never part of a file name we keep.
    #[error("path {0:?} contains a control character; use a plain file name")]
    Control(String),
    /// Absolute where only a relative path is accepted (a scenario's tree).
    #[error("path {0:?} is absolute; give it relative to the workspace root, e.g. `src/main.rs`")]
    Absolute(String),
    /// `..` steps above the workspace root.
    #[error("path {0:?} leaves the workspace through `..`; only files inside the workspace can be used")]
    Escapes(String),
    /// An absolute (or `~`) path that is not under the workspace's mount point.
    #[error("path {path:?} is outside the workspace {mount}; only files under {mount} can be read or changed")]
    Outside { path: String, mount: String },
}

/// The normalized form of a relative path: `.` and empty segments dropped,
/// `..` folded; `""` is the workspace root. Absolute paths, escapes through
/// `..` and control characters are refused.
pub fn normalize(raw: &str) -> Result<String, PathError> {
    if raw.chars().any(char::is_control) {
        return Err(PathError::Control(raw.to_string()));
    }
    if raw.starts_with('/') {
        return Err(PathError::Absolute(raw.to_string()));
    }
    match fold(raw) {
        (_, true) => Err(PathError::Escapes(raw.to_string())),
        (parts, false) => Ok(parts.join("/")),
    }
}

/// The segments of `path` with `.` and empty ones dropped and `..` folded,
/// and whether a `..` climbed above where the path starts.
fn fold(path: &str) -> (Vec<&str>, bool) {
    let (mut parts, mut escaped) = (Vec::new(), false);
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => escaped |= parts.pop().is_none(),
            s => parts.push(s),
        }
    }
    (parts, escaped)
}

/// A path as a tool receives it — relative to the workspace root, or
/// absolute under `mount` (`/workspace/src/a.rs`) — as a normalized
/// relative path. Any other absolute path, and `~`, is outside the workspace.
pub fn resolve(mount: &str, raw: &str) -> Result<String, PathError> {
    if raw.chars().any(char::is_control) {
        return Err(PathError::Control(raw.to_string()));
    }
    let outside = || PathError::Outside { path: raw.to_string(), mount: mount.to_string() };
    if raw.starts_with('~') {
        return Err(outside());
    }
    if !raw.starts_with('/') {
        return normalize(raw);
    }
    // Fold the absolute path first, so `/workspace/../etc/passwd` is `/etc/passwd`
    // (above `/` is `/`, as the file system has it).
    let (abs, root) = (fold(raw).0.join("/"), fold(mount).0.join("/"));
    if abs == root {
        return Ok(String::new());
    }
    if root.is_empty() {
        // Mounted at `/`: every absolute path is inside.
        return Ok(abs);
    }
    match abs.strip_prefix(&root).and_then(|rest| rest.strip_prefix('/')) {
        Some(rest) => Ok(rest.to_string()),
        None => Err(outside()),
    }
}

/// How a relative path is shown to the model: absolute under the mount.
pub fn shown(mount: &str, rel: &str) -> String {
    match (mount.trim_end_matches('/'), rel) {
        (m, "") => {
            if m.is_empty() {
                "/".to_string()
            } else {
                m.to_string()
            }
        }
        (m, r) => format!("{m}/{r}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_folded() {
        assert_eq!(normalize("./a//b").unwrap(), "a/b");
        assert_eq!(normalize("a/x/../b/.").unwrap(), "a/b");
        assert_eq!(normalize(".").unwrap(), "");
        assert_eq!(normalize("").unwrap(), "");
    }

    #[test]
    fn escapes_absolute_paths_and_nul_are_refused() {
        assert_eq!(normalize("../../etc/passwd"), Err(PathError::Escapes("../../etc/passwd".into())));
        assert_eq!(normalize("a/../../b"), Err(PathError::Escapes("a/../../b".into())));
        assert_eq!(normalize("/etc/passwd"), Err(PathError::Absolute("/etc/passwd".into())));
        assert_eq!(normalize("a\0b"), Err(PathError::Control("a\0b".into())));
        assert_eq!(
            normalize("../x").unwrap_err().to_string(),
            "path \"../x\" leaves the workspace through `..`; only files inside the workspace can be used"
        );
    }

    #[test]
    fn absolute_paths_must_be_under_the_mount() {
        assert_eq!(resolve(DEFAULT_MOUNT, "/workspace/src/a.rs").unwrap(), "src/a.rs");
        assert_eq!(resolve(DEFAULT_MOUNT, "/workspace").unwrap(), "");
        assert_eq!(resolve(DEFAULT_MOUNT, "/workspace/").unwrap(), "");
        assert_eq!(resolve(DEFAULT_MOUNT, "src/../a.rs").unwrap(), "a.rs");
        for p in ["/etc/passwd", "/workspace/../etc/passwd", "/workspaces/x", "~/.ssh/id_rsa", "/"] {
            assert!(matches!(resolve(DEFAULT_MOUNT, p), Err(PathError::Outside { .. })), "{p}");
        }
        assert!(matches!(resolve(DEFAULT_MOUNT, "../../etc/passwd"), Err(PathError::Escapes(_))));
        assert_eq!(
            resolve(DEFAULT_MOUNT, "/etc/hosts").unwrap_err().to_string(),
            "path \"/etc/hosts\" is outside the workspace /workspace; only files under /workspace can be read or changed"
        );
        assert_eq!(shown(DEFAULT_MOUNT, "src/a.rs"), "/workspace/src/a.rs");
        assert_eq!(shown(DEFAULT_MOUNT, ""), "/workspace");
    }

    proptest::proptest! {
        /// Whatever a model writes, a resolved path stays inside: relative,
        /// without `.`, `..` or empty segments.
        #[test]
        fn resolved_paths_stay_inside(parts in proptest::collection::vec(
            proptest::sample::select(vec!["a", "b.rs", "..", ".", "", "workspace", "/workspace", "~", "etc"]), 0..8)
        ) {
            let raw = parts.join("/");
            if let Ok(rel) = resolve(DEFAULT_MOUNT, &raw) {
                proptest::prop_assert!(!rel.starts_with('/'), "{raw:?} -> {rel:?}");
                proptest::prop_assert!(rel.is_empty() || rel.split('/').all(|s| !matches!(s, "" | "." | "..")), "{raw:?} -> {rel:?}");
            }
        }
    }
}
