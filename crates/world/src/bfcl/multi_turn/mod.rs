//! BFCL's multi-turn categories: the API classes' state (file system, math,
//! messaging, posting, tickets, trading, travel, vehicle control) in Rust,
//! calls executed on it as BFCL's `execute_multi_turn_func_call` executes
//! them, and turns judged as BFCL's multi-turn checker judges them.
//!
//! Each class is an [`ApiClass`]: its public methods with their parameters,
//! a call on bound keyword arguments returning a Python value (or the text
//! of the exception Python would raise), and its public attributes — the
//! state BFCL's checker compares. [`World`] holds one entry's instances and
//! turns a call into the text BFCL's executor returns (`json.dumps` of a
//! dict, `str` of anything else, `Error during execution: …`).

pub mod classes;
pub mod import;
pub mod judge;
pub mod pycall;
pub mod pyops;
pub mod pyrandom;

use crate::bfcl::pyvalue::Py;

/// A parameter of a public method, in the method's order.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    /// No default: Python raises `TypeError` when it is missing.
    pub required: bool,
}

/// A required parameter.
pub const fn req(name: &'static str) -> Param {
    Param { name, required: true }
}

/// A parameter with a default.
pub const fn opt(name: &'static str) -> Param {
    Param { name, required: false }
}

/// A public method of a class and its parameters.
#[derive(Debug, Clone, Copy)]
pub struct Method {
    pub name: &'static str,
    pub params: &'static [Param],
}

/// The keyword arguments of one call, bound to the method's parameters
/// (missing optional ones are absent: the method applies its default).
#[derive(Debug, Clone, Default)]
pub struct Args(pub Vec<(String, Py)>);

impl Args {
    /// The argument, if it was given.
    pub fn get(&self, name: &str) -> Option<&Py> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// A required argument (binding checked it is there).
    pub fn arg(&self, name: &str) -> &Py {
        self.get(name).unwrap_or(&Py::None)
    }
}

/// A mutable default argument of a method (`def f(x=[])`): Python makes
/// it once, when the class is defined, so every instance in the process
/// shares it.
pub type SharedList = std::sync::Arc<std::sync::Mutex<Vec<Py>>>;

