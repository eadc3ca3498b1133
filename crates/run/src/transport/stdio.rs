//! A child process as a transport: MCP's stdio transport, where each
//! JSON-RPC message is one line on the child's stdin or stdout. A request's
//! body is written as one line; its answer is the next stdout line with the
//! same `id` (the server's own notifications and requests are skipped). A
//! notification (no `id`) gets no answer: it is acknowledged as `202` with
//! an empty body, as streamable HTTP does, so both record alike.
//!
//! The wait is bounded; the child is killed when the transport is dropped;
//! its stderr is kept (the last few KiB) for error messages. Lines are
//! written by a thread of their own, so a child that stops reading cannot
//! block past the wait. Blocking:
//! `send` waits on its own thread's channel, so run it where blocking is
//! allowed (`crate::mcp` gives each server a thread of its own).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{BoxFuture, HttpRequest, HttpResponse, ResponseBody, Transport, TransportError};

/// How much of the child's stderr is kept for error messages.
const STDERR_KEPT: usize = 4096;
/// The longest stdout line read (a bigger answer is an error, not an allocation).
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;
/// Stdout lines read ahead of the exchange that wants them: with
/// `MAX_LINE_BYTES`, what a server's unasked output can take of memory.
const LINES_BUFFERED: usize = 4;

/// A started child process that speaks JSON-RPC on its stdin and stdout.
pub struct StdioTransport {
    /// The command line, for messages.
    label: String,
    io: Mutex<ChildIo>,
    stderr: Arc<Mutex<Vec<u8>>>,
    timeout: Duration,
}

struct ChildIo {
    child: Child,
    /// Lines for the writer thread: a child that stops reading blocks it, never `send`.
    stdin: Option<mpsc::Sender<Vec<u8>>>,
    lines: Receiver<Result<String, LineTooLong>>,
}

/// The child wrote a line longer than calltape reads; its reader stops there.
#[derive(Debug, thiserror::Error)]
#[error("it wrote a line longer than {MAX_LINE_BYTES} bytes (the longest MCP message calltape reads)")]
struct LineTooLong;

