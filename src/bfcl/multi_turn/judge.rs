//! BFCL's multi-turn checker: a model's calls, turn by turn, executed on
//! fresh instances of the entry's classes beside the ground truth's; each
//! turn whose ground truth makes calls is judged by the state it leaves
//! (every public attribute of every class equal) and by the results (every
//! ground-truth result found among the model's results so far). The checks
//! and their order, and the failure types, are BFCL's
//! (`multi_turn_checker.py`, bfcl-eval 2026.3.23).

use serde::{Deserialize, Serialize};

use super::pycall::{parse_call, Call};
use super::World;
use crate::bfcl::pyvalue::Py;

/// A multi-turn entry's answer key: what the world starts as and the
/// calls of a right answer, per turn (`expect.bfcl_multi_turn`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MultiTurnKey {
    /// `multi_turn_base`, `multi_turn_miss_func`, …
    pub category: String,
    /// BFCL's class names, in the entry's order.
    pub involved_classes: Vec<String>,
    /// The classes' starting state, by class name (BFCL's `initial_config`).
    #[serde(default)]
    pub initial_config: Py,
    /// The classes load their long-context padding (`multi_turn_long_context`).
    #[serde(default)]
    pub long_context: bool,
    /// The ground truth: per turn, Python call expressions.
    pub ground_truth: Vec<Vec<String>>,
}

impl MultiTurnKey {
    /// A fresh world for this entry.
    pub fn world(&self) -> Result<World, String> {
        World::new(&self.involved_classes, &self.initial_config, self.long_context)
    }

    /// The ground truth's calls, read (`Err` names a call that is not Python call syntax).
    pub fn ground_truth_calls(&self) -> Result<Vec<Vec<Call>>, String> {
        self.ground_truth.iter().map(|turn| turn.iter().map(|c| parse_call(c)).collect()).collect()
    }
}

/// BFCL's failure types (`error_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailureType {
    /// The model did not reach the end of every turn.
    #[serde(rename = "multi_turn:force_terminated")]
    ForceTerminated,
    /// A turn whose ground truth makes calls got none.
    #[serde(rename = "multi_turn:empty_turn_model_response")]
    EmptyTurn,
    /// A class's public state differs from the ground truth's after a turn.
    #[serde(rename = "multi_turn:instance_state_mismatch")]
    StateMismatch,
    /// A ground-truth result is missing from the model's results so far.
    #[serde(rename = "multi_turn:execution_response_mismatch")]
    ResponseMismatch,
}

impl FailureType {
    /// BFCL's name of it.
    pub fn name(self) -> &'static str {
        match self {
            FailureType::ForceTerminated => "multi_turn:force_terminated",
            FailureType::EmptyTurn => "multi_turn:empty_turn_model_response",
            FailureType::StateMismatch => "multi_turn:instance_state_mismatch",
            FailureType::ResponseMismatch => "multi_turn:execution_response_mismatch",
        }
    }
}

/// Why an answer failed: the type, the turn, and what differed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub kind: FailureType,
    /// The turn judged (0-based), if the failure is about one.
    pub turn: Option<usize>,
    pub detail: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.turn {
            Some(turn) => write!(f, "{} at turn {turn}: {}", self.kind.name(), self.detail),
            None => write!(f, "{}: {}", self.kind.name(), self.detail),
        }
    }
}

/// Judges the calls a model made in each turn it reached (`turns.len()`
/// short of the ground truth's: it was force-terminated).
pub fn judge(key: &MultiTurnKey, turns: &[Vec<Call>]) -> Result<(), Failure> {
    if turns.len() != key.ground_truth.len() {
        return Err(Failure {
            kind: FailureType::ForceTerminated,
            turn: None,
            detail: format!("the model finished {} of {} turns", turns.len(), key.ground_truth.len()),
        });
    }
    let ground_truth = key.ground_truth_calls().map_err(|e| Failure {
        kind: FailureType::ResponseMismatch,
        turn: None,
        detail: format!("the ground truth cannot be read: {e}"),
    })?;
    let unloadable = |e: String| Failure { kind: FailureType::StateMismatch, turn: None, detail: e };
    let mut model_world = key.world().map_err(unloadable)?;
    let mut truth_world = key.world().map_err(unloadable)?;
    let mut model_results: Vec<String> = Vec::new();
    for (turn, (calls, truth)) in turns.iter().zip(&ground_truth).enumerate() {
        model_results.extend(calls.iter().map(|c| model_world.execute(c)));
        let truth_results: Vec<String> = truth.iter().map(|c| truth_world.execute(c)).collect();
        if truth.is_empty() {
            // BFCL judges nothing here; the calls still ran, so later turns see their effect.
            continue;
        }
        if calls.is_empty() {
            return Err(Failure { kind: FailureType::EmptyTurn, turn: Some(turn), detail: "no call was made".into() });
        }
        if let Some(detail) = state_difference(&model_world, &truth_world) {
            return Err(Failure { kind: FailureType::StateMismatch, turn: Some(turn), detail });
        }
        let missing = missing_results(&truth_results, &model_results);
        if !missing.is_empty() {
            let shown: Vec<String> = missing.iter().map(|m| crate::quote::bound_owned(m.to_string(), 120)).collect();
            return Err(Failure {
                kind: FailureType::ResponseMismatch,
                turn: Some(turn),
                detail: format!("{} ground-truth result(s) missing: {}", missing.len(), shown.join(" | ")),
            });
        }
    }
    Ok(())
}

/// The first class whose public attributes differ, and which attributes.
fn state_difference(model: &World, truth: &World) -> Option<String> {
    for ((class, ours), (_, theirs)) in model.state().iter().zip(truth.state()) {
        let differing: Vec<&str> = theirs
            .iter()
            .filter(|(name, value)| !ours.iter().any(|(n, v)| n == name && v.py_eq(value)))
            .map(|(name, _)| name.as_str())
            .collect();
        if !differing.is_empty() {
            return Some(format!("{class} differs from the ground truth's in {}", differing.join(", ")));
        }
    }
    None
}

/// The ground-truth results not found among the model's, each match used once.
fn missing_results<'a>(truth: &'a [String], model: &[String]) -> Vec<&'a str> {
    let mut left: Vec<&str> = model.iter().map(String::as_str).collect();
    let mut missing = Vec::new();
    for result in truth {
        match left.iter().position(|m| m == result) {
            Some(i) => {
                left.remove(i);
            }
            None => missing.push(result.as_str()),
        }
    }
    missing
}
