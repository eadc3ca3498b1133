//! The layer rule of `docs/architecture.md`: modules import downward only.
//! Reads `src/**/*.rs`, collects the edges `use crate::…`, `crate::x::…` and
//! `super::…` between modules (top level, and one level deeper for the
//! modules whose parts are layers of their own), leaves out `#[cfg(test)]`
//! code, and fails on any import cycle (printing it) and on any import of
//! calltape's from `core`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules whose submodules are nodes of their own in the graph.
const SPLIT: [&str; 5] = ["bfcl", "pipeline", "provider", "transport", "world"];

/// The module path of a source file: `src/pipeline/repair/mod.rs` → `["pipeline", "repair"]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The graph node a module path belongs to.
fn node(path: &[String]) -> Option<String> {
    let top = path.first()?;
    if SPLIT.contains(&top.as_str()) && path.len() > 1 {
        return Some(format!("{top}::{}", path[1]));
    }
    Some(top.clone())
}

/// The text without `#[cfg(test)]` items (a test module, or one item) and comments.
fn without_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim_start().starts_with("#[cfg(test)]") {
            // Skip the item that follows: up to its closing brace or `;`.
            let (mut depth, mut opened) = (0i64, false);
            i += 1;
            while i < lines.len() {
                let l = lines[i];
                depth += l.matches('{').count() as i64 - l.matches('}').count() as i64;
                opened |= l.contains('{');
                i += 1;
                if (opened && depth <= 0) || (!opened && l.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        let code = lines[i].split("//").next().unwrap_or("");
        out.push_str(code);
        out.push('\n');
        i += 1;
    }
    out
}

/// The module paths a file's code names: `crate::a::b`, `super::x`, and the
/// members of `use crate::{a, b::c}` groups.
fn named_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = code;
    while let Some(at) = rest.find("crate::").into_iter().chain(rest.find("super::")).min() {
        let before_ok = at == 0 || !rest[..at].ends_with(|c: char| ident(c) || c == ':');
        let is_super = rest[at..].starts_with("super::");
        let tail = &rest[at + if is_super { 0 } else { 7 }..];
        rest = &rest[at + 7..];
        if !before_ok {
            continue;
        }
        // The base: the crate root, or the parent of this file's module (per `super`).
        let (mut base, mut tail) = (Vec::new(), tail);
        if is_super {
            // `super` is the parent of this module, whether it is `x.rs` or `x/mod.rs`.
            base = here.to_vec();
            while let Some(t) = tail.strip_prefix("super::") {
                base.pop();
                tail = t;
            }
        }
        if let Some(group) = tail.strip_prefix('{') {
            let end = group.find(';').unwrap_or(group.len());
            for member in group[..end].split(',') {
                let segs: Vec<String> = member.trim().trim_matches(['{', '}']).split("::").map(|s| s.trim().to_string()).collect();
                out.push(base.iter().cloned().chain(segs).collect());
            }
            continue;
        }
        let end = tail.find(|c: char| !(ident(c) || c == ':')).unwrap_or(tail.len());
        let segs = tail[..end].split("::").filter(|s| !s.is_empty()).map(str::to_string);
        out.push(base.iter().cloned().chain(segs).collect());
    }
    out
}

/// The node a named path reaches: the longest prefix that is a module.
fn target(path: &[String], modules: &BTreeSet<Vec<String>>) -> Option<String> {
    (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| modules.contains(p)).and_then(|p| node(&p))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Edges between nodes, each with the files that make it.
fn import_graph() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in &files {
        let here = module_path(&src, file);
        let name = file.file_name().unwrap().to_string_lossy();
        // The binary, the crate root and test-only files are not layers.
        if here.is_empty() || here == ["main"] || name == "tests.rs" || name == "test_support.rs" {
            continue;
        }
        let from = node(&here).unwrap();
        graph.entry(from.clone()).or_default();
        let code = without_tests(&std::fs::read_to_string(file).unwrap());
        for path in named_paths(&code, &here) {
            if let Some(to) = target(&path, &modules) {
                if to != from {
                    let rel = file.strip_prefix(&src).unwrap().display().to_string();
                    graph.entry(from.clone()).or_default().entry(to).or_default().insert(rel);
                }
            }
        }
    }
    graph
}

