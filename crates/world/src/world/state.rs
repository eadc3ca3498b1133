//! Checks on the state of a workspace: what a stateful scenario's outcome
//! expectations (`expect.state`, and the `state` of milestones and
//! minefields) say about its files. Each check reads the tree only; the
//! verdict built from them is `check`'s.

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::path;
use super::tree::Workspace;
use crate::core::glob::{glob_check, glob_matches};

/// One condition on the tree, as a scenario writes it: about one `file`
/// (every condition given must hold), or `only_changed` (no file outside
/// these globs was added, modified or deleted).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "StateCheckFile", into = "StateCheckFile")]
pub struct StateCheck {
    form: StateCheckFile,
    /// The path of `file`, normalized.
    path: Option<String>,
    matches: Vec<Regex>,
}

impl PartialEq for StateCheck {
    fn eq(&self, other: &Self) -> bool {
        self.form == other.form
    }
}

/// A state check as written in a scenario file.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateCheckFile {
    /// The file the conditions are about (relative to the workspace root, or under its mount).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The file's whole text (a missing or extra final newline is accepted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<String>,
    /// Text the file must contain: one string or a list.
    #[serde(default, skip_serializing_if = "Texts::is_empty")]
    pub contains: Texts,
    /// Text the file must not contain.
    #[serde(default, skip_serializing_if = "Texts::is_empty")]
    pub not_contains: Texts,
    /// Regexes the file's text must match (somewhere; `(?m)` for lines).
    #[serde(default, skip_serializing_if = "Texts::is_empty")]
    pub matches: Texts,
    /// `true`: the file is as it was at the start (or still absent).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchanged: bool,
    /// `true`: the file exists; `false`: it does not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// Globs of the paths that may change; any other change fails (`*` crosses folders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_changed: Option<Vec<String>>,
}

/// One string or a list of them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(from = "Value", into = "Vec<String>")]
pub struct Texts(pub Vec<String>);

impl Texts {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Value> for Texts {
    fn from(v: Value) -> Self {
        match v {
            Value::String(s) => Texts(vec![s]),
            Value::Array(items) => Texts(items.into_iter().map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string)).collect()),
            other => Texts(vec![other.to_string()]),
        }
    }
}

impl From<Texts> for Vec<String> {
    fn from(t: Texts) -> Self {
        t.0
    }
}

impl From<StateCheck> for StateCheckFile {
    fn from(c: StateCheck) -> Self {
        c.form
    }
}

impl TryFrom<StateCheckFile> for StateCheck {
    type Error = String;

    fn try_from(form: StateCheckFile) -> Result<Self, String> {
        let has_file_condition = form.equals.is_some()
            || !form.contains.is_empty()
            || !form.not_contains.is_empty()
            || !form.matches.is_empty()
            || form.unchanged
            || form.exists.is_some();
        let path = match (&form.file, &form.only_changed) {
            (Some(_), Some(_)) => {
                return Err("a state check is about one \"file\" or is \"only_changed\", not both: split it in two".into())
            }
            (None, None) => {
                return Err(
                    "a state check needs \"file\" (with equals, contains, not_contains, matches, unchanged or exists) or \"only_changed\""
                        .into(),
                )
            }
            (Some(file), None) => {
                if !has_file_condition {
                    return Err(format!("the state check of {file:?} says nothing about it: add equals, contains, not_contains, matches, unchanged or exists"));
                }
                Some(path::resolve(path::DEFAULT_MOUNT, file).map_err(|e| e.to_string())?)
            }
            (None, Some(globs)) => {
                if has_file_condition {
                    return Err("\"only_changed\" stands alone: put conditions on a file in a check of their own".into());
                }
                for g in globs {
                    glob_check(g).map_err(|e| e.to_string())?;
                }
                None
            }
        };
        let matches =
            form.matches.0.iter().map(|p| Regex::new(p).map_err(|e| format!("invalid regex {p:?}: {e}"))).collect::<Result<_, _>>()?;
        Ok(StateCheck { form, path, matches })
    }
}

impl StateCheck {
    /// Whether it compares the whole text of the file at `rel` (`equals`,
    /// `unchanged`): text added to that file would fail it.
    pub fn checks_whole_file(&self, rel: &str) -> bool {
        let same = path::normalize(rel).is_ok_and(|r| self.path.as_deref() == Some(r.as_str()));
        same && (self.form.equals.is_some() || self.form.unchanged)
    }

    /// Why the tree fails this check, or `None` when it holds.
    pub fn failure(&self, ws: &Workspace) -> Option<String> {
        let Some(path) = &self.path else { return self.changed_outside(ws) };
        let shown = path::shown(ws.mount(), path);
        let text = ws.file(path);
        let f = &self.form;
        if let Some(want) = f.exists {
            match (want, text.is_some()) {
                (true, false) => return Some(format!("{shown} does not exist")),
                (false, true) => return Some(format!("{shown} exists (it should not)")),
                _ => {}
            }
        }
        if f.unchanged && text != ws.start_file(path) {
            return Some(match (ws.start_file(path), text) {
                (Some(_), None) => format!("{shown} was deleted (it should be unchanged)"),
                (None, Some(_)) => format!("{shown} was created (it should not exist)"),
                _ => format!("{shown} was changed (it should be unchanged)"),
            });
        }
        let needs_text = f.equals.is_some() || !f.contains.is_empty() || !f.not_contains.is_empty() || !self.matches.is_empty();
        let Some(text) = text else {
            return needs_text.then(|| format!("{shown} does not exist"));
        };
        if let Some(want) = &f.equals {
            if want.trim_end_matches('\n') != text.trim_end_matches('\n') {
                return Some(format!("{shown} is not the expected text{}", first_difference(want, text)));
            }
        }
        if let Some(missing) = f.contains.0.iter().find(|w| !text.contains(w.as_str())) {
            return Some(format!("{shown} does not contain {}", excerpt(missing)));
        }
        if let Some(found) = f.not_contains.0.iter().find(|w| text.contains(w.as_str())) {
            return Some(format!("{shown} still contains {}", excerpt(found)));
        }
        if let Some(r) = self.matches.iter().find(|r| !r.is_match(text)) {
            return Some(format!("{shown} does not match /{}/", r.as_str()));
        }
        None
    }

