//! Scales for the HTML report's charts: data values to pixels, linear or
//! logarithmic, with ticks at round values and no NaN for any input.

use super::svg::finite;

/// A map from data values to pixels, linear or logarithmic.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    log: bool,
    domain: (f64, f64),
    range: (f64, f64),
}

impl Scale {
    /// A linear scale; an empty or broken domain is widened around its value.
    pub fn linear(domain: (f64, f64), range: (f64, f64)) -> Scale {
        let (mut lo, mut hi) = (finite(domain.0, 0.0), finite(domain.1, 1.0));
        if hi < lo {
            std::mem::swap(&mut lo, &mut hi);
        }
        if hi - lo < 1e-12 {
            let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.5 };
            (lo, hi) = (lo - pad, hi + pad);
        }
        Scale { log: false, domain: (lo, hi), range }
    }

    /// A base-10 log scale over whole decades covering the domain.
    pub fn log(domain: (f64, f64), range: (f64, f64)) -> Scale {
        let lo = finite(domain.0, 1.0).max(1e-12);
        let hi = finite(domain.1, 1.0).max(lo);
        let (mut a, mut b) = (lo.log10().floor(), hi.log10().ceil());
        if b <= a {
            b = a + 1.0;
        }
        if b - a > 12.0 {
            a = b - 12.0;
        }
        Scale { log: true, domain: (10f64.powf(a), 10f64.powf(b)), range }
    }

    /// A base-10 log scale a little wider than the domain (a quarter of a
    /// decade each side), for points that should not sit on the frame.
    pub fn log_padded(domain: (f64, f64), range: (f64, f64)) -> Scale {
        let lo = finite(domain.0, 1.0).max(1e-12);
        let hi = finite(domain.1, 1.0).max(lo);
        let pad = 10f64.powf(0.25);
        Scale { log: true, domain: (lo / pad, hi * pad), range }
    }

    /// A linear scale over `domain` rounded out to nice tick steps.
    pub fn nice(domain: (f64, f64), range: (f64, f64)) -> Scale {
        let s = Scale::linear(domain, range);
        let step = tick_step(s.domain.0, s.domain.1, 5);
        Scale::linear(((s.domain.0 / step).floor() * step, (s.domain.1 / step).ceil() * step), range)
    }

    /// The domain, after any widening.
    #[cfg(test)]
    pub fn domain(&self) -> (f64, f64) {
        self.domain
    }

    /// The pixel of a value; values outside the domain are clamped to it.
    pub fn at(&self, value: f64) -> f64 {
        let (lo, hi) = self.domain;
        let v = finite(value, lo).clamp(lo, hi);
        let t = if self.log { (v.log10() - lo.log10()) / (hi.log10() - lo.log10()) } else { (v - lo) / (hi - lo) };
        self.range.0 + finite(t, 0.0) * (self.range.1 - self.range.0)
    }

    /// Whether a tick is labelled before the others when labels crowd: a
    /// power of ten on a log scale; every tick of a linear one.
    pub fn is_major(&self, tick: f64) -> bool {
        !self.log || (tick.log10() - tick.log10().round()).abs() < 1e-9
    }

    /// Tick values: steps of 1, 2 or 5 × 10ⁿ, or each decade of a log scale.
    pub fn ticks(&self) -> Vec<f64> {
        let (lo, hi) = self.domain;
        if self.log {
            let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
            // Few decades leave room for 2 and 5 between the powers of ten.
            let steps: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
            let tick = |m: f64, e: i32| {
                let unit = 10f64.powi((-e).max(0));
                (m * 10f64.powi(e) * unit).round() / unit
            };
            let within = |t: &f64| *t >= lo * (1.0 - 1e-9) && *t <= hi * (1.0 + 1e-9);
            return (a..=b).flat_map(|e| steps.iter().map(move |m| tick(*m, e))).filter(within).collect();
        }
        let step = tick_step(lo, hi, 5);
        let first = (lo / step - 1e-9).ceil() as i64;
        let last = (hi / step + 1e-9).floor() as i64;
        // Rounded to the step's decimals, so 0.85 is not 0.8500000000000001.
        let unit = 10f64.powi((-step.log10().floor()).max(0.0) as i32);
        (first..=last).map(|i| (i as f64 * step * unit).round() / unit).collect()
    }
}

/// A step of 1, 2 or 5 × 10ⁿ giving about `count` ticks over `lo..hi`.
fn tick_step(lo: f64, hi: f64, count: usize) -> f64 {
    let raw = (hi - lo).abs() / count.max(1) as f64;
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|s| *s >= raw * 0.999).unwrap_or(10.0 * magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_domain() {
        let s = Scale::nice((0.76, 1.0), (300.0, 0.0));
        assert_eq!(s.domain(), (0.75, 1.0));
        assert_eq!(s.ticks(), [0.75, 0.8, 0.85, 0.9, 0.95, 1.0]);
        assert_eq!(s.at(0.75), 300.0);
        assert_eq!(s.at(1.0), 0.0);
        assert_eq!(s.at(2.0), 0.0, "clamped");
        // A single value is widened, not divided by zero.
        let flat = Scale::linear((0.0, 0.0), (0.0, 100.0));
        assert!(flat.at(0.0).is_finite() && flat.ticks().len() >= 2);
        assert_eq!(Scale::linear((f64::NAN, f64::NAN), (0.0, 10.0)).at(f64::NAN), 0.0);
    }

    #[test]
    fn log_scale_spans_whole_decades() {
        let few = Scale::log((0.02, 0.42), (0.0, 100.0));
        assert_eq!(few.ticks(), [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]);
        let padded = Scale::log_padded((0.0205, 0.4183), (0.0, 100.0));
        assert_eq!(padded.ticks(), [0.02, 0.05, 0.1, 0.2, 0.5]);
        assert!(padded.at(0.0205) > 10.0 && padded.at(0.4183) < 90.0);
        let s = Scale::log((4.5, 481_000.0), (0.0, 600.0));
        assert_eq!(s.ticks(), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6]);
        assert_eq!(s.at(1.0), 0.0);
        assert_eq!(s.at(1e6), 600.0);
        assert!((s.at(1e3) - 300.0).abs() < 1e-9);
        // Zero and negative latencies sit at the left edge instead of -inf.
        assert_eq!(s.at(0.0), 0.0);
        assert_eq!(Scale::log((0.0, 0.0), (0.0, 10.0)).ticks().len(), 4, "one decade: 1, 2, 5, 10 × its start");
    }
}
