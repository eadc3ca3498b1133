//! Redaction of the secrets a request carried (the API key, a base URL's
//! credentials) from everything the server sends back, before any of it
//! reaches an event, a report or a cassette.
//!
//! It works on what a reader sees, not on what the network delivered: a
//! body is redacted as bytes (so one that is not UTF-8 is still covered),
//! then as decoded JSON strings; a stream is redacted once it is whole,
//! event by event and then across events, on the texts a provider adapter
//! joins (each JSON string field's pieces in arrival order, and the raw data
//! of all events), so a key the server splits across chunks or events is
//! caught all the same.

use std::collections::BTreeMap;

use regex::bytes::Regex;
use serde_json::Value;

use super::scrub::REDACTED;
use super::{ResponseBody, SseEvent};

/// Values shorter than this are not redacted: a short password such as
/// `abc` would otherwise mangle every answer.
pub const MIN_SECRET_LEN: usize = 6;

/// Up to this many string values in one call's arguments, every pair is
/// checked for a secret split across the two; past it, neighbours only.
const PAIRED_STRINGS: usize = 32;

/// Finds and replaces a fixed set of secrets.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Each secret as it is, longest first.
    secrets: Vec<String>,
    /// Every written form of every secret (as is, JSON-escaped), one pattern.
    pattern: Option<Regex>,
}

