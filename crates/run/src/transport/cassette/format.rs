//! The cassette file: one UTF-8 JSON document per (model, scenario, trial),
//! pretty-printed with sorted keys and a trailing newline, so a re-recording
//! reads as a plain diff. What changes on every recording (when, with which
//! calltape) is said once, at file level; interactions hold only what the
//! exchange itself was.
//!
//! An agent loop sends its tools and every earlier message again in each
//! request, so a cassette would grow with the square of its length. From
//! format 2 a request writes only what changed since the one before it:
//! `as_before` lists the body's top-level fields equal to the previous
//! request's (left out), `continues` the arrays that extend the previous
//! request's (only the new items written). Reading restores every body in
//! full before anything else sees it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::key::{request_key, sorted};
use super::recorded::{allowlisted, recorded_path, REQUEST_HEADERS, RESPONSE_HEADERS};
use super::CassetteError;
use crate::events::UnitKey;
use crate::transport::{HttpRequest, HttpResponse, ResponseBody, SseEvent};

/// The format this calltape writes, and the newest it reads.
pub const FORMAT_VERSION: u32 = 2;

/// The longest time a cassette may record for an exchange or an event's
/// offset, in milliseconds (one day): anything outside 0 to this is a
/// damaged or hostile file, refused before it can become a replay delay.
pub const MAX_RECORDED_MS: f64 = 86_400_000.0;

/// One unit's recorded exchanges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cassette {
    /// The file format's version (see `FORMAT_VERSION`).
    pub format: u32,
    /// The calltape that recorded it.
    pub calltape_version: String,
    /// When it was recorded, UTC, RFC 3339.
    pub recorded_at: String,
    /// The unit it belongs to; must agree with where the file lies.
    pub unit: UnitKey,
    /// A simulated model's answers, written by calltape before simulators
    /// were computed in-process: read so that such a file is known for what
    /// it is (`cassettes verify` calls it an orphan), never written.
    #[serde(default, rename = "sim", skip_serializing)]
    pub simulated: Option<serde_json::Value>,
    /// The exchanges, in the order they happened.
    pub interactions: Vec<Interaction>,
}

/// One request and its response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interaction {
    /// The request's match key (see `key`), for people: replay recomputes it.
    pub key: String,
    /// The configured model that answered (a repair model's requests are
    /// recorded in the unit that made them).
    pub model: String,
    pub request: RecordedRequest,
    pub response: RecordedResponse,
    /// The token usage the response reports, where it reports one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// The exchange's latency as measured (or simulated) when recorded.
    pub latency_ms: f64,
}

/// A request as recorded: no host, no credentials.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedRequest {
    pub method: String,
    /// Path and query, without host and without key-bearing parameters.
    pub path: String,
    /// Allowlisted headers only, by lower-case name.
    pub headers: BTreeMap<String, String>,
    pub body: Value,
    /// In the file only: top-level body fields equal to the previous request's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub as_before: Vec<String>,
    /// In the file only: array fields that start with the previous request's
    /// whole array (its length here); the body holds the items after it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub continues: BTreeMap<String, usize>,
}

/// Writes each request as what changed since the previous one (see the module doc).
fn compact(interactions: &mut [Interaction]) {
    for i in (1..interactions.len()).rev() {
        let (before, rest) = interactions.split_at_mut(i);
        let RecordedRequest { body, as_before, continues, .. } = &mut rest[0].request;
        let (Value::Object(previous), Value::Object(body)) = (&before[i - 1].request.body, body) else {
            continue;
        };
        for (field, old) in previous {
            let Some(new) = body.get_mut(field) else { continue };
            if new == old {
                body.remove(field);
                as_before.push(field.clone());
            } else if let (Value::Array(old_items), Value::Array(new_items)) = (old, &mut *new) {
                if !old_items.is_empty() && new_items.len() > old_items.len() && new_items.starts_with(old_items) {
                    new_items.drain(..old_items.len());
                    continues.insert(field.clone(), old_items.len());
                }
            }
        }
    }
}

