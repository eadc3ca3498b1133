//! A command's words, and how a program's options and operands are told
//! apart among them: what `lexer` produces and `shell`, `effects` and
//! `conditions` read.

/// How deep substitutions and `sh -c` scripts are followed; deeper is unparseable.
pub const MAX_DEPTH: usize = 8;

/// One word after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The word's text; expansions (`$X`, `$(…)`) are kept as written.
    pub text: String,
    /// Holds an expansion whose value is unknown until the shell runs it.
    pub dynamic: bool,
}

impl Word {
    pub(super) fn literal(text: impl Into<String>) -> Word {
        Word { text: text.into(), dynamic: false }
    }
}

/// The program's name without its directory: `/usr/bin/rm` is `rm`.
pub fn base_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Options that take a value in the next word, per wrapper (short and long).
pub(super) fn value_options(program: &str) -> &'static [&'static str] {
    match program {
        "sudo" => &[
            "-u",
            "-g",
            "-C",
            "-D",
            "-h",
            "-p",
            "-r",
            "-t",
            "-T",
            "-U",
            "--user",
            "--group",
            "--chdir",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
            "--host",
            "--close-from",
            "--command-timeout",
        ],
        "doas" => &["-u", "-C"],
        "env" => &["-u", "-C", "-S", "--unset", "--chdir", "--split-string"],
        "exec" => &["-a"],
        "nice" => &["-n", "--adjustment"],
        "ionice" => &["-c", "-n", "-p", "--class", "--classdata"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "time" => &["-f", "-o", "--format", "--output"],
        "xargs" => &[
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "-d",
            "-E",
            "-a",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--delimiter",
            "--arg-file",
            "--eof",
            "--replace",
            "--process-slot-var",
        ],
        "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
        "watch" => &["-n", "-d", "--interval", "--differences"],
        "ssh" => {
            &["-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e", "-I", "-m", "-O", "-Q", "-S", "-W", "-w", "-B"]
        }
        "su" => &["-s", "-g", "-G", "--shell", "--group", "--supp-group"],
        "git" => &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path"],
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "ash" | "mksh" | "fish" | "csh" | "tcsh" => {
            &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]
        }
        _ => &[],
    }
}

/// Shells: they run a script given with `-c`, a file, or what they read on input.
pub const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "fish", "csh", "tcsh"];

/// The index of the first word after `program`'s options (`--` consumed).
pub(super) fn after_options(program: &str, words: &[Word], from: usize) -> usize {
    let takes_value = value_options(program);
    let mut i = from;
    while i < words.len() {
        let w = words[i].text.as_str();
        if w == "--" {
            return i + 1;
        }
        let is_option = w.len() > 1 && (w.starts_with('-') || (SHELLS.contains(&program) && w.starts_with('+')));
        if !is_option {
            return i;
        }
        // `-u root` takes the next word; `-uroot` and `--user=root` do not.
        i += if takes_value.contains(&w) { 2 } else { 1 };
    }
    i
}

/// The first word that is not an option (or an option's value): a subcommand.
pub fn first_operand(program: &str, words: &[Word]) -> Option<usize> {
    let i = after_options(program, words, 1);
    (i < words.len()).then_some(i)
}
