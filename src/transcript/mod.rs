//! Transcripts: the story of each unit (model, scenario, trial) rebuilt from
//! a run's events alone — what the model said, each call as sent, what the
//! pipeline fixed, the approval, the result, the verdict and the expectation
//! it missed. `show` renders one unit; `align` lines two of them up step by
//! step for `calltape diff`. Reads only `events`; writes nothing.

pub mod align;
pub mod html;
pub mod render;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::check::FailedExpectation;
use crate::core::glob::glob_matches;
use crate::events::{
    DenialBehaviour, DenialFollowupEvent, Event, EventKind, EventsError, ModelRequestEvent, RepairStage, RequestPurpose,
    ScenarioFinishedEvent, ScenarioStartedEvent, ToolApprovalEvent, ToolCallEvent, ToolExecutedEvent, ToolRepairEvent, UnitKey,
};
use crate::pipeline::approval::Decider;
use crate::pipeline::{CallIssue, CallOutcome, Fix, InvalidKind};

/// One unit's conversation, in the order it happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnitTranscript {
    pub unit: UnitKey,
    pub turns: Vec<Turn>,
    /// Absent when the run stopped before the unit finished.
    pub verdict: Option<VerdictStory>,
}

/// One request to the model under test and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Turn {
    pub step: u32,
    pub text: Option<String>,
    pub reasoning: Option<String>,
    pub finish_reason: Option<String>,
    /// The request failed: no answer.
    pub error: Option<String>,
    /// The server rejected the model's output as a call.
    pub rejected_call: Option<String>,
    pub calls: Vec<CallStory>,
}

/// One call: as sent → fixes → final arguments → approval → result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallStory {
    pub call_id: String,
    pub raw_name: String,
    pub tool: String,
    /// The argument text as the model sent it.
    pub arguments: String,
    pub outcome: CallOutcome,
    pub repaired_by: Option<RepairStage>,
    pub issues: Vec<CallIssue>,
    pub fixes: Vec<Fix>,
    pub remaining_kinds: Vec<InvalidKind>,
    pub repairs: Vec<RepairAttempt>,
    pub final_arguments: Option<Value>,
    pub approval: Option<ApprovalStory>,
    pub result: Option<ResultStory>,
    /// What the model did next, when this call was denied.
    pub after_denial: Option<DenialBehaviour>,
}

/// One attempt to repair a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepairAttempt {
    pub stage: RepairStage,
    pub attempt: u32,
    pub succeeded: bool,
    pub error: Option<String>,
}

/// The approval decision on a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApprovalStory {
    pub approved: bool,
    pub reason: Option<String>,
    pub decided_by: Decider,
    pub rule: Option<String>,
    pub warning: Option<String>,
}

/// What a run call returned to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultStory {
    pub is_error: bool,
    pub scripted: bool,
    /// Bounded; absent in events written before results were recorded.
    pub content: Option<String>,
}

/// The verdict on the unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerdictStory {
    pub passed: bool,
    pub reason: String,
    pub steps: u32,
    /// The unit ended on a request error (not a model failure).
    pub error: bool,
    pub expectation: Option<FailedExpectation>,
    /// A stateful scenario's files the model added, changed or deleted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
}

impl CallStory {
    /// Whether approval denied the call.
    pub fn denied(&self) -> bool {
        self.approval.as_ref().is_some_and(|a| !a.approved)
    }
}

impl UnitTranscript {
    fn new(unit: UnitKey) -> UnitTranscript {
        UnitTranscript { unit, turns: Vec::new(), verdict: None }
    }

    /// Every call, in the order made.
    pub fn calls(&self) -> impl Iterator<Item = &CallStory> {
        self.turns.iter().flat_map(|t| t.calls.iter())
    }

    /// Whether the unit failed: the model answered and missed (an
    /// unfinished or errored unit has not).
    pub fn failed(&self) -> bool {
        self.verdict.as_ref().is_some_and(|v| !v.passed && !v.error)
    }

    /// Whether the unit errored: it got no answer (a failed request, no
    /// recording), so it neither passed nor failed.
    pub fn errored(&self) -> bool {
        self.verdict.as_ref().is_some_and(|v| v.error)
    }

