//! Python's operations on [`Py`] values, as BFCL's multi-turn API classes
//! meet them: truth, `len`, iteration, dict lookups, arithmetic and
//! comparisons (ints stay ints, an int meets a float as a float, `True`
//! counts as `1`), `float()`, `int()`, `round()`, each raising the text of
//! the exception Python raises. Every class uses these, so that one value
//! behaves the same whichever class it is passed to. `datetime`'s parsing
//! and formatting live in [`datetime`].

pub mod datetime;

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{FromPrimitive, Signed, ToPrimitive};

use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyint;
use crate::bfcl::pyvalue::{py_int, str_repr, Py};

/// Python's `OverflowError` for an int past 64 bits where C wants a `Py_ssize_t`
/// (`len`, a slice bound read as a size, `Decimal`'s precision).
pub const NO_SSIZE_T: &str = "Python int too large to convert to C ssize_t";

/// Whether `e` is the text of an `OverflowError` (an int too large for a
/// float or a C size): BFCL's methods that catch only `TypeError` let it through.
pub fn is_overflow(e: &str) -> bool {
    [pyint::TOO_LARGE_FOR_FLOAT, pyint::DIVISION_TOO_LARGE, NO_INDEX, NO_SSIZE_T, "(34, 'Numerical result out of range')"].contains(&e)
}

/// Python's `OverflowError` for a repeat count or index past 64 bits.
pub const NO_INDEX: &str = "cannot fit 'int' into an index-sized integer";

/// A Python number (`bool` already counted as the int it is).
#[derive(Debug, Clone, PartialEq)]
pub enum Num {
    /// An int that fits 128 bits.
    Int(i128),
    /// An int past 128 bits (never one that fits).
    Big(BigInt),
    Float(f64),
}

impl Num {
    /// The value as the nearest float, infinite for an int past the largest
    /// float; [`Num::to_float`] raises where Python does.
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Big(n) => n.to_f64().unwrap_or(f64::INFINITY),
            Num::Float(f) => f,
        }
    }

    /// Python's `float(x)`: an int past the largest float is an `OverflowError`.
    pub fn to_float(&self) -> Result<f64, PyError> {
        match self {
            Num::Int(i) => Ok(*i as f64),
            Num::Big(n) => pyint::to_float(n),
            Num::Float(f) => Ok(*f),
        }
    }

    /// Back to a Python value.
    pub fn to_py(self) -> Py {
        match self {
            Num::Int(i) => Py::Int(i),
            Num::Big(n) => py_int(n),
            Num::Float(f) => Py::Float(f),
        }
    }

    /// The exact int, if this is one.
    fn exact(&self) -> Option<BigInt> {
        match self {
            Num::Int(i) => Some(BigInt::from(*i)),
            Num::Big(n) => Some(n.clone()),
            Num::Float(_) => None,
        }
    }
}

/// An exact int as a [`Num`]: [`Num::Int`] when it fits.
fn int_num(n: BigInt) -> Num {
    match n.to_i128() {
        Some(i) => Num::Int(i),
        None => Num::Big(n),
    }
}

/// The number in `v`, if it is one (`isinstance(v, (int, float))`, bools included).
pub fn num(v: &Py) -> Option<Num> {
    match v {
        Py::Bool(b) => Some(Num::Int(i128::from(*b))),
        Py::Int(i) => Some(Num::Int(*i)),
        Py::BigInt(n) => Some(Num::Big((**n).clone())),
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
        Py::BigInt(_) => true,
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
        (Op::Mul, Py::Str(_) | Py::List(_) | Py::Tuple(_), Py::Int(_) | Py::BigInt(_) | Py::Bool(_)) => repeat(a, b),
        (Op::Mul, Py::Int(_) | Py::BigInt(_) | Py::Bool(_), Py::Str(_) | Py::List(_) | Py::Tuple(_)) => repeat(b, a),
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
        // Python: "ab" * 2**130 and "ab" * -2**130 both raise OverflowError.
        Some(Num::Int(i)) if isize::try_from(i).is_err() => return Err(NO_INDEX.into()),
        Some(Num::Int(i)) => usize::try_from(i.max(0)).unwrap_or(0),
        Some(Num::Big(_)) => return Err(NO_INDEX.into()),
        _ => 0,
    };
    Ok(match seq {
        Py::Str(s) => Py::Str(s.repeat(times)),
        Py::List(items) => Py::List(items.iter().cloned().cycle().take(items.len() * times).collect()),
        Py::Tuple(items) => Py::Tuple(items.iter().cloned().cycle().take(items.len() * times).collect()),
        other => other.clone(),
    })
}

