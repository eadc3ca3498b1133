//! The tool-call pipeline: every call from every model goes through the same
//! stages — resolve the tool, parse the arguments, validate them, repair —
//! and comes out valid, repaired or invalid, with what each stage found and
//! how long it took. Stages are plain synchronous functions; approval and
//! scripted execution follow in the agent loop.

pub mod approval;
pub mod arg_order;
pub mod execute;
pub mod lenient;
pub mod model_repair;
pub mod parse;
pub mod repair;
pub mod resolve;
pub mod text_calls;
pub mod tool;
pub mod truncation;
pub mod validate;
pub mod workspace_executor;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use smallvec::SmallVec;

use crate::chat::ToolCall;
use crate::core::modes::RepairMode;
use crate::pipeline::tool::Tool;
use crate::quote::quoted;
pub use repair::RepairRules;
pub use resolve::NameMatch;
pub use truncation::{cut_call, mark_truncated, turn_cut, Cut};
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
    /// Cut off while the model wrote it (see `truncation`), and closed by
    /// local repair so the turn can go on: it runs and is judged as closed,
    /// but it is not the call the model meant, so it is never counted as fixed.
    Truncated,
}

/// Which part of a call a fix touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixStage {
    /// The tool name.
    Name,
    /// The argument text's JSON syntax.
    Syntax,
    /// The arguments against the schema.
    Schema,
    /// A model rewrote the call.
    Model,
}

/// One fix applied to a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    pub stage: FixStage,
    /// What kind of fix, in the stage's own terms (`trailing_comma`, `alias_renamed`, ...).
    pub kind: Cow<'static, str>,
    /// JSON Pointer to what was fixed (`""` for the whole call).
    pub path: String,
    pub detail: String,
}

/// The snake_case name of a fix kind, the same serde gives it (a test
/// checks every variant), kept static: no allocation per fix.
fn kind_name(kind: impl Into<&'static str>) -> Cow<'static, str> {
    Cow::Borrowed(kind.into())
}

/// Microseconds spent in each stage. The clock is read once per stage
/// boundary and no more: on a call of a few bytes each read costs about a
/// twentieth of the call, so work that only ever runs as part of a repair
/// is timed as repair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTimings {
    /// Name matching beyond an exact name (0 for exact names, which are not timed).
    pub resolve_us: f64,
    /// The strict JSON parse (0 when the text's shape or the syntax scan
    /// ruled JSON out without one: that scan is the start of repair).
    pub parse_us: f64,
    /// Validating the arguments as the model sent them, when they were JSON
    /// (0 for arguments read leniently: their validation is repair's).
    pub validate_us: f64,
    /// Repair: lenient reading and validating what it read, schema repair
    /// and validating again.
    pub repair_us: f64,
}

/// How the pipeline runs: how much repair, with which per-tool rules.
#[derive(Debug, Clone, Copy)]
pub struct PipelineOptions<'a> {
    pub repair: RepairMode,
    pub rules: &'a RepairRules,
}

/// A verdict's issues: as a rule none or one (a parse error, a wrong
/// type), kept inline; an allocation per list was a twentieth of a small call.
pub type Issues = SmallVec<[CallIssue; 1]>;

/// A verdict's fixes: as a rule one or two, kept inline.
pub type Fixes = SmallVec<[Fix; 2]>;

/// The pipeline's verdict on one call, borrowing the tool it resolved to
/// from the tools it was given (a reference count taken and dropped per
/// call cost a twentieth of a small one).
#[derive(Debug, Clone)]
pub struct CallVerdict<'t> {
    /// The tool the call resolved to.
    pub tool: Option<&'t Arc<Tool>>,
    pub name_match: NameMatch,
    /// The tool a misspelled name most likely meant, for reporting, even when
    /// repair is off and the call was not resolved to it.
    pub intended_tool: Option<String>,
    /// The arguments as they would run, when they could be read.
    pub args: Option<Value>,
    pub outcome: CallOutcome,
    /// What was wrong with the call as the model sent it.
    pub first_issues: Issues,
    /// What is still wrong (empty unless the outcome is invalid).
    pub issues: Issues,
    /// Fixes applied, in order.
    pub fixes: Fixes,
    pub timings: StageTimings,
}

