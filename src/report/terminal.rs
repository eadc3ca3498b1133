//! The terminal tables: per model and per model × tool, with short headers
//! so they fit a 120-column terminal.

use polars::prelude::*;

use super::text::{text_table, TextTable};
use crate::metrics::Tables;
use crate::pipeline::InvalidKind;

fn render(t: &TextTable, labels: &[String]) -> String {
    let widths: Vec<usize> = (0..labels.len())
        .map(|i| t.rows.iter().map(|r| r[i].chars().count()).chain([labels[i].chars().count()]).max().unwrap_or(0))
        .collect();
    let line = |cells: &[String]| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| if t.numeric[i] { format!("{c:>w$}", w = widths[i]) } else { format!("{c:<w$}", w = widths[i]) })
            .collect();
        parts.join("  ").trim_end().to_string()
    };
    let mut out = line(labels);
    out.push('\n');
    out.push_str(&widths.iter().map(|w| "─".repeat(*w)).collect::<Vec<_>>().join("  "));
    out.push('\n');
    for row in &t.rows {
        out.push_str(&line(row));
        out.push('\n');
    }
    out
}

/// Both tables as terminal text.
pub fn render_tables(tables: &Tables) -> PolarsResult<String> {
    let summary_columns = [
        ("model", "model"),
        ("scenarios", "runs"),
        ("passed", "passed"),
        ("pass_rate", "pass"),
        ("calls", "calls"),
        ("invalid", "invalid"),
        ("invalid_rate", "inv rate"),
        ("input_tokens", "in tok"),
        ("output_tokens", "out tok"),
        ("cost_usd", "cost $"),
        ("latency_p50_ms", "p50 ms"),
        ("latency_p95_ms", "p95 ms"),
    ];
    let names: Vec<&str> = summary_columns.iter().map(|(n, _)| *n).collect();
    let labels: Vec<String> = summary_columns.iter().map(|(_, l)| l.to_string()).collect();
    let mut out = String::from("Per model\n");
    out.push_str(&render(&text_table(&tables.summary, &names)?, &labels));

    // Only the invalid kinds that occurred, to keep the table narrow.
    let mut tool_columns = vec!["model", "tool", "calls", "invalid", "invalid_rate"];
    for kind in InvalidKind::ALL {
        let total: u64 = tables.by_tool.column(kind.as_str())?.as_materialized_series().sum::<u64>().unwrap_or(0);
        if total > 0 {
            tool_columns.push(kind.as_str());
        }
    }
    let labels: Vec<String> = tool_columns.iter().map(|c| if *c == "invalid_rate" { "inv rate".into() } else { c.replace('_', " ") }).collect();
    out.push_str("\nPer model × tool\n");
    out.push_str(&render(&text_table(&tables.by_tool, &tool_columns)?, &labels));
    Ok(out)
}
