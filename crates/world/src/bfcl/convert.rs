//! BFCL's conversions of Java and JavaScript arguments. In those categories
//! every argument is a string in the language's syntax (`"50L"`,
//! `new ArrayList<>(Arrays.asList("a"))`, `{'k': 1}`); the checker converts
//! it to a Python value before comparing. These functions reproduce BFCL's
//! converters rule for rule, quirks included: a string that does not parse
//! stays a string, and some types are not supported at all ([`Unsupported`]).

use std::sync::LazyLock;

use regex::Regex;

use super::pyvalue::Py;

/// A type BFCL's converter raises on (its checker stops with an exception).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("converter patterns are valid")
}

// Python's `$` also matches before a final newline (`re.match(r"^-?\d+$", "5\n")`
// matches): `\n?$` here. Python's `\d` is any Unicode decimal digit, as the regex crate's.
static INTEGER: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+\n?$"));
static JAVA_FLOAT: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]\n?$"));
static JAVA_DOUBLE: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?\n?$"));
static JAVA_LONG: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+[lL]\n?$"));
static DIGIT: LazyLock<Regex> = LazyLock::new(|| re(r"^\d$"));
static ARRAYLIST_ASLIST: LazyLock<Regex> = LazyLock::new(|| re(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)"));
static ARRAYLIST_ADD: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}"));
static ADD_CALL: LazyLock<Regex> = LazyLock::new(|| re(r"add\((.+?)\)"));
static ARRAYLIST_EMPTY: LazyLock<Regex> = LazyLock::new(|| re(r"new\s+ArrayList<\w*>\(\)"));
static JAVA_ARRAY: LazyLock<Regex> = LazyLock::new(|| re(r"new\s+\w+\[\]\s*\{(.*?)\}"));
static HASHMAP: LazyLock<Regex> = LazyLock::new(|| re(r"(?s)new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}"));
static PUT_CALL: LazyLock<Regex> = LazyLock::new(|| re(r#"put\("(.*?)",\s*(.*?)\)"#));
static HASHMAP_EMPTY: LazyLock<Regex> = LazyLock::new(|| re(r"new\s+HashMap<.*?>\s*\(\)"));
static JS_FLOAT: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+(\.\d+)?\n?$"));
static JS_BIGINT: LazyLock<Regex> = LazyLock::new(|| re(r"^-?\d+n$"));
static JS_ARRAY_2D: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\))"));
static JS_INNER_ARRAY: LazyLock<Regex> = LazyLock::new(|| re(r"\[(.*?)\]"));
static JS_ARRAY: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))"));
static JS_DICT: LazyLock<Regex> = LazyLock::new(|| re(r"^\{(.*?)\}"));

/// Python's `s[1:-1]`.
fn strip_ends(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() < 2 {
        return String::new();
    }
    chars[1..chars.len() - 1].iter().collect()
}

/// Python's `s[:-1]`.
fn drop_last(s: &str) -> &str {
    s.char_indices().last().map_or("", |(i, _)| &s[..i])
}

/// Python's `re.sub(r"[fF]$", "", s)`: the letter at the end, or before a final newline, removed.
fn drop_suffix_letter(s: &str, letters: [char; 2]) -> String {
    let (body, newline) = s.strip_suffix('\n').map_or((s, ""), |b| (b, "\n"));
    match body.strip_suffix(letters) {
        Some(kept) => format!("{kept}{newline}"),
        None => s.to_string(),
    }
}

/// The value of a non-ASCII Unicode decimal digit (`'٥'` is 5): Unicode
/// keeps each script's digits as a run of ten from 0, so it is the count of
/// digits before it in its run, mod 10.
fn unicode_digit(c: char) -> Option<u32> {
    let is_digit = |c: char| !c.is_ascii() && DIGIT.is_match(c.encode_utf8(&mut [0; 4]));
    if !is_digit(c) {
        return None;
    }
    let before = (1..).take_while(|n| char::from_u32(c as u32 - n).is_some_and(is_digit)).count() as u32;
    Some(before % 10)
}

/// Python's `int()` and `float()` read every Unicode decimal digit
/// (`int('٤٢') == 42`): each written as its ASCII digit.
fn ascii_digits(s: &str) -> std::borrow::Cow<'_, str> {
    if s.is_ascii() {
        return std::borrow::Cow::Borrowed(s);
    }
    s.chars().map(|c| unicode_digit(c).and_then(|d| char::from_digit(d, 10)).unwrap_or(c)).collect()
}

