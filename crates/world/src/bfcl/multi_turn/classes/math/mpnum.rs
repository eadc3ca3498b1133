//! The two arbitrary-precision numbers `MathAPI` returns, written as Python
//! writes them: `mpmath`'s `mpf` (the logarithm, rounded to the bits
//! `mp.dps` gives, printed by `mpf.__repr__`) and `decimal`'s `Decimal`
//! (the square root, `_pydecimal`'s algorithm on decimal integers).
//!
//! The logarithm is computed in `f64` and rounded to mpmath's precision,
//! which is exact up to `precision=15` (53 bits); above that the last
//! digits can differ from mpmath's.

use crate::bfcl::multi_turn::pyops::{self, Num};
use crate::bfcl::multi_turn::PyError;
use crate::bfcl::pyvalue::{str_repr, Py};

/// mpmath's `dps_to_prec`: the bits `mp.dps = n` sets.
fn dps_to_prec(n: i128) -> i64 {
    let bits = ((n as f64 + 1.0) * 3.321_928_094_887_362_6).round_ties_even();
    (bits as i64).max(1)
}

/// mpmath's `repr_dps`: the digits `repr(mpf)` writes at `prec` bits.
fn repr_dps(prec: i64) -> usize {
    let dps = ((prec as f64 / 3.321_928_094_887_362_6).round_ties_even() as i64 - 1).max(1);
    if dps == 15 {
        17
    } else {
        (dps + 3) as usize
    }
}

/// `hi + lo` (a double-double, `|lo|` within half an ulp of `hi`) rounded to
/// `prec` significant bits, ties to even (mpmath's `round_nearest`). Where
/// `hi` sits exactly on a tie, `lo` tells which side the true value is on.
fn round_bits(hi: f64, lo: f64, prec: i64) -> f64 {
    if prec >= 53 || hi == 0.0 || !hi.is_finite() {
        return hi;
    }
    let exponent = hi.abs().log2().floor() as i32;
    // log2 can land one off near a power of two; fix the scale so the
    // mantissa is in [2**(prec-1), 2**prec).
    let mut shift = prec as i32 - 1 - exponent;
    let mut scaled = hi.abs() * 2f64.powi(shift);
    while scaled >= 2f64.powi(prec as i32) {
        shift -= 1;
        scaled = hi.abs() * 2f64.powi(shift);
    }
    while scaled < 2f64.powi(prec as i32 - 1) {
        shift += 1;
        scaled = hi.abs() * 2f64.powi(shift);
    }
    let rounded = if scaled.fract() == 0.5 && lo != 0.0 && lo.is_finite() {
        if (lo > 0.0) == (hi > 0.0) {
            scaled.ceil()
        } else {
            scaled.floor()
        }
    } else {
        scaled.round_ties_even()
    };
    (rounded * 2f64.powi(-shift)).copysign(hi)
}

/// `a / b` rounded to `prec` bits (mpmath's `mpf_div`): the exact remainder
/// of the float division says which side of a tie the quotient is on.
fn mp_div(a: f64, b: f64, prec: i64) -> f64 {
    let q = a / b;
    let remainder = (-q).mul_add(b, a);
    round_bits(q, remainder / b, prec)
}

/// A double-double: `hi + lo`, about 106 bits.
#[derive(Debug, Clone, Copy)]
struct Dd(f64, f64);

/// ln 2 and pi as double-doubles.
const LN2: Dd = Dd(std::f64::consts::LN_2, 2.319_046_813_846_299_6e-17);
const PI: Dd = Dd(std::f64::consts::PI, 1.224_646_799_147_353_2e-16);

