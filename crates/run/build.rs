//! Compiles the bundled default's suites and recordings (real models' only:
//! simulators are computed) into the binary, so an installed `calltape run`
//! works outside the repository: writes `$OUT_DIR/bundled.deflate`, one
//! archive of every file under `scenarios/` and `recordings/` (the folders
//! `calltape.toml` names), deflated (JSON shrinks about elevenfold, 0.34 MB
//! of the binary), and `$OUT_DIR/bundled.rs`, which includes it with a
//! digest of them all that names their unpacked copy; and copies the
//! default `calltape.toml` to `$OUT_DIR` for `config::EMBEDDED_DEFAULT`.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

const ROOTS: [&str; 2] = ["scenarios", "recordings"];

fn main() {
    // In the repository the folders (and the default `calltape.toml`) are
    // the workspace's, two levels up; in this crate's package they are
    // here (its links to them are packaged as the files they point to).
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = crate_dir.join("../..");
    let manifest = if workspace.join("calltape.toml").is_file() && workspace.join("scenarios").is_dir() { workspace } else { crate_dir };
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let default_config = manifest.join("calltape.toml");
    println!("cargo:rerun-if-changed={}", default_config.display());
    std::fs::copy(&default_config, out_dir.join("calltape.toml"))
        .unwrap_or_else(|e| panic!("cannot copy {}: {e}", default_config.display()));
    let mut files = Vec::new();
    for root in ROOTS {
        // Cargo scans a folder named here for any change below it.
        println!("cargo:rerun-if-changed={}", manifest.join(root).display());
        walk(&manifest.join(root), &mut files);
    }
    files.sort();
    // SipHash with fixed keys: the same files give the same digest in every build.
    #[allow(deprecated)]
    let mut digest = std::hash::SipHasher::new();
    // Each file as its path and its bytes, both prefixed with their length
    // (u32, little-endian); `bundled::Files` reads it back.
    let mut archive = Vec::new();
    for path in &files {
        let rel = path.strip_prefix(&manifest).expect("under the manifest").to_str().expect("bundled paths are UTF-8").replace('\\', "/");
        let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        rel.hash(&mut digest);
        bytes.hash(&mut digest);
        for part in [rel.as_bytes(), &bytes] {
            archive.extend_from_slice(&u32::try_from(part.len()).expect("a bundled file under 4 GB").to_le_bytes());
            archive.extend_from_slice(part);
        }
    }
    let packed = out_dir.join("bundled.deflate");
    std::fs::write(&packed, miniz_oxide::deflate::compress_to_vec(&archive, 9))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", packed.display()));
    let code = format!(
        "/// Every bundled file, archived and deflated by build.rs (`Files` reads it).\n\
         const PACKED: &[u8] = include_bytes!({:?});\n\
         /// The archive's size inflated.\n\
         const ARCHIVE_LEN: usize = {};\n\
         /// A digest of every bundled path and byte.\n\
         pub const DIGEST: u64 = {:#x};\n",
        packed.display().to_string(),
        archive.len(),
        digest.finish()
    );
    let out = out_dir.join("bundled.rs");
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