/// Python's arithmetic on two numbers: ints stay ints, exact at any size,
/// except for `/`; an int meeting a float becomes one (`OverflowError` past
/// the largest float).
pub fn num_arith(op: Op, a: Num, b: Num) -> Result<Num, PyError> {
    if let (Num::Int(x), Num::Int(y)) = (&a, &b) {
        let (x, y) = (*x, *y);
        const EXACT: u128 = 1 << 53;
        let exact = match op {
            Op::Add => x.checked_add(y),
            Op::Sub => x.checked_sub(y),
            Op::Mul => x.checked_mul(y),
            Op::Div if y == 0 => return Err("division by zero".into()),
            // Exact operands below 2**53 make this correctly rounded, as Python's is.
            Op::Div if x.unsigned_abs() <= EXACT && y.unsigned_abs() <= EXACT => return Ok(Num::Float(x as f64 / y as f64)),
            Op::Div => None,
        };
        if let Some(v) = exact {
            return Ok(Num::Int(v));
        }
    }
    if let (Some(x), Some(y)) = (a.exact(), b.exact()) {
        // Past i128 (or a quotient of ints past 2**53): Python's exact ints.
        return Ok(match op {
            Op::Add => int_num(x + y),
            Op::Sub => int_num(x - y),
            Op::Mul => int_num(x * y),
            Op::Div if y.bits() == 0 => return Err("division by zero".into()),
            Op::Div => Num::Float(pyint::true_divide(&x, &y)?),
        });
    }
    let (x, y) = (a.to_float()?, b.to_float()?);
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
            (Some(x), Some(y)) => match num_cmp(&x, &y) {
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

/// Python's ordering of two numbers, exact between ints and floats
/// (`float(2**130) < 2**130 + 1`); `None` when a NaN is involved.
fn num_cmp(a: &Num, b: &Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(y)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(y),
        // Floats below 2**53 hold every int exactly: the fast path.
        (Num::Int(i), Num::Float(f)) if i.unsigned_abs() <= 1 << 53 => (*i as f64).partial_cmp(f),
        (Num::Float(f), Num::Int(i)) if i.unsigned_abs() <= 1 << 53 => f.partial_cmp(&(*i as f64)),
        (Num::Float(f), n) => Some(pyint::cmp_int_float(&n.exact()?, *f)?.reverse()),
        (n, Num::Float(f)) => pyint::cmp_int_float(&n.exact()?, *f),
        (x, y) => Some(x.exact()?.cmp(&y.exact()?)),
    }
}

/// Python's `abs(v)`.
pub fn abs(v: &Py) -> Result<Py, PyError> {
    match num(v) {
        // abs(-2**127) is past i128.
        Some(Num::Int(i)) => Ok(i.checked_abs().map_or_else(|| py_int(BigInt::from(i).abs()), Py::Int)),
        Some(Num::Big(n)) => Ok(py_int(n.abs())),
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
        return n.to_float();
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

/// Python's `int(v)`: a float truncated, a string of decimal digits
/// parsed; exact at any size.
pub fn int(v: &Py) -> Result<Py, PyError> {
    match v {
        Py::Int(_) | Py::BigInt(_) => Ok(v.clone()),
        Py::Bool(b) => Ok(Py::Int(i128::from(*b))),
        Py::Float(f) => float_to_int(f.trunc()).map(Num::to_py),
        Py::Str(s) => {
            let text = s.trim();
            let plain = text.replace('_', "");
            let digits = plain.trim_start_matches(['+', '-']);
            let decimal =
                underscores_ok(text) && !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit()) && plain.len() - digits.len() <= 1;
            if !decimal {
                return Err(format!("invalid literal for int() with base 10: {}", str_repr(s)));
            }
            if digits.len() > pyint::INT_MAX_STR_DIGITS {
                // Python: int("1" * 5000) raises ValueError before reading the digits.
                return Err(format!(
                    "Exceeds the limit ({} digits) for integer string conversion: value has {} digits; use sys.set_int_max_str_digits() to increase the limit",
                    pyint::INT_MAX_STR_DIGITS,
                    digits.len()
                ));
            }
            match plain.parse::<i128>() {
                Ok(i) => Ok(Py::Int(i)),
                Err(_) => Ok(plain.parse::<BigInt>().map(py_int).unwrap_or(Py::None)),
            }
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
        // Past i128 places round a float to itself or to zero, as Python's do.
        Some(Py::BigInt(n)) => Some(if n.is_negative() { i128::MIN } else { i128::MAX }),
        Some(other) => return Err(format!("'{}' object cannot be interpreted as an integer", type_name(other))),
    };
    match (x, digits) {
        (Num::Int(i), None) => Ok(Py::Int(i)),
        (Num::Int(i), Some(d)) if d >= 0 => Ok(Py::Int(i)),
        (Num::Int(i), Some(d)) => Ok(Py::Int(round_int(i, -d))),
        (Num::Big(n), Some(d)) if d < 0 => Ok(py_int(round_big(&n, -d))),
        (n @ Num::Big(_), _) => Ok(n.to_py()),
        (Num::Float(f), None) => float_to_int(f.round_ties_even()).map(Num::to_py),
        (Num::Float(f), Some(d)) => Ok(Py::Float(round_float(f, d))),
    }
}

/// The int of a float with no fraction (`int(1e300)` is exact), or
/// Python's error for NaN and infinity.
fn float_to_int(f: f64) -> Result<Num, PyError> {
    if !f.is_finite() {
        return Err(if f.is_nan() { "cannot convert float NaN to integer" } else { "cannot convert float infinity to integer" }.into());
    }
    // Floats in (-2**127, 2**127) convert to i128 exactly.
    if f.abs() < 1.0e38 {
        return Ok(Num::Int(f as i128));
    }
    Ok(int_num(BigInt::from_f64(f).unwrap_or_default()))
}

/// `round(n, -places)` for a big int: to a multiple of 10**places, ties to even.
fn round_big(n: &BigInt, places: i128) -> BigInt {
    // 10**places past any int calltape can hold rounds everything to 0
    // (Python would compute 10**places first, for ever).
    let Some(places) = u32::try_from(places).ok().filter(|p| u64::from(*p) <= n.bits()) else {
        return BigInt::default();
    };
    let unit = BigInt::from(10).pow(places);
    let (q, r) = n.div_mod_floor(&unit);
    let up = match (&r * 2u8).cmp(&unit) {
        Ordering::Greater => true,
        Ordering::Equal => q.is_odd(),
        Ordering::Less => false,
    };
    (q + u8::from(up)) * unit
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
        // A float with no fraction is the key of the int it equals, at any size:
        // Python: {1e20: 'a'} == {10**20: 'a'}; {float(2**130): 'a'} == {2**130: 'a'}.
        let text = match num(k) {
            Some(Num::Float(f)) if f.fract() == 0.0 && f.abs() < 1e18 => (f as i128).to_string(),
            Some(Num::Float(f)) if f.is_finite() && f.fract() == 0.0 => BigInt::from_f64(f).map_or_else(|| k.str_(), |n| n.to_string()),
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
        assert_eq!(int(&s("1_000")), Ok(Py::Int(1000)));
        assert_eq!(int(&s("1.5")).unwrap_err(), "invalid literal for int() with base 10: '1.5'");
        assert_eq!(int(&Py::Float(-2.7)), Ok(Py::Int(-2)));
        // round(2.675, 2); round(25, -1); round(2.5)
        assert_eq!(round_float(2.675, 2), 2.67);
        assert_eq!(round(&Py::Int(25), Some(&Py::Int(-1))), Ok(Py::Int(20)));
        assert_eq!(round(&Py::Float(2.5), None), Ok(Py::Int(2)));
    }

    fn big(text: &str) -> Py {
        py_int(text.parse().unwrap())
    }

    const TWO_130: &str = "1361129467683753853853498429727072845824";

    #[test]
    fn big_ints_stay_exact_as_python() {
        // Python: (2**127 - 1) + 1 == 170141183460469231731687303715884105728 (an int, not a float).
        let past = arith(Op::Add, &Py::Int(i128::MAX), &Py::Int(1), false).unwrap();
        assert!(matches!(past, Py::BigInt(_)));
        assert_eq!(past.repr(), "170141183460469231731687303715884105728");
        // Python: (2**130 + 5) - 2**130 == 5; True + 2**130 == 2**130 + 1.
        let sum = arith(Op::Add, &big(TWO_130), &Py::Int(5), false).unwrap();
        assert_eq!(arith(Op::Sub, &sum, &big(TWO_130), false), Ok(Py::Int(5)));
        assert_eq!(arith(Op::Add, &Py::Bool(true), &big(TWO_130), false).unwrap().str_(), "1361129467683753853853498429727072845825");
        // Python: 2**130 * 0.5 == 6.80564733841877e+38; 2**130 / 2**129 == 2.0.
        assert_eq!(arith(Op::Mul, &big(TWO_130), &Py::Float(0.5), false), Ok(Py::Float(6.80564733841877e38)));
        assert_eq!(arith(Op::Div, &big(TWO_130), &big("680564733841876926926749214863536422912"), false), Ok(Py::Float(2.0)));
        // Python: 2**1024 + 0.5 raises OverflowError: int too large to convert to float;
        // 2**2000 / 3: integer division result too large for a float.
        let two_1024 = py_int(BigInt::from(1) << 1024);
        assert_eq!(arith(Op::Add, &two_1024, &Py::Float(0.5), false).unwrap_err(), "int too large to convert to float");
        assert_eq!(
            arith(Op::Div, &py_int(BigInt::from(1) << 2000), &Py::Int(3), false).unwrap_err(),
            "integer division result too large for a float"
        );
        assert_eq!(float(&two_1024).unwrap_err(), "int too large to convert to float");
        // Python: "ab" * 2**130 and [1] * -2**130 raise OverflowError: cannot fit 'int' into an index-sized integer.
        assert_eq!(arith(Op::Mul, &s("ab"), &big(TWO_130), false).unwrap_err(), NO_INDEX);
        assert_eq!(arith(Op::Mul, &big(&format!("-{TWO_130}")), &Py::List(vec![Py::Int(1)]), false).unwrap_err(), NO_INDEX);
        // Python: abs(-2**127) == 2**127; abs(-2**130) == 2**130.
        assert_eq!(abs(&Py::Int(i128::MIN)).unwrap().repr(), "170141183460469231731687303715884105728");
        assert_eq!(abs(&big(&format!("-{TWO_130}"))), Ok(big(TWO_130)));
        assert!(truthy(&big(TWO_130)));
        assert_eq!(len(&big(TWO_130)).unwrap_err(), "object of type 'int' has no len()");
    }

    #[test]
    fn big_ints_compare_exactly_with_floats() {
        let two_130_float = Py::Float(2f64.powi(130));
        // Python: 2**130 == float(2**130) is True; 2**130 + 1 == float(2**130) is False.
        assert!(big(TWO_130).py_eq(&two_130_float));
        assert!(!big("1361129467683753853853498429727072845825").py_eq(&two_130_float));
        // Python: float(2**130) < 2**130 + 1 is True; 2**130 < float(2**130) is False; 2**130 > 2**53 is True.
        assert_eq!(compare(Cmp::Lt, &two_130_float, &big("1361129467683753853853498429727072845825")), Ok(true));
        assert_eq!(compare(Cmp::Lt, &big(TWO_130), &two_130_float), Ok(false));
        assert_eq!(compare(Cmp::Gt, &big(TWO_130), &Py::Int(1 << 53)), Ok(true));
        assert_eq!(compare(Cmp::Lt, &big(&format!("-{TWO_130}")), &Py::Int(i128::MIN)), Ok(true));
        // Python: 2**53 + 1 > float(2**53) is True (exact, not through a float).
        assert_eq!(compare(Cmp::Gt, &Py::Int((1 << 53) + 1), &Py::Float(2f64.powi(53))), Ok(true));
        // Python: 2**1024 < float('inf') is True and never overflows; 2**130 <= 'a' is a TypeError.
        assert_eq!(compare(Cmp::Lt, &py_int(BigInt::from(1) << 1024), &Py::Float(f64::INFINITY)), Ok(true));
        assert_eq!(compare(Cmp::Le, &big(TWO_130), &s("a")).unwrap_err(), "'<=' not supported between instances of 'int' and 'str'");
        // Python: {float(2**130): 'a'} == {2**130: 'a'}; {1e20: 'a'} == {10**20: 'a'}; hash(2**130) == hash(float(2**130)).
        let as_float = [(two_130_float.clone(), s("a"))];
        let as_int = [(big(TWO_130), s("a"))];
        assert_eq!(plain_dict(&as_float), plain_dict(&as_int));
        assert_eq!(plain_dict(&[(Py::Float(1e20), s("a"))]), plain_dict(&[(Py::Int(10i128.pow(20)), s("a"))]));
        assert_eq!(key_position(&as_int, &two_130_float), Ok(Some(0)));
    }

    #[test]
    fn big_ints_through_int_float_and_round() {
        // Python: int("  1_" + "0" * 50 + " ") == 10**50; int("1" * 5000) raises ValueError.
        assert_eq!(int(&s(&format!("  1_{} ", "0".repeat(50)))).unwrap().repr(), format!("1{}", "0".repeat(50)));
        assert_eq!(
            int(&s(&"1".repeat(5000))).unwrap_err(),
            "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase the limit"
        );
        // Python: int(1e300) and round(1e300) are the float's exact int.
        let exact_1e300 = "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160";
        assert_eq!(int(&Py::Float(1e300)).unwrap().repr(), exact_1e300);
        assert_eq!(round(&Py::Float(1e300), None).unwrap().repr(), exact_1e300);
        // Python: round(2**130 + 5, -1) == 1361129467683753853853498429727072845830; round(2**130, -2) ends in 800;
        // round(2**130, 2) == 2**130; round(2.5, 2**130) == 2.5; round(2.5, -2**130) == 0.0.
        assert_eq!(
            round(&big("1361129467683753853853498429727072845829"), Some(&Py::Int(-1))).unwrap().repr(),
            "1361129467683753853853498429727072845830"
        );
        assert_eq!(round(&big(TWO_130), Some(&Py::Int(-2))).unwrap().repr(), "1361129467683753853853498429727072845800");
        assert_eq!(round(&big(TWO_130), Some(&Py::Int(2))), Ok(big(TWO_130)));
        assert_eq!(round(&Py::Float(2.5), Some(&big(TWO_130))), Ok(Py::Float(2.5)));
        assert_eq!(round(&Py::Float(2.5), Some(&big(&format!("-{TWO_130}")))), Ok(Py::Float(0.0)));
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
