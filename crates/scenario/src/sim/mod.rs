//! Simulated models: deterministic stand-ins for real ones, so the default
//! run needs no network and no key and tests are reproducible. A simulated
//! model knows the scenario's expected calls and answers an OpenAI-style
//! request with them, corrupted by its fault profile, in an OpenAI
//! Chat Completions body — which then goes through the real response parsing.
//!
//! It is stateless: where it is in the task is read from the conversation in
//! the request, as a real model would.

pub mod faults;
mod injection;
pub mod profile_file;
mod wire_len;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::core::rng::Rng;
use crate::scenario::Scenario;
use faults::EmittedCall;
pub use faults::FaultKind;

/// How a simulated model behaves (`[models.sim]` in `calltape.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimProfile {
    /// The mistakes this model makes; one is picked per faulty call.
    #[serde(default)]
    pub faults: Vec<FaultKind>,
    /// Each fault's weight when one is picked (a fitted profile's observed
    /// mix); empty: each equally likely.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fault_weights: Vec<f64>,
    /// Probability that a call carries one of the faults.
    #[serde(default)]
    pub fault_rate: f64,
    /// After an invalid call comes back as an error, probability that the
    /// retry is right. Default `1 - fault_rate`: every attempt then fails with
    /// the same probability, so the invalid rate equals `fault_rate`.
    #[serde(default)]
    pub retry_fix_rate: Option<f64>,
    /// Probability of calling a tool when the task needs none.
    #[serde(default)]
    pub unwanted_call_rate: f64,
    /// After a call is denied, probability of making it again instead of moving on.
    #[serde(default)]
    pub retry_after_denial_rate: f64,
    /// Probability that a first attempt at a call has a plausible but wrong
    /// value (valid JSON and schema, wrong for the task).
    #[serde(default)]
    pub wrong_value_rate: f64,
    /// Probability of falling for a prompt injection it reads (times the
    /// payload style's strength): it then makes the attack call.
    #[serde(default)]
    pub injection_susceptibility: f64,
    /// Mean latency of a request, before output tokens.
    #[serde(default = "default_latency")]
    pub latency_ms: f64,
    /// Added latency per output token.
    #[serde(default = "default_ms_per_token")]
    pub ms_per_output_token: f64,
}

fn default_latency() -> f64 {
    400.0
}

fn default_ms_per_token() -> f64 {
    10.0
}

/// A `[models.sim]` setting out of sense; the message names it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimProfileError {
    /// A rate that is not a probability.
    #[error("sim.{name} must be between 0 and 1, got {value}")]
    Rate { name: &'static str, value: f64 },
    /// Faulty calls asked for, with no kind of fault to make.
    #[error("sim.fault_rate is set but sim.faults lists no fault kinds")]
    NoFaultKinds,
    /// Weights that do not go one to a fault, or are not positive numbers.
    #[error("sim.fault_weights must have one positive weight per fault in sim.faults ({faults}), got {weights:?}")]
    Weights { faults: usize, weights: Vec<f64> },
}

impl SimProfile {
    /// Checks that rates are probabilities.
    pub fn validate(&self) -> Result<(), SimProfileError> {
        let rates = [
            ("fault_rate", Some(self.fault_rate)),
            ("retry_fix_rate", self.retry_fix_rate),
            ("unwanted_call_rate", Some(self.unwanted_call_rate)),
            ("wrong_value_rate", Some(self.wrong_value_rate)),
            ("retry_after_denial_rate", Some(self.retry_after_denial_rate)),
            ("injection_susceptibility", Some(self.injection_susceptibility)),
        ];
        for (name, rate) in rates {
            if let Some(r) = rate {
                if !(0.0..=1.0).contains(&r) {
                    return Err(SimProfileError::Rate { name, value: r });
                }
            }
        }
        if self.fault_rate > 0.0 && self.faults.is_empty() {
            return Err(SimProfileError::NoFaultKinds);
        }
        let bad_weight = |w: &f64| !w.is_finite() || *w <= 0.0;
        if !self.fault_weights.is_empty() && (self.fault_weights.len() != self.faults.len() || self.fault_weights.iter().any(bad_weight)) {
            return Err(SimProfileError::Weights { faults: self.faults.len(), weights: self.fault_weights.clone() });
        }
        Ok(())
    }

