//! `calltape import bfcl`: a BFCL data file (JSON lines) and its answer key
//! → one calltape suite file, `<out>/<category>.jsonl`, one scenario a line,
//! each judged by BFCL's rules (`expect.bfcl`). Every entry is converted or
//! the import fails naming the line: nothing is lost silently.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::{schema, tool_name, BfclCheck, Category, FunctionTypes, GroundTruthCall};
use crate::core::rng::Rng;

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: std::io::Error },
    /// A line of the data or answer file that is not JSON.
    #[error("{path}:{line}: not JSON: {source}")]
    NotJson {
        path: PathBuf,
        line: usize,
        #[source]
        source: serde_json::Error,
    },
    /// A line of the answer file that is not an answer (see [`AnswerError`]).
    #[error("{path}:{line}: {source}")]
    Answer {
        path: PathBuf,
        line: usize,
        #[source]
        source: AnswerError,
    },
    /// An entry that cannot become a scenario (see [`EntryError`]).
    #[error("{path}:{line}: {source}")]
    Scenario {
        path: PathBuf,
        line: usize,
        #[source]
        source: EntryError,
    },
    #[error("{0}")]
    Usage(String),
    /// BFCL's multi-turn function docs cannot be read.
    #[error("{0}")]
    FuncDocs(#[source] super::multi_turn::import::FuncDocsError),
}

/// Why a line of an answer file is not an answer.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("answer has no \"id\"")]
    NoId,
    #[error("answer {id} has no \"ground_truth\"")]
    NoGroundTruth { id: String },
    /// `ground_truth` is one call that does not read as a call.
    #[error("answer {id}: {source}")]
    Call {
        id: String,
        #[source]
        source: serde_json::Error,
    },
    /// `ground_truth` is neither one call nor a list of them.
    #[error("answer {id}: ground_truth must be a list of calls: {source}")]
    NotAList {
        id: String,
        #[source]
        source: serde_json::Error,
    },
}

/// Why one BFCL entry cannot become a calltape scenario; the message
/// starts with the entry's id where it has one.
#[derive(Debug, thiserror::Error)]
pub enum EntryError {
    #[error("entry has no \"id\"")]
    NoId,
    #[error("{id}: no \"question\" list")]
    NoQuestion { id: String },
    #[error("{id}: empty question")]
    EmptyQuestion { id: String },
    #[error("{id}: {turns} turns in a single-turn category (multi-turn entries come in BFCL's multi_turn_* files)")]
    MultiTurn { id: String, turns: usize },
    /// A multi-turn entry that cannot become a scenario; the text says why.
    #[error("{0}")]
    MultiTurnEntry(#[source] super::multi_turn::import::MultiTurnEntryError),
    #[error("{id}: message role {role:?} (only system, user and assistant messages are supported)")]
    Role { id: String, role: String },
    #[error("{id}: a message has no text content")]
    NoContent { id: String },
    #[error("{id}: no \"function\" list")]
    NoFunctions { id: String },
    #[error("{id}: a function has no name")]
    UnnamedFunction { id: String },
    /// Two functions whose names become the same tool name.
    #[error("{id}: two functions are offered as {tool:?}")]
    DuplicateTool { id: String, tool: String },
    #[error("{id}: no answer for this entry in the answer file")]
    NoAnswer { id: String },
    /// The answer key fails BFCL's own rules (the first problem found).
    #[error("{id}: {problem}")]
    Key { id: String, problem: String },
    /// The checker could not be written as JSON.
    #[error("{source}")]
    Serialise {
        #[source]
        source: serde_json::Error,
    },
}

/// Which entries to import.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Selection {
    /// Every entry.
    #[default]
    All,
    /// The first N entries.
    First(usize),
    /// N entries drawn without replacement with a seed, kept in file order.
    Sample { n: usize, seed: u64 },
}

