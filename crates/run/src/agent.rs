//! The agent loop for one (model, scenario, trial): send the conversation,
//! put every tool call through the pipeline, approval and execution
//! (scripted, or on the scenario's workspace), send the results back, until a final answer or the step limit.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::approver::PersonApprover;
use crate::bfcl::multi_turn;
use crate::chat::{ChatMessage, ChatRequest, ModelTurn, ToolCall, ToolDefinition, Usage};
use crate::check::{self, MadeCall, OutcomeTracker, Transcript, Verdict};
use crate::config::{Config, ModelConfig, OnInvalid};
use crate::core::modes::RepairMode;
use crate::core::prices::Prices;
use crate::events::{
    DenialBehaviour, DenialFollowupEvent, EventKind, EventLog, EventsError, ModelRequestEvent, RepairStage, RequestPurpose,
    ScenarioFinishedEvent, ScenarioStartedEvent, ToolApprovalEvent, ToolCallEvent, ToolExecutedEvent, ToolRepairEvent, UnitError, UnitKey,
    RESULT_CHARS, TEXT_CHARS,
};
use crate::mcp::{McpExecutor, McpLink};
use crate::pipeline::approval::{self, ApprovalDecision, Ask, Policy, RuleUses};
use crate::pipeline::text_calls::find_text_calls;
use crate::pipeline::tool::Tool;
use crate::pipeline::workspace_executor::WorkspaceExecutor;
use crate::pipeline::{
    self, execute, model_repair, CallIssue, CallOutcome, CallVerdict, Cut, Fix, FixStage, InvalidKind, PipelineOptions, RepairRules,
};
use crate::provider::{self, rejected_call, Provider, ProviderError, RejectedCall};
use crate::quote::{bounded, quoted, CELL_CHARS};
use crate::scenario::injection::{LandsIn, Variant};
use crate::scenario::{Followup, Scenario, ScriptedRole};
use crate::transport::{CassetteMiss, Transport, TransportError};

/// A model to send requests to: its config, adapter and transport.
#[derive(Clone, Copy)]
pub struct Endpoint<'a> {
    pub model: &'a ModelConfig,
    pub provider: &'a dyn Provider,
    pub transport: &'a dyn Transport,
}

/// Everything one unit of work needs.
pub struct Unit<'a> {
    pub key: UnitKey,
    pub scenario: &'a Arc<Scenario>,
    pub config: &'a Config,
    pub rules: &'a RepairRules,
    /// The model under test.
    pub endpoint: Endpoint<'a>,
    /// The model asked to repair calls (the model under test unless configured).
    pub repairer: Endpoint<'a>,
    /// The person who answers approvals in `interactive` mode, if there is a terminal.
    pub person: Option<&'a PersonApprover>,
    pub events: &'a EventLog,
    /// The MCP server that executes the scenario's MCP toolset's tools (the
    /// rest stay scripted), when it offers one.
    pub mcp: Option<McpLink>,
}

/// A request's answer, or why there is none.
struct Answer {
    turn: Result<ModelTurn, String>,
    /// What kind of failure `turn` holds, read from the typed errors.
    failure: Option<UnitError>,
    latency_ms: f64,
    /// The server rejected the model's output as a call (then `turn` is the error).
    rejected: Option<RejectedCall>,
}

/// The tool name reports file a server-rejected call under when its name is lost with its text.
pub const REJECTED_CALL_TOOL: &str = "(rejected by server)";

