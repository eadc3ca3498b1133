//! Python's numbers as the vehicle class meets them: what `+ - * /`, `<`,
//! `float()`, `bool()` and `for` do to the values a call passes in, with
//! Python's `TypeError` text for the types they refuse.

use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::{str_repr, Py};

/// An int or a float (a bool counts as an int, as in Python).
#[derive(Debug, Clone, Copy)]
pub(super) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    pub(super) fn f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// The number, if `value` is one.
pub(super) fn number(value: &Py) -> Option<Num> {
    match value {
        Py::Bool(b) => Some(Num::Int(i128::from(*b))),
        Py::Int(i) => Some(Num::Int(*i)),
        Py::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

/// `a op b` for `+ - * /` (`/` is true division: always a float).
pub(super) fn arith(a: &Py, op: char, b: &Py) -> Result<Py, PyError> {
    let (Some(x), Some(y)) = (number(a), number(b)) else {
        if op == '*' && matches!(a, Py::Str(_) | Py::List(_)) && matches!(b, Py::Float(_)) {
            return Err("can't multiply sequence by non-int of type 'float'".to_string());
        }
        return Err(format!("unsupported operand type(s) for {op}: '{}' and '{}'", a.py_type().name(), b.py_type().name()));
    };
    Ok(match (x, y, op) {
        // Past i128 (Python's ints have no bound) the float is the nearest we have.
        (Num::Int(i), Num::Int(j), '+') if i.checked_add(j).is_some() => Py::Int(i + j),
        (Num::Int(i), Num::Int(j), '-') if i.checked_sub(j).is_some() => Py::Int(i - j),
        (Num::Int(i), Num::Int(j), '*') if i.checked_mul(j).is_some() => Py::Int(i * j),
        (_, _, '/') if y.f64() == 0.0 => return Err("division by zero".to_string()),
        (_, _, '+') => Py::Float(x.f64() + y.f64()),
        (_, _, '-') => Py::Float(x.f64() - y.f64()),
        (_, _, '*') => Py::Float(x.f64() * y.f64()),
        _ => Py::Float(x.f64() / y.f64()),
    })
}

/// `a op b` for `<` and `<=`.
fn compare(a: &Py, op: &str, b: &Py) -> Result<bool, PyError> {
    let (Some(x), Some(y)) = (number(a), number(b)) else {
        return Err(format!("'{op}' not supported between instances of '{}' and '{}'", a.py_type().name(), b.py_type().name()));
    };
    let ints = match (x, y) {
        (Num::Int(i), Num::Int(j)) => Some((i, j)),
        _ => None,
    };
    Ok(match (op, ints) {
        ("<", Some((i, j))) => i < j,
        ("<", None) => x.f64() < y.f64(),
        (_, Some((i, j))) => i <= j,
        (_, None) => x.f64() <= y.f64(),
    })
}

/// `a < b`.
pub(super) fn less(a: &Py, b: &Py) -> Result<bool, PyError> {
    compare(a, "<", b)
}

/// `a <= b`.
pub(super) fn less_eq(a: &Py, b: &Py) -> Result<bool, PyError> {
    compare(a, "<=", b)
}

/// `float(value)`, strings parsed as Python parses them.
pub(super) fn py_float(value: &Py) -> Result<f64, PyError> {
    if let Some(n) = number(value) {
        return Ok(n.f64());
    }
    match value {
        Py::Str(s) => {
            let text = s.trim();
            // Python allows `_` between digits only.
            let digits_around = |i: usize| {
                let bytes = text.as_bytes();
                i > 0 && i + 1 < bytes.len() && bytes[i - 1].is_ascii_digit() && bytes[i + 1].is_ascii_digit()
            };
            let underscores_ok = text.bytes().enumerate().all(|(i, c)| c != b'_' || digits_around(i));
            let parsed = if underscores_ok { text.replace('_', "").parse::<f64>().ok() } else { None };
            parsed.ok_or_else(|| format!("could not convert string to float: {}", str_repr(s)))
        }
        other => Err(format!("float() argument must be a string or a real number, not '{}'", other.py_type().name())),
    }
}

/// Python's `bool(value)`.
pub(super) fn truthy(value: &Py) -> bool {
    match value {
        Py::None => false,
        Py::Bool(b) => *b,
        Py::Int(i) => *i != 0,
        Py::Float(f) => *f != 0.0,
        Py::Str(s) => !s.is_empty(),
        Py::List(items) => !items.is_empty(),
        Py::Dict(entries) => !entries.is_empty(),
    }
}

/// What `for x in value` yields: a string's characters, a dict's keys.
pub(super) fn iterate(value: &Py) -> Result<Vec<Py>, PyError> {
    match value {
        Py::List(items) => Ok(items.clone()),
        Py::Str(s) => Ok(s.chars().map(|c| Py::Str(c.to_string())).collect()),
        Py::Dict(entries) => Ok(entries.iter().map(|(k, _)| Py::Str(k.clone())).collect()),
        other => Err(format!("'{}' object is not iterable", other.py_type().name())),
    }
}
