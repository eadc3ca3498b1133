//! What a simple command does beyond running its program, for approval
//! rules: the files it writes, deletes or links, the folder it moves to,
//! and whether it runs something calltape cannot read. Each program's
//! behaviour is a row of a table below, not a special case in the reader:
//! adding a program is adding a row.
//!
//! Where calltape cannot know what a command does — a program given inline
//! to an interpreter, a git alias, a patch read from a file, a program named
//! by an expansion — the command is *unreadable*, and a deny rule on
//! unreadable commands denies it (fail closed).

use super::words::{base_name, first_operand, Word, SHELLS};

/// What one simple command does to files, as far as it can be read.
#[derive(Debug, Default)]
pub struct Effects {
    /// Paths it writes, deletes, or makes a link at or to, as written.
    pub writes: Vec<Word>,
    /// A folder it moves the shell to (`cd`), as written; `~` for `cd` alone.
    pub moves_to: Option<Word>,
    /// Why it cannot be read, if it cannot.
    pub unreadable: Option<&'static str>,
    /// It applies a patch: the line's patch text decides what it writes.
    pub applies_patch: bool,
}

/// Interpreters and the options that give them a program inline (`-c`,
/// `-e`, …): calltape does not read Python, Perl or JavaScript, so any such
/// program is unreadable. A one-letter option also counts inside a cluster
/// (`perl -ne`, `python3 -Ic`) and glued to its program (`-cprint(1)`).
const INLINE_PROGRAMS: &[(&[&str], &[&str])] = &[
    (&["python", "python2", "python3", "pypy", "pypy3"], &["-c"]),
    (&["perl", "perl5"], &["-e", "-E"]),
    (&["ruby", "jruby"], &["-e"]),
    (&["node", "nodejs", "bun"], &["-e", "-p", "--eval", "--print"]),
    (&["php"], &["-r", "--run"]),
    (&["osascript", "lua", "luajit", "julia", "Rscript", "R"], &["-e"]),
    (&["pwsh", "powershell"], &["-c", "-Command", "-EncodedCommand", "-e", "-ec"]),
    (&["tclsh", "wish"], &[]),
];

/// Interpreters whose subcommand takes a program inline (`deno eval '…'`).
const INLINE_SUBCOMMANDS: &[(&str, &str)] = &[("deno", "eval"), ("bun", "eval"), ("julia", "-e")];

/// A program's name without a version suffix: `python3.12` and `python3`
/// are `python`, `perl5.36` is `perl`; a name of digits alone stays.
fn without_version(program: &str) -> &str {
    let trimmed = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if trimmed.is_empty() || trimmed.ends_with('-') {
        program
    } else {
        trimmed
    }
}

/// Interpreters that read their program from standard input when given no
/// script file (`python3 <<EOF`, `echo … | perl`).
const READS_PROGRAM_FROM_STDIN: &[&str] =
    &["python", "python2", "python3", "pypy", "pypy3", "perl", "perl5", "ruby", "node", "nodejs", "php", "lua", "Rscript", "tclsh"];

/// Options after which an interpreter runs nothing read from input.
const INFORMATION_OPTIONS: &[&str] = &["-V", "--version", "-v", "-h", "--help", "-m"];

/// Awk programs are always inline; one that runs commands or writes files
/// (`system(…)`, `print > "f"`, `| "sh"`) is unreadable.
const AWKS: &[&str] = &["awk", "gawk", "mawk", "nawk", "busybox-awk"];
const AWK_EFFECTS: &[&str] = &["system", "|", ">\"", "> \"", ">>", "getline"];

/// Which operands a program writes, deletes or links.
enum Writes {
    /// Every operand (`tee a b`, `rm x`, `touch f`, `ln`).
    Operands,
    /// Every operand but the first (`chmod MODE files…`, `sed -i SCRIPT files…`).
    AfterFirst,
    /// The last operand, or the value of `-t` (`cp a b DEST`, `mv`).
    Destination,
    /// The values of these options (`curl -o FILE`, `dd of=FILE`).
    Options(&'static [&'static str]),
}

