//! Where a failed unit's transcript is: one id per unit (model, suite,
//! scenario, trial), shared by the reports that link to it (`report.html`,
//! `report.md`) and the page that holds it (`transcripts.html`, written by
//! `transcript::html`), and the list of failed units the reports link.

use super::sections::failures;
/// How many failed units the reports list, and so link, at most.
pub use super::sections::FAILURES_LISTED;
use crate::events::UnitKey;
use crate::metrics::Tables;

/// The page that holds the failed units' transcripts, beside `report.html`.
pub const TRANSCRIPTS_FILE: &str = "transcripts.html";

/// A unit's anchor id: `t-` and the four parts joined by `.`, each part
/// keeping ASCII letters, digits, `-` and `_` and writing every other byte
/// as `~XX` (so `.` never occurs inside a part and no two units share an id).
/// The alphabet is URL-unreserved, so the same id is an HTML id, a URL
/// fragment and a Markdown link target without any further escaping.
pub fn unit_anchor(unit: &UnitKey) -> String {
    let mut id = String::from("t-");
    for (i, part) in [unit.model.as_str(), unit.suite.as_str(), unit.scenario.as_str()].into_iter().enumerate() {
        if i > 0 {
            id.push('.');
        }
        for b in part.bytes() {
            if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
                id.push(b as char);
            } else {
                id.push_str(&format!("~{b:02X}"));
            }
        }
    }
    id.push_str(&format!(".{}", unit.trial));
    id
}

/// The link from a report beside it to a unit's transcript.
pub fn transcript_link(unit: &UnitKey) -> String {
    format!("{TRANSCRIPTS_FILE}#{}", unit_anchor(unit))
}

/// The failed units the reports list and link (the first
/// `FAILURES_LISTED`, in the reports' order), and how many failed in all.
pub fn listed_failures(tables: &Tables) -> (Vec<UnitKey>, usize) {
    let total = tables.rows.scenarios.iter().filter(|r| !r.passed).count();
    (failures(tables).units, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(model: &str, suite: &str, scenario: &str, trial: u32) -> UnitKey {
        UnitKey { model: model.into(), suite: suite.into(), scenario: scenario.into(), trial }
    }

    #[test]
    fn anchors_are_readable_distinct_and_inert_everywhere() {
        assert_eq!(unit_anchor(&unit("sim-cheap-types", "default", "read_file-1", 0)), "t-sim-cheap-types.default.read_file-1.0");
        assert_eq!(unit_anchor(&unit("a.b", "s", "x y", 2)), "t-a~2Eb.s.x~20y.2");
        // Parts that would run together if `.` were kept stay apart.
        assert_ne!(unit_anchor(&unit("a.b", "c", "d", 0)), unit_anchor(&unit("a", "b.c", "d", 0)));
        assert_ne!(unit_anchor(&unit("a", "b", "c~2E", 0)), unit_anchor(&unit("a", "b", "c.", 0)));
        for text in crate::report::encode::HOSTILE {
            let id = unit_anchor(&unit(text, text, text, 1));
            assert!(id.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b)), "{id}");
        }
    }
}