impl StdioTransport {
    /// Starts `command` (program first) with `env` as its whole environment
    /// (nothing of calltape's is inherited); each answer is awaited at most `timeout`.
    pub fn spawn(command: &[String], env: &BTreeMap<String, String>, timeout: Duration) -> Result<StdioTransport, TransportError> {
        let label = command.join(" ");
        let (program, args) = command.split_first().ok_or_else(|| TransportError::Connection("an MCP command needs a program".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .env_clear()
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| {
                TransportError::Connection(format!("cannot start the MCP server `{label}`: {e} (is {program:?} installed and on PATH?)"))
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        // Bounded: a server that floods stdout between calls waits on its
        // pipe instead of filling memory; the next exchange reads past it.
        let (tx, lines) = mpsc::sync_channel(LINES_BUFFERED);
        std::thread::spawn(move || read_lines(stdout, tx));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let kept = stderr.clone();
        std::thread::spawn(move || keep_tail(stderr_pipe, &kept));
        let pipe = child.stdin.take().expect("stdin is piped");
        let (writer, to_write) = mpsc::channel();
        std::thread::spawn(move || write_lines(pipe, to_write));
        let stdin = Some(writer);
        Ok(StdioTransport { label, io: Mutex::new(ChildIo { child, stdin, lines }), stderr, timeout })
    }

    /// The last lines the child wrote to stderr, for an error message.
    fn stderr_tail(&self) -> String {
        let kept = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        let text = String::from_utf8_lossy(&kept);
        let text = text.trim();
        if text.is_empty() {
            "it wrote nothing to stderr".into()
        } else {
            format!("its stderr ends: {}", crate::transport::scrub::scrub_text(text))
        }
    }

    fn exchange(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let started = Instant::now();
        let mut io = self.io.lock().unwrap_or_else(|p| p.into_inner());
        let mut line = request.body.to_string();
        line.push('\n');
        let written = io.stdin.as_ref().is_some_and(|stdin| stdin.send(line.into_bytes()).is_ok());
        if !written {
            io.stdin = None;
            let status = wait_briefly(&mut io.child);
            return Err(self.gone(&format!("cannot write to it: its stdin is closed{status}")));
        }
        let Some(id) = request.body.get("id").filter(|id| !id.is_null()) else {
            return Ok(HttpResponse { status: 202, headers: vec![], body: ResponseBody::Text(String::new()), latency_ms: ms(started) });
        };
        let deadline = started + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match io.lines.recv_timeout(left) {
                Ok(Ok(line)) => line,
                Ok(Err(e)) => return Err(self.gone(&e.to_string())),
                Err(RecvTimeoutError::Timeout) => return Err(TransportError::Timeout(self.timeout.as_secs())),
                Err(RecvTimeoutError::Disconnected) => {
                    // Give the reaped status a moment to appear, for the message.
                    let status = wait_briefly(&mut io.child);
                    return Err(self.gone(&format!("it exited{status} before answering request {id}")));
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else { continue };
            // A server's notifications and requests have a `method`; answers do not.
            if message.get("method").is_none() && message.get("id") == Some(id) {
                let headers = vec![("content-type".to_string(), "application/json".to_string())];
                return Ok(HttpResponse { status: 200, headers, body: ResponseBody::Json(message), latency_ms: ms(started) });
            }
        }
    }

    fn gone(&self, what: &str) -> TransportError {
        TransportError::Connection(format!("the MCP server `{}`: {what}; {}", self.label, self.stderr_tail()))
    }
}

impl Transport for StdioTransport {
    fn send<'a>(&'a self, request: &'a HttpRequest) -> BoxFuture<'a, Result<HttpResponse, TransportError>> {
        Box::pin(async move { self.exchange(request) })
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        let io = self.io.get_mut().unwrap_or_else(|p| p.into_inner());
        // Closing stdin asks a well-behaved server to exit; killing makes sure.
        io.stdin = None;
        let _ = io.child.kill();
        let _ = io.child.wait();
    }
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1e3
}

fn wait_briefly(child: &mut Child) -> String {
    for _ in 0..20 {
        if let Ok(Some(status)) = child.try_wait() {
            return format!(" ({status})");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    String::new()
}

/// Writes each line to the child's stdin until the child stops reading or
/// the transport is dropped.
fn write_lines(mut stdin: ChildStdin, lines: Receiver<Vec<u8>>) {
    for line in lines {
        if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

/// Sends each stdout line (bounded) until the pipe closes.
fn read_lines(stdout: impl Read, tx: mpsc::SyncSender<Result<String, LineTooLong>>) {
    let mut reader = BufReader::new(stdout);
    loop {
        let mut buf = Vec::new();
        match (&mut reader).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) if buf.len() > MAX_LINE_BYTES => {
                let _ = tx.send(Err(LineTooLong));
                return;
            }
            Ok(_) => {
                if tx.send(Ok(String::from_utf8_lossy(&buf).trim_end().to_string())).is_err() {
                    return;
                }
            }
        }
    }
}

/// Keeps the last `STDERR_KEPT` bytes of the child's stderr.
fn keep_tail(mut stderr: impl Read, kept: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 1024];
    while let Ok(n) = stderr.read(&mut chunk) {
        if n == 0 {
            return;
        }
        let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.extend_from_slice(&chunk[..n]);
        let excess = kept.len().saturating_sub(STDERR_KEPT);
        kept.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sh(script: &str) -> StdioTransport {
        StdioTransport::spawn(&["sh".into(), "-c".into(), script.into()], &BTreeMap::new(), Duration::from_secs(5)).unwrap()
    }

    fn request(body: Value) -> HttpRequest {
        HttpRequest { method: "POST".into(), url: "stdio:".into(), headers: vec![], body }
    }

    #[test]
    fn the_answer_with_the_id_is_taken_and_the_rest_skipped() {
        // Reads one line, then writes noise, a notification, another id, and the answer.
        let t = sh(
            r#"read l; echo 'not json'; echo '{"jsonrpc":"2.0","method":"notifications/message","params":{}}'; echo '{"jsonrpc":"2.0","id":9,"result":{}}'; echo '{"jsonrpc":"2.0","id":1,"result":{"ok":true}}'; sleep 5"#,
        );
        let r = t.exchange(&request(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))).unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.body, ResponseBody::Json(json!({"jsonrpc": "2.0", "id": 1, "result": {"ok": true}})));
    }

    #[test]
    fn a_notification_is_acknowledged_without_waiting() {
        let t = sh("sleep 5");
        let r = t.exchange(&request(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).unwrap();
        assert_eq!((r.status, r.body), (202, ResponseBody::Text(String::new())));
    }

    #[test]
    fn a_server_that_exits_is_named_with_its_stderr() {
        let t = sh("read l; echo 'boom: no config' >&2; exit 3");
        let e = t.exchange(&request(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"}))).unwrap_err().to_string();
        assert!(e.contains("`sh -c read l;") && e.contains("exited") && e.contains("before answering request 1"), "{e}");
        assert!(e.contains("boom: no config"), "{e}");
    }

    #[test]
    fn a_silent_server_times_out() {
        let t = StdioTransport::spawn(&["sh".into(), "-c".into(), "sleep 5".into()], &BTreeMap::new(), Duration::from_millis(200)).unwrap();
        let e = t.exchange(&request(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))).unwrap_err();
        assert!(matches!(e, TransportError::Timeout(_)), "{e:?}");
    }

    #[test]
    fn a_child_that_does_not_read_cannot_block_past_the_wait() {
        let t = StdioTransport::spawn(&["sh".into(), "-c".into(), "sleep 5".into()], &BTreeMap::new(), Duration::from_millis(300)).unwrap();
        // Far more than a pipe holds: the write would block if `send` did it.
        let big = "x".repeat(1 << 20);
        let started = Instant::now();
        let e = t.exchange(&request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"big": big}}))).unwrap_err();
        assert!(matches!(e, TransportError::Timeout(_)), "{e:?}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn a_missing_program_says_so() {
        let e = StdioTransport::spawn(&["calltape-no-such-server".into()], &BTreeMap::new(), Duration::from_secs(1)).err().unwrap();
        assert!(e.to_string().contains("cannot start the MCP server `calltape-no-such-server`"), "{e}");
    }
}
