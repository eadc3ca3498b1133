//! Python's operations on [`Py`] values, as BFCL's multi-turn API classes
//! meet them: truth, `len`, iteration, dict lookups, arithmetic and
//! comparisons (ints stay ints, an int meets a float as a float, `True`
//! counts as `1`), `float()`, `int()`, `round()`, each raising the text of
//! the exception Python raises. Every class uses these, so that one value
//! behaves the same whichever class it is passed to. `datetime`'s parsing
//! and formatting live in [`datetime`].

pub mod datetime;

use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::{str_repr, Py};

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
        Py::List(items) | Py::Tuple(items) => !items.is_empty(),
        Py::Dict(entries) => !entries.is_empty(),
    }
}

/// `len(v)`.
pub fn len(v: &Py) -> Result<usize, PyError> {
    match v {
        Py::List(items) | Py::Tuple(items) => Ok(items.len()),
        Py::Str(s) => Ok(s.chars().count()),
        Py::Dict(entries) => Ok(entries.len()),
        other => Err(format!("object of type '{}' has no len()", type_name(other))),
    }
}

/// The items `for x in v` visits: a list's items, a string's characters, a dict's keys.
pub fn iterate(v: &Py) -> Result<Vec<Py>, PyError> {
    match v {
        Py::List(items) | Py::Tuple(items) => Ok(items.clone()),
        Py::Str(s) => Ok(s.chars().map(|c| Py::Str(c.to_string())).collect()),
        Py::Dict(entries) => Ok(entries.iter().map(|(k, _)| Py::Str(k.clone())).collect()),
        other => Err(format!("'{}' object is not iterable", type_name(other))),
    }
}

/// Python's `AttributeError` text for `v.attribute`.
pub fn no_attribute(v: &Py, attribute: &str) -> PyError {
    format!("'{}' object has no attribute '{attribute}'", type_name(v))
}

/// `v.lower()`, which only a string has.
pub fn lower(v: &Py) -> Result<String, PyError> {
    v.as_str().map(str::to_lowercase).ok_or_else(|| no_attribute(v, "lower"))
}

/// A dict literal `{"key": value, ...}` of string keys, in the order given.
pub fn dict<'a>(entries: impl IntoIterator<Item = (&'a str, Py)>) -> Py {
    Py::Dict(entries.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// `{"error": message}`, how BFCL's classes report a refused call.
pub fn error(message: impl Into<String>) -> Py {
    dict([("error", Py::Str(message.into()))])
}

// Arithmetic and comparisons.

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

/// Python's `a <op> b`, or `a <op>= b` when `augmented` (a list's `+=`
/// extends it with any iterable; otherwise only the message changes).
pub fn arith(op: Op, a: &Py, b: &Py, augmented: bool) -> Result<Py, PyError> {
    if let (Some(x), Some(y)) = (num(a), num(b)) {
        return num_arith(op, x, y).map(Num::to_py);
    }
    let symbol = if augmented { format!("{}=", op.symbol()) } else { op.symbol().to_string() };
    match (op, a, b) {
        (Op::Add, Py::Str(x), Py::Str(y)) => Ok(Py::Str(format!("{x}{y}"))),
        (Op::Add, Py::List(x), Py::List(y)) => Ok(Py::List(x.iter().chain(y).cloned().collect())),
        (Op::Add, Py::Tuple(x), Py::Tuple(y)) => Ok(Py::Tuple(x.iter().chain(y).cloned().collect())),
        (Op::Add, Py::List(x), _) if augmented => Ok(Py::List(x.iter().cloned().chain(iterate(b)?).collect())),
        (Op::Add, Py::Str(_) | Py::List(_) | Py::Tuple(_), _) => {
            let t = type_name(a);
            Err(format!("can only concatenate {t} (not \"{}\") to {t}", type_name(b)))
        }
        (Op::Mul, Py::Str(_) | Py::List(_) | Py::Tuple(_), Py::Int(_) | Py::Bool(_)) => repeat(a, b),
        (Op::Mul, Py::Int(_) | Py::Bool(_), Py::Str(_) | Py::List(_) | Py::Tuple(_)) => repeat(b, a),
        (Op::Mul, Py::Str(_) | Py::List(_) | Py::Tuple(_), _) | (Op::Mul, _, Py::Str(_) | Py::List(_) | Py::Tuple(_)) => {
            // Python names the operand that is not an int.
            let other = if matches!(a, Py::Str(_) | Py::List(_) | Py::Tuple(_)) { b } else { a };
            Err(format!("can't multiply sequence by non-int of type '{}'", type_name(other)))
        }
        _ => Err(format!("unsupported operand type(s) for {symbol}: '{}' and '{}'", type_name(a), type_name(b))),
    }
}

/// `v += 1`.
pub fn increment(v: &Py) -> Result<Py, PyError> {
    arith(Op::Add, v, &Py::Int(1), true)
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
        Py::Tuple(items) => Py::Tuple(items.iter().cloned().cycle().take(items.len() * times).collect()),
        other => other.clone(),
    })
}

