//! Assembles a streamed Chat Completions answer (`chat.completion.chunk`
//! events) into one turn: text and reasoning deltas concatenated, tool-call
//! deltas joined by `index` (id and name in the first, argument text in
//! pieces), the finish reason, and usage from whichever chunk carries it
//! (OpenAI's usage-only last chunk with `choices: []`, or the last choice
//! chunk as DeepSeek and Groq send it). `[DONE]` ends the stream; a stream
//! that stops without a finish reason or `[DONE]` was cut off, and what
//! arrived is returned as it is.

use serde_json::Value;

use super::names::ToolNames;
use super::openai_wire::{arguments_text, parse_usage, reasoning_state};
use super::{error_message, made_up_call_id, mark_first_content, ProviderError, FINISH_TRUNCATED};
use crate::chat::{ModelTurn, ToolCall, Usage};
use crate::transport::SseEvent;

/// A tool call as far as its deltas have arrived.
#[derive(Debug, Default)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// The turn in a Chat Completions stream. Calls without an id get
/// `call_<n>` counting on from `first_id`.
pub(super) fn assemble(events: &[SseEvent], names: &ToolNames, first_id: usize) -> Result<ModelTurn, ProviderError> {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut reasoning_field = "reasoning_content";
    let mut calls: Vec<PartialCall> = Vec::new();
    let mut usage = Usage::default();
    let mut finish: Option<String> = None;
    let mut done = false;
    let mut ttft = None;
    for event in events {
        let data = event.data.trim();
        if data == "[DONE]" {
            done = true;
            break;
        }
        // A payload that is not JSON is a keep-alive or the half-received last event of a cut stream.
        let Ok(chunk) = serde_json::from_str::<Value>(data) else { continue };
        if chunk.get("error").is_some_and(|e| !e.is_null()) {
            return Err(ProviderError::Stream(error_message(&chunk)));
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            usage = parse_usage(Some(u));
        }
        let choices = chunk.get("choices").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // Only the first choice: calltape never asks for more than one.
        for choice in choices.iter().filter(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0) {
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                finish = Some(reason.to_string());
            }
            let Some(delta) = choice.get("delta") else { continue };
            if let Some(t) = delta.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
                text.push_str(t);
                mark_first_content(&mut ttft, event.offset_ms);
            }
            for field in ["reasoning_content", "reasoning"] {
                if let Some(r) = delta.get(field).and_then(Value::as_str).filter(|r| !r.is_empty()) {
                    reasoning.push_str(r);
                    reasoning_field = field;
                    mark_first_content(&mut ttft, event.offset_ms);
                }
            }
            for call_delta in delta.get("tool_calls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
                apply_call_delta(&mut calls, call_delta);
                mark_first_content(&mut ttft, event.offset_ms);
            }
        }
    }
    calls.sort_by_key(|c| c.index);
    let tool_calls: Vec<ToolCall> = calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| ToolCall {
            id: c.id.unwrap_or_else(|| made_up_call_id(first_id + i)),
            name: names.to_original(&c.name),
            arguments: c.arguments,
        })
        .collect();
    let reasoning = (!reasoning.is_empty()).then_some(reasoning);
    Ok(ModelTurn {
        provider_state: reasoning_state(reasoning_field, reasoning.as_deref(), !tool_calls.is_empty()),
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        usage,
        finish_reason: finish.or_else(|| (!done).then(|| FINISH_TRUNCATED.to_string())),
        reasoning,
        ttft_ms: ttft,
    })
}

