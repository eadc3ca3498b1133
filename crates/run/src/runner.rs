//! The runner: every (model, scenario, trial) unit, concurrently within each
//! model's limit, into a run folder — `reports/<run-id>/` with
//! `events.jsonl` and the tables — and a copy at `reports/latest/`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use tokio::sync::Semaphore;

use crate::agent::{run_unit, Endpoint, Unit};
use crate::approver::{NoTerminal, PersonApprover};
use crate::config::{Config, ModelConfig};
use crate::core::modes::ApprovalMode;
use crate::core::modes::CassetteMode;
use crate::core::time::UtcTime;
use crate::events::{
    ArmInfo, EventKind, EventLog, EventsError, ModelInfo, RunFinishedEvent, RunInterruptedEvent, RunStartedEvent, UnitKey,
};
use crate::interrupt::{self, StopFlag};
use crate::mcp::{self, McpLink};
use crate::pipeline::RepairRules;
use crate::plan::RunPlan;
use crate::provider::{self, Provider};
use crate::run_folder;
use crate::scenario::{McpToolset, Scenario, Suite};
use crate::transport::cassette::{CassetteOutcome, CassetteSummary, RecordAdvice, Recordings, SecretScan, UnitCassette};
use crate::transport::live::LiveTransport;
use crate::transport::sim::SimTransport;
use crate::transport::Transport;

