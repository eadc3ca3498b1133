//! BFCL writes multi-turn ground truth as Python call expressions
//! (`mv(source='a.pdf', destination='temp')`, `sort('final_report.pdf')`).
//! This reads one into a [`Call`]: the function's name and its literal
//! arguments (strings, numbers, `True`/`False`/`None`, lists, tuples, dicts).

use crate::bfcl::pyint;
use crate::bfcl::pyvalue::{py_int, Py};
use crate::bfcl::surrogate;

/// A call: the name, positional arguments, then keyword arguments in order.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    pub positional: Vec<Py>,
    pub keywords: Vec<(String, Py)>,
    /// Set when the text is no call Python's `eval` runs: why, as the
    /// exception text BFCL's executor reports for it. Such a call does nothing.
    pub unreadable: Option<String>,
}

impl Call {
    /// A call made with JSON keyword arguments (a model's tool call).
    pub fn from_json(name: &str, args: &serde_json::Value) -> Call {
        Call::from_json_in_order(name, args, &[])
    }

    /// A model's tool call whose keys were written in `order` (see
    /// [`crate::bfcl::arg_order`]). Python binds keywords by name, so only
    /// which unexpected keyword a bind error names depends on it.
    pub fn from_json_in_order(name: &str, args: &serde_json::Value, order: &[String]) -> Call {
        let keywords = match args {
            serde_json::Value::Object(map) => {
                crate::bfcl::arg_order::in_written_order(map, order).map(|(k, v)| (k.clone(), Py::from_json(v))).collect()
            }
            _ => Vec::new(),
        };
        Call { name: name.to_string(), positional: Vec::new(), keywords, unreadable: None }
    }

    /// The call as Python source.
    pub fn write(&self) -> String {
        let mut parts: Vec<String> = self.positional.iter().map(Py::repr).collect();
        parts.extend(self.keywords.iter().map(|(k, v)| format!("{k}={}", v.repr())));
        format!("{}({})", self.name, parts.join(", "))
    }
}

/// Reads a model's call text as BFCL's executor does: a call that Python
/// could not compile is still made, and fails (BFCL's `eval` raises inside
/// the executor's `try`, so the call's result is the error and the turn
/// goes on). Python's messages are not copied word for word.
pub fn read_call(text: &str) -> Call {
    // A lone surrogate in the text itself: `eval` encodes the source as UTF-8 first.
    if let Some((at, code)) = text.chars().enumerate().find_map(|(n, c)| Some((n, surrogate::surrogate_of(c)?))) {
        let why = format!("'utf-8' codec can't encode character '\\u{code:04x}' in position {at}: surrogates not allowed");
        return Call::unreadable(text, why);
    }
    parse_call(text).unwrap_or_else(|e| Call::unreadable(text, format!("invalid syntax: {e}")))
}

impl Call {
    fn unreadable(text: &str, why: String) -> Call {
        let name = text.split('(').next().unwrap_or_default().trim().to_string();
        Call { name, positional: Vec::new(), keywords: Vec::new(), unreadable: Some(why) }
    }
}

/// Why a text is no call expression: what the parser wanted, where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("expected {wanted} at character {at} of `{text}`")]
pub struct CallSyntaxError {
    /// What the parser expected there (`` `,` or `)` ``, `a number`).
    pub wanted: String,
    /// The 1-based character (byte) position.
    pub at: usize,
    /// The whole call text.
    pub text: String,
}

