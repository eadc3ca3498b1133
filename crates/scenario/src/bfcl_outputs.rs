//! `calltape bfcl-judge`: judges answers given as JSON lines against the
//! BFCL scenarios of loaded suites, one verdict a line, or times the checker
//! on them. It lets BFCL's own checker and calltape's be fed the very same
//! answers (see `tools/bfcl_agreement/`).
//!
//! An input line: `{"id": "simple_python_3", "calls": [{"math_factorial": {"number": 5}}], ...}`,
//! or for a multi-turn scenario the calls of each turn as Python call
//! expressions: `{"id": "multi_turn_base_0", "turns": [["cd(folder='document')"], []]}`;
//! every other field is echoed into the output line, which adds `valid`,
//! `error_type` and `reason`.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::bfcl::checker::{judge, AnswerCall};
use crate::bfcl::multi_turn::judge::MultiTurnKey;
use crate::bfcl::pyvalue::Py;
use crate::bfcl::BfclCheck;
use crate::scenario::Suite;

/// One answer to judge.
struct Answer<'a> {
    line: Map<String, Value>,
    key: &'a BfclCheck,
    /// Each call's name and arguments, the arguments in the order written:
    /// BFCL checks them in that order, so with two faults the first reported
    /// is the one of the parameter written first.
    calls: Vec<(String, Py)>,
}

/// The `calls` of an answer line, read with dict order kept (a `Value`'s
/// map sorts its keys).
#[derive(serde::Deserialize)]
struct OrderedCalls {
    calls: Option<Py>,
}

/// The BFCL answer key of every scenario that has one, by scenario id.
fn answer_keys(suites: &[Suite]) -> Result<HashMap<String, BfclCheck>, JudgeError> {
    keys_by_id(suites, |expect| expect.bfcl)
}

/// A key `pick` takes from each scenario's `expect`, by scenario id.
fn keys_by_id<K>(suites: &[Suite], pick: impl Fn(crate::scenario::Expect) -> Option<K>) -> Result<HashMap<String, K>, JudgeError> {
    let mut keys = HashMap::new();
    for scenario in suites.iter().flat_map(Suite::scenarios) {
        let scenario = Arc::unwrap_or_clone(scenario?);
        if let Some(key) = pick(scenario.expect) {
            keys.insert(scenario.id, key);
        }
    }
    Ok(keys)
}

fn read_answers<'a>(keys: &'a HashMap<String, BfclCheck>, input: impl BufRead) -> Result<Vec<Answer<'a>>, JudgeError> {
    let mut out = Vec::new();
    for (n, line) in input.lines().enumerate() {
        let line_no = n + 1;
        let bad = |problem| JudgeError::Answer { line: line_no, problem };
        let line = line.map_err(|source| JudgeError::Read { line: line_no, source })?;
        if line.trim().is_empty() {
            continue;
        }
        let Value::Object(mut obj) = serde_json::from_str(&line).map_err(|source| JudgeError::NotJson { line: line_no, source })? else {
            return Err(bad(AnswerProblem::NotAnObject));
        };
        let id = obj.get("id").and_then(Value::as_str).ok_or_else(|| bad(AnswerProblem::NoId))?;
        let key = keys.get(id).ok_or_else(|| bad(AnswerProblem::UnknownId(id.to_string())))?;
        obj.remove("calls");
        let ordered: OrderedCalls = serde_json::from_str(&line).map_err(|source| JudgeError::NotJson { line: line_no, source })?;
        let mut calls = Vec::new();
        if let Some(Py::List(items)) = ordered.calls {
            for item in items {
                match item {
                    Py::Dict(call) if call.len() == 1 => calls.extend(call),
                    other => return Err(bad(AnswerProblem::BadCall(other.to_json()))),
                }
            }
        }
        out.push(Answer { line: obj, key, calls });
    }
    Ok(out)
}

