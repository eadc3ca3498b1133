//! Run folders on disk: the one place that writes into `reports/<run-id>/`
//! and `reports/latest/`. A folder calltape made holds a marker file
//! ([`MARKER`]); nothing in a folder without one is replaced or deleted, no
//! symbolic link is followed, and every file is replaced atomically (a
//! temporary file in the same folder, then a rename), so a crash leaves the
//! old file or the new one, never half of one.
//!
//! Run folders also arrive from elsewhere (CI artifacts, old versions,
//! copies without hidden files). A folder the user names as a run
//! (`report DIR`, `run --resume DIR`) whose `events.jsonl` opens with a
//! calltape `run_started` event is adopted: the marker is added and it is
//! written like one of ours. `latest` is never adopted that way unless
//! it holds nothing but files calltape writes.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The file that marks a folder calltape made.
pub const MARKER: &str = ".calltape-run";
/// The events file of a run folder.
pub const EVENTS_FILE: &str = "events.jsonl";
/// The name of the copy of the newest run in an output folder.
pub const LATEST: &str = "latest";

const RUN_MARK: &str = "calltape run folder";
const LATEST_MARK: &str = "calltape latest copy";

/// What a marked folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderKind {
    /// A run's own folder, `reports/<run-id>/`.
    Run,
    /// `reports/latest/`, a copy of the newest run folder.
    Latest,
}

/// Why a run folder cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    #[error("{path} is a symbolic link; calltape never writes through or replaces links: remove the link (what it points to is left alone) and run again")]
    Symlink { path: PathBuf },
    #[error("{path} is not a folder")]
    NotAFolder { path: PathBuf },
    #[error("{path} was not made by calltape (it has no {MARKER} file and no calltape events.jsonl), so calltape will not write into, replace or delete it; {advice}")]
    NotOurs { path: PathBuf, advice: String },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    /// The `run_id` of a folder's events would not name a folder beside others.
    #[error("{path}: run_id {id:?} is not a plain folder name (letters, digits, '-', '_', '.'; not \"latest\")")]
    RunId { path: PathBuf, id: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + '_ {
    move |source| FolderError::Io { path: path.to_path_buf(), source }
}

/// Creates a new run folder `out_dir/<run_id>` (or `<run_id>-2`, … when that
/// name is taken) with its marker; returns its id and path. The folder must
/// not exist before: nothing already there is reused.
pub fn create_run_folder(out_dir: &Path, run_id: &str) -> Result<(String, PathBuf), FolderError> {
    std::fs::create_dir_all(out_dir).map_err(io_error(out_dir))?;
    for n in 1..=100 {
        let id = if n == 1 { run_id.to_string() } else { format!("{run_id}-{n}") };
        let dir = out_dir.join(&id);
        match std::fs::create_dir(&dir) {
            Ok(()) => {
                write_marker(&dir, FolderKind::Run)?;
                return Ok((id, dir));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(FolderError::Io { path: dir, source }),
        }
    }
    Err(FolderError::Invalid { path: out_dir.join(run_id), message: "100 run folders with this id exist already".into() })
}

/// What `dir` is: an error for a symlink or a non-folder; `None` when it
/// has no marker.
pub fn folder_kind(dir: &Path) -> Result<Option<FolderKind>, FolderError> {
    let meta = std::fs::symlink_metadata(dir).map_err(io_error(dir))?;
    if meta.file_type().is_symlink() {
        return Err(FolderError::Symlink { path: dir.into() });
    }
    if !meta.is_dir() {
        return Err(FolderError::NotAFolder { path: dir.into() });
    }
    let marker = dir.join(MARKER);
    match std::fs::symlink_metadata(&marker) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(FolderError::Io { path: marker, source }),
        Ok(m) if !m.is_file() => return Err(FolderError::Invalid { path: marker, message: "is not a regular file".into() }),
        Ok(_) => {}
    }
    let text = std::fs::read_to_string(&marker).map_err(io_error(&marker))?;
    match text.lines().next() {
        Some(RUN_MARK) => Ok(Some(FolderKind::Run)),
        Some(LATEST_MARK) => Ok(Some(FolderKind::Latest)),
        _ => Err(FolderError::Invalid { path: marker, message: format!("not a calltape marker; expected {RUN_MARK:?}") }),
    }
}

