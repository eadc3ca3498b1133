//! Stage 1: find the tool a call names — exactly, else after normalising
//! case and separators (`ReadFile`, `read-file`, `read.file` → `read_file`),
//! else (when allowed) the one tool whose name is a near miss (`read_fiel`).

use std::sync::Arc;

use crate::scenario::Tool;

/// How a call's tool name was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, strum::IntoStaticStr)]
#[cfg_attr(test, derive(strum::EnumIter))]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum NameMatch {
    Exact,
    Normalised,
    /// A unique near match by edit distance.
    Near,
    Unknown,
}

/// The name with case and `-`/`_`/`.`/space separators folded away, so that
/// camelCase, snake_case and kebab-case spellings compare equal.
pub fn normalise_name(name: &str) -> String {
    let separator = |c: &char| matches!(c, '_' | '-' | '.' | ' ');
    if name.is_ascii() {
        return name.chars().filter(|c| !separator(c)).map(|c| c.to_ascii_lowercase()).collect();
    }
    name.chars().filter(|c| !separator(c)).flat_map(char::to_lowercase).collect()
}

/// How far name resolution may go beyond an exact match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRepair {
    /// Exact names only.
    Off,
    /// Normalised and near matches too.
    On,
}

/// The tool `name` refers to, and how it was matched.
pub fn resolve_tool<'a>(name: &str, tools: &'a [Arc<Tool>], repair: NameRepair) -> (Option<&'a Arc<Tool>>, NameMatch) {
    if let Some(t) = tools.iter().find(|t| t.spec.name == name) {
        return (Some(t), NameMatch::Exact);
    }
    if repair == NameRepair::Off {
        return (None, NameMatch::Unknown);
    }
    let wanted = normalise_name(name);
    let mut candidates = tools.iter().filter(|t| t.folded_name == wanted);
    if let (Some(t), None) = (candidates.next(), candidates.next()) {
        return (Some(t), NameMatch::Normalised);
    }
    // A near miss: within 2 edits and a third of the name, and no tie;
    // names under five letters are too short to guess from.
    let len = wanted.chars().count();
    let limit = if len < 5 { 0 } else { 2.min(len / 3) };
    let mut best: Option<(usize, &Arc<Tool>)> = None;
    let mut tie = false;
    for t in tools {
        let d = bounded_distance(&wanted, &t.folded_name, limit);
        if d == 0 || d > limit {
            continue;
        }
        match best {
            Some((b, _)) if d > b => {}
            Some((b, _)) if d == b => tie = true,
            _ => {
                best = Some((d, t));
                tie = false;
            }
        }
    }
    match best {
        Some((_, t)) if !tie => (Some(t), NameMatch::Near),
        _ => (None, NameMatch::Unknown),
    }
}

/// Optimal-string-alignment distance: insertions, deletions, substitutions
/// and swaps of adjacent characters each cost one.
pub fn edit_distance(a: &str, b: &str) -> usize {
    bounded_distance(a, b, usize::MAX)
}

/// Whether `a` and `b` are at most `limit` edits apart. ASCII names whose
/// lengths differ by more are not measured, and the measuring stops once
/// the distance must exceed `limit` (alias matching asks this of every
/// unexpected name against every missing one).
pub fn within_edits(a: &str, b: &str, limit: usize) -> bool {
    if a.is_ascii() && b.is_ascii() && a.len().abs_diff(b.len()) > limit {
        return false;
    }
    bounded_distance(a, b, limit) <= limit
}

