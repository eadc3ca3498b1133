//! The bundled default's suites and real-model recordings, compiled into the
//! binary (`build.rs`), so that `calltape run` with the embedded configuration
//! works from any folder, as an installed binary is used. (Simulated models
//! are computed, so only a few MB are bundled, deflated to a tenth.) Suites and cassettes are read
//! from folders, so the files are unpacked once per build into the user's
//! cache (`$XDG_CACHE_HOME/calltape/`, else `~/.cache/calltape/`), which is
//! said on stderr when it happens, and read from there; copies left by other
//! builds are removed then. Imports nothing of calltape's.

use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// The bundled files, inflated once from the binary: each one's path under
/// the project root, and its bytes.
pub struct Files(Vec<u8>);

impl Files {
    /// Inflates the archive build.rs made.
    pub fn inflate() -> Files {
        let archive =
            miniz_oxide::inflate::decompress_to_vec_with_limit(PACKED, ARCHIVE_LEN).expect("build.rs deflated the bundle it compiled in");
        Files(archive)
    }

    /// Each file's path and bytes, in path order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        let mut rest = self.0.as_slice();
        std::iter::from_fn(move || {
            let path = take(&mut rest)?;
            let bytes = take(&mut rest)?;
            Some((std::str::from_utf8(path).expect("build.rs wrote UTF-8 paths"), bytes))
        })
    }
}

/// The next length-prefixed part of the archive (see build.rs).
fn take<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let (len, tail) = rest.split_first_chunk::<4>()?;
    let (part, tail) = tail.split_at(u32::from_le_bytes(*len) as usize);
    *rest = tail;
    Some(part)
}

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
    let parent = cache.join("calltape");
    let (dir, fresh) = unpack_into(&parent)?;
    if fresh {
        let removed = remove_stale_copies(&parent, &dir);
        let removed = match removed {
            0 => String::new(),
            n => format!("; removed {n} older cop{} of other builds", if n == 1 { "y" } else { "ies" }),
        };
        eprintln!(
            "note: unpacked the bundled suites and recordings ({:.1} MB) into {}, once for this build of calltape{removed}",
            ARCHIVE_LEN as f64 / 1e6,
            dir.display()
        );
    }
    Ok(dir)
}

/// Removes the copies under `parent` that other builds unpacked (never
/// `keep`, never anything not named as calltape names its copies, never
/// through a link), and partial copies an interrupted unpack left over an
/// hour ago. Returns how many copies were removed; one that cannot be
/// removed is left for next time.
fn remove_stale_copies(parent: &Path, keep: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(parent) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        // symlink_metadata: a link is never followed (and is not a dir here).
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if !meta.is_dir() || path == keep {
            continue;
        }
        let old_partial = name.starts_with(".bundled-")
            && name.contains(".partial-")
            && meta.modified().ok().and_then(|t| t.elapsed().ok()).is_some_and(|age| age.as_secs() > 3600);
        let other_build = name.starts_with("bundled-");
        if old_partial || other_build {
            let gone = std::fs::remove_dir_all(&path).is_ok();
            removed += usize::from(gone && other_build);
        }
    }
    removed
}

fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|h| h.join(".cache"))).or_else(|| var("LOCALAPPDATA"))
}

/// Unpacks into `<parent>/bundled-<version>-<digest>`, unless a complete copy
/// is there; says whether it unpacked. Files go to a private folder first,
/// renamed into place whole, so two runs starting at once never read a
/// half-written copy.
fn unpack_into(parent: &Path) -> Result<(PathBuf, bool), BundledError> {
    let name = format!("bundled-{}-{DIGEST:016x}", env!("CARGO_PKG_VERSION"));
    let dest = parent.join(&name);
    if dest.is_dir() {
        return Ok((dest, false));
    }
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let partial = parent.join(format!(".{name}.partial-{}-{nanos}", std::process::id()));
    let write = |path: &Path, bytes: &[u8]| -> Result<(), BundledError> {
        let err = |source| BundledError::Write { path: path.to_path_buf(), source };
        std::fs::create_dir_all(path.parent().unwrap_or(parent)).map_err(err)?;
        std::fs::write(path, bytes).map_err(err)
    };
    std::fs::create_dir_all(parent).map_err(|source| BundledError::Write { path: parent.to_path_buf(), source })?;
    for (rel, bytes) in Files::inflate().iter() {
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
        return Ok((dest, false));
    }
    Ok((dest, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_default_suites_and_recordings_are_compiled_in() {
        let files = Files::inflate();
        let has = |prefix: &str| files.iter().any(|(p, _)| p.starts_with(prefix));
        assert!(
            has("scenarios/coding/") && has("scenarios/bfcl-sample/") && has("scenarios/stateful/") && has("scenarios/bfcl-multi-turn/")
        );
        for arm in ["off", "full"] {
            for suite in ["coding", "stateful", "bfcl-sample"] {
                assert!(has(&format!("recordings/{suite}/qwen2.5-coder-0.5b-local@{arm}/")), "{suite} {arm}");
            }
        }
        // Simulators are computed: none of their answers is bundled.
        assert!(!files.iter().any(|(p, _)| p.contains("/sim-")));
        // Read back whole: every file of the folders, byte for byte.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for (rel, bytes) in files.iter() {
            assert_eq!(std::fs::read(root.join(rel)).unwrap(), bytes, "{rel}");
        }
    }

    #[test]
    fn unpacks_once_whole_and_reuses_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let (first, fresh) = unpack_into(dir.path()).unwrap();
        assert!(fresh);
        let files = Files::inflate();
        let (rel, bytes) = files.iter().next().unwrap();
        assert_eq!(std::fs::read(first.join(rel)).unwrap(), bytes);
        assert_eq!(walk_count(&first), files.iter().count());
        // A second call finds the copy; nothing partial is left beside it.
        assert_eq!(unpack_into(dir.path()).unwrap(), (first, false));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn copies_of_other_builds_are_removed_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let (keep, _) = unpack_into(dir.path()).unwrap();
        let other = dir.path().join("bundled-0.0.9-00000000deadbeef");
        std::fs::create_dir_all(other.join("scenarios")).unwrap();
        let fresh_partial = dir.path().join(".bundled-0.1.0-1.partial-7-8");
        std::fs::create_dir_all(&fresh_partial).unwrap();
        let mine = dir.path().join("notes");
        std::fs::create_dir_all(&mine).unwrap();
        let outside = tempfile::tempdir().unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), dir.path().join("bundled-linked")).unwrap();
        assert_eq!(remove_stale_copies(dir.path(), &keep), 1);
        assert!(keep.is_dir() && !other.exists() && mine.is_dir() && outside.path().is_dir());
        // Another run may be unpacking into a fresh partial copy right now.
        assert!(fresh_partial.is_dir());
    }

    fn walk_count(dir: &Path) -> usize {
        std::fs::read_dir(dir).unwrap().flatten().map(|e| if e.file_type().unwrap().is_dir() { walk_count(&e.path()) } else { 1 }).sum()
    }
}
