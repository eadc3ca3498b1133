//! The models whose units errored (never answered), from the tables: how
//! many, how many answered, and the most common reason — what `run` prints
//! after the tables so a model that never answered never reads as 0%.

use std::collections::BTreeMap;

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
pub fn errored_models(tables: &Tables) -> Vec<ModelErrors> {
    // Per model, per kind: how many, and the first reason.
    let mut kinds: BTreeMap<(&str, UnitError), (u64, &str)> = BTreeMap::new();
    let mut first: BTreeMap<&str, &str> = BTreeMap::new();
    for run in tables.rows.scenarios.iter().filter(|r| r.errored) {
        let kind = UnitError::from_name(&run.error_kind).unwrap_or(UnitError::Request);
        kinds.entry((&run.model, kind)).or_insert((0, &run.reason)).0 += 1;
        first.entry(&run.model).or_insert(&run.reason);
    }
    let mut out = Vec::new();
    for row in tables.rows.summary.iter().filter(|r| r.errored > 0) {
        let model = row.model.as_str();
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
            answered: row.scenarios,
            errored: row.errored,
            kind,
            kind_count: count,
            example: example.to_string(),
            first: first.get(model).copied().unwrap_or(example).to_string(),
        });
    }
    out
}
