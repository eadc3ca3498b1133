//! The shell's lexical layer for approval: a script split into simple
//! commands' words, POSIX-style — quotes, escapes and `$'…'` removed,
//! separators and comments dropped, the files redirections write kept
//! aside (`writes`), substitutions' commands
//! read as commands of their own. Nothing is expanded or run.

use super::words::{Word, MAX_DEPTH};

/// Splits a script into simple commands' words, POSIX-style.
pub(super) struct Lexer {
    chars: Vec<char>,
    pos: usize,
    /// False once the shell would refuse the text (unbalanced, too deep).
    pub complete: bool,
    /// The files redirections write, in every command read so far.
    pub writes: Vec<Word>,
}

/// Where the next word goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// An argument of the command.
    Argument,
    /// A redirection's file that is read (`<`), or a here-document's delimiter: not an argument.
    Dropped,
    /// A redirection's file that is written (`>`, `>>`, `>|`, `&>`, `2>`, `<>`);
    /// after `>&`, a descriptor number or `-` is no file.
    Written { duplicates: bool },
    /// A `<<<` string: the command's input.
    Stdin,
}

/// A word being built.
#[derive(Default)]
struct Building {
    text: String,
    dynamic: bool,
    /// A quote or escape was seen: `""` is a word even though empty.
    started: bool,
}

impl Lexer {
    pub fn new(text: &str) -> Lexer {
        Lexer { chars: text.chars().collect(), pos: 0, complete: true, writes: Vec::new() }
    }

