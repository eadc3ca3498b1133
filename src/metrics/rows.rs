//! Pulling what the tables need out of the events, one event at a time.
//!
//! Counts are summed as the events come (per model × tool, and a request's
//! tokens and errors per model), and only what a table shows one by one (a
//! row per run, per repair attempt) or takes quantiles or float sums of (a
//! request's latency and cost) is kept, in a few bytes a row: the events
//! themselves are never held, so memory grows with the units of a run, not
//! with the text of its events.
//!
//! Lines are read as `events::Event` itself — there is no second schema of
//! the events here — and `Rows::add` decides, variant by variant and field
//! by field, what is counted (`FIELDS` lists it).

use std::hash::BuildHasher;

use foldhash::HashMap;

use crate::events::{
    CassetteEvent, DenialBehaviour, DenialFollowupEvent, Event, EventKind, ModelInfo, ModelRequestEvent, RepairStage, RequestPurpose,
    RunFinishedEvent, RunInterruptedEvent, RunStartedEvent, ScenarioFinishedEvent, ScenarioStartedEvent, ToolApprovalEvent, ToolCallEvent,
    ToolExecutedEvent, ToolRepairEvent, UnitError, UnitKey,
};
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
    /// The unit could not run to a verdict: counted apart from pass rates.
    pub(super) error: Option<UnitError>,
    /// A stateful scenario's outcome, as its event reported it.
    pub(super) outcome: Option<OutcomeRow>,
}

/// The outcome counts of a stateful scenario's run.
pub(super) struct OutcomeRow {
    pub(super) milestones_reached: u32,
    pub(super) milestones: u32,
    /// Name id of the last milestone reached.
    pub(super) last_milestone: Option<u32>,
    pub(super) state_checks_passed: u32,
    pub(super) state_checks: u32,
}

/// What a request adds to its model's and tool's float sums, kept until
/// the rows are in unit order: a float sum depends on its order, and the
/// tables add in unit order so every run gives the same bits. Everything
/// else of a request is summed as it comes (`RequestTotals`).
pub(super) struct RequestCost {
    pub(super) unit: u32,
    /// For a repair request: the tool whose call it repairs (`NO_TOOL` else).
    pub(super) tool: u32,
    pub(super) repair: bool,
    pub(super) cost_usd: f64,
}

/// `RequestCost::tool` of a request that repairs no named tool.
pub(super) const NO_TOOL: u32 = u32::MAX;

/// One model's requests, summed as they come; costs are summed later, in
/// unit order (see `RequestCost`).
#[derive(Default)]
pub(super) struct RequestTotals {
    /// Tokens of the scenario's own (turn) requests.
    pub(super) input_tokens: u64,
    pub(super) output_tokens: u64,
    pub(super) cached_input_tokens: u64,
    /// Tokens of repair requests.
    pub(super) repair_input_tokens: u64,
    pub(super) repair_output_tokens: u64,
    /// Requests that ended in an error.
    pub(super) errors: u64,
    /// Latency of each turn request, for the percentiles (order does not matter).
    pub(super) turn_latency_ms: Vec<f64>,
    /// Time to first token of each streamed turn request, and how many were not streamed.
    pub(super) turn_ttft_ms: Vec<f64>,
    pub(super) turn_without_ttft: usize,
}

/// Tokens of the repair requests for one model × tool.
#[derive(Default, Clone, Copy)]
pub(super) struct RepairTokens {
    pub(super) input_tokens: u64,
    pub(super) output_tokens: u64,
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
    /// A model variant's arm and base model, by model name (runs with arms).
    pub(super) model_arm: std::collections::HashMap<String, crate::events::ArmInfo>,
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
    /// In table order after `finish`: by configured model, suite, scenario, trial.
    pub(super) scenarios: Vec<ScenarioRow>,
    /// In unit order after `finish`.
    pub(super) requests: Vec<RequestCost>,
    /// Keyed by model name id.
    pub(super) request_totals: HashMap<u32, RequestTotals>,
    /// Keyed by (model, tool) name ids, for requests that name the tool they repair.
    pub(super) repair_tokens: HashMap<(u32, u32), RepairTokens>,
    pub(super) repairs: Vec<RepairRow>,
    /// Events read.
    pub(super) events: u64,
    /// Each name id's place among the names in sorted order (after `finish`).
    pub(super) name_rank: Vec<u32>,
    /// What the `injection` table needs (its own fold, see `injection`).
    pub(super) injection: super::injection::InjectionRows,
}

/// One line of an events file, parsed on any core: the event, and the
/// `unit_hash` of its unit (zero for an event of no unit).
pub(super) struct Parsed {
    pub(super) kind: EventKind,
    pub(super) hash: UnitHash,
}