/// Python's `int(s)` for the decimal forms it accepts.
fn py_int(s: &str) -> Option<i128> {
    let s = ascii_digits(s);
    let t = s.trim();
    let (sign, digits) = match t.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, t.strip_prefix('+').unwrap_or(t)),
    };
    if digits.is_empty() || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__") {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    if !clean.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    clean.parse::<i128>().ok().map(|v| sign * v)
}

/// Python's `float(s)`, for the forms BFCL's inputs take.
fn py_float(s: &str) -> Option<f64> {
    let s = ascii_digits(s);
    let t = s.trim();
    if t.is_empty() || t.contains("__") || t.starts_with('_') || t.ends_with('_') {
        return None;
    }
    let clean: String = t.chars().filter(|c| *c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") || clean.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c)) {
        clean.parse::<f64>().ok()
    } else {
        None
    }
}

/// BFCL's `java_type_converter`.
pub fn java(value: &str, expected: &str, nested: Option<&str>) -> Result<Py, Unsupported> {
    Ok(match expected {
        "byte" | "short" | "integer" => match INTEGER.is_match(value).then(|| py_int(value)).flatten() {
            Some(i) => Py::Int(i),
            None => Py::Str(value.into()),
        },
        "float" if JAVA_FLOAT.is_match(value) => match py_float(&drop_suffix_letter(value, ['f', 'F'])) {
            Some(f) => Py::Float(f),
            None => Py::Str(value.into()),
        },
        "double" if JAVA_DOUBLE.is_match(value) => py_float(value).map_or_else(|| Py::Str(value.into()), Py::Float),
        "long" if JAVA_LONG.is_match(value) => {
            py_int(&drop_suffix_letter(value, ['l', 'L'])).map_or_else(|| Py::Str(value.into()), Py::Int)
        }
        "float" | "double" | "long" => Py::Str(value.into()),
        "boolean" => match value {
            "true" => Py::Bool(true),
            "false" => Py::Bool(false),
            _ => Py::Str(value.into()),
        },
        // BFCL's pattern for char (`^\'.$\'`) can never match: always a string.
        "char" | "String" | "any" => Py::Str(value.into()),
        "ArrayList" => java_arraylist(value, nested)?,
        "Array" => java_array(value, nested)?,
        "HashMap" => java_hashmap(value),
        "Set" | "Hashtable" | "Queue" | "Stack" => return Err(Unsupported(format!("{expected} conversion is not implemented"))),
        other => return Err(Unsupported(format!("Unsupported type: {other}"))),
    })
}

fn java_element(text: &str, nested: Option<&str>) -> Result<Py, Unsupported> {
    match nested {
        Some("char") | Some("String") => Ok(Py::Str(strip_ends(text))),
        Some(t) => java(text, t, None),
        None => Ok(java_value(text)),
    }
}

fn java_arraylist(input: &str, nested: Option<&str>) -> Result<Py, Unsupported> {
    if let Some(c) = ARRAYLIST_ASLIST.captures(input) {
        let inner = c.get(1).map_or("", |m| m.as_str());
        return inner.split(',').map(|e| java_element(e.trim(), nested)).collect::<Result<_, _>>().map(Py::List);
    }
    if let Some(c) = ARRAYLIST_ADD.captures(input) {
        let adds = c.get(1).map_or("", |m| m.as_str());
        return ADD_CALL
            .captures_iter(adds)
            .map(|m| java_element(m.get(1).map_or("", |g| g.as_str()).trim(), nested))
            .collect::<Result<_, _>>()
            .map(Py::List);
    }
    if ARRAYLIST_EMPTY.is_match(input) {
        return Ok(Py::List(Vec::new()));
    }
    Ok(Py::Str(input.into()))
}

fn java_array(input: &str, nested: Option<&str>) -> Result<Py, Unsupported> {
    let Some(c) = JAVA_ARRAY.captures(input) else { return Ok(Py::Str(input.into())) };
    let inner = c.get(1).map_or("", |m| m.as_str());
    inner
        .split(',')
        .map(str::trim)
        .filter(|x| !x.is_empty())
        .map(|x| match nested {
            Some(t) => java(x, t, None),
            None => Ok(java_value(x)),
        })
        .collect::<Result<_, _>>()
        .map(Py::List)
}

