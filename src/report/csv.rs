//! CSV of every table: `summary.csv`, `by_tool.csv`, `scenarios.csv`.

use polars::prelude::*;

use super::{Exporter, ReportError};
use crate::metrics::Tables;

/// The CSV format.
pub struct Csv;

fn to_csv(df: &DataFrame, name: &str) -> Result<Vec<u8>, ReportError> {
    let mut bytes = Vec::new();
    CsvWriter::new(&mut bytes)
        .finish(&mut df.clone())
        .map_err(|e| ReportError::Render { what: name.into(), message: e.to_string() })?;
    Ok(bytes)
}

impl Exporter for Csv {
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        Ok(vec![
            ("summary.csv".into(), to_csv(&tables.summary, "summary.csv")?),
            ("by_tool.csv".into(), to_csv(&tables.by_tool, "by_tool.csv")?),
            ("scenarios.csv".into(), to_csv(&tables.scenarios, "scenarios.csv")?),
        ])
    }
}
