//! JSON of every table: `<table>.json`, an array of row objects whose keys
//! are the CSV's columns (numbers as numbers, empty cells as null).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::table_files::{self, TableFormat};
use super::{Exporter, ReportError};
use crate::metrics::table::Table;
use crate::metrics::Tables;
use crate::quote::{bounded, CELL_CHARS};

/// The JSON format.
pub struct Json;

/// A table as an array of row objects, serialised row by row (a tree of
/// maps for a 100k-row table would cost several times the text). Keys are in
/// name order, as a JSON object's keys read back; text cells are bounded.
struct Rows<'a, T>(&'a [T]);

impl<T: Table> serde::Serialize for Rows<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut rows = serializer.serialize_seq(Some(self.0.len()))?;
        for row in self.0 {
            let mut value = serde_json::to_value(row).map_err(S::Error::custom)?;
            if let Value::Object(cells) = &mut value {
                for cell in cells.values_mut() {
                    if let Value::String(s) = cell {
                        if let std::borrow::Cow::Owned(b) = bounded(s, CELL_CHARS) {
                            *s = b;
                        }
                    }
                }
            }
            rows.serialize_element(&value)?;
        }
        rows.end()
    }
}

/// A table as pretty-printed JSON text, ending in a newline, into `out`.
fn write_json<T: Table>(rows: &[T], mut out: impl Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut out, &Rows(rows))?;
    out.write_all(b"\n")
}

impl TableFormat for Json {
    const EXT: &'static str = "json";
    fn write_table<T: Table>(rows: &[T], out: impl std::io::Write) -> std::io::Result<()> {
        write_json(rows, out)
    }
}

impl Exporter for Json {
    /// Straight into each file: a run's per-unit tables are the largest
    /// reports, and need not be held as text too.
    fn write(&self, tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
        table_files::write_files::<Self>(tables, dir)
    }

    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        table_files::render_files::<Self>(tables)
    }
}