fn java_hashmap(input: &str) -> Py {
    if let Some(c) = HASHMAP.captures(input) {
        let puts = c.get(1).map_or("", |m| m.as_str());
        let mut entries: Vec<(String, Py)> = Vec::new();
        if !puts.trim().is_empty() {
            for m in PUT_CALL.captures_iter(puts) {
                let key = m.get(1).map_or("", |g| g.as_str()).to_string();
                let value = java_value(m.get(2).map_or("", |g| g.as_str()).trim());
                match entries.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = value,
                    None => entries.push((key, value)),
                }
            }
        }
        return Py::Dict(entries);
    }
    if HASHMAP_EMPTY.is_match(input) {
        return Py::Dict(Vec::new());
    }
    Py::Str(input.into())
}

/// BFCL's `parse_java_value`: a literal without a declared type.
fn java_value(s: &str) -> Py {
    match s {
        "true" => return Py::Bool(true),
        "false" => return Py::Bool(false),
        _ => {}
    }
    if s.starts_with('"') && s.ends_with('"') {
        return Py::Str(strip_ends(s));
    }
    if JAVA_LONG.is_match(s) {
        if let Some(i) = py_int(drop_last(s)) {
            return Py::Int(i);
        }
    }
    if JAVA_FLOAT.is_match(s) {
        if let Some(f) = py_float(drop_last(s)) {
            return Py::Float(f);
        }
    }
    if let Some(i) = py_int(s) {
        return Py::Int(i);
    }
    py_float(s).map_or_else(|| Py::Str(s.into()), Py::Float)
}

/// BFCL's `js_type_converter`.
pub fn javascript(value: &str, expected: &str, nested: Option<&str>) -> Result<Py, Unsupported> {
    Ok(match expected {
        "String" => {
            let quoted = (value.starts_with('"') && value.ends_with('"')) || (value.starts_with('\'') && value.ends_with('\''));
            if quoted {
                Py::Str(strip_ends(value))
            } else {
                Py::Str(value.into())
            }
        }
        "integer" => match INTEGER.is_match(value).then(|| py_int(value)).flatten() {
            Some(i) => Py::Int(i),
            None => Py::Str(value.into()),
        },
        "float" => match JS_FLOAT.is_match(value).then(|| py_float(value)).flatten() {
            Some(f) => Py::Float(f),
            None => Py::Str(value.into()),
        },
        "Bigint" => match JS_BIGINT.is_match(value).then(|| py_int(drop_last(value))).flatten() {
            Some(i) => Py::Int(i),
            None => Py::Str(value.into()),
        },
        "Boolean" => match value {
            "true" => Py::Bool(true),
            "false" => Py::Bool(false),
            _ => Py::Str(value.into()),
        },
        "dict" => js_dict(value),
        "array" => js_array(value, nested),
        "any" => Py::Str(value.into()),
        other => return Err(Unsupported(format!("Unsupported type: {other}"))),
    })
}

/// BFCL's `parse_js_collection(code, "array", nested)`; its exceptions
/// (unsupported element types) give back the text, as BFCL's `except` does.
fn js_array(code: &str, nested: Option<&str>) -> Py {
    let code = code.trim();
    if let Some(m) = JS_ARRAY_2D.find(code) {
        let mut rows = Vec::new();
        for (idx, c) in JS_INNER_ARRAY.captures_iter(m.as_str()).enumerate() {
            let mut inner = c.get(1).map_or("", |g| g.as_str()).trim();
            if idx == 0 && inner.starts_with('[') {
                inner = &inner[1..];
            }
            rows.push(Py::List(inner.split(',').map(|e| js_value(e.trim())).collect()));
        }
        return Py::List(rows);
    }
    let Some(c) = JS_ARRAY.captures(code) else { return Py::Str(code.into()) };
    let inner = c.get(1).or_else(|| c.get(2)).map_or("", |g| g.as_str()).trim();
    let elements: Vec<&str> = if inner.is_empty() { Vec::new() } else { inner.split(',').collect() };
    match nested {
        Some(t) => {
            let converted: Result<Vec<Py>, Unsupported> = elements
                .iter()
                .map(|e| {
                    let e = e.trim();
                    if e.starts_with('\'') || e.starts_with('"') {
                        javascript(e, t, Some("String"))
                    } else {
                        javascript(e, t, None)
                    }
                })
                .collect();
            converted.map_or_else(|_| Py::Str(code.into()), Py::List)
        }
        None => Py::List(elements.iter().map(|e| js_value(e.trim())).collect()),
    }
}

