//! Where cassettes lie and how they reach the disk: one file per unit at
//! `<dir>/<suite>/<model>/<scenario>.t<trial>.json`, every part of the name
//! kept as it is where it is safe in a file name on every system and
//! percent-encoded where not; written to a temporary file in the same
//! folder and renamed over the old one, so an interrupted write never leaves
//! half a cassette.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::format::Cassette;
use super::CassetteError;
use crate::events::UnitKey;

/// The file a unit's cassette lives in.
pub fn cassette_path(dir: &Path, unit: &UnitKey) -> PathBuf {
    dir.join(encode_name(&unit.suite)).join(encode_name(&unit.model)).join(file_name(&unit.scenario, unit.trial))
}

/// `<scenario>.t<trial>.json`.
pub fn file_name(scenario: &str, trial: u32) -> String {
    format!("{}.t{trial}.json", encode_name(scenario))
}

/// The scenario and trial a cassette file name stands for, if it is one.
pub fn parse_file_name(name: &str) -> Option<(String, u32)> {
    let stem = name.strip_suffix(".json")?;
    let (scenario, trial) = stem.rsplit_once(".t")?;
    if trial.is_empty() || !trial.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((decode_name(scenario)?, trial.parse().ok()?))
}

/// A name as a path component: ASCII letters, digits, `-`, `_`, `@` (an
/// arm's model variant, `sim-strong@off`) and `.` stay;
/// every other byte (and a leading `.`) becomes `%XX`, so two names never
/// share a file and none is hidden or climbs out of its folder.
pub fn encode_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, b) in name.bytes().enumerate() {
        let plain = b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'@' || (b == b'.' && i > 0);
        if plain {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The name `encode_name` encoded, if `encoded` is such a name.
pub fn decode_name(encoded: &str) -> Option<String> {
    let bytes = encoded.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = encoded.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let name = String::from_utf8(out).ok()?;
    (encode_name(&name) == encoded).then_some(name)
}

/// Reads and parses a cassette file.
pub fn read(path: &Path) -> Result<Cassette, CassetteError> {
    let text = std::fs::read_to_string(path).map_err(|source| CassetteError::Read { path: path.to_path_buf(), source })?;
    Cassette::parse(&text, path)
}

/// Whether a file name is one of our temporary files (left behind only if
/// the process died between writing and renaming).
pub fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && name.contains(".json.tmp")
}

/// Writes `text` to `path` atomically: a temporary file in the same folder,
/// flushed to disk, then renamed over `path`.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), CassetteError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let fail = |source| CassetteError::Write { path: path.to_path_buf(), source };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = dir.join(format!(".{name}.tmp{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_stay_inside_their_folder() {
        for name in ["read-cargo-toml", "a.b", "qwen2.5-coder-0.5b", "x/../y", "..", ".hidden", "π r²", "50%", "a.t1"] {
            let encoded = encode_name(name);
            assert!(!encoded.contains('/') && !encoded.starts_with('.'), "{name} → {encoded}");
            assert_eq!(decode_name(&encoded).as_deref(), Some(name), "{encoded}");
        }
        assert_eq!(encode_name("read-cargo-toml"), "read-cargo-toml");
        assert_eq!(decode_name("%zz"), None);
        assert_eq!(decode_name("a%2Db"), None, "not how `a-b` is encoded");
    }

    #[test]
    fn file_names_give_back_scenario_and_trial() {
        assert_eq!(file_name("read-cargo-toml", 0), "read-cargo-toml.t0.json");
        assert_eq!(parse_file_name("read-cargo-toml.t0.json"), Some(("read-cargo-toml".into(), 0)));
        // A scenario whose id looks like a trial suffix is still told apart.
        assert_eq!(parse_file_name(&file_name("a.t1", 2)), Some(("a.t1".into(), 2)));
        assert_eq!(parse_file_name("notes.json"), None);
        assert_eq!(parse_file_name("a.tx.json"), None);
        assert_eq!(parse_file_name(".a.t0.json.tmp1-2"), None);
        let unit = UnitKey { model: "m/x".into(), suite: "coding".into(), scenario: "s".into(), trial: 3 };
        assert_eq!(cassette_path(Path::new("rec"), &unit), Path::new("rec/coding/m%2Fx/s.t3.json"));
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep/er/a.t0.json");
        write_atomic(&path, "one\n").unwrap();
        write_atomic(&path, "two\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two\n");
        let names: Vec<String> =
            std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.t0.json"]);
        assert!(is_temporary(".a.t0.json.tmp123-0") && !is_temporary("a.t0.json"));
    }
}
