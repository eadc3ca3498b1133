//! BFCL's `MathAPI` (`math_api.py`): stateless arithmetic and statistics.
//! Results keep Python's types (`add(2, 3)` is the int `5`); `logarithm`
//! returns an `mpmath` number and `square_root` a `Decimal`, which BFCL's
//! executor cannot `json.dumps`, so their dicts come back as the text
//! Python's `str()` writes (`{'result': mpf('2.0')}`).

mod mpnum;

use crate::bfcl::multi_turn::pyops::{self, error, Cmp, Num, Op};
use crate::bfcl::multi_turn::{opt, req, ApiClass, Args, Attr, Method, PyError};
use crate::bfcl::pyint;
use crate::bfcl::pyvalue::{self, float_repr, Py};

/// BFCL's `MathAPI`.
#[derive(Debug, Clone, Default)]
pub struct MathAPI {}

const METHODS: &[Method] = &[
    Method { name: "logarithm", params: &[req("value"), req("base"), req("precision")] },
    Method { name: "mean", params: &[req("numbers")] },
    Method { name: "standard_deviation", params: &[req("numbers")] },
    Method { name: "si_unit_conversion", params: &[req("value"), req("unit_in"), req("unit_out")] },
    Method { name: "imperial_si_conversion", params: &[req("value"), req("unit_in"), req("unit_out")] },
    Method { name: "add", params: &[req("a"), req("b")] },
    Method { name: "subtract", params: &[req("a"), req("b")] },
    Method { name: "multiply", params: &[req("a"), req("b")] },
    Method { name: "divide", params: &[req("a"), req("b")] },
    Method { name: "power", params: &[req("base"), req("exponent")] },
    Method { name: "square_root", params: &[req("number"), req("precision")] },
    Method { name: "absolute_value", params: &[req("number")] },
    Method { name: "round_number", params: &[req("number"), opt("decimal_places")] },
    Method { name: "percentage", params: &[req("part"), req("whole")] },
    Method { name: "min_value", params: &[req("numbers")] },
    Method { name: "max_value", params: &[req("numbers")] },
    Method { name: "sum_values", params: &[req("numbers")] },
];

/// `{"result": value}`.
fn result(value: Py) -> Py {
    Py::Dict(vec![("result".into(), value)])
}

/// `{"result": value}`, or `{"error": message}` for a `TypeError`: the
/// methods catch only that, so an `OverflowError` (a big int meeting a
/// float) is the call's error, as BFCL's executor reports it.
fn result_or_type_error(value: Result<Py, PyError>, message: &str) -> Result<Py, PyError> {
    match value {
        Ok(v) => Ok(result(v)),
        Err(e) if pyops::is_overflow(&e) => Err(e),
        Err(_) => Ok(error(message)),
    }
}

/// `{"result": value}`, or the method's error for an `OverflowError`, which the conversions catch.
fn converted(value: Result<Num, PyError>) -> Result<Py, PyError> {
    match value {
        Ok(v) => Ok(result(v.to_py())),
        Err(e) if pyops::is_overflow(&e) => Ok(error("Conversion resulted in a value too large to represent")),
        Err(e) => Err(e),
    }
}

/// `isinstance(v, (int, float))`.
fn is_number(v: &Py) -> bool {
    pyops::num(v).is_some()
}

/// Python's `sum(items)`: `0 + a + b + …` (`TypeError` on anything not a number).
fn py_sum(items: &Py) -> Result<Py, PyError> {
    let mut total = Py::Int(0);
    for item in pyops::iterate(items)? {
        total = pyops::arith(Op::Add, &total, &item, false)?;
    }
    Ok(total)
}

/// `x ** 2` for a float: Python's overflow is an `OverflowError`.
fn square(x: f64) -> Result<f64, PyError> {
    let y = x * x;
    if y.is_infinite() && x.is_finite() {
        return Err("(34, 'Numerical result out of range')".into());
    }
    Ok(y)
}

