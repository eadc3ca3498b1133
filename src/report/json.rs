//! JSON of every table: `<table>.json`, an array of row objects whose keys
//! are the CSV's columns (numbers as numbers, empty cells as null).

use std::io::Write;
use std::path::{Path, PathBuf};

use polars::prelude::*;
use serde_json::Value;

use super::{Exporter, ReportError};
use crate::metrics::Tables;
use crate::quote::{bounded, CELL_CHARS};

/// The JSON format.
pub struct Json;

fn cell(v: AnyValue<'_>) -> Value {
    match v {
        AnyValue::Null => Value::Null,
        AnyValue::Boolean(b) => Value::Bool(b),
        AnyValue::String(s) => Value::String(bounded(s, CELL_CHARS).into_owned()),
        AnyValue::StringOwned(s) => Value::String(bounded(&s, CELL_CHARS).into_owned()),
        AnyValue::Float64(x) => serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number),
        AnyValue::Float32(x) => serde_json::Number::from_f64(f64::from(x)).map_or(Value::Null, Value::Number),
        AnyValue::UInt64(x) => Value::from(x),
        AnyValue::UInt32(x) => Value::from(x),
        AnyValue::Int64(x) => Value::from(x),
        AnyValue::Int32(x) => Value::from(x),
        other => Value::String(other.to_string()),
    }
}

/// A table as an array of row objects, serialised row by row (a tree of
/// maps for a 100k-row table would cost several times the text). Keys are in
/// name order, as a JSON object's keys read back.
struct Rows<'a>(&'a DataFrame);

impl serde::Serialize for Rows<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeMap, SerializeSeq};
        let df = self.0;
        let mut columns: Vec<&Column> = df.columns().iter().collect();
        columns.sort_by(|a, b| a.name().cmp(b.name()));
        let mut rows = serializer.serialize_seq(Some(df.height()))?;
        for i in 0..df.height() {
            rows.serialize_element(&Row(&columns, i))?;
        }
        return rows.end();

        struct Row<'a>(&'a [&'a Column], usize);
        impl serde::Serialize for Row<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut row = serializer.serialize_map(Some(self.0.len()))?;
                for column in self.0 {
                    let value = column.get(self.1).map_err(S::Error::custom)?;
                    row.serialize_entry(column.name().as_str(), &cell(value))?;
                }
                row.end()
            }
        }
    }
}

/// A table as pretty-printed JSON text, ending in a newline, into `out`.
fn write_json(df: &DataFrame, mut out: impl Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut out, &Rows(df))?;
    out.write_all(b"\n")
}

/// A table as pretty-printed JSON text, ending in a newline.
fn to_json(df: &DataFrame) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    write_json(df, &mut bytes)?;
    Ok(bytes)
}

impl Exporter for Json {
    /// Straight into each file: a run's per-unit tables are the largest
    /// reports, and need not be held as text too.
    fn write(&self, tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
        tables.named().into_iter().map(|(stem, df)| super::write_file(dir, &format!("{stem}.json"), |w| write_json(df, w))).collect()
    }

    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        tables
            .named()
            .into_iter()
            .map(|(stem, df)| {
                let name = format!("{stem}.json");
                let bytes = to_json(df).map_err(|e| ReportError::Render { what: name.clone(), message: e.to_string() })?;
                Ok((name, bytes))
            })
            .collect()
    }
}
