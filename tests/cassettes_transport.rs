//! The cassette transport over any transport: a fake one that streams
//! (`ResponseBody::Events`) stands in for the live one. Recorded streams
//! replay with their event offsets; identical requests replay in order;
//! keys planted in headers, URL and body never reach the disk.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use calltape::core::cassette::CassetteSettings;
use calltape::core::modes::{CassetteMode, ReplayTiming};
use calltape::events::UnitKey;
use calltape::transport::cassette::{CassetteError, Recordings, SecretScan};
use calltape::transport::{BoxFuture, HttpRequest, HttpResponse, ResponseBody, SseEvent, Transport, TransportError};
use serde_json::{json, Value};

const OPENAI_KEY: &str = "sk-proj-Q7h2Lx9Vb4Nm8Kc3Zt6Rw1Yp5Jd0Gf";
const ANTHROPIC_KEY: &str = "sk-ant-api03-Mv8Qx2Lk7Nb4Zc9Rt3Wy6Hp1";
const GOOGLE_KEY: &str = "AIzaSyB7x2Kq9Lm4Nv8Rc3Tz6Wp1Yh5Jd0Gf2Qa";
const LOCAL_KEY: &str = "lm-local-7f3k29xq-secret";

/// A streaming server stand-in: answer `n` (counting from 1) is a stream of
/// three events whose text says `n`.
#[derive(Default)]
struct FakeStream {
    calls: AtomicUsize,
}

impl Transport for FakeStream {
    fn send<'a>(&'a self, _request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        Box::pin(async move {
            let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
            let chunk = |text: &str| json!({"choices": [{"delta": {"content": text}}]}).to_string();
            Ok(HttpResponse {
                status: 200,
                headers: vec![
                    ("content-type".into(), "text/event-stream".into()),
                    ("x-request-id".into(), format!("req_{n}")),
                    ("set-cookie".into(), "session=abc".into()),
                ],
                body: ResponseBody::Events(vec![
                    SseEvent { offset_ms: 101.5, event: None, data: chunk("answer") },
                    SseEvent { offset_ms: 180.25, event: None, data: chunk(&format!(" {n}")) },
                    SseEvent {
                        offset_ms: 190.0,
                        event: None,
                        data: json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 2}}).to_string(),
                    },
                    SseEvent { offset_ms: 190.5, event: None, data: "[DONE]".into() },
                ]),
                latency_ms: 191.0,
            })
        })
    }
}

fn unit() -> UnitKey {
    UnitKey { model: "remote".into(), suite: "s".into(), scenario: "streams".into(), trial: 0 }
}

fn recordings(dir: &Path, timing: ReplayTiming, speed: f64) -> Arc<Recordings> {
    let settings = CassetteSettings { dir: dir.to_path_buf(), timing, speed, ..CassetteSettings::default() };
    Recordings::new(settings, SecretScan::new(vec![("LOCAL_MODEL_KEY".into(), LOCAL_KEY.into())]))
}

/// A request carrying keys everywhere a client might put them, and a body
/// the test chooses.
fn request(body: Value) -> HttpRequest {
    HttpRequest {
        method: "POST".into(),
        url: format!("https://api.example.com/v1beta/models/m:streamGenerateContent?alt=sse&key={GOOGLE_KEY}"),
        headers: vec![
            ("Authorization".into(), format!("Bearer {OPENAI_KEY}")),
            ("x-api-key".into(), ANTHROPIC_KEY.into()),
            ("x-goog-api-key".into(), GOOGLE_KEY.into()),
            ("api-key".into(), LOCAL_KEY.into()),
            ("Cookie".into(), "session=abc".into()),
            ("content-type".into(), "application/json".into()),
            ("anthropic-version".into(), "2023-06-01".into()),
        ],
        body,
    }
}

fn body(user: &str) -> Value {
    json!({"model": "m", "stream": true, "user": user, "messages": [{"role": "user", "content": "hello"}]})
}

#[tokio::test]
async fn streams_record_and_replay_in_order_with_their_offsets_and_no_keys() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), ReplayTiming::Instant, 1.0);
    let cassette = rec.open(CassetteMode::Record, unit());
    let remote = cassette.endpoint("remote", Some(Box::new(FakeStream::default())));
    // The same request twice (the caller id differs: it is ignored by default), then another.
    let first = remote.send(&request(body("u-1"))).await.unwrap();
    let second = remote.send(&request(body("u-2"))).await.unwrap();
    let mut other = body("u-1");
    other["messages"][0]["content"] = "bye".into();
    let third = remote.send(&request(other.clone())).await.unwrap();
    let path = cassette.path().to_path_buf();
    let outcome = cassette.finish();
    assert!(outcome.error.is_none(), "{:?}", outcome.error);
    assert!(outcome.written && outcome.recorded == 3);

    let text = std::fs::read_to_string(&path).unwrap();
    for secret in [OPENAI_KEY, ANTHROPIC_KEY, GOOGLE_KEY, LOCAL_KEY, "session=abc", "api.example.com", "req_1"] {
        assert!(!text.contains(secret), "{secret} reached the cassette:\n{text}");
    }
    let c: Value = serde_json::from_str(&text).unwrap();
    let i = &c["interactions"][0];
    assert_eq!(i["request"]["path"], "/v1beta/models/m:streamGenerateContent?alt=sse");
    assert_eq!(i["request"]["headers"], json!({"anthropic-version": "2023-06-01", "content-type": "application/json"}));
    assert_eq!(i["response"]["headers"], json!({"content-type": "text/event-stream"}));
    assert_eq!(
        i["response"]["body"]["events"][1],
        json!({"offset_ms": 180.25, "data": "{\"choices\":[{\"delta\":{\"content\":\" 1\"}}]}"})
    );
    assert_eq!(i["usage"], json!({"prompt_tokens": 9, "completion_tokens": 2}));
    assert_eq!(i["latency_ms"], 191.0);
    assert_eq!(c["interactions"][0]["key"], c["interactions"][1]["key"], "identical requests, one key");

    // Replay with no transport underneath: the same responses, in the recorded order.
    let cassette = rec.open(CassetteMode::Replay, unit());
    let remote = cassette.endpoint("remote", None);
    assert_eq!(remote.send(&request(body("u-9"))).await.unwrap(), first);
    assert_eq!(remote.send(&request(other)).await.unwrap(), third);
    assert_eq!(remote.send(&request(body("u-1"))).await.unwrap(), second);
    assert_ne!(first, second);
    // A fourth identical request has nothing left to replay.
    let err = remote.send(&request(body("u-1"))).await.unwrap_err().to_string();
    assert!(err.starts_with("no recording for model remote, scenario s/streams, trial 0 (request key "), "{err}");
    assert!(err.contains("holds no recording of it") && err.contains("--mode record --model remote --filter streams"), "{err}");
    let outcome = cassette.finish();
    assert_eq!((outcome.replayed, outcome.missing.len(), outcome.unused.len(), outcome.written), (3, 1, 0, false));
}

