//! The ways a simulated model gets a tool call wrong. Each fault turns a
//! correct call (tool name and arguments) into the text a sloppy model would
//! send, modelled on failures seen in real models' tool calls.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::core::rng::Rng;

/// One kind of mistake in a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// A required argument left out.
    OmitRequired,
    /// An argument of the wrong JSON type (`"5"` for 5, `"true"` for true).
    WrongType,
    /// A trailing comma in the arguments object.
    TrailingComma,
    /// Quotes inside a string value left unescaped.
    UnescapedQuote,
    /// A string value written without quotes.
    UnquotedValue,
    /// An argument the schema does not declare.
    ExtraProperty,
    /// An argument under another common name (`file_path` for `target_file`).
    AliasedParam,
    /// A required boolean left out.
    MissingRequiredBool,
    /// The tool's name misspelled.
    MisspelledTool,
    /// Output the server cannot parse as a call: llama.cpp answers HTTP 500
    /// and the answer is lost (what fitted local models do).
    ServerRejected,
}

impl FaultKind {
    /// Every fault kind.
    pub const ALL: [FaultKind; 10] = [
        FaultKind::OmitRequired,
        FaultKind::WrongType,
        FaultKind::TrailingComma,
        FaultKind::UnescapedQuote,
        FaultKind::UnquotedValue,
        FaultKind::ExtraProperty,
        FaultKind::AliasedParam,
        FaultKind::MissingRequiredBool,
        FaultKind::MisspelledTool,
        FaultKind::ServerRejected,
    ];
}

/// The name of an emitted call that stands for a server rejection: the
/// simulated model answers HTTP 500 instead of a body (see `SimModel::body`).
pub const SERVER_REJECTED: &str = "\u{0}server_rejected";

/// A call as the simulated model sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct EmittedCall {
    pub name: String,
    pub arguments: String,
}

/// Serialises a correct call.
pub fn correct_call(name: &str, args: &Map<String, Value>) -> EmittedCall {
    EmittedCall { name: name.to_string(), arguments: Value::Object(args.clone()).to_string() }
}

/// The call with one argument's value plausibly wrong but of the right type
/// (a path without its folder, a number off by one, a flipped boolean):
/// valid against the schema, wrong for the task — a mistake no repair fixes.
pub fn wrong_value(name: &str, args: &Map<String, Value>, rng: &mut Rng) -> Option<EmittedCall> {
    let keys: Vec<&String> =
        args.keys().filter(|k| !matches!(args[k.as_str()], Value::Null | Value::Array(_) | Value::Object(_))).collect();
    let k = *rng_pick(rng, &keys)?;
    let wrong = match &args[k.as_str()] {
        Value::String(s) => match s.split_once('/') {
            Some((_, rest)) if !rest.is_empty() => Value::String(rest.to_string()),
            _ => Value::String(format!("{s}s")),
        },
        Value::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i + 1),
            None => Value::from(n.as_f64().unwrap_or(0.0) * 2.0 + 1.0),
        },
        Value::Bool(b) => Value::Bool(!b),
        _ => return None,
    };
    let mut m = args.clone();
    m.insert(k.clone(), wrong);
    Some(correct_call(name, &m))
}

/// Other names models use for common parameters.
fn aliases_of(param: &str) -> &'static [&'static str] {
    match param {
        "target_file" => &["file_path", "path", "filePath", "filename"],
        "file_path" => &["path", "filePath", "file", "filename"],
        "command" => &["cmd", "shell_command", "commandLine"],
        "query" => &["search_query", "q", "pattern", "searchTerm"],
        "relative_workspace_path" => &["path", "directory", "dir"],
        "old_string" => &["old_str", "oldString", "search"],
        "new_string" => &["new_str", "newString", "replace"],
        "content" => &["contents", "text", "file_content"],
        "is_background" => &["isBackground", "background"],
        "should_read_entire_file" => &["shouldReadEntireFile", "read_entire_file"],
        "case_sensitive" => &["caseSensitive", "ignore_case"],
        "include_pattern" => &["includePattern", "glob", "include"],
        "timeout" => &["timeout_ms", "timeoutMs"],
        "description" => &["desc", "summary"],
        "replace_all" => &["replaceAll", "all"],
        "num_results" => &["numResults", "limit", "count"],
        _ => &[],
    }
}

