//! The README's quick start, followed line by line: every line of the `sh`
//! blocks between `<!-- quickstart:begin -->` and `<!-- quickstart:end -->`
//! runs in order, in an empty folder with no repository around it.
//! `cargo install --locked --path .` becomes the built binary copied into a
//! prefix on the PATH; `export` sets the variable for the lines after it;
//! `$EDITOR calltape.toml` makes the edit the text asks for (uncomment
//! `my-model`, base URL pointed at a fake OpenAI-compatible server on
//! 127.0.0.1); `cd` changes folder. Any other line runs as written; a
//! command that fails, or a line of another kind, fails the test.

mod start;

use std::collections::BTreeMap;

use std::process::Command;

/// The lines of the quick start's `sh` blocks, comments and blanks left out.
fn quickstart_lines(readme: &str) -> Vec<String> {
    let begin = readme.find("<!-- quickstart:begin -->").expect("README.md has <!-- quickstart:begin -->");
    let end = readme.find("<!-- quickstart:end -->").expect("README.md has <!-- quickstart:end -->");
    let mut lines = Vec::new();
    let mut in_sh = false;
    for line in readme[begin..end].lines() {
        match line.trim() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            l if in_sh && !l.is_empty() && !l.starts_with('#') => lines.push(l.split(" # ").next().unwrap().trim().to_string()),
            _ => {}
        }
    }
    lines
}

#[test]
fn the_readme_quick_start_has_the_install_init_run_and_live_lines() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let lines = quickstart_lines(&readme);
    for wanted in ["cargo install --locked --path .", "calltape init myproject", "cd myproject", "calltape check", "calltape run"] {
        assert!(lines.iter().any(|l| l == wanted), "the quick start has no `{wanted}` line: {lines:?}");
    }
    assert!(lines.iter().any(|l| l.starts_with("export OPENAI_API_KEY=")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("calltape compare ")), "{lines:?}");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_quick_start_runs_line_by_line() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let lines = quickstart_lines(&readme);
    let temp = tempfile::tempdir().unwrap();
    let (prefix, home) = (temp.path().join("prefix"), temp.path().join("home"));
    let mut cwd = temp.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let path = format!("{}:{}", prefix.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    let mut server = None;
    let mut installed = false;

    for line in &lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["cargo", "install", "--locked", "--path", "."] => {
                start::install(&prefix);
                installed = true;
            }
            ["cd", dir] => {
                cwd = cwd.join(dir);
                assert!(cwd.is_dir(), "`{line}`: no folder {}", cwd.display());
            }
            ["export", assignment] => {
                let (name, value) = assignment.split_once('=').unwrap_or_else(|| panic!("`{line}`: not NAME=VALUE"));
                env.insert(name.to_string(), value.to_string());
            }
            ["$EDITOR", "calltape.toml"] => {
                let key = env.get("OPENAI_API_KEY").expect("the key is exported before the edit").clone();
                let fake = start::fake_openai(&key).await;
                start::enable_my_model(&cwd.join("calltape.toml"), &format!("{}/v1", fake.uri()));
                server = Some(fake);
            }
            [program @ ("calltape" | "cp"), args @ ..] => {
                assert!(installed || *program != "calltape", "`{line}` runs before calltape is installed");
                let out = Command::new(program)
                    .args(args)
                    .current_dir(&cwd)
                    .env("PATH", &path)
                    .env("HOME", &home)
                    .env("XDG_CACHE_HOME", home.join("cache"))
                    .env_remove("OPENAI_API_KEY")
                    .envs(&env)
                    .output()
                    .unwrap_or_else(|e| panic!("`{line}`: {e}"));
                assert!(
                    out.status.success(),
                    "`{line}` failed ({:?}):\n{}\n{}",
                    out.status,
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            _ => panic!(
                "the quick start line `{line}` is not one this test knows how to follow: teach it, or write the line as one of these"
            ),
        }
    }
    // The live model was asked, and its rows are in the last run's tables.
    let server = server.expect("the quick start edits calltape.toml for the live model");
    assert!(!server.received_requests().await.unwrap().is_empty(), "the live model was never asked");
    let tables = start::summary(&cwd.join("reports/latest"));
    assert!(tables.contains_key("my-model") && tables.contains_key("sim-strong"), "{:?}", tables.keys());
    assert_eq!(tables["my-model"]["scenarios"], "3");
}

#[test]
fn lines_are_read_from_sh_blocks_inside_the_markers_only() {
    let text = "```sh\nbefore\n```\n<!-- quickstart:begin -->\n```sh\n# a comment\ncalltape run   # with a note\n\n```\n```toml\nx = 1\n```\n<!-- quickstart:end -->\n```sh\nafter\n```\n";
    assert_eq!(quickstart_lines(text), ["calltape run"]);
}
