//! Building a scenario from its file form: resolving its tools and checking
//! that its parts agree. Each stage is a function that reports every problem
//! it finds at the JSON Pointer of the value at fault (`spans` turns that
//! into a line and column), so all problems come out in one go.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::source::SourceText;
use super::{ExpectedStep, Scenario, ScenarioFile, ScriptedRole, Tool, ToolRef};
use crate::pipeline::tool::compile_tool;

/// Shared toolsets by name (the file stem in `toolsets/`).
pub(super) type Toolsets = BTreeMap<String, Vec<Arc<Tool>>>;

/// Problems found so far, each placed at a pointer into the scenario's text.
struct Problems<'a, 'b> {
    src: &'a SourceText<'b>,
    errors: Vec<super::source::LoadError>,
}

impl Problems<'_, '_> {
    fn at(&mut self, pointer: &str, message: impl Into<String>) {
        self.errors.push(self.src.error_at(pointer, message));
    }
}

/// A tool resolved for the scenario, with the pointer of what offered it.
struct Offered {
    tool: Arc<Tool>,
    pointer: String,
}

/// Builds a scenario, or returns every problem of it.
pub(super) fn build_scenario(
    mut file: ScenarioFile,
    suite: &str,
    origin: String,
    toolsets: &Toolsets,
    src: &SourceText<'_>,
) -> Result<Scenario, Vec<super::source::LoadError>> {
    let mut problems = Problems { src, errors: Vec::new() };
    if file.id.trim().is_empty() {
        problems.at("/id", "scenario id must not be empty");
    }
    let offered = resolve_tools(&file, toolsets, &mut problems);
    let names = check_unique_names(&offered, &mut problems);
    if let Some(spec) = &file.injection {
        for (pointer, message) in super::injection::check(&file, spec, &names) {
            problems.at(&pointer, message);
        }
        // The attacker's goal is a minefield of both halves of the pair:
        // checked with the others, and never to be reached clean either.
        file.expect.minefields.extend(spec.goal.iter().cloned());
    }
    if !file.messages.iter().any(|m| m.role == ScriptedRole::User) {
        problems.at("/messages", "messages need at least one user message");
    }
    check_expected_calls(&file, &names, &mut problems);
    check_bfcl(&file, &names, &mut problems);
    check_followups(&file, &names, &mut problems);
    check_bfcl_multi_turn(&file, &mut problems);
    check_tool_results(&file, &names, &mut problems);
    check_outcome(&file, &names, &mut problems);
    let workspace = load_workspace(&file, &mut problems);
    if !problems.errors.is_empty() {
        return Err(problems.errors);
    }
    Ok(assemble(file, suite, origin, offered.into_iter().map(|o| o.tool).collect(), workspace))
}

/// The tools offered: the whole toolset, or the `tools` list (names taken
/// from the toolset, definitions compiled here).
fn resolve_tools(file: &ScenarioFile, toolsets: &Toolsets, problems: &mut Problems<'_, '_>) -> Vec<Offered> {
    let toolset = file.toolset.as_ref().and_then(|name| {
        let set = toolsets.get(name);
        if set.is_none() {
            let known: Vec<&str> = toolsets.keys().map(String::as_str).collect();
            problems.at("/toolset", format!("unknown toolset {name:?}: expected a file toolsets/{name}.json (have: {known:?})"));
        }
        set
    });
    let Some(refs) = &file.tools else {
        let from_set = toolset.into_iter().flatten();
        return from_set.map(|t| Offered { tool: t.clone(), pointer: "/toolset".into() }).collect();
    };
    let mut offered = Vec::new();
    for (i, r) in refs.iter().enumerate() {
        let pointer = format!("/tools/{i}");
        match r {
            ToolRef::Inline(spec) => match compile_tool(spec.clone()) {
                Ok(t) => offered.push(Offered { tool: Arc::new(t), pointer }),
                Err(e) => problems.at(&schema_pointer(&pointer, &spec.parameters), e.to_string()),
            },
            ToolRef::Named(name) => match toolset.and_then(|s| s.iter().find(|t| &t.spec.name == name)) {
                Some(t) => offered.push(Offered { tool: t.clone(), pointer }),
                None if file.toolset.is_none() => {
                    problems.at(&pointer, format!("tool {name:?} is named but the scenario has no \"toolset\" to take it from"))
                }
                // An unknown toolset is reported once, above.
                None if toolset.is_none() => {}
                None => problems.at(&pointer, format!("tool {name:?} is not in toolset {:?}", file.toolset.as_deref().unwrap_or(""))),
            },
        }
    }
    offered
}

