//! `calltape init`'s project template: a commented `calltape.toml` (two
//! simulated models that need no key, a live OpenAI-compatible model and a
//! local-server recipe to uncomment) and an example suite with its toolset.
//! The files live under `templates/init/` and are compiled in, so an
//! installed binary needs nothing beside it. Writing never overwrites a file
//! unless asked, and never writes through a symbolic link.

use std::path::{Path, PathBuf};

/// One file of the template: its path inside the project, and its text.
pub struct TemplateFile {
    pub path: &'static str,
    pub text: &'static str,
}

/// Every file `calltape init` writes, in the order it writes them.
pub const FILES: &[TemplateFile] = &[
    TemplateFile { path: "calltape.toml", text: include_str!("../templates/init/calltape.toml") },
    TemplateFile {
        path: "scenarios/example/toolsets/example.json",
        text: include_str!("../templates/init/scenarios/example/toolsets/example.json"),
    },
    TemplateFile {
        path: "scenarios/example/weather-paris.json",
        text: include_str!("../templates/init/scenarios/example/weather-paris.json"),
    },
    TemplateFile {
        path: "scenarios/example/search-then-ticket.json",
        text: include_str!("../templates/init/scenarios/example/search-then-ticket.json"),
    },
    TemplateFile {
        path: "scenarios/example/no-call-thanks.json",
        text: include_str!("../templates/init/scenarios/example/no-call-thanks.json"),
    },
];

/// Why a project could not be written.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("calltape init does not overwrite files, and these exist: {}", list(existing))]
    Exists { dir: PathBuf, existing: Vec<PathBuf> },
    #[error("{} exists and is not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error(
        "{} is a symbolic link: calltape init never writes through a link, with or without --force; remove the link or pass the folder it points to",
        path.display()
    )]
    Link { path: PathBuf },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

fn list(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Writes the template into `dir` (created if missing) and returns the paths
/// written. Without `force`, fails before writing anything if any of them
/// exists, naming each.
pub fn write_project(dir: &Path, force: bool) -> Result<Vec<PathBuf>, InitError> {
    if is_link(dir) {
        return Err(InitError::Link { path: dir.to_path_buf() });
    }
    if dir.exists() && !dir.is_dir() {
        return Err(InitError::NotAFolder { path: dir.to_path_buf() });
    }
    // A folder on the way that is a link would take the files elsewhere.
    if let Some(link) = FILES.iter().flat_map(|f| folders_on_the_way(dir, f.path)).find(|p| is_link(p)) {
        return Err(InitError::Link { path: link });
    }
    let targets: Vec<PathBuf> = FILES.iter().map(|f| dir.join(f.path)).collect();
    // symlink_metadata: a dangling link is still something we would replace.
    let existing: Vec<PathBuf> = targets.iter().filter(|p| p.symlink_metadata().is_ok()).cloned().collect();
    if !force && !existing.is_empty() {
        return Err(InitError::Exists { dir: dir.to_path_buf(), existing });
    }
    std::fs::create_dir_all(dir).map_err(|source| InitError::Write { path: dir.to_path_buf(), source })?;
    for (file, path) in FILES.iter().zip(&targets) {
        write_new(dir, file.path, file.text).map_err(|source| InitError::Write { path: path.clone(), source })?;
    }
    Ok(targets)
}

/// Writes `text` to a fresh file at `relative` inside `dir`: whatever was
/// there (a file or a link) is removed first, so a link is replaced, never
/// followed; a folder on the way that is a link stops the write.
fn write_new(dir: &Path, relative: &str, text: &str) -> std::io::Result<()> {
    // One folder at a time, each checked: `create_dir_all` would follow a
    // link put in place since the check above.
    for folder in folders_on_the_way(dir, relative) {
        match std::fs::create_dir(&folder) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        if !folder.symlink_metadata()?.is_dir() {
            return Err(std::io::Error::other(format!("{} is not a folder (a link?): not written through", folder.display())));
        }
    }
    let path = dir.join(relative);
    if let Ok(meta) = path.symlink_metadata() {
        if meta.is_dir() {
            return Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, "a folder is in the way"));
        }
        std::fs::remove_file(&path)?;
    }
    use std::io::Write;
    // create_new fails on anything at the path, a link included (O_EXCL).
    let mut out = std::fs::OpenOptions::new().write(true).create_new(true).open(&path)?;
    out.write_all(text.as_bytes())
}

