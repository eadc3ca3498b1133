//! The match key of a request: a hash of its method, its path (host and
//! secret query parameters already gone) and its body in canonical form —
//! keys sorted at every level, no whitespace — with the configured volatile
//! fields left out. Two requests that ask the same thing get the same key,
//! whichever host, port, key or caller id they were sent with.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Hex digits of the SHA-256 kept in a key: 64 bits, ample for the few
/// dozen requests of one unit, and short enough to read in an error.
const KEY_HEX_DIGITS: usize = 16;

/// The key of a request whose path is already sanitised.
pub fn request_key(method: &str, path: &str, body: &Value, ignore_fields: &[String]) -> String {
    let mut body = body.clone();
    for field in ignore_fields {
        remove_field(&mut body, field);
    }
    let text = format!("{} {}\n{}", method.to_ascii_uppercase(), path, canonical_json(&body));
    digest_hex(text.as_bytes())
}

/// A short, stable hash of any JSON value (its canonical form).
pub fn value_digest(value: &Value) -> String {
    digest_hex(canonical_json(value).as_bytes())
}

fn digest_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(KEY_HEX_DIGITS);
    for b in digest.iter().take(KEY_HEX_DIGITS / 2) {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// Compact JSON with the keys of every object sorted.
pub fn canonical_json(value: &Value) -> String {
    serde_json::to_string(&sorted(value)).expect("a JSON value serialises")
}

/// A copy with the keys of every object in sorted order, whichever map type
/// serde_json was built with (`preserve_order` keeps insertion order).
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&map[k]));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Removes a top-level field (`user`) or the field a JSON Pointer names
/// (`/metadata/user_id`); absent fields are no error.
fn remove_field(body: &mut Value, field: &str) {
    let Some(pointer) = field.strip_prefix('/') else {
        if let Value::Object(map) = body {
            map.remove(field);
        }
        return;
    };
    let (parent, last) = match pointer.rsplit_once('/') {
        Some((parent, last)) => (format!("/{parent}"), last),
        None => (String::new(), pointer),
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    match body.pointer_mut(&parent) {
        Some(Value::Object(map)) => {
            map.remove(&last);
        }
        Some(Value::Array(items)) => {
            if let Ok(i) = last.parse::<usize>() {
                if i < items.len() {
                    items.remove(i);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(body: Value, ignore: &[&str]) -> String {
        let ignore: Vec<String> = ignore.iter().map(|s| s.to_string()).collect();
        request_key("POST", "/v1/chat/completions", &body, &ignore)
    }

    #[test]
    fn key_order_and_whitespace_do_not_matter() {
        let a: Value = serde_json::from_str(r#"{"model": "m", "messages": [{"role": "user", "content": "hi"}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"messages":[{"content":"hi","role":"user"}],"model":"m"}"#).unwrap();
        assert_eq!(key(a, &[]), key(b, &[]));
        assert_eq!(key(json!({"a": 1}), &[]).len(), KEY_HEX_DIGITS);
    }

    #[test]
    fn ignored_fields_leave_the_key_unchanged_and_others_change_it() {
        let base = key(json!({"model": "m", "temperature": 0}), &["user", "/metadata/user_id"]);
        let with_user =
            key(json!({"model": "m", "temperature": 0, "user": "u-1", "metadata": {"user_id": "x"}}), &["user", "/metadata/user_id"]);
        // The nested field goes; the now-empty `metadata` object stays, so the key differs from the bare body.
        assert_ne!(base, with_user);
        assert_eq!(
            with_user,
            key(json!({"model": "m", "temperature": 0, "user": "u-2", "metadata": {"user_id": "y"}}), &["user", "/metadata/user_id"])
        );
        assert_ne!(base, key(json!({"model": "m", "temperature": 0.5}), &["user"]));
    }

    #[test]
    fn method_and_path_are_part_of_the_key() {
        let body = json!({"contents": []});
        let k = |m: &str, p: &str| request_key(m, p, &body, &[]);
        assert_ne!(k("POST", "/v1beta/models/g:generateContent"), k("POST", "/v1beta/models/g:streamGenerateContent?alt=sse"));
        assert_eq!(k("post", "/x"), k("POST", "/x"));
    }

    #[test]
    fn sorted_sorts_nested_objects() {
        let v = json!({"b": {"d": 1, "c": [{"z": 1, "y": 2}]}, "a": 0});
        assert_eq!(canonical_json(&v), r#"{"a":0,"b":{"c":[{"y":2,"z":1}],"d":1}}"#);
    }
}