    /// The user turn (0: the first) of each step, where the unit had more
    /// than one (`None`: one user turn). A conversation goes on after an
    /// answer without calls only when a scripted user turn follows it, so
    /// such an answer ends a user turn.
    pub fn user_turns(&self) -> Option<Vec<usize>> {
        let mut turn = 0;
        let mut out = Vec::with_capacity(self.turns.len());
        for i in 0..self.turns.len() {
            if i > 0 && self.turns[i - 1].calls.is_empty() && self.turns[i - 1].error.is_none() {
                turn += 1;
            }
            out.push(turn);
        }
        (turn > 0).then_some(out)
    }

    /// The last text the model answered with.
    pub fn final_text(&self) -> Option<&str> {
        self.turns.iter().rev().find(|t| t.calls.is_empty() && t.text.is_some()).and_then(|t| t.text.as_deref())
    }

    /// The latest call with this id (ids may repeat across turns).
    fn call_mut(&mut self, call_id: &str) -> Option<&mut CallStory> {
        self.turns.iter_mut().rev().flat_map(|t| t.calls.iter_mut().rev()).find(|c| c.call_id == call_id)
    }
}

/// Every unit's transcript, in unit order. A unit run again (a resumed
/// run) keeps its last run only.
pub fn transcripts(events: &[Event]) -> Vec<UnitTranscript> {
    let mut builder = Transcripts::default();
    for event in events {
        builder.add(&event.kind);
    }
    builder.finish()
}

/// The transcripts of the units `keep` accepts (given a unit's model,
/// suite, scenario and trial), streamed from an events file (see
/// `events::stream`): each line's unit is read first, without copying its
/// text, and only the kept units' events are parsed whole, so what this
/// holds is bounded by the units kept, not by the run.
pub fn transcripts_from_file(path: &Path, keep: impl Fn(&str, &str, &str, u32) -> bool + Sync) -> Result<Vec<UnitTranscript>, EventsError> {
    let mut builder = Transcripts::default();
    let parse = |line: &str| -> crate::events::stream::LineResult<EventKind> {
        // Lines of no unit (a few a run) and lines that are not events are
        // read whole: the first to check them, the second for serde's message.
        if let Ok(UnitOfLine { model: Some(model), suite: Some(suite), scenario: Some(scenario), trial: Some(trial) }) =
            serde_json::from_str::<UnitOfLine>(line)
        {
            if !keep(&model, &suite, &scenario, trial) {
                return Ok(None);
            }
        }
        let event = serde_json::from_str::<Event>(line).map_err(|e| e.to_string())?;
        Ok(event.kind.unit().is_some_and(|u| keep(&u.model, &u.suite, &u.scenario, u.trial)).then_some(event.kind))
    };
    crate::events::stream::for_each_in_file(path, parse, |kind| builder.add(kind))?;
    Ok(builder.finish())
}

/// The unit fields of an event line (an event of no unit has none),
/// borrowed from the line where no escape needs undoing; every other
/// field is skipped unread.
#[derive(serde::Deserialize)]
struct UnitOfLine<'a> {
    #[serde(borrow)]
    model: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    suite: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    scenario: Option<std::borrow::Cow<'a, str>>,
    trial: Option<u32>,
}

/// Transcripts built an event at a time, in file order.
#[derive(Default)]
pub struct Transcripts {
    units: BTreeMap<UnitKey, UnitTranscript>,
    /// Repairs are written before the call they repaired.
    pending: BTreeMap<(UnitKey, String), Vec<RepairAttempt>>,
}

