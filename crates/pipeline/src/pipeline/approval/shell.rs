//! What a shell command line runs, for approval rules: the line is split
//! into words as a POSIX shell would (quotes, escapes, `$'…'`), into simple
//! commands at every separator (`;`, `&&`, `||`, `|`, `&`, newlines,
//! subshell parentheses), with command substitutions (`$(…)`, backticks,
//! `<(…)`) as commands of their own, and wrappers (`sudo`, `env`,
//! `bash -c`, `xargs`, `find -exec`, …) looked through to the command they
//! run (the words themselves come from `lexer`). It never runs or expands
//! anything: a word holding an expansion is kept as written and marked dynamic.
//!
//! A line the shell would refuse (an unbalanced quote, an unclosed `$(`,
//! nesting deeper than [`MAX_DEPTH`]) is read conservatively: every word of
//! its raw text may start a command, so a deny rule matches whatever its
//! words would match anywhere in the line (fail closed). A line longer than
//! [`MAX_COMMAND_BYTES`] is not read: every deny rule on commands matches it.

use std::ops::Range;

use super::effects;
use super::lexer::Lexer;
use super::words::{after_options, value_options};
pub use super::words::{base_name, first_operand, Word, MAX_DEPTH, SHELLS};

/// A longer command line is not read at all: every deny rule on commands matches it.
pub const MAX_COMMAND_BYTES: usize = 1 << 20;

/// In an unparseable line, how many words after a possible program count as its arguments.
const FALLBACK_WINDOW: usize = 64;

/// The simple commands a command line runs, each with its wrappers removed.
#[derive(Debug, Clone, Default)]
pub struct CommandLine {
    words: Vec<Word>,
    commands: Vec<Range<usize>>,
    /// False when the shell would refuse the line and it was read conservatively.
    pub parsed: bool,
    /// Longer than [`MAX_COMMAND_BYTES`]: not read (and not `parsed`).
    pub oversized: bool,
    /// The command before this one, whose arguments a shell reading its
    /// standard input may be running (`echo 'rm -rf /' | bash`).
    stdin: Option<Vec<Word>>,
    /// Paths the line writes, deletes, links or patches, as written: by
    /// redirections, by the programs of `effects`, and by patch headers.
    pub writes: Vec<Word>,
    /// Folders a `cd` of the line may move to: relative paths may start there.
    pub moves_to: Vec<Word>,
    /// Why some command of the line cannot be read (see `effects`).
    pub unreadable: Vec<&'static str>,
    /// Some command applies a patch (its text is looked for in the whole line).
    applies_patch: bool,
}

impl CommandLine {
    /// Reads a command line (the `command` argument of a shell tool).
    pub fn parse(text: &str) -> CommandLine {
        if text.len() > MAX_COMMAND_BYTES {
            return CommandLine { oversized: true, ..CommandLine::default() };
        }
        let mut line = CommandLine { parsed: true, ..CommandLine::default() };
        let mut lexer = Lexer::new(text);
        let segments = lexer.script(0, None);
        for segment in segments {
            let previous = segment.clone();
            line.add(segment, 0);
            // What a command prints may be piped into a shell (`echo … | sh`).
            line.stdin = Some(previous).filter(|w| !w.is_empty());
        }
        line.writes.append(&mut lexer.writes);
        if !lexer.complete || !line.parsed {
            line.parsed = false;
            line.add_fallback(text);
        }
        line.read_patches(text);
        line.read_git_config();
        line
    }

    /// A write to a git configuration file may define an alias calltape cannot see.
    fn read_git_config(&mut self) {
        if self.writes.iter().any(|w| effects::is_git_config(&w.text)) {
            self.unreadable.push("a write to git's configuration");
        }
    }

    /// A patch applied by the line names its files in its text, given in the
    /// line (a here-document, `echo`, `printf`); one from a file cannot be read.
    fn read_patches(&mut self, text: &str) {
        if !self.applies_patch {
            return;
        }
        let paths = effects::patch_paths(text);
        if paths.is_empty() {
            self.unreadable.push("a patch read from a file");
        }
        self.writes.extend(paths.into_iter().map(Word::literal));
    }