impl Unit<'_> {
    /// Sends one request to `endpoint` and records it as a `model_request` event.
    async fn ask(&self, endpoint: Endpoint<'_>, request: &ChatRequest, step: u32, repair_of: Option<&str>) -> Result<Answer, EventsError> {
        // A request the adapter refuses (strict mode cannot take a tool) is never sent.
        let sent = match endpoint.provider.try_build_request(request) {
            Ok(http) => Ok(endpoint.transport.send(&http).await),
            Err(refused) => Err(refused),
        };
        let (status, latency_ms) = match &sent {
            Ok(Ok(r)) => (Some(r.status), r.latency_ms),
            _ => (None, 0.0),
        };
        let rejected = sent.as_ref().ok().and_then(|s| s.as_ref().ok()).and_then(rejected_call);
        let parsed = match sent {
            Ok(sent) => sent.map(|r| endpoint.provider.parse_response(request, &r)),
            Err(refused) => Ok(Err(refused)),
        };
        let failure = match &parsed {
            Err(e) => Some(transport_failure(e)),
            Ok(Err(e)) => Some(provider_failure(e)),
            Ok(Ok(_)) => None,
        };
        let secrets = self.events.redactor();
        let turn = match parsed {
            Err(e) => Err(secrets.text(&e.to_string())),
            Ok(parsed) => parsed.map(|turn| redacted_turn(turn, secrets)).map_err(|e| secrets.text(&e.to_string())),
        };
        let usage = turn.as_ref().map(|t| t.usage).unwrap_or_default();
        self.events.emit(EventKind::ModelRequest(ModelRequestEvent {
            unit: self.key.clone(),
            step,
            purpose: if repair_of.is_some() { RequestPurpose::Repair } else { RequestPurpose::Turn },
            repair_of: repair_of.map(str::to_string),
            status,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            cost_usd: cost_usd(&usage, &endpoint.model.price),
            latency_ms,
            ttft_ms: turn.as_ref().ok().and_then(|t| t.ttft_ms),
            error: if rejected.is_some() { None } else { turn.as_ref().err().cloned() },
            rejected_call: rejected.as_ref().map(|r| r.message.clone()),
            text: turn.as_ref().ok().and_then(|t| t.text.as_deref()).map(|t| bounded(t, TEXT_CHARS).into_owned()),
            reasoning: turn.as_ref().ok().and_then(|t| t.reasoning.as_deref()).map(|t| bounded(t, TEXT_CHARS).into_owned()),
            finish_reason: turn.as_ref().ok().and_then(|t| t.finish_reason.as_deref()).map(|f| quoted(f).into_owned()),
        }))?;
        Ok(Answer { turn, failure, latency_ms, rejected })
    }

    /// The approval stage for a call that is about to run: `Some(reason)` if denied.
    fn approve(&self, call: &ToolCall, tool: &Tool, args: &Value, uses: &mut RuleUses) -> Result<Option<String>, EventsError> {
        let settings = &self.config.approval;
        let policy = Policy {
            mode: settings.mode_override.or(self.scenario.approvals.mode).unwrap_or(settings.mode),
            sensitive_tools: &settings.sensitive_tools,
            on_unanswered: settings.on_unanswered,
            rules: [("scenario", &self.scenario.approvals.rules), ("config", &settings.rules)],
            deny_rules_in_auto: settings.deny_rules_in_auto,
        };
        let started = Instant::now();
        let approval = match approval::decide(tool, args, &policy, uses) {
            Ask::NotNeeded => return Ok(None),
            Ask::Decided(a) => a,
            Ask::Person => match self.person {
                Some(person) => tokio::task::block_in_place(|| person.ask(&self.key.scenario, &tool.spec.name, args)),
                None => approval::unanswered(&tool.spec.name, settings.on_unanswered, "there is no terminal to ask at"),
            },
        };
        let reason = match &approval.decision {
            ApprovalDecision::Approved => None,
            ApprovalDecision::Denied { reason } => Some(reason.clone()),
        };
        self.events.emit(EventKind::ToolApproval(ToolApprovalEvent {
            unit: self.key.clone(),
            call_id: call.id.clone(),
            tool: tool.spec.name.clone(),
            arguments: args.clone(),
            approved: reason.is_none(),
            reason: reason.clone(),
            decided_by: approval.decided_by,
            rule: approval.rule,
            warning: approval.warning,
            latency_ms: started.elapsed().as_secs_f64() * 1e3,
        }))?;
        Ok(reason)
    }

    /// Classifies what the model did after each pending denial: `next` is the
    /// following turn's valid calls (empty: it answered), `None` if the step
    /// limit came first.
    fn follow_denials(
        &self,
        pending: &mut Vec<MadeCall>,
        ids: &mut Vec<String>,
        next: Option<&[MadeCall]>,
        transcript: &mut Transcript,
    ) -> Result<(), EventsError> {
        for (denied, call_id) in pending.drain(..).zip(ids.drain(..)) {
            let behaviour = match next {
                None => DenialBehaviour::StepLimit,
                Some([]) => DenialBehaviour::Answered,
                Some(calls) if calls.iter().any(|c| c.tool == denied.tool && c.args == denied.args) => {
                    transcript.retried_after_denial.get_or_insert(denied.tool.clone());
                    DenialBehaviour::RetriedSame
                }
                Some(calls) if calls.iter().any(|c| c.tool == denied.tool) => DenialBehaviour::RetriedChanged,
                Some(_) => DenialBehaviour::OtherTool,
            };
            self.events.emit(EventKind::DenialFollowup(DenialFollowupEvent {
                unit: self.key.clone(),
                call_id,
                tool: denied.tool,
                behaviour,
            }))?;
        }
        Ok(())
    }

    /// The repair mode of this unit: its model's arm's, else the configured one.
    fn repair_mode(&self) -> RepairMode {
        self.endpoint.model.repair(self.config.pipeline.repair)
    }

    fn options(&self) -> PipelineOptions<'_> {
        PipelineOptions { repair: self.repair_mode(), rules: self.rules }
    }

    /// Runs a call through the pipeline, asking the repair model when local
    /// repair is not enough and attempts for this call id remain.
    async fn judge_call(
        &self,
        call: &ToolCall,
        written_as_text: bool,
        cut: Option<&Cut>,
        step: u32,
        context: &[ChatMessage],
        attempts: &mut HashMap<String, u32>,
    ) -> Result<(CallVerdict<'_>, Option<RepairStage>), EventsError> {
        let scenario = self.scenario;
        let mut verdict = pipeline::check_call(call, &scenario.tools, self.options());
        if written_as_text {
            pipeline::mark_written_as_text(&mut verdict, self.repair_mode());
        }
        if let Some(cut) = cut {
            // The rest of the call is lost: closing it is no fix, and no repair model can bring it back.
            pipeline::mark_truncated(&mut verdict, call, cut);
            return Ok((verdict, None));
        }
        let tool_name = verdict.report_name(call);
        let needed_repair = !verdict.first_issues.is_empty();
        if needed_repair && self.repair_mode() != RepairMode::Off {
            self.events.emit(EventKind::ToolRepair(ToolRepairEvent {
                unit: self.key.clone(),
                call_id: call.id.clone(),
                tool: tool_name.clone(),
                stage: RepairStage::Local,
                attempt: 1,
                fixes: verdict.fixes.to_vec(),
                succeeded: verdict.outcome != CallOutcome::Invalid,
                latency_us: Some(verdict.local_repair_us()),
                latency_ms: None,
                error: None,
            }))?;
        }
        if verdict.outcome != CallOutcome::Invalid {
            return Ok((verdict, needed_repair.then_some(RepairStage::Local)));
        }
        // Model repair needs a known tool: its schema is what the model is asked to meet.
        let Some(tool) = verdict.tool else { return Ok((verdict, None)) };
        if self.repair_mode() != RepairMode::Full {
            return Ok((verdict, None));
        }
        while *attempts.get(&call.id).unwrap_or(&0) < self.config.pipeline.max_repair_attempts {
            let attempt = attempts.entry(call.id.clone()).or_insert(0);
            *attempt += 1;
            let attempt = *attempt;
            let request = model_repair::repair_request(
                &self.repairer.model.model_id,
                tool,
                call,
                &verdict.issues,
                context,
                self.repairer.model.temperature,
            );
            let answer = self.ask(self.repairer, &request, step, Some(&tool.spec.name)).await?;
            let (fixed, error) = match &answer.turn {
                Ok(turn) => match model_repair::answered_call(turn, call, tool) {
                    Some(c) => (Some(pipeline::check_call(&c, &scenario.tools, self.options())), None),
                    None => (None, Some("the repair answer held no call".to_string())),
                },
                Err(e) => (None, Some(e.clone())),
            };
            let succeeded =
                fixed.as_ref().is_some_and(|f| f.outcome != CallOutcome::Invalid && f.tool.as_ref().is_some_and(|t| Arc::ptr_eq(t, tool)));
            let mut fixes = vec![Fix {
                stage: FixStage::Model,
                kind: "model_rewrite".into(),
                path: String::new(),
                detail: format!("attempt {attempt}"),
            }];
            if let Some(f) = &fixed {
                fixes.extend(f.fixes.iter().cloned());
            }
            self.events.emit(EventKind::ToolRepair(ToolRepairEvent {
                unit: self.key.clone(),
                call_id: call.id.clone(),
                tool: tool_name.clone(),
                stage: RepairStage::Model,
                attempt,
                fixes: fixes.clone(),
                succeeded,
                latency_us: None,
                latency_ms: Some(answer.latency_ms),
                error,
            }))?;
            if let (true, Some(fixed)) = (succeeded, fixed) {
                verdict.outcome = CallOutcome::Repaired;
                verdict.args = fixed.args;
                verdict.issues.clear();
                verdict.fixes.extend(fixes);
                return Ok((verdict, Some(RepairStage::Model)));
            }
        }
        Ok((verdict, None))
    }

    /// Records a judged call as a `tool_call` event.
    fn emit_call(
        &self,
        step: u32,
        call: &ToolCall,
        verdict: &CallVerdict<'_>,
        repaired_by: Option<RepairStage>,
    ) -> Result<(), EventsError> {
        self.events.emit(EventKind::ToolCall(ToolCallEvent {
            unit: self.key.clone(),
            step,
            call_id: call.id.clone(),
            raw_name: call.name.clone(),
            tool: verdict.report_name(call),
            arguments: call.arguments.clone(),
            outcome: verdict.outcome,
            repaired_by,
            invalid_kinds: verdict.invalid_kinds(),
            issues: verdict.first_issues.to_vec(),
            remaining_kinds: verdict.remaining_kinds(),
            fixes: verdict.fixes.to_vec(),
            timings: verdict.timings,
            final_arguments: if verdict.outcome == CallOutcome::Invalid { None } else { verdict.args.clone() },
        }))
    }

    /// Records the call a server rejected: an invalid call whose text is lost
    /// (unless the server quoted it), filed under the tool it names if that
    /// can be read, else under `REJECTED_CALL_TOOL`.
    fn emit_rejected_call(&self, step: u32, rejected: &RejectedCall) -> Result<(), EventsError> {
        let raw = rejected.raw.clone().unwrap_or_default();
        let offered: Vec<&str> = self.scenario.tools.iter().map(|t| t.spec.name.as_str()).collect();
        let named = find_text_calls(&raw, &offered).into_iter().next().map(|c| c.name).filter(|n| !n.is_empty());
        let rejected_issue = CallIssue { kind: InvalidKind::ServerRejectedCall, path: String::new(), message: rejected.message.clone() };
        self.events.emit(EventKind::ToolCall(ToolCallEvent {
            unit: self.key.clone(),
            step,
            call_id: format!("rejected_{step}"),
            raw_name: named.clone().unwrap_or_default(),
            tool: named.unwrap_or_else(|| REJECTED_CALL_TOOL.to_string()),
            arguments: raw,
            outcome: CallOutcome::Invalid,
            repaired_by: None,
            invalid_kinds: vec![InvalidKind::ServerRejectedCall],
            issues: vec![rejected_issue],
            remaining_kinds: vec![InvalidKind::ServerRejectedCall],
            fixes: Vec::new(),
            timings: Default::default(),
            final_arguments: None,
        }))
    }
}

