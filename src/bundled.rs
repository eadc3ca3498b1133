//! The bundled default's suites and recordings, compiled into the binary
//! (`build.rs`), so that `calltape run` with the embedded configuration works
//! from any folder, as an installed binary is used. Suites and cassettes are
//! read from folders, so the files are unpacked once per build into the
//! user's cache (`$XDG_CACHE_HOME/calltape/`, else `~/.cache/calltape/`) and
//! read from there. Imports nothing of calltape's.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// Why the bundled files could not be made available.
#[derive(Debug, thiserror::Error)]
pub enum BundledError {
    #[error(
        "the bundled suites need a cache folder, and neither XDG_CACHE_HOME nor HOME is set: set one, \
         run from a calltape repository, or start a project of your own with `calltape init`"
    )]
    NoCacheDir,
    #[error("cannot unpack the bundled suites into {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

/// The folder holding the bundled `scenarios/` and `recordings/`, unpacked
/// into the cache the first time a build of calltape needs them.
pub fn unpacked() -> Result<PathBuf, BundledError> {
    let cache = cache_dir().ok_or(BundledError::NoCacheDir)?;
    unpack_into(&cache.join("calltape"))
}

fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache"))).or_else(|| var("LOCALAPPDATA"))
}

/// Unpacks into `<parent>/bundled-<version>-<digest>`, unless a complete copy
/// is there. Files go to a private folder first, renamed into place whole, so
/// two runs starting at once never read a half-written copy.
fn unpack_into(parent: &Path) -> Result<PathBuf, BundledError> {
    let name = format!("bundled-{}-{DIGEST:016x}", env!("CARGO_PKG_VERSION"));
    let dest = parent.join(&name);
    if dest.is_dir() {
        return Ok(dest);
    }
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let partial = parent.join(format!(".{name}.partial-{}-{nanos}", std::process::id()));
    let write = |path: &Path, bytes: &[u8]| -> Result<(), BundledError> {
        let err = |source| BundledError::Write { path: path.to_path_buf(), source };
        std::fs::create_dir_all(path.parent().unwrap_or(parent)).map_err(err)?;
        std::fs::write(path, bytes).map_err(err)
    };
    std::fs::create_dir_all(parent).map_err(|source| BundledError::Write { path: parent.to_path_buf(), source })?;
    for (rel, bytes) in FILES {
        write(&partial.join(rel), bytes).inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&partial);
        })?;
    }
    if let Err(source) = std::fs::rename(&partial, &dest) {
        let _ = std::fs::remove_dir_all(&partial);
        // Another run won the race: its copy is as good as ours.
        if !dest.is_dir() {
            return Err(BundledError::Write { path: dest, source });
        }
    }
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_default_suites_and_recordings_are_compiled_in() {
        let has = |prefix: &str| FILES.iter().any(|(p, _)| p.starts_with(prefix));
        assert!(
            has("scenarios/coding/") && has("scenarios/bfcl-sample/") && has("scenarios/stateful/") && has("scenarios/bfcl-multi-turn/")
        );
        for arm in ["off", "local", "full"] {
            for suite in ["coding", "stateful", "bfcl-multi-turn"] {
                assert!(has(&format!("recordings/{suite}/sim-strong@{arm}/")), "{suite} {arm}");
            }
        }
    }

    #[test]
    fn unpacks_once_whole_and_reuses_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let first = unpack_into(dir.path()).unwrap();
        let (rel, bytes) = FILES[0];
        assert_eq!(std::fs::read(first.join(rel)).unwrap(), bytes);
        assert_eq!(walk_count(&first), FILES.len());
        // A second call finds the copy; nothing partial is left beside it.
        assert_eq!(unpack_into(dir.path()).unwrap(), first);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    fn walk_count(dir: &Path) -> usize {
        std::fs::read_dir(dir).unwrap().flatten().map(|e| if e.file_type().unwrap().is_dir() { walk_count(&e.path()) } else { 1 }).sum()
    }
}
