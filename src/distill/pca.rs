//! Principal component analysis: covariance in f64, symmetric eigen-decomposition by cyclic
//! Jacobi rotations. Deterministic: fixed loop orders, eigenpairs sorted by decreasing eigenvalue
//! (ties by index), each component's sign fixed so its largest-magnitude entry is positive.

/// A fitted PCA.
#[derive(Clone, Debug)]
pub struct Pca {
    /// Input dimension.
    pub input_dims: usize,
    /// Mean of the fitted rows.
    pub mean: Vec<f64>,
    /// All eigenvalues of the covariance, decreasing.
    pub eigenvalues: Vec<f64>,
    /// Principal axes, one row of `input_dims` per component, in eigenvalue order.
    pub components: Vec<Vec<f64>>,
}

impl Pca {
    /// Fits on `n` rows of `h` values (row-major `data`).
    pub fn fit(data: &[f32], n: usize, h: usize) -> Pca {
        assert_eq!(data.len(), n * h, "data is not n × h");
        assert!(n >= 1 && h >= 1);
        let mut mean = vec![0f64; h];
        for row in data.chunks_exact(h) {
            for (m, &x) in mean.iter_mut().zip(row) {
                *m += x as f64;
            }
        }
        mean.iter_mut().for_each(|m| *m /= n as f64);
        // Upper triangle of the scatter matrix.
        let mut cov = vec![0f64; h * h];
        let mut centred = vec![0f64; h];
        for row in data.chunks_exact(h) {
            for ((c, &x), m) in centred.iter_mut().zip(row).zip(&mean) {
                *c = x as f64 - m;
            }
            for a in 0..h {
                let xa = centred[a];
                let line = &mut cov[a * h + a..a * h + h];
                for (v, &xb) in line.iter_mut().zip(&centred[a..]) {
                    *v += xa * xb;
                }
            }
        }
        let denom = (n.max(2) - 1) as f64;
        for a in 0..h {
            for b in a..h {
                let v = cov[a * h + b] / denom;
                cov[a * h + b] = v;
                cov[b * h + a] = v;
            }
        }
        let (values, vectors) = jacobi_eigen(cov, h);
        let mut order: Vec<usize> = (0..h).collect();
        order.sort_by(|&i, &j| values[j].total_cmp(&values[i]).then(i.cmp(&j)));
        let eigenvalues = order.iter().map(|&i| values[i]).collect();
        let components = order
            .iter()
            .map(|&k| {
                let mut axis: Vec<f64> = (0..h).map(|a| vectors[a * h + k]).collect();
                let mut best = 0;
                for (i, v) in axis.iter().enumerate() {
                    if v.abs() > axis[best].abs() {
                        best = i;
                    }
                }
                if axis[best] < 0.0 {
                    axis.iter_mut().for_each(|v| *v = -*v);
                }
                axis
            })
            .collect();
        Pca {
            input_dims: h,
            mean,
            eigenvalues,
            components,
        }
    }

    /// Share of the total variance explained by the first `d` components.
    pub fn explained(&self, d: usize) -> f64 {
        let total: f64 = self.eigenvalues.iter().map(|v| v.max(0.0)).sum();
        if total <= 0.0 {
            return 0.0;
        }
        self.eigenvalues
            .iter()
            .take(d)
            .map(|v| v.max(0.0))
            .sum::<f64>()
            / total
    }

    /// Projects one row onto the first `out.len()` components.
    pub fn project(&self, x: &[f32], out: &mut [f32]) {
        for (o, axis) in out.iter_mut().zip(&self.components) {
            let mut s = 0f64;
            for ((&xi, m), a) in x.iter().zip(&self.mean).zip(axis) {
                s += (xi as f64 - m) * a;
            }
            *o = s as f32;
        }
    }
}

/// Eigen-decomposition of a symmetric `n × n` matrix (row-major) by cyclic Jacobi rotations.
/// Returns the eigenvalues and the eigenvectors as the columns of a row-major matrix.
pub fn jacobi_eigen(mut a: Vec<f64>, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut v = vec![0f64; n * n];
    for i in 0..n {
        v[i * n + i] = 1.0;
    }
    let total: f64 = a.iter().map(|x| x * x).sum();
    for _sweep in 0..100 {
        let mut off = 0f64;
        for p in 0..n {
            for q in p + 1..n {
                off += a[p * n + q] * a[p * n + q];
            }
        }
        if off <= total * 1e-26 || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 || apq.abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                // A ← A·J (columns p, q), then A ← Jᵀ·A (rows p, q); V ← V·J.
                for k in 0..n {
                    let (akp, akq) = (a[k * n + p], a[k * n + q]);
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p * n + k], a[q * n + k]);
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                a[p * n + q] = 0.0;
                a[q * n + p] = 0.0;
                for k in 0..n {
                    let (vkp, vkq) = (v[k * n + p], v[k * n + q]);
                    v[k * n + p] = c * vkp - s * vkq;
                    v[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    let values = (0..n).map(|i| a[i * n + i]).collect();
    (values, v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_diagonalises_a_known_matrix() {
        // Eigenvalues of [[2,1],[1,2]] are 3 and 1.
        let (vals, vecs) = jacobi_eigen(vec![2.0, 1.0, 1.0, 2.0], 2);
        let mut s = vals.clone();
        s.sort_by(f64::total_cmp);
        assert!(
            (s[0] - 1.0).abs() < 1e-12 && (s[1] - 3.0).abs() < 1e-12,
            "{vals:?}"
        );
        // A v = λ v for each column.
        for k in 0..2 {
            let (x, y) = (vecs[k], vecs[2 + k]);
            assert!((2.0 * x + y - vals[k] * x).abs() < 1e-12);
            assert!((x + 2.0 * y - vals[k] * y).abs() < 1e-12);
        }
    }

    #[test]
    fn pca_finds_the_main_axis() {
        // Points along (1, 1, 0) with small noise on z.
        let mut data = Vec::new();
        for i in 0..50 {
            let t = i as f32 - 25.0;
            data.extend([t, t, if i % 2 == 0 { 0.1 } else { -0.1 }]);
        }
        let p = Pca::fit(&data, 50, 3);
        let a = &p.components[0];
        let r = std::f64::consts::FRAC_1_SQRT_2;
        assert!(
            (a[0] - r).abs() < 1e-4 && (a[1] - r).abs() < 1e-4 && a[2].abs() < 1e-3,
            "{a:?}"
        );
        assert!(p.explained(1) > 0.999);
        let mut out = [0f32; 1];
        p.project(&[1.0, 1.0, 0.0], &mut out);
        let expected = ((1.0 + 0.5) * 2.0 * r) as f32; // mean is (-0.5, -0.5, 0)
        assert!((out[0] - expected).abs() < 1e-3, "{out:?}");
    }
}
