//! The order a call's arguments were written in. The pipeline keeps
//! arguments in a `serde_json` map, in key order; BFCL's checkers walk them
//! in the order the model wrote them (`json.loads` keeps it), which decides
//! the error type when two arguments of one call are wrong. So for BFCL
//! units the agent reads the top-level keys back from the argument text
//! with this scan: no value is built, and nothing is allocated unless the
//! order differs from key order.
//!
//! The scan follows JSON (exact for strict text) and the lenient forms
//! (single-quoted and bare keys); for text only lenient reading could read,
//! a key it misreads is one the arguments do not hold, and is left out.

use std::borrow::Cow;

use serde_json::Value;

/// The top-level keys of argument `text` in the order written (a repeated
/// key where it first appears, as in a Python dict), limited to the keys
/// the final `args` hold; empty when the arguments' key order is already
/// that order with the keys a repair added after the written ones (see
/// `calltape_world::bfcl::arg_order`, which puts them back together).
pub fn written_order(text: &str, args: &Value) -> Vec<String> {
    let Some(args) = args.as_object().filter(|a| a.len() > 1) else { return Vec::new() };
    // First, without allocating: are the written keys in key order?
    let mut last: Option<Cow<'_, str>> = None;
    let mut written = 0;
    let mut sorted = true;
    for_each_key(text, |key| {
        if !args.contains_key(key.as_ref()) {
            return true;
        }
        if last.as_deref().is_some_and(|l| l >= key.as_ref()) {
            sorted = false;
            return false;
        }
        written += 1;
        last = Some(key);
        true
    });
    // Keys a repair added go after the written ones: key order still, if they sort after them.
    let added_after = || last.as_deref().is_none_or(|l| args.keys().take_while(|k| k.as_str() <= l).count() == written);
    if sorted && added_after() {
        return Vec::new();
    }
    let mut order: Vec<String> = Vec::with_capacity(args.len());
    for_each_key(text, |key| {
        if args.contains_key(key.as_ref()) && !order.iter().any(|o| *o == key) {
            order.push(key.into_owned());
        }
        true
    });
    order
}

/// Calls `found` with each top-level key of the first object in `text`,
/// until it returns false.
fn for_each_key<'t>(text: &'t str, mut found: impl FnMut(Cow<'t, str>) -> bool) {
    let b = text.as_bytes();
    let Some(open) = b.iter().position(|&c| c == b'{') else { return };
    let mut i = open + 1;
    let mut depth = 1u32;
    let mut expect_key = true;
    while i < b.len() {
        match b[i] {
            quote @ (b'"' | b'\'') => {
                let end = string_end(b, i);
                if depth == 1 && expect_key && colon_follows(b, end + 1) {
                    if let Some(key) = key_text(&text[i..(end + 1).min(b.len())], quote) {
                        if !found(key) {
                            return;
                        }
                    }
                }
                expect_key = false;
                i = end + 1;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                expect_key = false;
            }
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
            b',' if depth == 1 => expect_key = true,
            c if depth == 1 && expect_key && (c.is_ascii_alphabetic() || c == b'_' || c == b'$') => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$' | b'-')) {
                    i += 1;
                }
                if colon_follows(b, i) && !found(Cow::Borrowed(&text[start..i])) {
                    return;
                }
                expect_key = false;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

/// The index of the quote that closes the string opening at `open`, or the
/// text's length when it is not closed.
fn string_end(b: &[u8], open: usize) -> usize {
    let quote = b[open];
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i,
            _ => i += 1,
        }
    }
    b.len()
}

fn colon_follows(b: &[u8], from: usize) -> bool {
    b.get(from..).and_then(|rest| rest.iter().find(|c| !c.is_ascii_whitespace())) == Some(&b':')
}

/// A quoted key's text: as it is without escapes, else decoded as a JSON
/// string (a single-quoted one with its `\'` unescaped first).
fn key_text(quoted: &str, quote: u8) -> Option<Cow<'_, str>> {
    let inner = quoted.get(1..quoted.len().checked_sub(1)?)?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    let json = if quote == b'"' { Cow::Borrowed(quoted) } else { Cow::Owned(format!("\"{}\"", inner.replace("\\'", "'"))) };
    serde_json::from_str::<String>(&json).ok().map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_in_key_order_need_no_list() {
        let args = json!({"a": 1, "b": [1, {"z": 0}], "c": "x"});
        assert!(written_order(r#"{"a": 1, "b": [1, {"z": 0}], "c": "x"}"#, &args).is_empty());
        assert!(written_order(r#"{"only": 1}"#, &json!({"only": 1})).is_empty());
        // A repair added `d`, which sorts after the written keys.
        assert!(written_order(r#"{"a": 1, "b": [], "c": "x"}"#, &json!({"a": 1, "b": [], "c": "x", "d": 0})).is_empty());
    }

    #[test]
    fn keys_out_of_key_order_are_listed_as_written() {
        let args = json!({"base": 1, "height": 2, "unit": "cm"});
        assert_eq!(written_order(r#"{"unit": "cm", "base": 1, "height": 2}"#, &args), ["unit", "base", "height"]);
        // Nested keys, strings with braces, colons and escaped quotes do not count.
        let text = r#"{"unit": "a\"}, \"base\": {", "height": {"base": 1}, "base": 1}"#;
        assert_eq!(written_order(text, &args), ["unit", "height", "base"]);
    }

    #[test]
    fn an_added_key_that_sorts_first_goes_after_the_written_ones() {
        let args = json!({"a": 0, "b": 1, "c": 2});
        assert_eq!(written_order(r#"{"b": 1, "c": 2}"#, &args), ["b", "c"]);
    }

    #[test]
    fn lenient_text_repeated_and_escaped_keys() {
        let args = json!({"a": 1, "b": "it's", "c": 3});
        assert_eq!(written_order("```json\n{c: 3, 'b': 'it\\'s', \"a\": 1,}\n```", &args), ["c", "b", "a"]);
        // A repeated key stands where it first appears; a removed one is left out.
        assert_eq!(written_order(r#"{"c": 0, "x": 9, "a": 1, "c": 3, "b": "it's"}"#, &args), ["c", "a", "b"]);
        assert_eq!(written_order(r#"{"\u0063": 3, "a": 1, "b": "it's"}"#, &args), ["c", "a", "b"]);
    }
}