/// A property name and how to make its value.
type ExtraProperty = (&'static str, fn() -> Value);

const EXTRA_PROPERTIES: [ExtraProperty; 5] = [
    ("verbose", || Value::Bool(true)),
    ("recursive", || Value::Bool(true)),
    ("encoding", || Value::String("utf-8".into())),
    ("reason", || Value::String("needed for the task".into())),
    ("max_results", || Value::from(50)),
];

/// Applies `fault` to a correct call; `None` where it does not apply to this
/// call (e.g. no required boolean to leave out).
pub fn apply(fault: FaultKind, name: &str, args: &Map<String, Value>, schema: &Value, rng: &mut Rng) -> Option<EmittedCall> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).filter(|k| args.contains_key(*k)).collect())
        .unwrap_or_default();
    let prop_type = |k: &str| schema.pointer(&format!("/properties/{k}/type")).and_then(Value::as_str);
    let keys: Vec<&String> = args.keys().collect();
    let object = |m: Map<String, Value>| Value::Object(m).to_string();
    match fault {
        FaultKind::ServerRejected => Some(EmittedCall { name: SERVER_REJECTED.into(), arguments: String::new() }),
        FaultKind::OmitRequired => {
            let k = *rng_pick(rng, &required)?;
            let mut m = args.clone();
            m.remove(k);
            Some(EmittedCall { name: name.into(), arguments: object(m) })
        }
        FaultKind::MissingRequiredBool => {
            let bools: Vec<&str> = required.iter().copied().filter(|k| prop_type(k) == Some("boolean")).collect();
            let k = *rng_pick(rng, &bools)?;
            let mut m = args.clone();
            m.remove(k);
            Some(EmittedCall { name: name.into(), arguments: object(m) })
        }
        FaultKind::WrongType => {
            let k = *rng_pick(rng, &keys)?;
            let wrong = match &args[k.as_str()] {
                Value::Number(n) => Value::String(n.to_string()),
                Value::Bool(b) => Value::String(b.to_string()),
                Value::String(s) => Value::Array(vec![Value::String(s.clone())]),
                Value::Array(items) => Value::String(
                    items.iter().map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())).collect::<Vec<_>>().join(","),
                ),
                Value::Object(_) | Value::Null => Value::String(args[k.as_str()].to_string()),
            };
            let mut m = args.clone();
            m.insert(k.clone(), wrong);
            Some(EmittedCall { name: name.into(), arguments: object(m) })
        }
        FaultKind::AliasedParam => {
            let aliasable: Vec<&&String> = keys.iter().filter(|k| !aliases_of(k).is_empty()).collect();
            let k = **rng_pick(rng, &aliasable)?;
            let alias = *rng.pick(aliases_of(k));
            let mut m = args.clone();
            let v = m.remove(k.as_str())?;
            m.insert(alias.to_string(), v);
            Some(EmittedCall { name: name.into(), arguments: object(m) })
        }
        FaultKind::ExtraProperty => {
            let declared = schema.get("properties").and_then(Value::as_object);
            let free: Vec<&ExtraProperty> = EXTRA_PROPERTIES.iter().filter(|(k, _)| declared.is_none_or(|d| !d.contains_key(*k))).collect();
            let (k, v) = rng_pick(rng, &free)?;
            let mut m = args.clone();
            m.insert(k.to_string(), v());
            Some(EmittedCall { name: name.into(), arguments: object(m) })
        }
        FaultKind::TrailingComma => {
            let text = object(args.clone());
            let body = text.strip_suffix('}')?;
            if args.is_empty() {
                return None;
            }
            Some(EmittedCall { name: name.into(), arguments: format!("{body},}}") })
        }
        FaultKind::UnescapedQuote => {
            let quoted: Vec<&&String> = keys.iter().filter(|k| args[k.as_str()].as_str().is_some_and(|s| s.contains('"'))).collect();
            let k = **rng_pick(rng, &quoted)?;
            let raw = args[k.as_str()].as_str()?;
            Some(EmittedCall { name: name.into(), arguments: write_with_raw(args, k, &format!("\"{raw}\"")) })
        }
        FaultKind::UnquotedValue => {
            let strings: Vec<&&String> =
                keys.iter().filter(|k| args[k.as_str()].as_str().is_some_and(|s| !s.is_empty() && !s.contains(['"', ',', '}']))).collect();
            let k = **rng_pick(rng, &strings)?;
            let raw = args[k.as_str()].as_str()?.to_string();
            Some(EmittedCall { name: name.into(), arguments: write_with_raw(args, k, &raw) })
        }
        FaultKind::MisspelledTool => {
            let misspelled = misspell(name, rng)?;
            Some(EmittedCall { name: misspelled, arguments: object(args.clone()) })
        }
    }
}

