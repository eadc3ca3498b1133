//! The lenient parser's state and cursor: reading bytes and characters,
//! skipping whitespace, comments and fences, and looking ahead.

use super::chars::*;
use super::{LenientError, LenientFix, LenientFixes, WORK_PER_BYTE};

#[cfg(test)]
thread_local! {
    /// Tests turn the fast paths off to check that they read exactly what
    /// the general path reads.
    pub(super) static FAST_PATHS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether the fast paths for the usual pieces (plain strings, plain
/// member starts, keywords before function calls, the quick prose check)
/// are taken: always, but in tests that compare them with the general path.
pub(super) fn fast_paths() -> bool {
    #[cfg(test)]
    return FAST_PATHS.with(|on| on.get());
    #[cfg(not(test))]
    true
}

pub(super) struct Parser<'a> {
    pub(super) s: &'a str,
    pub(super) b: &'a [u8],
    pub(super) i: usize,
    pub(super) fixes: LenientFixes,
    pub(super) depth: usize,
    pub(super) work: usize,
    pub(super) budget: usize,
    /// Byte offset just past the last value token (closing quote, bracket…).
    pub(super) last_end: usize,
    /// The value just parsed was an unquoted string.
    pub(super) last_unquoted: bool,
    /// The container just parsed had its closing bracket.
    pub(super) last_closed: bool,
    /// A key is being read (its string ends at the first delimiter when
    /// its end quote is missing).
    pub(super) in_key: bool,
    /// The depth at which an array's items are read (0: in no array); a
    /// string read at this depth is an array item.
    pub(super) item_depth: usize,
    /// Results about the root value, for the caller.
    pub(super) root_unquoted: bool,
    pub(super) root_closed: bool,
}

/// A parse step's result. The error is boxed (it is rare): a value's
/// result is then no larger than the value (32 bytes), where the error
/// inline made it 40, and moving a freshly returned value up the parser
/// stalled on every level (its bytes read back before the writes that made
/// them had settled): 10% of a corpus call.
pub(super) type R<T> = Result<T, Box<LenientError>>;

/// Where `*/` starts in `b`: a plain scan, as comments are short (a
/// substring searcher cost more to set up than the search).
fn comment_end(b: &[u8]) -> Option<usize> {
    b.windows(2).position(|w| w == b"*/")
}

/// Fences a document may open with (a bracket may come before one).
pub(super) const OPENING_FENCES: &[&[u8]] = &[b"```", b"[```", b"{```"];

impl<'a> Parser<'a> {
    pub(super) fn new(s: &'a str, start: usize) -> Self {
        Parser {
            s,
            b: s.as_bytes(),
            i: start,
            fixes: LenientFixes::new(),
            depth: 0,
            work: 0,
            budget: s.len().saturating_mul(WORK_PER_BYTE).saturating_add(4096),
            last_end: start,
            last_unquoted: false,
            last_closed: false,
            in_key: false,
            item_depth: 0,
            root_unquoted: false,
            root_closed: false,
        }
    }

    pub(super) fn len(&self) -> usize {
        self.b.len()
    }

    pub(super) fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    pub(super) fn char_at(&self, i: usize) -> Option<char> {
        self.s.get(i..).and_then(|t| t.chars().next())
    }

    pub(super) fn char_len_at(&self, i: usize) -> usize {
        self.char_at(i).map_or(1, char::len_utf8)
    }

    /// The quote char at `i`, if any. Inline for the ASCII quotes and the
    /// usual answer, no quote; the typographic ones are looked up out of line.
    #[inline]
    pub(super) fn quote_at(&self, i: usize) -> Option<char> {
        match self.at(i) {
            b'"' | b'\'' | b'`' => Some(self.at(i) as char),
            0xC2 | 0xE2 => self.typographic_quote_at(i),
            _ => None,
        }
    }

    #[inline(never)]
    fn typographic_quote_at(&self, i: usize) -> Option<char> {
        self.char_at(i).filter(|&c| is_double_quote_like(c) || is_single_quote_like(c))
    }

    /// The length of the non-ASCII whitespace char at `i`, if there is one.
    /// Inline for the usual answer, an ASCII byte: it is asked at every stop
    /// of a whitespace skip.
    #[inline]
    pub(super) fn special_ws_len(&self, i: usize) -> Option<usize> {
        if self.at(i) < 0x80 {
            return None;
        }
        self.special_ws_len_at_non_ascii(i)
    }

    #[inline(never)]
    fn special_ws_len_at_non_ascii(&self, i: usize) -> Option<usize> {
        self.char_at(i).filter(|&c| is_special_ws(c)).map(char::len_utf8)
    }

    pub(super) fn note(&mut self, f: LenientFix) {
        if !self.fixes.contains(&f) {
            self.fixes.push(f);
        }
    }

    pub(super) fn err(&self, message: impl Into<String>, offset: usize) -> Box<LenientError> {
        Box::new(LenientError { message: message.into(), offset })
    }

    pub(super) fn err_unexpected(&self) -> Box<LenientError> {
        match self.char_at(self.i) {
            Some(c) => self.err(format!("Unexpected character {c:?}"), self.i),
            None => self.err("Unexpected end of input", self.len()),
        }
    }

    pub(super) fn tick(&mut self) -> R<()> {
        self.work += 1;
        if self.work > self.budget {
            return Err(self.err("Input too complex to repair", self.i));
        }
        Ok(())
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        if self.at(self.i) == c {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// Byte by byte: patterns are a few bytes, and a `memcmp` call for each
    /// was a visible share of parsing.
    #[inline]
    pub(super) fn starts_with(&self, i: usize, pat: &[u8]) -> bool {
        i + pat.len() <= self.b.len() && pat.iter().enumerate().all(|(k, &c)| self.b[i + k] == c)
    }

    pub(super) fn skip_ws(&mut self, newline: bool) {
        loop {
            let c = self.at(self.i);
            if is_ws(c) && (newline || c != b'\n') {
                self.i += 1;
            } else if let Some(n) = self.special_ws_len(self.i) {
                self.i += n;
                self.note(LenientFix::SpecialWhitespace);
            } else {
                break;
            }
        }
    }

    pub(super) fn skip_comment(&mut self) -> bool {
        let i = self.i;
        let end = if self.starts_with(i, b"/*") {
            comment_end(&self.b[i + 2..]).map_or(self.len(), |p| i + 2 + p + 2)
        } else if self.starts_with(i, b"//") {
            self.s.get(i..).and_then(|t| t.find('\n')).map_or(self.len(), |p| i + p)
        } else if self.is_hash_comment(i) {
            self.hash_comment_end(i)
        } else {
            return false;
        };
        self.work += end - i;
        self.i = end;
        self.note(LenientFix::Comment);
        true
    }

    /// `# comment`: a hash followed by a space, at the start of a line or
    /// after whitespace (so `#fff` stays a value).
    pub(super) fn is_hash_comment(&self, i: usize) -> bool {
        self.at(i) == b'#' && self.at(i + 1) == b' ' && (i == 0 || is_ws(self.at(i - 1)))
    }

    /// Where the `#` comment at `i` ends: at its newline, or before a `}`
    /// or `]` on its line that closes a bracket opened before the comment
    /// (`{"a": 1 # one }`), as a one-line value is written.
    fn hash_comment_end(&self, i: usize) -> usize {
        let mut open = 0usize;
        let mut k = i;
        while k < self.len() {
            match self.at(k) {
                b'\n' => break,
                b'{' | b'[' => open += 1,
                b'}' | b']' if open == 0 => break,
                b'}' | b']' => open -= 1,
                _ => {}
            }
            k += 1;
        }
        k
    }

    /// Skips whitespace and comments; most calls stand at a plain byte and
    /// return at once, without a call.
    #[inline]
    pub(super) fn skip_ws_comments(&mut self, newline: bool) {
        // Spaces (after a colon or a comma, mostly) are skipped whatever
        // `newline` says, and need no call.
        while self.at(self.i) == b' ' {
            self.i += 1;
        }
        if matches!(self.at(self.i), b' ' | b'\n' | b'\t' | b'\r' | b'/' | b'#' | 0x80..) {
            self.skip_ws_comments_slow(newline);
        }
    }

    #[inline(never)]
    fn skip_ws_comments_slow(&mut self, newline: bool) {
        loop {
            self.skip_ws(newline);
            if !self.skip_comment() {
                break;
            }
        }
    }

    /// Whether the text between two values holds a comma or a newline outside
    /// comments (so the values are separate, newline-delimited items).
    pub(super) fn separated(&self, from: usize, to: usize) -> bool {
        let mut i = from;
        while i < to.min(self.len()) {
            if self.starts_with(i, b"/*") {
                i = comment_end(&self.b[i + 2..]).map_or(to, |p| i + 2 + p + 2);
            } else if self.starts_with(i, b"//") {
                i = self.s.get(i..).and_then(|t| t.find('\n')).map_or(to, |p| i + p);
            } else if matches!(self.at(i), b',' | b'\n') {
                return true;
            } else {
                i += 1;
            }
        }
        false
    }

    /// Skips whitespace, then one of the fences in `blocks` if there is one.
    /// Always inline: out of line, its frame cost more than its work.
    #[inline(always)]
    pub(super) fn skip_markdown_fence(&mut self, blocks: &[&[u8]]) -> bool {
        self.skip_ws(true);
        // Every fence has a backtick in its first two bytes: most texts
        // are decided here, without a call.
        if self.at(self.i) != b'`' && self.at(self.i + 1) != b'`' {
            return false;
        }
        self.skip_fence_block(blocks)
    }

    #[inline(never)]
    fn skip_fence_block(&mut self, blocks: &[&[u8]]) -> bool {
        for block in blocks {
            if self.starts_with(self.i, block) {
                self.i += block.len();
                while self.at(self.i) == b'`' {
                    self.i += 1; // a longer fence (````)
                }
                if is_fn_start(self.at(self.i)) {
                    while is_fn_char(self.at(self.i)) {
                        self.i += 1;
                    }
                }
                self.skip_ws_comments(true);
                self.note(LenientFix::CodeFence);
                return true;
            }
        }
        false
    }

    /// Skips whitespace and comments, then an ellipsis (`...`) standing
    /// for omitted items, with a comma after it; says whether there was one.
    /// The usual answer, no dot, is given inline.
    #[inline]
    pub(super) fn skip_ellipsis(&mut self) -> bool {
        self.skip_ws_comments(true);
        self.at(self.i) == b'.' && self.skip_ellipsis_at_dot()
    }

    #[inline(never)]
    fn skip_ellipsis_at_dot(&mut self) -> bool {
        if self.starts_with(self.i, b"...") {
            self.i += 3;
            self.skip_ws_comments(true);
            self.eat(b',');
            self.note(LenientFix::Ellipsis);
            return true;
        }
        false
    }

    #[inline(never)]
    pub(super) fn is_start_of_value(&self, i: usize) -> bool {
        let c = self.at(i);
        self.quote_at(i).is_some() || c == b'[' || c == b'{' || c == b'-' || c == b'_' || c.is_ascii_alphanumeric()
    }

    /// Whether the document's root value is an unquoted string for sure:
    /// past any fence, whitespace and comments, a word that is no keyword
    /// and no function call (`Sure, …`). Such a root makes the caller look
    /// for a value inside the text.
    pub(super) fn opens_with_word(mut self) -> bool {
        self.skip_markdown_fence(OPENING_FENCES);
        self.skip_ws_comments(true);
        let start = self.i;
        if !self.at(start).is_ascii_alphabetic() || self.function_call_at(start).is_some() {
            return false;
        }
        let mut end = start;
        while is_fn_char(self.at(end)) {
            end += 1;
        }
        !is_keyword(&self.b[start..end])
    }

    pub(super) fn prev_non_ws(&self, start: usize) -> usize {
        let mut p = start;
        while p > 0 && is_ws(self.at(p)) {
            p -= 1;
        }
        p
    }

    /// At a quote: is the text after it (past whitespace) the end or a delimiter?
    pub(super) fn next_quote_is_end_quote(&self, i: usize) -> bool {
        let mut n = i + self.char_len_at(i);
        while is_ws(self.at(n)) {
            n += 1;
        }
        n >= self.len() || is_delim(self.at(n))
    }

    pub(super) fn at_end_of_number(&self, i: usize) -> bool {
        i >= self.len() || is_delim(self.at(i)) || is_ws(self.at(i)) || self.statement_end_at(i) || self.stray_quote_at(i)
    }

    /// A `"` that closes no string: right after a value (`12345"`,
    /// `true"`) with the end of the item after it.
    #[cold]
    pub(super) fn stray_quote_at(&self, i: usize) -> bool {
        if self.at(i) != b'"' {
            return false;
        }
        let mut j = i + 1;
        while matches!(self.at(j), b' ' | b'\t' | b'\r') {
            j += 1;
        }
        j >= self.len() || matches!(self.at(j), b',' | b'}' | b']' | b'\n')
    }

    /// Steps over the stray quote at `self.i` after a number or keyword
    /// (the caller has checked [`Self::stray_quote_at`]).
    #[cold]
    pub(super) fn skip_stray_quote(&mut self) {
        self.i += 1;
        self.note(LenientFix::MissingQuote);
    }

    /// A `;` ending the text (whitespace aside), as a statement ends:
    /// `1;`, `callback({…});`, a value copied from JavaScript.
    pub(super) fn statement_end_at(&self, i: usize) -> bool {
        self.at(i) == b';' && self.b[i + 1..].iter().all(|&b| is_ws(b))
    }

    /// In an object member: does what follows a number or keyword at `i`
    /// look like the end of the value? (Else it is read as an unquoted
    /// string, like `5 apples` or `12:30`.)
    pub(super) fn member_value_ends(&self, i: usize) -> bool {
        let mut j = i;
        while matches!(self.at(j), b' ' | b'\t' | b'\r') {
            j += 1;
        }
        j >= self.len()
            || matches!(self.at(j), b',' | b'}' | b']' | b'\n' | b'/' | b'{' | b'[' | b'#')
            || self.quote_at(j).is_some()
            || self.special_ws_len(j).is_some()
            || self.key_follows(j)
    }

    /// Is there a key (`"name":`, `'name':` or `name:`) at `i`?
    pub(super) fn key_follows(&self, i: usize) -> bool {
        const LOOKAHEAD: usize = 256;
        let limit = (i + LOOKAHEAD).min(self.len());
        let mut k;
        if let Some(q) = self.quote_at(i) {
            k = i + q.len_utf8();
            while k < limit && self.quote_at(k).is_none() && self.at(k) != b'\n' {
                k += 1;
            }
            if self.quote_at(k).is_none() {
                return false;
            }
            k += self.char_len_at(k);
        } else if is_fn_char(self.at(i)) {
            k = i;
            while k < limit && (is_fn_char(self.at(k)) || matches!(self.at(k), b'-' | b'.')) {
                k += 1;
            }
        } else {
            return false;
        }
        while matches!(self.at(k), b' ' | b'\t') {
            k += 1;
        }
        self.at(k) == b':' && !self.starts_with(k + 1, b"//")
    }

    /// After a comma or newline inside an unquoted member value: does the
    /// value end here (a key, a closing bracket or the end follows)?
    pub(super) fn member_break_after(&self, i: usize, allow_comma: bool) -> bool {
        let mut j = i;
        while is_ws(self.at(j)) {
            j += 1;
        }
        j >= self.len() || matches!(self.at(j), b'}' | b']') || (allow_comma && self.at(j) == b',') || self.key_follows(j)
    }
}
