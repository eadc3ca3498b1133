//! The layers of `docs/architecture.md`, held by Cargo between crates and by
//! this test inside each crate.
//!
//! Cargo refuses a dependency cycle between crates; these tests hold the
//! rest:
//! - each crate's `lib.rs` says which calltape crates it may depend on, and
//!   its `Cargo.toml` depends on exactly those;
//! - no import cycle inside a crate, between files or between modules at
//!   any depth. The test reads `src/**/*.rs` (without `#[cfg(test)]` code
//!   and comments) and collects every path a file names — `use` items
//!   (`pub use` re-exports included), `crate::…`, `super::…`, `self::…` and
//!   a declared child's `child::…` — resolved to the file that defines it,
//!   following `pub use` re-exports to their source. The edges between a
//!   module and its own parts are left out: a `mod.rs` that holds what its
//!   children share, and re-exports them, is how Rust modules are made;
//! - where a crate's `lib.rs` orders its modules ("Inside, from the bottom:
//!   `a` < `b`, `c` < `d`"), no module imports one above it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;
/// Edges between modules, each with the files that make it.
type Graph = BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's crates: `(name, folder)`, the root package first.
fn crates() -> Vec<(String, PathBuf)> {
    let mut out = vec![("calltape".to_string(), root())];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("crates")).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for dir in dirs {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let name = manifest.lines().find_map(|l| l.strip_prefix("name = ")).unwrap().trim_matches('"').to_string();
        out.push((name, dir));
    }
    out
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
        out.push_str(lines[i].split("//").next().unwrap_or(""));
        out.push('\n');
        i += 1;
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The leaves of a `use` tree: `a::{b, c::{d, e as f}}` → `a::b`, `a::c::d`, `a::c::e`.
fn use_leaves(tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or_default();
        return vec![path.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()];
    };
    let prefix = tree[..open].trim();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut parts, mut depth, mut current) = (Vec::new(), 0, String::new());
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).flat_map(|p| use_leaves(&format!("{prefix}{p}"))).collect()
}

/// The leaf paths of a file's `use` items, private and public.
fn uses(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        // An item: `use` at the start of a line, after `pub` or `pub(…)` only.
        let head = rest[..at].rsplit('\n').next().unwrap_or_default().trim();
        let item = head.is_empty() || head == "pub" || (head.starts_with("pub(") && head.ends_with(')'));
        let end = rest[at..].find(';').map_or(rest.len(), |i| at + i);
        if item && (at == 0 || !rest[..at].ends_with(is_ident)) {
            out.extend(use_leaves(&rest[at + 4..end]));
        }
        rest = &rest[(at + 4).max(end)..];
    }
    out
}