/// BFCL's `parse_js_collection(code, "dict")`.
fn js_dict(code: &str) -> Py {
    let code = code.trim();
    if code == "{}" {
        return Py::Dict(Vec::new());
    }
    let Some(c) = JS_DICT.captures(code) else { return Py::Str(code.into()) };
    let content = c.get(1).map_or("", |g| g.as_str());
    let mut entries: Vec<(String, Py)> = Vec::new();
    for (key, value) in js_pairs(content) {
        let key = key.trim().trim_matches(['\'', '"']).to_string();
        let value = value.trim();
        let parsed = if value.starts_with('[') && value.ends_with(']') {
            js_array(value, None)
        } else if value.starts_with('{') && value.ends_with('}') {
            js_dict(value)
        } else {
            js_value(value.trim_matches(['\'', '"']))
        };
        match entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = parsed,
            None => entries.push((key, parsed)),
        }
    }
    Py::Dict(entries)
}

/// `re.findall(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)", content)`, by hand:
/// the regex crate has no look-ahead. `content` never holds a newline (it
/// comes from a `.*?` match), so `.` is any character here.
fn js_pairs(content: &str) -> Vec<(&str, &str)> {
    let chars: Vec<(usize, char)> = content.char_indices().collect();
    let n = chars.len();
    let at = |i: usize| if i < n { chars[i].0 } else { content.len() };
    // Whether `[^,]+:` matches at char index q: a ':' at some j > q with no ',' in q..j.
    let colon_ahead = |q: usize| {
        for (j, &(_, c)) in chars.iter().enumerate().skip(q) {
            if c == ',' {
                return false;
            }
            if c == ':' && j > q {
                return true;
            }
        }
        false
    };
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        // `[^:]+:` from start: the run of non-colons, then a colon.
        let mut colon = start;
        while colon < n && chars[colon].1 != ':' {
            colon += 1;
        }
        if colon == start || colon >= n {
            // No match starting here; findall tries the next position (which fails alike unless at a colon).
            start += 1;
            continue;
        }
        let key = &content[at(start)..at(colon)];
        let mut v = colon + 1;
        while v < n && chars[v].1.is_whitespace() {
            v += 1;
        }
        // Lazy value: the shortest end where `,\s*(?=[^,]+:)` or `$` follows.
        let mut end = v;
        let next = loop {
            if end >= n {
                break n;
            }
            if chars[end].1 == ',' {
                let mut q = end + 1;
                while q < n && chars[q].1.is_whitespace() {
                    q += 1;
                }
                // `\s*` may also give back whitespace; the look-ahead's `[^,]+` takes it then.
                if (end + 1..=q).any(colon_ahead) {
                    let mut back = q;
                    while back > end + 1 && !colon_ahead(back) {
                        back -= 1;
                    }
                    break back;
                }
            }
            end += 1;
        };
        out.push((key, &content[at(v)..at(end)]));
        if next <= start {
            start += 1;
        } else {
            start = next;
        }
    }
    out
}

