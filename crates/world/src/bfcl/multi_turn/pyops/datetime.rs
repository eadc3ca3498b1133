//! The few pieces of Python's `datetime` that BFCL's classes use:
//! `strptime` with `%Y-%m-%d` and `%Y-%m-%d %H:%M:%S` (the same regular
//! expressions, the same `ValueError` messages), `today()`, and
//! `fromtimestamp(...).strftime(...)` in UTC, the time zone BFCL's runs here
//! use.

use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::{str_repr, Py};
use crate::core::time::UtcTime;
use std::sync::OnceLock;

/// A naive datetime, ordered as Python orders them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct DateTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub microsecond: u32,
}

/// `datetime.min`.
pub const MIN: DateTime = DateTime { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, microsecond: 0 };
/// `datetime.max`.
pub const MAX: DateTime = DateTime { year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59, microsecond: 999_999 };

/// The formats BFCL's classes parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `%Y-%m-%d`
    Date,
    /// `%Y-%m-%d %H:%M:%S`
    DateTime,
}

impl Format {
    fn text(self) -> &'static str {
        match self {
            Format::Date => "%Y-%m-%d",
            Format::DateTime => "%Y-%m-%d %H:%M:%S",
        }
    }
}

/// `_strptime`'s regular expressions for the directives (ASCII digits).
const YEAR: &str = r"(?P<Y>[0-9][0-9][0-9][0-9])";
const MONTH: &str = r"(?P<m>1[0-2]|0[1-9]|[1-9])";
const DAY: &str = r"(?P<d>3[01]|[12][0-9]|0[1-9]|[1-9]| [1-9])";
const HOUR: &str = r"(?P<H>2[0-3]|[0-1][0-9]|[0-9])";
const MINUTE: &str = r"(?P<M>[0-5][0-9]|[0-9])";
const SECOND: &str = r"(?P<S>6[0-1]|[0-5][0-9]|[0-9])";

fn pattern(format: Format) -> &'static regex::Regex {
    static DATE: OnceLock<regex::Regex> = OnceLock::new();
    static DATE_TIME: OnceLock<regex::Regex> = OnceLock::new();
    let (cell, text) = match format {
        Format::Date => (&DATE, format!("^(?i){YEAR}-{MONTH}-{DAY}")),
        // A space in the format matches any run of whitespace.
        Format::DateTime => (&DATE_TIME, format!(r"^(?i){YEAR}-{MONTH}-{DAY}\s+{HOUR}:{MINUTE}:{SECOND}")),
    };
    cell.get_or_init(|| regex::Regex::new(&text).expect("strptime pattern is valid"))
}

/// `strptime`'s first argument, which must be a string (Python's `TypeError` otherwise).
pub fn strptime_arg(value: &Py) -> Result<&str, PyError> {
    value.as_str().ok_or_else(|| format!("strptime() argument 1 must be str, not {}", value.py_type().name()))
}

/// `datetime.strptime(text, format)`; the error is the `ValueError`'s text.
pub fn strptime(text: &str, format: Format) -> Result<DateTime, PyError> {
    let Some(found) = pattern(format).captures(text) else {
        return Err(format!("time data {} does not match format {}", str_repr(text), str_repr(format.text())));
    };
    let end = found.get(0).map_or(0, |m| m.end());
    if end != text.len() {
        return Err(format!("unconverted data remains: {}", &text[end..]));
    }
    let field = |name: &str| found.name(name).map_or(0, |m| m.as_str().trim().parse::<u32>().unwrap_or(0));
    let year = i64::from(field("Y"));
    let (month, day) = (field("m"), field("d"));
    let (hour, minute, second) = (field("H"), field("M"), field("S"));
    if !(1..=9999).contains(&year) {
        return Err(format!("year {year} is out of range"));
    }
    if day > days_in_month(year, month) {
        return Err("day is out of range for month".into());
    }
    if second > 59 {
        return Err("second must be in 0..59".into());
    }
    Ok(DateTime { year, month, day, hour, minute, second, microsecond: 0 })
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The days in a month of the proleptic Gregorian calendar.
fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Seconds since the epoch of a UTC datetime (`datetime(...).timestamp()` in UTC).
pub fn timestamp(dt: &DateTime) -> i64 {
    let days = days_from_civil(dt.year, dt.month, dt.day);
    days * 86_400 + i64::from(dt.hour * 3600 + dt.minute * 60 + dt.second)
}

/// `datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S")` in UTC.
pub fn format_timestamp(ts: i64) -> String {
    let t = UtcTime::from_unix(ts);
    format!("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", t.year, t.month, t.day, t.hour, t.minute, t.second)
}

/// `datetime.today()`'s date (the machine's clock, read as UTC).
pub fn today() -> (i64, u32, u32) {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let t = UtcTime::from_unix(i64::try_from(secs).unwrap_or(0));
    (t.year, t.month as u32, t.day as u32)
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_strptime() {
        let d = strptime("2024-9-1", Format::Date).unwrap();
        assert_eq!((d.year, d.month, d.day), (2024, 9, 1));
        let t = strptime("2024-10-27 14:10:53", Format::DateTime).unwrap();
        assert_eq!((t.hour, t.minute, t.second), (14, 10, 53));
        assert_eq!(strptime("2024-13-01", Format::Date).unwrap_err(), "time data '2024-13-01' does not match format '%Y-%m-%d'");
        assert_eq!(strptime("2024-02-30", Format::Date).unwrap_err(), "day is out of range for month");
        assert_eq!(strptime("2024-02-03x", Format::Date).unwrap_err(), "unconverted data remains: x");
        // datetime.strptime("0000-01-01", "%Y-%m-%d"); ("2024-1-1 ", ...); (" 2024-1-1", ...)
        assert_eq!(strptime("0000-01-01", Format::Date).unwrap_err(), "year 0 is out of range");
        assert_eq!(strptime("2024-1-1 ", Format::Date).unwrap_err(), "unconverted data remains:  ");
        assert!(strptime(" 2024-1-1", Format::Date).is_err());
        assert_eq!(strptime_arg(&Py::Int(5)).unwrap_err(), "strptime() argument 1 must be str, not int");
    }

    #[test]
    fn dates_as_strptime_parses_them() {
        // datetime.strptime(text, "%Y-%m-%d") in Python 3.11.
        let ymd = |text: &str| strptime(text, Format::Date).ok().map(|d| (d.year, d.month, d.day));
        assert_eq!(ymd("2024-1-5"), Some((2024, 1, 5)));
        assert_eq!(ymd("2024-01- 5"), Some((2024, 1, 5)));
        assert_eq!(ymd("2024-02-29"), Some((2024, 2, 29)));
        for invalid in ["2024-01-05 ", "2024-02-30", "2023-02-29", "0000-01-01", "2024-13-01", "24-01-01", "2024/01/01", ""] {
            assert_eq!(ymd(invalid), None, "{invalid:?}");
        }
    }

    #[test]
    fn dates_from_seconds_since_the_epoch() {
        assert_eq!(format_timestamp(0), "1970-01-01 00:00:00");
        assert_eq!(format_timestamp(-1), "1969-12-31 23:59:59");
    }

    #[test]
    fn timestamps_in_utc() {
        let current = DateTime { year: 2024, month: 9, day: 1, hour: 10, minute: 30, ..MIN };
        assert_eq!(timestamp(&current), 1_725_186_600);
        assert_eq!(format_timestamp(1_725_186_600), "2024-09-01 10:30:00");
        assert_eq!(format_timestamp(1_709_251_199), "2024-02-29 23:59:59");
    }
}
