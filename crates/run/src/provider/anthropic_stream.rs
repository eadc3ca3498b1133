//! Assembles a streamed Messages answer into one turn. The stream rebuilds
//! the message's content blocks: `content_block_start` opens one (a
//! `tool_use` block arrives with its id, name and an empty `input`),
//! `content_block_delta` adds to it (`text_delta`, `thinking_delta`,
//! `signature_delta`, `citations_delta`, and `input_json_delta` pieces of a
//! tool's input as JSON text), `content_block_stop` closes it. `message_start`
//! and `message_delta` carry usage and the stop reason; `ping` carries
//! nothing; `error` ends the stream with the provider's error.
//!
//! A tool's arguments are the `partial_json` pieces joined, exactly as the
//! model wrote them; a closed block with no pieces (or only empty ones)
//! means `{}`. A block cut off before it closed keeps the text that arrived,
//! for the repair pipeline.

use serde_json::{json, Value};

use super::anthropic_wire::{turn_from_blocks, UsageCounts};
use super::names::ToolNames;
use super::{error_message, mark_first_content, ProviderError, FINISH_TRUNCATED};
use crate::chat::ModelTurn;
use crate::transport::SseEvent;

/// A content block as far as the stream has built it.
#[derive(Debug)]
struct OpenBlock {
    index: u64,
    block: Value,
    /// `input_json_delta` pieces, joined.
    input_json: String,
    closed: bool,
}

/// The turn in a Messages stream. Calls without an id get `call_<n>`
/// counting on from `first_id`.
pub(super) fn assemble(events: &[SseEvent], names: &ToolNames, first_id: usize) -> Result<ModelTurn, ProviderError> {
    let mut blocks: Vec<OpenBlock> = Vec::new();
    let mut usage = UsageCounts::default();
    let mut stop_reason: Option<String> = None;
    let mut stopped = false;
    let mut ttft = None;
    for event in events {
        // A payload that is not JSON is the half-received last event of a cut stream.
        let Ok(data) = serde_json::from_str::<Value>(&event.data) else { continue };
        let kind = data.get("type").and_then(Value::as_str).or(event.event.as_deref()).unwrap_or_default();
        match kind {
            "message_start" => usage.update(data.pointer("/message/usage")),
            "content_block_start" => {
                let index = data.get("index").and_then(Value::as_u64).unwrap_or(blocks.len() as u64);
                // Blocks are objects; anything else from the wire becomes an empty one.
                let block = data.get("content_block").filter(|b| b.is_object()).cloned().unwrap_or_else(|| json!({}));
                let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
                let has_text = ["text", "thinking"].iter().any(|f| block.get(*f).and_then(Value::as_str).is_some_and(|t| !t.is_empty()));
                // A tool block's start names the call: that is the first token of it.
                if has_text || kind == "tool_use" || kind == "server_tool_use" {
                    mark_first_content(&mut ttft, event.offset_ms);
                }
                match blocks.iter_mut().find(|b| b.index == index) {
                    Some(open) => open.block = block,
                    None => blocks.push(OpenBlock { index, block, input_json: String::new(), closed: false }),
                }
            }
            "content_block_delta" => {
                let Some(delta) = data.get("delta") else { continue };
                let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
                let open = block_at(&mut blocks, index, delta);
                if apply_delta(open, delta) {
                    mark_first_content(&mut ttft, event.offset_ms);
                }
            }
            "content_block_stop" => {
                if let Some(open) = data.get("index").and_then(Value::as_u64).and_then(|i| blocks.iter_mut().find(|b| b.index == i)) {
                    open.closed = true;
                }
            }
            "message_delta" => {
                if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    stop_reason = Some(reason.to_string());
                }
                usage.update(data.get("usage"));
            }
            "message_stop" => stopped = true,
            "error" => return Err(ProviderError::Stream(error_message(&data))),
            _ => {} // ping, and event types added after this was written
        }
    }
    blocks.sort_by_key(|b| b.index);
    let mut arguments = Vec::new();
    let mut content: Vec<Value> = blocks
        .into_iter()
        .map(|open| {
            let mut block = open.block;
            if is_tool_block(&block) {
                let text = finished_arguments(&open.input_json, open.closed, block.get("input"));
                if let Ok(input @ Value::Object(_)) = serde_json::from_str::<Value>(&text) {
                    block["input"] = input;
                }
                arguments.push(text);
            }
            block
        })
        .collect();
    let mut turn = turn_from_blocks(&mut content, names, first_id);
    // The calls carry the text as the model wrote it, not the re-serialised input.
    let mut texts = content
        .iter()
        .filter(|b| is_tool_block(b))
        .zip(arguments)
        .filter(|(b, _)| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|(_, t)| t);
    for call in &mut turn.tool_calls {
        if let Some(text) = texts.next() {
            call.arguments = text;
        }
    }
    turn.usage = usage.usage();
    turn.finish_reason = stop_reason.or_else(|| (!stopped).then(|| FINISH_TRUNCATED.to_string()));
    turn.ttft_ms = ttft;
    Ok(turn)
}

