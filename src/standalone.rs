//! The pipeline on single calls, outside any run: what `calltape repair`
//! prints for people debugging a call, and its batch mode for benchmarks.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::chat::ToolCall;
use crate::core::modes::RepairMode;
use crate::core::tools::ToolSpec;
use crate::pipeline::tool::{compile_tool, Tool, ToolError};
use crate::pipeline::{check_call, CallOutcome, PipelineOptions, RepairRules};

/// The name given to the tool whose schema is checked.
const TOOL_NAME: &str = "tool";

/// A tool for a bare parameters schema; without one, any JSON value is
/// accepted (only the syntax is repaired).
pub fn tool_for_schema(schema: Option<&Value>) -> Result<Arc<Tool>, ToolError> {
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
        CallOutcome::Truncated => "truncated",
    };
    json!({
        "outcome": outcome,
        "args": v.args,
        "fixes": v.fixes.as_slice(),
        "errors": if v.outcome == CallOutcome::Invalid { v.issues.as_slice() } else { v.first_issues.as_slice() },
    })
}

/// A batch's tools, one per distinct schema: compiled once each, and
/// shared by the lines that give the same schema, as a run's calls share
/// their scenario's tools.
#[derive(Default)]
struct ToolCache {
    by_schema: HashMap<String, Arc<Tool>>,
}

