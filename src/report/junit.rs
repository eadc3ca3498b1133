//! `junit.xml`: one test case per scenario × model × trial, a failure with
//! the reason when it did not pass — the format CI systems display. One
//! test suite per model; the test time is the unit's model time.

use std::fmt::Write;

use super::{Exporter, ReportError};
use crate::metrics::Tables;

/// The JUnit XML format.
pub struct Junit;

/// Escapes text for an XML attribute or element.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The whole document.
pub fn render(tables: &Tables) -> polars::error::PolarsResult<String> {
    use crate::metrics::columns as c;
    let df = &tables.scenarios;
    let (models, suites, scenarios) = (c::strings(df, "model")?, c::strings(df, "suite")?, c::strings(df, "scenario")?);
    let (trials, passed, reasons, latency) =
        (c::u64s(df, "trial")?, c::bools(df, "passed")?, c::strings(df, "reason")?, c::f64s(df, "latency_ms")?);
    let mut order: Vec<&String> = Vec::new();
    for m in &models {
        if !order.contains(&m) {
            order.push(m);
        }
    }
    let failures = passed.iter().filter(|p| !**p).count();
    let total_time: f64 = latency.iter().sum::<f64>() / 1e3;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<testsuites name=\"calltape\" tests=\"{}\" failures=\"{failures}\" time=\"{total_time:.3}\">", models.len());
    for model in order {
        let rows: Vec<usize> = (0..models.len()).filter(|&i| &models[i] == model).collect();
        let fails = rows.iter().filter(|&&i| !passed[i]).count();
        let time: f64 = rows.iter().map(|&i| latency[i]).sum::<f64>() / 1e3;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" errors=\"0\" time=\"{time:.3}\">",
            xml_escape(model),
            rows.len()
        );
        for i in rows {
            let name = xml_escape(&format!("{} [trial {}]", scenarios[i], trials[i]));
            let class = xml_escape(&format!("{}.{}", model, suites[i]));
            let time = latency[i] / 1e3;
            if passed[i] {
                let _ = writeln!(out, "    <testcase classname=\"{class}\" name=\"{name}\" time=\"{time:.3}\"/>");
            } else {
                let reason = xml_escape(&reasons[i]);
                let _ = writeln!(out, "    <testcase classname=\"{class}\" name=\"{name}\" time=\"{time:.3}\">");
                let _ = writeln!(out, "      <failure message=\"{reason}\" type=\"scenario_failed\">{reason}</failure>");
                let _ = writeln!(out, "    </testcase>");
            }
        }
        let _ = writeln!(out, "  </testsuite>");
    }
    out.push_str("</testsuites>\n");
    Ok(out)
}

impl Exporter for Junit {
    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        let xml = render(tables).map_err(|e| ReportError::Render { what: "junit.xml".into(), message: e.to_string() })?;
        Ok(vec![("junit.xml".into(), xml.into_bytes())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(xml_escape("a<b & \"c\" 'd'>\u{1}"), "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;\u{fffd}");
    }
}
