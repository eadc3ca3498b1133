//! Stage 1: find the tool a call names — exactly, else after normalising
//! case and separators (`ReadFile`, `read-file`, `read.file` → `read_file`),
//! else (when allowed) the one tool whose name is a near miss (`read_fiel`).

use std::sync::Arc;

use crate::core::names::normalise_name;
use crate::pipeline::tool::Tool;

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

/// Whether `a` and `b` are at most `limit` edits apart. Names whose lengths
/// differ by more are not measured, and the measuring stops once the
/// distance must exceed `limit` (alias matching asks this of every
/// unexpected name against every missing one).
pub fn within_edits(a: &str, b: &str, limit: usize) -> bool {
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

/// The distance over three rolling rows, on the stack for names up to 31
/// characters, computing only the band of cells within `limit` of the
/// diagonal: a cell outside it is over `limit` whatever it holds, so it is
/// read as `limit + 1` (each row marks the cell just past either edge).
/// Once two rows in a row are over `limit`, every later row is too: a cell
/// comes only from the two rows before it, at least their smallest plus one.
fn osa<T: PartialEq>(a: &[T], b: &[T], limit: usize) -> usize {
    const STACK_WIDTH: usize = 32;
    let over = limit.saturating_add(1);
    if a.len().abs_diff(b.len()) > limit {
        return over;
    }
    let width = b.len() + 1;
    let mut on_stack = [0usize; 3 * STACK_WIDTH];
    let mut on_heap = Vec::new();
    let rows: &mut [usize] = if width <= STACK_WIDTH {
        &mut on_stack[..3 * width]
    } else {
        on_heap.resize(3 * width, 0);
        &mut on_heap
    };
    // rows[0..width] = row i-2, rows[width..2 width] = i-1, rows[2 width..] = i
    for (j, cell) in rows[width..2 * width].iter_mut().enumerate() {
        *cell = if j <= limit { j } else { over };
    }
    let mut previous_min = 0;
    for i in 1..=a.len() {
        let lo = i.saturating_sub(limit).max(1);
        let hi = i.saturating_add(limit).min(b.len());
        let (older, current) = rows.split_at_mut(2 * width);
        let (before, last) = older.split_at(width);
        current[0] = if i <= limit { i } else { over };
        if lo > 1 {
            current[lo - 1] = over;
        }
        let mut row_min = if lo == 1 { current[0] } else { over };
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (last[j].saturating_add(1)).min(current[j - 1].saturating_add(1)).min(last[j - 1].saturating_add(cost));
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2].saturating_add(1));
            }
            let d = d.min(over);
            current[j] = d;
            row_min = row_min.min(d);
        }
        if hi < b.len() {
            current[hi + 1] = over;
        }
        if row_min > limit && previous_min >= limit {
            return over;
        }
        previous_min = row_min;
        rows.copy_within(width..3 * width, 0);
    }
    rows[width + b.len()].min(over)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::tools::ToolSpec;
    use crate::pipeline::tool::compile_tool;

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

    /// The textbook full-matrix distance, as the reference.
    fn full_osa(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[a.len()][b.len()]
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
            "startlineoneindexed",
            "start_line_one_index",
            "ａｂｃｄé",
            "abcde",
            "a_much_longer_parameter_name_than_thirty_two_chars",
            "a_much_longer_parameter_name_than_thirty_two_char",
        ];
        for a in names {
            for b in names {
                let d = full_osa(a, b);
                assert_eq!(edit_distance(a, b), d, "{a} {b}");
                for limit in 0..6 {
                    assert_eq!(within_edits(a, b, limit), d <= limit, "{a} {b} {limit}");
                    assert_eq!(bounded_distance(a, b, limit).min(limit + 1), d.min(limit + 1), "{a} {b} {limit}");
                }
            }
        }
    }
}
