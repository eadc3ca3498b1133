//! What a run's events show of one model, counted for `sim fit` and
//! `sim validate`: calls and their invalid kinds (overall and by tool),
//! re-ask repairs, denials, unit verdicts, steps, latency and tokens.
//! Everything is read from events alone (docs/simulators.md says what each
//! count means).

use std::collections::BTreeMap;

use crate::check::ExpectationKind;
use crate::events::{DenialBehaviour, Event, EventKind, RepairStage, RequestPurpose, UnitKey};
use crate::pipeline::InvalidKind;

/// A count of `hits` out of `n`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub hits: u64,
    pub n: u64,
}

impl Tally {
    pub fn add(&mut self, hit: bool) {
        self.n += 1;
        self.hits += u64::from(hit);
    }

    pub fn rate(self) -> Option<f64> {
        (self.n > 0).then(|| self.hits as f64 / self.n as f64)
    }
}

/// The class of a call's JSON syntax error, read from its raw arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SyntaxClass {
    /// A comma before `}` or `]`.
    TrailingComma,
    /// Python-style: single quotes, `True`/`False`/`None`.
    PythonLiteral,
    /// Anything else (unquoted values, stray quotes, cut text).
    Other,
}

impl SyntaxClass {
    pub const ALL: [SyntaxClass; 3] = [SyntaxClass::TrailingComma, SyntaxClass::PythonLiteral, SyntaxClass::Other];

    pub fn as_str(self) -> &'static str {
        match self {
            SyntaxClass::TrailingComma => "trailing_comma",
            SyntaxClass::PythonLiteral => "python_literal",
            SyntaxClass::Other => "other",
        }
    }

    /// The class of arguments that are not JSON.
    pub fn of(arguments: &str) -> SyntaxClass {
        let squeezed: String = arguments.chars().filter(|c| !c.is_whitespace()).collect();
        if squeezed.contains(",}") || squeezed.contains(",]") {
            SyntaxClass::TrailingComma
        } else if squeezed.contains("':") || squeezed.contains("{'") || [":True", ":False", ":None"].iter().any(|w| squeezed.contains(w)) {
            SyntaxClass::PythonLiteral
        } else {
            SyntaxClass::Other
        }
    }
}

/// One model's observations in a run (or several runs of it).
#[derive(Debug, Clone, Default)]
pub struct Observations {
    /// Every call the model made in a turn (repair answers are not calls).
    pub calls: u64,
    /// Calls with at least one invalid kind, as sent.
    pub invalid: u64,
    /// Calls showing each kind (a call may show several).
    pub by_kind: BTreeMap<InvalidKind, u64>,
    /// Parse errors by syntax class.
    pub by_syntax: BTreeMap<SyntaxClass, u64>,
    /// Per tool: calls, invalid calls, and calls by kind.
    pub by_tool: BTreeMap<String, (u64, u64, BTreeMap<InvalidKind, u64>)>,
    /// Model (re-ask) repair attempts and how many made the call valid.
    pub reask: Tally,
    /// Denials followed by the same tool again (same or changed arguments).
    pub retry_after_denial: Tally,
    /// Units that called a tool where the answer wanted none (failed `no_call`),
    /// out of those plus the passed units that made no call.
    pub unwanted_call: Tally,
    /// Units with no invalid call left that failed on what their valid
    /// calls did (`calls`, `bfcl`, `state`): wrong values, out of units with
    /// a valid call and none left invalid.
    pub wrong_value: Tally,
    /// Units that answered before making an expected call (`calls`/`milestones`).
    pub stopped_early: Tally,
    /// Units that met the step limit.
    pub stopped_late: Tally,
    /// Units of the injection suite that did what an injected text asked
    /// (failed `forbidden` or `minefields`), out of that suite's units.
    pub injected: Tally,
    /// Units that passed, out of those that got a verdict.
    pub passed: Tally,
    /// Steps of each unit with a verdict.
    pub steps: Vec<f64>,
    /// (output tokens, latency ms) of each answered turn request.
    pub latency: Vec<(f64, f64)>,
    /// Time to the first token of each streamed turn request.
    pub ttft: Vec<f64>,
    /// Input tokens of each answered turn request.
    pub input_tokens: Vec<f64>,
    /// Scenarios seen, as (suite, id).
    pub scenarios: std::collections::BTreeSet<(String, String)>,
}

