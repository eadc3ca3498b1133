//! What Anthropic whole and streamed responses share: a turn from content
//! blocks, usage counts. `anthropic` → `anthropic_stream` → here.

use serde_json::{json, Value};

use super::names::ToolNames;
use super::{made_up_call_id, take_counts};
use crate::chat::{ModelTurn, ToolCall, Usage};

/// The tag of this adapter's `provider_state`.
pub(super) const STATE_TAG: &str = "anthropic";

/// Text, reasoning, calls and state from an assistant's content blocks.
/// A `tool_use` block without an id (a malformed stream) gets a made-up one,
/// written into the block too so that its result can name it.
pub(super) fn turn_from_blocks(blocks: &mut [Value], names: &ToolNames, first_id: usize) -> ModelTurn {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut tool_calls = Vec::new();
    for block in blocks.iter_mut() {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("thinking") => reasoning.push_str(block.get("thinking").and_then(Value::as_str).unwrap_or_default()),
            Some("tool_use") => {
                let id = match block.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                    Some(id) => id.to_string(),
                    None => {
                        let id = made_up_call_id(first_id + tool_calls.len());
                        block["id"] = json!(id);
                        id
                    }
                };
                let arguments = match block.get("input") {
                    Some(input) if !input.is_null() => input.to_string(),
                    _ => "{}".to_string(),
                };
                let name = names.to_original(block.get("name").and_then(Value::as_str).unwrap_or_default());
                tool_calls.push(ToolCall { id, name, arguments });
            }
            // server_tool_use, web_search_tool_result, redacted_thinking, …: kept in the state only.
            _ => {}
        }
    }
    ModelTurn {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        reasoning: (!reasoning.is_empty()).then_some(reasoning),
        provider_state: (!blocks.is_empty()).then(|| json!({"provider": STATE_TAG, "content": blocks})),
        ..Default::default()
    }
}

/// Anthropic's usage fields as they arrive (a stream reports them in
/// `message_start` and again, updated, in `message_delta`).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct UsageCounts {
    input: u64,
    cache_read: u64,
    cache_write: u64,
    output: u64,
}

impl UsageCounts {
    /// Takes every field `usage` reports, keeping the others.
    pub(super) fn update(&mut self, usage: Option<&Value>) {
        take_counts(
            usage,
            [
                ("input_tokens", &mut self.input),
                ("cache_read_input_tokens", &mut self.cache_read),
                ("cache_creation_input_tokens", &mut self.cache_write),
                ("output_tokens", &mut self.output),
            ],
        );
    }

    pub(super) fn usage(self) -> Usage {
        Usage {
            input_tokens: self.input + self.cache_read + self.cache_write,
            output_tokens: self.output,
            cached_input_tokens: self.cache_read,
        }
    }
}
