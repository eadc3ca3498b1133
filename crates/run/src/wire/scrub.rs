//! Credentials out of URLs, wherever a URL can reach text: the user-info of
//! `https://user:pass@host` and the values of query parameters (Gemini's
//! `?key=…`, signed URLs). The HTTP client prints the URL in its errors, so
//! every error that leaves the transport goes through `scrub_text`.
//!
//! Error text keeps only the values of a few query parameters known to be
//! harmless (`alt=sse`); what a cassette keys on keeps every parameter but
//! those whose names say they carry a credential (`is_secret_param`).

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

/// What a scrubbed credential is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Query parameters whose values error text may show: they say what was
/// asked for and never who asked.
const HARMLESS_PARAMS: [&str; 4] = ["alt", "api-version", "beta", "stream"];

/// Names (or parts of names) of query parameters that carry credentials.
const SECRET_PARAM_WORDS: [&str; 9] = ["auth", "key", "password", "passwd", "secret", "session", "sig", "token", "credential"];

/// Whether a query parameter's name says it carries a credential
/// (`key`, `api_key`, `X-Goog-Api-Key`, `access_token`, `sig`, `client_secret`…).
pub fn is_secret_param(name: &str) -> bool {
    let name = percent_decode(name).to_ascii_lowercase();
    SECRET_PARAM_WORDS.iter().any(|w| name.contains(w))
}

/// `url` with its user-info replaced by `[redacted]`, the values of its
/// query parameters replaced (but for `HARMLESS_PARAMS`) and its fragment
/// dropped. A text that is not a URL comes back as it was.
pub fn scrub_url(url: &str) -> String {
    let parts = UrlParts::split(url);
    let mut out = String::with_capacity(url.len());
    out.push_str(parts.scheme);
    if parts.user_info.is_some() {
        out.push_str(REDACTED);
        out.push('@');
    }
    out.push_str(parts.host_and_path);
    if let Some(query) = parts.query {
        out.push('?');
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if !value.is_empty() && !HARMLESS_PARAMS.contains(&name.to_ascii_lowercase().as_str()) => {
                    format!("{name}={REDACTED}")
                }
                _ => pair.to_string(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
    }
    if parts.fragment.is_some_and(|f| !f.is_empty()) {
        out.push('#');
        out.push_str(REDACTED);
    }
    out
}

/// `text` (an error message, a log line) with every URL in it scrubbed by
/// `scrub_url`, and any `user:password@` left outside a URL replaced too.
pub fn scrub_text(text: &str) -> String {
    static URL: OnceLock<Regex> = OnceLock::new();
    static USER_INFO: OnceLock<Regex> = OnceLock::new();
    let url = URL.get_or_init(|| Regex::new(r#"(?i)\b[a-z][a-z0-9+.-]*://[^\s"'<>`]+"#).expect("URL pattern compiles"));
    let user_info = USER_INFO.get_or_init(|| Regex::new(r"[A-Za-z0-9._~%!$&'*+,;=-]+:[^\s@/]+@").expect("user-info pattern compiles"));
    let text = url.replace_all(text, |c: &regex::Captures<'_>| {
        // A URL ends before a closing bracket or punctuation that ends the sentence.
        let whole = &c[0];
        let cut = whole.trim_end_matches([')', ']', '}', '.', ',', ';', ':']);
        format!("{}{}", scrub_url(cut), &whole[cut.len()..])
    });
    match user_info.replace_all(&text, format!("{REDACTED}@").as_str()) {
        Cow::Borrowed(_) => text.into_owned(),
        Cow::Owned(s) => s,
    }
}

/// The credentials a URL carries, as they may come back in a server's
/// answer: its user name and password, and the values of its credential
/// query parameters, each as written and percent-decoded. For redaction.
pub fn url_secrets(url: &str) -> Vec<String> {
    let parts = UrlParts::split(url);
    let mut found = Vec::new();
    if let Some(info) = parts.user_info {
        let (user, password) = info.split_once(':').unwrap_or((info, ""));
        found.extend([user, password].into_iter().filter(|s| !s.is_empty()).map(str::to_string));
    }
    for pair in parts.query.into_iter().flat_map(|q| q.split('&')) {
        if let Some((name, value)) = pair.split_once('=') {
            if is_secret_param(name) && !value.is_empty() {
                // A base URL's query may have the rest of the path glued after
                // it (`?key=K/models/m:generateContent`): the key is before the `/`.
                found.extend([value, value.split('/').next().unwrap_or(value)].map(str::to_string));
            }
        }
    }
    let decoded: Vec<String> = found.iter().map(|s| percent_decode(s)).collect();
    found.extend(decoded);
    // The HTTP client sends user-info as `Authorization: Basic base64(user:pass)`,
    // which a server may echo back.
    if let Some(info) = parts.user_info {
        found.push(base64(percent_decode(info).as_bytes()));
    }
    found.sort();
    found.dedup();
    found
}

/// What in a recorded request path (or URL) carries a credential, if
/// anything: for `cassettes verify`, which must refuse such a file.
pub fn url_credential(url: &str) -> Option<String> {
    let parts = UrlParts::split(url);
    if parts.user_info.is_some() {
        return Some("a user name or password (user:pass@) in its URL".into());
    }
    let name = parts.query.into_iter().flat_map(|q| q.split('&')).find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        (is_secret_param(name) && !value.is_empty()).then_some(name)
    })?;
    Some(format!("a credential in its URL's query parameter {name:?}"))
}

