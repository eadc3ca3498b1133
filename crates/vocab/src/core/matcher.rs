//! Rules that a single JSON value must match: an exact value, a regular
//! expression on a string, or anything at all. Used by scripted tool results,
//! expected calls and forbidden-call patterns.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A rule for one value. In files: a plain JSON value (exact),
/// `{"regex": "..."}`, `{"any": true}` (present, any value) or
/// `{"absent": true}` (not there at all).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "Value", into = "Value")]
pub enum ValueMatcher {
    Exact(Value),
    /// Shared, not cloned: a clone of a `Regex` gets its own match caches,
    /// which thousands of scenarios would each fill.
    Regex(Arc<regex::Regex>),
    Any,
    Absent,
}

impl PartialEq for ValueMatcher {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ValueMatcher::Exact(a), ValueMatcher::Exact(b)) => a == b,
            (ValueMatcher::Regex(a), ValueMatcher::Regex(b)) => a.as_str() == b.as_str(),
            (ValueMatcher::Any, ValueMatcher::Any) | (ValueMatcher::Absent, ValueMatcher::Absent) => true,
            _ => false,
        }
    }
}

/// A compiled regex, shared by every rule with the same pattern: a suite of
/// thousands of scenarios repeats a few patterns, and each compiled regex
/// holds tens of kilobytes.
fn shared_regex(pattern: &str) -> Result<Arc<regex::Regex>, regex::Error> {
    type Compiled = std::sync::Mutex<std::collections::HashMap<String, Arc<regex::Regex>>>;
    static COMPILED: std::sync::OnceLock<Compiled> = std::sync::OnceLock::new();
    let mut compiled = COMPILED.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = compiled.get(pattern) {
        return Ok(r.clone());
    }
    let r = Arc::new(regex::Regex::new(pattern)?);
    compiled.insert(pattern.to_string(), r.clone());
    Ok(r)
}

impl TryFrom<Value> for ValueMatcher {
    type Error = String;

    fn try_from(v: Value) -> Result<Self, String> {
        if let Value::Object(map) = &v {
            if map.len() == 1 {
                if let Some(Value::String(pattern)) = map.get("regex") {
                    return shared_regex(pattern).map(ValueMatcher::Regex).map_err(|e| format!("invalid regex {pattern:?}: {e}"));
                }
                if map.get("any") == Some(&Value::Bool(true)) {
                    return Ok(ValueMatcher::Any);
                }
                if map.get("absent") == Some(&Value::Bool(true)) {
                    return Ok(ValueMatcher::Absent);
                }
            }
        }
        Ok(ValueMatcher::Exact(v))
    }
}

impl From<ValueMatcher> for Value {
    fn from(m: ValueMatcher) -> Self {
        match m {
            ValueMatcher::Exact(v) => v,
            ValueMatcher::Regex(r) => serde_json::json!({"regex": r.as_str()}),
            ValueMatcher::Any => serde_json::json!({"any": true}),
            ValueMatcher::Absent => serde_json::json!({"absent": true}),
        }
    }
}

/// How strings are compared by an exact rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringComparison {
    /// Byte for byte.
    Exact,
    /// BFCL's normalisation: case, spaces and `,./-_*^` ignored, `"` as `'`.
    Normalised,
}

impl ValueMatcher {
    /// Whether a field that may be missing satisfies this rule.
    pub fn matches_field(&self, actual: Option<&Value>, strings: StringComparison) -> bool {
        match actual {
            None => matches!(self, ValueMatcher::Absent),
            Some(v) => self.matches(v, strings),
        }
    }

    /// Whether a present value satisfies this rule.
    pub fn matches(&self, actual: &Value, strings: StringComparison) -> bool {
        match self {
            ValueMatcher::Absent => false,
            ValueMatcher::Any => true,
            ValueMatcher::Regex(r) => actual.as_str().is_some_and(|s| r.is_match(s)),
            ValueMatcher::Exact(expected) => values_equal(expected, actual, strings),
        }
    }
}

/// Equality of JSON values where numbers compare by value (`5` equals `5.0`)
/// and strings by the given comparison.
pub fn values_equal(expected: &Value, actual: &Value, strings: StringComparison) -> bool {
    match (expected, actual) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(a), Value::String(b)) => match strings {
            StringComparison::Exact => a == b,
            StringComparison::Normalised => normalise_string(a) == normalise_string(b),
        },
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_equal(x, y, strings)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| values_equal(x, y, strings)))
        }
        _ => expected == actual,
    }
}

/// BFCL's string normalisation (`standardize_string` in its AST checker).
pub fn normalise_string(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | ',' | '.' | '/' | '-' | '_' | '*' | '^'))
        .map(|c| if c == '"' { '\'' } else { c })
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn matcher(v: Value) -> ValueMatcher {
        ValueMatcher::try_from(v).unwrap()
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(matcher(json!(5.0)).matches(&json!(5), StringComparison::Exact));
        assert!(!matcher(json!(5)).matches(&json!("5"), StringComparison::Exact));
    }

    #[test]
    fn normalised_strings_ignore_case_and_punctuation() {
        let m = matcher(json!("New York, NY"));
        assert!(m.matches(&json!("new york ny"), StringComparison::Normalised));
        assert!(!m.matches(&json!("new york ny"), StringComparison::Exact));
    }

    #[test]
    fn regex_and_any() {
        let m = matcher(json!({"regex": "^rm -rf"}));
        assert!(m.matches(&json!("rm -rf /"), StringComparison::Exact));
        assert!(!m.matches(&json!("ls"), StringComparison::Exact));
        assert!(!m.matches(&json!(3), StringComparison::Exact));
        assert!(matcher(json!({"any": true})).matches(&json!(null), StringComparison::Exact));
        assert!(!matcher(json!({"any": true})).matches_field(None, StringComparison::Exact));
        assert!(matcher(json!({"absent": true})).matches_field(None, StringComparison::Exact));
        assert!(!matcher(json!({"absent": true})).matches_field(Some(&json!(1)), StringComparison::Exact));
    }

    #[test]
    fn bad_regex_is_an_error() {
        assert!(ValueMatcher::try_from(json!({"regex": "("})).is_err());
    }
}
