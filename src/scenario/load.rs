//! Reading suites from disk. Every problem is reported with the file, line
//! and column, and all problems of a suite are collected before giving up,
//! so `calltape check` can list them in one go.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Scenario, ScenarioFile, Suite, Tool, ToolRef, ToolSpec};

/// A problem in a suite's files, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LoadError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // About the file or folder as a whole: no position to give.
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}:{}:{}: {}", self.file.display(), self.line, self.column, self.message)
        }
    }
}

impl LoadError {
    fn new(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        LoadError { file: file.to_path_buf(), line, column, message: message.into() }
    }

    fn from_json(file: &Path, line_offset: usize, err: &serde_json::Error) -> Self {
        let message = err.to_string();
        // serde_json appends " at line L column C"; we print the position ourselves.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        LoadError::new(file, err.line() + line_offset, err.column().max(1), message)
    }
}

/// Text of one file, where positions inside it are looked up.
struct SourceText<'a> {
    path: &'a Path,
    text: &'a str,
    /// Line number of `text`'s first line in the file.
    first_line: usize,
}

impl SourceText<'_> {
    /// An error at the first place `needle` occurs (the start if nowhere).
    fn error_at(&self, needle: &str, message: impl Into<String>) -> LoadError {
        let offset = self.text.find(needle).unwrap_or(0);
        let before = &self.text[..offset];
        let line = before.matches('\n').count();
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        LoadError::new(self.path, self.first_line + line, column, message)
    }
}

/// Loads every suite folder named; errors of all of them are returned together.
pub fn load_suites(dirs: &[PathBuf]) -> Result<Vec<Suite>, Vec<LoadError>> {
    let mut suites = Vec::new();
    let mut errors = Vec::new();
    for dir in dirs {
        match load_suite(dir) {
            Ok(s) => suites.push(s),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if errors.is_empty() {
        Ok(suites)
    } else {
        Err(errors)
    }
}

/// Loads one suite: `toolsets/*.json`, then every `*.json` and `*.jsonl`
/// scenario file directly in the folder, in name order.
pub fn load_suite(dir: &Path) -> Result<Suite, Vec<LoadError>> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string());
    let mut errors = Vec::new();
    let entries = match list_files(dir) {
        Ok(e) => e,
        Err(e) => {
            return Err(vec![LoadError::new(
                dir,
                0,
                0,
                format!("cannot read suite folder: {e} (a suite is a folder of *.json / *.jsonl scenarios)"),
            )])
        }
    };
    let toolsets = load_toolsets(&dir.join("toolsets"), &mut errors);
    let mut scenarios = Vec::new();
    let mut seen_ids: BTreeMap<String, String> = BTreeMap::new();
    for path in entries {
        match std::fs::read(&path) {
            Ok(bytes) => scenarios.extend(load_file(&path, bytes, &name, &toolsets, &mut seen_ids, &mut errors)),
            Err(e) => errors.push(LoadError::new(&path, 0, 0, format!("cannot read: {e}"))),
        }
    }
    if scenarios.is_empty() && errors.is_empty() {
        errors.push(LoadError::new(dir, 0, 0, "no scenarios found (expected *.json or *.jsonl files)"));
    }
    if errors.is_empty() {
        Ok(Suite { name, scenarios })
    } else {
        Err(errors)
    }
}

/// The scenarios of one file's bytes (a `.jsonl` path: one scenario a line),
/// with no shared toolsets: what the loader does with untrusted text, for
/// fuzzing and for tools that get scenarios from elsewhere.
pub fn parse_scenario_file(path: &Path, bytes: Vec<u8>, suite: &str) -> Result<Vec<Arc<Scenario>>, Vec<LoadError>> {
    let mut errors = Vec::new();
    let scenarios = load_file(path, bytes, suite, &Toolsets::new(), &mut BTreeMap::new(), &mut errors);
    if errors.is_empty() {
        Ok(scenarios)
    } else {
        Err(errors)
    }
}