/// Python's arithmetic on two numbers: ints stay ints except for `/`.
pub fn num_arith(op: Op, a: Num, b: Num) -> Result<Num, PyError> {
    if let (Num::Int(x), Num::Int(y)) = (a, b) {
        let exact = match op {
            Op::Add => x.checked_add(y),
            Op::Sub => x.checked_sub(y),
            Op::Mul => x.checked_mul(y),
            Op::Div if y == 0 => return Err("division by zero".into()),
            // Exact operands below 2**53 make this correctly rounded, as Python's is.
            Op::Div => return Ok(Num::Float(x as f64 / y as f64)),
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

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// Python's `a <cmp> b` for numbers and for strings; anything else raises Python's `TypeError`.
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

// Conversions.

/// Whether Python's `int()`/`float()` accept the `_`s in `text`: each
/// between two digits.
fn underscores_ok(text: &str) -> bool {
    let bytes = text.as_bytes();
    let between_digits = |i: usize| i > 0 && i + 1 < bytes.len() && bytes[i - 1].is_ascii_digit() && bytes[i + 1].is_ascii_digit();
    bytes.iter().enumerate().all(|(i, c)| *c != b'_' || between_digits(i))
}

/// Python's `float(v)`, strings parsed as Python parses them.
pub fn float(v: &Py) -> Result<f64, PyError> {
    if let Some(n) = num(v) {
        return Ok(n.as_f64());
    }
    match v {
        Py::Str(s) => {
            let text = s.trim();
            let parsed = if underscores_ok(text) { text.replace('_', "").parse::<f64>().ok() } else { None };
            parsed.ok_or_else(|| format!("could not convert string to float: {}", str_repr(s)))
        }
        other => Err(format!("float() argument must be a string or a real number, not '{}'", type_name(other))),
    }
}

/// Python's `int(v)`: a float truncated, a string of decimal digits parsed.
pub fn int(v: &Py) -> Result<i128, PyError> {
    match v {
        Py::Int(i) => Ok(*i),
        Py::Bool(b) => Ok(i128::from(*b)),
        Py::Float(f) if f.is_nan() => Err("cannot convert float NaN to integer".into()),
        Py::Float(f) if f.is_infinite() => Err("cannot convert float infinity to integer".into()),
        Py::Float(f) => Ok(f.trunc() as i128),
        Py::Str(s) => {
            let text = s.trim();
            let parsed = if underscores_ok(text) { text.replace('_', "").parse::<i128>().ok() } else { None };
            parsed.ok_or_else(|| format!("invalid literal for int() with base 10: {}", str_repr(s)))
        }
        other => Err(format!("int() argument must be a string, a bytes-like object or a real number, not '{}'", type_name(other))),
    }
}

/// Python's `round(number, ndigits)` (`ndigits` absent or `None`: to an int).
pub fn round(number: &Py, ndigits: Option<&Py>) -> Result<Py, PyError> {
    let Some(x) = num(number) else {
        return Err(format!("type {} doesn't define __round__ method", type_name(number)));
    };
    let digits = match ndigits {
        None | Some(Py::None) => None,
        Some(Py::Int(i)) => Some(*i),
        Some(Py::Bool(b)) => Some(i128::from(*b)),
        Some(other) => return Err(format!("'{}' object cannot be interpreted as an integer", type_name(other))),
    };
    match (x, digits) {
        (Num::Int(i), None) => Ok(Py::Int(i)),
        (Num::Int(i), Some(d)) if d >= 0 => Ok(Py::Int(i)),
        (Num::Int(i), Some(d)) => Ok(Py::Int(round_int(i, -d))),
        (Num::Float(f), None) => {
            if !f.is_finite() {
                return Err(
                    if f.is_nan() { "cannot convert float NaN to integer" } else { "cannot convert float infinity to integer" }.into()
                );
            }
            Ok(Py::Int(f.round_ties_even() as i128))
        }
        (Num::Float(f), Some(d)) => Ok(Py::Float(round_float(f, d))),
    }
}

/// `round(i, -places)` for an int: to a multiple of 10**places, ties to even.
fn round_int(i: i128, places: i128) -> i128 {
    let Some(unit) = u32::try_from(places).ok().and_then(|p| 10i128.checked_pow(p)) else {
        return 0;
    };
    let (q, r) = (i.div_euclid(unit), i.rem_euclid(unit));
    let up = match (2 * r).cmp(&unit) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => q % 2 != 0,
        std::cmp::Ordering::Less => false,
    };
    (q + i128::from(up)) * unit
}
/// `round(f, ndigits)` for a float: the exact binary value rounded half to
/// even at that decimal place, as Python's dtoa-based rounding does.
pub fn round_float(f: f64, ndigits: i128) -> f64 {
    if !f.is_finite() || f == 0.0 || ndigits > 330 {
        return f;
    }
    if ndigits >= 0 {
        let text = format!("{f:.prec$}", prec = ndigits as usize);
        return text.parse().unwrap_or(f);
    }
    if ndigits < -308 || f.abs() >= 1.0e38 {
        return 0.0_f64.copysign(f);
    }
    // |f| < 1e38: its integer part fits an i128 exactly.
    let (whole, frac) = (f.trunc() as i128, f - f.trunc());
    let Some(unit) = u32::try_from(-ndigits).ok().and_then(|p| 10i128.checked_pow(p)) else {
        return 0.0_f64.copysign(f);
    };
    let (q, r) = (whole / unit, (whole % unit).abs());
    let up = match (2 * r).cmp(&unit) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Equal => frac != 0.0 || q % 2 != 0,
        std::cmp::Ordering::Less => false,
    };
    let rounded = if up { q + whole.signum() } else { q };
    (rounded * unit) as f64 * if rounded == 0 { f.signum() } else { 1.0 }
}

// Dicts.

/// Refuses a list or a dict as a dict key or set member (`unhashable type`),
/// as Python does; a tuple is hashable when its items are.
pub fn hashable(v: &Py) -> Result<(), PyError> {
    match v {
        Py::List(_) | Py::Dict(_) => Err(format!("unhashable type: '{}'", type_name(v))),
        Py::Tuple(items) => items.iter().try_for_each(hashable),
        _ => Ok(()),
    }
}

/// A value used as a key of a dict of string keys: the string it can
/// equal, `None` for a hashable non-string (equal to no key), or Python's
/// `TypeError` for a list or dict.
pub fn str_key(key: &Py) -> Result<Option<&str>, PyError> {
    hashable(key)?;
    Ok(key.as_str())
}

/// `d.get(key)` for a dict of string keys.
pub fn get<'a>(entries: &'a [(String, Py)], key: &Py) -> Result<Option<&'a Py>, PyError> {
    let Some(key) = str_key(key)? else { return Ok(None) };
    Ok(entries.iter().find(|(k, _)| k == key).map(|(_, v)| v))
}

