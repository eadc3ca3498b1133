//! The run plan: what a run was asked to do (configuration, filters, shard),
//! saved as `plan.json` in its folder, so `calltape run --resume RUN_DIR`
//! can carry out exactly the units that did not finish, and `--shard i/n`
//! splits a suite across machines the same way on every one of them, each
//! shard taking its share of the models' provider limits (`share`).
//!
//! A plan read back is data from a file, perhaps someone else's: every
//! field is checked before it is used, and `trust` compares where it would
//! send requests and keys with the user's own configuration.

pub mod share;
pub mod trust;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::Config;

use crate::core::modes::ApprovalMode;
use crate::core::modes::CassetteMode;
use crate::core::rng::Rng;
use crate::events::{parse_events, Event, EventKind, EventsError, RunStartedEvent, ScenarioFinishedEvent, UnitKey};
use crate::run_folder::{self, FolderError};
use crate::scenario::{self, Suite};

/// The file a run folder keeps its plan in.
pub const PLAN_FILE: &str = "plan.json";

/// One of `count` slices of the scenarios, `index` counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// A `--shard` value that is not `i/n` with `1 <= i <= n`. Its message is
/// what clap prints after naming the flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("shard {text:?} is not i/n with 1 <= i <= n (e.g. 2/4)")]
pub struct ShardError {
    /// The text given.
    pub text: String,
}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    /// Parses `i/n`, as in `--shard 2/4`.
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError { text: text.to_string() };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse::<u32>().map_err(|_| bad())?, n.trim().parse::<u32>().map_err(|_| bad())?);
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether this shard runs the scenario. A hash of the suite and id, not
    /// its position, so adding a scenario moves no other between shards.
    pub fn contains(&self, suite: &str, scenario_id: &str) -> bool {
        Rng::from_parts(&[suite, scenario_id]).next_u64() % u64::from(self.count) == u64::from(self.index - 1)
    }
}

/// What a run was asked to do.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunPlan {
    pub config: Config,
    /// Where the configuration came from, for the run's header.
    pub config_origin: String,
    /// `--approve`, which the configuration does not keep.
    pub approve: Option<ApprovalMode>,
    /// `--mode`, which the configuration does not keep either.
    #[serde(default)]
    pub mode: Option<CassetteMode>,
    /// `--filter` globs on scenario ids (empty: all).
    pub filters: Vec<String>,
    pub shard: Option<Shard>,
    /// `--shard-limits` of a sharded plan, whose models' limits are already
    /// divided as it says (see [`share`]). Absent without a shard, and from
    /// plans saved before the flag existed: their shards kept whole limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard_limits: Option<share::ShardLimits>,
    /// `--until-decisive`: trials are added round by round until every
    /// comparison is decided; kept here so `--resume` goes on with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until_decisive: Option<UntilDecisive>,
}

/// The limits of `run --until-decisive`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UntilDecisive {
    /// The smallest difference in pass rate worth telling apart (0: any).
    pub min_diff: f64,
    /// Trials per scenario at most.
    pub max_trials: u32,
    /// Dollars the whole run may cost at most.
    pub budget_usd: Option<f64>,
    /// Trials per scenario at the previous look (0 before the first): the
    /// error spent so far (see `paired::look_alpha`).
    pub looked_at: u32,
    /// Comparisons decided at an earlier look ("first vs second"): they
    /// stay decided.
    #[serde(default)]
    pub decided: Vec<String>,
}

