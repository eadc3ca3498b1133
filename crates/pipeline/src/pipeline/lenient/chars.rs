//! Character classes and small context types of the lenient parser.

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    /// Top level, array element or function-call argument: jsonrepair rules.
    Plain,
    /// Value of an object member: unquoted values may run on through spaces,
    /// slashes and commas not followed by a key.
    Member,
}

/// What ends a run of items.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Close {
    /// This bracket: `]` (an array that is no member's value), `)` (a
    /// tuple) or `}` (a Python set).
    Bracket(u8),
    /// `]`, of an array that is an object member's value.
    MemberArray,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum QuoteKind {
    Double,
    Single,
    SingleLike,
    DoubleLike,
}

impl QuoteKind {
    pub(super) fn of(c: char) -> QuoteKind {
        match c {
            '"' => QuoteKind::Double,
            '\'' => QuoteKind::Single,
            '\u{2018}' | '\u{2019}' | '`' | '\u{b4}' => QuoteKind::SingleLike,
            _ => QuoteKind::DoubleLike,
        }
    }
    pub(super) fn ends_with(self, c: char) -> bool {
        match self {
            QuoteKind::Double => c == '"',
            QuoteKind::Single => c == '\'',
            QuoteKind::SingleLike => is_single_quote_like(c),
            QuoteKind::DoubleLike => is_double_quote_like(c),
        }
    }
}

pub(super) fn is_double_quote_like(c: char) -> bool {
    matches!(c, '"' | '\u{201c}' | '\u{201d}')
}
pub(super) fn is_single_quote_like(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '`' | '\u{b4}')
}
pub(super) fn is_special_ws(c: char) -> bool {
    matches!(c, '\u{a0}' | '\u{180e}' | '\u{2000}'..='\u{200b}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}')
}
pub(super) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\t' | b'\r')
}
pub(super) fn is_delim(b: u8) -> bool {
    matches!(b, b',' | b':' | b'[' | b']' | b'/' | b'{' | b'}' | b'(' | b')' | b'\n' | b'+')
}
pub(super) fn is_unquoted_delim(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'/' | b'{' | b'}' | b'\n' | b'+')
}
pub(super) fn is_fn_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b == b'$'
}
/// A word that reads as a value: JSON's keywords and Python's.
pub(super) fn is_keyword(word: &[u8]) -> bool {
    // Byte patterns: compared inline (byte-string patterns called `memcmp`).
    matches!(
        word,
        [b't', b'r', b'u', b'e']
            | [b'f', b'a', b'l', b's', b'e']
            | [b'n', b'u', b'l', b'l']
            | [b'T', b'r', b'u', b'e']
            | [b'F', b'a', b'l', b's', b'e']
            | [b'N', b'o', b'n', b'e']
    )
}
pub(super) fn is_fn_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}
pub(super) fn is_url_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~:/?#@!$&'()*+;=".contains(&b)
}
pub(super) fn is_url_start(s: &[u8]) -> bool {
    const SCHEMES: [&[u8]; 7] = [b"http", b"https", b"ftp", b"mailto", b"file", b"data", b"irc"];
    s.strip_suffix(b"://").is_some_and(|scheme| SCHEMES.contains(&scheme))
}
pub(super) fn hex_val(b: u8) -> u32 {
    (b as char).to_digit(16).unwrap_or(0)
}

/// ASCII that plays no part in string repairs: no quote, backslash,
/// bracket, delimiter or control character.
pub(super) fn is_plain(b: u8) -> bool {
    PLAIN[b as usize]
}

/// [`is_plain`] as a table: strings are read a run of plain bytes at a time.
static PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric();
        b += 1;
    }
    let others = b" -_.:;!?@#$%^&*=<>|~";
    let mut k = 0;
    while k < others.len() {
        table[others[k] as usize] = true;
        k += 1;
    }
    table
};

/// Bytes of a `"`- or `'`-quoted string that need no decision while it is
/// read (not where a delimiter may end it): all but control characters,
/// quotes, the backslash and brackets (counted for the quotes' sake).
/// Non-ASCII bytes are copied as they are: a run ends at an ASCII byte, a
/// char boundary. Long strings (a file's contents) are read in long runs.
pub(super) fn is_string_run(b: u8, quote: u8) -> bool {
    STRING_RUN[b as usize] || (b == b'\'' && quote == b'"') || (b == b'"' && quote == b'\'')
}

static STRING_RUN: [bool; 256] = {
    let mut table = [true; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = false;
        b += 1;
    }
    let stops = b"\"'\\()[]{}";
    let mut k = 0;
    while k < stops.len() {
        table[stops[k] as usize] = false;
        k += 1;
    }
    table
};

pub(super) fn count_bracket(counts: &mut [usize; 6], b: u8) {
    if let Some(k) = b"()[]{}".iter().position(|&x| x == b) {
        counts[k] += 1;
    }
}

/// Whether `close` is a closing bracket whose opening kind is still open in
/// the string read so far (the quote in `"a (b") c"` is not the end).
pub(super) fn inside_unclosed(counts: &[usize; 6], close: u8) -> bool {
    match close {
        b')' => counts[0] > counts[1],
        b']' => counts[2] > counts[3],
        b'}' => counts[4] > counts[5],
        _ => false,
    }
}