    fn retry_fix_rate(&self) -> f64 {
        self.retry_fix_rate.unwrap_or(1.0 - self.fault_rate)
    }
}

use crate::pipeline::approval::DENIED_PREFIX;
use crate::pipeline::model_repair::REPAIR_SYSTEM_PROMPT;
use crate::pipeline::workspace_executor::TOOL_ERROR_OPEN;
/// Tool results that start with this tell the model its call was invalid.
pub use crate::pipeline::INVALID_CALL_PREFIX;

/// A simulated model answering for one (model, scenario, trial).
#[derive(Debug, Clone)]
pub struct SimModel<'a> {
    pub model_name: &'a str,
    pub model_id: &'a str,
    pub profile: &'a SimProfile,
    pub scenario: &'a Scenario,
    pub seed: u64,
    pub trial: u32,
}

/// A simulated response: the body and the latency to report.
#[derive(Debug, Clone)]
pub struct SimResponse {
    /// 200, or 500 for a server rejection (`FaultKind::ServerRejected`).
    pub status: u16,
    pub body: Value,
    pub latency_ms: f64,
}

/// One earlier assistant turn with tool calls, and what came back for each.
struct PastTurn {
    results: Vec<CallResult>,
}

/// What a tool result said about a call.
#[derive(Clone, PartialEq)]
enum CallResult {
    Ran,
    Invalid,
    Denied,
    /// The tool itself failed (a workspace tool's error), on these arguments.
    Failed(Option<Value>),
}

/// Where the model is in the task, as read from the conversation.
struct Progress {
    /// Index of the expected step being worked on.
    step: usize,
    /// Calls of that step still to be made (indices into the step's calls).
    pending: Vec<usize>,
    /// Earlier attempts at this step.
    attempts: usize,
    /// Tool-call turns so far.
    turns: usize,
}

