//! What OpenAI whole and streamed responses share: argument text, reasoning
//! state, usage. Both `openai` and `openai_stream` import it; neither imports
//! the other but `openai` → `openai_stream`.

use serde_json::{json, Map, Value};

use crate::chat::Usage;

/// The tag of this adapter's `provider_state`.
pub(super) const STATE_TAG: &str = "openai";

/// A call's argument text as the model wrote it. Some servers send the
/// arguments as an object rather than a string: its JSON text then.
pub(super) fn arguments_text(arguments: Option<&Value>) -> String {
    match arguments {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

/// DeepSeek's thinking mode answers 400 unless the reasoning of a turn that
/// made tool calls is sent back with it: keep it, under the field it came in.
pub(super) fn reasoning_state(field: &str, reasoning: Option<&str>, has_calls: bool) -> Option<Value> {
    let reasoning = reasoning.filter(|_| has_calls)?;
    let mut fields = Map::new();
    fields.insert(field.to_string(), json!(reasoning));
    Some(json!({"provider": STATE_TAG, "message_fields": fields}))
}

/// Token counts: `prompt_tokens` includes the cached ones, which OpenAI
/// reports as `prompt_tokens_details.cached_tokens` and DeepSeek as
/// `prompt_cache_hit_tokens`.
pub(super) fn parse_usage(usage: Option<&Value>) -> Usage {
    let Some(u) = usage.filter(|u| u.is_object()) else { return Usage::default() };
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: n("/prompt_tokens"),
        output_tokens: n("/completion_tokens"),
        cached_input_tokens: n("/prompt_tokens_details/cached_tokens").max(n("/prompt_cache_hit_tokens")),
    }
}
