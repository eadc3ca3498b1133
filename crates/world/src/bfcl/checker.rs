//! BFCL's AST checker, rule for rule: which checker a category uses, the
//! order its checks run in, and the error type it reports first. Values are
//! compared as Python compares them ([`Py`]): `1 == 1.0 == True`, strings
//! after `standardize`, `""` among the alternatives meaning "may be omitted".
//!
//! The model's answer is the list of calls it made, by the names it was
//! offered (`math_factorial`); BFCL's dotted names are mapped the same way
//! before comparing, as BFCL does for models that cannot send dots.

use std::borrow::Cow;

use serde_json::Value;

use super::convert::{self, Unsupported};
use super::pyvalue::{standardize, standardized_eq, standardizes_to, str_repr, write_list_repr, write_str_repr, Py, PyType};
use super::{BfclCheck, FunctionTypes, Language};

/// Why an answer fails: BFCL's error type and its first error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// BFCL's `error_type`, e.g. `type_error:simple`.
    pub error_type: &'static str,
    /// Borrowed where BFCL's message is fixed text.
    pub message: Cow<'static, str>,
}

impl Failure {
    fn new(error_type: &'static str, message: impl Into<Cow<'static, str>>) -> Failure {
        Failure { error_type, message: message.into() }
    }

    /// Another error of BFCL's list: its type wins, the messages add up.
    fn push(&mut self, error_type: &'static str, message: String) {
        self.error_type = error_type;
        let text = self.message.to_mut();
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&message);
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.message.is_empty() {
            f.write_str(self.error_type)
        } else {
            write!(f, "{}: {}", self.error_type, self.message)
        }
    }
}

/// Whether a check writes its failure's message. The parallel checker's
/// greedy search and the nested type check only ask whether a value passes:
/// writing the messages they throw away took most of the judge's time.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Say {
    Messages,
    VerdictOnly,
}

impl Say {
    fn fail(self, error_type: &'static str, message: impl FnOnce() -> String) -> Failure {
        Failure { error_type, message: if self == Say::Messages { Cow::Owned(message()) } else { Cow::Borrowed("") } }
    }

    /// [`Failure::push`], writing the message only where it is said.
    fn push(self, failure: &mut Failure, error_type: &'static str, message: impl FnOnce() -> String) {
        match self {
            Say::Messages => failure.push(error_type, message()),
            Say::VerdictOnly => failure.error_type = error_type,
        }
    }
}

/// A failure message written straight into one string, BFCL's text with
/// Python's `repr` of names and values: no formatting machinery and no
/// string per part (writing messages was most of the judge's time).
struct Message(String);

impl Message {
    fn new(text: &str) -> Message {
        let mut out = String::with_capacity(128);
        out.push_str(text);
        Message(out)
    }

    fn text(mut self, text: &str) -> Message {
        self.0.push_str(text);
        self
    }

    /// `repr` of a string: a parameter's name or a string value.
    fn str(mut self, s: &str) -> Message {
        write_str_repr(s, &mut self.0);
        self
    }

    fn value(mut self, value: &Py) -> Message {
        value.write_repr(&mut self.0);
        self
    }

    fn number(mut self, n: usize) -> Message {
        self.0.push_str(itoa::Buffer::new().format(n));
        self
    }

    fn list(mut self, items: &[Py]) -> Message {
        write_list_repr(items, &mut self.0);
        self
    }

    fn done(self) -> String {
        self.0
    }
}

/// Where BFCL's checker raises an exception instead of giving a verdict.
const CRASH: &str = "checker_error:exception";

impl From<Unsupported> for Failure {
    fn from(u: Unsupported) -> Failure {
        Failure::new(CRASH, u.0)
    }
}

/// One call of the model's answer: the tool name and its arguments,
/// borrowed where the caller already holds them as Python values.
#[derive(Debug, Clone)]
pub struct AnswerCall<'a> {
    pub name: Cow<'a, str>,
    /// Arguments in the order the model sent them.
    pub params: Cow<'a, [(String, Py)]>,
}

impl AnswerCall<'_> {
    /// A call from a tool name and a JSON arguments object (anything else is no arguments).
    pub fn from_json(name: &str, args: &Value) -> AnswerCall<'static> {
        AnswerCall::from_json_in_order(name, args, &[])
    }

    /// A call from a JSON arguments object whose keys were written in
    /// `order` (see [`super::arg_order`]): BFCL walks the model's arguments
    /// as written, so the first wrong one written decides the error type.
    pub fn from_json_in_order(name: &str, args: &Value, order: &[String]) -> AnswerCall<'static> {
        let params = match args {
            Value::Object(map) => super::arg_order::in_written_order(map, order).map(|(k, v)| (k.clone(), Py::from_json(v))).collect(),
            _ => Vec::new(),
        };
        AnswerCall { name: Cow::Owned(name.to_string()), params: Cow::Owned(params) }
    }

    /// A call from a tool name and its arguments as a Python dict, in the
    /// order written (anything else is no arguments).
    pub fn from_py<'a>(name: &'a str, args: &'a Py) -> AnswerCall<'a> {
        let params: &[(String, Py)] = match args {
            Py::Dict(entries) => entries,
            _ => &[],
        };
        AnswerCall { name: Cow::Borrowed(name), params: Cow::Borrowed(params) }
    }

    fn param(&self, name: &str) -> Option<&Py> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
}

