//! The conditions of an approval rule's `when`: which argument (a name or a
//! JSON Pointer, `*` for every element) and what it must be — a value rule
//! as elsewhere (exact, `{regex}`, `{any}`, `{absent}`), a shell command
//! pattern (`{program = "rm", any_flag = ["-r", "-f"]}`) judged on what the
//! command runs, or a path rule (`{path_outside = "/workspace"}`) judged on
//! the normalised path.
//!
//! Deny rules match in doubt and approve rules do not: a command the shell
//! would refuse is read conservatively for a deny rule, never for an approve
//! rule (see `shell`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::paths::{self, Base};
use super::shell::{self, CommandLine, Word};
use crate::core::glob::glob_matches;
use crate::core::matcher::StringComparison;
use crate::core::matcher::ValueMatcher;

/// What one argument must be for a rule to match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Value", into = "Value")]
pub enum Condition {
    /// Exact, `{regex}`, `{any = true}` or `{absent = true}`.
    Value(ValueMatcher),
    /// A shell command that runs a program (with flags or arguments).
    Command(CommandPattern),
    /// A file path inside or outside some directories.
    Path(PathPattern),
    /// What a command line or a patch does to files, or that it cannot be read.
    Effect(EffectPattern),
}

/// A pattern on what a command line (or a patch's text) does, beyond which
/// programs it runs. Each field given must hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectPattern {
    /// A command line that writes, deletes or links a path outside all of
    /// these folders (`> file`, `tee`, `cp`, `rm`, `ln`, `sed -i`, a patch's
    /// targets, …; see `effects`), or one whose place calltape cannot know
    /// (`> "$OUT"`).
    #[serde(default, with = "one_or_many", skip_serializing_if = "Vec::is_empty")]
    pub writes_outside: Vec<String>,
    /// A command line that runs something calltape cannot read: a program
    /// given inline to an interpreter (`python3 -c`, `perl -e`, `node -e`, …),
    /// a git alias or setting the model defines, a patch from a file, a
    /// program named by an expansion.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
    /// A patch's text (`--- a/x`, `+++ b/x`, `diff --git`, `rename to`,
    /// `*** Update File: x`, …) naming a path outside all of these folders.
    #[serde(default, with = "one_or_many", skip_serializing_if = "Vec::is_empty")]
    pub patch_outside: Vec<String>,
    /// The folder relative paths start from (default `/workspace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The home `~` and `$HOME` stand for (default `/root`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
}

/// A command pattern on what a command line runs (after wrappers, in any
/// substitution or `sh -c` script): a command matches if it has this
/// program and, when given, this subcommand, all of `flags`, and one of
/// `any_flag` or `any_arg`. In a deny rule one such command is enough; in an
/// approve rule every command of the line must match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandPattern {
    /// The program's name or glob, without its directory (`/bin/rm` is `rm`);
    /// one name or a list.
    #[serde(with = "one_or_many")]
    pub program: Vec<String>,
    /// The first operand after the program's options (`push` of `git -C x push`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subcommand: Option<String>,
    /// Options that must all be there: `-r` (also inside `-rf`), `--force`
    /// (also `--force=x` and GNU abbreviations such as `--forc`), `-delete`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// Options of which one must be there (or one of `any_arg`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub any_flag: Vec<String>,
    /// Globs of operands of which one must be there (or one of `any_flag`): `+*` for a forced refspec.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub any_arg: Vec<String>,
}

/// A path pattern on normalised paths (see `paths`). Both lists may be
/// given: the path must then be under one of `path_under` and outside all of `path_outside`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathPattern {
    /// Matches a path inside (or equal to) one of these directories.
    #[serde(default, with = "one_or_many", skip_serializing_if = "Vec::is_empty")]
    pub path_under: Vec<String>,
    /// Matches a path inside none of these directories.
    #[serde(default, with = "one_or_many", skip_serializing_if = "Vec::is_empty")]
    pub path_outside: Vec<String>,
    /// The directory relative paths start from (default `/workspace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The home `~` and `$HOME` stand for (default `/root`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home: Option<String>,
}