/// Where in a tool definition at `tool` its parameter schema goes wrong:
/// the part of the schema the meta-schema rejects, or the schema itself.
pub(super) fn schema_pointer(tool: &str, parameters: &serde_json::Value) -> String {
    let inside = jsonschema::validator_for(parameters).err().map(|e| e.instance_path().as_str().to_string());
    format!("{tool}/parameters{}", inside.unwrap_or_default())
}

/// The names of the tools offered; a name offered twice is a problem.
fn check_unique_names(offered: &[Offered], problems: &mut Problems<'_, '_>) -> HashSet<String> {
    let mut names = HashSet::new();
    for o in offered {
        let name = &o.tool.spec.name;
        if !names.insert(name.clone()) {
            problems.at(&o.pointer, format!("tool {name:?} is offered twice"));
        }
    }
    names
}

/// Every expected call names an offered tool and gives each argument a value.
fn check_expected_calls(file: &ScenarioFile, names: &HashSet<String>, problems: &mut Problems<'_, '_>) {
    check_steps(&file.expect.calls, "/expect/calls", names, problems);
    check_steps(&file.reference, "/reference", names, problems);
}

/// Steps of calls (expected, or a reference solution) at `at`.
fn check_steps(steps: &[ExpectedStep], at: &str, names: &HashSet<String>, problems: &mut Problems<'_, '_>) {
    for (s, step) in steps.iter().enumerate() {
        for (c, call) in step.calls().iter().enumerate() {
            let pointer = match step {
                ExpectedStep::One(_) => format!("{at}/{s}"),
                ExpectedStep::Parallel(_) => format!("{at}/{s}/{c}"),
            };
            if !names.contains(&call.tool) {
                problems
                    .at(&format!("{pointer}/tool"), format!("expected call to {:?}, which is not among the scenario's tools", call.tool));
            }
            for (arg, alternatives) in &call.args {
                if alternatives.canonical().is_none() && !alternatives.may_be_omitted() {
                    problems.at(
                        &format!("{pointer}/args/{}", escape_token(arg)),
                        format!(
                            "expected argument {arg:?} of {:?} needs at least one plain value (or \"\" if it may be omitted)",
                            call.tool
                        ),
                    );
                }
            }
        }
    }
}

/// A BFCL answer key is whole, names offered tools, and stands alone; the
/// other expectations agree with each other.
fn check_bfcl(file: &ScenarioFile, names: &HashSet<String>, problems: &mut Problems<'_, '_>) {
    if let Some(bfcl) = &file.expect.bfcl {
        for problem in bfcl.problems() {
            problems.at("/expect/bfcl", problem);
        }
        for (i, f) in bfcl.functions.iter().enumerate() {
            if !names.contains(&f.tool) {
                problems.at(
                    &format!("/expect/bfcl/functions/{i}/tool"),
                    format!("expect.bfcl names tool {:?}, which is not among the scenario's tools", f.tool),
                );
            }
        }
        if !file.expect.calls.is_empty() || file.expect.no_call {
            problems.at("/expect/bfcl", "expect.bfcl replaces expect.calls and expect.no_call: give one or the other");
        }
    }
    if file.expect.no_call && !file.expect.calls.is_empty() {
        problems.at("/expect/no_call", "expect.no_call contradicts expect.calls");
    }
    if file.expect.max_steps_per_turn == Some(0) {
        problems.at("/expect/max_steps_per_turn", "a turn's step limit must be at least 1 (leave it out for none)");
    }
}

/// Tools held back until a user turn are among the scenario's tools.
fn check_followups(file: &ScenarioFile, names: &HashSet<String>, problems: &mut Problems<'_, '_>) {
    for (i, f) in file.followups.iter().enumerate() {
        for (j, tool) in f.offer.iter().enumerate() {
            if !names.contains(tool) {
                problems.at(
                    &format!("/followups/{i}/offer/{j}"),
                    format!("followup offers tool {tool:?}, which is not among the scenario's tools"),
                );
            }
        }
    }
}

/// A BFCL multi-turn key loads its classes, reads its ground truth (every
/// call a method of them) and has a ground truth for each user turn.
fn check_bfcl_multi_turn(file: &ScenarioFile, problems: &mut Problems<'_, '_>) {
    let Some(key) = &file.expect.bfcl_multi_turn else { return };
    if let Err(e) = key.world() {
        problems.at("/expect/bfcl_multi_turn/involved_classes", e.to_string());
    }
    for (t, turn) in key.ground_truth.iter().enumerate() {
        for (c, text) in turn.iter().enumerate() {
            let pointer = format!("/expect/bfcl_multi_turn/ground_truth/{t}/{c}");
            match crate::bfcl::multi_turn::pycall::parse_call(text) {
                Err(e) => problems.at(&pointer, e.to_string()),
                Ok(call) if crate::bfcl::multi_turn::named_args(&key.involved_classes, &call).is_none() => problems.at(
                    &pointer,
                    format!("{text} names no method of {} (or passes it too many arguments)", key.involved_classes.join(", ")),
                ),
                Ok(_) => {}
            }
        }
    }
    let turns = 1 + file.followups.len();
    if key.ground_truth.len() != turns {
        problems.at(
            "/expect/bfcl_multi_turn/ground_truth",
            format!(
                "{} turns of ground truth for {turns} user turns (the messages, then each followup): give one list of calls a turn",
                key.ground_truth.len()
            ),
        );
    }
}

