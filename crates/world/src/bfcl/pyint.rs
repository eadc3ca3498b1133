//! Python's ints past 128 bits. Python keeps every int exact; calltape
//! carries one that fits an `i128` as `Py::Int` (the common, fast path)
//! and a larger one as `Py::BigInt` (made by `pyvalue::py_int`), never the
//! other way round, so two equal ints always have the same variant. This
//! module holds what only big ints need, on `BigInt` alone (below
//! `pyvalue`): reading one from a literal, turning one into a float or
//! text, and comparing ints with floats exactly, as Python does.

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};
use num_traits::{FromPrimitive, Signed, ToPrimitive, Zero};

/// Python's `sys.get_int_max_str_digits()` default: longer decimal text is refused both ways.
pub const INT_MAX_STR_DIGITS: usize = 4300;

/// `float(n)` of an int past the largest float.
pub const TOO_LARGE_FOR_FLOAT: &str = "int too large to convert to float";

/// `a / b` of two ints whose quotient is past the largest float.
pub const DIVISION_TOO_LARGE: &str = "integer division result too large for a float";

/// Python's `ValueError` for an int written or read with more than 4300 decimal digits.
pub fn too_many_digits() -> String {
    format!(
        "Exceeds the limit ({INT_MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"
    )
}

/// The int a literal's digits in `radix` make (no sign, no `_`), exactly.
pub fn parse_digits(digits: &str, radix: u32) -> Option<BigInt> {
    BigInt::parse_bytes(digits.as_bytes(), radix)
}

/// Python's `float(n)`: the nearest float (ties to even), or
/// `OverflowError` past the largest one.
pub fn to_float(n: &BigInt) -> Result<f64, String> {
    match n.to_f64() {
        Some(f) if f.is_finite() => Ok(f),
        _ => Err(TOO_LARGE_FOR_FLOAT.into()),
    }
}

/// The decimal text of `n`, as `str(n)`, `repr(n)` and `json.dumps` write it.
pub fn decimal(n: &BigInt) -> String {
    n.to_str_radix(10)
}

/// Whether `str(n)` raises Python's digit limit.
pub fn exceeds_str_digits(n: &BigInt) -> bool {
    // 4300 decimal digits need at least 14,282 bits; only those are written out to count.
    n.bits() > 14_000 && n.magnitude().to_str_radix(10).len() > INT_MAX_STR_DIGITS
}

/// The exact integer value of a finite float with no fraction.
fn integral_float(f: f64) -> Option<BigInt> {
    (f.is_finite() && f.fract() == 0.0).then(|| BigInt::from_f64(f)).flatten()
}

/// Python's `i == f` for an `i128` int and a float: exact, never rounded
/// (`2**64 + 1 == float(2**64)` is `False`).
pub fn int_eq_float(i: i128, f: f64) -> bool {
    // Every float in [-2**127, 2**127) with no fraction converts to i128 exactly.
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0; // 2**127
    f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f) && f as i128 == i
}

/// Python's `n == f` for a big int and a float: equal only when the float is that exact int.
pub fn big_eq_float(n: &BigInt, f: f64) -> bool {
    integral_float(f).is_some_and(|g| &g == n)
}

/// Python's ordering of an int and a float: exact (no rounding of the
/// int), `None` when the float is NaN.
pub fn cmp_int_float(n: &BigInt, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    if f.is_infinite() {
        return Some(if f > 0.0 { Ordering::Less } else { Ordering::Greater });
    }
    let whole = BigInt::from_f64(f.trunc())?;
    Some(n.cmp(&whole).then_with(|| 0.0_f64.partial_cmp(&f.fract()).unwrap_or(Ordering::Equal)))
}

/// Python's `a / b` for two ints: the correctly rounded quotient, as
/// CPython's `long_true_divide` makes it. `b` is not zero.
pub fn true_divide(a: &BigInt, b: &BigInt) -> Result<f64, String> {
    if a.is_zero() {
        // Python: 0 / -5 == -0.0.
        return Ok(if b.sign() == Sign::Minus { -0.0 } else { 0.0 });
    }
    let negative = (a.sign() == Sign::Minus) != (b.sign() == Sign::Minus);
    let (n, d) = (a.magnitude(), b.magnitude());
    // Scale so the integer quotient has at least 55 bits: 53 for the float,
    // one to round on, and the remainder kept as a sticky bit below them.
    let shift = 55 + i64::try_from(d.bits()).unwrap_or(i64::MAX) - i64::try_from(n.bits()).unwrap_or(i64::MAX);
    let (n, d) = if shift >= 0 { (n << shift as usize, d.clone()) } else { (n.clone(), d << (-shift) as usize) };
    let (q, r) = (&n / &d, &n % &d);
    // q < 2**57 fits a u64; an odd last bit marks a remainder, so the
    // conversion's ties-to-even rounding is the exact quotient's.
    let q = q.to_u64().unwrap_or(u64::MAX) | u64::from(!r.is_zero());
    let value = scale(q as f64, -shift);
    if value.is_infinite() {
        return Err(DIVISION_TOO_LARGE.into());
    }
    Ok(if negative { -value } else { value })
}