impl Redactor {
    /// A redactor for these values; blank, short and duplicate ones are left out.
    pub fn new(values: impl IntoIterator<Item = String>) -> Redactor {
        let mut secrets: Vec<String> = values
            .into_iter()
            .map(|v| v.trim().to_string())
            .filter(|v| v.len() >= MIN_SECRET_LEN && !REDACTED.contains(v.as_str()))
            .collect();
        secrets.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        secrets.dedup();
        // Text forms match in any case (a key upper-cased, `%2f` or `%2F`);
        // base64 is case-sensitive, so its forms match exactly.
        let mut forms: Vec<(String, bool)> = secrets
            .iter()
            .flat_map(|s| {
                let caseless = written_forms(s).into_iter().chain(percent_forms(s)).map(|f| (f, true));
                caseless.chain(base64_forms(s).into_iter().map(|f| (f, false)))
            })
            .collect();
        forms.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.cmp(b)));
        forms.dedup();
        let pattern = (!forms.is_empty()).then(|| {
            let alternatives: Vec<String> =
                forms.iter().map(|(f, caseless)| if *caseless { format!("(?i:{})", regex::escape(f)) } else { regex::escape(f) }).collect();
            regex::bytes::RegexBuilder::new(&alternatives.join("|")).size_limit(64 << 20).build().expect("escaped literals compile")
        });
        Redactor { secrets, pattern }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// Whether `text` holds a secret in any of its forms.
    pub fn finds(&self, text: &str) -> bool {
        self.pattern.as_ref().is_some_and(|p| p.is_match(text.as_bytes()))
    }

    /// `bytes` with every secret replaced, whatever the bytes around it.
    pub fn bytes(&self, bytes: &[u8]) -> Vec<u8> {
        match &self.pattern {
            Some(p) => p.replace_all(bytes, REDACTED.as_bytes()).into_owned(),
            None => bytes.to_vec(),
        }
    }

    /// Replaces every secret in `text` where it lies; a text with none is
    /// left as it is, not copied.
    pub fn redact(&self, text: &mut String) {
        if self.finds(text) {
            *text = self.text(text);
        }
    }

    /// `text` with every secret replaced.
    pub fn text(&self, text: &str) -> String {
        match &self.pattern {
            // Replacing valid UTF-8 by ASCII keeps the text valid.
            Some(_) => {
                String::from_utf8(self.bytes(text.as_bytes())).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            }
            None => text.to_string(),
        }
    }

    /// Redacts every string and object key in a JSON value, as decoded (a
    /// key written with `\u` escapes is caught too).
    pub fn json(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(s) => *s = self.text(s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (name, mut v) in entries {
                    self.json(&mut v);
                    map.insert(self.text(&name), v);
                }
            }
            _ => {}
        }
    }

    /// Redacts a key split across two fields: any two string values whose
    /// concatenation (either way round: object keys come sorted, not in
    /// the model's order) holds a secret lose it, the first keeping the
    /// marker. Past `PAIRED_STRINGS` values only neighbours are paired,
    /// which bounds the work. Returns whether anything changed.
    pub fn split_across_strings(&self, value: &mut Value) -> bool {
        let Some(pattern) = &self.pattern else { return false };
        let mut leaves = Vec::new();
        string_leaves(value, &mut String::new(), &mut leaves);
        let n = leaves.len();
        let pairs: Vec<(usize, usize)> = if n <= PAIRED_STRINGS {
            (0..n).flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j))).collect()
        } else {
            (1..n).map(|i| (i - 1, i)).collect()
        };
        let mut changed = false;
        for (i, j) in pairs {
            let (a, b) = (&leaves[i].1, &leaves[j].1);
            let joined = format!("{a}{b}");
            let Some(m) = pattern.find_iter(joined.as_bytes()).find(|m| m.start() < a.len() && m.end() > a.len()) else { continue };
            let (Some(head), Some(tail)) = (a.get(..m.start()), b.get(m.end() - a.len()..)) else { continue };
            let (head, tail) = (format!("{head}{REDACTED}"), tail.to_string());
            for (pointer, text) in [(&leaves[i].0, &head), (&leaves[j].0, &tail)] {
                if let Some(slot) = value.pointer_mut(pointer) {
                    *slot = Value::String(text.clone());
                }
            }
            leaves[i].1 = head;
            leaves[j].1 = tail;
            changed = true;
        }
        changed
    }

    /// A tool call's arguments as a model wrote them (JSON text, or not):
    /// the text redacted, then, if it is JSON, its strings as decoded and
    /// adjacent strings joined. Honest arguments come back byte for byte.
    pub fn arguments(&self, arguments: &str) -> String {
        if self.is_empty() {
            return arguments.to_string();
        }
        let text = self.text(arguments);
        let Ok(mut value) = serde_json::from_str::<Value>(&text) else { return text };
        let before = value.clone();
        self.json(&mut value);
        self.split_across_strings(&mut value);
        if value == before {
            text
        } else {
            value.to_string()
        }
    }

    /// A whole (non-streamed) body: JSON if it parses, else text (decoded
    /// lossily, the rest kept intact), redacted either way.
    pub fn body(&self, bytes: &[u8]) -> ResponseBody {
        let bytes = self.bytes(bytes);
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(mut json) => {
                self.json(&mut json);
                ResponseBody::Json(json)
            }
            Err(_) => ResponseBody::Text(self.text(&String::from_utf8_lossy(&bytes))),
        }
    }

    /// Header values, redacted in place.
    pub fn headers(&self, headers: &mut [(String, String)]) {
        for (_, value) in headers.iter_mut() {
            *value = self.text(value);
        }
    }

    /// A whole stream, redacted in place: each event, then the texts a
    /// reader joins across events.
    pub fn events(&self, events: &mut [SseEvent]) {
        if self.is_empty() {
            return;
        }
        for e in events.iter_mut() {
            e.data = self.text(&e.data);
            e.event = e.event.as_deref().map(|name| self.text(name));
        }
        self.across_json_fields(events);
        // The raw data joined, for streams of plain text.
        let mut pieces: Vec<String> = events.iter().map(|e| e.data.clone()).collect();
        let mut changed = false;
        for secret in self.secrets.iter().flat_map(|s| written_forms(s)) {
            changed |= redact_joined(&mut pieces, &secret);
        }
        if changed {
            for (e, piece) in events.iter_mut().zip(pieces) {
                e.data = piece;
            }
        }
    }

    /// Each JSON string field's pieces joined across events: a delta's
    /// `content`, a tool call's `arguments`, Anthropic's `partial_json`.
    fn across_json_fields(&self, events: &mut [SseEvent]) {
        let mut parsed: Vec<Option<Value>> = events.iter().map(|e| serde_json::from_str(&e.data).ok()).collect();
        let mut dirty = vec![false; events.len()];
        for field in json_fields(&parsed) {
            let mut pieces: Vec<String> = field.pieces.iter().map(|p| p.text.clone()).collect();
            let mut changed = false;
            for secret in &self.secrets {
                changed |= redact_joined(&mut pieces, secret);
            }
            if !changed {
                continue;
            }
            for (piece, text) in field.pieces.iter().zip(pieces) {
                if text != piece.text {
                    if let Some(slot) = parsed[piece.event].as_mut().and_then(|v| v.pointer_mut(&field.pointer)) {
                        *slot = Value::String(text);
                        dirty[piece.event] = true;
                    }
                }
            }
        }
        for ((event, value), dirty) in events.iter_mut().zip(parsed).zip(dirty) {
            if let (true, Some(value)) = (dirty, value) {
                event.data = value.to_string();
            }
        }
    }
}

