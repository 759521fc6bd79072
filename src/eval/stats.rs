//! Statistics: a small deterministic PRNG, the paired bootstrap, percentiles and Cohen's κ.

use serde::Serialize;
use std::collections::BTreeMap;

/// Default number of bootstrap resamples.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;
/// Default bootstrap seed.
pub const BOOTSTRAP_SEED: u64 = 42;

/// SplitMix64 (Steele, Lea & Flood 2014): a tiny, well-mixed, reproducible 64-bit generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` (multiply-shift; the bias is below 2^-32 for any n < 2^32).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

/// Result of a paired bootstrap: `to − from`, averaged over queries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bootstrap {
    /// Observed mean difference.
    pub mean_diff: f64,
    /// Lower end of the 95% percentile interval.
    pub ci_low: f64,
    /// Upper end of the 95% percentile interval.
    pub ci_high: f64,
    /// Two-sided p-value of "no difference".
    pub p_value: f64,
}

/// Paired bootstrap over queries of the difference `b − a` (same query order in both).
///
/// Each of `resamples` rounds draws `n` query indices with replacement (SplitMix64 seeded with
/// `seed`, so every pair and metric sees the same resamples) and averages the per-query
/// differences. The 95% CI is the 2.5th and 97.5th percentiles of those means (linear
/// interpolation). The p-value tests a zero mean by shifting the bootstrap distribution to the
/// null: p = (1 + #{|m_b − d̄| ≥ |d̄|}) / (resamples + 1), so it is never 0 and is 1 when d̄ = 0.
pub fn paired_bootstrap(a: &[f64], b: &[f64], resamples: usize, seed: u64) -> Bootstrap {
    assert_eq!(a.len(), b.len(), "paired samples must have the same length");
    let n = a.len();
    if n == 0 || resamples == 0 {
        return Bootstrap {
            mean_diff: 0.0,
            ci_low: 0.0,
            ci_high: 0.0,
            p_value: 1.0,
        };
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let observed = d.iter().sum::<f64>() / n as f64;
    let mut rng = SplitMix64::new(seed);
    let mut means = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        let mut s = 0.0;
        for _ in 0..n {
            s += d[rng.below(n)];
        }
        means.push(s / n as f64);
    }
    // Differences of metrics in [0, 1] averaged over the same draws: compare with a tolerance so
    // that float noise does not decide whether a resample is "as extreme".
    let tol = 1e-12;
    let extreme = means
        .iter()
        .filter(|m| (*m - observed).abs() >= observed.abs() - tol)
        .count();
    means.sort_by(f64::total_cmp);
    Bootstrap {
        mean_diff: observed,
        ci_low: quantile_sorted(&means, 0.025),
        ci_high: quantile_sorted(&means, 0.975),
        p_value: ((1 + extreme) as f64 / (resamples + 1) as f64).min(1.0),
    }
}

/// Quantile `q` in [0, 1] of sorted values, with linear interpolation between order statistics
/// (Hyndman & Fan type 7, the default of R and NumPy).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let h = (n - 1) as f64 * q.clamp(0.0, 1.0);
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(n - 1);
            sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
        }
    }
}

