//! The calibration tests: rows to peaks, the cross-unit rules on published tables, the L2
//! knee.
use super::*;

/// A peaks table of published figures, in GFLOP/s or Gop/s.
fn table(units: &[(&str, f64)]) -> Vec<Peak> {
    units
        .iter()
        .map(|(u, v)| Peak {
            schema_version: PEAKS_SCHEMA_VERSION,
            device_name: "synthetic".into(),
            device_uuid: "u".into(),
            driver_version: 1,
            unit: (*u).into(),
            value: Some(*v),
            value_unit: "gflops_per_s".into(),
            best_variant: format!("{u}-a"),
            median_ns: None,
            median_ci_low_ns: None,
            median_ci_high_ns: None,
            cv_pct: None,
            n: None,
            status: super::super::PeakStatus::Ok,
            reason: String::new(),
            variants: Some(2),
            counted_metric: String::new(),
            counted_pct: None,
        })
        .collect()
}

fn suspects(units: &[(&str, f64)]) -> Vec<(String, String)> {
    let mut t = table(units);
    cross_check(&mut t);
    t.into_iter()
        .filter(|p| p.status == "suspect")
        .map(|p| (p.unit, p.reason))
        .collect()
}

#[test]
fn cross_unit_rules_hold_on_published_peaks_of_several_architectures() {
    // Vendor datasheets, non-tensor (vector) rates in GFLOP/s. MI300X's vector FP16 is not
    // published beside its FP32 (163.4) and FP64 (81.7): left out.
    for (gpu, units) in [
        (
            "H100 SXM",
            &[("fp32", 66_900.0), ("fp16", 133_800.0), ("fp64", 33_500.0)][..],
        ),
        (
            "A100",
            &[("fp32", 19_500.0), ("fp16", 78_000.0), ("fp64", 9_700.0)][..],
        ),
        (
            "RTX 4090",
            &[("fp32", 82_600.0), ("fp16", 82_600.0), ("fp64", 1_290.0)][..],
        ),
        ("MI300X", &[("fp32", 163_400.0), ("fp64", 81_700.0)][..]),
        // Dense tensor rates (no sparsity) beside FP32, from the datasheets.
        (
            "H100 SXM tensor",
            &[
                ("fp32", 66_900.0),
                ("tensor_f16_f32", 989_400.0),
                ("tensor_f16_f16", 989_400.0),
                ("tensor_s8_s32", 1_978_900.0),
            ][..],
        ),
        (
            "A100 tensor",
            &[
                ("fp32", 19_500.0),
                ("tensor_f16_f32", 312_000.0),
                ("tensor_s8_s32", 624_000.0),
            ][..],
        ),
        (
            "RTX 4090 tensor",
            &[
                ("fp32", 82_600.0),
                ("tensor_f16_f16", 330_300.0),
                ("tensor_f16_f32", 165_200.0),
                ("tensor_s8_s32", 660_600.0),
            ][..],
        ),
        (
            "RX 7900 XTX (WMMA)",
            &[("fp32", 61_400.0), ("tensor_f16_f32", 122_800.0)][..],
        ),
        (
            "B200 tensor",
            &[
                ("fp32", 80_000.0),
                ("tensor_f16_f32", 2_250_000.0),
                ("tensor_s8_s32", 4_500_000.0),
            ][..],
        ),
        // A 1:1 GPU measured with FP16 5 % under FP32 (noise) is still believed.
        (
            "RTX 4090, noisy",
            &[("fp32", 82_600.0), ("fp16", 78_500.0)][..],
        ),
        // Texture rates in Gtexel/s. H100 as measured (reports/nvidia-h100/i26-fp16; bilinear
        // from i25/peak/peaks.csv): rgba8 point sampling at 1.36x texture units x clock,
        // the L1TEX data path the limit.
        (
            "H100 texture (measured)",
            &[
                ("texture_point", 1421.0),
                ("texture_point_rgba16f", 790.9),
                ("texture_point_rgba32f", 530.0),
                ("texture_fetch_rgba8", 1366.0),
                ("texture_fetch_rgba16f", 750.1),
                ("texture_fetch_rgba32f", 514.0),
                ("texture_bilinear", 1021.4),
            ][..],
        ),
        // A GPU whose texture units are the limit, one texel per unit and clock in every
        // format up to 64 bits and half rate at 128 (bilinear too): equal rates pass.
        (
            "texel-rate-bound GPU",
            &[
                ("texture_point", 1000.0),
                ("texture_point_rgba16f", 1000.0),
                ("texture_point_rgba32f", 500.0),
                ("texture_fetch_rgba8", 1030.0),
                ("texture_fetch_rgba16f", 1000.0),
                ("texture_fetch_rgba32f", 500.0),
                ("texture_bilinear", 1000.0),
            ][..],
        ),
        // Noise: rgba16f 5 % over rgba8 and bilinear 8 % over point are within the slack;
        // texelFetch faster than texture() (no rule across paths).
        (
            "texture, noisy",
            &[
                ("texture_point", 1000.0),
                ("texture_point_rgba16f", 1050.0),
                ("texture_fetch_rgba8", 1500.0),
                ("texture_bilinear", 1080.0),
            ][..],
        ),
    ] {
        assert_eq!(suspects(units), vec![], "{gpu}");
    }
}