/// A field of a plan that is out of sense, named as `field <name>: …`.
#[derive(Debug, thiserror::Error)]
pub enum PlanCheckError {
    /// The configuration fails the checks `calltape.toml` gets.
    #[error("field config: {source}")]
    Config {
        #[source]
        source: crate::config::ConfigProblem,
    },
    #[error("field shard: {index}/{count} is not i/n with 1 <= i <= n")]
    Shard { index: u32, count: u32 },
    #[error("field filters: at most {MAX_FILTERS} globs of at most {MAX_FILTER_BYTES} bytes each")]
    Filters,
    /// A path field that is empty or holds a NUL byte.
    #[error("field {field}: {text:?} is not a path")]
    NotAPath { field: &'static str, text: String },
    #[error("field config.run.suites: no suite to run")]
    NoSuites,
}

/// Problems with a plan or a folder to resume.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The suites' problems, every one (each names its file:line:col).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Load(Vec<crate::scenario::LoadError>),
    #[error("no scenario matches the filters {filters:?}{shard}; the suites hold {existing} (a filter is a glob over scenario ids)")]
    NothingToRun {
        filters: Vec<String>,
        shard: String,
        /// What there is to match: each suite with its first ids.
        existing: String,
    },
    #[error("{dir} cannot be resumed: it has no {PLAN_FILE} (only runs made by calltape 0.1 or later with a plan can be)")]
    NoPlan { dir: PathBuf },
    #[error("{path}: {message}; this plan was not written by calltape, or was edited: fix or remove that field")]
    BadPlan { path: PathBuf, message: String },
    /// Not JSON, or not the shape of a plan; the serde error, with the path
    /// of the field that failed, is kept as the source.
    #[error(
        "{path}: field {}: {}; this plan was not written by calltape, or was edited: fix or remove that field",
        source.path(),
        source.inner()
    )]
    Unreadable {
        path: PathBuf,
        #[source]
        source: serde_path_to_error::Error<serde_json::Error>,
    },
    /// Read, but a field fails the checks of [`RunPlan::check`].
    #[error("{path}: {source}; this plan was not written by calltape, or was edited: fix or remove that field")]
    BadField {
        path: PathBuf,
        #[source]
        source: PlanCheckError,
    },
    #[error(transparent)]
    Folder(#[from] FolderError),
    #[error(transparent)]
    Events(#[from] EventsError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

impl RunPlan {
    /// A plan that runs every scenario of the configured suites.
    pub fn whole(config: Config, config_origin: &str) -> RunPlan {
        RunPlan {
            config,
            config_origin: config_origin.into(),
            approve: None,
            mode: None,
            filters: Vec::new(),
            shard: None,
            shard_limits: None,
            until_decisive: None,
        }
    }

    /// Points suites that are not where the plan says (a run folder made in
    /// another checkout or on another machine: the plan holds absolute
    /// paths) at the same suites under the current directory, found by the
    /// longest tail of their path that is a folder here
    /// (`/elsewhere/repo/scenarios/coding` → `scenarios/coding`). Returns a
    /// note per suite moved, to show the user.
    pub fn relocate_suites(&mut self) -> Vec<String> {
        let mut notes = Vec::new();
        for suite in &mut self.config.run.suites {
            if let Some(here) = relocated(suite) {
                notes.push(format!("suite {} is not there; using {} (the same path under this folder)", suite.display(), here.display()));
                *suite = here;
            }
        }
        notes
    }

    /// The suites to run: loaded, then narrowed by filters and shard.
    pub fn suites(&self) -> Result<Vec<Suite>, PlanError> {
        let mut suites =
            scenario::load_suites_injected(&self.config.run.suites, self.config.run.inject.as_ref()).map_err(PlanError::Load)?;
        let existing = existing_ids(&suites);
        for suite in &mut suites {
            let name = suite.name.clone();
            suite.retain(|id| {
                // An injected half goes with its clean half: a filter naming
                // the scenario takes both, and both fall in one shard.
                let base = scenario::injection::base_id(id);
                let matches = |f: &String| crate::core::glob::glob_matches(f, id) || crate::core::glob::glob_matches(f, base);
                (self.filters.is_empty() || self.filters.iter().any(matches)) && self.shard.is_none_or(|shard| shard.contains(&name, base))
            });
        }
        suites.retain(|s| !s.is_empty());
        if suites.is_empty() {
            let shard = self.shard.map(|s| format!(" in shard {}/{}", s.index, s.count)).unwrap_or_default();
            return Err(PlanError::NothingToRun { filters: self.filters.clone(), shard, existing });
        }
        Ok(suites)
    }

    /// The configuration with `--approve` applied.
    pub fn effective_config(&self) -> Config {
        let mut config = self.config.clone();
        config.approval.mode_override = self.approve;
        config.run.mode_override = self.mode;
        config
    }

    /// Writes the plan into a run folder, without secrets: header values
    /// and the password and query of base URLs are redacted (on resume they
    /// come from the user's configuration, see `trust::restore_secrets`).
    pub fn save(&self, dir: &Path) -> Result<(), PlanError> {
        let mut plan = self.clone();
        trust::redact_secrets(&mut plan.config);
        let text = serde_json::to_string_pretty(&plan).expect("plans serialise");
        run_folder::write_file_durable(dir, PLAN_FILE, |w| writeln!(w, "{text}"))?;
        Ok(())
    }

    /// Reads the plan of a run folder and checks every field.
    pub fn load(dir: &Path) -> Result<RunPlan, PlanError> {
        let path = dir.join(PLAN_FILE);
        let meta = match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(PlanError::NoPlan { dir: dir.into() }),
            Err(source) => return Err(PlanError::Io { path, source }),
            Ok(m) => m,
        };
        if meta.file_type().is_symlink() || !meta.is_file() {
            return Err(PlanError::BadPlan { path, message: "is not a regular file (a link or a folder)".into() });
        }
        if meta.len() > MAX_PLAN_BYTES {
            let message = format!("is {} bytes; a plan is at most {MAX_PLAN_BYTES}", meta.len());
            return Err(PlanError::BadPlan { path, message });
        }
        let text = std::fs::read_to_string(&path).map_err(|source| PlanError::Io { path: path.clone(), source })?;
        let plan: RunPlan = serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(&text))
            .map_err(|source| PlanError::Unreadable { path: path.clone(), source })?;
        plan.check().map_err(|source| PlanError::BadField { path, source })?;
        Ok(plan)
    }

    /// Checks every field, as `load` does: the configuration as
    /// `calltape.toml` is checked, then the shard, filters and paths.
    pub fn check(&self) -> Result<(), PlanCheckError> {
        self.config.check().map_err(|source| PlanCheckError::Config { source })?;
        if let Some(Shard { index, count }) = self.shard {
            if index == 0 || count == 0 || index > count {
                return Err(PlanCheckError::Shard { index, count });
            }
        }
        if self.filters.len() > MAX_FILTERS || self.filters.iter().any(|f| f.len() > MAX_FILTER_BYTES) {
            return Err(PlanCheckError::Filters);
        }
        let paths = self.config.run.suites.iter().map(|p| ("config.run.suites", p));
        let paths = paths.chain([("config.run.out_dir", &self.config.run.out_dir), ("config.cassettes.dir", &self.config.cassettes.dir)]);
        for (field, path) in paths {
            let text = path.to_string_lossy();
            if text.is_empty() || text.contains('\0') {
                return Err(PlanCheckError::NotAPath { field, text: text.into_owned() });
            }
        }
        if self.config.run.suites.is_empty() {
            return Err(PlanCheckError::NoSuites);
        }
        Ok(())
    }
}

