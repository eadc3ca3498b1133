//! Reports: the run's tables rendered for people and tools. Every format is
//! an `Exporter` over the same `Tables`; `write_all` writes every file.

pub mod anchor;
mod compact;
pub mod csv;
pub mod decision;
pub use crate::encode;
pub mod fit;
pub mod grid;
pub mod headline;
pub mod html;
mod injection;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod paint;
mod sections;
mod table_files;
pub mod terminal;
mod text;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::metrics::Tables;

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("cannot write {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("cannot render {what}: {message}")]
    Render { what: String, message: String },
    #[error("cannot write the reports: {0}")]
    Folder(#[from] crate::run_folder::FolderError),
}

/// A run folder's tables, and how long building and writing them took.
pub struct RenderedRun {
    pub tables: Tables,
    pub build_time: Duration,
    pub write_time: Duration,
}

/// Reads a run folder's `events.jsonl`, builds the tables and writes every
/// report file beside it: how `run` finishes and what `report` redoes.
pub fn render_run(dir: &Path) -> Result<RenderedRun, RenderRunError> {
    let path = dir.join("events.jsonl");
    if !path.is_file() {
        return Err(RenderRunError::NotARun(dir.to_path_buf()));
    }
    let started = Instant::now();
    let tables = crate::metrics::tables_from_file(&path).map_err(|e| match e {
        crate::metrics::TablesError::Events(e) => RenderRunError::Events(e),
        e => RenderRunError::Tables(e.to_string()),
    })?;
    let build_time = started.elapsed();
    // A folder from before markers, or copied without hidden files, is
    // written only if its events say calltape made it.
    crate::run_folder::adopt(dir).map_err(ReportError::from)?;
    write_all(&tables, dir)?;
    Ok(RenderedRun { tables, build_time, write_time: started.elapsed() - build_time })
}

/// Why a run folder could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderRunError {
    #[error("{0} is not a run folder: it has no events.jsonl (run folders are reports/<run-id>/)")]
    NotARun(PathBuf),
    #[error(transparent)]
    Events(#[from] crate::events::EventsError),
    #[error("cannot build the tables: {0}")]
    Tables(String),
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// One output format: tables in, files out.
pub trait Exporter {
    /// The files this format writes, as (file name, contents).
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError>;

    /// Writes this format's files into `dir`; returns their paths.
    fn write(&self, tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
        let mut written = Vec::new();
        for (name, bytes) in self.export(tables)? {
            written.push(crate::run_folder::write_bytes(dir, &name, &bytes)?);
        }
        Ok(written)
    }
}

/// Writes `dir/name` through a buffer as `fill` produces it, so a report
/// with a row per unit is never held whole; returns its path. The file is
/// replaced atomically and never through a link (see `run_folder`).
fn write_file(dir: &Path, name: &str, fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> Result<PathBuf, ReportError> {
    Ok(crate::run_folder::write_file(dir, name, fill)?)
}

/// Writes every format into `dir`; returns the paths written.
pub fn write_all(tables: &Tables, dir: &Path) -> Result<Vec<PathBuf>, ReportError> {
    let exporters: [&dyn Exporter; 5] = [&csv::Csv, &json::Json, &junit::Junit, &markdown::Markdown, &html::Html];
    let mut written = Vec::new();
    for exporter in exporters {
        written.extend(exporter.write(tables, dir)?);
    }
    Ok(written)
}

/// The tables as `view` asks: every section, or the core figures only
/// (here, above both views, so neither imports the other).
pub fn render_view(tables: &Tables, view: &terminal::View) -> String {
    if view.all {
        terminal::render_all(tables, view)
    } else {
        compact::render_compact(tables, view).join("\n")
    }
}
