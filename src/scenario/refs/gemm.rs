//! CPU reference of the GEMM family (scenarios/gemm.toml): C = A·B for square n×n row-major
//! f32 matrices, summed in f64 and rounded once, on every core. Fast enough to run ahead of
//! the GPU at n = 4096 (69 G multiply-adds): blocked so that a block of C's accumulators
//! stays in the L1 while the rows of B stream past it.
use crate::scenario::data;
use crate::scenario::refs::{input, Contents};
use crate::scenario::Case;

/// Rows of C one block accumulates: each row of B read into the L1 is used this many times.
const ROWS: usize = 16;
/// Columns of C one block accumulates: ROWS × COLS f64 accumulators (32 KiB).
const COLS: usize = 256;

/// `c` = `a` · `b` for the f32 buffers `a`, `b` of n×n elements (row-major) and the param `n`.
pub fn gemm_f32(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let v = *case
        .params
        .get("n")
        .ok_or_else(|| "needs a param named `n`".to_string())?;
    if v < 1.0 || v.fract() != 0.0 {
        return Err(format!("param `n` = {v} is not a positive integer"));
    }
    let n = v as usize;
    let a = data::as_f32(input(inputs, "a", "gemm_f32")?);
    let b = data::as_f32(input(inputs, "b", "gemm_f32")?);
    for (name, m) in [("a", &a), ("b", &b)] {
        if m.len() != n * n {
            return Err(format!(
                "needs `{name}` as an {n}x{n} f32 matrix ({} elements), got {}",
                n * n,
                m.len()
            ));
        }
    }
    let c = matmul(&a, &b, n, n, n);
    Ok(Contents::from([("c".into(), data::from_f32(&c))]))
}

/// `c` (f32) = `a` · `b` for f16 buffers `a`, `b` of n×n elements (row-major): the tensor-core
/// GEMM's inputs (scenarios/gemm_tensor.toml). Each f16 is exact in f32 and f64, so the sums
/// are the same f64 sums as [`gemm_f32`]'s, rounded to f32 once.
pub fn gemm_f16_f32(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let v = *case
        .params
        .get("n")
        .ok_or_else(|| "needs a param named `n`".to_string())?;
    if v < 1.0 || v.fract() != 0.0 {
        return Err(format!("param `n` = {v} is not a positive integer"));
    }
    let n = v as usize;
    let half = |name: &str| -> Result<Vec<f32>, String> {
        let bytes = input(inputs, name, "gemm_f16_f32")?;
        if bytes.len() != n * n * 2 {
            return Err(format!(
                "needs `{name}` as an {n}x{n} f16 matrix ({} bytes), got {} bytes",
                n * n * 2,
                bytes.len()
            ));
        }
        Ok(bytes
            .chunks_exact(2)
            .map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32())
            .collect())
    };
    let (a, b) = (half("a")?, half("b")?);
    let c = matmul(&a, &b, n, n, n);
    Ok(Contents::from([("c".into(), data::from_f32(&c))]))
}

/// C = A·B with A m×k and B k×n, row-major; every element summed in f64 over k in order, then
/// rounded to f32 once. Rows of C are shared out over the cores.
fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    if m == 0 || n == 0 {
        return c;
    }
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let rows_per_thread = m.div_ceil(threads).max(1);
    std::thread::scope(|s| {
        for (t, rows) in c.chunks_mut(rows_per_thread * n).enumerate() {
            s.spawn(move || rows_of_c(a, b, rows, t * rows_per_thread, k, n));
        }
    });
    c
}

/// Fill `out` (whole rows of C, starting at row `row0`).
fn rows_of_c(a: &[f32], b: &[f32], out: &mut [f32], row0: usize, k: usize, n: usize) {
    let rows = out.len() / n;
    let mut acc = vec![0f64; ROWS * COLS];
    for i0 in (0..rows).step_by(ROWS) {
        let r = ROWS.min(rows - i0);
        for j0 in (0..n).step_by(COLS) {
            let w = COLS.min(n - j0);
            acc.fill(0.0);
            for kk in 0..k {
                let brow = &b[kk * n + j0..kk * n + j0 + w];
                for ri in 0..r {
                    let av = a[(row0 + i0 + ri) * k + kk] as f64;
                    // Independent accumulators: the compiler vectorizes this loop.
                    for (x, bv) in acc[ri * COLS..ri * COLS + w].iter_mut().zip(brow) {
                        *x += av * *bv as f64;
                    }
                }
            }
            for ri in 0..r {
                let dst = &mut out[(i0 + ri) * n + j0..(i0 + ri) * n + j0 + w];
                for (d, x) in dst.iter_mut().zip(&acc[ri * COLS..ri * COLS + w]) {
                    *d = *x as f32;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_product_by_hand() {
        // [1 2; 3 4] · [5 6; 7 8] = [19 22; 43 50]
        let c = matmul(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0, 7.0, 8.0], 2, 2, 2);
        assert_eq!(c, [19.0, 22.0, 43.0, 50.0]);
    }

    #[test]
    fn blocks_and_edges_agree_with_the_plain_triple_loop() {
        // Sizes that leave partial row and column blocks, and more threads than rows.
        for (m, k, n) in [(37, 19, 300), (1, 5, 1), (ROWS + 1, 3, COLS * 2 + 7)] {
            let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
            let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 * 0.5).collect();
            let c = matmul(&a, &b, m, k, n);
            for i in 0..m {
                for j in 0..n {
                    let want: f64 = (0..k)
                        .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                        .sum();
                    assert_eq!(c[i * n + j], want as f32, "({m}, {k}, {n}) at [{i}, {j}]");
                }
            }
        }
    }
}