/// Restores every request's full body; `Err` names the interaction (from 1)
/// that refers to what its previous request does not have.
fn expand(interactions: &mut [Interaction]) -> Result<(), CompactedError> {
    for i in 1..interactions.len() {
        let (before, rest) = interactions.split_at_mut(i);
        let RecordedRequest { body, as_before, continues, .. } = &mut rest[0].request;
        if as_before.is_empty() && continues.is_empty() {
            continue;
        }
        let bad = |problem: CompactedProblem| CompactedError::Interaction { number: i + 1, problem };
        let (Value::Object(previous), Value::Object(body)) = (&before[i - 1].request.body, body) else {
            return Err(bad(CompactedProblem::NotObjects));
        };
        for field in std::mem::take(as_before) {
            let old = previous.get(&field).ok_or_else(|| bad(CompactedProblem::NoPrevious { field: field.clone() }))?;
            body.insert(field, old.clone());
        }
        for (field, len) in std::mem::take(continues) {
            let old = previous.get(&field).and_then(Value::as_array).filter(|items| items.len() == len);
            let old = old.ok_or_else(|| bad(CompactedProblem::NoPreviousArray { field: field.clone(), len }))?;
            let Some(Value::Array(new_items)) = body.get_mut(&field) else {
                return Err(bad(CompactedProblem::NotAnArray { field }));
            };
            new_items.splice(0..0, old.iter().cloned());
        }
    }
    match interactions.first().map(|i| &i.request) {
        Some(first) if !first.as_before.is_empty() || !first.continues.is_empty() => Err(CompactedError::First),
        _ => Ok(()),
    }
}

/// A response as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedResponse {
    pub status: u16,
    /// Allowlisted headers only, by lower-case name.
    pub headers: BTreeMap<String, String>,
    pub body: RecordedBody,
}

/// A response body: `{"json": …}`, `{"text": "…"}` or `{"events": […]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordedBody {
    Json(Value),
    Text(String),
    /// A stream: every event with its offset from the request, its data
    /// exactly as it came (one line each, so a diff shows which chunk changed).
    Events(Vec<SseEvent>),
}

impl RecordedRequest {
    /// What is kept of a request.
    pub fn of(request: &HttpRequest) -> RecordedRequest {
        RecordedRequest {
            method: request.method.to_ascii_uppercase(),
            path: recorded_path(&request.url),
            headers: allowlisted(&request.headers, &REQUEST_HEADERS),
            body: request.body.clone(),
            as_before: Vec::new(),
            continues: BTreeMap::new(),
        }
    }

    /// Its match key with these fields left out.
    pub fn key(&self, ignore_fields: &[String]) -> String {
        request_key(&self.method, &self.path, &self.body, ignore_fields)
    }

    /// The match key `of(request)` would have, without copying the body.
    pub fn key_of(request: &HttpRequest, ignore_fields: &[String]) -> String {
        request_key(&request.method.to_ascii_uppercase(), &recorded_path(&request.url), &request.body, ignore_fields)
    }
}

impl Interaction {
    /// What is kept of one exchange.
    pub fn record(model: &str, request: RecordedRequest, response: &HttpResponse, ignore_fields: &[String]) -> Interaction {
        let body = match &response.body {
            ResponseBody::Json(v) => RecordedBody::Json(v.clone()),
            ResponseBody::Text(t) => RecordedBody::Text(t.clone()),
            ResponseBody::Events(events) => RecordedBody::Events(events.clone()),
        };
        Interaction {
            key: request.key(ignore_fields),
            model: model.to_string(),
            usage: usage_of(&body),
            request,
            response: RecordedResponse { status: response.status, headers: allowlisted(&response.headers, &RESPONSE_HEADERS), body },
            latency_ms: response.latency_ms,
        }
    }

    /// The response to hand back on replay, latency included.
    pub fn response(&self) -> HttpResponse {
        HttpResponse {
            status: self.response.status,
            headers: self.response.headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            body: match &self.response.body {
                RecordedBody::Json(v) => ResponseBody::Json(v.clone()),
                RecordedBody::Text(t) => ResponseBody::Text(t.clone()),
                RecordedBody::Events(e) => ResponseBody::Events(e.clone()),
            },
            latency_ms: self.latency_ms,
        }
    }
}

/// The usage a body reports: OpenAI's and Anthropic's `usage`, Gemini's
/// `usageMetadata`; for a stream, the last event that carries one (Anthropic
/// puts it in `message_start`'s message, then in `message_delta`).
fn usage_of(body: &RecordedBody) -> Option<Value> {
    fn in_value(v: &Value) -> Option<Value> {
        ["/usage", "/usageMetadata", "/message/usage"].iter().find_map(|p| v.pointer(p)).filter(|u| u.is_object()).cloned()
    }
    match body {
        RecordedBody::Json(v) => in_value(v),
        RecordedBody::Text(_) => None,
        RecordedBody::Events(events) => {
            events.iter().rev().find_map(|e| serde_json::from_str::<Value>(&e.data).ok().as_ref().and_then(in_value))
        }
    }
}

