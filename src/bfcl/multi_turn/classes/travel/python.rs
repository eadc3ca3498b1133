//! Python's semantics as `TravelAPI` meets them: numbers compared and
//! added as Python does (ints stay ints), dicts indexed with Python's
//! `KeyError`/`TypeError` texts, `round(x, 2)`, and `datetime`'s
//! `strptime("%Y-%m-%d")` and `today()`.

use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::Py;

/// Python's `round(x, 2)`: the exact binary value rounded half to even at
/// two decimals, which Rust's `{:.2}` formatting also does.
pub(super) fn round2(x: f64) -> f64 {
    format!("{x:.2}").parse().unwrap_or(x)
}

/// The int value of an int or bool.
pub(super) fn int_of(value: &Py) -> i128 {
    match value {
        Py::Int(i) => *i,
        Py::Bool(b) => i128::from(*b),
        _ => 0,
    }
}

/// Python's `a < b` for numbers (and strings).
pub(super) fn lt(a: &Py, b: &Py) -> Result<bool, PyError> {
    match (a, b) {
        (Py::Int(_) | Py::Bool(_), Py::Int(_) | Py::Bool(_)) => Ok(int_of(a) < int_of(b)),
        (Py::Float(x), Py::Float(y)) => Ok(x < y),
        (Py::Float(x), Py::Int(_) | Py::Bool(_)) => Ok(*x < int_of(b) as f64),
        (Py::Int(_) | Py::Bool(_), Py::Float(y)) => Ok((int_of(a) as f64) < *y),
        (Py::Str(x), Py::Str(y)) => Ok(x < y),
        _ => Err(format!("'<' not supported between instances of '{}' and '{}'", a.py_type().name(), b.py_type().name())),
    }
}

/// Python's `a += b` / `a -= b` on numbers (`op` is the operator's text):
/// ints stay ints, anything with a float is a float.
pub(super) fn arithmetic(a: &Py, b: &Py, op: &str) -> Result<Py, PyError> {
    let negate = op == "-=";
    let number = |v: &Py| match v {
        Py::Int(_) | Py::Bool(_) => Some(Err(int_of(v))),
        Py::Float(f) => Some(Ok(*f)),
        _ => None,
    };
    match (number(a), number(b)) {
        (Some(Err(x)), Some(Err(y))) => Ok(Py::Int(if negate { x - y } else { x + y })),
        (Some(x), Some(y)) => {
            let (x, y) = (x.unwrap_or_else(|i| i as f64), y.unwrap_or_else(|i| i as f64));
            Ok(Py::Float(if negate { x - y } else { x + y }))
        }
        _ => Err(format!("unsupported operand type(s) for {op}: '{}' and '{}'", a.py_type().name(), b.py_type().name())),
    }
}

/// Python's `float(value)`.
pub(super) fn py_float(value: &Py) -> Result<f64, PyError> {
    match value {
        Py::Int(_) | Py::Bool(_) => Ok(int_of(value) as f64),
        Py::Float(f) => Ok(*f),
        Py::Str(s) => s.trim().replace('_', "").parse().map_err(|_| format!("could not convert string to float: {}", value.repr())),
        other => Err(format!("float() argument must be a string or a real number, not '{}'", other.py_type().name())),
    }
}

/// A value used as a dict key: the string it can equal, `None` for a
/// hashable non-string (equal to no key: every key here is a string), or
/// Python's `TypeError` for a list or dict.
pub(super) fn key_of(key: &Py) -> Result<Option<&str>, PyError> {
    match key {
        Py::Str(s) => Ok(Some(s)),
        Py::List(_) | Py::Dict(_) => Err(format!("unhashable type: '{}'", key.py_type().name())),
        _ => Ok(None),
    }
}

/// `dict.get(key)`.
pub(super) fn lookup<'a>(entries: &'a [(String, Py)], key: &Py) -> Result<Option<&'a Py>, PyError> {
    let key = key_of(key)?;
    Ok(entries.iter().find(|(k, _)| Some(k.as_str()) == key).map(|(_, v)| v))
}