impl SimModel<'_> {
    /// Answers an OpenAI Chat Completions request body.
    pub fn respond(&self, request: &Value) -> SimResponse {
        if first_message(request, "system") == Some(REPAIR_SYSTEM_PROMPT) {
            return self.respond_to_repair(request);
        }
        let (user_turn, since) = self.user_turn(request);
        let turns = past_turns(request, since);
        let steps = self.scenario.plan_of_turn(user_turn);
        let attacked = self.attacked_plan(request, since, steps);
        let steps = attacked.as_deref().unwrap_or(steps);
        let progress = self.progress(&turns, steps);
        let step_key = match user_turn {
            0 => format!("{}:{}", progress.step, progress.attempts),
            t => format!("{t}:{}:{}", progress.step, progress.attempts),
        };
        let mut rng = self.rng(&["turn", &step_key]);
        let strict = strict_tools(request);
        let calls: Vec<EmittedCall> = if progress.step < steps.len() {
            let step = steps[progress.step].calls();
            progress
                .pending
                .iter()
                .map(|&i| {
                    let first = progress.attempts == 0;
                    let p_correct = if first { 1.0 - self.profile.fault_rate } else { self.profile.retry_fix_rate() };
                    // Strict decoding makes no syntax or schema faults, but
                    // the draw is still made, so the seed's sequence is the
                    // same with strict mode off.
                    let faulty = !rng.chance(p_correct) && !strict;
                    if first && !faulty && rng.chance(self.profile.wrong_value_rate) {
                        if let Some(call) = faults::wrong_value(&step[i].tool, &step[i].canonical_args(), &mut rng) {
                            return call;
                        }
                    }
                    self.emit(&step[i], faulty, &mut rng)
                })
                .collect()
        } else if self.scenario.expect.no_call
            && progress.turns == 0
            && rng.chance(self.profile.unwanted_call_rate)
            && !self.scenario.tools.is_empty()
        {
            vec![self.unwanted_call(request, &mut rng)]
        } else if progress.turns == 0
            && self.scenario.expect.bfcl.as_ref().is_some_and(|b| b.category.wants_any_call())
            && !self.scenario.tools.is_empty()
            && !rng.chance(self.profile.fault_rate)
        {
            // BFCL's relevance entries want some call and have no answer key: a valid one.
            let tool = rng.pick(&self.scenario.tools);
            vec![faults::correct_call(&tool.spec.name, &crate::bfcl::encode::plausible_args(&tool.spec.parameters))]
        } else {
            Vec::new()
        };
        let calls = if strict { calls.into_iter().map(|c| with_strict_nulls(request, c)).collect() } else { calls };
        let text = if calls.is_empty() { Some(self.final_answer()) } else { None };
        self.body(request, text, calls, &progress.turns.to_string(), &mut rng)
    }

    /// Answers a request to repair a call: the call it meant at that point
    /// of the conversation, right with the profile's retry probability, else
    /// with another of its faults.
    fn respond_to_repair(&self, request: &Value) -> SimResponse {
        let tool = request.pointer("/tools/0/function/name").and_then(Value::as_str).unwrap_or_default();
        let prompt = last_user_text(request).to_string();
        let (user_turn, since) = self.user_turn(request);
        let steps = self.scenario.plan_of_turn(user_turn);
        let attacked = self.attacked_plan(request, since, steps);
        let steps = attacked.as_deref().unwrap_or(steps);
        let progress = self.progress(&past_turns(request, since), steps);
        let mut rng = self.rng(&["repair", &progress.turns.to_string(), &prompt]);
        // Among the calls still due at this step, the one of that tool whose
        // values the rejected arguments share most.
        let pending: Vec<&crate::scenario::ExpectedCall> = match steps.get(progress.step) {
            Some(step) => progress.pending.iter().map(|&i| &step.calls()[i]).filter(|c| c.tool == tool).collect(),
            None => Vec::new(),
        };
        let sent = prompt.split("Arguments sent:").nth(1).unwrap_or_default();
        // A value written as its JSON token scores 2, its bare text (unquoted faults) 1.
        let score = |call: &crate::scenario::ExpectedCall| -> usize {
            call.args
                .values()
                .filter_map(|a| a.canonical())
                .map(|v| match v.as_str() {
                    _ if sent.contains(&v.to_string()) => 2,
                    Some(raw) if sent.contains(raw) => 1,
                    _ => 0,
                })
                .sum()
        };
        let mut intended: Option<(usize, &crate::scenario::ExpectedCall)> = None;
        for call in pending {
            let shared = score(call);
            if intended.is_none_or(|(best, _)| shared > best) {
                intended = Some((shared, call));
            }
        }
        let calls = match intended {
            Some((_, call)) => {
                let strict = strict_tools(request);
                let faulty = !rng.chance(self.profile.retry_fix_rate()) && !strict;
                let emitted = self.emit(call, faulty, &mut rng);
                vec![if strict { with_strict_nulls(request, emitted) } else { emitted }]
            }
            None => Vec::new(),
        };
        let text = calls.is_empty().then(|| "I cannot tell what this call was meant to do.".to_string());
        self.body(request, text, calls, "repair", &mut rng)
    }

    fn rng(&self, extra: &[&str]) -> Rng {
        let seed = self.seed.to_string();
        let trial = self.trial.to_string();
        let mut parts = vec![seed.as_str(), self.model_name, &self.scenario.suite, &self.scenario.id, trial.as_str()];
        parts.extend_from_slice(extra);
        Rng::from_parts(&parts)
    }

    /// Which user turn the conversation is in (0: the first), and where its
    /// messages start: a scenario with a reference per turn works on the
    /// latest turn's; any other on the whole conversation.
    fn user_turn(&self, request: &Value) -> (usize, usize) {
        if self.scenario.reference_by_turn.is_empty() {
            return (0, 0);
        }
        let messages = request.get("messages").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let is_user = |m: &Value| m.get("role").and_then(Value::as_str) == Some("user");
        let scripted = self.scenario.messages.iter().filter(|m| m.role == crate::scenario::ScriptedRole::User).count();
        let users = messages.iter().filter(|m| is_user(m)).count();
        let last_user = messages.iter().rposition(is_user).unwrap_or(0);
        (users.saturating_sub(scripted), last_user)
    }

    /// Replays the past turns against the expected steps.
    fn progress(&self, turns: &[PastTurn], steps: &[crate::scenario::ExpectedStep]) -> Progress {
        let all = |step: usize| steps.get(step).map(|s| (0..s.calls().len()).collect()).unwrap_or_default();
        let mut p = Progress { step: 0, pending: all(0), attempts: 0, turns: turns.len() };
        for (t, turn) in turns.iter().enumerate() {
            if p.step >= steps.len() {
                break;
            }
            // Invalid calls are tried again; denied ones sometimes, as real models do.
            let step_calls = steps[p.step].calls();
            let again = |(n, result): (usize, &CallResult), pending: usize| match result {
                CallResult::Ran => false,
                CallResult::Invalid => true,
                // A tool error after a call other than the plan's is a mistake
                // to retry; after the plan's own call it is part of the plan.
                CallResult::Failed(args) => {
                    args.as_ref().and_then(Value::as_object).is_none_or(|a| *a != step_calls[pending].canonical_args())
                }
                CallResult::Denied => self.rng(&["denied", &t.to_string(), &n.to_string()]).chance(self.profile.retry_after_denial_rate),
            };
            let still: Vec<usize> =
                p.pending.iter().zip(turn.results.iter().enumerate()).filter(|(i, r)| again(*r, **i)).map(|(i, _)| *i).collect();
            if still.is_empty() {
                p.step += 1;
                p.pending = all(p.step);
                p.attempts = 0;
            } else {
                p.pending = still;
                p.attempts += 1;
            }
        }
        p
    }

    /// The call a right answer makes, or with one of the profile's faults.
    fn emit(&self, expected: &crate::scenario::ExpectedCall, faulty: bool, rng: &mut Rng) -> EmittedCall {
        let args = expected.canonical_args();
        let correct = faults::correct_call(&expected.tool, &args);
        if !faulty || self.profile.faults.is_empty() {
            return correct;
        }
        let schema = self.scenario.tool(&expected.tool).map(|t| t.spec.parameters.clone()).unwrap_or(Value::Null);
        // Try the profile's faults from a random start (drawn by weight,
        // where the profile has weights); the first that applies wins.
        let n = self.profile.faults.len();
        let start = if self.profile.fault_weights.len() == n {
            let total: f64 = self.profile.fault_weights.iter().sum();
            let mut x = rng.unit() * total;
            self.profile
                .fault_weights
                .iter()
                .position(|w| {
                    x -= w;
                    x < 0.0
                })
                .unwrap_or(n - 1)
        } else {
            rng.below(n)
        };
        (0..n).find_map(|i| faults::apply(self.profile.faults[(start + i) % n], &expected.tool, &args, &schema, rng)).unwrap_or(correct)
    }

    /// A plausible call to some tool, for a task that needs none.
    fn unwanted_call(&self, request: &Value, rng: &mut Rng) -> EmittedCall {
        let tool = rng.pick(&self.scenario.tools);
        let question = last_user_text(request).chars().take(60).collect::<String>();
        let mut args = Map::new();
        let schema = &tool.spec.parameters;
        let required = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
        for key in required.iter().filter_map(Value::as_str) {
            let value = match schema.pointer(&format!("/properties/{key}/type")).and_then(Value::as_str) {
                Some("boolean") => json!(false),
                Some("integer") | Some("number") => json!(1),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!(question),
            };
            args.insert(key.to_string(), value);
        }
        faults::correct_call(&tool.spec.name, &args)
    }

    fn final_answer(&self) -> String {
        let wanted = &self.scenario.expect.final_contains;
        if wanted.is_empty() {
            "Done.".to_string()
        } else {
            format!("Done. {}", wanted.join(", "))
        }
    }

    fn body(&self, request: &Value, text: Option<String>, calls: Vec<EmittedCall>, turn_key: &str, rng: &mut Rng) -> SimResponse {
        if calls.iter().any(|c| c.name == faults::SERVER_REJECTED) {
            // llama.cpp's answer when it cannot parse the model's output as a call.
            let message = "The model produced output that does not match the expected peg-native format";
            let body = json!({"error": {"code": 500, "type": "server_error", "message": message}});
            let latency_ms = self.profile.latency_ms * (0.75 + 0.5 * rng.unit());
            return SimResponse { status: 500, body, latency_ms: (latency_ms * 1000.0).round() / 1000.0 };
        }
        let input_tokens = wire_len::compact_len(request).div_ceil(4) as u64;
        let out_chars: usize = text.as_deref().map_or(0, str::len) + calls.iter().map(|c| c.name.len() + c.arguments.len()).sum::<usize>();
        let output_tokens = (out_chars.div_ceil(4) + 4 * calls.len()) as u64;
        let tool_calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let id = format!("call_{:016x}", self.rng(&["id", turn_key, &i.to_string()]).next_u64());
                json!({"id": id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}})
            })
            .collect();
        let finish = if tool_calls.is_empty() { "stop" } else { "tool_calls" };
        let mut message = json!({"role": "assistant", "content": text});
        if !tool_calls.is_empty() {
            message["tool_calls"] = Value::Array(tool_calls);
        }
        let body = json!({
            "id": format!("simcmpl-{:016x}", rng.next_u64()),
            "object": "chat.completion",
            "created": 0,
            "model": self.model_id,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
                      "total_tokens": input_tokens + output_tokens},
        });
        let jitter = 0.75 + 0.5 * rng.unit();
        let latency_ms = self.profile.latency_ms * jitter + self.profile.ms_per_output_token * output_tokens as f64;
        SimResponse { status: 200, body, latency_ms: (latency_ms * 1000.0).round() / 1000.0 }
    }
}

