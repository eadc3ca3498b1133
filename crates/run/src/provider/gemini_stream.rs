//! Assembles a streamed Gemini answer into one turn. Each event is a whole
//! `GenerateContentResponse` holding the next parts: text parts are joined
//! (thought parts into the reasoning), `functionCall` parts with `args` are
//! whole calls, and usage and the finish reason come with the last chunks.
//!
//! Calls may also stream their arguments: a `functionCall` with a `name`
//! and `willContinue: true` opens a call, later `functionCall` parts add
//! `partialArgs` (`{jsonPath, stringValue | numberValue | boolValue |
//! nullValue, willContinue}`; string pieces for one path are joined while
//! `willContinue` holds), and a `functionCall` without `willContinue` closes
//! it. A call still open when the stream ends is returned with its argument
//! text left unclosed (see `gemini::turn_from_parts`), so the repair
//! pipeline sees it was cut off.
//!
//! The parts kept in `provider_state` are the assembled ones — joined text,
//! whole calls — each with the `thoughtSignature` that came with it.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::gemini_wire::{first_candidate, is_thought, turn_from_parts, UsageCounts};
use super::names::ToolNames;
use super::{mark_first_content, ProviderError, FINISH_TRUNCATED};
use crate::chat::ModelTurn;
use crate::transport::SseEvent;

/// A call whose arguments are still streaming.
#[derive(Debug)]
struct OpenCall {
    /// Its index in the assembled parts.
    part: usize,
    /// The paths whose last string piece said more would follow.
    continuing: HashMap<String, bool>,
}

/// The turn in a Gemini stream. Calls without an id get `call_<n>` counting
/// on from `first_id`.
pub(super) fn assemble(events: &[SseEvent], names: &ToolNames, first_id: usize) -> Result<ModelTurn, ProviderError> {
    let mut parts: Vec<Value> = Vec::new();
    let mut open: Option<OpenCall> = None;
    let mut unfinished: Vec<usize> = Vec::new();
    let mut usage = UsageCounts::default();
    let mut finish: Option<String> = None;
    let mut ttft = None;
    for event in events {
        // A payload that is not JSON is the half-received last event of a cut stream.
        let Ok(chunk) = serde_json::from_str::<Value>(&event.data) else { continue };
        usage.update(chunk.get("usageMetadata"));
        let candidate = match first_candidate(&chunk) {
            Ok(c) => c,
            Err(e @ ProviderError::Stream(_)) => return Err(e),
            // A chunk with only usage or prompt feedback.
            Err(_) => continue,
        };
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            finish = Some(reason.to_string());
        }
        for part in candidate.pointer("/content/parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                if !text.is_empty() {
                    mark_first_content(&mut ttft, event.offset_ms);
                }
                add_text(&mut parts, part, text);
            } else if let Some(call) = part.get("functionCall") {
                if add_call(&mut parts, &mut open, &mut unfinished, part, call) {
                    mark_first_content(&mut ttft, event.offset_ms);
                }
            } else {
                parts.push(part.clone());
            }
        }
    }
    let mut turn = turn_from_parts(parts, &unfinished, names, first_id);
    turn.usage = usage.usage();
    turn.finish_reason = Some(finish.unwrap_or_else(|| FINISH_TRUNCATED.to_string()));
    turn.ttft_ms = ttft;
    Ok(turn)
}

/// Joins a text part onto the previous one if that is text of the same kind
/// (thought or not); its signature, if any, goes with the joined part.
fn add_text(parts: &mut Vec<Value>, part: &Value, text: &str) {
    let signature = part.get("thoughtSignature");
    if let Some(last) = parts.last_mut().filter(|l| l.get("text").is_some() && is_thought(l) == is_thought(part)) {
        let joined = format!("{}{text}", last.get("text").and_then(Value::as_str).unwrap_or_default());
        last["text"] = json!(joined);
        if let Some(s) = signature {
            last["thoughtSignature"] = s.clone();
        }
        return;
    }
    if !text.is_empty() || signature.is_some() {
        parts.push(part.clone());
    }
}

