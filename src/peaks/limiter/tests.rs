//! Tests of the declared and counted verdicts.
use super::*;
use crate::results::cell;

fn peaks() -> Peaks {
    let mut p = Peaks::default();
    for (u, v) in [
        ("dram_read", 4000.0),
        ("dram_copy", 4200.0),
        ("l2_read", 10000.0),
        ("fp32", 60000.0),
        ("texture_point", 1.0),
        ("texture_bilinear", 0.5),
        ("launch", 2.0),
        ("empty", 2000.0),
    ] {
        p.values.insert(u.into(), v);
    }
    p.l2_capacity = Some(50e6);
    p
}

fn row(median_ns: f64) -> ResultRow {
    ResultRow {
        median_ns: Some(median_ns),
        ..Default::default()
    }
}

#[test]
fn a_footprint_that_fits_the_l2_counts_against_the_l2_in_warm_mode_only() {
    // The reduction ladder of issue 12: 33 MB read at 3.9 TB/s.
    let mut r = row(33e6 / 3900.0);
    r.bytes_read = Some(33_000_000);
    derive(&mut r, &peaks(), true);
    assert_eq!((cell(&r.memory_level).as_str(), r.dram_pct), ("l2", None));
    assert!((r.l2_pct.unwrap() - 39.0).abs() < 1e-9);
    let mut c = row(33e6 / 3900.0);
    c.bytes_read = Some(33_000_000);
    derive(&mut c, &peaks(), false);
    assert_eq!(cell(&c.memory_level), "dram", "cold mode evicted the L2");
    assert!((c.dram_pct.unwrap() - 3900.0 / 4200.0 * 100.0).abs() < 1e-9);
    assert_eq!((cell(&c.limiter).as_str(), c.flags.as_str()), ("dram", ""));
    // An explicit footprint over the capacity wins over bytes read.
    let mut f = row(1e6);
    f.bytes_read = Some(1_000_000);
    f.footprint_bytes = Some(100_000_000);
    derive(&mut f, &peaks(), true);
    assert_eq!(cell(&f.memory_level), "dram");
    // No capacity measured: DRAM, and the level is not claimed.
    let mut p = peaks();
    p.l2_capacity = None;
    let mut n = row(1e6);
    n.bytes_read = Some(1_000_000);
    derive(&mut n, &p, true);
    assert_eq!(
        (cell(&n.memory_level).as_str(), n.dram_pct.is_some()),
        ("", true)
    );
}

#[test]
fn limiter_is_a_busy_unit_or_the_evidence_for_latency_or_occupancy() {
    // Texture-bound filter: 0.96 T fetches/s against a 1 T peak.
    let mut t = row(1e6);
    t.texels = Some(960_000);
    t.bytes_read = Some(300_000_000);
    derive(&mut t, &peaks(), true);
    assert_eq!(cell(&t.limiter), "texture");
    assert!((t.limiter_pct.unwrap() - 96.0).abs() < 1e-9);
    assert!(t.limiter_evidence.contains(">= 60 %"));
    // Point and bilinear shares of one texture unit add up.
    let mut tb = row(1e6);
    tb.texels = Some(300_000);
    tb.texels_linear = Some(200_000);
    derive(&mut tb, &peaks(), true);
    assert!((tb.texture_pct.unwrap() - 70.0).abs() < 1e-9);
    // Issue 12's occupancy nreg128: fp32 at 50 % with 608 spill bytes is not fp32-bound.
    let mut s = row(1e6);
    s.flops = Some(30_000_000_000);
    s.spill_bytes_per_thread = Some(608);
    derive(&mut s, &peaks(), true);
    assert_eq!(
        (cell(&s.limiter).as_str(), s.limiter_pct),
        ("latency", None)
    );
    assert!(
        s.limiter_evidence.contains("608 spill bytes"),
        "{}",
        s.limiter_evidence
    );
    assert!(
        s.limiter_evidence.contains("fp32, is at 50 %"),
        "{}",
        s.limiter_evidence
    );
    // Low occupancy, no spills: occupancy, achieved where probed.
    let mut o = row(1e6);
    o.flops = Some(6_000_000_000);
    o.occupancy_pct = Some(50.0);
    o.occupancy_waves_per_unit = Some(32);
    o.achieved_waves_per_unit = Some(16);
    o.occupancy_limiter = "registers".into();
    derive(&mut o, &peaks(), true);
    assert_eq!(cell(&o.limiter), "occupancy");
    assert!(
        o.limiter_evidence.contains("25 % achieved occupancy"),
        "{}",
        o.limiter_evidence
    );
    assert!(o.limiter_evidence.contains("limited by registers"));
    // Near an empty dispatch: fixed cost.
    let mut e = row(3000.0);
    e.flops = Some(1000);
    derive(&mut e, &peaks(), true);
    assert_eq!(cell(&e.limiter), "latency");
    assert!(e.limiter_evidence.contains("empty dispatch"));
    // Nothing declared, no peaks.
    let mut z = row(1e6);
    derive(&mut z, &Peaks::default(), true);
    assert_eq!(cell(&z.limiter), "none");
}