    /// Reads a command given as an argument vector (`["bash", "-c", "…"]`).
    pub fn from_argv<'a>(argv: impl IntoIterator<Item = &'a str>) -> CommandLine {
        let mut line = CommandLine { parsed: true, ..CommandLine::default() };
        let words: Vec<Word> = argv.into_iter().map(Word::literal).collect();
        let text = words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join("\n");
        line.add(words, 0);
        line.read_patches(&text);
        line.read_git_config();
        line
    }

    /// Every simple command, program first (as written, path included).
    pub fn commands(&self) -> impl Iterator<Item = &[Word]> + '_ {
        self.commands.iter().map(|r| &self.words[r.clone()])
    }

    fn push(&mut self, words: Vec<Word>) {
        self.note(effects::of(&words));
        let start = self.words.len();
        self.words.extend(words);
        self.commands.push(start..self.words.len());
    }

    /// Adds one simple command, looking through wrappers and scripts.
    fn add(&mut self, mut words: Vec<Word>, depth: usize) {
        // Reserved words, negation and assignments come before the program.
        let skip = words.iter().take_while(|w| (!w.dynamic && RESERVED.contains(&w.text.as_str())) || is_assignment(&w.text)).count();
        words.drain(..skip);
        if words.is_empty() {
            return;
        }
        let program = base_name(&words[0].text).to_string();
        match unwrap(&program, &words) {
            Unwrapped::Command => self.push(words),
            Unwrapped::Runs(start) => {
                // The wrapper is a command too (`sudo` may itself be denied).
                let mut inner = words.split_off(start.min(words.len()));
                if program == "xargs" {
                    // xargs adds arguments read from its input: unknown ones.
                    inner.push(Word { text: "{xargs-input}".into(), dynamic: true });
                }
                self.push(words);
                self.add(inner, depth);
            }
            Unwrapped::Stdin => {
                self.push(words);
                // The arguments together (`echo rm -rf /`) and each alone
                // (`printf %s 'rm -rf /'`).
                let source = self.stdin.take().unwrap_or_default();
                // Another program's output (`curl … | sh`, `cat x | bash`) is a script nobody can read here.
                if source.first().is_some_and(|p| p.dynamic || !matches!(base_name(&p.text), "echo" | "printf")) {
                    self.unreadable.push("a shell script read from another program's output");
                }
                if let Some(Unwrapped::Script(script)) = source.get(1..).map(join) {
                    self.add_script(&script, depth);
                    for arg in source.get(2..).unwrap_or_default() {
                        self.add_script(&arg.text, depth);
                    }
                }
            }
            Unwrapped::Script(script) => {
                self.push(words);
                self.add_script(&script, depth);
            }
            Unwrapped::Exec(range) => {
                // `{}` stands for each file found: unknown until find runs.
                let inner = words[range].iter().map(|w| Word { dynamic: w.dynamic || w.text.contains("{}"), ..w.clone() }).collect();
                self.push(words);
                self.add(inner, depth);
            }
            Unwrapped::Alias(expanded) => {
                if depth >= MAX_DEPTH {
                    // An alias of an alias of …: not followed, not readable.
                    self.parsed = false;
                    self.push(words);
                    return;
                }
                self.add(expanded, depth + 1);
            }
        }
    }

    /// Adds the commands of a script run by a command at `depth`.
    fn add_script(&mut self, script: &str, depth: usize) {
        if depth >= MAX_DEPTH {
            self.parsed = false;
            return;
        }
        let mut lexer = Lexer::new(script);
        let segments = lexer.script(depth + 1, None);
        self.parsed &= lexer.complete;
        self.writes.append(&mut lexer.writes);
        for segment in segments {
            self.add(segment, depth + 1);
        }
    }

    /// Keeps what one command does to files (see `effects`).
    fn note(&mut self, effects: effects::Effects) {
        self.writes.extend(effects.writes);
        self.moves_to.extend(effects.moves_to);
        self.unreadable.extend(effects.unreadable);
        self.applies_patch |= effects.applies_patch;
    }

    /// The conservative reading of a line the shell would refuse: its raw
    /// words with quotes dropped, each possibly a program followed by the
    /// next words of its segment.
    fn add_fallback(&mut self, text: &str) {
        for segment in text.split([';', '&', '|', '\n', '(', ')', '`']) {
            let start = self.words.len();
            self.words.extend(
                segment
                    .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | '$' | '{' | '}' | '<' | '>'))
                    .filter(|w| !w.is_empty())
                    .map(Word::literal),
            );
            let end = self.words.len();
            for i in start..end {
                // No effects: the shell refuses the whole line, so nothing
                // in it runs; program rules still match its words (in doubt).
                self.commands.push(i..end.min(i + 1 + FALLBACK_WINDOW));
            }
        }
    }
}

