//! `report.md`: the report's sections as Markdown, fit for a pull-request
//! comment, then the failed scenarios with their reasons. Every cell is
//! Markdown-escaped: model text cannot add HTML, links, images, mentions or
//! break the table.

use super::anchor::transcript_link;
use super::encode;
use super::sections::{first_failures, sections, Section, FAILURES_LISTED};
use super::text::text_table;
use super::{Exporter, ReportError};
use crate::metrics::Tables;

/// The Markdown format.
pub struct Markdown;

/// A section as a Markdown table; with `links`, one per row, a last column
/// links each row there.
fn markdown_section(section: &Section, links: &[String]) -> String {
    let t = text_table(section);
    let mut labels: Vec<&str> = section.columns.iter().map(|c| c.label.as_str()).collect();
    if !links.is_empty() {
        labels.push("transcript");
    }
    if section.height == 0 {
        return format!("## {}\n\n{}\n", section.title, section.note.as_deref().unwrap_or("None."));
    }
    let mut out = format!("## {}\n\n| {} |\n", section.title, labels.join(" | "));
    let mut rule: Vec<&str> = t.numeric.iter().map(|n| if *n { "---:" } else { "---" }).collect();
    if !links.is_empty() {
        rule.push("---");
    }
    out.push_str(&format!("| {} |\n", rule.join(" | ")));
    for (i, row) in t.rows.iter().enumerate() {
        let mut cells: Vec<String> = row.iter().map(|c| encode::markdown(c)).collect();
        // A link target is an anchor of URL-unreserved characters only
        // (`report::anchor`): nothing in it can act as Markdown.
        if let Some(link) = links.get(i) {
            cells.push(format!("[why]({link})"));
        }
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    if let Some(note) = &section.note {
        out.push_str(&format!("\n{note}\n"));
    }
    out
}

/// The whole report as Markdown text.
pub fn render(tables: &Tables) -> String {
    // Tall tables (many models, arms, tools) are cut to their first rows,
    // fewer until the sections leave room: the CSV files have every row.
    let all = sections(tables);
    let headline = headline_paragraph(tables);
    let mut cap = SECTION_ROWS;
    let mut parts = loop {
        let mut parts = vec!["# calltape report\n".to_string(), headline.clone()];
        parts.extend(fitted_note(tables));
        for section in &all {
            parts.push(markdown_section(&first_rows(section, cap), &[]));
        }
        let used: usize = parts.iter().map(|p| p.chars().count() + 1).sum();
        if used <= MAX_CHARS * 3 / 4 || cap <= 5 {
            break parts;
        }
        cap /= 2;
    };
    // The failed runs fill what is left of the budget, fewer if their
    // reasons are long: a pull-request comment takes the whole file.
    let used: usize = parts.iter().map(|p| p.chars().count() + 1).sum();
    let fits = |listed: usize| -> Option<String> {
        let failed = first_failures(tables, listed);
        let links: Vec<String> = failed.units.iter().map(transcript_link).collect();
        let text = markdown_section(&failed, &links);
        (used + text.chars().count() <= MAX_CHARS).then_some(text)
    };
    let (mut fitting, mut over) = (0, FAILURES_LISTED + 1);
    let mut best = fits(0).unwrap_or_default();
    if let Some(all) = fits(FAILURES_LISTED) {
        best = all;
    } else {
        // The most rows that fit: fitting fits, over does not.
        while over - fitting > 1 {
            let mid = (fitting + over) / 2;
            match fits(mid) {
                Some(text) => (fitting, best) = (mid, text),
                None => over = mid,
            }
        }
    }
    parts.push(best);
    parts.join("\n")
}

/// Which models are fitted simulators, and of what: a model of a model is
/// not the model.
fn fitted_note(tables: &Tables) -> Option<String> {
    let fitted = &tables.run.fitted;
    (!fitted.is_empty()).then(|| {
        let each: Vec<String> = fitted.iter().map(|(m, from)| format!("{} ({})", encode::markdown(m), encode::markdown(from))).collect();
        format!("Fitted simulators (models of real models, not the models): {}.\n", each.join("; "))
    })
}

/// The headline (`report::headline`) as one Markdown paragraph, each
/// sentence escaped: it quotes model names.
fn headline_paragraph(tables: &Tables) -> String {
    let sentences = super::headline::headline(tables);
    format!("{}\n", sentences.iter().map(|s| encode::markdown(s)).collect::<Vec<_>>().join(" "))
}

/// Rows of a section in `report.md` at most (fewer when the report would
/// not fit otherwise).
pub const SECTION_ROWS: usize = 40;

/// `section` cut to its first `cap` rows, with a note saying so.
fn first_rows(section: &Section, cap: usize) -> Section {
    let mut cut = section.head(cap);
    let height = section.height;
    if height > cap {
        let said = section.note.as_deref().map(|n| format!("{n} ")).unwrap_or_default();
        cut.note = Some(format!("{said}(the first {cap} of {height} rows; the CSV files have every row)"));
    }
    cut
}

/// The most characters `report.md` has: GitHub takes 65,536 in a
/// pull-request comment, and the file is posted whole.
pub const MAX_CHARS: usize = 60_000;

impl Exporter for Markdown {
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        Ok(vec![("report.md".into(), render(tables).into_bytes())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{Event, EventKind, ScenarioFinishedEvent, UnitKey};
    use crate::report::sections::FAILURES_LISTED;

    #[test]
    fn lists_the_first_failures_and_says_where_the_rest_are() {
        let failed = |i: usize| Event {
            ts_ms: 0,
            kind: EventKind::ScenarioFinished(ScenarioFinishedEvent {
                outcome: None,
                unit: UnitKey { model: "m".into(), suite: "s".into(), scenario: format!("sc-{i}"), trial: 0 },
                passed: false,
                reason: "wrong".into(),
                steps: 1,
                error: false,
                expectation: None,
                error_kind: None,
            }),
        };
        let events: Vec<Event> = (0..FAILURES_LISTED + 50).map(failed).collect();
        let text = render(&crate::metrics::build_tables(&events).unwrap());
        assert!(text.contains(&format!("## Failed scenarios ({})", FAILURES_LISTED + 50)), "{text}");
        assert_eq!(text.lines().filter(|l| l.contains("| wrong |")).count(), FAILURES_LISTED);
        assert!(text.contains(&format!("The first {FAILURES_LISTED} of {}", FAILURES_LISTED + 50)));
    }

    #[test]
    fn long_reasons_list_fewer_failures_and_keep_the_file_under_a_comment() {
        let failed = |i: usize| Event {
            ts_ms: 0,
            kind: EventKind::ScenarioFinished(ScenarioFinishedEvent {
                outcome: None,
                unit: UnitKey { model: "m".into(), suite: "s".into(), scenario: format!("sc-{i}"), trial: 0 },
                passed: false,
                reason: format!("wrong: {}", "é".repeat(900)),
                steps: 1,
                error: false,
                expectation: None,
                error_kind: None,
            }),
        };
        let events: Vec<Event> = (0..FAILURES_LISTED).map(failed).collect();
        let text = render(&crate::metrics::build_tables(&events).unwrap());
        let listed = text.lines().filter(|l| l.contains("| wrong: ")).count();
        assert!(text.chars().count() <= MAX_CHARS, "{} characters", text.chars().count());
        assert!(listed > 10 && listed < FAILURES_LISTED, "{listed} listed");
        assert!(text.contains(&format!("The first {listed} of {FAILURES_LISTED}; every one is in scenarios.csv")), "{text}");
    }

    #[test]
    fn model_text_cannot_add_markup_links_mentions_or_break_a_row() {
        let texts: Vec<String> = crate::report::encode::HOSTILE.iter().map(|s| s.to_string()).collect();
        let md = render(&crate::fuzz_targets::tables_with_texts(&texts));
        assert!(!md.contains('<') && !md.contains("://"), "{md}");
        assert!(md.contains("| &lt;img src=x onerror=alert(1)&gt; |") && md.contains("![x\\](http:&#8203;//evil.example/p.png)"), "{md}");
        assert!(md.contains("@&#8203;channel @&#8203;here #&#8203;123"), "{md}");
        for table in md.split("\n\n").filter(|t| t.starts_with('|')) {
            let cells = |line: &str| line.replace("\\\\", "").replace("\\|", "").matches('|').count();
            let header = cells(table.lines().next().unwrap());
            assert!(table.lines().all(|l| cells(l) == header), "{table}");
        }
    }
}
