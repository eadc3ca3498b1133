//! A suite file's text, and the problems found in it placed at a line and
//! a column (the parser's own positions, through `spans`).

use std::fmt;
use std::path::{Path, PathBuf};

use super::spans::{line_col, locate, serde_offset};

/// A problem in a suite's files, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct LoadError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // About the file or folder as a whole: no position to give.
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(f, "{}:{}:{}: {}", self.file.display(), self.line, self.column, self.message)
        }
    }
}

impl LoadError {
    pub(super) fn new(file: &Path, line: usize, column: usize, message: impl Into<String>) -> Self {
        LoadError { file: file.to_path_buf(), line, column, message: message.into() }
    }

    /// A serde_json error in `text` (which starts at line `first_line` of
    /// the file), its column counted in characters.
    pub(super) fn from_json(file: &Path, text: &str, first_line: usize, err: &serde_json::Error) -> Self {
        let message = err.to_string();
        // serde_json appends " at line L column C"; we print the position ourselves.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        let (line, column) = line_col(text, serde_offset(text, err.line(), err.column()));
        LoadError::new(file, first_line + line - 1, column, message)
    }
}

/// Text of one file, where positions inside it are looked up.
pub(super) struct SourceText<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
    /// Line number of `text`'s first line in the file.
    pub(super) first_line: usize,
}

impl SourceText<'_> {
    /// The file the text is in.
    pub(super) fn path(&self) -> &Path {
        self.path
    }

    /// An error at the value `pointer` (JSON Pointer) names in the text, as
    /// the parser reads it (the nearest enclosing value if it is absent).
    pub(super) fn error_at(&self, pointer: &str, message: impl Into<String>) -> LoadError {
        let (line, column) = line_col(self.text, locate(self.text, pointer));
        LoadError::new(self.path, self.first_line + line - 1, column, message)
    }
}