impl Transcripts {
    /// Adds one event; an event of no unit is ignored.
    pub fn add(&mut self, kind: &EventKind) {
        let Some(key) = kind.unit() else { return };
        if let EventKind::ScenarioStarted(ScenarioStartedEvent { unit }) = kind {
            self.units.insert(unit.clone(), UnitTranscript::new(unit.clone()));
            return;
        }
        let t = self.units.entry(key.clone()).or_insert_with(|| UnitTranscript::new(key.clone()));
        match kind {
            EventKind::ModelRequest(ModelRequestEvent {
                purpose: RequestPurpose::Turn,
                step,
                error,
                rejected_call,
                text,
                reasoning,
                finish_reason,
                ..
            }) => t.turns.push(Turn {
                step: *step,
                text: text.clone(),
                reasoning: reasoning.clone(),
                finish_reason: finish_reason.clone(),
                error: error.clone(),
                rejected_call: rejected_call.clone(),
                calls: Vec::new(),
            }),
            EventKind::ToolRepair(ToolRepairEvent { call_id, stage, attempt, succeeded, error, .. }) => self
                .pending
                .entry((key.clone(), call_id.clone()))
                .or_default()
                .push(RepairAttempt { stage: *stage, attempt: *attempt, succeeded: *succeeded, error: error.clone() }),
            EventKind::ToolCall(ToolCallEvent {
                step,
                call_id,
                raw_name,
                tool,
                arguments,
                outcome,
                repaired_by,
                issues,
                remaining_kinds,
                fixes,
                final_arguments,
                ..
            }) => {
                if t.turns.last().is_none_or(|turn| turn.step != *step) {
                    t.turns.push(Turn {
                        step: *step,
                        text: None,
                        reasoning: None,
                        finish_reason: None,
                        error: None,
                        rejected_call: None,
                        calls: Vec::new(),
                    });
                }
                let repairs = self.pending.remove(&(key.clone(), call_id.clone())).unwrap_or_default();
                let turn = t.turns.last_mut().expect("a turn was just ensured");
                turn.calls.push(CallStory {
                    call_id: call_id.clone(),
                    raw_name: raw_name.clone(),
                    tool: tool.clone(),
                    arguments: arguments.clone(),
                    outcome: *outcome,
                    repaired_by: *repaired_by,
                    issues: issues.clone(),
                    fixes: fixes.clone(),
                    remaining_kinds: remaining_kinds.clone(),
                    repairs,
                    final_arguments: final_arguments.clone(),
                    approval: None,
                    result: None,
                    after_denial: None,
                });
            }
            EventKind::ToolApproval(ToolApprovalEvent { call_id, approved, reason, decided_by, rule, warning, .. }) => {
                if let Some(c) = t.call_mut(call_id) {
                    c.approval = Some(ApprovalStory {
                        approved: *approved,
                        reason: reason.clone(),
                        decided_by: *decided_by,
                        rule: rule.clone(),
                        warning: warning.clone(),
                    });
                }
            }
            EventKind::ToolExecuted(ToolExecutedEvent { call_id, is_error, scripted, result, .. }) => {
                if let Some(c) = t.call_mut(call_id) {
                    c.result = Some(ResultStory { is_error: *is_error, scripted: *scripted, content: result.clone() });
                }
            }
            EventKind::DenialFollowup(DenialFollowupEvent { call_id, behaviour, .. }) => {
                if let Some(c) = t.call_mut(call_id) {
                    c.after_denial = Some(*behaviour);
                }
            }
            EventKind::ScenarioFinished(ScenarioFinishedEvent { passed, reason, steps, error, expectation, outcome, .. }) => {
                t.verdict = Some(VerdictStory {
                    passed: *passed,
                    reason: reason.clone(),
                    steps: *steps,
                    error: *error,
                    expectation: expectation.clone(),
                    changed: outcome.as_ref().map(|o| o.changed.clone()).unwrap_or_default(),
                })
            }
            _ => {}
        }
    }

    /// Every unit's transcript, in unit order.
    pub fn finish(self) -> Vec<UnitTranscript> {
        self.units.into_values().collect()
    }
}

/// Which units to show: each flag narrows; `scenario` is a glob matched
/// against the scenario id and against `suite/scenario`.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub model: Option<String>,
    pub scenario: Option<String>,
    pub trial: Option<u32>,
}

impl Selection {
    /// Whether no flag narrows the selection.
    pub fn is_empty(&self) -> bool {
        self.model.is_none() && self.scenario.is_none() && self.trial.is_none()
    }

    /// Whether `unit` is selected.
    pub fn matches(&self, unit: &UnitKey) -> bool {
        self.model.as_ref().is_none_or(|m| model_matches(m, &unit.model))
            && self.scenario.as_ref().is_none_or(|s| scenario_matches(s, unit))
            && self.trial.is_none_or(|n| n == unit.trial)
    }
}

