//! Glob matching of tool, model and scenario names, in globset's syntax:
//! `*` (any run of characters), `?` (one character), `[abc]`, `[a-z]`,
//! `[!abc]` (one character of, or not of, a class), `{a,b}` (alternatives,
//! each a glob) and `\` (the next character literally). Names are not paths:
//! `*` matches `/` too. Written by hand: the globset crate would change the
//! features of a crate polars shares, and cost a long rebuild.

/// Why a glob cannot be used, with where it goes wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid glob {glob:?}: {problem} (quote a special character with \\, e.g. \\[)")]
pub struct GlobError {
    pub glob: String,
    pub problem: String,
}

/// One piece of a parsed glob.
#[derive(Debug, Clone)]
enum Token {
    Literal(char),
    Any,
    One,
    Class { negated: bool, ranges: Vec<(char, char)> },
    Alternatives(Vec<Vec<Token>>),
}

/// Checks a glob where it is loaded (a flag, a configuration), so a typo is an
/// error that names it rather than a filter that silently matches nothing.
pub fn glob_check(glob: &str) -> Result<(), GlobError> {
    parse(glob).map(drop)
}

/// Whether `text` matches `glob`. An invalid glob (see [`glob_check`]) matches
/// only its own text.
pub fn glob_matches(glob: &str, text: &str) -> bool {
    match parse(glob) {
        Ok(tokens) => {
            let text: Vec<char> = text.chars().collect();
            matches(&tokens, &text)
        }
        Err(_) => glob == text,
    }
}

/// `text` as a glob that matches exactly `text`.
pub fn glob_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "*?[]{}\\,".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn parse(glob: &str) -> Result<Vec<Token>, GlobError> {
    let chars: Vec<char> = glob.chars().collect();
    let mut at = 0;
    let err = |problem: &str| GlobError { glob: glob.to_string(), problem: problem.to_string() };
    let tokens = parse_seq(&chars, &mut at, false).map_err(err)?;
    Ok(tokens)
}

/// Parses tokens up to the end, or (inside `{}`) up to a `,` or `}` left unread.
fn parse_seq(chars: &[char], at: &mut usize, in_braces: bool) -> Result<Vec<Token>, &'static str> {
    let mut tokens = Vec::new();
    while let Some(&c) = chars.get(*at) {
        match c {
            ',' | '}' if in_braces => return Ok(tokens),
            '}' => return Err("a `}` closes no `{`"),
            '*' => tokens.push(Token::Any),
            '?' => tokens.push(Token::One),
            '\\' => {
                *at += 1;
                let escaped = *chars.get(*at).ok_or("it ends with a lone `\\`")?;
                tokens.push(Token::Literal(escaped));
            }
            '[' => {
                tokens.push(parse_class(chars, at)?);
                continue;
            }
            '{' => {
                *at += 1;
                let mut alternatives = vec![parse_seq(chars, at, true)?];
                loop {
                    match chars.get(*at) {
                        Some(',') => {
                            *at += 1;
                            alternatives.push(parse_seq(chars, at, true)?);
                        }
                        Some('}') => break,
                        _ => return Err("a `{` is never closed by `}`"),
                    }
                }
                tokens.push(Token::Alternatives(alternatives));
            }
            c => tokens.push(Token::Literal(c)),
        }
        *at += 1;
    }
    Ok(tokens)
}

/// Parses `[...]` from its `[`, leaving `at` past its `]`. A `]` first in the
/// class (after any `!`) is a member, as in globset.
fn parse_class(chars: &[char], at: &mut usize) -> Result<Token, &'static str> {
    *at += 1;
    let negated = matches!(chars.get(*at), Some('!') | Some('^'));
    if negated {
        *at += 1;
    }
    let mut ranges = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(*at).ok_or("a `[` is never closed by `]`")?;
        if c == ']' && !first {
            *at += 1;
            return Ok(Token::Class { negated, ranges });
        }
        first = false;
        *at += 1;
        // `a-z` is a range; a `-` first or last is itself.
        if chars.get(*at) == Some(&'-') && chars.get(*at + 1).is_some_and(|&n| n != ']') {
            let end = chars[*at + 1];
            if end < c {
                return Err("a class range runs backwards (write [a-z], not [z-a])");
            }
            ranges.push((c, end));
            *at += 2;
        } else {
            ranges.push((c, c));
        }
    }
}

