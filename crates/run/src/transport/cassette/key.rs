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
    let mut text = format!("{} {}\n", method.to_ascii_uppercase(), path).into_bytes();
    // Top-level names are skipped as the body is written; a JSON Pointer
    // needs a copy to remove it from (an agent's request body is large, and
    // replay keys every request: no copy where none is needed).
    if ignore_fields.iter().any(|f| f.starts_with('/')) {
        let mut body = body.clone();
        for field in ignore_fields {
            remove_field(&mut body, field);
        }
        write_canonical(&body, &[], &mut text);
    } else {
        write_canonical(body, ignore_fields, &mut text);
    }
    digest_hex(&text)
}

/// Writes `value` as [`canonical_json`] does, leaving out the top-level
/// fields named in `skip`.
fn write_canonical(value: &Value, skip: &[String], out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().filter(|k| !skip.contains(k)).collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, k).expect("a string serialises");
                out.push(b':');
                write_canonical(&map[k], &[], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, &[], out);
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar).expect("a JSON value serialises"),
    }
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

    #[test]
    fn the_streamed_key_is_the_key_of_the_canonical_text() {
        let body = serde_json::json!({"z": [1, {"b": "é\n", "a": null}], "user": "u", "model": "m", "x": 1.5});
        let ignore = vec!["user".to_string()];
        let mut without = body.clone();
        without.as_object_mut().unwrap().remove("user");
        let expected = digest_hex(format!("POST /v1\n{}", canonical_json(&without)).as_bytes());
        assert_eq!(request_key("post", "/v1", &body, &ignore), expected);
        let pointer = vec!["/z/1/a".to_string()];
        let mut removed = body.clone();
        removed["z"][1].as_object_mut().unwrap().remove("a");
        assert_eq!(request_key("post", "/v1", &body, &pointer), digest_hex(format!("POST /v1\n{}", canonical_json(&removed)).as_bytes()));
    }
}