/// Scripted results name offered tools (or `*`) and give a result or an error.
fn check_tool_results(file: &ScenarioFile, names: &HashSet<String>, problems: &mut Problems<'_, '_>) {
    for (i, rule) in file.tool_results.iter().enumerate() {
        if rule.tool != "*" && !names.contains(&rule.tool) {
            problems.at(
                &format!("/tool_results/{i}/tool"),
                format!("tool_results names tool {:?}, which is not among the scenario's tools", rule.tool),
            );
        }
        if rule.result.is_some() && rule.error.is_some() {
            problems.at(&format!("/tool_results/{i}/error"), "a tool_results rule has either \"result\" or \"error\", not both");
        }
    }
}

/// Outcome expectations need a workspace, and their calls name offered tools.
fn check_outcome(file: &ScenarioFile, names: &HashSet<String>, problems: &mut Problems<'_, '_>) {
    let expect = &file.expect;
    if expect.judges_state() && file.workspace.is_none() {
        problems.at("/expect", "state checks need a starting tree: add \"workspace\": {\"files\": {...}} or {\"folder\": \"...\"}");
    }
    for (list, marks) in [("milestones", &expect.milestones), ("minefields", &expect.minefields)] {
        for (i, m) in marks.iter().enumerate() {
            let pointer = format!("/expect/{list}/{i}");
            if m.call.is_none() && m.state.is_empty() {
                problems.at(&pointer, format!("{list} entry {:?} needs \"call\" (a call pattern), \"state\" (checks) or both", m.name));
            }
            if let Some(call) = &m.call {
                let known = names.iter().any(|n| crate::core::glob::glob_matches(&call.tool, n));
                if !known {
                    problems.at(
                        &format!("{pointer}/call/tool"),
                        format!("{list} entry {:?} names tool {:?}, which no offered tool matches", m.name, call.tool),
                    );
                }
            }
        }
    }
}

/// The starting tree, from inline files or a folder beside the scenario.
fn load_workspace(file: &ScenarioFile, problems: &mut Problems<'_, '_>) -> Option<Arc<crate::world::Workspace>> {
    use crate::world::{path, Limits, Workspace};
    let spec = file.workspace.as_ref()?;
    let built = match (&spec.files, &spec.folder) {
        (Some(files), None) => Workspace::from_files(files.clone(), Limits::default()),
        (None, Some(folder)) => {
            let suite = problems.src.path().parent().unwrap_or(std::path::Path::new("."));
            if let Err(why) = inside_suite(suite, folder) {
                problems.at("/workspace/folder", format!("scenario {:?}: {why}", crate::quote::quoted(&file.id)));
                return None;
            }
            Workspace::from_folder(&suite.join(folder), Limits::default())
        }
        _ => {
            problems.at("/workspace", "a workspace has \"files\" (inline) or \"folder\" (beside the scenario file): give exactly one");
            return None;
        }
    };
    let ws = match built {
        Ok(ws) => ws,
        Err(e) => {
            problems.at("/workspace", e.to_string());
            return None;
        }
    };
    let ws = match &spec.mount {
        Some(m) if !m.starts_with('/') || m.len() < 2 || path::normalize(&m[1..]).is_err() => {
            problems.at("/workspace/mount", format!("mount {m:?} must be an absolute folder such as \"/workspace\""));
            return None;
        }
        Some(m) => ws.with_mount(m.trim_end_matches('/')),
        None => ws,
    };
    Some(Arc::new(ws))
}

/// Whether a workspace folder lies inside the suite's own folder once links
/// are resolved: an absolute path, a `..` or a link out would put a host
/// file in front of the model, into the events and the cassettes.
fn inside_suite(suite: &std::path::Path, folder: &str) -> Result<(), FolderError> {
    let escapes = |how: Escape| Err(FolderError::Escapes { folder: folder.to_string(), how });
    if std::path::Path::new(folder).is_absolute() {
        return escapes(Escape::Absolute);
    }
    let suite = match suite.canonicalize() {
        Ok(s) => s,
        Err(source) => return Err(FolderError::Suite { suite: suite.to_path_buf(), source }),
    };
    match suite.join(folder).canonicalize() {
        Ok(real) if real.starts_with(&suite) => Ok(()),
        Ok(real) => escapes(Escape::Outside { real: real.display().to_string() }),
        // Missing: `from_folder` names it; a `..` is refused before anything is read.
        Err(_) if std::path::Path::new(folder).components().any(|c| c == std::path::Component::ParentDir) => escapes(Escape::GoesUp),
        Err(_) => Ok(()),
    }
}