/// `key in dict`.
pub(super) fn contains(entries: &[(String, Py)], key: &Py) -> Result<bool, PyError> {
    Ok(lookup(entries, key)?.is_some())
}

/// `value[key]` on a dict: Python's `KeyError` text is the key's repr.
pub(super) fn item<'a>(value: &'a Py, key: &str) -> Result<&'a Py, PyError> {
    match value {
        Py::Dict(_) => value.get(key).ok_or_else(|| Py::Str(key.into()).repr()),
        other => Err(format!("'{}' object is not subscriptable", other.py_type().name())),
    }
}

/// `dict[key] = value`: a new key goes last, an existing one keeps its place.
pub(super) fn set_entry(entries: &mut Vec<(String, Py)>, key: &str, value: Py) {
    match entries.iter_mut().find(|(k, _)| k == key) {
        Some((_, slot)) => *slot = value,
        None => entries.push((key.to_string(), value)),
    }
}

/// `dict[outer][field] = value`, the inner value being a dict.
pub(super) fn set_item(entries: &mut [(String, Py)], outer: &str, field: &str, value: Py) -> Result<(), PyError> {
    match entries.iter_mut().find(|(k, _)| k == outer) {
        Some((_, Py::Dict(inner))) => {
            set_entry(inner, field, value);
            Ok(())
        }
        Some((_, other)) => Err(format!("'{}' object does not support item assignment", other.py_type().name())),
        None => Err(Py::Str(outer.into()).repr()),
    }
}

/// `strptime`'s first argument, which must be a string.
pub(super) fn strptime_arg(value: &Py) -> Result<&str, PyError> {
    value.as_str().ok_or_else(|| format!("strptime() argument 1 must be str, not {}", value.py_type().name()))
}

/// `datetime.strptime(text, "%Y-%m-%d")` as (year, month, day), or `None`
/// where Python raises `ValueError`. Python matches the regex
/// `(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])`
/// from the start, trying each alternative in order, and then refuses text
/// left over. (ASCII digits only: Python's `\d` would take other scripts' too.)
pub(super) fn parse_ymd(text: &str) -> Option<(i64, u32, u32)> {
    let b = text.as_bytes();
    let digit = |i: usize| b.get(i).filter(|c| c.is_ascii_digit()).map(|c| u32::from(c - b'0'));
    let nonzero = |i: usize| digit(i).filter(|d| *d > 0);
    let year = (0..4).try_fold(0i64, |y, i| digit(i).map(|d| y * 10 + i64::from(d)))?;
    if b.get(4) != Some(&b'-') {
        return None;
    }
    let months = [
        digit(6).filter(|d| b[5] == b'1' && *d <= 2).map(|d| (10 + d, 2)),
        nonzero(6).filter(|_| b.get(5) == Some(&b'0')).map(|d| (d, 2)),
        nonzero(5).map(|d| (d, 1)),
    ];
    for (month, len) in months.into_iter().flatten() {
        let start = 5 + len + 1;
        if b.get(start - 1) != Some(&b'-') {
            continue;
        }
        let day = [
            digit(start + 1).filter(|d| b[start] == b'3' && *d <= 1).map(|d| (30 + d, 2)),
            digit(start + 1).filter(|_| matches!(b[start], b'1' | b'2')).map(|d| (u32::from(b[start] - b'0') * 10 + d, 2)),
            nonzero(start + 1).filter(|_| b[start] == b'0').map(|d| (d, 2)),
            nonzero(start).map(|d| (d, 1)),
            nonzero(start + 1).filter(|_| b.get(start) == Some(&b' ')).map(|d| (d, 2)),
        ];
        // The regex has matched once a day alternative does: no backtracking
        // into the month when text is left over.
        let (day, len) = day.into_iter().flatten().next()?;
        let valid = start + len == b.len() && year >= 1 && day <= days_in_month(year, month);
        return valid.then_some((year, month, day));
    }
    None
}

pub(super) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `datetime.today()`'s date (the machine's clock, read as UTC).
pub(super) fn today() -> (i64, u32, u32) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0))
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
pub(super) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}
