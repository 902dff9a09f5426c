//! CPU references of the calibration scenarios in peaks/ (`p3lab peak`): what each calibration
//! kernel must leave behind, so every peak comes from a kernel that computed the right thing.
use crate::scenario::data::from_f32;
use crate::scenario::refs::{input, par_map, Contents};
use crate::scenario::Case;

/// Floats of the sink every self-checking kernel writes (glsl/peak/result.glsl).
const SINK_LEN: usize = 1026;

/// glsl/peak/result.glsl: sink[0..1024) = 1.0 (result / expected of the first 1024
/// invocations), sink[1024] = sink[1025] = 0 (no invocation was wrong).
pub fn sink(_case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let n = input(inputs, "sink", "peak_sink")?.len() / 4;
    if n != SINK_LEN {
        return Err(format!(
            "`sink` must hold {SINK_LEN} floats (count = {SINK_LEN}), not {n}"
        ));
    }
    let mut v = vec![1.0f32; SINK_LEN];
    v[1024] = 0.0;
    v[1025] = 0.0;
    Ok(Contents::from([("sink".into(), from_f32(&v))]))
}

/// glsl/peak/bandwidth.comp, MODE 1: vec4 w of dst = (w, 1, 2, 3), w rounded to f32 as the
/// shader's float(i) rounds it.
pub fn write(_case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let words = input(inputs, "dst", "peak_write")?.len() / 16;
    let chunk = 1 << 16;
    let parts = par_map(words.div_ceil(chunk), |c| {
        let lo = c * chunk;
        let hi = (lo + chunk).min(words);
        (lo..hi)
            .flat_map(|w| [w as f32, 1.0, 2.0, 3.0])
            .collect::<Vec<f32>>()
    });
    let v: Vec<f32> = parts.concat();
    Ok(Contents::from([("dst".into(), from_f32(&v))]))
}

/// glsl/peak/bandwidth.comp, MODE 2: dst = src (as long as dst).
pub fn copy(_case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let src = input(inputs, "src", "peak_copy")?;
    let n = input(inputs, "dst", "peak_copy")?.len();
    if src.len() < n {
        return Err(format!(
            "src ({} bytes) is smaller than dst ({n})",
            src.len()
        ));
    }
    Ok(Contents::from([("dst".into(), src[..n].to_vec())]))
}

/// glsl/peak/atomic.comp: every counter = iters (one atomicAdd of 1 per iteration).
pub fn atomic(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let n = input(inputs, "counters", "peak_atomic")?.len() / 4;
    let iters = case
        .params
        .get("iters")
        .copied()
        .ok_or("needs a param named `iters`")?;
    let v = vec![iters as u32; n];
    Ok(Contents::from([(
        "counters".into(),
        v.iter().flat_map(|x| x.to_le_bytes()).collect(),
    )]))
}

/// x -> a * x + b composed with itself `n` times, modulo 2^64: (a^n, b * (a^(n-1) + ... + 1)),
/// by squaring.
fn affine_pow(a: u64, b: u64, mut n: u64) -> (u64, u64) {
    let (mut fa, mut fb) = (1u64, 0u64);
    let (mut pa, mut pb) = (a, b);
    while n != 0 {
        if n & 1 == 1 {
            // f <- p o f
            fb = pa.wrapping_mul(fb).wrapping_add(pb);
            fa = pa.wrapping_mul(fa);
        }
        // p <- p o p
        pb = pa.wrapping_mul(pb).wrapping_add(pb);
        pa = pa.wrapping_mul(pa);
        n >>= 1;
    }
    (fa, fb)
}

/// glsl/peak/vkpeak_int.comp (vkpeak's dual int64 kernel): out[gx] = c0 + c1 modulo 2^64, as
/// (low, high) u32 words, where c0 and c1 start at gx and lx = gx mod wg and take 8 * loop
/// steps of x -> gx * x + lx each.
pub fn int64_vk(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    vkpeak_int(case, inputs, "peak_int64_vk", 64)
}

/// glsl/peak/vkpeak_int.comp with INT32 (vkpeak's dual int32 kernel): the same modulo 2^32,
/// one u32 word per invocation.
pub fn int32_vk(case: &Case, inputs: &Contents) -> Result<Contents, String> {
    vkpeak_int(case, inputs, "peak_int32_vk", 32)
}

fn vkpeak_int(
    case: &Case,
    inputs: &Contents,
    reference: &str,
    bits: u32,
) -> Result<Contents, String> {
    let bytes = input(inputs, "out", reference)?.len();
    let param = |name: &str| {
        case.params
            .get(name)
            .copied()
            .filter(|v| *v >= 1.0 && v.fract() == 0.0)
            .map(|v| v as u64)
            .ok_or_else(|| format!("needs a param named `{name}`, a whole number >= 1"))
    };
    let (wg, loop_) = (param("wg")?, param("loop")?);
    let width = bits as usize / 8;
    if bytes % width != 0 {
        return Err(format!(
            "`out` must hold whole int{bits} values ({width} bytes each), not {bytes} bytes"
        ));
    }
    let steps = 8 * loop_;
    let values = par_map(bytes / width, |g| {
        let (a, b) = (g as u64, g as u64 % wg);
        let (fa, fb) = affine_pow(a, b, steps);
        let c0 = fa.wrapping_mul(a).wrapping_add(fb);
        let c1 = fa.wrapping_mul(b).wrapping_add(fb);
        c0.wrapping_add(c1)
    });
    // Modulo 2^32 the u64 arithmetic's low word is the int32 kernel's result.
    Ok(Contents::from([(
        "out".into(),
        values
            .iter()
            .flat_map(|v| v.to_le_bytes()[..width].to_vec())
            .collect(),
    )]))
}