/// Where a suite that is not at `path` is under the current directory:
/// the longest tail of `path` that is a folder here, made absolute.
fn relocated(path: &Path) -> Option<PathBuf> {
    if path.exists() {
        return None;
    }
    let parts: Vec<_> = path.components().filter(|c| matches!(c, std::path::Component::Normal(_))).collect();
    (0..parts.len())
        .map(|start| parts[start..].iter().collect::<PathBuf>())
        .find(|tail| tail.is_dir())
        .map(|tail| std::fs::canonicalize(&tail).unwrap_or(tail))
}

/// The largest `plan.json` read: plans are a few kilobytes.
const MAX_PLAN_BYTES: u64 = 16 << 20;
/// `--filter` globs a plan may hold, and their length.
const MAX_FILTERS: usize = 10_000;
const MAX_FILTER_BYTES: usize = 4_096;

/// Prepares a run folder to be resumed: keeps the events of every unit that
/// finished (and the run's start), drops those of units cut off half-way —
/// they run again from the start — and returns the finished units. The
/// events file is replaced atomically, never through a link, so a crash
/// here loses nothing and nothing outside the folder is touched.
pub fn prepare_resume(dir: &Path) -> Result<HashSet<UnitKey>, PlanError> {
    let path = dir.join(run_folder::EVENTS_FILE);
    let mut bytes = run_folder::read_events_bytes(dir)?;
    // A run killed outright (SIGKILL, power loss) can leave half a line at
    // the end of its events file: everything after the last newline goes.
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(keep);
    let events = parse_events(bytes.as_slice(), &path)?;
    drop(bytes);
    let done: HashSet<UnitKey> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ScenarioFinished(ScenarioFinishedEvent { unit, .. }) => Some(unit.clone()),
            _ => None,
        })
        .collect();
    let kept: Vec<&Event> = events
        .iter()
        .filter(|e| match e.kind.unit() {
            Some(unit) => done.contains(unit),
            None => matches!(e.kind, EventKind::RunStarted(RunStartedEvent { .. })),
        })
        .collect();
    run_folder::write_file_durable(dir, run_folder::EVENTS_FILE, |w| {
        for e in kept {
            serde_json::to_writer(&mut *w, e)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    })?;
    Ok(done)
}

