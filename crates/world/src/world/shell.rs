//! A few shell commands answered from the workspace, parsed and never run:
//! `pwd`, `ls`, `cat`, `grep`, `git status`, `git diff`. A command this
//! module cannot answer faithfully (pipes, redirections, expansions, other
//! programs, unknown flags) gives `None`, so the caller falls back to the
//! scenario's scripted results. Nothing reaches a real shell.

use super::diff;
use super::path::resolve;
use super::tools::path_glob;
use super::tree::{ChangeKind, Workspace};

/// What a command printed (stdout and stderr in order) and its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellReply {
    pub output: String,
    pub exit_code: i32,
}

impl ShellReply {
    fn ok(output: String) -> ShellReply {
        ShellReply { output, exit_code: 0 }
    }
}

/// Answers `command` from the workspace, or `None` if it cannot.
pub fn run(ws: &Workspace, command: &str) -> Option<ShellReply> {
    let mut command = command.trim();
    // `git log | cat` is how agents avoid pagers; the pipe changes nothing here.
    if let Some(rest) = command.strip_suffix("| cat") {
        command = rest.trim_end();
    }
    // `cd /workspace && …` (or `cd .`) is where the commands already run.
    if let Some(rest) = command.strip_prefix("cd ") {
        let (dir, rest) = rest.split_once("&&")?;
        let dir = words(dir)?;
        if dir.len() != 1 || !resolve(ws.mount(), &dir[0]).ok()?.is_empty() {
            return None;
        }
        command = rest.trim();
    }
    let argv = words(command)?;
    let (program, args) = argv.split_first()?;
    match program.as_str() {
        "pwd" if args.is_empty() => Some(ShellReply::ok(format!("{}\n", ws.mount()))),
        "ls" => ls(ws, args),
        "cat" => cat(ws, args),
        "grep" => grep(ws, args),
        "git" => git(ws, args),
        _ => None,
    }
}

