//! `calltape cassettes verify` and `prune`: read every cassette under a
//! folder and say what is wrong with it — unreadable, misfiled, holding a
//! key-shaped string — and which files no configured suite, scenario or
//! model needs any more (orphans, which `prune` deletes), among them a
//! simulated model's answers recorded by an older calltape (simulators are
//! computed in-process now, never replayed).
//!
//! Which recorded interactions a run leaves unused can only be known by
//! running it: `calltape run --mode replay --strict` does that.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use super::format::Cassette;
use super::secrets::SecretScan;
use super::{store, CassetteError};
use crate::config::ModelConfig;
use crate::core::plural::count;
use crate::scenario::Suite;

/// What the cassettes are checked against.
pub struct Scope<'a> {
    pub suites: &'a [Suite],
    pub models: &'a [ModelConfig],
    pub ignore_fields: &'a [String],
    pub scan: &'a SecretScan,
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The file cannot be replayed as it is, or must not be committed.
    Error,
    /// Nothing configured needs the file; `prune` deletes it.
    Orphan,
    /// Replays, but deserves a look.
    Warning,
}

/// One thing wrong with one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = match self.severity {
            Severity::Error => "error",
            Severity::Orphan => "orphan",
            Severity::Warning => "warning",
        };
        write!(f, "{label}: {}: {}", self.path.display(), self.message)
    }
}

/// What `verify` found.
#[derive(Debug, Default)]
pub struct Report {
    /// Cassette files read.
    pub files: usize,
    pub interactions: usize,
    pub findings: Vec<Finding>,
}

impl Report {
    pub fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }

    /// Whether verification passes: no errors and no orphans.
    pub fn passed(&self) -> bool {
        self.findings.iter().all(|f| f.severity == Severity::Warning)
    }

    /// The closing line.
    pub fn summary(&self) -> String {
        format!(
            "{}, {}: {}, {}, {}",
            count(self.files, "cassette"),
            count(self.interactions, "interaction"),
            count(self.count(Severity::Error), "error"),
            count(self.count(Severity::Orphan), "orphan"),
            count(self.count(Severity::Warning), "warning")
        )
    }
}

/// Checks every cassette under `dir` (laid out `<suite>/<model>/<file>`).
pub fn verify(dir: &Path, scope: &Scope<'_>) -> Result<Report, CassetteError> {
    let mut report = Report::default();
    let suites: BTreeMap<&str, &Suite> = scope.suites.iter().map(|s| (s.name.as_str(), s)).collect();
    // Scenario id → its index in the suite, per suite.
    let positions: BTreeMap<&str, HashMap<&str, usize>> =
        scope.suites.iter().map(|s| (s.name.as_str(), s.ids().enumerate().map(|(i, id)| (id, i)).collect())).collect();
    let models: BTreeMap<&str, &ModelConfig> = scope.models.iter().map(|m| (m.name.as_str(), m)).collect();
    for file in json_files(dir)? {
        let mut finding = |severity, message: String| report.findings.push(Finding { severity, path: file.clone(), message });
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if store::is_temporary(&name) {
            finding(Severity::Orphan, "a temporary file left by an interrupted write".into());
            continue;
        }
        let relative: Vec<String> =
            file.strip_prefix(dir).unwrap_or(&file).components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let [suite_dir, model_dir, _] = relative.as_slice() else {
            finding(Severity::Error, format!("not where a cassette lies ({}/<suite>/<model>/<scenario>.t<trial>.json)", dir.display()));
            continue;
        };
        let place = (store::decode_name(suite_dir), store::decode_name(model_dir), store::parse_file_name(&name));
        let (Some(suite_name), Some(model_name), Some((scenario_id, trial))) = place else {
            finding(Severity::Error, "not a cassette file name (<scenario>.t<trial>.json, in <suite>/<model>/)".into());
            continue;
        };
        report.files += 1;
        let suite = suites.get(suite_name.as_str());
        let scenario = positions.get(suite_name.as_str()).and_then(|p| p.get(scenario_id.as_str()));
        if suite.is_none() {
            let known: Vec<&str> = suites.keys().copied().collect();
            finding(Severity::Orphan, format!("suite {suite_name:?} is not among the suites checked ({})", known.join(", ")));
        } else if !models.contains_key(model_name.as_str()) {
            finding(Severity::Orphan, format!("model {model_name:?} is not configured"));
        } else if scenario.is_none() {
            finding(Severity::Orphan, format!("suite {suite_name:?} has no scenario {scenario_id:?}"));
        } else if !models[model_name.as_str()].runs(&scenario_id) {
            finding(Severity::Orphan, format!("model {model_name:?} does not run scenario {scenario_id:?} (its `scenarios` list)"));
        }
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) => {
                finding(Severity::Error, format!("cannot read: {e}"));
                continue;
            }
        };
        let text_secret = scope.scan.find(&text);
        if let Some(secret) = &text_secret {
            finding(Severity::Error, format!("{secret}: remove it and re-record"));
        }
        let cassette = match Cassette::parse(&text, &file) {
            Ok(c) => c,
            // The finding is listed under the file already: the message without the path.
            Err(CassetteError::Format { source, .. }) => {
                finding(Severity::Error, source.to_string());
                continue;
            }
            Err(e) => {
                finding(Severity::Error, e.to_string());
                continue;
            }
        };
        report.interactions += cassette.interactions.len();
        // What a line-by-line scan misses: a key split across a stream's events, escaped, or in a URL.
        if text_secret.is_none() {
            if let Some(secret) = scope.scan.find_in_cassette(&text, &cassette) {
                finding(Severity::Error, format!("{secret}: remove it and re-record"));
            }
        }
        let unit = &cassette.unit;
        if (unit.suite.as_str(), unit.model.as_str(), unit.scenario.as_str(), unit.trial)
            != (suite_name.as_str(), model_name.as_str(), scenario_id.as_str(), trial)
        {
            finding(
                Severity::Error,
                format!(
                    "holds the cassette of model {}, scenario {}/{}, trial {}: it is misfiled",
                    unit.model, unit.suite, unit.scenario, unit.trial
                ),
            );
        }
        for message in content_warnings(&cassette, &text, scope.ignore_fields) {
            finding(Severity::Warning, message);
        }
        // A simulator's answers are computed, never replayed; a simulated
        // model's cassette is needed only for the MCP exchanges it holds.
        let simulated = models.get(model_name.as_str()).is_some_and(|m| m.is_simulated());
        let only_model = cassette.interactions.iter().all(|i| !i.model.starts_with(crate::core::mcp::CASSETTE_MODEL_PREFIX));
        if cassette.simulated.is_some() || (simulated && only_model) {
            finding(Severity::Orphan, "a simulated model's answers: simulators are computed in-process and never replayed".into());
        }
    }
    report.findings.sort_by(|a, b| (a.severity, &a.path).cmp(&(b.severity, &b.path)));
    Ok(report)
}