/// Reads `text` as one call expression.
pub fn parse_call(text: &str) -> Result<Call, CallSyntaxError> {
    let mut p = Parser { s: text.as_bytes(), i: 0, text };
    p.ws();
    let name = p.ident().ok_or_else(|| p.error("a function name"))?;
    // `Class.method(...)`: BFCL's executor keeps the method's name.
    let mut name = name.to_string();
    while p.peek() == Some(b'.') {
        p.i += 1;
        name = p.ident().ok_or_else(|| p.error("a method name"))?.to_string();
    }
    p.ws();
    p.expect(b'(')?;
    let mut call = Call { name, positional: Vec::new(), keywords: Vec::new(), unreadable: None };
    loop {
        p.ws();
        if p.peek() == Some(b')') {
            p.i += 1;
            break;
        }
        let start = p.i;
        let keyword = p.ident().map(str::to_string);
        p.ws();
        match keyword {
            Some(k) if p.peek() == Some(b'=') && p.s.get(p.i + 1) != Some(&b'=') => {
                p.i += 1;
                let value = p.value()?;
                call.keywords.push((k, value));
            }
            _ => {
                p.i = start;
                if !call.keywords.is_empty() {
                    return Err(p.error("a keyword argument (positional after keyword)"));
                }
                call.positional.push(p.value()?);
            }
        }
        p.ws();
        match p.peek() {
            Some(b',') => p.i += 1,
            Some(b')') => {}
            _ => return Err(p.error("`,` or `)`")),
        }
    }
    p.ws();
    if p.i != p.s.len() {
        return Err(p.error("the end of the call"));
    }
    Ok(call)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    text: &'a str,
}