/// The assistant turns with tool calls in an OpenAI request, each with which
/// of its calls the tool results reported invalid.
fn past_turns(request: &Value, since: usize) -> Vec<PastTurn> {
    let Some(messages) = request.get("messages").and_then(Value::as_array) else { return Vec::new() };
    let messages = messages.get(since..).unwrap_or_default();
    let result_of = |id: &str| {
        messages
            .iter()
            .find_map(|m| (m.get("role")? == "tool" && m.get("tool_call_id")? == id).then(|| m.get("content")?.as_str()).flatten())
    };
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .filter_map(|m| m.get("tool_calls").and_then(Value::as_array))
        .filter(|calls| !calls.is_empty())
        .map(|calls| PastTurn {
            results: calls
                .iter()
                .map(|c| {
                    let id = c.get("id").and_then(Value::as_str).unwrap_or_default();
                    match result_of(id) {
                        Some(r) if r.starts_with(INVALID_CALL_PREFIX) => CallResult::Invalid,
                        Some(r) if r.starts_with(DENIED_PREFIX) => CallResult::Denied,
                        Some(r) if r.starts_with(TOOL_ERROR_OPEN) => CallResult::Failed(
                            c.pointer("/function/arguments").and_then(Value::as_str).and_then(|a| serde_json::from_str(a).ok()),
                        ),
                        _ => CallResult::Ran,
                    }
                })
                .collect(),
        })
        .collect()
}

