//! Compiles the bundled default's suites and recordings (real models' only:
//! simulators are computed) into the binary, so an installed `calltape run`
//! works outside the repository: writes
//! `$OUT_DIR/bundled.rs` with one `include_bytes!` per file under
//! `scenarios/` and `recordings/` (the folders `calltape.toml` names), and a
//! digest of them all that names their unpacked copy.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

const ROOTS: [&str; 2] = ["scenarios", "recordings"];

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for root in ROOTS {
        // Cargo scans a folder named here for any change below it.
        println!("cargo:rerun-if-changed={root}");
        walk(&manifest.join(root), &mut files);
    }
    files.sort();
    // SipHash with fixed keys: the same files give the same digest in every build.
    #[allow(deprecated)]
    let mut digest = std::hash::SipHasher::new();
    let mut code =
        String::from("/// Every bundled file: its path under the project root, and its bytes.\npub const FILES: &[(&str, &[u8])] = &[\n");
    for path in &files {
        let rel = path.strip_prefix(&manifest).expect("under the manifest").to_str().expect("bundled paths are UTF-8").replace('\\', "/");
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        rel.hash(&mut digest);
        bytes.hash(&mut digest);
        code.push_str(&format!("    ({rel:?}, include_bytes!({:?})),\n", path.display().to_string()));
    }
    code.push_str("];\n");
    code.push_str(&format!("/// A digest of every path and byte above.\npub const DIGEST: u64 = {:#x};\n", digest.finish()));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("bundled.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
}

/// Regular files under `dir`, leaving out hidden ones (editor and OS litter).
fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, files),
            Ok(t) if t.is_file() => files.push(path),
            _ => {}
        }
    }
}