/// Each suite with its first few scenario ids, for an error that says what
/// a filter could have matched: `coding (55: bash-cargo-test, …)` (the
/// command line escapes it when it prints the error).
fn existing_ids(suites: &[Suite]) -> String {
    const SHOWN: usize = 4;
    let described: Vec<String> = suites
        .iter()
        .map(|s| {
            let ids: Vec<&str> = s.ids().take(SHOWN).collect();
            let more = if s.len() > SHOWN { ", …" } else { "" };
            format!("{} ({}: {}{more})", s.name, s.len(), ids.join(", "))
        })
        .collect();
    described.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{RunInterruptedEvent, ScenarioFinishedEvent, ScenarioStartedEvent};

    #[test]
    fn suites_from_another_checkout_are_found_under_this_folder() {
        // A plan made in /elsewhere/…/calltape names its suites there; run in
        // this crate's folder, whose `src` holds `plan`, they are found here.
        let here = std::env::current_dir().unwrap();
        let mut plan = RunPlan::whole(Config::parse("", "t.toml").unwrap(), "t.toml");
        plan.config.run.suites = vec!["/elsewhere/checkout/src/plan".into(), here.join("src"), "/no/such/suite".into()];
        let notes = plan.relocate_suites();
        assert_eq!(plan.config.run.suites, vec![here.join("src/plan"), here.join("src"), PathBuf::from("/no/such/suite")]);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("suite /elsewhere/checkout/src/plan is not there; using "), "{}", notes[0]);
    }

    #[test]
    fn shards_parse_and_split_every_scenario_exactly_once() {
        assert_eq!("2/4".parse::<Shard>().unwrap(), Shard { index: 2, count: 4 });
        for bad in ["0/3", "4/3", "1/0", "a/b", "3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!("4/3".parse::<Shard>().unwrap_err().to_string(), "shard \"4/3\" is not i/n with 1 <= i <= n (e.g. 2/4)");
        let ids: Vec<String> = (0..300).map(|i| format!("scenario-{i}")).collect();
        let shards: Vec<Shard> = (1..=3).map(|index| Shard { index, count: 3 }).collect();
        let mut sizes = [0usize; 3];
        for id in &ids {
            let owners: Vec<usize> = (0..3).filter(|&i| shards[i].contains("coding", id)).collect();
            assert_eq!(owners.len(), 1, "{id}");
            sizes[owners[0]] += 1;
        }
        assert!(sizes.iter().all(|&n| n > 70), "{sizes:?}");
    }

    /// What `run --resume` prints for a plan edited by hand, byte for byte,
    /// with the check that failed kept as the source.
    #[test]
    fn a_bad_field_reads_as_before_and_keeps_its_source() {
        use std::error::Error;
        let config = Config::parse(crate::config::EMBEDDED_DEFAULT, "embedded").unwrap();
        let mut plan = RunPlan::whole(config, "embedded");
        plan.shard = Some(Shard { index: 3, count: 2 });
        assert_eq!(plan.check().unwrap_err().to_string(), "field shard: 3/2 is not i/n with 1 <= i <= n");
        plan.shard = None;
        plan.config.run.out_dir = PathBuf::new();
        assert_eq!(plan.check().unwrap_err().to_string(), "field config.run.out_dir: \"\" is not a path");
        plan.config.run.out_dir = "reports".into();
        plan.filters = vec!["x".repeat(MAX_FILTER_BYTES + 1)];
        assert_eq!(plan.check().unwrap_err().to_string(), "field filters: at most 10000 globs of at most 4096 bytes each");
        plan.filters.clear();
        plan.config.run.suites.clear();
        assert_eq!(plan.check().unwrap_err().to_string(), "field config.run.suites: no suite to run");
        plan.config.run.suites = vec!["scenarios/coding".into()];
        plan.config.run.trials = 0;
        let err = PlanError::BadField { path: "r/plan.json".into(), source: plan.check().unwrap_err() };
        assert_eq!(
            err.to_string(),
            "r/plan.json: field config: run.trials must be between 1 and 10000, got 0; this plan was not written by calltape, or was edited: fix or remove that field"
        );
        assert!(err.source().and_then(Error::source).is_some(), "the configuration's problem is kept");

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(PLAN_FILE), "{\"config\": {\"run\": {\"trials\": \"many\"}}}").unwrap();
        let err = RunPlan::load(dir.path()).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("plan.json: field config.run.trials: invalid type: string \"many\""), "{text}");
        assert!(text.ends_with("; this plan was not written by calltape, or was edited: fix or remove that field"), "{text}");
        assert!(err.source().is_some());
    }

    #[test]
    fn resume_keeps_finished_units_and_drops_half_done_ones() {
        use crate::events::{read_events, EventLog};
        let out = tempfile::tempdir().unwrap();
        let (_, dir) = run_folder::create_run_folder(out.path(), "r").unwrap();
        let log = EventLog::create_in(&dir).unwrap();
        let unit = |s: &str| UnitKey { model: "m".into(), suite: "s".into(), scenario: s.into(), trial: 0 };
        let finished = |s: &str| {
            EventKind::ScenarioFinished(ScenarioFinishedEvent {
                outcome: None,
                unit: unit(s),
                passed: true,
                reason: "passed".into(),
                steps: 1,
                error: false,
                expectation: None,
                error_kind: None,
            })
        };
        log.emit(EventKind::ScenarioStarted(ScenarioStartedEvent { unit: unit("a") })).unwrap();
        log.emit(EventKind::ScenarioStarted(ScenarioStartedEvent { unit: unit("b") })).unwrap();
        log.emit(finished("a")).unwrap();
        log.emit(EventKind::RunInterrupted(RunInterruptedEvent { completed: 1, remaining: 1 })).unwrap();
        drop(log);
        // Killed mid-write: half an event at the end.
        let mut file = std::fs::OpenOptions::new().append(true).open(dir.join("events.jsonl")).unwrap();
        std::io::Write::write_all(&mut file, b"{\"ts_ms\":1,\"event\":\"scenario_st").unwrap();
        let done = prepare_resume(&dir).unwrap();
        assert_eq!(done, HashSet::from([unit("a")]));
        let left = read_events(&dir.join("events.jsonl")).unwrap();
        let kinds: Vec<EventKind> = left.into_iter().map(|e| e.kind).collect();
        assert_eq!(kinds, vec![EventKind::ScenarioStarted(ScenarioStartedEvent { unit: unit("a") }), finished("a")]);
    }
}
