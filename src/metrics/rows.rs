//! Pulling what the tables need out of the events, one event at a time.
//!
//! Counts are summed as the events come (per model × tool), and only what a
//! table shows one by one (a row per run, per repair attempt) or takes
//! quantiles or float sums of (per request) is kept, in a few bytes a row: the
//! events themselves are never held, so memory grows with the units of a run,
//! not with the text of its events.

use std::borrow::Cow;
use std::hash::BuildHasher;

use foldhash::HashMap;

use serde::de::{Deserializer, IgnoredAny, Visitor};
use serde::Deserialize;

use crate::events::{DenialBehaviour, Event, EventKind, RepairStage, RequestPurpose};
use crate::pipeline::{CallOutcome, InvalidKind};

/// Strings (model, tool, suite, scenario, reason names) stored once, by id.
/// The index holds only ids, hashed by their text, so a name — a failure
/// reason can be a few hundred bytes, and unique to its unit — is kept once.
#[derive(Default)]
pub(super) struct Names {
    ids: hashbrown::HashTable<u32>,
    names: Vec<Box<str>>,
    hasher: foldhash::fast::FixedState,
}

impl Names {
    fn id(&mut self, name: &str) -> u32 {
        let hash = self.hasher.hash_one(name);
        if let Some(&id) = self.ids.find(hash, |&id| &*self.names[id as usize] == name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.into());
        self.ids.insert_unique(hash, id, |&id| self.hasher.hash_one(&*self.names[id as usize]));
        id
    }

    pub(super) fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// Each id's place among the names in sorted order.
    fn ranks(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_by(|a, b| self.name(*a).cmp(self.name(*b)));
        let mut rank = vec![0; order.len()];
        for (r, id) in order.into_iter().enumerate() {
            rank[id as usize] = r as u32;
        }
        rank
    }
}

/// One (model, suite, scenario, trial) and what is summed over its requests.
pub(super) struct Unit {
    pub(super) model: u32,
    pub(super) suite: u32,
    pub(super) scenario: u32,
    pub(super) trial: u32,
    /// Model time and cost of the unit, in its own (file) order.
    pub(super) latency_ms: f64,
    pub(super) cost_usd: f64,
    /// A call of this unit needed repair.
    pub(super) repaired: bool,
    /// `unit_hash` of its key, for the units index.
    hash: UnitHash,
}

/// Two independent 64-bit hashes of a line's (model, suite, scenario,
/// trial), taken while lines are parsed on every core, so the one thread
/// that adds them up finds a line's unit by a probe, without reading its
/// names again. 128 bits stand for the key: two different units of a run
/// share them with a chance of about n² / 2¹²⁹ (10⁻²⁷ for a million).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct UnitHash(u64, u64);

fn unit_hash(model: &str, suite: &str, scenario: &str, trial: u32) -> UnitHash {
    let key = (model, suite, scenario, trial);
    UnitHash(foldhash::fast::FixedState::with_seed(1).hash_one(key), foldhash::fast::FixedState::with_seed(2).hash_one(key))
}

/// Call counts of one model × tool.
#[derive(Default, Clone)]
pub(super) struct CallCounts {
    pub(super) calls: u64,
    pub(super) invalid: u64,
    pub(super) repaired_local: u64,
    pub(super) repaired_model: u64,
    pub(super) still_invalid: u64,
    /// One count per `InvalidKind::ALL`.
    pub(super) kinds: [u64; InvalidKind::ALL.len()],
}

/// Approval counts of one model × tool.
#[derive(Default, Clone)]
pub(super) struct ApprovalCounts {
    pub(super) requested: u64,
    pub(super) approved: u64,
    pub(super) warnings: u64,
    /// One count per `DenialBehaviour::ALL`.
    pub(super) after_denial: [u64; DenialBehaviour::ALL.len()],
}

pub(super) struct ScenarioRow {
    pub(super) unit: u32,
    pub(super) passed: bool,
    pub(super) reason: u32,
}

pub(super) struct RequestRow {
    pub(super) unit: u32,
    /// For a repair request: the tool whose call it repairs.
    pub(super) tool: Option<u32>,
    pub(super) repair: bool,
    pub(super) error: bool,
    pub(super) input_tokens: u64,
    pub(super) output_tokens: u64,
    pub(super) cached_input_tokens: u64,
    pub(super) cost_usd: f64,
    pub(super) latency_ms: f64,
    pub(super) ttft_ms: Option<f64>,
}

pub(super) struct RepairRow {
    pub(super) unit: u32,
    pub(super) tool: u32,
    pub(super) stage: RepairStage,
    pub(super) latency_us: Option<f64>,
    pub(super) latency_ms: Option<f64>,
    pub(super) succeeded: bool,
}