impl Cassette {
    /// A new cassette stamped with this calltape and the time now.
    pub fn new(unit: UnitKey, interactions: Vec<Interaction>) -> Cassette {
        Cassette {
            format: FORMAT_VERSION,
            calltape_version: env!("CARGO_PKG_VERSION").to_string(),
            recorded_at: utc_now_rfc3339(),
            unit,
            simulated: None,
            interactions,
        }
    }

    /// The canonical text: pretty, keys sorted, one trailing newline; from
    /// format 2 each request as what changed since the previous one.
    pub fn to_text(&self) -> String {
        let mut written = self.clone();
        // A file read in format 1 is written back as it was.
        if written.format >= 2 {
            compact(&mut written.interactions);
        }
        let value = serde_json::to_value(&written).expect("a cassette serialises");
        let mut text = serde_json::to_string_pretty(&sorted(&value)).expect("a JSON value serialises");
        text.push('\n');
        text
    }

    /// Reads a cassette's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Cassette, CassetteError> {
        let bad = |source: FormatError| CassetteError::Format { path: path.to_path_buf(), source };
        let value: Value = serde_json::from_str(text).map_err(|e| bad(FormatError::NotJson(e)))?;
        match value.get("format").and_then(Value::as_u64) {
            Some(v) if v <= u64::from(FORMAT_VERSION) => {}
            Some(version) => return Err(bad(FormatError::Newer { version })),
            None => return Err(bad(FormatError::NoVersion)),
        }
        // Parsed again from the text, so shape errors come with a line and column.
        let mut cassette: Cassette = serde_json::from_str(text).map_err(|e| bad(FormatError::Shape(e)))?;
        expand(&mut cassette.interactions).map_err(|e| bad(FormatError::Compacted(e)))?;
        cassette.check_times().map_err(|e| bad(FormatError::Time(e)))?;
        Ok(cassette)
    }

    /// Every recorded time is a number of milliseconds from 0 to `MAX_RECORDED_MS`.
    fn check_times(&self) -> Result<(), RecordedTimeError> {
        let ok = |ms: f64| (0.0..=MAX_RECORDED_MS).contains(&ms);
        for (i, interaction) in self.interactions.iter().enumerate() {
            let offsets = match &interaction.response.body {
                RecordedBody::Events(events) => events.iter().map(|e| e.offset_ms).collect(),
                _ => Vec::new(),
            };
            let bad = if !ok(interaction.latency_ms) {
                Some(("latency_ms", interaction.latency_ms))
            } else {
                offsets.iter().copied().find(|&ms| !ok(ms)).map(|ms| ("an event's offset_ms", ms))
            };
            if let Some((field, ms)) = bad {
                return Err(RecordedTimeError { interaction: i + 1, key: interaction.key.clone(), field, ms });
            }
        }
        Ok(())
    }

    /// Whether two cassettes hold the same exchanges for the same unit and
    /// sources, whenever, with whatever and in which format they were recorded.
    pub fn same_content(&self, other: &Cassette) -> bool {
        self.unit == other.unit && self.interactions == other.interactions
    }
}

/// Why a file is not a cassette this calltape reads.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("not JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    /// Written by a newer calltape.
    #[error("cassette format {version} is newer than this calltape reads ({FORMAT_VERSION}); update calltape or re-record")]
    Newer { version: u64 },
    #[error("no \"format\" version: not a calltape cassette")]
    NoVersion,
    /// JSON, but not the shape of a cassette (with the line and column).
    #[error("{0}")]
    Shape(#[source] serde_json::Error),
    #[error("{0}")]
    Time(#[source] RecordedTimeError),
    /// A request written as changes to the previous one that does not fit it.
    #[error("{0}")]
    Compacted(#[source] CompactedError),
}

/// A request written as changes to the previous one that does not fit it.
#[derive(Debug, thiserror::Error)]
pub enum CompactedError {
    /// Interaction `number` (from 1) refers to what its previous request does not have.
    #[error("interaction {number}: {problem}; the file is damaged or was edited: record the unit again")]
    Interaction { number: usize, problem: CompactedProblem },
    #[error("interaction 1: refers to a previous request, and there is none; the file is damaged or was edited: record the unit again")]
    First,
}

/// What a compacted request refers to that is not there.
#[derive(Debug, thiserror::Error)]
pub enum CompactedProblem {
    #[error("a request body (this one or the previous) that is not an object")]
    NotObjects,
    #[error("`{field}` is as before, and the previous request has none")]
    NoPrevious { field: String },
    #[error("`{field}` continues {len} items of the previous request, which has no such array")]
    NoPreviousArray { field: String, len: usize },
    #[error("`{field}` continues an array but is not one")]
    NotAnArray { field: String },
}

/// A recorded time that is not a number of milliseconds from 0 to
/// [`MAX_RECORDED_MS`]: replaying it would sleep for ever or panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "interaction {interaction} (key {key}): {field} is {ms:?}, not a time from 0 to {MAX_RECORDED_MS} ms; the file is damaged or was edited: record the unit again"
)]
pub struct RecordedTimeError {
    /// The interaction, counted from 1.
    pub interaction: usize,
    /// Its match key.
    pub key: String,
    /// `latency_ms` or an event's `offset_ms`.
    pub field: &'static str,
    pub ms: f64,
}