/// Why a run could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Events(#[from] EventsError),
    #[error("cannot create run folder {path}: {source}")]
    Folder { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    RunFolder(#[from] run_folder::FolderError),
    #[error("model {model:?}: {message}")]
    Model { model: String, message: String },
    /// A model cannot be set up (a missing key variable): found before any work.
    #[error("{0}")]
    Setup(#[from] crate::transport::live::LiveError),
    #[error("no models to run: add [[models]] to calltape.toml")]
    NoModels,
    #[error(transparent)]
    NoTerminal(#[from] NoTerminal),
    #[error("run stopped at the first request with no recording (--fail-fast): {0}")]
    Stopped(String),
    /// A scenario could not be read again when its turn came: its file
    /// changed during the run. The units done so far are kept.
    #[error("{error}\nthe run stopped there; once the suite checks (`calltape check`), finish it with: calltape run --resume {}", crate::quote::shell_word(&dir.display().to_string()))]
    Suite { error: crate::scenario::LoadError, dir: PathBuf },
}

/// Where a run was written.
#[derive(Debug, Clone)]
pub struct RunFolder {
    pub run_id: String,
    pub dir: PathBuf,
    /// Every unit of the plan.
    pub units: u64,
    /// Units not run because the run was stopped (0: it is complete).
    pub remaining: u64,
    /// What the cassettes did (empty when every model ran live).
    pub cassettes: CassetteSummary,
}

/// A new run, or the rest of an interrupted one.
pub enum RunTarget<'a> {
    /// A new folder under `out_dir`, with this plan saved in it.
    New(&'a RunPlan),
    /// An existing folder whose `done` units are not run again
    /// (see `plan::prepare_resume`).
    Resume { dir: PathBuf, done: HashSet<UnitKey> },
}

/// A run id from the wall clock: `YYYYMMDD-HHMMSS-mmm` (UTC).
pub fn new_run_id() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let t = UtcTime::from_unix(now.as_secs() as i64);
    format!("{:04}{:02}{:02}-{:02}{:02}{:02}-{:03}", t.year, t.month, t.day, t.hour, t.minute, t.second, now.subsec_millis())
}

/// Runs every unit and writes `events.jsonl` into a new run folder under
/// `config.run.out_dir`. Tables are built afterwards from the events.
pub async fn run(
    config: &Config,
    config_origin: &str,
    suites: &[Suite],
    show_progress: bool,
    target: RunTarget<'_>,
) -> Result<RunFolder, RunError> {
    if config.models.is_empty() {
        return Err(RunError::NoModels);
    }
    let live = Arc::new(live_transports(config)?);
    let total = count_units(config, suites);
    let progress = progress_bar(show_progress, total);
    let person = person_if_needed(config, suites, &progress)?;
    let Opened { run_id, dir, events, done } = open_run_folder(target, config, config_origin, suites)?;
    let stop = StopFlag::default();
    let listener = interrupt::listen(stop.clone(), progress.clone());
    progress.set_position(done.len() as u64);

    let started = Instant::now();
    let config = Arc::new(config.clone());
    let rules = Arc::new(RepairRules { aliases: config.pipeline.aliases.clone(), defaults: config.pipeline.defaults.clone() });
    let recordings = Recordings::with_advice(
        config.cassettes.clone(),
        secret_scan(&config, suites),
        stop.clone(),
        record_advice(&config, config_origin),
    );
    let lanes = lanes(&config);
    let shared =
        Arc::new(Shared { events: events.clone(), config: config.clone(), progress: progress.clone(), rules, person, live, recordings });
    let mut tally = Tally::new(done.len() as u64, &config);
    let suite_error =
        dispatch(suites, &lanes, &done, &shared, &stop, &mut tally).await.map(|error| RunError::Suite { error, dir: dir.clone() });
    listener.abort();
    progress.finish_and_clear();
    if let Some(e) = suite_error.or(tally.first_error) {
        return Err(e);
    }
    let remaining = total - tally.completed;
    if remaining > 0 {
        events.emit(EventKind::RunInterrupted(RunInterruptedEvent { completed: tally.completed, remaining }))?;
    } else {
        events.emit(EventKind::RunFinished(RunFinishedEvent { units: total, elapsed_ms: started.elapsed().as_secs_f64() * 1e3 }))?;
    }
    Ok(RunFolder { run_id, dir, units: total, remaining, cassettes: tally.cassettes })
}

/// What a "record it with" command needs to record a unit of this run as printed.
fn record_advice(config: &Config, config_origin: &str) -> RecordAdvice {
    // The origin is a file's path, or says the embedded default was used.
    let config_file = (!config_origin.starts_with("embedded")).then(|| config_origin.to_string());
    let suites = config.run.suites.iter().filter_map(|dir| Some((dir.file_name()?.to_string_lossy().into_owned(), dir.clone()))).collect();
    RecordAdvice {
        config: config_file,
        recordings: (config.cassettes.dir != crate::core::cassette::CassetteSettings::default().dir).then(|| config.cassettes.dir.clone()),
        seed: (config.run.seed != crate::config::RunSettings::default().seed).then_some(config.run.seed),
        suites,
    }
}

/// Every (model, scenario, trial) unit of the run, done or not.
fn count_units(config: &Config, suites: &[Suite]) -> u64 {
    let runs = |m: &ModelConfig| suites.iter().flat_map(Suite::ids).filter(|id| m.runs(id)).count() as u64;
    config.models.iter().map(|m| runs(m) * u64::from(m.trials(config.run.trials))).sum()
}

fn progress_bar(show: bool, total: u64) -> ProgressBar {
    let progress = if show { ProgressBar::new(total) } else { ProgressBar::hidden() };
    progress.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} units  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    progress
}

/// The person who answers approvals, when any approval may ask one:
/// interactive approval needs a terminal, so the run refuses to start without one.
fn person_if_needed(config: &Config, suites: &[Suite], progress: &ProgressBar) -> Result<Option<Arc<PersonApprover>>, RunError> {
    let interactive = config.approval.mode_override.unwrap_or(config.approval.mode) == ApprovalMode::Interactive
        || (config.approval.mode_override.is_none() && suites.iter().any(Suite::needs_person));
    Ok(if interactive { Some(Arc::new(PersonApprover::on_terminal(progress.clone())?)) } else { None })
}

/// The run folder the events go to, and the units already done in it.
struct Opened {
    run_id: String,
    dir: PathBuf,
    events: Arc<EventLog>,
    done: HashSet<UnitKey>,
}

/// A new run folder with its plan and `run_started` event, or the folder
/// of the run being resumed.
fn open_run_folder(target: RunTarget<'_>, config: &Config, config_origin: &str, suites: &[Suite]) -> Result<Opened, RunError> {
    match target {
        RunTarget::Resume { dir, done } => {
            let run_id = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let events = Arc::new(EventLog::append_in(&dir)?.with_redactor(run_redactor(config, suites)));
            Ok(Opened { run_id, dir, events, done })
        }
        RunTarget::New(plan) => {
            let (run_id, dir) = run_folder::create_run_folder(&config.run.out_dir, &new_run_id())?;
            plan.save(&dir).map_err(|e| RunError::Folder { path: dir.clone(), source: std::io::Error::other(e.to_string()) })?;
            let events = Arc::new(EventLog::create_in(&dir)?.with_redactor(run_redactor(config, suites)));
            emit_run_started(&events, &run_id, config, config_origin, suites)?;
            Ok(Opened { run_id, dir, events, done: HashSet::new() })
        }
    }
}

/// One lane per model, each asking the configured repair model (or itself).
fn lanes(config: &Config) -> Vec<Lane> {
    let repair_model = config.pipeline.repair_model.as_ref().and_then(|n| repairer_named(config, n)).cloned().map(Arc::new);
    config
        .models
        .iter()
        .map(|m| {
            let model = Arc::new(m.clone());
            let repairer = repair_model.clone().unwrap_or_else(|| model.clone());
            Lane {
                limit: Arc::new(Semaphore::new(model.concurrency)),
                provider: provider::for_model(&model),
                repair_provider: provider::for_model(&repairer),
                model,
                repairer,
            }
        })
        .collect()
}

/// Starts every unit not done yet, scenario by scenario, and waits for all.
/// Units go out model by model in turn, and only a few more than can run at
/// once are in memory, so a 100k-unit suite costs no more memory than a
/// small one and every model is busy from the start. Each scenario is read
/// again from its file only while its units run, so memory does not grow
/// with the suite; one that cannot be read stops the run and is returned.
async fn dispatch(
    suites: &[Suite],
    lanes: &[Lane],
    done: &HashSet<UnitKey>,
    shared: &Arc<Shared>,
    stop: &StopFlag,
    tally: &mut Tally,
) -> Option<crate::scenario::LoadError> {
    let in_flight_cap = lanes.iter().map(|l| l.model.concurrency).sum::<usize>() * 2;
    let trials = shared.config.run.trials;
    let mut tasks = tokio::task::JoinSet::new();
    let mut suite_error = None;
    'run: for suite in suites {
        for (index, id) in suite.ids().enumerate() {
            let key =
                |lane: &Lane, trial| UnitKey { model: lane.model.name.clone(), suite: suite.name.clone(), scenario: id.into(), trial };
            let pending: Vec<(UnitKey, &Lane)> = (0..trials)
                .flat_map(|trial| {
                    lanes
                        .iter()
                        .filter(move |l| l.model.runs(id) && trial < l.model.trials(trials))
                        .map(move |lane| (key(lane, trial), lane))
                })
                .filter(|(key, _)| !done.contains(key))
                .collect();
            if pending.is_empty() {
                continue;
            }
            if stop.is_set() {
                break 'run;
            }
            let scenario = match suite.scenario(index) {
                Ok(s) => s,
                Err(e) => {
                    suite_error = Some(e);
                    stop.set();
                    break 'run;
                }
            };
            for (key, lane) in pending {
                if stop.is_set() {
                    break 'run;
                }
                while tasks.len() >= in_flight_cap {
                    if let Some(joined) = tasks.join_next().await {
                        tally.absorb(joined, stop);
                    }
                }
                let mcp = suite.mcp_toolset_of(&scenario).cloned();
                tasks.spawn(run_one(key, lane.clone(), scenario.clone(), mcp, shared.clone(), stop.clone()));
            }
        }
    }
    while let Some(joined) = tasks.join_next().await {
        tally.absorb(joined, stop);
    }
    suite_error
}