/// The forms a secret takes in a body: as is, and inside a JSON string
/// (escaped, and with `/` written `\/` as some servers do).
fn written_forms(secret: &str) -> Vec<String> {
    let quoted = serde_json::to_string(secret).unwrap_or_default();
    let escaped = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')).unwrap_or(secret).to_string();
    let mut forms = vec![secret.to_string(), escaped.replace('/', "\\/"), escaped];
    forms.sort();
    forms.dedup();
    forms.retain(|f| !f.is_empty());
    forms
}

/// A secret percent-encoded as a URL or a form would carry it: every
/// reserved byte escaped, and every byte escaped (hex in either case: the
/// pattern ignores case).
fn percent_forms(secret: &str) -> Vec<String> {
    let reserved: String = secret
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    let every: String = secret.bytes().map(|b| format!("%{b:02X}")).collect();
    vec![reserved, every]
}

/// The base64 text a secret becomes inside a longer base64 text, standard
/// and URL-safe: the secret may start at any of the 3 byte offsets of a
/// 3-byte group, and only the characters its own bits decide are kept.
fn base64_forms(secret: &str) -> Vec<String> {
    let mut forms = Vec::new();
    for offset in 0..3usize {
        let mut bytes = vec![0u8; offset];
        bytes.extend_from_slice(secret.as_bytes());
        let encoded = super::scrub::base64(&bytes);
        let first = (offset * 8).div_ceil(6);
        let last = (bytes.len() * 8) / 6;
        if let Some(middle) = encoded.get(first..last) {
            forms.push(middle.to_string());
            forms.push(middle.replace('+', "-").replace('/', "_"));
        }
    }
    forms.sort();
    forms.dedup();
    forms
}

/// One JSON string field's values across a stream's events, joined as a
/// reader joins them.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinedField {
    /// The field's JSON Pointer inside each event's data (`/choices/0/delta/content`).
    pub pointer: String,
    /// Its value in each event that has it, in order.
    pub pieces: Vec<JoinedPiece>,
}

/// A piece of a joined field.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinedPiece {
    /// 0-based index of the event.
    pub event: usize,
    pub text: String,
}

impl JoinedField {
    /// The pieces joined.
    pub fn text(&self) -> String {
        self.pieces.iter().map(|p| p.text.as_str()).collect()
    }

    /// The event the byte at `offset` of `text()` came from.
    pub fn event_at(&self, offset: usize) -> Option<usize> {
        let mut start = 0;
        for piece in &self.pieces {
            start += piece.text.len();
            if offset < start {
                return Some(piece.event);
            }
        }
        None
    }
}

