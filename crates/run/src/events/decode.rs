//! Reading an event without serde's buffering.
//!
//! serde's derive reads an internally tagged enum (and a flattened field)
//! by first copying the whole object into its generic `Content` tree, then
//! reading the variant from that copy: for the million-line events files
//! `calltape report` reads, that copy was most of the work. calltape writes
//! `ts_ms` and `event` first, so here the tag is read first and the
//! variant's body struct is read straight from the rest of the object. Any
//! other key order (a file edited or made by hand) is read through a
//! `serde_json::Value` and the derived `EventKind`, slower and the same.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::*;

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Event, D::Error> {
        deserializer.deserialize_map(EventVisitor)
    }
}

/// A key of the object's head.
enum HeadKey {
    TsMs,
    Event,
    Other(String),
}

impl<'de> Deserialize<'de> for HeadKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<HeadKey, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = HeadKey;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<HeadKey, E> {
                Ok(match key {
                    "ts_ms" => HeadKey::TsMs,
                    "event" => HeadKey::Event,
                    other => HeadKey::Other(other.to_owned()),
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = Event;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a calltape event (an object with `ts_ms` and `event`)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event, A::Error> {
        let mut ts_ms: Option<u64> = None;
        loop {
            match map.next_key::<HeadKey>()? {
                Some(HeadKey::TsMs) if ts_ms.is_none() => ts_ms = Some(map.next_value()?),
                Some(HeadKey::Event) => {
                    let tag: String = map.next_value()?;
                    return match ts_ms {
                        Some(ts_ms) => Ok(Event { ts_ms, kind: body(&tag, map)? }),
                        None => buffered(map, ts_ms, Some(tag), None),
                    };
                }
                Some(HeadKey::TsMs) => return Err(de::Error::duplicate_field("ts_ms")),
                Some(HeadKey::Other(key)) => return buffered(map, ts_ms, None, Some(key)),
                None => return Err(de::Error::missing_field("event")),
            }
        }
    }
}

/// The variant `tag` names, its body read from the rest of `map`.
fn body<'de, A: MapAccess<'de>>(tag: &str, map: A) -> Result<EventKind, A::Error> {
    let rest = de::value::MapAccessDeserializer::new(map);
    Ok(match tag {
        "run_started" => EventKind::RunStarted(Deserialize::deserialize(rest)?),
        "scenario_started" => EventKind::ScenarioStarted(Deserialize::deserialize(rest)?),
        "model_request" => EventKind::ModelRequest(Deserialize::deserialize(rest)?),
        "tool_call" => EventKind::ToolCall(Deserialize::deserialize(rest)?),
        "tool_repair" => EventKind::ToolRepair(Deserialize::deserialize(rest)?),
        "tool_approval" => EventKind::ToolApproval(Deserialize::deserialize(rest)?),
        "denial_followup" => EventKind::DenialFollowup(Deserialize::deserialize(rest)?),
        "tool_executed" => EventKind::ToolExecuted(Deserialize::deserialize(rest)?),
        "scenario_finished" => EventKind::ScenarioFinished(Deserialize::deserialize(rest)?),
        "cassette" => EventKind::Cassette(Deserialize::deserialize(rest)?),
        "run_finished" => EventKind::RunFinished(Deserialize::deserialize(rest)?),
        "run_interrupted" => EventKind::RunInterrupted(Deserialize::deserialize(rest)?),
        other => return Err(de::Error::unknown_variant(other, TAGS)),
    })
}

/// Every `event` tag, as `body` reads them (a test holds it to serde's names).
pub(super) const TAGS: &[&str] = &[
    "run_started",
    "scenario_started",
    "model_request",
    "tool_call",
    "tool_repair",
    "tool_approval",
    "denial_followup",
    "tool_executed",
    "scenario_finished",
    "cassette",
    "run_finished",
    "run_interrupted",
];

/// The slow path: the rest of the object into a `Value`, then the derived
/// `EventKind`, which finds the tag wherever it is.
fn buffered<'de, A: MapAccess<'de>>(mut map: A, ts_ms: Option<u64>, tag: Option<String>, key: Option<String>) -> Result<Event, A::Error> {
    let mut object = Map::new();
    if let Some(tag) = tag {
        object.insert("event".into(), Value::String(tag));
    }
    if let Some(key) = key {
        object.insert(key, map.next_value()?);
    }
    while let Some((key, value)) = map.next_entry::<String, Value>()? {
        object.insert(key, value);
    }
    let ts_ms = match (ts_ms, object.remove("ts_ms")) {
        (Some(ts_ms), None) => ts_ms,
        (None, Some(value)) => u64::deserialize(value).map_err(de::Error::custom)?,
        (Some(_), Some(_)) => return Err(de::Error::duplicate_field("ts_ms")),
        (None, None) => return Err(de::Error::missing_field("ts_ms")),
    };
    let kind = EventKind::deserialize(Value::Object(object)).map_err(de::Error::custom)?;
    Ok(Event { ts_ms, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit() -> UnitKey {
        UnitKey { model: "m".into(), suite: "s".into(), scenario: "a".into(), trial: 3 }
    }

    /// One event of every kind, as `calltape run` writes them.
    fn every_kind() -> Vec<Event> {
        let lines = [
            r#"{"ts_ms":1,"event":"run_started","run_id":"r","models":[],"suites":["s"],"trials":1,"seed":7,"config":"c"}"#,
            r#"{"ts_ms":2,"event":"scenario_started","model":"m","suite":"s","scenario":"a","trial":3}"#,
            r#"{"ts_ms":3,"event":"model_request","model":"m","suite":"s","scenario":"a","trial":3,"step":0,"purpose":"turn","repair_of":null,"status":200,"input_tokens":1,"output_tokens":2,"cached_input_tokens":0,"cost_usd":0.5,"latency_ms":1.5,"error":null,"text":"hi \"there\""}"#,
            r#"{"ts_ms":4,"event":"tool_repair","model":"m","suite":"s","scenario":"a","trial":3,"call_id":"c","tool":"t","stage":"local","attempt":1,"fixes":[],"succeeded":true,"latency_us":2.0,"latency_ms":null,"error":null}"#,
            r#"{"ts_ms":5,"event":"denial_followup","model":"m","suite":"s","scenario":"a","trial":3,"call_id":"c","tool":"t","behaviour":"answered"}"#,
            r#"{"ts_ms":6,"event":"tool_executed","model":"m","suite":"s","scenario":"a","trial":3,"call_id":"c","tool":"t","is_error":false,"scripted":true}"#,
            r#"{"ts_ms":7,"event":"scenario_finished","model":"m","suite":"s","scenario":"a","trial":3,"passed":true,"reason":"passed","steps":2,"error":false}"#,
            r#"{"ts_ms":8,"event":"cassette","model":"m","suite":"s","scenario":"a","trial":3,"path":"p","mode":"replay","replayed":1,"recorded":0,"missing":0,"unused":[],"written":false,"error":null}"#,
            r#"{"ts_ms":9,"event":"run_finished","units":1,"elapsed_ms":2.5}"#,
            r#"{"ts_ms":10,"event":"run_interrupted","completed":1,"remaining":2}"#,
        ];
        lines.iter().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))).collect()
    }

    #[test]
    fn the_fast_path_reads_what_the_derive_writes_and_reads() {
        for event in every_kind() {
            let line = serde_json::to_string(&event).unwrap();
            assert!(line.starts_with(&format!("{{\"ts_ms\":{},\"event\":", event.ts_ms)), "{line}");
            assert_eq!(serde_json::from_str::<Event>(&line).unwrap(), event, "{line}");
            // The derived reader of the kind agrees with the fast one.
            assert_eq!(serde_json::from_str::<EventKind>(&line).unwrap(), event.kind, "{line}");
        }
        assert_eq!(every_kind()[2].kind.unit(), Some(&unit()));
    }

    #[test]
    fn any_key_order_reads_the_same() {
        for event in every_kind() {
            let Value::Object(object) = serde_json::to_value(&event).unwrap() else { unreachable!() };
            // serde_json's map sorts keys: `event` and `ts_ms` land among the others.
            let sorted = serde_json::to_string(&object).unwrap();
            assert_eq!(serde_json::from_str::<Event>(&sorted).unwrap(), event, "{sorted}");
            let reversed: Vec<String> = object.iter().rev().map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), v)).collect();
            let reversed = format!("{{{}}}", reversed.join(","));
            assert_eq!(serde_json::from_str::<Event>(&reversed).unwrap(), event, "{reversed}");
        }
    }

    #[test]
    fn every_tag_is_read_and_named_as_serde_names_it() {
        let mut seen: Vec<String> =
            every_kind().iter().map(|e| serde_json::to_value(e).unwrap()["event"].as_str().unwrap().to_owned()).collect();
        // tool_call and tool_approval carry pipeline types; their tags are checked by name here.
        seen.extend(["tool_call".to_owned(), "tool_approval".to_owned()]);
        seen.sort();
        let mut tags: Vec<String> = TAGS.iter().map(|t| t.to_string()).collect();
        tags.sort();
        assert_eq!(seen, tags);
    }

    #[test]
    fn bad_events_are_errors_that_say_why() {
        let cases = [
            (r#"{"ts_ms":1,"event":"no_such_kind"}"#, "unknown variant `no_such_kind`"),
            (r#"{"ts_ms":1}"#, "missing field `event`"),
            (r#"{"event":"run_finished","units":1,"elapsed_ms":2.0}"#, "missing field `ts_ms`"),
            (r#"{"ts_ms":1,"ts_ms":2,"event":"run_finished","units":1,"elapsed_ms":2.0}"#, "duplicate field `ts_ms`"),
            (r#"{"ts_ms":1,"event":"run_finished","units":"x","elapsed_ms":2.0}"#, "invalid type"),
            (r#"[1,2]"#, "invalid type"),
        ];
        for (line, want) in cases {
            let err = serde_json::from_str::<Event>(line).unwrap_err().to_string();
            assert!(err.contains(want), "{line}: {err}");
        }
    }
}
