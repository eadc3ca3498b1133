//! Helpers shared by integration tests.

// Each test crate compiles this module and uses only some of it.
#![allow(dead_code)]

pub mod answering;
pub mod default_run;
pub mod served;

use std::collections::BTreeMap;
use std::path::Path;

/// Every CSV table in `dir`, by file name, minus columns timed in-process
/// (`*_us`), which differ between any two runs.
pub fn csv_tables(dir: &Path) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "csv") {
            let mut reader = csv::Reader::from_path(&path).unwrap();
            let headers = reader.headers().unwrap().clone();
            let keep: Vec<usize> = (0..headers.len()).filter(|&i| !headers[i].ends_with("_us")).collect();
            let mut rows = vec![keep.iter().map(|&i| headers[i].to_string()).collect::<Vec<_>>()];
            for record in reader.records() {
                let record = record.unwrap();
                rows.push(keep.iter().map(|&i| record[i].to_string()).collect());
            }
            out.insert(path.file_name().unwrap().to_string_lossy().into_owned(), rows);
        }
    }
    out
}

/// Copies the folder `from` to `to`, recursively (a suite or recordings a
/// test may change without touching the repository's).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// The rows of a CSV file, each as column → value.
pub fn csv_rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader.records().map(|r| headers.iter().map(str::to_string).zip(r.unwrap().iter().map(str::to_string)).collect()).collect()
}

/// Runs the calltape binary with `args` in `cwd` (and `env`) off the async
/// runtime, so a wiremock server on it can answer; fails the test if it
/// panicked.
pub async fn calltape_blocking(args: Vec<String>, cwd: std::path::PathBuf, env: Vec<(String, String)>) -> std::process::Output {
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_calltape")).args(&args).envs(env).current_dir(&cwd).output().unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    output
}
