//! Strings in any quotes, with the repairs models need: missing or
//! mismatched quotes, unescaped inner quotes, raw newlines, bad escapes.

use super::chars::*;
use super::parser::{fast_paths, Parser, R};
use super::LenientFix;

/// Text left after a quote up to which a string's room is the whole rest:
/// a `memchr` search costs more than the few bytes it would save.
const SHORT_REST: usize = 64;

impl Parser<'_> {
    /// A string, possibly joined with more strings by `+`.
    #[inline]
    pub(super) fn parse_string_concat(&mut self) -> R<Option<String>> {
        // The bytes a string can start at (a quote, the lead byte of a
        // typographic one, or a backslash before a quote): anywhere else
        // `parse_string` reads nothing, and numbers, keywords and unquoted
        // text, the usual callers here, skip its call and frame.
        if !matches!(self.at(self.i), b'"' | b'\'' | b'`' | b'\\' | 0xC2 | 0xE2) {
            return Ok(None);
        }
        self.parse_string_concat_at_quote()
    }

    #[inline(never)]
    fn parse_string_concat_at_quote(&mut self) -> R<Option<String>> {
        let Some(mut s) = self.parse_string(false, None)? else {
            return Ok(None);
        };
        loop {
            self.skip_ws_comments(true);
            if self.at(self.i) != b'+' {
                break;
            }
            self.i += 1;
            self.note(LenientFix::StringConcatenation);
            self.skip_ws_comments(true);
            if let Some(t) = self.parse_string(false, None)? {
                s.push_str(&t);
            }
        }
        Ok(Some(s))
    }

    /// A quoted string. First pass assumes a real end quote; if the quote it
    /// finds is not followed by a delimiter, a second pass stops at the first
    /// delimiter (`stop_at_delim`) or at a comma found by the first pass.
    pub(super) fn parse_string(&mut self, stop_at_delim: bool, stop_at: Option<usize>) -> R<Option<String>> {
        let len = self.len();
        let mut i = self.i;
        let skip_escapes = self.at(i) == b'\\';
        if skip_escapes {
            i += 1;
        }
        let Some(q) = self.quote_at(i) else {
            if skip_escapes {
                // jsonrepair drops a stray backslash here and reads on
                self.i = i;
                self.note(LenientFix::InvalidEscape);
            }
            return Ok(None);
        };
        let kind = QuoteKind::of(q);
        if fast_paths() && matches!(kind, QuoteKind::Double | QuoteKind::Single) && !skip_escapes && !stop_at_delim && stop_at.is_none() {
            if let Some(s) = self.plain_string(i + 1, q as u8) {
                return Ok(Some(s));
            }
        }
        let mark = self.fixes.len();
        // `""value"`: the first quote is one too many
        let doubled = matches!(q, '"' | '\'') && !skip_escapes && self.doubled_quote_at(i);
        if doubled {
            i += 1;
            self.note(LenientFix::DoubledQuote);
        }
        if skip_escapes {
            self.note(LenientFix::EscapedQuotes);
        }
        match kind {
            QuoteKind::Double => {}
            QuoteKind::Single => self.note(LenientFix::SingleQuotes),
            _ => self.note(LenientFix::CurlyQuotes),
        }
        let i_before = i;
        i += q.len_utf8();
        let content_start = i;
        // Room for the usual string, all of it up to the next such quote
        // that no backslash escapes (escapes only shrink the text).
        let guess = match q {
            // A short rest is room enough, without a search.
            '"' | '\'' if len - i <= SHORT_REST => len - i,
            '"' | '\'' => {
                let mut end = i;
                loop {
                    match memchr::memchr(q as u8, &self.b[end..]) {
                        Some(n) if end + n > i && self.b[end + n - 1] == b'\\' => end += n + 1,
                        Some(n) => break end + n - i,
                        None => break len - i,
                    }
                }
            }
            _ => 0,
        };
        // Where no delimiter may end the string, a `"` or `'` string is
        // read in runs of everything but quotes, backslashes, brackets and
        // control characters (commas, slashes, non-ASCII text included).
        let run_quote = match kind {
            QuoteKind::Double | QuoteKind::Single if !stop_at_delim => q as u8,
            _ => 0,
        };
        let mut out = String::with_capacity(guess);
        let mut spaces = 0usize; // trailing literal spaces in `out`
        let mut brackets = [0usize; 6]; // ( ) [ ] { } seen raw in the string
                                        // only raw whitespace, with a raw newline, since the last other char
        let mut raw_tail_newline = false;
        let mut inner_quotes = false; // a quote kept inside the string
        loop {
            self.tick()?;
            if i >= len {
                if !stop_at_delim && stop_at.is_none() {
                    if let Some(again) = self.end_quote_missing_before(content_start, len, q as u8) {
                        // like ["hello]: the end quote belongs before a delimiter
                        self.fixes.truncate(mark);
                        self.i = i_before;
                        return match again {
                            MissingEnd::BeforeClosers(at) => self.parse_string(false, Some(at)),
                            MissingEnd::AtDelimiter => self.parse_string(true, None),
                        };
                    }
                }
                return Ok(Some(self.string_cut(out, spaces, len, LenientFix::Truncated)));
            }
            // `>=`: an escape may step over the stop (`\,`); stopping only
            // on equality re-read the same quote and recursed without end.
            if stop_at.is_some_and(|stop| i >= stop) {
                return Ok(Some(self.string_cut(out, spaces, i, LenientFix::MissingQuote)));
            }
            let b = self.at(i);
            let ch = if b < 0x80 { b as char } else { self.char_at(i).unwrap_or('\u{fffd}') };
            let clen = if b < 0x80 { 1 } else { self.char_len_at(i) };
            if kind.ends_with(ch) {
                if doubled && self.at(i + 1) == b {
                    // `""value""`, quotes doubled as in CSV: the pair ends it
                    self.i = i + 2;
                    self.skip_ws_comments(false);
                    self.last_end = i + 2;
                    return Ok(Some(out));
                }
                match self.quote_in_string(i, clen, stop_at_delim, &brackets, b, !inner_quotes) {
                    QuoteEnd::End => {
                        if raw_tail_newline {
                            // the end quote on a line of its own: layout, not content
                            out.truncate(out.trim_end_matches([' ', '\t', '\r', '\n']).len());
                        }
                        return Ok(Some(out));
                    }
                    QuoteEnd::ReadAgain { stop_at_delim, stop_at } => {
                        self.fixes.truncate(mark);
                        self.i = i_before;
                        return self.parse_string(stop_at_delim, stop_at);
                    }
                    QuoteEnd::Inner => {
                        inner_quotes = true;
                        out.push(ch);
                        spaces = 0;
                        raw_tail_newline = false;
                        i += clen;
                    }
                }
            } else if stop_at_delim && (is_unquoted_delim(b) || (b == b':' && self.in_key)) {
                // (a key's colon ends it too: `{"key:"value"}`, `{"key:value}`)
                return Ok(Some(self.string_at_delim(out, spaces, i, content_start)));
            } else if b == b'\\' {
                if i + 1 >= len {
                    i = len; // a lone backslash at the very end
                    continue;
                }
                i = self.string_escape(i, &mut out, &mut spaces)?;
                raw_tail_newline = false;
            } else if is_plain(b) || (run_quote != 0 && is_string_run(b, run_quote)) {
                // fast path: a run of bytes that needs no decision
                let end = stop_at.map_or(len, |s| s.max(i + 1).min(len));
                let run_start = i;
                i += if run_quote != 0 {
                    self.b[i..end].iter().position(|&b| !is_string_run(b, run_quote)).unwrap_or(end - i)
                } else {
                    self.b[i..end].iter().position(|&b| !is_plain(b)).unwrap_or(end - i)
                };
                if stop_at_delim && self.in_key {
                    // a key's colon is plain, but ends it here
                    i = run_start + memchr::memchr(b':', &self.b[run_start..i]).unwrap_or(i - run_start);
                }
                let run = &self.s[run_start..i];
                out.push_str(run);
                let trailing = run.bytes().rev().take_while(|&b| b == b' ').count();
                spaces = if trailing == run.len() { spaces + trailing } else { trailing };
                raw_tail_newline &= trailing == run.len();
            } else {
                if (ch as u32) < 0x20 {
                    self.note(LenientFix::RawNewline);
                }
                raw_tail_newline = ch == '\n' || (raw_tail_newline && matches!(ch, ' ' | '\t' | '\r'));
                out.push(ch);
                if ch == ' ' {
                    spaces += 1;
                } else {
                    spaces = 0;
                }
                count_bracket(&mut brackets, b);
                i += clen;
            }
            if skip_escapes && self.at(i) == b'\\' {
                i += 1;
            }
        }
    }

    /// At `""` followed (past spaces) by text that cannot follow an empty
    /// string: a doubled opening quote, as in `{"key": ""value"}`.
    fn doubled_quote_at(&self, i: usize) -> bool {
        if self.at(i + 1) != self.at(i) {
            return false;
        }
        let mut j = i + 2;
        while matches!(self.at(j), b' ' | b'\t') {
            j += 1;
        }
        j < self.len() && !is_delim(self.at(j)) && !is_ws(self.at(j)) && self.quote_at(j).is_none() && self.at(j) != b'#'
    }

    /// The string read so far, ended at `i` without its end quote (trailing
    /// spaces dropped), noting `fix`.
    #[cold]
    fn string_cut(&mut self, mut out: String, spaces: usize, i: usize, fix: LenientFix) -> String {
        out.truncate(out.len() - spaces);
        self.note(fix);
        self.i = i;
        self.last_end = i;
        out
    }

    /// The text ended inside a string whose end quote was not found: where
    /// it belongs, if not at the end. Before a run of closing brackets
    /// ending the text, the first a `}` (a member's value: `{"key":
    /// "value}```"`), the string runs up to them, commas inside included;
    /// else (an array's item, `["a, b]`, a key, a string with a quote of
    /// its kind or a `, key:` inside), at the first delimiter. A string cut
    /// off at a `/` (a path, a URL being written) keeps it.
    #[cold]
    fn end_quote_missing_before(&self, content_start: usize, len: usize, quote: u8) -> Option<MissingEnd> {
        let mut end = len;
        while end > content_start && (is_ws(self.at(end - 1)) || self.at(end - 1) == b'`') {
            end -= 1;
        }
        let mut closers = end;
        while closers > content_start && matches!(self.at(closers - 1), b'}' | b']') {
            closers -= 1;
            while closers > content_start && is_ws(self.at(closers - 1)) {
                closers -= 1;
            }
        }
        let mut first_closer = closers;
        while is_ws(self.at(first_closer)) {
            first_closer += 1;
        }
        if closers < end && self.at(first_closer) == b'}' && !self.in_key && !self.quote_or_key_in(content_start, closers, quote) {
            return Some(MissingEnd::BeforeClosers(closers));
        }
        let last = self.at(self.prev_non_ws(len.saturating_sub(1)));
        (is_delim(last) && last != b'/').then_some(MissingEnd::AtDelimiter)
    }

    /// Whether `from..to` holds the quote byte (not escaped) with a
    /// delimiter after it or ending a word no quote opened, or a comma with
    /// a key after it (`"first, b: 1}`): signs that the string ended
    /// earlier. Quotes around words inside (`say "hi" now`, `a "b " c`)
    /// are no such sign.
    fn quote_or_key_in(&self, from: usize, to: usize, quote: u8) -> bool {
        let mut word_open = false; // a quote after a space opened a quoted word
        for k in from..to {
            if self.at(k) == quote && self.at(k - 1) != b'\\' {
                if self.next_quote_is_end_quote(k) {
                    return true;
                }
                if is_ws(self.at(k - 1)) {
                    word_open = true;
                } else if !std::mem::take(&mut word_open) {
                    return true; // ends a word no quote opened: `"data" junk}`
                }
            } else if self.at(k) == b',' && self.key_follows_after_ws(k + 1) {
                return true;
            }
        }
        false
    }

    fn key_follows_after_ws(&self, mut k: usize) -> bool {
        while is_ws(self.at(k)) {
            k += 1;
        }
        self.key_follows(k)
    }

    /// Decides what the string's quote char at `i_quote` is: its end (if a
    /// delimiter, the end or another string follows), a sign the first
    /// pass went wrong, or a quote inside the string.
    #[inline]
    fn quote_in_string(
        &mut self,
        i_quote: usize,
        clen: usize,
        stop_at_delim: bool,
        brackets: &[usize; 6],
        quote: u8,
        first: bool,
    ) -> QuoteEnd {
        let fixes_at_quote = self.fixes.len();
        self.i = i_quote + clen;
        self.skip_ws_comments(false);
        let j = self.i;
        let next = self.at(j);
        // JSON written inside the string (`is {"a": "b"}, which…`): while a
        // bracket or brace the string opened is unclosed, its quotes are content.
        let embedded = brackets[2] > brackets[3] || brackets[4] > brackets[5];
        let accept = stop_at_delim
            || j >= self.len()
            || (!embedded
                && ((is_delim(next) && !inside_unclosed(brackets, next) && !(next == b',' && self.string_goes_on_after_comma(j, quote)))
                    || (self.quote_at(j).is_some() && !self.next_quote_is_end_quote(j))
                    || next.is_ascii_digit()
                    || (next == b'=' && self.in_key)));
        if accept {
            self.last_end = i_quote + clen;
            return QuoteEnd::End;
        }
        let prev_i = self.prev_non_ws(i_quote.saturating_sub(1));
        let prev = self.at(prev_i);
        // A quote right after a bracket the string opened (`[LINK]("https://…")`)
        // is content too.
        let after_own_bracket = match prev {
            b'(' => brackets[0] > brackets[1],
            b'[' => brackets[2] > brackets[3],
            b'{' => brackets[4] > brackets[5],
            _ => false,
        };
        if !embedded && !after_own_bracket {
            if prev == b',' {
                // like {"a":"b,"c":1}: the end quote was missing before the
                // comma, when a string or key follows it (not `lorem, "ipsum" sic`)
                if self.string_follows(i_quote, quote) {
                    return QuoteEnd::ReadAgain { stop_at_delim: false, stop_at: Some(prev_i) };
                }
            } else if is_delim(prev) {
                return QuoteEnd::ReadAgain { stop_at_delim: true, stop_at: None };
            }
        }
        if first && !embedded && self.depth == self.item_depth && self.word_item_follows(i_quote) {
            // `["a" b", "c"]`: an array item's end quote, a word after it
            // the next item (read unquoted)
            self.last_end = i_quote + clen;
            return QuoteEnd::End;
        }
        // an unescaped quote inside the string: keep it and go on
        self.fixes.truncate(fixes_at_quote);
        self.note(LenientFix::UnescapedQuote);
        QuoteEnd::Inner
    }

    /// At a comma after a quote: does the string go on past it? It does
    /// when the words after the comma run into the same quote before any
    /// delimiter (`"lorem "ipsum", sic." }`), as no key or value does, and
    /// that quote neither ends a key (`"foo",b":`) nor opens one (`"a", junk "b":`).
    fn string_goes_on_after_comma(&self, comma: usize, quote: u8) -> bool {
        let mut k = comma + 1;
        while matches!(self.at(k), b' ' | b'\t') {
            k += 1;
        }
        if !self.at(k).is_ascii_alphabetic() {
            return false;
        }
        while k < self.len() && !matches!(self.at(k), b',' | b':' | b'[' | b']' | b'{' | b'}' | b'\n' | b'"' | b'\'') {
            k += 1;
        }
        // (a quote with a colon after it ends a key whose opening quote is
        // missing: `"foo",b":"bar"`)
        self.at(k) == quote && !self.key_colon_after(k + 1) && !self.key_follows(k)
    }

    /// At a quote inside an array item: does it close the item, with a
    /// word after it standing as the next item? It does when it ends a
    /// word (`"a" b`), spaces follow, and the words after them run to the
    /// item's end: a `,` or `]`, or a quote with one of them after it.
    /// (`"said "hi" to"` keeps its quotes: the first one opens a word.)
    #[cold]
    fn word_item_follows(&self, quote: usize) -> bool {
        if quote == 0 || is_ws(self.at(quote - 1)) || !matches!(self.at(quote + 1), b' ' | b'\t') {
            return false;
        }
        let mut k = quote + 1;
        while matches!(self.at(k), b' ' | b'\t') {
            k += 1;
        }
        let word = k;
        while k < self.len() && !matches!(self.at(k), b',' | b']' | b'[' | b'{' | b'}' | b':' | b'\n' | b'"' | b'\'') {
            k += 1;
        }
        if k == word {
            return false;
        }
        match self.at(k) {
            b',' | b']' => true,
            b'"' => self.stray_quote_at(k),
            _ => false,
        }
    }

    fn key_colon_after(&self, mut k: usize) -> bool {
        while matches!(self.at(k), b' ' | b'\t') {
            k += 1;
        }
        self.at(k) == b':'
    }

    /// At the quote `i` (one opening a string, maybe): does a whole string
    /// follow, its end quote on the same line with a delimiter or the end after it?
    fn string_follows(&self, i: usize, quote: u8) -> bool {
        const LOOKAHEAD: usize = 256;
        let end = (i + 1 + LOOKAHEAD).min(self.len());
        let Some(n) = self.b[i + 1..end].iter().position(|&b| b == quote || b == b'\n') else {
            return false;
        };
        self.at(i + 1 + n) == quote && self.next_quote_is_end_quote(i + 1 + n)
    }

    /// The second pass's end at an unquoted delimiter at `i` (a URL after
    /// a `:` is read whole first).
    #[cold]
    fn string_at_delim(&mut self, mut out: String, mut spaces: usize, mut i: usize, content_start: usize) -> String {
        let len = self.len();
        if i > 0 && self.at(i - 1) == b':' && is_url_start(&self.b[content_start..(i + 2).min(len)]) {
            while i < len && is_url_char(self.at(i)) {
                out.push(self.at(i) as char);
                i += 1;
            }
            spaces = 0;
        }
        self.string_cut(out, spaces, i, LenientFix::MissingQuote)
    }

    /// The escape at `i` (a backslash with a byte after it), decoded into
    /// `out`; returns where the string goes on.
    #[inline]
    fn string_escape(&mut self, mut i: usize, out: &mut String, spaces: &mut usize) -> R<usize> {
        let len = self.len();
        let e = self.at(i + 1);
        let simple = match e {
            b'"' | b'\\' | b'/' => Some(e as char),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            *spaces = 0;
            i += 2;
        } else if e == b'u' {
            let mut j = 2;
            while j < 6 && self.at(i + j).is_ascii_hexdigit() {
                j += 1;
            }
            if j == 6 {
                let (c, used) = self.decode_unicode_escape(i);
                out.push(c);
                *spaces = 0;
                i += used;
            } else if i + j >= len {
                // a \u escape cut off by the end of the text
                self.note(LenientFix::Truncated);
                i = len;
            } else {
                let end = (i + 6).min(len);
                let shown = self.s.get(i..end).unwrap_or("\\u");
                return Err(self.err(format!("Invalid unicode character {shown:?}"), i));
            }
        } else {
            // \<newline> continues the line and \' is a quote; other
            // unknown escapes keep their backslash (Windows paths,
            // regexes like "\d+" that the model did not double-escape)
            let c = self.char_at(i + 1).unwrap_or('\u{fffd}');
            self.note(LenientFix::InvalidEscape);
            if !matches!(c, '\n' | '\'') {
                out.push('\\');
            }
            out.push(c);
            *spaces = 0;
            i += 1 + c.len_utf8();
        }
        Ok(i)
    }

    /// The usual string, a `quote` (`"` or `'`) + bytes that need no
    /// decision ([`is_string_run`]) + the same
    /// quote with a delimiter or the end after it, read in one scan: what the
    /// general loop below would read, with the same work counted and fix
    /// noted. `None` (nothing consumed) for any other.
    #[inline]
    pub(super) fn plain_string(&mut self, content_start: usize, quote: u8) -> Option<String> {
        let rest = &self.b[content_start..];
        let n = rest.iter().position(|&b| !is_string_run(b, quote)).unwrap_or(rest.len());
        let end_quote = content_start + n;
        if self.at(end_quote) != quote {
            return None;
        }
        let mut j = end_quote + 1;
        while matches!(self.at(j), b' ' | b'\t' | b'\r') {
            j += 1;
        }
        // The general loop accepts more (a comment, a digit, another
        // quote after the end quote); those take it.
        if !(j >= self.len() || matches!(self.at(j), b',' | b':' | b']' | b'}' | b'\n'))
            || (self.at(j) == b',' && self.string_goes_on_after_comma(j, quote))
        {
            return None;
        }
        // One tick for the run of plain bytes (if any), one for the quote.
        let ticks = 1 + usize::from(n > 0);
        if self.work + ticks > self.budget {
            return None;
        }
        self.work += ticks;
        if quote == b'\'' {
            self.note(LenientFix::SingleQuotes);
        }
        self.i = j;
        self.last_end = end_quote + 1;
        Some(self.s[content_start..end_quote].to_owned())
    }

    /// Decodes `\uXXXX` at `i` (four hex digits known present), joining a
    /// surrogate pair. Returns the char and the bytes used.
    pub(super) fn decode_unicode_escape(&mut self, i: usize) -> (char, usize) {
        let hex4 = |p: &Self, at: usize| (0..4).fold(0u32, |acc, k| acc * 16 + hex_val(p.at(at + k)));
        let cp = hex4(self, i + 2);
        if (0xD800..0xDC00).contains(&cp)
            && self.at(i + 6) == b'\\'
            && self.at(i + 7) == b'u'
            && (8..12).all(|k| self.at(i + k).is_ascii_hexdigit())
        {
            let lo = hex4(self, i + 8);
            if (0xDC00..0xE000).contains(&lo) {
                let c = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                return (char::from_u32(c).unwrap_or('\u{fffd}'), 12);
            }
        }
        match char::from_u32(cp) {
            Some(c) => (c, 6),
            None => {
                self.note(LenientFix::InvalidEscape);
                ('\u{fffd}', 6)
            }
        }
    }
}

/// Where a string cut off by the end of the text ends instead.
enum MissingEnd {
    /// Before the closing brackets that end the text, at this offset.
    BeforeClosers(usize),
    /// At its first delimiter.
    AtDelimiter,
}

/// What a quote char of the string's kind turned out to be.
enum QuoteEnd {
    /// The string's end.
    End,
    /// The first pass went wrong: read the string again this way.
    ReadAgain { stop_at_delim: bool, stop_at: Option<usize> },
    /// A quote inside the string, kept.
    Inner,
}
