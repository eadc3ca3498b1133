//! File paths as the file system would resolve them, for approval rules:
//! relative to the workspace, `~`, `~user` and `$HOME` expanded, `.`, `..`
//! and repeated slashes folded, so `/workspace/../etc/hosts`, `//etc//passwd`
//! and `~root/.ssh/x` are seen as the places they name. Symbolic links are
//! not resolved: nothing here touches the disk.

/// The workspace a relative path is resolved against, unless a rule says otherwise.
pub const DEFAULT_WORKSPACE: &str = "/workspace";
/// The agent's home (`~`, `$HOME`), unless a rule says otherwise.
pub const DEFAULT_HOME: &str = "/root";

/// Where `~` and relative paths point.
#[derive(Debug, Clone, Copy)]
pub struct Base<'a> {
    pub workspace: &'a str,
    pub home: &'a str,
}

impl Default for Base<'_> {
    fn default() -> Self {
        Base { workspace: DEFAULT_WORKSPACE, home: DEFAULT_HOME }
    }
}

/// The absolute, folded form of `path`: `/`-separated, no `.`, `..` or empty parts.
pub fn normalise(path: &str, base: Base<'_>) -> String {
    // A backslash separates on Windows; reading it so errs towards matching.
    let path = path.trim().replace('\\', "/");
    let path = path.strip_prefix("file://").unwrap_or(&path);
    let expanded = expand_home(path, base);
    let joined = if expanded.starts_with('/') { expanded } else { format!("{}/{}", base.workspace, expanded) };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    format!("/{}", parts.join("/"))
}

/// `~`, `~user`, `$HOME` and `${HOME}` at the start of a path, expanded.
fn expand_home(path: &str, base: Base<'_>) -> String {
    for var in ["$HOME", "${HOME}"] {
        if let Some(rest) = path.strip_prefix(var).filter(|r| r.is_empty() || r.starts_with('/')) {
            return format!("{}{rest}", base.home);
        }
    }
    let Some(rest) = path.strip_prefix('~') else { return path.to_string() };
    let (user, rest) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match user {
        "" => format!("{}{rest}", base.home),
        "root" => format!("/root{rest}"),
        // `~+` is the working directory, `~-` the previous one (unknown: the root).
        "+" => format!("{}{rest}", base.workspace),
        "-" => format!("/{rest}"),
        user => format!("/home/{user}{rest}"),
    }
}

/// Whether normalised `path` is `root` or inside it.
pub fn is_under(path: &str, root: &str) -> bool {
    root == "/" || path == root || path.strip_prefix(root).is_some_and(|rest| rest.starts_with('/'))
}

/// The forms of a path to judge: the whole text, and the part before a NUL
/// byte (what a C library would open).
pub fn variants(path: &str) -> impl Iterator<Item = &str> {
    let cut = path.split('\0').next().unwrap_or(path);
    std::iter::once(path).chain((cut.len() != path.len()).then_some(cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(path: &str) -> String {
        normalise(path, Base::default())
    }

    #[test]
    fn paths_fold_to_the_place_they_name() {
        assert_eq!(n("/workspace/../etc/hosts"), "/etc/hosts");
        assert_eq!(n("//etc//passwd"), "/etc/passwd");
        assert_eq!(n("/etc/./ssh/../hosts"), "/etc/hosts");
        assert_eq!(n("docs/RELEASING.md"), "/workspace/docs/RELEASING.md");
        assert_eq!(n("./src/../Cargo.toml"), "/workspace/Cargo.toml");
        assert_eq!(n("../ledgerd-cli/Cargo.toml"), "/ledgerd-cli/Cargo.toml");
        assert_eq!(n("../../../../etc/shadow"), "/etc/shadow");
        assert_eq!(n("/.."), "/");
        assert_eq!(n(""), "/workspace");
        assert_eq!(n(" /etc/hosts "), "/etc/hosts");
        assert_eq!(n("..\\..\\etc\\hosts"), "/etc/hosts");
        assert_eq!(n("file:///etc/hosts"), "/etc/hosts");
    }

    #[test]
    fn home_forms_expand() {
        assert_eq!(n("~/.ssh/id_rsa"), "/root/.ssh/id_rsa");
        assert_eq!(n("~"), "/root");
        assert_eq!(n("~root/.ssh/x"), "/root/.ssh/x");
        assert_eq!(n("~alice/.bashrc"), "/home/alice/.bashrc");
        assert_eq!(n("$HOME/.bashrc"), "/root/.bashrc");
        assert_eq!(n("${HOME}/../etc/passwd"), "/etc/passwd");
        assert_eq!(n("$HOMEDIR/x"), "/workspace/$HOMEDIR/x");
        assert_eq!(n("a~/x"), "/workspace/a~/x");
        let base = Base { workspace: "/home/me/project", home: "/home/me" };
        assert_eq!(normalise("~/project/src/a.rs", base), "/home/me/project/src/a.rs");
    }

    #[test]
    fn under_compares_whole_parts() {
        assert!(is_under("/etc/hosts", "/etc"));
        assert!(is_under("/etc", "/etc"));
        assert!(!is_under("/etcetera/x", "/etc"));
        assert!(is_under("/anything", "/"));
        assert_eq!(variants("/workspace/a\0/../../etc").collect::<Vec<_>>(), ["/workspace/a\0/../../etc", "/workspace/a"]);
    }
}
