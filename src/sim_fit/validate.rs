//! `calltape sim validate`: runs a fitted simulator on the scenarios of a
//! real run that its fit did not see (the held-out half), many trials of
//! each, and compares what it did with what the real model did there. The
//! simulator's 95% interval for a figure is the middle 95% of that figure
//! over its trials, each trial being one pass over the held-out scenarios:
//! the spread a figure of the real run's size would have if the simulator
//! were the model.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::observe::{quantile, Observations};
use crate::config::{ModelConfig, ProviderKind, ToolFormat};
use crate::core::modes::RepairMode;
use crate::events::{Event, EventKind};
use crate::pipeline::InvalidKind;
use crate::plan::{RunPlan, Shard};
use crate::runner::{self, RunTarget};
use crate::sim::profile_file::FittedFrom;
use crate::sim::SimProfile;

/// Why a validation could not run.
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("profile {profile}: fitted with --holdout none, so every scenario was seen; fit again with `calltape sim fit RUN_DIR --model {model} --holdout half`")]
    NothingHeldOut { profile: String, model: String },
    #[error("model {model:?} finished no held-out scenario (shard 2/2) in {runs}: is this the run the profile {profile} was fitted to?")]
    NoRealUnits { model: String, runs: String, profile: String },
    #[error("{dir}/plan.json configures no model {model:?}: validate on the run the profile was fitted to")]
    NotInPlan { model: String, dir: String },
    #[error("{dir}: {source}")]
    Plan { dir: String, source: crate::plan::PlanError },
    #[error("the simulated run failed: {0}")]
    Run(String),
    #[error("{0}")]
    Events(#[from] crate::events::EventsError),
}

/// One compared figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub figure: String,
    pub real: f64,
    /// What the real figure rests on (calls, units or requests).
    pub real_n: usize,
    /// The simulator's mean over its trials, and its 95% interval.
    pub sim: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Row {
    pub fn inside(&self) -> bool {
        self.lo - 1e-9 <= self.real && self.real <= self.hi + 1e-9
    }
}

/// The comparison of one profile with its held-out real units.
#[derive(Debug, Clone)]
pub struct Table {
    pub model: String,
    pub scenarios: usize,
    pub trials: u32,
    pub rows: Vec<Row>,
}

impl Table {
    /// The table as printed (and as docs/simulators.md shows it).
    pub fn render(&self) -> String {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "{}: {} held-out scenarios, simulated {} times each (a model of the model)",
            self.model, self.scenarios, self.trials
        );
        let _ = writeln!(t, "{:<34} {:>7} {:>6} {:>9} {:>19}  inside", "figure", "real", "n", "sim", "sim 95% interval");
        for r in &self.rows {
            let (real, sim, iv) = if r.figure.starts_with("latency") {
                (format!("{:.0}", r.real), format!("{:.0}", r.sim), format!("{:.0}-{:.0}", r.lo, r.hi))
            } else {
                (format!("{:.3}", r.real), format!("{:.3}", r.sim), format!("{:.3}-{:.3}", r.lo, r.hi))
            };
            let _ = writeln!(t, "{:<34} {real:>7} {:>6} {sim:>9} {iv:>19}  {}", r.figure, r.real_n, if r.inside() { "yes" } else { "no" });
        }
        let inside = self.rows.iter().filter(|r| r.inside()).count();
        let _ = writeln!(t, "{inside} of {} real figures inside the simulator's 95% interval", self.rows.len());
        t
    }
}

/// The scenarios `sim fit` left out of a profile fitted with `holdout`.
pub fn held_out(from: &FittedFrom) -> Option<Shard> {
    (from.holdout == "half").then_some(Shard { index: 2, count: 2 })
}