/// Everything the tables are built from.
#[derive(Default)]
pub(super) struct Rows {
    pub(super) run: super::RunInfo,
    /// Tier of each announced model.
    pub(super) model_tier: std::collections::HashMap<String, String>,
    /// Trials the run was asked for (k of pass@k).
    pub(super) trials: u32,
    /// Announced models in their configured order, then any others.
    pub(super) model_order: Vec<String>,
    pub(super) names: Names,
    pub(super) units: Vec<Unit>,
    /// Unit ids, by `unit_hash`.
    unit_ids: hashbrown::HashTable<u32>,
    /// Keyed by (model, tool) name ids.
    pub(super) calls: HashMap<(u32, u32), CallCounts>,
    pub(super) approvals: HashMap<(u32, u32), ApprovalCounts>,
    pub(super) scenarios: Vec<ScenarioRow>,
    pub(super) requests: Vec<RequestRow>,
    pub(super) repairs: Vec<RepairRow>,
    /// Events read.
    pub(super) events: u64,
}

/// The fields the tables read from one event line, borrowed from the line;
/// every other field is skipped unread. One flat shape for every kind.
#[derive(Deserialize)]
pub(super) struct Line<'a> {
    #[serde(borrow)]
    event: Cow<'a, str>,
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    suite: Option<Cow<'a, str>>,
    #[serde(borrow)]
    scenario: Option<Cow<'a, str>>,
    trial: Option<u32>,
    #[serde(borrow)]
    tool: Option<Cow<'a, str>>,
    outcome: Option<CallOutcome>,
    repaired_by: Option<RepairStage>,
    invalid_kinds: Option<Vec<InvalidKind>>,
    purpose: Option<RequestPurpose>,
    #[serde(borrow)]
    repair_of: Option<Cow<'a, str>>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cached_input_tokens: Option<u64>,
    cost_usd: Option<f64>,
    latency_ms: Option<f64>,
    latency_us: Option<f64>,
    ttft_ms: Option<f64>,
    /// A request's error message, or a finished scenario's error flag.
    error: Option<Present>,
    passed: Option<bool>,
    #[serde(borrow)]
    reason: Option<Cow<'a, str>>,
    approved: Option<bool>,
    warning: Option<IgnoredAny>,
    behaviour: Option<DenialBehaviour>,
    stage: Option<RepairStage>,
    succeeded: Option<bool>,
    elapsed_ms: Option<f64>,
}

/// Whether a field says something: `true`, or any string (`null` is absent).
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Present, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Present;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean or a string")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Present, E> {
                Ok(Present(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Present, E> {
                Ok(Present(true))
            }
        }
        d.deserialize_any(V)
    }
}

/// One line of an events file, read for the tables.
// Held a block of lines at a time: boxing the row would allocate per line.
#[allow(clippy::large_enum_variant)]
pub(super) enum Parsed<'a> {
    /// An event the tables count, with the `unit_hash` of its unit (zero
    /// for an event of no unit).
    Row(Line<'a>, UnitHash),
    /// The run's own description, read whole (one a run).
    RunStarted(Box<EventKind>),
    /// An event no table reads.
    Skipped,
}

/// Events no table reads, told apart by their tag without parsing the line.
const UNREAD: [&str; 4] = ["scenario_started", "tool_executed", "cassette", "run_interrupted"];

/// The `"event"` tag of a line as calltape writes it (right after `ts_ms`).
fn tag_of(text: &str) -> Option<&str> {
    const KEY: &[u8] = br#""event":""#;
    let head = &text.as_bytes()[..text.len().min(64)];
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> = std::sync::LazyLock::new(|| memchr::memmem::Finder::new(KEY));
    let start = FINDER.find(head)? + KEY.len();
    let len = memchr::memchr(b'"', &text.as_bytes()[start..])?;
    text.get(start..start + len)
}

