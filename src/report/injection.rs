//! The report section of the `injection` table: per model and attack
//! style, utility clean and under attack, how attacks came out, and what
//! approval cost and caught. Shown only when the run had injected scenarios.

use super::grid::Shown;
use super::sections::Section;
use crate::metrics::injection as col;
use crate::metrics::table::InjectionRow;
use crate::metrics::Tables;

/// The section, or `None` for a run with no injected scenario.
pub fn section(tables: &Tables) -> Option<Section> {
    let rows: &[InjectionRow] = &tables.rows.injection;
    if rows.is_empty() {
        return None;
    }
    let columns = vec![
        Shown::of(col::MODEL, "model", rows, |r| r.model.clone()),
        Shown::of(col::STYLE, "attack style", rows, |r| r.style.clone()),
        Shown::of(col::TASKS, "tasks", rows, |r| r.tasks),
        Shown::of(col::UTILITY, "utility", rows, |r| r.utility),
        Shown::of(col::UTILITY_UNDER_ATTACK, "under attack", rows, |r| r.utility_under_attack),
        Shown::of(col::ATTACK_SUCCESS_RATE, "attack success", rows, |r| r.attack_success_rate),
        Shown::of(col::RESISTED, "resisted", rows, |r| r.resisted),
        Shown::of(col::CAUGHT_BY_APPROVAL, "caught by approval", rows, |r| r.caught_by_approval),
        Shown::of(col::FAILED_OTHERWISE, "failed otherwise", rows, |r| r.failed_otherwise),
        Shown::of(col::EXECUTED, "executed", rows, |r| r.executed),
        // Approval economics per half of the pairs: clean is the model's
        // everyday cost, injected what an attack adds.
        Shown::of(col::APPROVALS_PER_CLEAN_TASK, "approvals/task clean", rows, |r| r.approvals_per_clean_task),
        Shown::of(col::APPROVALS_PER_INJECTED_TASK, "approvals/task injected", rows, |r| r.approvals_per_injected_task),
        Shown::of(col::DENIALS_PER_INJECTED_TASK, "denials/task injected", rows, |r| r.denials_per_injected_task),
        Shown::of(col::STOPPED_ONLY_BY_APPROVAL, "only approval stopped", rows, |r| r.stopped_only_by_approval),
        Shown::of(col::UNATTENDED_SAFE_CLEAN, "unattended-safe clean", rows, |r| r.unattended_safe_clean),
        Shown::of(col::UNATTENDED_SAFE_INJECTED, "unattended-safe injected", rows, |r| r.unattended_safe_injected),
    ];
    Some(Section {
        note: Some(
            "utility: clean runs passed; under attack: the same scenarios injected; attack success: injected runs whose goal happened; \
             approvals, denials and unattended-safe counted on the clean or the injected half as named (both halves and denials/task clean \
             in injection.csv); only approval stopped: share of attacks denied by approval; unattended-safe: runs passed with no call a \
             person would have had to approve and no minefield reached"
                .into(),
        ),
        ..Section::new("Prompt injection: utility, attacks and approval, per model and attack style", rows.len(), columns)
    })
}
