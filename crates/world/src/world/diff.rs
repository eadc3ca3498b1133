//! Line diffs in git's unified format (`diff --git a/p b/p`, three lines of
//! context, `\ No newline at end of file`), the text `git diff` prints, so a
//! model reading it sees what it would see in a real repository. The index
//! line (blob hashes) is left out: the tree has no object store.

use similar::TextDiff;

/// The diff of one file: `old` is `None` for an added file, `new` for a deleted one.
pub fn unified(path: &str, old: Option<&str>, new: Option<&str>) -> String {
    let mut out = format!("diff --git a/{path} b/{path}\n");
    let (from, to) = match (old, new) {
        (None, _) => {
            out.push_str("new file mode 100644\n");
            ("/dev/null".to_string(), format!("b/{path}"))
        }
        (_, None) => {
            out.push_str("deleted file mode 100644\n");
            (format!("a/{path}"), "/dev/null".to_string())
        }
        _ => (format!("a/{path}"), format!("b/{path}")),
    };
    let (old, new) = (old.unwrap_or(""), new.unwrap_or(""));
    let diff = TextDiff::from_lines(old, new);
    let hunks: String = diff.unified_diff().context_radius(3).iter_hunks().map(|h| h.to_string()).collect();
    // Like git, an empty file added or deleted has a header and no hunks.
    if !hunks.is_empty() {
        out.push_str(&format!("--- {from}\n+++ {to}\n"));
        out.push_str(&hunks);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modified_file_reads_like_git_diff() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nD\ne\nf\ng\nh\n";
        assert_eq!(
            unified("src/x.rs", Some(old), Some(new)),
            "diff --git a/src/x.rs b/src/x.rs\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1,7 +1,7 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n"
        );
    }

    #[test]
    fn added_deleted_and_missing_newline() {
        assert_eq!(
            unified("n.txt", None, Some("one\ntwo\n")),
            "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"
        );
        assert_eq!(
            unified("d.txt", Some("gone\n"), None),
            "diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
        );
        assert_eq!(
            unified("m", Some("x\n"), Some("x\ny")),
            "diff --git a/m b/m\n--- a/m\n+++ b/m\n@@ -1 +1,2 @@\n x\n+y\n\\ No newline at end of file\n"
        );
        assert_eq!(unified("e", None, Some("")), "diff --git a/e b/e\nnew file mode 100644\n");
    }
}
