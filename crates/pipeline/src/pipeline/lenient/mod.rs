//! Lenient JSON parsing for tool-call arguments that models write malformed.
//!
//! [`parse_lenient`] is the fallback after a strict `serde_json` parse has
//! failed. It reads the text with a hand-written recursive-descent repairer
//! that builds a [`Value`] directly and records every kind of repair it made
//! ([`LenientFix`]), so the caller can score how far from JSON the model was.
//! The repair rules follow the behaviour of the `jsonrepair` library (ISC
//! licence, Jos de Jong), whose test suite is our corpus, extended for tool
//! calls: prose around the arguments, unquoted values containing spaces,
//! slashes or commas (`{"command": ls -la /tmp}`), `{..}{..}` concatenation,
//! empty arguments as `{}`, and dropping a key whose value was cut off;
//! and for what models write in Python `json_repair`'s conventions: tuples
//! and sets, `TRUE`/`Null`, `1/3`, a pair inside an array, doubled quotes,
//! stray closing brackets (`docs/lenient-parser-comparison.md` lists each
//! choice).
//!
//! Boundaries: strict JSON is not tried here; JSON escaped inside a string
//! value is left as a string (the caller decodes it with the schema in hand);
//! nothing here knows about schemas. The parser never panics, caps nesting at
//! [`MAX_DEPTH`] and bounds its work to a constant times the input length.

mod chars;
mod containers;
mod misplaced;
mod parser;
mod scalars;
mod strings;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

use chars::is_special_ws;
use parser::Parser;

/// Deepest nesting of values (objects, arrays, function-call wrappers) read
/// before giving up with an error instead of risking the stack. No deeper
/// than `serde_json` reads back (its limit is 128 levels): a repaired value
/// is written to events and cassettes and must read back as itself (found by
/// fuzzing: `fuzz/regressions/lenient_parser/`).
pub const MAX_DEPTH: usize = 127;

/// Work units allowed per input byte (plus a constant) before giving up;
/// keeps pathological inputs linear in time.
const WORK_PER_BYTE: usize = 32;

/// One kind of fix the lenient parser applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, strum::IntoStaticStr, strum::EnumCount)]
#[cfg_attr(test, derive(strum::EnumIter))]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum LenientFix {
    /// A Markdown code fence (```` ```json … ``` ````) around the value.
    CodeFence,
    /// Prose or other text before or after the value was dropped.
    SurroundingText,
    /// A comma before a closing bracket or at the end was dropped.
    TrailingComma,
    /// A comma right after an opening bracket was dropped.
    LeadingComma,
    /// A string in single quotes `'…'`.
    SingleQuotes,
    /// A string in typographic or backtick quotes (“…”, ‘…’, `` `…´ ``).
    CurlyQuotes,
    /// An object key without quotes.
    UnquotedKey,
    /// A string value without quotes (also a `/regex/` literal).
    UnquotedValue,
    /// Python `True`, `False` or `None`.
    PythonLiteral,
    /// A literal in a case JSON does not use (`TRUE`, `Null`, `NONE`).
    LiteralCase,
    /// A Python tuple `(1, 2)` or set `{'a', 'b'}` read as an array (a
    /// one-item group `(1)` as its item).
    PythonTuple,
    /// A bare expression as a value (`1/3`) kept as its text.
    BareExpression,
    /// A `"key": value` pair written inside an array read as an object there.
    PairInArray,
    /// A doubled quote opening a string (`""value"`).
    DoubledQuote,
    /// JavaScript `undefined`, `NaN` or `Infinity`, read as `null`.
    JsLiteral,
    /// A `//`, `/* */` or `# ` comment was dropped.
    Comment,
    /// A comma between two members or elements was missing.
    MissingComma,
    /// The colon between a key and its value was missing.
    MissingColon,
    /// A key with a colon but no value (`{"a":}`) got `null`.
    MissingValue,
    /// A string's closing quote was missing before more text.
    MissingQuote,
    /// A double quote inside a string was not escaped.
    UnescapedQuote,
    /// A raw newline, tab or other control character inside a string.
    RawNewline,
    /// An invalid escape (`\a`, `\'`, backslash-newline, lone surrogate).
    InvalidEscape,
    /// The whole text was escaped (`{\"a\": \"b\"}`).
    EscapedQuotes,
    /// Strings joined with `+` (`"a" + "b"`).
    StringConcatenation,
    /// A number written invalidly (`2.`, `.5`, `-`, leading zeros as a string).
    InvalidNumber,
    /// An ellipsis `...` standing for omitted items was dropped.
    Ellipsis,
    /// A function-call wrapper (JSONP `callback(…)`, MongoDB `NumberLong(…)`).
    FunctionCall,
    /// A closing bracket of the wrong kind or a redundant closing bracket.
    UnbalancedBracket,
    /// Non-ASCII whitespace (no-break space, zero-width space, BOM, …).
    SpecialWhitespace,
    /// The text ended early: open strings, arrays and objects were closed and
    /// a key left without a value was dropped.
    Truncated,
    /// Several values one after another (`{..}{..}`, newline- or
    /// comma-separated) were collected into an array.
    Concatenated,
    /// Empty or whitespace-only text read as `{}`.
    EmptyAsObject,
}