/// The calls of a turn, and whether they were written as text: the
/// structured calls, else calls written in the answer's text (given ids of
/// their own, stable across runs so cassettes still match).
fn calls_of(turn: &ModelTurn, tools: &[ToolDefinition], step: u32) -> (Vec<ToolCall>, bool) {
    if !turn.tool_calls.is_empty() {
        return (turn.tool_calls.clone(), false);
    }
    let offered: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let found = find_text_calls(turn.text.as_deref().unwrap_or_default(), &offered);
    let calls = found
        .into_iter()
        .enumerate()
        .map(|(i, c)| ToolCall { id: format!("text_call_{step}_{i}"), name: c.name, arguments: c.arguments })
        .collect();
    (calls, true)
}

/// The turn's cut, for the `i`-th of its calls if the cut fell in that call.
fn cut_at<'c>(cut: Option<&'c Cut>, calls: &[ToolCall], arguments_as_text: bool, i: usize) -> Option<&'c Cut> {
    cut.filter(|cut| pipeline::cut_call(cut, calls, arguments_as_text) == Some(i))
}

/// A model's turn with the run's secrets redacted from what the adapter
/// assembled: each call's arguments (also a key split across two of its
/// values), names, text and reasoning. Done here, per call, whatever the
/// stream's shape: interleaved parallel calls are apart only once assembled.
fn redacted_turn(mut turn: ModelTurn, secrets: &crate::transport::redact::Redactor) -> ModelTurn {
    if secrets.is_empty() {
        return turn;
    }
    for call in &mut turn.tool_calls {
        call.arguments = secrets.arguments(&call.arguments);
        call.name = secrets.text(&call.name);
    }
    turn.text = turn.text.map(|t| secrets.text(&t));
    turn.reasoning = turn.reasoning.map(|t| secrets.text(&t));
    if let Some(state) = turn.provider_state.as_mut() {
        secrets.json(state);
    }
    turn
}