/// Adds one element of a delta's `tool_calls` to the call it belongs to: the
/// one with its `index`; for servers that send no index, the one with its
/// id, else a new call if it has an unseen id, else the last call.
fn apply_call_delta(calls: &mut Vec<PartialCall>, delta: &Value) {
    let id = delta.get("id").and_then(Value::as_str).filter(|s| !s.is_empty());
    let slot = match delta.get("index").and_then(Value::as_u64) {
        Some(index) => calls.iter().position(|c| c.index == index).unwrap_or_else(|| {
            calls.push(PartialCall { index, ..Default::default() });
            calls.len() - 1
        }),
        None => match id.and_then(|id| calls.iter().position(|c| c.id.as_deref() == Some(id))) {
            Some(i) => i,
            None if id.is_some() || calls.is_empty() => {
                let index = calls.iter().map(|c| c.index + 1).max().unwrap_or(0);
                calls.push(PartialCall { index, ..Default::default() });
                calls.len() - 1
            }
            None => calls.len() - 1,
        },
    };
    let call = &mut calls[slot];
    if call.id.is_none() {
        call.id = id.map(str::to_string);
    }
    let function = delta.get("function");
    if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str).filter(|n| !n.is_empty()) {
        // The name comes whole in the first delta; a server that repeats it is not asking for "get_weatherget_weather".
        if call.name.is_empty() {
            call.name = name.to_string();
        } else if call.name != name {
            call.name.push_str(name);
        }
    }
    call.arguments.push_str(&arguments_text(function.and_then(|f| f.get("arguments"))));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::names::NameRule;
    use crate::provider::test_support::{chunk_events, cut_at_every_event, fixture_sse, timed};
    use serde_json::json;

    fn names() -> ToolNames {
        ToolNames::new([], NameRule::Basic)
    }

    #[test]
    fn openai_stream_with_one_call() {
        let events = timed(fixture_sse("openai/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin"));
        let turn = assemble(&events, &names(), 0).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall {
                id: "call_4XzlGBLtUe9dy3GVNV4jhq7h".into(),
                name: "get_weather".into(),
                arguments: r#"{"city":"New York City"}"#.into()
            }]
        );
        assert_eq!(turn.text, None);
        assert_eq!(turn.reasoning, None);
        assert_eq!(turn.usage, Usage { input_tokens: 44, output_tokens: 16, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_calls"));
        // The first event already names the call.
        assert_eq!(turn.ttft_ms, Some(10.0));
    }

    #[test]
    fn openai_stream_with_two_parallel_calls_and_usage_only_chunk() {
        let events = timed(fixture_sse("openai/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin"));
        let turn = assemble(&events, &names(), 0).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![
                ToolCall {
                    id: "call_JMW1whyEaYG438VE1OIflxA2".into(),
                    name: "GetWeatherArgs".into(),
                    arguments: r#"{"city": "Edinburgh", "country": "GB", "units": "c"}"#.into()
                },
                ToolCall {
                    id: "call_DNYTawLBoN8fj3KN6qU9N1Ou".into(),
                    name: "get_stock_price".into(),
                    arguments: r#"{"ticker": "AAPL", "exchange": "NASDAQ"}"#.into()
                },
            ]
        );
        assert_eq!(turn.text, None);
        assert_eq!(turn.usage, Usage { input_tokens: 149, output_tokens: 60, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_calls"));
        // The first event is only `role` and `content: null`; the second names the first call.
        assert_eq!(turn.ttft_ms, Some(20.0));
    }

    #[test]
    fn groq_stream_with_the_whole_call_in_one_delta() {
        let turn = assemble(&timed(chunk_events("openai-compatible/groq-tool-call.chunks.txt")), &names(), 0).unwrap();
        assert_eq!(turn.tool_calls, vec![ToolCall { id: "tk85n1k4m".into(), name: "weather".into(), arguments: "{}".into() }]);
        assert_eq!(turn.text, None);
        assert_eq!(turn.usage, Usage { input_tokens: 210, output_tokens: 15, cached_input_tokens: 0 });
        // The chunks file has no `[DONE]` line, but the finish reason came.
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(turn.ttft_ms, Some(20.0));
    }

    #[test]
    fn deepseek_stream_with_reasoning_then_call() {
        let turn = assemble(&timed(chunk_events("openai-compatible/deepseek-tool-call.chunks.txt")), &names(), 0).unwrap();
        let reasoning = "The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. \
Let me invoke the weather tool with the location parameter set to \"San Francisco\".";
        assert_eq!(turn.reasoning.as_deref(), Some(reasoning));
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall {
                id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF".into(),
                name: "weather".into(),
                arguments: r#"{"location": "San Francisco"}"#.into()
            }]
        );
        assert_eq!(turn.text, None);
        assert_eq!(turn.usage, Usage { input_tokens: 339, output_tokens: 83, cached_input_tokens: 320 });
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_calls"));
        // Reasoning is output: the first reasoning delta ("The", event 2) is the first token.
        assert_eq!(turn.ttft_ms, Some(20.0));
        assert_eq!(turn.provider_state, Some(json!({"provider": "openai", "message_fields": {"reasoning_content": reasoning}})));
    }

    #[test]
    fn every_cut_of_every_stream_gives_a_prefix_of_the_calls() {
        let streams = [
            fixture_sse("openai/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin"),
            fixture_sse("openai/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin"),
            chunk_events("openai-compatible/groq-tool-call.chunks.txt"),
            chunk_events("openai-compatible/deepseek-tool-call.chunks.txt"),
        ];
        for events in streams {
            let whole = assemble(&events, &names(), 0).unwrap();
            for cut in cut_at_every_event(&events) {
                let part = assemble(&cut, &names(), 0).unwrap();
                assert!(part.tool_calls.len() <= whole.tool_calls.len());
                for (p, w) in part.tool_calls.iter().zip(&whole.tool_calls) {
                    assert_eq!((&p.id, &p.name), (&w.id, &w.name));
                    assert!(w.arguments.starts_with(&p.arguments), "{:?} is not a prefix of {:?}", p.arguments, w.arguments);
                }
                assert!(whole.reasoning.as_deref().unwrap_or("").starts_with(part.reasoning.as_deref().unwrap_or("")));
                let finish = part.finish_reason.as_deref();
                assert!(finish == Some(FINISH_TRUNCATED) || finish == whole.finish_reason.as_deref(), "{finish:?}");
            }
        }
    }

    #[test]
    fn a_stream_cut_inside_the_arguments_keeps_them_for_repair() {
        let events = fixture_sse("openai/2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7.bin");
        let turn = assemble(&events[..5], &names(), 0).unwrap();
        assert_eq!(turn.tool_calls[0].arguments, r#"{"city":"New"#);
        assert_eq!(turn.finish_reason.as_deref(), Some(FINISH_TRUNCATED));
        assert_eq!(turn.usage, Usage::default());
    }

    #[test]
    fn deltas_without_index_and_errors_mid_stream() {
        let ev = |data: &str| SseEvent { offset_ms: 0.0, event: None, data: data.into() };
        let events = vec![
            ev(
                r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\":"}},{"id":"b","function":{"name":"g","arguments":""}}]}}]}"#,
            ),
            ev(r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"arguments":"1}"}}]}}]}"#),
            ev(r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{}"}}]}}]}"#),
            ev(r#"{"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}"#),
            ev("[DONE]"),
            ev(r#"{"choices":[{"delta":{"content":" ignored"}}]}"#),
        ];
        let turn = assemble(&events, &names(), 3).unwrap();
        let calls: Vec<(&str, &str, &str)> =
            turn.tool_calls.iter().map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str())).collect();
        assert_eq!(calls, vec![("a", "f", r#"{"x":1}"#), ("b", "g", "{}")]);
        assert_eq!(turn.text.as_deref(), Some("ok"));
        let failing =
            vec![ev(r#"{"choices":[{"delta":{"content":"par"}}]}"#), ev(r#"{"error":{"message":"Provider returned error","code":502}}"#)];
        assert_eq!(assemble(&failing, &names(), 0).unwrap_err(), ProviderError::Stream("Provider returned error".into()));
        let empty = assemble(&[], &names(), 0).unwrap();
        assert_eq!(empty.finish_reason.as_deref(), Some(FINISH_TRUNCATED));
        assert!(empty.tool_calls.is_empty() && empty.text.is_none());
    }
}