/// The distance, or `limit + 1` as soon as it must be over `limit`.
fn bounded_distance(a: &str, b: &str, limit: usize) -> usize {
    if a.is_ascii() && b.is_ascii() {
        return osa(a.as_bytes(), b.as_bytes(), limit);
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    osa(&a, &b, limit)
}

/// The distance over three rolling rows, on the stack for names up to 63
/// characters. A row comes only from the two before it, each cell at least
/// their smallest (plus one for the older): once both are over `limit`,
/// every later row is too.
fn osa<T: PartialEq>(a: &[T], b: &[T], limit: usize) -> usize {
    const STACK_WIDTH: usize = 64;
    let width = b.len() + 1;
    let mut on_stack = [0usize; 3 * STACK_WIDTH];
    let mut on_heap = Vec::new();
    let rows: &mut [usize] = if width <= STACK_WIDTH {
        &mut on_stack[..3 * width]
    } else {
        on_heap.resize(3 * width, 0);
        &mut on_heap
    };
    // rows[0] = i-2, rows[1] = i-1, rows[2] = i
    for (j, cell) in rows[width..2 * width].iter_mut().enumerate() {
        *cell = j;
    }
    let mut previous_min = 0;
    for i in 1..=a.len() {
        rows[2 * width] = i;
        let mut row_min = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[width + j] + 1).min(rows[2 * width + j - 1] + 1).min(rows[width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[j - 2] + 1);
            }
            rows[2 * width + j] = d;
            row_min = row_min.min(d);
        }
        if row_min > limit && previous_min >= limit {
            return limit + 1;
        }
        previous_min = row_min;
        rows.copy_within(width..3 * width, 0);
    }
    rows[width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{compile_tool, ToolSpec};

    fn tools(names: &[&str]) -> Vec<Arc<Tool>> {
        names
            .iter()
            .map(|n| {
                let spec =
                    ToolSpec { name: n.to_string(), description: String::new(), parameters: serde_json::json!({}), sensitive: false };
                Arc::new(compile_tool(spec).unwrap())
            })
            .collect()
    }

    #[test]
    fn exact_then_normalised_then_near_then_unknown() {
        let ts = tools(&["read_file", "Bash", "grep_search"]);
        assert_eq!(resolve_tool("read_file", &ts, NameRepair::On).1, NameMatch::Exact);
        for spelling in ["ReadFile", "read-file", "READ_FILE", "read.file", "bash"] {
            assert_eq!(resolve_tool(spelling, &ts, NameRepair::On).1, NameMatch::Normalised, "{spelling}");
        }
        for typo in ["read_fiel", "read_fle", "grep_serach", "grepsearch_"] {
            let (t, how) = resolve_tool(typo, &ts, NameRepair::On);
            assert_eq!(how, if typo == "grepsearch_" { NameMatch::Normalised } else { NameMatch::Near }, "{typo}");
            assert!(t.is_some());
        }
        // Short names get no near matches: "Bsh" is too far from "Bash" to guess.
        assert_eq!(resolve_tool("Bsh", &ts, NameRepair::On).1, NameMatch::Unknown);
        assert_eq!(resolve_tool("write_file", &ts, NameRepair::On).1, NameMatch::Unknown);
        assert_eq!(resolve_tool("ReadFile", &ts, NameRepair::Off).1, NameMatch::Unknown);
    }

    #[test]
    fn ambiguous_matches_are_unknown() {
        let ts = tools(&["read_file", "readFile"]);
        assert_eq!(resolve_tool("READFILE", &ts, NameRepair::On).1, NameMatch::Unknown);
        let ts = tools(&["list_dirs", "list_dira"]);
        assert_eq!(resolve_tool("list_dir", &ts, NameRepair::On).1, NameMatch::Unknown);
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("readfile", "readfiel"), 1);
        assert_eq!(edit_distance("abc", ""), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("ab", "ba"), 1);
    }

    #[test]
    fn bounded_distance_agrees_with_the_full_one() {
        let names = [
            "filepath",
            "targetfile",
            "readfile",
            "readfiel",
            "path",
            "file_path",
            "kitten",
            "sitting",
            "ab",
            "ba",
            "",
            "abcdef",
            "badcfe",
        ];
        for a in names {
            for b in names {
                let d = edit_distance(a, b);
                for limit in 0..4 {
                    assert_eq!(within_edits(a, b, limit), d <= limit, "{a} {b} {limit}");
                    assert_eq!(bounded_distance(a, b, limit).min(limit + 1), d.min(limit + 1), "{a} {b} {limit}");
                }
            }
        }
    }
}
