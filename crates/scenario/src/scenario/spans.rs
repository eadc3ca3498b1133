//! Where a value lies in a scenario's text: a small JSON reader that walks a
//! JSON Pointer (`/expect/calls/0/tool`) through the text and returns the
//! byte offset of that value, and line/column counting in characters.
//!
//! It runs only when a scenario has a problem to report, on text serde_json
//! has already accepted, so it is written for clarity over speed; it is
//! still total (never panics, never recurses) on any text, because a file
//! can change between the two reads. Written by hand rather than taken from
//! a crate: the job is ~100 lines, and `serde_spanned` covers TOML only while
//! `json-spanned-value` would have us deserialise every scenario twice.

/// The byte offset of the value at `pointer` (RFC 6901) in `text`, or of
/// the deepest value on the way to it that exists (the whole document if
/// none does). A key given twice counts at its last place, as serde_json
/// keeps the last value of a map.
pub(super) fn locate(text: &str, pointer: &str) -> usize {
    let bytes = text.as_bytes();
    let mut at = skip_ws(bytes, 0);
    let tokens = pointer.split('/').skip(1).map(|t| t.replace("~1", "/").replace("~0", "~"));
    for token in tokens {
        let found = match bytes.get(at) {
            Some(b'{') => member(bytes, at, &token),
            Some(b'[') => token.parse().ok().and_then(|i| element(bytes, at, i)),
            _ => None,
        };
        match found {
            Some(next) => at = next,
            None => break,
        }
    }
    at.min(text.len())
}

/// 1-based line and column (in characters) of a byte offset in `text`.
/// An offset inside a character counts as that character.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text.as_bytes()[..offset];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before[..line_start].iter().filter(|&&b| b == b'\n').count() + 1;
    (line, char_count(&before[line_start..]) + 1)
}

/// Characters in a UTF-8 byte run (a cut last character counts as one).
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The byte offset of a serde_json error position: its `line` is 1-based,
/// its `column` counts bytes up to and including the offending one (0 at
/// the very start of a line).
pub(super) fn serde_offset(text: &str, line: usize, column: usize) -> usize {
    let line_start = match line {
        0 | 1 => 0,
        n => text.match_indices('\n').nth(n - 2).map_or(text.len(), |(i, _)| i + 1),
    };
    (line_start + column.saturating_sub(1)).min(text.len())
}

/// The value of member `key` of the object starting at `at`.
fn member(bytes: &[u8], at: usize, key: &str) -> Option<usize> {
    let mut found = None;
    let mut i = skip_ws(bytes, at + 1);
    while bytes.get(i) == Some(&b'"') {
        let key_end = string_end(bytes, i)?;
        let colon = skip_ws(bytes, key_end);
        if bytes.get(colon) != Some(&b':') {
            return found;
        }
        let value = skip_ws(bytes, colon + 1);
        if decode_key(&bytes[i..key_end]).as_deref() == Some(key) {
            found = Some(value);
        }
        i = skip_ws(bytes, value_end(bytes, value)?);
        if bytes.get(i) != Some(&b',') {
            break;
        }
        i = skip_ws(bytes, i + 1);
    }
    found
}

/// The `index`th element of the array starting at `at`.
fn element(bytes: &[u8], at: usize, index: usize) -> Option<usize> {
    let mut i = skip_ws(bytes, at + 1);
    for _ in 0..index {
        if matches!(bytes.get(i), None | Some(b']')) {
            return None;
        }
        i = skip_ws(bytes, value_end(bytes, i)?);
        if bytes.get(i) != Some(&b',') {
            return None;
        }
        i = skip_ws(bytes, i + 1);
    }
    (!matches!(bytes.get(i), None | Some(b']'))).then_some(i)
}

/// A key as written (quotes and escapes included), decoded.
fn decode_key(raw: &[u8]) -> Option<String> {
    serde_json::from_slice(raw).ok()
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// Just past the string whose opening quote is at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        match bytes.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// Just past the value starting at `at`. Containers are skipped by counting
/// brackets outside strings, so nesting depth costs no stack.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        // A number, `true`, `false` or `null`: up to the next delimiter.
        _ => Some(
            bytes[at..].iter().position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')).map_or(bytes.len(), |n| at + n),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at<'a>(text: &'a str, pointer: &str) -> &'a str {
        &text[locate(text, pointer)..]
    }

    #[test]
    fn walks_keys_and_indexes() {
        let text = r#" {"a": [1, {"b": "x", "c": [true, null]}], "d": {}} "#;
        assert!(at(text, "").starts_with(r#"{"a""#));
        assert!(at(text, "/a/1/c/1").starts_with("null]"));
        assert!(at(text, "/a/1/b").starts_with(r#""x""#));
        assert!(at(text, "/d").starts_with("{}"));
    }

    #[test]
    fn a_missing_step_stops_at_the_deepest_value_found() {
        let text = r#"{"a": [1, 2], "b": {"c": 1}}"#;
        assert!(at(text, "/a/7").starts_with("[1, 2]"));
        assert!(at(text, "/b/zz/y").starts_with(r#"{"c""#));
        assert!(at(text, "/a/x").starts_with("[1, 2]"));
        assert_eq!(locate(text, "/nope"), 0);
    }

    #[test]
    fn strings_that_look_like_the_path_are_skipped() {
        // The same text as a key, inside strings before it, with escapes.
        let text = r#"{"s": "\"tool\": {\"b\": [", "k": {"tool": 1}, "t\u006fol": "here"}"#;
        assert!(at(text, "/tool").starts_with(r#""here""#));
        assert!(at(text, "/k/tool").starts_with("1}"));
    }

    #[test]
    fn pointer_escapes_and_last_duplicate_key() {
        let text = r#"{"a/b": {"~": 1}, "d": 1, "d": 2}"#;
        assert!(at(text, "/a~1b/~0").starts_with("1}"));
        assert!(at(text, "/d").starts_with("2}"));
    }

    #[test]
    fn broken_text_does_not_panic() {
        for text in ["", "{", "[", r#"{"a"#, r#"{"a": [1,"#, "]]]", r#"{"a": "\"#, "\u{e9}{", "[[[[[[[[[["] {
            for pointer in ["", "/a", "/0", "/a/0/b", "/0/0/0"] {
                assert!(locate(text, pointer) <= text.len());
            }
        }
    }

    #[test]
    fn columns_count_characters() {
        let text = "{\"é→\": 1,\n  \"日本\": \"x\"}";
        let offset = text.find("\"x\"").unwrap();
        assert_eq!(line_col(text, offset), (2, 9));
        assert_eq!(line_col(text, text.find('1').unwrap()), (1, 8));
        assert_eq!(line_col(text, 0), (1, 1));
        // Inside a character, and past the end: no panic.
        assert_eq!(line_col("é", 1), (1, 1));
        assert_eq!(line_col("ab", 99), (1, 3));
    }

    #[test]
    fn serde_positions_become_characters() {
        let text = "{\"é\": 1,\n \"ü\": x}";
        let err = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        assert_eq!((err.line(), err.column()), (2, 8), "serde_json counts bytes");
        assert_eq!(line_col(text, serde_offset(text, err.line(), err.column())), (2, 7));
        assert_eq!(serde_offset(text, 9, 9), text.len());
        assert_eq!(serde_offset(text, 2, 0), text.find('\n').unwrap() + 1);
    }
}