/// Adds a `functionCall` part: a whole call, the start of a streamed one,
/// or more of the open one. True if it carried model output.
fn add_call(parts: &mut Vec<Value>, open: &mut Option<OpenCall>, unfinished: &mut Vec<usize>, part: &Value, call: &Value) -> bool {
    let continues = call.get("willContinue").and_then(Value::as_bool).unwrap_or(false);
    let partial_args = call.get("partialArgs").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let Some(current) = open.as_mut() else {
        let name = call.get("name").and_then(Value::as_str).filter(|n| !n.is_empty());
        if name.is_none() && call.get("args").is_none() && partial_args.is_empty() {
            return false; // a closing `functionCall: {}` with no call open
        }
        let mut function_call = Map::new();
        for key in ["id", "name"] {
            if let Some(v) = call.get(key) {
                function_call.insert(key.into(), v.clone());
            }
        }
        function_call.insert("args".into(), call.get("args").cloned().unwrap_or_else(|| json!({})));
        let mut assembled = json!({"functionCall": function_call});
        if let Some(s) = part.get("thoughtSignature") {
            assembled["thoughtSignature"] = s.clone();
        }
        parts.push(assembled);
        let mut started = OpenCall { part: parts.len() - 1, continuing: HashMap::new() };
        apply_partial_args(&mut parts[started.part], &mut started.continuing, partial_args);
        if continues {
            unfinished.push(started.part);
            *open = Some(started);
        }
        return true;
    };
    let target = &mut parts[current.part];
    if let Some(name) = call.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()) {
        if target["functionCall"].get("name").and_then(Value::as_str).unwrap_or_default().is_empty() {
            target["functionCall"]["name"] = json!(name);
        }
    }
    if let Some(s) = part.get("thoughtSignature") {
        target["thoughtSignature"] = s.clone();
    }
    apply_partial_args(target, &mut current.continuing, partial_args);
    if !continues {
        let index = current.part;
        unfinished.retain(|&i| i != index);
        *open = None;
    }
    !partial_args.is_empty()
}

/// Writes each partial argument into the call's `args` at its JSON path.
fn apply_partial_args(part: &mut Value, continuing: &mut HashMap<String, bool>, partial_args: &[Value]) {
    for arg in partial_args {
        let Some(path) = arg.get("jsonPath").and_then(Value::as_str) else { continue };
        let Some(segments) = parse_path(path) else { continue };
        let value = if let Some(s) = arg.get("stringValue").and_then(Value::as_str) {
            let joined = match (continuing.get(path), lookup(&part["functionCall"]["args"], &segments)) {
                (Some(true), Some(Value::String(so_far))) => format!("{so_far}{s}"),
                _ => s.to_string(),
            };
            json!(joined)
        } else if let Some(n) = arg.get("numberValue").filter(|n| n.is_number()) {
            // Gemini sends numbers as doubles: 3 arrives as 3.0; keep whole numbers whole.
            match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => json!(f as i64),
                _ => n.clone(),
            }
        } else if let Some(b) = arg.get("boolValue").and_then(Value::as_bool) {
            json!(b)
        } else if arg.get("nullValue").is_some() {
            Value::Null
        } else {
            continue;
        };
        continuing.insert(path.to_string(), arg.get("willContinue").and_then(Value::as_bool).unwrap_or(false));
        let args = &mut part["functionCall"]["args"];
        if !args.is_object() {
            *args = json!({});
        }
        set_at(args, &segments, value);
    }
}

/// One step of a JSON path.
#[derive(Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

/// The largest array index a path may name: arrays are filled up to it, so
/// a path from the wire must not be able to ask for a billion elements.
const MAX_INDEX: usize = 4096;

/// The steps of a JSONPath (RFC 9535) in the forms Gemini uses: `$.a.b`,
/// `$.a[0]`, `$['a b']`, `$["a"]`. `None` for anything else.
fn parse_path(path: &str) -> Option<Vec<Segment>> {
    let mut rest = path.strip_prefix('$')?;
    let mut segments = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            segments.push(Segment::Key(after[..end].to_string()));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']')?;
            let inner = &after[..close];
            let quoted = inner
                .strip_prefix('\'')
                .and_then(|s| s.strip_suffix('\''))
                .or_else(|| inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')));
            segments.push(match quoted {
                Some(key) => Segment::Key(key.to_string()),
                None => Segment::Index(inner.parse().ok().filter(|i| *i <= MAX_INDEX)?),
            });
            rest = &after[close + 1..];
        } else {
            return None;
        }
    }
    Some(segments)
}

fn lookup<'a>(mut value: &'a Value, segments: &[Segment]) -> Option<&'a Value> {
    for s in segments {
        value = match s {
            Segment::Key(k) => value.get(k)?,
            Segment::Index(i) => value.get(*i)?,
        };
    }
    Some(value)
}