/// The scenarios in one file; problems go to `errors`.
fn load_file(
    path: &Path,
    bytes: Vec<u8>,
    suite: &str,
    toolsets: &Toolsets,
    seen_ids: &mut BTreeMap<String, String>,
    errors: &mut Vec<LoadError>,
) -> Vec<Arc<Scenario>> {
    let mut scenarios = Vec::new();
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = upto.iter().filter(|b| **b == b'\n').count() + 1;
            errors.push(LoadError::new(path, line, 1, "file is not valid UTF-8"));
            return scenarios;
        }
    };
    let is_jsonl = path.extension().is_some_and(|e| e == "jsonl");
    let pieces: Vec<(usize, &str)> = if is_jsonl {
        text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l)).collect()
    } else {
        vec![(1, text.as_str())]
    };
    for (first_line, piece) in pieces {
        let src = SourceText { path, text: piece, first_line };
        let file: ScenarioFile = match serde_json::from_str(piece) {
            Ok(f) => f,
            Err(e) => {
                errors.push(LoadError::from_json(path, first_line - 1, &e));
                continue;
            }
        };
        if let Some(previous) = seen_ids.get(&file.id) {
            errors.push(src.error_at(&format!("\"{}\"", file.id), format!("duplicate scenario id {:?} (first at {previous})", file.id)));
            continue;
        }
        let origin = format!("{}:{first_line}", path.display());
        seen_ids.insert(file.id.clone(), origin.clone());
        match build_scenario(file, suite, origin, toolsets, &src) {
            Ok(s) => scenarios.push(Arc::new(s)),
            Err(mut e) => errors.append(&mut e),
        }
    }
    scenarios
}

fn list_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json" || e == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// Compiles a tool's parameter schema into a validator.
pub fn compile_tool(spec: ToolSpec) -> Result<Tool, String> {
    if !spec.parameters.is_object() {
        return Err(format!("tool {:?}: parameters must be a JSON Schema object", spec.name));
    }
    let validator = jsonschema::validator_for(&spec.parameters)
        .map_err(|e| format!("tool {:?}: parameters is not a valid JSON Schema: {e}", spec.name))?;
    Ok(Tool { spec, validator })
}

type Toolsets = BTreeMap<String, Vec<Arc<Tool>>>;

fn load_toolsets(dir: &Path, errors: &mut Vec<LoadError>) -> Toolsets {
    let mut toolsets = Toolsets::new();
    let Ok(files) = list_files(dir) else { return toolsets };
    for path in files {
        let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else { continue };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(LoadError::new(&path, 0, 0, format!("cannot read toolset: {e}")));
                continue;
            }
        };
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum ToolsetFile {
            List(Vec<ToolSpec>),
            Wrapped { tools: Vec<ToolSpec> },
        }
        let specs = match serde_json::from_str::<ToolsetFile>(&text) {
            Ok(ToolsetFile::List(t)) | Ok(ToolsetFile::Wrapped { tools: t }) => t,
            Err(e) => {
                // The untagged error has no detail; parse again strictly for one.
                let detail = serde_json::from_str::<Vec<ToolSpec>>(&text).err().unwrap_or(e);
                errors.push(LoadError::from_json(&path, 0, &detail));
                continue;
            }
        };
        let src = SourceText { path: &path, text: &text, first_line: 1 };
        let mut tools = Vec::new();
        for spec in specs {
            let needle = format!("\"{}\"", spec.name);
            match compile_tool(spec) {
                Ok(t) => tools.push(Arc::new(t)),
                Err(msg) => errors.push(src.error_at(&needle, msg)),
            }
        }
        toolsets.insert(stem, tools);
    }
    toolsets
}