/// Why a command pattern cannot match as written.
#[derive(Debug, thiserror::Error)]
pub enum CommandPatternError {
    #[error("command pattern: program {0:?} must be program names without a directory (\"rm\", not \"/bin/rm\")")]
    Program(Vec<String>),
    #[error("command pattern: {0}")]
    Glob(#[source] crate::core::glob::GlobError),
    #[error("command pattern: flag {0:?} must be written with its dashes: \"-r\", \"--force\" or \"-delete\"")]
    Flag(String),
}

/// serde's `try_from` edge: the error is text, placed by the scenario loader.
impl TryFrom<Value> for Condition {
    type Error = String;

    fn try_from(v: Value) -> Result<Self, String> {
        if let Value::Object(map) = &v {
            if map.contains_key("program") {
                let pattern: CommandPattern = serde_json::from_value(v).map_err(|e| format!("command pattern: {e}"))?;
                return pattern.validate().map(|()| Condition::Command(pattern)).map_err(|e| e.to_string());
            }
            if ["writes_outside", "unreadable", "patch_outside"].iter().any(|k| map.contains_key(*k)) {
                let pattern: EffectPattern = serde_json::from_value(v).map_err(|e| format!("effect pattern: {e}"))?;
                if pattern.writes_outside.is_empty() && !pattern.unreadable && pattern.patch_outside.is_empty() {
                    return Err("effect pattern: give writes_outside, unreadable = true or patch_outside".into());
                }
                return Ok(Condition::Effect(pattern));
            }
            if map.contains_key("path_under") || map.contains_key("path_outside") {
                let pattern: PathPattern = serde_json::from_value(v).map_err(|e| format!("path pattern: {e}"))?;
                return Ok(Condition::Path(pattern));
            }
        }
        ValueMatcher::try_from(v).map(Condition::Value)
    }
}

impl From<Condition> for Value {
    fn from(c: Condition) -> Self {
        match c {
            Condition::Value(m) => m.into(),
            Condition::Command(p) => serde_json::to_value(p).unwrap_or(Value::Null),
            Condition::Path(p) => serde_json::to_value(p).unwrap_or(Value::Null),
            Condition::Effect(p) => serde_json::to_value(p).unwrap_or(Value::Null),
        }
    }
}

/// How a condition treats a command it cannot read for certain, and a line
/// of several commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InDoubt {
    /// A deny rule: any command that might run matches.
    Match,
    /// An approve rule: only a readable line whose every command matches.
    NoMatch,
}

impl Condition {
    /// Whether the argument at `key` (a name, or a JSON Pointer with `*`
    /// wildcards: any element that matches is enough) satisfies this condition.
    pub fn matches_key(&self, key: &str, args: &Value, doubt: InDoubt) -> bool {
        if !key.starts_with('/') {
            return self.matches_field(args.get(key), doubt);
        }
        let mut found = Vec::new();
        resolve_pointer(args, key, &mut found);
        if found.is_empty() {
            // Nothing to look at (an empty list): the field is absent.
            return self.matches_field(None, doubt);
        }
        found.into_iter().any(|field| self.matches_field(field, doubt))
    }

    fn matches_field(&self, field: Option<&Value>, doubt: InDoubt) -> bool {
        match (self, field) {
            (Condition::Value(m), _) => m.matches_field(field, StringComparison::Exact),
            (_, None) => false,
            (Condition::Command(p), Some(v)) => p.matches_value(v, doubt),
            (Condition::Path(p), Some(v)) => p.matches_value(v),
            (Condition::Effect(p), Some(v)) => p.matches_value(v, doubt),
        }
    }
}

/// Every value a pointer with `*` wildcards reaches; `None` where a step is missing.
fn resolve_pointer<'a>(value: &'a Value, pointer: &str, out: &mut Vec<Option<&'a Value>>) {
    let Some(rest) = pointer.strip_prefix('/') else {
        out.push(Some(value));
        return;
    };
    let (token, rest) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let token = token.replace("~1", "/").replace("~0", "~");
    if token == "*" {
        match value {
            Value::Array(items) => items.iter().for_each(|item| resolve_pointer(item, rest, out)),
            Value::Object(map) => map.values().for_each(|item| resolve_pointer(item, rest, out)),
            _ => out.push(None),
        }
        return;
    }
    let next = match value {
        Value::Object(map) => map.get(&token),
        // RFC 6901: an index is digits without a leading zero.
        Value::Array(items) if token == "0" || !token.starts_with('0') => token.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    };
    match next {
        Some(v) => resolve_pointer(v, rest, out),
        None => out.push(None),
    }
}