/// `key in d` for a dict of string keys.
pub fn has_key(entries: &[(String, Py)], key: &Py) -> Result<bool, PyError> {
    Ok(get(entries, key)?.is_some())
}

/// `d[key]` of a dict value: Python's `KeyError` (its message is the key's
/// repr) or the `TypeError` of indexing something that is not a dict.
pub fn item<'a>(d: &'a Py, key: &str) -> Result<&'a Py, PyError> {
    match d {
        Py::Dict(_) => d.get(key).ok_or_else(|| str_repr(key)),
        Py::Str(_) => Err("string indices must be integers, not 'str'".into()),
        Py::List(_) => Err("list indices must be integers or slices, not str".into()),
        Py::Tuple(_) => Err("tuple indices must be integers or slices, not str".into()),
        other => Err(format!("'{}' object is not subscriptable", type_name(other))),
    }
}

/// `d[key]` as the target of an assignment (`d[key][field] = value`).
pub fn item_mut<'a>(entries: &'a mut [(String, Py)], key: &str) -> Result<&'a mut Py, PyError> {
    entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v).ok_or_else(|| str_repr(key))
}

/// `d[key] = value` on a dict's entries: an existing key keeps its place, a new one goes last.
pub fn set_entry(entries: &mut Vec<(String, Py)>, key: &str, value: Py) {
    match entries.iter_mut().find(|(k, _)| k == key) {
        Some(entry) => entry.1 = value,
        None => entries.push((key.to_string(), value)),
    }
}

