//! Stage 2: read the argument text as JSON. Empty arguments mean `{}`
//! (providers send `""` for calls without arguments).

use serde_json::Value;

/// Parses argument text strictly; the error says why it is not JSON (it is
/// formatted only where it is reported).
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    if is_blank(text) {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text)
}

/// Blank text, read as `{}`. Text opening with a visible ASCII byte (a
/// bracket, as a rule) is not blank: that is decided without trimming it.
fn is_blank(text: &str) -> bool {
    let visible_first = text.as_bytes().first().is_some_and(|&b| b.is_ascii() && !(b as char).is_whitespace());
    !visible_first && text.trim().is_empty()
}

/// Where strict parsing surely fails, told without building a value: the
/// shape check first, then the syntax scan. The index is serde's error
/// index (see [`serde_position`]); `None` says to try serde.
pub fn strict_ruled_out(text: &str) -> Option<usize> {
    // The shape check names a byte; serde's index is just past it.
    surely_not_json(text).map(|at| at + 1).or_else(|| strict_fails_at(text))
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

/// Where strict parsing of `text` fails, found by a scan that builds
/// nothing: the index `serde_json` reports its error at (turned into a line
/// and column by [`serde_position`]), so the pipeline can skip a strict
/// attempt that would fail (on text that is not JSON it cost as much as
/// reading the text leniently). `None` when the text is JSON, is read as
/// blank, or the scan cannot be sure where serde stops: a `\u` escape, an
/// exponent, an integer of more than 18 digits, nesting deeper than 100.
/// The scan follows `serde_json`'s reader step by step (which byte it
/// peeks at or has consumed when it fails).
pub fn strict_fails_at(text: &str) -> Option<usize> {
    if is_blank(text) {
        return None;
    }
    match scan_json(text.as_bytes()) {
        Scan::FailsAt(at) => Some(at),
        Scan::Json | Scan::Unsure => None,
    }
}

/// What the syntax scan found.
enum Scan {
    Json,
    /// `serde_json`'s error index.
    FailsAt(usize),
    Unsure,
}

/// Containers the scan follows before it leaves the text to serde (whose
/// recursion limit is 128).
const SCAN_DEPTH: u32 = 100;

/// Bytes that end a run of plain string content for serde: the quote, a
/// backslash, a control character.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

fn scan_json(b: &[u8]) -> Scan {
    let len = b.len();
    // serde's `peek_error` at byte `k` (or at the end) reports index `k + 1`, capped.
    let peek_error = |k: usize| Scan::FailsAt((k + 1).min(len));
    let ws = |mut i: usize| {
        while i < len && matches!(b[i], b' ' | b'\n' | b'\t' | b'\r') {
            i += 1;
        }
        i
    };
    // One bit per open container, 1 for an object.
    let mut objects: u128 = 0;
    let mut depth = 0u32;
    let mut i = 0;
    loop {
        // A value at `i`.
        i = ws(i);
        if i >= len {
            return Scan::FailsAt(len);
        }
        let step = match b[i] {
            b'{' | b'[' if depth >= SCAN_DEPTH => return Scan::Unsure,
            b'{' => {
                i = ws(i + 1);
                match b.get(i) {
                    None => return Scan::FailsAt(len),
                    Some(b'}') => Ok(i + 1),
                    Some(b'"') => {
                        objects = objects << 1 | 1;
                        depth += 1;
                        match scan_member_start(b, i + 1) {
                            Ok(at) => {
                                i = at;
                                continue;
                            }
                            Err(scan) => return scan,
                        }
                    }
                    Some(_) => return peek_error(i),
                }
            }
            b'[' => {
                i = ws(i + 1);
                match b.get(i) {
                    None => return Scan::FailsAt(len),
                    Some(b']') => Ok(i + 1),
                    Some(_) => {
                        objects <<= 1;
                        depth += 1;
                        continue;
                    }
                }
            }
            b'"' => scan_string(b, i + 1),
            b'n' => scan_ident(b, i + 1, b"ull"),
            b't' => scan_ident(b, i + 1, b"rue"),
            b'f' => scan_ident(b, i + 1, b"alse"),
            b'-' => scan_number(b, i + 1),
            b'0'..=b'9' => scan_number(b, i),
            _ => return peek_error(i),
        };
        i = match step {
            Ok(end) => end,
            Err(scan) => return scan,
        };
        // After a value: close containers until one goes on with a comma.
        loop {
            i = ws(i);
            if depth == 0 {
                return if i < len { peek_error(i) } else { Scan::Json };
            }
            let Some(&c) = b.get(i) else {
                return Scan::FailsAt(len);
            };
            let close = if objects & 1 == 1 { b'}' } else { b']' };
            if c == close {
                i += 1;
                objects >>= 1;
                depth -= 1;
                continue;
            }
            if c != b',' {
                return peek_error(i);
            }
            i = ws(i + 1);
            match b.get(i) {
                None => return Scan::FailsAt(len),
                // A trailing comma, or in an object anything but a key.
                Some(&c) if c == close => return peek_error(i),
                Some(b'"') if close == b'}' => match scan_member_start(b, i + 1) {
                    Ok(at) => i = at,
                    Err(scan) => return scan,
                },
                Some(_) if close == b'}' => return peek_error(i),
                Some(_) => {}
            }
            break;
        }
    }
}

/// A member's key (from just past its opening quote) and colon; returns
/// where its value starts.
fn scan_member_start(b: &[u8], from: usize) -> Result<usize, Scan> {
    let mut i = scan_string(b, from)?;
    while i < b.len() && matches!(b[i], b' ' | b'\n' | b'\t' | b'\r') {
        i += 1;
    }
    match b.get(i) {
        Some(b':') => Ok(i + 1),
        Some(_) => Err(Scan::FailsAt(i + 1)),
        None => Err(Scan::FailsAt(b.len())),
    }
}

/// A string's body from just past its opening quote; returns the index
/// past its closing quote.
fn scan_string(b: &[u8], mut i: usize) -> Result<usize, Scan> {
    let len = b.len();
    loop {
        while i < len && !STRING_STOP[b[i] as usize] {
            i += 1;
        }
        match b.get(i) {
            None => return Err(Scan::FailsAt(len)),
            Some(b'"') => return Ok(i + 1),
            Some(b'\\') => match b.get(i + 1) {
                None => return Err(Scan::FailsAt(len)),
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => return Err(Scan::Unsure),
                // serde has read the byte after the backslash
                Some(_) => return Err(Scan::FailsAt(i + 2)),
            },
            // serde has read the control character
            Some(_) => return Err(Scan::FailsAt(i + 1)),
        }
    }
}

/// The rest of `null`, `true` or `false` from `i`; serde reads byte by byte.
fn scan_ident(b: &[u8], i: usize, rest: &[u8]) -> Result<usize, Scan> {
    for (n, &expected) in rest.iter().enumerate() {
        match b.get(i + n) {
            None => return Err(Scan::FailsAt(b.len())),
            Some(&c) if c != expected => return Err(Scan::FailsAt(i + n + 1)),
            Some(_) => {}
        }
    }
    Ok(i + rest.len())
}

/// A number from its first digit (past any `-`).
fn scan_number(b: &[u8], start: usize) -> Result<usize, Scan> {
    let len = b.len();
    let digits_from = |mut i: usize| {
        while i < len && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = match b.get(start) {
        None => return Err(Scan::FailsAt(len)),
        Some(b'0') if b.get(start + 1).is_some_and(u8::is_ascii_digit) => return Err(Scan::FailsAt((start + 2).min(len))),
        Some(b'0') => start + 1,
        Some(b'1'..=b'9') => digits_from(start + 1),
        Some(_) => return Err(Scan::FailsAt(start + 1)),
    };
    if i - start > 18 {
        return Err(Scan::Unsure); // read as a float by serde, which may overflow
    }
    if b.get(i) == Some(&b'.') {
        let fraction = i + 1;
        i = digits_from(fraction);
        if i == fraction {
            return Err(Scan::FailsAt((i + 1).min(len)));
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        return Err(Scan::Unsure);
    }
    Ok(i)
}

/// The 1-based line and the column `serde_json` reports for its error index
/// `index` (what [`strict_ruled_out`] returns): its column counts the bytes
/// of the line before `index`, so 0 just past a newline.
pub fn serde_position(text: &str, index: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..index.min(text.len())];
    // Most arguments are one line: one search instead of two, and a
    // short one byte by byte (`contains`), without `memchr`'s set-up.
    if !before.contains(&b'\n') {
        return (1, before.len());
    }
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |n| n + 1);
    (memchr::memchr_iter(b'\n', &before[..line_start]).count() + 1, before.len() - line_start)
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
            prop_assert_eq!(strict_fails_at(&text), None, "{:?}", text);
        }

        /// Where the syntax scan says strict parsing fails, it fails, and
        /// serde's message names the same line and column.
        #[test]
        fn the_scan_fails_where_serde_fails(text in prop_oneof![jsonish_text(), json_text()], cut in 0usize..64, insert in "[ -~\n]{0,2}") {
            scan_agrees_with_serde(&text)?;
            // The JSON texts cut off and with a byte or two put in.
            let at = (0..=cut.min(text.len())).rev().find(|&n| text.is_char_boundary(n)).unwrap_or(0);
            scan_agrees_with_serde(&text[..at])?;
            scan_agrees_with_serde(&format!("{}{insert}{}", &text[..at], &text[at..]))?;
        }
    }

    /// serde's own error for `text` is where the scan says it fails.
    fn scan_agrees_with_serde(text: &str) -> Result<(), TestCaseError> {
        if let Some(index) = strict_fails_at(text) {
            let err = parse_strict(text).expect_err(text);
            prop_assert_eq!(serde_position(text, index), (err.line(), err.column()), "{:?}: {}", text, err);
        }
        Ok(())
    }

    #[test]
    fn the_scan_stops_where_serde_stops() {
        for (text, line, column) in [
            ("{\"a\": True}", 1, 7),
            ("{\"a\": 1,}", 1, 9),
            ("[1, 2,]", 1, 7),
            ("{\"a\" 1}", 1, 6),
            ("{\"a\": [1 2]}", 1, 10),
            ("{\"a\": nul", 1, 9),
            ("{\"a\": nulx}", 1, 10),
            ("{\"a\": \"b\nc\"}", 2, 0),
            ("{\"a\": \"\\q\"}", 1, 9),
            ("{\"a\": 01}", 1, 8),
            ("{\"a\": 1.}", 1, 9),
            ("{\"a\": -x}", 1, 8),
            ("{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3),
            ("[1] [2]", 1, 5),
            ("{\"a\": 1, b: 2}", 1, 10),
        ] {
            let index = strict_fails_at(text).unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!(serde_position(text, index), (line, column), "{text:?}");
            scan_agrees_with_serde(text).unwrap();
        }
        // JSON, blank text, and what the scan leaves to serde.
        for text in ["{\"a\": [1, -2.5, \"x\\n\", null, {}]}", " \u{a0} ", "", "\"\\u0041\"", "[1e999]", "12345678901234567890"] {
            assert_eq!(strict_fails_at(text), None, "{text:?}");
        }
    }

    #[test]
    fn line_and_column_count_as_serde_does() {
        for text in ["{\"a\":1,}", "{\n  \"a\": 1,\n}", "[1,\n\n 2,]"] {
            let err = parse_strict(text).unwrap_err();
            // serde points at the closing bracket after the trailing comma.
            let at = text.rfind([']', '}']).unwrap();
            assert_eq!(serde_position(text, at + 1), (err.line(), err.column()), "{text:?}");
        }
    }
}