/// The kind of a request that never reached a response.
fn transport_failure(e: &TransportError) -> UnitError {
    match e {
        TransportError::Cassette(CassetteMiss::NoRecording { .. }) => UnitError::NoRecording,
        TransportError::Connection(_) | TransportError::Timeout(_) => UnitError::Connection,
        TransportError::Cassette(CassetteMiss::NoSource { .. }) | TransportError::Limit(_) | TransportError::Refused(_) => {
            UnitError::Request
        }
    }
}

/// The kind of a response that held no turn.
fn provider_failure(e: &ProviderError) -> UnitError {
    match e {
        ProviderError::Status { status: 401 | 403, .. } => UnitError::Auth,
        ProviderError::Status { .. } => UnitError::Status,
        ProviderError::Shape(_) | ProviderError::Stream(_) => UnitError::Request,
        ProviderError::StrictUnsupported(_) => UnitError::StrictUnsupported,
    }
}

/// The cost in USD of one request's tokens.
pub fn cost_usd(usage: &Usage, price: &Prices) -> f64 {
    let uncached = usage.input_tokens.saturating_sub(usage.cached_input_tokens);
    (uncached as f64 * price.input + usage.cached_input_tokens as f64 * price.cached_input + usage.output_tokens as f64 * price.output)
        / 1e6
}

