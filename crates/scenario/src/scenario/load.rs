//! Reading suites from disk. Every problem is reported with the file, line
//! and column, and all problems of a suite are collected before giving up,
//! so `calltape check` can list them in one go.
//!
//! A suite is checked whole when it is loaded, but kept only as an index:
//! each scenario's id and where its text lies. A run reads each scenario
//! again when its units start and lets it go when they end, so memory does
//! not grow with the suite (100k scenarios are an index of a few MB).

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::build::{build_scenario, schema_pointer, Toolsets};
use super::mcp_toolset::McpToolset;
use super::source::{LoadError, SourceText};
use super::spans::line_col;
use super::suite_injection::SuiteInjection;
use super::{Scenario, ScenarioFile, Suite};
use crate::core::mcp::McpToolsetFile;
use crate::core::modes::ApprovalMode;
use crate::core::tools::ToolSpec;
use crate::pipeline::tool::compile_tool;

/// Loads every suite folder named; errors of all of them are returned together.
pub fn load_suites(dirs: &[PathBuf]) -> Result<Vec<Suite>, Vec<LoadError>> {
    load_suites_injected(dirs, None)
}

/// Loads every suite folder named, each scenario of the suites `inject`
/// applies to given its injection (see `suite_injection`).
pub fn load_suites_injected(dirs: &[PathBuf], inject: Option<&SuiteInjection>) -> Result<Vec<Suite>, Vec<LoadError>> {
    let mut suites = Vec::new();
    let mut errors = Vec::new();
    for dir in dirs {
        match load_suite_injected(dir, inject.filter(|i| i.applies_to(dir))) {
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
/// scenario file directly in the folder, in name order. Every scenario is
/// built once, to check it, and then only its place is kept.
pub fn load_suite(dir: &Path) -> Result<Suite, Vec<LoadError>> {
    load_suite_injected(dir, None)
}

/// Loads one suite, every scenario given `inject` where it carries no injection of its own.
fn load_suite_injected(dir: &Path, inject: Option<&SuiteInjection>) -> Result<Suite, Vec<LoadError>> {
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| dir.display().to_string());
    let mut errors = Vec::new();
    let files = match list_files(dir) {
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
    let files = files.into_iter().filter(|path| inside_suite(dir, path, &mut errors)).collect::<Vec<_>>();
    let (toolsets, mcp) = load_toolsets(dir, &mut errors);
    let mut entries: Vec<Entry> = Vec::new();
    // Id → index in `entries`, to report duplicates with the first's place.
    let mut seen_ids: HashMap<String, usize> = HashMap::new();
    for (file_index, path) in files.iter().enumerate() {
        let read = std::fs::File::open(path).and_then(|f| {
            for_each_piece(path, std::io::BufReader::with_capacity(1 << 16, f), |piece| {
                let Some(scenario) = check_piece(path, &piece, &name, (&toolsets, &mcp, inject), &mut errors) else { return };
                // A scenario with an injection runs twice, paired: clean, then injected.
                let injected = match scenario.injection.is_some().then(|| super::injection::injected(&scenario)) {
                    Some(Err(why)) => {
                        let src = SourceText { path, text: piece.text(), first_line: piece.line };
                        errors.push(src.error_at("/injection/target", why.to_string()));
                        return;
                    }
                    Some(Ok(s)) => Some(s.id),
                    None => None,
                };
                for (id, is_injected) in std::iter::once((scenario.id.clone(), false)).chain(injected.map(|id| (id, true))) {
                    if let Some(&first) = seen_ids.get(&id) {
                        let first = &entries[first];
                        let origin = format!("{}:{}", files[first.file as usize].display(), first.line);
                        errors.push(duplicate_id(path, &piece, &id, &origin));
                        return;
                    }
                    seen_ids.insert(id.clone(), entries.len());
                    entries.push(Entry {
                        id: id.as_str().into(),
                        file: file_index as u32,
                        offset: piece.offset,
                        len: piece.bytes.len() as u32,
                        line: piece.line as u32,
                        interactive: scenario.approvals.mode == Some(ApprovalMode::Interactive),
                        injected: is_injected,
                    });
                }
            })
        });
        if let Err(e) = read {
            errors.push(LoadError::new(path, 0, 0, format!("cannot read: {e}")));
        }
    }
    if entries.is_empty() && errors.is_empty() {
        errors.push(LoadError::new(dir, 0, 0, "no scenarios found (expected *.json or *.jsonl files)"));
    }
    if errors.is_empty() {
        Ok(Suite { name, files, toolsets, mcp, entries, inject: inject.cloned() })
    } else {
        Err(errors)
    }
}

/// Where a scenario's text lies in its suite, to read it again when it runs.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) id: Box<str>,
    /// Index in the suite's files.
    file: u32,
    offset: u64,
    len: u32,
    /// Line of the text's start (1 for a `.json` file).
    line: u32,
    /// Its approvals ask a person: the run needs a terminal.
    pub(super) interactive: bool,
    /// The injected half of a scenario with an injection (see `injection`).
    injected: bool,
}

impl Suite {
    /// The scenario at `index` (in suite order), read and built again.
    /// An error means its file changed since the suite was loaded.
    pub fn scenario(&self, index: usize) -> Result<Arc<Scenario>, LoadError> {
        let entry = &self.entries[index];
        let path = &self.files[entry.file as usize];
        let line = entry.line as usize;
        let changed = |what: String| LoadError::new(path, line, 1, format!("{what}: the file changed since the suite was checked"));
        let mut bytes = vec![0; entry.len as usize];
        std::fs::File::open(path)
            .and_then(|mut f| {
                f.seek(std::io::SeekFrom::Start(entry.offset))?;
                f.read_exact(&mut bytes)
            })
            .map_err(|e| changed(format!("cannot read scenario {:?} again ({e})", entry.id)))?;
        let piece = Piece { offset: entry.offset, line, bytes: &bytes };
        let mut errors = Vec::new();
        let built = check_piece(path, &piece, &self.name, (&self.toolsets, &self.mcp, self.inject.as_ref()), &mut errors);
        let built = match built {
            Some(s) if entry.injected => {
                Some(super::injection::injected(&s).map_err(|why| changed(format!("scenario {:?}: {why}", entry.id)))?)
            }
            other => other,
        };
        match built {
            Some(s) if *s.id == *entry.id => Ok(Arc::new(s)),
            Some(s) => Err(changed(format!("scenario {:?} is now {:?}", entry.id, s.id))),
            None => Err(changed(errors.first().map_or_else(String::new, ToString::to_string))),
        }
    }

    /// Every scenario, in suite order, each read again as it is reached.
    pub fn scenarios(&self) -> impl Iterator<Item = Result<Arc<Scenario>, LoadError>> + '_ {
        (0..self.entries.len()).map(|i| self.scenario(i))
    }
}

/// One scenario's text in a file: a whole `.json` file, or a `.jsonl` line.
struct Piece<'a> {
    offset: u64,
    line: usize,
    bytes: &'a [u8],
}

