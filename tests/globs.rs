//! Globs take globset's syntax wherever a name is selected: `--filter`
//! here, through the binary, on the bundled coding suite replayed from its
//! recordings (the construct-by-construct cases are unit tests in
//! crates/vocab/src/core/glob.rs).

use std::path::Path;
use std::process::{Command, Output};

use calltape::exit_codes;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the bundled coding suite on sim-strong with one filter; returns the scenarios that ran.
fn ran_with_filter(filter: &str) -> (Output, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_calltape"))
        .args(["run", "--suite", "scenarios/coding", "--model", "sim-strong@full", "--filter", filter])
        .args(["--out", dir.path().to_str().unwrap()])
        .current_dir(root())
        .output()
        .expect("binary runs");
    let path = dir.path().join("latest/scenarios.csv");
    let mut ran = Vec::new();
    if path.exists() {
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let headers = reader.headers().unwrap().clone();
        let col = headers.iter().position(|h| h == "scenario").unwrap();
        ran = reader.records().map(|r| r.unwrap()[col].to_string()).collect();
        ran.sort();
    }
    (out, ran)
}

#[test]
fn question_mark_selects_the_issue_example() {
    let (out, ran) = ran_with_filter("read-cargo-tom?");
    assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(ran, ["read-cargo-toml"]);
}

#[test]
fn classes_alternatives_and_escapes_select_through_the_binary() {
    let ids: Vec<String> = {
        let (_, all) = ran_with_filter("*");
        all
    };
    assert!(ids.len() > 5, "{ids:?}");
    for glob in ["read-cargo-tom[a-z]", "read-cargo-tom[!x]", "{read-cargo-toml,nothing-else}", "read-cargo-\\toml", "read-*-toml"] {
        let (out, ran) = ran_with_filter(glob);
        assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{glob}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(ran, ["read-cargo-toml"], "{glob}");
    }
    // Alternatives holding wildcards pick every id either one matches, no other.
    let (_, ran) = ran_with_filter("{read-*,*-toml}");
    let expected: Vec<&String> = ids.iter().filter(|id| id.starts_with("read-") || id.ends_with("-toml")).collect();
    assert!(!expected.is_empty());
    assert_eq!(ran.iter().collect::<Vec<_>>(), expected);
}

#[test]
fn an_unclosed_glob_is_refused_by_name() {
    let (out, ran) = ran_with_filter("read-[ab");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(exit_codes::BAD_INPUT), "{stderr}");
    assert!(stderr.contains("invalid glob \"read-[ab\": a `[` is never closed by `]`"), "{stderr}");
    assert!(ran.is_empty());
}
