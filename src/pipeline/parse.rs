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

/// Where strict JSON certainly fails, told from the text's shape alone: a
/// byte that rules it out (not always the first error in the text) when the
/// first or last visible byte cannot open or close a JSON value, the last
/// cannot close the value the first opens, an object opens with something
/// other than a key or `}`, or the text ends with a trailing comma (a fence,
/// prose, a cut-off end, `{'a'`, `{a`, `{"a": 1,}`, `{"a": 30`).
/// `None` says nothing: the text may still not be JSON. A first byte counts
/// only when ASCII, so text that `parse_strict` reads as blank (Unicode
/// whitespace) is never ruled out.
pub fn surely_not_json(text: &str) -> Option<usize> {
    let visible = |c: &u8| !matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let b = text.as_bytes();
    let first = b.iter().position(visible)?;
    let last = b.iter().rposition(visible)?;
    let opens = |c: u8| matches!(c, b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n');
    if b[first].is_ascii() && !opens(b[first]) {
        return Some(first);
    }
    if b[first] == b'{' {
        // JSON whitespace is ASCII, so the first byte after it is a char boundary.
        let key = b[first + 1..].iter().position(visible).map(|n| first + 1 + n);
        if let Some(key) = key.filter(|&k| !matches!(b[k], b'"' | b'}')) {
            return Some(key);
        }
    }
    // The first byte says what the value is, and so how it must end: an
    // object with `}`, an array with `]`, a string with a second `"`, a
    // number with a digit, a keyword with its last letter (a cut-off call).
    // A non-ASCII first byte says nothing, and then only an ASCII last byte
    // counts, against every byte that can close a value.
    let closes: &[u8] = match b[first] {
        b'{' => b"}",
        b'[' => b"]",
        b'"' if first == last => b"",
        b'"' => b"\"",
        b'-' | b'0'..=b'9' => b"0123456789",
        b't' | b'f' => b"e",
        b'n' => b"l",
        _ => b"}]\"0123456789el",
    };
    if (b[first].is_ascii() || b[last].is_ascii()) && !closes.contains(&b[last]) {
        return Some(last);
    }
    // A closing bracket at the end is structural in JSON, so a comma before
    // it (JSON whitespace between) is a trailing comma, not string content.
    if matches!(b[last], b'}' | b']') && b[..last].iter().rev().find(|c| visible(c)) == Some(&b',') {
        return Some(last);
    }
    None
}

/// The 1-based line and column (in bytes, as `serde_json` counts) of a byte offset.
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |n| n + 1);
    (memchr::memchr_iter(b'\n', before).count() + 1, before.len() - line_start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_is_an_empty_object_and_junk_is_an_error() {
        assert_eq!(parse_strict("  ").unwrap(), serde_json::json!({}));
        assert_eq!(parse_strict(r#"{"a":1}"#).unwrap(), serde_json::json!({"a": 1}));
        let err = parse_strict(r#"{"a":1,}"#).unwrap_err();
        assert!(err.to_string().contains("trailing comma"), "{err}");
    }

    #[test]
    fn shapes_that_rule_json_out() {
        for (text, at) in [
            ("```json\n{}\n```", 0),
            ("Sure: {\"a\": 1}", 0),
            ("{'a': 1}", 1),
            ("{ \n a: 1}", 4),
            ("{\"a\": tru", 8),
            ("{\"a\": \"b", 7),
            ("[1, 2] and more.", 15),
            ("{", 0),
            ("{\"a\": 1,}", 8),
            ("[1, 2 ,\n]", 8),
            ("{\"a\": 30", 7),
            ("[\"a\"", 3),
            ("{\"a\": \"b\"", 8),
            ("\"", 0),
            ("\"abc\" ]", 6),
            ("2e", 1),
            ("-", 0),
            ("[1] }", 4),
            ("true]", 4),
            ("{\"a\": 1} \u{a0}", 10),
        ] {
            assert_eq!(surely_not_json(text), Some(at), "{text:?}");
            assert!(parse_strict(text).is_err(), "{text:?}");
        }
        // Not ruled out: JSON, blank text (read as `{}`), non-ASCII edges,
        // and errors inside the text.
        for text in [
            "{}",
            " [1] ",
            "\"a\"",
            "-1.5e3",
            "null",
            "",
            " \u{a0} ",
            "\u{feff}{}",
            "{\"a\": \",}\"}",
            "{\"a\": [1,], \"b\": 2}",
            "{\"a\": True}",
        ] {
            assert_eq!(surely_not_json(text), None, "{text:?}");
        }
    }

    /// Text built from the pieces of JSON and of what models write around it.
    fn jsonish_text() -> impl Strategy<Value = String> {
        const PIECES: [&str; 22] = [
            "{", "}", "[", "]", "\"a\"", ":", ",", " ", "\n", "\t", "\r", "1", "-2.5e3", "true", "null", "'", "x", "```", "\u{a0}",
            "\u{feff}", "é", "\\",
        ];
        let piece = proptest::sample::select(&PIECES[..]);
        proptest::collection::vec(piece, 0..10).prop_map(|pieces| pieces.concat())
    }

    /// JSON values written compactly or pretty, with JSON whitespace around.
    fn json_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            "[a-z' {}\\[\\]]{0,6}".prop_map(Value::from),
        ];
        let value = leaf.prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z]{0,4}", inner, 0..4).prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        });
        (value, any::<bool>(), "[ \t\n\r]{0,3}", "[ \t\n\r]{0,3}").prop_map(|(v, pretty, before, after)| {
            let body = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) };
            format!("{before}{}{after}", body.unwrap())
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Text the shape check rules out is never JSON: strict parsing,
        /// which it lets the pipeline skip, would have failed too.
        #[test]
        fn what_the_shape_rules_out_is_never_json(text in prop_oneof![jsonish_text(), json_text()]) {
            if surely_not_json(&text).is_some() {
                prop_assert!(parse_strict(&text).is_err(), "{text:?}");
            }
        }

        #[test]
        fn json_is_never_ruled_out(text in json_text()) {
            prop_assert_eq!(surely_not_json(&text), None, "{:?}", text);
        }
    }

    #[test]
    fn line_and_column_count_as_serde_does() {
        for text in ["{\"a\":1,}", "{\n  \"a\": 1,\n}", "[1,\n\n 2,]"] {
            let err = parse_strict(text).unwrap_err();
            // serde points at the closing bracket after the trailing comma.
            let at = text.rfind([']', '}']).unwrap();
            assert_eq!(line_column(text, at), (err.line(), err.column()), "{text:?}");
        }
    }
}
