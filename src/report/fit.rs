//! A text table laid out in a given width, for the terminal. What gives way
//! first when it does not fit: the optional columns (`Keep::Extra`), then
//! long names (cut with `…`, never below `NAME_MIN`), then the rightmost
//! columns; a line that is still too wide is cut. The full cells are in
//! report.md and the CSV files, so nothing is lost.

/// Whether a column may be left out before names are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// A core figure: kept while names can still be cut.
    Core,
    /// Shown when the width allows.
    Extra,
}

/// One column of a table: its header and how its cells align.
#[derive(Debug, Clone)]
pub struct Column {
    pub label: String,
    /// Right-aligned (numbers) rather than left-aligned (names).
    pub numeric: bool,
    pub keep: Keep,
}

/// Names are cut no shorter than this before columns are left out.
pub const NAME_MIN: usize = 12;

/// Gap between columns.
const GAP: usize = 2;

/// A table laid out: header, rule and rows, and the columns left out.
pub struct Fitted {
    pub lines: Vec<String>,
    /// Labels of the columns left out, in table order.
    pub hidden: Vec<String>,
}

/// `text` in at most `width` characters, cut with `…` when longer.
pub fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}

/// A name in at most `width` characters: a model's arm (`@full`) tells
/// rows apart, so the base name is cut before it (`sim-cheap-ty…@full`).
pub fn cut_name(text: &str, width: usize) -> String {
    match text.rsplit_once('@') {
        Some((base, arm)) if text.chars().count() > width && arm.chars().count() + 3 <= width => {
            format!("{}@{arm}", cut(base, width - arm.chars().count() - 1))
        }
        _ => cut(text, width),
    }
}

/// `text` in at most `width` characters: its first characters, `…`, and
/// its last `tail` characters.
pub fn cut_around(text: &str, width: usize, tail: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= width || width < tail + 2 {
        return cut(text, width);
    }
    let head = width - 1 - tail;
    format!("{}…{}", chars[..head].iter().collect::<String>(), chars[chars.len() - tail..].iter().collect::<String>())
}

/// How the names of one column are cut to `width` so that different names
/// still look different: plainly ([`cut_name`], `None`), else with the
/// end kept that tells them apart, half the width or more (`Some(tail)`, at least
/// `HEAD_MIN` characters of start kept). `Err` when no cut does.
fn name_cut(names: &[&str], width: usize) -> Result<Option<usize>, ()> {
    let distinct = |cut: &dyn Fn(&str) -> String| {
        let mut seen: Vec<(String, &str)> = Vec::new();
        names.iter().all(|n| {
            let shown = cut(n);
            let clash = seen.iter().any(|(s, full)| *s == shown && full != n);
            seen.push((shown, n));
            !clash
        })
    };
    if distinct(&|n| cut_name(n, width)) {
        return Ok(None);
    }
    // At least half the room for the end: a name reads from both sides.
    let most = width.saturating_sub(HEAD_MIN + 1);
    let tails = ((width.saturating_sub(1) / 2).min(most)..=most).chain(1..(width.saturating_sub(1) / 2).min(most));
    tails.into_iter().find(|&tail| tail > 0 && distinct(&|n| cut_around(n, width, tail))).map(Some).ok_or(())
}

/// Characters of a name's start kept when its end is kept too.
const HEAD_MIN: usize = 5;

fn total(widths: &[usize]) -> usize {
    widths.iter().sum::<usize>() + GAP * widths.len().saturating_sub(1)
}

