//! Colour for the terminal, by hand-written ANSI (SGR) codes: on only when
//! printing to a terminal, off under `NO_COLOR`, forced by `CLICOLOR_FORCE`.
//! Applied after a line is laid out, so colour never changes a width.

/// Whether and how to colour what is printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Paint {
    pub on: bool,
}

impl Paint {
    /// The choice for a stream: `NO_COLOR` (any non-empty value) wins, then
    /// `CLICOLOR_FORCE` (non-empty, not `0`), then a terminal that is not `dumb`.
    pub fn choose(no_color: Option<&str>, force: Option<&str>, term: Option<&str>, is_terminal: bool) -> Paint {
        let set = |v: Option<&str>| v.is_some_and(|v| !v.is_empty());
        let on = if set(no_color) {
            false
        } else if set(force) && force != Some("0") {
            true
        } else {
            is_terminal && term != Some("dumb")
        };
        Paint { on }
    }

    /// The choice for standard output, from the environment.
    pub fn for_stdout() -> Paint {
        use std::io::IsTerminal;
        let var = |name: &str| std::env::var(name).ok();
        Paint::choose(var("NO_COLOR").as_deref(), var("CLICOLOR_FORCE").as_deref(), var("TERM").as_deref(), std::io::stdout().is_terminal())
    }

    fn sgr(&self, code: &str, text: &str) -> String {
        if self.on && !text.is_empty() {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }

    /// Titles.
    pub fn bold(&self, text: &str) -> String {
        self.sgr("1", text)
    }

    /// Hints and notes.
    pub fn dim(&self, text: &str) -> String {
        self.sgr("2", text)
    }

    /// A failed gate, a regression.
    pub fn red(&self, text: &str) -> String {
        self.sgr("1;31", text)
    }

    /// A passed gate, an improvement.
    pub fn green(&self, text: &str) -> String {
        self.sgr("32", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_unless_told() {
        assert!(Paint::choose(None, None, Some("xterm-256color"), true).on);
        assert!(!Paint::choose(None, None, Some("xterm"), false).on, "never into a pipe or a file");
        assert!(!Paint::choose(Some("1"), None, None, true).on, "NO_COLOR");
        assert!(!Paint::choose(Some("1"), Some("1"), None, true).on, "NO_COLOR wins over CLICOLOR_FORCE");
        assert!(Paint::choose(Some(""), None, None, true).on, "an empty NO_COLOR is unset");
        assert!(Paint::choose(None, Some("1"), None, false).on, "CLICOLOR_FORCE into a pipe");
        assert!(!Paint::choose(None, Some("0"), None, false).on);
        assert!(!Paint::choose(None, None, Some("dumb"), true).on);
        assert_eq!(Paint { on: true }.bold("x"), "\u{1b}[1mx\u{1b}[0m");
        assert_eq!(Paint { on: false }.red("x"), "x");
    }
}
