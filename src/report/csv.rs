//! CSV of every table: `summary.csv`, `by_tool.csv`, `scenarios.csv`,
//! `by_scenario.csv`, `suites.csv`, `repairs.csv`, `pairs.csv`.
//! Written with the `csv` crate (polars' own writer pulls in its whole
//! streaming engine); numbers keep full precision. Text cells are bounded
//! and never start a spreadsheet formula (see `encode::csv_text`).

use polars::prelude::*;

use super::{encode, Exporter, ReportError};
use crate::metrics::Tables;
use crate::quote::{bounded, CELL_CHARS};

/// The CSV format.
pub struct Csv;

/// A text cell: bounded, and formula-safe for spreadsheets.
fn text(s: &str) -> String {
    encode::csv_text(&bounded(s, CELL_CHARS)).into_owned()
}

/// One cell; only text cells are encoded, so numbers stay numbers.
fn field(value: AnyValue<'_>) -> String {
    match value {
        AnyValue::Null => String::new(),
        AnyValue::String(s) => text(s),
        AnyValue::StringOwned(s) => text(&s),
        AnyValue::Float64(x) => x.to_string(),
        other => other.to_string(),
    }
}

/// Writes a table as CSV, a row at a time.
fn write_csv(df: &DataFrame, out: impl std::io::Write) -> std::io::Result<()> {
    let mut w = ::csv::Writer::from_writer(out);
    w.write_record(df.get_column_names().iter().map(|n| n.as_str()))?;
    let columns = df.columns();
    for row in 0..df.height() {
        let record: Vec<String> =
            columns.iter().map(|c| c.get(row).map(field)).collect::<PolarsResult<_>>().map_err(std::io::Error::other)?;
        w.write_record(&record)?;
    }
    w.flush()
}

fn to_csv(df: &DataFrame, name: &str) -> Result<Vec<u8>, ReportError> {
    let mut bytes = Vec::new();
    write_csv(df, &mut bytes).map_err(|e| ReportError::Render { what: name.into(), message: e.to_string() })?;
    Ok(bytes)
}

impl Exporter for Csv {
    fn write(&self, tables: &Tables, dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, ReportError> {
        tables.named().into_iter().map(|(stem, df)| super::write_file(dir, &format!("{stem}.csv"), |w| write_csv(df, w))).collect()
    }

    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        tables
            .named()
            .into_iter()
            .map(|(stem, df)| {
                let name = format!("{stem}.csv");
                to_csv(df, &name).map(|bytes| (name, bytes))
            })
            .collect()
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
        let bytes = to_csv(&tables.by_tool, "by_tool.csv").unwrap();
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
        assert_eq!(field(AnyValue::Float64(-1.5)), "-1.5");
        assert_eq!(field(AnyValue::Int64(-3)), "-3");
        assert_eq!(field(AnyValue::String("-3")), "'-3");
        let long = "=".repeat(5000);
        let cell = field(AnyValue::String(&long));
        assert!(cell.starts_with("'=") && cell.ends_with("(5000 bytes, 4000 not shown)"), "{cell}");
    }
}