impl Parsed {
    pub(super) fn new(kind: EventKind) -> Parsed {
        let hash = kind.unit().map_or_else(UnitHash::default, |u| unit_hash(&u.model, &u.suite, &u.scenario, u.trial));
        Parsed { kind, hash }
    }
}

/// Reads one line as an event; a line that is not one is an error with
/// serde's message (which names what is wrong). `Event`'s reader takes the
/// body straight from the line (see `events::decode`); its time (`ts_ms`)
/// is not counted.
pub(super) fn parse_line(text: &str) -> Result<Parsed, String> {
    serde_json::from_str::<Event>(text).map(|event| Parsed::new(event.kind)).map_err(|e| e.to_string())
}

/// Per event kind (its `event` tag): the fields the tables count, and the
/// fields they deliberately do not. `Rows::add` matches every variant and
/// names every field, so a new one does not compile until it is placed;
/// a test holds these lists to what each event serialises.
// Read by that test only: the lists document the decisions `add` makes.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) const FIELDS: [(&str, &[&str], &[&str]); 12] = [
    ("run_started", &["run_id", "models", "suites", "trials", "seed", "config"], &[]),
    ("scenario_started", &[], &UNIT),
    (
        "model_request",
        &[
            "model",
            "suite",
            "scenario",
            "trial",
            "purpose",
            "repair_of",
            "input_tokens",
            "output_tokens",
            "cached_input_tokens",
            "cost_usd",
            "latency_ms",
            "ttft_ms",
            "error",
        ],
        &["step", "status", "rejected_call", "text", "reasoning", "finish_reason"],
    ),
    (
        "tool_call",
        &["model", "suite", "scenario", "trial", "tool", "outcome", "repaired_by", "invalid_kinds"],
        &["step", "call_id", "raw_name", "arguments", "issues", "remaining_kinds", "fixes", "timings", "final_arguments"],
    ),
    (
        "tool_repair",
        &["model", "suite", "scenario", "trial", "tool", "stage", "succeeded", "latency_us", "latency_ms"],
        &["call_id", "attempt", "fixes", "error"],
    ),
    (
        "tool_approval",
        &["model", "suite", "scenario", "trial", "tool", "approved", "warning"],
        &["call_id", "arguments", "reason", "decided_by", "rule", "latency_ms"],
    ),
    ("denial_followup", &["model", "suite", "scenario", "trial", "tool", "behaviour"], &["call_id"]),
    ("tool_executed", &[], &["model", "suite", "scenario", "trial", "call_id", "tool", "is_error", "scripted", "result"]),
    ("scenario_finished", &["model", "suite", "scenario", "trial", "passed", "reason", "error", "error_kind"], &["steps", "expectation"]),
    (
        "cassette",
        &[],
        &["model", "suite", "scenario", "trial", "path", "mode", "replayed", "recorded", "missing", "unused", "written", "error"],
    ),
    ("run_finished", &["elapsed_ms"], &["units"]),
    ("run_interrupted", &[], &["completed", "remaining"]),
];

/// The unit key's fields, of an event no table counts.
#[cfg_attr(not(test), allow(dead_code))]
const UNIT: [&str; 4] = ["model", "suite", "scenario", "trial"];

/// Fields of every event (`Event` itself) the tables do not count.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) const EVENT_NOT_COUNTED: [&str; 1] = ["ts_ms"];

impl Rows {
    /// The id of a unit; `hash` is its `unit_hash`.
    fn unit(&mut self, key: &UnitKey, hash: UnitHash) -> u32 {
        let units = &self.units;
        if let Some(&id) = self.unit_ids.find(hash.0, |&id| units[id as usize].hash == hash) {
            return id;
        }
        let id = self.units.len() as u32;
        let (model, suite, scenario) = (self.names.id(&key.model), self.names.id(&key.suite), self.names.id(&key.scenario));
        self.units.push(Unit { model, suite, scenario, trial: key.trial, latency_ms: 0.0, cost_usd: 0.0, repaired: false, hash });
        self.unit_ids.insert_unique(hash.0, id, |&id| self.units[id as usize].hash.0);
        id
    }

