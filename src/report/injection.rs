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
        // Approval economics per half of the pairs: clean is the model's
        // everyday cost, injected what an attack adds.
        (col::APPROVALS_PER_CLEAN_TASK, "approvals/task clean"),
        (col::APPROVALS_PER_INJECTED_TASK, "approvals/task injected"),
        (col::DENIALS_PER_INJECTED_TASK, "denials/task injected"),
        (col::STOPPED_ONLY_BY_APPROVAL, "only approval stopped"),
        (col::UNATTENDED_SAFE_CLEAN, "unattended-safe clean"),
        (col::UNATTENDED_SAFE_INJECTED, "unattended-safe injected"),
    ];
    Ok(Some(Section {
        title: "Prompt injection: utility, attacks and approval, per model and attack style".into(),
        frame: tables.injection.clone(),
        columns: columns.iter().map(|(c, l)| (c.to_string(), l.to_string())).collect(),
        note: Some(
            "utility: clean runs passed; under attack: the same scenarios injected; attack success: injected runs whose goal happened; \
             approvals, denials and unattended-safe counted on the clean or the injected half as named (both halves and denials/task clean \
             in injection.csv); only approval stopped: share of attacks denied by approval; unattended-safe: runs passed with no call a \
             person would have had to approve and no minefield reached"
                .into(),
        ),
        terminal: true,
        terminal_rows: None,
    }))
}