/// Nearest-rank percentile `p` in (0, 100] of unsorted values: the smallest value with at least
/// p% of the values at or below it (used for latencies: p50, p95 are observed values).
pub fn percentile_nearest_rank(values: &[f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Median (mean of the two middle values for an even count; NaN for an empty slice).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Arithmetic mean (NaN for an empty slice).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        f64::NAN
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Cohen's κ between two raters over the same items: (p_o − p_e) / (1 − p_e), with p_e from the
/// raters' marginal frequencies. `None` when there is no item or when p_e = 1 (both raters use a
/// single, identical category: κ is undefined).
pub fn cohen_kappa<S: AsRef<str>>(pairs: &[(S, S)]) -> Option<f64> {
    let n = pairs.len();
    if n == 0 {
        return None;
    }
    let mut row: BTreeMap<&str, usize> = BTreeMap::new();
    let mut col: BTreeMap<&str, usize> = BTreeMap::new();
    let mut agree = 0usize;
    for (x, y) in pairs {
        *row.entry(x.as_ref()).or_default() += 1;
        *col.entry(y.as_ref()).or_default() += 1;
        agree += usize::from(x.as_ref() == y.as_ref());
    }
    let nf = n as f64;
    let po = agree as f64 / nf;
    let pe: f64 = row
        .iter()
        .map(|(c, r)| (*r as f64 / nf) * (col.get(c).copied().unwrap_or(0) as f64 / nf))
        .sum();
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    Some((po - pe) / (1.0 - pe))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // First outputs for seed 0 of the reference C implementation.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut r = SplitMix64::new(42);
        for _ in 0..10_000 {
            assert!(r.below(7) < 7);
        }
    }

    #[test]
    fn bootstrap_is_deterministic() {
        let a: Vec<f64> = (0..50).map(|i| ((i * 37) % 11) as f64 / 10.0).collect();
        let b: Vec<f64> = (0..50).map(|i| ((i * 53) % 13) as f64 / 12.0).collect();
        let x = paired_bootstrap(&a, &b, 1000, 42);
        let y = paired_bootstrap(&a, &b, 1000, 42);
        assert_eq!(x, y);
        let z = paired_bootstrap(&a, &b, 1000, 43);
        assert_eq!(x.mean_diff, z.mean_diff);
        assert_ne!((x.ci_low, x.ci_high), (z.ci_low, z.ci_high));
        assert!(x.ci_low <= x.mean_diff && x.mean_diff <= x.ci_high);
    }

    #[test]
    fn a_clear_improvement_excludes_zero() {
        // b beats a by 0.3 on 90 of 100 queries and loses 0.1 on 10: mean +0.26.
        let a = vec![0.2; 100];
        let b: Vec<f64> = (0..100)
            .map(|i| if i % 10 == 0 { 0.1 } else { 0.5 })
            .collect();
        let r = paired_bootstrap(&a, &b, 1000, 42);
        assert!((r.mean_diff - 0.26).abs() < 1e-12);
        assert!(r.ci_low > 0.0, "{r:?}");
        assert!(r.p_value < 0.01, "{r:?}");
        // And the reverse pair is symmetric.
        let s = paired_bootstrap(&b, &a, 1000, 42);
        assert!((s.mean_diff + 0.26).abs() < 1e-12 && s.ci_high < 0.0);
        // Identical systems: no difference, p = 1.
        let t = paired_bootstrap(&a, &a, 1000, 42);
        assert_eq!(
            (t.mean_diff, t.ci_low, t.ci_high, t.p_value),
            (0.0, 0.0, 0.0, 1.0)
        );
    }

    #[test]
    fn a_noisy_null_does_not_exclude_zero() {
        // Differences alternate +0.5 / −0.5: mean 0, CI straddles 0, p = 1.
        let a = vec![0.5; 40];
        let b: Vec<f64> = (0..40)
            .map(|i| if i % 2 == 0 { 1.0 } else { 0.0 })
            .collect();
        let r = paired_bootstrap(&a, &b, 1000, 42);
        assert!(
            r.ci_low < 0.0 && r.ci_high > 0.0 && r.p_value > 0.5,
            "{r:?}"
        );
    }

    #[test]
    fn kappa_on_a_hand_computed_table() {
        // Confusion table (rater A rows, rater B columns):
        //          yes  no
        //   yes     20   5
        //   no      10  15
        // n = 50, p_o = 35/50 = 0.7; A: yes 25, no 25; B: yes 30, no 20;
        // p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = (0.7 − 0.5) / 0.5 = 0.4.
        let mut pairs = Vec::new();
        pairs.extend(std::iter::repeat_n(("yes", "yes"), 20));
        pairs.extend(std::iter::repeat_n(("yes", "no"), 5));
        pairs.extend(std::iter::repeat_n(("no", "yes"), 10));
        pairs.extend(std::iter::repeat_n(("no", "no"), 15));
        assert!((cohen_kappa(&pairs).unwrap() - 0.4).abs() < 1e-12);
        // Three categories, pairs (a,a) (b,b) (a,c) (b,b):
        let p3 = [("a", "a"), ("b", "b"), ("a", "c"), ("b", "b")];
        // A: a 2, b 2; B: a 1, b 2, c 1; p_o = 3/4; p_e = (2·1 + 2·2)/16 = 6/16 = 0.375;
        // κ = (0.75 − 0.375) / 0.625 = 0.6.
        assert!((cohen_kappa(&p3).unwrap() - 0.6).abs() < 1e-12);
        assert_eq!(cohen_kappa(&[("x", "x"), ("x", "x")]), None);
        assert_eq!(cohen_kappa::<&str>(&[]), None);
    }

    #[test]
    fn percentiles() {
        let v = [5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(percentile_nearest_rank(&v, 50.0), 3.0);
        assert_eq!(percentile_nearest_rank(&v, 95.0), 5.0);
        assert_eq!(percentile_nearest_rank(&v, 20.0), 1.0);
        let s = [0.0, 10.0];
        assert_eq!(quantile_sorted(&s, 0.25), 2.5);
        assert_eq!(quantile_sorted(&[7.0], 0.975), 7.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}