/// The paths a file's code names from `starts` (`use` items included; the
/// graph reads them through `uses` as well, which adds no edge twice).
fn inline_paths(code: &str, starts: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == ':')) {
            let mut j = i;
            while j < bytes.len() && (is_ident(bytes[j]) || bytes[j] == ':') {
                j += 1;
            }
            let text: String = bytes[i..j].iter().collect();
            let segs: Vec<String> = text.split("::").filter(|s| !s.is_empty()).map(str::to_string).collect();
            if segs.len() > 1 && starts.contains(&segs[0]) {
                out.push(segs);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// A crate's sources read: each file's module, code and declared children.
struct Crate {
    files: BTreeMap<Module, (String, String)>,
    children: BTreeMap<Module, BTreeSet<String>>,
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

fn read_crate(dir: &Path) -> Crate {
    let src = dir.join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let (mut files, mut children) = (BTreeMap::new(), BTreeMap::new());
    for path in paths {
        let rel = path.strip_prefix(&src).unwrap().with_extension("");
        let mut module: Module = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
        // The binary and test-only files are not layers.
        let name = path.file_name().unwrap().to_string_lossy();
        if module == ["main"] || name == "tests.rs" || name == "test_support.rs" {
            continue;
        }
        if module.last().is_some_and(|p| p == "mod") || module == ["lib"] {
            module.pop();
        }
        let code = without_tests(&std::fs::read_to_string(&path).unwrap());
        let declared: BTreeSet<String> = code
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l.strip_prefix("pub ").or_else(|| l.split_once(") ").filter(|_| l.starts_with("pub(")).map(|x| x.1)).unwrap_or(l);
                l.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')).map(|m| m.trim().to_string())
            })
            .collect();
        children.insert(module.clone(), declared);
        let file = path.strip_prefix(root()).unwrap_or(&path).display().to_string();
        files.insert(module, (file, code));
    }
    Crate { files, children }
}

impl Crate {
    /// A path as the crate names it from `here`, made absolute (`None`: another crate's or std's).
    fn absolute(&self, here: &Module, segs: &[String]) -> Option<Module> {
        let (first, rest) = segs.split_first()?;
        match first.as_str() {
            // `crate::config` in a crate that re-exports another crate's `config` is that crate's.
            "crate" => rest.first().filter(|top| self.children.get(&Vec::new()).is_some_and(|c| c.contains(*top))).map(|_| rest.to_vec()),
            "self" => Some(here.iter().chain(rest).cloned().collect()),
            "super" => {
                let mut base = here.clone();
                let mut rest = segs;
                while let Some(("super", r)) = rest.split_first().map(|(s, r)| (s.as_str(), r)) {
                    base.pop();
                    rest = r;
                }
                Some(base.into_iter().chain(rest.iter().cloned()).collect())
            }
            child if self.children.get(here).is_some_and(|c| c.contains(child)) => Some(here.iter().chain(segs).cloned().collect()),
            _ => None,
        }
    }

    /// `(module, name) → path` for every `use` of the crate: a `pub use`
    /// re-exports, and a private one is still reachable from the module's
    /// own parts (`super::Name`).
    fn reexports(&self) -> BTreeMap<(Module, String), Module> {
        let mut out = BTreeMap::new();
        for (module, (_, code)) in &self.files {
            for leaf in uses(code) {
                if let Some(path) = self.absolute(module, &leaf) {
                    if let Some(name) = leaf.last() {
                        out.insert((module.clone(), name.clone()), path);
                    }
                }
            }
        }
        out
    }

    /// The file that defines what `path` names: the longest module prefix,
    /// followed through `pub use` re-exports.
    fn resolve(&self, path: &[String], reexports: &BTreeMap<(Module, String), Module>, hops: usize) -> Option<Module> {
        let n = (0..=path.len()).rev().find(|&n| self.files.contains_key(&path[..n]))?;
        let module = path[..n].to_vec();
        if let (Some(name), true) = (path.get(n), hops < 16) {
            if let Some(target) = reexports.get(&(module.clone(), name.clone())) {
                let mut next = target.clone();
                next.extend(path[n + 1..].iter().cloned());
                return self.resolve(&next, reexports, hops + 1).or(Some(module));
            }
        }
        Some(module)
    }

    /// Every edge between the crate's files, each with the file that makes it.
    fn graph(&self) -> Graph {
        let reexports = self.reexports();
        let mut graph = Graph::new();
        for (module, (file, code)) in &self.files {
            let mut starts: BTreeSet<String> = ["crate", "super", "self"].map(String::from).into();
            starts.extend(self.children.get(module).into_iter().flatten().cloned());
            let named = uses(code).into_iter().chain(inline_paths(code, &starts));
            graph.entry(module.clone()).or_default();
            for segs in named {
                let segs: Vec<String> = segs.into_iter().filter(|s| s != "*").collect();
                let Some(path) = self.absolute(module, &segs) else { continue };
                if let Some(to) = self.resolve(&path, &reexports, 0).filter(|to| to != module) {
                    graph.entry(module.clone()).or_default().entry(to).or_default().insert(file.clone());
                }
            }
        }
        graph
    }
}

/// The graph with each module cut to its first `depth` parts, leaving out
/// the edges between a module and its own parts.
fn collapsed(graph: &Graph, depth: usize) -> Graph {
    let mut out = Graph::new();
    for (from, tos) in graph {
        let a: Module = from.iter().take(depth).cloned().collect();
        for (to, files) in tos {
            let b: Module = to.iter().take(depth).cloned().collect();
            if a.starts_with(&b) || b.starts_with(&a) {
                continue;
            }
            out.entry(a.clone()).or_default().entry(b).or_default().extend(files.iter().cloned());
        }
    }
    out
}

/// A cycle through `start`, if any (depth-first search).
fn cycle_from(start: &Module, graph: &Graph) -> Option<Vec<Module>> {
    fn walk(at: &Module, start: &Module, graph: &Graph, path: &mut Vec<Module>, seen: &mut BTreeSet<Module>) -> bool {
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
    let mut path = vec![start.clone()];
    walk(start, start, graph, &mut path, &mut BTreeSet::new()).then_some(path)
}

fn name(module: &Module) -> String {
    if module.is_empty() {
        "(crate root)".into()
    } else {
        module.join("::")
    }
}

/// Every cycle of `graph`, each printed edge by edge with the files that make it.
fn cycles(graph: &Graph) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut reported: BTreeSet<BTreeSet<Module>> = BTreeSet::new();
    for start in graph.keys() {
        let Some(cycle) = cycle_from(start, graph) else { continue };
        if !reported.insert(cycle.iter().cloned().collect()) {
            continue;
        }
        let steps: Vec<String> = cycle
            .iter()
            .zip(cycle.iter().skip(1).chain(std::iter::once(&cycle[0])))
            .map(|(a, b)| format!("  {} -> {}   ({})", name(a), name(b), graph[a][b].iter().cloned().collect::<Vec<_>>().join(", ")))
            .collect();
        found.push(steps.join("\n"));
    }
    found
}

#[test]
fn no_import_cycle_between_files_or_modules_in_any_crate() {
    let mut problems = Vec::new();
    for (krate, dir) in crates() {
        let graph = read_crate(&dir).graph();
        assert!(graph.len() > 5, "{krate}: the source tree was not read: {:?}", graph.keys());
        let deepest = graph.keys().map(Vec::len).max().unwrap_or(1);
        let mut seen = BTreeSet::new();
        for depth in (1..=deepest).rev() {
            for cycle in cycles(&collapsed(&graph, depth)) {
                if seen.insert(cycle.clone()) {
                    problems.push(format!("{krate}:\n{cycle}"));
                }
            }
        }
    }
    assert!(problems.is_empty(), "import cycles (move the shared part down, see docs/architecture.md):\n{}", problems.join("\n\n"));
}

/// The calltape crates a crate's `lib.rs` says it may depend on ("May depend on: …").
fn declared_dependencies(dir: &Path) -> Option<BTreeSet<String>> {
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let start = lib.find("//! May depend on: ")?;
    let text: String = lib[start..].lines().take_while(|l| l.starts_with("//!") && l.trim() != "//!").collect();
    Some(text.split('`').skip(1).step_by(2).map(str::to_string).collect())
}

#[test]
fn each_crate_depends_on_what_its_lib_rs_says() {
    for (krate, dir) in crates() {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let deps = manifest.split("[dependencies]").nth(1).unwrap().split("\n[").next().unwrap();
        let actual: BTreeSet<String> = deps
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|(n, _)| n.trim().to_string()))
            .filter(|n| n.starts_with("calltape"))
            .collect();
        let declared = declared_dependencies(&dir).unwrap_or_else(|| panic!("{krate}: src/lib.rs has no \"//! May depend on: …\" line"));
        assert_eq!(actual, declared, "{krate}: Cargo.toml's calltape dependencies differ from what src/lib.rs says");
    }
}