/// Sets the value at a path, making the objects and arrays on the way.
fn set_at(root: &mut Value, segments: &[Segment], value: Value) {
    let Some((last, init)) = segments.split_last() else {
        *root = value;
        return;
    };
    let mut node = root;
    for (i, s) in init.iter().enumerate() {
        let next_is_index = matches!(segments[i + 1], Segment::Index(_));
        node = step(node, s, if next_is_index { json!([]) } else { json!({}) });
    }
    *step(node, last, Value::Null) = value;
}

/// The child at one step, made (as `empty`) if absent or of the wrong kind.
fn step<'a>(node: &'a mut Value, segment: &Segment, empty: Value) -> &'a mut Value {
    match segment {
        Segment::Key(k) => {
            if !node.is_object() {
                *node = json!({});
            }
            let map = node.as_object_mut().expect("made an object");
            map.entry(k.clone()).or_insert(empty)
        }
        Segment::Index(i) => {
            if !node.is_array() {
                *node = json!([]);
            }
            let list = node.as_array_mut().expect("made an array");
            while list.len() <= *i {
                list.push(Value::Null);
            }
            if list[*i].is_null() {
                list[*i] = empty;
            }
            &mut list[*i]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::{ToolCall, Usage};
    use crate::provider::names::NameRule;
    use crate::provider::test_support::{chunk_events, cut_at_every_event, timed};

    fn names() -> ToolNames {
        ToolNames::new([], NameRule::Gemini)
    }

    #[test]
    fn stream_with_a_whole_call_and_an_empty_closing_text() {
        let turn = assemble(&timed(chunk_events("google/google-tool-call.chunks.txt")), &names(), 0).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall { id: "call_0".into(), name: "weather".into(), arguments: r#"{"location":"San Francisco"}"#.into() }]
        );
        assert_eq!(turn.text, None);
        assert_eq!(turn.usage, Usage { input_tokens: 29, output_tokens: 15 + 45, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("STOP"));
        assert_eq!(turn.ttft_ms, Some(10.0));
        let parts = &turn.provider_state.unwrap()["parts"];
        assert_eq!(parts.as_array().unwrap().len(), 1, "the empty text part is dropped");
        assert!(parts[0]["thoughtSignature"].as_str().unwrap().starts_with("EqUCCqICAb4+9vsh8Pd5"));
    }

    #[test]
    fn stream_with_partial_args_gives_two_whole_calls() {
        let turn = assemble(&timed(chunk_events("google/google-stream-tool-call-arguments.chunks.txt")), &names(), 4).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![
                ToolCall { id: "call_4".into(), name: "getWeather".into(), arguments: r#"{"location":"Boston"}"#.into() },
                ToolCall { id: "call_5".into(), name: "getWeather".into(), arguments: r#"{"location":"San Francisco"}"#.into() },
            ]
        );
        assert_eq!(turn.text, None);
        assert_eq!(turn.usage, Usage { input_tokens: 26, output_tokens: 23 + 132, cached_input_tokens: 0 });
        assert_eq!(turn.finish_reason.as_deref(), Some("STOP"));
        assert_eq!(turn.ttft_ms, Some(10.0));
        let parts = turn.provider_state.unwrap()["parts"].clone();
        assert_eq!(parts[0]["functionCall"], json!({"name": "getWeather", "args": {"location": "Boston"}}));
        assert!(parts[0]["thoughtSignature"].as_str().unwrap().starts_with("CiMBjz1r"));
        assert_eq!(parts[1], json!({"functionCall": {"name": "getWeather", "args": {"location": "San Francisco"}}}));
    }

    #[test]
    fn every_cut_of_every_stream_gives_a_prefix_of_the_calls() {
        for file in ["google/google-tool-call.chunks.txt", "google/google-stream-tool-call-arguments.chunks.txt"] {
            let events = chunk_events(file);
            let whole = assemble(&events, &names(), 0).unwrap();
            for cut in cut_at_every_event(&events) {
                let part = assemble(&cut, &names(), 0).unwrap();
                assert!(part.tool_calls.len() <= whole.tool_calls.len());
                for (p, w) in part.tool_calls.iter().zip(&whole.tool_calls) {
                    assert_eq!((&p.id, &p.name), (&w.id, &w.name));
                    assert!(w.arguments.starts_with(&p.arguments), "{:?} vs {:?}", p.arguments, w.arguments);
                }
                let finish = part.finish_reason.as_deref();
                assert!(finish == Some(FINISH_TRUNCATED) || finish == whole.finish_reason.as_deref(), "{finish:?}");
            }
        }
    }

    #[test]
    fn a_call_cut_off_mid_arguments_is_left_unclosed() {
        let events = chunk_events("google/google-stream-tool-call-arguments.chunks.txt");
        let turn = assemble(&events[..2], &names(), 0).unwrap();
        assert_eq!(
            turn.tool_calls,
            vec![ToolCall { id: "call_0".into(), name: "getWeather".into(), arguments: r#"{"location":"Boston""#.into() }]
        );
        assert_eq!(turn.finish_reason.as_deref(), Some(FINISH_TRUNCATED));
        let turn = assemble(&events[..1], &names(), 0).unwrap();
        assert_eq!(turn.tool_calls[0].arguments, "");
    }

    #[test]
    fn nested_paths_numbers_booleans_and_string_pieces() {
        let chunk = |call: Value| SseEvent {
            offset_ms: 0.0,
            event: None,
            data: json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}).to_string(),
        };
        let events = vec![
            chunk(json!({"name": "plan", "willContinue": true})),
            chunk(json!({"partialArgs": [
                {"jsonPath": "$.steps[1].title", "stringValue": "Wri", "willContinue": true},
                {"jsonPath": "$.count", "numberValue": 3.0},
                {"jsonPath": "$['dry run']", "boolValue": false},
                {"jsonPath": "$.note", "nullValue": "NULL_VALUE"}
            ], "willContinue": true})),
            chunk(
                json!({"partialArgs": [{"jsonPath": "$.steps[1].title", "stringValue": "te tests"}, {"jsonPath": "$.ratio", "numberValue": 0.5}], "willContinue": true}),
            ),
            chunk(json!({})),
            SseEvent {
                offset_ms: 0.0,
                event: None,
                data: json!({"candidates": [{"content": {"parts": [{"text": "Done"}]}, "finishReason": "STOP"}]}).to_string(),
            },
        ];
        let turn = assemble(&events, &names(), 0).unwrap();
        let args: Value = serde_json::from_str(&turn.tool_calls[0].arguments).unwrap();
        assert_eq!(args, json!({"steps": [null, {"title": "Write tests"}], "count": 3, "dry run": false, "note": null, "ratio": 0.5}));
        assert_eq!(turn.text.as_deref(), Some("Done"));
    }

    #[test]
    fn paths() {
        assert_eq!(parse_path("$.a.b"), Some(vec![Segment::Key("a".into()), Segment::Key("b".into())]));
        assert_eq!(parse_path("$.a[2]['c d']"), Some(vec![Segment::Key("a".into()), Segment::Index(2), Segment::Key("c d".into())]));
        assert_eq!(parse_path("$"), Some(vec![]));
        for bad in ["a.b", "$.", "$[x]", "$[1", "$..a", "$.a[99999999999]"] {
            assert_eq!(parse_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn thought_text_and_errors() {
        let ev = |v: Value| SseEvent { offset_ms: 0.0, event: None, data: v.to_string() };
        let events = vec![
            ev(json!({"candidates": [{"content": {"parts": [{"text": "Plan: ", "thought": true}]}}]})),
            ev(json!({"candidates": [{"content": {"parts": [{"text": "read.", "thought": true}, {"text": "Hello"}]}}]})),
            ev(json!({"candidates": [{"content": {"parts": [{"text": " there", "thoughtSignature": "c2ln"}]}, "finishReason": "STOP"}]})),
        ];
        let turn = assemble(&events, &names(), 0).unwrap();
        assert_eq!(turn.reasoning.as_deref(), Some("Plan: read."));
        assert_eq!(turn.text.as_deref(), Some("Hello there"));
        assert_eq!(
            turn.provider_state.unwrap()["parts"],
            json!([{"text": "Plan: read.", "thought": true}, {"text": "Hello there", "thoughtSignature": "c2ln"}])
        );
        let failing =
            vec![events[0].clone(), ev(json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}))];
        assert_eq!(assemble(&failing, &names(), 0).unwrap_err(), ProviderError::Stream("UNAVAILABLE: The model is overloaded.".into()));
    }
}
