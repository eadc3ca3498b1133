//! `report.md`: the tables as Markdown, fit for a pull-request comment.

use polars::prelude::IntoLazy;

use super::text::{text_table, TextTable};
use super::{Exporter, ReportError};
use crate::metrics::Tables;

/// The Markdown format.
pub struct Markdown;

fn markdown_table(t: &TextTable) -> String {
    let escape = |s: &str| s.replace('|', "\\|");
    let mut out = format!("| {} |\n", t.headers.join(" | "));
    let rule: Vec<&str> = t.numeric.iter().map(|n| if *n { "---:" } else { "---" }).collect();
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
    for row in &t.rows {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    out
}

/// The whole report as Markdown text.
pub fn render(tables: &Tables) -> Result<String, ReportError> {
    let render_err = |e: polars::error::PolarsError| ReportError::Render { what: "report.md".into(), message: e.to_string() };
    let mut out = String::from("# calltape report\n\n## Per model\n\n");
    out.push_str(&markdown_table(&text_table(&tables.summary, &[]).map_err(render_err)?));
    out.push_str("\n## Per model × tool\n\n");
    out.push_str(&markdown_table(&text_table(&tables.by_tool, &[]).map_err(render_err)?));
    let failed = tables
        .scenarios
        .clone()
        .lazy()
        .filter(polars::prelude::col("passed").not())
        .collect()
        .map_err(render_err)?;
    out.push_str(&format!("\n## Failed scenarios ({})\n\n", failed.height()));
    if failed.height() > 0 {
        out.push_str(&markdown_table(&text_table(&failed, &["model", "suite", "scenario", "trial", "reason"]).map_err(render_err)?));
    }
    Ok(out)
}

impl Exporter for Markdown {
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        Ok(vec![("report.md".into(), render(tables)?.into_bytes())])
    }
}
