//! The model × tool heat map of invalid-call rates, the rate printed in
//! each cell and the counts in its tooltip. Models run down the side,
//! grouped by base model (a model's arms together); the tools with the most
//! invalid calls run across, as many as fit 1,120 px, and a line says where
//! the rest are (the per-tool table and by_tool.csv).

use std::collections::HashMap;

use super::svg::{escape, label_room, num, percent, ramp, text_width, Svg, MUTED};
use crate::metrics::table::{SummaryRow, ToolRow};

/// One model × tool cell of the heat map.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCell {
    pub calls: u64,
    pub invalid: u64,
    pub repaired: u64,
}

/// Models (in summary order) with their base models, tools (sorted) and the cells that exist.
pub type HeatMap = (Vec<(String, String)>, Vec<String>, HashMap<(String, String), ToolCell>);

/// The heat map's data from the summary and per-tool tables.
pub fn tool_cells(summary: &[SummaryRow], by_tool: &[ToolRow]) -> HeatMap {
    let models = summary
        .iter()
        .map(|r| {
            let m = super::name(&r.model);
            if r.base_model.is_empty() {
                (m.clone(), m)
            } else {
                (m, super::name(&r.base_model))
            }
        })
        .collect();
    let mut tools: Vec<String> = by_tool.iter().map(|r| super::name(&r.tool)).collect();
    tools.sort();
    tools.dedup();
    let cells = by_tool
        .iter()
        .map(|r| {
            let cell = ToolCell { calls: r.calls, invalid: r.invalid, repaired: r.repaired_local + r.repaired_model };
            ((super::name(&r.model), super::name(&r.tool)), cell)
        })
        .collect();
    (models, tools, cells)
}

/// The widest the map is drawn: it fits a 1,200 px page without scrolling.
pub const MAX_WIDTH: f64 = 1120.0;
/// Model rows drawn at most (whole base models, the most invalid first).
pub const MAX_MODELS: usize = 36;
const CELL_W: f64 = 40.0;
const CELL_H: f64 = 20.0;
/// Room right of the grid for the colour key.
const KEY_ROOM: f64 = 70.0;

/// The `max` tools with the most invalid calls over every model (then
/// the highest share invalid, then by name), in name order.
fn worst_tools(tools: &[String], cells: &HashMap<(String, String), ToolCell>, max: usize) -> Vec<String> {
    if tools.len() <= max {
        return tools.to_vec();
    }
    let mut totals: HashMap<&str, (u64, u64)> = HashMap::new();
    for ((_, tool), cell) in cells {
        let t = totals.entry(tool.as_str()).or_default();
        t.0 += cell.invalid;
        t.1 += cell.calls;
    }
    let share = |(invalid, calls): (u64, u64)| if calls > 0 { invalid as f64 / calls as f64 } else { 0.0 };
    let mut ranked: Vec<&String> = tools.iter().collect();
    ranked.sort_by(|a, b| {
        let (ta, tb) = (totals.get(a.as_str()).copied().unwrap_or_default(), totals.get(b.as_str()).copied().unwrap_or_default());
        tb.0.cmp(&ta.0).then(share(tb).total_cmp(&share(ta))).then(a.cmp(b))
    });
    let mut kept: Vec<String> = ranked.into_iter().take(max).cloned().collect();
    kept.sort();
    kept
}

/// The models to draw, whole base models at a time: every one when they
/// fit `MAX_MODELS` rows, else the base models with the most invalid calls,
/// kept in run order.
fn models_shown(models: &[(String, String)], cells: &HashMap<(String, String), ToolCell>) -> Vec<(String, String)> {
    if models.len() <= MAX_MODELS {
        return models.to_vec();
    }
    let mut bases: Vec<&str> = Vec::new();
    for (_, b) in models {
        if !bases.contains(&b.as_str()) {
            bases.push(b);
        }
    }
    let invalid = |base: &str| -> u64 {
        models
            .iter()
            .filter(|(_, b)| b == base)
            .flat_map(|(m, _)| cells.iter().filter(move |((cm, _), _)| cm == m))
            .map(|(_, c)| c.invalid)
            .sum()
    };
    let mut ranked = bases.clone();
    ranked.sort_by(|a, b| invalid(b).cmp(&invalid(a)).then(a.cmp(b)));
    let (mut kept, mut rows) = (Vec::new(), 0);
    for base in ranked {
        let n = models.iter().filter(|(_, b)| b == base).count();
        if rows + n <= MAX_MODELS || kept.is_empty() {
            kept.push(base);
            rows += n;
        }
    }
    models.iter().filter(|(_, b)| kept.contains(&b.as_str())).take(MAX_MODELS).cloned().collect()
}