/// Backtracking match; names are short, and `*` runs are tried shortest first.
fn matches(tokens: &[Token], text: &[char]) -> bool {
    let Some((token, rest)) = tokens.split_first() else {
        return text.is_empty();
    };
    match token {
        Token::Literal(c) => text.first() == Some(c) && matches(rest, &text[1..]),
        Token::One => !text.is_empty() && matches(rest, &text[1..]),
        Token::Class { negated, ranges } => {
            text.first().is_some_and(|c| ranges.iter().any(|(lo, hi)| (lo..=hi).contains(&c)) != *negated) && matches(rest, &text[1..])
        }
        Token::Any => (0..=text.len()).any(|skip| matches(rest, &text[skip..])),
        Token::Alternatives(alternatives) => alternatives.iter().any(|alt| {
            let joined: Vec<Token> = alt.iter().chain(rest).cloned().collect();
            matches(&joined, text)
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_matches("*", "x"));
        assert!(glob_matches("*", ""));
        assert!(glob_matches("git_*", "git_push"));
        assert!(glob_matches("*Edit", "MultiEdit"));
        assert!(glob_matches("a*b*c", "axxbyyc"));
        assert!(!glob_matches("a*b*c", "acb"));
        assert!(!glob_matches("Bash", "bash"));
        assert!(glob_matches("sim-*", "sim-a/b"), "names are not paths: * crosses /");
    }

    #[test]
    fn question_mark_is_one_character() {
        assert!(glob_matches("read-cargo-tom?", "read-cargo-toml"));
        assert!(!glob_matches("read-cargo-tom?", "read-cargo-tom"));
        assert!(!glob_matches("a?", "abc"));
        assert!(glob_matches("?é", "xé"), "a character, not a byte");
    }

    #[test]
    fn classes_ranges_and_negation() {
        assert!(glob_matches("t[abc]", "tb"));
        assert!(!glob_matches("t[abc]", "td"));
        assert!(glob_matches("v[0-9]", "v7"));
        assert!(!glob_matches("v[0-9]", "vx"));
        assert!(glob_matches("[!abc]x", "dx"));
        assert!(!glob_matches("[!abc]x", "ax"));
        assert!(glob_matches("[a-cx-z]", "y"));
        assert!(glob_matches("[]]", "]"), "a ] first is a member");
        assert!(glob_matches("[a-]", "-"), "a - last is a member");
        assert!(!glob_matches("[!a-z]", "q"));
    }

    #[test]
    fn alternatives_hold_globs() {
        assert!(glob_matches("{gpt,claude}-*", "claude-3"));
        assert!(glob_matches("{gpt,claude}-*", "gpt-4o"));
        assert!(!glob_matches("{gpt,claude}-*", "gemini-2"));
        assert!(glob_matches("x{,s}", "x"));
        assert!(glob_matches("x{,s}", "xs"));
        assert!(glob_matches("{a*,*z}", "buzz"));
        assert!(glob_matches("{a,{b,c}}", "c"), "nested groups");
    }

    #[test]
    fn escapes_are_literal() {
        assert!(glob_matches(r"a\*", "a*"));
        assert!(!glob_matches(r"a\*", "ab"));
        assert!(glob_matches(r"\[x\]", "[x]"));
        for name in ["a*b", "x[1]", "{y,z}", r"back\slash", "plain", "q?"] {
            assert!(glob_matches(&glob_escape(name), name), "{name}");
            assert_eq!(glob_check(&glob_escape(name)), Ok(()));
        }
        assert!(!glob_matches(&glob_escape("a*"), "ab"));
    }

    #[test]
    fn invalid_globs_say_what_is_wrong() {
        for (glob, problem) in [
            ("read-[ab", "never closed by `]`"),
            ("{a,b", "never closed by `}`"),
            ("a}", "closes no `{`"),
            ("a\\", "lone `\\`"),
            ("[z-a]", "runs backwards"),
        ] {
            let e = glob_check(glob).expect_err(glob);
            assert!(e.to_string().contains(problem), "{glob}: {e}");
            assert!(e.to_string().contains(glob), "{glob}: {e}");
        }
        assert!(glob_matches("{a,b", "{a,b"), "an invalid glob matches its own text");
        assert!(!glob_matches("{a,b", "a"));
    }
}
