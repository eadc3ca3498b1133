//! Values as BFCL's Python checker sees them: JSON decoded by Python's
//! `json` module (ints and floats apart, `True == 1 == 1.0`), compared with
//! Python's `==`, written with Python's `repr` in messages.

use serde_json::Value;

/// A Python value that JSON or BFCL's Java/JavaScript converters can produce.
#[derive(Debug, Clone)]
pub enum Py {
    None,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    List(Vec<Py>),
    /// Keys in insertion order, as Python dicts keep them.
    Dict(Vec<(String, Py)>),
}

/// `type(value)` of a [`Py`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyType {
    None,
    Bool,
    Int,
    Float,
    Str,
    List,
    Dict,
    /// Java's `Set`: no JSON or converted value ever has it.
    Set,
}

impl PyType {
    /// Python's name of the type (`type(x).__name__`).
    pub fn name(self) -> &'static str {
        match self {
            PyType::None => "NoneType",
            PyType::Bool => "bool",
            PyType::Int => "int",
            PyType::Float => "float",
            PyType::Str => "str",
            PyType::List => "list",
            PyType::Dict => "dict",
            PyType::Set => "set",
        }
    }

    /// `str(type)`, as BFCL writes nested types into messages.
    pub fn class_repr(self) -> String {
        format!("<class '{}'>", self.name())
    }
}

impl Py {
    /// The value Python's `json.loads` makes of this JSON.
    pub fn from_json(v: &Value) -> Py {
        match v {
            Value::Null => Py::None,
            Value::Bool(b) => Py::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Py::Int(i128::from(i)),
                (None, Some(u)) => Py::Int(i128::from(u)),
                _ => Py::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => Py::Str(s.clone()),
            Value::Array(items) => Py::List(items.iter().map(Py::from_json).collect()),
            Value::Object(map) => Py::Dict(map.iter().map(|(k, v)| (k.clone(), Py::from_json(v))).collect()),
        }
    }

    /// The JSON of this value (floats stay floats: `5.0`).
    pub fn to_json(&self) -> Value {
        match self {
            Py::None => Value::Null,
            Py::Bool(b) => Value::Bool(*b),
            Py::Int(i) => match i64::try_from(*i) {
                Ok(i) => Value::from(i),
                Err(_) => Value::from(*i as f64),
            },
            Py::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Py::Str(s) => Value::String(s.clone()),
            Py::List(items) => Value::Array(items.iter().map(Py::to_json).collect()),
            Py::Dict(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
        }
    }

    /// `type(self)`.
    pub fn py_type(&self) -> PyType {
        match self {
            Py::None => PyType::None,
            Py::Bool(_) => PyType::Bool,
            Py::Int(_) => PyType::Int,
            Py::Float(_) => PyType::Float,
            Py::Str(_) => PyType::Str,
            Py::List(_) => PyType::List,
            Py::Dict(_) => PyType::Dict,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Py::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Whether this is the empty string, BFCL's "may be omitted" marker.
    pub fn is_omitted_marker(&self) -> bool {
        matches!(self, Py::Str(s) if s.is_empty())
    }

    /// The dict entry of this key.
    pub fn get(&self, key: &str) -> Option<&Py> {
        match self {
            Py::Dict(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Py::Bool(b) => Some(f64::from(u8::from(*b))),
            Py::Int(i) => Some(*i as f64),
            Py::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Python's `self == other`.
    pub fn py_eq(&self, other: &Py) -> bool {
        match (self, other) {
            (Py::Int(a), Py::Int(b)) => a == b,
            (Py::Bool(a), Py::Bool(b)) => a == b,
            (Py::Int(a), Py::Bool(b)) | (Py::Bool(b), Py::Int(a)) => *a == i128::from(*b),
            (Py::Float(_), _) | (_, Py::Float(_)) => match (self.number(), other.number()) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
            (Py::None, Py::None) => true,
            (Py::Str(a), Py::Str(b)) => a == b,
            (Py::List(a), Py::List(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y)),
            (Py::Dict(a), Py::Dict(b)) => a.len() == b.len() && a.iter().all(|(k, x)| b.iter().any(|(kb, y)| kb == k && x.py_eq(y))),
            _ => false,
        }
    }

    /// Python's `self in items`.
    pub fn py_in(&self, items: &[Py]) -> bool {
        items.iter().any(|i| i.py_eq(self))
    }

    /// Python's `repr(self)`.
    pub fn repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    fn write_repr(&self, out: &mut String) {
        match self {
            Py::None => out.push_str("None"),
            Py::Bool(true) => out.push_str("True"),
            Py::Bool(false) => out.push_str("False"),
            Py::Int(i) => out.push_str(&i.to_string()),
            Py::Float(f) => out.push_str(&float_repr(*f)),
            Py::Str(s) => out.push_str(&str_repr(s)),
            Py::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_repr(out);
                }
                out.push(']');
            }
            Py::Dict(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&str_repr(k));
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
        }
    }
}

/// Python's `repr` of a list of values.
pub fn list_repr(items: &[Py]) -> String {
    Py::List(items.to_vec()).repr()
}

/// Python's `repr` of a float, close enough for messages.
fn float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let text = format!("{f:?}");
    if text.contains('e') {
        // Rust writes 1e-5, Python 1e-05.
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let (sign, digits) = exp.strip_prefix('-').map_or(("+", exp), |d| ("-", d));
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    text
}

/// Python's `repr` of a string: single quotes unless the text has one and no double.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// BFCL's `standardize_string`: spaces and `,./-_*^` removed, lower case,
/// `'` written as `"`.
pub fn standardize(s: &str) -> String {
    let kept: String = s.chars().filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^')).collect();
    kept.to_lowercase().replace('\'', "\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn python_equality_across_numbers() {
        assert!(Py::Int(1).py_eq(&Py::Float(1.0)));
        assert!(Py::Bool(true).py_eq(&Py::Int(1)));
        assert!(Py::Bool(true).py_eq(&Py::Float(1.0)));
        assert!(!Py::Str("1".into()).py_eq(&Py::Int(1)));
        let a = Py::from_json(&json!({"a": [1, 2.5], "b": "x"}));
        let b = Py::from_json(&json!({"b": "x", "a": [1.0, 2.5]}));
        assert!(a.py_eq(&b));
        assert_eq!(Py::from_json(&json!(5.0)).py_type(), PyType::Float);
        assert_eq!(Py::from_json(&json!(5)).py_type(), PyType::Int);
    }

    #[test]
    fn reprs_and_standardize() {
        assert_eq!(Py::from_json(&json!({"a": [1, 2.5, true, null, "it's"]})).repr(), r#"{'a': [1, 2.5, True, None, "it's"]}"#);
        assert_eq!(float_repr(1e-5), "1e-05");
        assert_eq!(float_repr(5.0), "5.0");
        assert_eq!(standardize("New York, NY's"), "newyorkny\"s");
    }
}
