//! A text format's file per table (CSV, JSON): each table written into
//! `dir/<stem>.<ext>`, or rendered as `(<stem>.<ext>, bytes)`, a table at a
//! time (a run's per-unit tables are the largest reports, and need not be
//! held as text too).

use std::io::Write;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use super::ReportError;
use crate::metrics::table::{Table, TableVisitor};
use crate::metrics::Tables;

/// A format that writes one table as a file's bytes.
pub trait TableFormat {
    /// The files' extension.
    const EXT: &'static str;
    fn write_table<T: Table>(rows: &[T], out: impl Write) -> std::io::Result<()>;
}

/// Writes every table into `dir/<stem>.<ext>`, returning the paths written.
pub fn write_files<F: TableFormat>(tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let mut files = Files::<F> { dir, written: Ok(Vec::new()), format: PhantomData };
    tables.rows.visit(&mut files);
    files.written
}

/// Renders every table as `(<stem>.<ext>, bytes)`.
pub fn render_files<F: TableFormat>(tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
    let mut bytes = Bytes::<F>(Ok(Vec::new()), PhantomData);
    tables.rows.visit(&mut bytes);
    bytes.0
}

struct Files<'a, F> {
    dir: &'a Path,
    written: Result<Vec<PathBuf>, ReportError>,
    format: PhantomData<F>,
}

impl<F: TableFormat> TableVisitor for Files<'_, F> {
    fn table<T: Table>(&mut self, rows: &[T]) {
        if let Ok(written) = &mut self.written {
            match super::write_file(self.dir, &format!("{}.{}", T::STEM, F::EXT), |w| F::write_table(rows, w)) {
                Ok(path) => written.push(path),
                Err(e) => self.written = Err(e),
            }
        }
    }
}

struct Bytes<F>(Result<Vec<(String, Vec<u8>)>, ReportError>, PhantomData<F>);

impl<F: TableFormat> TableVisitor for Bytes<F> {
    fn table<T: Table>(&mut self, rows: &[T]) {
        if let Ok(files) = &mut self.0 {
            let name = format!("{}.{}", T::STEM, F::EXT);
            let mut bytes = Vec::new();
            match F::write_table(rows, &mut bytes) {
                Ok(()) => files.push((name, bytes)),
                Err(e) => self.0 = Err(ReportError::Render { what: name, message: e.to_string() }),
            }
        }
    }
}