impl CommandPattern {
    fn validate(&self) -> Result<(), CommandPatternError> {
        if self.program.is_empty() || self.program.iter().any(|p| p.is_empty() || p.contains('/')) {
            return Err(CommandPatternError::Program(self.program.clone()));
        }
        for glob in self.program.iter().chain(&self.any_arg) {
            crate::core::glob::glob_check(glob).map_err(CommandPatternError::Glob)?;
        }
        for flag in self.flags.iter().chain(&self.any_flag) {
            if flag.len() < 2 || !flag.starts_with('-') || flag == "--" {
                return Err(CommandPatternError::Flag(flag.clone()));
            }
        }
        Ok(())
    }

    /// A command line as a string, or as an argument vector.
    fn matches_value(&self, value: &Value, doubt: InDoubt) -> bool {
        let line = match value {
            Value::String(s) => CommandLine::parse(s),
            Value::Array(items) if items.iter().all(Value::is_string) => CommandLine::from_argv(items.iter().filter_map(Value::as_str)),
            _ => return false,
        };
        match doubt {
            // Too long to read: a deny rule on commands matches it.
            InDoubt::Match => line.oversized || line.commands().any(|words| self.matches_command(words, doubt)),
            // An approve rule must cover every command the line runs
            // (`cargo test; rm -rf /` is not a cargo command).
            InDoubt::NoMatch => {
                let mut commands = line.commands().peekable();
                line.parsed && commands.peek().is_some() && commands.all(|words| self.matches_command(words, doubt))
            }
        }
    }

    fn matches_command(&self, words: &[Word], doubt: InDoubt) -> bool {
        let Some(program) = words.first() else { return false };
        // A program that is an expansion (`$(which rm)`, `$X`) may be any
        // program: a deny rule's, never an approve rule's.
        let name = shell::base_name(&program.text);
        let named = self.program.iter().any(|p| glob_matches(p, name));
        if !(named || (program.dynamic && doubt == InDoubt::Match)) {
            return false;
        }
        // A deny rule reads a word holding an expansion (`rm $F /`,
        // `git $CMD`) as whatever it needs to be: its value is unknown.
        let unknown = |w: &Word| w.dynamic && doubt == InDoubt::Match;
        let mut from = 1;
        if let Some(sub) = &self.subcommand {
            match shell::first_operand(name, words) {
                Some(i) if words[i].text == *sub || unknown(&words[i]) => from = i + 1,
                _ => return false,
            }
        }
        let hidden = words[from..].iter().any(unknown);
        let (options, operands) = split_options(&words[from..]);
        let has = |flag: &String| hidden || options.iter().any(|o| flag_matches(flag, o));
        if !self.flags.iter().all(has) {
            return false;
        }
        if self.any_flag.is_empty() && self.any_arg.is_empty() {
            return true;
        }
        self.any_flag.iter().any(has) || operands.iter().any(|a| self.any_arg.iter().any(|g| glob_matches(g, a)))
    }
}

impl EffectPattern {
    fn base(&self) -> Base<'_> {
        Base {
            workspace: self.workspace.as_deref().unwrap_or(paths::DEFAULT_WORKSPACE),
            home: self.home.as_deref().unwrap_or(paths::DEFAULT_HOME),
        }
    }

    /// Whether `path` (written relative to `cwd`) may lie outside every root.
    fn outside(&self, path: &Word, cwd: &str, roots: &[String]) -> bool {
        const HARMLESS: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];
        let base = Base { workspace: cwd, ..self.base() };
        paths::variants(&path.text).any(|p| {
            let p = paths::normalise(p, base);
            // An expansion left after `~` and `$HOME`: the place is unknown.
            let unknown = path.dynamic && (p.contains('$') || p.contains('`'));
            let harmless = HARMLESS.contains(&p.as_str()) || paths::is_under(&p, "/dev/fd");
            unknown || (!harmless && !roots.iter().any(|r| paths::is_under(&p, r)))
        })
    }

    fn matches_value(&self, value: &Value, doubt: InDoubt) -> bool {
        let base = self.base();
        let roots = |list: &[String]| list.iter().map(|r| paths::normalise(r, base)).collect::<Vec<_>>();
        if !self.patch_outside.is_empty() {
            let Value::String(text) = value else { return false };
            let roots = roots(&self.patch_outside);
            let paths = super::effects::patch_paths(text);
            let outside = paths.iter().any(|p| self.outside(&Word { text: p.clone(), dynamic: false }, base.workspace, &roots));
            if !outside {
                return false;
            }
        }
        if self.writes_outside.is_empty() && !self.unreadable {
            return true;
        }
        let line = match value {
            Value::String(s) => CommandLine::parse(s),
            Value::Array(items) if items.iter().all(Value::is_string) => CommandLine::from_argv(items.iter().filter_map(Value::as_str)),
            _ => return false,
        };
        // A line too long to read: a deny rule matches it, an approve rule
        // does not. One the shell would refuse is read conservatively (its
        // every word a possible program: see `shell`), and so judged here.
        if line.oversized {
            return doubt == InDoubt::Match;
        }
        if !line.parsed && doubt == InDoubt::NoMatch {
            return false;
        }
        if self.unreadable && line.unreadable.is_empty() {
            return false;
        }
        if !self.writes_outside.is_empty() {
            let roots = roots(&self.writes_outside);
            // After a `cd`, a relative path may start at the workspace or where it moved.
            let mut starts = vec![base.workspace.to_string()];
            let mut moved_unknown = false;
            for dir in &line.moves_to {
                let d = paths::normalise(&dir.text, base);
                moved_unknown |= dir.dynamic && d.contains('$');
                starts.push(d);
            }
            let outside = line.writes.iter().any(|w| {
                let relative = !(w.text.starts_with('/') || w.text.starts_with('~') || w.text.starts_with('$'));
                (relative && moved_unknown) || starts.iter().any(|cwd| self.outside(w, cwd, &roots))
            });
            if !outside {
                return false;
            }
        }
        true
    }
}