impl Piece<'_> {
    /// The text, once `check_piece` has found it UTF-8.
    fn text(&self) -> &str {
        std::str::from_utf8(self.bytes).unwrap_or_default()
    }
}

/// Calls `f` with every scenario's text in a file (a `.jsonl` path: one
/// scenario a line, blank lines skipped), reading a line at a time.
fn for_each_piece(path: &Path, mut reader: impl BufRead, mut f: impl FnMut(Piece<'_>)) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let is_jsonl = path.extension().is_some_and(|e| e == "jsonl");
    if !is_jsonl {
        reader.read_to_end(&mut buf)?;
        f(Piece { offset: 0, line: 1, bytes: &buf });
        return Ok(());
    }
    let (mut offset, mut line) = (0u64, 0usize);
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(());
        }
        line += 1;
        let mut text = buf.as_slice();
        text = text.strip_suffix(b"\n").unwrap_or(text);
        text = text.strip_suffix(b"\r").unwrap_or(text);
        if !text.iter().all(u8::is_ascii_whitespace) {
            f(Piece { offset, line, bytes: text });
        }
        offset += n as u64;
    }
}

/// The scenarios of one file's bytes (a `.jsonl` path: one scenario a line),
/// with no shared toolsets: what the loader does with untrusted text, for
/// fuzzing and for tools that get scenarios from elsewhere.
pub fn parse_scenario_file(path: &Path, bytes: Vec<u8>, suite: &str) -> Result<Vec<Arc<Scenario>>, Vec<LoadError>> {
    let mut errors = Vec::new();
    let mut scenarios: Vec<Arc<Scenario>> = Vec::new();
    // Id → line of its first scenario.
    let mut seen_ids: HashMap<String, usize> = HashMap::new();
    for_each_piece(path, bytes.as_slice(), |piece| {
        let Some(scenario) = check_piece(path, &piece, suite, (&Toolsets::new(), &McpToolsets::new(), None), &mut errors) else { return };
        if let Some(&first) = seen_ids.get(&scenario.id) {
            errors.push(duplicate_id(path, &piece, &scenario.id, &format!("{}:{first}", path.display())));
            return;
        }
        seen_ids.insert(scenario.id.clone(), piece.line);
        scenarios.push(Arc::new(scenario));
    })
    .expect("reading from memory does not fail");
    if errors.is_empty() {
        Ok(scenarios)
    } else {
        Err(errors)
    }
}