/// A public attribute's value: borrowed where the instance keeps it as a
/// value, a list or a dict's entries; made where it is built from other state.
#[derive(Debug)]
pub enum Attr<'a> {
    Py(&'a Py),
    List(&'a [Py]),
    Dict(&'a [(String, Py)]),
    Made(Py),
}

/// An attribute seen as Python compares it.
enum AttrView<'a> {
    Py(&'a Py),
    List(&'a [Py]),
    Dict(&'a [(String, Py)]),
}

impl Attr<'_> {
    fn view(&self) -> AttrView<'_> {
        let py = match self {
            Attr::List(items) => return AttrView::List(items),
            Attr::Dict(entries) => return AttrView::Dict(entries),
            Attr::Py(p) => p,
            Attr::Made(p) => p,
        };
        match py {
            Py::List(items) => AttrView::List(items),
            Py::Dict(entries) => AttrView::Dict(entries),
            other => AttrView::Py(other),
        }
    }

    /// Python's `self == other`.
    pub fn py_eq(&self, other: &Attr<'_>) -> bool {
        use crate::bfcl::pyvalue::{dict_eq, list_eq};
        match (self.view(), other.view()) {
            (AttrView::List(a), AttrView::List(b)) => list_eq(a, b),
            (AttrView::Dict(a), AttrView::Dict(b)) => dict_eq(a, b),
            (AttrView::Py(a), AttrView::Py(b)) => a.py_eq(b),
            // A list equals no dict, tuple or scalar; a dict no list or scalar.
            _ => false,
        }
    }

    /// The value, owned.
    pub fn to_py(&self) -> Py {
        match self.view() {
            AttrView::List(items) => Py::List(items.to_vec()),
            AttrView::Dict(entries) => Py::Dict(entries.to_vec()),
            AttrView::Py(p) => p.clone(),
        }
    }
}

/// The text of an exception Python would raise (`str(e)`).
pub type PyError = String;

/// One of BFCL's API classes, reimplemented.
pub trait ApiClass: Send {
    /// BFCL's class name (`GorillaFileSystem`).
    fn class_name(&self) -> &'static str;
    /// `_load_scenario(config, long_context)`: the entry's initial configuration of this class.
    fn load(&mut self, config: &Py, long_context: bool);
    /// The public methods, in any order.
    fn methods(&self) -> &'static [Method];
    /// Calls a public method with bound arguments: its return value, or the
    /// text of the exception it raises.
    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError>;
    /// The public attributes (`vars(instance)` less names starting with `_`),
    /// in their order, as values Python's `==` compares the same way:
    /// borrowed where the instance keeps them so, since the judge compares
    /// them after every turn.
    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)>;
    /// [`ApiClass::attrs`] as owned values.
    fn state(&self) -> Vec<(String, Py)> {
        self.attrs().into_iter().map(|(k, v)| (k.to_string(), v.to_py())).collect()
    }
    /// The class's mutable default arguments, if it has any that its
    /// methods mutate (`TwitterAPI.post_tweet`'s `mentions=[]`).
    fn shared_defaults(&self) -> Option<SharedList> {
        None
    }
    /// Uses another instance's mutable defaults from now on (`shared_defaults`).
    fn adopt_defaults(&mut self, _shared: SharedList) {}
}

/// A new instance of a BFCL class, by its name (not yet loaded).
pub fn new_class(name: &str) -> Option<Box<dyn ApiClass>> {
    classes::new_class(name)
}

/// BFCL's class names that calltape executes.
pub const CLASSES: &[&str] =
    &["GorillaFileSystem", "MathAPI", "MessageAPI", "TwitterAPI", "TicketAPI", "TradingBot", "TravelAPI", "VehicleControlAPI"];

/// Classes BFCL does not load a configuration into.
const STATELESS: &[&str] = &["MathAPI"];

/// Method names BFCL's executor refuses to call.
const REFUSED: &[&str] = &["kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"];

/// How BFCL's executor starts the text of a call that raised.
pub const EXECUTION_ERROR: &str = "Error during execution: ";

/// A class an entry involves that calltape does not execute.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown BFCL class `{0}`")]
pub struct UnknownClass(pub String);

/// One entry's instances, loaded with its initial configuration.
pub struct World {
    instances: Vec<Box<dyn ApiClass>>,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.instances.iter().map(|i| i.class_name())).finish()
    }
}

impl World {
    /// The involved classes, each loaded from its part of `initial_config`
    /// (a dict by class name). `Err` names a class calltape does not know.
    pub fn new(involved: &[String], initial_config: &Py, long_context: bool) -> Result<World, UnknownClass> {
        let mut instances = Vec::with_capacity(involved.len());
        for name in involved {
            let mut instance = new_class(name).ok_or_else(|| UnknownClass(name.clone()))?;
            if !STATELESS.contains(&name.as_str()) {
                const NONE: &Py = &Py::Dict(Vec::new());
                instance.load(initial_config.get(name).unwrap_or(NONE), long_context);
            }
            instances.push(instance);
        }
        Ok(World { instances })
    }

    /// The instance that answers `method`: the last involved class that has
    /// it, as BFCL's name mapping is overwritten class after class.
    fn owner(&self, method: &str) -> Option<(usize, &'static Method)> {
        self.instances.iter().enumerate().rev().find_map(|(i, c)| c.methods().iter().find(|m| m.name == method).map(|m| (i, m)))
    }

    /// Runs one call and returns what BFCL's executor returns for it.
    pub fn execute(&mut self, call: &pycall::Call) -> String {
        self.execute_value(call).into_text()
    }

    /// Runs one call; its result as the value BFCL's executor writes.
    pub fn execute_value(&mut self, call: &pycall::Call) -> CallResult {
        match self.try_execute(call) {
            Ok(value) => CallResult::of(value),
            Err(e) => CallResult::Text(format!("{EXECUTION_ERROR}{e}")),
        }
    }

    fn try_execute(&mut self, call: &pycall::Call) -> Result<Py, PyError> {
        if let Some(why) = &call.unreadable {
            return Err(why.clone());
        }
        if REFUSED.contains(&call.name.as_str()) {
            return Err(format!("Function call {} is not allowed.", call.name));
        }
        let Some((index, method)) = self.owner(&call.name) else {
            return Err(format!("name '{}' is not defined", call.name));
        };
        let instance = &mut self.instances[index];
        let args = bind(instance.class_name(), method, call)?;
        instance.call(method.name, &args)
    }