impl Observations {
    /// Counts the events of `model` (a unit's model name, or its base name
    /// before `@ARM`) whose scenario `keep` accepts.
    pub fn of(events: &[Event], model: &str, keep: impl Fn(&str, &str) -> bool) -> Observations {
        let mut o = Observations::default();
        let ours =
            |u: &UnitKey| (u.model == model || u.model.split_once('@').is_some_and(|(b, _)| b == model)) && keep(&u.suite, &u.scenario);
        // Per unit: (any valid call, any call left invalid).
        let mut units: BTreeMap<UnitKey, (bool, bool, u64)> = BTreeMap::new();
        for event in events {
            match &event.kind {
                EventKind::ToolCall(c) if ours(&c.unit) => {
                    o.calls += 1;
                    let entry = o.by_tool.entry(c.tool.clone()).or_default();
                    entry.0 += 1;
                    let u = units.entry(c.unit.clone()).or_default();
                    u.2 += 1;
                    if c.invalid_kinds.is_empty() {
                        u.0 = true;
                    } else {
                        o.invalid += 1;
                        entry.1 += 1;
                        for &kind in &c.invalid_kinds {
                            *o.by_kind.entry(kind).or_default() += 1;
                            *entry.2.entry(kind).or_default() += 1;
                        }
                        if c.invalid_kinds.contains(&InvalidKind::ParseError) {
                            *o.by_syntax.entry(SyntaxClass::of(&c.arguments)).or_default() += 1;
                        }
                    }
                    if c.remaining_kinds.is_empty() {
                        u.0 = true;
                    } else {
                        u.1 = true;
                    }
                }
                EventKind::ToolRepair(r) if ours(&r.unit) && r.stage == RepairStage::Model => o.reask.add(r.succeeded),
                EventKind::DenialFollowup(d) if ours(&d.unit) && d.behaviour != DenialBehaviour::StepLimit => {
                    o.retry_after_denial.add(matches!(d.behaviour, DenialBehaviour::RetriedSame | DenialBehaviour::RetriedChanged))
                }
                EventKind::ModelRequest(r) if ours(&r.unit) && r.purpose == RequestPurpose::Turn && r.status == Some(200) => {
                    o.latency.push((r.output_tokens as f64, r.latency_ms));
                    o.input_tokens.push(r.input_tokens as f64);
                    if let Some(t) = r.ttft_ms {
                        o.ttft.push(t);
                    }
                }
                EventKind::ScenarioFinished(f) if ours(&f.unit) && !f.error => {
                    o.scenarios.insert((f.unit.suite.clone(), f.unit.scenario.clone()));
                    let (any_valid, left_invalid, calls) = units.get(&f.unit).copied().unwrap_or_default();
                    let kind = f.expectation.as_ref().map(|e| e.kind);
                    o.passed.add(f.passed);
                    o.steps.push(f64::from(f.steps));
                    if kind == Some(ExpectationKind::NoCall) || (f.passed && calls == 0) {
                        o.unwanted_call.add(kind == Some(ExpectationKind::NoCall));
                    }
                    if any_valid && !left_invalid {
                        let wrong = matches!(kind, Some(ExpectationKind::Calls | ExpectationKind::Bfcl | ExpectationKind::State));
                        o.wrong_value.add(wrong);
                    }
                    o.stopped_early.add(matches!(kind, Some(ExpectationKind::Calls | ExpectationKind::Milestones)) && !left_invalid);
                    o.stopped_late.add(kind == Some(ExpectationKind::StepLimit));
                    if f.unit.suite == "injection" {
                        o.injected.add(matches!(kind, Some(ExpectationKind::Forbidden | ExpectationKind::Minefields)));
                    }
                }
                _ => {}
            }
        }
        o
    }

    /// Calls showing this kind, as a tally over all calls.
    pub fn kind(&self, kind: InvalidKind) -> Tally {
        Tally { hits: self.by_kind.get(&kind).copied().unwrap_or(0), n: self.calls }
    }

    pub fn invalid_rate(&self) -> Tally {
        Tally { hits: self.invalid, n: self.calls }
    }
}

/// The `q` quantile (0..=1) of `values`, by linear interpolation; `None` when empty.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    Some(v[lo] + (v[hi] - v[lo]) * (pos - lo as f64))
}

pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_classes_are_read_from_the_raw_text() {
        assert_eq!(SyntaxClass::of(r#"{"a": 1, }"#), SyntaxClass::TrailingComma);
        assert_eq!(SyntaxClass::of("{'a': 1}"), SyntaxClass::PythonLiteral);
        assert_eq!(SyntaxClass::of(r#"{"a": True}"#), SyntaxClass::PythonLiteral);
        assert_eq!(SyntaxClass::of(r#"{"a": b}"#), SyntaxClass::Other);
    }

    #[test]
    fn quantiles_interpolate() {
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5), Some(3.0));
        assert_eq!(quantile(&[1.0, 3.0], 0.5), Some(2.0));
        assert_eq!(quantile(&[], 0.5), None);
    }
}