impl Dd {
    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }

    fn add(self, o: Dd) -> Dd {
        let Dd(s, e) = Dd::two_sum(self.0, o.0);
        let e = e + self.1 + o.1;
        Dd::two_sum(s, e)
    }

    fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }

    fn mul(self, o: Dd) -> Dd {
        let p = self.0 * o.0;
        let e = self.0.mul_add(o.0, -p) + self.0 * o.1 + self.1 * o.0;
        Dd::two_sum(p, e)
    }

    fn div(self, o: Dd) -> Dd {
        let q1 = self.0 / o.0;
        let r = self.add(o.mul(Dd(q1, 0.0)).neg());
        let q2 = r.0 / o.0;
        let r = r.add(o.mul(Dd(q2, 0.0)).neg());
        let q3 = r.0 / o.0;
        Dd::two_sum(q1, q2).add(Dd(q3, 0.0))
    }

    /// `exp(self)`: reduced by ln 2 and by 2**10, a Taylor series, squared back.
    fn exp(self) -> Dd {
        let k = (self.0 / LN2.0).round();
        let r = self.add(LN2.mul(Dd(k, 0.0)).neg());
        let r = Dd(r.0 / 1024.0, r.1 / 1024.0);
        let (mut sum, mut term) = (Dd(1.0, 0.0), Dd(1.0, 0.0));
        for n in 1..=12 {
            term = term.mul(r).div(Dd(f64::from(n), 0.0));
            sum = sum.add(term);
        }
        for _ in 0..10 {
            sum = sum.mul(sum);
        }
        let scale = 2f64.powi(k as i32);
        Dd(sum.0 * scale, sum.1 * scale)
    }

    /// `ln(x)` for a positive finite `x`: the float logarithm and one Newton step.
    fn ln(x: f64) -> Dd {
        let y = x.ln();
        let e = Dd(y, 0.0).exp();
        if e.0 == 0.0 || !e.0.is_finite() {
            return Dd(y, 0.0);
        }
        let correction = Dd(x, 0.0).add(e.neg()).div(e);
        Dd(y, 0.0).add(correction)
    }
}

/// What `mpmath.log` accepts: a number, or a string of one.
fn mp_convert(v: &Py) -> Result<f64, PyError> {
    match pyops::num(v) {
        Some(n) => Ok(n.as_f64()),
        None => match v {
            Py::Str(s) => s.trim().parse::<f64>().map_err(|_| format!("cannot create mpf from {}", str_repr(s))),
            other => Err(format!("cannot create mpf from {}", other.repr())),
        },
    }
}

/// `mpmath.log(x)` at `prec` bits: a real, or for a negative `x` a complex (re, im).
fn mp_log(x: f64, prec: i64) -> (f64, f64) {
    if x == 0.0 {
        return (f64::NEG_INFINITY, 0.0);
    }
    if x.is_nan() || x.is_infinite() {
        return (x.abs().ln(), if x < 0.0 { round_bits(PI.0, PI.1, prec) } else { 0.0 });
    }
    let magnitude = Dd::ln(x.abs());
    let re = round_bits(magnitude.0, magnitude.1, prec);
    if x < 0.0 {
        return (re, round_bits(PI.0, PI.1, prec));
    }
    (re, 0.0)
}

/// `mpmath.log(value) / mpmath.log(base)` after `mp.dps = precision`, as
/// `repr` writes it (`mpf('2.0')`, or `mpc(real=…, imag=…)` for a negative
/// value). `Err`: the text of the exception (a division by zero has none).
pub fn log_ratio(value: &Py, base: &Py, precision: &Py) -> Result<String, PyError> {
    let dps = match pyops::int(precision)? {
        Py::BigInt(n) => {
            // mpmath's dps_to_prec computes `(n + 1) * 3.32…` in floats: past
            // 2**1024 `float(n)` overflows, past ~2**1022 the product is infinite.
            let f = crate::bfcl::pyint::to_float(&n)?;
            if ((f + 1.0) * 3.321_928_094_887_362_6).is_infinite() {
                return Err("cannot convert float infinity to integer".into());
            }
            // Otherwise the refusal past 2**65 below, or (negative) the lowest precision.
            if num_traits::Signed::is_negative(&*n) {
                i128::MIN
            } else {
                i128::MAX
            }
        }
        Py::Int(i) => i,
        _ => return Err("too many digits in integer".into()),
    };
    // mpmath 1.3 with bfcl-eval 2026.3.23: `mp.dps = 2**65` (or 2**130) and the
    // logarithm raises ValueError('too many digits in integer').
    if dps >= 1 << 65 {
        return Err("too many digits in integer".into());
    }
    let prec = dps_to_prec(dps);
    let (vr, vi) = mp_log(mp_convert(value)?, prec);
    let (br, bi) = mp_log(mp_convert(base)?, prec);
    let digits = repr_dps(prec);
    if bi == 0.0 {
        if br == 0.0 {
            return Err(String::new());
        }
        let re = mp_div(vr, br, prec);
        if vi == 0.0 {
            return Ok(format!("mpf('{}')", to_str(re, digits)));
        }
        let im = mp_div(vi, br, prec);
        return Ok(format!("mpc(real='{}', imag='{}')", to_str(re, digits), to_str(im, digits)));
    }
    // A negative base: complex division (computed in f64, then rounded).
    let denominator = br * br + bi * bi;
    let re = round_bits((vr * br + vi * bi) / denominator, 0.0, prec);
    let im = round_bits((vi * br - vr * bi) / denominator, 0.0, prec);
    Ok(format!("mpc(real='{}', imag='{}')", to_str(re, digits), to_str(im, digits)))
}