/// BFCL's `parse_js_value`.
fn js_value(s: &str) -> Py {
    let s = s.trim();
    match s {
        "true" => return Py::Bool(true),
        "false" => return Py::Bool(false),
        _ => {}
    }
    if (s.starts_with('"') && s.ends_with('"')) || (s.starts_with('\'') && s.ends_with('\'')) {
        return Py::Str(strip_ends(s));
    }
    if let Some(i) = py_int(s) {
        return Py::Int(i);
    }
    py_float(s).map_or_else(|| Py::Str(s.into()), Py::Float)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(v: &str, t: &str, n: Option<&str>) -> String {
        java(v, t, n).unwrap().repr()
    }

    fn js(v: &str, t: &str, n: Option<&str>) -> String {
        javascript(v, t, n).unwrap().repr()
    }

    #[test]
    fn trailing_newlines_and_unicode_digits_as_python_reads_them() {
        // bfcl-eval 2026.3.23: java_type_converter('5\n', 'integer') == 5, ('٤٢', 'integer') == 42,
        // ('1.5f\n', 'float') == 1.5, ('7L\n', 'long') == 7, ('٣.٥', 'double') == 3.5,
        // ('5\n\n', 'integer') == '5\n\n', ('5 ', 'integer') == '5 ';
        // js_type_converter('5\n', 'integer') == 5, ('2.5\n', 'float') == 2.5, ('"ab"\n', 'String') == '"ab"\n'.
        assert_eq!(j("5\n", "integer", None), "5");
        assert_eq!(j("٤٢", "integer", None), "42");
        assert_eq!(j("1.5f\n", "float", None), "1.5");
        assert_eq!(j("7L\n", "long", None), "7");
        assert_eq!(j("٣.٥", "double", None), "3.5");
        assert_eq!(j("2.5\n", "double", None), "2.5");
        assert_eq!(j("5\n\n", "integer", None), "'5\\n\\n'");
        assert_eq!(j("5 ", "integer", None), "'5 '");
        assert_eq!(js("5\n", "integer", None), "5");
        assert_eq!(js("٤٢", "integer", None), "42");
        assert_eq!(js("2.5\n", "float", None), "2.5");
        assert_eq!(js("\"ab\"\n", "String", None), "'\"ab\"\\n'");
        // Digits of other scripts and of the mathematical alphanumerics (runs of ten, back to back).
        assert_eq!(unicode_digit('٠'), Some(0));
        assert_eq!(unicode_digit('९'), Some(9));
        assert_eq!(unicode_digit('\u{1D7D9}'), Some(1));
        assert_eq!(unicode_digit('x'), None);
    }

    #[test]
    fn java_scalars() {
        assert_eq!(j("123", "integer", None), "123");
        assert_eq!(j("12a", "integer", None), "'12a'");
        assert_eq!(j("3.14f", "float", None), "3.14");
        assert_eq!(j("3.14", "float", None), "'3.14'");
        assert_eq!(j("3e3F", "float", None), "3000.0");
        assert_eq!(j("-3.14e-2", "double", None), "-0.0314");
        assert_eq!(j("123L", "long", None), "123");
        assert_eq!(j("true", "boolean", None), "True");
        assert_eq!(j("'a'", "char", None), "\"'a'\"");
        assert!(java("x", "Set", None).is_err());
    }

    #[test]
    fn java_collections() {
        assert_eq!(j("new int[]{1, 2, 3}", "Array", Some("integer")), "[1, 2, 3]");
        assert_eq!(j("new int[] { }", "Array", None), "[]");
        assert_eq!(j(r#"new Object[]{1, "abc", true}"#, "Array", None), "[1, 'abc', True]");
        assert_eq!(j("new long[]{1L, 2, 3L}", "Array", Some("long")), "[1, '2', 3]");
        assert_eq!(j(r#"new ArrayList<>(Arrays.asList("a", "b"))"#, "ArrayList", Some("String")), "['a', 'b']");
        assert_eq!(j("new ArrayList<Float>() {{ add(1.0f); add(2.0f); }}", "ArrayList", Some("float")), "[1.0, 2.0]");
        assert_eq!(j("new ArrayList<>()", "ArrayList", Some("String")), "[]");
        assert_eq!(
            j(r#"new HashMap<String, Object>() {{ put("key1", 1); put("key2", "value"); put("key3", true); }}"#, "HashMap", None),
            "{'key1': 1, 'key2': 'value', 'key3': True}"
        );
        assert_eq!(j("new HashMap<>() {{ }}", "HashMap", None), "{}");
        assert_eq!(j("map", "HashMap", None), "'map'");
    }

    #[test]
    fn javascript_values() {
        assert_eq!(js("'abc'", "String", None), "'abc'");
        assert_eq!(js("abc", "String", None), "'abc'");
        assert_eq!(js("123n", "Bigint", None), "123");
        assert_eq!(js("3.14", "float", None), "3.14");
        assert_eq!(js("[1, 'two', true]", "array", None), "[1, 'two', True]");
        assert_eq!(js(r#"["hello", "world"]"#, "array", Some("String")), "['hello', 'world']");
        assert_eq!(js("new Array(4n, 5n)", "array", Some("Bigint")), "[4, 5]");
        assert_eq!(js(" [ [ 1, 2 ], [ 3,   4], [5, 6]]", "array", Some("array")), "[[1, 2], [3, 4], [5, 6]]");
        assert_eq!(js("{'key1': 123, 'key2': 'value', 'key3': false}", "dict", None), "{'key1': 123, 'key2': 'value', 'key3': False}");
        assert_eq!(
            js(
                r#"{"initialState": initialStateObject, "reducers": reducersMap, "middlewares": ["loggerMiddleware"], "enhancers": ["applyMiddleware", "myMiddleWare"]}"#,
                "dict",
                None
            ),
            "{'initialState': 'initialStateObject', 'reducers': 'reducersMap', 'middlewares': ['loggerMiddleware'], 'enhancers': ['applyMiddleware', 'myMiddleWare']}"
        );
        assert_eq!(js("[1, x]", "array", Some("Set")), "'[1, x]'");
    }
}
