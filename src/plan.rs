//! The run plan: what a run was asked to do (configuration, filters, shard),
//! saved as `plan.json` in its folder, so `calltape run --resume RUN_DIR`
//! can carry out exactly the units that did not finish, and `--shard i/n`
//! splits a suite across machines the same way on every one of them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::{ApprovalMode, Config};
use crate::events::{read_events, Event, EventKind, EventsError, UnitKey};
use crate::scenario::{self, Suite};
use crate::sim::rng::Rng;
use crate::transport::cassette::CassetteMode;

/// The file a run folder keeps its plan in.
pub const PLAN_FILE: &str = "plan.json";

/// One of `count` slices of the scenarios, `index` counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// Parses `i/n`, as in `--shard 2/4`.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("shard {text:?} is not i/n with 1 <= i <= n (e.g. 2/4)");
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
}

/// Problems with a plan or a folder to resume.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("{0}")]
    Load(String),
    #[error("no scenario matches the filters {filters:?}{shard}")]
    NothingToRun { filters: Vec<String>, shard: String },
    #[error("{dir} cannot be resumed: it has no {PLAN_FILE} (only runs made by calltape 0.1 or later with a plan can be)")]
    NoPlan { dir: PathBuf },
    #[error("{path}: {message}")]
    BadPlan { path: PathBuf, message: String },
    #[error(transparent)]
    Events(#[from] EventsError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

impl RunPlan {
    /// A plan that runs every scenario of the configured suites.
    pub fn whole(config: Config, config_origin: &str) -> RunPlan {
        RunPlan { config, config_origin: config_origin.into(), approve: None, mode: None, filters: Vec::new(), shard: None }
    }

    /// The suites to run: loaded, then narrowed by filters and shard.
    pub fn suites(&self) -> Result<Vec<Suite>, PlanError> {
        let mut suites = scenario::load_suites(&self.config.run.suites)
            .map_err(|errors| PlanError::Load(errors.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")))?;
        for suite in &mut suites {
            let name = suite.name.clone();
            suite.retain(|id| {
                (self.filters.is_empty() || self.filters.iter().any(|f| crate::check::glob_matches(f, id)))
                    && self.shard.is_none_or(|shard| shard.contains(&name, id))
            });
        }
        suites.retain(|s| !s.is_empty());
        if suites.is_empty() {
            let shard = self.shard.map(|s| format!(" in shard {}/{}", s.index, s.count)).unwrap_or_default();
            return Err(PlanError::NothingToRun { filters: self.filters.clone(), shard });
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

    /// Writes the plan into a run folder.
    pub fn save(&self, dir: &Path) -> Result<(), PlanError> {
        let path = dir.join(PLAN_FILE);
        let text = serde_json::to_string_pretty(self).expect("plans serialise");
        std::fs::write(&path, text + "\n").map_err(|source| PlanError::Io { path, source })
    }

    /// Reads the plan of a run folder.
    pub fn load(dir: &Path) -> Result<RunPlan, PlanError> {
        let path = dir.join(PLAN_FILE);
        if !path.is_file() {
            return Err(PlanError::NoPlan { dir: dir.into() });
        }
        let text = std::fs::read_to_string(&path).map_err(|source| PlanError::Io { path: path.clone(), source })?;
        serde_json::from_str(&text).map_err(|e| PlanError::BadPlan { path, message: e.to_string() })
    }
}

/// Prepares a run folder to be resumed: keeps the events of every unit that
/// finished (and the run's start), drops those of units cut off half-way —
/// they run again from the start — and returns the finished units. The
/// events file is rewritten through a temporary file, so a crash here loses
/// nothing.
pub fn prepare_resume(dir: &Path) -> Result<HashSet<UnitKey>, PlanError> {
    let path = dir.join("events.jsonl");
    cut_torn_last_line(&path)?;
    let events = read_events(&path)?;
    let done: HashSet<UnitKey> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ScenarioFinished { unit, .. } => Some(unit.clone()),
            _ => None,
        })
        .collect();
    let kept: Vec<&Event> = events
        .iter()
        .filter(|e| match e.kind.unit() {
            Some(unit) => done.contains(unit),
            None => matches!(e.kind, EventKind::RunStarted { .. }),
        })
        .collect();
    let mut text = String::new();
    for e in kept {
        text.push_str(&serde_json::to_string(e).expect("events serialise"));
        text.push('\n');
    }
    let tmp = dir.join("events.jsonl.tmp");
    std::fs::write(&tmp, text).map_err(|source| PlanError::Io { path: tmp.clone(), source })?;
    std::fs::rename(&tmp, &path).map_err(|source| PlanError::Io { path: path.clone(), source })?;
    Ok(done)
}

/// A run killed outright (SIGKILL, power loss) can leave half a line at the
/// end of its events file: everything after the last newline goes.
fn cut_torn_last_line(path: &Path) -> Result<(), PlanError> {
    let io = |source| PlanError::Io { path: path.into(), source };
    let bytes = std::fs::read(path).map_err(io)?;
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        return Ok(());
    }
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let file = std::fs::OpenOptions::new().write(true).open(path).map_err(io)?;
    file.set_len(keep as u64).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_split_every_scenario_exactly_once() {
        assert_eq!("2/4".parse::<Shard>().unwrap(), Shard { index: 2, count: 4 });
        for bad in ["0/3", "4/3", "1/0", "a/b", "3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
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

    #[test]
    fn resume_keeps_finished_units_and_drops_half_done_ones() {
        use crate::events::EventLog;
        let dir = tempfile::tempdir().unwrap();
        let log = EventLog::create(&dir.path().join("events.jsonl")).unwrap();
        let unit = |s: &str| UnitKey { model: "m".into(), suite: "s".into(), scenario: s.into(), trial: 0 };
        let finished =
            |s: &str| EventKind::ScenarioFinished { unit: unit(s), passed: true, reason: "passed".into(), steps: 1, error: false };
        log.emit(EventKind::ScenarioStarted { unit: unit("a") }).unwrap();
        log.emit(EventKind::ScenarioStarted { unit: unit("b") }).unwrap();
        log.emit(finished("a")).unwrap();
        log.emit(EventKind::RunInterrupted { completed: 1, remaining: 1 }).unwrap();
        drop(log);
        // Killed mid-write: half an event at the end.
        let mut file = std::fs::OpenOptions::new().append(true).open(dir.path().join("events.jsonl")).unwrap();
        std::io::Write::write_all(&mut file, b"{\"ts_ms\":1,\"event\":\"scenario_st").unwrap();
        let done = prepare_resume(dir.path()).unwrap();
        assert_eq!(done, HashSet::from([unit("a")]));
        let left = read_events(&dir.path().join("events.jsonl")).unwrap();
        let kinds: Vec<EventKind> = left.into_iter().map(|e| e.kind).collect();
        assert_eq!(kinds, vec![EventKind::ScenarioStarted { unit: unit("a") }, finished("a")]);
    }
}
