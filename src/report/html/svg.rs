//! Tiny SVG drawing for the HTML report: escaped text, coordinates that are
//! never NaN, numbers formatted for people, axes, and a colour-blind-safe
//! palette. No chart logic lives here; scales are in `scale`.

use std::fmt::Write;

use super::scale::Scale;
pub use crate::report::text::{finite, usd};

/// Okabe and Ito's palette (distinguishable with every common colour-vision
/// deficiency), then its black, a grey and Tol's wine: one colour per
/// category (one per invalid kind, which the kinds chart indexes by).
pub const PALETTE: [&str; 10] =
    ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000", "#999999", "#882255"];
/// Ink for text and axes.
pub const INK: &str = "#222";
/// Grid lines and secondary marks.
pub const FAINT: &str = "#ddd";
/// Secondary text.
pub const MUTED: &str = "#666";

/// Text made safe inside an element or a double-quoted attribute (HTML
/// and SVG take the same escapes as the JUnit XML).
pub use crate::report::encode::xml as escape;

/// A coordinate as SVG text: rounded to 0.1, and 0 when not finite, so no
/// `NaN` or `inf` ever reaches the page.
pub fn num(x: f64) -> String {
    let x = if x.is_finite() { (x * 10.0).round() / 10.0 } else { 0.0 };
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:.1}")
    }
}

/// A dollar amount for an axis tick: no trailing zeros (`$0.02`, `$1`).
pub fn usd_tick(x: f64) -> String {
    let text = format!("{:.4}", finite(x, 0.0));
    format!("${}", text.trim_end_matches('0').trim_end_matches('.'))
}

/// A duration given in microseconds, in the unit that reads best.
pub fn duration_us(us: f64) -> String {
    let us = finite(us, 0.0);
    let trim = |v: f64, unit: &str| {
        let text = if v >= 10.0 { format!("{v:.0}") } else { format!("{v:.1}") };
        format!("{}{unit}", text.strip_suffix(".0").unwrap_or(&text))
    };
    if us >= 1e6 {
        trim(us / 1e6, " s")
    } else if us >= 1e3 {
        trim(us / 1e3, " ms")
    } else {
        trim(us, " µs")
    }
}

