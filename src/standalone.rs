//! The pipeline on single calls, outside any run: what `calltape repair`
//! prints for people debugging a call, and its batch mode for benchmarks.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::chat::ToolCall;
use crate::config::RepairMode;
use crate::pipeline::{check_call, CallOutcome, PipelineOptions, RepairRules};
use crate::scenario::{compile_tool, Tool, ToolSpec};

/// The name given to the tool whose schema is checked.
const TOOL_NAME: &str = "tool";

/// A tool for a bare parameters schema; without one, any JSON value is
/// accepted (only the syntax is repaired).
pub fn tool_for_schema(schema: Option<&Value>) -> Result<Arc<Tool>, String> {
    let parameters = schema.cloned().unwrap_or_else(|| json!({}));
    let spec = ToolSpec { name: TOOL_NAME.into(), description: String::new(), parameters, sensitive: false };
    compile_tool(spec).map(Arc::new)
}

/// The JSON report on one call's argument text.
pub fn repair_report(arguments: &str, tool: &Arc<Tool>, mode: RepairMode, rules: &RepairRules) -> Value {
    let call = ToolCall { id: "call".into(), name: TOOL_NAME.into(), arguments: arguments.into() };
    let v = check_call(&call, std::slice::from_ref(tool), PipelineOptions { repair: mode, rules });
    let outcome = match v.outcome {
        CallOutcome::Valid => "valid",
        CallOutcome::Repaired => "repaired",
        CallOutcome::Invalid => "invalid",
    };
    json!({
        "outcome": outcome,
        "args": v.args,
        "fixes": v.fixes,
        "errors": if v.outcome == CallOutcome::Invalid { &v.issues } else { &v.first_issues },
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchLine {
    args: String,
    #[serde(default)]
    schema: Option<Value>,
}

/// Counts of a batch.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BatchCounts {
    pub valid: usize,
    pub repaired: usize,
    pub invalid: usize,
    pub bad_lines: usize,
}

/// Reads `{"args": "...", "schema": {...}?}` lines and writes one report a
/// line; a line that is not such an object gets `{"line": N, "error": ...}`.
/// Schemas are compiled once each.
pub fn run_batch(
    input: impl BufRead,
    mut output: impl Write,
    default_schema: Option<&Value>,
    mode: RepairMode,
    rules: &RepairRules,
) -> std::io::Result<BatchCounts> {
    let mut tools: HashMap<String, Arc<Tool>> = HashMap::new();
    let mut counts = BatchCounts::default();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let report = match serde_json::from_str::<BatchLine>(&line) {
            Ok(b) => {
                let schema = b.schema.as_ref().or(default_schema);
                let key = schema.map(Value::to_string).unwrap_or_default();
                let tool = match tools.get(&key) {
                    Some(t) => Ok(t.clone()),
                    None => tool_for_schema(schema).inspect(|t| {
                        tools.insert(key, t.clone());
                    }),
                };
                match tool {
                    Ok(tool) => repair_report(&b.args, &tool, mode, rules),
                    Err(e) => json!({"line": i + 1, "error": e}),
                }
            }
            Err(e) => json!({"line": i + 1, "error": format!("expected {{\"args\": \"...\", \"schema\": {{...}}}}: {e}")}),
        };
        match report.get("outcome").and_then(Value::as_str) {
            Some("valid") => counts.valid += 1,
            Some("repaired") => counts.repaired += 1,
            Some(_) => counts.invalid += 1,
            None => counts.bad_lines += 1,
        }
        writeln!(output, "{report}")?;
    }
    Ok(counts)
}

/// Per-call timing of a batch, measured in-process (start-up and I/O excluded).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BatchTiming {
    pub inputs: usize,
    pub rounds: usize,
    /// Mean µs per call of the whole local pipeline (resolve, parse, validate, local repair).
    pub pipeline_mean_us: f64,
    /// Mean µs per call of parsing alone (strict, then lenient where strict fails).
    pub parse_mean_us: f64,
}

/// How long a timed batch runs untimed first.
const WARM_UP: std::time::Duration = std::time::Duration::from_secs(1);

