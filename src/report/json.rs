//! JSON of every table: `<table>.json`, an array of row objects whose keys
//! are the CSV's columns (numbers as numbers, empty cells as null).

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Exporter, ReportError};
use crate::metrics::table::{Table, TableVisitor};
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

/// Writes each table into `dir/<stem>.json`.
struct Files<'a> {
    dir: &'a Path,
    written: Result<Vec<PathBuf>, ReportError>,
}

impl TableVisitor for Files<'_> {
    fn table<T: Table>(&mut self, rows: &[T]) {
        if let Ok(written) = &mut self.written {
            match super::write_file(self.dir, &format!("{}.json", T::STEM), |w| write_json(rows, w)) {
                Ok(path) => written.push(path),
                Err(e) => self.written = Err(e),
            }
        }
    }
}

/// Renders each table as `(<stem>.json, bytes)`.
struct Bytes(Result<Vec<(String, Vec<u8>)>, ReportError>);

impl TableVisitor for Bytes {
    fn table<T: Table>(&mut self, rows: &[T]) {
        if let Ok(files) = &mut self.0 {
            let name = format!("{}.json", T::STEM);
            let mut bytes = Vec::new();
            match write_json(rows, &mut bytes) {
                Ok(()) => files.push((name, bytes)),
                Err(e) => self.0 = Err(ReportError::Render { what: name, message: e.to_string() }),
            }
        }
    }
}

impl Exporter for Json {
    /// Straight into each file: a run's per-unit tables are the largest
    /// reports, and need not be held as text too.
    fn write(&self, tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
        let mut files = Files { dir, written: Ok(Vec::new()) };
        tables.rows.visit(&mut files);
        files.written
    }

    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        let mut bytes = Bytes(Ok(Vec::new()));
        tables.rows.visit(&mut bytes);
        bytes.0
    }
}