/// A share as a percentage, e.g. `27%` or `0.4%`.
pub fn percent(rate: f64) -> String {
    let p = finite(rate, 0.0) * 100.0;
    if p > 0.0 && p < 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// A rectangle of the drawing where the data goes.
#[derive(Debug, Clone, Copy)]
pub struct Area {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

/// An SVG document under construction.
pub struct Svg {
    out: String,
}

impl Svg {
    /// A `width` × `height` drawing, described by `label` for screen readers.
    pub fn new(id: &str, width: f64, height: f64, label: &str) -> Svg {
        let (w, h) = (num(width), num(height));
        let out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"{}\" class=\"chart\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" \
             role=\"img\" aria-label=\"{}\">\n",
            escape(id),
            escape(label)
        );
        Svg { out }
    }

    /// Any element; the caller escapes what it interpolates.
    pub fn raw(&mut self, element: &str) {
        self.out.push_str(element);
        self.out.push('\n');
    }

    /// A straight line.
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), stroke: &str, width: f64) {
        let _ = writeln!(
            self.out,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"{}\"/>",
            num(x1),
            num(y1),
            num(x2),
            num(y2),
            num(width)
        );
    }

    /// A filled rectangle, with a hover tooltip when `tip` is given.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, tip: Option<&str>) {
        let (x, y, w, h) = (num(x), num(y), num(w.max(0.0)), num(h.max(0.0)));
        match tip {
            Some(tip) => {
                let tip = escape(tip);
                let _ = writeln!(
                    self.out,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{fill}\"><title>{tip}</title></rect>"
                );
            }
            None => {
                let _ = writeln!(self.out, "<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" fill=\"{fill}\"/>");
            }
        }
    }

    /// Text; `anchor` is `start`, `middle` or `end`; `class` picks its CSS.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, text: &str) {
        let _ = writeln!(
            self.out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" class=\"{class}\">{}</text>",
            num(x),
            num(y),
            escape(text)
        );
    }

    /// Text turned a quarter left, for a vertical axis title.
    pub fn vertical_text(&mut self, x: f64, y: f64, class: &str, text: &str) {
        let (x, y) = (num(x), num(y));
        let _ = writeln!(
            self.out,
            "<text x=\"{x}\" y=\"{y}\" transform=\"rotate(-90 {x} {y})\" text-anchor=\"middle\" class=\"{class}\">{}</text>",
            escape(text)
        );
    }

    /// A horizontal axis under `area`, with grid lines up through it.
    pub fn x_axis(&mut self, area: Area, scale: &Scale, label: &str, format: impl Fn(f64) -> String) {
        let ticks: Vec<(f64, String)> = scale.ticks().into_iter().map(|t| (scale.at(t), format(t))).collect();
        let majors: Vec<bool> = scale.ticks().into_iter().map(|t| scale.is_major(t)).collect();
        let labelled = spaced_labels(&ticks, &majors);
        for (i, (x, text)) in ticks.iter().enumerate() {
            self.line((*x, area.top), (*x, area.bottom), FAINT, 1.0);
            self.line((*x, area.bottom), (*x, area.bottom + 4.0), INK, 1.0);
            if labelled[i] {
                self.text(*x, area.bottom + 16.0, "middle", "tick", text);
            }
        }
        self.line((area.left, area.bottom), (area.right, area.bottom), INK, 1.0);
        self.text((area.left + area.right) / 2.0, area.bottom + 34.0, "middle", "axis-title", label);
    }

    /// A vertical axis left of `area`, with grid lines across it.
    pub fn y_axis(&mut self, area: Area, scale: &Scale, label: &str, format: impl Fn(f64) -> String) {
        for t in scale.ticks() {
            let y = scale.at(t);
            self.line((area.left, y), (area.right, y), FAINT, 1.0);
            self.line((area.left - 4.0, y), (area.left, y), INK, 1.0);
            self.text(area.left - 7.0, y + 4.0, "end", "tick", &format(t));
        }
        self.line((area.left, area.top), (area.left, area.bottom), INK, 1.0);
        self.vertical_text(area.left - 44.0, (area.top + area.bottom) / 2.0, "axis-title", label);
    }

    /// A legend entry: a swatch then its label; returns the x after it.
    pub fn legend_item(&mut self, x: f64, y: f64, colour: &str, label: &str) -> f64 {
        self.rect(x, y - 9.0, 11.0, 11.0, colour, None);
        self.text(x + 15.0, y, "start", "legend", label);
        x + 15.0 + text_width(label) + 16.0
    }

    /// The finished `<svg>` element.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

/// How wide a tick label may be at the ticks' 11px: the 12px estimate,
/// generous on purpose (fonts differ; a label left out costs less than two
/// that touch).
pub fn tick_width(text: &str) -> f64 {
    text_width(text)
}

/// Least room between two tick labels.
const TICK_GAP: f64 = 8.0;

/// Which of the ticks (x, label), in order, get their label so that no two
/// labels overlap: the major ticks first (powers of ten on a log axis), then
/// the others where they fit, by each label's estimated width.
pub fn spaced_labels(ticks: &[(f64, String)], major: &[bool]) -> Vec<bool> {
    let mut shown = vec![false; ticks.len()];
    let span = |i: usize| {
        let half = tick_width(&ticks[i].1) / 2.0;
        (ticks[i].0 - half, ticks[i].0 + half)
    };
    let fits = |shown: &[bool], i: usize| {
        let (a, b) = span(i);
        (0..ticks.len()).filter(|j| shown[*j]).all(|j| {
            let (c, d) = span(j);
            b + TICK_GAP <= c || d + TICK_GAP <= a
        })
    };
    for pass_major in [true, false] {
        for i in 0..ticks.len() {
            if major.get(i).copied().unwrap_or(true) == pass_major && !shown[i] && fits(&shown, i) {
                shown[i] = true;
            }
        }
    }
    shown
}

/// Roughly how wide `text` is at the report's 12px sans-serif, for layout.
pub fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 6.6
}

/// A left margin that fits the longest of `labels` (within reason).
pub fn label_room(labels: &[String]) -> f64 {
    labels.iter().map(|m| text_width(m)).fold(60.0, f64::max).min(230.0) + 14.0
}