/// Times every line of a batch `rounds` times through the pipeline and
/// through parsing alone, each after [`WARM_UP`]; each figure is the
/// fastest round's mean.
pub fn time_batch(input: impl BufRead, default_schema: Option<&Value>, rules: &RepairRules, rounds: usize) -> Result<BatchTiming, String> {
    let mut calls = Vec::new();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let b: BatchLine = serde_json::from_str(&line).map_err(|e| format!("line {}: {e}", i + 1))?;
        let tool = tool_for_schema(b.schema.as_ref().or(default_schema)).map_err(|e| format!("line {}: {e}", i + 1))?;
        calls.push((ToolCall { id: "call".into(), name: TOOL_NAME.into(), arguments: b.args }, tool));
    }
    if calls.is_empty() {
        return Err("no lines to time".into());
    }
    crate::pipeline::calibrate_clock();
    let options = PipelineOptions { repair: RepairMode::Local, rules };
    type Timed = (ToolCall, Arc<Tool>);
    let fastest_mean = |f: &dyn Fn(&Timed)| {
        // Untimed warm-up, as the Python and JS timers do: every side is
        // measured warm, with caches and branch predictors settled.
        let until = std::time::Instant::now() + WARM_UP;
        while std::time::Instant::now() < until {
            calls.iter().for_each(f);
        }
        (0..rounds.max(1))
            .map(|_| {
                let start = std::time::Instant::now();
                calls.iter().for_each(f);
                start.elapsed().as_secs_f64() * 1e6 / calls.len() as f64
            })
            .fold(f64::INFINITY, f64::min)
    };
    let pipeline_mean_us = fastest_mean(&|(call, tool)| {
        std::hint::black_box(check_call(call, std::slice::from_ref(tool), options));
    });
    let parse_mean_us = fastest_mean(&|(call, _)| {
        let parsed = crate::pipeline::parse::parse_strict(&call.arguments)
            .ok()
            .or_else(|| crate::pipeline::lenient::parse_lenient(&call.arguments).ok().map(|(v, _)| v));
        std::hint::black_box(parsed);
    });
    Ok(BatchTiming { inputs: calls.len(), rounds: rounds.max(1), pipeline_mean_us, parse_mean_us })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Value {
        json!({"type": "object", "additionalProperties": false,
            "properties": {"command": {"type": "string"}, "is_background": {"type": "boolean"}},
            "required": ["command", "is_background"]})
    }

    #[test]
    fn report_shape() {
        let tool = tool_for_schema(Some(&schema())).unwrap();
        let rules = RepairRules::default();
        let r = repair_report(r#"{"command": "ls", "is_background": "false",}"#, &tool, RepairMode::Local, &rules);
        assert_eq!(r["outcome"], "repaired");
        assert_eq!(r["args"], json!({"command": "ls", "is_background": false}));
        assert!(r["fixes"].as_array().unwrap().len() >= 2);
        let r = repair_report(r#"{"command": "ls"}"#, &tool, RepairMode::Local, &rules);
        assert_eq!(r["outcome"], "invalid");
        assert_eq!(r["errors"][0]["kind"], "missing_required");
        let any = tool_for_schema(None).unwrap();
        assert_eq!(repair_report("", &any, RepairMode::Local, &rules)["outcome"], "valid");
    }

    #[test]
    fn batch_reports_every_line() {
        let input = format!(
            "{}\n\n{}\nnot json\n",
            json!({"args": "{\"command\": \"ls\", \"is_background\": false}"}),
            json!({"args": "{'a': True}", "schema": {"type": "object"}})
        );
        let mut out = Vec::new();
        let counts = run_batch(input.as_bytes(), &mut out, Some(&schema()), RepairMode::Local, &RepairRules::default()).unwrap();
        assert_eq!(counts, BatchCounts { valid: 1, repaired: 1, invalid: 0, bad_lines: 1 });
        let lines: Vec<Value> = String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[1]["args"], json!({"a": true}));
        assert_eq!(lines[2]["line"], 4);
    }

    #[test]
    fn timing_covers_every_line() {
        let input = format!("{}\n{}\n", json!({"args": "{\"a\": 1}"}), json!({"args": "{a: 1,}"}));
        let t = time_batch(input.as_bytes(), None, &RepairRules::default(), 3).unwrap();
        assert_eq!((t.inputs, t.rounds), (2, 3));
        assert!(t.pipeline_mean_us > 0.0 && t.parse_mean_us > 0.0);
        assert!(time_batch("".as_bytes(), None, &RepairRules::default(), 1).is_err());
    }
}