/// The exact decimal digits of `|x|` (to 80 places) and the exponent of the first.
fn exact_digits(x: f64) -> (String, i64) {
    let text = format!("{:.80e}", x.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    (mantissa.replace('.', ""), exponent.parse().unwrap_or(0))
}

/// mpmath's `to_str(x, dps)`: `dps` significant digits (the digits past them
/// cut, then rounded up on a 5 to 9), fixed notation near 1, trailing zeros
/// stripped.
fn to_str(x: f64, dps: usize) -> String {
    if x == 0.0 {
        return "0.0".into();
    }
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+inf".into() } else { "-inf".into() };
    }
    let sign = if x < 0.0 { "-" } else { "" };
    let (all, mut exponent) = exact_digits(x);
    let mut digits: Vec<u8> = all.bytes().take(dps + 1).map(|b| b - b'0').collect();
    let round_up = digits.len() > dps && digits[dps] >= 5;
    digits.truncate(dps);
    if round_up {
        let mut i = dps;
        loop {
            if i == 0 {
                digits = std::iter::once(1).chain(std::iter::repeat_n(0, dps - 1)).collect();
                exponent += 1;
                break;
            }
            i -= 1;
            if digits[i] == 9 {
                digits[i] = 0;
            } else {
                digits[i] += 1;
                break;
            }
        }
    }
    let mut text: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
    let dps_i = dps as i64;
    let min_fixed = (-(dps_i / 3)).min(-5);
    let split;
    if min_fixed < exponent && exponent < dps_i {
        if exponent < 0 {
            text = "0".repeat((-exponent) as usize) + &text;
            split = 1;
        } else {
            split = (exponent + 1) as usize;
            if split > dps {
                text.push_str(&"0".repeat(split - dps));
            }
        }
        exponent = 0;
    } else {
        split = 1;
    }
    let mut out = format!("{}.{}", &text[..split], &text[split..]);
    while out.ends_with('0') {
        out.pop();
    }
    if out.ends_with('.') {
        out.push('0');
    }
    match exponent {
        0 => format!("{sign}{out}"),
        e if e > 0 => format!("{sign}{out}e+{e}"),
        e => format!("{sign}{out}e{e}"),
    }
}

/// A natural number in base 10**9 limbs, least significant first: just
/// enough to take a square root digit by digit.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Nat(Vec<u64>);

const LIMB: u64 = 1_000_000_000;

