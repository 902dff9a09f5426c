//! Tests of the declared and counted verdicts.
use super::*;
use crate::results::record::{with_verdict, Counted, UnitPcts};
use crate::results::{cell, ResultRow};

/// The declared work a test row holds.
fn work_of(r: &ResultRow) -> Work {
    Work {
        bytes_read: r.bytes_read,
        bytes_written: r.bytes_written,
        flops: r.flops,
        shared_bytes: r.shared_bytes,
        texels: r.texels,
        texels_linear: r.texels_linear,
        atomics: r.atomics,
        shared_atomics: r.shared_atomics,
        int_ops: r.int_ops,
        sfu_ops: r.sfu_ops,
        l1_bytes: r.l1_bytes,
        l2_bytes: r.l2_bytes,
        footprint_bytes: r.footprint_bytes,
        fp64_flops: r.fp64_flops,
        int8_dot_ops: r.int8_dot_ops,
        int16_ops: r.int16_ops,
        int64_ops: r.int64_ops,
        tensor_flops: r.tensor_flops,
        fp16_flops: r.fp16_flops,
        tensor_unit: r.tensor_unit.clone(),
        texture_unit: r.texture_unit.clone(),
    }
}

/// The verdict a test row holds (its flags as one).
fn verdict_of(r: &ResultRow) -> Verdict {
    Verdict {
        memory_level: r.memory_level,
        pcts: UnitPcts {
            dram_pct: r.dram_pct,
            l2_pct: r.l2_pct,
            flop_pct: r.flop_pct,
            shared_pct: r.shared_pct,
            texture_pct: r.texture_pct,
            atomic_pct: r.atomic_pct,
            shared_atomic_pct: r.shared_atomic_pct,
            int_pct: r.int_pct,
            sfu_pct: r.sfu_pct,
            l1_pct: r.l1_pct,
            launch_pct: r.launch_pct,
            fp64_pct: r.fp64_pct,
            int8_dot_pct: r.int8_dot_pct,
            int16_pct: r.int16_pct,
            int64_pct: r.int64_pct,
            tensor_pct: r.tensor_pct,
            fp16_pct: r.fp16_pct,
        },
        limiter: r.limiter.clone(),
        limiter_pct: r.limiter_pct,
        limiter_evidence: r.limiter_evidence.clone(),
        limiter_source: r.limiter_source,
        declared_over_units: r.declared_over_units.clone(),
        declared_over_peak: r.declared_over_peak,
        hw_limiter: r.hw_limiter.clone(),
        hw_limiter_pct: r.hw_limiter_pct,
        declared_limiter: r.declared_limiter.clone(),
        declared_limiter_pct: r.declared_limiter_pct,
        flags: [r.flags.clone()]
            .into_iter()
            .filter(|f| !f.is_empty())
            .collect(),
    }
}

/// A test row with the declared verdict from its own columns, as the edge writes it.
fn derived(r: ResultRow, peaks: &Peaks, warm: bool) -> ResultRow {
    if r.median_ns.is_none_or(|m| m <= 0.0) {
        return r;
    }
    let work = work_of(&r);
    let input = Input {
        median_ns: r.median_ns,
        work: &work,
        workgroups: r.workgroups,
        spill_bytes_per_thread: r.spill_bytes_per_thread,
        occupancy_pct: r.occupancy_pct,
        occupancy_waves_per_unit: r.occupancy_waves_per_unit,
        occupancy_limiter: &r.occupancy_limiter,
        achieved_waves_per_unit: r.achieved_waves_per_unit,
        warm,
    };
    let v = derive(&input, peaks);
    with_verdict(r, &v)
}

