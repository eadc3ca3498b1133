//! Python's arithmetic, comparisons and truth on [`Py`] values, as far as
//! BFCL's classes use them: ints stay ints (`2 + 3` is `5`), an int meets a
//! float as a float, `True` counts as `1`, and what Python refuses raises
//! the `TypeError` Python writes. Shared by `MathAPI` and `TradingBot`.

use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::Py;

/// A Python number (`bool` already counted as the int it is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    /// The value as a float, as Python's `float(x)` makes it.
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// Back to a Python value.
    pub fn to_py(self) -> Py {
        match self {
            Num::Int(i) => Py::Int(i),
            Num::Float(f) => Py::Float(f),
        }
    }
}

/// The number in `v`, if it is one (`isinstance(v, (int, float))`, bools included).
pub fn num(v: &Py) -> Option<Num> {
    match v {
        Py::Bool(b) => Some(Num::Int(i128::from(*b))),
        Py::Int(i) => Some(Num::Int(*i)),
        Py::Float(f) => Some(Num::Float(*f)),
        _ => None,
    }
}

/// `type(v).__name__`.
pub fn type_name(v: &Py) -> &'static str {
    v.py_type().name()
}

/// Python's `bool(v)`.
pub fn truthy(v: &Py) -> bool {
    match v {
        Py::None => false,
        Py::Bool(b) => *b,
        Py::Int(i) => *i != 0,
        Py::Float(f) => *f != 0.0,
        Py::Str(s) => !s.is_empty(),
        Py::List(items) => !items.is_empty(),
        Py::Dict(entries) => !entries.is_empty(),
    }
}

/// An arithmetic operator, written as Python writes it in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
        }
    }
}

/// `a <op> b` (or `a <op>= b` when `augmented`, which only changes the message).
pub fn arith(op: Op, a: &Py, b: &Py, augmented: bool) -> Result<Py, PyError> {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return num_arith(op, x, y).map(Num::to_py);
    }
    let symbol = if augmented { format!("{}=", op.symbol()) } else { op.symbol().to_string() };
    match (op, a, b) {
        (Op::Add, Py::Str(x), Py::Str(y)) => Ok(Py::Str(format!("{x}{y}"))),
        (Op::Add, Py::List(x), Py::List(y)) => Ok(Py::List(x.iter().chain(y).cloned().collect())),
        (Op::Add, Py::Str(_) | Py::List(_), _) => {
            let t = type_name(a);
            Err(format!("can only concatenate {t} (not \"{}\") to {t}", type_name(b)))
        }
        (Op::Mul, Py::Str(_) | Py::List(_), Py::Int(_) | Py::Bool(_)) => repeat(a, b),
        (Op::Mul, Py::Int(_) | Py::Bool(_), Py::Str(_) | Py::List(_)) => repeat(b, a),
        (Op::Mul, Py::Str(_) | Py::List(_), _) | (Op::Mul, _, Py::Str(_) | Py::List(_)) => {
            // Python names the operand that is not an int.
            let other = if matches!(a, Py::Str(_) | Py::List(_)) { b } else { a };
            Err(format!("can't multiply sequence by non-int of type '{}'", type_name(other)))
        }
        _ => Err(format!("unsupported operand type(s) for {symbol}: '{}' and '{}'", type_name(a), type_name(b))),
    }
}

/// `seq * n` for a string or a list.
fn repeat(seq: &Py, n: &Py) -> Result<Py, PyError> {
    let times = match num(n) {
        Some(Num::Int(i)) => usize::try_from(i.max(0)).map_err(|_| "cannot fit 'int' into an index-sized integer".to_string())?,
        _ => 0,
    };
    Ok(match seq {
        Py::Str(s) => Py::Str(s.repeat(times)),
        Py::List(items) => Py::List(items.iter().cloned().cycle().take(items.len() * times).collect()),
        other => other.clone(),
    })
}

/// Arithmetic on two numbers: ints stay ints except for `/`.
pub fn num_arith(op: Op, a: Num, b: Num) -> Result<Num, PyError> {
    if let (Num::Int(x), Num::Int(y)) = (a, b) {
        let exact = match op {
            Op::Add => x.checked_add(y),
            Op::Sub => x.checked_sub(y),
            Op::Mul => x.checked_mul(y),
            Op::Div if y == 0 => return Err("division by zero".into()),
            Op::Div => return Ok(Num::Float(int_true_div(x, y))),
        };
        // Past i128 Python's ints keep going; a float is the nearest we carry.
        if let Some(v) = exact {
            return Ok(Num::Int(v));
        }
    }
    let (x, y) = (a.as_f64(), b.as_f64());
    Ok(Num::Float(match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Div if y == 0.0 => return Err("float division by zero".into()),
        Op::Div => x / y,
    }))
}

