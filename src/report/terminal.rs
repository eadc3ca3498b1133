//! The terminal tables: the report's sections as aligned text.

use polars::prelude::*;

use super::sections::{sections, Section};
use super::text::text_table;
use crate::metrics::Tables;

fn render(section: &Section) -> PolarsResult<String> {
    let names: Vec<&str> = section.columns.iter().map(|(c, _)| c.as_str()).collect();
    let labels: Vec<&str> = section.columns.iter().map(|(_, l)| l.as_str()).collect();
    let t = text_table(&section.frame, &names)?;
    let widths: Vec<usize> = (0..labels.len())
        .map(|i| t.rows.iter().map(|r| r[i].chars().count()).chain([labels[i].chars().count()]).max().unwrap_or(0))
        .collect();
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
    if let Some(note) = &section.note {
        out.push_str(note);
        out.push('\n');
    }
    Ok(out)
}

/// Every section as terminal text (each under 120 columns).
pub fn render_tables(tables: &Tables) -> PolarsResult<String> {
    let rendered: Vec<String> = sections(tables)?.iter().filter(|s| s.terminal).map(render).collect::<PolarsResult<_>>()?;
    Ok(rendered.join("\n"))
}
