//! The tool-call pipeline: every call from every model goes through the same
//! stages — resolve the tool, parse the arguments, validate them, repair —
//! and comes out valid, repaired or invalid, with what each stage found and
//! how long it took. Stages are plain synchronous functions; approval and
//! scripted execution follow in the agent loop.

pub mod approval;
pub mod execute;
pub mod parse;
pub mod resolve;
pub mod validate;

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chat::ToolCall;
use crate::scenario::Tool;
pub use resolve::NameMatch;
pub use validate::{CallIssue, InvalidKind};

/// Tool results that report an invalid call start with this, so a model
/// (and the simulated ones) can tell it apart from a tool's own output.
pub const INVALID_CALL_PREFIX: &str = "invalid tool call";

/// What became of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOutcome {
    /// Right the first time.
    Valid,
    /// Wrong, and fixed by the pipeline.
    Repaired,
    /// Wrong, and not fixed: it is not executed.
    Invalid,
}

/// Microseconds spent in each stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTimings {
    pub resolve_us: f64,
    pub parse_us: f64,
    pub validate_us: f64,
}

/// The pipeline's verdict on one call.
#[derive(Debug, Clone)]
pub struct CallVerdict {
    /// The tool the call resolved to.
    pub tool: Option<Arc<Tool>>,
    pub name_match: NameMatch,
    /// The arguments as they would run, when they could be read.
    pub args: Option<Value>,
    pub outcome: CallOutcome,
    /// What was wrong with the call as the model sent it.
    pub first_issues: Vec<CallIssue>,
    /// What is still wrong (empty unless the outcome is invalid).
    pub issues: Vec<CallIssue>,
    /// Fixes applied, in order.
    pub fixes: Vec<String>,
    pub timings: StageTimings,
}

impl CallVerdict {
    /// The distinct kinds of what was wrong before repair.
    pub fn invalid_kinds(&self) -> Vec<InvalidKind> {
        let mut kinds: Vec<InvalidKind> = self.first_issues.iter().map(|i| i.kind).collect();
        kinds.sort();
        kinds.dedup();
        kinds
    }

    /// The tool result that tells the model what was wrong.
    pub fn error_message(&self, call: &ToolCall, tools: &[Arc<Tool>]) -> String {
        let detail = if self.tool.is_none() {
            let names: Vec<&str> = tools.iter().map(|t| t.spec.name.as_str()).collect();
            format!("unknown tool `{}`; available tools: {}", call.name, names.join(", "))
        } else {
            let problems: Vec<String> =
                self.issues.iter().map(|i| if i.path.is_empty() { i.message.clone() } else { format!("{}: {}", i.path, i.message) }).collect();
            format!("arguments of `{}` are invalid: {}", call.name, problems.join("; "))
        };
        format!("{INVALID_CALL_PREFIX}: {detail}. Fix the call and try again.")
    }
}

fn micros(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e6
}

/// Runs one call through resolve, parse and validate.
pub fn check_call(call: &ToolCall, tools: &[Arc<Tool>]) -> CallVerdict {
    let mut timings = StageTimings::default();
    let mut fixes = Vec::new();
    let mut first_issues = Vec::new();

    let t = Instant::now();
    let (tool, name_match) = resolve::resolve_tool(&call.name, tools, resolve::NameRepair::On);
    timings.resolve_us = micros(t);
    let tool = tool.cloned();
    match (&tool, name_match) {
        (None, _) => {
            let issue = CallIssue { kind: InvalidKind::UnknownTool, path: String::new(), message: format!("unknown tool `{}`", call.name) };
            return CallVerdict {
                tool: None,
                name_match,
                args: None,
                outcome: CallOutcome::Invalid,
                first_issues: vec![issue.clone()],
                issues: vec![issue],
                fixes,
                timings,
            };
        }
        (Some(t), NameMatch::Normalised | NameMatch::Near) => {
            first_issues.push(CallIssue {
                kind: InvalidKind::UnknownTool,
                path: String::new(),
                message: format!("tool name `{}` is not exact", call.name),
            });
            fixes.push(format!("tool name `{}` → `{}`", call.name, t.spec.name));
        }
        _ => {}
    }
    let tool = tool.expect("resolved above");

    let t = Instant::now();
    let parsed = parse::parse_strict(&call.arguments);
    timings.parse_us = micros(t);
    let args = match parsed {
        Ok(v) => v,
        Err(e) => {
            let issue = CallIssue { kind: InvalidKind::ParseError, path: String::new(), message: format!("not valid JSON: {}", e.message) };
            first_issues.push(issue.clone());
            return CallVerdict {
                tool: Some(tool),
                name_match,
                args: None,
                outcome: CallOutcome::Invalid,
                first_issues,
                issues: vec![issue],
                fixes,
                timings,
            };
        }
    };

    let t = Instant::now();
    let issues = validate::validate_args(&tool.validator, &args);
    timings.validate_us = micros(t);
    first_issues.extend(issues.iter().cloned());
    let outcome = if !issues.is_empty() {
        CallOutcome::Invalid
    } else if first_issues.is_empty() {
        CallOutcome::Valid
    } else {
        CallOutcome::Repaired
    };
    CallVerdict { tool: Some(tool), name_match, args: Some(args), outcome, first_issues, issues, fixes, timings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{compile_tool, ToolSpec};
    use serde_json::json;

    fn tools() -> Vec<Arc<Tool>> {
        let spec = ToolSpec {
            name: "read_file".into(),
            description: String::new(),
            parameters: json!({"type": "object", "additionalProperties": false,
                "properties": {"target_file": {"type": "string"}, "should_read_entire_file": {"type": "boolean"}},
                "required": ["target_file", "should_read_entire_file"]}),
            sensitive: false,
        };
        vec![Arc::new(compile_tool(spec).unwrap())]
    }

    fn call(name: &str, args: &str) -> ToolCall {
        ToolCall { id: "c1".into(), name: name.into(), arguments: args.into() }
    }

    #[test]
    fn valid_call() {
        let v = check_call(&call("read_file", r#"{"target_file":"a","should_read_entire_file":true}"#), &tools());
        assert_eq!(v.outcome, CallOutcome::Valid);
        assert!(v.first_issues.is_empty());
    }

    #[test]
    fn normalised_name_is_a_repair() {
        let v = check_call(&call("ReadFile", r#"{"target_file":"a","should_read_entire_file":true}"#), &tools());
        assert_eq!(v.outcome, CallOutcome::Repaired);
        assert_eq!(v.invalid_kinds(), vec![InvalidKind::UnknownTool]);
        assert_eq!(v.fixes, vec!["tool name `ReadFile` → `read_file`"]);
    }

    #[test]
    fn invalid_calls_say_why() {
        let ts = tools();
        let v = check_call(&call("write_file", "{}"), &ts);
        assert_eq!(v.invalid_kinds(), vec![InvalidKind::UnknownTool]);
        let msg = v.error_message(&call("write_file", "{}"), &ts);
        assert!(msg.starts_with("invalid tool call: unknown tool `write_file`; available tools: read_file"), "{msg}");

        let v = check_call(&call("read_file", r#"{"target_file":"a",}"#), &ts);
        assert_eq!(v.invalid_kinds(), vec![InvalidKind::ParseError]);

        let v = check_call(&call("read_file", r#"{"file_path":"a"}"#), &ts);
        assert_eq!(v.outcome, CallOutcome::Invalid);
        assert_eq!(v.invalid_kinds(), vec![InvalidKind::MissingRequired, InvalidKind::AdditionalProperty]);
    }
}
