//! `calltape import bfcl BFCL_v4_multi_turn_*.json`: each multi-turn entry
//! becomes a scenario whose user turns are the entry's turns, whose tools
//! are its classes' function docs (BFCL's `multi_turn_func_doc`, less the
//! entry's excluded functions; held-out functions offered from the turn
//! BFCL adds them), and whose answer key (`expect.bfcl_multi_turn`) holds
//! the classes, their starting state and the ground truth per turn.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::judge::MultiTurnKey;
use super::pycall::{parse_call, CallSyntaxError};
use crate::bfcl::pyvalue::Py;
use crate::bfcl::{schema, tool_name, Language};

/// The multi-turn categories calltape imports.
pub const CATEGORIES: [&str; 4] = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"];

/// What BFCL's handler says when it adds held-out functions (its turn has no message).
pub const ADDED_FUNCTIONS_PROMPT: &str = "I have updated some more functions you can choose from. What about now?";

/// Model requests a user turn at most, as BFCL's inference allows them: it
/// counts a step when its calls have run and quits the turn once the count
/// passes `MAXIMUM_STEP_LIMIT` (20), so a 21st request's calls still run.
/// The scenario's `max_steps_per_turn`, and its `max_steps` this many for
/// each turn.
const REQUESTS_PER_TURN: u32 = 21;

/// The function-doc file of each class (BFCL's `MULTI_TURN_FUNC_DOC_FILE_MAPPING`).
fn func_doc_file(class: &str) -> Option<&'static str> {
    Some(match class {
        "GorillaFileSystem" => "gorilla_file_system.json",
        "MathAPI" => "math_api.json",
        "MessageAPI" => "message_api.json",
        "TwitterAPI" => "posting_api.json",
        "TicketAPI" => "ticket_api.json",
        "TradingBot" => "trading_bot.json",
        "TravelAPI" => "travel_booking.json",
        "VehicleControlAPI" => "vehicle_control.json",
        _ => return None,
    })
}

/// The multi-turn category of a data file's name or first id, if it is one.
pub fn category_of(file_category: &str, first_id: &str) -> Option<&'static str> {
    let by_id = first_id.rsplit_once('_').map_or("", |(prefix, _)| prefix);
    CATEGORIES.into_iter().find(|c| *c == file_category || *c == by_id)
}

/// The folder of function docs BFCL keeps beside its data files.
pub fn default_func_docs(data: &Path) -> PathBuf {
    data.parent().unwrap_or_else(|| Path::new(".")).join("multi_turn_func_doc")
}

/// The parts of an entry read with dict order kept (`initial_config`).
#[derive(Deserialize)]
struct EntryState {
    #[serde(default)]
    initial_config: Py,
}

/// A scenario file as written (field order as a person reads it).
#[derive(Serialize)]
struct ScenarioOut {
    id: String,
    description: String,
    tags: Vec<String>,
    tools: Vec<Value>,
    messages: Vec<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    followups: Vec<Value>,
    expect: ExpectOut,
}

#[derive(Serialize)]
struct ExpectOut {
    bfcl_multi_turn: MultiTurnKey,
    max_steps: u32,
    max_steps_per_turn: u32,
}

/// Makes a tool's schema accept a ground-truth call: BFCL's docs mark some
/// parameters required that the ground truth leaves out (the Python method
/// has a default) and type some values otherwise. BFCL never validates, but
/// calltape's pipeline would reject or "repair" the right answer, so the
/// `required` entry goes, and a keyword in the way moves into the description.
fn fit_schema_to_call(parameters: &mut Value, named: &[(String, Py)]) {
    if let Some(Value::Array(required)) = parameters.get_mut("required") {
        required.retain(|r| named.iter().any(|(name, _)| r.as_str() == Some(name)));
    }
    for (name, value) in named {
        if let Some(property) = parameters.pointer_mut(&format!("/properties/{}", name.replace('~', "~0").replace('/', "~1"))) {
            schema::relax_until_valid(property, &value.to_json());
        }
    }
}

/// Why BFCL's multi-turn function docs cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FuncDocsError {
    #[error("cannot read {path}: {source}; multi-turn entries need BFCL's function docs (pass --func-docs DIR)")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}: not JSON: {source}")]
    NotJson {
        path: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
}

