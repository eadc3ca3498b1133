//! The HTML report's charts read right, checked in the page's own text (no
//! browser needed): a log cost axis with a `$0` place when costs differ by
//! 10× or more, tick labels that do not overlap, a heat map of the worst
//! tools that fit the page that says how many it left out, and the run's
//! real wall time.

mod common;

/// Estimated width of a tick label at the ticks' 11px sans-serif: 0.6 em
/// a character, on the generous side (digits, `$`, `µ` and a space are narrower).
fn label_width(text: &str) -> f64 {
    text.chars().count() as f64 * 11.0 * 0.6
}

/// The `<svg>` of the chart with `id`.
fn chart<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("no chart {id}"));
    &html[start..start + html[start..].find("</svg>").unwrap()]
}

/// The (x, y, text) of every `<text …>` element with `class`.
fn texts(svg: &str, class: &str) -> Vec<(f64, f64, String)> {
    let mut out = Vec::new();
    for piece in svg.split("<text ").skip(1) {
        let (attrs, rest) = piece.split_once('>').unwrap();
        let attrs = format!(" {attrs}");
        if !attrs.contains(&format!("class=\"{class}\"")) {
            continue;
        }
        let attr = |name: &str| -> f64 {
            attrs.split(&format!("{name}=\"")).nth(1).and_then(|v| v.split('"').next()).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
        };
        out.push((attr(" x"), attr(" y"), rest.split("</text>").next().unwrap().to_string()));
    }
    out
}

#[test]
fn the_default_run_s_charts_are_readable() {
    // The bundled default, run once for every test binary (tests/common/default_run.rs).
    let latest = common::default_run::default_run().latest();
    let html = std::fs::read_to_string(latest.join("report.html")).unwrap();
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'") && !html.contains("<script"));

    // Costs from $0 (local models) through ~$0.3 (cheap) to ~$6.5 (strong, with the
    // multi-turn suite's long requests): a log axis, the free models at their own $0.
    let cost = chart(&html, "chart-pass-cost");
    assert!(cost.contains("total cost, USD (log scale)"), "{cost}");
    let ticks: Vec<String> = texts(cost, "tick").into_iter().map(|t| t.2).collect();
    for tick in ["$0", "$0.5", "$1", "$10"] {
        assert!(ticks.contains(&tick.to_string()), "{tick} in {ticks:?}");
    }

    // No two tick labels on one axis overlap.
    for id in ["chart-pass-cost", "chart-repair-latency", "chart-invalid-kinds"] {
        let mut ticks: Vec<(f64, f64, String)> =
            texts(chart(&html, id), "tick").into_iter().filter(|t| t.1 > 100.0 && t.0.is_finite()).collect();
        assert!(ticks.len() >= 3, "{id}: {ticks:?}");
        ticks.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.total_cmp(&b.0)));
        for pair in ticks.windows(2).filter(|p| p[0].1 == p[1].1) {
            let (a, b) = (&pair[0], &pair[1]);
            let gap = (b.0 - label_width(&b.2) / 2.0) - (a.0 + label_width(&a.2) / 2.0);
            assert!(gap >= 6.0, "{id}: {:?} and {:?} overlap ({gap:.1} px)", a.2, b.2);
        }
    }

    // The heat map: a row per model, the worst tools that fit 1,120 px across, the rest counted.
    let by_tool = std::fs::read_to_string(latest.join("by_tool.csv")).unwrap();
    let mut tools: Vec<&str> = by_tool.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
    tools.sort();
    tools.dedup();
    assert!(tools.len() > 30, "{}", tools.len());
    let heat = chart(&html, "chart-tool-heat");
    let summary = std::fs::read_to_string(latest.join("summary.csv")).unwrap();
    assert_eq!(texts(heat, "row-label").len(), summary.lines().count() - 1, "a row per model");
    let shown = heat.matches("class=\"col-label\"").count();
    assert!((15..30).contains(&shown), "{shown} tool columns");
    let note =
        format!("The {shown} tools with the most invalid calls of {}; {} more in the per-tool table", tools.len(), tools.len() - shown);
    assert!(heat.contains(&note), "{note}");
    let width: f64 = heat.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    assert!(width <= 1120.0, "{width}");

    // The header's wall time is the run's own, in a unit that shows it.
    let events = std::fs::read_to_string(latest.join("events.jsonl")).unwrap();
    let finished = events.lines().find(|l| l.contains("\"event\":\"run_finished\"")).unwrap();
    let ms: f64 = finished.split("\"elapsed_ms\":").nth(1).unwrap().trim_end_matches('}').parse().unwrap();
    let shown = html.split("<dt>wall time</dt><dd>").nth(1).unwrap().split('<').next().unwrap();
    let expected = if ms < 1000.0 { format!("{} ms", ms.round().max(1.0)) } else { format!("{:.1} s", ms / 1000.0) };
    assert!(ms >= 60_000.0 || shown == expected, "{shown} for {ms} ms");
    assert_ne!(shown, "0.0 s");
}