    /// Adds one parsed line.
    pub(super) fn add(&mut self, parsed: &Parsed) {
        self.events += 1;
        self.injection.add(&parsed.kind);
        let hash = parsed.hash;
        // Every variant here, and every field in the `add_*` it goes to, is
        // named (no `..`, no `_ =>`): a new one must be counted or listed in
        // `FIELDS` as not counted.
        match &parsed.kind {
            EventKind::RunStarted(RunStartedEvent { run_id, models, suites, trials, seed, config }) => {
                self.add_run(run_id, models, suites, *trials, *seed, config)
            }
            EventKind::ScenarioStarted(ScenarioStartedEvent { unit: _ }) => {}
            EventKind::ModelRequest(event) => self.add_request(event, hash),
            EventKind::ToolCall(event) => self.add_call(event, hash),
            EventKind::ToolRepair(event) => self.add_repair(event, hash),
            EventKind::ToolApproval(event) => self.add_approval(event, hash),
            EventKind::DenialFollowup(DenialFollowupEvent { unit, call_id: _, tool, behaviour }) => {
                let unit = self.unit(unit, hash);
                let key = self.tool_key(unit, tool);
                let a = self.approvals.entry(key).or_default();
                for (count, b) in a.after_denial.iter_mut().zip(DenialBehaviour::ALL) {
                    *count += u64::from(*behaviour == b);
                }
            }
            EventKind::ToolExecuted(ToolExecutedEvent { unit: _, call_id: _, tool: _, is_error: _, scripted: _, result: _ }) => {}
            EventKind::ScenarioFinished(ScenarioFinishedEvent {
                unit,
                passed,
                reason,
                steps: _,
                error,
                error_kind,
                expectation: _,
                outcome,
            }) => {
                let unit = self.unit(unit, hash);
                let reason = self.names.id(reason);
                // Older events files say only that the unit errored, not how.
                let error = error.then(|| error_kind.unwrap_or(UnitError::Request));
                let outcome = outcome.as_ref().map(|o| OutcomeRow {
                    milestones_reached: o.reached,
                    milestones: o.milestones.len() as u32,
                    last_milestone: o.last_milestone().map(|m| self.names.id(m)),
                    state_checks_passed: o.state_checks.saturating_sub(o.state_failures.len() as u32),
                    state_checks: o.state_checks,
                });
                self.scenarios.push(ScenarioRow { unit, passed: *passed, reason, error, outcome });
            }
            EventKind::Cassette(CassetteEvent {
                unit: _,
                path: _,
                mode: _,
                replayed: _,
                recorded: _,
                missing: _,
                unused: _,
                written: _,
                error: _,
            }) => {}
            EventKind::RunFinished(RunFinishedEvent { units: _, elapsed_ms }) => self.run.elapsed_ms = Some(*elapsed_ms),
            EventKind::RunInterrupted(RunInterruptedEvent { completed: _, remaining: _ }) => {}
        }
    }

    /// A request: its unit's time and cost, and a row for the percentiles.
    fn add_request(&mut self, event: &ModelRequestEvent, hash: UnitHash) {
        let ModelRequestEvent {
            unit,
            step: _,
            purpose,
            repair_of,
            status: _,
            input_tokens,
            output_tokens,
            cached_input_tokens,
            cost_usd,
            latency_ms,
            ttft_ms,
            error,
            rejected_call: _,
            text: _,
            reasoning: _,
            finish_reason: _,
        } = event;
        let unit = self.unit(unit, hash);
        let u = &mut self.units[unit as usize];
        u.latency_ms += latency_ms;
        u.cost_usd += cost_usd;
        let model = u.model;
        let repair = *purpose == RequestPurpose::Repair;
        let tool = repair_of.as_deref().map_or(NO_TOOL, |t| self.names.id(t));
        self.requests.push(RequestCost { unit, tool, repair, cost_usd: *cost_usd });
        let totals = self.request_totals.entry(model).or_default();
        totals.errors += u64::from(error.is_some());
        if repair {
            totals.repair_input_tokens += input_tokens;
            totals.repair_output_tokens += output_tokens;
        } else {
            totals.input_tokens += input_tokens;
            totals.output_tokens += output_tokens;
            totals.cached_input_tokens += cached_input_tokens;
            totals.turn_latency_ms.push(*latency_ms);
            match ttft_ms {
                Some(ttft) => totals.turn_ttft_ms.push(*ttft),
                None => totals.turn_without_ttft += 1,
            }
        }
        if tool != NO_TOOL {
            let tokens = self.repair_tokens.entry((model, tool)).or_default();
            if repair {
                tokens.input_tokens += input_tokens;
                tokens.output_tokens += output_tokens;
            }
        }
    }