/// A folder the user named as a run folder, ready to be written: marked,
/// or adopted (marker added) when its events show calltape wrote it.
pub fn adopt(dir: &Path) -> Result<FolderKind, FolderError> {
    if let Some(kind) = folder_kind(dir)? {
        return Ok(kind);
    }
    if run_id_of(dir)?.is_none() {
        let advice = "name a folder calltape wrote (reports/<run-id>)".to_string();
        return Err(FolderError::NotOurs { path: dir.into(), advice });
    }
    let kind = if dir.file_name().is_some_and(|n| n == LATEST) { FolderKind::Latest } else { FolderKind::Run };
    write_marker(dir, kind)?;
    Ok(kind)
}

/// The run id in the `run_started` event that opens `dir/events.jsonl`,
/// checked to be a plain folder name; `None` when the file is missing or
/// does not open with one.
pub fn run_id_of(dir: &Path) -> Result<Option<String>, FolderError> {
    let path = dir.join(EVENTS_FILE);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => return Err(FolderError::Symlink { path }),
        Ok(m) if m.is_file() => {}
        _ => return Ok(None),
    }
    let file = File::open(&path).map_err(io_error(&path))?;
    // The first line only, bounded: a run_started event is small.
    let mut line = Vec::new();
    BufReader::new(file).take(1 << 20).read_until(b'\n', &mut line).map_err(io_error(&path))?;
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&line) else { return Ok(None) };
    if value.get("event").and_then(|e| e.as_str()) != Some("run_started") {
        return Ok(None);
    }
    let id = value.get("run_id").and_then(|i| i.as_str()).unwrap_or_default();
    check_run_id(id, &path)?;
    Ok(Some(id.to_string()))
}

/// A run id from a file (at `path`) names a folder beside others: it must be a plain name.
fn check_run_id(id: &str, path: &Path) -> Result<(), FolderError> {
    let plain = !id.is_empty()
        && id.len() <= 100
        && !id.starts_with('.')
        && id != LATEST
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if plain {
        Ok(())
    } else {
        Err(FolderError::RunId { path: path.to_path_buf(), id: id.to_string() })
    }
}

fn write_marker(dir: &Path, kind: FolderKind) -> Result<(), FolderError> {
    let text = match kind {
        FolderKind::Run => RUN_MARK,
        FolderKind::Latest => LATEST_MARK,
    };
    let path = dir.join(MARKER);
    let mut file = OpenOptions::new().write(true).create_new(true).open(&path).map_err(io_error(&path))?;
    writeln!(file, "{text}\nWritten by calltape: files here may be replaced by calltape; do not keep your own files here.")
        .map_err(io_error(&path))
}

/// Checks that `dir` is a folder calltape made, so writing into it is ours to do.
fn check_ours(dir: &Path) -> Result<FolderKind, FolderError> {
    folder_kind(dir)?
        .ok_or_else(|| FolderError::NotOurs { path: dir.into(), advice: "write reports into a run folder calltape made".into() })
}

/// Checks that `dir/name` is a plain file name whose current entry, if any,
/// is a regular file (not a link, not a folder); returns the path.
fn target(dir: &Path, name: &str) -> Result<PathBuf, FolderError> {
    let plain = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0']) && name != MARKER;
    let path = dir.join(name);
    if !plain {
        return Err(FolderError::Invalid { path, message: "not a plain file name".into() });
    }
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => Err(FolderError::Symlink { path }),
        Ok(m) if !m.is_file() => Err(FolderError::Invalid { path, message: "is not a regular file; move it away".into() }),
        _ => Ok(path),
    }
}

/// A temporary file in `dir`, created new (never opened through a link).
fn temp_file(dir: &Path, name: &str) -> Result<(PathBuf, File), FolderError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(FolderError::Io { path, source }),
        }
    }
}