impl Selection {
    /// The indices of the entries chosen out of `count`, in file order.
    fn chosen(self, count: usize, category: &str) -> Vec<usize> {
        match self {
            Selection::All => (0..count).collect(),
            Selection::First(n) => (0..count.min(n)).collect(),
            Selection::Sample { n, seed } => {
                let mut order: Vec<usize> = (0..count).collect();
                let mut rng = Rng::from_parts(&["bfcl-sample", &seed.to_string(), category]);
                // Fisher–Yates over the first n positions.
                for i in 0..order.len().min(n) {
                    let j = i + rng.below(order.len() - i);
                    order.swap(i, j);
                }
                let mut picked: Vec<usize> = order.into_iter().take(n).collect();
                picked.sort_unstable();
                picked
            }
        }
    }
}

/// Where an import finds the answer key and (multi-turn) the function
/// docs; defaults: beside the data file, as BFCL keeps them.
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyFiles<'a> {
    pub answers: Option<&'a Path>,
    pub func_docs: Option<&'a Path>,
}

/// Imports a multi-turn data file (see `multi_turn::import`).
fn import_multi_turn(
    data: &Path,
    category: &str,
    count: usize,
    options: &KeyFiles<'_>,
    out_dir: Option<&Path>,
    selection: Selection,
) -> Result<ImportSummary, ImportError> {
    use super::multi_turn::import as mt;
    let answers_path = options.answers.map_or_else(|| default_answers_path(data), Path::to_path_buf);
    if !answers_path.is_file() {
        return Err(ImportError::Usage(format!(
            "{category} needs its answer file: pass --answers (looked for {})",
            answers_path.display()
        )));
    }
    let mut truth: HashMap<String, Value> = HashMap::new();
    for (line, v) in json_lines(&answers_path)? {
        let bad = |source: AnswerError| ImportError::Answer { path: answers_path.clone(), line, source };
        let id = v.get("id").and_then(Value::as_str).ok_or_else(|| bad(AnswerError::NoId))?.to_string();
        let turns = v.get("ground_truth").cloned().ok_or_else(|| bad(AnswerError::NoGroundTruth { id: id.clone() }))?;
        truth.insert(id, turns);
    }
    let docs_dir = options.func_docs.map_or_else(|| mt::default_func_docs(data), Path::to_path_buf);
    let docs = mt::read_func_docs(&docs_dir).map_err(ImportError::FuncDocs)?;
    let text = std::fs::read_to_string(data).map_err(|source| ImportError::Read { path: data.to_path_buf(), source })?;
    let lines: Vec<(usize, &str)> = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l)).collect();
    let chosen = selection.chosen(count, category);
    let mut out = String::new();
    for &i in &chosen {
        let (line, raw) = lines[i];
        let id = serde_json::from_str::<Value>(raw).ok().and_then(|v| v.get("id")?.as_str().map(str::to_string)).unwrap_or_default();
        let scenario = mt::scenario_line(category, raw, truth.get(&id), &docs).map_err(|problem| ImportError::Scenario {
            path: data.to_path_buf(),
            line,
            source: EntryError::MultiTurnEntry(problem),
        })?;
        out.push_str(&scenario);
        out.push('\n');
    }
    let out_dir = out_dir.map_or_else(|| PathBuf::from(format!("scenarios/bfcl-{category}")), Path::to_path_buf);
    std::fs::create_dir_all(&out_dir).map_err(|source| ImportError::Write { path: out_dir.clone(), source })?;
    let path = out_dir.join(format!("{category}.jsonl"));
    std::fs::write(&path, out).map_err(|source| ImportError::Write { path: path.clone(), source })?;
    Ok(ImportSummary { category: category.to_string(), entries: count, written: chosen.len(), path })
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportSummary {
    /// BFCL's name of the category.
    pub category: String,
    /// Entries in the data file.
    pub entries: usize,
    /// Scenarios written.
    pub written: usize,
    pub path: PathBuf,
}

/// The answer file BFCL keeps beside a data file: `possible_answer/<same name>`.
pub fn default_answers_path(data: &Path) -> PathBuf {
    let name = data.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    data.parent().unwrap_or_else(|| Path::new(".")).join("possible_answer").join(name)
}