#[test]
fn declared_l2_requests_tell_an_l2_bound_order_from_one_waiting_on_dram() {
    // shared/seeds/000 (the L2-locality article) on the H200 (tiling_l2, R = 256): 7.2 GB of taps and stores a repetition,
    // a 2.4 GB footprint. Row-major: 1.52 ms; tiles of 4 groups: 1.06 ms.
    for (ms, limiter) in [(1.52, "latency"), (1.06, "l2")] {
        let mut r = row(ms * 1e6);
        r.bytes_read = Some(1_200_000_000);
        r.bytes_written = Some(1_200_000_000);
        r.l2_bytes = Some(7_200_000_000);
        derive(&mut r, &peaks(), true);
        assert_eq!(
            (cell(&r.memory_level).as_str(), cell(&r.limiter).as_str()),
            ("dram", limiter)
        );
        let l2 = 7.2e9 / (ms * 1e6) / 10000.0 * 100.0;
        assert!((r.l2_pct.unwrap() - l2).abs() < 1e-9);
    }
}

#[test]
fn percentages_over_100_and_suspect_peaks_are_flagged() {
    let mut p = peaks();
    p.suspect.push("fp32".into());
    let mut r = row(1e6);
    r.bytes_read = Some(4_300_000_000);
    r.footprint_bytes = Some(1 << 30);
    r.flops = Some(1_000_000);
    derive(&mut r, &p, true);
    assert!(
        r.flags
            .contains("dram_pct: declared 102.4 % of the dram_read peak, over 100: the declared bytes include reads the L2 served"),
        "{}",
        r.flags
    );
    assert!(
        r.flags
            .contains("flop_pct uses a peak that peaks.csv marks suspect"),
        "{}",
        r.flags
    );
    // Issue 39: an impossible figure is no verdict and no cell; it is kept apart.
    assert_eq!(r.dram_pct, None);
    assert_eq!(r.declared_over_units, "dram");
    assert!((r.declared_over_peak.unwrap() - 102.4).abs() < 0.05);
    assert_ne!(cell(&r.limiter), "dram");
    assert!(r.limiter_pct.is_none_or(|v| v <= 100.0));
    // Flags name results.csv's columns (issue 29): int32's is `int_pct`.
    p.values.insert("int32".into(), 30_000.0);
    let mut r = row(1e3);
    r.int_ops = Some(1_000_000_000);
    derive(&mut r, &p, true);
    assert!(
        r.flags.contains("int_pct: declared 3333.3 %"),
        "{}",
        r.flags
    );
    assert!(!r.flags.contains("int32_pct"), "{}", r.flags);
}

/// Issue 39, the H100 suite's cases: the tiling filter's texels over the texture peak (texel
/// reuse) and a tensor GEMM's DRAM bytes over the DRAM peak (L2 hits) never decide; the next
/// possible unit does, and every figure left in a `*_pct` cell is at most 100.
#[test]
fn a_declared_figure_over_100_is_never_the_limiter() {
    let mut r = row(1e6);
    r.texels = Some(1_300_000); // 130 % of texture_point's 1 Gtexel/s
    r.l2_bytes = Some(7_000_000_000); // 70 % of the L2
    derive(&mut r, &peaks(), true);
    assert_eq!(r.texture_pct, None);
    assert_eq!(r.declared_over_units, "texture");
    assert_eq!(cell(&r.limiter), "l2");
    assert!((r.limiter_pct.unwrap() - 70.0).abs() < 1e-9);
    assert!(r.flags.contains("include reuse"), "{}", r.flags);
    // Alone over 100: the declaration gives no verdict, and says why.
    let mut a = row(1e6);
    a.texels = Some(1_300_000);
    derive(&mut a, &peaks(), true);
    assert_eq!(cell(&a.limiter), "none");
    assert!(a.limiter_pct.is_none());
    assert!(
        a.limiter_evidence
            .contains("every declared figure is over 100 % (texture)"),
        "{}",
        a.limiter_evidence
    );
    // Counted: the counter behind the unit stands in, marked as such.
    let mut c = row(1e6);
    c.texels = Some(1_300_000);
    derive(&mut c, &peaks(), true);
    c.hw_tex_pct = Some(81.0);
    c.hw_l1tex_pct = Some(88.0);
    c.hw_sm_pct = Some(40.0);
    apply_counted(&mut c);
    assert_eq!(c.texture_pct, Some(81.0));
    assert_eq!(cell(&c.limiter), "l1tex");
    assert!(
        c.flags
            .contains("texture: the counted tex (hw_tex_pct) 81 % stands in"),
        "{}",
        c.flags
    );
    assert!(
        c.limiter_evidence.contains("busiest pipe tex at 81 %"),
        "{}",
        c.limiter_evidence
    );
}