/// One expected call of the key, in checker form.
struct KeyCall {
    name: String,
    params: Vec<KeyParam>,
    /// The function it is checked against, as an index into the entry's functions.
    function: Option<usize>,
    /// For each of that function's required parameters, its index among `params`, if there.
    required: Vec<Option<usize>>,
}

/// A parameter of the key: its accepted values, the string ones after
/// `standardize` (made once: string answers are compared with them), and
/// its declared type in the function it is checked against.
struct KeyParam {
    name: String,
    alternatives: Vec<Py>,
    standardized: Vec<String>,
    /// `None` where the function declares no such parameter.
    declared: Option<Declared>,
}

/// A parameter's declared type as the checker maps it for the category's
/// language, resolved once per key; a `KeyError` stays an error, raised
/// when an answer reaches it, as BFCL raises it.
struct Declared {
    /// The declared type name (`"integer"`, `"ArrayList"`).
    kind: String,
    /// The declared item type name, when the type is a list the checker looks into.
    items: Option<String>,
    /// The type the name maps to; `None`: a `KeyError` on `kind`.
    expected: Option<PyType>,
    /// For a list type the checker looks into, its item type, or the name of
    /// the `KeyError` that looking it up raises.
    nested: Option<Result<PyType, String>>,
}

impl Declared {
    fn of(param: &super::ParamType, language: Language) -> Declared {
        let (table, lists): (TypeTable, &[&str]) = match language {
            Language::Python => (python_type, &["array", "tuple"]),
            Language::Java => (java_type, &["Array", "ArrayList", "array"]),
            Language::Javascript => (js_type, &["Array", "ArrayList", "array"]),
        };
        let kind = param.kind.as_str();
        let nested = lists.contains(&kind).then(|| match param.items.as_deref() {
            None => Err("items".to_string()),
            Some(n) => table(n).ok_or_else(|| n.to_string()),
        });
        Declared { kind: kind.to_string(), items: param.items.clone(), expected: table(kind), nested }
    }
}

/// A key's expected calls as Python values, converted from its JSON once
/// rather than for every answer judged against it. Not part of the key's
/// identity: clones start empty, and two caches are always equal.
#[derive(Default)]
pub struct KeyCache(std::sync::OnceLock<Vec<KeyCall>>);

impl Clone for KeyCache {
    fn clone(&self) -> KeyCache {
        KeyCache::default()
    }
}

impl PartialEq for KeyCache {
    fn eq(&self, _: &KeyCache) -> bool {
        true
    }
}

impl std::fmt::Debug for KeyCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyCache")
    }
}

fn key_calls(check: &BfclCheck) -> &[KeyCall] {
    check.key.0.get_or_init(|| {
        let language = check.category.language();
        check
            .ground_truth
            .iter()
            .flat_map(|c| c.iter())
            .map(|(name, params)| {
                // The function `ast_check` checks this expected call against.
                let index = if check_kind(check) == CheckKind::Simple {
                    (!check.functions.is_empty()).then_some(0)
                } else {
                    check.function_index(name)
                };
                let function = index.map(|i| &check.functions[i]);
                let params: Vec<KeyParam> = params
                    .iter()
                    .map(|(k, v)| {
                        let alternatives: Vec<Py> = match v {
                            Value::Array(items) => items.iter().map(Py::from_json).collect(),
                            other => vec![Py::from_json(other)],
                        };
                        let standardized = alternatives.iter().filter_map(Py::as_str).map(standardize).collect();
                        let declared = function.and_then(|f| f.param(k)).map(|p| Declared::of(p, language));
                        KeyParam { name: k.clone(), alternatives, standardized, declared }
                    })
                    .collect();
                let required =
                    function.map_or_else(Vec::new, |f| f.required.iter().map(|r| params.iter().position(|p| p.name == *r)).collect());
                KeyCall { name: name.clone(), params, function: index, required }
            })
            .collect()
    })
}

/// Which of BFCL's checkers a category's answers go to (by its name, as BFCL picks).
#[derive(Clone, Copy, PartialEq, Eq)]
enum CheckKind {
    Parallel,
    Multiple,
    Simple,
}

