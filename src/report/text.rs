//! Turning a table into rows of display strings, shared by the terminal and
//! Markdown renderers so both show the same figures. Text cells are bounded
//! here; each renderer encodes them for its sink.

use polars::prelude::*;

use crate::metrics::schema;
use crate::quote::{bounded, CELL_CHARS};

/// A table as display strings.
pub struct TextTable {
    pub rows: Vec<Vec<String>>,
    /// Columns whose cells are numbers (right-aligned).
    pub numeric: Vec<bool>,
}

/// Formats one cell; the column name picks the precision.
fn cell(value: AnyValue<'_>, column: &str) -> String {
    match value {
        AnyValue::Null => "—".into(),
        AnyValue::Boolean(b) => if b { "yes" } else { "no" }.into(),
        AnyValue::Float64(x) => {
            if column.contains("rate") || column == schema::P_VALUE {
                format!("{x:.3}")
            } else if column.ends_with("_ratio") {
                format!("{x:.1}×")
            } else if column.contains("cost") {
                format!("{x:.4}")
            } else if column.ends_with("_ms") {
                format!("{x:.0}")
            } else {
                format!("{x:.2}")
            }
        }
        // A cell shows the start of a long text, never megabytes of it.
        AnyValue::String(s) => bounded(s, CELL_CHARS).into_owned(),
        AnyValue::StringOwned(s) => bounded(&s, CELL_CHARS).into_owned(),
        other => other.to_string(),
    }
}

/// What a pass-rate cell says for a model that answered no unit: it has
/// no rate, and a blank would read as missing data, a 0 as a score.
pub const NO_ANSWER: &str = "errored";

/// Per row, whether it is a model that answered no unit and errored some
/// (a per-model table with `scenarios` and `errored`); else none.
fn never_answered(df: &DataFrame) -> PolarsResult<Option<Vec<bool>>> {
    use crate::metrics::columns::u64s;
    if df.column(schema::SCENARIOS).is_err() || df.column(schema::ERRORED).is_err() {
        return Ok(None);
    }
    let (answered, errored) = (u64s(df, schema::SCENARIOS)?, u64s(df, schema::ERRORED)?);
    Ok(Some(answered.iter().zip(errored).map(|(a, e)| *a == 0 && e > 0).collect()))
}

/// The columns of `df` named in `columns` (all when empty), as text.
pub fn text_table(df: &DataFrame, columns: &[&str]) -> PolarsResult<TextTable> {
    let names: Vec<String> = if columns.is_empty() {
        df.get_column_names().iter().map(|s| s.to_string()).collect()
    } else {
        columns.iter().map(|s| s.to_string()).collect()
    };
    let never = never_answered(df)?;
    let mut table = TextTable { rows: vec![Vec::new(); df.height()], numeric: Vec::new() };
    for name in &names {
        let column = df.column(name)?;
        table.numeric.push(column.dtype().is_primitive_numeric());
        let pass = name.starts_with("pass");
        // Other rates and latencies of a model that never answered are over
        // no calls or answers: no figure.
        let other_rate = !pass && (name.contains("_rate") || name.ends_with("_ms"));
        for (i, row) in table.rows.iter_mut().enumerate() {
            let value = column.get(i)?;
            let never_answered = never.as_ref().is_some_and(|n| n[i]);
            row.push(if pass && value.is_null() && never_answered {
                NO_ANSWER.to_string()
            } else if other_rate && never_answered {
                "—".to_string()
            } else {
                cell(value, name)
            });
        }
    }
    Ok(table)
}

/// `x`, or `fallback` when `x` is NaN or infinite.
pub fn finite(x: f64, fallback: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        fallback
    }
}

/// A dollar amount with as many digits as small amounts need.
pub fn usd(x: f64) -> String {
    let x = finite(x, 0.0);
    match x.abs() {
        0.0 => "$0".into(),
        a if a >= 100.0 => format!("${x:.0}"),
        a if a >= 1.0 => format!("${x:.2}"),
        a if a >= 0.01 => format!("${x:.3}"),
        _ => format!("${x:.4}"),
    }
}