/// What the finished units add up to.
struct Tally {
    completed: u64,
    cassettes: CassetteSummary,
    first_error: Option<RunError>,
    fail_fast: bool,
    strict: bool,
}

impl Tally {
    fn new(done: u64, config: &Config) -> Self {
        Tally {
            completed: done,
            cassettes: CassetteSummary::default(),
            first_error: None,
            fail_fast: config.run.fail_fast,
            strict: config.cassettes.strict,
        }
    }

    /// Counts a finished unit; with `--fail-fast`, its first missing
    /// recording stops the run.
    fn absorb(&mut self, joined: Result<Result<(bool, Option<CassetteOutcome>), EventsError>, tokio::task::JoinError>, stop: &StopFlag) {
        match joined {
            Ok(Ok((ran, cassette))) => {
                self.completed += u64::from(ran);
                if let Some(outcome) = cassette {
                    if let (true, None, Some(miss)) = (self.fail_fast, &self.first_error, outcome.missing.first()) {
                        self.first_error = Some(RunError::Stopped(miss.clone()));
                        stop.set();
                    }
                    self.cassettes.add(outcome, self.strict);
                }
            }
            Ok(Err(e)) => {
                self.first_error.get_or_insert(RunError::Events(e));
            }
            Err(stopped) if stopped.is_cancelled() => {}
            Err(panic) => std::panic::resume_unwind(panic.into_panic()),
        }
    }
}

