//! A fitted simulator profile file (`sim fit` writes it), as a simulated
//! model uses it: `profile = "profiles/qwen2.5-coder-0.5b.toml"` in
//! `[[models]]`. Its `[sim]` table is the model's `[models.sim]`; its
//! `[fitted]` table says from what run, so reports can name it. The
//! bundled default's profiles are compiled in, so the embedded default
//! finds them anywhere.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sim::SimProfile;

/// The profiles the embedded default names, by the path it writes.
pub const BUNDLED: [(&str, &str); 2] = [
    ("profiles/qwen2.5-coder-0.5b.toml", include_str!(concat!(env!("OUT_DIR"), "/qwen2.5-coder-0.5b.toml"))),
    ("profiles/qwen2.5-coder-1.5b.toml", include_str!(concat!(env!("OUT_DIR"), "/qwen2.5-coder-1.5b.toml"))),
];

/// Where a fitted profile came from: its `[fitted]` table, and the path
/// the configuration named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FittedFrom {
    /// The real model's name in the run.
    pub model: String,
    /// The run folders fitted.
    pub runs: Vec<String>,
    /// `half` or `none` (see `fit::Holdout`).
    pub holdout: String,
    /// The profile path as the configuration wrote it (set on load).
    #[serde(default)]
    pub profile: String,
}

impl FittedFrom {
    /// "fitted to MODEL (RUNS), profile PATH": how the header and reports name it.
    pub fn describe(&self) -> String {
        let runs = match self.runs.as_slice() {
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} and {}", crate::core::plural::count(rest.len(), "more run")),
            [] => "no run".into(),
        };
        format!("fitted to {} in {runs} ({})", self.model, self.profile)
    }
}

#[derive(Debug, Deserialize)]
struct ProfileFile {
    fitted: FittedFrom,
    sim: SimProfile,
}

/// A profile that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("profile {path}: {source}; write the file with `calltape sim fit RUN_DIR --model NAME --out {path}`")]
    Read { path: String, source: std::io::Error },
    #[error("profile {path}: not a fitted profile (it needs [fitted] and [sim] tables, as `calltape sim fit` writes): {source}")]
    Syntax { path: String, source: toml::de::Error },
    #[error("profile {path}: {source}")]
    Rates { path: String, source: crate::sim::SimProfileError },
}

/// Reads `path` (relative to `base`, the working directory), else the
/// bundled copy of that path.
pub fn load(path: &str, base: &Path) -> Result<(SimProfile, FittedFrom), ProfileError> {
    let file: PathBuf = base.join(path);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(source) => match BUNDLED.iter().find(|(p, _)| *p == path) {
            Some((_, text)) => (*text).to_string(),
            None => return Err(ProfileError::Read { path: file.display().to_string(), source }),
        },
    };
    parse(&text, path)
}

/// Parses a profile's text; `path` names it in errors and in `FittedFrom`.
pub fn parse(text: &str, path: &str) -> Result<(SimProfile, FittedFrom), ProfileError> {
    let file: ProfileFile = toml::from_str(text).map_err(|source| ProfileError::Syntax { path: path.into(), source })?;
    file.sim.validate().map_err(|source| ProfileError::Rates { path: path.into(), source })?;
    Ok((file.sim, FittedFrom { profile: path.into(), ..file.fitted }))
}