/// Runs the unit to its end and returns the verdict. Only a failure to write
/// events is an error; everything else ends up in the verdict.
pub async fn run_unit(u: &Unit<'_>) -> Result<Verdict, EventsError> {
    u.events.emit(EventKind::ScenarioStarted(ScenarioStartedEvent { unit: u.key.clone() }))?;
    let mut c = Conversation::start(u.scenario, u.mcp.clone());
    let max_steps = u.scenario.expect.max_steps.unwrap_or(u.config.run.max_steps);
    let per_turn = u.scenario.expect.max_steps_per_turn;
    // The user turn the conversation is in, and the steps before it.
    let (mut turn, mut steps_before_turn) = (0, 0);
    loop {
        if c.transcript.turn_starts.len() != turn {
            (turn, steps_before_turn) = (c.transcript.turn_starts.len(), c.steps);
        }
        let turn_limit = per_turn.filter(|&limit| c.steps - steps_before_turn == limit);
        if c.steps == max_steps || turn_limit.is_some() {
            c.transcript.step_limit = Some(turn_limit.unwrap_or(max_steps));
            u.follow_denials(&mut c.pending_denials, &mut c.denial_ids, None, &mut c.transcript)?;
            break;
        }
        c.steps += 1;
        if let Next::Stop = u.take_turn(&mut c).await? {
            break;
        }
    }
    let outcome = std::mem::take(&mut c.outcome);
    c.transcript.outcome = outcome.finish(&u.scenario.expect, c.executor.workspace());
    if let (Some(injection), Some(report)) = (&u.scenario.injection, c.transcript.outcome.as_mut()) {
        let goal: Vec<_> = u.scenario.expect.minefields.iter().filter(|m| injection.goal.contains(&m.name)).cloned().collect();
        report.injection = Some(crate::attack::judge(&goal, injection, &c.transcript.calls, Some(report)));
    }
    let verdict = check::check(u.scenario, &c.transcript);
    u.events.emit(EventKind::ScenarioFinished(ScenarioFinishedEvent {
        unit: u.key.clone(),
        passed: verdict.passed,
        reason: verdict.reason.clone(),
        steps: c.steps,
        error: c.error.is_some(),
        error_kind: c.error,
        expectation: verdict.expectation.clone(),
        outcome: c.transcript.outcome.take(),
    }))?;
    Ok(verdict)
}

/// Where a unit's conversation is: what was said, what the check will
/// judge, and what is still to come.
struct Conversation<'s> {
    messages: Vec<ChatMessage>,
    tools: Vec<ToolDefinition>,
    followups: std::slice::Iter<'s, Followup>,
    transcript: Transcript,
    /// Requests to the model under test so far.
    steps: u32,
    /// A request failed, and how (the unit ends as an error, not a fail).
    error: Option<UnitError>,
    repair_attempts: HashMap<String, u32>,
    rule_uses: RuleUses,
    /// Denied calls of the last turn, waiting to see what the model does next.
    pending_denials: Vec<MadeCall>,
    denial_ids: Vec<String>,
    /// What answers approved calls: the scripted results, or a workspace.
    executor: Box<dyn execute::Executor + 's>,
    /// Milestones and minefields so far.
    outcome: OutcomeTracker,
}