fn check_kind(check: &BfclCheck) -> CheckKind {
    use super::Category::*;
    // BFCL picks by the name: "parallel" in it, else "multiple", else the simple checker.
    match check.category {
        Parallel | ParallelMultiple | LiveParallel | LiveParallelMultiple => CheckKind::Parallel,
        Multiple | LiveMultiple => CheckKind::Multiple,
        SimplePython | SimpleJava | SimpleJavascript | LiveSimple | Irrelevance | LiveIrrelevance | LiveRelevance => CheckKind::Simple,
    }
}

/// Judges a model's answer as BFCL's evaluation does: for irrelevance no
/// call, for relevance some call, otherwise the AST checker (an answer with
/// no call at all is, as in BFCL's runner, a decoding failure).
pub fn judge(check: &BfclCheck, calls: &[AnswerCall]) -> Result<(), Failure> {
    if check.category.wants_no_call() {
        return if calls.is_empty() {
            Ok(())
        } else {
            Err(Failure::new("irrelevance_error:decoder_success", "Valid syntax. Successfully decode AST when it should not."))
        };
    }
    if check.category.wants_any_call() {
        return if calls.is_empty() {
            Err(Failure::new("relevance_error:decoder_failed", "Invalid syntax. Failed to decode AST when it should have."))
        } else {
            Ok(())
        };
    }
    if calls.is_empty() {
        return Err(Failure::new("ast_decoder:decoder_failed", "Invalid syntax. Failed to decode AST. The answer has no function call."));
    }
    ast_check(check, calls)
}

/// BFCL's `ast_checker`: picks the checker by the category's name.
pub fn ast_check(check: &BfclCheck, calls: &[AnswerCall]) -> Result<(), Failure> {
    let key = key_calls(check);
    let language = check.category.language();
    match check_kind(check) {
        CheckKind::Parallel => parallel_no_order(check, calls, key, language),
        CheckKind::Multiple => {
            if calls.len() != key.len() {
                return Err(Failure::new("multiple_function_checker:wrong_count", "Wrong number of functions."));
            }
            let function = find_function(check, &key[0])?;
            simple(function, &calls[0], &key[0], language, Say::Messages)
        }
        CheckKind::Simple => {
            if calls.len() != 1 {
                return Err(Failure::new("simple_function_checker:wrong_count", "Wrong number of functions."));
            }
            let function = check.functions.first().ok_or_else(|| Failure::new(CRASH, "the entry has no function"))?;
            let first = key.first().ok_or_else(|| Failure::new(CRASH, "the answer key is empty"))?;
            simple(function, &calls[0], first, language, Say::Messages)
        }
    }
}

fn find_function<'a>(check: &'a BfclCheck, expected: &KeyCall) -> Result<&'a FunctionTypes, Failure> {
    expected
        .function
        .and_then(|i| check.functions.get(i))
        .ok_or_else(|| Failure::new(CRASH, format!("no function description named {}", str_repr(&expected.name))))
}

/// BFCL's `parallel_function_checker_no_order`: each expected call, in key
/// order, takes the first unmatched model call that passes (greedy).
fn parallel_no_order(check: &BfclCheck, calls: &[AnswerCall], key: &[KeyCall], language: Language) -> Result<(), Failure> {
    if calls.len() != key.len() {
        return Err(Failure::new("parallel_function_checker_no_order:wrong_count", "Wrong number of functions."));
    }
    let mut matched = vec![false; calls.len()];
    for (i, expected) in key.iter().enumerate() {
        let function = find_function(check, expected)?;
        let mut found = false;
        for (index, call) in calls.iter().enumerate() {
            if matched[index] {
                continue;
            }
            if simple(function, call, expected, language, Say::VerdictOnly).is_ok() {
                matched[index] = true;
                found = true;
                break;
            }
        }
        if !found {
            let mut message = Message::new("Could not find a matching function among index [");
            for (n, j) in (0..calls.len()).filter(|j| !matched[*j]).enumerate() {
                message = message.text(if n == 0 { "" } else { ", " }).number(j);
            }
            let message = message.text("] of model output for index ").number(i).text(" of possible answers.");
            return Err(Failure::new("parallel_function_checker_no_order:cannot_find_match", message.done()));
        }
    }
    Ok(())
}

/// How a language's checker maps the type names of a function description.
type TypeTable = fn(&str) -> Option<PyType>;

/// A type name of the function description, as the checker maps it.
fn python_type(name: &str) -> Option<PyType> {
    Some(match name {
        "string" | "any" => PyType::Str,
        "integer" => PyType::Int,
        "float" => PyType::Float,
        "boolean" => PyType::Bool,
        "array" | "tuple" => PyType::List,
        "dict" => PyType::Dict,
        _ => return None,
    })
}

