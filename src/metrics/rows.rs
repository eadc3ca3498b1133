//! Pulling the rows the tables need out of the events, column by column.

use std::collections::{HashMap, HashSet};

use crate::events::{DenialBehaviour, Event, EventKind, RepairStage, RequestPurpose, UnitKey};
use crate::pipeline::{CallOutcome, InvalidKind};

/// Rows pulled out of the events, column by column.
#[derive(Default)]
pub(super) struct Columns {
    /// Tier of each announced model.
    pub(super) model_tier: HashMap<String, String>,
    /// Trials the run was asked for (k of pass@k).
    pub(super) trials: u32,
    pub(super) sc_latency: Vec<f64>,
    pub(super) sc_cost: Vec<f64>,
    pub(super) rep_model: Vec<String>,
    pub(super) rep_tool: Vec<String>,
    pub(super) rep_stage: Vec<String>,
    pub(super) rep_us: Vec<f64>,
    pub(super) rep_ok: Vec<bool>,
    pub(super) model_order: Vec<String>,
    pub(super) sc_model: Vec<String>,
    pub(super) sc_suite: Vec<String>,
    pub(super) sc_scenario: Vec<String>,
    pub(super) sc_trial: Vec<u32>,
    pub(super) sc_passed: Vec<bool>,
    pub(super) sc_passed_no_repair: Vec<bool>,
    pub(super) sc_reason: Vec<String>,
    pub(super) call_model: Vec<String>,
    pub(super) call_tool: Vec<String>,
    pub(super) call_invalid: Vec<bool>,
    pub(super) call_repaired_local: Vec<bool>,
    pub(super) call_repaired_model: Vec<bool>,
    pub(super) call_still_invalid: Vec<bool>,
    pub(super) call_kinds: Vec<Vec<bool>>, // one column per InvalidKind::ALL
    pub(super) req_model: Vec<String>,
    pub(super) req_tool: Vec<Option<String>>,
    pub(super) req_repair: Vec<bool>,
    pub(super) req_input: Vec<u64>,
    pub(super) req_output: Vec<u64>,
    pub(super) req_cached: Vec<u64>,
    pub(super) req_cost: Vec<f64>,
    pub(super) req_latency: Vec<f64>,
    pub(super) req_error: Vec<bool>,
    pub(super) local_model: Vec<String>,
    pub(super) local_tool: Vec<String>,
    pub(super) local_us: Vec<f64>,
    pub(super) remote_model: Vec<String>,
    pub(super) remote_tool: Vec<String>,
    pub(super) remote_ms: Vec<f64>,
    pub(super) appr_model: Vec<String>,
    pub(super) appr_tool: Vec<String>,
    pub(super) appr_approved: Vec<bool>,
    pub(super) appr_warning: Vec<bool>,
    pub(super) follow_model: Vec<String>,
    pub(super) follow_tool: Vec<String>,
    pub(super) follow_behaviour: Vec<Vec<bool>>, // one column per DenialBehaviour::ALL
}

/// The unit an event belongs to, if any.
fn unit_of(kind: &EventKind) -> Option<&UnitKey> {
    match kind {
        EventKind::ScenarioStarted { unit }
        | EventKind::ModelRequest { unit, .. }
        | EventKind::ToolCall { unit, .. }
        | EventKind::ToolRepair { unit, .. }
        | EventKind::ToolApproval { unit, .. }
        | EventKind::DenialFollowup { unit, .. }
        | EventKind::ToolExecuted { unit, .. }
        | EventKind::ScenarioFinished { unit, .. }
        | EventKind::Cassette { unit, .. } => Some(unit),
        EventKind::RunStarted { .. } | EventKind::RunFinished { .. } => None,
    }
}