/// A cycle through `start`, if any (depth-first search).
fn cycle_from(start: &str, graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>) -> Option<Vec<String>> {
    fn walk(
        at: &str,
        start: &str,
        graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in graph.get(at).into_iter().flat_map(|m| m.keys()) {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if walk(next, start, graph, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    walk(start, start, graph, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn no_import_cycles() {
    let graph = import_graph();
    assert!(graph.len() > 20, "the source tree was not read: {:?}", graph.keys());
    let mut cycles = Vec::new();
    for start in graph.keys() {
        if let Some(cycle) = cycle_from(start, &graph) {
            let steps: Vec<String> = cycle
                .iter()
                .zip(cycle.iter().skip(1).chain(std::iter::once(&cycle[0])))
                .map(|(a, b)| format!("  {a} -> {b}   ({})", graph[a][b].iter().cloned().collect::<Vec<_>>().join(", ")))
                .collect();
            cycles.push(steps.join("\n"));
        }
    }
    assert!(cycles.is_empty(), "import cycles (move the shared type down, see docs/architecture.md):\n{}", cycles.join("\n\n"));
}

#[test]
fn core_imports_nothing_of_calltape() {
    let graph = import_graph();
    let upward: Vec<String> = graph
        .iter()
        .filter(|(from, _)| *from == "core")
        .flat_map(|(_, to)| to.iter().map(|(t, files)| format!("core -> {t} ({files:?})")))
        .collect();
    assert!(graph.contains_key("core"));
    assert!(upward.is_empty(), "core must import nothing of calltape's:\n{}", upward.join("\n"));
}

#[test]
fn the_reader_sees_edges_and_cycles() {
    // The parser itself: a `use` group, a `super` path, and test code ignored.
    let code =
        without_tests("use crate::{config::X, scenario};\nfn f() { super::y::z(); }\n#[cfg(test)]\nmod tests {\n use crate::runner;\n}\n");
    let here = vec!["pipeline".to_string(), "repair".to_string()];
    let paths = named_paths(&code, &here);
    assert_eq!(
        paths,
        vec![vec!["config".to_string(), "X".into()], vec!["scenario".into()], vec!["pipeline".into(), "y".into(), "z".into()]]
    );
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    graph.entry("a".into()).or_default().entry("b".into()).or_default();
    graph.entry("b".into()).or_default().entry("a".into()).or_default();
    assert_eq!(cycle_from("a", &graph), Some(vec!["a".to_string(), "b".into()]));
}

/// Edges that make no cycle today but cross the layers the wrong way: the
/// transport sits under the providers (it carries bytes, they read them)
/// and only its simulated part uses the simulator,
/// the pipeline stages under the configuration, the workspace (but its
/// executor) on `core` only, and nothing but the binary uses the command layer.
#[test]
fn no_edge_crosses_a_layer_upward() {
    let graph = import_graph();
    let forbidden = |from: &str, to: &str| {
        (from.starts_with("transport") && to.starts_with("provider"))
            // The simulated transport serves the simulator; no other transport uses it.
            || (from.starts_with("transport") && from != "transport::sim" && to == "sim")
            || (from.starts_with("pipeline") && to == "config")
            || (from != "cli" && to == "cli")
            // The workspace's tree, tools and shell sit on `core` alone, so a
            // scenario can hold a workspace; only its executor is above the pipeline.
            || (from.starts_with("world::") && from != "world::executor" && !to.starts_with("world::") && to != "core")
    };
    let upward: Vec<String> = graph
        .iter()
        .flat_map(|(from, to)| to.iter().filter(|(t, _)| forbidden(from, t)).map(move |(t, files)| format!("{from} -> {t} ({files:?})")))
        .collect();
    assert!(graph.keys().any(|m| m.starts_with("transport")) && graph.keys().any(|m| m.starts_with("pipeline")));
    assert!(upward.is_empty(), "imports across a layer upward (see docs/architecture.md):\n{}", upward.join("\n"));
}