fn utc_now_rfc3339() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let t = crate::core::time::UtcTime::from_unix(now.as_secs() as i64);
    format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", t.year, t.month, t.day, t.hour, t.minute, t.second)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn unit() -> UnitKey {
        UnitKey { model: "m".into(), suite: "s".into(), scenario: "a".into(), trial: 0 }
    }

    fn request() -> HttpRequest {
        HttpRequest {
            method: "post".into(),
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            headers: vec![("Authorization".into(), "Bearer x".into()), ("Content-Type".into(), "application/json".into())],
            body: json!({"model": "m", "messages": []}),
        }
    }

    #[test]
    fn text_is_sorted_pretty_and_ends_in_one_newline() {
        let response = HttpResponse {
            status: 200,
            headers: vec![("x-request-id".into(), "req_1".into()), ("content-type".into(), "application/json".into())],
            body: ResponseBody::Json(json!({"z": 1, "usage": {"prompt_tokens": 3}, "a": 2})),
            latency_ms: 12.5,
        };
        let i = Interaction::record("m", RecordedRequest::of(&request()), &response, &[]);
        let c = Cassette::new(unit(), vec![i]);
        let text = c.to_text();
        assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
        assert!(text.starts_with("{\n  \"calltape_version\": "), "{text}");
        let keys: Vec<&str> = text.lines().filter(|l| l.starts_with("  \"")).map(|l| l.trim().split('"').nth(1).unwrap()).collect();
        assert_eq!(keys, ["calltape_version", "format", "interactions", "recorded_at", "unit"]);
        assert!(text.find("\"a\": 2").unwrap() < text.find("\"z\": 1").unwrap());
        assert!(!text.contains("req_1") && !text.contains("Bearer"), "{text}");
        assert!(text.contains("\"path\": \"/v1/chat/completions\""));
        assert!(text.contains("\"method\": \"POST\""));
        let back = Cassette::parse(&text, Path::new("x.json")).unwrap();
        assert_eq!(back, c);
        assert_eq!(back.interactions[0].usage, Some(json!({"prompt_tokens": 3})));
        assert_eq!(back.interactions[0].response().latency_ms, 12.5);
    }

    #[test]
    fn stream_events_keep_their_offsets_and_data() {
        let events = vec![
            SseEvent { offset_ms: 10.25, event: Some("message_start".into()), data: r#"{"message":{"usage":{"input_tokens":5}}}"#.into() },
            SseEvent { offset_ms: 42.0, event: None, data: "[DONE]".into() },
        ];
        let response = HttpResponse { status: 200, headers: vec![], body: ResponseBody::Events(events.clone()), latency_ms: 43.0 };
        let i = Interaction::record("m", RecordedRequest::of(&request()), &response, &[]);
        assert_eq!(i.usage, Some(json!({"input_tokens": 5})));
        let c = Cassette::new(unit(), vec![i]);
        let back = Cassette::parse(&c.to_text(), Path::new("x.json")).unwrap();
        assert_eq!(back.interactions[0].response(), response.clone());
    }

    #[test]
    fn format_errors_name_the_file_and_what_is_wrong() {
        let p = Path::new("recordings/s/m/a.t0.json");
        let err = Cassette::parse("{\"format\": 1, \"interactions\": 3}", p).unwrap_err().to_string();
        assert!(err.starts_with("recordings/s/m/a.t0.json: ") && err.contains("line 1"), "{err}");
        let err = Cassette::parse("{\"format\": 99}", p).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("recordings/s/m/a.t0.json: cassette format 99 is newer than this calltape reads ({FORMAT_VERSION}); update calltape or re-record")
        );
        let err = Cassette::parse("[1,", p).unwrap_err();
        let source = std::error::Error::source(&err).and_then(std::error::Error::source).expect("the serde_json error is kept");
        assert_eq!(err.to_string(), format!("recordings/s/m/a.t0.json: not JSON: {source}"));
        let err = Cassette::parse("{}", p).unwrap_err().to_string();
        assert_eq!(err, "recordings/s/m/a.t0.json: no \"format\" version: not a calltape cassette");
    }

    #[test]
    fn recorded_times_outside_a_day_are_refused_on_load() {
        let events = vec![SseEvent { offset_ms: 5.0, event: None, data: "[DONE]".into() }];
        let response = HttpResponse { status: 200, headers: vec![], body: ResponseBody::Events(events), latency_ms: 6.0 };
        let good = Cassette::new(unit(), vec![Interaction::record("m", RecordedRequest::of(&request()), &response, &[])]);
        let p = Path::new("c.json");
        assert!(Cassette::parse(&good.to_text(), p).is_ok());
        for (from, to, field) in [
            ("\"latency_ms\": 6.0", "\"latency_ms\": 1e300", "latency_ms is 1e300"),
            ("\"latency_ms\": 6.0", "\"latency_ms\": -5", "latency_ms is -5.0"),
            ("\"latency_ms\": 6.0", "\"latency_ms\": 86400001", "latency_ms is 86400001.0"),
            ("\"offset_ms\": 5.0", "\"offset_ms\": 1e300", "an event's offset_ms is 1e300"),
            ("\"offset_ms\": 5.0", "\"offset_ms\": -0.001", "an event's offset_ms is -0.001"),
        ] {
            let text = good.to_text().replace(from, to);
            assert_ne!(text, good.to_text(), "{from}");
            let err = Cassette::parse(&text, p).unwrap_err().to_string();
            assert!(err.starts_with("c.json: interaction 1 (key ") && err.contains(field), "{err}");
            assert!(err.contains("record the unit again"), "{err}");
        }
        let text = good.to_text().replace("\"latency_ms\": 6.0", "\"latency_ms\": -5");
        let err = Cassette::parse(&text, p).unwrap_err();
        let key = &good.interactions[0].key;
        assert_eq!(
            err.to_string(),
            format!("c.json: interaction 1 (key {key}): latency_ms is -5.0, not a time from 0 to 86400000 ms; the file is damaged or was edited: record the unit again")
        );
        assert!(std::error::Error::source(&err).is_some(), "the time error is kept as the source");
        // A first request that refers to a previous one: the compaction error is the source.
        let text = good.to_text().replacen("\"body\":", "\"as_before\": [\"model\"], \"body\":", 1);
        let err = Cassette::parse(&text, p).unwrap_err();
        assert_eq!(
            err.to_string(),
            "c.json: interaction 1: refers to a previous request, and there is none; the file is damaged or was edited: record the unit again"
        );
        let source = std::error::Error::source(&err).and_then(std::error::Error::source).expect("the compaction error");
        assert!(matches!(source.downcast_ref::<CompactedError>(), Some(CompactedError::First)), "{source:?}");
        // JSON has no NaN or infinity: such a file is not JSON, and says where.
        for bad in ["NaN", "Infinity", "1e400"] {
            let text = good.to_text().replace("\"latency_ms\": 6.0", &format!("\"latency_ms\": {bad}"));
            assert!(Cassette::parse(&text, p).is_err(), "{bad}");
        }
    }

    #[test]
    fn requests_are_written_as_what_changed_and_read_back_whole() {
        let response = HttpResponse { status: 200, headers: vec![], body: ResponseBody::Json(json!({"ok": true})), latency_ms: 1.0 };
        let tools = json!([{"name": "t", "description": "a long description"}]);
        let bodies = [
            json!({"model": "m", "tools": tools, "messages": [{"role": "user", "content": "hi"}]}),
            json!({"model": "m", "tools": tools, "messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": "r"}]}),
            // A request that does not extend the previous one is written whole.
            json!({"model": "m", "messages": [{"role": "system", "content": "repair"}]}),
        ];
        let interactions: Vec<Interaction> = bodies
            .iter()
            .map(|b| Interaction::record("m", RecordedRequest::of(&HttpRequest { body: b.clone(), ..request() }), &response, &[]))
            .collect();
        let cassette = Cassette::new(unit(), interactions);
        let text = cassette.to_text();
        assert_eq!(text.matches("a long description").count(), 1, "{text}");
        assert!(text.contains("\"as_before\": [") && text.contains("\"continues\": {") && text.contains("\"messages\": 1"), "{text}");
        let back = Cassette::parse(&text, Path::new("c.json")).unwrap();
        assert_eq!(back, cassette);
        assert_eq!(back.to_text(), text);

        // A reference the previous request cannot satisfy is refused, naming the interaction.
        let broken = text.replacen("\"messages\": 1", "\"messages\": 5", 1);
        let err = Cassette::parse(&broken, Path::new("c.json")).unwrap_err().to_string();
        assert!(err.contains("interaction 2: `messages` continues 5 items"), "{err}");
    }
}
