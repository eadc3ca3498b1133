//! Numbers, keywords (`True`, `None`, `undefined`), unquoted strings and
//! regular expressions.

use serde_json::{Number, Value};

use super::chars::*;
use super::parser::{Parser, R};
use super::LenientFix;

impl Parser<'_> {
    /// A number (Python's digit separators and `1/3` included), or `None`
    /// having read nothing. The usual one, a plain integer, is read inline;
    /// any other out of line, as `parse_value` keeps a small frame for deep
    /// nesting.
    #[inline]
    pub(super) fn parse_number(&mut self, ctx: Ctx) -> Option<Value> {
        if let Some(found) = self.parse_plain_integer(ctx) {
            return found;
        }
        self.parse_other_number(ctx)
    }

    /// A number that is not a plain integer, normalised for `serde_json`.
    #[inline(never)]
    fn parse_other_number(&mut self, ctx: Ctx) -> Option<Value> {
        let start = self.i;
        let mut i = start;
        let mut num = String::new();
        let mut invalid = false;
        let digit = |p: &Self, i: usize| p.at(i).is_ascii_digit();
        if matches!(self.at(i), b'-' | b'+') {
            if let Some(null) = self.signed_non_finite(ctx) {
                return Some(null);
            }
        }
        if self.at(i) == b'+' {
            // `+42`, `+.5`: an explicit plus sign, which JSON has no room for
            if !(digit(self, i + 1) || (self.at(i + 1) == b'.' && digit(self, i + 2))) {
                return None;
            }
            i += 1;
        }
        if self.at(i) == b'-' {
            num.push('-');
            i += 1;
            if !digit(self, i) && self.at_end_of_number(i) {
                num.push('0');
            }
        }
        if self.at(i) == b'0' && digit(self, i + 1) {
            invalid = true; // leading zeros
        }
        while digit(self, i) || self.digit_separator(i) {
            if digit(self, i) {
                num.push(self.at(i) as char);
            }
            i += 1;
        }
        if self.at(i) == b'.' {
            if num.is_empty() || num == "-" {
                num.push('0');
            }
            num.push('.');
            i += 1;
            if !digit(self, i) {
                num.push('0');
            }
            while digit(self, i) || self.digit_separator(i) {
                if digit(self, i) {
                    num.push(self.at(i) as char);
                }
                i += 1;
            }
        }
        if i == start {
            return None;
        }
        if matches!(self.at(i), b'e' | b'E') {
            if num == "-" {
                invalid = true;
            }
            num.push(self.at(i) as char);
            i += 1;
            if matches!(self.at(i), b'-' | b'+') {
                num.push(self.at(i) as char);
                i += 1;
            }
            if !digit(self, i) {
                num.push('0');
            }
            while digit(self, i) {
                num.push(self.at(i) as char);
                i += 1;
            }
        }
        if self.at(i) == b'/' && digit(self, i + 1) {
            return Some(self.bare_expression(start, i));
        }
        if !self.at_end_of_number(i) || (ctx == Ctx::Member && !self.member_value_ends(i)) {
            return None;
        }
        let text = &self.s[start..i];
        let repaired = invalid || num != text;
        // serde_json reads "-0" as a float: leave that to it
        let plain_int = text.len() < 19 && !invalid && num == text && !text.starts_with("-0") && !text.contains(['.', 'e', 'E']);
        let value = if let (true, Ok(n)) = (plain_int, text.parse::<i64>()) {
            Value::Number(n.into())
        } else if invalid {
            Value::String(text.to_string())
        } else {
            match serde_json::from_str::<Number>(&num) {
                Ok(n) => Value::Number(n),
                Err(_) => Value::String(text.to_string()), // e.g. 1e999
            }
        };
        if repaired {
            self.note(LenientFix::InvalidNumber);
        }
        self.i = i;
        self.last_end = i;
        if self.at(i) == b'"' {
            self.skip_stray_quote();
        }
        Some(value)
    }

    /// `-Infinity`, `+NaN`, `- Infinity`: a signed non-finite number
    /// (JavaScript's, or Python's `float` printed), read as `null` as the
    /// unsigned ones are; `None` having read nothing.
    #[cold]
    fn signed_non_finite(&mut self, ctx: Ctx) -> Option<Value> {
        let mut i = self.i + 1;
        while matches!(self.at(i), b' ' | b'\t') {
            i += 1;
        }
        if self.at(i) == 0xC2 && self.at(i + 1) == 0xA0 {
            i += 2; // a no-break space
        }
        let word = [b"Infinity".as_slice(), b"NaN"].into_iter().find(|w| self.starts_with(i, w))?;
        let end = i + word.len();
        if is_fn_char(self.at(end)) || !self.at_end_of_number(end) || (ctx == Ctx::Member && !self.member_value_ends(end)) {
            return None;
        }
        self.note(LenientFix::JsLiteral);
        self.i = end;
        self.last_end = end;
        Some(Value::Null)
    }

    /// The usual number, a plain integer (`-?(0|[1-9][0-9]*)`, under 19
    /// characters), read without building a normalised copy. `None` when the
    /// text is some other number (or none), for [`Self::parse_number`].
    // Always inline: `parse_value` reads most numbers through it, and its
    // frame cost more than its work.
    #[inline(always)]
    fn parse_plain_integer(&mut self, ctx: Ctx) -> Option<Option<Value>> {
        let start = self.i;
        let mut i = start + usize::from(self.at(start) == b'-');
        let first = i;
        while self.at(i).is_ascii_digit() {
            i += 1;
        }
        let digits = i - first;
        let zero_led = self.at(first) == b'0' && (digits > 1 || first > start);
        if digits == 0 || zero_led || i - start >= 19 || matches!(self.at(i), b'.' | b'e' | b'E' | b'_' | b'/') {
            return None;
        }
        if !self.at_end_of_number(i) || (ctx == Ctx::Member && !self.member_value_ends(i)) {
            return Some(None);
        }
        let n: i64 = self.s[start..i].parse().ok()?;
        self.i = i;
        self.last_end = i;
        if self.at(i) == b'"' {
            self.skip_stray_quote(); // `12345"`: the end check saw it is one
        }
        Some(Some(Value::Number(n.into())))
    }

    /// `_` between two digits: Python's digit separator (`82_461_110`).
    fn digit_separator(&self, i: usize) -> bool {
        self.at(i) == b'_' && i > 0 && self.at(i - 1).is_ascii_digit() && self.at(i + 1).is_ascii_digit()
    }

    /// A number at `start` followed by `/` and digits at `i` (`1/3`): the
    /// expression as written, a string (its value is not ours to compute).
    #[cold]
    fn bare_expression(&mut self, start: usize, mut i: usize) -> Value {
        while matches!(self.at(i), b'/' | b'*' | b'.' | b'0'..=b'9') {
            i += 1;
        }
        self.note(LenientFix::BareExpression);
        self.i = i;
        self.last_end = i;
        Value::String(self.s[start..i].to_string())
    }

    /// `TRUE`, `Null`, `NONE`…: JSON's and Python's literals in another
    /// case, read as the literal (a word such as `Trueble` stays a word).
    #[inline(never)]
    pub(super) fn parse_literal_any_case(&mut self, ctx: Ctx) -> Option<Value> {
        let mut end = self.i;
        while self.at(end).is_ascii_alphabetic() {
            end += 1;
        }
        if end - self.i > 5 || is_fn_char(self.at(end)) || (ctx == Ctx::Member && !self.member_value_ends(end)) {
            return None;
        }
        let word = self.s[self.i..end].to_ascii_lowercase();
        let value = match word.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" | "none" => Value::Null,
            _ => return None,
        };
        self.note(LenientFix::LiteralCase);
        self.i = end;
        self.last_end = end;
        if self.stray_quote_at(end) {
            self.skip_stray_quote();
        }
        Some(value)
    }

    pub(super) fn parse_keyword(&mut self, ctx: Ctx) -> Option<Value> {
        // A static, walked by reference: a const array walked by value was
        // built and dropped on every call.
        static KEYWORDS: [(&str, Value, bool); 6] = [
            ("true", Value::Bool(true), false),
            ("false", Value::Bool(false), false),
            ("null", Value::Null, false),
            ("True", Value::Bool(true), true),
            ("False", Value::Bool(false), true),
            ("None", Value::Null, true),
        ];
        // Each keyword has its own first letter: at most one to try.
        let (name, value, python) = match self.at(self.i) {
            b't' => &KEYWORDS[0],
            b'f' => &KEYWORDS[1],
            b'n' => &KEYWORDS[2],
            b'T' => &KEYWORDS[3],
            b'F' => &KEYWORDS[4],
            b'N' => &KEYWORDS[5],
            _ => return None,
        };
        let end = self.i + name.len();
        if !(self.starts_with(self.i, name.as_bytes()) && !is_fn_char(self.at(end)) && (ctx == Ctx::Plain || self.member_value_ends(end))) {
            return None;
        }
        if *python {
            self.note(LenientFix::PythonLiteral);
        }
        self.i = end;
        self.last_end = end;
        if self.at(end) == b'"' && self.stray_quote_at(end) {
            self.skip_stray_quote();
        }
        Some(value.clone())
    }

    /// An unquoted string, key or value (`undefined`, `NaN` and `Infinity`
    /// as values read as `null`).
    #[inline(never)]
    pub(super) fn parse_unquoted(&mut self, is_key: bool, ctx: Ctx) -> R<Option<Value>> {
        let len = self.len();
        let start = self.i;
        let mut i = start;
        if ctx == Ctx::Member && !is_key {
            // unlike elsewhere, a member value may start with `/` or `+`
            // (`/tmp`; a `/regex/` reads the same either way)
            if matches!(self.at(i), b',' | b'[' | b']' | b'{' | b'}' | b'\n') || self.quote_at(i).is_some() {
                return Ok(None);
            }
            i = self.scan_member_value(i)?;
        } else {
            while i < len && !is_unquoted_delim(self.at(i)) && self.quote_at(i).is_none() && (!is_key || self.at(i) != b':') {
                // An ASCII byte is a char of its own: no decoding.
                i += if self.at(i) < 0x80 { 1 } else { self.char_len_at(i) };
            }
            if i > start && self.at(i - 1) == b':' && is_url_start(&self.b[start..(i + 2).min(len)]) {
                while i < len && is_url_char(self.at(i)) {
                    i += 1;
                }
            }
        }
        if i == start {
            return Ok(None);
        }
        while i > start && is_ws(self.at(i - 1)) {
            i -= 1;
        }
        let symbol = &self.s[start..i];
        let value = match symbol {
            "undefined" | "NaN" | "Infinity" | "-Infinity" if !is_key => {
                self.note(LenientFix::JsLiteral);
                Value::Null
            }
            _ => {
                self.note(if is_key { LenientFix::UnquotedKey } else { LenientFix::UnquotedValue });
                Value::String(symbol.to_string())
            }
        };
        self.i = i;
        if self.at(i) == b'"' {
            // a missing start quote: skip the end quote
            self.i += 1;
            self.note(LenientFix::MissingQuote);
        }
        self.last_end = self.i;
        Ok(Some(value))
    }

    /// Scans an unquoted object-member value like `ls -la /tmp` or
    /// `echo ${HOME}`: runs to a `}`/`]` that closes the object, a comma or
    /// newline followed by a key or closing bracket, a stray closing quote,
    /// or a comment. Returns the end offset.
    pub(super) fn scan_member_value(&mut self, mut i: usize) -> R<usize> {
        let len = self.len();
        let (mut braces, mut brackets) = (0usize, 0usize);
        while i < len {
            self.tick()?;
            let c = self.at(i);
            let top = braces == 0 && brackets == 0;
            match c {
                b'}' if braces == 0 => break,
                b'}' => braces -= 1,
                b']' if brackets == 0 => break,
                b']' => brackets -= 1,
                b'{' => braces += 1,
                b'[' => brackets += 1,
                b',' if top && self.member_break_after(i + 1, false) => break,
                b'\n' if top && self.member_break_after(i + 1, true) => break,
                // `{"a": value "b": 1}`: the value ends where a key starts
                b'"' if is_ws(self.at(i - 1)) && self.key_follows(i) => break,
                b'"' => {
                    let mut j = i + 1;
                    while matches!(self.at(j), b' ' | b'\t' | b'\r') {
                        j += 1;
                    }
                    if j >= len || matches!(self.at(j), b',' | b'}' | b']' | b'\n') {
                        break;
                    }
                }
                b'/' if matches!(self.at(i + 1), b'/' | b'*') && i > 0 && is_ws(self.at(i - 1)) => break,
                b'#' if self.is_hash_comment(i) => break,
                _ => {}
            }
            i += if c < 0x80 { 1 } else { self.char_len_at(i) };
        }
        Ok(i)
    }

    pub(super) fn parse_regex(&mut self) -> Option<Value> {
        if self.at(self.i) != b'/' {
            return None;
        }
        let start = self.i;
        let mut i = start + 1;
        while i < self.len() && (self.at(i) != b'/' || self.at(i - 1) == b'\\') {
            i += self.char_len_at(i);
        }
        i = (i + 1).min(self.len());
        self.note(LenientFix::UnquotedValue);
        self.i = i;
        self.last_end = i;
        Some(Value::String(self.s[start..i].to_string()))
    }
}