/// `repr` of one part of a complex number: as a float's, less a trailing `.0`.
fn complex_part(f: f64) -> String {
    let text = float_repr(f);
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

/// Python's `repr(complex(re, im))`.
fn complex_repr(re: f64, im: f64) -> String {
    if re == 0.0 && re.is_sign_positive() {
        return format!("{}j", complex_part(im));
    }
    // A negative part brings its own minus sign; NaN is written `+nan`.
    let sign = if im.is_sign_negative() && !im.is_nan() { "" } else { "+" };
    format!("({}{sign}{}j)", complex_part(re), complex_part(im))
}

/// `b ** e` for ints past i128 (`e >= 0`), exact. A result past Python's
/// 4300 decimal digits is refused here, before computing it: BFCL's
/// executor could not write it out (`json.dumps`, then `str`, raise).
fn big_pow(b: &num_bigint::BigInt, e: &num_bigint::BigInt) -> Result<Py, PyError> {
    use num_traits::{One, Signed, ToPrimitive, Zero};
    let magnitude = b.abs();
    if magnitude.is_zero() || magnitude.is_one() {
        let odd = e.bit(0);
        let value = if e.is_zero() {
            1
        } else if magnitude.is_zero() {
            0
        } else if b.is_negative() && odd {
            -1
        } else {
            1
        };
        return Ok(Py::Int(value));
    }
    // log10(|b|) * e digits, from |b|'s bit length (within one bit).
    let digits = e.to_f64().unwrap_or(f64::INFINITY) * (magnitude.bits() as f64 - 1.0) * std::f64::consts::LOG10_2;
    if digits > pyint::INT_MAX_STR_DIGITS as f64 {
        return Err(pyint::too_many_digits());
    }
    let value = b.pow(e.to_u32().unwrap_or(u32::MAX));
    if pyint::exceeds_str_digits(&value) {
        return Err(pyint::too_many_digits());
    }
    Ok(pyvalue::py_int(value))
}

/// Python's `base ** exponent` for two numbers.
fn py_pow(base: Num, exponent: Num) -> Result<Py, PyError> {
    if let (Num::Int(b), Num::Int(e)) = (&base, &exponent) {
        let (b, e) = (*b, *e);
        if e >= 0 {
            match b {
                0 | 1 => return Ok(Py::Int(if e == 0 { 1 } else { b })),
                -1 => return Ok(Py::Int(if e % 2 == 0 { 1 } else { -1 })),
                _ => {}
            }
            if let Some(v) = u32::try_from(e).ok().and_then(|e| b.checked_pow(e)) {
                return Ok(Py::Int(v));
            }
        }
    }
    if let (Some(b), Some(e)) = (pyvalue::exact_int(&base.clone().to_py()), pyvalue::exact_int(&exponent.clone().to_py())) {
        if !num_traits::Signed::is_negative(&e) {
            return big_pow(&b, &e);
        }
    }
    // A negative int exponent makes both floats: `float(2**1100)` overflows.
    let (b, e) = (base.to_float()?, exponent.to_float()?);
    if b == 0.0 && e < 0.0 {
        return Err("0.0 cannot be raised to a negative power".into());
    }
    if b < 0.0 && e.is_finite() && e.fract() != 0.0 {
        // Python hands a negative base with a fractional exponent to complex
        // pow: |b|**e at the angle pi*e.
        let (length, phase) = ((-b).powf(e), std::f64::consts::PI * e);
        let (re, im) = (length * phase.cos(), length * phase.sin());
        if !re.is_finite() || !im.is_finite() {
            return Err("complex exponentiation".into());
        }
        let text = complex_repr(re, im);
        return Ok(Py::Str(format!("{{'result': {text}}}")));
    }
    let v = b.powf(e);
    if v.is_infinite() && b.is_finite() && e.is_finite() {
        return Err("(34, 'Numerical result out of range')".into());
    }
    Ok(Py::Float(v))
}

impl MathAPI {
    fn logarithm(&self, value: &Py, base: &Py, precision: &Py) -> Py {
        match mpnum::log_ratio(value, base, precision) {
            Ok(text) => Py::Str(format!("{{'result': {text}}}")),
            Err(e) => error(e),
        }
    }

    fn mean(&self, numbers: &Py) -> Result<Py, PyError> {
        if !pyops::truthy(numbers) {
            return Ok(error("Cannot calculate mean of an empty list"));
        }
        let mean = py_sum(numbers).and_then(|total| pyops::arith(Op::Div, &total, &Py::Int(pyops::len(numbers)? as i128), false));
        result_or_type_error(mean, "All elements in the list must be numbers")
    }

    fn standard_deviation(&self, numbers: &Py) -> Result<Py, PyError> {
        if !pyops::truthy(numbers) {
            return Ok(error("Cannot calculate standard deviation of an empty list"));
        }
        let mean = match py_sum(numbers).and_then(|total| pyops::arith(Op::Div, &total, &Py::Int(pyops::len(numbers)? as i128), false)) {
            Ok(mean) => mean,
            Err(e) if pyops::is_overflow(&e) => return Err(e),
            Err(_) => return Ok(error("All elements in the list must be numbers")),
        };
        let mut squares = Py::Int(0);
        for x in pyops::iterate(numbers)? {
            let deviation = match pyops::arith(Op::Sub, &x, &mean, false) {
                Ok(d) => d,
                Err(e) if pyops::is_overflow(&e) => return Err(e),
                Err(_) => return Ok(error("All elements in the list must be numbers")),
            };
            let d = pyops::num(&deviation).map_or(0.0, Num::as_f64);
            squares = pyops::arith(Op::Add, &squares, &Py::Float(square(d)?), false)?;
        }
        let variance = pyops::arith(Op::Div, &squares, &Py::Int(pyops::len(numbers)? as i128), false)?;
        let v = pyops::num(&variance).map_or(0.0, Num::as_f64);
        if v < 0.0 {
            return Err("math domain error".into());
        }
        Ok(result(Py::Float(v.sqrt())))
    }

    fn si_unit_conversion(&self, value: &Py, unit_in: &Py, unit_out: &Py) -> Result<Py, PyError> {
        const TO_METERS: &[(&str, Num)] = &[
            ("km", Num::Int(1000)),
            ("m", Num::Int(1)),
            ("cm", Num::Float(0.01)),
            ("mm", Num::Float(0.001)),
            ("um", Num::Float(1e-6)),
            ("nm", Num::Float(1e-9)),
        ];
        if !is_number(value) {
            return Ok(error("Value must be a number"));
        }
        pyops::hashable(unit_in)?;
        pyops::hashable(unit_out)?;
        let factor = |unit: &Py| TO_METERS.iter().find(|(u, _)| unit.as_str() == Some(*u)).map(|(_, f)| f.clone());
        let (Some(to_meters), Some(out)) = (factor(unit_in), factor(unit_out)) else {
            return Ok(error(format!("Conversion from '{}' to '{}' is not supported", unit_in.str_(), unit_out.str_())));
        };
        let from_meters = Num::Float(1.0 / out.as_f64());
        let in_meters = pyops::num_arith(Op::Mul, pyops::num(value).unwrap_or(Num::Int(0)), to_meters);
        converted(in_meters.and_then(|m| pyops::num_arith(Op::Mul, m, from_meters)))
    }

    fn imperial_si_conversion(&self, value: &Py, unit_in: &Py, unit_out: &Py) -> Result<Py, PyError> {
        const CONVERSION: &[(&str, f64)] = &[
            ("cm_to_in", 0.393701),
            ("in_to_cm", 2.54),
            ("m_to_ft", 3.28084),
            ("ft_to_m", 0.3048),
            ("m_to_yd", 1.09361),
            ("yd_to_m", 0.9144),
            ("km_to_miles", 0.621371),
            ("miles_to_km", 1.60934),
            ("kg_to_lb", 2.20462),
            ("lb_to_kg", 0.453592),
            ("celsius_to_fahrenheit", 1.8),
            ("fahrenheit_to_celsius", 5.0 / 9.0),
        ];
        let Some(x) = pyops::num(value) else {
            return Ok(error("Value must be a number"));
        };
        if unit_in.py_eq(unit_out) {
            return Ok(result(value.clone()));
        }
        let key = format!("{}_to_{}", unit_in.str_(), unit_out.str_());
        let Some(factor) = CONVERSION.iter().find(|(k, _)| *k == key).map(|(_, f)| Num::Float(*f)) else {
            return Ok(error(format!("Conversion from '{}' to '{}' is not supported", unit_in.str_(), unit_out.str_())));
        };
        converted(match key.as_str() {
            "celsius_to_fahrenheit" => pyops::num_arith(Op::Mul, x, factor).and_then(|v| pyops::num_arith(Op::Add, v, Num::Int(32))),
            "fahrenheit_to_celsius" => pyops::num_arith(Op::Sub, x, Num::Int(32)).and_then(|v| pyops::num_arith(Op::Mul, v, factor)),
            _ => pyops::num_arith(Op::Mul, x, factor),
        })
    }

    fn add(&self, a: &Py, b: &Py) -> Result<Py, PyError> {
        result_or_type_error(pyops::arith(Op::Add, a, b, false), "Both inputs must be numbers")
    }

    fn subtract(&self, a: &Py, b: &Py) -> Result<Py, PyError> {
        result_or_type_error(pyops::arith(Op::Sub, a, b, false), "Both inputs must be numbers")
    }

    fn multiply(&self, a: &Py, b: &Py) -> Result<Py, PyError> {
        if !is_number(a) || !is_number(b) {
            return Ok(error("Both inputs must be numbers"));
        }
        result_or_type_error(pyops::arith(Op::Mul, a, b, false), "Both inputs must be numbers")
    }

    fn divide(&self, a: &Py, b: &Py) -> Result<Py, PyError> {
        if b.py_eq(&Py::Int(0)) {
            return Ok(error("Cannot divide by zero"));
        }
        if !is_number(a) || !is_number(b) {
            return Ok(error("Both inputs must be numbers"));
        }
        pyops::arith(Op::Div, a, b, false).map(result)
    }

    fn power(&self, base: &Py, exponent: &Py) -> Result<Py, PyError> {
        let (Some(b), Some(e)) = (pyops::num(base), pyops::num(exponent)) else {
            return Ok(error("Both inputs must be numbers"));
        };
        match py_pow(b, e)? {
            // A complex result or a long int comes back as BFCL's text already.
            text @ Py::Str(_) => Ok(text),
            value => Ok(result(value)),
        }
    }

    fn square_root(&self, number: &Py, precision: &Py) -> Result<Py, PyError> {
        let invalid = || error("Input must be a number or computation resulted in an invalid operation");
        let Ok(negative) = pyops::compare(Cmp::Lt, number, &Py::Int(0)) else {
            return Ok(invalid());
        };
        if negative {
            return Ok(error("Cannot calculate square root of a negative number"));
        }
        // Only an int sets `getcontext().prec`; anything else is a `TypeError`.
        let digits = match precision {
            Py::Int(p) => *p,
            Py::Bool(b) => i128::from(*b),
            // Python: getcontext().prec = 2**130 raises OverflowError (not caught by the method).
            Py::BigInt(_) => return Err(pyops::NO_SSIZE_T.into()),
            _ => return Ok(invalid()),
        };
        if i64::try_from(digits).is_err() {
            return Err(pyops::NO_SSIZE_T.into());
        }
        if !(1..=999_999_999_999_999_999).contains(&digits) {
            return Err("valid range for prec is [1, MAX_PREC]".into());
        }
        // `number < 0` passed, so it is a number.
        let x = pyops::num(number).unwrap_or(Num::Int(0));
        let root = mpnum::decimal_sqrt(x, usize::try_from(digits).unwrap_or(usize::MAX))?;
        Ok(Py::Str(format!("{{'result': Decimal('{root}')}}")))
    }

    fn absolute_value(&self, number: &Py) -> Py {
        pyops::abs(number).map_or_else(|_| error("Input must be a number"), result)
    }

    fn round_number(&self, number: &Py, decimal_places: Option<&Py>) -> Result<Py, PyError> {
        let places = decimal_places.unwrap_or(&Py::Int(0));
        match pyops::round(number, Some(places)) {
            Ok(v) => Ok(result(v)),
            Err(e) if e.starts_with("cannot convert") => Err(e),
            Err(_) => Ok(error("First input must be a number, second input must be an integer")),
        }
    }

    fn percentage(&self, part: &Py, whole: &Py) -> Result<Py, PyError> {
        if whole.py_eq(&Py::Int(0)) {
            return Ok(error("Whole value cannot be zero"));
        }
        let value = pyops::arith(Op::Div, part, whole, false).and_then(|q| pyops::arith(Op::Mul, &q, &Py::Int(100), false));
        result_or_type_error(value, "Both inputs must be numbers")
    }

    /// `min(numbers)` (`Lt`) or `max(numbers)` (`Gt`): the first extreme item.
    fn extreme(&self, numbers: &Py, cmp: Cmp, empty: &str) -> Py {
        if !pyops::truthy(numbers) {
            return error(empty);
        }
        let found = pyops::iterate(numbers).and_then(|items| {
            let mut best: Option<Py> = None;
            for item in items {
                best = Some(match best {
                    Some(current) if !pyops::compare(cmp, &item, &current)? => current,
                    _ => item,
                });
            }
            Ok(best.unwrap_or(Py::None))
        });
        found.map_or_else(|_| error("All elements in the list must be numbers"), result)
    }

    fn sum_values(&self, numbers: &Py) -> Result<Py, PyError> {
        if !pyops::truthy(numbers) {
            return Ok(error("Cannot calculate sum of an empty list"));
        }
        result_or_type_error(py_sum(numbers), "All elements in the list must be numbers")
    }
}

impl ApiClass for MathAPI {
    fn class_name(&self) -> &'static str {
        "MathAPI"
    }

    fn load(&mut self, _config: &Py, _long_context: bool) {}

    fn methods(&self) -> &'static [Method] {
        METHODS
    }

    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError> {
        let a = |name: &str| args.arg(name);
        match method {
            "logarithm" => Ok(self.logarithm(a("value"), a("base"), a("precision"))),
            "mean" => self.mean(a("numbers")),
            "standard_deviation" => self.standard_deviation(a("numbers")),
            "si_unit_conversion" => self.si_unit_conversion(a("value"), a("unit_in"), a("unit_out")),
            "imperial_si_conversion" => self.imperial_si_conversion(a("value"), a("unit_in"), a("unit_out")),
            "add" => self.add(a("a"), a("b")),
            "subtract" => self.subtract(a("a"), a("b")),
            "multiply" => self.multiply(a("a"), a("b")),
            "divide" => self.divide(a("a"), a("b")),
            "power" => self.power(a("base"), a("exponent")),
            "square_root" => self.square_root(a("number"), a("precision")),
            "absolute_value" => Ok(self.absolute_value(a("number"))),
            "round_number" => self.round_number(a("number"), args.get("decimal_places")),
            "percentage" => self.percentage(a("part"), a("whole")),
            "min_value" => Ok(self.extreme(a("numbers"), Cmp::Lt, "Cannot find minimum of an empty list")),
            "max_value" => Ok(self.extreme(a("numbers"), Cmp::Gt, "Cannot find maximum of an empty list")),
            "sum_values" => self.sum_values(a("numbers")),
            _ => Err(format!("'MathAPI' object has no attribute '{method}'")),
        }
    }

    /// `MathAPI` has no public attributes.
    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bfcl::multi_turn::result_text;

    /// The text BFCL's executor makes of the call (errors as `ERR …`).
    fn run(method: &str, args: &[(&str, Py)]) -> String {
        let args = Args(args.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect());
        match MathAPI::default().call(method, &args) {
            Ok(v) => result_text(&v),
            Err(e) => format!("ERR {e}"),
        }
    }

    fn list(json: &str) -> Py {
        serde_json::from_str(json).unwrap()
    }

    fn s(text: &str) -> Py {
        Py::Str(text.into())
    }

    #[test]
    fn statistics() {
        assert_eq!(run("mean", &[("numbers", list("[1, 2, 3, 4]"))]), r#"{"result": 2.5}"#);
        assert_eq!(run("mean", &[("numbers", list("[0.1, 0.2, 0.3]"))]), r#"{"result": 0.20000000000000004}"#);
        assert_eq!(run("mean", &[("numbers", list("[]"))]), r#"{"error": "Cannot calculate mean of an empty list"}"#);
        assert_eq!(run("mean", &[("numbers", list(r#"[1, "a"]"#))]), r#"{"error": "All elements in the list must be numbers"}"#);
        assert_eq!(run("standard_deviation", &[("numbers", list("[2, 4, 4, 4, 5, 5, 7, 9]"))]), r#"{"result": 2.0}"#);
        assert_eq!(run("standard_deviation", &[("numbers", list("[1.5, 2.5, 10]"))]), r#"{"result": 3.7932688922470144}"#);
        assert_eq!(run("min_value", &[("numbers", list("[3, 1.0, 1]"))]), r#"{"result": 1.0}"#);
        assert_eq!(run("max_value", &[("numbers", list(r#"["b", "a"]"#))]), r#"{"result": "b"}"#);
        assert_eq!(run("max_value", &[("numbers", list(r#"[1, "a"]"#))]), r#"{"error": "All elements in the list must be numbers"}"#);
        assert_eq!(run("sum_values", &[("numbers", list("[1, 2.5, true]"))]), r#"{"result": 4.5}"#);
    }

    #[test]
    fn arithmetic_keeps_python_types() {
        assert_eq!(run("add", &[("a", Py::Int(2)), ("b", Py::Int(3))]), r#"{"result": 5}"#);
        assert_eq!(run("add", &[("a", Py::Float(0.1)), ("b", Py::Float(0.2))]), r#"{"result": 0.30000000000000004}"#);
        assert_eq!(run("add", &[("a", s("a")), ("b", s("b"))]), r#"{"result": "ab"}"#);
        assert_eq!(run("add", &[("a", Py::None), ("b", Py::Int(1))]), r#"{"error": "Both inputs must be numbers"}"#);
        assert_eq!(run("subtract", &[("a", Py::Int(5)), ("b", Py::Float(2.5))]), r#"{"result": 2.5}"#);
        assert_eq!(run("multiply", &[("a", Py::Int(3)), ("b", Py::Bool(true))]), r#"{"result": 3}"#);
        assert_eq!(run("multiply", &[("a", s("a")), ("b", Py::Int(2))]), r#"{"error": "Both inputs must be numbers"}"#);
        assert_eq!(run("divide", &[("a", Py::Int(7)), ("b", Py::Int(2))]), r#"{"result": 3.5}"#);
        assert_eq!(run("divide", &[("a", Py::Int(1)), ("b", Py::Int(0))]), r#"{"error": "Cannot divide by zero"}"#);
        assert_eq!(run("power", &[("base", Py::Int(2)), ("exponent", Py::Int(10))]), r#"{"result": 1024}"#);
        assert_eq!(run("power", &[("base", Py::Int(2)), ("exponent", Py::Int(-1))]), r#"{"result": 0.5}"#);
        assert_eq!(
            run("power", &[("base", Py::Int(-8)), ("exponent", Py::Float(1.0 / 3.0))]),
            "{'result': (1.0000000000000002+1.7320508075688772j)}"
        );
        assert_eq!(run("absolute_value", &[("number", Py::Int(-3))]), r#"{"result": 3}"#);
        assert_eq!(run("percentage", &[("part", Py::Int(1)), ("whole", Py::Int(3))]), r#"{"result": 33.33333333333333}"#);
        assert_eq!(run("percentage", &[("part", Py::Int(1)), ("whole", Py::Int(0))]), r#"{"error": "Whole value cannot be zero"}"#);
    }

    #[test]
    fn rounding_roots_and_logarithms() {
        assert_eq!(run("round_number", &[("number", Py::Float(2.675)), ("decimal_places", Py::Int(2))]), r#"{"result": 2.67}"#);
        assert_eq!(run("round_number", &[("number", Py::Int(1250)), ("decimal_places", Py::Int(-2))]), r#"{"result": 1200}"#);
        assert_eq!(run("round_number", &[("number", Py::Float(2.5))]), r#"{"result": 2.0}"#);
        assert_eq!(
            run("round_number", &[("number", Py::Float(1.23456)), ("decimal_places", Py::Float(2.0))]),
            r#"{"error": "First input must be a number, second input must be an integer"}"#
        );
        assert_eq!(run("square_root", &[("number", Py::Int(2)), ("precision", Py::Int(10))]), "{'result': Decimal('1.414213562')}");
        assert_eq!(
            run("square_root", &[("number", Py::Int(-1)), ("precision", Py::Int(5))]),
            r#"{"error": "Cannot calculate square root of a negative number"}"#
        );
        assert_eq!(
            run("square_root", &[("number", s("x")), ("precision", Py::Int(5))]),
            r#"{"error": "Input must be a number or computation resulted in an invalid operation"}"#
        );
        let log = [("value", Py::Float(630.0)), ("base", Py::Int(10)), ("precision", Py::Int(5))];
        assert_eq!(run("logarithm", &log), "{'result': mpf('2.7993393')}");
        let bad = [("value", Py::Int(20)), ("base", Py::Int(10)), ("precision", s("x"))];
        assert_eq!(run("logarithm", &bad), r#"{"error": "invalid literal for int() with base 10: 'x'"}"#);
    }

    fn big(text: &str) -> Py {
        pyvalue::py_int(text.parse().unwrap())
    }

    #[test]
    fn big_ints_as_python_computes_them() {
        let two_130 = big("1361129467683753853853498429727072845824");
        let two_1024 = pyvalue::py_int(num_bigint::BigInt::from(1) << 1024);
        // Python: MathAPI().add(2**130, 1) == {'result': 1361129467683753853853498429727072845825}.
        assert_eq!(run("add", &[("a", two_130.clone()), ("b", Py::Int(1))]), r#"{"result": 1361129467683753853853498429727072845825}"#);
        // Python: MathAPI().add(2**1024, 0.5) raises OverflowError (the method catches only TypeError).
        assert_eq!(run("add", &[("a", two_1024.clone()), ("b", Py::Float(0.5))]), "ERR int too large to convert to float");
        assert_eq!(run("multiply", &[("a", two_130.clone()), ("b", Py::Float(0.5))]), r#"{"result": 6.80564733841877e+38}"#);
        // Python: power(2, 200) and power(2**130, 2) are exact ints; power(7, 892544) cannot be written out.
        assert_eq!(
            run("power", &[("base", Py::Int(2)), ("exponent", Py::Int(200))]),
            r#"{"result": 1606938044258990275541962092341162602522202993782792835301376}"#
        );
        assert_eq!(
            run("power", &[("base", two_130.clone()), ("exponent", Py::Int(2))]),
            r#"{"result": 1852673427797059126777135760139006525652319754650249024631321344126610074238976}"#
        );
        assert!(run("power", &[("base", Py::Int(7)), ("exponent", Py::Int(892_544))]).starts_with("ERR Exceeds the limit (4300 digits)"));
        // Python: percentage(2**130, 3) == {'result': 4.537098225612512e+40}; mean([2**130, 2**130]) == 1.361129467683754e+39.
        assert_eq!(run("percentage", &[("part", two_130.clone()), ("whole", Py::Int(3))]), r#"{"result": 4.537098225612512e+40}"#);
        assert_eq!(run("mean", &[("numbers", Py::List(vec![two_130.clone(), two_130.clone()]))]), r#"{"result": 1.361129467683754e+39}"#);
        assert_eq!(
            run("sum_values", &[("numbers", Py::List(vec![two_130.clone(), Py::Int(1), Py::Bool(true)]))]),
            r#"{"result": 1361129467683753853853498429727072845826}"#
        );
        // Python: round_number(2**130, -2) ends in 800; absolute_value(-2**130) == 2**130.
        assert_eq!(
            run("round_number", &[("number", two_130.clone()), ("decimal_places", Py::Int(-2))]),
            r#"{"result": 1361129467683753853853498429727072845800}"#
        );
        // Python: si_unit_conversion(2**130, 'km', 'nm') == {'result': 1.3611294676837537e+51};
        // with 2**1024 the OverflowError is caught: "Conversion resulted in a value too large to represent".
        let si = |v: Py| run("si_unit_conversion", &[("value", v), ("unit_in", s("km")), ("unit_out", s("nm"))]);
        assert_eq!(si(two_130.clone()), r#"{"result": 1.3611294676837537e+51}"#);
        assert_eq!(si(two_1024.clone()), r#"{"error": "Conversion resulted in a value too large to represent"}"#);
        // Python: square_root(2, 2**130) raises OverflowError: Python int too large to convert to C ssize_t.
        assert_eq!(
            run("square_root", &[("number", Py::Int(2)), ("precision", two_130.clone())]),
            "ERR Python int too large to convert to C ssize_t"
        );
        // Python (mpmath 1.3): logarithm(36.0, 6.0, precision=-2**130) gives mpf('2.0') at prec 1;
        // precision=2**130 'too many digits in integer'; -(2**1100) 'int too large to convert to float';
        // 2**1023 'cannot convert float infinity to integer' (all caught into the error dict).
        let log = |p: Py| run("logarithm", &[("value", Py::Float(36.0)), ("base", Py::Float(6.0)), ("precision", p)]);
        assert_eq!(log(big("-1361129467683753853853498429727072845824")), "{'result': mpf('2.0')}");
        assert_eq!(log(two_130), r#"{"error": "too many digits in integer"}"#);
        assert_eq!(log(pyvalue::py_int(-(num_bigint::BigInt::from(1) << 1100usize))), r#"{"error": "int too large to convert to float"}"#);
        assert_eq!(log(pyvalue::py_int(num_bigint::BigInt::from(1) << 1023)), r#"{"error": "cannot convert float infinity to integer"}"#);
    }

    #[test]
    fn unit_conversions() {
        let si = |v: Py, a: &str, b: &str| run("si_unit_conversion", &[("value", v), ("unit_in", s(a)), ("unit_out", s(b))]);
        assert_eq!(si(Py::Int(5), "km", "m"), r#"{"result": 5000.0}"#);
        assert_eq!(si(Py::Int(3), "um", "nm"), r#"{"result": 2999.9999999999995}"#);
        assert_eq!(si(Py::Int(1), "km", "ft"), r#"{"error": "Conversion from 'km' to 'ft' is not supported"}"#);
        let imperial = |v: Py, a: &str, b: &str| run("imperial_si_conversion", &[("value", v), ("unit_in", s(a)), ("unit_out", s(b))]);
        assert_eq!(imperial(Py::Int(100), "celsius", "fahrenheit"), r#"{"result": 212.0}"#);
        assert_eq!(imperial(Py::Int(212), "fahrenheit", "celsius"), r#"{"result": 100.0}"#);
        assert_eq!(imperial(Py::Int(5), "kg", "kg"), r#"{"result": 5}"#);
        assert_eq!(imperial(Py::Int(10), "miles", "km"), r#"{"result": 16.0934}"#);
    }
}