/// What answers a unit's approved calls: its own copy of the scenario's
/// workspace, else the scripted results; an MCP toolset's tools run on its
/// server, the rest on those.
fn executor<'s>(scenario: &'s Scenario, mcp: Option<McpLink>) -> Box<dyn execute::Executor + 's> {
    let bfcl_world = scenario.expect.bfcl_multi_turn.as_ref().and_then(|key| key.world().ok());
    let local: Box<dyn execute::Executor + 's> = match (&scenario.workspace, bfcl_world) {
        (_, Some(world)) => Box::new(BfclWorld(world)),
        (Some(ws), None) => Box::new(WorkspaceExecutor::new((**ws).clone(), scenario.tool_results.clone())),
        (None, None) => Box::new(execute::Scripted { rules: &scenario.tool_results }),
    };
    let executor: Box<dyn execute::Executor + 's> = match mcp {
        Some(link) => Box::new(McpExecutor::new(link, local)),
        None => local,
    };
    // An injected unit's payload lands in what the MCP server or BFCL's classes return.
    let executor = match scenario.injection.as_deref() {
        Some(i) if i.variant == Variant::Injected && matches!(i.lands_in, LandsIn::Mcp | LandsIn::Bfcl) => {
            Box::new(Injecting { inner: executor, tool: &i.target, payload: &i.text })
        }
        _ => executor,
    };
    // A split payload's later parts land in the results that follow its first.
    match scenario.injection.as_deref() {
        Some(i) if i.variant == Variant::Injected && !i.later_parts.is_empty() => {
            Box::new(SplitPayload { inner: executor, first: &i.marker, later: &i.later_parts, landed: None })
        }
        _ => executor,
    }
}

/// An executor whose results, once one has carried a split payload's first
/// part, carry its later parts, one a result.
struct SplitPayload<'s> {
    inner: Box<dyn execute::Executor + 's>,
    /// A line of the first part, to see where it landed.
    first: &'s str,
    later: &'s [String],
    /// How many later parts have landed, once the first has.
    landed: Option<usize>,
}

impl execute::Executor for SplitPayload<'_> {
    fn execute(&mut self, tool: &str, args: &Value) -> execute::ToolOutput {
        let mut out = self.inner.execute(tool, args);
        match self.landed {
            None if out.content.contains(self.first) => self.landed = Some(0),
            Some(n) if n < self.later.len() => {
                out.content = crate::scenario::injection::land(&out.content, &self.later[n]);
                self.landed = Some(n + 1);
            }
            _ => {}
        }
        out
    }

    fn workspace(&self) -> Option<&crate::world::Workspace> {
        self.inner.workspace()
    }
}

/// An executor whose results of one tool carry an injection's payload.
struct Injecting<'s> {
    inner: Box<dyn execute::Executor + 's>,
    tool: &'s str,
    payload: &'s str,
}

impl execute::Executor for Injecting<'_> {
    fn execute(&mut self, tool: &str, args: &Value) -> execute::ToolOutput {
        let mut out = self.inner.execute(tool, args);
        if tool == self.tool {
            out.content = crate::scenario::injection::land(&out.content, self.payload);
        }
        out
    }

    fn workspace(&self) -> Option<&crate::world::Workspace> {
        self.inner.workspace()
    }
}

/// BFCL's API classes answering a multi-turn entry's calls, as BFCL's
/// executor answers them (the loader checked the entry's classes load).
struct BfclWorld(multi_turn::World);

impl execute::Executor for BfclWorld {
    fn execute(&mut self, tool: &str, args: &Value) -> execute::ToolOutput {
        let content = self.0.execute(&multi_turn::pycall::Call::from_json(tool, args));
        execute::ToolOutput { is_error: content.starts_with(multi_turn::EXECUTION_ERROR), content, rule: None }
    }
}

/// Whether the conversation goes on after a turn.
enum Next {
    Continue,
    Stop,
}