impl ToolCache {
    fn get(&mut self, schema: Option<&Value>) -> Result<Arc<Tool>, ToolError> {
        let key = schema.map(Value::to_string).unwrap_or_default();
        if let Some(tool) = self.by_schema.get(&key) {
            return Ok(tool.clone());
        }
        let tool = tool_for_schema(schema)?;
        self.by_schema.insert(key, tool.clone());
        Ok(tool)
    }
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
    let mut tools = ToolCache::default();
    let mut counts = BatchCounts::default();
    for (i, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let report = match serde_json::from_str::<BatchLine>(&line) {
            Ok(b) => match tools.get(b.schema.as_ref().or(default_schema)) {
                Ok(tool) => repair_report(&b.args, &tool, mode, rules),
                Err(e) => json!({"line": i + 1, "error": e.to_string()}),
            },
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
    /// Mean µs per call of what the pipeline asks of `serde_json` and
    /// `jsonschema` alone: the strict attempt where the pipeline makes it,
    /// checking the arguments as first read, collecting the validator's
    /// errors (kinds and paths, no messages) where they are invalid, and
    /// checking the repaired arguments again. A floor under the pipeline
    /// figure for any repair built on these two libraries.
    pub libraries_mean_us: f64,
}

/// Why a batch could not be timed; the line, where there is one, is 1-based.
#[derive(Debug, thiserror::Error)]
pub enum TimingError {
    /// The input could not be read.
    #[error("{source}")]
    Read {
        #[source]
        source: std::io::Error,
    },
    /// A line is not a `{"args": …, "schema": …}` object.
    #[error("line {line}: {source}")]
    Line {
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    /// A line's schema (or the default one) does not compile.
    #[error("line {line}: {source}")]
    Schema {
        line: usize,
        #[source]
        source: ToolError,
    },
    /// Nothing but blank lines: there is no call to time.
    #[error("no lines to time")]
    Empty,
}

/// How long a timed batch runs untimed first.
const WARM_UP: std::time::Duration = std::time::Duration::from_secs(1);

/// Times every line of a batch `rounds` times through the pipeline,
/// through parsing alone and through the libraries' share of the pipeline,
/// each after [`WARM_UP`]; each figure is the fastest round's mean.
pub fn time_batch(
    input: impl BufRead,
    default_schema: Option<&Value>,
    rules: &RepairRules,
    rounds: usize,
) -> Result<BatchTiming, TimingError> {
    let mut calls = Vec::new();
    let mut tools = ToolCache::default();
    for (i, line) in input.lines().enumerate() {
        let line = line.map_err(|source| TimingError::Read { source })?;
        if line.trim().is_empty() {
            continue;
        }
        let b: BatchLine = serde_json::from_str(&line).map_err(|source| TimingError::Line { line: i + 1, source })?;
        let tool = tools.get(b.schema.as_ref().or(default_schema)).map_err(|source| TimingError::Schema { line: i + 1, source })?;
        calls.push((ToolCall { id: "call".into(), name: TOOL_NAME.into(), arguments: b.args }, tool));
    }
    if calls.is_empty() {
        return Err(TimingError::Empty);
    }
    crate::pipeline::calibrate_clock();
    let options = PipelineOptions { repair: RepairMode::Local, rules };
    // Each result is kept from being optimised away by showing the
    // optimiser where it lies (`black_box(&result)`), then dropped: passed
    // by value, the 424-byte verdict was copied once more for the timing
    // alone, a copy no caller makes. `repair_peers` times its peers alike.
    let pipeline_mean_us = fastest_mean(
        &calls,
        |(call, tool)| {
            let verdict = check_call(call, std::slice::from_ref(tool), options);
            std::hint::black_box(&verdict);
        },
        rounds,
    );
    let parse_mean_us = fastest_mean(
        &calls,
        |(call, _)| {
            let args = read_arguments(&call.arguments);
            std::hint::black_box(&args);
        },
        rounds,
    );
    let library_work: Vec<LibraryWork> = calls.iter().map(|(call, tool)| LibraryWork::of(call, tool, options)).collect();
    let libraries_mean_us = fastest_mean(&library_work, LibraryWork::run, rounds);
    Ok(BatchTiming { inputs: calls.len(), rounds: rounds.max(1), pipeline_mean_us, parse_mean_us, libraries_mean_us })
}

/// The arguments as first read: strictly, else leniently.
fn read_arguments(text: &str) -> Option<Value> {
    crate::pipeline::parse::parse_strict(text).ok().or_else(|| crate::pipeline::lenient::parse_lenient(text).ok().map(|(v, _)| v))
}

/// The fastest round's mean µs per item of `f` over `items`, after
/// [`WARM_UP`] untimed, as the Python and JS timers do: every side is
/// measured warm, with caches and branch predictors settled.
fn fastest_mean<T>(items: &[T], f: impl Fn(&T), rounds: usize) -> f64 {
    let until = std::time::Instant::now() + WARM_UP;
    while std::time::Instant::now() < until {
        items.iter().for_each(&f);
    }
    (0..rounds.max(1))
        .map(|_| {
            let start = std::time::Instant::now();
            items.iter().for_each(&f);
            start.elapsed().as_secs_f64() * 1e6 / items.len() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// One call's share of the library floor (see [`BatchTiming::libraries_mean_us`]),
/// with its arguments read and repaired beforehand, untimed.
struct LibraryWork<'a> {
    call: &'a ToolCall,
    tool: &'a Tool,
    /// Whether the pipeline tries strict JSON (the text's shape does not rule it out).
    strict_attempt: bool,
    /// The arguments as first read, when they could be.
    first: Option<Value>,
    /// The arguments after local repair, when they differ from the first.
    repaired: Option<Value>,
}

impl<'a> LibraryWork<'a> {
    fn of(call: &'a ToolCall, tool: &'a Arc<Tool>, options: PipelineOptions<'_>) -> LibraryWork<'a> {
        let first = read_arguments(&call.arguments);
        let verdict = check_call(call, std::slice::from_ref(tool), options);
        let repaired = verdict.args.filter(|args| Some(args) != first.as_ref());
        let strict_attempt = crate::pipeline::parse::strict_ruled_out(&call.arguments).is_none();
        LibraryWork { call, tool, strict_attempt, first, repaired }
    }

    fn run(&self) {
        if self.strict_attempt {
            std::hint::black_box(crate::pipeline::parse::parse_strict(&self.call.arguments).is_ok());
        }
        let Some(first) = &self.first else { return };
        let validator = &self.tool.validator;
        if !validator.is_valid(first) {
            std::hint::black_box(validator.iter_errors(first).map(|e| e.instance_path().as_str().len()).sum::<usize>());
        }
        if let Some(repaired) = &self.repaired {
            std::hint::black_box(validator.is_valid(repaired));
        }
    }
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
    fn the_library_floor_does_what_the_pipeline_asks_of_the_libraries() {
        let tool = tool_for_schema(Some(&schema())).unwrap();
        let rules = RepairRules::default();
        let options = PipelineOptions { repair: RepairMode::Local, rules: &rules };
        let call = |args: &str| ToolCall { id: "call".into(), name: TOOL_NAME.into(), arguments: args.into() };

        let coerced = call(r#"{"command": "ls", "is_background": "false"}"#);
        let work = LibraryWork::of(&coerced, &tool, options);
        assert!(work.strict_attempt);
        assert_eq!(work.first, Some(json!({"command": "ls", "is_background": "false"})));
        assert_eq!(work.repaired, Some(json!({"command": "ls", "is_background": false})));

        // Read leniently into arguments that are valid as they stand: no
        // strict attempt (the shape rules it out), nothing to check again.
        let quoted = call("{'command': 'ls', 'is_background': False}");
        let work = LibraryWork::of(&quoted, &tool, options);
        assert!(!work.strict_attempt);
        assert_eq!(work.first, Some(json!({"command": "ls", "is_background": false})));
        assert_eq!(work.repaired, None);

        // Empty arguments are `{}`, which repair cannot complete: checked
        // once, its errors collected, nothing repaired to check again.
        let empty = call("");
        let work = LibraryWork::of(&empty, &tool, options);
        assert_eq!((work.first, work.repaired), (Some(json!({})), None));
    }

    #[test]
    fn timing_covers_every_line() {
        let input = format!("{}\n{}\n", json!({"args": "{\"a\": 1}"}), json!({"args": "{a: 1,}"}));
        let t = time_batch(input.as_bytes(), None, &RepairRules::default(), 3).unwrap();
        assert_eq!((t.inputs, t.rounds), (2, 3));
        assert!(t.pipeline_mean_us > 0.0 && t.parse_mean_us > 0.0 && t.libraries_mean_us > 0.0);
        assert!(time_batch("".as_bytes(), None, &RepairRules::default(), 1).is_err());
    }

    #[test]
    fn timing_errors_name_the_line_and_keep_their_source() {
        let rules = RepairRules::default();
        let e = time_batch("\n".as_bytes(), None, &rules, 1).unwrap_err();
        assert_eq!(e.to_string(), "no lines to time");
        let e = time_batch("\n{\"args\": 1}\n".as_bytes(), None, &rules, 1).unwrap_err();
        let source = std::error::Error::source(&e).expect("the serde_json error is kept");
        assert_eq!(e.to_string(), format!("line 2: {source}"));
        let e = time_batch(json!({"args": "{}", "schema": []}).to_string().as_bytes(), None, &rules, 1).unwrap_err();
        assert_eq!(e.to_string(), "line 1: tool \"tool\": parameters must be a JSON Schema object");
        assert!(std::error::Error::source(&e).is_some());
    }
}
