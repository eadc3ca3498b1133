//! Copies the files this crate compiles in — the prompt-injection library
//! and the bundled fitted profiles — to `$OUT_DIR`: from the workspace in
//! the repository, or from the crate's package, where its links to them
//! are packaged as the files they point to.

use std::path::PathBuf;

const FILES: [&str; 3] = ["scenarios/injections/styles.json", "profiles/qwen2.5-coder-0.5b.toml", "profiles/qwen2.5-coder-1.5b.toml"];

fn main() {
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = crate_dir.join("../..");
    let base = if workspace.join(FILES[0]).is_file() { workspace } else { crate_dir };
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for file in FILES {
        let from = base.join(file);
        println!("cargo:rerun-if-changed={}", from.display());
        let name = from.file_name().expect("a file name");
        std::fs::copy(&from, out_dir.join(name)).unwrap_or_else(|e| panic!("cannot copy {}: {e}", from.display()));
    }
}