/// Deletes the orphans `report` found (every file at most once) and the
/// folders that leaves empty; returns what it deleted, or with `dry_run`
/// what it would delete.
pub fn prune(dir: &Path, report: &Report, dry_run: bool) -> Result<Vec<PathBuf>, CassetteError> {
    let orphans: BTreeSet<&PathBuf> = report.findings.iter().filter(|f| f.severity == Severity::Orphan).map(|f| &f.path).collect();
    let mut deleted = Vec::new();
    for path in orphans {
        if !dry_run {
            std::fs::remove_file(path).map_err(|source| CassetteError::Write { path: path.clone(), source })?;
        }
        deleted.push(path.clone());
    }
    if !dry_run {
        let mut parents: BTreeSet<PathBuf> = deleted.iter().filter_map(|p| p.parent().map(Path::to_path_buf)).collect();
        // Deepest first, so a model folder goes before its suite folder.
        while let Some(folder) = parents.pop_last() {
            if folder.starts_with(dir) && folder != dir && std::fs::remove_dir(&folder).is_ok() {
                if let Some(up) = folder.parent() {
                    parents.insert(up.to_path_buf());
                }
            }
        }
    }
    Ok(deleted)
}

/// Things that replay but deserve a look: a file not as calltape writes it
/// (hand-edited, or merged by hand), keys that no longer match their requests.
fn content_warnings(cassette: &Cassette, text: &str, ignore_fields: &[String]) -> Vec<String> {
    let mut warnings = Vec::new();
    if cassette.to_text() != text {
        warnings.push("not in canonical form (edited by hand?); the next recording rewrites it".to_string());
    }
    for (i, interaction) in cassette.interactions.iter().enumerate() {
        let key = interaction.request.key(ignore_fields);
        if key != interaction.key {
            warnings.push(format!(
                "interaction #{} says key {} but its request's key is {key} (ignore_fields changed?); replay uses {key}",
                i + 1,
                interaction.key
            ));
        }
    }
    warnings
}

/// Every `*.json` file under `dir`, and our temporary files, sorted.
fn json_files(dir: &Path) -> Result<Vec<PathBuf>, CassetteError> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).map_err(|source| CassetteError::Read { path: folder.clone(), source })?;
        for entry in entries {
            let entry = entry.map_err(|source| CassetteError::Read { path: folder.clone(), source })?;
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                folders.push(path);
            } else if name.ends_with(".json") || store::is_temporary(&name) {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}