/// Lays out `rows` (one cell per column) under `columns` in `width` characters.
pub fn fit(mut columns: Vec<Column>, mut rows: Vec<Vec<String>>, width: usize) -> Fitted {
    let mut widths: Vec<usize> = (0..columns.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).chain([columns[i].label.chars().count()]).max().unwrap_or(0))
        .collect();
    let drop = |i: usize, columns: &mut Vec<Column>, rows: &mut Vec<Vec<String>>, widths: &mut Vec<usize>| {
        columns.remove(i);
        widths.remove(i);
        for row in rows.iter_mut() {
            row.remove(i);
        }
    };
    let order: Vec<String> = columns.iter().map(|c| c.label.clone()).collect();
    let mut hidden: Vec<String> = Vec::new();
    // 1. Optional columns, from the right.
    while total(&widths) > width {
        let Some(i) = columns.iter().rposition(|c| c.keep == Keep::Extra) else { break };
        hidden.push(columns[i].label.clone());
        drop(i, &mut columns, &mut rows, &mut widths);
    }
    // 2. Names, the widest first, down to NAME_MIN, or to the width that
    //    still tells them apart.
    let floors: Vec<usize> = (0..columns.len())
        .map(|i| {
            let names: Vec<&str> = rows.iter().map(|r| r[i].as_str()).collect();
            (NAME_MIN..widths[i]).find(|&w| name_cut(&names, w).is_ok()).unwrap_or(widths[i]).min(widths[i])
        })
        .collect();
    while total(&widths) > width {
        let widest = (0..columns.len()).filter(|i| !columns[*i].numeric && widths[*i] > floors[*i]).max_by_key(|i| widths[*i]);
        let Some(i) = widest else { break };
        widths[i] -= (total(&widths) - width).min(widths[i] - floors[i]);
    }
    // 3. Any column, from the right, keeping the first two.
    while total(&widths) > width && columns.len() > 2 {
        let i = columns.len() - 1;
        hidden.push(columns[i].label.clone());
        drop(i, &mut columns, &mut rows, &mut widths);
    }
    // A name column whose cut names would look alike keeps the end that
    // tells the rows apart (`qwen2.…0.5b-local`, `qwen2.…l-text`).
    let tails: Vec<Option<usize>> = (0..columns.len())
        .map(|i| {
            let names: Vec<&str> = rows.iter().map(|r| r[i].as_str()).collect();
            if columns[i].numeric {
                None
            } else {
                name_cut(&names, widths[i]).ok().flatten()
            }
        })
        .collect();
    let line = |cells: Vec<String>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if columns[i].numeric {
                    format!("{:>w$}", cut(c, widths[i]), w = widths[i])
                } else if let Some(tail) = tails[i] {
                    format!("{:<w$}", cut_around(c, widths[i], tail), w = widths[i])
                } else {
                    format!("{:<w$}", cut_name(c, widths[i]), w = widths[i])
                }
            })
            .collect();
        // 4. Whatever is still too wide (a very narrow terminal) is cut.
        cut(parts.join("  ").trim_end(), width)
    };
    let mut lines = vec![line(columns.iter().map(|c| c.label.clone()).collect())];
    lines.push(cut(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>().join("  "), width));
    lines.extend(rows.into_iter().map(line));
    hidden.sort_by_key(|label| order.iter().position(|o| o == label));
    Fitted { lines, hidden }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(label: &str, numeric: bool, keep: Keep) -> Column {
        Column { label: label.into(), numeric, keep }
    }

    #[test]
    fn names_that_would_look_alike_when_cut_keep_their_ends() {
        let columns = vec![col("model", false, Keep::Core), col("pass", true, Keep::Core)];
        let rows = vec![
            vec!["qwen2.5-coder-0.5b-local".to_string(), "0.25".into()],
            vec!["qwen2.5-coder-0.5b-local-text".to_string(), "0.33".into()],
        ];
        let fitted = fit(columns.clone(), rows.clone(), 20);
        assert_eq!(fitted.lines[2], "qwen2.5…-local  0.25");
        assert_eq!(fitted.lines[3], "qwen2.5…l-text  0.33");
        // 0.5b and 1.5b differ in the middle: the column stays wide enough to show it.
        let mut rows = rows;
        rows.push(vec!["qwen2.5-coder-1.5b-local".to_string(), "0.39".into()]);
        let fitted = fit(columns, rows, 20);
        let names: Vec<&str> = fitted.lines[2..].iter().map(|l| l.split("  ").next().unwrap()).collect();
        assert_eq!(names, ["qwen2…0.5b-local", "qwen2…local-text", "qwen2…1.5b-local"]);
    }

    #[test]
    fn a_cut_name_keeps_its_arm() {
        assert_eq!(cut_name("sim-cheap-types@local", 14), "sim-che…@local");
        assert_eq!(cut_name("sim-strong@off", 14), "sim-strong@off");
        assert_eq!(cut_name("a-long-model-name", 10), "a-long-mo…");
        // No room for the arm: cut as any text.
        assert_eq!(cut_name("model@a-very-long-arm", 8), "model@a…");
    }

    #[test]
    fn extras_go_first_then_names_are_cut_then_columns() {
        let columns = vec![col("model", false, Keep::Core), col("pass", true, Keep::Core), col("calls", true, Keep::Extra)];
        let rows = vec![vec!["qwen2.5-coder-0.5b-local-text".to_string(), "0.389".into(), "26".into()]];
        let wide = fit(columns.clone(), rows.clone(), 100);
        assert_eq!((wide.lines[2].as_str(), wide.hidden), ("qwen2.5-coder-0.5b-local-text  0.389     26", vec![]));
        let narrower = fit(columns.clone(), rows.clone(), 36);
        assert_eq!((narrower.lines[2].as_str(), narrower.hidden), ("qwen2.5-coder-0.5b-local-text  0.389", vec!["calls".to_string()]));
        let narrow = fit(columns.clone(), rows.clone(), 20);
        assert_eq!(narrow.lines[2], "qwen2.5-code…  0.389");
        assert_eq!(narrow.lines[0], "model           pass");
        let tiny = fit(columns, rows, 8);
        assert_eq!(tiny.hidden, ["calls"]);
        assert!(tiny.lines.iter().all(|l| l.chars().count() <= 8), "{:?}", tiny.lines);
    }

    #[test]
    fn cut_marks_what_it_left_out() {
        assert_eq!(cut("read_file", 9), "read_file");
        assert_eq!(cut("read_file", 5), "read…");
        assert_eq!(cut("x", 0), "");
    }
}