impl Nat {
    fn from_u128(mut v: u128) -> Nat {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % u128::from(LIMB)) as u64);
            v /= u128::from(LIMB);
        }
        Nat(limbs)
    }

    fn mul_small(&mut self, m: u64) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = *limb * m + carry;
            *limb = v % LIMB;
            carry = v / LIMB;
        }
        while carry > 0 {
            self.0.push(carry % LIMB);
            carry /= LIMB;
        }
    }

    fn add_small(&mut self, a: u64) {
        let mut carry = a;
        for limb in &mut self.0 {
            if carry == 0 {
                return;
            }
            let v = *limb + carry;
            *limb = v % LIMB;
            carry = v / LIMB;
        }
        if carry > 0 {
            self.0.push(carry);
        }
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn cmp(&self, other: &Nat) -> std::cmp::Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    /// `self - other` (`self >= other`).
    fn sub(&mut self, other: &Nat) {
        let mut borrow = 0u64;
        for i in 0..self.0.len() {
            let subtrahend = other.0.get(i).copied().unwrap_or(0) + borrow;
            if self.0[i] >= subtrahend {
                self.0[i] -= subtrahend;
                borrow = 0;
            } else {
                self.0[i] = self.0[i] + LIMB - subtrahend;
                borrow = 1;
            }
        }
        self.trim();
    }

    fn decimal(&self) -> String {
        let Some((last, rest)) = self.0.split_last() else {
            return "0".into();
        };
        let mut out = last.to_string();
        for limb in rest.iter().rev() {
            out.push_str(&format!("{limb:09}"));
        }
        out
    }
}

/// `floor(sqrt(n))` of a decimal digit string, digit by digit.
fn isqrt_decimal(n: &str) -> String {
    let padded = if n.len() % 2 == 1 { format!("0{n}") } else { n.to_string() };
    let (mut remainder, mut root) = (Nat(Vec::new()), Nat(Vec::new()));
    let mut digits = String::new();
    for pair in padded.as_bytes().chunks(2) {
        remainder.mul_small(100);
        remainder.add_small(u64::from(pair[0] - b'0') * 10 + u64::from(pair[1] - b'0'));
        remainder.trim();
        // The largest d with (20 * root + d) * d <= remainder.
        let mut chosen = (0u64, Nat(Vec::new()));
        for d in 1..=9u64 {
            let mut trial = root.clone();
            trial.mul_small(20);
            trial.add_small(d);
            trial.mul_small(d);
            trial.trim();
            if trial.cmp(&remainder).is_gt() {
                break;
            }
            chosen = (d, trial);
        }
        remainder.sub(&chosen.1);
        root.mul_small(10);
        root.add_small(chosen.0);
        root.trim();
        digits.push(char::from(b'0' + chosen.0 as u8));
    }
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() {
        "0".into()
    } else {
        trimmed.to_string()
    }
}

/// Precision past which calltape refuses a square root rather than spend
/// quadratic time on it.
const MAX_SQRT_DIGITS: usize = 5_000;

/// `Decimal(x)`: its coefficient's digits and exponent (a float exactly,
/// as `Decimal.from_float` writes it).
fn decimal_of(x: Num) -> (String, i64) {
    match x {
        Num::Int(i) => (i.unsigned_abs().to_string(), 0),
        Num::Big(n) => (n.magnitude().to_string(), 0),
        Num::Float(f) => {
            let bits = f.abs().to_bits();
            let (raw_exp, fraction) = ((bits >> 52) as i64, bits & ((1 << 52) - 1));
            let (mut mantissa, mut exp) = if raw_exp == 0 { (fraction, -1074) } else { (fraction | (1 << 52), raw_exp - 1075) };
            if mantissa == 0 {
                return ("0".into(), 0);
            }
            while mantissa % 2 == 0 {
                mantissa /= 2;
                exp += 1;
            }
            let mut n = Nat::from_u128(u128::from(mantissa));
            if exp >= 0 {
                for _ in 0..exp {
                    n.mul_small(2);
                }
                return (n.decimal(), 0);
            }
            for _ in 0..-exp {
                n.mul_small(5);
            }
            (n.decimal(), exp)
        }
    }
}

