//! A plain HTTP server that gives every request the same answer, on a
//! thread of its own for the rest of the test process: for tests that need
//! a model's server to say one fixed thing (a refusal, one tool call).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;

/// Serves `body` (JSON) with `status` (`"401 Unauthorized"`) to every
/// request; returns the base URL (`http://127.0.0.1:PORT/v1`).
pub fn answering_server(status: &str, body: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let status = status.to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).ok();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
            }
            let mut request = vec![0; length];
            reader.read_exact(&mut request).ok();
            let response = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(response.as_bytes()).ok();
        }
    });
    format!("http://{address}/v1")
}
