//! The Berkeley Function Calling Leaderboard (BFCL): importing its
//! single-turn suites and judging answers exactly as its AST checker does.
//!
//! A BFCL scenario carries its answer key in `expect.bfcl` ([`BfclCheck`]):
//! the category, the parameter types of its functions as BFCL wrote them,
//! and the ground truth. `crate::check` hands such scenarios to
//! [`checker::judge`]; the simulated models derive their calls from the same
//! key (`calltape-scenario`'s `scenario::bfcl_answer`). `import` turns BFCL's data files into
//! suites; `pyvalue` and `convert` model the Python values and the Java /
//! JavaScript string conversions the checker works on.

pub mod arg_order;
pub mod checker;
pub mod convert;
pub mod encode;
pub mod import;
pub mod multi_turn;
pub mod pyint;
pub mod pyvalue;
pub mod schema;
pub mod surrogate;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A BFCL test category: which checker applies and what a right answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    SimplePython,
    SimpleJava,
    SimpleJavascript,
    Multiple,
    Parallel,
    ParallelMultiple,
    Irrelevance,
    LiveSimple,
    LiveMultiple,
    LiveParallel,
    LiveParallelMultiple,
    LiveIrrelevance,
    LiveRelevance,
}

impl Category {
    /// Every single-turn category.
    pub const ALL: [Category; 13] = [
        Category::SimplePython,
        Category::SimpleJava,
        Category::SimpleJavascript,
        Category::Multiple,
        Category::Parallel,
        Category::ParallelMultiple,
        Category::Irrelevance,
        Category::LiveSimple,
        Category::LiveMultiple,
        Category::LiveParallel,
        Category::LiveParallelMultiple,
        Category::LiveIrrelevance,
        Category::LiveRelevance,
    ];

    /// BFCL's name of the category (as in file names and ids).
    pub fn name(self) -> &'static str {
        match self {
            Category::SimplePython => "simple_python",
            Category::SimpleJava => "simple_java",
            Category::SimpleJavascript => "simple_javascript",
            Category::Multiple => "multiple",
            Category::Parallel => "parallel",
            Category::ParallelMultiple => "parallel_multiple",
            Category::Irrelevance => "irrelevance",
            Category::LiveSimple => "live_simple",
            Category::LiveMultiple => "live_multiple",
            Category::LiveParallel => "live_parallel",
            Category::LiveParallelMultiple => "live_parallel_multiple",
            Category::LiveIrrelevance => "live_irrelevance",
            Category::LiveRelevance => "live_relevance",
        }
    }

    /// The category of this exact name.
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The category of a BFCL entry id (`live_multiple_3-1-0` → live_multiple).
    pub fn from_id(id: &str) -> Option<Category> {
        id_category_name(id).and_then(Category::from_name)
    }

    /// The category of a BFCL data file name (`BFCL_v4_parallel.json` → parallel).
    pub fn from_file_name(file_name: &str) -> Option<Category> {
        Category::from_name(file_category_name(file_name))
    }

    /// The language the functions are written in.
    pub fn language(self) -> Language {
        match self {
            Category::SimpleJava => Language::Java,
            Category::SimpleJavascript => Language::Javascript,
            _ => Language::Python,
        }
    }

    /// Right answer: no call at all.
    pub fn wants_no_call(self) -> bool {
        matches!(self, Category::Irrelevance | Category::LiveIrrelevance)
    }

    /// Right answer: any call (BFCL's relevance rule).
    pub fn wants_any_call(self) -> bool {
        self == Category::LiveRelevance
    }

    /// Judged by the AST checker against a ground truth.
    pub fn has_ground_truth(self) -> bool {
        !self.wants_no_call() && !self.wants_any_call()
    }
}

/// The category name a BFCL id starts with (`multi_turn_base_12` →
/// `multi_turn_base`), if it ends in BFCL's numbering.
fn id_category_name(id: &str) -> Option<&str> {
    let (prefix, number) = id.rsplit_once('_')?;
    (!number.is_empty() && number.chars().all(|c| c.is_ascii_digit() || c == '-')).then_some(prefix)
}

/// The category name in a BFCL data file name (`BFCL_v4_parallel.json` → `parallel`).
pub(crate) fn file_category_name(file_name: &str) -> &str {
    let stem = file_name.strip_suffix(".jsonl").or_else(|| file_name.strip_suffix(".json")).unwrap_or(file_name);
    stem.strip_prefix("BFCL_v").map_or(stem, |r| r.split_once('_').map_or(r, |(_, cat)| cat))
}

const MEMORY: &str = "memory categories need BFCL's memory backends";
const WEB_SEARCH: &str = "web-search categories call a live search engine";
const EXECUTABLE: &str = "executable categories run the model's calls as Python";