impl Columns {
    pub(super) fn from_events(events: &[Event]) -> Columns {
        // Units run concurrently, so the file interleaves them in no fixed
        // order; ordering by unit (stably: a unit's own events are in order)
        // makes float sums, and so the tables, the same on every run.
        let mut events: Vec<&Event> = events.iter().collect();
        events.sort_by(|a, b| unit_of(&a.kind).cmp(&unit_of(&b.kind)));
        let mut c = Columns {
            call_kinds: vec![Vec::new(); InvalidKind::ALL.len()],
            follow_behaviour: vec![Vec::new(); DenialBehaviour::ALL.len()],
            ..Default::default()
        };
        let repaired_units: HashSet<&UnitKey> = events
            .iter()
            .copied()
            .filter_map(|e| match &e.kind {
                EventKind::ToolCall { unit, outcome: CallOutcome::Repaired, .. } => Some(unit),
                _ => None,
            })
            .collect();
        // Model time and cost of each unit, for the per-run rows.
        let mut unit_time: HashMap<&UnitKey, (f64, f64)> = HashMap::new();
        for e in &events {
            if let EventKind::ModelRequest { unit, latency_ms, cost_usd, .. } = &e.kind {
                let t = unit_time.entry(unit).or_default();
                t.0 += latency_ms;
                t.1 += cost_usd;
            }
        }
        for e in &events {
            match &e.kind {
                EventKind::RunStarted { models, trials, .. } => {
                    c.trials = c.trials.max(*trials);
                    for m in models {
                        let tier = serde_json::to_value(m.tier).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
                        c.model_tier.insert(m.name.clone(), tier);
                        if !c.model_order.contains(&m.name) {
                            c.model_order.push(m.name.clone());
                        }
                    }
                }
                EventKind::ScenarioFinished { unit, passed, reason, .. } => {
                    c.sc_model.push(unit.model.clone());
                    c.sc_suite.push(unit.suite.clone());
                    c.sc_scenario.push(unit.scenario.clone());
                    c.sc_trial.push(unit.trial);
                    c.sc_passed.push(*passed);
                    // Without repair, a call that needed it would have failed the scenario.
                    c.sc_passed_no_repair.push(*passed && !repaired_units.contains(unit));
                    c.sc_reason.push(reason.clone());
                    let (latency, cost) = unit_time.get(unit).copied().unwrap_or_default();
                    c.sc_latency.push(latency);
                    c.sc_cost.push(cost);
                }
                EventKind::ToolCall { unit, tool, outcome, repaired_by, invalid_kinds, .. } => {
                    c.call_model.push(unit.model.clone());
                    c.call_tool.push(tool.clone());
                    c.call_invalid.push(*outcome != CallOutcome::Valid);
                    c.call_repaired_local.push(*outcome == CallOutcome::Repaired && *repaired_by != Some(RepairStage::Model));
                    c.call_repaired_model.push(*outcome == CallOutcome::Repaired && *repaired_by == Some(RepairStage::Model));
                    c.call_still_invalid.push(*outcome == CallOutcome::Invalid);
                    for (i, kind) in InvalidKind::ALL.iter().enumerate() {
                        c.call_kinds[i].push(invalid_kinds.contains(kind));
                    }
                }
                EventKind::ModelRequest {
                    unit,
                    purpose,
                    repair_of,
                    input_tokens,
                    output_tokens,
                    cached_input_tokens,
                    cost_usd,
                    latency_ms,
                    error,
                    ..
                } => {
                    c.req_model.push(unit.model.clone());
                    c.req_tool.push(repair_of.clone());
                    c.req_repair.push(*purpose == RequestPurpose::Repair);
                    c.req_input.push(*input_tokens);
                    c.req_output.push(*output_tokens);
                    c.req_cached.push(*cached_input_tokens);
                    c.req_cost.push(*cost_usd);
                    c.req_latency.push(*latency_ms);
                    c.req_error.push(error.is_some());
                }
                EventKind::ToolApproval { unit, tool, approved, warning, .. } => {
                    c.appr_model.push(unit.model.clone());
                    c.appr_tool.push(tool.clone());
                    c.appr_approved.push(*approved);
                    c.appr_warning.push(warning.is_some());
                }
                EventKind::DenialFollowup { unit, tool, behaviour, .. } => {
                    c.follow_model.push(unit.model.clone());
                    c.follow_tool.push(tool.clone());
                    for (i, b) in DenialBehaviour::ALL.iter().enumerate() {
                        c.follow_behaviour[i].push(b == behaviour);
                    }
                }
                EventKind::ToolRepair { unit, tool, stage, latency_us, latency_ms, succeeded, .. } => {
                    c.rep_model.push(unit.model.clone());
                    c.rep_tool.push(tool.clone());
                    c.rep_stage.push(if *stage == RepairStage::Local { "local" } else { "model" }.into());
                    c.rep_us.push(latency_us.unwrap_or_else(|| latency_ms.unwrap_or(0.0) * 1e3));
                    c.rep_ok.push(*succeeded);
                    match stage {
                        RepairStage::Local => {
                            c.local_model.push(unit.model.clone());
                            c.local_tool.push(tool.clone());
                            c.local_us.push(latency_us.unwrap_or(0.0));
                        }
                        RepairStage::Model => {
                            c.remote_model.push(unit.model.clone());
                            c.remote_tool.push(tool.clone());
                            c.remote_ms.push(latency_ms.unwrap_or(0.0));
                        }
                    }
                }
                _ => {}
            }
        }
        // Models seen in rows but not announced (e.g. merged runs) go last.
        for m in c.sc_model.iter().chain(&c.req_model) {
            if !c.model_order.contains(m) {
                c.model_order.push(m.clone());
            }
        }
        c
    }
}