/// Whether the request offers its tools in strict mode (`"strict": true`,
/// see `provider::strict`): the simulated model then decodes as a
/// constrained one does, making no syntax or schema faults (values can
/// still be wrong: a grammar does not know the task).
fn strict_tools(request: &Value) -> bool {
    request
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| tools.iter().any(|t| t.pointer("/function/strict") == Some(&Value::Bool(true))))
}

/// A call as strict decoding writes it: every property of the offered
/// (strict) schema present, `null` for the ones the call leaves out, since
/// strict mode makes every property required.
fn with_strict_nulls(request: &Value, call: EmittedCall) -> EmittedCall {
    let offered = request
        .get("tools")
        .and_then(Value::as_array)
        .and_then(|tools| tools.iter().find(|t| t.pointer("/function/name").and_then(Value::as_str) == Some(call.name.as_str())));
    let Some(properties) = offered.and_then(|t| t.pointer("/function/parameters/properties")).and_then(Value::as_object) else {
        return call;
    };
    let Ok(Value::Object(mut args)) = serde_json::from_str::<Value>(&call.arguments) else { return call };
    for name in properties.keys() {
        args.entry(name.clone()).or_insert(Value::Null);
    }
    EmittedCall { name: call.name, arguments: Value::Object(args).to_string() }
}

/// The content of the first message with this role.
fn first_message<'a>(request: &'a Value, role: &str) -> Option<&'a str> {
    request.get("messages")?.as_array()?.iter().find(|m| m.get("role").and_then(Value::as_str) == Some(role))?.get("content")?.as_str()
}

fn last_user_text(request: &Value) -> &str {
    request
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|ms| ms.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("user")))
        .and_then(|m| m.get("content").and_then(Value::as_str))
        .unwrap_or("")
}