impl CallVerdict<'_> {
    /// The tool name reports file the call under: resolved, else intended, else as written.
    pub fn report_name(&self, call: &ToolCall) -> String {
        match (&self.tool, &self.intended_tool) {
            (Some(t), _) => t.spec.name.clone(),
            (None, Some(t)) => t.clone(),
            (None, None) => call.name.clone(),
        }
    }

    /// The distinct kinds of what was wrong before repair.
    pub fn invalid_kinds(&self) -> Vec<InvalidKind> {
        distinct_kinds(&self.first_issues)
    }

    /// The distinct kinds of what is still wrong.
    pub fn remaining_kinds(&self) -> Vec<InvalidKind> {
        distinct_kinds(&self.issues)
    }

    /// Microseconds of in-process repair work (name matching included when the name needed it).
    pub fn local_repair_us(&self) -> f64 {
        let name = if self.name_match == NameMatch::Exact { 0.0 } else { self.timings.resolve_us };
        self.timings.repair_us + name
    }

    /// The tool result that tells the model what was wrong.
    pub fn error_message(&self, call: &ToolCall, tools: &[Arc<Tool>]) -> String {
        let detail = if self.tool.is_none() {
            let names: Vec<&str> = tools.iter().map(|t| t.spec.name.as_str()).collect();
            format!("unknown tool `{}`; available tools: {}", quoted(&call.name), names.join(", "))
        } else {
            let problems: Vec<String> = self
                .issues
                .iter()
                .map(|i| if i.path.is_empty() { i.message.clone() } else { format!("{}: {}", i.path, i.message) })
                .collect();
            format!("arguments of `{}` are invalid: {}", quoted(&call.name), problems.join("; "))
        };
        format!("{INVALID_CALL_PREFIX}: {detail}. Fix the call and try again.")
    }
}