/// What every unit of a run uses.
struct Shared {
    events: Arc<EventLog>,
    config: Arc<Config>,
    progress: ProgressBar,
    rules: Arc<RepairRules>,
    person: Option<Arc<PersonApprover>>,
    live: Arc<LiveTransports>,
    recordings: Arc<Recordings>,
}

/// Runs one unit once its model has room; says whether it ran (not when the
/// run was stopped first) and what its cassette did.
async fn run_one(
    key: UnitKey,
    lane: Lane,
    scenario: Arc<Scenario>,
    mcp: Option<Arc<McpToolset>>,
    shared: Arc<Shared>,
    stop: StopFlag,
) -> Result<(bool, Option<CassetteOutcome>), EventsError> {
    let _permit = lane.limit.clone().acquire_owned().await.expect("semaphore never closes");
    if stop.is_set() {
        return Ok((false, None));
    }
    let Shared { events, config, progress, rules, person, live, recordings } = &*shared;
    let transports = unit_transports(&key, &lane, &scenario, config, recordings, live, mcp.is_some());
    let mcp = mcp.map(|set| mcp_link(&set, transports.cassette.as_ref(), config.mode_for(&lane.model)));
    let unit = Unit {
        key,
        scenario: &scenario,
        config,
        rules,
        endpoint: Endpoint { model: &lane.model, provider: lane.provider.as_ref(), transport: transports.model.as_ref() },
        repairer: Endpoint { model: &lane.repairer, provider: lane.repair_provider.as_ref(), transport: transports.repair.as_ref() },
        person: person.as_deref(),
        events,
        mcp,
    };
    let verdict = run_unit(&unit).await;
    // The server (if started) stops before the cassette is written.
    drop(unit);
    let cassette = transports.cassette.map(UnitCassette::finish);
    if let Some(event) = cassette.as_ref().and_then(CassetteOutcome::event) {
        events.emit(event)?;
    }
    progress.inc(1);
    verdict.map(|_| (true, cassette))
}

/// One model's share of the run: its config, adapters and concurrency limit.
#[derive(Clone)]
struct Lane {
    model: Arc<ModelConfig>,
    limit: Arc<Semaphore>,
    provider: Arc<dyn Provider>,
    repairer: Arc<ModelConfig>,
    repair_provider: Arc<dyn Provider>,
}

/// The live transports of the run's models that talk over HTTP, one per
/// model, so each model's rate limits hold across all its units.
type LiveTransports = HashMap<String, Arc<LiveTransport>>;

fn live_transports(config: &Config) -> Result<LiveTransports, RunError> {
    let mut live = HashMap::new();
    // A replayed model needs no network and no key.
    for m in config.models.iter().filter(|m| config.reaches_provider(m)) {
        let transport = LiveTransport::for_model(m)?;
        live.insert(m.name.clone(), Arc::new(transport));
    }
    Ok(live)
}