/// Programs that write files named on their command line. `ln` is here
/// with every operand: a link's target outside the workspace escapes it as
/// surely as a link made outside.
const WRITERS: &[(&[&str], Writes)] = &[
    (&["tee", "rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "ln", "link", "mkfifo", "mknod"], Writes::Operands),
    (&["chmod", "chown", "chgrp", "setfacl"], Writes::AfterFirst),
    (&["cp", "mv", "install", "rsync", "scp"], Writes::Destination),
    (&["curl"], Writes::Options(&["-o", "--output"])),
    (&["wget"], Writes::Options(&["-O", "--output-document", "-P", "--directory-prefix"])),
    (&["dd"], Writes::Options(&["of="])),
];

/// Programs that apply a patch, by name or (`git apply`) by subcommand.
const PATCHERS: &[&str] = &["patch", "git apply", "git am"];

/// Folders a shell moves to.
const MOVES: &[&str] = &["cd", "pushd"];

/// git's own commands (as of git 2.4x). Any other word where git expects
/// one is an alias from a configuration calltape cannot see.
pub const GIT_COMMANDS: &[&str] = &[
    "add",
    "am",
    "annotate",
    "apply",
    "archive",
    "bisect",
    "blame",
    "branch",
    "bugreport",
    "bundle",
    "cat-file",
    "check-attr",
    "check-ignore",
    "check-mailmap",
    "check-ref-format",
    "checkout",
    "checkout-index",
    "cherry",
    "cherry-pick",
    "citool",
    "clean",
    "clone",
    "commit",
    "commit-graph",
    "commit-tree",
    "config",
    "count-objects",
    "credential",
    "describe",
    "diagnose",
    "diff",
    "diff-files",
    "diff-index",
    "diff-tree",
    "difftool",
    "fast-export",
    "fast-import",
    "fetch",
    "fetch-pack",
    "filter-branch",
    "for-each-ref",
    "for-each-repo",
    "format-patch",
    "fsck",
    "gc",
    "get-tar-commit-id",
    "grep",
    "gui",
    "hash-object",
    "help",
    "index-pack",
    "init",
    "instaweb",
    "interpret-trailers",
    "log",
    "ls-files",
    "ls-remote",
    "ls-tree",
    "mailinfo",
    "mailsplit",
    "maintenance",
    "merge",
    "merge-base",
    "merge-file",
    "merge-tree",
    "mergetool",
    "mktag",
    "mktree",
    "multi-pack-index",
    "mv",
    "name-rev",
    "notes",
    "pack-objects",
    "pack-refs",
    "prune",
    "prune-packed",
    "pull",
    "push",
    "range-diff",
    "read-tree",
    "rebase",
    "reflog",
    "remote",
    "repack",
    "replace",
    "request-pull",
    "rerere",
    "reset",
    "restore",
    "rev-list",
    "rev-parse",
    "revert",
    "rm",
    "send-email",
    "shortlog",
    "show",
    "show-branch",
    "show-ref",
    "sparse-checkout",
    "stash",
    "status",
    "stripspace",
    "submodule",
    "switch",
    "symbolic-ref",
    "tag",
    "unpack-objects",
    "update-index",
    "update-ref",
    "var",
    "verify-commit",
    "verify-pack",
    "verify-tag",
    "version",
    "whatchanged",
    "worktree",
    "write-tree",
    "lfs",
];

/// The effects of one simple command (wrappers already removed).
pub fn of(words: &[Word]) -> Effects {
    let mut effects = Effects::default();
    let Some(first) = words.first() else { return effects };
    if first.dynamic {
        effects.unreadable = Some("a program named by an expansion");
        return effects;
    }
    let program = without_version(base_name(&first.text));
    let args = &words[1..];
    let (options, operands) = split(args);
    if let Some((_, flags)) = INLINE_PROGRAMS.iter().find(|(names, _)| names.contains(&program)) {
        if options.iter().any(|o| flags.iter().any(|f| gives_program(f, &o.text))) {
            effects.unreadable = Some("a program given inline to an interpreter");
        }
    }
    if operands.first().is_some_and(|sub| INLINE_SUBCOMMANDS.contains(&(program, sub.text.as_str()))) {
        effects.unreadable = Some("a program given inline to an interpreter");
    }
    if READS_PROGRAM_FROM_STDIN.contains(&program)
        && effects.unreadable.is_none()
        && !options.iter().any(|o| INFORMATION_OPTIONS.iter().any(|i| o.text == *i || (*i == "-m" && o.text.starts_with("-m"))))
        && operands.first().is_none_or(|w| w.text == "-")
    {
        effects.unreadable = Some("a program read from standard input");
    }
    // `python3 <(curl …)`, `bash "$SCRIPT"`, `sh -c "$CMD"`: the program is an expansion.
    let interpreter = READS_PROGRAM_FROM_STDIN.contains(&program) || SHELLS.contains(&program);
    if interpreter && operands.first().is_some_and(|w| w.dynamic) {
        effects.unreadable = Some("a program named by an expansion");
    }
    let awk_program = operands.first().filter(|_| AWKS.contains(&program) && !options.iter().any(|o| o.text.starts_with("-f")));
    if awk_program.is_some_and(|p| p.dynamic || AWK_EFFECTS.iter().any(|e| p.text.contains(e))) {
        effects.unreadable = Some("an awk program that runs commands or writes files");
    }
    if program == "git" {
        git(words, &mut effects);
    }
    let command = match program {
        "git" => first_operand("git", words).map(|i| format!("git {}", words[i].text)),
        p => Some(p.to_string()),
    };
    if command.as_deref().is_some_and(|c| PATCHERS.contains(&c)) {
        effects.applies_patch = true;
        // `patch FILE`: the file patched; `-o OUT`, `-d DIR` and `-i FILE` as named.
        // `git apply --directory=DIR` applies under DIR.
        effects.writes.extend(option_values(args, &["--directory"]));
        if program == "patch" {
            effects.writes.extend(operands.iter().take(1).map(|w| (*w).clone()));
            effects.writes.extend(option_values(args, &["-o", "--output"]));
            effects.moves_to = option_values(args, &["-d", "--directory"]).into_iter().next();
        }
    }
    if MOVES.contains(&program) {
        effects.moves_to = Some(operands.first().map_or_else(|| Word { text: "~".into(), dynamic: false }, |w| (*w).clone()));
    }
    if let Some((_, writes)) = WRITERS.iter().find(|(names, _)| names.contains(&program)) {
        let operands: Vec<Word> = operands.iter().map(|w| (*w).clone()).collect();
        match writes {
            Writes::Operands => effects.writes.extend(operands),
            Writes::AfterFirst => effects.writes.extend(operands.into_iter().skip(1)),
            Writes::Destination => {
                let target = option_values(args, &["-t", "--target-directory"]);
                if target.is_empty() {
                    effects.writes.extend(operands.last().cloned());
                } else {
                    effects.writes.extend(target);
                }
            }
            Writes::Options(names) => effects.writes.extend(option_values(args, names)),
        }
        if program == "ln" {
            effects.writes.extend(symlink_targets(args));
        }
    }
    // `sed -i` writes the files it edits.
    if program == "sed" && options.iter().any(|o| o.text.starts_with("-i") || o.text.starts_with("--in-place")) {
        let scripted = options.iter().any(|o| matches!(o.text.as_str(), "-e" | "-f" | "--expression" | "--file"));
        effects.writes.extend(operands.iter().skip(usize::from(!scripted)).map(|w| (*w).clone()));
    }
    effects
}

/// git settings that make git run a program or read more settings: set on
/// the command line or by `git config`, they are unreadable. (`alias.*` on
/// the command line is read instead: see `shell`.)
const GIT_RUNNING_SETTINGS: &[&str] = &[
    "alias.",
    "include.",
    "includeif.",
    "core.hookspath",
    "core.sshcommand",
    "core.fsmonitor",
    "core.pager",
    "core.editor",
    "core.gitproxy",
    "diff.external",
    "credential.helper",
    "sequence.editor",
    "gpg.program",
    "filter.",
    "merge.",
    "pager.",
];

/// git: an alias given on the command line is read by the shell reader; one
/// defined by the model (`git config alias.x …`, a write to `.git/config`)
/// or hidden in an expansion is unreadable. A word git does not know where
/// it expects a command is then git's error, or an alias of the user's own
/// configuration.
fn git(words: &[Word], effects: &mut Effects) {
    let runs_program = |key: &str| {
        let key = key.to_lowercase();
        GIT_RUNNING_SETTINGS.iter().any(|s| key.starts_with(s)) && !key.starts_with("alias.")
    };
    let sub = first_operand("git", words);
    for (j, w) in words[..sub.unwrap_or(words.len())].iter().enumerate() {
        let setting = match w.text.strip_prefix("-c") {
            Some("") => words.get(j + 1),
            Some(_) => Some(w),
            None => None,
        };
        if setting.is_some_and(|s| s.dynamic || runs_program(s.text.trim_start_matches("-c"))) {
            effects.unreadable = Some("git settings that run a program");
        }
        if w.text.starts_with("--config-env") || w.text.starts_with("--exec-path=") {
            effects.unreadable = Some("git settings from the environment");
        }
    }
    let Some(i) = sub else { return };
    if words[i].dynamic {
        effects.unreadable = Some("a git command named by an expansion");
    } else if words[i].text == "config" {
        // `git config alias.nuke 'push -f'`, `--add`, `--global`, `set`: any
        // operand naming a setting that runs something.
        if words[i + 1..].iter().any(|w| w.dynamic || runs_program(&w.text) || w.text.to_lowercase().starts_with("alias.")) {
            effects.unreadable = Some("a git alias or setting that runs a program");
        }
        if words[i + 1..].iter().any(|w| matches!(w.text.as_str(), "-e" | "--edit")) {
            effects.unreadable = Some("git configuration edited in an editor");
        }
    }
}

/// Files that hold git settings: writing one may define an alias.
pub fn is_git_config(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path.ends_with(".git/config")
        || path == ".git"
        || path.ends_with("/.git")
        || path.ends_with(".gitconfig")
        || path.ends_with("git/config")
}

/// Whether option word `word` gives an inline program with `flag`.
fn gives_program(flag: &str, word: &str) -> bool {
    if flag.starts_with("--") || flag.len() > 2 {
        return word == flag || word.strip_prefix(flag).is_some_and(|rest| rest.starts_with('='));
    }
    // `-c`, `-Ic`, `-cprint(1)`: a cluster of one-letter options, the program letter among them.
    let letter = &flag[1..];
    !word.starts_with("--") && word.starts_with('-') && word[1..].contains(letter)
}

/// A symbolic link's target is read from the link's folder: `ln -s ../../etc/x sub/l`
/// points at `../../etc/x` from `sub/`. Both readings are judged.
fn symlink_targets(args: &[Word]) -> Vec<Word> {
    let (_, operands) = split(args);
    let [targets @ .., link] = operands.as_slice() else { return Vec::new() };
    let link = link.text.trim_end_matches('/');
    let folder = link.rsplit_once('/').map_or("", |(f, _)| f);
    let mut out = Vec::new();
    for t in targets {
        if t.text.starts_with('/') || t.text.starts_with('~') {
            continue;
        }
        for base in [folder, link] {
            if !base.is_empty() {
                out.push(Word { text: format!("{base}/{}", t.text), dynamic: t.dynamic });
            }
        }
    }
    out
}

/// Options and operands: a word starting with `-` before `--` is an option.
fn split(words: &[Word]) -> (Vec<&Word>, Vec<&Word>) {
    let (mut options, mut operands) = (Vec::new(), Vec::new());
    let mut ended = false;
    for w in words {
        if !ended && w.text == "--" {
            ended = true;
        } else if !ended && w.text.len() > 1 && w.text.starts_with('-') {
            options.push(w);
        } else {
            operands.push(w);
        }
    }
    (options, operands)
}

/// The values of option `names` given as `-o V`, `-oV`, `--output=V` or `of=V`.
fn option_values(words: &[Word], names: &[&str]) -> Vec<Word> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        for name in names {
            let value = if name.ends_with('=') {
                w.text.strip_prefix(name)
            } else if w.text == *name {
                words.get(i + 1).map(|v| v.text.as_str())
            } else if name.starts_with("--") {
                w.text.strip_prefix(name).and_then(|v| v.strip_prefix('='))
            } else {
                w.text.strip_prefix(name).filter(|v| !v.is_empty())
            };
            if let Some(v) = value {
                let dynamic = w.dynamic || (w.text == *name && words.get(i + 1).is_some_and(|v| v.dynamic));
                out.push(Word { text: v.to_string(), dynamic });
            }
        }
    }
    out
}