/// `str(Decimal(x).sqrt())` at `prec` significant digits (half even), as
/// `_pydecimal` computes it: exact roots come back at the ideal exponent.
pub fn decimal_sqrt(x: Num, prec: usize) -> Result<String, PyError> {
    if let Num::Float(f) = x {
        if f.is_nan() {
            return Ok("NaN".into());
        }
        if f.is_infinite() {
            return Ok("Infinity".into());
        }
    }
    if prec > MAX_SQRT_DIGITS {
        return Err(format!("calltape computes Decimal square roots to at most {MAX_SQRT_DIGITS} digits"));
    }
    let (coefficient, exp) = decimal_of(x);
    if coefficient == "0" {
        return Ok(sci_string("0", exp.div_euclid(2)));
    }
    let work_prec = prec + 1;
    let mut e = exp.div_euclid(2);
    let (mut c, l) = if exp.rem_euclid(2) == 1 {
        (format!("{coefficient}0"), (coefficient.len() >> 1) + 1)
    } else {
        (coefficient.clone(), (coefficient.len() + 1) >> 1)
    };
    let shift = work_prec as i64 - l as i64;
    let mut exact = true;
    if shift >= 0 {
        c.push_str(&"00".repeat(shift as usize));
    } else {
        let cut = (2 * -shift) as usize;
        let keep = c.len().saturating_sub(cut);
        exact = c[keep..].bytes().all(|b| b == b'0');
        c.truncate(keep);
        if c.is_empty() {
            c.push('0');
        }
    }
    e -= shift;
    let mut n = isqrt_decimal(&c);
    exact = exact && square_is(&n, &c);
    if exact {
        if shift >= 0 {
            n.truncate(n.len().saturating_sub(shift as usize));
            if n.is_empty() {
                n.push('0');
            }
        } else {
            n.push_str(&"0".repeat((-shift) as usize));
        }
        e += shift;
    } else if n.ends_with('0') || n.ends_with('5') {
        // The last digit of an inexact root must not look like a tie.
        let last = n.pop().map_or(0, |c| c as u8 - b'0');
        n.push(char::from(b'0' + last + 1));
    }
    let (digits, exponent) = round_half_even(&n, e, prec);
    Ok(sci_string(&digits, exponent))
}

/// Whether `root * root == c` (both decimal digit strings).
fn square_is(root: &str, c: &str) -> bool {
    let parse = |s: &str| {
        let mut n = Nat(Vec::new());
        for b in s.bytes() {
            n.mul_small(10);
            n.add_small(u64::from(b - b'0'));
        }
        n.trim();
        n
    };
    let r = parse(root);
    // Square by repeated shifted adds of r times each digit of r.
    let mut square = Nat(Vec::new());
    for b in root.bytes() {
        square.mul_small(10);
        let mut part = r.clone();
        part.mul_small(u64::from(b - b'0'));
        square = add(&square, &part);
    }
    square.trim();
    square.cmp(&parse(c)).is_eq()
}

fn add(a: &Nat, b: &Nat) -> Nat {
    let mut out = Vec::with_capacity(a.0.len().max(b.0.len()) + 1);
    let mut carry = 0;
    for i in 0..a.0.len().max(b.0.len()) {
        let v = a.0.get(i).copied().unwrap_or(0) + b.0.get(i).copied().unwrap_or(0) + carry;
        out.push(v % LIMB);
        carry = v / LIMB;
    }
    if carry > 0 {
        out.push(carry);
    }
    Nat(out)
}

/// A coefficient cut to `prec` digits, half to even (`Decimal._fix`).
fn round_half_even(digits: &str, exponent: i64, prec: usize) -> (String, i64) {
    if digits.len() <= prec {
        return (digits.to_string(), exponent);
    }
    let dropped = digits.len() - prec;
    let (kept, rest) = digits.split_at(prec);
    let first = rest.as_bytes()[0];
    let beyond = rest[1..].bytes().any(|b| b != b'0');
    let odd = (kept.as_bytes()[prec - 1] - b'0') % 2 == 1;
    let up = first > b'5' || (first == b'5' && (beyond || odd));
    let mut out: Vec<u8> = kept.bytes().collect();
    let mut new_exponent = exponent + dropped as i64;
    if up {
        let mut i = out.len();
        loop {
            if i == 0 {
                out.insert(0, b'1');
                out.pop();
                new_exponent += 1;
                break;
            }
            i -= 1;
            if out[i] == b'9' {
                out[i] = b'0';
            } else {
                out[i] += 1;
                break;
            }
        }
    }
    (String::from_utf8(out).unwrap_or_default(), new_exponent)
}