/// Why a multi-turn entry cannot become a scenario; all but the first
/// three name the entry's id.
#[derive(Debug, thiserror::Error)]
pub enum MultiTurnEntryError {
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("initial_config: {0}")]
    InitialConfig(#[source] serde_json::Error),
    #[error("entry has no \"id\"")]
    NoId,
    #[error("{id}: no \"involved_classes\" list")]
    NoClasses { id: String },
    #[error("{id}: class {class} is not one calltape executes (it has {}); memory and web-search classes are not supported", super::CLASSES.join(", "))]
    UnsupportedClass { id: String, class: String },
    #[error("{id}: no \"question\" list")]
    NoQuestion { id: String },
    #[error("{id}: missed_function turn {turn:?} is not a number")]
    MissedTurn { id: String, turn: String },
    #[error("{id}: the first turn has no user message")]
    NoFirstMessage { id: String },
    #[error("{id}: held-out function {name:?} is not among the classes' functions")]
    UnknownHeldOut { id: String, name: String },
    #[error("{id}: no answer for this entry in the answer file")]
    NoAnswer { id: String },
    #[error("{id}: ground_truth must be a list of turns, each a list of calls: {source}")]
    GroundTruthShape { id: String, source: serde_json::Error },
    #[error("{id}: {questions} turns but a ground truth of {truth}")]
    TurnCount { id: String, questions: usize, truth: usize },
    /// A ground truth call that is not Python call syntax.
    #[error("{id}: ground truth of turn {turn}: {source}")]
    GroundTruthSyntax { id: String, turn: usize, source: CallSyntaxError },
    /// A ground truth call of no method of the entry's classes.
    #[error("{id}: ground truth of turn {turn}: {call} names no method of {}", classes.join(", "))]
    GroundTruthMethod { id: String, turn: usize, call: String, classes: Vec<String> },
    #[error("{0}")]
    Serialise(#[source] serde_json::Error),
}

/// Reads the function docs of every class, by class name.
pub fn read_func_docs(dir: &Path) -> Result<HashMap<&'static str, Vec<Value>>, FuncDocsError> {
    let mut docs = HashMap::new();
    for class in super::CLASSES {
        let Some(file) = func_doc_file(class) else { continue };
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).map_err(|source| FuncDocsError::Read { path: path.clone(), source })?;
        let mut functions = Vec::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            functions.push(serde_json::from_str(line).map_err(|source| FuncDocsError::NotJson {
                path: path.clone(),
                line: i + 1,
                source,
            })?);
        }
        docs.insert(*class, functions);
    }
    Ok(docs)
}