/// The paths a patch names, in every header form: unified (`--- a/x`,
/// `+++ b/x`), git (`diff --git a/x b/y`, `rename from/to`, `copy from/to`),
/// context (`*** x`), `Index: x`, and the apply_patch format (`*** Add
/// File: x`, `*** Update File:`, `*** Delete File:`, `*** Move to:`). Lines
/// are also split at a written `\n`, as `printf` and `echo -e` would.
pub fn patch_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.split('\n').flat_map(|l| l.split("\\n")) {
        let line = line.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '$'));
        let named = [
            "*** Add File:",
            "*** Update File:",
            "*** Delete File:",
            "*** Move to:",
            "rename from ",
            "rename to ",
            "copy from ",
            "copy to ",
            "Index: ",
            "--- ",
            "+++ ",
            "*** ",
        ]
        .iter()
        .find_map(|h| line.strip_prefix(h));
        if let Some(rest) = named {
            // A unified header may end in a tab and a timestamp.
            let path = rest.split('\t').next().unwrap_or(rest).trim();
            if !path.is_empty() && !path.starts_with("Begin Patch") && !path.starts_with("End Patch") {
                out.push(path.to_string());
            }
        } else if let Some(rest) = line.strip_prefix("diff --git ") {
            out.extend(rest.split_whitespace().map(String::from));
        }
    }
    // `a/x` and `b/x` name `x` once the first component is stripped (`-p1`).
    let stripped: Vec<String> = out.iter().filter_map(|p| p.split_once('/').map(|(_, rest)| rest.to_string())).collect();
    out.extend(stripped);
    out.retain(|p| p != "/dev/null" && !p.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn effects(text: &str) -> Effects {
        of(&text.split(' ').map(|w| Word { text: w.into(), dynamic: w.contains('$') }).collect::<Vec<_>>())
    }

    fn writes(text: &str) -> Vec<String> {
        effects(text).writes.into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn inline_programs_and_programs_from_input_are_unreadable() {
        for text in [
            "python3 -c print(1)",
            "python -Ic x",
            "python3 -cimport",
            "perl -ne unlink",
            "perl -E say",
            "node --eval x",
            "node --eval=x",
            "node -p x",
            "ruby -e x",
            "php -r x",
            "osascript -e x",
            "python3",
            "perl -",
            "$PY -c x",
            "awk BEGIN{system(\"rm\")}",
        ] {
            assert!(effects(text).unreadable.is_some(), "{text}");
        }
        for text in ["python3 script.py", "python3 -m pytest", "python3 --version", "node app.js", "awk {print}", "ls -la"] {
            assert!(effects(text).unreadable.is_none(), "{text}");
        }
    }

    #[test]
    fn writers_name_what_they_write() {
        assert_eq!(writes("tee -a /etc/x y"), ["/etc/x", "y"]);
        assert_eq!(writes("cp -r a b /etc"), ["/etc"]);
        assert_eq!(writes("mv -t /etc a b"), ["/etc"]);
        assert_eq!(writes("dd if=a of=/dev/sda"), ["/dev/sda"]);
        assert_eq!(writes("curl -o /etc/x http://h"), ["/etc/x"]);
        assert_eq!(writes("sed -i s/a/b/ /etc/hosts"), ["/etc/hosts"]);
        assert_eq!(writes("ln -s ../../etc/passwd sub/l"), ["../../etc/passwd", "sub/l", "sub/../../etc/passwd", "sub/l/../../etc/passwd"]);
        assert_eq!(writes("patch -p1 /etc/x"), ["/etc/x"]);
        assert!(effects("git apply").applies_patch && effects("patch -p1").applies_patch);
        assert_eq!(effects("cd /etc").moves_to.map(|w| w.text).as_deref(), Some("/etc"));
    }

    #[test]
    fn git_aliases_defined_by_the_model_are_unreadable() {
        assert!(effects("git config alias.p push\\ -f").unreadable.is_some());
        assert!(effects("git config --global Alias.P x").unreadable.is_some());
        assert!(effects("git -c core.pager=rm log").unreadable.is_some());
        assert!(effects("git -ccore.sshCommand=x fetch").unreadable.is_some());
        assert!(effects("git $X").unreadable.is_some());
        assert!(effects("git --config-env=alias.p=V p").unreadable.is_some());
        assert!(effects("git -C x status").unreadable.is_none());
        assert!(effects("git config user.name me").unreadable.is_none());
        assert!(is_git_config(".git/config") && is_git_config("/root/.gitconfig") && !is_git_config("src/config"));
    }

    #[test]
    fn patch_headers_in_every_form() {
        let text = "diff --git a/x b/../../etc/y\nrename to /etc/z\n--- a/k\t2024\n+++ /etc/passwd\n*** Add File: ../q\nIndex: /i\n*** Begin Patch";
        let paths = patch_paths(text);
        for p in ["b/../../etc/y", "../../etc/y", "/etc/z", "/etc/passwd", "../q", "/i", "a/k", "k"] {
            assert!(paths.contains(&p.to_string()), "{p}: {paths:?}");
        }
        assert!(patch_paths("printf 'x\\n+++ /etc/p\\n'").contains(&"/etc/p".to_string()));
        assert!(!patch_paths("--- /dev/null").contains(&"/dev/null".to_string()));
    }
}