/// `Decimal.__str__`: plain notation when the exponent is at most 0 and the
/// number is not below 1e-6, scientific otherwise.
fn sci_string(digits: &str, exponent: i64) -> String {
    let adjusted = exponent + digits.len() as i64 - 1;
    if exponent <= 0 && adjusted >= -6 {
        if exponent == 0 {
            return digits.to_string();
        }
        let point = digits.len() as i64 + exponent;
        if point > 0 {
            let (int, frac) = digits.split_at(point as usize);
            return format!("{int}.{frac}");
        }
        return format!("0.{}{digits}", "0".repeat((-point) as usize));
    }
    let (first, rest) = digits.split_at(1);
    let mantissa = if rest.is_empty() { first.to_string() } else { format!("{first}.{rest}") };
    let sign = if adjusted >= 0 { "+" } else { "-" };
    format!("{mantissa}E{sign}{}", adjusted.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(value: Py, base: Py, precision: i128) -> Result<String, PyError> {
        log_ratio(&value, &base, &Py::Int(precision))
    }

    #[test]
    fn logarithms_as_mpmath_writes_them() {
        assert_eq!(log(Py::Int(20), Py::Int(10), 2).unwrap(), "mpf('1.3027')");
        assert_eq!(log(Py::Float(3287.0), Py::Float(6.0), 4).unwrap(), "mpf('4.51947')");
        // Python: MathAPI().logarithm(36.0, 6.0, 2**65) == {'error': 'too many digits in integer'}.
        assert_eq!(log(Py::Float(36.0), Py::Float(6.0), 1 << 65).unwrap_err(), "too many digits in integer");
        assert_eq!(log(Py::Float(36.0), Py::Float(6.0), i128::MAX).unwrap_err(), "too many digits in integer");
        assert_eq!(log(Py::Float(36.0), Py::Float(6.0), 4).unwrap(), "mpf('2.0')");
        assert_eq!(log(Py::Float(630.0), Py::Int(10), 5).unwrap(), "mpf('2.7993393')");
        assert_eq!(log(Py::Float(980.0), Py::Int(20), 10).unwrap(), "mpf('2.299121531134')");
        assert_eq!(log(Py::Int(2), Py::Int(10), 15).unwrap(), "mpf('0.30102999566398114')");
        assert_eq!(log(Py::Int(0), Py::Int(10), 5).unwrap(), "mpf('-inf')");
        assert_eq!(log(Py::Int(-10), Py::Int(10), 5).unwrap(), "mpc(real='1.0', imag='1.3643761')");
        assert_eq!(log(Py::Int(10), Py::Int(1), 5).unwrap_err(), "");
        assert_eq!(log(Py::Str("abc".into()), Py::Int(10), 5).unwrap_err(), "cannot create mpf from 'abc'");
        assert_eq!(log_ratio(&Py::Int(20), &Py::Int(10), &Py::Float(4.7)).unwrap(), "mpf('1.301025')");
        assert_eq!(log(Py::Int(20), Py::Int(10), -3).unwrap(), "mpf('1.0')");
        assert_eq!(log(Py::Float(1e300), Py::Int(10), 5).unwrap(), "mpf('300.0')");
        // The float quotient lands on a 50-bit tie; the true one is below it.
        assert_eq!(log(Py::Float(852.80339957024), Py::Int(2), 14).unwrap(), "mpf('9.7360693789662633')");
    }

    #[test]
    fn square_roots_as_decimal_writes_them() {
        assert_eq!(decimal_sqrt(Num::Int(2), 5).unwrap(), "1.4142");
        assert_eq!(decimal_sqrt(Num::Float(0.1), 28).unwrap(), "0.3162277660168379419769730259");
        assert_eq!(decimal_sqrt(Num::Int(4), 10).unwrap(), "2");
        assert_eq!(decimal_sqrt(Num::Float(2.25), 10).unwrap(), "1.5");
        assert_eq!(decimal_sqrt(Num::Float(1e20), 5).unwrap(), "1.0000E+10");
        assert_eq!(decimal_sqrt(Num::Float(1e-20), 3).unwrap(), "1.00E-10");
        assert_eq!(decimal_sqrt(Num::Int(0), 10).unwrap(), "0");
        assert_eq!(decimal_sqrt(Num::Int(123_456_789), 10).unwrap(), "11111.11106");
    }
}
