//! Random inputs through the 6318b02 path (rows filled in place) and the typed record's path:
//! the rows must be identical.
use crate::measure::batch::Batch;
use crate::measure::hw::{HwMeasured, HwOutcome, HwStatus, HwValues};
use crate::measure::plan::Settings;
use crate::measure::schedule::Track;
use crate::peaks::Peaks;
use crate::results::record::*;
use crate::results::{Check, Mode, ResultRow, RowStatus};
use crate::scenario::Work;

struct Rng(u64);
impl Rng {
    fn u(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn f(&mut self) -> f64 {
        (self.u() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn b(&mut self, p: f64) -> bool {
        self.f() < p
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[(self.u() % xs.len() as u64) as usize]
    }
}

const UNITS: [&str; 22] = [
    "dram_read",
    "dram_write",
    "dram_copy",
    "l2_read",
    "fp32",
    "fp16",
    "shared",
    "texture_point",
    "texture_bilinear",
    "texture_fetch_rgba16f",
    "atomic",
    "shared_atomic",
    "int32",
    "sfu",
    "l1_read",
    "launch",
    "fp64",
    "int8_dot",
    "int16",
    "int64",
    "tensor_f16_f32",
    "empty",
];

fn old_base(
    id: &Identity,
    w: &Work,
    b: &BuildFacts,
    c: &CheckRunFacts,
    chk: &CheckOutcome,
) -> ResultRow {
    let mut r = ResultRow {
        schema_version: crate::results::SCHEMA_VERSION,
        run_id: id.run_id.clone(),
        scenario: id.scenario.clone(),
        variant: id.variant.clone(),
        device_name: id.device_name.clone(),
        vendor_id: id.vendor_id,
        device_type: id.device_type.clone(),
        driver_name: id.driver_name.clone(),
        driver_info: id.driver_info.clone(),
        api_version: id.api_version.clone(),
        params: id.params.clone(),
        defines: id.defines.clone(),
        subgroup_size_requested: id.subgroup_size_requested.clone(),
        dispatches: id.dispatches,
        check: Some(Check::None),
        device_uuid: id.device_uuid.clone(),
        driver_version: id.driver_version,
        host: id.host.clone(),
        bytes: w.bytes(),
        bytes_read: w.bytes_read,
        bytes_written: w.bytes_written,
        flops: w.flops,
        shared_bytes: w.shared_bytes,
        texels: w.texels,
        texels_linear: w.texels_linear,
        atomics: w.atomics,
        shared_atomics: w.shared_atomics,
        int_ops: w.int_ops,
        sfu_ops: w.sfu_ops,
        l1_bytes: w.l1_bytes,
        l2_bytes: w.l2_bytes,
        footprint_bytes: w.footprint_bytes,
        fp64_flops: w.fp64_flops,
        fp16_flops: w.fp16_flops,
        int8_dot_ops: w.int8_dot_ops,
        int16_ops: w.int16_ops,
        int64_ops: w.int64_ops,
        tensor_flops: w.tensor_flops,
        tensor_unit: w.tensor_unit.clone(),
        texture_unit: w.texels_unit().map(str::to_string),
        ..Default::default()
    };
    if let Some(wg) = b.workgroup {
        r.workgroup_x = Some(wg[0]);
        r.workgroup_y = Some(wg[1]);
        r.workgroup_z = Some(wg[2]);
    }
    r.grid = b.grid.clone();
    r.workgroups = b.workgroups;
    r.expected_invocations = b.expected_invocations;
    r.registers_per_thread = b.registers_per_thread;
    r.spill_bytes_per_thread = b.spill_bytes_per_thread;
    r.shared_bytes_per_group = b.shared_bytes_per_group;
    r.invocations = c.invocations;
    r.subgroup_size_min = c.subgroup_size_min;
    r.subgroup_size_max = c.subgroup_size_max;
    r.active_lanes_min = c.active_lanes_min;
    r.subgroup_size = c.subgroup_size;
    r.reason = c.note.clone();
    if let Some(o) = &c.occupancy {
        r.occupancy_groups_per_unit = Some(o.groups_per_unit);
        r.occupancy_waves_per_unit = Some(o.waves_per_unit);
        r.occupancy_pct = Some(o.occupancy_pct);
        r.occupancy_limiter = o.limiter.clone();
    }
    r.achieved_groups_per_unit = c.probe.achieved_groups_per_unit;
    r.achieved_groups_per_unit_mean = c.probe.achieved_groups_per_unit_mean;
    r.achieved_waves_per_unit = c.probe.achieved_waves_per_unit;
    r.achieved_waves_per_unit_mean = c.probe.achieved_waves_per_unit_mean;
    r.probe_status = c.probe.status.clone();
    for f in &c.probe.flags {
        if !r.flags.is_empty() {
            r.flags.push_str("; ");
        }
        r.flags.push_str(f);
    }
    r.check = Some(chk.check);
    r.check_detail = chk.detail.clone();
    r
}

fn opt<T>(g: &mut Rng, p: f64, x: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    if g.b(p) {
        Some(x(g))
    } else {
        None
    }
}

#[test]
fn the_typed_record_makes_the_rows_the_old_code_made() {
    let mut g = Rng(0x9e3779b97f4a7c15);
    let mut timed = 0;
    let mut counted_led = 0;
    for case in 0..20000 {
        let m_target = 10f64.powf(3.0 + 4.0 * g.f());
        // Peaks.
        let peaks = if g.b(0.85) {
            let mut p = Peaks::default();
            for u in UNITS {
                if g.b(0.8) {
                    p.values.insert(u.into(), 10f64.powf(-1.0 + 5.0 * g.f()));
                }
            }
            p.l2_capacity = opt(&mut g, 0.6, |g| 5e7);
            for u in UNITS {
                if g.b(0.05) {
                    p.suspect.push(u.into());
                }
            }
            p.foreign = opt(&mut g, 0.1, |g| "measured elsewhere".to_string());
            Some(p)
        } else {
            None
        };
        let peak = |u: &str| peaks.as_ref().and_then(|p| p.get(u)).unwrap_or(1.0);
        let w_of = |g: &mut Rng, u: &str| -> Option<u64> {
            g.b(0.35)
                .then(|| (g.f() * 1.3 * m_target * peak(u)).max(1.0) as u64)
        };
        let mut work = Work {
            bytes_read: w_of(&mut g, "dram_read"),
            bytes_written: w_of(&mut g, "dram_read"),
            flops: w_of(&mut g, "fp32"),
            shared_bytes: w_of(&mut g, "shared"),
            texels: w_of(&mut g, "texture_point"),
            texels_linear: w_of(&mut g, "texture_bilinear"),
            atomics: w_of(&mut g, "atomic"),
            shared_atomics: w_of(&mut g, "shared_atomic"),
            int_ops: w_of(&mut g, "int32"),
            sfu_ops: w_of(&mut g, "sfu"),
            l1_bytes: w_of(&mut g, "l1_read"),
            l2_bytes: w_of(&mut g, "l2_read"),
            footprint_bytes: None,
            fp64_flops: w_of(&mut g, "fp64"),
            int8_dot_ops: w_of(&mut g, "int8_dot"),
            int16_ops: w_of(&mut g, "int16"),
            int64_ops: w_of(&mut g, "int64"),
            tensor_flops: w_of(&mut g, "tensor_f16_f32"),
            fp16_flops: w_of(&mut g, "fp16"),
            tensor_unit: None,
            texture_unit: None,
        };
        if g.b(0.3) {
            work.footprint_bytes = Some((g.f() * 1e8) as u64);
        }
        work.tensor_unit = g
            .pick(&[None, Some("tensor_f16_f32"), Some("tensor_x")])
            .map(str::to_string);
        work.texture_unit = g
            .pick(&[None, Some("texture_fetch_rgba16f"), Some("texture_point")])
            .map(str::to_string);
        let identity = Identity {
            run_id: "r".into(),
            variant: format!("v{case}"),
            dispatches: 1,
            ..Default::default()
        };
        let build = BuildFacts {
            workgroup: opt(&mut g, 0.9, |g| [64, 1, 1]),
            grid: "4x1x1".into(),
            workgroups: opt(&mut g, 0.9, |g| (g.f() * 1.3 * m_target * peak("launch")) as u64 + 1),
            expected_invocations: Some(256),
            registers_per_thread: opt(&mut g, 0.5, |g| 32),
            spill_bytes_per_thread: *g.pick(&[None, Some(0), Some(608)]),
            shared_bytes_per_group: opt(&mut g, 0.5, |g| 1024),
        };
        let occupancy = g.b(0.6).then(|| OccupancyFacts {
            groups_per_unit: 2,
            waves_per_unit: 32,
            occupancy_pct: 10.0 + 90.0 * g.f(),
            limiter: g.pick(&["registers", ""]).to_string(),
        });
        let probe = ProbeOutcome {
            achieved_groups_per_unit: opt(&mut g, 0.4, |g| 2),
            achieved_groups_per_unit_mean: opt(&mut g, 0.4, |g| 1.5),
            achieved_waves_per_unit: opt(&mut g, 0.4, |g| (g.u() % 40) as u32),
            achieved_waves_per_unit_mean: opt(&mut g, 0.4, |g| 12.5),
            status: g.pick(&["", "ok", "invalid: x"]).to_string(),
            flags: (0..g.u() % 3).map(|i| format!("probe flag {i}")).collect(),
        };
        let check_run = CheckRunFacts {
            invocations: opt(&mut g, 0.8, |g| 256),
            subgroup_size: opt(&mut g, 0.8, |g| 32),
            subgroup_size_min: opt(&mut g, 0.8, |g| 32),
            subgroup_size_max: opt(&mut g, 0.8, |g| 32),
            active_lanes_min: opt(&mut g, 0.8, |g| 32),
            note: g.pick(&["", "subgroup size not measured: x"]).to_string(),
            occupancy,
            probe,
        };
        let check = CheckOutcome {
            check: *g.pick(&[Check::None, Check::Pass, Check::Baseline, Check::Fail]),
            detail: g.pick(&["", "vs baseline: ok"]).to_string(),
        };
        let mode = *g.pick(&[Mode::Warm, Mode::Cold]);
        let old_b = old_base(&identity, &work, &build, &check_run, &check);

        if g.b(0.1) {
            // A failed variant.
            let status = *g.pick(&[RowStatus::Error, RowStatus::CheckFailed]);
            let mut old = old_b.clone();
            old.mode = Some(mode);
            old.status = status;
            old.reason = "it failed".into();
            let rec = VariantRecord {
                identity,
                declared: work,
                build,
                check_run,
                check,
                outcome: Outcome::Failed {
                    status,
                    reason: "it failed".into(),
                    modes: vec![mode],
                },
            };
            assert_eq!(format!("{old:?}"), format!("{:?}", rec.rows()[0]), "case {case}");
            continue;
        }

        // Rounds.
        let s = Settings {
            min_rounds: 3,
            max_rounds: 12,
            ci_target_pct: 0.5,
            budget_ns: 1e9,
            reps: 3,
            untimed: 1,
            warmup_ms: 0,
            timeout_ms: 1000,
            seed: 1,
            fresh: crate::scenario::Fresh::None,
            placement_check: true,
            placements: crate::scenario::Placements::Auto,
        };
        let mut track = Track::default();
        let rounds = (g.u() % 12) as u32 + if g.b(0.05) { 0 } else { 1 };
        let step = *g.pick(&[0.0, 1.0, 40.0]);
        let clocked = g.b(0.7);
        let batch = |g: &mut Rng| {
            let n = 3 + (g.u() % 3) as usize;
            let base = m_target * (1.0 + 0.05 * g.f());
            let rep: Vec<f64> = (0..n).map(|_| base * (1.0 + 0.02 * g.f())).collect();
            Batch {
                pass_ns: rep.iter().map(|x| vec![*x]).collect(),
                rep_ns: rep,
                step_ns: step,
                wall_ns: base * n as f64,
                clock: if clocked {
                    Some(1.5 + 0.3 * g.f())
                } else {
                    None
                },
                redone: (g.u() % 3) as u32,
                ..Default::default()
            }
        };
        for i in 0..rounds {
            let b = batch(&mut g);
            track.push(i, 0, b);
            track.decide(&s);
        }
        if g.b(0.3) {
            let b = batch(&mut g);
            track.push_moved(rounds, 0, b);
        }
        track.placement_sd = opt(&mut g, 0.3, |g| 0.01 * g.f());
        // Counters.
        let pct = |g: &mut Rng| g.b(0.7).then(|| 105.0 * g.f());
        track.hw = match g.u() % 4 {
            0 => None,
            1 => Some(Err("no counters here".into())),
            _ => {
                let values = HwValues {
                    sm_pct: pct(&mut g),
                    dram_pct: pct(&mut g),
                    l2_pct: pct(&mut g),
                    l1tex_pct: pct(&mut g),
                    tensor_pct: pct(&mut g),
                    dram_read_bytes: opt(&mut g, 0.6, |g| g.f() * 4e6),
                    dram_write_bytes: opt(&mut g, 0.6, |g| g.f() * 4e6),
                    sm_clock_mhz: opt(&mut g, 0.8, |g| 800.0 + 1200.0 * g.f()),
                    fma_pct: pct(&mut g),
                    fmaheavy_pct: pct(&mut g),
                    alu_pct: pct(&mut g),
                    fp64_pct: pct(&mut g),
                    xu_pct: pct(&mut g),
                    shared_pct: pct(&mut g),
                    tex_pct: pct(&mut g),
                    ..Default::default()
                };
                let o: HwOutcome = Ok(HwMeasured {
                    source: *g.pick(&[
                        crate::measure::hw::SOURCE_CUPTI,
                        "vk-performance-query",
                    ]),
                    values,
                    metrics: Vec::new(),
                    samples: 40,
                    lost: (g.u() % 2) as u32,
                    interval_ns: 1,
                    window: "calibrated",
                    window_ns: 1.0,
                    reps: 10,
                    notes: (0..g.u() % 3).map(|i| format!("note {i}")).collect(),
                    evict_removed: opt(&mut g, 0.3, |g| "removed".to_string()),
                    own_clock: opt(&mut g, 0.2, |g| "own".to_string()),
                    series: None,
                });
                Some(o)
            }
        };
        let status = g.b(0.8).then(|| HwStatus {
            max_sm_clock_mhz: opt(&mut g, 0.7, |g| 1980.0),
            reason: g.pick(&["", "off"]).to_string(),
            ..Default::default()
        });
        let ns_per_tick = opt(&mut g, 0.7, |g| 1.0);
        let reference = opt(&mut g, 0.7, |g| 1.7);
        let gpu = g.b(0.5);

        // The old path.
        let mut old_status = status.clone();
        let mut old = super::timed_row(&old_b, mode, &track, &s, peaks.as_ref());
        let kept: Vec<f64> = track.kept().iter().filter_map(|k| k.clock).collect();
        let redone = track
            .rounds
            .iter()
            .chain(&track.moved)
            .map(|k| k.redone)
            .sum();
        super::clock_fill_row(&mut old, &kept, redone, ns_per_tick, reference);
        super::widen_rerun(&mut old, gpu);
        if mode == Mode::Cold {
            old.cold_evict = "read".into();
        }
        super::fill_row(&mut old, track.hw.as_ref(), old_status.as_mut());

        // The typed record.
        let mut new_status = status.clone();
        let run = crate::measure::row::RunView {
            settings: &s,
            peaks: peaks.as_ref(),
            ns_per_tick,
            reference,
            gpu,
            cold_evict: "read",
        };
        let m = crate::measure::row::mode_record(
            (&work, &build, &check_run),
            mode,
            &track,
            &run,
            new_status.as_mut(),
        );
        if m.timing.median_ns.is_some() {
            timed += 1;
        }
        if m.verdict.limiter_source == Some(crate::results::LimiterSource::Counted) {
            counted_led += 1;
        }
        let rec = VariantRecord {
            identity,
            declared: work,
            build,
            check_run,
            check,
            outcome: Outcome::Timed(vec![m]),
        };
        let new = rec.rows().remove(0);
        assert_eq!(format!("{old:?}"), format!("{new:?}"), "case {case}");
        assert_eq!(
            old_status.map(|s| s.throttled_rows),
            new_status.map(|s| s.throttled_rows)
        );
    }
    eprintln!("timed {timed}, counted verdicts {counted_led}");
    assert!(timed > 10000 && counted_led > 1000);
}
