//! Keeping secrets out of cassettes, in three layers: only allowlisted
//! headers are recorded (never `authorization`, `x-api-key`, cookies…) and
//! URLs lose their host and any key-bearing query parameter (both in
//! `recorded`); and the text about to be written is scanned for key-shaped
//! strings and for the value of every configured key variable, and the
//! write refused if one is found (here).

use std::fmt;
use std::sync::OnceLock;

use regex::Regex;

use super::format::{Cassette, RecordedBody};
use crate::transport::redact::{joined_data, json_fields, JoinedField};
use crate::transport::scrub::url_credential;

/// A key-shaped string found in text about to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretFinding {
    /// What it looks like, e.g. "an Anthropic API key (sk-ant-…)".
    pub what: String,
    /// 1-based line of the text it is on.
    pub line: usize,
    /// Where it is when no single line holds it (a key split across a
    /// stream's events): "interaction #2: events #3–#4 of its stream, joined at …".
    pub place: Option<String>,
}

impl SecretFinding {
    fn at_line(what: String, line: usize) -> SecretFinding {
        SecretFinding { what, line, place: None }
    }
}

impl fmt::Display for SecretFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Some(place) => write!(f, "{place} holds {}", self.what),
            None => write!(f, "line {} holds {}", self.line, self.what),
        }
    }
}

/// Key shapes of the common providers and code hosts. Each needs a digit in
/// the match as well, so prose ("Bearer authentication") is not taken for a key.
fn patterns() -> &'static [(Regex, &'static str)] {
    static PATTERNS: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        [
            (r"\bsk-ant-[A-Za-z0-9_-]{16,}", "an Anthropic API key (sk-ant-…)"),
            (r"\bsk-[A-Za-z0-9_-]{20,}", "an OpenAI-style API key (sk-…)"),
            (r"\bAIza[0-9A-Za-z_-]{35}", "a Google API key (AIza…)"),
            (r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*", "a bearer token (Bearer …)"),
            (r"\bgsk_[A-Za-z0-9]{20,}", "a Groq API key (gsk_…)"),
            (r"\bhf_[A-Za-z0-9]{30,}", "a Hugging Face token (hf_…)"),
            (r"\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})", "a GitHub token"),
            (r"\bAKIA[0-9A-Z]{16}\b", "an AWS access key id (AKIA…)"),
            (r"\bxox[abprs]-[A-Za-z0-9-]{10,}", "a Slack token (xox…)"),
        ]
        .into_iter()
        .map(|(re, what)| (Regex::new(re).expect("secret patterns compile"), what))
        .collect()
    })
}

/// Values shorter than this are not taken for keys (an unset-looking `x`
/// would otherwise refuse every write).
const MIN_KEY_LEN: usize = 8;

/// The scan run on every cassette before it is written.
#[derive(Debug, Clone, Default)]
pub struct SecretScan {
    /// (variable name, its value) of every configured key variable that is set.
    values: Vec<(String, String)>,
}

impl SecretScan {
    /// A scan for the key shapes and for these variables' values.
    pub fn new(values: Vec<(String, String)>) -> SecretScan {
        SecretScan { values: values.into_iter().filter(|(_, v)| v.trim().len() >= MIN_KEY_LEN).collect() }
    }