fn is_tool_block(block: &Value) -> bool {
    matches!(block.get("type").and_then(Value::as_str), Some("tool_use" | "server_tool_use" | "mcp_tool_use"))
}

/// A tool block's argument text: the pieces that arrived; for a closed
/// block with none, its start's `input` (`{}`). An open block with none has
/// nothing yet.
fn finished_arguments(pieces: &str, closed: bool, start_input: Option<&Value>) -> String {
    if !pieces.trim().is_empty() || !closed {
        return pieces.to_string();
    }
    match start_input {
        Some(input @ Value::Object(_)) => input.to_string(),
        _ => "{}".to_string(),
    }
}

/// The block a delta adds to; a delta whose block never started (a stream
/// that lost events) gets one shaped after the delta.
fn block_at<'a>(blocks: &'a mut Vec<OpenBlock>, index: u64, delta: &Value) -> &'a mut OpenBlock {
    match blocks.iter().position(|b| b.index == index) {
        Some(i) => &mut blocks[i],
        None => {
            let block = match delta.get("type").and_then(Value::as_str) {
                Some("input_json_delta") => json!({"type": "tool_use", "input": {}}),
                Some("thinking_delta" | "signature_delta") => json!({"type": "thinking", "thinking": ""}),
                _ => json!({"type": "text", "text": ""}),
            };
            blocks.push(OpenBlock { index, block, input_json: String::new(), closed: false });
            blocks.last_mut().expect("just pushed")
        }
    }
}

/// Adds a delta to its block; true if it carried model output.
fn apply_delta(open: &mut OpenBlock, delta: &Value) -> bool {
    let str_field = |f: &str| delta.get(f).and_then(Value::as_str).unwrap_or_default();
    match delta.get("type").and_then(Value::as_str) {
        Some("text_delta") => append(&mut open.block, "text", str_field("text")),
        Some("thinking_delta") => append(&mut open.block, "thinking", str_field("thinking")),
        Some("input_json_delta") => {
            let piece = str_field("partial_json");
            open.input_json.push_str(piece);
            !piece.is_empty()
        }
        Some("signature_delta") => {
            open.block["signature"] = json!(str_field("signature"));
            false
        }
        Some("citations_delta") => {
            if let Some(citation) = delta.get("citation") {
                match open.block.get_mut("citations").and_then(Value::as_array_mut) {
                    Some(list) => list.push(citation.clone()),
                    None => open.block["citations"] = json!([citation]),
                }
            }
            false
        }
        _ => false,
    }
}

