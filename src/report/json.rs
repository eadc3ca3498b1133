//! JSON of every table: `<table>.json`, an array of row objects whose keys
//! are the CSV's columns (numbers as numbers, empty cells as null).

use polars::prelude::*;
use serde_json::{Map, Value};

use super::{Exporter, ReportError};
use crate::metrics::Tables;

/// The JSON format.
pub struct Json;

fn cell(v: AnyValue<'_>) -> Value {
    match v {
        AnyValue::Null => Value::Null,
        AnyValue::Boolean(b) => Value::Bool(b),
        AnyValue::String(s) => Value::String(s.to_string()),
        AnyValue::StringOwned(s) => Value::String(s.to_string()),
        AnyValue::Float64(x) => serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number),
        AnyValue::Float32(x) => serde_json::Number::from_f64(f64::from(x)).map_or(Value::Null, Value::Number),
        AnyValue::UInt64(x) => Value::from(x),
        AnyValue::UInt32(x) => Value::from(x),
        AnyValue::Int64(x) => Value::from(x),
        AnyValue::Int32(x) => Value::from(x),
        other => Value::String(other.to_string()),
    }
}

/// A table as an array of row objects.
pub fn rows(df: &DataFrame) -> PolarsResult<Value> {
    let names: Vec<String> = df.get_column_names().iter().map(|n| n.to_string()).collect();
    let columns = df.columns();
    let mut out = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let mut row = Map::new();
        for (name, column) in names.iter().zip(columns) {
            row.insert(name.clone(), cell(column.get(i)?));
        }
        out.push(Value::Object(row));
    }
    Ok(Value::Array(out))
}

impl Exporter for Json {
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        tables
            .named()
            .into_iter()
            .map(|(stem, df)| {
                let name = format!("{stem}.json");
                let value = rows(df).map_err(|e| ReportError::Render { what: name.clone(), message: e.to_string() })?;
                let mut bytes = serde_json::to_vec_pretty(&value).unwrap_or_default();
                bytes.push(b'\n');
                Ok((name, bytes))
            })
            .collect()
    }
}
