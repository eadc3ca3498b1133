//! Turning a table into rows of display strings, shared by the terminal and
//! Markdown renderers so both show the same figures. Text cells are bounded
//! here; each renderer encodes them for its sink.

use super::grid::{Cell, Section};
use crate::metrics::schema;
use crate::quote::{bounded, CELL_CHARS};

/// A table as display strings.
pub struct TextTable {
    pub rows: Vec<Vec<String>>,
    /// Columns whose cells are numbers (right-aligned).
    pub numeric: Vec<bool>,
}

/// Formats one cell; the column's key picks the precision.
fn cell(value: &Cell, column: &str) -> String {
    match value {
        Cell::Empty => "—".into(),
        Cell::Flag(b) => if *b { "yes" } else { "no" }.into(),
        Cell::Number(x) => {
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
        Cell::Count(x) => x.to_string(),
        // A cell shows the start of a long text, never megabytes of it.
        Cell::Text(s) => bounded(s, CELL_CHARS).into_owned(),
    }
}

/// What a pass-rate cell says for a model that answered no unit: it has
/// no rate, and a blank would read as missing data, a 0 as a score.
pub const NO_ANSWER: &str = "errored";

/// A section's columns as text.
pub fn text_table(section: &Section) -> TextTable {
    let never = section.never_answered.as_ref();
    let mut table = TextTable { rows: vec![Vec::new(); section.height], numeric: Vec::new() };
    for column in &section.columns {
        let name = column.key.as_str();
        table.numeric.push(column.numeric);
        let pass = name.starts_with("pass");
        // Other rates and latencies of a model that never answered are over
        // no calls or answers: no figure.
        let other_rate = !pass && (name.contains("_rate") || name.ends_with("_ms"));
        for (i, (row, value)) in table.rows.iter_mut().zip(&column.cells).enumerate() {
            let never_answered = never.is_some_and(|n| n[i]);
            row.push(if pass && *value == Cell::Empty && never_answered {
                NO_ANSWER.to_string()
            } else if other_rate && never_answered {
                "—".to_string()
            } else {
                cell(value, name)
            });
        }
    }
    table
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