/// One multi-turn entry (its raw line, for dict order) and its ground truth
/// as a scenario file line. `Err` says what is wrong with the entry.
pub fn scenario_line(
    category: &str,
    line: &str,
    ground_truth: Option<&Value>,
    docs: &HashMap<&'static str, Vec<Value>>,
) -> Result<String, MultiTurnEntryError> {
    use MultiTurnEntryError as E;
    let entry: Value = serde_json::from_str(line).map_err(E::NotJson)?;
    let state: EntryState = serde_json::from_str(line).map_err(E::InitialConfig)?;
    let id = entry.get("id").and_then(Value::as_str).ok_or(E::NoId)?.to_string();
    let classes: Vec<String> = serde_json::from_value(entry.get("involved_classes").cloned().unwrap_or(Value::Null))
        .map_err(|_| E::NoClasses { id: id.clone() })?;
    for class in &classes {
        if !super::CLASSES.contains(&class.as_str()) {
            return Err(E::UnsupportedClass { id, class: class.clone() });
        }
    }
    let questions = entry.get("question").and_then(Value::as_array).ok_or_else(|| E::NoQuestion { id: id.clone() })?;
    let excluded: Vec<&str> =
        entry.get("excluded_function").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    // Held-out functions by the turn that adds them.
    let mut held: HashMap<usize, Vec<String>> = HashMap::new();
    if let Some(missed) = entry.get("missed_function").and_then(Value::as_object) {
        for (turn, names) in missed {
            let turn: usize = turn.parse().map_err(|_| E::MissedTurn { id: id.clone(), turn: turn.clone() })?;
            let names = names.as_array().map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()).unwrap_or_default();
            held.insert(turn, names);
        }
    }
    let mut tools = Vec::new();
    for class in &classes {
        for f in docs.get(class.as_str()).map_or(&[][..], Vec::as_slice) {
            let name = f.get("name").and_then(Value::as_str).unwrap_or_default();
            if name.is_empty() || excluded.contains(&name) || tools.iter().any(|t: &Value| t["name"] == tool_name(name).as_str()) {
                continue;
            }
            let parameters = f.get("parameters").cloned().unwrap_or_else(|| json!({"type": "dict", "properties": {}}));
            tools.push(json!({
                "name": tool_name(name),
                "description": f.get("description").and_then(Value::as_str).unwrap_or_default(),
                "parameters": schema::parameters_schema(&parameters, Language::Python),
            }));
        }
    }
    let mut messages = Vec::new();
    let mut followups = Vec::new();
    for (turn, question) in questions.iter().enumerate() {
        let said: Vec<&str> =
            question.as_array().map(|m| m.iter().filter_map(|m| m.get("content")?.as_str()).collect()).unwrap_or_default();
        let offer: Vec<String> = held.get(&turn).map(|names| names.iter().map(|n| tool_name(n)).collect()).unwrap_or_default();
        if turn == 0 {
            if said.is_empty() || !offer.is_empty() {
                return Err(E::NoFirstMessage { id });
            }
            for m in question.as_array().into_iter().flatten() {
                let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
                messages.push(json!({"role": role, "content": m.get("content").and_then(Value::as_str).unwrap_or_default()}));
            }
            continue;
        }
        let content = if said.is_empty() { ADDED_FUNCTIONS_PROMPT.to_string() } else { said.join("\n\n") };
        followups.push(if offer.is_empty() { json!(content) } else { json!({"user": content, "offer": offer}) });
    }
    for names in held.values() {
        for name in names {
            if !tools.iter().any(|t| t["name"] == tool_name(name).as_str()) {
                return Err(E::UnknownHeldOut { id, name: name.clone() });
            }
        }
    }
    let truth = ground_truth.ok_or_else(|| E::NoAnswer { id: id.clone() })?;
    let truth: Vec<Vec<String>> = serde_json::from_value(truth.clone()).map_err(|source| E::GroundTruthShape { id: id.clone(), source })?;
    if truth.len() != questions.len() {
        return Err(E::TurnCount { id, questions: questions.len(), truth: truth.len() });
    }
    for (turn, calls) in truth.iter().enumerate() {
        for call in calls {
            let parsed = parse_call(call).map_err(|source| E::GroundTruthSyntax { id: id.clone(), turn, source })?;
            let Some(named) = super::named_args(&classes, &parsed) else {
                return Err(E::GroundTruthMethod { id, turn, call: call.clone(), classes });
            };
            if let Some(tool) = tools.iter_mut().find(|t| t["name"] == tool_name(&parsed.name).as_str()) {
                fit_schema_to_call(&mut tool["parameters"], &named);
            }
        }
    }
    let key = MultiTurnKey {
        read: Default::default(),
        category: category.to_string(),
        involved_classes: classes,
        initial_config: state.initial_config,
        long_context: category.contains("long_context"),
        ground_truth: truth,
    };
    let scenario = ScenarioOut {
        description: format!("BFCL {category} entry {id}"),
        id,
        tags: vec!["bfcl".into(), category.to_string()],
        tools,
        messages,
        followups,
        expect: ExpectOut {
            max_steps: REQUESTS_PER_TURN * questions.len() as u32,
            max_steps_per_turn: REQUESTS_PER_TURN,
            bfcl_multi_turn: key,
        },
    };
    serde_json::to_string(&scenario).map_err(E::Serialise)
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn a_ground_truth_call_that_is_no_call_keeps_the_syntax_error_as_its_source() {
        let line =
            r#"{"id": "multi_turn_base_0", "involved_classes": ["GorillaFileSystem"], "question": [[{"role": "user", "content": "ls"}]]}"#;
        let truth = json!([["ls("]]);
        let err = scenario_line("multi_turn_base", line, Some(&truth), &HashMap::new()).unwrap_err();
        assert!(err.to_string().starts_with("multi_turn_base_0: ground truth of turn 0: expected "), "{err}");
        let source = err.source().expect("a source");
        assert!(source.downcast_ref::<CallSyntaxError>().is_some(), "{source:?}");
    }

    #[test]
    fn unreadable_function_docs_keep_the_io_error_as_their_source() {
        let err = read_func_docs(Path::new("/nonexistent/calltape-func-docs")).unwrap_err();
        assert!(err.to_string().ends_with("multi-turn entries need BFCL's function docs (pass --func-docs DIR)"), "{err}");
        assert!(err.source().and_then(|s| s.downcast_ref::<std::io::Error>()).is_some());
    }
}