/// Options and operands of a command's arguments: every word starting with
/// `-` before `--` is an option (GNU tools take them after operands too).
fn split_options(words: &[Word]) -> (Vec<&str>, Vec<&str>) {
    let (mut options, mut operands) = (Vec::new(), Vec::new());
    let mut ended = false;
    for w in words {
        let t = w.text.as_str();
        if !ended && t == "--" {
            ended = true;
        } else if !ended && t.len() > 1 && t.starts_with('-') {
            options.push(t);
        } else {
            operands.push(t);
        }
    }
    (options, operands)
}

/// Whether option word `word` sets `flag` (`-r`, `--recursive`, `-delete`).
fn flag_matches(flag: &str, word: &str) -> bool {
    if let Some(long) = flag.strip_prefix("--") {
        // `--force=x`; GNU getopt takes any unambiguous prefix (`--recur`).
        let given = word.strip_prefix("--").map(|w| w.split('=').next().unwrap_or(w));
        return given.is_some_and(|g| !g.is_empty() && long.starts_with(g));
    }
    let short = &flag[1..];
    if short.chars().count() == 1 {
        // `-r` inside a cluster: `-rf`, `-fr`, `-Rfv`.
        return !word.starts_with("--") && word[1..].contains(short);
    }
    // A single-dash long option (`find -delete`).
    word.split('=').next() == Some(flag)
}

impl PathPattern {
    fn matches_value(&self, value: &Value) -> bool {
        match value {
            Value::String(s) => self.matches_path(s),
            // A list of paths: any one of them.
            Value::Array(items) => items.iter().filter_map(Value::as_str).any(|s| self.matches_path(s)),
            _ => false,
        }
    }

    fn matches_path(&self, path: &str) -> bool {
        let base = Base {
            workspace: self.workspace.as_deref().unwrap_or(paths::DEFAULT_WORKSPACE),
            home: self.home.as_deref().unwrap_or(paths::DEFAULT_HOME),
        };
        let roots = |list: &[String]| list.iter().map(|r| paths::normalise(r, base)).collect::<Vec<_>>();
        let (under, outside) = (roots(&self.path_under), roots(&self.path_outside));
        paths::variants(path).any(|p| {
            let p = paths::normalise(p, base);
            (under.is_empty() || under.iter().any(|r| paths::is_under(&p, r)))
                && (outside.is_empty() || !outside.iter().any(|r| paths::is_under(&p, r)))
        })
    }
}

