//! `calltape merge`: joins the runs of a sharded suite (`--shard i/n` on
//! several machines) into one run folder whose tables equal a
//! single-machine run's, since tables are computed from events alone and do
//! not depend on their order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::events::{
    read_events, EventKind, EventLog, EventsError, ModelInfo, RunFinishedEvent, RunInterruptedEvent, RunStartedEvent, ScenarioStartedEvent,
    UnitKey,
};
use crate::runner::{new_run_id, RunFolder};

/// Why runs cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Events(#[from] EventsError),
    #[error("{0} is not a run folder: it has no events.jsonl")]
    NotARun(PathBuf),
    #[error("{0} has no run_started event: its events file is damaged")]
    NoStart(PathBuf),
    #[error("{} was interrupted: finish it with `calltape run --resume {}` first", dir.display(), crate::quote::shell_word(&dir.display().to_string()))]
    Interrupted { dir: PathBuf },
    #[error("{a} and {b} were run with different {what}; merge only shards of one plan")]
    Mismatch { a: PathBuf, b: PathBuf, what: &'static str },
    #[error("unit {model}/{scenario} trial {trial} is in both {a} and {b}: were the same shards run twice?")]
    Duplicate { model: String, scenario: String, trial: u32, a: PathBuf, b: PathBuf },
}

struct Start {
    models: Vec<ModelInfo>,
    suites: Vec<String>,
    trials: u32,
    seed: u64,
}

/// Merges the run folders into a new folder under `out_dir`.
pub fn merge_runs(dirs: &[PathBuf], out_dir: &Path) -> Result<RunFolder, MergeError> {
    let mut start: Option<(Start, PathBuf)> = None;
    let mut owner: HashMap<UnitKey, PathBuf> = HashMap::new();
    let mut unit_events = Vec::new();
    let mut units = 0;
    let mut elapsed_ms: f64 = 0.0;
    for dir in dirs {
        let path = dir.join("events.jsonl");
        if !path.is_file() {
            return Err(MergeError::NotARun(dir.clone()));
        }
        let events = read_events(&path)?;
        let mut this_start = None;
        for event in events {
            match &event.kind {
                EventKind::RunStarted(RunStartedEvent { models, suites, trials, seed, .. }) => {
                    this_start = Some(Start { models: models.clone(), suites: suites.clone(), trials: *trials, seed: *seed });
                }
                EventKind::RunInterrupted(RunInterruptedEvent { .. }) => return Err(MergeError::Interrupted { dir: dir.clone() }),
                EventKind::RunFinished(RunFinishedEvent { units: n, elapsed_ms: ms }) => {
                    units += n;
                    elapsed_ms = elapsed_ms.max(*ms);
                }
                kind => {
                    if let EventKind::ScenarioStarted(ScenarioStartedEvent { unit }) = kind {
                        if let Some(a) = owner.insert(unit.clone(), dir.clone()) {
                            return Err(MergeError::Duplicate {
                                model: unit.model.clone(),
                                scenario: unit.scenario.clone(),
                                trial: unit.trial,
                                a,
                                b: dir.clone(),
                            });
                        }
                    }
                    unit_events.push(event);
                }
            }
        }
        let this = this_start.ok_or_else(|| MergeError::NoStart(dir.clone()))?;
        match &mut start {
            None => start = Some((this, dir.clone())),
            Some((first, first_dir)) => {
                let mismatch = |what| MergeError::Mismatch { a: first_dir.clone(), b: dir.clone(), what };
                if first.seed != this.seed {
                    return Err(mismatch("seeds"));
                }
                if first.trials != this.trials {
                    return Err(mismatch("trial counts"));
                }
                if first.models.iter().map(|m| &m.name).ne(this.models.iter().map(|m| &m.name)) {
                    return Err(mismatch("models"));
                }
                for s in this.suites {
                    if !first.suites.contains(&s) {
                        first.suites.push(s);
                    }
                }
            }
        }
    }
    let Some((start, _)) = start else { return Err(MergeError::NotARun(PathBuf::from("(no run folders given)"))) };
    let (run_id, dir) = crate::run_folder::create_run_folder(out_dir, &new_run_id()).map_err(|e| EventsError::Folder(Box::new(e)))?;
    let log = EventLog::create_in(&dir)?;
    let sources: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    log.emit(EventKind::RunStarted(RunStartedEvent {
        run_id: run_id.clone(),
        models: start.models,
        suites: start.suites,
        trials: start.trials,
        seed: start.seed,
        config: format!("merged from {}", sources.join(", ")),
    }))?;
    for event in unit_events {
        log.emit_event(&event)?;
    }
    log.emit(EventKind::RunFinished(RunFinishedEvent { units, elapsed_ms }))?;
    Ok(RunFolder { run_id, dir, units, remaining: 0, cassettes: Default::default() })
}