/// Reads one line. A line that is not a calltape event is an error, with
/// serde's message on the full event type (which names what is wrong).
pub(super) fn parse_line(text: &str) -> Result<Parsed<'_>, String> {
    if tag_of(text).is_some_and(|tag| UNREAD.contains(&tag)) {
        return Ok(Parsed::Skipped);
    }
    let whole_error = || match serde_json::from_str::<Event>(text) {
        Err(e) => e.to_string(),
        Ok(_) => "an event the tables cannot read".to_string(),
    };
    let line: Line = serde_json::from_str(text).map_err(|_| whole_error())?;
    let has_unit = line.model.is_some() && line.suite.is_some() && line.scenario.is_some() && line.trial.is_some();
    let complete = match line.event.as_ref() {
        "run_started" => {
            let event: Event = serde_json::from_str(text).map_err(|e| e.to_string())?;
            return Ok(Parsed::RunStarted(Box::new(event.kind)));
        }
        "scenario_finished" => has_unit && line.passed.is_some() && line.reason.is_some(),
        "tool_call" => has_unit && line.tool.is_some() && line.outcome.is_some() && line.invalid_kinds.is_some(),
        "model_request" => {
            has_unit
                && line.purpose.is_some()
                && line.input_tokens.is_some()
                && line.output_tokens.is_some()
                && line.cached_input_tokens.is_some()
                && line.cost_usd.is_some()
                && line.latency_ms.is_some()
        }
        "tool_approval" => has_unit && line.tool.is_some() && line.approved.is_some(),
        "denial_followup" => has_unit && line.tool.is_some() && line.behaviour.is_some(),
        "tool_repair" => has_unit && line.tool.is_some() && line.stage.is_some() && line.succeeded.is_some(),
        "run_finished" => line.elapsed_ms.is_some(),
        tag if UNREAD.contains(&tag) => return Ok(Parsed::Skipped),
        _ => false,
    };
    if complete {
        let hash = match (&line.model, &line.suite, &line.scenario, line.trial) {
            (Some(model), Some(suite), Some(scenario), Some(trial)) => unit_hash(model, suite, scenario, trial),
            _ => UnitHash::default(),
        };
        Ok(Parsed::Row(line, hash))
    } else {
        Err(whole_error())
    }
}

impl Rows {
    /// The id of a line's unit; `hash` is its `unit_hash`.
    fn unit(&mut self, line: &Line, hash: UnitHash) -> u32 {
        let (Some(model), Some(suite), Some(scenario), Some(trial)) = (&line.model, &line.suite, &line.scenario, line.trial) else {
            unreachable!("parse_line keeps only events with a unit")
        };
        let units = &self.units;
        if let Some(&id) = self.unit_ids.find(hash.0, |&id| units[id as usize].hash == hash) {
            return id;
        }
        let id = self.units.len() as u32;
        let (model, suite, scenario) = (self.names.id(model), self.names.id(suite), self.names.id(scenario));
        self.units.push(Unit { model, suite, scenario, trial, latency_ms: 0.0, cost_usd: 0.0, repaired: false, hash });
        self.unit_ids.insert_unique(hash.0, id, |&id| self.units[id as usize].hash.0);
        id
    }

    /// Adds one parsed line.
    pub(super) fn add(&mut self, parsed: &Parsed) {
        self.events += 1;
        match parsed {
            Parsed::Skipped => {}
            Parsed::RunStarted(kind) => self.add_run(kind),
            Parsed::Row(line, hash) => self.add_row(line, *hash),
        }
    }

    fn add_run(&mut self, kind: &EventKind) {
        let EventKind::RunStarted { run_id, models, suites, trials, seed, config } = kind else { return };
        if self.run.run_id.is_empty() {
            self.run = super::RunInfo {
                run_id: run_id.clone(),
                suites: suites.clone(),
                trials: *trials,
                seed: *seed,
                config: config.clone(),
                elapsed_ms: None,
            };
        }
        self.trials = self.trials.max(*trials);
        for m in models.iter().cloned() {
            let tier = serde_json::to_value(m.tier).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            self.model_tier.insert(m.name.clone(), tier);
            if !self.model_order.contains(&m.name) {
                self.model_order.push(m.name);
            }
        }
    }

