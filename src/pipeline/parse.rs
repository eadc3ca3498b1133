//! Stage 2: read the argument text as JSON. Empty arguments mean `{}`
//! (providers send `""` for calls without arguments).

use serde_json::Value;

/// Parses argument text strictly; the error says why it is not JSON (it is
/// formatted only where it is reported).
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    // Text opening with a visible ASCII byte (a bracket, as a rule) is not
    // blank: that is decided without trimming it.
    let visible_first = text.as_bytes().first().is_some_and(|&b| b.is_ascii() && !(b as char).is_whitespace());
    if !visible_first && text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_an_empty_object_and_junk_is_an_error() {
        assert_eq!(parse_strict("  ").unwrap(), serde_json::json!({}));
        assert_eq!(parse_strict(r#"{"a":1}"#).unwrap(), serde_json::json!({"a": 1}));
        let err = parse_strict(r#"{"a":1,}"#).unwrap_err();
        assert!(err.to_string().contains("trailing comma"), "{err}");
    }
}