fn append(block: &mut Value, field: &str, piece: &str) -> bool {
    let mut text = block.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
    text.push_str(piece);
    block[field] = json!(text);
    !piece.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{ToolCall, Usage};
    use crate::provider::names::NameRule;
    use crate::provider::test_support::{chunk_events, cut_at_every_event, fixture_sse, fixture_text, timed};
    use crate::transport::sse;

    fn names() -> ToolNames {
        ToolNames::new([], NameRule::Basic)
    }

    #[test]
    fn sdk_stream_with_text_then_a_call_in_pieces() {
        let turn = assemble(&timed(fixture_sse("anthropic/tool_use_response.txt")), &names(), 0).unwrap();
        assert_eq!(turn.text.as_deref(), Some("I'll check the current weather in Paris for you."));
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall {
                id: "toolu_01NRLabsLyVHZPKxbKvkfSMn".into(),
                name: "get_weather".into(),
                arguments: r#"{"location": "Paris"}"#.into()
            }]
        );
        assert_eq!(turn.usage, Usage { input_tokens: 377, output_tokens: 65, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(turn.reasoning, None);
        // message_start, content_block_start (empty text), ping, then the first text delta.
        assert_eq!(turn.ttft_ms, Some(40.0));
        assert_eq!(
            turn.provider_state,
            Some(json!({"provider": "anthropic", "content": [
                {"type": "text", "text": "I'll check the current weather in Paris for you."},
                {"type": "tool_use", "id": "toolu_01NRLabsLyVHZPKxbKvkfSMn", "name": "get_weather", "caller": {"type": "direct"}, "input": {"location": "Paris"}}
            ]}))
        );
    }

    #[test]
    fn empty_partial_json_means_no_arguments() {
        let turn = assemble(&timed(chunk_events("anthropic/anthropic-tool-no-args.chunks.txt")), &names(), 0).unwrap();
        assert_eq!(turn.text.as_deref(), Some("I'll update the issue list for you."));
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall { id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP".into(), name: "updateIssueList".into(), arguments: "{}".into() }]
        );
        assert_eq!(turn.usage, Usage { input_tokens: 565, output_tokens: 48, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("tool_use"));
        assert_eq!(turn.ttft_ms, Some(30.0));
    }

    #[test]
    fn recorded_streams_parse() {
        let rounds: Value = serde_json::from_str(&fixture_text("anthropic/771c64ff-a0af-4cd9-8080-a5a539da7cb9.json")).unwrap();
        let raw = rounds[0]["response"]["body"].as_str().unwrap();
        let turn = assemble(&sse::parse_all(raw.as_bytes()), &names(), 0).unwrap();
        assert_eq!(turn.tool_calls[0].arguments, r#"{"location": "San Francisco, CA", "units": "f"}"#);
        assert_eq!(turn.provider_state.unwrap()["content"][0]["input"], json!({"location": "San Francisco, CA", "units": "f"}));
    }

    fn all_streams() -> Vec<Vec<SseEvent>> {
        let rounds: Value = serde_json::from_str(&fixture_text("anthropic/771c64ff-a0af-4cd9-8080-a5a539da7cb9.json")).unwrap();
        let mut streams = vec![fixture_sse("anthropic/tool_use_response.txt"), chunk_events("anthropic/anthropic-tool-no-args.chunks.txt")];
        for round in rounds.as_array().unwrap() {
            streams.push(sse::parse_all(round["response"]["body"].as_str().unwrap().as_bytes()));
        }
        streams
    }

    #[test]
    fn every_cut_of_every_stream_gives_a_prefix_of_the_answer() {
        for events in all_streams() {
            let whole = assemble(&events, &names(), 0).unwrap();
            for cut in cut_at_every_event(&events) {
                let part = assemble(&cut, &names(), 0).unwrap();
                assert!(whole.text.as_deref().unwrap_or("").starts_with(part.text.as_deref().unwrap_or("")));
                assert!(part.tool_calls.len() <= whole.tool_calls.len());
                for (p, w) in part.tool_calls.iter().zip(&whole.tool_calls) {
                    assert_eq!((&p.id, &p.name), (&w.id, &w.name));
                    // Before its block closes, a call has exactly the pieces so far; `{}` only once closed.
                    assert!(w.arguments.starts_with(&p.arguments) || p.arguments == "{}", "{:?} vs {:?}", p.arguments, w.arguments);
                }
                let finish = part.finish_reason.as_deref();
                assert!(finish == Some(FINISH_TRUNCATED) || finish == whole.finish_reason.as_deref(), "{finish:?}");
            }
        }
    }

    #[test]
    fn a_stream_cut_inside_the_input_keeps_the_pieces() {
        let events = fixture_sse("anthropic/tool_use_response.txt");
        // Up to and including the `"{\"locati"` piece.
        let turn = assemble(&events[..9], &names(), 0).unwrap();
        assert_eq!(turn.tool_calls[0].arguments, r#"{"locati"#);
        assert_eq!(turn.finish_reason.as_deref(), Some(FINISH_TRUNCATED));
        assert_eq!(turn.usage, Usage { input_tokens: 377, output_tokens: 1, cached_input_tokens: 0 });
        // The unparseable input stays `{}` in the state; the call keeps the text.
        assert_eq!(turn.provider_state.unwrap()["content"][1]["input"], json!({}));
    }

    #[test]
    fn max_tokens_mid_call_keeps_the_truncated_arguments() {
        let lines = [
            r#"{"type":"message_start","message":{"usage":{"input_tokens":12,"cache_read_input_tokens":30,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_x","name":"Write","input":{}}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"content\": \"fn main() {"}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":16}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        let events: Vec<SseEvent> = lines.iter().map(|l| SseEvent { offset_ms: 0.0, event: None, data: l.to_string() }).collect();
        let turn = assemble(&events, &names(), 0).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall { id: "toolu_x".into(), name: "Write".into(), arguments: r#"{"content": "fn main() {"#.into() }]
        );
        assert_eq!(turn.finish_reason.as_deref(), Some("max_tokens"));
        assert_eq!(turn.usage, Usage { input_tokens: 42, output_tokens: 16, cached_input_tokens: 30 });
    }

    #[test]
    fn thinking_signatures_and_error_events() {
        let ev = |event: &str, data: &str| SseEvent { offset_ms: 5.0, event: Some(event.into()), data: data.into() };
        let events = vec![
            ev("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#),
            ev(
                "content_block_delta",
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}"#,
            ),
            ev("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#),
            ev("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            ev("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi"}}"#),
            ev("message_stop", r#"{"type":"message_stop"}"#),
        ];
        let turn = assemble(&events, &names(), 0).unwrap();
        assert_eq!(turn.reasoning.as_deref(), Some("Let me see."));
        assert_eq!(turn.text.as_deref(), Some("Hi"));
        assert_eq!(turn.finish_reason, None);
        assert_eq!(turn.provider_state.unwrap()["content"][0], json!({"type": "thinking", "thinking": "Let me see.", "signature": "EqQB"}));
        let failing =
            vec![events[1].clone(), ev("error", r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)];
        assert_eq!(assemble(&failing, &names(), 0).unwrap_err(), ProviderError::Stream("overloaded_error: Overloaded".into()));
    }
}
