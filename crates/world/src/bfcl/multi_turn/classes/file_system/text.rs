//! Python's string semantics the file system's results depend on:
//! `str.splitlines()`, `str.split()`'s whitespace and `c in value`.

use crate::bfcl::multi_turn::pyops::type_name;
use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::Py;

/// Python's `str.isspace()` for one character: Unicode's White_Space plus
/// the four ASCII separators `\x1c`–`\x1f`.
pub(super) fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Python's `str.splitlines()`: every line boundary Python knows (`\r\n`
/// is one), no empty last line for a trailing boundary.
pub(super) fn splitlines(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let boundary = matches!(c, '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}');
        if !boundary {
            continue;
        }
        lines.push(&s[start..i]);
        let mut end = i + c.len_utf8();
        if c == '\r' {
            if let Some((_, '\n')) = chars.peek() {
                chars.next();
                end += 1;
            }
        }
        start = end;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// Python's `c in value` for a one-character string `c`.
pub(super) fn contains_char(value: &Py, c: char) -> Result<bool, PyError> {
    let one = c.to_string();
    match value {
        Py::Str(s) => Ok(s.contains(c)),
        Py::List(items) | Py::Tuple(items) => Ok(items.iter().any(|item| item.as_str() == Some(one.as_str()))),
        Py::Dict(entries) => Ok(entries.iter().any(|(k, _)| *k == one)),
        other => Err(format!("argument of type '{}' is not iterable", type_name(other))),
    }
}