fn emit_run_started(events: &EventLog, run_id: &str, config: &Config, config_origin: &str, suites: &[Suite]) -> Result<(), EventsError> {
    events.emit(EventKind::RunStarted(RunStartedEvent {
        run_id: run_id.to_string(),
        models: config
            .models
            .iter()
            .map(|m| ModelInfo {
                name: m.name.clone(),
                provider: m.provider,
                model_id: m.model_id.clone(),
                tier: m.tier,
                price: m.price,
                arm: m.arm.as_ref().map(|a| ArmInfo { name: a.name.clone(), base: a.base.clone(), repair: a.repair }),
                fitted: m.fitted.as_ref().map(crate::sim::profile_file::FittedFrom::describe),
            })
            .collect(),
        suites: suites.iter().map(|s| s.name.clone()).collect(),
        trials: config.run.trials,
        seed: config.run.seed,
        config: config_origin.to_string(),
    }))
}

/// What one unit sends its requests through: the transports of the model
/// under test and of its repair model, and the cassette both go through
/// (none when the model runs live), to finish when the unit ends.
struct UnitTransports {
    model: Box<dyn Transport>,
    repair: Box<dyn Transport>,
    cassette: Option<UnitCassette>,
}

/// The unit's key in the recordings: its own, or (replaying, with no
/// cassette of its own) that of the variant whose recordings the model
/// replays (`ModelConfig::recorded_as`).
fn cassette_key(key: &UnitKey, model: &ModelConfig, recordings: &Recordings, mode: CassetteMode) -> UnitKey {
    let Some(variant) = &model.recorded_as else { return key.clone() };
    let own = crate::transport::cassette::store::cassette_path(&recordings.settings().dir, key);
    if mode == CassetteMode::Record || own.exists() {
        return key.clone();
    }
    UnitKey { model: variant.clone(), ..key.clone() }
}

/// The unit's transports. A simulated model is computed in-process in every
/// mode: it answers through its own transport, never a cassette (there is
/// nothing outside calltape to record). The other models go through the
/// unit's cassette in their mode, and so do the repair model's requests:
/// they are part of this unit's exchanges, whatever mode the repair model
/// has on its own. A unit with an MCP toolset keeps a cassette for the
/// server's exchanges even when its model is simulated.
fn unit_transports(
    key: &UnitKey,
    Lane { model, repairer, .. }: &Lane,
    scenario: &Arc<Scenario>,
    config: &Config,
    recordings: &Arc<Recordings>,
    live: &LiveTransports,
    mcp: bool,
) -> UnitTransports {
    let trial = key.trial;
    let mode = config.mode_for(model);
    let recorded = |m: &Arc<ModelConfig>| !m.is_simulated();
    let needs_cassette = mode != CassetteMode::Live && (recorded(model) || recorded(repairer) || mcp);
    let cassette_key = cassette_key(key, model, recordings, mode);
    // The model's exchanges are filed under the name its recordings carry.
    let recorded_name = |m: &Arc<ModelConfig>| if Arc::ptr_eq(m, model) { cassette_key.model.clone() } else { m.name.clone() };
    let cassette = needs_cassette.then(|| recordings.open(mode, cassette_key.clone()));
    let endpoint = |m: &Arc<ModelConfig>| -> Box<dyn Transport> {
        match &cassette {
            Some(c) if recorded(m) => {
                // A replay has nothing under the cassette: no network, no key.
                Box::new(
                    c.endpoint(&recorded_name(m), (mode != CassetteMode::Replay).then(|| transport_for(m, scenario, config, trial, live))),
                )
            }
            _ => transport_for(m, scenario, config, trial, live),
        }
    };
    UnitTransports { model: endpoint(model), repair: endpoint(repairer), cassette }
}

/// The scan every cassette passes before it is written (and `cassettes
/// verify` reads them with): key shapes, the models' keys, and the values of
/// MCP toolsets' `env` variables whose names say they are secret (a server
/// may echo what it was given).
pub fn secret_scan(config: &Config, suites: &[Suite]) -> SecretScan {
    SecretScan::new(secret_scan_values(config, suites))
}

