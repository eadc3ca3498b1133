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
            (Py::List(a), Py::List(b)) | (Py::Tuple(a), Py::Tuple(b)) => list_eq(a, b),
            (Py::Dict(a), Py::Dict(b)) => dict_eq(a, b),
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
        self.write_repr(&mut out);
        out
    }

    /// Writes Python's `repr(self)`.
    pub(crate) fn write_repr(&self, out: &mut String) {
        self.write(out, Written::Repr);
    }

    /// Writes the value as `repr` or as `json.dumps` does: the two differ
    /// in scalars and strings, not in how lists and dicts are laid out.
    fn write(&self, out: &mut String, how: Written) {
        match (self, how) {
            (Py::None, Written::Repr) => out.push_str("None"),
            (Py::None, Written::Json) => out.push_str("null"),
            (Py::Bool(b), Written::Repr) => out.push_str(if *b { "True" } else { "False" }),
            (Py::Bool(b), Written::Json) => out.push_str(if *b { "true" } else { "false" }),
            (Py::Int(i), _) => out.push_str(itoa::Buffer::new().format(*i)),
            (Py::BigInt(n), _) => out.push_str(&pyint::decimal(n)),
            (Py::Float(f), Written::Json) if f.is_nan() => out.push_str("NaN"),
            (Py::Float(f), Written::Json) if f.is_infinite() => out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" }),
            (Py::Float(f), _) => write_float_repr(*f, out),
            (Py::Str(s), how) => how.string(s, out),
            // json.dumps writes a tuple as a list.
            (Py::List(items), how) | (Py::Tuple(items), how @ Written::Json) => write_list(items, out, how),
            // repr writes a tuple as `(a,)`, `(a, b)`.
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

/// Python's `==` of two lists (or two tuples).
pub fn list_eq(a: &[Py], b: &[Py]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.py_eq(y))
}

/// Python's `==` of two dicts: the same keys with equal values, in any order.
pub fn dict_eq(a: &[(String, Py)], b: &[(String, Py)]) -> bool {
    a.len() == b.len() && a.iter().all(|(k, x)| b.iter().any(|(kb, y)| kb == k && x.py_eq(y)))
}

/// Whether `json.dumps(a) == json.dumps(b)`, without writing either: the
/// values match in shape, equal strings, ints and float bits (every NaN
/// writes `NaN`), a tuple matching a list.
pub fn same_json(a: &Py, b: &Py) -> bool {
    same_text(a, b, Written::Json)
}

/// Whether `repr(a) == repr(b)`, without writing either (as [`same_json`],
/// but a tuple is not a list).
pub fn same_repr(a: &Py, b: &Py) -> bool {
    same_text(a, b, Written::Repr)
}

fn same_text(a: &Py, b: &Py, how: Written) -> bool {
    let all_same = |x: &[Py], y: &[Py]| x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_text(x, y, how));
    match (a, b) {
        (Py::None, Py::None) => true,
        (Py::Bool(x), Py::Bool(y)) => x == y,
        (Py::Int(x), Py::Int(y)) => x == y,
        (Py::BigInt(x), Py::BigInt(y)) => x == y,
        // The shortest digits that read back are one text per float.
        (Py::Float(x), Py::Float(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (Py::Str(x), Py::Str(y)) => same_string(x, y, how),
        (Py::List(x), Py::List(y)) | (Py::Tuple(x), Py::Tuple(y)) => all_same(x, y),
        (Py::List(x), Py::Tuple(y)) | (Py::Tuple(x), Py::List(y)) => matches!(how, Written::Json) && all_same(x, y),
        (Py::Dict(x), Py::Dict(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((kx, vx), (ky, vy))| same_string(kx, ky, how) && same_text(vx, vy, how))
        }
        // Every other pair writes differently: a bool, None, a number, a
        // string, a list and a dict each start or read apart.
        _ => false,
    }
}

/// Whether two strings are written alike: equal ones always are; two
/// different ASCII ones never (their escapes read back); otherwise they
/// are written and compared (a lone surrogate's stand-in writes as half of
/// a pair's escape).
fn same_string(a: &str, b: &str, how: Written) -> bool {
    if a == b {
        return true;
    }
    if a.is_ascii() && b.is_ascii() {
        return false;
    }
    let (mut x, mut y) = (String::new(), String::new());
    how.string(a, &mut x);
    how.string(b, &mut y);
    x == y
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
            Written::Repr => write_str_repr(s, out),
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
    // Printable ASCII with nothing to escape is written as is.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
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

/// Writes Python's `repr` of a list of these items.
pub(crate) fn write_list_repr(items: &[Py], out: &mut String) {
    write_list(items, out, Written::Repr);
}

/// Writes `[a, b]` (a list, or a tuple as `json.dumps` writes it).
fn write_list(items: &[Py], out: &mut String, how: Written) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write(out, how);
    }
    out.push(']');
}

/// Python's `repr` of a float (shortest round trip; exponent below 1e-4
/// and from 1e16, as Python switches).
pub fn float_repr(f: f64) -> String {
    let mut out = String::new();
    write_float_repr(f, &mut out);
    out
}

/// Writes Python's `repr(f)`: the shortest digits that read back as `f`
/// (zmij's, the same digits as CPython's), laid out as CPython lays them
/// out: positional when the decimal point falls within 16 digits of the
/// first and not more than 4 places before it, else `d.ddde±XX`.
pub fn write_float_repr(f: f64, out: &mut String) {
    if f.is_nan() {
        return out.push_str("nan");
    }
    if f.is_infinite() {
        return out.push_str(if f > 0.0 { "inf" } else { "-inf" });
    }
    let mut buffer = zmij::Buffer::new();
    let text = buffer.format_finite(f);
    // Written positionally where Python writes it so: as is, with `.0` on a whole number.
    if !text.contains(['e', 'E']) && (f == 0.0 || (1e-4..1e16).contains(&f.abs())) {
        out.push_str(text);
        if !text.contains('.') {
            out.push_str(".0");
        }
        return;
    }
    let (negative, text) = text.strip_prefix('-').map_or((false, text), |t| (true, t));
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The digits d1 d2 … dn and `point`: the value is 0.d1d2…dn × 10^point.
    let mut digits = [0u8; 40];
    let mut n = 0;
    let mut point = whole.len() as i32 + exponent;
    for b in whole.bytes().chain(fraction.bytes()) {
        if n == 0 && b == b'0' {
            point -= 1;
        } else if n < digits.len() {
            digits[n] = b;
            n += 1;
        }
    }
    while n > 0 && digits[n - 1] == b'0' {
        n -= 1;
    }
    if negative {
        out.push('-');
    }
    if n == 0 {
        return out.push_str("0.0");
    }
    let digits = &digits[..n];
    let push = |out: &mut String, bytes: &[u8]| bytes.iter().for_each(|&b| out.push(char::from(b)));
    if point <= -4 || point > 16 {
        push(out, &digits[..1]);
        if n > 1 {
            out.push('.');
            push(out, &digits[1..]);
        }
        let e = point - 1;
        out.push_str(if e < 0 { "e-" } else { "e+" });
        if e.abs() < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(e.abs()));
    } else if point <= 0 {
        out.push_str("0.");
        (0..-point).for_each(|_| out.push('0'));
        push(out, digits);
    } else {
        let point = point as usize;
        if n <= point {
            push(out, digits);
            (n..point).for_each(|_| out.push('0'));
            out.push_str(".0");
        } else {
            push(out, &digits[..point]);
            out.push('.');
            push(out, &digits[point..]);
        }
    }
}