/// `m * 2**e` without overflowing an intermediate power of two.
fn scale(m: f64, e: i64) -> f64 {
    let mut value = m;
    let mut e = e.clamp(-2200, 2200);
    while e > 0 {
        let step = e.min(1000);
        value *= 2f64.powi(step as i32);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        value /= 2f64.powi(step as i32);
        e += step;
    }
    value
}

/// `abs(n)`.
pub fn abs(n: &BigInt) -> BigInt {
    n.abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(text: &str) -> BigInt {
        text.parse().unwrap()
    }

    #[test]
    fn floats_and_ints_compare_exactly() {
        let two_130 = big("1361129467683753853853498429727072845824");
        // Python: 2**130 == float(2**130) is True; 2**130 + 1 == float(2**130) is False.
        assert!(big_eq_float(&two_130, 2f64.powi(130)));
        assert!(!big_eq_float(&(&two_130 + 1), 2f64.powi(130)));
        // Python: 2**64 + 1 == float(2**64) is False; 2**64 == float(2**64) is True.
        assert!(!int_eq_float((1 << 64) + 1, 2f64.powi(64)));
        assert!(int_eq_float(1 << 64, 2f64.powi(64)));
        assert!(!int_eq_float(0, f64::NAN));
        // Python: float(2**130) < 2**130 + 1 is True; 2**1024 < float('inf') is True; 2**130 < 2.5e39 is True.
        assert_eq!(cmp_int_float(&(&two_130 + 1), 2f64.powi(130)), Some(Ordering::Greater));
        assert_eq!(cmp_int_float(&(BigInt::from(1) << 1024), f64::INFINITY), Some(Ordering::Less));
        assert_eq!(cmp_int_float(&two_130, 2.5e39), Some(Ordering::Less));
        assert_eq!(cmp_int_float(&two_130, f64::NAN), None);
        // Python: -5 < -4.5 (the fraction decides between equal whole parts).
        assert_eq!(cmp_int_float(&BigInt::from(-5), -4.5), Some(Ordering::Less));
        assert_eq!(cmp_int_float(&BigInt::from(-4), -4.5), Some(Ordering::Greater));
    }

    #[test]
    fn float_conversion_rounds_or_overflows_as_python() {
        // Python: float(2**130 + 1) == 1.361129467683754e+39; float(2**1024) raises
        // OverflowError: int too large to convert to float.
        assert_eq!(to_float(&big("1361129467683753853853498429727072845825")), Ok(1.361129467683754e39));
        assert_eq!(to_float(&(BigInt::from(1) << 1024)).unwrap_err(), "int too large to convert to float");
        // Python: float(2**1024 - 2**970) rounds up to 2**1024 and overflows too.
        assert!(to_float(&((BigInt::from(1) << 1024) - (BigInt::from(1) << 970))).is_err());
    }

    #[test]
    fn true_division_is_correctly_rounded() {
        let two_130 = big("1361129467683753853853498429727072845824");
        // Python: 2**130 / 3 == 4.5370982256125126e+38; (2**130 + 1) / 2**130 == 1.0; 1 / 3 == 0.3333333333333333.
        assert_eq!(true_divide(&two_130, &BigInt::from(3)), Ok(4.5370982256125126e38));
        assert_eq!(true_divide(&(&two_130 + 1), &two_130), Ok(1.0));
        assert_eq!(true_divide(&BigInt::from(1), &BigInt::from(3)), Ok(1.0 / 3.0));
        // Python: -(2**130) / 7 == -1.9444706681196483e+38; 1 / -(2**130) == -7.346839692639297e-40.
        assert_eq!(true_divide(&-&two_130, &BigInt::from(7)), Ok(-1.9444706681196483e38));
        assert_eq!(true_divide(&BigInt::from(1), &-&two_130), Ok(-7.346839692639297e-40));
        // Python: 2**2000 / 3 raises OverflowError: integer division result too large for a float.
        assert_eq!(true_divide(&(BigInt::from(1) << 2000), &BigInt::from(3)).unwrap_err(), DIVISION_TOO_LARGE);
        // Python: 2**1100 / 2**100 == 1.0715086071862673e+301.
        assert_eq!(true_divide(&(BigInt::from(1) << 1100), &(BigInt::from(1) << 100)), Ok(1.0715086071862673e301));
    }

    #[test]
    fn the_digit_limit_is_pythons() {
        // Python: str(10**4299) works (4300 digits); str(10**4300) raises the limit.
        assert!(!exceeds_str_digits(&BigInt::from(10).pow(4299)));
        assert!(exceeds_str_digits(&BigInt::from(10).pow(4300)));
    }
}