fn build_scenario(
    file: ScenarioFile,
    suite: &str,
    origin: String,
    toolsets: &Toolsets,
    src: &SourceText<'_>,
) -> Result<Scenario, Vec<LoadError>> {
    let mut errors = Vec::new();
    if file.id.trim().is_empty() {
        errors.push(src.error_at("\"id\"", "scenario id must not be empty"));
    }
    let toolset =
        match &file.toolset {
            Some(name) => match toolsets.get(name) {
                Some(t) => Some(t),
                None => {
                    let known: Vec<&str> = toolsets.keys().map(String::as_str).collect();
                    errors.push(src.error_at(
                        "\"toolset\"",
                        format!("unknown toolset {name:?}: expected a file toolsets/{name}.json (have: {known:?})"),
                    ));
                    None
                }
            },
            None => None,
        };
    let mut tools: Vec<Arc<Tool>> = Vec::new();
    match (&file.tools, toolset) {
        (None, Some(set)) => tools.extend(set.iter().cloned()),
        (None, None) if file.toolset.is_none() => {}
        (None, None) => {}
        (Some(refs), set) => {
            for r in refs {
                match r {
                    ToolRef::Inline(spec) => {
                        let needle = format!("\"{}\"", spec.name);
                        match compile_tool(spec.clone()) {
                            Ok(t) => tools.push(Arc::new(t)),
                            Err(msg) => errors.push(src.error_at(&needle, msg)),
                        }
                    }
                    ToolRef::Named(name) => match set.and_then(|s| s.iter().find(|t| &t.spec.name == name)) {
                        Some(t) => tools.push(t.clone()),
                        None if set.is_none() && file.toolset.is_none() => errors.push(src.error_at(
                            &format!("\"{name}\""),
                            format!("tool {name:?} is named but the scenario has no \"toolset\" to take it from"),
                        )),
                        None => {
                            if set.is_some() {
                                errors.push(src.error_at(
                                    &format!("\"{name}\""),
                                    format!("tool {name:?} is not in toolset {:?}", file.toolset.as_deref().unwrap_or("")),
                                ))
                            }
                        }
                    },
                }
            }
        }
    }
    let mut names = HashSet::new();
    for t in &tools {
        if !names.insert(t.spec.name.clone()) {
            errors.push(src.error_at(&format!("\"{}\"", t.spec.name), format!("tool {:?} is offered twice", t.spec.name)));
        }
    }
    if !file.messages.iter().any(|m| m.role == super::ScriptedRole::User) {
        errors.push(src.error_at("\"messages\"", "messages need at least one user message"));
    }
    for step in &file.expect.calls {
        for call in step.calls() {
            if !names.contains(&call.tool) {
                errors.push(src.error_at(
                    &format!("\"{}\"", call.tool),
                    format!("expected call to {:?}, which is not among the scenario's tools", call.tool),
                ));
            }
            for (arg, alternatives) in &call.args {
                if alternatives.canonical().is_none() && !alternatives.may_be_omitted() {
                    errors.push(src.error_at(
                        &format!("\"{arg}\""),
                        format!(
                            "expected argument {arg:?} of {:?} needs at least one plain value (or \"\" if it may be omitted)",
                            call.tool
                        ),
                    ));
                }
            }
        }
    }
    if let Some(bfcl) = &file.expect.bfcl {
        for problem in bfcl.problems() {
            errors.push(src.error_at("\"bfcl\"", problem));
        }
        for f in &bfcl.functions {
            if !names.contains(&f.tool) {
                errors.push(src.error_at(
                    &format!("\"{}\"", f.tool),
                    format!("expect.bfcl names tool {:?}, which is not among the scenario's tools", f.tool),
                ));
            }
        }
        if !file.expect.calls.is_empty() || file.expect.no_call {
            errors.push(src.error_at("\"bfcl\"", "expect.bfcl replaces expect.calls and expect.no_call: give one or the other"));
        }
    }
    if file.expect.no_call && !file.expect.calls.is_empty() {
        errors.push(src.error_at("\"no_call\"", "expect.no_call contradicts expect.calls"));
    }
    for rule in &file.tool_results {
        if rule.tool != "*" && !names.contains(&rule.tool) {
            errors.push(src.error_at(
                &format!("\"{}\"", rule.tool),
                format!("tool_results names tool {:?}, which is not among the scenario's tools", rule.tool),
            ));
        }
        if rule.result.is_some() && rule.error.is_some() {
            errors.push(src.error_at("\"error\"", "a tool_results rule has either \"result\" or \"error\", not both"));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut expect = file.expect;
    if let Some(bfcl) = &expect.bfcl {
        // What a right answer sends, for the simulated models; the verdict comes from the key.
        expect.calls = bfcl.answer_steps();
        expect.no_call = bfcl.category.wants_no_call();
    }
    Ok(Scenario {
        suite: suite.to_string(),
        id: file.id,
        description: file.description,
        tags: file.tags,
        tools,
        messages: file.messages,
        followups: file.followups,
        tool_results: file.tool_results,
        approvals: file.approvals,
        expect,
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_suite(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const TOOLSET: &str = r#"[{"name": "read_file", "parameters": {"type": "object",
        "properties": {"target_file": {"type": "string"}}, "required": ["target_file"]}}]"#;

    #[test]
    fn loads_a_scenario_with_a_toolset() {
        let dir = write_suite(&[
            ("toolsets/coding.json", TOOLSET),
            (
                "a.json",
                r#"{"id": "a", "toolset": "coding", "messages": [{"role": "user", "content": "read x"}],
                "expect": {"calls": [{"tool": "read_file", "args": {"target_file": ["x"]}}]}}"#,
            ),
        ]);
        let suite = load_suite(dir.path()).unwrap();
        assert_eq!(suite.scenarios.len(), 1);
        assert_eq!(suite.scenarios[0].tools[0].spec.name, "read_file");
    }

    #[test]
    fn syntax_error_names_line_and_column() {
        let dir = write_suite(&[("bad.json", "{\n  \"id\": \"a\",\n  \"messages\": [,]\n}")]);
        let errors = load_suite(dir.path()).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].line, errors[0].column), (3, 16));
        assert!(errors[0].to_string().contains("bad.json:3:16: expected value"), "{}", errors[0]);
    }

    #[test]
    fn jsonl_error_names_the_line() {
        let ok = r#"{"id": "a", "messages": [{"role": "user", "content": "hi"}]}"#;
        let bad = r#"{"id": "b", "mesages": []}"#;
        let dir = write_suite(&[("s.jsonl", &format!("{ok}\n\n{bad}\n"))]);
        let errors = load_suite(dir.path()).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, 3);
        assert!(errors[0].message.contains("unknown field `mesages`"), "{}", errors[0]);
    }

    #[test]
    fn semantic_errors_point_at_the_culprit() {
        let text = "{\"id\": \"a\", \"toolset\": \"coding\",\n \"messages\": [{\"role\": \"user\", \"content\": \"x\"}],\n \"expect\": {\"calls\": [{\"tool\": \"write_file\"}]}}";
        let dir = write_suite(&[("toolsets/coding.json", TOOLSET), ("a.json", text)]);
        let errors = load_suite(dir.path()).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].line, errors[0].column), (3, 32));
        assert!(errors[0].message.contains("not among the scenario's tools"));
    }

    #[test]
    fn invalid_schema_and_duplicate_ids_and_bad_regex() {
        let dup = r#"{"id": "a", "messages": [{"role": "user", "content": "x"}]}"#;
        let bad_schema =
            r#"{"id": "b", "tools": [{"name": "t", "parameters": {"type": "objekt"}}], "messages": [{"role": "user", "content": "x"}]}"#;
        let bad_regex = r#"{"id": "c", "messages": [{"role": "user", "content": "x"}], "expect": {"forbidden": [{"tool": "t", "args": {"a": {"regex": "("}}}]}}"#;
        let dir = write_suite(&[("s.jsonl", &format!("{dup}\n{dup}\n{bad_schema}\n{bad_regex}\n"))]);
        let errors = load_suite(dir.path()).unwrap_err();
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(errors.len(), 3, "{text:#?}");
        assert!(text[0].contains(":2:8: duplicate scenario id"), "{}", text[0]);
        assert!(text[1].contains(":3:") && text[1].contains("not a valid JSON Schema"), "{}", text[1]);
        assert!(text[2].contains(":4:") && text[2].contains("invalid regex"), "{}", text[2]);
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.json"), b"{\"id\": \"\xff\"}").unwrap();
        let errors = load_suite(dir.path()).unwrap_err();
        assert!(errors[0].message.contains("UTF-8"));
    }
}
