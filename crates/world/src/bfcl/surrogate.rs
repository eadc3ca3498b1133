//! Lone surrogates (U+D800–U+DFFF) in BFCL strings. JSON allows `"\ud800"`
//! and Python keeps it in a `str` (so does a Python escape, `'\ud800'`, and
//! two escapes of a pair stay two surrogates: `len('\ud83d\ude00') == 2`),
//! but a Rust `String` cannot hold one. calltape carries each lone surrogate
//! as a stand-in character from the last private-use plane, one a surrogate,
//! from the call text to the state and back out as `\udXXX` where Python
//! writes one. (A real U+10F800–U+10FFFF in a BFCL string would be read as a
//! surrogate: those code points are private use, unassigned by Unicode.)

use std::borrow::Cow;

const SURROGATES: std::ops::RangeInclusive<u32> = 0xD800..=0xDFFF;
/// Where the stand-ins start: U+D800 is carried as U+10F800.
const STAND_IN: u32 = 0x10F800;

/// The character a code point is carried as (a surrogate as its stand-in), if any.
pub fn char_for(code: u32) -> Option<char> {
    if SURROGATES.contains(&code) {
        char::from_u32(code - 0xD800 + STAND_IN)
    } else {
        char::from_u32(code)
    }
}

/// The surrogate a stand-in character carries.
pub fn surrogate_of(c: char) -> Option<u32> {
    let code = c as u32;
    (STAND_IN..STAND_IN + 0x800).contains(&code).then(|| code - STAND_IN + 0xD800)
}

/// JSON text with each lone `\udXXX` escape replaced by its stand-in, so
/// that `serde_json` reads it (a pair written as two escapes stays one
/// character, as JSON and Python's `json` read it).
pub fn json_with_stand_ins(text: &str) -> Cow<'_, str> {
    if !text.contains("\\u") && !text.contains("\\U") {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let hex_at = |i: usize| -> Option<u32> {
        let digits = text.get(i + 2..i + 6)?;
        (b[i] == b'\\' && matches!(b[i + 1], b'u' | b'U')).then_some(())?;
        u32::from_str_radix(digits, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(code) = hex_at(i) else {
            // `\\`, `\"` and the rest: skip the escaped character.
            i += 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&code);
        let paired = high && hex_at(i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if SURROGATES.contains(&code) {
            out.push_str(&text[last..i]);
            out.extend(char_for(code));
            i += 6;
            last = i;
        } else {
            i += 6;
        }
    }
    if last == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[last..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_read_as_stand_ins_and_pairs_as_one_character() {
        // Python: json.loads('"a\\ud800"') == 'a\ud800'; json.loads('"\\ud83d\\ude00"') == '😀'.
        let read = |t: &str| serde_json::from_str::<String>(&json_with_stand_ins(t)).unwrap();
        let lone = read(r#""a\ud800""#);
        assert_eq!(lone.chars().count(), 2);
        assert_eq!(surrogate_of(lone.chars().nth(1).unwrap()), Some(0xD800));
        assert_eq!(read(r#""\ud83d\ude00""#), "😀");
        assert_eq!(surrogate_of(read(r#""\udfff\ud83d""#).chars().next().unwrap()), Some(0xDFFF));
        // An escaped backslash before `u` is not an escape.
        assert_eq!(read(r#""\\ud800""#), "\\ud800");
    }
}