/// glsl/peak/empty.comp: out[g] = g + 1 (every group ran).
pub fn launch(_case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let n = input(inputs, "out", "peak_launch")?.len() / 4;
    Ok(Contents::from([(
        "out".into(),
        (0..n as u32).flat_map(|g| (g + 1).to_le_bytes()).collect(),
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::data::as_f32;

    fn case() -> Case {
        Case {
            params: [("iters".to_string(), 5.0)].into(),
            params_label: String::new(),
            resources: vec![],
            check: None,
            variants: vec![],
            modes: vec![],
            cold_bytes: 0,
            evict: Default::default(),
            fresh: Default::default(),
            placement_check: false,
            placements: crate::scenario::Placements::Fixed(1),
            warmup: 0,
            warmup_ms: 0,
            reps: 1,
            timeout_ms: 1,
            rounds: 2,
            max_rounds: 2,
            ci_target_pct: 1.0,
            budget_ms: 1.0,
            counters: vec![],
            probe: false,
        }
    }

    #[test]
    fn the_int64_vk_reference_is_the_kernel_run_step_by_step() {
        // The kernel's loop, literally, for a few invocations, loops and workgroup sizes.
        for (wg, loop_) in [(1u64, 1u64), (32, 3), (128, 5)] {
            let mut c = case();
            c.params = [
                ("wg".to_string(), wg as f64),
                ("loop".to_string(), loop_ as f64),
            ]
            .into();
            let n = 300usize;
            let out = int64_vk(&c, &Contents::from([("out".into(), vec![0u8; 8 * n])])).unwrap();
            let out = &out["out"];
            for gx in [0usize, 1, 2, 31, 32, 33, 127, 128, 299] {
                let (a, b) = (gx as u64, gx as u64 % wg);
                let (mut c0, mut c1) = (a, b);
                for _ in 0..8 * loop_ {
                    c0 = a.wrapping_mul(c0).wrapping_add(b);
                    c1 = a.wrapping_mul(c1).wrapping_add(b);
                }
                let got = u64::from_le_bytes(out[8 * gx..8 * gx + 8].try_into().unwrap());
                assert_eq!(got, c0.wrapping_add(c1), "gx {gx}, wg {wg}, loop {loop_}");
            }
        }
        // The high word is there: gx = 299 overflows 32 bits within two steps.
        let (fa, _) = affine_pow(299, 0, 4);
        assert_eq!(fa, 299u64.pow(4));
        let mut c = case();
        c.params = [("wg".to_string(), 32.0)].into();
        let e = int64_vk(&c, &Contents::from([("out".into(), vec![0u8; 16])])).unwrap_err();
        assert!(e.contains("`loop`"), "{e}");
        // int32: the same steps modulo 2^32 (a gx past 2^16 overflows the first multiply).
        c.params = [("wg".to_string(), 64.0), ("loop".to_string(), 3.0)].into();
        let n = 70_000usize;
        let out = int32_vk(&c, &Contents::from([("out".into(), vec![0u8; 4 * n])])).unwrap();
        for gx in [0usize, 1, 63, 64, 65_537, 69_999] {
            let (a, b) = (gx as u32, gx as u32 % 64);
            let (mut c0, mut c1) = (a, b);
            for _ in 0..24 {
                c0 = a.wrapping_mul(c0).wrapping_add(b);
                c1 = a.wrapping_mul(c1).wrapping_add(b);
            }
            let got = u32::from_le_bytes(out["out"][4 * gx..4 * gx + 4].try_into().unwrap());
            assert_eq!(got, c0.wrapping_add(c1), "int32 gx {gx}");
        }
    }

    #[test]
    fn references_have_the_documented_layouts() {
        let c = case();
        let s = sink(&c, &Contents::from([("sink".into(), vec![0u8; 4 * 1026])])).unwrap();
        let s = as_f32(&s["sink"]);
        assert_eq!((s[0], s[1023], s[1024], s[1025]), (1.0, 1.0, 0.0, 0.0));
        assert!(sink(&c, &Contents::from([("sink".into(), vec![0u8; 16])])).is_err());
        let w = write(&c, &Contents::from([("dst".into(), vec![0u8; 32])])).unwrap();
        assert_eq!(
            as_f32(&w["dst"]),
            vec![0.0, 1.0, 2.0, 3.0, 1.0, 1.0, 2.0, 3.0]
        );
        let a = atomic(&c, &Contents::from([("counters".into(), vec![0u8; 8])])).unwrap();
        assert_eq!(a["counters"], [5, 0, 0, 0, 5, 0, 0, 0]);
        let l = launch(&c, &Contents::from([("out".into(), vec![0u8; 8])])).unwrap();
        assert_eq!(l["out"], [1, 0, 0, 0, 2, 0, 0, 0]);
    }
}
