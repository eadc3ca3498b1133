//! The length of a JSON value as `serde_json` writes it compactly, counted
//! without writing it. A simulated model's prompt tokens are that length of
//! the request body over 4; writing the whole body out per request to count
//! it was the largest share of a simulated unit's time.

use std::fmt::Write;

use serde_json::Value;

/// `value.to_string().len()`, without building the string.
pub fn compact_len(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => {
            let mut counter = Counter(0);
            write!(counter, "{n}").expect("counting cannot fail");
            counter.0
        }
        Value::String(s) => string_len(s),
        Value::Array(items) => 2 + items.len().saturating_sub(1) + items.iter().map(compact_len).sum::<usize>(),
        Value::Object(map) => 2 + map.len().saturating_sub(1) + map.iter().map(|(k, v)| string_len(k) + 1 + compact_len(v)).sum::<usize>(),
    }
}

/// A string's quoted length with serde_json's escapes: `\"`, `\\` and the
/// short forms of five control characters take two bytes, the other control
/// characters six (`\u001f`), everything else itself.
fn string_len(s: &str) -> usize {
    // Summed without branches, so the compiler vectorises the loop: counted
    // byte by byte through a match, this was a tenth of the default run's CPU.
    2 + s.len() + s.bytes().map(escape_extra).sum::<usize>()
}

/// The bytes an escape adds to `b`: one for the short forms, five for `\u00XX`.
fn escape_extra(b: u8) -> usize {
    let short = b == b'"' || b == b'\\' || b == 0x08 || b == b'\t' || b == b'\n' || b == 0x0c || b == b'\r';
    let control = b < 0x20;
    usize::from(short) + 5 * usize::from(control && !short)
}

/// Counts the bytes written to it.
struct Counter(usize);

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn counts_what_serde_json_writes() {
        let cases = [
            json!(null),
            json!(true),
            json!(false),
            json!(0),
            json!(-12345678901234i64),
            json!(u64::MAX),
            json!(1.5),
            json!(1e300),
            json!(-0.0),
            json!(0.1),
            json!(""),
            json!("plain"),
            json!("quote \" backslash \\ controls \u{1} \u{8} \t \n \u{c} \r \u{1f} del \u{7f} é 😀"),
            json!([]),
            json!({}),
            json!([1, "two", [3], {"four": 4}]),
            json!({"messages": [{"role": "user", "content": "hi\n"}], "tools": [{"type": "function"}], "temperature": 0.2}),
        ];
        for value in cases {
            assert_eq!(compact_len(&value), value.to_string().len(), "{value}");
        }
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..8).prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_counts_as_written(value in any_value()) {
            prop_assert_eq!(compact_len(&value), value.to_string().len());
        }
    }
}
