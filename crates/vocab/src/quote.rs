//! Bounded quoting: how much of a value from outside (a model's argument or
//! tool name, a server's error text) a failure reason or a report cell may
//! carry. One function, used everywhere such a value is quoted, so a 10 MB
//! argument costs its first few hundred characters and a byte count, not
//! megabytes in every reason, event message and report. Imports nothing of
//! ours: the pipeline, the checker and the reports all sit above it.

use std::borrow::Cow;

/// Characters of one quoted value (an argument, a tool name, an error text)
/// kept in a failure reason.
pub const QUOTE_CHARS: usize = 200;

/// Characters of one report cell or whole reason: room for a few quoted
/// values and the words around them.
pub const CELL_CHARS: usize = 1000;

/// `text` cut to at most `max_chars` characters on a character boundary,
/// followed by a note of how many bytes there were and how many are not
/// shown; `text` itself when it fits (no copy).
pub fn bounded(text: &str, max_chars: usize) -> Cow<'_, str> {
    // Short texts are the rule: their byte length already proves they fit.
    if text.len() <= max_chars {
        return Cow::Borrowed(text);
    }
    match text.char_indices().nth(max_chars) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!("{}… ({} bytes, {} not shown)", &text[..cut], text.len(), text.len() - cut)),
    }
}

/// `text` bounded to [`QUOTE_CHARS`]: a value quoted in a reason.
pub fn quoted(text: &str) -> Cow<'_, str> {
    bounded(text, QUOTE_CHARS)
}

/// Bounds an owned text in place (no copy when it fits).
pub fn bound_owned(text: String, max_chars: usize) -> String {
    match bounded(&text, max_chars) {
        Cow::Borrowed(_) => text,
        Cow::Owned(cut) => cut,
    }
}

/// A text (a path, a name) as one POSIX shell word, so advice printed with
/// it runs as printed.
pub fn shell_word(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c)) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_is_kept_as_it_is() {
        assert!(matches!(bounded("read_file", 200), Cow::Borrowed("read_file")));
        // 200 two-byte characters are 400 bytes, and still fit.
        let accents = "é".repeat(200);
        assert_eq!(bounded(&accents, 200), accents.as_str());
    }

    #[test]
    fn a_long_text_is_cut_on_a_character_boundary_with_a_byte_count() {
        let huge = "x".repeat(10 << 20);
        assert_eq!(quoted(&huge), format!("{}… (10485760 bytes, 10485560 not shown)", "x".repeat(200)));
        // Multi-byte characters are never split: 3 kept of 5 (15 bytes).
        assert_eq!(bounded("€€€€€", 3), "€€€… (15 bytes, 6 not shown)");
        assert_eq!(bound_owned("abcdef".into(), 2), "ab… (6 bytes, 4 not shown)");
        assert_eq!(bound_owned("abc".into(), 3), "abc");
    }
}