fn java_type(name: &str) -> Option<PyType> {
    Some(match name {
        "byte" | "short" | "integer" | "long" => PyType::Int,
        "float" | "double" => PyType::Float,
        "boolean" => PyType::Bool,
        "char" | "String" | "any" => PyType::Str,
        "Array" | "ArrayList" | "Queue" | "Stack" => PyType::List,
        "Set" => PyType::Set,
        "HashMap" | "Hashtable" => PyType::Dict,
        _ => return None,
    })
}

fn js_type(name: &str) -> Option<PyType> {
    Some(match name {
        "String" | "any" => PyType::Str,
        "integer" | "Bigint" => PyType::Int,
        "float" => PyType::Float,
        "Boolean" => PyType::Bool,
        "dict" => PyType::Dict,
        "array" => PyType::List,
        _ => return None,
    })
}

fn key_error(name: &str) -> Failure {
    Failure::new(CRASH, format!("KeyError: {}", str_repr(name)))
}

/// BFCL's `simple_function_checker`: one model call against one expected call.
fn simple(function: &FunctionTypes, call: &AnswerCall, expected: &KeyCall, language: Language, say: Say) -> Result<(), Failure> {
    if *call.name != *function.tool {
        return Err(say.fail("simple_function_checker:wrong_func_name", || {
            Message::new("Function name ").str(&function.tool).text(" not found in model output.").done()
        }));
    }
    // Which key parameter each of the call's is: the only name comparisons made.
    let which: smallvec::SmallVec<[Option<usize>; 8]> =
        call.params.iter().map(|(name, _)| expected.params.iter().position(|p| p.name == *name)).collect();
    let given = |j: usize| which.contains(&Some(j));
    let mut required = function.required.iter().zip(expected.required.iter().chain(std::iter::repeat(&None)));
    if let Some((missing, _)) = required.find(|(p, j)| j.map_or_else(|| call.param(p).is_none(), |j| !given(j))) {
        return Err(say.fail("simple_function_checker:missing_required", || {
            Message::new("Missing required parameter: ").str(missing).text(".").done()
        }));
    }
    for ((param, value), j) in call.params.iter().zip(&which) {
        let Some((key_param, declared)) = j.map(|j| &expected.params[j]).and_then(|k| Some((k, k.declared.as_ref()?))) else {
            return Err(
                say.fail("simple_function_checker:unexpected_param", || Message::new("Unexpected parameter: ").str(param).text(".").done())
            );
        };
        let alternatives = key_param.alternatives.as_slice();
        let described = declared.kind.as_str();
        let expected_type = declared.expected.ok_or_else(|| key_error(described))?;
        let nested_type = || declared.nested.as_ref().map(|n| n.clone().map_err(|name| key_error(&name))).transpose();
        let (nested_type, value) = match language {
            Language::Python => {
                let nested = nested_type()?;
                // Python accepts an int where a float is declared.
                let value = match value {
                    Py::Int(i) if expected_type == PyType::Float => Cow::Owned(Py::Float(*i as f64)),
                    v => Cow::Borrowed(v),
                };
                (nested, value)
            }
            Language::Java | Language::Javascript => {
                let label = if language == Language::Java { "type_error:java" } else { "type_error:js" };
                let Py::Str(text) = value else {
                    return Err(say.fail(label, || {
                        Message::new("Incorrect type for parameter ")
                            .str(param)
                            .text(". Expected type String, got ")
                            .text(value.py_type().name())
                            .text(". Parameter value: ")
                            .value(value)
                            .text(".")
                            .done()
                    }));
                };
                let convert_fn = if language == Language::Java { convert::java } else { convert::javascript };
                let nested = nested_type()?;
                let items = if nested.is_some() { declared.items.as_deref() } else { None };
                (nested, Cow::Owned(convert_fn(text, described, items)?))
            }
        };
        let is_variable = type_check(param, &value, alternatives, described, expected_type, nested_type, say)?;
        if !is_variable {
            match (expected_type, nested_type, &*value) {
                (PyType::Dict, _, Py::Dict(entries)) => {
                    dict_check(entries, alternatives, say)?;
                    continue;
                }
                (PyType::List, Some(PyType::Dict), Py::List(items)) => {
                    list_dict_check(items, alternatives, say)?;
                    continue;
                }
                (PyType::Str, _, Py::Str(s)) => {
                    string_check(param, s, key_param, say)?;
                    continue;
                }
                (PyType::List, _, Py::List(items)) => {
                    list_check(param, items, alternatives, say)?;
                    continue;
                }
                _ => {}
            }
        }
        if !value.py_in(alternatives) {
            return Err(say.fail("value_error:others", || {
                Message::new("Invalid value for parameter ")
                    .str(param)
                    .text(": ")
                    .value(&value)
                    .text(". Expected one of ")
                    .list(alternatives)
                    .text(".")
                    .done()
            }));
        }
    }
    for (j, KeyParam { name: param, alternatives, .. }) in expected.params.iter().enumerate() {
        if !given(j) && !alternatives.iter().any(Py::is_omitted_marker) {
            return Err(say.fail("simple_function_checker:missing_optional", || {
                Message::new("Optional parameter ").str(param).text(" not provided and not marked as optional.").done()
            }));
        }
    }
    Ok(())
}