/// Every JSON string field that occurs in more than one event of a stream
/// (events whose data is JSON, given parsed), with its pieces in order.
pub fn json_fields(parsed: &[Option<Value>]) -> Vec<JoinedField> {
    let mut fields: BTreeMap<String, Vec<JoinedPiece>> = BTreeMap::new();
    for (event, value) in parsed.iter().enumerate() {
        if let Some(value) = value {
            let mut leaves = Vec::new();
            string_leaves(value, &mut String::new(), &mut leaves);
            for (pointer, text) in leaves {
                fields.entry(pointer).or_default().push(JoinedPiece { event, text });
            }
        }
    }
    fields.into_iter().filter(|(_, pieces)| pieces.len() > 1).map(|(pointer, pieces)| JoinedField { pointer, pieces }).collect()
}

/// The raw data of every event joined: what a reader of a plain-text stream reads.
pub fn joined_data(events: &[SseEvent]) -> JoinedField {
    JoinedField {
        pointer: String::new(),
        pieces: events.iter().enumerate().map(|(event, e)| JoinedPiece { event, text: e.data.clone() }).collect(),
    }
}

fn string_leaves(value: &Value, pointer: &mut String, out: &mut Vec<(String, String)>) {
    let len = pointer.len();
    match value {
        Value::String(s) => out.push((pointer.clone(), s.clone())),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                pointer.push_str(&format!("/{i}"));
                string_leaves(v, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            for (name, v) in map {
                pointer.push('/');
                pointer.push_str(&name.replace('~', "~0").replace('/', "~1"));
                string_leaves(v, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Replaces every occurrence of `secret` in the pieces' concatenation: the
/// first piece it touches gets the marker, the others lose their part of it.
/// Returns whether anything was replaced.
fn redact_joined(pieces: &mut [String], secret: &str) -> bool {
    let mut any = false;
    // Removing one occurrence could in theory join its neighbours into
    // another; a few rounds settle that, and the count bounds the work.
    for _ in 0..4 {
        let joined = pieces.concat();
        let found: Vec<usize> = joined.match_indices(secret).map(|(at, _)| at).collect();
        if found.is_empty() {
            break;
        }
        any = true;
        let starts: Vec<usize> = pieces
            .iter()
            .scan(0, |offset, p| {
                let start = *offset;
                *offset += p.len();
                Some(start)
            })
            .collect();
        let lengths: Vec<usize> = pieces.iter().map(String::len).collect();
        // Right to left, so the offsets still to be used stay valid.
        for &at in found.iter().rev() {
            let end = at + secret.len();
            let touched: Vec<usize> = (0..pieces.len()).filter(|&i| starts[i] < end && at < starts[i] + lengths[i]).collect();
            for (n, &i) in touched.iter().enumerate().rev() {
                let lo = at.max(starts[i]) - starts[i];
                let hi = end.min(starts[i] + lengths[i]) - starts[i];
                pieces[i].replace_range(lo..hi, if n == 0 { REDACTED } else { "" });
            }
        }
    }
    any
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = "sk-zz-0123456789abcdef";

    fn redactor() -> Redactor {
        Redactor::new([KEY.to_string(), "abc".to_string(), "  ".to_string()])
    }

    fn event(data: &str) -> SseEvent {
        SseEvent { offset_ms: 0.0, event: None, data: data.to_string() }
    }

    #[test]
    fn a_key_in_any_case_percent_encoded_or_base64_at_any_offset_is_redacted() {
        let r = redactor();
        assert_eq!(r.text(&format!("x {} y", KEY.to_uppercase())), "x [redacted] y");
        let percent: String = KEY.bytes().map(|b| format!("%{b:02x}")).collect();
        assert_eq!(r.text(&format!("q={percent}&")), "q=[redacted]&");
        for prefix in ["", "a", "ab", "abc", "key="] {
            let encoded = crate::wire::scrub::base64(format!("{prefix}{KEY} trailing").as_bytes());
            assert!(!r.text(&encoded).eq(&encoded), "standard base64 after {prefix:?}: {encoded}");
            let url_safe = encoded.replace('+', "-").replace('/', "_");
            assert!(r.text(&url_safe).contains(REDACTED), "url-safe base64 after {prefix:?}");
        }
        assert_eq!(r.text("an honest answer, no secret"), "an honest answer, no secret");
    }

    #[test]
    fn a_key_split_across_two_adjacent_argument_values_is_redacted() {
        let r = redactor();
        let (a, b) = KEY.split_at(9);
        let args = format!(r#"{{"path": "/tmp/{a}", "mode": "{b}-rw"}}"#);
        let out: Value = serde_json::from_str(&r.arguments(&args)).unwrap();
        assert_eq!(out, json!({"path": "/tmp/[redacted]", "mode": "-rw"}));
        let honest = r#"{"path":  "/tmp/x", "mode": "rw"}"#;
        assert_eq!(r.arguments(honest), honest, "honest arguments are kept byte for byte");
    }

    #[test]
    fn short_and_blank_values_are_not_secrets() {
        assert!(Redactor::new(["abc".to_string(), " ".to_string()]).is_empty());
        assert_eq!(redactor().text("abc abc"), "abc abc");
    }

    #[test]
    fn bodies_are_redacted_as_bytes_even_when_not_utf8() {
        let mut body = b"\xff\xfe bad bytes then the key ".to_vec();
        body.extend_from_slice(KEY.as_bytes());
        body.extend_from_slice(b" and \xc3 more");
        let ResponseBody::Text(text) = redactor().body(&body) else { panic!("text") };
        assert_eq!(text, "\u{fffd}\u{fffd} bad bytes then the key [redacted] and \u{fffd} more");
    }

    #[test]
    fn json_strings_are_redacted_as_decoded() {
        // The key written with \u escapes, and as an object key.
        let escaped = KEY.replace('s', "\\u0073");
        let body = format!("{{\"error\": \"bad key {escaped}\", \"{KEY}\": 1}}");
        let ResponseBody::Json(json) = redactor().body(body.as_bytes()) else { panic!("json") };
        assert_eq!(json, json!({"error": "bad key [redacted]", "[redacted]": 1}));
    }

    #[test]
    fn a_key_split_across_events_of_one_field_is_redacted() {
        let (a, b) = KEY.split_at(9);
        let mut events = vec![
            event(&json!({"choices": [{"delta": {"content": format!("echo {a}")}}]}).to_string()),
            event(&json!({"id": "x", "choices": [{"delta": {"content": format!("{b} done")}}]}).to_string()),
            event("[DONE]"),
        ];
        redactor().events(&mut events);
        let joined: String = events
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
            .filter_map(|v| v.pointer("/choices/0/delta/content").and_then(Value::as_str).map(str::to_string))
            .collect();
        assert_eq!(joined, "echo [redacted] done");
        assert!(events.iter().all(|e| !e.data.contains(a) && !e.data.contains(b)), "{events:?}");
    }

    #[test]
    fn a_key_split_across_three_plain_text_events_is_redacted() {
        let mut events = vec![event(&format!("x{}", &KEY[..5])), event(&KEY[5..10]), event(&format!("{}y", &KEY[10..]))];
        redactor().events(&mut events);
        let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["x[redacted]", "", "y"]);
    }

    #[test]
    fn joined_fields_say_which_event_each_byte_came_from() {
        let parsed = vec![Some(json!({"a": "xy", "b": "only once"})), None, Some(json!({"a": "zw"}))];
        let fields = json_fields(&parsed);
        assert_eq!(fields.len(), 1);
        assert_eq!((fields[0].pointer.as_str(), fields[0].text()), ("/a", "xyzw".to_string()));
        assert_eq!((fields[0].event_at(1), fields[0].event_at(2), fields[0].event_at(4)), (Some(0), Some(2), None));
    }

    #[test]
    fn json_escaped_forms_are_covered() {
        let r = Redactor::new(["a/b\"c-secret".to_string()]);
        assert_eq!(r.text(r#"{"k":"a\/b\"c-secret"}"#), r#"{"k":"[redacted]"}"#);
        assert_eq!(r.text(r#"{"k":"a/b\"c-secret"}"#), r#"{"k":"[redacted]"}"#);
    }
}