/// Writes `dir/name` atomically as `fill` produces it (through a buffer, so
/// a report with a row per unit is never held whole). `dir` must be a
/// folder calltape made; an existing `name` must be a regular file. Not
/// synced to disk: for files rebuilt from the events (reports).
pub fn write_file(dir: &Path, name: &str, fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<PathBuf, FolderError> {
    write_atomic(dir, name, false, fill)
}

/// [`write_file`] for files nothing can rebuild (the plan, the events):
/// synced to disk before the rename, so a power cut keeps the old or the new.
pub fn write_file_durable(
    dir: &Path,
    name: &str,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<PathBuf, FolderError> {
    write_atomic(dir, name, true, fill)
}

fn write_atomic(
    dir: &Path,
    name: &str,
    durable: bool,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<PathBuf, FolderError> {
    check_ours(dir)?;
    let path = target(dir, name)?;
    let (temp, file) = temp_file(dir, name)?;
    let mut writer = std::io::BufWriter::new(file);
    let written = fill(&mut writer)
        .and_then(|()| writer.flush())
        .and_then(|()| if durable { writer.get_ref().sync_all() } else { Ok(()) })
        .map_err(io_error(&path))
        .and_then(|()| std::fs::rename(&temp, &path).map_err(io_error(&path)));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.map(|()| path)
}

/// Writes `dir/name` atomically with these bytes (see [`write_file`]).
pub fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, FolderError> {
    write_file(dir, name, |w| w.write_all(bytes))
}

/// Creates the events file of a new run folder; it must not exist yet.
pub fn create_events(dir: &Path) -> Result<File, FolderError> {
    check_ours(dir)?;
    let path = target(dir, EVENTS_FILE)?;
    OpenOptions::new().write(true).create_new(true).open(&path).map_err(io_error(&path))
}

/// Opens a run folder's events file to append to it (a resumed run). It
/// must be a regular file in a folder calltape made; the file opened is
/// checked to be the one looked at, so a link swapped in is never written.
pub fn append_events(dir: &Path) -> Result<File, FolderError> {
    check_ours(dir)?;
    let path = target(dir, EVENTS_FILE)?;
    let before = std::fs::symlink_metadata(&path).map_err(io_error(&path))?;
    // Opening to append changes nothing; check what was opened before writing.
    let file = OpenOptions::new().append(true).open(&path).map_err(io_error(&path))?;
    let opened = file.metadata().map_err(io_error(&path))?;
    if !same_file(&before, &opened) || !opened.is_file() {
        return Err(FolderError::Symlink { path });
    }
    Ok(file)
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    !a.file_type().is_symlink() && a.len() == b.len()
}

/// Reads a run folder's events file, refusing a link (its target is not ours).
pub fn read_events_bytes(dir: &Path) -> Result<Vec<u8>, FolderError> {
    let path = target(dir, EVENTS_FILE)?;
    std::fs::read(&path).map_err(io_error(&path))
}

/// Replaces `out_dir/latest` with a copy of the run folder's files and
/// returns its path. An existing `latest` is replaced only if calltape made
/// it; the new copy is built beside it and renamed into place.
pub fn replace_latest(out_dir: &Path, run_dir: &Path) -> Result<PathBuf, FolderError> {
    let latest = out_dir.join(LATEST);
    if is_same_folder(&latest, run_dir) {
        return Ok(latest);
    }
    check_ours(run_dir)?;
    let old_exists = match std::fs::symlink_metadata(&latest) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(source) => return Err(FolderError::Io { path: latest, source }),
        Ok(_) => {
            check_replaceable_latest(&latest)?;
            true
        }
    };
    let staging = out_dir.join(format!(".latest-new-{}-{}", std::process::id(), unique()));
    std::fs::create_dir(&staging).map_err(io_error(&staging))?;
    let built = write_marker(&staging, FolderKind::Latest).and_then(|()| copy_files(run_dir, &staging));
    if let Err(e) = built {
        let _ = remove_our_files(&staging);
        return Err(e);
    }
    if !old_exists {
        std::fs::rename(&staging, &latest).map_err(io_error(&latest))?;
        return Ok(latest);
    }
    let old = out_dir.join(format!(".latest-old-{}-{}", std::process::id(), unique()));
    std::fs::rename(&latest, &old).map_err(io_error(&latest))?;
    if let Err(source) = std::fs::rename(&staging, &latest) {
        // Put the old copy back rather than leave no latest at all.
        let _ = std::fs::rename(&old, &latest);
        let _ = remove_our_files(&staging);
        return Err(FolderError::Io { path: latest, source });
    }
    remove_our_files(&old).map_err(|source| FolderError::Io { path: old, source })?;
    Ok(latest)
}

fn unique() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Whether two paths name the same existing folder.
fn is_same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// An existing `latest` may be replaced when calltape made it: it has the
/// latest marker, or (made before markers) it holds only regular files of
/// the names calltape writes, one of them a calltape events file.
fn check_replaceable_latest(latest: &Path) -> Result<(), FolderError> {
    let advice = || format!("move it away (e.g. `mv {0} {0}.mine`) and run again, or write runs elsewhere with --out", latest.display());
    match folder_kind(latest) {
        Ok(Some(FolderKind::Latest)) => return Ok(()),
        Ok(Some(FolderKind::Run)) => {
            return Err(FolderError::NotOurs { path: latest.into(), advice: format!("it is a run folder, not a copy: {}", advice()) })
        }
        Err(e) => return Err(e),
        Ok(None) => {}
    }
    let entries = std::fs::read_dir(latest).map_err(io_error(latest))?;
    for entry in entries {
        let entry = entry.map_err(io_error(latest))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let regular = entry.file_type().map_err(io_error(latest))?.is_file();
        if !regular || !is_calltape_file_name(&name) {
            return Err(FolderError::NotOurs { path: latest.into(), advice: format!("it holds {name:?}; {}", advice()) });
        }
    }
    if run_id_of(latest)?.is_none() {
        return Err(FolderError::NotOurs { path: latest.into(), advice: advice() });
    }
    Ok(())
}

/// Names calltape writes into a run folder.
fn is_calltape_file_name(name: &str) -> bool {
    name == EVENTS_FILE
        || name == MARKER
        || [".csv", ".json", ".md", ".html", ".xml"].iter().any(|ext| name.ends_with(ext) && !name.starts_with('.'))
}

/// Copies the regular files of `from` (links and folders are skipped: they
/// are not calltape's) into `to`, a folder just made, minus the marker.
fn copy_files(from: &Path, to: &Path) -> Result<(), FolderError> {
    for entry in std::fs::read_dir(from).map_err(io_error(from))? {
        let entry = entry.map_err(io_error(from))?;
        let name = entry.file_name();
        if name == MARKER || name.to_string_lossy().starts_with(".") || !entry.file_type().map_err(io_error(from))?.is_file() {
            continue;
        }
        let dest = to.join(&name);
        let mut source = File::open(entry.path()).map_err(io_error(&entry.path()))?;
        let mut out = OpenOptions::new().write(true).create_new(true).open(&dest).map_err(io_error(&dest))?;
        std::io::copy(&mut source, &mut out).map_err(io_error(&dest))?;
    }
    Ok(())
}

/// Removes a folder calltape built or checked: its regular files, then the
/// folder itself, which fails (keeping everything else) if anything else is in it.
fn remove_our_files(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::remove_file(entry.path())?;
        }
    }
    std::fs::remove_dir(dir)
}

