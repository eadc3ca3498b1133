//! Values as BFCL's Python checker sees them: JSON decoded by Python's
//! `json` module (ints and floats apart, `True == 1 == 1.0`), compared with
//! Python's `==`, written with Python's `repr` in messages.

use serde_json::Value;

use super::pyint;

/// A Python value that JSON or BFCL's Java/JavaScript converters can produce.
#[derive(Debug, Clone)]
pub enum Py {
    None,
    Bool(bool),
    /// An int that fits 128 bits: the common case, kept fast.
    Int(i128),
    /// An int past 128 bits, exact as Python keeps it; never one that fits
    /// an `i128` (see [`crate::bfcl::pyvalue::py_int`]), so equal ints share a variant.
    BigInt(Box<num_bigint::BigInt>),
    Float(f64),
    Str(String),
    List(Vec<Py>),
    /// A tuple, which only a multi-turn call's text writes (`('a',)`):
    /// Python keeps it apart from a list in `==`, `repr` and hashing.
    Tuple(Vec<Py>),
    /// Keys in insertion order, as Python dicts keep them.
    Dict(Vec<(String, Py)>),
}

/// Read from JSON as Python's `json.loads` reads it: dict keys keep the
/// order they were written in (a `serde_json::Value` would sort them, and
/// BFCL's classes list a folder or an inbox in that order).
impl<'de> serde::Deserialize<'de> for Py {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Py, D::Error> {
        deserializer.deserialize_any(PyVisitor)
    }
}

struct PyVisitor;

