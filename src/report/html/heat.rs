//! The model × tool heat map of invalid-call rates, the rate printed in
//! each cell and the counts in its tooltip.

use std::collections::HashMap;

use polars::prelude::*;

use super::svg::{escape, label_room, num, percent, ramp, text_width, Svg, MUTED};
use crate::metrics::columns::u64s;
use crate::metrics::schema;

/// One model × tool cell of the heat map.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCell {
    pub calls: u64,
    pub invalid: u64,
    pub repaired: u64,
}

/// Models (in summary order), tools (sorted) and the cells that exist.
pub type HeatMap = (Vec<String>, Vec<String>, HashMap<(String, String), ToolCell>);

/// The heat map's data from the summary and per-tool tables.
pub fn tool_cells(summary: &DataFrame, by_tool: &DataFrame) -> PolarsResult<HeatMap> {
    let models = super::names(summary, schema::MODEL)?;
    let (model, tool, calls, invalid) = (
        super::names(by_tool, schema::MODEL)?,
        super::names(by_tool, schema::TOOL)?,
        u64s(by_tool, schema::CALLS)?,
        u64s(by_tool, schema::INVALID)?,
    );
    let (local, remote) = (u64s(by_tool, schema::REPAIRED_LOCAL)?, u64s(by_tool, schema::REPAIRED_MODEL)?);
    let mut tools = tool.clone();
    tools.sort();
    tools.dedup();
    let cells = (0..model.len())
        .map(|i| ((model[i].clone(), tool[i].clone()), ToolCell { calls: calls[i], invalid: invalid[i], repaired: local[i] + remote[i] }))
        .collect();
    Ok((models, tools, cells))
}

/// Tools drawn at most: a suite of hundreds of tools made a map thousands of
/// pixels tall. The rest are in the per-tool table and by_tool.csv.
pub const MAX_TOOLS: usize = 30;

