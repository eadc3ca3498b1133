//! Pieces of JSON where JSON does not put them, found in the wild (issue
//! 48): a fenced JSON document written as a string value, fenced blocks
//! after the first one in prose, a table row whose `[` is missing.

use serde_json::Value;

use super::chars::*;
use super::parser::Parser;
use super::LenientFix;

impl Parser<'_> {
    /// `"```json {"a": [1]}```"`: a fenced JSON document written where a
    /// string value is, its quotes left unescaped (so it is no string as
    /// written): the document is the value. A fenced block that is a valid
    /// string (its quotes escaped, or none) stays a string. `None` having
    /// read nothing.
    #[cold]
    #[inline(never)]
    pub(super) fn fenced_value_in_string(&mut self) -> Option<Value> {
        let open = self.i + 1;
        if !self.starts_with(open, b"```") {
            return None;
        }
        let close = open + 3 + memchr::memmem::find(&self.b[open + 3..], b"```")?;
        let unescaped_quote = (open + 3..close).any(|k| self.at(k) == b'"' && self.at(k - 1) != b'\\');
        let mut end = close + 3;
        while is_ws(self.at(end)) {
            end += 1;
        }
        if !unescaped_quote || self.at(end) != b'"' {
            return None;
        }
        // the work stays counted when the document is not the value: an
        // input made of such strings nested stays within the budget
        self.work += close - open;
        // (an error leaves the depths where it arose: restored too)
        let saved = (self.i, self.last_end, self.fixes.clone(), self.depth, self.item_depth);
        self.i = open;
        self.skip_markdown_fence(&[b"```"]);
        let value = self.parse_value(Ctx::Plain).ok().flatten().filter(|v| v.is_object() || v.is_array());
        if value.is_none() || self.i != close {
            (self.i, self.last_end, self.fixes, self.depth, self.item_depth) = saved;
            return None;
        }
        self.i = end + 1;
        self.last_end = self.i;
        value
    }

    /// At the `]` after a run of plain items that follows arrays in
    /// `items`, the first and the last as long as the run (rows of a table): when a comma and
    /// a `[` come next, the run is one more row whose `[` is missing; wraps
    /// it and steps to the comma. (Rows of other lengths are left to the
    /// array-run rule, `"k": [[1, 2]], [3]`.)
    #[cold]
    pub(super) fn wrap_run_missing_its_bracket(&mut self, items: &mut Vec<Value>) -> bool {
        // the run: the plain items at the end (the caller saw the first
        // item is an array); looked at from the end only, as a table with
        // many such rows would make a look at every row quadratic
        let mut run = items.len();
        while run > 0 && !items[run - 1].is_array() && !items[run - 1].is_object() {
            run -= 1;
        }
        // rows of a table: the run as long as the first row and the last one
        let row = items.len() - run;
        let is_row = |v: &Value| v.as_array().is_some_and(|a| a.len() == row);
        if run == 0 || !is_row(&items[run - 1]) || !is_row(&items[0]) {
            return false;
        }
        let mut j = self.i + 1;
        while is_ws(self.at(j)) {
            j += 1;
        }
        let mut k = j + 1;
        while is_ws(self.at(k)) {
            k += 1;
        }
        if self.at(j) != b',' || self.at(k) != b'[' {
            return false;
        }
        let wrapped: Vec<Value> = items.drain(run..).collect();
        items.push(Value::Array(wrapped));
        self.note(LenientFix::UnbalancedBracket);
        self.i = j;
        true
    }
}

/// After the value of a closed fenced block (`first`, read by `q`): the
/// values of the fenced blocks that follow in the prose, with `first` as
/// an array (several values are kept as one, as elsewhere); `first` alone
/// when none follows. Each block must hold a whole object or array.
pub(super) fn more_fenced_blocks(text: &str, q: &Parser, first: Value) -> Value {
    let block_closed = |end: usize| text.as_bytes()[..end].trim_ascii_end().ends_with(b"```");
    if !block_closed(q.i) || !(first.is_object() || first.is_array()) {
        return first;
    }
    let mut values = vec![first];
    let mut from = q.i;
    while let Some(at) = text.get(from..).and_then(super::find_fence).map(|p| from + p) {
        let mut r = Parser::new(text, at);
        match r.parse_document(true) {
            Ok(v) if r.root_closed && (v.is_object() || v.is_array()) && block_closed(r.i) && r.i > at => {
                values.push(v);
                from = r.i;
            }
            _ => break,
        }
    }
    if values.len() == 1 {
        return values.pop().unwrap_or_default();
    }
    Value::Array(values)
}