/// The folders between `dir` and the file at `relative` inside it, outermost first.
fn folders_on_the_way(dir: &Path, relative: &str) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> =
        Path::new(relative).ancestors().skip(1).filter(|p| !p.as_os_str().is_empty()).map(|p| dir.join(p)).collect();
    folders.reverse();
    folders
}

fn is_link(path: &Path) -> bool {
    path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_file_then_refuses_to_overwrite_naming_them() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        let written = write_project(&project, false).unwrap();
        assert_eq!(written.len(), FILES.len());
        for f in FILES {
            assert_eq!(std::fs::read_to_string(project.join(f.path)).unwrap(), f.text);
        }
        std::fs::write(project.join("calltape.toml"), "# mine").unwrap();
        let e = write_project(&project, false).unwrap_err().to_string();
        assert!(e.contains("calltape.toml") && e.contains("weather-paris.json") && e.contains("does not overwrite"), "{e}");
        assert_eq!(std::fs::read_to_string(project.join("calltape.toml")).unwrap(), "# mine", "nothing overwritten");
        write_project(&project, true).unwrap();
        assert_eq!(std::fs::read_to_string(project.join("calltape.toml")).unwrap(), FILES[0].text);
    }

    #[test]
    fn one_existing_file_stops_the_whole_write() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("scenarios/example")).unwrap();
        std::fs::write(dir.path().join("scenarios/example/no-call-thanks.json"), "{}").unwrap();
        let e = write_project(dir.path(), false).unwrap_err().to_string();
        assert!(e.contains("no-call-thanks.json") && !e.contains("calltape.toml"), "{e}");
        assert!(!dir.path().join("calltape.toml").exists(), "nothing written when one file is in the way");
    }

    #[cfg(unix)]
    #[test]
    fn force_replaces_a_link_instead_of_writing_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "keep").unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir(&project).unwrap();
        std::os::unix::fs::symlink(&victim, project.join("calltape.toml")).unwrap();
        write_project(&project, true).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!project.join("calltape.toml").symlink_metadata().unwrap().file_type().is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn a_linked_folder_on_the_way_stops_the_write_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir(&project).unwrap();
        std::os::unix::fs::symlink(&elsewhere, project.join("scenarios")).unwrap();
        for force in [false, true] {
            let e = write_project(&project, force).unwrap_err().to_string();
            assert!(e.contains("scenarios") && e.contains("symbolic link"), "{e}");
            assert!(!project.join("calltape.toml").exists(), "nothing written");
            assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "nothing written through the link");
        }
        let linked = dir.path().join("linked");
        std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
        assert!(matches!(write_project(&linked, true), Err(InitError::Link { .. })));
    }

    #[test]
    fn a_file_in_place_of_the_folder_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "").unwrap();
        let e = write_project(&file, false).unwrap_err().to_string();
        assert!(e.contains("is not a folder"), "{e}");
    }

    #[test]
    fn the_template_config_parses_and_its_suite_loads() {
        let config = crate::config::Config::parse(FILES[0].text, "template").unwrap();
        assert_eq!(config.run.suites, vec![PathBuf::from("scenarios/example")]);
        assert!(config.models.iter().all(|m| m.provider == crate::config::ProviderKind::Sim), "the first run needs no key");
        let dir = tempfile::tempdir().unwrap();
        write_project(dir.path(), false).unwrap();
        let suites = crate::scenario::load_suites(&[dir.path().join("scenarios/example")]).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(suites[0].len(), 3);
    }
}