    /// A scan for the key shapes and for the values these environment
    /// variables hold now (the models' `api_key_env`).
    pub fn from_env<'a>(variables: impl IntoIterator<Item = &'a str>) -> SecretScan {
        SecretScan::new(SecretScan::env_values(variables))
    }

    /// Each of these environment variables that is set, with its value.
    pub fn env_values<'a>(variables: impl IntoIterator<Item = &'a str>) -> Vec<(String, String)> {
        variables.into_iter().filter_map(|name| Some((name.to_string(), std::env::var(name).ok()?))).collect()
    }

    /// The first key-shaped string in `text`, if any.
    pub fn find(&self, text: &str) -> Option<SecretFinding> {
        let (at, _, what) = self.find_at(text)?;
        Some(SecretFinding::at_line(what, text[..at].matches('\n').count() + 1))
    }

    /// The first key-shaped string in `text`: where it starts and ends, and what it looks like.
    fn find_at(&self, text: &str) -> Option<(usize, usize, String)> {
        let mut first: Option<(usize, usize, String)> = None;
        let mut note = |at: usize, end: usize, what: String| {
            if first.as_ref().is_none_or(|(f, _, _)| at < *f) {
                first = Some((at, end, what));
            }
        };
        for (name, value) in &self.values {
            // As written inside a JSON string, too, should it hold characters JSON escapes.
            let escaped = serde_json::to_string(value.trim()).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            for form in [value.trim(), escaped] {
                if let Some(at) = text.find(form) {
                    note(at, at + form.len(), format!("the value of ${name}"));
                }
            }
        }
        for (re, what) in patterns() {
            if let Some(m) = re.find_iter(text).find(|m| m.as_str().bytes().any(|b| b.is_ascii_digit())) {
                note(m.start(), m.end(), (*what).to_string());
            }
        }
        first
    }

    /// The first secret in a cassette, looking where a reader would find
    /// one and a line-by-line scan of `text` (the file) would not: a key
    /// split across a stream's events (joined as an adapter joins them),
    /// written with JSON escapes, or carried in a recorded request's URL.
    pub fn find_in_cassette(&self, text: &str, cassette: &Cassette) -> Option<SecretFinding> {
        if let Some(finding) = self.find(text) {
            return Some(finding);
        }
        // The canonical text has every escape a hand-made file may hide a key behind decoded.
        let canonical = cassette.to_text();
        if canonical != text {
            if let Some(mut finding) = self.find(&canonical) {
                finding.place = Some(format!("line {} of the file with its escapes decoded", finding.line));
                return Some(finding);
            }
        }
        for (i, interaction) in cassette.interactions.iter().enumerate() {
            let number = i + 1;
            if let Some(what) = url_credential(&interaction.request.path) {
                return Some(SecretFinding { what, line: 0, place: Some(format!("the request path of interaction #{number}")) });
            }
            let RecordedBody::Events(events) = &interaction.response.body else { continue };
            let parsed: Vec<Option<serde_json::Value>> = events.iter().map(|e| serde_json::from_str(&e.data).ok()).collect();
            for field in json_fields(&parsed).into_iter().chain([joined_data(events)]) {
                if let Some(finding) = self.find_joined(&field, number) {
                    return Some(finding);
                }
            }
        }
        None
    }

    /// A secret in one field of a stream joined across its events.
    fn find_joined(&self, field: &JoinedField, interaction: usize) -> Option<SecretFinding> {
        let (at, end, what) = self.find_at(&field.text())?;
        let (first, last) = (field.event_at(at)? + 1, field.event_at(end.saturating_sub(1))? + 1);
        let events = if first == last { format!("event #{first}") } else { format!("events #{first}–#{last}") };
        let joined = if field.pointer.is_empty() { "their data joined".to_string() } else { format!("{} joined", field.pointer) };
        Some(SecretFinding { what, line: 0, place: Some(format!("interaction #{interaction}: {events} of its stream ({joined})")) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_shapes_are_found_with_their_line() {
        let scan = SecretScan::default();
        // Made-up keys, put together here so that no key-shaped string sits
        // in the source for a scanner to flag.
        let cases = [
            (["sk-", "proj-4fT9xQ2mLk8vB3nR7wZ1yH6c"].concat(), "OpenAI"),
            (["sk-", "ant-api03-Zx8Kq2Lm9Nv4Bc7Xz1Qw"].concat(), "Anthropic"),
            (["AI", "zaSyD4f8Gk2Lm9Nq3Rs7Tv1Wx5Yz0Ab2Cd4Ef"].concat(), "Google"),
            (["Authorization: Bearer ", "eyJhbGciOiJIUzI1NiJ9.abc"].concat(), "bearer"),
            (["gsk", "_8Hj2Kl4Mn6Pq8Rs0Tu2Vw4Xy"].concat(), "Groq"),
        ];
        for (secret, what) in cases {
            let text = format!("{{\n  \"a\": \"fine\",\n  \"b\": \"{secret}\"\n}}\n");
            let found = scan.find(&text).unwrap_or_else(|| panic!("{secret} not found"));
            assert_eq!(found.line, 3, "{secret}");
            assert!(found.what.contains(what), "{secret}: {}", found.what);
            assert!(!found.to_string().contains(secret.as_str()), "the finding must not repeat the secret");
        }
    }

    #[test]
    fn prose_is_not_taken_for_a_key() {
        let scan = SecretScan::default();
        for text in [
            "Send a Bearer authentication header",
            "use mask-rcnn-pretrained-weights-v2",
            "task-queue-worker-number-one-2",
            "sk-learn",
            "the AIza prefix",
        ] {
            assert_eq!(scan.find(text), None, "{text}");
        }
    }

    #[test]
    fn configured_key_values_are_found_and_short_ones_ignored() {
        let scan = SecretScan::new(vec![("MY_KEY".into(), "zq9-local-model-key".into()), ("SHORT".into(), "abc".into())]);
        let found = scan.find("a\nb zq9-local-model-key\n").unwrap();
        assert_eq!(found, SecretFinding { what: "the value of $MY_KEY".into(), line: 2, place: None });
        assert_eq!(scan.find("abc abc"), None);
    }

    fn stream_cassette(path: &str, datas: &[String]) -> Cassette {
        use crate::transport::{HttpRequest, HttpResponse, ResponseBody, SseEvent};
        let request = HttpRequest { method: "POST".into(), url: path.into(), headers: vec![], body: serde_json::json!({}) };
        let events = datas.iter().map(|d| SseEvent { offset_ms: 1.0, event: None, data: d.clone() }).collect();
        let response = HttpResponse { status: 200, headers: vec![], body: ResponseBody::Events(events), latency_ms: 2.0 };
        let mut interaction = super::super::Interaction::record("m", super::super::format::RecordedRequest::of(&request), &response, &[]);
        // As a hand-made file may hold it, whatever `recorded_path` would keep.
        interaction.request.path = path.to_string();
        let unit = crate::events::UnitKey { model: "m".into(), suite: "s".into(), scenario: "a".into(), trial: 0 };
        Cassette::new(unit, vec![interaction])
    }

    fn delta(text: &str) -> String {
        serde_json::json!({"choices": [{"delta": {"content": text}}]}).to_string()
    }

    #[test]
    fn a_key_split_across_stream_events_is_found() {
        let key = "zq9-local-model-key";
        let scan = SecretScan::new(vec![("MY_KEY".into(), key.into())]);
        let cassette = stream_cassette("/v1/chat/completions", &[delta("here: zq9-loc"), delta("al-model-key."), "[DONE]".into()]);
        let text = cassette.to_text();
        assert_eq!(scan.find(&text), None, "no line holds it whole");
        let found = scan.find_in_cassette(&text, &cassette).expect("split key found");
        assert_eq!(
            found.to_string(),
            "interaction #1: events #1–#2 of its stream (/choices/0/delta/content joined) holds the value of $MY_KEY"
        );

        // A key shape split across plain-text events, with no variable set.
        let shaped = ["sk-", "proj-4fT9xQ2mLk8vB3nR7wZ1yH6c"].concat();
        let (a, b) = shaped.split_at(12);
        let cassette = stream_cassette("/v1", &[format!("x {a}"), format!("{b} y")]);
        let found = SecretScan::default().find_in_cassette(&cassette.to_text(), &cassette).expect("split shape found");
        assert!(found.to_string().starts_with("interaction #1: events #1–#2 of its stream (their data joined) holds an OpenAI"), "{found}");

        let clean = stream_cassette("/v1", &[delta("hello "), delta("world 123"), "[DONE]".into()]);
        assert_eq!(scan.find_in_cassette(&clean.to_text(), &clean), None);
    }

    #[test]
    fn credentials_in_recorded_urls_and_escaped_keys_are_found() {
        let scan = SecretScan::new(vec![("MY_KEY".into(), "zq9-local-model-key".into())]);
        for path in ["/v1beta/models/m:generateContent?alt=sse&key=AAAA", "https://u:pw@h/v1"] {
            let cassette = stream_cassette(path, &[delta("hi")]);
            let found = scan.find_in_cassette(&cassette.to_text(), &cassette).unwrap_or_else(|| panic!("{path}"));
            assert!(found.to_string().starts_with("the request path of interaction #1 holds a "), "{found}");
        }
        // A key behind JSON escapes: invisible to a scan of the file's text.
        let cassette = stream_cassette("/v1", &[delta("zq9-local-model-key")]);
        let hidden = cassette.to_text().replace("zq9-local", "\\u007aq9-local");
        assert_eq!(scan.find(&hidden), None);
        let found = scan.find_in_cassette(&hidden, &cassette).unwrap();
        assert!(found.to_string().contains("with its escapes decoded holds the value of $MY_KEY"), "{found}");
    }
}