/// Python's `repr` of a string: single quotes unless the text has one and no double.
pub fn str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str_repr(s, &mut out);
    out
}

/// Writes Python's `repr` of a string (see [`str_repr`]).
pub(crate) fn write_str_repr(s: &str, out: &mut String) {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.push(quote);
    // Printable ASCII with nothing to escape is written as is.
    if s.bytes().all(|b| (0x20..0x7f).contains(&b) && b != b'\\' && b != quote as u8) {
        out.push_str(s);
        out.push(quote);
        return;
    }
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
}

/// BFCL's `standardize_string`: spaces and `,./-_*^` removed, lower case,
/// `'` written as `"`.
pub fn standardize(s: &str) -> String {
    if s.is_ascii() {
        return standardized_ascii(s).map(char::from).collect();
    }
    let kept: String = s.chars().filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^')).collect();
    kept.to_lowercase().replace('\'', "\"")
}

/// `standardize` of an ASCII string, a byte at a time: on ASCII, Python's
/// `lower()` is the ASCII one (its special cases are all beyond ASCII).
fn standardized_ascii(s: &str) -> impl Iterator<Item = u8> + '_ {
    s.bytes().map(|b| STANDARDIZED[usize::from(b)]).filter(|&b| b != DROPPED)
}

/// What `standardize` makes of each ASCII byte; [`DROPPED`] where it drops it.
const STANDARDIZED: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = match b as u8 {
            b' ' | b',' | b'.' | b'/' | b'-' | b'_' | b'*' | b'^' => DROPPED,
            b'\'' => b'"',
            c => c.to_ascii_lowercase(),
        };
        b += 1;
    }
    table
};
const DROPPED: u8 = 0xff;

