//! The terminal tables: the report's sections as aligned text, laid out in
//! the terminal's width (`fit`). By default only the core figures
//! (`compact`); `View::all` prints every section. Cells are shown with their
//! control characters escaped: model text never moves the cursor, colours,
//! links or breaks a line.

use std::borrow::Cow;

use super::encode;
use super::fit::{self, Column, Keep};
use super::paint::Paint;
pub use super::render_view;
use super::sections::{sections, Section};
use super::text::text_table;
use crate::metrics::Tables;

/// How the tables are printed.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// Every section (else the core figures only).
    pub all: bool,
    /// Lines at most this wide (`usize::MAX`: as wide as they need).
    pub width: usize,
    pub paint: Paint,
}

/// One section as aligned text no wider than `width`: names are cut with
/// `…`, then columns that do not fit are left off from the right (they are
/// all in report.md and the CSV files). `keep` says which columns give way first.
pub(super) fn render(section: &Section, keep: &[Keep], view: &View) -> String {
    let width = view.width;
    let shown = section.terminal_rows.map_or_else(|| section.clone(), |n| section.head(n));
    let more_rows = section.height - shown.height;
    let mut t = text_table(&shown);
    // Escaped before measuring, so the columns line up as printed.
    for row in &mut t.rows {
        for cell in row.iter_mut() {
            if let Cow::Owned(escaped) = encode::terminal(cell) {
                *cell = escaped;
            }
        }
    }
    let title = view.paint.bold(&fit::cut(&section.title, width));
    let note = |text: &str| fit::cut(text, width) + "\n";
    if section.height == 0 {
        return format!("{title}\n{}", note(section.note.as_deref().unwrap_or("(none)")));
    }
    let columns: Vec<Column> = section
        .columns
        .iter()
        .zip(&t.numeric)
        .enumerate()
        .map(|(i, (shown, numeric))| Column {
            label: shown.label.clone(),
            numeric: *numeric,
            keep: keep.get(i).copied().unwrap_or(Keep::Core),
        })
        .collect();
    let fitted = fit::fit(columns, t.rows, width);
    let mut out = format!("{title}\n");
    for line in &fitted.lines {
        out.push_str(line);
        out.push('\n');
    }
    if more_rows > 0 {
        out.push_str(&note(&format!("({more_rows} more rows in report.md and the CSV files)")));
    }
    if let Some(text) = &section.note {
        text.lines().for_each(|line| out.push_str(&note(line)));
    }
    // A column left out is named, so a narrow screen never drops a figure silently.
    if !fitted.hidden.is_empty() {
        let more = crate::core::plural::count(fitted.hidden.len(), "more column");
        out.push_str(&note(&format!("({more}: {}; --wide shows every column)", fitted.hidden.join(", "))));
    }
    out
}

/// Every section as terminal text, each at most `width` columns wide.
pub fn render_tables(tables: &Tables, width: usize) -> String {
    render_all(tables, &View { all: true, width, paint: Paint::default() })
}

/// Every section shown on the terminal, as `view` asks.
pub fn render_all(tables: &Tables, view: &View) -> String {
    let rendered: Vec<String> = sections(tables).iter().filter(|s| s.terminal).map(|s| render(s, &[], view)).collect::<_>();
    rendered.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::encode::HOSTILE;
    use crate::report::sections::TERMINAL_TOOL_ROWS;

    #[test]
    fn model_text_prints_escaped_and_the_columns_still_line_up() {
        let texts: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
        let text = render_tables(&crate::fuzz_targets::tables_with_texts(&texts), 1000);
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert!(text.contains("\\x1b]8;;http://evil.example\\x07click") && text.contains("abc\\u{202e}fdp.exe"), "{text}");
        // The per-tool rows end in a right-aligned number: equal widths mean aligned columns.
        let section = text.split("Per model × tool").nth(1).unwrap();
        let rows: Vec<&str> = section.lines().skip(3).take_while(|l| !l.starts_with('(')).collect();
        assert_eq!(rows.len(), HOSTILE.len().min(TERMINAL_TOOL_ROWS), "{section}");
        let width = rows[0].chars().count();
        assert!(rows.iter().all(|r| r.chars().count() == width), "{rows:#?}");
    }

    #[test]
    fn the_default_view_fits_and_is_escaped_too() {
        let texts: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
        let tables = crate::fuzz_targets::tables_with_texts(&texts);
        for width in [60, 80, 100] {
            let text = render_view(&tables, &View { all: false, width, paint: Paint::default() });
            assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
            assert!(text.lines().all(|l| l.chars().count() <= width), "{text}");
        }
    }
}
