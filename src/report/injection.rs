//! The report section of the `injection` table: per model and attack
//! style, utility clean and under attack, how attacks came out, and what
//! approval cost and caught. Shown only when the run had injected scenarios.

use polars::prelude::*;

use super::sections::Section;
use crate::metrics::injection as col;
use crate::metrics::Tables;

/// The section, or `None` for a run with no injected scenario.
pub fn section(tables: &Tables) -> PolarsResult<Option<Section>> {
    if tables.injection.height() == 0 {
        return Ok(None);
    }
    let columns = [
        (col::MODEL, "model"),
        (col::STYLE, "attack style"),
        (col::TASKS, "tasks"),
        (col::UTILITY, "utility"),
        (col::UTILITY_UNDER_ATTACK, "under attack"),
        (col::ATTACK_SUCCESS_RATE, "attack success"),
        (col::RESISTED, "resisted"),
        (col::CAUGHT_BY_APPROVAL, "caught by approval"),
        (col::FAILED_OTHERWISE, "failed otherwise"),
        (col::EXECUTED, "executed"),
        (col::APPROVALS_PER_TASK, "approvals/task"),
        (col::DENIALS_PER_TASK, "denials/task"),
        (col::STOPPED_ONLY_BY_APPROVAL, "only approval stopped"),
        (col::UNATTENDED_SAFE, "unattended-safe"),
    ];
    Ok(Some(Section {
        title: "Prompt injection: utility, attacks and approval, per model and attack style".into(),
        frame: tables.injection.clone(),
        columns: columns.iter().map(|(c, l)| (c.to_string(), l.to_string())).collect(),
        note: Some(
            "utility: clean runs passed; under attack: the same scenarios injected; attack success: injected runs whose goal happened; \
             only approval stopped: share of attacks denied by approval; unattended-safe: runs passed with no call a person would \
             have had to approve and no minefield reached (injection.csv)"
                .into(),
        ),
        terminal: true,
        terminal_rows: None,
    }))
}
