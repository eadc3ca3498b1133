//! The bodies of the fuzz targets in `fuzz/` (run with `cargo fuzz`), kept
//! in the library so `tests/fuzz_corpora.rs` replays every input the fuzzers
//! found on each `cargo test`, with no fuzzer installed. Each takes raw
//! bytes, must never panic, and checks one invariant beyond that.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde_json::json;

use crate::chat::ToolCall;
use crate::config::RepairMode;
use crate::pipeline::{check_call, lenient, CallOutcome, PipelineOptions, RepairRules};
use crate::scenario::{compile_tool, parse_scenario_file, Tool, ToolSpec};
use crate::transport::sse::{parse_all, SseParser};

/// The lenient parser: whatever it returns is a JSON value that prints and
/// reads back as itself.
pub fn lenient_parser(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok((value, _fixes)) = lenient::parse_lenient(text) {
        let printed = value.to_string();
        let back: serde_json::Value = serde_json::from_str(&printed).expect("a lenient result prints as JSON");
        assert_eq!(back, value);
    }
}

/// The SSE parser: the first byte says where to cut the rest in two; fed in
/// two chunks it gives the same events as fed whole.
pub fn sse_parser(data: &[u8]) {
    let Some((&cut, body)) = data.split_first() else { return };
    let cut = usize::from(cut).min(body.len());
    let whole = parse_all(body);
    let mut parser = SseParser::new();
    let mut events = parser.feed(&body[..cut], 0.0);
    events.extend(parser.feed(&body[cut..], 0.0));
    events.extend(parser.finish(0.0));
    assert_eq!(events, whole);
}

fn repair_tools() -> &'static [Arc<Tool>] {
    static TOOLS: OnceLock<Vec<Arc<Tool>>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let spec = |name: &str, parameters| ToolSpec { name: name.into(), description: String::new(), parameters, sensitive: false };
        let read_file = json!({"type": "object", "additionalProperties": false,
            "properties": {"target_file": {"type": "string"}, "should_read_entire_file": {"type": "boolean"},
                           "start_line_one_indexed": {"type": "integer", "minimum": 1},
                           "mode": {"type": "string", "enum": ["text", "binary"]},
                           "edits": {"type": "array", "items": {"type": "object", "properties": {"old": {"type": "string"}, "new": {"type": "string"}}, "required": ["old", "new"]}}},
            "required": ["target_file", "should_read_entire_file"]});
        let bash = json!({"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "number", "default": 120}}, "required": ["command"]});
        vec![
            Arc::new(compile_tool(spec("read_file", read_file)).expect("valid schema")),
            Arc::new(compile_tool(spec("Bash", bash)).expect("valid schema")),
        ]
    })
}

/// The repair pipeline: the first line is the tool name, the rest the
/// arguments. A call it calls valid or repaired satisfies the schema.
pub fn repair_pipeline(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (name, arguments) = text.split_once('\n').unwrap_or(("read_file", &text));
    let call = ToolCall { id: "fuzz".into(), name: name.into(), arguments: arguments.into() };
    let rules = RepairRules::default();
    let verdict = check_call(&call, repair_tools(), PipelineOptions { repair: RepairMode::Local, rules: &rules });
    if matches!(verdict.outcome, CallOutcome::Valid | CallOutcome::Repaired) {
        let (tool, args) = (verdict.tool.as_ref().expect("a valid call has a tool"), verdict.args.as_ref().expect("and arguments"));
        assert!(tool.validator.is_valid(args), "{:?} call with invalid arguments {args}", verdict.outcome);
    }
}

/// The scenario loader: any bytes, as a `.json` and as a `.jsonl` file,
/// give scenarios or errors that name a position in the file.
pub fn scenario_loader(data: &[u8]) {
    for path in ["fuzz.json", "fuzz.jsonl"] {
        if let Err(errors) = parse_scenario_file(Path::new(path), data.to_vec(), "fuzz") {
            assert!(!errors.is_empty());
            for e in errors {
                assert!(e.to_string().starts_with(path), "{e}");
            }
        }
    }
}