/// A URL cut where credentials hide. Text without `://` is all path.
/// Shared with the plan writer, which redacts by its own rule.
pub(crate) struct UrlParts<'a> {
    /// `https://`, or empty.
    pub(crate) scheme: &'a str,
    pub(crate) user_info: Option<&'a str>,
    pub(crate) host_and_path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) fragment: Option<&'a str>,
}

impl<'a> UrlParts<'a> {
    pub(crate) fn split(url: &'a str) -> UrlParts<'a> {
        let (scheme, rest) = match url.find("://") {
            Some(i) if url[..i].bytes().all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b)) && i > 0 => url.split_at(i + 3),
            _ => ("", url),
        };
        let (rest, fragment) = match rest.split_once('#') {
            Some((r, f)) => (r, Some(f)),
            None => (rest, None),
        };
        let (before_query, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
        };
        // The user-info ends at the authority's last `@`. The authority ends
        // at the first `/`, unless the URL is malformed (a `/` in a password);
        // then every `@` before the query counts, so no part of it is shown.
        let mut user_info = None;
        let mut host_and_path = before_query;
        if !scheme.is_empty() {
            let authority_end = before_query.find('/').unwrap_or(before_query.len());
            let at = before_query[..authority_end]
                .rfind('@')
                .or_else(|| (reqwest::Url::parse(url).is_err()).then(|| before_query.rfind('@')).flatten());
            if let Some(at) = at {
                user_info = Some(&before_query[..at]);
                host_and_path = &before_query[at + 1..];
            }
        }
        UrlParts { scheme, user_info, host_and_path, query, fragment }
    }
}

/// Standard base64 with padding (RFC 4648), as HTTP Basic authentication writes it.
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `%XX` escapes decoded (invalid ones kept as they are).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = (bytes[i] == b'%').then(|| text.get(i + 1..i + 3)).flatten().and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b) => {
                out.push(b);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_info_query_values_and_fragments_are_scrubbed() {
        assert_eq!(
            scrub_url("https://user:s3cr3t@api.example/v1?key=AIzaXYZ&alt=sse#tok"),
            "https://[redacted]@api.example/v1?key=[redacted]&alt=sse#[redacted]"
        );
        assert_eq!(scrub_url("http://127.0.0.1:9/v1/chat/completions"), "http://127.0.0.1:9/v1/chat/completions");
        assert_eq!(
            scrub_url("https://h/x?Signature=abc&X-Amz-Credential=def&flag"),
            "https://h/x?Signature=[redacted]&X-Amz-Credential=[redacted]&flag"
        );
        // A `/` in the password makes the URL malformed; nothing of the password shows.
        assert_eq!(scrub_url("https://u:pa/ss@h/x"), "https://[redacted]@h/x");
        // An `@` in the path (Cloudflare's `@cf/…` models) is not user-info.
        assert_eq!(scrub_url("https://h/ai/run/@cf/meta"), "https://h/ai/run/@cf/meta");
        assert_eq!(scrub_url("not a url"), "not a url");
    }

    #[test]
    fn every_url_in_a_message_is_scrubbed() {
        let message = "error sending request for url (http://me:hunter22@127.0.0.1:1/v1beta?key=SECRET-VALUE-1): \
                       client error (Connect): tcp connect error. See https://h/x?token=t2.";
        let scrubbed = scrub_text(message);
        assert_eq!(
            scrubbed,
            "error sending request for url (http://[redacted]@127.0.0.1:1/v1beta?key=[redacted]): \
             client error (Connect): tcp connect error. See https://h/x?token=[redacted]."
        );
        assert!(!scrubbed.contains("hunter22") && !scrubbed.contains("SECRET-VALUE-1"));
        // User-info outside a URL (a proxy's or a resolver's message).
        assert_eq!(scrub_text("cannot resolve admin:pw123@10.0.0.1"), "cannot resolve [redacted]@10.0.0.1");
        assert_eq!(scrub_text("connection refused"), "connection refused");
    }

    #[test]
    fn a_urls_secrets_are_listed_for_redaction() {
        let mut secrets = url_secrets("https://bob:p%40ss-word@h/v1beta?key=K-123456/models/m:generateContent&alt=sse");
        secrets.sort();
        assert_eq!(secrets, ["K-123456", "K-123456/models/m:generateContent", "Ym9iOnBAc3Mtd29yZA==", "bob", "p%40ss-word", "p@ss-word"]);
        assert_eq!([base64(b"user:pass"), base64(b"ab"), base64(b"a"), base64(b"")], ["dXNlcjpwYXNz", "YWI=", "YQ==", ""]);
        assert!(url_secrets("https://h/v1?alt=sse").is_empty());
    }

    #[test]
    fn credentials_in_recorded_paths_are_named() {
        assert_eq!(url_credential("/v1?alt=sse"), None);
        assert_eq!(url_credential("/v1?api_key=x").as_deref(), Some("a credential in its URL's query parameter \"api_key\""));
        assert!(url_credential("https://u:p@h/v1").unwrap().contains("user:pass@"));
        assert!(is_secret_param("X-Goog-Api-Key") && is_secret_param("access_token") && !is_secret_param("alt"));
    }
}