impl<'a> Parser<'a> {
    fn error(&self, wanted: &str) -> CallSyntaxError {
        CallSyntaxError { wanted: wanted.to_string(), at: self.i + 1, text: self.text.to_string() }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), CallSyntaxError> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.error(&format!("`{}`", c as char)))
        }
    }

    fn ident(&mut self) -> Option<&'a str> {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c == b'_' || c.is_ascii_alphanumeric() {
                self.i += 1;
            } else {
                break;
            }
        }
        let word = &self.text[start..self.i];
        if word.is_empty() || word.as_bytes()[0].is_ascii_digit() {
            self.i = start;
            return None;
        }
        Some(word)
    }

    fn value(&mut self) -> Result<Py, CallSyntaxError> {
        self.ws();
        let value = match self.peek() {
            _ if self.at_string() => Py::Str(self.strings()?),
            Some(b'[') => Py::List(self.items(b'[', b']')?),
            Some(b'(') => self.parenthesized()?,
            Some(b'{') => self.dict()?,
            Some(c) if c == b'-' || c == b'+' || c == b'.' || c.is_ascii_digit() => self.number()?,
            _ => match self.ident() {
                Some("True") => Py::Bool(true),
                Some("False") => Py::Bool(false),
                Some("None") => Py::None,
                _ => return Err(self.error("a literal value")),
            },
        };
        self.ws();
        Ok(value)
    }

    fn items(&mut self, open: u8, close: u8) -> Result<Vec<Py>, CallSyntaxError> {
        self.expect(open)?;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.peek() == Some(close) {
                self.i += 1;
                return Ok(items);
            }
            items.push(self.value()?);
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(c) if c == close => {}
                _ => return Err(self.error(&format!("`,` or `{}`", close as char))),
            }
        }
    }

    /// `(a, b)` and `(a,)` are tuples, `()` the empty one; `(a)` is `a`.
    fn parenthesized(&mut self) -> Result<Py, CallSyntaxError> {
        self.expect(b'(')?;
        let mut items = Vec::new();
        let mut comma = false;
        loop {
            self.ws();
            if self.peek() == Some(b')') {
                self.i += 1;
                break;
            }
            items.push(self.value()?);
            comma = self.peek() == Some(b',');
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b')') => {}
                _ => return Err(self.error("`,` or `)`")),
            }
        }
        if items.len() == 1 && !comma {
            return Ok(items.remove(0));
        }
        Ok(Py::Tuple(items))
    }

    fn dict(&mut self) -> Result<Py, CallSyntaxError> {
        self.expect(b'{')?;
        let mut entries: Vec<(String, Py)> = Vec::new();
        loop {
            self.ws();
            if self.peek() == Some(b'}') {
                self.i += 1;
                return Ok(Py::Dict(entries));
            }
            let key = match self.value()? {
                Py::Str(s) => s,
                other => other.repr(),
            };
            self.expect(b':')?;
            let value = self.value()?;
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {}
                _ => return Err(self.error("`,` or `}`")),
            }
        }
    }

    /// A number in any of Python's literal forms: `1_000`, `0x1F`, `0o17`,
    /// `0b101`, `1.5e3`, `.5`, `5.`.
    fn number(&mut self) -> Result<Py, CallSyntaxError> {
        let start = self.i;
        let negative = self.peek() == Some(b'-');
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.i += 1;
            self.ws();
        }
        let digits_start = self.i;
        while let Some(c) = self.peek() {
            let exponent_sign = matches!(c, b'-' | b'+') && matches!(self.s[self.i - 1], b'e' | b'E') && !self.radix_prefixed(digits_start);
            if c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_') || exponent_sign {
                self.i += 1;
            } else {
                break;
            }
        }
        let written = &self.text[digits_start..self.i];
        let fail = |p: &mut Self| {
            p.i = start;
            Err(p.error("a number"))
        };
        if !underscores_between_digits(written) {
            return fail(self);
        }
        let plain = written.replace('_', "");
        let lower = plain.to_ascii_lowercase();
        let radix = match lower.get(..2) {
            Some("0x") => Some(16),
            Some("0o") => Some(8),
            Some("0b") => Some(2),
            _ => None,
        };
        let digits = match radix {
            Some(radix) => {
                let digits = &plain[2..];
                if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                    return fail(self);
                }
                (digits, radix)
            }
            None if !plain.is_empty() && plain.bytes().all(|c| c.is_ascii_digit()) => {
                // Python refuses `007` (only zeros may lead).
                if plain.len() > 1 && plain.starts_with('0') && plain.bytes().any(|c| c != b'0') {
                    return fail(self);
                }
                (plain.as_str(), 10)
            }
            None => {
                let float = if lower.bytes().all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'+' | b'-')) {
                    lower.parse::<f64>().ok()
                } else {
                    None
                };
                return match float {
                    Some(f) => Ok(Py::Float(if negative { -f } else { f })),
                    None => fail(self),
                };
            }
        };
        // An int fits an i128 (the fast path) or is kept exact as Python keeps it.
        if let Ok(m) = u128::from_str_radix(digits.0, digits.1) {
            let value = if negative { 0i128.checked_sub_unsigned(m) } else { i128::try_from(m).ok() };
            if let Some(value) = value {
                return Ok(Py::Int(value));
            }
        }
        if digits.1 == 10 && digits.0.len() > pyint::INT_MAX_STR_DIGITS {
            // Python's compiler refuses a decimal literal past 4300 digits.
            self.i = start;
            return Err(self.error(&format!(
                "a decimal int of at most {} digits (this has {})",
                pyint::INT_MAX_STR_DIGITS,
                digits.0.len()
            )));
        }
        let Some(magnitude) = pyint::parse_digits(digits.0, digits.1) else {
            return fail(self);
        };
        Ok(py_int(if negative { -magnitude } else { magnitude }))
    }

    fn radix_prefixed(&self, digits_start: usize) -> bool {
        self.s.get(digits_start) == Some(&b'0') && matches!(self.s.get(digits_start + 1), Some(b'x' | b'X'))
    }

    /// A string prefix (`r`, `u`, either case) right before a quote.
    fn string_prefix(&self) -> Option<(usize, bool)> {
        let rest = &self.s[self.i..];
        let len = rest.iter().take_while(|c| c.is_ascii_alphabetic()).count();
        if len == 0 || len > 1 || !matches!(rest.get(len), Some(b'\'' | b'"')) {
            return None;
        }
        match rest[0] {
            b'r' | b'R' => Some((len, true)),
            b'u' | b'U' => Some((len, false)),
            _ => None,
        }
    }

    fn at_string(&self) -> bool {
        matches!(self.peek(), Some(b'\'' | b'"')) || self.string_prefix().is_some()
    }

    /// One string literal, or several written side by side (`'a' "b"` is `'ab'`).
    fn strings(&mut self) -> Result<String, CallSyntaxError> {
        let mut out = String::new();
        loop {
            let raw = match self.string_prefix() {
                Some((len, raw)) => {
                    self.i += len;
                    raw
                }
                None => false,
            };
            self.string(raw, &mut out)?;
            let after = self.i;
            self.ws();
            if !self.at_string() {
                self.i = after;
                return Ok(out);
            }
        }
    }

    fn string(&mut self, raw: bool, out: &mut String) -> Result<(), CallSyntaxError> {
        let quote = self.s[self.i];
        let triple = self.s[self.i..].starts_with(&[quote; 3]);
        self.i += if triple { 3 } else { 1 };
        loop {
            let Some(c) = self.text[self.i..].chars().next() else {
                return Err(self.error("the string's closing quote"));
            };
            if c as u32 == quote as u32 && (!triple || self.s[self.i..].starts_with(&[quote; 3])) {
                self.i += if triple { 3 } else { 1 };
                return Ok(());
            }
            if c == '\n' && !triple {
                return Err(self.error("the string's closing quote before the line ends"));
            }
            self.i += c.len_utf8();
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.text[self.i..].chars().next() else {
                return Err(self.error("an escaped character"));
            };
            self.i += e.len_utf8();
            if raw {
                // A raw string keeps the backslash; the quote after it does not end the string.
                out.push('\\');
                out.push(e);
                continue;
            }
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'a' => out.push('\u{7}'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'v' => out.push('\u{b}'),
                '\\' | '\'' | '"' => out.push(e),
                '\n' => {}
                '0'..='7' => {
                    // Up to three octal digits: `'\101'` is `'A'`, `'\0'` is NUL.
                    let mut code = e.to_digit(8).unwrap_or(0);
                    for _ in 0..2 {
                        match self.peek() {
                            Some(d @ b'0'..=b'7') => {
                                code = code * 8 + u32::from(d - b'0');
                                self.i += 1;
                            }
                            _ => break,
                        }
                    }
                    out.extend(char::from_u32(code));
                }
                'x' | 'u' | 'U' => {
                    let len = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex = self.text.get(self.i..self.i + len).filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
                    let hex = hex.ok_or_else(|| self.error(&format!("{len} hex digits after `\\{e}`")))?;
                    let code = u32::from_str_radix(hex, 16).map_err(|_| self.error("hex digits"))?;
                    // A surrogate escape stays one character, as in Python (see `surrogate`).
                    out.push(surrogate::char_for(code).ok_or_else(|| self.error("a character code up to 0x10ffff"))?);
                    self.i += len;
                }
                'N' => {
                    // `'\N{LATIN SMALL LETTER A}'`: a character by its Unicode name (any case, as `unicodedata.lookup`).
                    let name = self.text[self.i..].strip_prefix('{').and_then(|rest| rest.split_once('}')).map(|(name, _)| name);
                    let c = name.and_then(|n| unicode_names2::character(&n.to_ascii_uppercase()));
                    let (Some(name), Some(c)) = (name, c) else {
                        return Err(self.error("a known Unicode character name in `\\N{...}`"));
                    };
                    out.push(c);
                    self.i += name.len() + 2;
                }
                other => {
                    // Python keeps an unknown escape as written.
                    out.push('\\');
                    out.push(other);
                }
            }
        }
    }
}

