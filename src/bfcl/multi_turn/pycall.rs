//! BFCL writes multi-turn ground truth as Python call expressions
//! (`mv(source='a.pdf', destination='temp')`, `sort('final_report.pdf')`).
//! This reads one into a [`Call`]: the function's name and its literal
//! arguments (strings, numbers, `True`/`False`/`None`, lists, tuples, dicts).

use crate::bfcl::pyvalue::Py;

/// A call: the name, positional arguments, then keyword arguments in order.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    pub positional: Vec<Py>,
    pub keywords: Vec<(String, Py)>,
}

impl Call {
    /// A call made with JSON keyword arguments (a model's tool call).
    pub fn from_json(name: &str, args: &serde_json::Value) -> Call {
        let keywords = match Py::from_json(args) {
            Py::Dict(entries) => entries,
            _ => Vec::new(),
        };
        Call { name: name.to_string(), positional: Vec::new(), keywords }
    }

    /// The call as Python source.
    pub fn write(&self) -> String {
        let mut parts: Vec<String> = self.positional.iter().map(Py::repr).collect();
        parts.extend(self.keywords.iter().map(|(k, v)| format!("{k}={}", v.repr())));
        format!("{}({})", self.name, parts.join(", "))
    }
}

/// Reads `text` as one call expression.
pub fn parse_call(text: &str) -> Result<Call, String> {
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
    let mut call = Call { name, positional: Vec::new(), keywords: Vec::new() };
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
    fn error(&self, wanted: &str) -> String {
        format!("expected {wanted} at character {} of `{}`", self.i + 1, self.text)
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
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

    fn value(&mut self) -> Result<Py, String> {
        self.ws();
        let value = match self.peek() {
            Some(b'\'' | b'"') => Py::Str(self.string()?),
            Some(b'[') => Py::List(self.items(b'[', b']')?),
            Some(b'(') => {
                let items = self.items(b'(', b')')?;
                Py::List(items)
            }
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

    fn items(&mut self, open: u8, close: u8) -> Result<Vec<Py>, String> {
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

    fn dict(&mut self) -> Result<Py, String> {
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

    fn number(&mut self) -> Result<Py, String> {
        let start = self.i;
        if matches!(self.peek(), Some(b'-' | b'+')) {
            self.i += 1;
        }
        while let Some(c) = self.peek() {
            let exponent_sign = matches!(c, b'-' | b'+') && matches!(self.s[self.i - 1], b'e' | b'E');
            if c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'_') || exponent_sign {
                self.i += 1;
            } else {
                break;
            }
        }
        let text = self.text[start..self.i].replace('_', "");
        if !text.contains(['.', 'e', 'E']) {
            if let Ok(i) = text.parse::<i128>() {
                return Ok(Py::Int(i));
            }
        }
        text.parse::<f64>().map(Py::Float).map_err(|_| {
            self.i = start;
            self.error("a number")
        })
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.s[self.i];
        let triple = self.s[self.i..].starts_with(&[quote; 3]);
        self.i += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let Some(c) = self.text[self.i..].chars().next() else {
                return Err(self.error("the string's closing quote"));
            };
            if c as u32 == quote as u32 && (!triple || self.s[self.i..].starts_with(&[quote; 3])) {
                self.i += if triple { 3 } else { 1 };
                return Ok(out);
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
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\\' | '\'' | '"' => out.push(e),
                '\n' => {}
                'x' | 'u' | 'U' => {
                    let len = match e {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex = self.text.get(self.i..self.i + len).ok_or_else(|| self.error("hex digits"))?;
                    let code = u32::from_str_radix(hex, 16).map_err(|_| self.error("hex digits"))?;
                    out.push(char::from_u32(code).ok_or_else(|| self.error("a character code"))?);
                    self.i += len;
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
        assert_eq!(c.write(), "f(a=[1, -2.5, 'x'], b={'k': [1, 2]}, c=True, d=None, e=\"it's\\n\")");
        assert!(parse_call("f(a=1").is_err());
        assert!(parse_call("f(a=b)").is_err());
    }
}