/// A string or a list of strings, read as a list.
mod one_or_many {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        Ok(match OneOrMany::deserialize(d)? {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        })
    }

    pub fn serialize<S: Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn condition(v: Value) -> Condition {
        Condition::try_from(v).unwrap()
    }

    #[test]
    fn flags_are_read_as_getopt_reads_them() {
        assert!(flag_matches("-r", "-rf") && flag_matches("-f", "-rf") && flag_matches("-R", "-Rv"));
        assert!(!flag_matches("-r", "--recursive") && !flag_matches("-f", "--follow-tags"));
        assert!(flag_matches("--recursive", "--recursive") && flag_matches("--recursive", "--recur"));
        assert!(flag_matches("--force-with-lease", "--force-with-lease=main:abc"));
        assert!(!flag_matches("--force", "--force-with-lease") && !flag_matches("--force", "--"));
        assert!(flag_matches("-delete", "-delete") && !flag_matches("-delete", "-d"));
    }

    #[test]
    fn pointer_wildcards_check_every_element() {
        let c = condition(json!({"regex": "^/etc/"}));
        let args = json!({"edits": [{"path": "a"}, {"path": "/etc/hosts"}], "map": {"x": {"path": "/etc/y"}}});
        assert!(c.matches_key("/edits/*/path", &args, InDoubt::Match));
        assert!(!c.matches_key("/edits/0/path", &args, InDoubt::Match), "an index is exact");
        assert!(c.matches_key("/edits/1/path", &args, InDoubt::Match));
        assert!(c.matches_key("/map/*/path", &args, InDoubt::Match));
        assert!(!c.matches_key("/edits/01/path", &args, InDoubt::Match), "no leading zeros");
        let absent = condition(json!({"absent": true}));
        assert!(absent.matches_key("/edits/*/nope", &args, InDoubt::Match));
        assert!(absent.matches_key("/none/*/path", &args, InDoubt::Match));
        assert!(absent.matches_key("/edits/*/path", &json!({"edits": []}), InDoubt::Match));
        let nested = json!({"files": [{"edits": [{"path": "x"}]}, {"edits": [{"path": "/etc/z"}]}]});
        assert!(c.matches_key("/files/*/edits/*/path", &nested, InDoubt::Match));
        assert!(condition(json!({"regex": "x"})).matches_key("/a~1b/c~0d", &json!({"a/b": {"c~d": "x"}}), InDoubt::Match));
    }

    #[test]
    fn command_and_path_patterns_round_trip() {
        for v in [
            json!({"program": ["rm"], "any_flag": ["-r"]}),
            json!({"program": ["git"], "subcommand": "push", "any_arg": ["+*"]}),
            json!({"path_outside": ["/workspace"], "home": "/home/me"}),
        ] {
            assert_eq!(Value::from(condition(v.clone())), v);
        }
        assert!(matches!(condition(json!({"program": "rm"})), Condition::Command(_)));
        assert!(matches!(condition(json!({"path_under": "/etc"})), Condition::Path(_)));
        assert!(matches!(condition(json!({"programme": "rm"})), Condition::Value(_)));
    }

    #[test]
    fn path_patterns_judge_normalised_paths() {
        let etc = condition(json!({"path_under": ["/etc", "~/.ssh"]}));
        for p in ["/etc/hosts", "/workspace/../etc/hosts", "//etc//passwd", "~/.ssh/config", "~root/.ssh/x"] {
            assert!(etc.matches_key("p", &json!({ "p": p }), InDoubt::Match), "{p}");
        }
        assert!(!etc.matches_key("p", &json!({"p": "etc/hosts"}), InDoubt::Match));
        assert!(etc.matches_key("p", &json!({"p": ["a", "/etc/x"]}), InDoubt::Match), "any path of a list");
        assert!(!etc.matches_key("p", &json!({"p": 3}), InDoubt::Match));
        let both = condition(json!({"path_under": "/srv", "path_outside": "/srv/public", "workspace": "/srv/app"}));
        assert!(both.matches_key("p", &json!({"p": "config.toml"}), InDoubt::Match));
        assert!(!both.matches_key("p", &json!({"p": "../public/x"}), InDoubt::Match));
    }
}

#[cfg(test)]
mod pattern_error_tests {
    use std::error::Error;

    use super::*;

    #[test]
    fn a_bad_glob_in_a_command_pattern_keeps_the_glob_error_as_its_source() {
        let pattern =
            CommandPattern { program: vec!["rm[".into()], ..serde_json::from_value(serde_json::json!({"program": "rm"})).unwrap() };
        let err = pattern.validate().unwrap_err();
        assert!(err.to_string().starts_with("command pattern: invalid glob \"rm[\""), "{err}");
        assert!(err.source().and_then(|s| s.downcast_ref::<crate::core::glob::GlobError>()).is_some());
    }
}