#[tokio::test]
async fn a_key_in_the_body_refuses_the_write_and_leaves_the_old_cassette_alone() {
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), ReplayTiming::Instant, 1.0);
    let cassette = rec.open(CassetteMode::Record, unit());
    cassette.endpoint("remote", Some(Box::new(FakeStream::default()))).send(&request(body("u"))).await.unwrap();
    let path = cassette.path().to_path_buf();
    assert!(cassette.finish().written);
    let before = std::fs::read_to_string(&path).unwrap();

    for (planted, what) in [
        (format!("my key is {OPENAI_KEY}"), "an OpenAI-style API key"),
        (format!("x-api-key: {ANTHROPIC_KEY}"), "an Anthropic API key"),
        (format!("Authorization: Bearer {}", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjF9"), "a bearer token"),
        (format!("use {LOCAL_KEY} please"), "the value of $LOCAL_MODEL_KEY"),
    ] {
        let cassette = rec.open(CassetteMode::Record, unit());
        let remote = cassette.endpoint("remote", Some(Box::new(FakeStream::default())));
        let mut leaky = body("u");
        leaky["messages"][0]["content"] = planted.clone().into();
        remote.send(&request(leaky)).await.unwrap();
        let error = cassette.finish().error.expect("the write is refused");
        let message = error.to_string();
        assert!(matches!(error, CassetteError::Secret { .. }), "{message}");
        assert!(message.starts_with(&format!("refused to write {}: line ", path.display())), "{message}");
        assert!(message.contains(&format!("holds {what}")) && message.contains("nothing was written"), "{message}");
        assert!(!message.contains(&planted), "the error must not print the key: {message}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before, "the old cassette is untouched");
    }
    let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind: {leftovers:?}");
}

#[test]
fn configured_key_variables_are_scanned_for() {
    // A variable name no other test uses: the scan reads it when built.
    std::env::set_var("CALLTAPE_TEST_CASSETTE_KEY", "zz-9f8e7d6c5b4a");
    let scan = SecretScan::from_env(["CALLTAPE_TEST_CASSETTE_KEY", "CALLTAPE_TEST_UNSET_VARIABLE"]);
    let found = scan.find("{\n  \"k\": \"zz-9f8e7d6c5b4a\"\n}\n").unwrap();
    assert_eq!(found.to_string(), "line 2 holds the value of $CALLTAPE_TEST_CASSETTE_KEY");
}

#[tokio::test]
async fn a_failed_exchange_leaves_no_cassette_and_recorded_timing_waits() {
    struct Down;
    impl Transport for Down {
        fn send<'a>(&'a self, _: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
            Box::pin(async { Err(TransportError::Connection("connection refused".into())) })
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let rec = recordings(dir.path(), ReplayTiming::Recorded, 10.0);
    let cassette = rec.open(CassetteMode::Record, unit());
    let err = cassette.endpoint("remote", Some(Box::new(Down))).send(&request(body("u"))).await.unwrap_err();
    assert_eq!(err, TransportError::Connection("connection refused".into()));
    let path = cassette.path().to_path_buf();
    let message = cassette.finish().error.unwrap().to_string();
    assert_eq!(message, format!("{} was not written: request 1 (to remote) failed: connection failed: connection refused", path.display()));
    assert!(!path.exists());

    // Record for real, then replay keeping the recorded timing at 10× speed:
    // the stream's 191 ms take at least 19 ms, and the figures stay the recorded ones.
    let cassette = rec.open(CassetteMode::Record, unit());
    let recorded = cassette.endpoint("remote", Some(Box::new(FakeStream::default()))).send(&request(body("u"))).await.unwrap();
    assert!(cassette.finish().written);
    let cassette = rec.open(CassetteMode::Replay, unit());
    let started = std::time::Instant::now();
    let replayed = cassette.endpoint("remote", None).send(&request(body("u"))).await.unwrap();
    assert!(started.elapsed() >= std::time::Duration::from_millis(19));
    assert_eq!(replayed, recorded);
    assert_eq!(replayed.latency_ms, 191.0);
}