/// The type of the first alternative that is not `""`.
fn answer_type(alternatives: &[Py]) -> Option<PyType> {
    alternatives.iter().find(|a| !a.is_omitted_marker()).map(Py::py_type)
}

/// BFCL's `type_checker`: `Ok(is_variable)` — whether the answer key holds a
/// value of another type than declared (a variable name), compared as is.
fn type_check(
    param: &str,
    value: &Py,
    alternatives: &[Py],
    described: &str,
    expected: PyType,
    nested: Option<PyType>,
    say: Say,
) -> Result<bool, Failure> {
    let key_type = answer_type(alternatives);
    let is_variable = key_type.is_some_and(|t| t != expected);
    let mut nested_failure = None;
    if value.py_type() == expected {
        let Some(nested) = nested else { return Ok(is_variable) };
        let items: &[Py] = match value {
            Py::List(items) => items,
            _ => &[],
        };
        for alternative in alternatives {
            let flag = match alternative {
                Py::List(inner) => items.iter().all(|item| type_check(param, item, inner, "", nested, None, Say::VerdictOnly).is_ok()),
                _ => true,
            };
            if flag {
                return Ok(is_variable);
            }
        }
        nested_failure = Some(say.fail("type_error:nested", || {
            Message::new("Nested type checking failed for parameter ")
                .str(param)
                .text(". Expected outer type ")
                .text(described)
                .text(" with inner type ")
                .text(&nested.class_repr())
                .text(". Parameter value: ")
                .value(value)
                .text(".")
                .done()
        }));
    }
    if key_type.is_some_and(|t| t == value.py_type()) {
        return match nested_failure {
            Some(f) => Err(f),
            None => Ok(true),
        };
    }
    let mut failure = nested_failure.unwrap_or_else(|| Failure::new("type_error:simple", ""));
    say.push(&mut failure, "type_error:simple", || {
        let described = if described.is_empty() { Cow::Owned(expected.class_repr()) } else { Cow::Borrowed(described) };
        Message::new("Incorrect type for parameter ")
            .str(param)
            .text(". Expected type ")
            .text(&described)
            .text(", got ")
            .text(value.py_type().name())
            .text(". Parameter value: ")
            .value(value)
            .text(".")
            .done()
    });
    Err(failure)
}

/// BFCL's `string_checker`.
fn string_check(param: &str, value: &str, key: &KeyParam, say: Say) -> Result<(), Failure> {
    if key.standardized.iter().any(|k| standardizes_to(value, k)) {
        return Ok(());
    }
    Err(say.fail("value_error:string", || {
        Message::new("Invalid value for parameter ")
            .str(param)
            .text(": ")
            .str(value)
            .text(". Expected one of ")
            .list(&key.alternatives)
            .text(". Case insensitive.")
            .done()
    }))
}

/// A string element standardised, anything else as is.
fn standardized(v: &Py) -> Py {
    match v {
        Py::Str(s) => Py::Str(standardize(s)),
        other => other.clone(),
    }
}

/// `standardized(a) == standardized(b)`, comparing strings in place.
fn standardized_py_eq(a: &Py, b: &Py) -> bool {
    match (a, b) {
        (Py::Str(a), Py::Str(b)) => standardized_eq(a, b),
        (Py::Str(_), _) | (_, Py::Str(_)) => false,
        (a, b) => a.py_eq(b),
    }
}

/// Python's `len(x)` and `x[j]` for an alternative BFCL iterates as a list:
/// a list (borrowed), or a string as its characters.
fn as_sequence(alternative: &Py) -> Result<Cow<'_, [Py]>, Failure> {
    match alternative {
        Py::List(items) => Ok(Cow::Borrowed(items)),
        Py::Str(s) => Ok(Cow::Owned(s.chars().map(|c| Py::Str(c.to_string())).collect())),
        other => Err(Failure::new(CRASH, format!("TypeError: object of type '{}' has no len()", other.py_type().name()))),
    }
}

/// BFCL's `list_checker`: top-level strings standardised on both sides.
fn list_check(param: &str, value: &[Py], alternatives: &[Py], say: Say) -> Result<(), Failure> {
    for alternative in alternatives {
        let theirs = as_sequence(alternative)?;
        if value.len() == theirs.len() && value.iter().zip(theirs.iter()).all(|(a, b)| standardized_py_eq(a, b)) {
            return Ok(());
        }
    }
    Err(say.fail("value_error:list/tuple", || {
        Message::new("Invalid value for parameter ")
            .str(param)
            .text(": ")
            .list(value)
            .text(". Expected one of ")
            .list(alternatives)
            .text(".")
            .done()
    }))
}