#[test]
fn cross_unit_rules_flag_impossible_ratios() {
    // Hopper's FP16 at half the FP32 rate: a kernel converting through FP32.
    let s = suspects(&[("fp32", 66_900.0), ("fp16", 33_000.0)]);
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(s[0].0, "fp16");
    assert!(s[0].1.contains("at least at the FP32 rate"), "{}", s[0].1);
    // Over 4x FP32 (4.4x with the slack): no GPU's vector FP16 is that fast.
    let s = suspects(&[("fp32", 19_500.0), ("fp16", 90_000.0)]);
    assert!(s[0].1.contains("at most 4x FP32"), "{s:?}");
    // FP64 faster than FP32, int64 faster than int32.
    let s = suspects(&[
        ("fp32", 10_000.0),
        ("fp64", 12_000.0),
        ("int32", 30_000.0),
        ("int64", 40_000.0),
    ]);
    let units: Vec<&str> = s.iter().map(|(u, _)| u.as_str()).collect();
    assert_eq!(units, ["fp64", "int64"], "{s:?}");
    assert!(s[0].1.contains("fp64 at 1.20x fp32"), "{}", s[0].1);
    // A "tensor" kernel slower than FP32 is not on the matrix units; one at 100x is wrong.
    let s = suspects(&[
        ("fp32", 66_900.0),
        ("tensor_f16_f32", 40_000.0),
        ("tensor_s8_s32", 7_000_000.0),
    ]);
    let units: Vec<&str> = s.iter().map(|(u, _)| u.as_str()).collect();
    assert_eq!(units, ["tensor_f16_f32", "tensor_s8_s32"], "{s:?}");
    assert!(s[0].1.contains("at least at the FP32 rate"), "{}", s[0].1);
    assert!(s[1].1.contains("no GPU's matrix units"), "{}", s[1].1);
    // A wider texel fetched faster than a narrower one on the same path; rgba32f is
    // compared with rgba8 where rgba16f failed; bilinear faster than point sampling.
    let s = suspects(&[
        ("texture_point", 1000.0),
        ("texture_point_rgba16f", 1300.0),
        ("texture_point_rgba32f", 500.0),
        ("texture_fetch_rgba8", 900.0),
        ("texture_fetch_rgba32f", 1000.0),
        ("texture_bilinear", 1200.0),
    ]);
    let units: Vec<&str> = s.iter().map(|(u, _)| u.as_str()).collect();
    assert_eq!(
        units,
        [
            "texture_point_rgba16f",
            "texture_fetch_rgba32f",
            "texture_bilinear"
        ],
        "{s:?}"
    );
    assert!(
        s[0].1
            .contains("texture_point_rgba16f at 1.30x texture_point")
            && s[0].1.contains("wider texel"),
        "{}",
        s[0].1
    );
    assert!(
        s[1].1
            .contains("texture_fetch_rgba32f at 1.11x texture_fetch_rgba8"),
        "{}",
        s[1].1
    );
    assert!(
        s[2].1.contains("texture_bilinear at 1.20x texture_point"),
        "{}",
        s[2].1
    );
    // rgba32f over rgba8 is suspect even when rgba16f sits between them within the slack.
    let s = suspects(&[
        ("texture_fetch_rgba8", 1000.0),
        ("texture_fetch_rgba16f", 1080.0),
        ("texture_fetch_rgba32f", 1150.0),
    ]);
    assert_eq!(s.len(), 1, "{s:?}");
    assert!(
        s[0].1.contains("at 1.15x texture_fetch_rgba8"),
        "{}",
        s[0].1
    );
    // A failed unit has no value to compare.
    let mut t = table(&[("fp32", 10_000.0), ("fp16", 1.0)]);
    t[1].status = super::super::PeakStatus::Failed;
    cross_check(&mut t);
    assert_eq!(t[1].status, "failed");
}
