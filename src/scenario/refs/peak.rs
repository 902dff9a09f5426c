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