fn rng_pick<'a, T>(rng: &mut Rng, items: &'a [T]) -> Option<&'a T> {
    if items.is_empty() {
        None
    } else {
        Some(rng.pick(items))
    }
}

/// The arguments object with `key`'s value written as `raw` text.
fn write_with_raw(args: &Map<String, Value>, key: &str, raw: &str) -> String {
    let parts: Vec<String> = args
        .iter()
        .map(|(k, v)| {
            let value = if k == key { raw.to_string() } else { v.to_string() };
            format!("{}:{value}", Value::String(k.clone()))
        })
        .collect();
    format!("{{{}}}", parts.join(","))
}

/// A typo that no case or separator normalisation undoes: two adjacent
/// letters swapped, or one dropped.
fn misspell(name: &str, rng: &mut Rng) -> Option<String> {
    let chars: Vec<char> = name.chars().collect();
    let letters: Vec<usize> = (1..chars.len().saturating_sub(1))
        .filter(|&i| chars[i].is_alphabetic() && chars[i + 1].is_alphabetic() && chars[i] != chars[i + 1])
        .collect();
    let i = *rng_pick(rng, &letters)?;
    let mut out = chars.clone();
    if rng.chance(0.5) {
        out.swap(i, i + 1);
    } else {
        out.remove(i);
    }
    Some(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "additionalProperties": false,
            "properties": {"target_file": {"type": "string"}, "should_read_entire_file": {"type": "boolean"},
                           "start_line_one_indexed": {"type": "integer"}},
            "required": ["target_file", "should_read_entire_file"]})
    }

    fn args() -> Map<String, Value> {
        json!({"target_file": "src/main.rs", "should_read_entire_file": true, "start_line_one_indexed": 3}).as_object().unwrap().clone()
    }

    fn run(fault: FaultKind) -> EmittedCall {
        apply(fault, "read_file", &args(), &schema(), &mut Rng::from_parts(&["t"])).unwrap()
    }

    fn parsed(call: &EmittedCall) -> Map<String, Value> {
        serde_json::from_str::<Value>(&call.arguments).unwrap().as_object().unwrap().clone()
    }

    #[test]
    fn structural_faults_keep_json_valid_but_break_the_schema() {
        let m = parsed(&run(FaultKind::MissingRequiredBool));
        assert!(!m.contains_key("should_read_entire_file"));
        let m = parsed(&run(FaultKind::OmitRequired));
        assert_eq!(m.len(), 2);
        let m = parsed(&run(FaultKind::AliasedParam));
        assert_eq!(m.len(), 3);
        assert!(m.keys().any(|k| !args().contains_key(k)));
        let m = parsed(&run(FaultKind::ExtraProperty));
        assert_eq!(m.len(), 4);
        let m = parsed(&run(FaultKind::WrongType));
        assert_ne!(Value::Object(m), Value::Object(args()));
    }

    #[test]
    fn syntax_faults_break_strict_json() {
        for f in [FaultKind::TrailingComma, FaultKind::UnquotedValue] {
            let call = run(f);
            assert!(serde_json::from_str::<Value>(&call.arguments).is_err(), "{f:?}: {}", call.arguments);
        }
        assert_eq!(run(FaultKind::UnquotedValue).arguments.matches('"').count(), 6);
    }

    #[test]
    fn unescaped_quote_needs_a_quote_in_a_value() {
        assert!(apply(FaultKind::UnescapedQuote, "read_file", &args(), &schema(), &mut Rng::from_parts(&["t"])).is_none());
        let a = json!({"command": "echo \"hi\""}).as_object().unwrap().clone();
        let call = apply(FaultKind::UnescapedQuote, "Bash", &a, &json!({}), &mut Rng::from_parts(&["t"])).unwrap();
        assert_eq!(call.arguments, r#"{"command":"echo "hi""}"#);
    }

    #[test]
    fn misspelled_names_differ_after_normalising() {
        let call = run(FaultKind::MisspelledTool);
        let norm = |s: &str| s.to_lowercase().replace(['_', '-', '.'], "");
        assert_ne!(norm(&call.name), norm("read_file"));
        assert!(call.name.len() >= "read_file".len() - 1);
    }
}