/// `d[key] = value` on a value that should be a dict.
pub fn set_item(d: &mut Py, key: &str, value: Py) -> Result<(), PyError> {
    match d {
        Py::Dict(entries) => {
            set_entry(entries, key, value);
            Ok(())
        }
        Py::Str(_) => Err("'str' object does not support item assignment".into()),
        Py::List(_) => Err("list indices must be integers or slices, not str".into()),
        other => Err(format!("'{}' object does not support item assignment", type_name(other))),
    }
}

/// Where `key` sits in a dict of any keys (`key in d`): equal numbers are
/// one key, lists and dicts cannot be keys.
pub fn key_position(entries: &[(Py, Py)], key: &Py) -> Result<Option<usize>, PyError> {
    hashable(key)?;
    Ok(entries.iter().position(|(k, _)| k.py_eq(key)))
}

/// `d.get(key)` of a dict of any keys.
pub fn get_any<'a>(entries: &'a [(Py, Py)], key: &Py) -> Result<Option<&'a Py>, PyError> {
    Ok(key_position(entries, key)?.map(|i| &entries[i].1))
}

/// A dict of any keys as the differential check writes it: keys as `str(k)`,
/// a key written twice keeping its first place and its last value. Numbers
/// equal to an int are one key, written as the int: Python's
/// `{0.0: 'a'} == {0: 'a'} == {False: 'a'}` (the state a model left with
/// `comment(tweet_id=0.0, ...)` equals the ground truth's).
pub fn plain_dict(entries: &[(Py, Py)]) -> Py {
    let mut out: Vec<(String, Py)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        let text = match num(k) {
            Some(Num::Float(f)) if f.fract() == 0.0 && f.abs() < 1e18 => (f as i128).to_string(),
            Some(Num::Int(i)) => i.to_string(),
            _ => k.str_(),
        };
        set_entry(&mut out, &text, v.clone());
    }
    Py::Dict(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Py {
        Py::Str(text.to_string())
    }

    // Each expected value is what python3 (3.11) prints for the expression named.
    #[test]
    fn ints_stay_ints_and_floats_spread() {
        assert!(matches!(arith(Op::Add, &Py::Int(2), &Py::Int(3), false), Ok(Py::Int(5))));
        assert!(matches!(arith(Op::Sub, &Py::Float(10000.0), &Py::Int(500), true), Ok(Py::Float(f)) if f == 9500.0));
        assert!(matches!(arith(Op::Add, &Py::Bool(true), &Py::Int(1), false), Ok(Py::Int(2))));
        assert!(matches!(arith(Op::Div, &Py::Int(7), &Py::Int(2), false), Ok(Py::Float(f)) if f == 3.5));
        assert_eq!(arith(Op::Sub, &Py::Int(1), &s("a"), true).unwrap_err(), "unsupported operand type(s) for -=: 'int' and 'str'");
        assert_eq!(arith(Op::Div, &Py::Int(1), &Py::Int(0), false).unwrap_err(), "division by zero");
        // 1.0 / 0
        assert_eq!(arith(Op::Div, &Py::Float(1.0), &Py::Int(0), false).unwrap_err(), "float division by zero");
        assert_eq!(arith(Op::Add, &s("a"), &Py::Int(1), false).unwrap_err(), "can only concatenate str (not \"int\") to str");
        // None * "a"; "a" * 2
        assert_eq!(arith(Op::Mul, &Py::None, &s("a"), false).unwrap_err(), "can't multiply sequence by non-int of type 'NoneType'");
        assert_eq!(arith(Op::Mul, &s("ab"), &Py::Int(2), false), Ok(s("abab")));
    }

    #[test]
    fn augmented_add_as_python() {
        // x = "a"; x += 1 / x = None; x += 1 / x = [1]; x += 1 / x = [1]; x += "ab"
        assert_eq!(increment(&s("a")).unwrap_err(), "can only concatenate str (not \"int\") to str");
        assert_eq!(increment(&Py::None).unwrap_err(), "unsupported operand type(s) for +=: 'NoneType' and 'int'");
        assert_eq!(increment(&Py::List(vec![Py::Int(1)])).unwrap_err(), "'int' object is not iterable");
        assert_eq!(arith(Op::Add, &Py::List(vec![Py::Int(1)]), &s("ab"), true).unwrap().repr(), "[1, 'a', 'b']");
        assert_eq!(increment(&Py::Bool(true)), Ok(Py::Int(2)));
    }

    #[test]
    fn comparisons_as_python() {
        assert_eq!(compare(Cmp::Le, &Py::Int(0), &Py::Float(0.0)), Ok(true));
        assert_eq!(compare(Cmp::Gt, &Py::Float(f64::NAN), &Py::Int(0)), Ok(false));
        assert_eq!(compare(Cmp::Lt, &s("a"), &s("b")), Ok(true));
        assert_eq!(compare(Cmp::Le, &s("a"), &Py::Int(0)).unwrap_err(), "'<=' not supported between instances of 'str' and 'int'");
    }

    #[test]
    fn conversions_as_python() {
        assert_eq!(float(&s(" 1_0 ")), Ok(10.0));
        assert_eq!(float(&s("1__0")).unwrap_err(), "could not convert string to float: '1__0'");
        assert_eq!(float(&s("_1")).unwrap_err(), "could not convert string to float: '_1'");
        assert_eq!(float(&s("Infinity")), Ok(f64::INFINITY));
        assert_eq!(float(&Py::None).unwrap_err(), "float() argument must be a string or a real number, not 'NoneType'");
        assert_eq!(int(&s("1_000")), Ok(1000));
        assert_eq!(int(&s("1.5")).unwrap_err(), "invalid literal for int() with base 10: '1.5'");
        assert_eq!(int(&Py::Float(-2.7)), Ok(-2));
        // round(2.675, 2); round(25, -1); round(2.5)
        assert_eq!(round_float(2.675, 2), 2.67);
        assert_eq!(round(&Py::Int(25), Some(&Py::Int(-1))), Ok(Py::Int(20)));
        assert_eq!(round(&Py::Float(2.5), None), Ok(Py::Int(2)));
    }

    #[test]
    fn dicts_and_sequences_as_python() {
        let d = dict([("a", Py::Int(1))]);
        assert_eq!(item(&d, "b").unwrap_err(), "'b'");
        assert_eq!(item(&s("abc"), "x").unwrap_err(), "string indices must be integers, not 'str'");
        assert_eq!(item(&Py::List(vec![]), "x").unwrap_err(), "list indices must be integers or slices, not str");
        assert_eq!(set_item(&mut Py::List(vec![]), "x", Py::None).unwrap_err(), "list indices must be integers or slices, not str");
        let Py::Dict(entries) = &d else { unreachable!() };
        assert_eq!(get(entries, &Py::Int(1)), Ok(None));
        assert_eq!(has_key(entries, &Py::List(vec![])).unwrap_err(), "unhashable type: 'list'");
        assert_eq!(key_position(&[], &Py::Dict(vec![])).unwrap_err(), "unhashable type: 'dict'");
        let keys = [(s("0"), Py::Int(1)), (Py::Int(0), Py::Int(2))];
        assert_eq!(plain_dict(&keys).repr(), "{'0': 2}");
        // Python: {0.0: 1, True: 2} == {0: 1, 1: 2}; {1.5: 3} keeps its key 1.5.
        let numbers = [(Py::Float(0.0), Py::Int(1)), (Py::Bool(true), Py::Int(2)), (Py::Float(1.5), Py::Int(3))];
        let ints = [(Py::Int(0), Py::Int(1)), (Py::Int(1), Py::Int(2)), (Py::Float(1.5), Py::Int(3))];
        assert_eq!(plain_dict(&numbers), plain_dict(&ints));
        assert_eq!(plain_dict(&numbers).repr(), "{'0': 1, '1': 2, '1.5': 3}");
        assert_eq!(len(&s("héllo")), Ok(5));
        assert_eq!(len(&Py::Int(3)).unwrap_err(), "object of type 'int' has no len()");
        assert_eq!(iterate(&Py::None).unwrap_err(), "'NoneType' object is not iterable");
        assert!(!truthy(&Py::Float(0.0)) && truthy(&s(" ")));
        assert_eq!(lower(&Py::Int(5)).unwrap_err(), "'int' object has no attribute 'lower'");
    }
}