/// BFCL categories (V3 and V4) that calltape does not import, with why: a
/// file of one of them is refused by name, never as an unknown file.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("multi_turn_composite", "the composite multi-turn category was retired by BFCL and ships no data"),
    ("memory_kv", MEMORY),
    ("memory_vector", MEMORY),
    ("memory_rec_sum", MEMORY),
    ("web_search_base", WEB_SEARCH),
    ("web_search_no_snippet", WEB_SEARCH),
    ("format_sensitivity", "format sensitivity re-asks each entry in many prompt formats"),
    ("exec_simple", EXECUTABLE),
    ("exec_multiple", EXECUTABLE),
    ("exec_parallel", EXECUTABLE),
    ("exec_parallel_multiple", EXECUTABLE),
    ("rest", "the REST category calls live web APIs"),
    ("sql", "the SQL category was retired by BFCL"),
    ("chatable", "the chatable category was retired by BFCL"),
];

/// A BFCL category calltape knows of but does not import, named by a data
/// file's name or its first entry's id: its name and why it is not imported.
pub fn unsupported_category(file_name: &str, first_id: &str) -> Option<(&'static str, &'static str)> {
    let named = |name: &str| UNSUPPORTED.iter().find(|(n, _)| *n == name).copied();
    named(file_category_name(file_name)).or_else(|| id_category_name(first_id).and_then(named))
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The language of a category's functions: Java and JavaScript arguments are
/// strings in that language's syntax, converted before checking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Java,
    Javascript,
}

/// One parameter's type as BFCL declares it (`float`, `dict`, `ArrayList`...),
/// with the type of its items for arrays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamType {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<String>,
}

/// What the checker needs of one BFCL function: its names, required
/// parameters and parameter types (the JSON Schema sent to models lives in
/// the scenario's tools).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FunctionTypes {
    /// BFCL's name, dots and all (`math.factorial`).
    pub name: String,
    /// The name offered to models (`math_factorial`).
    pub tool: String,
    #[serde(default)]
    pub required: Vec<String>,
    #[serde(default)]
    pub params: BTreeMap<String, ParamType>,
}

impl FunctionTypes {
    /// The declared type of a parameter.
    pub fn param(&self, name: &str) -> Option<&ParamType> {
        self.params.get(name)
    }
}

/// The name a BFCL function is offered to models under: providers reject
/// dots in tool names, so BFCL itself writes them as `_`.
pub fn tool_name(bfcl_name: &str) -> String {
    bfcl_name.replace('.', "_")
}

/// One expected call of the answer key: function name → parameter →
/// acceptable values (`""` among them: may be omitted).
pub type GroundTruthCall = BTreeMap<String, Map<String, Value>>;

/// A scenario judged by BFCL's rules: `expect.bfcl` in a scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BfclCheck {
    pub category: Category,
    pub functions: Vec<FunctionTypes>,
    /// The answer key; empty for irrelevance and relevance.
    #[serde(default)]
    pub ground_truth: Vec<GroundTruthCall>,
    /// The key as Python values, made once on the first answer judged.
    #[serde(skip)]
    pub(crate) key: checker::KeyCache,
}

impl BfclCheck {
    /// The function of this BFCL name.
    pub fn function(&self, name: &str) -> Option<&FunctionTypes> {
        self.function_index(name).map(|i| &self.functions[i])
    }

    /// Where the function of this BFCL name stands among `functions`.
    pub fn function_index(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }

    /// Problems with the key itself, for the scenario loader.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.category.has_ground_truth() && self.ground_truth.is_empty() {
            out.push(format!("expect.bfcl: category {} needs a ground_truth", self.category));
        }
        if !self.category.has_ground_truth() && !self.ground_truth.is_empty() {
            out.push(format!("expect.bfcl: category {} takes no ground_truth", self.category));
        }
        for call in &self.ground_truth {
            if call.len() != 1 {
                out.push("expect.bfcl: each ground_truth entry names exactly one function".into());
            }
            for (name, params) in call {
                if self.function(name).is_none() {
                    out.push(format!("expect.bfcl: ground_truth names function {name:?}, which is not among expect.bfcl.functions"));
                }
                for (param, alternatives) in params {
                    if !alternatives.is_array() {
                        out.push(format!("expect.bfcl: ground_truth {name}.{param} must be a list of acceptable values"));
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_from_ids_and_file_names() {
        assert_eq!(Category::from_id("live_multiple_3-1-0"), Some(Category::LiveMultiple));
        assert_eq!(Category::from_id("simple_python_12"), Some(Category::SimplePython));
        assert_eq!(Category::from_id("parallel_multiple_0"), Some(Category::ParallelMultiple));
        assert_eq!(Category::from_id("multi_turn_base_0"), None);
        assert_eq!(Category::from_file_name("BFCL_v4_live_irrelevance.json"), Some(Category::LiveIrrelevance));
        assert_eq!(Category::from_file_name("BFCL_v3_simple_javascript.json"), Some(Category::SimpleJavascript));
        assert_eq!(Category::from_file_name("simple_java.jsonl"), Some(Category::SimpleJava));
        assert_eq!(tool_name("math.factorial"), "math_factorial");
    }
}