    fn add_row(&mut self, line: &Line, hash: UnitHash) {
        let flag = |v: Option<bool>| v.unwrap_or(false);
        match line.event.as_ref() {
            "scenario_finished" => {
                let unit = self.unit(line, hash);
                let reason = self.names.id(line.reason.as_deref().unwrap_or_default());
                self.scenarios.push(ScenarioRow { unit, passed: flag(line.passed), reason });
            }
            "tool_call" => {
                let unit = self.unit(line, hash);
                let outcome = line.outcome.unwrap_or(CallOutcome::Valid);
                let repaired = outcome == CallOutcome::Repaired;
                let by_model = line.repaired_by == Some(RepairStage::Model);
                self.units[unit as usize].repaired |= repaired;
                let key = self.tool_key(unit, line);
                let c = self.calls.entry(key).or_default();
                c.calls += 1;
                c.invalid += u64::from(outcome != CallOutcome::Valid);
                c.repaired_local += u64::from(repaired && !by_model);
                c.repaired_model += u64::from(repaired && by_model);
                c.still_invalid += u64::from(outcome == CallOutcome::Invalid);
                let kinds = line.invalid_kinds.as_deref().unwrap_or_default();
                for (count, kind) in c.kinds.iter_mut().zip(InvalidKind::ALL) {
                    *count += u64::from(kinds.contains(&kind));
                }
            }
            "model_request" => {
                let unit = self.unit(line, hash);
                let (latency_ms, cost_usd) = (line.latency_ms.unwrap_or(0.0), line.cost_usd.unwrap_or(0.0));
                let u = &mut self.units[unit as usize];
                u.latency_ms += latency_ms;
                u.cost_usd += cost_usd;
                let tool = line.repair_of.as_deref().map(|t| self.names.id(t));
                self.requests.push(RequestRow {
                    unit,
                    tool,
                    repair: line.purpose == Some(RequestPurpose::Repair),
                    error: line.error.as_ref().is_some_and(|e| e.0),
                    input_tokens: line.input_tokens.unwrap_or(0),
                    output_tokens: line.output_tokens.unwrap_or(0),
                    cached_input_tokens: line.cached_input_tokens.unwrap_or(0),
                    cost_usd,
                    latency_ms,
                    ttft_ms: line.ttft_ms,
                });
            }
            "tool_approval" => {
                let unit = self.unit(line, hash);
                let key = self.tool_key(unit, line);
                let a = self.approvals.entry(key).or_default();
                a.requested += 1;
                a.approved += u64::from(flag(line.approved));
                a.warnings += u64::from(line.warning.is_some());
            }
            "denial_followup" => {
                let unit = self.unit(line, hash);
                let key = self.tool_key(unit, line);
                let a = self.approvals.entry(key).or_default();
                for (count, behaviour) in a.after_denial.iter_mut().zip(DenialBehaviour::ALL) {
                    *count += u64::from(line.behaviour == Some(behaviour));
                }
            }
            "tool_repair" => {
                let unit = self.unit(line, hash);
                let tool = self.names.id(line.tool.as_deref().unwrap_or_default());
                self.repairs.push(RepairRow {
                    unit,
                    tool,
                    stage: line.stage.unwrap_or(RepairStage::Local),
                    latency_us: line.latency_us,
                    latency_ms: line.latency_ms,
                    succeeded: flag(line.succeeded),
                });
            }
            "run_finished" => self.run.elapsed_ms = line.elapsed_ms,
            _ => {}
        }
    }

    /// The (model, tool) a line's counts go under.
    fn tool_key(&mut self, unit: u32, line: &Line) -> (u32, u32) {
        (self.units[unit as usize].model, self.names.id(line.tool.as_deref().unwrap_or_default()))
    }

    /// Puts the kept rows in unit order and completes the model order.
    ///
    /// Units run concurrently, so the file interleaves them in no fixed
    /// order; ordering by unit (stably: a unit's own events are in order)
    /// makes float sums, and so the tables, the same on every run.
    pub(super) fn finish(&mut self) {
        let name_rank = self.names.ranks();
        let mut order: Vec<u32> = (0..self.units.len() as u32).collect();
        let key = |u: &Unit| (name_rank[u.model as usize], name_rank[u.suite as usize], name_rank[u.scenario as usize], u.trial);
        order.sort_unstable_by_key(|u| key(&self.units[*u as usize]));
        let mut rank = vec![0u32; order.len()];
        for (r, u) in order.iter().enumerate() {
            rank[*u as usize] = r as u32;
        }
        use rayon::slice::ParallelSliceMut;
        self.requests.par_sort_by_key(|r| rank[r.unit as usize]);
        self.repairs.par_sort_by_key(|r| rank[r.unit as usize]);
        self.scenarios.par_sort_by_key(|r| rank[r.unit as usize]);
        // Models seen in rows but not announced (e.g. merged runs) go last.
        // Each model is looked at once, in the order its rows first come.
        let mut seen = std::collections::HashSet::new();
        let rows = self.scenarios.iter().map(|r| r.unit).chain(self.requests.iter().map(|r| r.unit));
        let firsts: Vec<u32> = rows.map(|unit| self.units[unit as usize].model).filter(|model| seen.insert(*model)).collect();
        for model in firsts {
            let name = self.names.name(model);
            if !self.model_order.iter().any(|m| m == name) {
                self.model_order.push(name.to_string());
            }
        }
    }

    /// The model name of a unit.
    pub(super) fn model_of(&self, unit: u32) -> &str {
        self.names.name(self.units[unit as usize].model)
    }
}
