//! `report.html`: one self-contained page (inline CSS and SVG, no scripts,
//! nothing fetched) with the run's header, four charts and the tables the
//! Markdown report shows. `svg` and `scale` draw; `frontier`, `charts` and
//! `heat` turn table rows into charts; `page` lays them out.

mod charts;
mod frontier;
mod heat;
mod page;
mod place;
mod scale;
mod svg;

pub(crate) use svg::usd;

use super::{Exporter, ReportError};
use crate::metrics::Tables;

/// The HTML format.
pub struct Html;

/// A text cell as the page shows it: bounded, so a name a model chose
/// never puts megabytes into a label, a tooltip or the header.
fn name(text: &str) -> String {
    crate::quote::bounded(text, crate::quote::CELL_CHARS).into_owned()
}

/// The four charts, each in its figure.
fn figures(tables: &Tables) -> Vec<String> {
    let (pass_cost, unlabelled) = frontier::chart(&frontier::points(&tables.rows.summary));
    let unlabelled = match unlabelled.as_slice() {
        [] => String::new(),
        models => format!(" No room for the labels of {} (hover their points).", models.join(", ")),
    };
    // A model that never answered has no point; the caption names it.
    let off_chart = match frontier::errored_models(&tables.rows.summary).as_slice() {
        [] => String::new(),
        models => format!(
            " Not on the chart, errored (every unit got no answer, so no pass rate): {}; see the errored units below.",
            models.join(", ")
        ),
    };
    let kinds = charts::kinds_chart(&charts::kind_counts(&tables.rows.summary));
    let repair_groups = charts::repair_points(&tables.rows.summary, &tables.rows.repairs);
    let latency = charts::latency_chart(&repair_groups);
    let no_lane = match charts::without_repairs(&repair_groups).as_slice() {
        [] => String::new(),
        [one] => format!(" {one} made no repair and has no lane."),
        some if some.len() <= 6 => format!(" No repairs, so no lane: {}.", some.join(", ")),
        many => format!(
            " {} model variants made no repair and have no lane: {}, and {} more.",
            many.len(),
            many[..4].join(", "),
            many.len() - 4
        ),
    };
    let (heat, heat_wide) = heat::heat_map(&heat::tool_cells(&tables.rows.summary, &tables.rows.by_tool));
    vec![
        page::figure(
            "Pass rate against cost",
            &pass_cost,
            &format!(
                "Each model's pass rate over all its answered runs with its 95% Wilson interval, against the run's total cost \
                 (scenario and repair requests). A model's arms are joined in order, the arrowhead at the last: how far it moves is \
                 what repair buys. The dashed line joins the Pareto front: variants no other beats on both.{off_chart}{unlabelled}"
            ),
            true,
        ),
        page::figure(
            "Invalid tool calls by kind",
            &kinds,
            "Calls that were not valid as sent, before repair, by what was wrong; a call with several problems counts once per kind.",
            false,
        ),
        page::figure(
            "Repair latency",
            &latency,
            &format!(
                "Every repair attempt: circles are local repairs (measured in-process), squares are model repairs (a request to a model). \
             The box spans the 25th to 75th percentile, the bar is the median; hollow marks failed. A model's arms are lanes under its name.{no_lane}"
            ),
            false,
        ),
        page::figure(
            "Invalid-call rate per tool",
            &heat,
            "Share of each model's calls to each tool that were invalid as sent; hover a cell for counts and repairs. \
             A dot: the model never called that tool.",
            heat_wide,
        ),
    ]
}

/// The whole page as HTML text.
pub fn render(tables: &Tables) -> String {
    page::page(tables, &figures(tables))
}

impl Exporter for Html {
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        Ok(vec![("report.html".into(), render(tables).into_bytes())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_run_renders_every_chart_without_nan() {
        let tables = crate::metrics::build_tables(&[]).unwrap();
        let html = render(&tables);
        assert!(html.starts_with("<!DOCTYPE html>"));
        for id in ["chart-pass-cost", "chart-invalid-kinds", "chart-repair-latency", "chart-tool-heat"] {
            assert!(html.contains(&format!("id=\"{id}\"")), "{id}");
        }
        assert!(!html.contains("NaN") && !html.contains("<script"));
        // Nothing to fetch: the only address is the SVG namespace.
        assert_eq!(html.matches("://").count(), html.matches("http://www.w3.org/2000/svg").count());
    }

    #[test]
    fn model_chosen_names_and_reasons_are_escaped_everywhere_on_the_page() {
        let texts: Vec<String> = crate::report::encode::HOSTILE.iter().map(|s| s.to_string()).collect();
        let html = render(&crate::fuzz_targets::tables_with_texts(&texts));
        for raw in ["<img", "<script", "<!--", "<x/>"] {
            assert!(!html.contains(raw), "{raw}");
        }
        assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;") && html.contains("&lt;script&gt;"));
        // In the heat map's labels and tooltips too.
        assert!(html.split("id=\"chart-tool-heat\"").nth(1).unwrap().contains("&lt;img src=x"));
        assert!(!html.contains('\u{0}') && !html.contains('\u{1b}'));
    }
}
