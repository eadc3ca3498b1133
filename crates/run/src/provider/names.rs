//! Tool names as providers accept them. Scenarios may name tools in ways a
//! provider rejects (BFCL's `math.factorial`, long generated names); each
//! adapter maps the request's tool names to names its provider accepts on the
//! way out (tool definitions and the calls in the history) and maps the
//! names in the answer back, so the rest of calltape only sees the
//! scenario's own names.
//!
//! The mapping is a function of the request's tool names alone, so the same
//! request always goes out the same way (cassettes match) and a name that is
//! already acceptable is never changed.

use std::collections::{BTreeSet, HashMap};

use crate::chat::ChatRequest;

/// Longest tool name any of the providers accepts.
pub const MAX_NAME_LEN: usize = 64;

/// Which names a provider accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`.
    Basic,
    /// Gemini: letters, digits, `_`, `.` and `-`, starting with a letter or
    /// `_`, at most 64 characters.
    Gemini,
}

impl NameRule {
    fn allows_char(self, c: char) -> bool {
        c.is_ascii_alphanumeric() || c == '_' || c == '-' || (self == NameRule::Gemini && c == '.')
    }

    fn allows_first(self, c: char) -> bool {
        match self {
            NameRule::Basic => self.allows_char(c),
            NameRule::Gemini => c.is_ascii_alphabetic() || c == '_',
        }
    }

    /// Whether the provider accepts `name` as it is.
    pub fn accepts(self, name: &str) -> bool {
        let mut chars = name.chars();
        match chars.next() {
            None => false,
            Some(first) => name.len() <= MAX_NAME_LEN && self.allows_first(first) && chars.all(|c| self.allows_char(c)),
        }
    }

    /// `name` with every rejected character replaced by `_` (and, for Gemini,
    /// a `_` in front of a name that does not start with a letter or `_`);
    /// not yet cut to length.
    fn sanitize(self, name: &str) -> String {
        let mut out: String = name.chars().map(|c| if self.allows_char(c) { c } else { '_' }).collect();
        match out.chars().next() {
            None => out.push('_'),
            Some(first) if !self.allows_first(first) => out.insert(0, '_'),
            Some(_) => {}
        }
        out
    }
}

/// The two-way mapping between a request's tool names and the names sent.
#[derive(Debug, Clone)]
pub struct ToolNames {
    rule: NameRule,
    to_wire: HashMap<String, String>,
    to_original: HashMap<String, String>,
}

impl ToolNames {
    /// The mapping for a set of tool names.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>, rule: NameRule) -> ToolNames {
        let names: BTreeSet<&str> = names.into_iter().collect();
        let mut to_wire = HashMap::new();
        if names.iter().all(|n| rule.accepts(n)) {
            // The usual case, and per request: every name goes out as it is.
            // Empty maps say so (a lookup that misses maps a name to itself).
            return ToolNames { rule, to_wire, to_original: HashMap::new() };
        }
        let mut taken = BTreeSet::new();
        // Acceptable names keep their spelling, and so have first claim on it.
        for name in names.iter().filter(|n| rule.accepts(n)) {
            to_wire.insert(name.to_string(), name.to_string());
            taken.insert(name.to_string());
        }
        for name in names.iter().filter(|n| !rule.accepts(n)) {
            let plain = rule.sanitize(name);
            let wire = if plain.len() <= MAX_NAME_LEN && !taken.contains(&plain) {
                plain
            } else {
                (0u32..)
                    .map(|salt| hashed(&plain, name, salt))
                    .find(|candidate| !taken.contains(candidate))
                    .expect("some salt gives a free name")
            };
            taken.insert(wire.clone());
            to_wire.insert(name.to_string(), wire);
        }
        let to_original = to_wire.iter().map(|(o, w)| (w.clone(), o.clone())).collect();
        ToolNames { rule, to_wire, to_original }
    }

    /// The mapping for the tools a request offers.
    pub fn for_request(request: &ChatRequest, rule: NameRule) -> ToolNames {
        ToolNames::new(request.tools.iter().map(|t| t.name.as_str()), rule)
    }

    /// The name to send for `name`. A name that is not one of the request's
    /// tools (a call to an unknown tool in the history) is made acceptable
    /// the same way, without the collision check.
    pub fn to_wire(&self, name: &str) -> String {
        match self.to_wire.get(name) {
            Some(w) => w.clone(),
            None if self.rule.accepts(name) => name.to_string(),
            None => {
                let plain = self.rule.sanitize(name);
                if plain.len() <= MAX_NAME_LEN {
                    plain
                } else {
                    hashed(&plain, name, 0)
                }
            }
        }
    }

    /// The request's tool name for a name the model answered with; a name
    /// that is none of ours (a misspelt or invented tool) comes back as the
    /// model wrote it, for the pipeline to resolve.
    pub fn to_original(&self, wire: &str) -> String {
        self.to_original.get(wire).cloned().unwrap_or_else(|| wire.to_string())
    }
}