/// Words that may precede a command without being one.
const RESERVED: &[&str] = &["!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "coproc"];

/// `NAME=value`, as the shell reads an assignment before a command.
fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            let name = name.strip_suffix('+').unwrap_or(name);
            name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// What a command does with the words after its program.
enum Unwrapped {
    /// Runs nothing else.
    Command,
    /// Runs the command that starts at this word (`sudo -u x rm …`).
    Runs(usize),
    /// Runs a shell script (`bash -c '…'`, `eval`, `su -c`).
    Script(String),
    /// A shell that runs what it reads on its standard input.
    Stdin,
    /// Runs the command in these words (`find … -exec rm {} ;`).
    Exec(Range<usize>),
    /// Is this command once an alias is expanded (`git -c alias.p='push -f' p`).
    Alias(Vec<Word>),
}

/// Wrappers that run the rest of their words as a command once their options end.
const RUNNERS: &[&str] = &[
    "sudo",
    "doas",
    "command",
    "builtin",
    "exec",
    "nohup",
    "time",
    "nice",
    "pkexec",
    "ionice",
    "stdbuf",
    "setsid",
    "busybox",
    "unbuffer",
    "chronic",
    "catchsegv",
];

fn unwrap(program: &str, words: &[Word]) -> Unwrapped {
    let rest = |i: usize| if i < words.len() { Unwrapped::Runs(i) } else { Unwrapped::Command };
    match program {
        p if RUNNERS.contains(&p) => rest(after_options(p, words, 1)),
        "env" => {
            let mut i = after_options("env", words, 1);
            // `env -S 'rm -rf /'` splits its string as a command line.
            let options = &words[..i.min(words.len())];
            if let Some(script) = option_value(options, &["-S", "--split-string"]) {
                return Unwrapped::Script(script);
            }
            if let Some(s) = options.iter().find_map(|w| w.text.strip_prefix("-S").filter(|s| !s.is_empty() && !s.starts_with('-'))) {
                return Unwrapped::Script(s.to_string());
            }
            while i < words.len() && is_assignment(&words[i].text) {
                i += 1;
            }
            rest(i)
        }
        "timeout" => rest(after_options("timeout", words, 1) + 1),
        "xargs" => rest(after_options("xargs", words, 1)),
        "watch" => {
            let i = after_options("watch", words, 1);
            join(&words[i.min(words.len())..])
        }
        "eval" => join(&words[1..]),
        "ssh" => {
            // ssh [options] host command…: the command runs in a remote shell.
            let i = after_options("ssh", words, 1) + 1;
            join(&words[i.min(words.len())..])
        }
        "su" => match option_value(words, &["-c", "--command"]) {
            Some(script) => Unwrapped::Script(script),
            None => Unwrapped::Command,
        },
        "find" => match words.iter().position(|w| matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")) {
            Some(i) => {
                let end = words[i + 1..].iter().position(|w| w.text == ";" || w.text == "+").map_or(words.len(), |e| i + 1 + e);
                Unwrapped::Exec(i + 1..end)
            }
            None => Unwrapped::Command,
        },
        p if SHELLS.contains(&p) => shell_script(p, words),
        "git" => git_alias(words),
        _ => Unwrapped::Command,
    }
}

/// `git -c alias.NAME=VALUE … NAME args`: git runs VALUE in NAME's place, or
/// with `!` a shell command (given the arguments too).
fn git_alias(words: &[Word]) -> Unwrapped {
    let Some(i) = first_operand("git", words) else { return Unwrapped::Command };
    let name = words[i].text.to_lowercase();
    let mut value = None;
    for (j, w) in words[..i].iter().enumerate() {
        let setting = match w.text.strip_prefix("-c") {
            Some("") => words.get(j + 1).map(|v| v.text.as_str()),
            Some(glued) => Some(glued),
            None => None,
        };
        if let Some((key, v)) = setting.and_then(|s| s.split_once('=')) {
            // Keys are case-insensitive; the last setting wins.
            if key.to_lowercase() == format!("alias.{name}") {
                value = Some(v.to_string());
            }
        }
    }
    let Some(value) = value else { return Unwrapped::Command };
    let rest = &words[i + 1..];
    if let Some(command) = value.strip_prefix('!') {
        let args: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
        let script = format!("{command} {}", args.join(" "));
        return Unwrapped::Alias(["sh", "-c", script.as_str()].into_iter().map(Word::literal).collect());
    }
    let mut lexer = Lexer::new(&value);
    let mut expanded = words[..i].to_vec();
    expanded.extend(lexer.script(0, None).into_iter().flatten());
    expanded.extend_from_slice(rest);
    Unwrapped::Alias(expanded)
}

/// The value of an option given as `-c VALUE`, `-cVALUE`-style clusters ending in it, or `--command=VALUE`.
fn option_value(words: &[Word], names: &[&str]) -> Option<String> {
    for (i, w) in words.iter().enumerate().skip(1) {
        for name in names {
            if let Some(v) = w.text.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
                return Some(v.to_string());
            }
        }
        if names.contains(&w.text.as_str()) {
            return words.get(i + 1).map(|w| w.text.clone());
        }
    }
    None
}