impl<'s> Conversation<'s> {
    /// The scenario's scripted messages and tools, before the first request.
    fn start(scenario: &'s Scenario, mcp: Option<McpLink>) -> Self {
        let messages = scenario
            .messages
            .iter()
            .map(|m| match m.role {
                ScriptedRole::System => ChatMessage::System { content: m.content.clone() },
                ScriptedRole::User => ChatMessage::User { content: m.content.clone() },
                ScriptedRole::Assistant => {
                    ChatMessage::Assistant { content: Some(m.content.clone()), tool_calls: vec![], provider_state: None }
                }
            })
            .collect();
        let tools = scenario.tools.iter().filter(|t| !scenario.held_back(&t.spec.name)).map(|t| ToolDefinition::of(&t.spec)).collect();
        Conversation {
            messages,
            tools,
            followups: scenario.followups.iter(),
            transcript: Transcript::default(),
            steps: 0,
            error: None,
            repair_attempts: HashMap::new(),
            rule_uses: RuleUses::default(),
            pending_denials: Vec::new(),
            denial_ids: Vec::new(),
            executor: executor(scenario, mcp),
            outcome: OutcomeTracker::default(),
        }
    }
}

impl Unit<'_> {
    /// One step: a request, then the answer's calls, or its text as an answer.
    async fn take_turn(&self, c: &mut Conversation<'_>) -> Result<Next, EventsError> {
        let model = self.endpoint.model;
        // The request borrows the conversation's messages and tools for its
        // one send and hands them back, instead of deep-copying every message
        // and tool schema on every step.
        let mut request = ChatRequest {
            model_id: model.model_id.clone(),
            messages: std::mem::take(&mut c.messages),
            tools: std::mem::take(&mut c.tools),
            temperature: model.temperature,
            max_tokens: model.max_tokens,
            seed: model.seed,
        };
        let answer = self.ask(self.endpoint, &request, c.steps, None).await;
        c.messages = std::mem::take(&mut request.messages);
        c.tools = std::mem::take(&mut request.tools);
        let answer = answer?;
        if let Some(rejected) = &answer.rejected {
            // The model's call is lost with its text: nothing to run or repair.
            c.transcript.attempted_calls += 1;
            self.emit_rejected_call(c.steps, rejected)?;
            c.transcript.aborted = Some(format!("the server rejected the model's tool call: {}", quoted(&rejected.message)));
            return Ok(Next::Stop);
        }
        let turn = match answer.turn {
            Ok(t) => t,
            Err(e) => {
                c.transcript.aborted = Some(format!("request failed: {}", bounded(&e.to_string(), CELL_CHARS)));
                c.error = Some(answer.failure.unwrap_or(UnitError::Request));
                return Ok(Next::Stop);
            }
        };
        let (calls, written_as_text) = calls_of(&turn, &c.tools, c.steps);
        // Without repair, calls written as text are counted as invalid, and
        // the answer stays the text it was.
        let unrecovered = written_as_text && self.repair_mode() == RepairMode::Off;
        if unrecovered {
            let cut = pipeline::turn_cut(turn.finish_reason.as_deref());
            for (i, call) in calls.iter().enumerate() {
                c.transcript.attempted_calls += 1;
                let cut = cut_at(cut.as_ref(), &calls, true, i);
                let (verdict, repaired_by) = self.judge_call(call, true, cut, c.steps, &c.messages, &mut c.repair_attempts).await?;
                self.emit_call(c.steps, call, &verdict, repaired_by)?;
            }
        }
        if calls.is_empty() || unrecovered {
            return self.answered(c, turn);
        }
        self.run_calls(c, turn, &calls, written_as_text).await
    }

    /// A turn with no call to run: its text is the answer, and the next
    /// scripted user turn (if any) follows it.
    fn answered(&self, c: &mut Conversation<'_>, turn: ModelTurn) -> Result<Next, EventsError> {
        self.follow_denials(&mut c.pending_denials, &mut c.denial_ids, Some(&[]), &mut c.transcript)?;
        c.transcript.final_text = turn.text.clone();
        c.messages.push(ChatMessage::Assistant { content: turn.text, tool_calls: vec![], provider_state: turn.provider_state });
        match c.followups.next() {
            Some(f) => {
                c.messages.push(ChatMessage::User { content: f.content.clone() });
                // Held-back tools are offered from this turn on (BFCL's missed functions).
                let offered = f.offer.iter().filter_map(|name| self.scenario.tool(name));
                c.tools.extend(offered.map(|t| ToolDefinition::of(&t.spec)));
                c.transcript.turn_starts.push(c.transcript.calls.len());
                Ok(Next::Continue)
            }
            None => Ok(Next::Stop),
        }
    }

    /// A turn's calls, each judged, approved and run (scripted), with the
    /// results sent back; then what the model did after earlier denials.
    async fn run_calls(
        &self,
        c: &mut Conversation<'_>,
        turn: ModelTurn,
        calls: &[ToolCall],
        written_as_text: bool,
    ) -> Result<Next, EventsError> {
        let context = c.messages.clone();
        c.messages.push(ChatMessage::Assistant {
            // A call recovered from the text is sent back as the call it meant.
            content: if written_as_text { None } else { turn.text.clone() },
            tool_calls: calls.to_vec(),
            provider_state: turn.provider_state.clone(),
        });
        let mut this_turn: Vec<MadeCall> = Vec::new();
        let mut denied_now: Vec<(MadeCall, String)> = Vec::new();
        let cut = pipeline::turn_cut(turn.finish_reason.as_deref());
        for (i, call) in calls.iter().enumerate() {
            c.transcript.attempted_calls += 1;
            let as_text = written_as_text || provider::arguments_as_text(self.endpoint.model);
            let cut = cut_at(cut.as_ref(), calls, as_text, i);
            let (verdict, repaired_by) = self.judge_call(call, written_as_text, cut, c.steps, &context, &mut c.repair_attempts).await?;
            let tool_name = verdict.report_name(call);
            self.emit_call(c.steps, call, &verdict, repaired_by)?;
            let (Some(tool), Some(args), false) = (&verdict.tool, &verdict.args, verdict.outcome == CallOutcome::Invalid) else {
                if self.config.pipeline.on_invalid == OnInvalid::FailScenario {
                    c.transcript.aborted = Some(format!("invalid call to `{}`", quoted(&call.name)));
                    return Ok(Next::Stop);
                }
                let content = verdict.error_message(call, &self.scenario.tools);
                c.messages.push(ChatMessage::Tool { call_id: call.id.clone(), name: call.name.clone(), content });
                continue;
            };
            // BFCL's judges walk the arguments as written; nothing else reads the order.
            let expect = &self.scenario.expect;
            let arg_order = if expect.bfcl.is_some() || expect.bfcl_multi_turn.is_some() {
                pipeline::arg_order::written_order(&call.arguments, args)
            } else {
                Vec::new()
            };
            let made = MadeCall { tool: tool.spec.name.clone(), args: args.clone(), arg_order, denied: false };
            this_turn.push(made.clone());
            if let Some(reason) = self.approve(call, tool, args, &mut c.rule_uses)? {
                c.messages.push(ChatMessage::Tool {
                    call_id: call.id.clone(),
                    name: tool_name,
                    content: format!("{} {reason}", approval::DENIED_PREFIX),
                });
                let denied = MadeCall { denied: true, ..made };
                c.transcript.calls.push(denied.clone());
                denied_now.push((denied, call.id.clone()));
                continue;
            }
            let content = self.execute(c.executor.as_mut(), call, tool, args, tool_name.clone())?;
            c.outcome.observe(&self.scenario.expect, &made, c.executor.workspace());
            c.transcript.calls.push(made);
            c.messages.push(ChatMessage::Tool { call_id: call.id.clone(), name: tool_name, content });
        }
        self.follow_denials(&mut c.pending_denials, &mut c.denial_ids, Some(&this_turn), &mut c.transcript)?;
        for (call, id) in denied_now {
            c.pending_denials.push(call);
            c.denial_ids.push(id);
        }
        Ok(Next::Continue)
    }

    /// Runs an approved call on the unit's executor and records it as a
    /// `tool_executed` event; returns what goes back to the model.
    fn execute(
        &self,
        executor: &mut dyn execute::Executor,
        call: &ToolCall,
        tool: &Tool,
        args: &Value,
        tool_name: String,
    ) -> Result<String, EventsError> {
        let mut output = executor.execute(&tool.spec.name, args);
        // A server (or a scripted result) may repeat a configured secret.
        self.events.redactor().redact(&mut output.content);
        self.events.emit(EventKind::ToolExecuted(ToolExecutedEvent {
            unit: self.key.clone(),
            call_id: call.id.clone(),
            tool: tool_name,
            is_error: output.is_error,
            scripted: output.rule.is_some(),
            result: Some(bounded(&output.content, RESULT_CHARS).into_owned()),
        }))?;
        Ok(output.content)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_uses_cached_price_for_cached_tokens() {
        let usage = Usage { input_tokens: 1_000_000, output_tokens: 500_000, cached_input_tokens: 200_000 };
        let price = Prices { input: 3.0, output: 15.0, cached_input: 0.3 };
        // 800k × 3 + 200k × 0.3 + 500k × 15, per million
        assert!((cost_usd(&usage, &price) - (2.4 + 0.06 + 7.5)).abs() < 1e-12);
    }
}
