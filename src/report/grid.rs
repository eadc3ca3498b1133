//! The cells of a report section, taken from typed rows: each shown column
//! is a key (which picks how its numbers are shown, `text::cell`), a label,
//! and one cell per row, read from a row's field by a closure.

use crate::events::UnitKey;

/// One cell before it is formatted for a sink.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// No value (no rate where nothing was counted).
    Empty,
    Flag(bool),
    Count(u64),
    Number(f64),
    Text(String),
}

/// A field a section shows: how it becomes a cell, and whether its column
/// is a number column (right-aligned) whatever its values.
pub trait IntoCell {
    const NUMERIC: bool;
    fn into_cell(self) -> Cell;
}

impl IntoCell for u64 {
    const NUMERIC: bool = true;
    fn into_cell(self) -> Cell {
        Cell::Count(self)
    }
}

impl IntoCell for f64 {
    const NUMERIC: bool = true;
    fn into_cell(self) -> Cell {
        Cell::Number(self)
    }
}

impl IntoCell for Option<f64> {
    const NUMERIC: bool = true;
    fn into_cell(self) -> Cell {
        self.map_or(Cell::Empty, Cell::Number)
    }
}

impl IntoCell for Option<String> {
    const NUMERIC: bool = false;
    fn into_cell(self) -> Cell {
        self.map_or(Cell::Empty, Cell::Text)
    }
}

impl IntoCell for bool {
    const NUMERIC: bool = false;
    fn into_cell(self) -> Cell {
        Cell::Flag(self)
    }
}

impl IntoCell for String {
    const NUMERIC: bool = false;
    fn into_cell(self) -> Cell {
        Cell::Text(self)
    }
}

impl IntoCell for &str {
    const NUMERIC: bool = false;
    fn into_cell(self) -> Cell {
        Cell::Text(self.to_string())
    }
}

/// A column of a section.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The table's column name (or a display-only name): picks the
    /// precision, and names the CSV file a cut table links to.
    pub key: String,
    pub label: String,
    /// Right-aligned.
    pub numeric: bool,
    pub cells: Vec<Cell>,
}

impl Shown {
    /// The column `key`, labelled `label`, with `field` of each row.
    pub fn of<R, V: IntoCell>(key: &str, label: &str, rows: &[R], field: impl Fn(&R) -> V) -> Shown {
        Shown { key: key.into(), label: label.into(), numeric: V::NUMERIC, cells: rows.iter().map(|r| field(r).into_cell()).collect() }
    }
}

/// One titled table of a report.
#[derive(Debug, Clone, Default)]
pub struct Section {
    pub title: String,
    /// The shown columns, in order.
    pub columns: Vec<Shown>,
    /// How many rows.
    pub height: usize,
    /// Per row, whether it is a model that answered no unit and errored
    /// some (per-model tables only): its rates show `text::NO_ANSWER` or `—`.
    pub never_answered: Option<Vec<bool>>,
    /// The unit of each row, for tables that list units (the failures).
    pub units: Vec<UnitKey>,
    /// A line under the table, e.g. rows left out.
    pub note: Option<String>,
    /// Shown on the terminal too (else only in `report.md`).
    pub terminal: bool,
    /// On the terminal, only this many rows (the rest are in `report.md`).
    pub terminal_rows: Option<usize>,
}

impl Section {
    /// A section of `height` rows with these columns, shown on the terminal.
    pub fn new(title: &str, height: usize, columns: Vec<Shown>) -> Section {
        Section { title: title.into(), columns, height, terminal: true, ..Section::default() }
    }

    /// Whether a column `key` is shown.
    pub fn shows(&self, key: &str) -> bool {
        self.columns.iter().any(|c| c.key == key)
    }

    /// The first `n` rows.
    pub fn head(&self, n: usize) -> Section {
        let mut cut = self.clone();
        if self.height > n {
            cut.height = n;
            cut.columns.iter_mut().for_each(|c| c.cells.truncate(n));
            if let Some(never) = &mut cut.never_answered {
                never.truncate(n);
            }
            cut.units.truncate(n);
        }
        cut
    }
}