/// `x / y` for ints: exact operands below 2**53 make the float division
/// correctly rounded, as Python's is.
fn int_true_div(x: i128, y: i128) -> f64 {
    x as f64 / y as f64
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// `a <cmp> b` for numbers and for strings; anything else raises Python's `TypeError`.
pub fn compare(cmp: Cmp, a: &Py, b: &Py) -> Result<bool, PyError> {
    let ordering = match (a, b) {
        (Py::Str(x), Py::Str(y)) => Some(x.cmp(y)),
        _ => match (num(a), num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => Some(x.cmp(&y)),
            (Some(x), Some(y)) => match x.as_f64().partial_cmp(&y.as_f64()) {
                Some(o) => Some(o),
                // NaN: every ordering comparison is False.
                None => return Ok(false),
            },
            _ => None,
        },
    };
    let symbol = match cmp {
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
    };
    let Some(o) = ordering else {
        return Err(format!("'{symbol}' not supported between instances of '{}' and '{}'", type_name(a), type_name(b)));
    };
    Ok(match cmp {
        Cmp::Lt => o.is_lt(),
        Cmp::Le => o.is_le(),
        Cmp::Gt => o.is_gt(),
        Cmp::Ge => o.is_ge(),
    })
}

/// Python's `abs(v)`.
pub fn abs(v: &Py) -> Result<Py, PyError> {
    match num(v) {
        Some(Num::Int(i)) => Ok(Py::Int(i.abs())),
        Some(Num::Float(f)) => Ok(Py::Float(f.abs())),
        None => Err(format!("bad operand type for abs(): '{}'", type_name(v))),
    }
}

/// Refuses a list or a dict as a dict key or set member, as Python does.
pub fn hashable(v: &Py) -> Result<(), PyError> {
    match v {
        Py::List(_) | Py::Dict(_) => Err(format!("unhashable type: '{}'", type_name(v))),
        _ => Ok(()),
    }
}

/// `key in d` for a dict with string keys.
pub fn has_key(entries: &[(String, Py)], key: &Py) -> Result<bool, PyError> {
    hashable(key)?;
    Ok(match key {
        Py::Str(k) => entries.iter().any(|(e, _)| e == k),
        _ => false,
    })
}

/// `d[key]` of a dict value: Python's `KeyError` (its message is the key's
/// repr) or the `TypeError` of indexing something that is not a dict.
pub fn item<'a>(d: &'a Py, key: &str) -> Result<&'a Py, PyError> {
    match d {
        Py::Dict(_) => d.get(key).ok_or_else(|| crate::bfcl::pyvalue::str_repr(key)),
        Py::Str(_) => Err("string indices must be integers, not 'str'".into()),
        Py::List(_) => Err("list indices must be integers or slices, not str".into()),
        other => Err(format!("'{}' object is not subscriptable", type_name(other))),
    }
}

/// `d[key] = value` on a dict value (a new key goes last).
pub fn set_item(d: &mut Py, key: &str, value: Py) -> Result<(), PyError> {
    match d {
        Py::Dict(entries) => {
            match entries.iter_mut().find(|(k, _)| k == key) {
                Some(entry) => entry.1 = value,
                None => entries.push((key.to_string(), value)),
            }
            Ok(())
        }
        Py::Str(_) => Err("'str' object does not support item assignment".into()),
        Py::List(_) => Err("list indices must be integers or slices, not str".into()),
        other => Err(format!("'{}' object does not support item assignment", type_name(other))),
    }
}

/// The items `for x in v` visits: a list's items, a string's characters, a dict's keys.
pub fn iterate(v: &Py) -> Result<Vec<Py>, PyError> {
    match v {
        Py::List(items) => Ok(items.clone()),
        Py::Str(s) => Ok(s.chars().map(|c| Py::Str(c.to_string())).collect()),
        Py::Dict(entries) => Ok(entries.iter().map(|(k, _)| Py::Str(k.clone())).collect()),
        other => Err(format!("'{}' object is not iterable", type_name(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_stay_ints_and_floats_spread() {
        assert!(matches!(arith(Op::Add, &Py::Int(2), &Py::Int(3), false), Ok(Py::Int(5))));
        assert!(matches!(arith(Op::Sub, &Py::Float(10000.0), &Py::Int(500), true), Ok(Py::Float(f)) if f == 9500.0));
        assert!(matches!(arith(Op::Add, &Py::Bool(true), &Py::Int(1), false), Ok(Py::Int(2))));
        assert!(matches!(arith(Op::Div, &Py::Int(7), &Py::Int(2), false), Ok(Py::Float(f)) if f == 3.5));
        assert_eq!(
            arith(Op::Sub, &Py::Int(1), &Py::Str("a".into()), true).unwrap_err(),
            "unsupported operand type(s) for -=: 'int' and 'str'"
        );
        assert_eq!(arith(Op::Div, &Py::Int(1), &Py::Int(0), false).unwrap_err(), "division by zero");
        assert_eq!(arith(Op::Add, &Py::Str("a".into()), &Py::Int(1), false).unwrap_err(), "can only concatenate str (not \"int\") to str");
    }

    #[test]
    fn comparisons_as_python() {
        assert_eq!(compare(Cmp::Le, &Py::Int(0), &Py::Float(0.0)), Ok(true));
        assert_eq!(compare(Cmp::Gt, &Py::Float(f64::NAN), &Py::Int(0)), Ok(false));
        assert_eq!(
            compare(Cmp::Le, &Py::Str("a".into()), &Py::Int(0)).unwrap_err(),
            "'<=' not supported between instances of 'str' and 'int'"
        );
    }
}
