//! The terminal tables: the report's sections as aligned text. Cells are
//! shown with their control characters escaped: model text never moves the
//! cursor, colours, links or breaks a line.

use std::borrow::Cow;

use polars::prelude::*;

use super::encode;

use super::sections::{sections, Section};
use super::text::text_table;
use crate::metrics::Tables;

/// One section as aligned text no wider than `width`: columns that do not
/// fit are left off from the right (they are all in report.md and the CSV).
fn render(section: &Section, width: usize) -> PolarsResult<String> {
    let names: Vec<&str> = section.columns.iter().map(|(c, _)| c.as_str()).collect();
    let mut labels: Vec<&str> = section.columns.iter().map(|(_, l)| l.as_str()).collect();
    let shown = section.terminal_rows.map_or(section.frame.clone(), |n| section.frame.head(Some(n)));
    let more_rows = section.frame.height() - shown.height();
    let mut t = text_table(&shown, &names)?;
    // Escaped before measuring, so the columns line up as printed.
    for row in &mut t.rows {
        for cell in row.iter_mut() {
            if let Cow::Owned(escaped) = encode::terminal(cell) {
                *cell = escaped;
            }
        }
    }
    let mut widths: Vec<usize> = (0..labels.len())
        .map(|i| t.rows.iter().map(|r| r[i].chars().count()).chain([labels[i].chars().count()]).max().unwrap_or(0))
        .collect();
    let mut hidden = 0;
    while widths.len() > 2 && widths.iter().sum::<usize>() + 2 * (widths.len() - 1) > width {
        widths.pop();
        labels.pop();
        t.numeric.pop();
        for row in &mut t.rows {
            row.pop();
        }
        hidden += 1;
    }
    let line = |cells: &[&str]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| if t.numeric[i] { format!("{c:>w$}", w = widths[i]) } else { format!("{c:<w$}", w = widths[i]) })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    if section.frame.height() == 0 {
        return Ok(format!("{}\n{}\n", section.title, section.note.as_deref().unwrap_or("(none)")));
    }
    let mut out = format!("{}\n{}\n", section.title, line(&labels));
    out.push_str(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>().join("  "));
    out.push('\n');
    for row in &t.rows {
        out.push_str(&line(&row.iter().map(String::as_str).collect::<Vec<_>>()));
        out.push('\n');
    }
    if more_rows > 0 {
        out.push_str(&format!("({more_rows} more rows in report.md and the CSV files)\n"));
    }
    if let Some(note) = &section.note {
        out.push_str(note);
        out.push('\n');
    }
    if hidden > 0 {
        out.push_str(&format!("({hidden} more columns in report.md and the CSV files)\n"));
    }
    Ok(out)
}

/// Every section as terminal text, each at most `width` columns wide.
pub fn render_tables(tables: &Tables, width: usize) -> PolarsResult<String> {
    let rendered: Vec<String> = sections(tables)?.iter().filter(|s| s.terminal).map(|s| render(s, width)).collect::<PolarsResult<_>>()?;
    Ok(rendered.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::encode::HOSTILE;
    use crate::report::sections::TERMINAL_TOOL_ROWS;

    #[test]
    fn model_text_prints_escaped_and_the_columns_still_line_up() {
        let texts: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
        let text = render_tables(&crate::fuzz_targets::tables_with_texts(&texts), 1000).unwrap();
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert!(text.contains("\\x1b]8;;http://evil.example\\x07click") && text.contains("abc\\u{202e}fdp.exe"), "{text}");
        // The per-tool rows end in a right-aligned number: equal widths mean aligned columns.
        let section = text.split("Per model × tool").nth(1).unwrap();
        let rows: Vec<&str> = section.lines().skip(3).take_while(|l| !l.starts_with('(')).collect();
        assert_eq!(rows.len(), HOSTILE.len().min(TERMINAL_TOOL_ROWS), "{section}");
        let width = rows[0].chars().count();
        assert!(rows.iter().all(|r| r.chars().count() == width), "{rows:#?}");
    }
}