fn distinct_kinds(issues: &[CallIssue]) -> Vec<InvalidKind> {
    let mut kinds: Vec<InvalidKind> = issues.iter().map(|i| i.kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// The pipeline's clock: the CPU's time-stamp counter where it is invariant
/// (a lap costs about 14 ns here, against 52 ns for `Instant::now` and a
/// subtraction: a tenth of a broken call's cost), calibrated once against
/// the OS clock (about 0.6 ms); the OS clock itself elsewhere.
fn clock() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

/// Calibrates the pipeline's clock now (the first call would otherwise),
/// so that a benchmark or instruction count of the pipeline leaves it out.
pub fn calibrate_clock() {
    clock();
}

/// A stopwatch read once per stage boundary.
struct Lap {
    clock: &'static quanta::Clock,
    last: u64,
}

impl Lap {
    fn start() -> Lap {
        let clock = clock();
        Lap { clock, last: clock.raw() }
    }

    /// Microseconds since the last lap.
    fn lap(&mut self) -> f64 {
        let now = self.clock.raw();
        let ns = self.clock.delta_as_nanos(self.last, now);
        self.last = now;
        ns as f64 / 1e3
    }
}

/// The issue message for arguments serde_json rejected, with its reason.
fn strict_error_message(e: &serde_json::Error) -> String {
    format!("arguments are not valid JSON: {e}")
}

/// Where strict reading of the arguments stopped.
enum NotJson {
    /// serde_json's error.
    Strict(serde_json::Error),
    /// The text's shape or the syntax scan ruled JSON out, without building
    /// a value: serde_json's error index (see `parse::strict_ruled_out`).
    RuledOut(usize),
}

impl NotJson {
    /// The error serde_json gives (it reads the text when it was ruled out).
    fn into_strict_error(self, text: &str) -> Option<serde_json::Error> {
        match self {
            NotJson::Strict(e) => Some(e),
            NotJson::RuledOut(_) => parse::parse_strict(text).err(),
        }
    }
}

/// The issue message for arguments that lenient reading could read: where
/// they are not JSON (where strict reading stopped, or the byte their shape
/// rules out) and what lenient reading fixed (the fix kinds, named as in the
/// fixes list), written by hand (formatting serde's error was a visible
/// share of a broken call's cost).
fn read_leniently_message(text: &str, not_json: &NotJson, fixes: &[lenient::LenientFix]) -> String {
    let (line, column) = match not_json {
        NotJson::Strict(e) => (e.line(), e.column()),
        NotJson::RuledOut(index) => parse::serde_position(text, *index),
    };
    let mut message = String::with_capacity(96);
    message.push_str("arguments are not valid JSON at line ");
    push_number(&mut message, line);
    message.push_str(" column ");
    push_number(&mut message, column);
    for (n, fix) in fixes.iter().enumerate() {
        message.push_str(if n == 0 { " (read leniently: " } else { ", " });
        message.push_str(fix.into());
    }
    if !fixes.is_empty() {
        message.push(')');
    }
    message
}

/// Writes `n` in decimal; a single digit, the usual line and a common
/// column, as one byte, inline (`itoa` went through a `memcpy` call, and
/// this function out of line cost as much as the call it saved).
#[inline(always)]
fn push_number(to: &mut String, n: usize) {
    if n < 10 {
        to.push(char::from(b'0' + n as u8));
    } else {
        push_number_itoa(to, n);
    }
}

#[inline(never)]
fn push_number_itoa(to: &mut String, n: usize) {
    to.push_str(itoa::Buffer::new().format(n));
}

/// Appends the validator's issues to a verdict's list; an empty one takes
/// their buffer as it is.
fn append(to: &mut Issues, items: Vec<CallIssue>) {
    if to.is_empty() {
        *to = Issues::from_vec(items);
    } else {
        to.extend(items);
    }
}

fn issue(kind: InvalidKind, message: String) -> CallIssue {
    CallIssue { kind, path: String::new(), message }
}

/// Runs one call through the local stages: resolve the tool, parse the
/// arguments (strictly, then leniently), validate, and repair against the
/// schema — as far as `options.repair` allows.
///
/// Inline and small, so that the verdict can be made in the caller's frame
/// and filled there. Built in this function's own frame and returned, its
/// 424 bytes were copied out on every call and read back before the writes
/// that made them had settled (a store-forwarding stall): 2–3% of a corpus
/// call.
#[inline]
pub fn check_call<'t>(call: &ToolCall, tools: &'t [Arc<Tool>], options: PipelineOptions<'_>) -> CallVerdict<'t> {
    let mut v = CallVerdict {
        tool: None,
        name_match: NameMatch::Unknown,
        intended_tool: None,
        args: None,
        outcome: CallOutcome::Invalid,
        first_issues: Issues::new(),
        issues: Issues::new(),
        fixes: Fixes::new(),
        timings: StageTimings::default(),
    };
    check_call_into(&mut v, call, tools, options);
    v
}

/// The stages of [`check_call`], filling the empty verdict `v`.
#[inline(never)]
fn check_call_into<'t>(v: &mut CallVerdict<'t>, call: &ToolCall, tools: &'t [Arc<Tool>], options: PipelineOptions<'_>) {
    let repairing = options.repair != RepairMode::Off;

    // An exact name is one string comparison: not worth a clock read on the hot path.
    let mut clock = Lap::start();
    let (tool, name_match) = match tools.iter().find(|t| t.spec.name == call.name) {
        Some(t) => (Some(t), NameMatch::Exact),
        None => {
            let name_repair = if repairing { resolve::NameRepair::On } else { resolve::NameRepair::Off };
            let resolved = resolve::resolve_tool(&call.name, tools, name_repair);
            v.timings.resolve_us = clock.lap();
            resolved
        }
    };
    v.name_match = name_match;
    let Some(tool) = tool else {
        unknown_tool(v, call, tools, repairing);
        return;
    };
    if name_match != NameMatch::Exact {
        inexact_name(v, call, tool);
    }
    v.tool = Some(tool);

    // Strict JSON first, unless the text's shape or a syntax scan already
    // rules it out: a failed serde attempt builds values up to the error
    // and then its error, which cost a tenth of a corpus call.
    // Text ruled out is timed as repair from here on: no strict parse was made.
    let parsed = match repairing.then(|| parse::strict_ruled_out(&call.arguments)).flatten() {
        Some(index) => Err(NotJson::RuledOut(index)),
        None => {
            let parsed = parse::parse_strict(&call.arguments).map_err(NotJson::Strict);
            v.timings.parse_us = clock.lap();
            parsed
        }
    };
    // Arguments read leniently are validated as part of their repair: one
    // clock read at the end covers lenient reading, validation and schema repair.
    let mut read_leniently = false;
    let args = match parsed {
        Ok(args) => args,
        Err(NotJson::Strict(e)) if !repairing => {
            let not_json = issue(InvalidKind::ParseError, strict_error_message(&e));
            v.first_issues.push(not_json.clone());
            v.issues.push(not_json);
            return;
        }
        Err(not_json) => {
            let lenient = lenient::parse_lenient(&call.arguments);
            match lenient {
                Ok((args, fixes)) => {
                    read_leniently = true;
                    v.first_issues.push(issue(InvalidKind::ParseError, read_leniently_message(&call.arguments, &not_json, &fixes)));
                    v.fixes.extend(fixes.iter().map(|f| Fix {
                        stage: FixStage::Syntax,
                        kind: kind_name(*f),
                        path: String::new(),
                        detail: String::new(),
                    }));
                    args
                }
                Err(e) => {
                    v.timings.repair_us = clock.lap();
                    unreadable(v, call, not_json, e);
                    return;
                }
            }
        }
    };

    let issues = validate::validate_args(&tool.validator, &args);
    if !read_leniently {
        v.timings.validate_us = clock.lap();
    }
    let schema_invalid = !issues.is_empty();
    let schema_issues_from = v.first_issues.len();
    if schema_invalid {
        append(&mut v.first_issues, issues);
    }
    let repairing_schema = schema_invalid && repairing;
    let args = if repairing_schema {
        let repaired = repair::repair_locally(tool, args, &v.first_issues[schema_issues_from..], options.rules);
        let schema_fixes =
            repaired.fixes.into_iter().map(|f| Fix { stage: FixStage::Schema, kind: kind_name(f.kind), path: f.path, detail: f.detail });
        v.fixes.extend(schema_fixes);
        v.issues = Issues::from_vec(repaired.remaining);
        repaired.args
    } else {
        if schema_invalid {
            v.issues = Issues::from(&v.first_issues[schema_issues_from..]);
        }
        args
    };
    if read_leniently || repairing_schema {
        v.timings.repair_us = clock.lap();
    }
    v.outcome = if !v.issues.is_empty() {
        CallOutcome::Invalid
    } else if v.first_issues.is_empty() {
        CallOutcome::Valid
    } else {
        CallOutcome::Repaired
    };
    v.args = Some(args);
}

// The paths below are rare: kept out of line, so that `check_call`'s
// usual path stays small.

/// A call whose tool could not be resolved.
#[cold]
#[inline(never)]
fn unknown_tool(v: &mut CallVerdict<'_>, call: &ToolCall, tools: &[Arc<Tool>], repairing: bool) {
    if !repairing {
        v.intended_tool = resolve::resolve_tool(&call.name, tools, resolve::NameRepair::On).0.map(|t| t.spec.name.clone());
    }
    let unknown = issue(InvalidKind::UnknownTool, format!("unknown tool `{}`", quoted(&call.name)));
    v.first_issues.push(unknown.clone());
    v.issues.push(unknown);
}

/// A call resolved to `tool` by a name that was not exact.
#[cold]
#[inline(never)]
fn inexact_name(v: &mut CallVerdict<'_>, call: &ToolCall, tool: &Tool) {
    v.first_issues.push(issue(InvalidKind::UnknownTool, format!("tool name `{}` is not exact", quoted(&call.name))));
    v.fixes.push(Fix {
        stage: FixStage::Name,
        kind: kind_name(v.name_match),
        path: String::new(),
        detail: format!("`{}` → `{}`", call.name, tool.spec.name),
    });
}

/// Arguments not read even leniently.
#[cold]
#[inline(never)]
fn unreadable(v: &mut CallVerdict<'_>, call: &ToolCall, not_json: NotJson, e: lenient::LenientError) {
    let strict = not_json.into_strict_error(&call.arguments);
    let message = strict.map_or_else(|| "arguments are not valid JSON".to_owned(), |e| strict_error_message(&e));
    v.first_issues.push(issue(InvalidKind::ParseError, message));
    v.issues.push(issue(InvalidKind::ParseError, format!("arguments are not valid JSON, even leniently: {e}")));
}

/// Marks a call that the model wrote as text in its answer (see
/// `text_calls`): that is an invalid call of its own kind, which repair
/// recovers by taking the call out of the text.
pub fn mark_written_as_text(v: &mut CallVerdict<'_>, repair: RepairMode) {
    let written = issue(InvalidKind::TextCall, "the call was written as text in the answer, not made as a tool call".into());
    v.first_issues.insert(0, written.clone());
    if repair == RepairMode::Off {
        v.issues.insert(0, written);
        v.outcome = CallOutcome::Invalid;
        return;
    }
    v.fixes.insert(
        0,
        Fix {
            stage: FixStage::Syntax,
            kind: "text_call_extracted".into(),
            path: String::new(),
            detail: "taken out of the answer's text".into(),
        },
    );
    if v.outcome == CallOutcome::Valid {
        v.outcome = CallOutcome::Repaired;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tools::ToolSpec;
    use crate::pipeline::tool::compile_tool;
    use serde_json::json;

    /// The tools, made once: a verdict borrows its tool from them.
    fn tools() -> &'static [Arc<Tool>] {
        static TOOLS: OnceLock<Vec<Arc<Tool>>> = OnceLock::new();
        TOOLS.get_or_init(make_tools)
    }

    fn make_tools() -> Vec<Arc<Tool>> {
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

    fn run(name: &str, args: &str, repair: RepairMode) -> CallVerdict<'static> {
        check_call(&call(name, args), tools(), PipelineOptions { repair, rules: &RepairRules::default() })
    }

    /// Fix kinds are named by strum (static) in the pipeline and by serde in
    /// events: the two must agree on every variant.
    #[test]
    fn fix_kind_names_are_serdes() {
        fn check<T: strum::IntoEnumIterator + Serialize + Into<&'static str>>() {
            for kind in T::iter() {
                let serde_name = serde_json::to_value(&kind).unwrap();
                assert_eq!(serde_name, json!(kind_name(kind)));
            }
        }
        check::<lenient::LenientFix>();
        check::<repair::LocalFixKind>();
        check::<NameMatch>();
    }

    #[test]
    fn valid_call() {
        let v = run("read_file", r#"{"target_file":"a","should_read_entire_file":true}"#, RepairMode::Full);
        assert_eq!(v.outcome, CallOutcome::Valid);
        assert!(v.first_issues.is_empty() && v.fixes.is_empty());
    }

    #[test]
    fn normalised_name_is_a_repair_unless_repair_is_off() {
        let args = r#"{"target_file":"a","should_read_entire_file":true}"#;
        let v = run("ReadFile", args, RepairMode::Local);
        assert_eq!(v.outcome, CallOutcome::Repaired);
        assert_eq!(v.invalid_kinds(), vec![InvalidKind::UnknownTool]);
        assert_eq!(
            (v.fixes[0].stage, &*v.fixes[0].kind, v.fixes[0].detail.as_str()),
            (FixStage::Name, "normalised", "`ReadFile` → `read_file`")
        );
        assert_eq!(run("ReadFile", args, RepairMode::Off).outcome, CallOutcome::Invalid);
    }

    #[test]
    fn syntax_and_schema_repairs_are_recorded() {
        let v = run("read_file", r#"{"file_path":"a","should_read_entire_file":"true",}"#, RepairMode::Local);
        assert_eq!(v.outcome, CallOutcome::Repaired, "{:?}", v.issues);
        assert_eq!(v.args, Some(json!({"target_file": "a", "should_read_entire_file": true})));
        assert_eq!(
            v.invalid_kinds(),
            vec![InvalidKind::ParseError, InvalidKind::MissingRequired, InvalidKind::WrongType, InvalidKind::AdditionalProperty]
        );
        let stages: Vec<FixStage> = v.fixes.iter().map(|f| f.stage).collect();
        assert_eq!(stages[0], FixStage::Syntax);
        assert!(stages[1..].iter().all(|s| *s == FixStage::Schema) && stages.len() >= 3, "{:?}", v.fixes);
        assert!(v.timings.repair_us > 0.0);
        let off = run("read_file", r#"{"file_path":"a","should_read_entire_file":"true",}"#, RepairMode::Off);
        assert_eq!(off.outcome, CallOutcome::Invalid);
        assert_eq!(off.remaining_kinds(), vec![InvalidKind::ParseError]);
    }

    #[test]
    fn invalid_calls_say_why() {
        let ts = tools();
        let v = run("write_file", "{}", RepairMode::Full);
        assert_eq!(v.invalid_kinds(), vec![InvalidKind::UnknownTool]);
        let msg = v.error_message(&call("write_file", "{}"), ts);
        assert!(msg.starts_with("invalid tool call: unknown tool `write_file`; available tools: read_file"), "{msg}");

        let v = run("read_file", r#"{"target_file":"a",}"#, RepairMode::Off);
        assert_eq!(v.invalid_kinds(), vec![InvalidKind::ParseError]);

        let v = run("read_file", r#"{"target_file": 7}"#, RepairMode::Full);
        assert_eq!(v.outcome, CallOutcome::Invalid);
        assert_eq!(v.remaining_kinds(), vec![InvalidKind::MissingRequired]);
    }
}
