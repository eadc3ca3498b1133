//! Reports: the run's tables rendered for people and tools. Every format is
//! an `Exporter` over the same `Tables`; `write_all` writes every file.

pub mod csv;
pub mod markdown;
mod sections;
pub mod terminal;
mod text;

use std::path::{Path, PathBuf};

use crate::metrics::Tables;

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot render {what}: {message}")]
    Render { what: String, message: String },
}

/// One output format: tables in, files out.
pub trait Exporter {
    /// The files this format writes, as (file name, contents).
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError>;
}

/// Writes every format into `dir`; returns the paths written.
pub fn write_all(tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let exporters: [&dyn Exporter; 2] = [&csv::Csv, &markdown::Markdown];
    let mut written = Vec::new();
    for exporter in exporters {
        for (name, bytes) in exporter.export(tables)? {
            let path = dir.join(name);
            std::fs::write(&path, bytes).map_err(|source| ReportError::Io { path: path.clone(), source })?;
            written.push(path);
        }
    }
    Ok(written)
}
