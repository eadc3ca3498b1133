//! Documents, values, objects, arrays and function-call wrappers: the
//! recursive part of the lenient parser.

use serde_json::{Map, Value};

use super::chars::*;
use super::parser::{fast_paths, Parser, OPENING_FENCES, R};
use super::{LenientError, LenientFix, MAX_DEPTH};

impl Parser<'_> {
    /// Reads one document from `self.i`. With `prefix`, text after the value
    /// is ignored (the caller reports it as surrounding text).
    pub(super) fn parse_document(&mut self, prefix: bool) -> R<Value> {
        if self.skip_markdown_fence(OPENING_FENCES) && self.starts_with(self.i, b"```") {
            self.note(LenientFix::EmptyAsObject); // an empty code block
            return Ok(Value::Object(Map::new()));
        }
        let Some(root) = self.parse_value(Ctx::Plain)? else {
            if self.i >= self.len() {
                self.note(LenientFix::EmptyAsObject);
                return Ok(Value::Object(Map::new()));
            }
            return Err(self.err_unexpected());
        };
        let mut root = root;
        if let Value::Object(map) = &mut root {
            self.reopen_object(map)?;
        }
        self.root_unquoted = self.last_unquoted;
        self.root_closed = self.last_closed;
        self.skip_markdown_fence(&[b"```", b"```]", b"```}"]);
        let comma = self.eat(b',');
        if comma {
            self.skip_ws_comments(true);
        }
        let next = self.at(self.i);
        // At the end, the usual case, no value starts: no call.
        // (another fenced block is no value: the caller reads the blocks)
        let concat = self.i < self.len()
            && self.is_start_of_value(self.i)
            && !self.starts_with(self.i, b"```")
            && if prefix {
                next == b'{' && root.is_object()
            } else {
                self.separated(self.last_end, self.i) || (matches!(next, b'{' | b'[') && (root.is_object() || root.is_array()))
            };
        let value = if concat {
            self.note(LenientFix::Concatenated);
            let mut items = vec![root];
            loop {
                if items.len() > 1 {
                    self.eat(b',');
                }
                if prefix && self.at(self.i) != b'{' {
                    break;
                }
                match self.parse_value(Ctx::Plain)? {
                    Some(v) => {
                        self.root_unquoted |= self.last_unquoted;
                        items.push(v);
                    }
                    None => break,
                }
            }
            Value::Array(items)
        } else {
            if comma {
                self.note(LenientFix::TrailingComma);
            }
            root
        };
        if prefix {
            return Ok(value);
        }
        if self.statement_end_at(self.i) {
            self.i = self.len();
            self.note(LenientFix::SurroundingText);
        }
        while matches!(self.at(self.i), b'}' | b']') {
            self.i += 1;
            self.note(LenientFix::UnbalancedBracket);
            self.skip_ws_comments(true);
        }
        if self.i >= self.len() {
            Ok(value)
        } else {
            Err(self.err_unexpected())
        }
    }

    /// After a closed root object: `{"a": 1}, "b": 2}` (a stray `}` closed
    /// the object early) reads on into the same object; so does `{"a":
    /// 1}, "b" 2}`, its colon missing too, when a brace too many closes the text.
    #[inline(never)]
    fn reopen_object(&mut self, map: &mut Map<String, Value>) -> R<()> {
        while self.last_closed && self.at(self.i) == b',' {
            let mut j = self.i + 1;
            while is_ws(self.at(j)) {
                j += 1;
            }
            let reopens = self.key_follows(j) || (self.at(j) == b'"' && self.one_brace_too_many(j));
            if !reopens {
                break;
            }
            self.note(LenientFix::UnbalancedBracket);
            self.i = j;
            let _set = self.parse_members(map, true, false)?;
            self.skip_ws_comments(true);
        }
        Ok(())
    }

    /// Whether the text from `j` closes one brace more than it opens
    /// (outside strings): `{"a": 1}, "b" 2}` then has a stray `}` after
    /// `1`, even with the colon after `"b"` missing.
    #[cold]
    fn one_brace_too_many(&mut self, j: usize) -> bool {
        // a scan to the end each time: counted, so a chain of them stays in budget
        self.work += self.len() - j;
        if self.work > self.budget {
            return false;
        }
        let (mut depth, mut in_string) = (0isize, false);
        for k in j..self.len() {
            match self.at(k) {
                b'"' if self.at(k - 1) != b'\\' => in_string = !in_string,
                b'{' if !in_string => depth += 1,
                b'}' if !in_string => depth -= 1,
                _ => {}
            }
        }
        depth < 0
    }

    /// At the end of the text after an empty string item: was it only its
    /// opening quote (`[1, "`), after a comma or the array's `[`?
    #[cold]
    fn cut_at_opening_quote(&self) -> bool {
        let quote = self.prev_non_ws(self.len().saturating_sub(1));
        self.quote_at(quote).is_some() && quote > 0 && matches!(self.at(self.prev_non_ws(quote - 1)), b',' | b'[')
    }

    // The recursive path is parse_value -> parse_object / parse_array /
    // parse_function_call -> parse_value. Those keep small frames; all other
    // work is in helpers kept out of line, so deep nesting stays cheap on the
    // stack (about 1 KiB per level unoptimized).
    pub(super) fn parse_value(&mut self, ctx: Ctx) -> R<Option<Value>> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.depth_error());
        }
        self.tick()?;
        self.skip_ws_comments(true);
        // A scalar read sets `last_unquoted` itself (as a flag rather than a
        // returned pair: a larger result cost a stall on every value moved).
        let mut scalar = false;
        let v = match self.at(self.i) {
            b'{' => Some(self.parse_object()?),
            b'[' => Some(self.parse_array(ctx)?),
            b'(' => Some(self.parse_tuple()?),
            // No function name starts with a quote.
            b'"' => {
                scalar = true;
                self.parse_scalar(ctx)?
            }
            // No string, keyword or function name starts here: a number
            // first, the order `parse_scalar` tries (it tries the number
            // again, reading nothing, when this is none).
            b'0'..=b'9' | b'-' | b'+' if fast_paths() => match self.parse_number(ctx) {
                Some(number) => Some(number),
                None => {
                    scalar = true;
                    self.parse_scalar(ctx)?
                }
            },
            _ => match if fast_paths() { self.parse_keyword(ctx) } else { None } {
                // A keyword is no function name either (`true (`).
                Some(keyword) => Some(keyword),
                None => match if is_fn_start(self.at(self.i)) { self.function_call_at(self.i) } else { None } {
                    Some(open) => Some(self.parse_function_call(self.i, open)?),
                    None => {
                        scalar = true;
                        self.parse_scalar(ctx)?
                    }
                },
            },
        };
        if !scalar {
            self.last_unquoted = false;
        }
        self.skip_ws_comments(true);
        self.depth -= 1;
        Ok(v)
    }

    #[cold]
    #[inline(never)]
    pub(super) fn depth_error(&self) -> Box<LenientError> {
        self.err(format!("Nesting deeper than {MAX_DEPTH}"), self.i)
    }

    /// A scalar: string, number, keyword, unquoted string or regex; sets
    /// `last_unquoted` to whether it was an unquoted string.
    #[inline(never)]
    pub(super) fn parse_scalar(&mut self, ctx: Ctx) -> R<Option<Value>> {
        self.last_unquoted = false;
        if self.at(self.i + 1) == b'`' && self.at(self.i) == b'"' {
            if let Some(v) = self.fenced_value_in_string() {
                return Ok(Some(v));
            }
        }
        if let Some(s) = self.parse_string_concat()? {
            return Ok(Some(Value::String(s)));
        }
        if let Some(v) = self.parse_number(ctx) {
            return Ok(Some(v));
        }
        if let Some(v) = self.parse_keyword(ctx) {
            return Ok(Some(v));
        }
        if let Some(v) = self.parse_literal_any_case(ctx) {
            return Ok(Some(v));
        }
        if let Some(v) = self.parse_unquoted(false, ctx)? {
            self.last_unquoted = true;
            return Ok(Some(v));
        }
        Ok(self.parse_regex())
    }

    /// At a function call like `NumberLong(` or `callback (`: the offset of
    /// the `(`. Keywords (`true (`) are not function names.
    #[inline(never)]
    pub(super) fn function_call_at(&self, i: usize) -> Option<usize> {
        if !is_fn_start(self.at(i)) {
            return None;
        }
        let mut k = i;
        while is_fn_char(self.at(k)) {
            k += 1;
        }
        if is_keyword(&self.b[i..k]) {
            return None;
        }
        if self.b[i..k].eq_ignore_ascii_case(b"new") && matches!(self.at(k), b' ' | b'\t') {
            // `new ObjectId("…")`: a constructor call, read as the call
            let mut name = k;
            while matches!(self.at(name), b' ' | b'\t') {
                name += 1;
            }
            return self.function_call_at(name);
        }
        while is_ws(self.at(k)) {
            k += 1;
        }
        (self.at(k) == b'(').then_some(k)
    }

    /// A MongoDB call like `NumberLong("2")` or a JSONP `callback({...});`:
    /// the argument is the value. A call that wraps no single value
    /// (`foo(1, 2)`, `hello(world)`) is an expression: its text is the value.
    pub(super) fn parse_function_call(&mut self, start: usize, open: usize) -> R<Value> {
        let fixes = self.fixes.len();
        self.note(LenientFix::FunctionCall);
        self.i = open + 1;
        self.skip_ws_comments(true);
        // `new NumberInt()`: no argument, no value
        let v = if self.at(self.i) == b')' { None } else { self.parse_value(Ctx::Plain)? };
        let wraps = self.at(self.i) == b')' || self.i >= self.len();
        if !wraps || (v.is_some() && self.last_unquoted) {
            if let Some(text) = self.call_as_text(start, open) {
                self.fixes.truncate(fixes);
                self.note(LenientFix::UnquotedValue);
                return Ok(text);
            }
        }
        if self.eat(b')') {
            self.eat(b';');
        }
        self.last_end = self.i;
        Ok(v.unwrap_or(Value::Null))
    }

    /// The call `name(…)` from `start` to the `)` matching the `(` at
    /// `open`, as a string; `None` when the `)` is missing.
    #[cold]
    fn call_as_text(&mut self, start: usize, open: usize) -> Option<Value> {
        let mut depth = 0usize;
        let close = self.b[open..].iter().position(|&b| {
            depth = match b {
                b'(' => depth + 1,
                b')' => depth - 1,
                _ => depth,
            };
            depth == 0
        })? + open;
        self.i = close + 1;
        self.last_end = self.i;
        Some(Value::String(self.s[start..=close].to_string()))
    }

    /// An object key: a (possibly repaired) string or an unquoted name.
    #[inline(never)]
    pub(super) fn parse_key(&mut self) -> R<Option<String>> {
        self.in_key = true;
        let quoted = self.parse_string_concat();
        self.in_key = false;
        if let Some(k) = quoted? {
            return Ok(Some(k));
        }
        Ok(match self.parse_unquoted(true, Ctx::Plain)? {
            Some(Value::String(k)) => Some(k),
            Some(other) => Some(other.to_string()),
            None => None,
        })
    }

    /// An object; `self.i` is at its `{`. A Python set (`{'a', 'b'}`) is
    /// read as an array.
    pub(super) fn parse_object(&mut self) -> R<Value> {
        self.i += 1;
        self.skip_ws_comments(true);
        if self.eat(b',') {
            self.note(LenientFix::LeadingComma);
            self.skip_ws_comments(true);
        }
        let mut map = Map::new();
        let closed = self.parse_members(&mut map, true, true)?;
        if let Some(set) = closed.err() {
            return Ok(set);
        }
        Ok(Value::Object(map))
    }

    /// The members of an object into `map`, up to and with its `}`; sets
    /// `last_closed`. `initial`: no comma before the first member. With
    /// `set_allowed`, a first member without a colon but with a comma or
    /// `}` after it makes the whole a Python set, returned as `Err(array)`.
    pub(super) fn parse_members(&mut self, map: &mut Map<String, Value>, mut initial: bool, set_allowed: bool) -> R<Result<(), Value>> {
        while self.i < self.len() && self.at(self.i) != b'}' {
            let iter_start = self.i;
            let plain = if fast_paths() { self.plain_member_start(initial) } else { None };
            let start = match plain {
                Some(start) => Some(start),
                None if set_allowed && initial && self.set_ahead() => return self.parse_set().map(Err),
                None => self.parse_member_start(initial)?,
            };
            let Some((key, colon)) = start else {
                break;
            };
            match self.parse_value(Ctx::Member)? {
                Some(mut v) => {
                    if v.is_array() {
                        self.extend_array_run(&mut v)?;
                    }
                    map.insert(key, v);
                }
                None => {
                    if let Some(v) = self.missing_member_value(colon)? {
                        map.insert(key, v);
                    }
                }
            }
            initial = false;
            if self.i == iter_start {
                break;
            }
        }
        let closed = self.eat(b'}');
        if !closed {
            self.note(if self.i >= self.len() { LenientFix::Truncated } else { LenientFix::UnbalancedBracket });
        }
        self.last_end = self.i;
        self.last_closed = closed;
        Ok(Ok(()))
    }

    /// Whether the object starting at `self.i` is a Python set: its first
    /// item a quoted string or a number with a comma or `}` right after it.
    #[inline(never)]
    fn set_ahead(&self) -> bool {
        let mut j = self.i;
        match self.at(j) {
            q @ (b'"' | b'\'') => match memchr::memchr(q, &self.b[j + 1..]) {
                Some(n) => j += n + 2,
                None => return false,
            },
            b'0'..=b'9' | b'-' => {
                while matches!(self.at(j), b'0'..=b'9' | b'-' | b'.' | b'e' | b'E' | b'+') {
                    j += 1;
                }
            }
            _ => return false,
        }
        while is_ws(self.at(j)) {
            j += 1;
        }
        if self.at(j) == b'}' {
            return true;
        }
        if self.at(j) != b',' {
            return false;
        }
        // `{"a",` with nothing after is a cut-off object, not a set
        j += 1;
        while is_ws(self.at(j)) {
            j += 1;
        }
        matches!(self.at(j), b'"' | b'\'' | b'0'..=b'9' | b'-')
    }

    /// A Python set `{'a', 'b'}` from its first item to its `}`, as an array.
    #[inline(never)]
    fn parse_set(&mut self) -> R<Value> {
        self.note(LenientFix::PythonTuple);
        let (items, _) = self.parse_items(Close::Bracket(b'}'))?;
        Ok(Value::Array(items))
    }

    /// After an array member value: `"k": [1], [2], [3]` (a model that
    /// closed the array after each item) reads as one array `[1, 2, 3]`.
    #[inline(never)]
    fn extend_array_run(&mut self, value: &mut Value) -> R<()> {
        while self.at(self.i) == b',' {
            let mut j = self.i + 1;
            while is_ws(self.at(j)) {
                j += 1;
            }
            if self.at(j) != b'[' {
                break;
            }
            self.i = j;
            self.note(LenientFix::UnbalancedBracket);
            if let (Value::Array(into), Some(Value::Array(more))) = (&mut *value, self.parse_value(Ctx::Plain)?) {
                into.extend(more);
            }
        }
        Ok(())
    }

    /// Reads up to an object member's value: the comma before it (unless
    /// `initial`), an ellipsis, the key and the colon. Returns the key and
    /// whether the colon was there, or `None` at the end of the members.
    #[inline(never)]
    pub(super) fn parse_member_start(&mut self, initial: bool) -> R<Option<(String, bool)>> {
        let had_comma = if initial {
            true
        } else {
            let c = self.eat(b',');
            self.skip_ws_comments(true);
            c
        };
        let ellipsis = self.skip_ellipsis();
        let key_start = self.i;
        let Some(mut key) = self.parse_key()? else {
            if matches!(self.at(self.i), b'}' | b'{' | b']' | b'[') || self.i >= self.len() {
                if !initial && had_comma && !ellipsis {
                    self.note(LenientFix::TrailingComma);
                }
                return Ok(None);
            }
            return Err(self.err("Object key expected", self.i));
        };
        if !initial && !had_comma {
            self.note(LenientFix::MissingComma);
        }
        self.skip_ws_comments(true);
        if self.at(self.i) != b':' && self.quote_at(key_start).is_none() {
            // a stray word: before a key (`COMMENT "b": 1`) or the `}`
            if self.at(self.i) == b'}' {
                self.note(LenientFix::SurroundingText);
                return Ok(None);
            }
            if self.quote_at(self.i).is_some() && self.key_follows(self.i) {
                self.note(LenientFix::SurroundingText);
                if let Some(next) = self.parse_key()? {
                    key = next;
                    self.skip_ws_comments(true);
                }
            }
        }
        let mut colon = self.eat(b':');
        if !colon && self.at(self.i) == b'=' && self.at(self.i + 1) != b'=' {
            // `"a" = 1`: an assignment's `=` for the colon
            self.i += 1;
            self.note(LenientFix::MissingColon);
            colon = true;
        }
        if !colon {
            if self.i >= self.len() {
                // reported as Truncated when the value turns out missing
            } else if self.is_start_of_value(self.i) || self.number_sign_or_dot_at(self.i) {
                self.note(LenientFix::MissingColon);
            } else {
                return Err(self.err("Colon expected", self.i));
            }
        }
        Ok(Some((key, colon)))
    }

    /// A number that starts with a `+` or a `.` (`+1`, `.5`).
    fn number_sign_or_dot_at(&self, i: usize) -> bool {
        let digit = |k: usize| self.at(k).is_ascii_digit();
        match self.at(i) {
            b'.' => digit(i + 1),
            b'+' => digit(i + 1) || (self.at(i + 1) == b'.' && digit(i + 2)),
            _ => false,
        }
    }

    /// The usual member start, `"key":` (or `'key':`) after a comma (unless `initial`)
    /// and plain whitespace, read without the general look-ahead: what
    /// [`Self::parse_member_start`] would read, or `None` with nothing consumed.
    #[inline]
    fn plain_member_start(&mut self, initial: bool) -> Option<(String, bool)> {
        let mut i = self.i;
        if !initial {
            if self.at(i) != b',' {
                return None;
            }
            i += 1;
            while is_ws(self.at(i)) {
                i += 1;
            }
        }
        let quote = self.at(i);
        if !matches!(quote, b'"' | b'\'') {
            return None;
        }
        let (saved, fixes) = ((self.i, self.work, self.last_end), self.fixes.len());
        let key = self.plain_string(i + 1, quote)?;
        if self.at(self.i) != b':' {
            (self.i, self.work, self.last_end) = saved;
            self.fixes.truncate(fixes);
            return None;
        }
        self.i += 1;
        Some((key, true))
    }

    /// A member without a value: dropped if the text ended (a dangling key
    /// of truncated text), `null` after a colon (`{"a":}`), else an error.
    #[inline(never)]
    pub(super) fn missing_member_value(&mut self, colon: bool) -> R<Option<Value>> {
        if self.i >= self.len() {
            self.note(LenientFix::Truncated);
            Ok(None)
        } else if colon {
            self.note(LenientFix::MissingValue);
            Ok(Some(Value::Null))
        } else {
            Err(self.err("Colon expected", self.i))
        }
    }

    /// An array; `self.i` is at its `[`. `ctx` says whether it is an
    /// object member's value.
    pub(super) fn parse_array(&mut self, ctx: Ctx) -> R<Value> {
        self.i += 1;
        self.skip_ws_comments(true);
        if self.eat(b',') {
            self.note(LenientFix::LeadingComma);
            self.skip_ws_comments(true);
        }
        let close = if ctx == Ctx::Member { Close::MemberArray } else { Close::Bracket(b']') };
        let (items, _) = self.parse_items(close)?;
        Ok(Value::Array(items))
    }

    /// A Python tuple; `self.i` is at its `(`. A group of one item without
    /// a comma, `(1)`, is that item; any other, an array.
    #[inline(never)]
    pub(super) fn parse_tuple(&mut self) -> R<Value> {
        self.i += 1;
        self.note(LenientFix::PythonTuple);
        self.skip_ws_comments(true);
        let (mut items, commas) = self.parse_items(Close::Bracket(b')'))?;
        if items.len() == 1 && !commas {
            return Ok(items.pop().unwrap_or(Value::Null));
        }
        Ok(Value::Array(items))
    }

    /// Items up to and with the `close` bracket (`]`, `)` or a set's `}`);
    /// sets `last_closed`. Returns the items and whether a comma was seen.
    pub(super) fn parse_items(&mut self, closing: Close) -> R<(Vec<Value>, bool)> {
        let close = match closing {
            Close::Bracket(b) => b,
            Close::MemberArray => b']',
        };
        // The room the first `push` would make, without its growth path
        // (none for an empty array or one cut off at its bracket).
        let mut items = if self.i >= self.len() || self.at(self.i) == close { Vec::new() } else { Vec::with_capacity(4) };
        let mut initial = true;
        let mut commas = false;
        let outer_items = self.item_depth;
        self.item_depth = self.depth + 1;
        loop {
            while self.i < self.len() && self.at(self.i) != close {
                let iter_start = self.i;
                let had_comma = initial || self.eat(b',');
                commas |= had_comma && !initial;
                let ellipsis = self.skip_ellipsis();
                let value = if self.at(self.i) == close && close != b']' { None } else { self.parse_value(Ctx::Plain)? };
                let Some(v) = value else {
                    if !initial && had_comma && !ellipsis {
                        self.note(LenientFix::TrailingComma);
                    }
                    // A `}` after a member's array of plain items (`"tags": ["a"},`)
                    // closes the array and the object around it: not stray.
                    let closes_member =
                        closing == Close::MemberArray && !items.last().is_some_and(|v: &Value| v.is_object() || v.is_array());
                    if close == b']' && !closes_member && self.stray_brace_in_array() {
                        initial = false;
                        continue;
                    }
                    break;
                };
                if !had_comma {
                    self.note(LenientFix::MissingComma);
                }
                let v = match v {
                    Value::String(key) if close == b']' && self.at(self.i) == b':' => self.pair_in_array(key)?,
                    v => v,
                };
                if self.i >= self.len() && v.as_str() == Some("") && self.cut_at_opening_quote() {
                    // `[1, "`: an item cut off before anything was written, dropped
                    // as a key left without its value is
                    self.note(LenientFix::Truncated);
                    break;
                }
                items.push(v);
                initial = false;
                if self.i == iter_start {
                    break;
                }
            }
            // `[[1, 2], 3, 4], [5, 6]]`: a run of plain items after rows,
            // closed by a `]` with more rows after it, lost its `[`
            let run_after_arrays =
                items.first().is_some_and(Value::is_array) && items.last().is_some_and(|v| !v.is_array() && !v.is_object());
            if !(close == b']' && run_after_arrays && self.at(self.i) == b']' && self.wrap_run_missing_its_bracket(&mut items)) {
                break;
            }
        }
        self.item_depth = outer_items;
        let closed = self.eat(close);
        if !closed {
            self.note(if self.i >= self.len() { LenientFix::Truncated } else { LenientFix::UnbalancedBracket });
        }
        self.last_end = self.i;
        self.last_closed = closed;
        Ok((items, commas))
    }

    /// At a `}` inside an array: a stray one (`[{..}},{..}]`, `[{..}}]`)
    /// when the array's `]` or a comma and no key follow it, skipped; else it
    /// closes the array for an object around it (`{"a": [1, 2}, "b": 3}`).
    #[inline(never)]
    fn stray_brace_in_array(&mut self) -> bool {
        if self.at(self.i) != b'}' {
            return false;
        }
        let mut j = self.i + 1;
        while is_ws(self.at(j)) {
            j += 1;
        }
        if self.at(j) == b']' {
            // `[{..}}]`: the array's own end follows
            self.note(LenientFix::UnbalancedBracket);
            self.i = j;
            return true;
        }
        if self.at(j) != b',' {
            return false;
        }
        let mut k = j + 1;
        while is_ws(self.at(k)) {
            k += 1;
        }
        if self.key_follows(k) {
            return false;
        }
        self.note(LenientFix::UnbalancedBracket);
        self.i = j;
        true
    }

    /// `["key": value, ...]`: the pair (and any members after it) read as
    /// an object in the array; `self.i` is at the colon.
    #[inline(never)]
    fn pair_in_array(&mut self, key: String) -> R<Value> {
        self.note(LenientFix::PairInArray);
        self.i += 1;
        // the pair's value is a member's, not an array item
        let item_depth = std::mem::take(&mut self.item_depth);
        let mut map = Map::new();
        if let Some(v) = self.parse_value(Ctx::Member)? {
            map.insert(key, v);
        }
        if self.at(self.i) != b']' {
            let _set = self.parse_members(&mut map, false, false)?;
            // a `]` left for the array: not the object's to report
        }
        self.item_depth = item_depth;
        self.last_closed = true;
        Ok(Value::Object(map))
    }
}
