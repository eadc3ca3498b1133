//! The agent loop for one (model, scenario, trial): send the conversation,
//! put every tool call through the pipeline, approval and scripted
//! execution, send the results back, until a final answer or the step limit.

use std::sync::Arc;

use crate::chat::{ChatMessage, ChatRequest, ToolDefinition, Usage};
use crate::check::{self, ExecutedCall, Transcript, Verdict};
use crate::config::{Config, ModelConfig, OnInvalid, Prices};
use crate::events::{EventKind, EventLog, EventsError, RequestPurpose, UnitKey};
use crate::pipeline::{self, approval, execute, CallOutcome};
use crate::provider::Provider;
use crate::scenario::{Scenario, ScriptedRole};
use crate::transport::Transport;

/// Everything one unit of work needs.
pub struct Unit<'a> {
    pub key: UnitKey,
    pub model: &'a ModelConfig,
    pub scenario: &'a Arc<Scenario>,
    pub config: &'a Config,
    pub provider: &'a dyn Provider,
    pub transport: &'a dyn Transport,
    pub events: &'a EventLog,
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
    let scenario = u.scenario;
    u.events.emit(EventKind::ScenarioStarted { unit: u.key.clone() })?;
    let mut messages: Vec<ChatMessage> = scenario
        .messages
        .iter()
        .map(|m| match m.role {
            ScriptedRole::System => ChatMessage::System { content: m.content.clone() },
            ScriptedRole::User => ChatMessage::User { content: m.content.clone() },
        })
        .collect();
    let tools: Vec<ToolDefinition> = scenario
        .tools
        .iter()
        .map(|t| ToolDefinition { name: t.spec.name.clone(), description: t.spec.description.clone(), parameters: t.spec.parameters.clone() })
        .collect();
    let mut followups = scenario.followups.iter();
    let max_steps = scenario.expect.max_steps.unwrap_or(u.config.run.max_steps);
    let mut transcript = Transcript::default();
    let mut steps = 0u32;
    let mut error = false;

    'conversation: loop {
        if steps == max_steps {
            transcript.step_limit = Some(max_steps);
            break;
        }
        steps += 1;
        let request = ChatRequest {
            model_id: u.model.model_id.clone(),
            messages: messages.clone(),
            tools: tools.clone(),
            temperature: u.model.temperature,
            max_tokens: None,
            seed: None,
        };
        let http = u.provider.build_request(&request);
        let sent = u.transport.send(&http).await;
        let (status, latency_ms) = match &sent {
            Ok(r) => (Some(r.status), r.latency_ms),
            Err(_) => (None, 0.0),
        };
        let turn = sent.map_err(|e| e.to_string()).and_then(|r| u.provider.parse_response(&r).map_err(|e| e.to_string()));
        let usage = turn.as_ref().map(|t| t.usage).unwrap_or_default();
        u.events.emit(EventKind::ModelRequest {
            unit: u.key.clone(),
            step: steps,
            purpose: RequestPurpose::Turn,
            status,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cached_input_tokens: usage.cached_input_tokens,
            cost_usd: cost_usd(&usage, &u.model.price),
            latency_ms,
            error: turn.as_ref().err().cloned(),
        })?;
        let turn = match turn {
            Ok(t) => t,
            Err(e) => {
                transcript.aborted = Some(format!("request failed: {e}"));
                error = true;
                break;
            }
        };
        if turn.tool_calls.is_empty() {
            transcript.final_text = turn.text.clone();
            messages.push(ChatMessage::Assistant { content: turn.text, tool_calls: vec![] });
            match followups.next() {
                Some(f) => {
                    messages.push(ChatMessage::User { content: f.clone() });
                    continue;
                }
                None => break,
            }
        }
        messages.push(ChatMessage::Assistant { content: turn.text.clone(), tool_calls: turn.tool_calls.clone() });
        for call in &turn.tool_calls {
            transcript.attempted_calls += 1;
            let verdict = pipeline::check_call(call, &scenario.tools);
            let tool_name = verdict.tool.as_ref().map_or(call.name.clone(), |t| t.spec.name.clone());
            u.events.emit(EventKind::ToolCall {
                unit: u.key.clone(),
                step: steps,
                call_id: call.id.clone(),
                raw_name: call.name.clone(),
                tool: tool_name.clone(),
                arguments: call.arguments.clone(),
                outcome: verdict.outcome,
                invalid_kinds: verdict.invalid_kinds(),
                issues: verdict.first_issues.clone(),
                fixes: verdict.fixes.clone(),
                timings: verdict.timings,
            })?;
            let (Some(tool), Some(args), false) = (&verdict.tool, &verdict.args, verdict.outcome == CallOutcome::Invalid) else {
                if u.config.pipeline.on_invalid == OnInvalid::FailScenario {
                    transcript.aborted = Some(format!("invalid call to `{}`", call.name));
                    break 'conversation;
                }
                let content = verdict.error_message(call, &scenario.tools);
                messages.push(ChatMessage::Tool { call_id: call.id.clone(), name: call.name.clone(), content });
                continue;
            };
            if approval::needs_approval(tool, &u.config.approval) {
                let decision = approval::decide(&u.config.approval);
                let (label, reason) = match &decision {
                    approval::ApprovalDecision::Approved => ("approved", None),
                    approval::ApprovalDecision::Denied { reason } => ("denied", Some(reason.clone())),
                };
                u.events.emit(EventKind::ToolApproval {
                    unit: u.key.clone(),
                    call_id: call.id.clone(),
                    tool: tool_name.clone(),
                    decision: label.into(),
                    reason: reason.clone(),
                    decided_by: "auto".into(),
                })?;
                if let Some(reason) = reason {
                    messages.push(ChatMessage::Tool { call_id: call.id.clone(), name: tool_name.clone(), content: format!("denied: {reason}") });
                    continue;
                }
            }
            let output = execute::scripted_result(&scenario.tool_results, &tool.spec.name, args);
            u.events.emit(EventKind::ToolExecuted {
                unit: u.key.clone(),
                call_id: call.id.clone(),
                tool: tool_name.clone(),
                is_error: output.is_error,
                scripted: output.rule.is_some(),
            })?;
            transcript.executed.push(ExecutedCall { tool: tool.spec.name.clone(), args: args.clone() });
            messages.push(ChatMessage::Tool { call_id: call.id.clone(), name: tool_name, content: output.content });
        }
    }

    let verdict = check::check(scenario, &transcript);
    u.events.emit(EventKind::ScenarioFinished {
        unit: u.key.clone(),
        passed: verdict.passed,
        reason: verdict.reason.clone(),
        steps,
        error,
    })?;
    Ok(verdict)
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