/// Why a batch of answers could not be judged.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// A scenario of the suites could not be read.
    #[error(transparent)]
    Scenario(#[from] crate::scenario::LoadError),
    #[error("line {line}: {source}")]
    Read { line: usize, source: std::io::Error },
    #[error("line {line}: not JSON: {source}")]
    NotJson { line: usize, source: serde_json::Error },
    #[error("line {line}: {problem}")]
    Answer { line: usize, problem: AnswerProblem },
    /// The verdicts could not be written out.
    #[error("{0}")]
    Write(#[source] std::io::Error),
}

/// What is wrong with an answer line.
#[derive(Debug, thiserror::Error)]
pub enum AnswerProblem {
    #[error("expected an object")]
    NotAnObject,
    #[error("no \"id\"")]
    NoId,
    #[error("no BFCL scenario with id {0:?} in the suites")]
    UnknownId(String),
    #[error("a call must be {{\"name\": {{arguments}}}}, got {0}")]
    BadCall(Value),
}

fn answer_calls(calls: &[(String, Py)]) -> smallvec::SmallVec<[AnswerCall<'_>; 4]> {
    calls.iter().map(|(name, args)| AnswerCall::from_py(name, args)).collect()
}

/// Verdict counts of a judged batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JudgeCounts {
    pub valid: usize,
    pub invalid: usize,
}

/// Judges every line of `input`, writing one verdict line each to `out`.
pub fn judge_lines(suites: &[Suite], input: impl BufRead, mut out: impl Write) -> Result<JudgeCounts, JudgeError> {
    let mut text = String::new();
    let mut input = input;
    input.read_to_string(&mut text).map_err(|source| JudgeError::Read { line: 0, source })?;
    // Multi-turn answers carry a "turns" field (a field, not text that happens to say "turns").
    let first = text.lines().find(|l| !l.trim().is_empty()).and_then(|l| serde_json::from_str::<Value>(l).ok());
    if first.is_some_and(|v| v.get("turns").is_some()) {
        return judge_multi_turn_lines(suites, &text, out);
    }
    let mut counts = JudgeCounts::default();
    let keys = answer_keys(suites)?;
    for mut answer in read_answers(&keys, text.as_bytes())? {
        let verdict = judge(answer.key, &answer_calls(&answer.calls));
        match &verdict {
            Ok(()) => counts.valid += 1,
            Err(_) => counts.invalid += 1,
        }
        answer.line.insert("category".into(), Value::String(answer.key.category.name().into()));
        answer.line.insert("valid".into(), Value::Bool(verdict.is_ok()));
        answer.line.insert("error_type".into(), verdict.as_ref().err().map_or(Value::Null, |f| Value::String(f.error_type.to_string())));
        answer.line.insert("reason".into(), verdict.as_ref().err().map_or(Value::Null, |f| Value::String(f.message.to_string())));
        writeln!(out, "{}", Value::Object(answer.line)).map_err(JudgeError::Write)?;
    }
    Ok(counts)
}

/// Judges multi-turn answers (`{"id", "turns": [[call, ...], ...]}`) with
/// BFCL's multi-turn checker; `error_type` is BFCL's failure type.
fn judge_multi_turn_lines(suites: &[Suite], text: &str, mut out: impl Write) -> Result<JudgeCounts, JudgeError> {
    use crate::bfcl::multi_turn::{judge, pycall};
    let keys = keys_by_id(suites, |expect| expect.bfcl_multi_turn)?;
    let mut counts = JudgeCounts::default();
    for MultiTurnAnswer { line: mut obj, key, turns } in multi_turn_answers(&keys, text)? {
        // A call that does not read is still made and fails, as BFCL's executor `eval`s it.
        let calls: Vec<Vec<pycall::Call>> = turns.iter().map(|t| t.iter().map(|c| pycall::read_call(c)).collect()).collect();
        let verdict = judge::judge(key, &calls);
        match &verdict {
            Ok(()) => counts.valid += 1,
            Err(_) => counts.invalid += 1,
        }
        obj.insert("category".into(), Value::String(key.category.clone()));
        obj.insert("valid".into(), Value::Bool(verdict.is_ok()));
        obj.insert("error_type".into(), verdict.as_ref().err().map_or(Value::Null, |f| Value::String(f.kind.name().into())));
        obj.insert("reason".into(), verdict.as_ref().err().map_or(Value::Null, |f| Value::String(f.to_string())));
        writeln!(out, "{}", Value::Object(obj)).map_err(JudgeError::Write)?;
    }
    Ok(counts)
}

/// A multi-turn answer line: its other fields, the scenario's key, and the call texts of each turn.
struct MultiTurnAnswer<'a> {
    line: Map<String, Value>,
    key: &'a MultiTurnKey,
    turns: Vec<Vec<String>>,
}

