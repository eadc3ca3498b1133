//! `junit.xml`: one test case per scenario × model × trial, a failure with
//! the reason when it did not pass, an error when it got no answer (an
//! errored unit neither passed nor failed) — the format CI systems display. One
//! test suite per model; the test time is the unit's model time. Every
//! text is bounded and XML 1.0-valid (see `encode::xml`), whatever a model
//! named its tools or a server answered.

use std::io::Write;

use super::encode::{xml, xml_attribute};
use super::{Exporter, ReportError};
use crate::metrics::table::ScenarioRun;
use crate::metrics::Tables;
use crate::quote::{bounded, CELL_CHARS};

/// The JUnit XML format.
pub struct Junit;

/// The whole document, as text.
pub fn render(tables: &Tables) -> std::io::Result<String> {
    let mut out = Vec::new();
    write_xml(tables, &mut out)?;
    Ok(String::from_utf8(out).expect("written from strings"))
}

/// Writes the document a test case at a time.
fn write_xml(tables: &Tables, out: &mut dyn Write) -> std::io::Result<()> {
    let runs = &tables.rows.scenarios;
    let failed = |r: &&ScenarioRun| !r.passed && !r.errored;
    let n = runs.len();
    let mut order: Vec<&str> = Vec::new();
    for r in runs {
        if !order.contains(&r.model.as_str()) {
            order.push(&r.model);
        }
    }
    let failures = runs.iter().filter(failed).count();
    let errors = runs.iter().filter(|r| r.errored).count();
    let total_time: f64 = runs.iter().map(|r| r.latency_ms).sum::<f64>() / 1e3;
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    // `errors` only when some unit errored: an honest run's document stays as it was.
    let errors_attribute = if errors > 0 { format!(" errors=\"{errors}\"") } else { String::new() };
    writeln!(out, "<testsuites name=\"calltape\" tests=\"{n}\" failures=\"{failures}\"{errors_attribute} time=\"{total_time:.3}\">")?;
    for model in order {
        let rows = || runs.iter().filter(|r| r.model == model);
        let fails = rows().filter(failed).count();
        let errs = rows().filter(|r| r.errored).count();
        let time: f64 = rows().map(|r| r.latency_ms).sum::<f64>() / 1e3;
        writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" errors=\"{errs}\" time=\"{time:.3}\">",
            xml_attribute(&bounded(model, CELL_CHARS)),
            rows().count()
        )?;
        for r in rows() {
            let name = xml_attribute(&format!("{} [trial {}]", bounded(&r.scenario, CELL_CHARS), r.trial));
            let class = xml_attribute(&bounded(&format!("{}.{}", model, r.suite), CELL_CHARS));
            let time = r.latency_ms / 1e3;
            if r.passed {
                writeln!(out, "    <testcase classname=\"{class}\" name=\"{name}\" time=\"{time:.3}\"/>")?;
            } else {
                let reason = bounded(&r.reason, CELL_CHARS);
                writeln!(out, "    <testcase classname=\"{class}\" name=\"{name}\" time=\"{time:.3}\">")?;
                // An errored unit got no answer: an error of the harness's call, not a failed scenario.
                let (element, kind) = if r.errored { ("error", "errored") } else { ("failure", "scenario_failed") };
                writeln!(out, "      <{element} message=\"{}\" type=\"{kind}\">{}</{element}>", xml_attribute(&reason), xml(&reason))?;
                writeln!(out, "    </testcase>")?;
            }
        }
        writeln!(out, "  </testsuite>")?;
    }
    writeln!(out, "</testsuites>")
}

impl Exporter for Junit {
    fn write(&self, tables: &Tables, dir: &std::path::Path) -> Result<Vec<std::path::PathBuf>, ReportError> {
        Ok(vec![super::write_file(dir, "junit.xml", |w| write_xml(tables, w))?])
    }

    fn export(&self, tables: &Tables) -> Result<Vec<(String, Vec<u8>)>, ReportError> {
        let text = render(tables).map_err(|e| ReportError::Render { what: "junit.xml".into(), message: e.to_string() })?;
        Ok(vec![("junit.xml".into(), text.into_bytes())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::encode::HOSTILE;

    #[test]
    fn hostile_names_and_reasons_give_well_formed_xml_that_reads_back() {
        let mut texts: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
        texts.push("tab\there\nnew line\r".into());
        let xml = render(&crate::fuzz_targets::tables_with_texts(&texts)).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let messages: Vec<&str> =
            doc.descendants().filter(|n| n.has_tag_name("failure")).map(|n| n.attribute("message").unwrap()).collect();
        assert_eq!(messages.len(), texts.len());
        // Whitespace in an attribute survives the parser's normalisation; markup is text.
        assert!(messages.contains(&"tab\there\nnew line\r"), "{messages:?}");
        assert!(messages.contains(&"<img src=x onerror=alert(1)>"), "{messages:?}");
        assert!(messages.contains(&"nul\u{fffd}bell\u{fffd}ff\u{fffd}\u{fffd}\u{fffd}"), "{messages:?}");
    }

    #[test]
    fn a_megabyte_reason_is_cut_to_a_cell() {
        let xml = render(&crate::fuzz_targets::tables_with_texts(&["y".repeat(1 << 20)])).unwrap();
        assert!(xml.len() < 10_000, "{} bytes", xml.len());
        assert!(xml.contains("(1048576 bytes, 1047576 not shown)"));
    }
}
