//! Sums, means and quantiles computed as polars' group aggregations compute
//! them, bit for bit, for the groups the tables add up without handing
//! polars a frame with a row per request or per unit: a group's float sum
//! is a Kahan sum of its values in row order, a mean that sum over the
//! count, a linear quantile interpolated between the two order statistics
//! around `(n - 1) · q`, offset by the group's nulls as polars offsets it.
//! The tests hold each to polars itself, so an upgrade that changes polars'
//! arithmetic fails here, not in a changed report.

/// A running Kahan sum, as `polars_utils::kahan_sum::KahanSum` adds.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct KahanSum {
    sum: f64,
    err: f64,
    /// Values added: polars returns a group of one value as it is.
    count: u64,
    first: f64,
}

impl KahanSum {
    pub(super) fn add(&mut self, value: f64) {
        if self.count == 0 {
            self.first = value;
        }
        self.count += 1;
        let y = value - self.err;
        let sum = self.sum + y;
        let err = (sum - self.sum) - y;
        self.sum = sum;
        // Kept finite, so Inf - Inf never makes a NaN.
        if err.is_finite() {
            self.err = err;
        }
    }

    /// The group's sum: 0 for no values.
    pub(super) fn sum(&self) -> f64 {
        if self.count == 1 {
            self.first
        } else {
            self.sum
        }
    }

    /// The group's mean, `None` for no values.
    pub(super) fn mean(&self) -> Option<f64> {
        match self.count {
            0 => None,
            1 => Some(self.first),
            n => Some(self.sum / n as f64),
        }
    }
}

/// The `q` quantile of a group, linearly interpolated, as polars computes
/// `col(x).quantile(q, QuantileMethod::Linear)` over a group of `values`
/// and `nulls` nulls; `None` when the group has no values. Reorders `values`.
pub(super) fn quantile_linear(values: &mut [f64], nulls: usize, q: f64) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    if n == 1 {
        return Some(values[0]);
    }
    let length = n + nulls;
    // Nulls sort first: polars' indices count them.
    let float_idx = (n as f64 - 1.0) * q + nulls as f64;
    let idx = (float_idx as usize).clamp(0, length - 1);
    let top = float_idx.ceil() as usize;
    let at = idx - nulls;
    let (_, lower, rest) = values.select_nth_unstable_by(at, f64::total_cmp);
    let lower = *lower;
    if idx == top {
        return Some(lower);
    }
    let upper = rest.iter().copied().min_by(f64::total_cmp).unwrap_or(lower);
    if lower == upper {
        return Some(lower);
    }
    let proportion = float_idx - idx as f64;
    Some(proportion * (upper - lower) + lower)
}

#[cfg(test)]
mod tests {
    use polars::prelude::*;

    use super::*;

    /// Values that round differently in every order: a sum of them is
    /// exact only if added as polars adds them.
    fn awkward(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let scale = [1e-6, 0.1, 3.0, 1e3, 1e9][i % 5];
                ((x >> 11) as f64 / (1u64 << 53) as f64) * scale
            })
            .collect()
    }

    /// Groups `g0, g1, …` of the values, interleaved, through polars' group_by.
    fn polars_groups(values: &[Option<f64>], groups: usize, agg: Expr) -> Vec<Option<f64>> {
        let keys: Vec<u32> = (0..values.len() as u32).map(|i| i % groups as u32).collect();
        let df = df!("g" => keys, "v" => values).unwrap();
        let out = df.lazy().group_by([col("g")]).agg([agg.alias("out")]).sort(["g"], Default::default()).collect().unwrap();
        let column = out.column("out").unwrap().as_materialized_series().cast(&DataType::Float64).unwrap();
        let values = column.f64().unwrap();
        (0..values.len()).map(|i| values.get(i)).collect()
    }

    fn ours(values: &[Option<f64>], groups: usize, f: impl Fn(&[f64], usize) -> Option<f64>) -> Vec<Option<f64>> {
        (0..groups)
            .map(|g| {
                let members: Vec<Option<f64>> = values.iter().skip(g).step_by(groups).copied().collect();
                let present: Vec<f64> = members.iter().flatten().copied().collect();
                f(&present, members.len() - present.len())
            })
            .collect()
    }

    fn same_bits(a: &[Option<f64>], b: &[Option<f64>]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.map(f64::to_bits) == y.map(f64::to_bits))
    }

    #[test]
    fn sums_and_means_match_polars_bit_for_bit() {
        for (n, groups) in [(1, 1), (2, 1), (7, 3), (1000, 4), (10_001, 7)] {
            let values: Vec<Option<f64>> = awkward(n, n as u64).into_iter().map(Some).collect();
            let sum = |v: &[f64], _| {
                let mut k = KahanSum::default();
                v.iter().for_each(|x| k.add(*x));
                Some(k.sum())
            };
            let mean = |v: &[f64], _| {
                let mut k = KahanSum::default();
                v.iter().for_each(|x| k.add(*x));
                k.mean()
            };
            assert!(same_bits(&ours(&values, groups, sum), &polars_groups(&values, groups, col("v").sum())), "sum {n}/{groups}");
            assert!(same_bits(&ours(&values, groups, mean), &polars_groups(&values, groups, col("v").mean())), "mean {n}/{groups}");
            // With nulls: the values present, in order.
            let holed: Vec<Option<f64>> = values.iter().enumerate().map(|(i, v)| v.filter(|_| i % 3 != 1)).collect();
            assert!(same_bits(&ours(&holed, groups, sum), &polars_groups(&holed, groups, col("v").sum())), "sum with nulls {n}/{groups}");
            let ours_mean = ours(&holed, groups, mean);
            assert!(same_bits(&ours_mean, &polars_groups(&holed, groups, col("v").mean())), "mean with nulls {n}/{groups}");
        }
    }

    #[test]
    fn quantiles_match_polars_bit_for_bit_with_and_without_nulls() {
        for (n, groups) in [(1, 1), (2, 1), (5, 2), (17, 3), (1000, 4), (4099, 5)] {
            let values: Vec<Option<f64>> = awkward(n, 7 + n as u64).into_iter().map(Some).collect();
            let holed: Vec<Option<f64>> = values.iter().enumerate().map(|(i, v)| v.filter(|_| i % 4 != 2)).collect();
            let all_null = vec![None; n];
            for q in [0.5, 0.95, 0.99, 0.0, 1.0, 0.3] {
                let quantile = |v: &[f64], nulls: usize| quantile_linear(&mut v.to_vec(), nulls, q);
                for (what, v) in [("values", &values), ("with nulls", &holed), ("all null", &all_null)] {
                    let theirs = polars_groups(v, groups, col("v").quantile(lit(q), QuantileMethod::Linear));
                    assert!(same_bits(&ours(v, groups, quantile), &theirs), "q {q} of {n}/{groups} {what}");
                }
            }
        }
    }

    #[test]
    fn a_single_value_is_its_own_sum_and_an_empty_group_sums_to_zero() {
        let mut k = KahanSum::default();
        assert_eq!((k.sum(), k.mean()), (0.0, None));
        k.add(-0.0);
        assert!(k.sum().is_sign_negative());
        assert_eq!(quantile_linear(&mut [], 3, 0.5), None);
    }
}