/// BFCL's `dict_checker`: the verdict of the first alternative that passes,
/// else the failure of the last one tried.
fn dict_check(value: &[(String, Py)], alternatives: &[Py], say: Say) -> Result<(), Failure> {
    let mut result = Failure::new("dict_checker:unclear", "");
    for alternative in alternatives {
        if alternative.is_omitted_marker() {
            continue;
        }
        let Py::Dict(answer) = alternative else {
            return Err(Failure::new(CRASH, format!("dict_checker: alternative {} is not a dict", alternative.repr())));
        };
        result = Failure::new("dict_checker:unclear", "");
        let mut flag = true;
        let lookup = |k: &str| answer.iter().find(|(key, _)| key == k).map(|(_, v)| v);
        for (key, v) in value {
            let Some(accepted) = lookup(key) else {
                say.push(&mut result, "value_error:dict_key", || format!("Unexpected dict key parameter: '{key}'."));
                flag = false;
                break;
            };
            let accepted = as_sequence(accepted)?;
            if !accepted.iter().any(|a| standardized_py_eq(v, a)) {
                say.push(&mut result, "value_error:dict_value", || {
                    let accepted: Vec<Py> = accepted.iter().map(standardized).collect();
                    Message::new("Invalid value for parameter ")
                        .str(key)
                        .text(": ")
                        .value(v)
                        .text(". Expected one of ")
                        .list(&accepted)
                        .text(".")
                        .done()
                });
                flag = false;
                break;
            }
        }
        // BFCL runs this loop even after a failure above; its error type then wins.
        for (key, accepted) in answer {
            let may_omit = match accepted {
                Py::List(items) => items.iter().any(Py::is_omitted_marker),
                Py::Str(_) => true, // `"" in "text"` is always true
                _ => false,
            };
            if !value.iter().any(|(k, _)| k == key) && !may_omit {
                say.push(&mut result, "value_error:dict_key", || format!("Missing dict key parameter: '{key}'."));
                flag = false;
                break;
            }
        }
        if flag {
            return Ok(());
        }
    }
    Err(result)
}