impl<'de> serde::de::Visitor<'de> for PyVisitor {
    type Value = Py;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Py, E> {
        Ok(Py::None)
    }
    fn visit_none<E>(self) -> Result<Py, E> {
        Ok(Py::None)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Py, E> {
        Ok(Py::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Py, E> {
        Ok(Py::Int(i128::from(i)))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Py, E> {
        Ok(Py::Int(i128::from(u)))
    }
    fn visit_f64<E>(self, f: f64) -> Result<Py, E> {
        Ok(Py::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Py, E> {
        Ok(Py::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Py, E> {
        Ok(Py::Str(s))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Py, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Py::List(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Py, A::Error> {
        let mut entries: Vec<(String, Py)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Py>()? {
            // A repeated key keeps its first place and its last value, as in Python.
            match entries.iter_mut().find(|(k, _)| *k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key, value)),
            }
        }
        Ok(Py::Dict(entries))
    }
}

/// Written as the JSON it was read from, dict keys in order.
impl serde::Serialize for Py {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self {
            Py::None => serializer.serialize_unit(),
            Py::Bool(b) => serializer.serialize_bool(*b),
            Py::Int(i) => match i64::try_from(*i) {
                Ok(i) => serializer.serialize_i64(i),
                Err(_) => serializer.serialize_f64(*i as f64),
            },
            // JSON here has no ints past 64 bits: the nearest float, as for an i128 past i64.
            Py::BigInt(n) => serializer.serialize_f64(num_traits::ToPrimitive::to_f64(&**n).unwrap_or(f64::INFINITY)),
            Py::Float(f) => serializer.serialize_f64(*f),
            Py::Str(s) => serializer.serialize_str(s),
            Py::List(items) | Py::Tuple(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Py::Dict(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// Python's `==` (`1 == 1.0 == True`, dicts in any order).
impl PartialEq for Py {
    fn eq(&self, other: &Py) -> bool {
        self.py_eq(other)
    }
}

/// An empty dict.
impl Default for Py {
    fn default() -> Py {
        Py::Dict(Vec::new())
    }
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
    Tuple,
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
            PyType::Tuple => "tuple",
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
            Py::BigInt(n) => {
                num_traits::ToPrimitive::to_f64(&**n).and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number)
            }
            Py::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Py::Str(s) => Value::String(s.clone()),
            Py::List(items) | Py::Tuple(items) => Value::Array(items.iter().map(Py::to_json).collect()),
            Py::Dict(entries) => Value::Object(entries.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
        }
    }

    /// `type(self)`.
    pub fn py_type(&self) -> PyType {
        match self {
            Py::None => PyType::None,
            Py::Bool(_) => PyType::Bool,
            Py::Int(_) | Py::BigInt(_) => PyType::Int,
            Py::Float(_) => PyType::Float,
            Py::Str(_) => PyType::Str,
            Py::List(_) => PyType::List,
            Py::Tuple(_) => PyType::Tuple,
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

    /// Python's `self == other`.
    pub fn py_eq(&self, other: &Py) -> bool {
        match (self, other) {
            (Py::Int(a), Py::Int(b)) => a == b,
            (Py::Bool(a), Py::Bool(b)) => a == b,
            (Py::Int(a), Py::Bool(b)) | (Py::Bool(b), Py::Int(a)) => *a == i128::from(*b),
            (Py::Float(a), Py::Float(b)) => a == b,
            // An int equals a float only when the float is exactly that int.
            (Py::Float(f), Py::Int(i)) | (Py::Int(i), Py::Float(f)) => pyint::int_eq_float(*i, *f),
            (Py::Float(f), Py::Bool(b)) | (Py::Bool(b), Py::Float(f)) => *f == f64::from(u8::from(*b)),
            (Py::Float(f), Py::BigInt(n)) | (Py::BigInt(n), Py::Float(f)) => pyint::big_eq_float(n, *f),
            // Big ints never fit an i128, so they equal only each other.
            (Py::BigInt(a), Py::BigInt(b)) => a == b,
            (Py::None, Py::None) => true,
            (Py::Str(a), Py::Str(b)) => a == b,
            (Py::List(a), Py::List(b)) | (Py::Tuple(a), Py::Tuple(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y)),
            (Py::Dict(a), Py::Dict(b)) => a.len() == b.len() && a.iter().all(|(k, x)| b.iter().any(|(kb, y)| kb == k && x.py_eq(y))),
            _ => false,
        }
    }

    /// Whether an int inside has more decimal digits than Python's `str` writes (4300).
    pub fn has_int_past_str_limit(&self) -> bool {
        match self {
            Py::BigInt(n) => pyint::exceeds_str_digits(n),
            Py::List(items) | Py::Tuple(items) => items.iter().any(Py::has_int_past_str_limit),
            Py::Dict(entries) => entries.iter().any(|(_, v)| v.has_int_past_str_limit()),
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
        self.write(&mut out, Written::Repr);
        out
    }

    /// Writes the value as `repr` or as `json.dumps` does: the two differ
    /// in scalars and strings, not in how lists and dicts are laid out.
    fn write(&self, out: &mut String, how: Written) {
        match (self, how) {
            (Py::None, Written::Repr) => out.push_str("None"),
            (Py::None, Written::Json) => out.push_str("null"),
            (Py::Bool(b), Written::Repr) => out.push_str(if *b { "True" } else { "False" }),
            (Py::Bool(b), Written::Json) => out.push_str(if *b { "true" } else { "false" }),
            (Py::Int(i), _) => out.push_str(&i.to_string()),
            (Py::BigInt(n), _) => out.push_str(&pyint::decimal(n)),
            (Py::Float(f), Written::Json) if f.is_nan() => out.push_str("NaN"),
            (Py::Float(f), Written::Json) if f.is_infinite() => out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" }),
            (Py::Float(f), _) => out.push_str(&float_repr(*f)),
            (Py::Str(s), how) => how.string(s, out),
            (Py::List(items), how) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out, how);
                }
                out.push(']');
            }
            // json.dumps writes a tuple as a list; repr as `(a,)`, `(a, b)`.
            (Py::Tuple(items), Written::Json) => Py::List(items.clone()).write(out, how),
            (Py::Tuple(items), how) => {
                out.push('(');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write(out, how);
                }
                out.push_str(if items.len() == 1 { ",)" } else { ")" });
            }
            (Py::Dict(entries), how) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    how.string(k, out);
                    out.push_str(": ");
                    v.write(out, how);
                }
                out.push('}');
            }
        }
    }
}

/// How [`Py::write`] writes a value.
#[derive(Debug, Clone, Copy)]
enum Written {
    /// Python's `repr`.
    Repr,
    /// Python's `json.dumps` with its defaults.
    Json,
}

impl Written {
    fn string(self, s: &str, out: &mut String) {
        match self {
            Written::Repr => out.push_str(&str_repr(s)),
            Written::Json => json_str(s, out),
        }
    }
}

impl Py {
    /// Python's `str(self)`: a string as it is, anything else as its `repr`.
    pub fn str_(&self) -> String {
        match self {
            Py::Str(s) => s.clone(),
            other => other.repr(),
        }
    }

    /// Python's `json.dumps(self)` with its defaults: `", "` and `": "`
    /// between items, non-ASCII escaped, floats as `repr` writes them.
    pub fn json_dumps(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Written::Json);
        out
    }
}

/// A string as Python's `json.dumps` writes it (`ensure_ascii`).
fn json_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => match super::surrogate::surrogate_of(c) {
                // A lone surrogate's stand-in: `json.dumps('\ud800')` is `"\ud800"`.
                Some(code) => out.push_str(&format!("\\u{code:04x}")),
                None => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            },
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The Python int of this value: [`Py::Int`] when it fits, else [`Py::BigInt`].
pub fn py_int(v: num_bigint::BigInt) -> Py {
    match num_traits::ToPrimitive::to_i128(&v) {
        Some(i) => Py::Int(i),
        None => Py::BigInt(Box::new(v)),
    }
}

/// The exact value of an int (a bool counts as its int), if `v` is one.
pub fn exact_int(v: &Py) -> Option<num_bigint::BigInt> {
    match v {
        Py::Bool(b) => Some(num_bigint::BigInt::from(u8::from(*b))),
        Py::Int(i) => Some(num_bigint::BigInt::from(*i)),
        Py::BigInt(b) => Some((**b).clone()),
        _ => None,
    }
}

/// Python's `repr` of a list of values.
pub fn list_repr(items: &[Py]) -> String {
    Py::List(items.to_vec()).repr()
}

/// Python's `repr` of a float (shortest round trip; exponent below 1e-4
/// and from 1e16, as Python switches).
pub fn float_repr(f: f64) -> String {
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
            // `repr('\ud800')` is `'\ud800'`: a surrogate is not printable.
            c => match super::surrogate::surrogate_of(c) {
                Some(code) => out.push_str(&format!("\\u{code:04x}")),
                None => out.push(c),
            },
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
    fn ints_that_fit_stay_on_the_fast_path() {
        assert!(matches!(py_int(num_bigint::BigInt::from(5)), Py::Int(5)));
        assert!(matches!(py_int(num_bigint::BigInt::from(i128::MIN)), Py::Int(i128::MIN)));
        // Python: 2**127 is an int like any other; here it is the big variant.
        assert!(matches!(py_int("170141183460469231731687303715884105728".parse().unwrap()), Py::BigInt(_)));
        // The big variant is boxed: a Py stays as small as before.
        assert_eq!(std::mem::size_of::<Py>(), 32);
    }

    #[test]
    fn reprs_and_standardize() {
        assert_eq!(Py::from_json(&json!({"a": [1, 2.5, true, null, "it's"]})).repr(), r#"{'a': [1, 2.5, True, None, "it's"]}"#);
        assert_eq!(float_repr(1e-5), "1e-05");
        assert_eq!(float_repr(5.0), "5.0");
        assert_eq!(standardize("New York, NY's"), "newyorkny\"s");
    }
}