/// The configured secrets as (where it comes from, value).
fn secret_scan_values(config: &Config, suites: &[Suite]) -> Vec<(String, String)> {
    let mut values = SecretScan::env_values(config.models.iter().filter_map(|m| m.api_key_env.as_deref()));
    for set in suites.iter().flat_map(Suite::mcp_toolsets) {
        let secret = set.server.env.iter().filter(|(name, _)| crate::transport::scrub::is_secret_param(name));
        values.extend(secret.map(|(name, value)| (format!("{name} (env of MCP toolset {})", set.name), value.clone())));
        let passed = set.server.pass_env.iter().filter(|name| crate::transport::scrub::is_secret_param(name));
        let passed: Vec<(String, String)> = passed
            .filter_map(|name| std::env::var(name).ok().map(|value| (format!("{name} (pass_env of MCP toolset {})", set.name), value)))
            .collect();
        values.extend(passed);
    }
    values
}

/// What a run redacts from every model turn, tool result and event it
/// writes: the configured secrets (the models' keys, their base URLs'
/// credentials and secret-looking header values, the MCP toolsets' secret
/// `env` and `pass_env` values), in every mode, whatever the transport did.
pub fn run_redactor(config: &Config, suites: &[Suite]) -> crate::transport::redact::Redactor {
    let scanned = secret_scan_values(config, suites).into_iter().map(|(_, value)| value);
    let urls = config.models.iter().filter_map(|m| m.base_url.as_deref()).flat_map(crate::transport::scrub::url_secrets);
    let headers = config.models.iter().flat_map(|m| &m.headers).filter(|(name, _)| crate::transport::live::is_secret_header(name));
    crate::transport::redact::Redactor::new(scanned.chain(urls).chain(headers.map(|(_, value)| value.clone())))
}

/// How the unit reaches an MCP toolset's server: through its cassette
/// (recorded as model `mcp:<toolset>`; a replay starts no server), or live.
fn mcp_link(set: &McpToolset, cassette: Option<&UnitCassette>, mode: CassetteMode) -> McpLink {
    let live = || Box::new(mcp::LazyServer::new(set.server.clone())) as Box<dyn Transport>;
    let transport: Arc<dyn Transport> = match cassette {
        Some(c) => Arc::new(c.endpoint(&mcp::cassette_model(&set.name), (mode != CassetteMode::Replay).then(live))),
        None => Arc::from(live()),
    };
    McpLink {
        toolset: set.name.clone(),
        server: set.server.describe(),
        url: mcp::request_url(&set.server),
        tools: set.tools.iter().map(|t| t.spec.name.clone()).collect(),
        transport,
    }
}

/// The transport one (model, scenario, trial) unit sends its requests
/// through when nothing is replayed (the cassette layer wraps it): the
/// model's shared live transport, or a simulated model.
fn transport_for(
    model: &Arc<ModelConfig>,
    scenario: &Arc<Scenario>,
    config: &Config,
    trial: u32,
    live: &LiveTransports,
) -> Box<dyn Transport> {
    match live.get(&model.name) {
        Some(t) => Box::new(t.clone()),
        None => Box::new(
            SimTransport::new(model.clone(), scenario.clone(), config.run.seed, trial).expect("sim models were checked to have a profile"),
        ),
    }
}

/// Replaces `out_dir/latest` with a copy of the run folder's files, never
/// deleting a `latest` calltape did not make (see `run_folder::replace_latest`).
pub fn update_latest(out_dir: &Path, run_dir: &Path) -> Result<PathBuf, run_folder::FolderError> {
    run_folder::replace_latest(out_dir, run_dir)
}

/// The model `[pipeline] repair_model` names: that model, or with arms the
/// variant of it in the last arm (the fullest, as listed; the repairer
/// answers repair requests, its own arm does not matter).
fn repairer_named<'c>(config: &'c Config, name: &str) -> Option<&'c ModelConfig> {
    config.models.iter().find(|m| m.name == name).or_else(|| config.models.iter().rev().find(|m| m.base_name() == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_sort_by_time() {
        let id = new_run_id();
        assert_eq!(id.len(), "20261122-221800-123".len());
        assert!(id.starts_with("20"), "{id}");
    }
}
