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

/// A table laid out: header, rule and rows, and how many columns were left out.
pub struct Fitted {
    pub lines: Vec<String>,
    pub hidden: usize,
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
    let mut hidden = 0;
    // 1. Optional columns, from the right.
    while total(&widths) > width {
        let Some(i) = columns.iter().rposition(|c| c.keep == Keep::Extra) else { break };
        drop(i, &mut columns, &mut rows, &mut widths);
        hidden += 1;
    }
    // 2. Names, the widest first, down to NAME_MIN.
    while total(&widths) > width {
        let widest = (0..columns.len()).filter(|i| !columns[*i].numeric && widths[*i] > NAME_MIN).max_by_key(|i| widths[*i]);
        let Some(i) = widest else { break };
        widths[i] -= (total(&widths) - width).min(widths[i] - NAME_MIN);
    }
    // 3. Any column, from the right, keeping the first two.
    while total(&widths) > width && columns.len() > 2 {
        drop(columns.len() - 1, &mut columns, &mut rows, &mut widths);
        hidden += 1;
    }
    let line = |cells: Vec<String>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let c = cut(c, widths[i]);
                if columns[i].numeric {
                    format!("{c:>w$}", w = widths[i])
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect();
        // 4. Whatever is still too wide (a very narrow terminal) is cut.
        cut(parts.join("  ").trim_end(), width)
    };
    let mut lines = vec![line(columns.iter().map(|c| c.label.clone()).collect())];
    lines.push(cut(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>().join("  "), width));
    lines.extend(rows.into_iter().map(line));
    Fitted { lines, hidden }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(label: &str, numeric: bool, keep: Keep) -> Column {
        Column { label: label.into(), numeric, keep }
    }

    #[test]
    fn extras_go_first_then_names_are_cut_then_columns() {
        let columns = vec![col("model", false, Keep::Core), col("pass", true, Keep::Core), col("calls", true, Keep::Extra)];
        let rows = vec![vec!["qwen2.5-coder-0.5b-local-text".to_string(), "0.389".into(), "26".into()]];
        let wide = fit(columns.clone(), rows.clone(), 100);
        assert_eq!((wide.lines[2].as_str(), wide.hidden), ("qwen2.5-coder-0.5b-local-text  0.389     26", 0));
        let narrower = fit(columns.clone(), rows.clone(), 36);
        assert_eq!((narrower.lines[2].as_str(), narrower.hidden), ("qwen2.5-coder-0.5b-local-text  0.389", 1));
        let narrow = fit(columns.clone(), rows.clone(), 20);
        assert_eq!(narrow.lines[2], "qwen2.5-code…  0.389");
        assert_eq!(narrow.lines[0], "model           pass");
        let tiny = fit(columns, rows, 8);
        assert!(tiny.lines.iter().all(|l| l.chars().count() <= 8), "{:?}", tiny.lines);
    }

    #[test]
    fn cut_marks_what_it_left_out() {
        assert_eq!(cut("read_file", 9), "read_file");
        assert_eq!(cut("read_file", 5), "read…");
        assert_eq!(cut("x", 0), "");
    }
}