/// `bash -c SCRIPT`, `sh -xec SCRIPT`, `bash -lc -- SCRIPT`: the script; a
/// shell given a file or stdin runs nothing we can see.
fn shell_script(program: &str, words: &[Word]) -> Unwrapped {
    let takes_value = value_options(program);
    let mut has_c = false;
    let mut i = 1;
    while i < words.len() {
        let w = words[i].text.as_str();
        if w == "--" || w == "-" {
            i += 1;
            break;
        }
        if !(w.len() > 1 && (w.starts_with('-') || w.starts_with('+'))) {
            break;
        }
        if w == "--command" || (!w.starts_with("--") && w[1..].contains('c')) {
            has_c = true;
        }
        i += if takes_value.contains(&w) { 2 } else { 1 };
    }
    match words.get(i) {
        Some(script) if has_c => Unwrapped::Script(script.text.clone()),
        None => Unwrapped::Stdin,
        Some(_) => Unwrapped::Command,
    }
}

/// Words joined by spaces, as `eval` and `ssh` hand them to a shell.
fn join(words: &[Word]) -> Unwrapped {
    if words.is_empty() {
        return Unwrapped::Command;
    }
    Unwrapped::Script(words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each command's words, as text.
    fn commands(text: &str) -> Vec<Vec<String>> {
        CommandLine::parse(text).commands().map(|c| c.iter().map(|w| w.text.clone()).collect()).collect()
    }

    fn words(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter().map(|c| c.iter().map(|w| w.to_string()).collect()).collect()
    }

    #[test]
    fn quotes_and_escapes_are_removed() {
        assert_eq!(commands(r#"'r'"m" -r\f "a b" '' x"#), words(&[&["rm", "-rf", "a b", "", "x"]]));
        assert_eq!(commands(r"$'\x72\155' -rf /"), words(&[&["rm", "-rf", "/"]]));
        assert_eq!(commands("rm \\\n -rf /"), words(&[&["rm", "-rf", "/"]]));
        assert_eq!(commands(r#"echo "a \"b\" \$c""#), words(&[&["echo", "a \"b\" $c"]]));
    }

    #[test]
    fn separators_split_commands() {
        let expected = words(&[&["a"], &["b", "1"], &["c"], &["d"], &["e"], &["f"], &["g"]]);
        assert_eq!(commands("a; b 1 && c || d | e & f\ng"), expected);
        assert_eq!(commands("(a) ; { b; }"), words(&[&["a"], &["b"]]));
        assert_eq!(commands("if true; then rm -rf x; fi"), words(&[&["true"], &["rm", "-rf", "x"]]));
        assert_eq!(commands("for f in *; do rm -f $f; done"), words(&[&["for", "f", "in", "*"], &["rm", "-f", "$f"]]));
    }

    #[test]
    fn redirections_and_comments_are_not_arguments() {
        assert_eq!(commands("rm -rf / 2>/dev/null >out &>all"), words(&[&["rm", "-rf", "/"]]));
        assert_eq!(commands("cmd 2>&1 | tee log # rm -rf /"), words(&[&["cmd"], &["tee", "log"]]));
        assert_eq!(commands("echo a#b"), words(&[&["echo", "a#b"]]));
    }

    #[test]
    fn substitutions_run_their_commands() {
        let c = commands("echo $(rm -rf /) `sudo rm -r x` \"$(git push -f)\" <(cat y)");
        assert!(c.contains(&vec!["rm".to_string(), "-rf".into(), "/".into()]), "{c:?}");
        assert!(c.contains(&vec!["rm".to_string(), "-r".into(), "x".into()]), "{c:?}");
        assert!(c.contains(&vec!["git".to_string(), "push".into(), "-f".into()]), "{c:?}");
        assert!(c.contains(&vec!["cat".to_string(), "y".into()]), "{c:?}");
        // A string argument is not a command.
        assert_eq!(commands("echo 'rm -rf /' \"rm -rf /\""), words(&[&["echo", "rm -rf /", "rm -rf /"]]));
        let line = CommandLine::parse("$(which rm) -rf /");
        assert!(line.commands().any(|c| c[0].dynamic && c[1].text == "-rf"));
    }

    #[test]
    fn wrappers_are_looked_through() {
        for (text, inner) in [
            ("sudo -u root -E rm -rf /", "rm -rf /"),
            ("sudo -- rm -rf /", "rm -rf /"),
            ("env -i FOO=1 BAR=2 rm -rf /", "rm -rf /"),
            ("FOO=1 rm -rf /", "rm -rf /"),
            ("command -p rm -rf /", "rm -rf /"),
            ("exec -a x rm -rf /", "rm -rf /"),
            ("nohup nice -n 5 timeout -s KILL 10 rm -rf /", "rm -rf /"),
            ("time -p xargs -0 -n 1 rm -rf", "rm -rf {xargs-input}"),
            ("bash -c 'rm -rf /'", "rm -rf /"),
            ("/bin/sh -xec -- \"rm -rf /\"", "rm -rf /"),
            ("zsh -lc 'cd x && rm -rf /'", "rm -rf /"),
            ("sh -c \"bash -c 'rm -rf /'\"", "rm -rf /"),
            ("eval 'rm -rf /'", "rm -rf /"),
            ("su root -c 'rm -rf /'", "rm -rf /"),
            ("env -S 'rm -rf /'", "rm -rf /"),
            ("find . -name x -exec rm -rf {} \\;", "rm -rf {}"),
            ("ssh -p 22 host rm -rf /", "rm -rf /"),
            ("watch -n 1 rm -rf /", "rm -rf /"),
            ("busybox rm -rf /", "rm -rf /"),
        ] {
            let c = commands(text);
            let inner: Vec<String> = inner.split(' ').map(String::from).collect();
            assert!(c.contains(&inner), "{text}: {c:?}");
        }
        // A shell without -c runs a file we cannot see.
        assert_eq!(commands("bash script.sh"), words(&[&["bash", "script.sh"]]));
    }

    #[test]
    fn input_fed_to_a_shell_is_read_as_commands() {
        let rm = vec!["rm".to_string(), "-rf".into(), "/".into()];
        assert!(commands("bash <<< 'rm -rf /'").contains(&rm));
        assert!(commands("echo 'rm -rf /' | sh").contains(&rm));
        assert!(commands("printf %s 'rm -rf /' | sudo bash -s").contains(&rm));
        assert!(commands("rm${IFS}-rf${IFS}/").contains(&rm));
        // Quoted, $IFS does not split; a shell given a file reads no input.
        assert_eq!(commands("echo \"$IFS\""), words(&[&["echo", "$IFS"]]));
        assert!(!commands("echo 'rm -rf /' | bash run.sh").contains(&rm));
    }

    #[test]
    fn unbalanced_text_is_read_conservatively() {
        let line = CommandLine::parse("echo \"x; rm -rf /");
        assert!(!line.parsed);
        assert!(line.commands().any(|c| c[0].text == "rm" && c[1].text == "-rf"), "{:?}", line.commands().collect::<Vec<_>>());
        let line = CommandLine::parse("echo $(rm -rf /");
        assert!(!line.parsed && line.commands().any(|c| c[0].text == "rm"));
        assert!(CommandLine::parse("echo 'ok'").parsed);
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}rm -rf /{}", "$(".repeat(10_000), ")".repeat(10_000));
        let line = CommandLine::parse(&deep);
        assert!(!line.parsed);
        assert!(line.commands().any(|c| c[0].text == "rm"));
        let deep = (0..MAX_DEPTH + 2).fold("rm -rf /".to_string(), |s, _| format!("sh -c {}", shell_quote(&s)));
        let line = CommandLine::parse(&deep);
        assert!(!line.parsed, "too deep to follow");
        assert!(line.commands().any(|c| c[0].text == "rm"));
    }

    fn shell_quote(s: &str) -> String {
        format!("'{}'", s.replace('\'', r"'\''"))
    }

    #[test]
    fn argv_arrays_are_commands_too() {
        let line = CommandLine::from_argv(["bash", "-lc", "git push -f"]);
        let c: Vec<Vec<String>> = line.commands().map(|c| c.iter().map(|w| w.text.clone()).collect()).collect();
        assert!(c.contains(&vec!["git".to_string(), "push".into(), "-f".into()]), "{c:?}");
    }

    #[test]
    fn program_paths_and_operands() {
        assert_eq!(base_name("/usr/bin/rm"), "rm");
        assert_eq!(base_name("./rm"), "rm");
        let w: Vec<Word> = ["git", "-C", "dir", "-c", "a=b", "push", "-f"].into_iter().map(Word::literal).collect();
        assert_eq!(first_operand("git", &w), Some(5));
    }
}