/// The fixes made, in the order first made, each kind once: room for every
/// kind, kept inline (a list on the heap cost an allocation per parse).
pub type LenientFixes = arrayvec::ArrayVec<LenientFix, { <LenientFix as strum::EnumCount>::COUNT }>;

/// Why text could not be read as JSON even leniently.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} at byte {offset}")]
pub struct LenientError {
    pub message: String,
    pub offset: usize,
}

/// Parses `text` as JSON, repairing what models commonly get wrong. Strict JSON
/// is NOT tried here (the caller tries serde_json first); an input that is
/// already valid JSON must still come back as the same value with no fixes.
pub fn parse_lenient(text: &str) -> Result<(Value, LenientFixes), LenientError> {
    // A visible ASCII first byte (a bracket, as a rule) decides it at once.
    let visible_first = text.as_bytes().first().is_some_and(|&b| b.is_ascii() && !(b as char).is_whitespace());
    if !visible_first && text.chars().all(|c| c.is_whitespace() || is_special_ws(c)) {
        return Ok((Value::Object(Map::new()), LenientFixes::from_iter([LenientFix::EmptyAsObject])));
    }
    // Text that opens with a plain word (`Sure, here it is: {…}`) reads as
    // an unquoted string, which only counts when no value is found inside:
    // look inside first rather than read all the prose as values.
    if (!parser::fast_paths() || may_open_with_word(text)) && Parser::new(text, 0).opens_with_word() {
        if let Some(found) = parse_inside(text) {
            return Ok(found);
        }
        let mut p = Parser::new(text, 0);
        return p.parse_document(false).map(|v| (v, p.fixes)).map_err(|e| *e);
    }
    let mut p = Parser::new(text, 0);
    let main = p.parse_document(false);
    let want_other = match &main {
        Err(_) => true,
        Ok(_) => p.root_unquoted,
    };
    if want_other {
        if let Some(found) = parse_inside(text) {
            return Ok(found);
        }
    }
    main.map(|v| (v, p.fixes)).map_err(|e| *e)
}

/// Whether the text may open with a plain word: not when it opens with a
/// bracket or a quote, the usual case, decided before the full look.
fn may_open_with_word(text: &str) -> bool {
    match text.trim_start_matches([' ', '\n', '\t', '\r']).as_bytes() {
        [b'{' | b'[', rest @ ..] => rest.starts_with(b"```"),
        [b'"' | b'\'', ..] => false,
        _ => true,
    }
}

/// The first code fence (three backticks) in `text`.
fn find_fence(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(p) = memchr::memchr(b'`', &b[from..]) {
        if b[from + p..].starts_with(b"```") {
            return Some(from + p);
        }
        from += p + 1;
    }
    None
}

/// Prose around the value: reads from a code fence, else the first `{`,
/// else the first `[`, ignoring what follows the value.
fn parse_inside(text: &str) -> Option<(Value, LenientFixes)> {
    let mut tried: [Option<usize>; 3] = [None; 3];
    let fence = find_fence(text);
    let brace = text.find('{');
    let bracket = text.find('[');
    for (n, cand) in [fence, brace, bracket].into_iter().enumerate() {
        let Some(at) = cand else { continue };
        if tried.contains(&Some(at)) {
            continue;
        }
        tried[n] = Some(at);
        let mut q = Parser::new(text, at);
        let Ok(value) = q.parse_document(true) else {
            continue;
        };
        let container_ok = match &value {
            Value::Object(m) => q.root_closed || !m.is_empty(),
            Value::Array(a) => q.root_closed || !a.is_empty(),
            _ => n == 0,
        };
        if !container_ok {
            continue;
        }
        let value = if n == 0 { misplaced::more_fenced_blocks(text, &q, value) } else { value };
        let mut fixes = LenientFixes::from_iter([LenientFix::SurroundingText]);
        for f in q.fixes {
            if !fixes.contains(&f) {
                fixes.push(f);
            }
        }
        return Some((value, fixes));
    }
    None
}