/// A scenario id seen before, at `first` (`file:line`).
fn duplicate_id(path: &Path, piece: &Piece<'_>, id: &str, first: &str) -> LoadError {
    let src = SourceText { path, text: piece.text(), first_line: piece.line };
    src.error_at("/id", format!("duplicate scenario id {id:?} (first at {first})"))
}

/// Parses and builds one scenario; its problems go to `errors`.
/// A suite's toolsets, its MCP toolsets, and the suite-wide injection.
type SuiteParts<'a> = (&'a Toolsets, &'a McpToolsets, Option<&'a SuiteInjection>);

fn check_piece(path: &Path, piece: &Piece<'_>, suite: &str, parts: SuiteParts<'_>, errors: &mut Vec<LoadError>) -> Option<Scenario> {
    let (toolsets, mcp, inject) = parts;
    let text = match std::str::from_utf8(piece.bytes) {
        Ok(t) => t,
        Err(e) => {
            // The valid text before the bad byte gives its place.
            let valid = std::str::from_utf8(&piece.bytes[..e.valid_up_to()]).unwrap_or_default();
            let (line, column) = line_col(valid, valid.len());
            errors.push(LoadError::new(path, piece.line + line - 1, column, "file is not valid UTF-8"));
            return None;
        }
    };
    let file: ScenarioFile = match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            errors.push(LoadError::from_json(path, text, piece.line, &e));
            return None;
        }
    };
    let src = SourceText { path, text, first_line: piece.line };
    let origin = format!("{}:{}", path.display(), piece.line);
    let on_mcp = file.toolset.as_ref().is_some_and(|t| mcp.contains_key(t));
    match build_scenario(file, suite, origin, toolsets, &src) {
        Ok(mut s) => {
            if let Some(inject) = inject {
                super::suite_injection::apply(&mut s, inject, on_mcp);
            }
            Some(s)
        }
        Err(mut e) => {
            errors.append(&mut e);
            None
        }
    }
}

fn list_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json" || e == "jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

/// MCP toolsets by name (see `mcp_toolset`).
pub(super) type McpToolsets = BTreeMap<String, Arc<McpToolset>>;

/// Whether a file of the suite is the suite's own: a link (or a linked
/// `toolsets` folder) leading out of the suite's folder would put a host
/// file in front of the model; it is an error naming the file instead.
fn inside_suite(suite: &Path, path: &Path, errors: &mut Vec<LoadError>) -> bool {
    let (Ok(root), Ok(real)) = (suite.canonicalize(), path.canonicalize()) else { return true };
    if real.starts_with(&root) {
        return true;
    }
    errors.push(LoadError::new(
        path,
        0,
        0,
        "is a link out of the suite's folder, and a suite reads only its own files: copy the file into the suite",
    ));
    false
}