/// Splits a command into words as a shell would, or `None` when the shell
/// would do more than split: pipes, lists, redirections, substitutions,
/// variables, globs, `~`, comments.
fn words(command: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '$' | '`' => return None,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => word.push(c),
                            '\n' => {}
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' | '$' | '`' => return None,
            '~' | '#' if !in_word => return None,
            // A glob: the shell would expand it against real files, except in
            // an option's value (`--include=*.rs`), which matches no file.
            '*' | '?' | '[' if !(word.starts_with("--") && word.contains('=')) => return None,
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        out.push(word);
    }
    Some(out)
}

/// Short options (`-rn`) as letters, if every one is in `allowed`.
fn short_flags(arg: &str, allowed: &str) -> Option<Vec<char>> {
    let letters: Vec<char> = arg.strip_prefix('-')?.chars().collect();
    letters.iter().all(|c| allowed.contains(*c)).then_some(letters)
}

/// What an operand names: a file's text, a folder, or nothing.
enum Operand<'a> {
    File(&'a str),
    Dir(String),
    Missing,
}

fn operand<'a>(ws: &'a Workspace, raw: &str) -> Operand<'a> {
    // Outside the workspace nothing exists: the world is the tree.
    match resolve(ws.mount(), raw) {
        Ok(rel) => match ws.file(&rel) {
            Some(text) => Operand::File(text),
            None if ws.is_dir(&rel) => Operand::Dir(rel),
            None => Operand::Missing,
        },
        Err(_) => Operand::Missing,
    }
}

/// `ls [-1aApF] [path...]`: names one a line, as `ls` prints into a pipe
/// (sorted bytewise, as in the C locale; dotfiles only with `-a`/`-A`).
fn ls(ws: &Workspace, args: &[String]) -> Option<ShellReply> {
    let (mut all, mut almost, mut slash) = (false, false, false);
    let mut paths = Vec::new();
    for a in args {
        if a.starts_with('-') && a.len() > 1 {
            for f in short_flags(a, "1aApF")? {
                match f {
                    'a' => all = true,
                    'A' => almost = true,
                    'p' | 'F' => slash = true,
                    _ => {}
                }
            }
        } else {
            paths.push(a.as_str());
        }
    }
    if paths.is_empty() {
        paths.push(".");
    }
    let (mut errors, mut files, mut dirs) = (String::new(), Vec::new(), Vec::new());
    for p in &paths {
        match operand(ws, p) {
            Operand::File(_) => files.push(p.to_string()),
            Operand::Dir(rel) => dirs.push((p.to_string(), rel)),
            Operand::Missing => errors.push_str(&format!("ls: cannot access '{p}': No such file or directory\n")),
        }
    }
    let mut out = errors.clone();
    files.sort();
    for f in &files {
        out.push_str(f);
        out.push('\n');
    }
    let headed = paths.len() > 1;
    for (i, (shown, rel)) in dirs.iter().enumerate() {
        if headed {
            if i > 0 || !files.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("{shown}:\n"));
        }
        let mut names: Vec<String> = Vec::new();
        if all {
            names.push(if slash { "./".into() } else { ".".into() });
            names.push(if slash { "../".into() } else { "..".into() });
        }
        for e in ws.entries(rel).unwrap_or_default() {
            if e.name.starts_with('.') && !(all || almost) {
                continue;
            }
            names.push(if e.is_dir && slash { format!("{}/", e.name) } else { e.name });
        }
        for n in names {
            out.push_str(&n);
            out.push('\n');
        }
    }
    Some(ShellReply { output: out, exit_code: if errors.is_empty() { 0 } else { 2 } })
}

/// `cat [-n] FILE...`: the files' text in order.
fn cat(ws: &Workspace, args: &[String]) -> Option<ShellReply> {
    let mut numbered = false;
    let mut paths = Vec::new();
    for a in args {
        if a == "-" {
            // Standard input, which no scenario gives.
            return None;
        }
        if a.starts_with('-') && a.len() > 1 {
            numbered |= !short_flags(a, "n")?.is_empty();
        } else {
            paths.push(a.as_str());
        }
    }
    if paths.is_empty() {
        // It would read standard input, which no scenario gives.
        return None;
    }
    let (mut out, mut code, mut line_no) = (String::new(), 0, 0);
    for p in paths {
        match operand(ws, p) {
            Operand::File(text) if numbered => {
                for line in text.split_inclusive('\n') {
                    line_no += 1;
                    out.push_str(&format!("{line_no:>6}\t{line}"));
                }
            }
            Operand::File(text) => out.push_str(text),
            Operand::Dir(_) => {
                out.push_str(&format!("cat: {p}: Is a directory\n"));
                code = 1;
            }
            Operand::Missing => {
                out.push_str(&format!("cat: {p}: No such file or directory\n"));
                code = 1;
            }
        }
    }
    Some(ShellReply { output: out, exit_code: code })
}

/// A basic regular expression (grep's default) in the regex crate's syntax:
/// `\( \) \| \{ \} \+ \?` are the operators, their bare forms literal.
fn from_basic(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(o @ ('(' | ')' | '|' | '{' | '}' | '+' | '?')) => out.push(o),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '|' | '{' | '}' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `grep [-nrRiEFlHhvw] [-e PATTERN] [--include=GLOB] [--exclude=GLOB] PATTERN [path...]`.
fn grep(ws: &Workspace, args: &[String]) -> Option<ShellReply> {
    let mut flags = String::new();
    let (mut pattern, mut paths, mut include, mut exclude) = (None, Vec::new(), Vec::new(), Vec::new());
    let mut it = args.iter();
    let mut options_done = false;
    while let Some(a) = it.next() {
        if options_done || !a.starts_with('-') || a == "-" {
            if pattern.is_none() {
                pattern = Some(a.clone());
            } else {
                paths.push(a.as_str());
            }
        } else if a == "--" {
            options_done = true;
        } else if a == "-e" {
            pattern = Some(it.next()?.clone());
        } else if let Some(g) = a.strip_prefix("--include=") {
            include.push(g.to_string());
        } else if let Some(g) = a.strip_prefix("--exclude=") {
            exclude.push(g.to_string());
        } else if a == "--color=never" || a == "--no-color" {
        } else {
            flags.extend(short_flags(a, "nrRiEFlHhvw")?);
        }
    }
    let pattern = pattern?;
    let has = |f: char| flags.contains(f);
    let recursive = has('r') || has('R');
    if paths.is_empty() && !recursive {
        return None;
    }
    let mut expr = if has('F') {
        regex::escape(&pattern)
    } else if has('E') {
        pattern.clone()
    } else {
        from_basic(&pattern)
    };
    if has('w') {
        expr = format!(r"\b(?:{expr})\b");
    }
    let re = match regex::RegexBuilder::new(&expr).case_insensitive(has('i')).size_limit(1 << 20).build() {
        Ok(re) => re,
        Err(e) => return Some(ShellReply { output: format!("grep: invalid pattern {pattern:?}: {e}\n"), exit_code: 2 }),
    };
    let implicit = paths.is_empty();
    if implicit {
        paths.push(".");
    }
    let prefix = has('H') || (!has('h') && (recursive || paths.len() > 1));
    let wanted =
        |name: &str| (include.is_empty() || include.iter().any(|g| path_glob(g, name))) && !exclude.iter().any(|g| path_glob(g, name));
    let (mut out, mut matched, mut failed) = (String::new(), false, false);
    for p in paths {
        let files: Vec<(String, &str)> = match operand(ws, p) {
            Operand::File(text) => vec![(p.to_string(), text)],
            Operand::Dir(rel) if recursive => ws
                .files_under(&rel)
                .map(|(path, text)| {
                    let below = if rel.is_empty() { path } else { &path[rel.len() + 1..] };
                    let shown = if implicit { below.to_string() } else { format!("{}/{below}", p.trim_end_matches('/')) };
                    (shown, text)
                })
                .collect(),
            Operand::Dir(_) => {
                out.push_str(&format!("grep: {p}: Is a directory\n"));
                failed = true;
                continue;
            }
            Operand::Missing => {
                out.push_str(&format!("grep: {p}: No such file or directory\n"));
                failed = true;
                continue;
            }
        };
        for (shown, text) in files {
            if !wanted(&shown) {
                continue;
            }
            for (i, line) in text.lines().enumerate() {
                if re.is_match(line) == has('v') {
                    continue;
                }
                matched = true;
                if has('l') {
                    out.push_str(&format!("{shown}\n"));
                    break;
                }
                if prefix {
                    out.push_str(&format!("{shown}:"));
                }
                if has('n') {
                    out.push_str(&format!("{}:", i + 1));
                }
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    // grep's exit status: 2 on an error, else 0 when a line matched, else 1.
    let exit_code = if failed {
        2
    } else if matched {
        0
    } else {
        1
    };
    Some(ShellReply { output: out, exit_code })
}

/// `git status` and `git diff` against the starting tree. Nothing is ever
/// staged, so changed files are "not staged" and new ones untracked; the
/// branch is called `main`.
fn git(ws: &Workspace, args: &[String]) -> Option<ShellReply> {
    let args: Vec<&str> = args.iter().map(String::as_str).skip_while(|a| *a == "--no-pager").collect();
    let (sub, rest) = args.split_first()?;
    match *sub {
        "status" => git_status(ws, rest),
        "diff" => git_diff(ws, rest),
        _ => None,
    }
}

/// The untracked paths as git shows them: a new folder once, with a slash.
fn untracked(ws: &Workspace) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in ws.changes().into_iter().filter(|c| c.kind == ChangeKind::Added) {
        // The highest folder of the path that did not exist at the start.
        let mut shown = c.path.clone();
        let mut at = 0;
        while let Some(i) = c.path[at..].find('/') {
            let dir = &c.path[..at + i];
            if !ws.was_dir(dir) {
                shown = format!("{dir}/");
                break;
            }
            at += i + 1;
        }
        if out.last() != Some(&shown) {
            out.push(shown);
        }
    }
    out
}

fn git_status(ws: &Workspace, args: &[&str]) -> Option<ShellReply> {
    let short = match args {
        [] => false,
        ["-s" | "--short" | "--porcelain" | "--porcelain=v1"] => true,
        _ => return None,
    };
    let changes = ws.changes();
    let tracked: Vec<_> = changes.iter().filter(|c| c.kind != ChangeKind::Added).collect();
    let new = untracked(ws);
    let mut out = String::new();
    if short {
        for c in &tracked {
            out.push_str(&format!(" {} {}\n", if c.kind == ChangeKind::Deleted { 'D' } else { 'M' }, c.path));
        }
        for p in &new {
            out.push_str(&format!("?? {p}\n"));
        }
        return Some(ShellReply::ok(out));
    }
    out.push_str("On branch main\n");
    if !tracked.is_empty() {
        let deleted = tracked.iter().any(|c| c.kind == ChangeKind::Deleted);
        out.push_str("Changes not staged for commit:\n");
        let verb = if deleted { "add/rm" } else { "add" };
        out.push_str(&format!("  (use \"git {verb} <file>...\" to update what will be committed)\n"));
        out.push_str("  (use \"git restore <file>...\" to discard changes in working directory)\n");
        for c in &tracked {
            let label = if c.kind == ChangeKind::Deleted { "deleted:    " } else { "modified:   " };
            out.push_str(&format!("\t{label}{}\n", c.path));
        }
        out.push('\n');
    }
    if !new.is_empty() {
        out.push_str("Untracked files:\n  (use \"git add <file>...\" to include in what will be committed)\n");
        for p in &new {
            out.push_str(&format!("\t{p}\n"));
        }
        out.push('\n');
    }
    out.push_str(match (tracked.is_empty(), new.is_empty()) {
        (true, true) => "nothing to commit, working tree clean\n",
        (true, false) => "nothing added to commit but untracked files present (use \"git add\" to track)\n",
        _ => "no changes added to commit (use \"git add\" and/or \"git commit -a\")\n",
    });
    Some(ShellReply::ok(out))
}

fn git_diff(ws: &Workspace, args: &[&str]) -> Option<ShellReply> {
    let (mut names, mut status, mut staged) = (false, false, false);
    let mut filters: Vec<String> = Vec::new();
    let mut paths_only = false;
    for a in args {
        match *a {
            _ if paths_only => filters.push(resolve(ws.mount(), a).ok()?),
            "--" => paths_only = true,
            "HEAD" | "--no-color" | "--color=never" => {}
            "--cached" | "--staged" => staged = true,
            "--name-only" => names = true,
            "--name-status" => status = true,
            a if a.starts_with('-') => return None,
            // A path, if it names something now or at the start.
            a => {
                let rel = resolve(ws.mount(), a).ok()?;
                if ws.file(&rel).is_none() && ws.start_file(&rel).is_none() && !ws.is_dir(&rel) && !ws.was_dir(&rel) {
                    return Some(ShellReply {
                        output: format!(
                            "fatal: ambiguous argument '{a}': unknown revision or path not in the working tree.\n\
                             Use '--' to separate paths from revisions, like this:\n'git <command> [<revision>...] -- [<file>...]'\n"
                        ),
                        exit_code: 128,
                    });
                }
                filters.push(rel);
            }
        }
    }
    if staged {
        // Nothing is ever staged.
        return Some(ShellReply::ok(String::new()));
    }
    let under = |p: &str| filters.is_empty() || filters.iter().any(|f| f.is_empty() || p == f || p.starts_with(&format!("{f}/")));
    let mut out = String::new();
    // `git diff` shows tracked files only: untracked (added) ones are left out.
    for c in ws.changes().into_iter().filter(|c| c.kind != ChangeKind::Added && under(&c.path)) {
        if status {
            out.push_str(&format!("{}\t{}\n", if c.kind == ChangeKind::Deleted { 'D' } else { 'M' }, c.path));
        } else if names {
            out.push_str(&format!("{}\n", c.path));
        } else {
            out.push_str(&diff::unified(&c.path, ws.start_file(&c.path), ws.file(&c.path)));
        }
    }
    Some(ShellReply::ok(out))
}

#[cfg(test)]
mod tests;