/// The lines of a JSON-lines file with their 1-based numbers, blank ones skipped.
fn json_lines(path: &Path) -> Result<Vec<(usize, Value)>, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ImportError::Read { path: path.to_path_buf(), source })?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map(|v| (i + 1, v)).map_err(|source| ImportError::NotJson {
                path: path.to_path_buf(),
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// Reads an answer file: id → ground truth.
fn read_answers(path: &Path) -> Result<HashMap<String, Vec<GroundTruthCall>>, ImportError> {
    let mut out = HashMap::new();
    for (line, v) in json_lines(path)? {
        let bad = |source: AnswerError| ImportError::Answer { path: path.to_path_buf(), line, source };
        let id = v.get("id").and_then(Value::as_str).ok_or_else(|| bad(AnswerError::NoId))?.to_string();
        let truth = v.get("ground_truth").cloned().ok_or_else(|| bad(AnswerError::NoGroundTruth { id: id.clone() }))?;
        let truth: Vec<GroundTruthCall> = match truth {
            Value::Object(_) => {
                vec![serde_json::from_value(truth).map_err(|source| bad(AnswerError::Call { id: id.clone(), source }))?]
            }
            other => serde_json::from_value(other).map_err(|source| bad(AnswerError::NotAList { id: id.clone(), source }))?,
        };
        out.insert(id, truth);
    }
    Ok(out)
}

/// One BFCL entry (and its answer) as a calltape scenario file object.
pub fn scenario_for(entry: &Value, category: Category, truth: Option<Vec<GroundTruthCall>>) -> Result<Value, EntryError> {
    let id = entry.get("id").and_then(Value::as_str).ok_or(EntryError::NoId)?;
    let owned_id = || id.to_string();
    let question = entry.get("question").and_then(Value::as_array).ok_or_else(|| EntryError::NoQuestion { id: owned_id() })?;
    let turn = match question.as_slice() {
        [Value::Array(turn)] => turn,
        [Value::Object(_), ..] => question,
        [] => return Err(EntryError::EmptyQuestion { id: owned_id() }),
        _ => return Err(EntryError::MultiTurn { id: owned_id(), turns: question.len() }),
    };
    let mut messages = Vec::new();
    for m in turn {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        if !matches!(role, "user" | "system" | "assistant") {
            return Err(EntryError::Role { id: owned_id(), role: role.to_string() });
        }
        let content = m.get("content").and_then(Value::as_str).ok_or_else(|| EntryError::NoContent { id: owned_id() })?;
        messages.push(json!({"role": role, "content": content}));
    }
    let functions = entry.get("function").and_then(Value::as_array).ok_or_else(|| EntryError::NoFunctions { id: owned_id() })?;
    let language = category.language();
    let mut tools = Vec::new();
    let mut types = Vec::new();
    for f in functions {
        let name = f.get("name").and_then(Value::as_str).ok_or_else(|| EntryError::UnnamedFunction { id: owned_id() })?;
        let parameters = f.get("parameters").cloned().unwrap_or_else(|| json!({"type": "dict", "properties": {}}));
        let description = f.get("description").and_then(Value::as_str).unwrap_or("");
        let tool = tool_name(name);
        if types.iter().any(|t: &FunctionTypes| t.tool == tool) {
            return Err(EntryError::DuplicateTool { id: owned_id(), tool });
        }
        tools.push(json!({
            "name": tool,
            "description": format!("{description}{}", schema::language_hint(language)),
            "parameters": schema::parameters_schema(&parameters, language),
        }));
        let required =
            parameters.get("required").and_then(Value::as_array).map(|r| r.iter().filter_map(Value::as_str).map(str::to_string).collect());
        types.push(FunctionTypes {
            name: name.to_string(),
            tool,
            required: required.unwrap_or_default(),
            params: schema::param_types(&parameters),
        });
    }
    let ground_truth = match (category.has_ground_truth(), truth) {
        (true, Some(t)) => t,
        (true, None) => return Err(EntryError::NoAnswer { id: owned_id() }),
        (false, _) => Vec::new(),
    };
    let check = BfclCheck { category, functions: types, ground_truth, key: Default::default() };
    if let Some(problem) = check.problems().into_iter().next() {
        return Err(EntryError::Key { id: owned_id(), problem });
    }
    fit_schemas_to_answers(&mut tools, &check);
    let mut expect = Map::new();
    expect.insert("bfcl".into(), serde_json::to_value(&check).map_err(|source| EntryError::Serialise { source })?);
    expect.insert("max_steps".into(), json!(1));
    Ok(json!({
        "id": id,
        "description": format!("BFCL {category} entry {id}"),
        "tags": ["bfcl", category.name()],
        "tools": tools,
        "messages": messages,
        "expect": Value::Object(expect),
    }))
}

/// Makes every tool schema accept the answers its key accepts. BFCL's data
/// has enums that leave out the right answer and variables (strings) where a
/// number is declared; BFCL never validates, but calltape's pipeline would
/// "repair" such a value into a wrong one. The keyword in the way is moved
/// into the description (`enum`) or dropped with a note (`type`, bounds).
fn fit_schemas_to_answers(tools: &mut [Value], check: &BfclCheck) {
    let language = check.category.language();
    for call in &check.ground_truth {
        for (name, params) in call {
            let Some(function) = check.function(name) else { continue };
            let Some(tool) = tools.iter_mut().find(|t| t["name"] == function.tool.as_str()) else { continue };
            for (param, alternatives) in params {
                let declared = function.param(param);
                let Some(property) = tool.pointer_mut(&format!("/parameters/properties/{}", param.replace('~', "~0").replace('/', "~1")))
                else {
                    continue;
                };
                // What a right answer may send: every plain alternative, or the
                // encoded / made-concrete value where the key holds nested alternatives.
                let plain = language == super::Language::Python && !matches!(declared.map(|d| d.kind.as_str()), Some("dict"));
                let candidates: Vec<Value> = if plain {
                    alternatives.as_array().map(|a| a.iter().filter(|v| v.as_str() != Some("")).cloned().collect()).unwrap_or_default()
                } else {
                    super::encode::right_value(alternatives, declared, language).into_iter().collect()
                };
                for value in &candidates {
                    schema::relax_until_valid(property, value);
                }
            }
        }
    }
}

/// Imports one BFCL data file into `<out_dir>/<category>.jsonl`; the folder
/// defaults to `scenarios/bfcl-<category>`.
pub fn import_file(
    data: &Path,
    answers: Option<&Path>,
    out_dir: Option<&Path>,
    selection: Selection,
) -> Result<ImportSummary, ImportError> {
    import_file_with(data, &KeyFiles { answers, func_docs: None }, out_dir, selection)
}

/// [`import_file`] with the function docs of multi-turn categories named.
pub fn import_file_with(
    data: &Path,
    keys: &KeyFiles<'_>,
    out_dir: Option<&Path>,
    selection: Selection,
) -> Result<ImportSummary, ImportError> {
    let answers = keys.answers;
    let file_name = data.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let entries = json_lines(data)?;
    let first_id = entries.first().and_then(|(_, e)| e.get("id")).and_then(Value::as_str).unwrap_or("");
    if let Some(category) = super::multi_turn::import::category_of(super::file_category_name(file_name), first_id) {
        return import_multi_turn(data, category, entries.len(), keys, out_dir, selection);
    }
    let known = Category::from_file_name(file_name).or_else(|| Category::from_id(first_id));
    if let (None, Some((name, why))) = (known, super::unsupported_category(file_name, first_id)) {
        return Err(ImportError::Usage(format!(
            "{}: BFCL category `{name}` is not supported: {why}. calltape imports the single-turn categories ({}) and the multi-turn ones ({})",
            data.display(),
            Category::ALL.map(Category::name).join(", "),
            super::multi_turn::import::CATEGORIES.join(", ")
        )));
    }
    let category = known.ok_or_else(|| {
        ImportError::Usage(format!(
            "{}: cannot tell the BFCL category from the file name or the first id {first_id:?} (single-turn categories: {})",
            data.display(),
            Category::ALL.map(Category::name).join(", ")
        ))
    })?;
    let truth = if category.has_ground_truth() {
        let path = answers.map_or_else(|| default_answers_path(data), Path::to_path_buf);
        if !path.is_file() {
            return Err(ImportError::Usage(format!("{category} needs its answer file: pass --answers (looked for {})", path.display())));
        }
        read_answers(&path)?
    } else {
        HashMap::new()
    };
    let chosen = selection.chosen(entries.len(), category.name());
    let mut out = String::new();
    for &i in &chosen {
        let (line, entry) = &entries[i];
        let id = entry.get("id").and_then(Value::as_str).unwrap_or("");
        let entry_category = Category::from_id(id).unwrap_or(category);
        let scenario = scenario_for(entry, entry_category, truth.get(id).cloned()).map_err(|source| ImportError::Scenario {
            path: data.to_path_buf(),
            line: *line,
            source,
        })?;
        out.push_str(&serde_json::to_string(&scenario).unwrap_or_default());
        out.push('\n');
    }
    let out_dir = out_dir.map_or_else(|| PathBuf::from(format!("scenarios/bfcl-{category}")), Path::to_path_buf);
    std::fs::create_dir_all(&out_dir).map_err(|source| ImportError::Write { path: out_dir.clone(), source })?;
    let path = out_dir.join(format!("{}.jsonl", category.name()));
    std::fs::write(&path, out).map_err(|source| ImportError::Write { path: path.clone(), source })?;
    Ok(ImportSummary { category: category.name().to_string(), entries: entries.len(), written: chosen.len(), path })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The messages an import prints for an entry it cannot convert, byte for byte.
    #[test]
    fn entry_errors_read_as_before() {
        let simple = Category::SimplePython;
        let message = |entry: Value| scenario_for(&entry, simple, None).unwrap_err().to_string();
        let user = json!([[{"role": "user", "content": "hi"}]]);
        assert_eq!(message(json!({})), "entry has no \"id\"");
        assert_eq!(message(json!({"id": "s_1"})), "s_1: no \"question\" list");
        assert_eq!(message(json!({"id": "s_1", "question": []})), "s_1: empty question");
        assert_eq!(
            message(json!({"id": "s_1", "question": [[], []]})),
            "s_1: 2 turns in a single-turn category (multi-turn entries come in BFCL's multi_turn_* files)"
        );
        assert_eq!(
            message(json!({"id": "s_1", "question": [[{"role": "tool", "content": "x"}]]})),
            "s_1: message role \"tool\" (only system, user and assistant messages are supported)"
        );
        assert_eq!(message(json!({"id": "s_1", "question": [[{"role": "user"}]]})), "s_1: a message has no text content");
        assert_eq!(message(json!({"id": "s_1", "question": user})), "s_1: no \"function\" list");
        assert_eq!(message(json!({"id": "s_1", "question": user, "function": [{}]})), "s_1: a function has no name");
        let twice = json!([{"name": "a.b"}, {"name": "a_b"}]);
        assert_eq!(message(json!({"id": "s_1", "question": user, "function": twice})), "s_1: two functions are offered as \"a_b\"");
        let one = json!([{"name": "f"}]);
        assert_eq!(message(json!({"id": "s_1", "question": user, "function": one})), "s_1: no answer for this entry in the answer file");
        let entry = json!({"id": "s_1", "question": user, "function": one});
        let err = scenario_for(&entry, simple, Some(Vec::new())).unwrap_err().to_string();
        assert_eq!(err, "s_1: expect.bfcl: category simple_python needs a ground_truth");
    }

    /// Answer-file problems name the file and line; serde's error is the source.
    #[test]
    fn answer_errors_name_the_line_and_keep_their_source() {
        use std::error::Error;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("answers.json");
        let read = |text: &str| {
            std::fs::write(&path, text).unwrap();
            read_answers(&path).unwrap_err()
        };
        let at = |line: usize| format!("{}:{line}: ", path.display());
        assert_eq!(read("\n{}\n").to_string(), format!("{}answer has no \"id\"", at(2)));
        assert_eq!(read("{\"id\": \"a\"}").to_string(), format!("{}answer a has no \"ground_truth\"", at(1)));
        let err = read("{\"id\": \"a\", \"ground_truth\": 3}");
        let serde = err.source().and_then(Error::source).expect("serde's error is kept");
        assert_eq!(err.to_string(), format!("{}answer a: ground_truth must be a list of calls: {serde}", at(1)));
        let err = read("{\"id\": \"a\",");
        let serde = err.source().expect("serde's error is kept");
        assert_eq!(err.to_string(), format!("{}not JSON: {serde}", at(1)));
    }
}