/// Whether `standardize(raw) == standardized`, without building the string
/// while `raw` is ASCII (the common case, judged once per answer).
pub fn standardizes_to(raw: &str, standardized: &str) -> bool {
    let mut want = standardized.bytes();
    for b in raw.bytes() {
        // Past ASCII, lowercasing may change lengths: build the string. A
        // mismatch before that is final (ASCII lowercases alike either way).
        let Some(&kept) = STANDARDIZED.get(usize::from(b)) else {
            return standardize(raw) == standardized;
        };
        if kept != DROPPED && want.next() != Some(kept) {
            return false;
        }
    }
    want.next().is_none()
}

/// Whether `standardize(a) == standardize(b)`, without building either
/// string when both are ASCII.
pub fn standardized_eq(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        standardized_ascii(a).eq(standardized_ascii(b))
    } else {
        standardize(a) == standardize(b)
    }
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
    fn standardized_comparisons_agree_with_building_the_strings() {
        // ASCII, dropped characters, quotes, and past ASCII: 'İ' lowercases
        // to two characters, 'Σ' by its context, 'ß' stays one.
        let words = [
            "",
            "a",
            "A",
            "New York, NY's",
            "newyorkny\"s",
            "new-york",
            "NEW_YORK",
            "a\0b",
            "İstanbul",
            "i̇stanbul",
            "ΟΔΟΣ",
            "οδος",
            "Straße",
            "STRASSE",
            "x İ",
            "xi̇",
            "caf\u{e9}",
            "CAF\u{c9}",
        ];
        for a in words {
            for b in words {
                let built = standardize(a) == standardize(b);
                assert_eq!(standardizes_to(a, &standardize(b)), built, "{a:?} {b:?}");
                assert_eq!(standardized_eq(a, b), built, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn reprs_and_standardize() {
        assert_eq!(Py::from_json(&json!({"a": [1, 2.5, true, null, "it's"]})).repr(), r#"{'a': [1, 2.5, True, None, "it's"]}"#);
        assert_eq!(float_repr(1e-5), "1e-05");
        assert_eq!(float_repr(5.0), "5.0");
        assert_eq!(standardize("New York, NY's"), "newyorkny\"s");
    }

    /// `repr(v)` in CPython 3.11 for each value's bits, printed by
    /// `python3 -c "import struct; v=…; print(hex(struct.unpack('<Q', struct.pack('<d', v))[0]), repr(v))"`.
    const PYTHON_FLOAT_REPRS: [(u64, &str); 25] = [
        // A tie between two shortest forms (the value is …562.25): Python
        // takes the even digit; Rust's `{:?}` writes …562.3.
        (0x43179085685d83c9_u64, "1658206780088562.2"),
        (0x0_u64, "0.0"),
        (0x8000000000000000_u64, "-0.0"),
        (0x3ff0000000000000_u64, "1.0"),
        (0xbff8000000000000_u64, "-1.5"),
        (0x3fb999999999999a_u64, "0.1"),
        (0x3ee4f8b588e368f1_u64, "1e-05"),
        (0x3f1a36e2eb1c432d_u64, "0.0001"),
        (0x3f202c9dedbc309d_u64, "0.0001234"),
        (0x4341c37937e08000_u64, "1e+16"),
        (0x430c6bf526340000_u64, "1000000000000000.0"),
        (0x437b69b4ba630f35_u64, "1.2345678901234568e+17"),
        (0x7fefffffffffffff_u64, "1.7976931348623157e+308"),
        (0x1_u64, "5e-324"),
        (0x10000000000000_u64, "2.2250738585072014e-308"),
        (0x3fd3333333333334_u64, "0.30000000000000004"),
        (0x4059000000000000_u64, "100.0"),
        (0x40934a0000000000_u64, "1234.5"),
        (0x4341c37937e07fff_u64, "9999999999999998.0"),
        (0x4480f0cf064dd592_u64, "1e+22"),
        (0x400921f9f01b866e_u64, "3.14159"),
        (0xbe90c6f7a0b5ed8d_u64, "-2.5e-07"),
        (0x4345ee2a2eb5a5c4_u64, "1.2345678901234568e+16"),
        (0x3f50624dd2f1a9fc_u64, "0.001"),
        (0x4271f7182a000000_u64, "1234560000000.0"),
    ];

    #[test]
    fn floats_are_written_as_python_writes_them() {
        for (bits, python) in PYTHON_FLOAT_REPRS {
            assert_eq!(float_repr(f64::from_bits(bits)), python, "{bits:#x}");
        }
        assert_eq!(float_repr(f64::NAN), "nan");
        assert_eq!(float_repr(f64::NEG_INFINITY), "-inf");
    }

    /// Values that look alike in some writing: numbers of each type, a
    /// string of a number, a list and a tuple, non-ASCII text, NaN and -0.0.
    fn lookalikes() -> Vec<Py> {
        let s = |t: &str| Py::Str(t.into());
        let scalars = vec![
            Py::None,
            Py::Bool(true),
            Py::Bool(false),
            Py::Int(1),
            Py::Int(0),
            Py::BigInt(Box::new(num_bigint::BigInt::from(1u8) << 200u32)),
            Py::Float(1.0),
            Py::Float(0.0),
            Py::Float(-0.0),
            Py::Float(f64::NAN),
            Py::Float(-f64::NAN),
            Py::Float(f64::INFINITY),
            s("1"),
            s("True"),
            s("a'b"),
            s("a\"b"),
            s("é"),
            s("\u{e9}"),
            s("\\u00e9"),
            s("😀"),
            // Two lone surrogates' stand-ins: json.dumps writes them as it writes 😀.
            Py::Str([0xD83D, 0xDE00].into_iter().filter_map(super::super::surrogate::char_for).collect()),
        ];
        let mut all = scalars.clone();
        for v in scalars.iter().take(12) {
            all.push(Py::List(vec![v.clone()]));
            all.push(Py::Tuple(vec![v.clone()]));
            all.push(Py::Dict(vec![("k".into(), v.clone())]));
        }
        all.push(Py::List(vec![]));
        all.push(Py::Tuple(vec![]));
        all.push(Py::Dict(vec![]));
        all.push(Py::Dict(vec![("é".into(), Py::Int(1)), ("b".into(), Py::List(vec![s("x"), Py::Float(2.5)]))]));
        all.push(Py::Dict(vec![("b".into(), Py::List(vec![s("x"), Py::Float(2.5)])), ("é".into(), Py::Int(1))]));
        all
    }

    #[test]
    fn values_compare_as_their_text_does() {
        let all = lookalikes();
        for a in &all {
            for b in &all {
                assert_eq!(same_json(a, b), a.json_dumps() == b.json_dumps(), "json.dumps of {a:?} and {b:?}");
                assert_eq!(same_repr(a, b), a.repr() == b.repr(), "repr of {a:?} and {b:?}");
            }
        }
    }

    /// The significant digits of a float's text, leading and trailing zeros dropped.
    fn significant(text: &str) -> String {
        let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
        mantissa.chars().filter(char::is_ascii_digit).collect::<String>().trim_matches('0').to_string()
    }

    /// Read back, the text is the float, with no more digits than the
    /// shortest form Rust finds, laid out as Python lays it out.
    fn check_repr(f: f64) {
        let text = float_repr(f);
        assert_eq!(text.parse::<f64>().ok().map(f64::to_bits), Some(f.to_bits()), "{text}");
        assert_eq!(significant(&text).len(), significant(&format!("{f:?}")).len(), "{text} against {f:?}");
        let magnitude = f.abs();
        let positional = magnitude == 0.0 || (1e-4..1e16).contains(&magnitude);
        assert_eq!(!text.contains('e'), positional, "{text}");
        assert!(text.contains('.') || text.contains('e'), "{text}");
    }

    #[test]
    fn floats_of_every_magnitude_read_back_in_the_fewest_digits() {
        // A fixed xorshift over all 64-bit patterns: every exponent and sign.
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            if f.is_finite() {
                check_repr(f);
            }
        }
        for n in 0..2_000i32 {
            check_repr(f64::from(n) * 0.25 - 100.0);
        }
    }
}
