//! A BFCL answer key as the scenario's expected calls, for the simulated
//! models. Kept apart from the key's types (in `calltape-world`) so that
//! scenarios can hold a `BfclCheck` without the key's types importing
//! scenarios back.

use crate::bfcl::{encode, tool_name, BfclCheck};
use crate::core::matcher::ValueMatcher;
use crate::scenario::{Alternatives, ExpectedCall, ExpectedStep};

/// What a right answer sends, as expected calls for the simulated models:
/// per parameter the first acceptable value that is not the omitted
/// marker `""` (a parameter whose only value is `""` is left out, and so
/// is one the function does not declare), in the category's language.
/// All calls of the answer come in one turn.
pub fn answer_steps(key: &BfclCheck) -> Vec<ExpectedStep> {
    let language = key.category.language();
    let calls: Vec<ExpectedCall> = key
        .ground_truth
        .iter()
        .flat_map(|call| call.iter())
        .map(|(name, params)| {
            let function = key.function(name);
            let args = params
                .iter()
                // A parameter the function does not declare can only be wrong to send.
                .filter(|(param, _)| function.is_none_or(|f| f.param(param).is_some()))
                .filter_map(|(param, alternatives)| {
                    let declared = function.and_then(|f| f.param(param));
                    let value = encode::right_value(alternatives, declared, language)?;
                    Some((param.clone(), Alternatives(vec![ValueMatcher::Exact(value)])))
                })
                .collect();
            ExpectedCall { tool: function.map_or_else(|| tool_name(name), |f| f.tool.clone()), args, exact: None }
        })
        .collect();
    match calls.len() {
        0 => Vec::new(),
        1 => calls.into_iter().map(ExpectedStep::One).collect(),
        _ => vec![ExpectedStep::Parallel(calls)],
    }
}