    /// Makes this world's instances share `other`'s mutable default
    /// arguments, as the model's and the ground truth's instances do in
    /// BFCL's one process: `mention` on a model's tweet posted without
    /// mentions shows in the ground truth's such tweets.
    pub fn share_defaults_with(&mut self, other: &World) {
        for instance in &mut self.instances {
            let theirs = other.instances.iter().find(|o| o.class_name() == instance.class_name());
            if let Some(shared) = theirs.and_then(|o| o.shared_defaults()) {
                instance.adopt_defaults(shared);
            }
        }
    }

    /// Each instance's public attributes, by class name.
    pub fn state(&self) -> Vec<(&'static str, Vec<(String, Py)>)> {
        self.instances.iter().map(|i| (i.class_name(), i.state())).collect()
    }

    /// Each instance's public attributes, by class name, borrowed where they can be.
    pub fn attrs(&self) -> Vec<(&'static str, Vec<(&'static str, Attr<'_>)>)> {
        self.instances.iter().map(|i| (i.class_name(), i.attrs())).collect()
    }
}

/// The public methods of a BFCL class, by its name: read once from an
/// instance of each class, not from a new instance every time.
pub fn class_methods(name: &str) -> Option<&'static [Method]> {
    static METHODS: std::sync::OnceLock<Vec<(&'static str, &'static [Method])>> = std::sync::OnceLock::new();
    let all = METHODS.get_or_init(|| CLASSES.iter().filter_map(|c| Some((*c, new_class(c)?.methods()))).collect());
    all.iter().find(|(class, _)| *class == name).map(|(_, methods)| *methods)
}

/// A call's arguments by name, positional ones named after the parameters
/// of the method that answers it among `involved` classes (`None`: no such
/// method, or more positional arguments than it takes).
pub fn named_args(involved: &[String], call: &pycall::Call) -> Option<Vec<(String, Py)>> {
    let method =
        involved.iter().rev().filter_map(|name| class_methods(name)).find_map(|methods| methods.iter().find(|m| m.name == call.name))?;
    if call.positional.len() > method.params.len() {
        return None;
    }
    let mut named = positional_named(method, call);
    named.extend(call.keywords.iter().cloned());
    Some(named)
}

/// The call's positional arguments, named after the method's parameters in order.
fn positional_named(method: &Method, call: &pycall::Call) -> Vec<(String, Py)> {
    method.params.iter().zip(&call.positional).map(|(p, v)| (p.name.to_string(), v.clone())).collect()
}

/// Binds a call's arguments to a method's parameters as Python does, with
/// Python's messages for what does not fit.
fn bind(class: &str, method: &Method, call: &pycall::Call) -> Result<Args, PyError> {
    let qualified = format!("{class}.{}()", method.name);
    if call.positional.len() > method.params.len() {
        // Python counts `self` among them.
        let most = method.params.len() + 1;
        let least = method.params.iter().filter(|p| p.required).count() + 1;
        let takes = match (least == most, most) {
            (true, 1) => "1 positional argument".to_string(),
            (true, n) => format!("{n} positional arguments"),
            (false, n) => format!("from {least} to {n} positional arguments"),
        };
        return Err(format!("{qualified} takes {takes} but {} were given", call.positional.len() + 1));
    }
    let mut bound = positional_named(method, call);
    for (name, value) in &call.keywords {
        if !method.params.iter().any(|p| p.name == name) {
            return Err(format!("{qualified} got an unexpected keyword argument '{name}'"));
        }
        if bound.iter().any(|(k, _)| k == name) {
            return Err(format!("{qualified} got multiple values for argument '{name}'"));
        }
        bound.push((name.clone(), value.clone()));
    }
    let missing: Vec<&str> =
        method.params.iter().filter(|p| p.required && !bound.iter().any(|(k, _)| k == p.name)).map(|p| p.name).collect();
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|m| format!("'{m}'")).collect();
        let listed = match names.as_slice() {
            [one] => one.clone(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
            [] => String::new(),
        };
        let noun = if missing.len() == 1 { "argument" } else { "arguments" };
        return Err(format!("{qualified} missing {} required positional {noun}: {listed}", missing.len()));
    }
    Ok(Args(bound))
}