/// Python's rule for `_` in a number: single ones, each between two digits
/// (or after a radix prefix: `0x_1f`).
fn underscores_between_digits(written: &str) -> bool {
    let b = written.as_bytes();
    (0..b.len()).all(|i| b[i] != b'_' || (i > 0 && i + 1 < b.len() && b[i - 1].is_ascii_alphanumeric() && b[i + 1].is_ascii_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ground_truth_calls() {
        let c = parse_call("mv(source='final_report.pdf',destination='temp')").unwrap();
        assert_eq!(c.name, "mv");
        assert_eq!(c.keywords.len(), 2);
        let c = parse_call("sort('final_report.pdf')").unwrap();
        assert_eq!(c.write(), "sort('final_report.pdf')");
        let c = parse_call("f(a=[1, -2.5, 'x'], b={'k': (1, 2)}, c=True, d=None, e=\"it's\\n\")").unwrap();
        assert_eq!(c.write(), "f(a=[1, -2.5, 'x'], b={'k': (1, 2)}, c=True, d=None, e=\"it's\\n\")");
        assert!(parse_call("f(a=1").is_err());
        assert!(parse_call("f(a=b)").is_err());
    }

    #[test]
    fn parentheses_make_tuples_as_python_reads_them() {
        // Python: f(a=('x',), b=(1, 2), c=(), d=(5), e=((1, 2)), f=(('y',),)) passes
        // a=('x',), b=(1, 2), c=(), d=5, e=(1, 2), f=(('y',),); a tuple is not a list.
        let c = parse_call("f(a=('x',), b=(1, 2), c=(), d=(5), e=((1, 2)), f=(('y',),))").unwrap();
        assert_eq!(c.write(), "f(a=('x',), b=(1, 2), c=(), d=5, e=(1, 2), f=(('y',),))");
        let a = &c.keywords[0].1;
        assert!(matches!(a, Py::Tuple(items) if items.len() == 1));
        // Python: ('x',) == ['x'] is False; json.dumps(('x',)) == '["x"]'.
        assert!(!a.py_eq(&Py::List(vec![Py::Str("x".into())])));
        assert_eq!(a.json_dumps(), r#"["x"]"#);
    }

    #[test]
    fn every_python_numeric_literal_form() {
        // Python: 0x1F == 0o37 == 0b11111 == 3_1 == 31; 1e3 == 1000.0; .5 == 0.5; 5. == 5.0; - 3 == -3.
        let arg = |t: &str| parse_call(&format!("f(x={t})")).map(|c| c.keywords[0].1.repr());
        for (written, value) in [
            ("0x1F", "31"),
            ("0X1f", "31"),
            ("0o37", "31"),
            ("0b11111", "31"),
            ("3_1", "31"),
            ("0x_1f", "31"),
            ("-0b1", "-1"),
            ("- 3", "-3"),
            ("1e3", "1000.0"),
            ("1_000.5", "1000.5"),
            (".5", "0.5"),
            ("5.", "5.0"),
            ("-2.5E-1", "-0.25"),
            ("0", "0"),
            ("00", "0"),
            // i128's ends stay on the fast path.
            ("170141183460469231731687303715884105727", "170141183460469231731687303715884105727"),
            ("-170141183460469231731687303715884105728", "-170141183460469231731687303715884105728"),
        ] {
            assert_eq!(arg(written).as_deref(), Ok(value), "{written}");
        }
        // Python refuses these: SyntaxError.
        for bad in ["007", "1__0", "1_", "0x", "0b2", "5j"] {
            assert!(arg(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ints_past_128_bits_stay_exact_in_every_literal_form() {
        // Python: 0x80000000000000000000000000000001 == 170141183460469231731687303715884105729;
        // -1_000_000_000_000_000_000_000_000_000_000_000_000_000 == -10**39;
        // 0o7777777777777777777777777777777777777777777777 == 348449143727040986586495598010130648530943;
        // -0b1 followed by 133 zeros == -(2**133); 2**127 and -2**127 - 1 are just past i128.
        let arg = |t: &str| parse_call(&format!("f(x={t})")).map(|c| c.keywords[0].1.clone());
        let zeros = "0".repeat(133);
        for (written, value) in [
            ("0x80000000000000000000000000000001", "170141183460469231731687303715884105729"),
            ("-1_000_000_000_000_000_000_000_000_000_000_000_000_000", "-1000000000000000000000000000000000000000"),
            ("0o7777777777777777777777777777777777777777777777", "348449143727040986586495598010130648530943"),
            (&format!("-0b1_{zeros}"), "-10889035741470030830827987437816582766592"),
            ("+ 170141183460469231731687303715884105728", "170141183460469231731687303715884105728"),
            ("-170141183460469231731687303715884105729", "-170141183460469231731687303715884105729"),
        ] {
            let value_read = arg(written).unwrap();
            assert!(matches!(value_read, Py::BigInt(_)), "{written}");
            assert_eq!(value_read.repr(), value);
        }
        // Python: json.dumps({'a': (2**130,)}) == '{"a": [1361129467683753853853498429727072845824]}'.
        let c = parse_call("f(a=(0x4_0000000000000000_0000000000000000,))").unwrap();
        assert_eq!(c.write(), "f(a=(1361129467683753853853498429727072845824,))");
        assert_eq!(Py::Dict(c.keywords).json_dumps(), r#"{"a": [1361129467683753853853498429727072845824]}"#);
        // Python: eval("f(" + "1" * 5000 + ")") raises SyntaxError (Exceeds the limit (4300 digits)
        // for integer string conversion); a hexadecimal literal has no such limit.
        assert!(parse_call(&format!("f({})", "1".repeat(5000))).is_err());
        assert!(parse_call(&format!("f({})", "1".repeat(4300))).is_ok());
        assert!(matches!(arg(&format!("0x{}", "f".repeat(5000))), Ok(Py::BigInt(_))));
    }

    #[test]
    fn every_python_string_escape_and_form() {
        // Python: '\x41\101\u0041\U00000041\N{LATIN SMALL LETTER A}' == 'AAAAa';
        // '\a\b\f\v' == '\x07\x08\x0c\x0b'; r'\n' == '\\n'; 'a' "b" == 'ab'; '\q' == '\\q'.
        let arg = |t: &str| match parse_call(&format!("f(x={t})")).unwrap().keywords[0].1.clone() {
            Py::Str(s) => s,
            other => panic!("{other:?}"),
        };
        assert_eq!(arg(r"'\x41\101\u0041\U00000041\N{LATIN SMALL LETTER A}\N{latin small letter b}'"), "AAAAab");
        assert_eq!(arg(r"'\a\b\f\v\0'"), "\u{7}\u{8}\u{c}\u{b}\0");
        assert_eq!(arg(r"r'\n\''"), "\\n\\'");
        assert_eq!(arg(r#"'a' "b"   u'c' R'\d'"#), "abc\\d");
        assert_eq!(arg(r"'\q'"), "\\q");
        assert_eq!(arg("'''it's'''"), "it's");
        // A surrogate escape stays one character (Python: len('\ud83d\ude00') == 2).
        let pair = arg(r"'\ud83d\ude00'");
        assert_eq!(pair.chars().map(surrogate::surrogate_of).collect::<Vec<_>>(), [Some(0xD83D), Some(0xDE00)]);
        assert_eq!(Py::Str(pair).repr(), r"'\ud83d\ude00'");
        for bad in [r"'\x4'", r"'\N{NO SUCH NAME}'", r"'\U00110000'", "'a\nb'"] {
            assert!(parse_call(&format!("f(x={bad})")).is_err(), "{bad}");
        }
    }

    #[test]
    fn unreadable_calls_are_made_and_fail() {
        // BFCL's executor `eval`s the text inside a `try`: a SyntaxError is the call's result.
        let c = read_call("ls(a=)");
        assert_eq!(c.name, "ls");
        assert!(c.unreadable.as_deref().is_some_and(|w| w.starts_with("invalid syntax")));
        // Python: eval("f('\ud800')") with the surrogate itself in the text raises
        // UnicodeEncodeError: 'utf-8' codec can't encode character '\ud800' ... surrogates not allowed.
        let text = format!("cd(folder='a{}')", surrogate::char_for(0xD800).unwrap());
        let c = read_call(&text);
        assert_eq!(c.unreadable.as_deref(), Some(r"'utf-8' codec can't encode character '\ud800' in position 12: surrogates not allowed"));
        assert!(read_call("cd(folder='a')").unreadable.is_none());
    }
}