/// Simulates the held-out scenarios of `run_dirs` (whose events are `events`)
/// `trials` times with `profile`, and compares.
pub async fn validate(
    profile: &SimProfile,
    from: &FittedFrom,
    events: &[Event],
    run_dirs: &[PathBuf],
    trials: u32,
) -> Result<Table, ValidateError> {
    let shard = held_out(from).ok_or_else(|| ValidateError::NothingHeldOut { profile: from.profile.clone(), model: from.model.clone() })?;
    let real = Observations::of(events, &from.model, |s, id| shard.contains(s, id));
    let runs = || run_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ");
    if real.scenarios.is_empty() {
        return Err(ValidateError::NoRealUnits { model: from.model.clone(), runs: runs(), profile: from.profile.clone() });
    }
    let dir = &run_dirs[0];
    let mut plan = RunPlan::load(dir).map_err(|source| ValidateError::Plan { dir: dir.display().to_string(), source })?;
    for note in plan.relocate_suites() {
        eprintln!("note: {}", crate::report::encode::terminal_lines(&note));
    }
    let mut config = plan.config.clone();
    let base = from.model.split('@').next().unwrap_or(&from.model);
    let found = config.models.iter().find(|m| m.name == from.model).or_else(|| config.models.iter().find(|m| m.base_name() == base));
    let Some(mut model) = found.cloned() else {
        return Err(ValidateError::NotInPlan { model: from.model.clone(), dir: dir.display().to_string() });
    };
    simulated(&mut model, profile);
    config.pipeline.repair = repair_of(events, &from.model).unwrap_or(config.pipeline.repair);
    config.pipeline.repair_model = None;
    config.models = vec![model];
    config.run.arms = Vec::new();
    config.run.trials = trials;
    let tmp = std::env::temp_dir().join(format!("calltape-sim-validate-{}-{}", std::process::id(), runner::new_run_id()));
    config.run.out_dir = tmp.clone();
    let mut suites = crate::scenario::load_suites(&config.run.suites)
        .map_err(|e| ValidateError::Run(e.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")))?;
    for suite in &mut suites {
        let name = suite.name.clone();
        suite.retain(|id| real.scenarios.contains(&(name.clone(), id.to_string())));
    }
    suites.retain(|s| !s.is_empty());
    let sim_plan = RunPlan::whole(config.clone(), "sim validate");
    let folder = runner::run(&config, "sim validate", &suites, false, RunTarget::New(&sim_plan)).await;
    let result = folder
        .map_err(|e| ValidateError::Run(e.to_string()))
        .and_then(|f| crate::events::read_events(&f.dir.join(crate::run_folder::EVENTS_FILE)).map_err(ValidateError::from));
    let _ = std::fs::remove_dir_all(&tmp);
    let sim_events = result?;
    let per_trial: Vec<Observations> = (0..trials)
        .map(|t| {
            let of_trial: Vec<Event> = sim_events.iter().filter(|e| e.kind.unit().is_none_or(|u| u.trial == t)).cloned().collect();
            Observations::of(&of_trial, SIM_NAME, |_, _| true)
        })
        .collect();
    Ok(Table { model: from.model.clone(), scenarios: real.scenarios.len(), trials, rows: rows(&real, &per_trial) })
}

/// The simulated model's name in the validation run.
pub const SIM_NAME: &str = "fitted-sim";

fn simulated(model: &mut ModelConfig, profile: &SimProfile) {
    model.name = SIM_NAME.into();
    model.provider = ProviderKind::Sim;
    model.sim = Some(profile.clone());
    model.tool_format = ToolFormat::Native;
    model.arms = Some(Vec::new());
    model.arm = None;
    model.mode = None;
    model.scenarios = Vec::new();
    model.max_trials = None;
    model.strict_tools = false;
    model.recorded_as = None;
    model.concurrency = 8;
    model.requests_per_minute = None;
    model.tokens_per_minute = None;
}

/// The repair mode the real model's units ran under (its arm's), if the run says.
fn repair_of(events: &[Event], model: &str) -> Option<RepairMode> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::RunStarted(r) => r
            .models
            .iter()
            .find(|m| m.name == model || m.arm.as_ref().is_some_and(|a| a.base == model))
            .and_then(|m| m.arm.as_ref())
            .map(|a| a.repair),
        _ => None,
    })
}

/// The compared figures: invalid rate, each kind either side shows, pass
/// rate, latency quantiles.
pub fn rows(real: &Observations, sims: &[Observations]) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut add = |figure: String, real: Option<f64>, real_n: usize, values: Vec<f64>| {
        let Some(real) = real else { return };
        let values: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
        if values.is_empty() {
            return;
        }
        let sim = values.iter().sum::<f64>() / values.len() as f64;
        let (lo, hi) = (quantile(&values, 0.025).unwrap_or(sim), quantile(&values, 0.975).unwrap_or(sim));
        rows.push(Row { figure, real, real_n, sim, lo, hi });
    };
    let calls = real.calls as usize;
    add(
        "invalid rate (any kind)".into(),
        real.invalid_rate().rate(),
        calls,
        sims.iter().map(|s| s.invalid_rate().rate().unwrap_or(0.0)).collect(),
    );
    for kind in InvalidKind::ALL {
        let seen = real.by_kind.contains_key(&kind) || sims.iter().any(|s| s.by_kind.contains_key(&kind));
        if seen {
            add(
                format!("invalid: {}", kind.as_str()),
                real.kind(kind).rate(),
                calls,
                sims.iter().map(|s| s.kind(kind).rate().unwrap_or(0.0)).collect(),
            );
        }
    }
    add("pass rate".into(), real.passed.rate(), real.passed.n as usize, sims.iter().filter_map(|s| s.passed.rate()).collect());
    let latencies = |o: &Observations| o.latency.iter().map(|l| l.1).collect::<Vec<f64>>();
    let real_lat = latencies(real);
    for (name, q) in [("latency p50 ms (turn requests)", 0.5), ("latency p95 ms (turn requests)", 0.95)] {
        add(name.into(), quantile(&real_lat, q), real_lat.len(), sims.iter().filter_map(|s| quantile(&latencies(s), q)).collect());
    }
    rows
}
