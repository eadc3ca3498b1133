//! CSV of every table: `summary.csv`, `by_tool.csv`, `scenarios.csv`,
//! `by_scenario.csv`, `suites.csv`, `repairs.csv`, `pairs.csv`.
//! Written with the `csv` crate (polars' own writer pulls in its whole
//! streaming engine); numbers keep full precision. Text cells are bounded
//! and never start a spreadsheet formula (see `encode::csv_text`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::table_files::{self, TableFormat};
use super::{encode, Exporter, ReportError};
use crate::metrics::table::Table;
use crate::metrics::Tables;
use crate::quote::{bounded, CELL_CHARS};

/// The CSV format.
pub struct Csv;

/// A text cell: bounded, and formula-safe for spreadsheets.
fn text(s: &str) -> String {
    encode::csv_text(&bounded(s, CELL_CHARS)).into_owned()
}

/// One cell of a serialised row; only text cells are encoded, so numbers
/// stay numbers (an integer as one, a float in Rust's shortest form).
fn field(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => text(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(x), _, _) => x.to_string(),
            (None, Some(x), _) => x.to_string(),
            (None, None, Some(x)) => x.to_string(),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// Writes a table as CSV, a row at a time, its columns in table order.
fn write_csv<T: Table>(rows: &[T], out: impl std::io::Write) -> std::io::Result<()> {
    let mut w = ::csv::Writer::from_writer(out);
    w.write_record(T::COLUMNS)?;
    for row in rows {
        let Value::Object(cells) = serde_json::to_value(row)? else { return Err(std::io::Error::other("a row is not a struct")) };
        w.write_record(T::COLUMNS.iter().map(|c| cells.get(*c).map(field).unwrap_or_default()))?;
    }
    w.flush()
}

impl TableFormat for Csv {
    const EXT: &'static str = "csv";
    fn write_table<T: Table>(rows: &[T], out: impl std::io::Write) -> std::io::Result<()> {
        write_csv(rows, out)
    }
}

impl Exporter for Csv {
    fn write(&self, tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
        table_files::write_files::<Self>(tables, dir)
    }

    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        table_files::render_files::<Self>(tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::encode::HOSTILE;

    #[test]
    fn tool_names_become_formula_safe_cells_and_numbers_stay_numbers() {
        let texts: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
        let tables = crate::fuzz_targets::tables_with_texts(&texts);
        let mut bytes = Vec::new();
        write_csv(&tables.rows.by_tool, &mut bytes).unwrap();
        let mut reader = ::csv::Reader::from_reader(bytes.as_slice());
        let headers = reader.headers().unwrap().clone();
        let (tool, calls) = (headers.iter().position(|h| h == "tool").unwrap(), headers.iter().position(|h| h == "calls").unwrap());
        let rows: Vec<::csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), HOSTILE.len());
        for name in HOSTILE {
            let row = rows.iter().find(|r| r[tool] == *encode::csv_text(name)).unwrap_or_else(|| panic!("{name:?}"));
            assert_eq!(&row[calls], "1");
        }
        for cell in rows.iter().map(|r| &r[tool]) {
            assert!(!cell.trim_start().starts_with(['=', '+', '-', '@']) && !cell.starts_with(['\t', '\r']), "{cell:?}");
        }
    }

    #[test]
    fn numeric_cells_are_never_encoded() {
        assert_eq!(field(&Value::from(-1.5)), "-1.5");
        assert_eq!(field(&Value::from(2.0)), "2");
        assert_eq!(field(&Value::from(-3)), "-3");
        assert_eq!(field(&Value::from("-3")), "'-3");
        let long = "=".repeat(5000);
        let cell = field(&Value::from(long));
        assert!(cell.starts_with("'=") && cell.ends_with("(5000 bytes, 4000 not shown)"), "{cell}");
    }
}