#[test]
fn a_busy_counted_unit_against_declared_waiting_is_flagged() {
    // Declared latency, counted SM at 96 %: the scenario declares less than the GPU did.
    let mut r = row(1000.0);
    r.limiter = Some(Limiter::Latency);
    r.hw_sm_pct = Some(96.0);
    r.hw_dram_pct = Some(3.0);
    apply_counted(&mut r);
    assert_eq!(cell(&r.limiter), "sm");
    assert_eq!(cell(&r.declared_limiter), "latency");
    assert!(
        r.flags.contains("counted `sm` but declared `latency`"),
        "{}",
        r.flags
    );
    // Declared launch alone is not judged against the counters (no counted unit).
    let mut l = row(1000.0);
    l.limiter = Some(Limiter::one("launch"));
    l.hw_sm_pct = Some(96.0);
    apply_counted(&mut l);
    assert!(!l.flags.contains("limiter:"), "{}", l.flags);
}

#[test]
fn fp16_work_counts_against_the_fp16_peak_not_fp32s() {
    // Hopper: FP16 at 2x FP32 (issue 26). 1e8 flops in 1 ms is 100 TFLOP/s: 167 % of FP32's
    // 60 TFLOP/s as `flops`, 80 % of FP16's 125 as `fp16_flops`.
    let mut p = peaks();
    p.values.insert("fp16".into(), 125_000.0);
    let mut as_fp32 = ResultRow {
        flops: Some(100_000_000),
        ..row(1_000.0)
    };
    derive(&mut as_fp32, &p, true);
    assert!(
        as_fp32
            .flags
            .contains("flop_pct: declared 166.7 % of the fp32 peak, over 100"),
        "{}",
        as_fp32.flags
    );
    let mut r = ResultRow {
        fp16_flops: Some(100_000_000),
        ..row(1_000.0)
    };
    derive(&mut r, &p, true);
    assert!((r.fp16_pct.unwrap() - 80.0).abs() < 1e-9);
    assert_eq!(r.flop_pct, None);
    assert_eq!(cell(&r.limiter), "fp16");
    assert!(r.flags.is_empty(), "{}", r.flags);
}

#[test]
fn texels_count_against_the_texture_unit_the_row_names() {
    // The tiling filter of issue 26: texelFetch on rgba16f at 0.7 of the rgba8 point peak is
    // 98 % of the rgba16f texelFetch peak.
    let mut p = peaks();
    p.values.insert("texture_fetch_rgba16f".into(), 0.714);
    let named = |p: &Peaks, unit: Option<&str>| {
        let mut r = ResultRow {
            texels: Some(700_000),
            texture_unit: unit.map(str::to_string),
            ..row(1e6)
        };
        derive(&mut r, p, true);
        r
    };
    let r = named(&p, Some("texture_fetch_rgba16f"));
    assert!(
        (r.texture_pct.unwrap() - 0.7 / 0.714 * 100.0).abs() < 1e-9,
        "{r:?}"
    );
    assert_eq!(cell(&r.limiter), "texture");
    // No unit named: the rgba8 point peak (1.0 here), as before.
    let r = named(&p, None);
    assert!((r.texture_pct.unwrap() - 70.0).abs() < 1e-9, "{r:?}");
    // A named unit without a peak (an older peaks.csv) gives no texels share.
    let r = named(&p, Some("texture_fetch_rgba32f"));
    assert_eq!(r.texture_pct, None, "{r:?}");
    // Bilinear fetches still count against bilinear, beside the named unit's share.
    let mut b = ResultRow {
        texels: Some(357_000),
        texels_linear: Some(200_000),
        texture_unit: Some("texture_fetch_rgba16f".into()),
        ..row(1e6)
    };
    derive(&mut b, &p, true);
    assert!(
        (b.texture_pct.unwrap() - (0.357 / 0.714 + 0.2 / 0.5) * 100.0).abs() < 1e-9,
        "{b:?}"
    );
    // Only the peaks the row was divided by make its texture_pct suspect.
    p.suspect.push("texture_point".into());
    let r = named(&p, Some("texture_fetch_rgba16f"));
    assert!(!r.flags.contains("suspect"), "{}", r.flags);
    let r = named(&p, None);
    assert!(
        r.flags
            .contains("texture_pct uses a peak that peaks.csv marks suspect"),
        "{}",
        r.flags
    );
    p.suspect = vec!["texture_fetch_rgba16f".into()];
    let r = named(&p, Some("texture_fetch_rgba16f"));
    assert!(r.flags.contains("suspect"), "{}", r.flags);
}
