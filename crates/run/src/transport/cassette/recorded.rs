//! What a cassette records of a request: the allowlisted headers, and the
//! URL's path and query without host or credentials. The first two of
//! the three layers that keep secrets out of cassettes (`secrets` is the third).

use std::collections::BTreeMap;

use crate::transport::scrub::is_secret_param;

/// Request headers worth keeping: they say which API version and features
/// were asked for. Everything else (keys, cookies, user agents) is dropped.
pub const REQUEST_HEADERS: [&str; 5] = ["accept", "anthropic-beta", "anthropic-version", "content-type", "openai-beta"];

/// Response headers worth keeping. Request ids, rate-limit counters and dates
/// change on every recording and would only make diffs noisy.
pub const RESPONSE_HEADERS: [&str; 2] = ["content-type", "retry-after"];

/// The allowlisted headers, by lower-case name; repeated headers are joined with `, `.
pub fn allowlisted(headers: &[(String, String)], allow: &[&str]) -> BTreeMap<String, String> {
    let mut kept: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let name = name.to_ascii_lowercase();
        if allow.contains(&name.as_str()) {
            kept.entry(name).and_modify(|v| *v = format!("{v}, {value}")).or_insert_with(|| value.clone());
        }
    }
    kept
}

/// The path and query of a URL, without scheme, user-info, host, fragment
/// or credential-bearing query parameters (see `scrub::is_secret_param`):
/// what a cassette records and keys on.
pub fn recorded_path(url: &str) -> String {
    let after_host = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => url,
    };
    let without_fragment = after_host.split('#').next().unwrap_or_default();
    let (path, query) = match without_fragment.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (without_fragment, None),
    };
    let kept: Vec<&str> = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter(|pair| {
            let name = pair.split('=').next().unwrap_or_default().to_ascii_lowercase();
            !pair.is_empty() && !is_secret_param(&name)
        })
        .collect();
    let path = if path.is_empty() { "/" } else { path };
    if kept.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", kept.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowlisted_headers_are_kept() {
        let headers: Vec<(String, String)> = [
            ("Authorization", "Bearer sk-abc"),
            ("x-api-key", "sk-ant-x"),
            ("x-goog-api-key", "AIza"),
            ("api-key", "azure"),
            ("Cookie", "a=b"),
            ("Content-Type", "application/json"),
            ("anthropic-version", "2023-06-01"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .to_vec();
        let kept = allowlisted(&headers, &REQUEST_HEADERS);
        assert_eq!(
            kept.into_iter().collect::<Vec<_>>(),
            [("anthropic-version".to_string(), "2023-06-01".to_string()), ("content-type".to_string(), "application/json".to_string())]
        );
    }

    #[test]
    fn urls_lose_host_fragment_and_keys() {
        assert_eq!(recorded_path("http://127.0.0.1:43123/v1/chat/completions"), "/v1/chat/completions");
        assert_eq!(
            recorded_path("https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse&key=AIzaSyXXXX#frag"),
            "/v1beta/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(recorded_path("https://h/x?KEY=1&api_key=2&token=3"), "/x");
        assert_eq!(recorded_path("https://h"), "/");
        assert_eq!(recorded_path("sim://local/v1/chat/completions"), "/v1/chat/completions");
        assert_eq!(recorded_path("/already/a/path?x=1"), "/already/a/path?x=1");
    }
}