/// Whether `--model NAME` (a glob) names this model: by its name, or by the
/// configured model it is an arm of (`sim-strong` names `sim-strong@off`,
/// `sim-strong@local` and `sim-strong@full`).
pub fn model_matches(glob: &str, model: &str) -> bool {
    glob_matches(glob, model) || model.split_once('@').is_some_and(|(base, _)| glob_matches(glob, base))
}

/// The models of these units, each once, in the order they first ran.
pub fn models_of(units: &[UnitTranscript]) -> Vec<&str> {
    let mut models: Vec<&str> = Vec::new();
    for t in units {
        if !models.contains(&t.unit.model.as_str()) {
            models.push(&t.unit.model);
        }
    }
    models
}

/// Whether a scenario glob names this unit's scenario (`id` or `suite/id`).
pub fn scenario_matches(glob: &str, unit: &UnitKey) -> bool {
    glob_matches(glob, &unit.scenario) || glob_matches(glob, &format!("{}/{}", unit.suite, unit.scenario))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{ScenarioFinishedEvent, ScenarioStartedEvent};

    #[test]
    fn a_resumed_unit_keeps_its_last_run_and_selection_globs_scenarios() {
        let unit = UnitKey { model: "m".into(), suite: "s".into(), scenario: "read-a".into(), trial: 1 };
        let finished = |passed| Event {
            ts_ms: 0,
            kind: EventKind::ScenarioFinished(ScenarioFinishedEvent {
                outcome: None,
                unit: unit.clone(),
                passed,
                reason: "r".into(),
                steps: 1,
                error: false,
                expectation: None,
                error_kind: None,
            }),
        };
        let started = Event { ts_ms: 0, kind: EventKind::ScenarioStarted(ScenarioStartedEvent { unit: unit.clone() }) };
        let all = transcripts(&[started.clone(), finished(false), started, finished(true)]);
        assert_eq!(all.len(), 1);
        assert!(all[0].verdict.as_ref().unwrap().passed);
        let pick = |s: &str| Selection { scenario: Some(s.into()), ..Default::default() }.matches(&unit);
        assert!(pick("read-*") && pick("s/read-a") && pick("s/*") && !pick("other"));
        assert!(!Selection { trial: Some(0), ..Default::default() }.matches(&unit));
    }

    /// A run of many units, streamed for the few the reports list: only
    /// those are built (and so held), each as the whole file would give it.
    #[test]
    fn streaming_keeps_only_the_wanted_units() {
        let key = |i: usize| UnitKey { model: format!("m{}", i % 3), suite: "s".into(), scenario: format!("sc-{i}"), trial: 0 };
        let mut events = Vec::new();
        for i in 0..3000 {
            let unit = key(i);
            events.push(Event { ts_ms: 0, kind: EventKind::ScenarioStarted(ScenarioStartedEvent { unit: unit.clone() }) });
            events.push(Event {
                ts_ms: 0,
                kind: EventKind::ScenarioFinished(ScenarioFinishedEvent {
                    outcome: None,
                    unit,
                    passed: i % 2 == 0,
                    reason: format!("reason {i}"),
                    steps: 1,
                    error: false,
                    expectation: None,
                    error_kind: None,
                }),
            });
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let text: String = events.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
        std::fs::write(&path, text).unwrap();
        let wanted = [key(7), key(2999), key(1234)];
        let kept = transcripts_from_file(&path, |model, suite, scenario, trial| {
            wanted.iter().any(|u| u.model == model && u.suite == suite && u.scenario == scenario && u.trial == trial)
        })
        .unwrap();
        let all = transcripts(&events);
        let expected: Vec<&UnitTranscript> = all.iter().filter(|t| wanted.contains(&t.unit)).collect();
        assert_eq!(kept.len(), 3);
        assert_eq!(kept.iter().collect::<Vec<_>>(), expected);
        assert_eq!(kept[0].verdict.as_ref().unwrap().reason, "reason 1234");
        let bad = dir.path().join("bad.jsonl");
        std::fs::write(&bad, "{}\n").unwrap();
        assert!(transcripts_from_file(&bad, |_, _, _, _| true).unwrap_err().to_string().starts_with(&format!("{}:1: ", bad.display())));
    }
}