/// `lib.rs`'s "Inside, from the bottom: `a`, `b` < `c` < …" as each module's level.
fn declared_order(dir: &Path) -> Option<BTreeMap<String, usize>> {
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let start = lib[..lib.find("Inside, from the bottom:")?].rfind('\n').map_or(0, |i| i + 1);
    let text: String = lib[start..].lines().take_while(|l| l.starts_with("//!")).map(|l| l.trim_start_matches("//!")).collect();
    let text = text.split_once("bottom:")?.1.split('.').next()?;
    let mut levels = BTreeMap::new();
    for (level, group) in text.split('<').enumerate() {
        for module in group.split('`').skip(1).step_by(2) {
            levels.insert(module.to_string(), level);
        }
    }
    Some(levels)
}

#[test]
fn modules_import_only_those_below_them_where_a_crate_orders_them() {
    let mut ordered = 0;
    for (krate, dir) in crates() {
        let Some(levels) = declared_order(&dir) else { continue };
        ordered += 1;
        let source = read_crate(&dir);
        let top: BTreeSet<String> = source.files.keys().filter_map(|m| m.first().cloned()).collect();
        let unplaced: Vec<&String> = top.iter().filter(|m| !levels.contains_key(*m)).collect();
        assert!(unplaced.is_empty(), "{krate}: src/lib.rs's order leaves out {unplaced:?}");
        let graph = collapsed(&source.graph(), 1);
        let upward: Vec<String> = graph
            .iter()
            .flat_map(|(from, tos)| tos.iter().map(move |(to, files)| (from, to, files)))
            .filter(|(from, to, _)| levels[&from[0]] <= levels[&to[0]])
            .map(|(from, to, files)| format!("  {} -> {} ({files:?})", name(from), name(to)))
            .collect();
        assert!(upward.is_empty(), "{krate}: imports sideways or upward in src/lib.rs's order:\n{}", upward.join("\n"));
    }
    assert!(ordered >= 2, "no crate's lib.rs was read for an order");
}

#[test]
fn the_reader_sees_use_trees_reexports_and_cycles() {
    let code = without_tests(
        "pub use crate::{config::X, scenario::{a, b as c}};\nuse super::y::z;\nfn f() { super::y::w(); child::g(); }\n#[cfg(test)]\nmod tests {\n use crate::runner;\n}\n",
    );
    let v = |s: &str| s.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(uses(&code), vec![v("crate::config::X"), v("crate::scenario::a"), v("crate::scenario::b"), v("super::y::z")]);
    let starts: BTreeSet<String> = ["super", "child"].map(String::from).into();
    // `use` items are read by `uses`; the scan of paths sees them too, harmlessly.
    assert_eq!(inline_paths(&code, &starts), vec![v("super::y::z"), v("super::y::w"), v("child::g")]);
    let mut graph = Graph::new();
    graph.entry(v("a")).or_default().entry(v("b")).or_default();
    graph.entry(v("b::x")).or_default().entry(v("a")).or_default();
    assert_eq!(cycles(&collapsed(&graph, 1)).len(), 1);
    assert!(cycles(&graph).is_empty());
}
