//! One run of the bundled default (`calltape run`, no `--model` or
//! `--suite`: about 10,000 units, most of a minute in a debug build) shared
//! by every test that only reads what it wrote, in every test binary.
//!
//! The run is kept under `CARGO_TARGET_TMPDIR`, named by what decides its
//! output (the binary, the bundled suites and recordings), so a later test
//! binary, or the next `cargo test` with nothing changed, reads it instead
//! of running it again. Readers must not write into it: copy it first.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The default run as a test sees it: its project folder and what it printed.
pub struct DefaultRun {
    /// A project folder with the bundled `scenarios` and `recordings` linked
    /// in and the run in `reports` (so `reports/latest`).
    pub project: PathBuf,
    /// Its standard output at `COLUMNS=100`, no colour.
    pub stdout: String,
}

impl DefaultRun {
    /// The run's `latest` folder.
    pub fn latest(&self) -> PathBuf {
        self.project.join("reports/latest")
    }

    /// Copies the run's `latest` folder to `to`, for a test that writes into it.
    pub fn copy_latest(&self, to: &Path) {
        super::copy_dir(&self.latest(), to);
    }
}

/// The shared default run, made on first use (once per process, and once
/// per change of binary or bundled data across processes).
pub fn default_run() -> &'static DefaultRun {
    static RUN: OnceLock<DefaultRun> = OnceLock::new();
    RUN.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let bin = Path::new(env!("CARGO_BIN_EXE_calltape"));
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        fingerprint(bin, &mut hasher);
        fingerprint(&root.join("scenarios"), &mut hasher);
        fingerprint(&root.join("recordings"), &mut hasher);
        let project = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("default-run-{:016x}", hasher.finish()));
        if !project.join("stdout.txt").is_file() {
            make(root, bin, &project);
        }
        let stdout = std::fs::read_to_string(project.join("stdout.txt")).unwrap();
        DefaultRun { project, stdout }
    })
}

/// Runs the default in a fresh folder beside `project`, then renames it into
/// place: a run cut short leaves no folder that looks finished, and two
/// processes racing both end with a whole run.
fn make(root: &Path, bin: &Path, project: &Path) {
    let building = project.with_extension(format!("building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    std::fs::create_dir_all(&building).unwrap();
    for name in ["scenarios", "recordings"] {
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join(name), building.join(name)).unwrap();
        #[cfg(not(unix))]
        super::copy_dir(&root.join(name), &building.join(name));
    }
    let out = Command::new(bin)
        .args(["run", "--out", "reports"])
        .current_dir(&building)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("COLUMNS", "100")
        .output()
        .expect("binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(building.join("stdout.txt"), &out.stdout).unwrap();
    if std::fs::rename(&building, project).is_err() {
        // Another process finished first: its run is the same.
        assert!(project.join("stdout.txt").is_file(), "could not move {} into place", building.display());
        let _ = std::fs::remove_dir_all(&building);
    }
    // Runs of an older binary or older suites are never read again (about 100 MB each).
    for entry in std::fs::read_dir(project.parent().unwrap()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("default-run-") && !name.contains(".building-") && path != project {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// Hashes the names, sizes and modification times of the files under `path`.
fn fingerprint(path: &Path, hasher: &mut impl Hasher) {
    let meta = std::fs::metadata(path).unwrap();
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for entry in entries {
            entry.file_name().hash(hasher);
            fingerprint(&entry, hasher);
        }
    } else {
        meta.len().hash(hasher);
        meta.modified().ok().hash(hasher);
    }
}