    /// The paths changed outside `only_changed`, as a failure.
    fn changed_outside(&self, ws: &Workspace) -> Option<String> {
        let globs = self.form.only_changed.as_deref().unwrap_or_default();
        let outside: Vec<String> = ws
            .changed_paths()
            .into_iter()
            .filter(|p| !globs.iter().any(|g| glob_matches(g, p)))
            .map(|p| path::shown(ws.mount(), &p))
            .collect();
        match outside.len() {
            0 => None,
            n => Some(format!("{n} file{} changed outside {}: {}", if n == 1 { "" } else { "s" }, globs.join(", "), list(&outside))),
        }
    }

    /// The check in a few words, for reasons and reports.
    pub fn describe(&self) -> String {
        match (&self.form.file, &self.form.only_changed) {
            (Some(file), _) => file.clone(),
            (None, Some(globs)) => format!("only {} changed", globs.join(", ")),
            (None, None) => String::new(),
        }
    }
}

/// Up to five paths, then how many more.
fn list(paths: &[String]) -> String {
    let mut text = paths.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if paths.len() > 5 {
        text += &format!(" and {} more", paths.len() - 5);
    }
    text
}

/// A searched-for text, quoted and bounded.
fn excerpt(text: &str) -> String {
    let short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        format!("{:?}…", short)
    } else {
        format!("{short:?}")
    }
}

/// Where the expected and actual text first differ, by line.
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let line = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
    match (w.get(line), g.get(line)) {
        (Some(a), Some(b)) => format!(": line {} is {} (expected {})", line + 1, excerpt(b), excerpt(a)),
        (Some(a), None) => format!(": it ends at line {} (expected {} next)", g.len(), excerpt(a)),
        (None, Some(b)) => format!(": line {} is {} (expected the end)", line + 1, excerpt(b)),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ws() -> Workspace {
        Workspace::from_json(&json!({"src/lib.rs": "pub fn add(a: i32) -> i32 { a }\n", "README.md": "hello\n"})).unwrap()
    }

    fn check(v: Value) -> StateCheck {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn file_conditions_hold_or_say_why_not() {
        let mut w = ws();
        assert_eq!(check(json!({"file": "src/lib.rs", "contains": "fn add"})).failure(&w), None);
        assert_eq!(check(json!({"file": "/workspace/src/lib.rs", "matches": "(?m)^pub fn \\w+"})).failure(&w), None);
        assert_eq!(check(json!({"file": "README.md", "equals": "hello"})).failure(&w), None, "final newline is not significant");
        assert_eq!(
            check(json!({"file": "README.md", "equals": "hello\nworld\n"})).failure(&w).unwrap(),
            "/workspace/README.md is not the expected text: it ends at line 1 (expected \"world\" next)"
        );
        assert_eq!(
            check(json!({"file": "src/lib.rs", "contains": ["fn add", "fn sub"]})).failure(&w).unwrap(),
            "/workspace/src/lib.rs does not contain \"fn sub\""
        );
        assert_eq!(check(json!({"file": "x.rs", "exists": false})).failure(&w), None);
        assert_eq!(check(json!({"file": "x.rs", "contains": "a"})).failure(&w).unwrap(), "/workspace/x.rs does not exist");
        w.write("README.md", "changed\n").unwrap();
        assert_eq!(
            check(json!({"file": "README.md", "unchanged": true})).failure(&w).unwrap(),
            "/workspace/README.md was changed (it should be unchanged)"
        );
        assert_eq!(check(json!({"file": "README.md", "not_contains": "hello"})).failure(&w), None);
    }

    #[test]
    fn only_changed_names_the_files_outside() {
        let mut w = ws();
        let only_src = check(json!({"only_changed": ["src/*"]}));
        w.write("src/new/mod.rs", "x").unwrap();
        assert_eq!(only_src.failure(&w), None, "`*` crosses folders");
        w.write("Cargo.toml", "x").unwrap();
        assert_eq!(only_src.failure(&w).unwrap(), "1 file changed outside src/*: /workspace/Cargo.toml");
        assert_eq!(only_src.describe(), "only src/* changed");
    }

    #[test]
    fn a_check_that_says_nothing_or_too_much_is_refused() {
        let err = |v: Value| serde_json::from_value::<StateCheck>(v).unwrap_err().to_string();
        assert!(err(json!({"file": "a"})).contains("says nothing about it"));
        assert!(err(json!({"file": "a", "only_changed": ["b"]})).contains("not both"));
        assert!(err(json!({})).contains("needs \"file\""));
        assert!(err(json!({"file": "../etc/passwd", "exists": false})).contains("leaves the workspace"));
        assert!(err(json!({"file": "a", "matches": "("})).contains("invalid regex"));
        assert!(err(json!({"file": "a", "exist": true})).contains("unknown field"));
    }
}
