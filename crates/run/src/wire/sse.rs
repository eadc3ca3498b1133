//! Server-sent events: the framing every provider streams in. The parser is
//! incremental (bytes arrive in arbitrary chunks, even mid-character) and
//! follows the WHATWG rules the providers rely on: `event:` and `data:`
//! fields, several `data:` lines joined with newlines, `:` comment lines
//! ignored, a blank line ending an event, CRLF or LF line ends.
//!
//! A server chooses how long a line is: with a bound set, a line or an
//! event's data past it is dropped and `overflow` says so, so a giant line
//! costs no more memory than the bound.

use serde::{Deserialize, Serialize};

/// One event of a stream, with when it arrived.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SseEvent {
    /// Milliseconds from sending the request to this event's arrival.
    pub offset_ms: f64,
    /// The `event:` field, if the server named the event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n` (`[DONE]` is kept as it came).
    pub data: String,
}

/// Splits a byte stream into events.
#[derive(Debug)]
pub struct SseParser {
    pending: Vec<u8>,
    event: Option<String>,
    data: Option<String>,
    /// The longest line or event data kept, in bytes.
    max_event_bytes: usize,
    /// The size of the first line or event that passed the bound.
    overflow: Option<usize>,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::with_max_event_bytes(usize::MAX)
    }
}

impl SseParser {
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// A parser that keeps no line or event data longer than `max` bytes.
    pub fn with_max_event_bytes(max: usize) -> SseParser {
        SseParser { pending: Vec::new(), event: None, data: None, max_event_bytes: max, overflow: None }
    }

    /// The size of the first line or event that passed the bound, if one did:
    /// the stream is then incomplete and should be given up.
    pub fn overflow(&self) -> Option<usize> {
        self.overflow
    }

    /// Feeds the next chunk of bytes; returns the events it completed, each
    /// stamped with `offset_ms`.
    pub fn feed(&mut self, chunk: &[u8], offset_ms: f64) -> Vec<SseEvent> {
        let mut done = Vec::new();
        if self.overflow.is_some() {
            return done;
        }
        // What was pending holds no newline: look for one only in what is new,
        // so a long line arriving in many chunks is not scanned again each time.
        let mut search = self.pending.len();
        self.pending.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(nl) = self.pending[search..].iter().position(|&b| b == b'\n') {
            let end = search + nl;
            let line = &self.pending[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let line = String::from_utf8_lossy(line).into_owned();
            start = end + 1;
            search = start;
            if line.len() > self.max_event_bytes {
                self.overflowed(line.len());
                return done;
            }
            if let Some(e) = self.line(&line, offset_ms) {
                done.push(e);
            }
            if self.overflow.is_some() {
                return done;
            }
        }
        self.pending.drain(..start);
        if self.pending.len() > self.max_event_bytes {
            self.overflowed(self.pending.len());
        }
        done
    }

    fn overflowed(&mut self, bytes: usize) {
        self.overflow = Some(bytes);
        self.pending = Vec::new();
        self.data = None;
    }

    /// Ends the stream: an event left without its closing blank line (a
    /// stream cut off) is still returned, as is a last line with no newline.
    pub fn finish(&mut self, offset_ms: f64) -> Option<SseEvent> {
        if self.overflow.is_some() {
            return None;
        }
        if !self.pending.is_empty() {
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
            let line = line.strip_suffix('\r').unwrap_or(&line).to_string();
            if let Some(e) = self.line(&line, offset_ms) {
                return Some(e);
            }
        }
        self.dispatch(offset_ms)
    }

    fn line(&mut self, line: &str, offset_ms: f64) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch(offset_ms);
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = Some(value.to_string()),
            "data" => {
                match &mut self.data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => self.data = Some(value.to_string()),
                }
                // Many short `data:` lines can make one event as large as a long line.
                if let Some(n) = self.data.as_ref().map(String::len).filter(|&n| n > self.max_event_bytes) {
                    self.overflowed(n);
                }
            }
            _ => {} // `id`, `retry` and unknown fields carry nothing a provider uses
        }
        None
    }

    fn dispatch(&mut self, offset_ms: f64) -> Option<SseEvent> {
        let event = self.event.take();
        let data = self.data.take()?;
        Some(SseEvent { offset_ms, event, data })
    }
}

/// Parses a whole SSE body at once (all events at offset 0).
pub fn parse_all(body: &[u8]) -> Vec<SseEvent> {
    let mut parser = SseParser::new();
    let mut events = parser.feed(body, 0.0);
    events.extend(parser.finish(0.0));
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_multiline_data_comments_and_done() {
        let body = b": keep-alive\nevent: message_start\ndata: {\"a\":1}\n\ndata: line1\r\ndata: line2\r\n\r\ndata: [DONE]\n\n";
        let events = parse_all(body);
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].event.as_deref(), Some("message_start"));
        assert_eq!(events[0].data, "{\"a\":1}");
        assert_eq!(events[1].data, "line1\nline2");
        assert_eq!(events[2].data, "[DONE]");
    }

    #[test]
    fn chunks_split_anywhere_give_the_same_events() {
        let body = "event: x\ndata: {\"é\":\"ü\"}\n\ndata: 2\n\n".as_bytes();
        let whole = parse_all(body);
        for cut in 1..body.len() {
            let mut p = SseParser::new();
            let mut got = p.feed(&body[..cut], 0.0);
            got.extend(p.feed(&body[cut..], 0.0));
            got.extend(p.finish(0.0));
            assert_eq!(got, whole, "cut at {cut}");
        }
    }

    #[test]
    fn a_line_or_an_event_past_the_bound_is_dropped_and_reported() {
        // One giant line in many chunks: nothing past the bound is kept.
        let mut p = SseParser::with_max_event_bytes(64);
        let mut events = p.feed(b"data: ok\n\ndata: ", 0.0);
        for _ in 0..1000 {
            events.extend(p.feed(&[b'x'; 50], 0.0));
            assert!(p.pending.len() <= 64, "{}", p.pending.len());
        }
        assert_eq!(events.len(), 1);
        assert_eq!(p.overflow(), Some(106));
        assert_eq!(p.feed(b"\n\ndata: later\n\n", 0.0), vec![], "a parser past its bound reads no more");
        assert_eq!(p.finish(0.0), None);

        // Many short data lines joined into one event past the bound.
        let mut p = SseParser::with_max_event_bytes(20);
        let got = p.feed(b"data: 1234567890\ndata: 1234567890\n\n", 0.0);
        assert!(got.is_empty() && p.overflow() == Some(21), "{got:?} {:?}", p.overflow());

        // A line exactly at the bound is fine; the whole line counts, `data: ` included.
        let mut p = SseParser::with_max_event_bytes(10);
        assert_eq!(p.feed(b"data: 1234\n\n", 0.0).len(), 1);
        assert_eq!(p.overflow(), None);
        let mut p = SseParser::with_max_event_bytes(10);
        assert!(p.feed(b"data: 12345\n\n", 0.0).is_empty());
        assert_eq!(p.overflow(), Some(11));
    }

    #[test]
    fn a_stream_cut_off_mid_event_still_yields_it() {
        let events = parse_all(b"data: {\"partial\": tr");
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "{\"partial\": tr");
    }
}