/// What BFCL's executor makes of a return value: a string as it is, a dict
/// as `json.dumps` writes it, anything else as `str()`.
pub fn result_text(value: &Py) -> String {
    CallResult::of(value.clone()).into_text()
}

/// A call's result as BFCL's executor makes it text, kept as the value it
/// writes until the text is read: the judge compares results far more
/// often than it shows them, and comparing values skips writing every
/// float of a long result.
#[derive(Debug, Clone)]
pub enum CallResult {
    /// A string returned, or an error's text.
    Text(String),
    /// A dict, written by `json.dumps`.
    Json(Py),
    /// Anything else, written by `str()` (its `repr`).
    Str(Py),
}

impl CallResult {
    /// The result of a call that returned `value`.
    pub fn of(value: Py) -> CallResult {
        // An int past 4300 digits: `json.dumps`, then `str`, raise Python's ValueError.
        if !matches!(value, Py::Str(_)) && value.has_int_past_str_limit() {
            return CallResult::Text(format!("{EXECUTION_ERROR}{}", crate::bfcl::pyint::too_many_digits()));
        }
        match value {
            Py::Str(s) => CallResult::Text(s),
            dict @ Py::Dict(_) => CallResult::Json(dict),
            other => CallResult::Str(other),
        }
    }

    /// The text BFCL's executor returns.
    pub fn into_text(self) -> String {
        match self {
            CallResult::Text(s) => s,
            written => written.text().into_owned(),
        }
    }

    /// The text, borrowed where it is one.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            CallResult::Text(s) => std::borrow::Cow::Borrowed(s),
            CallResult::Json(v) => std::borrow::Cow::Owned(v.json_dumps()),
            CallResult::Str(v) => std::borrow::Cow::Owned(v.repr()),
        }
    }

    /// Whether the two results are the same text.
    pub fn same_text(&self, other: &CallResult) -> bool {
        use crate::bfcl::pyvalue::{same_json, same_repr};
        match (self, other) {
            (CallResult::Text(a), CallResult::Text(b)) => a == b,
            (CallResult::Json(a), CallResult::Json(b)) => same_json(a, b),
            (CallResult::Str(a), CallResult::Str(b)) => same_repr(a, b),
            // A dict's text starts with `{`, a `repr` never does (a dict goes to json.dumps).
            (CallResult::Json(_), CallResult::Str(_)) | (CallResult::Str(_), CallResult::Json(_)) => false,
            (CallResult::Text(t), v) | (v, CallResult::Text(t)) => *t == v.text(),
        }
    }
}

/// A trajectory to execute (one JSON line of `calltape bfcl-judge --world`):
/// an entry's classes and configuration, and the calls of each turn as
/// Python call expressions.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Trajectory {
    pub involved_classes: Vec<String>,
    #[serde(default)]
    pub initial_config: Option<Py>,
    #[serde(default)]
    pub long_context: bool,
    pub turns: Vec<Vec<String>>,
}

/// What a trajectory did: each call's result text, and each class's public
/// attributes after each turn.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Trace {
    pub results: Vec<Vec<String>>,
    pub states: Vec<Vec<(String, Py)>>,
}

/// Executes a trajectory on a fresh world (`Err`: an unknown class; a call
/// that is not Python call syntax fails as BFCL's executor fails it).
pub fn trace(t: &Trajectory) -> Result<Trace, UnknownClass> {
    let config = t.initial_config.clone().unwrap_or(Py::Dict(Vec::new()));
    let mut world = World::new(&t.involved_classes, &config, t.long_context)?;
    let mut trace = Trace { results: Vec::new(), states: Vec::new() };
    for turn in &t.turns {
        let mut results = Vec::with_capacity(turn.len());
        for text in turn {
            results.push(world.execute(&pycall::read_call(text)));
        }
        trace.results.push(results);
        trace.states.push(world.state().into_iter().map(|(c, attrs)| (c.to_string(), Py::Dict(attrs))).collect());
    }
    Ok(trace)
}