/// `plain` cut short, with a hash of the original name as a suffix: unique
/// in practice, and the same on every run.
fn hashed(plain: &str, original: &str, salt: u32) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in original.bytes().chain(salt.to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let suffix = format!("_{:08x}", h as u32);
    let keep = MAX_NAME_LEN - suffix.len();
    // `plain` is ASCII, so any byte index is a character boundary.
    format!("{}{}", &plain[..plain.len().min(keep)], suffix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acceptable_names_are_unchanged() {
        let names = ToolNames::new(["read_file", "Bash", "web-search"], NameRule::Basic);
        for n in ["read_file", "Bash", "web-search"] {
            assert_eq!(names.to_wire(n), n);
            assert_eq!(names.to_original(n), n);
        }
    }

    #[test]
    fn dots_and_spaces_become_underscores_and_come_back() {
        let names = ToolNames::new(["math.factorial", "get weather", "spotify.play"], NameRule::Basic);
        assert_eq!(names.to_wire("math.factorial"), "math_factorial");
        assert_eq!(names.to_wire("get weather"), "get_weather");
        assert_eq!(names.to_original("math_factorial"), "math.factorial");
        assert_eq!(names.to_original("get_weather"), "get weather");
        assert_eq!(names.to_original("spotify_play"), "spotify.play");
        // A name the model made up is left for the pipeline to resolve.
        assert_eq!(names.to_original("math_gcd"), "math_gcd");
    }

    #[test]
    fn gemini_keeps_dots_and_fixes_the_first_character() {
        let names = ToolNames::new(["math.factorial", "2fa-check", "a:b"], NameRule::Gemini);
        assert_eq!(names.to_wire("math.factorial"), "math.factorial");
        assert_eq!(names.to_wire("2fa-check"), "_2fa-check");
        assert_eq!(names.to_wire("a:b"), "a_b");
        assert_eq!(names.to_original("_2fa-check"), "2fa-check");
    }

    #[test]
    fn a_collision_gets_a_hash_suffix_and_the_acceptable_name_keeps_its_own() {
        let names = ToolNames::new(["a.b", "a_b", "a-b"], NameRule::Basic);
        assert_eq!(names.to_wire("a_b"), "a_b");
        assert_eq!(names.to_wire("a-b"), "a-b");
        let wire = names.to_wire("a.b");
        assert!(wire.starts_with("a_b_") && wire.len() == 12, "{wire}");
        assert_eq!(names.to_original(&wire), "a.b");
        assert_eq!(names.to_original("a_b"), "a_b");
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let long_a = format!("{}.alpha", "x".repeat(70));
        let long_b = format!("{}.beta", "x".repeat(70));
        let names = ToolNames::new([long_a.as_str(), long_b.as_str()], NameRule::Basic);
        let (wa, wb) = (names.to_wire(&long_a), names.to_wire(&long_b));
        assert_eq!(wa.len(), MAX_NAME_LEN);
        assert_eq!(wb.len(), MAX_NAME_LEN);
        assert_ne!(wa, wb);
        assert!(NameRule::Basic.accepts(&wa) && NameRule::Basic.accepts(&wb));
        assert_eq!(names.to_original(&wa), long_a);
        assert_eq!(names.to_original(&wb), long_b);
        // The same names map the same way in any order, on any run.
        let again = ToolNames::new([long_b.as_str(), long_a.as_str()], NameRule::Basic);
        assert_eq!(again.to_wire(&long_a), wa);
        // A 64-character name is acceptable as it is.
        let exact = "y".repeat(64);
        assert_eq!(ToolNames::new([exact.as_str()], NameRule::Basic).to_wire(&exact), exact);
    }

    #[test]
    fn round_trip_over_awkward_names() {
        let awkward = ["", "é", "a.b.c", "a/b", "a b", "💥tool", "_ok", "-x", "9lives", "a..b", "a__b"];
        for rule in [NameRule::Basic, NameRule::Gemini] {
            let names = ToolNames::new(awkward, rule);
            let mut seen = BTreeSet::new();
            for n in awkward {
                let w = names.to_wire(n);
                assert!(rule.accepts(&w), "{rule:?}: {n:?} -> {w:?}");
                assert!(seen.insert(w.clone()), "{rule:?}: {w:?} given twice");
                assert_eq!(names.to_original(&w), n, "{rule:?}");
            }
        }
    }

    #[test]
    fn unknown_history_names_are_made_acceptable() {
        let names = ToolNames::new(["read_file"], NameRule::Basic);
        assert_eq!(names.to_wire("read.file"), "read_file");
        assert!(NameRule::Basic.accepts(&names.to_wire(&"z.".repeat(50))));
    }
}
