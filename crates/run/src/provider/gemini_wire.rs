//! What Gemini whole and streamed responses share: a turn from parts, the
//! first candidate, usage counts. `gemini` → `gemini_stream` → here; neither
//! of the first two imports the other back.

use serde_json::{json, Value};

use super::names::ToolNames;
use super::{made_up_call_id, take_counts, ProviderError};
use crate::chat::{ModelTurn, ToolCall, Usage};

/// The tag of this adapter's `provider_state`.
pub(super) const STATE_TAG: &str = "gemini";

/// Text, reasoning, calls and state from a model turn's parts. The calls at
/// `unfinished` (indices into `parts`) were cut off mid-stream: their
/// argument text is left unclosed (the object without its final `}`, or
/// nothing if no argument arrived) so the repair pipeline sees the cut.
pub(super) fn turn_from_parts(parts: Vec<Value>, unfinished: &[usize], names: &ToolNames, first_id: usize) -> ModelTurn {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut tool_calls = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        if let Some(t) = part.get("text").and_then(Value::as_str) {
            if is_thought(part) {
                reasoning.push_str(t);
            } else {
                text.push_str(t);
            }
        }
        if let Some(call) = part.get("functionCall") {
            let arguments = match call.get("args") {
                Some(Value::Object(o)) if unfinished.contains(&i) && o.is_empty() => String::new(),
                Some(args @ Value::Object(_)) if unfinished.contains(&i) => {
                    let text = args.to_string();
                    text.strip_suffix('}').map(str::to_string).unwrap_or(text)
                }
                Some(args @ Value::Object(_)) => args.to_string(),
                _ if unfinished.contains(&i) => String::new(),
                _ => "{}".to_string(),
            };
            tool_calls.push(call_from(call, arguments, names, first_id + tool_calls.len()));
        }
    }
    ModelTurn {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        reasoning: (!reasoning.is_empty()).then_some(reasoning),
        provider_state: (!parts.is_empty()).then(|| json!({"provider": STATE_TAG, "parts": parts})),
        ..Default::default()
    }
}

/// The first candidate; no candidates is an error that says why (Gemini
/// answers a blocked prompt with `promptFeedback.blockReason` and none).
pub(super) fn first_candidate(body: &Value) -> Result<&Value, ProviderError> {
    if body.get("error").is_some_and(|e| !e.is_null()) {
        return Err(ProviderError::Stream(super::error_message(body)));
    }
    match body.get("candidates").and_then(Value::as_array).and_then(|c| c.first()) {
        Some(c) => Ok(c),
        None => Err(ProviderError::Shape(match body.pointer("/promptFeedback/blockReason").and_then(Value::as_str) {
            Some(reason) => format!("no candidates: the prompt was blocked ({reason})"),
            None => "no candidates in the response".into(),
        })),
    }
}

/// Whether a part is the model's thinking (`thought: true`).
pub(super) fn is_thought(part: &Value) -> bool {
    part.get("thought").and_then(Value::as_bool).unwrap_or(false)
}

/// A `ToolCall` from a `functionCall` object and its argument text; without
/// an id it is the `n`-th call of the conversation.
pub(super) fn call_from(call: &Value, arguments: String, names: &ToolNames, n: usize) -> ToolCall {
    ToolCall {
        id: call.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string).unwrap_or_else(|| made_up_call_id(n)),
        name: names.to_original(call.get("name").and_then(Value::as_str).unwrap_or_default()),
        arguments,
    }
}

/// Token counts. `promptTokenCount` includes the cached tokens
/// (`cachedContentTokenCount`); thinking (`thoughtsTokenCount`) is billed as
/// output, beside `candidatesTokenCount`; a tool-use prompt as input.
pub(super) fn parse_usage(usage: Option<&Value>) -> Usage {
    let mut counts = UsageCounts::default();
    counts.update(usage);
    counts.usage()
}

/// `usageMetadata` fields as they arrive (each stream chunk repeats them,
/// the early ones often without counts).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct UsageCounts {
    prompt: u64,
    tool_prompt: u64,
    cached: u64,
    candidates: u64,
    thoughts: u64,
}

impl UsageCounts {
    /// Takes every count `usage` reports, keeping the others.
    pub(super) fn update(&mut self, usage: Option<&Value>) {
        take_counts(
            usage,
            [
                ("promptTokenCount", &mut self.prompt),
                ("toolUsePromptTokenCount", &mut self.tool_prompt),
                ("cachedContentTokenCount", &mut self.cached),
                ("candidatesTokenCount", &mut self.candidates),
                ("thoughtsTokenCount", &mut self.thoughts),
            ],
        );
    }

    pub(super) fn usage(self) -> Usage {
        Usage {
            input_tokens: self.prompt + self.tool_prompt,
            output_tokens: self.candidates + self.thoughts,
            cached_input_tokens: self.cached,
        }
    }
}