    /// A tool call: the counts of its model × tool.
    fn add_call(&mut self, event: &ToolCallEvent, hash: UnitHash) {
        let ToolCallEvent {
            unit,
            step: _,
            call_id: _,
            raw_name: _,
            tool,
            arguments: _,
            outcome,
            repaired_by,
            invalid_kinds,
            issues: _,
            remaining_kinds: _,
            fixes: _,
            timings: _,
            final_arguments: _,
        } = event;
        let unit = self.unit(unit, hash);
        let repaired = *outcome == CallOutcome::Repaired;
        let by_model = *repaired_by == Some(RepairStage::Model);
        // A truncated call that ran was closed by repair: without it the unit could not have passed.
        self.units[unit as usize].repaired |= repaired || *outcome == CallOutcome::Truncated;
        let key = self.tool_key(unit, tool);
        let c = self.calls.entry(key).or_default();
        c.calls += 1;
        c.invalid += u64::from(*outcome != CallOutcome::Valid);
        c.repaired_local += u64::from(repaired && !by_model);
        c.repaired_model += u64::from(repaired && by_model);
        c.still_invalid += u64::from(*outcome == CallOutcome::Invalid);
        for (count, kind) in c.kinds.iter_mut().zip(InvalidKind::ALL) {
            *count += u64::from(invalid_kinds.contains(&kind));
        }
    }

    /// A repair attempt: a row for the repair table.
    fn add_repair(&mut self, event: &ToolRepairEvent, hash: UnitHash) {
        let ToolRepairEvent { unit, call_id: _, tool, stage, attempt: _, fixes: _, succeeded, latency_us, latency_ms, error: _ } = event;
        let unit = self.unit(unit, hash);
        let tool = self.names.id(tool);
        self.repairs.push(RepairRow { unit, tool, stage: *stage, latency_us: *latency_us, latency_ms: *latency_ms, succeeded: *succeeded });
    }

    /// An approval decision: the approval counts of its model × tool.
    fn add_approval(&mut self, event: &ToolApprovalEvent, hash: UnitHash) {
        let ToolApprovalEvent { unit, call_id: _, tool, arguments: _, approved, reason: _, decided_by: _, rule: _, warning, latency_ms: _ } =
            event;
        let unit = self.unit(unit, hash);
        let key = self.tool_key(unit, tool);
        let a = self.approvals.entry(key).or_default();
        a.requested += 1;
        a.approved += u64::from(*approved);
        a.warnings += u64::from(warning.is_some());
    }

    /// The run's own description: the first run's, with every run's models.
    fn add_run(&mut self, run_id: &str, models: &[ModelInfo], suites: &[String], trials: u32, seed: u64, config: &str) {
        if self.run.run_id.is_empty() {
            self.run = super::RunInfo {
                run_id: run_id.to_string(),
                suites: suites.to_vec(),
                trials,
                seed,
                config: config.to_string(),
                elapsed_ms: None,
                fitted: Vec::new(),
            };
        }
        self.trials = self.trials.max(trials);
        for m in models {
            let tier = serde_json::to_value(m.tier).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            self.model_tier.insert(m.name.clone(), tier);
            if let Some(arm) = &m.arm {
                self.model_arm.insert(m.name.clone(), arm.clone());
            }
            if !self.model_order.contains(&m.name) {
                self.model_order.push(m.name.clone());
                if let Some(fitted) = &m.fitted {
                    self.run.fitted.push((m.name.clone(), fitted.clone()));
                }
            }
        }
    }

    /// The (model, tool) a unit's counts of `tool` go under.
    fn tool_key(&mut self, unit: u32, tool: &str) -> (u32, u32) {
        (self.units[unit as usize].model, self.names.id(tool))
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
        drop(order);
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
        // The scenario runs in the order of the tables: by configured
        // model, then (as they are already) by suite, scenario and trial.
        let place: std::collections::HashMap<&str, u32> =
            self.model_order.iter().enumerate().map(|(i, m)| (m.as_str(), i as u32)).collect();
        let model_place: Vec<u32> =
            (0..self.names.names.len() as u32).map(|id| place.get(self.names.name(id)).copied().unwrap_or(u32::MAX)).collect();
        let units = &self.units;
        self.scenarios.par_sort_by_key(|r| (model_place[units[r.unit as usize].model as usize], rank[r.unit as usize]));
        self.name_rank = name_rank;
    }

    /// The model name of a unit.
    pub(super) fn model_of(&self, unit: u32) -> &str {
        self.names.name(self.units[unit as usize].model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the tables keep while the events are read grows with the run:
    /// a byte added to a row kept per unit or per request is a megabyte
    /// for a million of them (the requests' other fields are summed as
    /// they come, see `RequestTotals`).
    #[test]
    fn rows_kept_per_unit_and_per_request_stay_compact() {
        use std::mem::size_of;
        assert_eq!(size_of::<RequestCost>(), 24);
        assert_eq!(size_of::<Unit>(), 56);
        assert_eq!(size_of::<ScenarioRow>(), 36);
        assert_eq!(size_of::<RepairRow>(), 48);
    }
}