/// Model × tool, coloured by the share of calls that were invalid as sent.
/// Models down the side, grouped by base model; as many of the worst tools
/// across as fit `MAX_WIDTH`, with a line saying how many are left out.
/// The flag says the map wants the page's whole width.
pub fn heat_map(map: &HeatMap) -> (String, bool) {
    let (all_models, all_tools, cells) = map;
    let models = models_shown(all_models, cells);
    let names: Vec<String> = models.iter().map(|(m, _)| m.clone()).collect();
    let left = label_room(&names);
    let fit = (((MAX_WIDTH - left - KEY_ROOM) / CELL_W).floor() as usize).max(1);
    let tools = &worst_tools(all_tools, cells, fit);
    let (tools_out, models_out) = (all_tools.len() - tools.len(), all_models.len() - models.len());
    let notes = usize::from(tools_out > 0) + usize::from(models_out > 0);
    // Tool names run up, one per column: never two labels on top of each other.
    let header = tools.iter().map(|t| text_width(t)).fold(40.0, f64::max).min(150.0) + 14.0;
    let groups = models.windows(2).filter(|w| w[0].1 != w[1].1).count() as f64;
    let width = (left + CELL_W * tools.len() as f64 + KEY_ROOM).max(580.0);
    let height = header + CELL_H * models.len().max(1) as f64 + groups * 4.0 + 16.0 + 18.0 * notes as f64;
    let mut svg = Svg::new("chart-tool-heat", width, height, "Invalid-call rate per model and tool");
    if tools.is_empty() {
        svg.text(width / 2.0, height / 2.0, "middle", "empty", "No tool calls in this run.");
        return (svg.finish(), false);
    }
    let rate = |c: &ToolCell| if c.calls > 0 { c.invalid as f64 / c.calls as f64 } else { 0.0 };
    let most = cells.values().map(rate).fold(0.0, f64::max);
    // The colour scale tops out at the highest rate rounded up to 10%.
    let top = ((most * 10.0).ceil() / 10.0).clamp(0.1, 1.0);
    svg.text(left - 8.0, header - 6.0, "end", "legend", "model \\ tool");
    for (j, t) in tools.iter().enumerate() {
        let (cx, cy) = (left + CELL_W * (j as f64 + 0.5) + 4.0, header - 6.0);
        svg.raw(&format!(
            "<text x=\"{}\" y=\"{}\" transform=\"rotate(-90 {} {})\" class=\"col-label\">{}</text>",
            num(cx),
            num(cy),
            num(cx),
            num(cy),
            escape(t)
        ));
    }
    let mut y = header;
    for (i, (m, base)) in models.iter().enumerate() {
        if i > 0 && models[i - 1].1 != *base {
            // A small gap between base models: a model's arms read as one block.
            y += 4.0;
        }
        svg.text(left - 8.0, y + CELL_H / 2.0 + 4.0, "end", "row-label", m);
        for (j, t) in tools.iter().enumerate() {
            let x = left + CELL_W * j as f64;
            let Some(cell) = cells.get(&(m.clone(), t.clone())) else {
                svg.rect(x + 1.0, y + 1.0, CELL_W - 2.0, CELL_H - 2.0, "#fafafa", Some(&format!("{m} never called {t}")));
                svg.text(x + CELL_W / 2.0, y + CELL_H / 2.0 + 4.0, "middle", "cell muted", "·");
                continue;
            };
            let share = rate(cell);
            let (fill, ink) = ramp(share / top);
            let tip =
                format!("{m} × {t}: {} of {} calls invalid ({}), {} repaired", cell.invalid, cell.calls, percent(share), cell.repaired);
            svg.rect(x + 1.0, y + 1.0, CELL_W - 2.0, CELL_H - 2.0, &fill, Some(&tip));
            svg.raw(&format!(
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"cell\" style=\"fill:{ink}\">{}</text>",
                num(x + CELL_W / 2.0),
                num(y + CELL_H / 2.0 + 4.0),
                percent(share)
            ));
        }
        y += CELL_H;
    }
    let grid_bottom = y;
    // Colour key beside the grid.
    let kx = left + CELL_W * tools.len() as f64 + 14.0;
    let (ky, kh) = (header, (grid_bottom - header).clamp(60.0, 200.0));
    let stops: String = (0..=4)
        .map(|s| {
            let t = f64::from(s) / 4.0;
            format!("<stop offset=\"{}%\" stop-color=\"{}\"/>", num(t * 100.0), ramp(1.0 - t).0)
        })
        .collect();
    svg.raw(&format!("<defs><linearGradient id=\"heat-ramp\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">{stops}</linearGradient></defs>"));
    svg.raw(&format!(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"{}\" fill=\"url(#heat-ramp)\" stroke=\"{MUTED}\" stroke-width=\"0.5\"/>",
        num(kx),
        num(ky),
        num(kh)
    ));
    svg.text(kx + 16.0, ky + 9.0, "start", "tick", &percent(top));
    svg.text(kx + 16.0, ky + kh, "start", "tick", "0%");
    svg.text(kx, ky - 8.0, "start", "legend", "invalid");
    let mut note_y = grid_bottom + 20.0;
    if tools_out > 0 {
        let note = format!(
            "The {} tools with the most invalid calls of {}; {tools_out} more in the per-tool table below (those with invalid calls) and by_tool.csv.",
            tools.len(),
            all_tools.len()
        );
        svg.text(8.0, note_y, "start", "bar-note", &note);
        note_y += 18.0;
    }
    if models_out > 0 {
        let note = format!(
            "{} of {} models, those with the most invalid calls; the other {models_out} are in by_tool.csv.",
            models.len(),
            all_models.len()
        );
        svg.text(8.0, note_y, "start", "bar-note", &note);
    }
    // A little too wide still fits its column, scaled; much wider gets the page's width.
    (svg.finish(), width > 720.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> Vec<SummaryRow> {
        ["strong", "cheap"].map(|m| SummaryRow { model: m.into(), ..SummaryRow::default() }).to_vec()
    }

    /// Per-tool rows of (model, tool, calls, invalid, repaired locally, by a model).
    fn by_tool(rows: &[(&str, &str, u64, u64, u64, u64)]) -> Vec<ToolRow> {
        rows.iter()
            .map(|&(model, tool, calls, invalid, repaired_local, repaired_model)| ToolRow {
                model: model.into(),
                tool: tool.into(),
                calls,
                invalid,
                repaired_local,
                repaired_model,
                ..ToolRow::default()
            })
            .collect()
    }

    #[test]
    fn heat_map_prints_each_rate_and_marks_missing_cells() {
        let by_tool = by_tool(&[("strong", "read_file", 4, 0, 0, 0), ("cheap", "Bash", 10, 5, 4, 1), ("cheap", "read_file", 5, 1, 1, 0)]);
        let map = tool_cells(&summary(), &by_tool);
        assert_eq!(map.1, ["Bash", "read_file"]);
        let (svg, wide) = heat_map(&map);
        assert!(!wide);
        assert!(svg.contains("<title>cheap × Bash: 5 of 10 calls invalid (50%), 5 repaired</title>"), "{svg}");
        assert!(svg.contains("<title>strong never called Bash</title>"));
        assert!(svg.contains(">20%</text>") && svg.contains(">0%</text>"));
        // The darkest blue is the highest rate, with white ink.
        assert!(svg.contains("fill=\"#08306b\"><title>cheap × Bash") && svg.contains("style=\"fill:#fff\">50%</text>"));
        // Models run down the side, tool names up each column.
        assert!(svg.contains(">model \\ tool</text>") && svg.contains("rotate(-90"), "{svg}");
        let (empty, _) = heat_map(&tool_cells(&summary(), &[]));
        assert!(empty.contains("No tool calls in this run."));
    }

    #[test]
    fn only_the_worst_tools_are_drawn_and_the_rest_are_counted() {
        // 45 tools: tool_i has i invalid calls of 50.
        let tools: Vec<String> = (0..45).map(|i| format!("tool_{i:02}")).collect();
        let n = tools.len();
        let rows: Vec<(&str, &str, u64, u64, u64, u64)> =
            tools.iter().zip(0..n as u64).map(|(t, i)| ("cheap", t.as_str(), 50, i, 0, 0)).collect();
        let by_tool = by_tool(&rows);
        let (svg, _) = heat_map(&tool_cells(&summary(), &by_tool));
        assert!(svg.contains(">tool_44</text>") && svg.contains(">tool_21</text>"), "the 24 worst that fit: 21..=44");
        assert!(!svg.contains(">tool_20</text>") && !svg.contains(">tool_00</text>"));
        assert!(svg.contains("The 24 tools with the most invalid calls of 45; 21 more in the per-tool table"), "{svg}");
        let width: f64 = svg.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(width <= MAX_WIDTH, "{width}");
    }

    #[test]
    fn many_models_keep_whole_base_models_with_the_most_invalid_calls() {
        let models: Vec<(String, String)> =
            (0..20).flat_map(|b| ["off", "full"].map(|arm| (format!("m{b:02}@{arm}"), format!("m{b:02}")))).collect();
        let cells = models
            .iter()
            .enumerate()
            .map(|(i, (m, _))| ((m.clone(), "t".to_string()), ToolCell { calls: 100, invalid: i as u64, repaired: 0 }))
            .collect();
        let (svg, wide) = heat_map(&(models, vec!["t".to_string()], cells));
        assert!(!wide);
        assert!(svg.contains(">m19@off</text>") && svg.contains(">m19@full</text>") && svg.contains(">m02@off</text>"));
        assert!(!svg.contains(">m01@full</text>"), "the 18 base models with the most invalid calls");
        assert!(svg.contains("36 of 40 models, those with the most invalid calls; the other 4 are in by_tool.csv."), "{svg}");
    }
}