/// Why a scenario's workspace folder cannot be used.
#[derive(Debug, thiserror::Error)]
enum FolderError {
    #[error(
        "workspace folder {:?} {how}; a workspace's folder must lie inside the suite's own folder: copy the files there",
        crate::quote::quoted(folder)
    )]
    Escapes { folder: String, how: Escape },
    #[error("cannot resolve the suite folder {}: {source}", suite.display())]
    Suite { suite: std::path::PathBuf, source: std::io::Error },
}

/// How a workspace folder leaves the suite's folder.
#[derive(Debug, thiserror::Error)]
enum Escape {
    #[error("is an absolute path")]
    Absolute,
    #[error("resolves to {}, outside the suite", crate::quote::quoted(real))]
    Outside { real: String },
    #[error("goes up with `..`")]
    GoesUp,
}

/// The checked scenario; a BFCL key also gives the calls a right answer makes.
fn assemble(
    file: ScenarioFile,
    suite: &str,
    origin: String,
    tools: Vec<Arc<Tool>>,
    workspace: Option<Arc<crate::world::Workspace>>,
) -> Scenario {
    let injection = file.injection.as_ref().and_then(|spec| spec.resolve().ok()).map(Arc::new);
    let mut expect = file.expect;
    let reference_by_turn = expect.bfcl_multi_turn.as_ref().map(multi_turn_reference).unwrap_or_default();
    if let Some(bfcl) = &expect.bfcl {
        // What a right answer sends, for the simulated models; the verdict comes from the key.
        expect.calls = super::bfcl_answer::answer_steps(bfcl);
        expect.no_call = bfcl.category.wants_no_call();
    }
    Scenario {
        suite: suite.to_string(),
        id: file.id,
        description: file.description,
        tags: file.tags,
        tools,
        messages: file.messages,
        followups: file.followups,
        tool_results: file.tool_results,
        approvals: file.approvals,
        workspace,
        reference: file.reference,
        reference_by_turn,
        expect,
        origin,
        injection,
    }
}

/// A BFCL multi-turn key's ground truth as the calls a right answer makes,
/// per turn (for the simulated models; the loader checked every call reads
/// and names a method). A run of calls to one tool is one step, made
/// together as a capable model batches them (a long-context turn removes
/// dozens of files; one call a step would pass BFCL's 20 steps a turn).
fn multi_turn_reference(key: &crate::bfcl::multi_turn::judge::MultiTurnKey) -> Vec<Vec<ExpectedStep>> {
    use super::{Alternatives, ExpectedCall};
    use crate::core::matcher::ValueMatcher;
    let turns = key.ground_truth_calls().unwrap_or_default();
    turns
        .iter()
        .map(|calls| {
            calls
                .iter()
                .map(|call| {
                    let named = crate::bfcl::multi_turn::named_args(&key.involved_classes, call).unwrap_or_default();
                    let exact = named.iter().map(|(k, v)| (k.clone(), v.to_json())).collect();
                    let args = named.into_iter().map(|(k, v)| (k, Alternatives(vec![ValueMatcher::Exact(v.to_json())]))).collect();
                    ExpectedCall { tool: call.name.clone(), args, exact: Some(exact) }
                })
                .collect::<Vec<_>>()
                .chunk_by(|a, b| a.tool == b.tool)
                .map(|run| match run {
                    [one] => ExpectedStep::One(one.clone()),
                    many => ExpectedStep::Parallel(many.to_vec()),
                })
                .collect()
        })
        .collect()
}

/// A key as a JSON Pointer token (RFC 6901).
pub(super) fn escape_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn a_suite_folder_that_cannot_be_resolved_keeps_the_io_error_as_its_source() {
        let err = inside_suite(std::path::Path::new("/nonexistent/calltape-suite"), "files").unwrap_err();
        assert!(err.to_string().starts_with("cannot resolve the suite folder /nonexistent/calltape-suite: "), "{err}");
        assert!(err.source().and_then(|s| s.downcast_ref::<std::io::Error>()).is_some());
        let absolute = inside_suite(std::path::Path::new("."), "/etc").unwrap_err();
        assert_eq!(
            absolute.to_string(),
            "workspace folder \"/etc\" is an absolute path; a workspace's folder must lie inside the suite's own folder: copy the files there"
        );
    }
}