/// A test row with the counted verdict from its own `hw_*` columns, as the edge writes it.
fn counted(r: ResultRow) -> ResultRow {
    let mut v = verdict_of(&r);
    let c = Counted {
        hw_sm_pct: r.hw_sm_pct,
        hw_dram_pct: r.hw_dram_pct,
        hw_l2_pct: r.hw_l2_pct,
        hw_l1tex_pct: r.hw_l1tex_pct,
        hw_tensor_pct: r.hw_tensor_pct,
        hw_fma_pct: r.hw_fma_pct,
        hw_fmaheavy_pct: r.hw_fmaheavy_pct,
        hw_alu_pct: r.hw_alu_pct,
        hw_fp64_pct: r.hw_fp64_pct,
        hw_xu_pct: r.hw_xu_pct,
        hw_shared_pct: r.hw_shared_pct,
        hw_tex_pct: r.hw_tex_pct,
        hw_dram_read_bytes: r.hw_dram_read_bytes,
        hw_dram_write_bytes: r.hw_dram_write_bytes,
        lead: true,
        ..Default::default()
    };
    apply_counted(&mut v, &c, &work_of(&r));
    with_verdict(
        ResultRow {
            flags: String::new(),
            ..r
        },
        &v,
    )
}

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
    r = derived(r, &peaks(), true);
    assert_eq!((cell(&r.memory_level).as_str(), r.dram_pct), ("l2", None));
    assert!((r.l2_pct.unwrap() - 39.0).abs() < 1e-9);
    let mut c = row(33e6 / 3900.0);
    c.bytes_read = Some(33_000_000);
    c = derived(c, &peaks(), false);
    assert_eq!(cell(&c.memory_level), "dram", "cold mode evicted the L2");
    assert!((c.dram_pct.unwrap() - 3900.0 / 4200.0 * 100.0).abs() < 1e-9);
    assert_eq!((cell(&c.limiter).as_str(), c.flags.as_str()), ("dram", ""));
    // An explicit footprint over the capacity wins over bytes read.
    let mut f = row(1e6);
    f.bytes_read = Some(1_000_000);
    f.footprint_bytes = Some(100_000_000);
    f = derived(f, &peaks(), true);
    assert_eq!(cell(&f.memory_level), "dram");
    // No capacity measured: DRAM, and the level is not claimed.
    let mut p = peaks();
    p.l2_capacity = None;
    let mut n = row(1e6);
    n.bytes_read = Some(1_000_000);
    n = derived(n, &p, true);
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
    t = derived(t, &peaks(), true);
    assert_eq!(cell(&t.limiter), "texture");
    assert!((t.limiter_pct.unwrap() - 96.0).abs() < 1e-9);
    assert!(t.limiter_evidence.contains(">= 60 %"));
    // Point and bilinear shares of one texture unit add up.
    let mut tb = row(1e6);
    tb.texels = Some(300_000);
    tb.texels_linear = Some(200_000);
    tb = derived(tb, &peaks(), true);
    assert!((tb.texture_pct.unwrap() - 70.0).abs() < 1e-9);
    // Issue 12's occupancy nreg128: fp32 at 50 % with 608 spill bytes is not fp32-bound.
    let mut s = row(1e6);
    s.flops = Some(30_000_000_000);
    s.spill_bytes_per_thread = Some(608);
    s = derived(s, &peaks(), true);
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
    o = derived(o, &peaks(), true);
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
    e = derived(e, &peaks(), true);
    assert_eq!(cell(&e.limiter), "latency");
    assert!(e.limiter_evidence.contains("empty dispatch"));
    // Nothing declared, no peaks.
    let mut z = row(1e6);
    z = derived(z, &Peaks::default(), true);
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
        r = derived(r, &peaks(), true);
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
    r = derived(r, &p, true);
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
    r = derived(r, &p, true);
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
    r = derived(r, &peaks(), true);
    assert_eq!(r.texture_pct, None);
    assert_eq!(r.declared_over_units, "texture");
    assert_eq!(cell(&r.limiter), "l2");
    assert!((r.limiter_pct.unwrap() - 70.0).abs() < 1e-9);
    assert!(r.flags.contains("include reuse"), "{}", r.flags);
    // Alone over 100: the declaration gives no verdict, and says why.
    let mut a = row(1e6);
    a.texels = Some(1_300_000);
    a = derived(a, &peaks(), true);
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
    c = derived(c, &peaks(), true);
    c.hw_tex_pct = Some(81.0);
    c.hw_l1tex_pct = Some(88.0);
    c.hw_sm_pct = Some(40.0);
    c = counted(c);
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
    r = counted(r);
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
    l = counted(l);
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
    as_fp32 = derived(as_fp32, &p, true);
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
    r = derived(r, &p, true);
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
        r = derived(r, p, true);
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
    b = derived(b, &p, true);
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