/// Where `run --resume DIR` writes. A run folder is resumed in place. A
/// `latest` copy is not (a later run would replace it, and what resume added
/// with it): the run folder it copies is resumed, `out/<run-id>`, re-made
/// from the copy if it is gone. Returns the folder and, when it is not
/// `dir`, a note saying so.
pub fn resume_folder(dir: &Path) -> Result<(PathBuf, Option<String>), FolderError> {
    if adopt(dir)? == FolderKind::Run {
        return Ok((dir.to_path_buf(), None));
    }
    let Some(run_id) = run_id_of(dir)? else {
        return Err(FolderError::NotOurs { path: dir.into(), advice: "its events.jsonl has no run_started event".into() });
    };
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let run_dir = parent.join(&run_id);
    if std::fs::symlink_metadata(&run_dir).is_ok() {
        adopt(&run_dir)?;
        let note =
            format!("{} is a copy of run {run_id}: resuming {} (the copy is refreshed at the end)", dir.display(), run_dir.display());
        return Ok((run_dir, Some(note)));
    }
    std::fs::create_dir(&run_dir).map_err(io_error(&run_dir))?;
    write_marker(&run_dir, FolderKind::Run).and_then(|()| copy_files(dir, &run_dir))?;
    let note =
        format!("{} is a copy of run {run_id}, whose folder is gone: re-made it as {} and resuming that", dir.display(), run_dir.display());
    Ok((run_dir, Some(note)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_started(id: &str) -> String {
        format!("{{\"ts_ms\":1,\"event\":\"run_started\",\"run_id\":{id:?},\"models\":[],\"suites\":[],\"trials\":1,\"seed\":1,\"config\":\"x\"}}\n")
    }

    #[test]
    fn new_folders_are_marked_and_never_reused() {
        let out = tempfile::tempdir().unwrap();
        let (id, dir) = create_run_folder(out.path(), "r1").unwrap();
        assert_eq!((id.as_str(), folder_kind(&dir).unwrap()), ("r1", Some(FolderKind::Run)));
        let (id2, _) = create_run_folder(out.path(), "r1").unwrap();
        assert_eq!(id2, "r1-2");
    }

    #[test]
    fn files_are_replaced_whole_and_links_refused() {
        let out = tempfile::tempdir().unwrap();
        let (_, dir) = create_run_folder(out.path(), "r").unwrap();
        write_bytes(&dir, "a.csv", b"one").unwrap();
        write_bytes(&dir, "a.csv", b"two").unwrap();
        assert_eq!(std::fs::read(dir.join("a.csv")).unwrap(), b"two");
        let failed = write_file(&dir, "a.csv", |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(dir.join("a.csv")).unwrap(), b"two", "a failed write leaves the old file");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
        for bad in ["../x", "", "a/b", MARKER] {
            assert!(write_bytes(&dir, bad, b"x").is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            let outside = out.path().join("precious.txt");
            std::fs::write(&outside, "mine").unwrap();
            std::os::unix::fs::symlink(&outside, dir.join("b.csv")).unwrap();
            let err = write_bytes(&dir, "b.csv", b"x").unwrap_err().to_string();
            assert!(err.contains("symbolic link") && err.contains("b.csv"), "{err}");
            assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine");
        }
    }

    #[test]
    fn unmarked_folders_are_written_only_when_their_events_say_calltape() {
        let out = tempfile::tempdir().unwrap();
        let mine = out.path().join("mine");
        std::fs::create_dir(&mine).unwrap();
        assert!(write_bytes(&mine, "a.csv", b"x").is_err());
        assert!(adopt(&mine).is_err());
        std::fs::write(mine.join(EVENTS_FILE), run_started("../../etc")).unwrap();
        assert_eq!(
            adopt(&mine).unwrap_err().to_string(),
            format!(
                "{}: run_id \"../../etc\" is not a plain folder name (letters, digits, '-', '_', '.'; not \"latest\")",
                mine.join(EVENTS_FILE).display()
            )
        );
        std::fs::write(mine.join(EVENTS_FILE), run_started("20260101-000000-000")).unwrap();
        assert_eq!(adopt(&mine).unwrap(), FolderKind::Run);
        write_bytes(&mine, "a.csv", b"x").unwrap();
    }

    #[test]
    fn latest_is_replaced_only_when_calltape_made_it() {
        let out = tempfile::tempdir().unwrap();
        let (_, run) = create_run_folder(out.path(), "r").unwrap();
        std::fs::write(run.join(EVENTS_FILE), run_started("r")).unwrap();
        write_bytes(&run, "summary.csv", b"1").unwrap();
        let latest = replace_latest(out.path(), &run).unwrap();
        assert_eq!(folder_kind(&latest).unwrap(), Some(FolderKind::Latest));
        write_bytes(&run, "summary.csv", b"2").unwrap();
        replace_latest(out.path(), &run).unwrap();
        assert_eq!(std::fs::read(latest.join("summary.csv")).unwrap(), b"2");
        let names: Vec<_> = std::fs::read_dir(out.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "nothing left beside r and latest: {names:?}");

        // A user's own latest: refused, kept whole.
        std::fs::remove_file(latest.join(MARKER)).unwrap();
        std::fs::write(latest.join("notes.txt"), "mine").unwrap();
        let err = replace_latest(out.path(), &run).unwrap_err().to_string();
        assert!(err.contains("notes.txt") && err.contains("mv "), "{err}");
        assert_eq!(std::fs::read_to_string(latest.join("notes.txt")).unwrap(), "mine");
        // One from before markers: only calltape's files, so replaced.
        std::fs::remove_file(latest.join("notes.txt")).unwrap();
        replace_latest(out.path(), &run).unwrap();
        assert_eq!(folder_kind(&latest).unwrap(), Some(FolderKind::Latest));
    }

    #[test]
    fn resuming_latest_resumes_the_run_it_copies() {
        let out = tempfile::tempdir().unwrap();
        let (_, run) = create_run_folder(out.path(), "r").unwrap();
        std::fs::write(run.join(EVENTS_FILE), run_started("r")).unwrap();
        let latest = replace_latest(out.path(), &run).unwrap();
        assert_eq!(resume_folder(&latest).unwrap().0, out.path().join("r"));
        assert_eq!(resume_folder(&run).unwrap(), (run.clone(), None));
        // The run folder gone: made again from the copy.
        remove_our_files(&run).unwrap();
        let (again, note) = resume_folder(&latest).unwrap();
        assert_eq!(again, run);
        assert!(note.unwrap().contains("re-made"));
        assert_eq!(std::fs::read_to_string(run.join(EVENTS_FILE)).unwrap(), run_started("r"));
        assert_eq!(folder_kind(&run).unwrap(), Some(FolderKind::Run));
    }
}