/// The `MAX_TOOLS` tools with the most invalid calls over every model (then
/// the highest share invalid, then by name), in name order.
fn worst_tools(tools: &[String], cells: &HashMap<(String, String), ToolCell>) -> Vec<String> {
    if tools.len() <= MAX_TOOLS {
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
    let mut kept: Vec<String> = ranked.into_iter().take(MAX_TOOLS).cloned().collect();
    kept.sort();
    kept
}

/// Model × tool, coloured by the share of calls that were invalid as sent;
/// at most the `MAX_TOOLS` worst tools, with a line saying how many are left out.
/// The longer of the two lists runs down the side, so the grid usually fits
/// beside another chart; the flag says when it is wider than that anyway.
pub fn heat_map(map: &HeatMap) -> (String, bool) {
    let (models, all_tools, cells) = map;
    let tools = &worst_tools(all_tools, cells);
    let left_out = all_tools.len() - tools.len();
    let note_room = if left_out > 0 { 22.0 } else { 0.0 };
    let tools_down = tools.len() > models.len();
    let (rows, cols, corner) = if tools_down { (tools, models, "tool \\ model") } else { (models, tools, "model \\ tool") };
    let cell_of = |r: &String, c: &String| if tools_down { cells.get(&(c.clone(), r.clone())) } else { cells.get(&(r.clone(), c.clone())) };
    let (cell_w, cell_h) = (50.0, 22.0);
    let header = cols.iter().map(|t| text_width(t) * 0.71).fold(40.0, f64::max).min(150.0) + 16.0;
    let left = label_room(rows);
    let width = (left + cell_w * cols.len() as f64 + 90.0).max(580.0);
    let height = header + cell_h * rows.len().max(1) as f64 + 20.0 + note_room;
    let mut svg = Svg::new("chart-tool-heat", width, height, "Invalid-call rate per model and tool");
    if tools.is_empty() {
        svg.text(width / 2.0, height / 2.0, "middle", "empty", "No tool calls in this run.");
        return (svg.finish(), false);
    }
    let rate = |c: &ToolCell| if c.calls > 0 { c.invalid as f64 / c.calls as f64 } else { 0.0 };
    let most = cells.values().map(rate).fold(0.0, f64::max);
    // The colour scale tops out at the highest rate rounded up to 10%.
    let top = ((most * 10.0).ceil() / 10.0).clamp(0.1, 1.0);
    svg.text(left - 8.0, header - 6.0, "end", "legend", corner);
    for (j, t) in cols.iter().enumerate() {
        let (cx, cy) = (left + cell_w * (j as f64 + 0.5) - 4.0, header - 8.0);
        svg.raw(&format!(
            "<text x=\"{}\" y=\"{}\" transform=\"rotate(-45 {} {})\" class=\"col-label\">{}</text>",
            num(cx),
            num(cy),
            num(cx),
            num(cy),
            escape(t)
        ));
    }
    for (i, r) in rows.iter().enumerate() {
        let y = header + cell_h * i as f64;
        svg.text(left - 8.0, y + cell_h / 2.0 + 4.0, "end", "row-label", r);
        for (j, c) in cols.iter().enumerate() {
            let x = left + cell_w * j as f64;
            let (m, t) = if tools_down { (c, r) } else { (r, c) };
            let Some(cell) = cell_of(r, c) else {
                svg.rect(x + 1.0, y + 1.0, cell_w - 2.0, cell_h - 2.0, "#fafafa", Some(&format!("{m} never called {t}")));
                svg.text(x + cell_w / 2.0, y + cell_h / 2.0 + 4.0, "middle", "cell muted", "·");
                continue;
            };
            let share = rate(cell);
            let (fill, ink) = ramp(share / top);
            let tip =
                format!("{m} × {t}: {} of {} calls invalid ({}), {} repaired", cell.invalid, cell.calls, percent(share), cell.repaired);
            svg.rect(x + 1.0, y + 1.0, cell_w - 2.0, cell_h - 2.0, &fill, Some(&tip));
            svg.raw(&format!(
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"cell\" style=\"fill:{ink}\">{}</text>",
                num(x + cell_w / 2.0),
                num(y + cell_h / 2.0 + 4.0),
                percent(share)
            ));
        }
    }
    // Colour key beside the grid.
    let kx = left + cell_w * cols.len() as f64 + 20.0;
    let (ky, kh) = (header, (cell_h * rows.len() as f64).clamp(60.0, 200.0));
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
    if left_out > 0 {
        let note = format!(
            "The {} tools with the most invalid calls of {}; {left_out} more in the per-tool table below (those with invalid calls) and by_tool.csv.",
            tools.len(),
            all_tools.len()
        );
        svg.text(8.0, height - 8.0, "start", "bar-note", &note);
    }
    // A little too wide still fits its column, scaled; much wider gets the page's width.
    (svg.finish(), width > 720.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary() -> DataFrame {
        df!("model" => ["strong", "cheap"]).unwrap()
    }

    #[test]
    fn heat_map_prints_each_rate_and_marks_missing_cells() {
        let by_tool = df!(
            "model" => ["strong", "cheap", "cheap"],
            "tool" => ["read_file", "Bash", "read_file"],
            "calls" => [4u64, 10, 5],
            "invalid" => [0u64, 5, 1],
            "repaired_local" => [0u64, 4, 1],
            "repaired_model" => [0u64, 1, 0],
        )
        .unwrap();
        let map = tool_cells(&summary(), &by_tool).unwrap();
        assert_eq!(map.1, ["Bash", "read_file"]);
        let (svg, wide) = heat_map(&map);
        assert!(!wide);
        assert!(svg.contains("<title>cheap × Bash: 5 of 10 calls invalid (50%), 5 repaired</title>"), "{svg}");
        assert!(svg.contains("<title>strong never called Bash</title>"));
        assert!(svg.contains(">20%</text>") && svg.contains(">0%</text>"));
        // The darkest blue is the highest rate, with white ink.
        assert!(svg.contains("fill=\"#08306b\"><title>cheap × Bash") && svg.contains("style=\"fill:#fff\">50%</text>"));
        // More tools than models: tools run down the side.
        let one = df!("model" => ["cheap"]).unwrap();
        let (tall, _) = heat_map(&tool_cells(&one, &by_tool.tail(Some(2))).unwrap());
        assert!(tall.contains(">tool \\ model</text>") && tall.contains(">read_file</text>"), "{tall}");
        let (empty, _) = heat_map(&tool_cells(&summary(), &by_tool.head(Some(0))).unwrap());
        assert!(empty.contains("No tool calls in this run."));
    }

    #[test]
    fn only_the_worst_tools_are_drawn_and_the_rest_are_counted() {
        // 45 tools: tool_i has i invalid calls of 50.
        let tools: Vec<String> = (0..45).map(|i| format!("tool_{i:02}")).collect();
        let n = tools.len();
        let by_tool = df!(
            "model" => vec!["cheap"; n],
            "tool" => tools.clone(),
            "calls" => vec![50u64; n],
            "invalid" => (0..n as u64).collect::<Vec<_>>(),
            "repaired_local" => vec![0u64; n],
            "repaired_model" => vec![0u64; n],
        )
        .unwrap();
        let (svg, _) = heat_map(&tool_cells(&summary(), &by_tool).unwrap());
        assert!(svg.contains(">tool_44</text>") && svg.contains(">tool_15</text>"), "the 30 worst: 15..=44");
        assert!(!svg.contains(">tool_14</text>") && !svg.contains(">tool_00</text>"));
        assert!(svg.contains("The 30 tools with the most invalid calls of 45; 15 more in the per-tool table"), "{svg}");
        let height: f64 = svg.split("height=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
        assert!(height < 900.0, "{height}");
    }
}
