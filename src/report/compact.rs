//! The default terminal view: one screen with the core figures first — a
//! row per model (pass rate, invalid rate, fixed, still invalid, cost,
//! latency) and the tools with the most invalid calls. `--all` prints every
//! section instead. A column is one line of `MODEL_COLUMNS`.

use polars::prelude::*;

use super::fit::Keep;
use super::sections::Section;
use super::terminal::{self, View};
use crate::metrics::columns::strings;
use crate::metrics::schema;
use crate::metrics::Tables;
use crate::pipeline::InvalidKind;

/// Display-only column: calls repaired, locally or by the model.
const FIXED: &str = "fixed";

/// Calls cut off by the output limit (`InvalidKind::Truncated`'s column).
const TRUNCATED: &str = InvalidKind::Truncated.as_str();

/// The per-model table: (column, label, keep). Core figures first; the
/// `Extra` ones are shown when the width allows.
const MODEL_COLUMNS: &[(&str, &str, Keep)] = &[
    (schema::MODEL, "model", Keep::Core),
    (schema::SCENARIOS, "runs", Keep::Core),
    (schema::ERRORED, "errored", Keep::Core),
    (schema::PASS_RATE, "pass", Keep::Core),
    (schema::INVALID_RATE, "invalid", Keep::Core),
    (FIXED, "fixed", Keep::Core),
    (schema::STILL_INVALID, "still inv", Keep::Core),
    (TRUNCATED, "truncated", Keep::Core),
    (schema::TOTAL_COST_USD, "cost $", Keep::Core),
    (schema::LATENCY_P95_MS, "p95 ms", Keep::Core),
    (schema::PASS_RATE_NO_REPAIR, "w/o repair", Keep::Extra),
    (schema::CALLS, "calls", Keep::Extra),
    (schema::LATENCY_P50_MS, "p50 ms", Keep::Extra),
];

/// Columns shown only when some model has a count above zero.
const WHEN_ANY: [&str; 2] = [schema::ERRORED, TRUNCATED];

/// Whether a count column holds a value above zero.
fn any_above_zero(frame: &DataFrame, column: &str) -> bool {
    frame
        .column(column)
        .ok()
        .and_then(|c| c.as_materialized_series().cast(&DataType::Float64).ok())
        .and_then(|s| s.f64().ok().and_then(|v| v.max()))
        .is_some_and(|max| max > 0.0)
}

/// The per-tool table: the tools with the most invalid calls.
const TOOL_COLUMNS: &[(&str, &str, Keep)] = &[
    (schema::MODEL, "model", Keep::Core),
    (schema::TOOL, "tool", Keep::Core),
    (schema::CALLS, "calls", Keep::Core),
    (schema::INVALID, "invalid", Keep::Core),
    (FIXED, "fixed", Keep::Core),
    (schema::STILL_INVALID, "still inv", Keep::Core),
];

/// Rows of the per-tool table in the default view.
pub const TOOL_ROWS: usize = 6;

/// `df` with the display column `fixed`.
fn with_fixed(df: &DataFrame) -> PolarsResult<DataFrame> {
    df.clone().lazy().with_column((col(schema::REPAIRED_LOCAL) + col(schema::REPAIRED_MODEL)).alias(FIXED)).collect()
}

fn section(
    title: String,
    frame: DataFrame,
    columns: &[(&str, &str, Keep)],
    rows: Option<usize>,
    note: Option<String>,
) -> (Section, Vec<Keep>) {
    let section = Section {
        title,
        frame,
        columns: columns.iter().map(|(c, l, _)| (c.to_string(), l.to_string())).collect(),
        note,
        terminal: true,
        terminal_rows: rows,
    };
    (section, columns.iter().map(|(_, _, k)| *k).collect())
}

/// The default view's tables as text, each at most `view.width` wide.
pub fn render_compact(tables: &Tables, view: &View) -> PolarsResult<Vec<String>> {
    let models = with_fixed(&tables.summary)?;
    // Errored units and truncated calls are core figures when a run has
    // any; a column of zeros is left out.
    // With arms the "w/o repair" bound gives way to the measured arms below.
    let has_arms = strings(&models, schema::ARM)?.iter().any(|a| !a.is_empty());
    let shown: Vec<(&str, &str, Keep)> = MODEL_COLUMNS
        .iter()
        .filter(|(column, _, _)| !WHEN_ANY.contains(column) || any_above_zero(&models, column))
        .filter(|(column, _, _)| !(has_arms && *column == schema::PASS_RATE_NO_REPAIR))
        .copied()
        .collect();
    let per_model = section(format!("Per model ({})", models.height()), models, &shown, None, None);
    let tools = with_fixed(&tables.by_tool)?
        .lazy()
        .filter(col(schema::INVALID).gt(lit(0)))
        .sort_by_exprs(
            [col(schema::INVALID), col(schema::STILL_INVALID)],
            SortMultipleOptions::default().with_order_descending_multi([true, true]).with_maintain_order(true),
        )
        .collect()?;
    let note = (tools.height() == 0).then(|| "No invalid calls.".to_string());
    let per_tool = section("Per model × tool: the most invalid calls".into(), tools, TOOL_COLUMNS, Some(TOOL_ROWS), note);
    let mut shown = vec![per_model];
    // With arms, what each arm buys, measured, comes right after the models.
    if let Some(arms) = super::sections::arms(tables)? {
        let keep = vec![Keep::Core; arms.columns.len()];
        shown.push((arms, keep));
    }
    shown.push(per_tool);
    shown.iter().map(|(s, keep)| terminal::render(s, keep, view)).collect()
}
