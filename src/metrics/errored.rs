//! The models whose units errored (never answered), from the tables: how
//! many, how many answered, and the most common reason — what `run` prints
//! after the tables so a model that never answered never reads as 0%.

use std::collections::BTreeMap;

use polars::prelude::PolarsResult;

use super::derived::{at, bools, texts, u64s};
use super::schema as s;
use super::Tables;
use crate::events::UnitError;

/// One model's errored units.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelErrors {
    pub model: String,
    /// Units that reached a verdict.
    pub answered: u64,
    pub errored: u64,
    /// The most common kind, and how many units it ended.
    pub kind: UnitError,
    pub kind_count: u64,
    /// The reason of the first unit of that kind, as scenarios.csv has it.
    pub example: String,
    /// The reason of the model's first errored unit, in table order: what
    /// the reports show where a model that never answered has no rate.
    pub first: String,
}

/// Every model with at least one errored unit, in model order.
pub fn errored_models(tables: &Tables) -> PolarsResult<Vec<ModelErrors>> {
    let summary = &tables.summary;
    let (models, answered, errored) = (texts(summary, s::MODEL)?, u64s(summary, s::SCENARIOS)?, u64s(summary, s::ERRORED)?);
    let runs = &tables.scenarios;
    let (run_model, run_errored, run_kind, run_reason) =
        (texts(runs, s::MODEL)?, bools(runs, s::ERRORED)?, texts(runs, s::ERROR_KIND)?, texts(runs, s::REASON)?);
    // Per model, per kind: how many, and the first reason.
    let mut kinds: BTreeMap<(&str, UnitError), (u64, &str)> = BTreeMap::new();
    let mut first: BTreeMap<&str, &str> = BTreeMap::new();
    for i in (0..runs.height()).filter(|&i| run_errored[i]) {
        let kind = UnitError::from_name(at(run_kind, i)).unwrap_or(UnitError::Request);
        kinds.entry((at(run_model, i), kind)).or_insert((0, at(run_reason, i))).0 += 1;
        first.entry(at(run_model, i)).or_insert(at(run_reason, i));
    }
    let mut out = Vec::new();
    for i in (0..summary.height()).filter(|&i| errored[i] > 0) {
        let model = at(models, i);
        // The most common kind; on a tie, the first in `UnitError::ALL`.
        let Some((kind, (count, example))) = UnitError::ALL.into_iter().filter_map(|k| kinds.get(&(model, k)).map(|v| (k, *v))).fold(
            None,
            |best: Option<(UnitError, (u64, &str))>, x| match best {
                Some(b) if b.1 .0 >= x.1 .0 => Some(b),
                _ => Some(x),
            },
        ) else {
            continue;
        };
        out.push(ModelErrors {
            model: model.to_string(),
            answered: answered[i],
            errored: errored[i],
            kind,
            kind_count: count,
            example: example.to_string(),
            first: first.get(model).copied().unwrap_or(example).to_string(),
        });
    }
    Ok(out)
}