    /// Ends the word being built and puts it where it goes.
    fn finish(&mut self, word: &mut Building, current: &mut Vec<Word>, target: &mut Target, herestrings: &mut Vec<String>) {
        if word.started || !word.text.is_empty() {
            let w = std::mem::take(word);
            match std::mem::replace(target, Target::Argument) {
                Target::Argument => current.push(Word { text: w.text, dynamic: w.dynamic }),
                Target::Dropped => {}
                Target::Written { duplicates: true } if w.text == "-" || (!w.dynamic && w.text.chars().all(|c| c.is_ascii_digit())) => {}
                Target::Written { .. } => self.writes.push(Word { text: w.text, dynamic: w.dynamic }),
                Target::Stdin => herestrings.push(w.text),
            }
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    /// Reads commands until the end, or until the unmatched `close` (`)` of
    /// `$(`). Substitutions' commands come out as segments of their own.
    pub fn script(&mut self, depth: usize, close: Option<char>) -> Vec<Vec<Word>> {
        let mut segments: Vec<Vec<Word>> = Vec::new();
        let mut current: Vec<Word> = Vec::new();
        let mut word = Building::default();
        let mut target = Target::Argument;
        let mut herestrings: Vec<String> = Vec::new();
        let mut parens = 0usize;
        while let Some(c) = self.peek(0) {
            match c {
                ')' if close.is_some() && parens == 0 => {
                    self.pos += 1;
                    self.finish(&mut word, &mut current, &mut target, &mut herestrings);
                    segments.push(current);
                    self.herestrings(depth, herestrings, &mut segments);
                    return segments;
                }
                ' ' | '\t' => {
                    self.pos += 1;
                    self.finish(&mut word, &mut current, &mut target, &mut herestrings);
                }
                '\n' | ';' | '&' | '|' | '(' | ')' => {
                    if c == '&' && self.peek(1) == Some('>') {
                        // `&>file` redirects; it does not end the command.
                        self.finish(&mut word, &mut current, &mut target, &mut herestrings);
                        self.pos += 2;
                        if self.peek(0) == Some('>') {
                            self.pos += 1;
                        }
                        target = Target::Written { duplicates: false };
                        continue;
                    }
                    match c {
                        '(' => parens += 1,
                        ')' => parens = parens.saturating_sub(1),
                        _ => {}
                    }
                    self.pos += 1;
                    self.finish(&mut word, &mut current, &mut target, &mut herestrings);
                    target = Target::Argument;
                    segments.push(std::mem::take(&mut current));
                }
                '<' | '>' => {
                    if self.peek(1) == Some('(') {
                        // Process substitution runs a command.
                        self.pos += 2;
                        self.substitution(depth, &mut segments, &mut word);
                        continue;
                    }
                    // A file-descriptor number before the operator belongs to it (`2>`).
                    if !word.started && !word.text.is_empty() && word.text.chars().all(|c| c.is_ascii_digit()) {
                        word = Building::default();
                    }
                    self.finish(&mut word, &mut current, &mut target, &mut herestrings);
                    let start = self.pos;
                    self.pos += 1;
                    while matches!(self.peek(0), Some('<' | '>' | '&' | '|')) {
                        self.pos += 1;
                    }
                    // `2>&1`: the descriptor after `>&` is the target.
                    let operator = &self.chars[start..self.pos];
                    target = if operator == ['<', '<', '<'] {
                        Target::Stdin
                    } else if operator.contains(&'>') {
                        Target::Written { duplicates: operator.last() == Some(&'&') }
                    } else {
                        Target::Dropped
                    };
                }
                '#' if !word.started && word.text.is_empty() => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek(0) {
                        Some('\n') => self.pos += 1,
                        Some(next) => {
                            word.text.push(next);
                            word.started = true;
                            self.pos += 1;
                        }
                        None => word.started = true,
                    }
                }
                '\'' => {
                    self.pos += 1;
                    word.started = true;
                    self.single_quoted(&mut word.text);
                }
                '"' => {
                    self.pos += 1;
                    word.started = true;
                    self.double_quoted(depth, &mut segments, &mut word);
                }
                '`' => {
                    self.pos += 1;
                    self.backticks(depth, &mut segments, &mut word);
                }
                '$' if self.ifs_len() > 0 => {
                    // Unquoted `$IFS` splits words: `rm${IFS}-rf${IFS}/`.
                    self.pos += self.ifs_len();
                    self.finish(&mut word, &mut current, &mut target, &mut herestrings);
                }
                '$' => self.dollar(depth, &mut segments, &mut word),
                _ => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        if close.is_some() {
            // `$(` never closed.
            self.complete = false;
        }
        self.finish(&mut word, &mut current, &mut target, &mut herestrings);
        segments.push(current);
        self.herestrings(depth, herestrings, &mut segments);
        segments
    }

    /// Text fed to a command's input by `<<<`, read as commands: the command
    /// may be a shell (`bash <<< 'rm -rf /'`).
    fn herestrings(&mut self, depth: usize, texts: Vec<String>, segments: &mut Vec<Vec<Word>>) {
        for text in texts {
            if depth >= MAX_DEPTH {
                self.complete = false;
                return;
            }
            let mut lexer = Lexer::new(&text);
            segments.extend(lexer.script(depth + 1, None));
            self.complete &= lexer.complete;
            self.writes.append(&mut lexer.writes);
        }
    }

    /// The length of `$IFS` or `${IFS}` at the cursor, or 0.
    fn ifs_len(&self) -> usize {
        let rest = &self.chars[self.pos..];
        if rest.starts_with(&['$', '{', 'I', 'F', 'S', '}']) {
            6
        } else if rest.starts_with(&['$', 'I', 'F', 'S']) && !rest.get(4).is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_') {
            4
        } else {
            0
        }
    }

    fn single_quoted(&mut self, out: &mut String) {
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            if c == '\'' {
                return;
            }
            out.push(c);
        }
        self.complete = false;
    }

    fn double_quoted(&mut self, depth: usize, segments: &mut Vec<Vec<Word>>, word: &mut Building) {
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.pos += 1;
                    return;
                }
                '\\' => {
                    self.pos += 1;
                    match self.peek(0) {
                        Some('\n') => self.pos += 1,
                        Some(next @ ('$' | '`' | '"' | '\\')) => {
                            word.text.push(next);
                            self.pos += 1;
                        }
                        _ => word.text.push('\\'),
                    }
                }
                '`' => {
                    self.pos += 1;
                    self.backticks(depth, segments, word);
                }
                '$' => self.dollar(depth, segments, word),
                _ => {
                    word.text.push(c);
                    self.pos += 1;
                }
            }
        }
        self.complete = false;
    }

    /// `$(…)`, `$((…))`, `${…}`, `$'…'`, `$"…"` or `$NAME`, at `$`.
    fn dollar(&mut self, depth: usize, segments: &mut Vec<Vec<Word>>, word: &mut Building) {
        let start = self.pos;
        self.pos += 1;
        match self.peek(0) {
            Some('(') => {
                self.pos += 1;
                self.substitution(depth, segments, word);
            }
            Some('{') => {
                // Kept as written; a substitution inside still runs.
                self.pos += 1;
                let mut nested = 1usize;
                while let Some(c) = self.peek(0) {
                    match c {
                        '{' => nested += 1,
                        '}' => nested -= 1,
                        '$' if self.peek(1) == Some('(') => {
                            self.pos += 2;
                            let mut inner = Building::default();
                            self.substitution(depth, segments, &mut inner);
                            continue;
                        }
                        _ => {}
                    }
                    self.pos += 1;
                    if nested == 0 {
                        break;
                    }
                }
                if nested > 0 {
                    self.complete = false;
                }
                word.text.extend(&self.chars[start..self.pos]);
                word.dynamic = true;
            }
            Some('\'') => {
                self.pos += 1;
                word.started = true;
                self.ansi_c_quoted(&mut word.text);
            }
            Some('"') => {
                self.pos += 1;
                word.started = true;
                self.double_quoted(depth, segments, word);
            }
            Some(c) if c.is_ascii_alphanumeric() || matches!(c, '_' | '@' | '*' | '#' | '?' | '-' | '$' | '!') => {
                self.pos += 1;
                if c.is_ascii_alphabetic() || c == '_' {
                    while self.peek(0).is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                        self.pos += 1;
                    }
                }
                word.text.extend(&self.chars[start..self.pos]);
                word.dynamic = true;
            }
            _ => word.text.push('$'),
        }
    }

    /// The commands of `$(…)` (the `$(` already read), up to its `)`.
    fn substitution(&mut self, depth: usize, segments: &mut Vec<Vec<Word>>, word: &mut Building) {
        let start = self.pos;
        if depth >= MAX_DEPTH {
            self.complete = false;
            return;
        }
        let inner = self.script(depth + 1, Some(')'));
        segments.extend(inner);
        word.text.push_str("$(");
        word.text.extend(&self.chars[start..self.pos]);
        word.dynamic = true;
    }

    /// The commands of `` `…` `` (the first backtick already read).
    fn backticks(&mut self, depth: usize, segments: &mut Vec<Vec<Word>>, word: &mut Building) {
        let mut inner = String::new();
        let mut closed = false;
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                '`' => {
                    closed = true;
                    break;
                }
                '\\' if matches!(self.peek(0), Some('`' | '\\' | '$')) => {
                    inner.push(self.chars[self.pos]);
                    self.pos += 1;
                }
                _ => inner.push(c),
            }
        }
        self.complete &= closed;
        word.text.push('`');
        word.text.push_str(&inner);
        word.text.push('`');
        word.dynamic = true;
        if depth >= MAX_DEPTH {
            self.complete = false;
            return;
        }
        let mut lexer = Lexer::new(&inner);
        segments.extend(lexer.script(depth + 1, None));
        self.complete &= lexer.complete;
        self.writes.append(&mut lexer.writes);
    }

    /// `$'…'` with its backslash escapes decoded (`$'\x72m'` is `rm`).
    fn ansi_c_quoted(&mut self, out: &mut String) {
        while let Some(c) = self.peek(0) {
            self.pos += 1;
            match c {
                '\'' => return,
                '\\' => {
                    let Some(e) = self.peek(0) else { break };
                    self.pos += 1;
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        'a' => out.push('\x07'),
                        'b' => out.push('\x08'),
                        'e' | 'E' => out.push('\x1b'),
                        'f' => out.push('\x0c'),
                        'v' => out.push('\x0b'),
                        'x' | 'u' | 'U' => {
                            let max = match e {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let code = self.digits(16, max);
                            out.extend(code.and_then(char::from_u32));
                        }
                        '0'..='7' => {
                            self.pos -= 1;
                            let code = self.digits(8, 3);
                            out.extend(code.and_then(char::from_u32));
                        }
                        other => out.push(other),
                    }
                }
                _ => out.push(c),
            }
        }
        self.complete = false;
    }

    fn digits(&mut self, radix: u32, max: usize) -> Option<u32> {
        let mut value: Option<u32> = None;
        for _ in 0..max {
            let Some(d) = self.peek(0).and_then(|c| c.to_digit(radix)) else { break };
            value = Some(value.unwrap_or(0).saturating_mul(radix).saturating_add(d));
            self.pos += 1;
        }
        value
    }
}