/// BFCL's `list_dict_checker`: the list must match one alternative's dicts in order.
fn list_dict_check(value: &[Py], alternatives: &[Py], say: Say) -> Result<(), Failure> {
    let mut result = Failure::new("list_dict_checker:unclear", "");
    for alternative in alternatives {
        let dicts: &[Py] = match alternative {
            Py::List(items) => items,
            Py::Str(s) if s.is_empty() => &[],
            other => return Err(Failure::new(CRASH, format!("list_dict_checker: alternative {} is not a list", other.repr()))),
        };
        if value.len() != dicts.len() {
            result = Failure::new("value_error:list_dict_count", "Wrong number of dictionaries in the list.");
            continue;
        }
        let mut flag = true;
        for (item, answer) in value.iter().zip(dicts) {
            let Py::Dict(entries) = item else {
                return Err(Failure::new(CRASH, format!("AttributeError: {} has no items()", item.py_type().name())));
            };
            if let Err(f) = dict_check(entries, std::slice::from_ref(answer), say) {
                result = f;
                flag = false;
                break;
            }
        }
        if flag {
            return Ok(());
        }
    }
    Err(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(category: &str, functions: Value, truth: Value) -> BfclCheck {
        serde_json::from_value(json!({"category": category, "functions": functions, "ground_truth": truth})).unwrap()
    }

    fn calls(v: Value) -> Vec<AnswerCall<'static>> {
        v.as_array().unwrap().iter().flat_map(|c| c.as_object().unwrap().iter().map(|(n, a)| AnswerCall::from_json(n, a))).collect()
    }

    fn verdict(k: &BfclCheck, answer: Value) -> String {
        match judge(k, &calls(answer)) {
            Ok(()) => "valid".into(),
            Err(f) => f.to_string(),
        }
    }

    fn area() -> BfclCheck {
        key(
            "simple_python",
            json!([{"name": "geometry.area", "tool": "geometry_area", "required": ["base", "height"],
                    "params": {"base": {"type": "integer"}, "height": {"type": "float"}, "unit": {"type": "string"},
                               "dims": {"type": "array", "items": "integer"}, "opts": {"type": "dict"}}}]),
            json!([{"geometry.area": {"base": [10], "height": [5.0], "unit": ["cm", ""], "dims": [[1, 2], ""],
                                      "opts": [{"mode": ["fast"], "level": [1, ""]}, ""]}}]),
        )
    }

    #[test]
    fn a_right_answer_passes_with_bfcl_leniency() {
        let k = area();
        assert_eq!(verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5}}])), "valid");
        assert_eq!(verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5.0, "unit": "CM"}}])), "valid");
        assert_eq!(verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5, "opts": {"mode": "Fast"}}}])), "valid");
    }

    #[test]
    fn each_simple_error_type_with_its_message() {
        let k = area();
        assert_eq!(
            verdict(&k, json!([{"geometry.area": {"base": 10, "height": 5}}])),
            "simple_function_checker:wrong_func_name: Function name 'geometry_area' not found in model output."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10}}])),
            "simple_function_checker:missing_required: Missing required parameter: 'height'."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5, "color": "red"}}])),
            "simple_function_checker:unexpected_param: Unexpected parameter: 'color'."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": "10", "height": 5}}])),
            "type_error:simple: Incorrect type for parameter 'base'. Expected type integer, got str. Parameter value: '10'."
        );
        // With "" among the alternatives BFCL's nested type check passes (a non-list
        // alternative sets no item type); the list comparison then fails.
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5, "dims": [1, "2"]}}])),
            "value_error:list/tuple: Invalid value for parameter 'dims': [1, '2']. Expected one of [[1, 2], '']."
        );
        let strict = key(
            "simple_python",
            json!([{"name": "f", "tool": "f", "required": ["dims"], "params": {"dims": {"type": "array", "items": "integer"}}}]),
            json!([{"f": {"dims": [[1, 2]]}}]),
        );
        assert_eq!(
            verdict(&strict, json!([{"f": {"dims": [1, "2"]}}])),
            "type_error:nested: Nested type checking failed for parameter 'dims'. Expected outer type array with inner type <class 'int'>. Parameter value: [1, '2']."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 11, "height": 5}}])),
            "value_error:others: Invalid value for parameter 'base': 11. Expected one of [10]."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5, "unit": "mm"}}])),
            "value_error:string: Invalid value for parameter 'unit': 'mm'. Expected one of ['cm', '']. Case insensitive."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5, "dims": [2, 1]}}])),
            "value_error:list/tuple: Invalid value for parameter 'dims': [2, 1]. Expected one of [[1, 2], '']."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5, "opts": {"mode": "slow"}}}])),
            "value_error:dict_value: Invalid value for parameter 'mode': 'slow'. Expected one of ['fast']."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5, "opts": {"speed": 1}}}])),
            "value_error:dict_key: Unexpected dict key parameter: 'speed'. Missing dict key parameter: 'mode'."
        );
        assert_eq!(
            verdict(&k, json!([{"geometry_area": {"base": 10, "height": 5}}, {"geometry_area": {"base": 10, "height": 5}}])),
            "simple_function_checker:wrong_count: Wrong number of functions."
        );
        assert_eq!(
            verdict(&k, json!([])),
            "ast_decoder:decoder_failed: Invalid syntax. Failed to decode AST. The answer has no function call."
        );
    }

    #[test]
    fn missing_optional_and_an_empty_list_for_an_omittable_list() {
        let k = key(
            "simple_python",
            json!([{"name": "f", "tool": "f", "required": [], "params": {"a": {"type": "integer"}, "b": {"type": "array", "items": "string"}}}]),
            json!([{"f": {"a": [1], "b": ["", ["x"]]}}]),
        );
        assert_eq!(
            verdict(&k, json!([{"f": {"b": ["x"]}}])),
            "simple_function_checker:missing_optional: Optional parameter 'a' not provided and not marked as optional."
        );
        // BFCL reads the omitted marker "" as an empty list: `[]` is accepted.
        assert_eq!(verdict(&k, json!([{"f": {"a": 1, "b": []}}])), "valid");
        // True == 1 for Python, but bool is not int.
        assert_eq!(
            verdict(&k, json!([{"f": {"a": true}}])),
            "type_error:simple: Incorrect type for parameter 'a'. Expected type integer, got bool. Parameter value: True."
        );
    }

    #[test]
    fn a_variable_in_the_key_is_compared_as_is() {
        // The key holds a string where an integer is declared: a variable name.
        let k = key(
            "simple_python",
            json!([{"name": "f", "tool": "f", "required": ["n"], "params": {"n": {"type": "integer"}}}]),
            json!([{"f": {"n": ["count"]}}]),
        );
        assert_eq!(verdict(&k, json!([{"f": {"n": "count"}}])), "valid");
        assert_eq!(
            verdict(&k, json!([{"f": {"n": "Count"}}])),
            "value_error:others: Invalid value for parameter 'n': 'Count'. Expected one of ['count']."
        );
    }

    #[test]
    fn list_of_dicts_counts_and_values() {
        let k = key(
            "simple_python",
            json!([{"name": "f", "tool": "f", "required": ["rows"], "params": {"rows": {"type": "array", "items": "dict"}}}]),
            json!([{"f": {"rows": [[{"a": [1]}, {"a": [2]}]]}}]),
        );
        assert_eq!(verdict(&k, json!([{"f": {"rows": [{"a": 1}, {"a": 2}]}}])), "valid");
        assert_eq!(
            verdict(&k, json!([{"f": {"rows": [{"a": 1}]}}])),
            "value_error:list_dict_count: Wrong number of dictionaries in the list."
        );
        assert_eq!(
            verdict(&k, json!([{"f": {"rows": [{"a": 1}, {"b": 2}]}}])),
            "value_error:dict_key: Unexpected dict key parameter: 'b'. Missing dict key parameter: 'a'."
        );
    }

    #[test]
    fn multiple_parallel_and_relevance() {
        let functions = json!([
            {"name": "a.x", "tool": "a_x", "required": ["n"], "params": {"n": {"type": "integer"}}},
            {"name": "b", "tool": "b", "required": ["s"], "params": {"s": {"type": "string"}}}
        ]);
        let multiple = key("multiple", functions.clone(), json!([{"b": {"s": ["hi"]}}]));
        assert_eq!(verdict(&multiple, json!([{"b": {"s": "HI"}}])), "valid");
        assert_eq!(
            verdict(&multiple, json!([{"b": {"s": "x"}}, {"b": {"s": "hi"}}])),
            "multiple_function_checker:wrong_count: Wrong number of functions."
        );
        let parallel = key("parallel_multiple", functions.clone(), json!([{"a.x": {"n": [1]}}, {"b": {"s": ["hi"]}}, {"a.x": {"n": [2]}}]));
        assert_eq!(verdict(&parallel, json!([{"a_x": {"n": 2}}, {"b": {"s": "hi"}}, {"a_x": {"n": 1}}])), "valid");
        assert_eq!(
            verdict(&parallel, json!([{"a_x": {"n": 2}}, {"b": {"s": "hi"}}, {"a_x": {"n": 3}}])),
            "parallel_function_checker_no_order:cannot_find_match: Could not find a matching function among index [0, 1, 2] of model output for index 0 of possible answers."
        );
        assert_eq!(
            verdict(&parallel, json!([{"a_x": {"n": 1}}])),
            "parallel_function_checker_no_order:wrong_count: Wrong number of functions."
        );
        let irrelevance = key("irrelevance", functions.clone(), json!([]));
        assert_eq!(verdict(&irrelevance, json!([])), "valid");
        assert_eq!(
            verdict(&irrelevance, json!([{"b": {"s": "x"}}])),
            "irrelevance_error:decoder_success: Valid syntax. Successfully decode AST when it should not."
        );
        let relevance = key("live_relevance", functions, json!([]));
        assert_eq!(verdict(&relevance, json!([{"b": {}}])), "valid");
        assert_eq!(
            verdict(&relevance, json!([])),
            "relevance_error:decoder_failed: Invalid syntax. Failed to decode AST when it should have."
        );
    }

    #[test]
    fn java_and_javascript_arguments_are_converted_strings() {
        let java = key(
            "simple_java",
            json!([{"name": "Util.run", "tool": "Util_run", "required": ["n", "ids"],
                    "params": {"n": {"type": "long"}, "ids": {"type": "ArrayList", "items": "String"}, "flag": {"type": "boolean"}}}]),
            json!([{"Util.run": {"n": [5], "ids": [["a", "b"]], "flag": [true, ""]}}]),
        );
        assert_eq!(verdict(&java, json!([{"Util_run": {"n": "5L", "ids": "new ArrayList<>(Arrays.asList(\"a\", \"b\"))"}}])), "valid");
        assert_eq!(
            verdict(&java, json!([{"Util_run": {"n": 5, "ids": "new ArrayList<>(Arrays.asList(\"a\", \"b\"))"}}])),
            "type_error:java: Incorrect type for parameter 'n'. Expected type String, got int. Parameter value: 5."
        );
        assert_eq!(
            verdict(&java, json!([{"Util_run": {"n": "5", "ids": "new ArrayList<>(Arrays.asList(\"a\", \"b\"))"}}])),
            "type_error:simple: Incorrect type for parameter 'n'. Expected type long, got str. Parameter value: '5'."
        );
        let js = key(
            "simple_javascript",
            json!([{"name": "go", "tool": "go", "required": ["opts"], "params": {"opts": {"type": "dict"}, "n": {"type": "Bigint"}}}]),
            json!([{"go": {"opts": [{"depth": [2]}], "n": [7, ""]}}]),
        );
        assert_eq!(verdict(&js, json!([{"go": {"opts": "{'depth': 2}", "n": "7n"}}])), "valid");
        assert_eq!(
            verdict(&js, json!([{"go": {"opts": true}}])),
            "type_error:js: Incorrect type for parameter 'opts'. Expected type String, got bool. Parameter value: True."
        );
    }
}