/// Reads multi-turn answer lines.
fn multi_turn_answers<'a>(keys: &'a HashMap<String, MultiTurnKey>, text: &str) -> Result<Vec<MultiTurnAnswer<'a>>, JudgeError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = |problem| JudgeError::Answer { line: n + 1, problem };
        // A lone surrogate escape is legal JSON (and BFCL's Python keeps it).
        let line = crate::bfcl::surrogate::json_with_stand_ins(line);
        let Value::Object(mut obj) = serde_json::from_str(&line).map_err(|source| JudgeError::NotJson { line: n + 1, source })? else {
            return Err(bad(AnswerProblem::NotAnObject));
        };
        let id = obj.get("id").and_then(Value::as_str).ok_or_else(|| bad(AnswerProblem::NoId))?;
        let key = keys.get(id).ok_or_else(|| bad(AnswerProblem::UnknownId(id.to_string())))?;
        let turns: Vec<Vec<String>> = obj
            .remove("turns")
            .and_then(|t| serde_json::from_value(t).ok())
            .ok_or_else(|| bad(AnswerProblem::BadCall(Value::String("\"turns\" must be a list of lists of call expressions".into()))))?;
        out.push(MultiTurnAnswer { line: obj, key, turns });
    }
    Ok(out)
}

/// `--time` for multi-turn answers: each trajectory's calls read and judged
/// (both worlds built, every call executed) inside the timed loop.
fn time_multi_turn_lines(suites: &[Suite], text: &str, rounds: usize) -> Result<JudgeTiming, JudgeError> {
    use crate::bfcl::multi_turn::{judge, pycall};
    let keys = keys_by_id(suites, |expect| expect.bfcl_multi_turn)?;
    let answers = multi_turn_answers(&keys, text)?;
    Ok(timed(&answers, rounds, |MultiTurnAnswer { key, turns, .. }| {
        let calls: Vec<Vec<pycall::Call>> = turns.iter().map(|t| t.iter().map(|c| pycall::read_call(c)).collect()).collect();
        judge::judge(key, &calls).is_ok()
    }))
}

/// Judges every answer `rounds` times (at least once), timing each round.
fn timed<A>(answers: &[A], rounds: usize, judge_one: impl Fn(&A) -> bool) -> JudgeTiming {
    let rounds = rounds.max(1);
    let (mut total, mut best, mut valid) = (0.0, f64::INFINITY, 0usize);
    for _ in 0..rounds {
        let started = Instant::now();
        for answer in answers {
            valid += usize::from(judge_one(answer));
        }
        let secs = started.elapsed().as_secs_f64();
        total += secs;
        best = best.min(secs);
    }
    std::hint::black_box(valid);
    let per = |secs: f64| if answers.is_empty() { 0.0 } else { secs * 1e6 / answers.len() as f64 };
    JudgeTiming { entries: answers.len(), rounds, mean_us: per(total / rounds as f64), best_round_us: per(best) }
}

/// How long the checker took over a batch.
#[derive(Debug, Clone, Serialize)]
pub struct JudgeTiming {
    /// Answers judged per round (those with an answer key: AST categories).
    pub entries: usize,
    pub rounds: usize,
    /// Mean per answer over all rounds, microseconds.
    pub mean_us: f64,
    /// The fastest round's mean per answer, microseconds.
    pub best_round_us: f64,
}

/// Times the checker on every AST-category answer of `input`, `rounds` times;
/// each answer's JSON arguments are converted inside the timed loop, as a run does.
pub fn time_lines(suites: &[Suite], mut input: impl BufRead, rounds: usize) -> Result<JudgeTiming, JudgeError> {
    let mut text = String::new();
    input.read_to_string(&mut text).map_err(|source| JudgeError::Read { line: 0, source })?;
    let first = text.lines().find(|l| !l.trim().is_empty()).and_then(|l| serde_json::from_str::<Value>(l).ok());
    if first.is_some_and(|v| v.get("turns").is_some()) {
        return time_multi_turn_lines(suites, &text, rounds);
    }
    let input = text.as_bytes();
    let keys = answer_keys(suites)?;
    let answers: Vec<Answer> = read_answers(&keys, input)?.into_iter().filter(|a| a.key.category.has_ground_truth()).collect();
    Ok(timed(&answers, rounds, |a| judge(a.key, &answer_calls(&a.calls)).is_ok()))
}
