//! `junit.xml`: one test case per scenario × model × trial, a failure with
//! the reason when it did not pass, an error when it got no answer (an
//! errored unit neither passed nor failed) — the format CI systems display. One
//! test suite per model; the test time is the unit's model time. Every
//! text is bounded and XML 1.0-valid (see `encode::xml`), whatever a model
//! named its tools or a server answered.

use std::io::Write;

use super::encode::{xml, xml_attribute};
use super::{Exporter, ReportError};
use crate::metrics::schema;
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
    use crate::metrics::columns as c;
    let df = &tables.scenarios;
    let strings = |name: &str| c::texts(df, name).map_err(std::io::Error::other);
    let (models, suites, scenarios, reasons) =
        (strings(schema::MODEL)?, strings(schema::SUITE)?, strings(schema::SCENARIO)?, strings(schema::REASON)?);
    let (trials, passed, errored, latency) = (
        c::u64s(df, schema::TRIAL).map_err(std::io::Error::other)?,
        c::bools(df, schema::PASSED).map_err(std::io::Error::other)?,
        c::bools(df, schema::ERRORED).map_err(std::io::Error::other)?,
        c::f64s(df, schema::LATENCY_MS).map_err(std::io::Error::other)?,
    );
    let failed = |i: usize| !passed[i] && !errored[i];
    let n = df.height();
    let mut order: Vec<&str> = Vec::new();
    for i in 0..n {
        let m = c::at(models, i);
        if !order.contains(&m) {
            order.push(m);
        }
    }
    let failures = (0..n).filter(|&i| failed(i)).count();
    let errors = errored.iter().filter(|e| **e).count();
    let total_time: f64 = latency.iter().sum::<f64>() / 1e3;
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    // `errors` only when some unit errored: an honest run's document stays as it was.
    let errors_attribute = if errors > 0 { format!(" errors=\"{errors}\"") } else { String::new() };
    writeln!(out, "<testsuites name=\"calltape\" tests=\"{n}\" failures=\"{failures}\"{errors_attribute} time=\"{total_time:.3}\">")?;
    for model in order {
        let rows = || (0..n).filter(|&i| c::at(models, i) == model);
        let fails = rows().filter(|&i| failed(i)).count();
        let errs = rows().filter(|&i| errored[i]).count();
        let time: f64 = rows().map(|i| latency[i]).sum::<f64>() / 1e3;
        writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{fails}\" errors=\"{errs}\" time=\"{time:.3}\">",
            xml_attribute(&bounded(model, CELL_CHARS)),
            rows().count()
        )?;
        for i in rows() {
            let name = xml_attribute(&format!("{} [trial {}]", bounded(c::at(scenarios, i), CELL_CHARS), trials[i]));
            let class = xml_attribute(&bounded(&format!("{}.{}", model, c::at(suites, i)), CELL_CHARS));
            let time = latency[i] / 1e3;
            if passed[i] {
                writeln!(out, "    <testcase classname=\"{class}\" name=\"{name}\" time=\"{time:.3}\"/>")?;
            } else {
                let reason = bounded(c::at(reasons, i), CELL_CHARS);
                writeln!(out, "    <testcase classname=\"{class}\" name=\"{name}\" time=\"{time:.3}\">")?;
                // An errored unit got no answer: an error of the harness's call, not a failed scenario.
                let (element, kind) = if errored[i] { ("error", "errored") } else { ("failure", "scenario_failed") };
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