/// A colour on a light-to-dark blue ramp for `t` in 0..=1 (ordered by
/// lightness, so it reads the same without colour vision), and the ink
/// that stays legible on it.
pub fn ramp(t: f64) -> (String, &'static str) {
    const STOPS: [(f64, f64, f64); 5] =
        [(239.0, 246.0, 255.0), (189.0, 215.0, 238.0), (107.0, 174.0, 214.0), (33.0, 113.0, 181.0), (8.0, 48.0, 107.0)];
    let t = finite(t, 0.0).clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (t.floor() as usize).min(STOPS.len() - 2);
    let f = t - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    let (r, g, bl) = (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2));
    let luminance = 0.2126 * f64::from(r) + 0.7152 * f64::from(g) + 0.0722 * f64::from(bl);
    (format!("#{r:02x}{g:02x}{bl:02x}"), if luminance < 140.0 { "#fff" } else { INK })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowded_tick_labels_are_thinned_powers_of_ten_first() {
        let labels = ["1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s"];
        let ticks: Vec<(f64, String)> = labels.iter().enumerate().map(|(i, l)| (i as f64 * 30.0, l.to_string())).collect();
        let shown = spaced_labels(&ticks, &[true; 7]);
        assert_eq!(shown, [true, false, true, false, true, false, true]);
        // Minor ticks (2 and 5 × 10ⁿ) give way to the decades.
        let ticks: Vec<(f64, String)> = ["1", "2", "5", "10"].iter().enumerate().map(|(i, l)| (i as f64 * 12.0, l.to_string())).collect();
        assert_eq!(spaced_labels(&ticks, &[true, false, false, true]), [true, false, false, true]);
        let roomy: Vec<(f64, String)> = labels.iter().enumerate().map(|(i, l)| (i as f64 * 60.0, l.to_string())).collect();
        assert!(spaced_labels(&roomy, &[false; 7]).iter().all(|s| *s));
    }

    #[test]
    fn escape_makes_markup_inert() {
        assert_eq!(escape(r#"<b a="1">Tom & 'Jerry'</b>"#), "&lt;b a=&quot;1&quot;&gt;Tom &amp; &apos;Jerry&apos;&lt;/b&gt;");
        assert_eq!(escape("sim-cheap µs"), "sim-cheap µs");
    }

    #[test]
    fn numbers_never_print_nan_or_infinity() {
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(f64::INFINITY), "0");
        assert_eq!(num(12.0), "12");
        assert_eq!(num(-0.04), "0");
        assert_eq!(num(2.46), "2.5");
        assert_eq!(usd(f64::NAN), "$0");
        assert_eq!(percent(f64::NAN), "0%");
    }

    #[test]
    fn formats_read_naturally() {
        assert_eq!(usd(0.4183), "$0.418");
        assert_eq!(usd(0.0011), "$0.0011");
        assert_eq!(usd(12.5), "$12.50");
        assert_eq!([0.01, 0.02, 0.5, 1.0, 0.25, 0.0].map(usd_tick), ["$0.01", "$0.02", "$0.5", "$1", "$0.25", "$0"]);
        assert_eq!(duration_us(5.26), "5.3 µs");
        assert_eq!(duration_us(1000.0), "1 ms");
        assert_eq!(duration_us(481_000.0), "481 ms");
        assert_eq!(duration_us(2_500_000.0), "2.5 s");
        assert_eq!(percent(0.274), "27%");
        assert_eq!(percent(0.004), "0.4%");
    }

    #[test]
    fn ramp_goes_light_to_dark_with_legible_ink() {
        assert_eq!(ramp(0.0), ("#eff6ff".to_string(), INK));
        assert_eq!(ramp(1.0), ("#08306b".to_string(), "#fff"));
        assert_eq!(ramp(f64::NAN).0, "#eff6ff");
    }

    #[test]
    fn svg_output_is_escaped_and_closed() {
        let mut svg = Svg::new("c", 100.0, 50.0, "a <chart>");
        svg.text(f64::NAN, 10.0, "start", "tick", "x < y");
        svg.rect(0.0, 0.0, -5.0, 10.0, "#fff", Some("\"tip\""));
        let out = svg.finish();
        assert!(out.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"c\""), "{out}");
        assert!(out.contains("aria-label=\"a &lt;chart&gt;\""));
        assert!(out.contains("<text x=\"0\" y=\"10\" text-anchor=\"start\" class=\"tick\">x &lt; y</text>"));
        assert!(out.contains("width=\"0\"") && out.contains("<title>&quot;tip&quot;</title>"));
        assert!(out.ends_with("</svg>\n"));
    }
}