fn load_toolsets(suite: &Path, errors: &mut Vec<LoadError>) -> (Toolsets, McpToolsets) {
    let mut toolsets = Toolsets::new();
    let mut mcp = McpToolsets::new();
    let Ok(files) = list_files(&suite.join("toolsets")) else { return (toolsets, mcp) };
    let files: Vec<PathBuf> = files.into_iter().filter(|path| inside_suite(suite, path, errors)).collect();
    for path in files {
        let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else { continue };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                errors.push(LoadError::new(&path, 0, 0, format!("cannot read toolset: {e}")));
                continue;
            }
        };
        if let Some(parsed) = McpToolsetFile::detect(&text) {
            if let Some(set) = super::mcp_toolset::load(&path, &stem, &text, parsed, errors) {
                toolsets.insert(stem.clone(), set.tools.clone());
                mcp.insert(stem, Arc::new(set));
            }
            continue;
        }
        #[derive(serde::Deserialize)]
        #[serde(untagged)]
        enum ToolsetFile {
            List(Vec<ToolSpec>),
            Wrapped { tools: Vec<ToolSpec> },
        }
        // Where the list lies, for pointers to its tools.
        let (specs, list) = match serde_json::from_str::<ToolsetFile>(&text) {
            Ok(ToolsetFile::List(t)) => (t, ""),
            Ok(ToolsetFile::Wrapped { tools: t }) => (t, "/tools"),
            Err(e) => {
                // The untagged error has no detail; parse again strictly for one.
                let detail = serde_json::from_str::<Vec<ToolSpec>>(&text).err().unwrap_or(e);
                errors.push(LoadError::from_json(&path, &text, 1, &detail));
                continue;
            }
        };
        let src = SourceText { path: &path, text: &text, first_line: 1 };
        let mut tools = Vec::new();
        for (i, spec) in specs.into_iter().enumerate() {
            match compile_tool(spec.clone()) {
                Ok(t) => tools.push(Arc::new(t)),
                Err(e) => errors.push(src.error_at(&schema_pointer(&format!("{list}/{i}"), &spec.parameters), e.to_string())),
            }
        }
        toolsets.insert(stem, tools);
    }
    (toolsets, mcp)
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
        assert_eq!(suite.len(), 1);
        assert_eq!(suite.scenario(0).unwrap().tools[0].spec.name, "read_file");
    }

    #[test]
    fn scenarios_are_read_again_from_where_they_lie() {
        let line = |id: &str| format!(r#"{{"id": "{id}", "toolset": "coding", "messages": [{{"role": "user", "content": "é {id}"}}]}}"#);
        // Blank lines, CRLF endings and a last line with no newline.
        let jsonl = format!("{}\r\n\n  \n{}\n{}", line("a"), line("b"), line("c"));
        let dir = write_suite(&[("toolsets/coding.json", TOOLSET), ("s.jsonl", &jsonl), ("t.json", &line("d"))]);
        let suite = load_suite(dir.path()).unwrap();
        assert_eq!(suite.ids().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
        let read: Vec<Arc<Scenario>> = suite.scenarios().map(Result::unwrap).collect();
        assert_eq!(read.iter().map(|s| s.messages[0].content.as_str()).collect::<Vec<_>>(), ["é a", "é b", "é c", "é d"]);
        assert!(read[1].origin.ends_with("s.jsonl:4"), "{}", read[1].origin);
        assert_eq!(read[0].tools[0].spec.name, "read_file");
        assert!(Arc::ptr_eq(&read[0].tools[0], &read[3].tools[0]), "toolset tools are shared, not compiled again");
    }

    #[test]
    fn a_file_changed_after_loading_is_an_error_naming_it() {
        let ok = |id: &str| format!(r#"{{"id": "{id}", "messages": [{{"role": "user", "content": "x"}}]}}"#);
        let dir = write_suite(&[("s.jsonl", &format!("{}\n{}\n", ok("a"), ok("b")))]);
        let mut suite = load_suite(dir.path()).unwrap();
        std::fs::write(dir.path().join("s.jsonl"), format!("{}\n", ok("z"))).unwrap();
        assert!(suite.scenario(0).unwrap_err().to_string().contains("scenario \"a\" is now \"z\""));
        let err = suite.scenario(1).unwrap_err().to_string();
        assert!(err.contains("s.jsonl:2:1") && err.contains("changed since the suite was checked"), "{err}");
        suite.retain(|id| id == "a");
        assert_eq!(suite.len(), 1);
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
    fn a_turn_step_limit_of_zero_is_refused_where_it_is_written() {
        let text = "{\"id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}],\n \"expect\": {\"max_steps_per_turn\": 0}}";
        let dir = write_suite(&[("a.json", text)]);
        let errors = load_suite(dir.path()).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, 2);
        assert!(errors[0].message.contains("a turn's step limit must be at least 1"), "{}", errors[0]);
        let one = text.replace("\"max_steps_per_turn\": 0", "\"max_steps_per_turn\": 1");
        let dir = write_suite(&[("a.json", &one)]);
        assert_eq!(load_suite(dir.path()).unwrap().len(), 1);
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

    /// The (line, column) of each error of a suite with these files.
    fn positions(files: &[(&str, &str)]) -> Vec<(usize, usize, String)> {
        let dir = write_suite(files);
        let errors = load_suite(dir.path()).unwrap_err();
        errors.into_iter().map(|e| (e.line, e.column, e.message)).collect()
    }

    #[test]
    fn the_culprit_is_found_by_its_place_not_by_its_text() {
        // The tool name, the key and the id all appear earlier, in the system prompt.
        let text = concat!(
            "{\"id\": \"a\", \"messages\": [\n",
            "  {\"role\": \"system\", \"content\": \"write_file\"},\n",
            "  {\"role\": \"system\", \"content\": \"no_call\"},\n",
            "  {\"role\": \"user\", \"content\": \"x\"}],\n",
            " \"expect\": {\"calls\": [{\"tool\": \"write_file\"}], \"no_call\": true}}"
        );
        let errors = positions(&[("a.json", text)]);
        assert_eq!(errors.len(), 2, "{errors:#?}");
        assert_eq!((errors[0].0, errors[0].1), (5, 32), "{}", errors[0].2);
        assert!(errors[0].2.contains("\"write_file\", which is not among"));
        assert_eq!((errors[1].0, errors[1].1), (5, 59), "{}", errors[1].2);
        assert!(errors[1].2.contains("no_call contradicts"));
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        // Two-byte, three-byte and four-byte characters before the culprit.
        let text = "{\"id\": \"a\", \"description\": \"é→😀\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"expect\": {\"calls\": [{\"tool\": \"nope\"}]}}";
        let errors = positions(&[("a.json", text)]);
        let column = text[..text.find("\"nope\"").unwrap()].chars().count() + 1;
        assert_eq!(column, 113);
        assert_eq!((errors[0].0, errors[0].1), (1, column));
        // A syntax error after non-ASCII text: serde_json's byte column, in characters.
        let errors = positions(&[("b.json", "{\"id\": \"日本語\", x}")]);
        assert_eq!((errors[0].0, errors[0].1), (1, 15), "{}", errors[0].2);
        // A bad byte after non-ASCII text.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.json"), b"{\n \"id\": \"\xc3\xa9\xff\"}").unwrap();
        let errors = load_suite(dir.path()).unwrap_err();
        assert_eq!((errors[0].line, errors[0].column), (2, 10));
    }

    #[test]
    fn jsonl_errors_are_placed_on_their_scenario_line() {
        let ok = |id: &str| format!(r#"{{"id": "{id}", "messages": [{{"role": "user", "content": "ü nope"}}]}}"#);
        let bad = r#"{"id": "c", "messages": [{"role": "user", "content": "ü nope"}], "tool_results": [{"tool": "nope", "result": 1, "error": "x"}]}"#;
        let jsonl = format!("{}\n\n{}\n{bad}\n{}\n", ok("a"), ok("b"), ok("b"));
        let errors = positions(&[("s.jsonl", &jsonl)]);
        assert_eq!(errors.len(), 3, "{errors:#?}");
        assert_eq!((errors[0].0, errors[0].1), (4, 92), "{}", errors[0].2);
        assert!(errors[0].2.contains("tool_results names tool \"nope\""));
        assert_eq!((errors[1].0, errors[1].1), (4, 122), "{}", errors[1].2);
        assert_eq!((errors[2].0, errors[2].1), (5, 8), "{}", errors[2].2);
        assert!(errors[2].2.contains("duplicate scenario id \"b\""), "{}", errors[2].2);
    }

    #[test]
    fn schema_errors_point_into_the_schema() {
        let scenario = r#"{"id": "a", "messages": [{"role": "user", "content": "type"}],
 "tools": [{"name": "t", "description": "type", "parameters": {"type": "object", "properties": {"p": {"type": "strin"}}}}]}"#;
        let errors = positions(&[("a.json", scenario)]);
        assert_eq!((errors[0].0, errors[0].1), (2, 111), "{}", errors[0].2);
        // In a toolset file, both of its forms.
        let toolset = "{\"tools\": [{\"name\": \"ok\"},\n {\"name\": \"t\", \"parameters\": {\"type\": 7}}]}";
        let errors = positions(&[("toolsets/x.json", toolset), ("a.json", r#"{"id": "a", "messages": []}"#)]);
        assert_eq!((errors[0].0, errors[0].1), (2, 39), "{}", errors[0].2);
        let errors = positions(&[("toolsets/x.json", "[{\"name\": \"t\", \"parameters\": []}]"), ("a.json", "{}")]);
        assert_eq!((errors[0].0, errors[0].1), (1, 30), "{}", errors[0].2);
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x.json"), b"{\"id\": \"\xff\"}").unwrap();
        let errors = load_suite(dir.path()).unwrap_err();
        assert!(errors[0].message.contains("UTF-8"));
    }
}
