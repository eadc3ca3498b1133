//! The page around the charts: the run header, the tables the Markdown
//! report shows, and the stylesheet, all inline so the file opens offline.
//! A Content-Security-Policy forbids every fetch and script, so anything
//! external that slipped in would be blocked and reported by the browser.

use std::fmt::Write;

use super::svg::escape;
use crate::metrics::schema;
use crate::metrics::{RunInfo, Tables};
use crate::quote::quoted;
use crate::report::anchor::transcript_link;
use crate::report::sections::{failures, sections, Section};
use crate::report::text::text_table;

const STYLE: &str = "\
:root { color-scheme: light; }
body { margin: 0 auto; max-width: 1240px; padding: 20px 24px 40px; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, \
Helvetica, Arial, sans-serif; color: #222; background: #fff; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 16px; margin: 28px 0 8px; }
figure h2 { margin: 0 0 6px; font-size: 15px; }
p.headline { font-size: 16px; line-height: 1.5; margin: 6px 0 12px; max-width: 72em; }
dl.run { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 8px 0 0; }
dl.run dt { color: #666; }
dl.run dd { margin: 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 18px; margin-top: 20px; }
figure { margin: 0; padding: 12px 14px; border: 1px solid #e3e3e3; border-radius: 6px; overflow-x: auto; }
figure.wide { grid-column: 1 / -1; }
figcaption { color: #555; font-size: 12.5px; margin-top: 4px; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg text { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; font-size: 12px; fill: #222; }
svg text.tick { font-size: 11px; fill: #555; }
svg text.axis-title { font-size: 12px; fill: #444; }
svg text.legend, svg text.bar-note { font-size: 11.5px; fill: #444; }
svg text.point-label { font-size: 11.5px; fill: #555; }
svg text.point-label.front { fill: #0b3d6b; font-weight: 600; }
svg text.empty { font-size: 14px; fill: #666; }
svg text.col-label { font-size: 11.5px; }
svg text.cell { font-size: 11px; font-variant-numeric: tabular-nums; }
svg text.muted { fill: #aaa; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; white-space: nowrap; }
th { text-align: left; border-bottom: 2px solid #ccc; font-weight: 600; }
td.num, th.num { text-align: right; }
tr.front td:first-child { font-weight: 600; }
p.note { color: #555; font-size: 12.5px; margin: 4px 0 0; }
details { margin-top: 24px; }
summary { cursor: pointer; font-weight: 600; font-size: 16px; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
";

/// The `<head>`: charset, the policy that keeps the page offline, title and style.
fn head(run: &RunInfo) -> String {
    let title = if run.run_id.is_empty() { "calltape report".to_string() } else { format!("calltape report — {}", quoted(&run.run_id)) };
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n",
        escape(&title)
    )
}

/// What the run was: id, models, suites, trials, seed.
fn header(tables: &Tables) -> String {
    let run = &tables.run;
    let models = model_count(tables);
    let runs = tables.rows.scenarios.len();
    let mut rows = vec![
        ("run id", if run.run_id.is_empty() { "—".into() } else { quoted(&run.run_id).into_owned() }),
        ("models", models),
        ("suites", if run.suites.is_empty() { "—".into() } else { run.suites.iter().map(|s| quoted(s)).collect::<Vec<_>>().join(", ") }),
        ("trials", run.trials.to_string()),
        ("seed", run.seed.to_string()),
        ("runs", format!("{runs} (model × scenario × trial)")),
    ];
    if !run.config.is_empty() {
        rows.push(("config", quoted(&run.config).into_owned()));
    }
    if let Some(ms) = run.elapsed_ms {
        rows.push(("wall time", wall_time(ms)));
    }
    let mut out = String::from("<header>\n<h1>calltape report</h1>\n");
    // The answer first; the run's particulars under it.
    let headline = crate::report::headline::headline(tables);
    let _ = writeln!(out, "<p class=\"headline\" id=\"headline\">{}</p>", escape(&headline.join(" ")));
    out.push_str("<dl class=\"run\">\n");
    for (term, value) in rows {
        let _ = writeln!(out, "<dt>{term}</dt><dd>{}</dd>", escape(&value));
    }
    out.push_str("</dl>\n</header>\n");
    out
}

/// How many models ran, in a few words: the names are in the tables, and
/// 29 of them filled the header. With arms, the base models and the arms.
fn model_count(tables: &Tables) -> String {
    let summary = &tables.rows.summary;
    let bases: Vec<String> = summary.iter().map(|r| super::name(&r.base_model)).collect();
    let arms: Vec<String> = summary.iter().map(|r| super::name(&r.arm)).collect();
    let mut distinct_bases = bases.clone();
    distinct_bases.sort();
    distinct_bases.dedup();
    // Arms in their first-seen order (the summary lists them in run order).
    let mut distinct_arms: Vec<&String> = Vec::new();
    for arm in arms.iter().filter(|a| !a.is_empty()) {
        if !distinct_arms.contains(&arm) {
            distinct_arms.push(arm);
        }
    }
    if distinct_arms.is_empty() {
        format!("{}", bases.len())
    } else {
        let arms: Vec<&str> = distinct_arms.iter().map(|a| a.as_str()).collect();
        format!("{} variants: {} models under the arms {}", bases.len(), distinct_bases.len(), arms.join(", "))
    }
}

/// A run's wall time in the unit that reads best: a replayed run takes
/// milliseconds (once printed as "0.0 s"), a live one minutes.
fn wall_time(ms: f64) -> String {
    let ms = super::svg::finite(ms, 0.0).max(0.0);
    if ms < 1000.0 {
        format!("{} ms", (ms.round() as u64).max(u64::from(ms > 0.0)))
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

/// One chart in its frame, with a title and a line on how to read it.
pub fn figure(title: &str, svg: &str, caption: &str, wide: bool) -> String {
    let class = if wide { " class=\"wide\"" } else { "" };
    format!("<figure{class}>\n<h2>{}</h2>\n{svg}<figcaption>{}</figcaption>\n</figure>\n", escape(title), escape(caption))
}

/// A report section as an HTML table (the same cells the Markdown shows);
/// with `links`, one per row, a last column links each row there.
fn table(section: &Section, heading: bool, links: &[String]) -> String {
    let mut out = String::new();
    if heading {
        let _ = writeln!(out, "<h2>{}</h2>", escape(&section.title));
    }
    if section.height == 0 {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(section.note.as_deref().unwrap_or("None.")));
        return out;
    }
    let t = text_table(section);
    let align = |numeric: bool| if numeric { " class=\"num\"" } else { "" };
    out.push_str("<div class=\"table-wrap\"><table>\n<thead><tr>");
    for (shown, numeric) in section.columns.iter().zip(&t.numeric) {
        let _ = write!(out, "<th{}>{}</th>", align(*numeric), escape(&shown.label));
    }
    if !links.is_empty() {
        out.push_str("<th>transcript</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for (i, row) in t.rows.iter().enumerate() {
        // The Markdown marks front models with " *"; here the row is bold too.
        let front = row.first().is_some_and(|c| c.ends_with(" *"));
        out.push_str(if front { "<tr class=\"front\">" } else { "<tr>" });
        for (cell, numeric) in row.iter().zip(&t.numeric) {
            let _ = write!(out, "<td{}>{}</td>", align(*numeric), escape(cell));
        }
        if let Some(link) = links.get(i) {
            let _ = write!(out, "<td><a href=\"{}\">why</a></td>", escape(link));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table></div>\n");
    if let Some(note) = &section.note {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(note));
    }
    out
}

/// Rows a table on the page shows at most; longer ones (a row per model ×
/// tool ran to 1,225) show their first `TABLE_FIRST_ROWS` and link the CSV.
pub const TABLE_ROWS: usize = 40;
pub const TABLE_FIRST_ROWS: usize = 25;

/// The CSV file beside the page that has every row of `section`, by the
/// key columns it shows.
fn csv_of(section: &Section) -> &'static str {
    let has = |c: &str| section.shows(c);
    if has(schema::SHARED) {
        "pairs.csv"
    } else if has(schema::TOOL) {
        "by_tool.csv"
    } else if has(schema::SCENARIO) {
        "by_scenario.csv"
    } else if has(schema::SUITE) {
        "suites.csv"
    } else {
        "summary.csv"
    }
}

/// A section as a table, cut to its first rows with a link to its CSV
/// when it is long.
fn long_table(section: &Section) -> String {
    let height = section.height;
    if height <= TABLE_ROWS {
        return table(section, true, &[]);
    }
    let cut = section.head(TABLE_FIRST_ROWS);
    let csv = csv_of(section);
    let mut out = table(&cut, true, &[]);
    let _ =
        writeln!(out, "<p class=\"note\">The first {TABLE_FIRST_ROWS} of {height} rows; every row is in <a href=\"{csv}\">{csv}</a>.</p>");
    out
}

/// The whole page around already drawn chart figures.
pub fn page(tables: &Tables, figures: &[String]) -> String {
    let mut out = head(&tables.run);
    out.push_str("<body>\n");
    out.push_str(&header(tables));
    out.push_str("<main>\n<section class=\"charts\">\n");
    for f in figures {
        out.push_str(f);
    }
    out.push_str("</section>\n<section class=\"tables\">\n");
    for section in sections(tables) {
        out.push_str(&long_table(&section));
    }
    out.push_str("</section>\n");
    let failed = failures(tables);
    let _ = writeln!(out, "<details>\n<summary>{}</summary>", escape(&failed.title));
    // Each listed failure links to its transcript in transcripts.html.
    let links: Vec<String> = failed.units.iter().map(transcript_link).collect();
    out.push_str(&table(&failed, false, &links));
    out.push_str("</details>\n</main>\n");
    out.push_str(
        "<footer>Written by calltape from this run's events.jsonl; every table is also in the CSV and JSON files beside this page.</footer>\n",
    );
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wall_time_reads_in_its_unit_and_is_never_zero_for_a_run_that_took_time() {
        assert_eq!(wall_time(0.4), "1 ms");
        assert_eq!(wall_time(38.2), "38 ms");
        assert_eq!(wall_time(3895.2), "3.9 s");
        assert_eq!(wall_time(754_000.0), "12 min 34 s");
        assert_eq!(wall_time(f64::NAN), "0 ms");
    }
}
