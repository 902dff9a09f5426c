//! The edge: a [`VariantRecord`]'s typed parts flattened into results.csv rows, one per mode.
//! Each `with_*` mapper takes a row by value and returns it with one part's columns.
use super::*;
use crate::results::row::SCHEMA_VERSION;

/// `parts` joined by `; `, as notes and flags are appended one by one.
fn joined<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for p in parts {
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(p);
    }
    out
}

impl VariantRecord {
    /// results.csv's rows: one per mode.
    pub fn rows(&self) -> Vec<ResultRow> {
        match &self.outcome {
            Outcome::Failed {
                status,
                reason,
                modes,
            } => modes
                .iter()
                .map(|m| ResultRow {
                    mode: Some(*m),
                    status: *status,
                    reason: reason.clone(),
                    ..self.base()
                })
                .collect(),
            Outcome::Timed(modes) => modes
                .iter()
                .map(|m| {
                    let r = ResultRow {
                        mode: Some(m.mode),
                        status: RowStatus::Ok,
                        cold_evict: m.cold_evict.clone(),
                        ..self.base()
                    };
                    let r = with_timing(r, &m.timing);
                    let r = with_verdict(r, &m.verdict);
                    let r = with_clock(r, &m.clock);
                    with_counted(r, &m.counted)
                })
                .collect(),
        }
    }

    /// The columns every mode's row shares: identity, declared work, build, check run and
    /// check; `reason` holds the check run's note.
    fn base(&self) -> ResultRow {
        let (id, w, b, c) = (&self.identity, &self.declared, &self.build, &self.check_run);
        let occ = c.occupancy.as_ref();
        ResultRow {
            schema_version: SCHEMA_VERSION,
            run_id: id.run_id.clone(),
            scenario: id.scenario.clone(),
            variant: id.variant.clone(),
            reason: c.note.clone(),
            device_name: id.device_name.clone(),
            vendor_id: id.vendor_id,
            device_type: id.device_type.clone(),
            driver_name: id.driver_name.clone(),
            driver_info: id.driver_info.clone(),
            api_version: id.api_version.clone(),
            params: id.params.clone(),
            defines: id.defines.clone(),
            workgroup_x: b.workgroup.map(|w| w[0]),
            workgroup_y: b.workgroup.map(|w| w[1]),
            workgroup_z: b.workgroup.map(|w| w[2]),
            subgroup_size_requested: id.subgroup_size_requested.clone(),
            subgroup_size: c.subgroup_size,
            dispatches: id.dispatches,
            invocations: c.invocations,
            expected_invocations: b.expected_invocations,
            check: Some(self.check.check),
            bytes: w.bytes(),
            flops: w.flops,
            bytes_read: w.bytes_read,
            bytes_written: w.bytes_written,
            grid: b.grid.clone(),
            device_uuid: id.device_uuid.clone(),
            driver_version: id.driver_version,
            check_detail: self.check.detail.clone(),
            host: id.host.clone(),
            registers_per_thread: b.registers_per_thread,
            spill_bytes_per_thread: b.spill_bytes_per_thread,
            shared_bytes_per_group: b.shared_bytes_per_group,
            occupancy_groups_per_unit: occ.map(|o| o.groups_per_unit),
            occupancy_waves_per_unit: occ.map(|o| o.waves_per_unit),
            occupancy_pct: occ.map(|o| o.occupancy_pct),
            occupancy_limiter: occ.map(|o| o.limiter.clone()).unwrap_or_default(),
            shared_bytes: w.shared_bytes,
            achieved_groups_per_unit: c.probe.achieved_groups_per_unit,
            achieved_groups_per_unit_mean: c.probe.achieved_groups_per_unit_mean,
            texels: w.texels,
            atomics: w.atomics,
            shared_atomics: w.shared_atomics,
            int_ops: w.int_ops,
            sfu_ops: w.sfu_ops,
            l1_bytes: w.l1_bytes,
            footprint_bytes: w.footprint_bytes,
            flags: joined(c.probe.flags.iter().map(String::as_str)),
            achieved_waves_per_unit: c.probe.achieved_waves_per_unit,
            achieved_waves_per_unit_mean: c.probe.achieved_waves_per_unit_mean,
            probe_status: c.probe.status.clone(),
            subgroup_size_min: c.subgroup_size_min,
            subgroup_size_max: c.subgroup_size_max,
            active_lanes_min: c.active_lanes_min,
            texels_linear: w.texels_linear,
            workgroups: b.workgroups,
            l2_bytes: w.l2_bytes,
            fp64_flops: w.fp64_flops,
            int8_dot_ops: w.int8_dot_ops,
            int16_ops: w.int16_ops,
            int64_ops: w.int64_ops,
            tensor_flops: w.tensor_flops,
            tensor_unit: w.tensor_unit.clone(),
            fp16_flops: w.fp16_flops,
            texture_unit: w.texels_unit().map(str::to_string),
            ..Default::default()
        }
    }
}

/// `r` with a mode's statistics; the notes are appended to `reason`.
pub fn with_timing(r: ResultRow, t: &Timing) -> ResultRow {
    let reason =
        joined(std::iter::once(r.reason.as_str()).chain(t.notes.iter().map(String::as_str)));
    ResultRow {
        reason,
        ci_target_pct: Some(t.ci_target_pct),
        budget_ms: Some(t.budget_ms),
        untimed_per_batch: Some(t.untimed_per_batch),
        reps_per_batch: Some(t.reps_per_batch),
        rounds_discarded: Some(t.rounds_discarded),
        stop_reason: t.stop_reason,
        rounds: Some(t.rounds),
        timer_step_ns: t.timer_step_ns,
        fresh: Some(t.fresh),
        placements: Some(t.placements),
        n: t.n,
        min_ns: t.min_ns,
        max_ns: t.max_ns,
        mean_ns: t.mean_ns,
        stddev_ns: t.stddev_ns,
        cv_pct: t.cv_pct,
        p5_ns: t.p5_ns,
        p95_ns: t.p95_ns,
        mad_ns: t.mad_ns,
        median_ns: t.median_ns,
        median_ci_low_ns: t.median_ci_low_ns,
        median_ci_high_ns: t.median_ci_high_ns,
        rerun_low_ns: t.rerun_low_ns,
        rerun_high_ns: t.rerun_high_ns,
        placement_sd_pct: t.placement_sd_pct,
        ci_half_width_pct: t.ci_half_width_pct,
        trend_pct: t.trend_pct,
        trend_p: t.trend_p,
        placement_pct: t.placement_pct,
        placement: t.placement,
        gbytes_per_s: t.gbytes_per_s,
        gflops_per_s: t.gflops_per_s,
        shared_gbytes_per_s: t.shared_gbytes_per_s,
        ..r
    }
}

/// `r` with a P3 verdict; its flags are appended to `flags`.
pub fn with_verdict(r: ResultRow, v: &Verdict) -> ResultRow {
    let flags = joined(std::iter::once(r.flags.as_str()).chain(v.flags.iter().map(String::as_str)));
    let p = &v.pcts;
    ResultRow {
        flags,
        memory_level: v.memory_level,
        dram_pct: p.dram_pct,
        l2_pct: p.l2_pct,
        flop_pct: p.flop_pct,
        shared_pct: p.shared_pct,
        texture_pct: p.texture_pct,
        atomic_pct: p.atomic_pct,
        shared_atomic_pct: p.shared_atomic_pct,
        int_pct: p.int_pct,
        sfu_pct: p.sfu_pct,
        l1_pct: p.l1_pct,
        launch_pct: p.launch_pct,
        fp64_pct: p.fp64_pct,
        int8_dot_pct: p.int8_dot_pct,
        int16_pct: p.int16_pct,
        int64_pct: p.int64_pct,
        tensor_pct: p.tensor_pct,
        fp16_pct: p.fp16_pct,
        limiter: v.limiter.clone(),
        limiter_pct: v.limiter_pct,
        limiter_evidence: v.limiter_evidence.clone(),
        limiter_source: v.limiter_source,
        declared_over_units: v.declared_over_units.clone(),
        declared_over_peak: v.declared_over_peak,
        hw_limiter: v.hw_limiter.clone(),
        hw_limiter_pct: v.hw_limiter_pct,
        declared_limiter: v.declared_limiter.clone(),
        declared_limiter_pct: v.declared_limiter_pct,
        ..r
    }
}

/// `r` with the clock its batches ran at.
pub fn with_clock(r: ResultRow, c: &ClockFacts) -> ResultRow {
    ResultRow {
        clock_mhz: c.clock_mhz,
        clock_pct: c.clock_pct,
        clock_redone: c.clock_redone,
        clock_low: c.clock_low,
        ..r
    }
}

/// `r` with its counter batch's `hw_*` columns (its flags are the verdict's: see
/// `peaks::limiter::apply_counted`).
pub fn with_counted(r: ResultRow, c: &Counted) -> ResultRow {
    ResultRow {
        hw_source: c.hw_source.clone(),
        hw_reason: c.hw_reason.clone(),
        hw_sm_pct: c.hw_sm_pct,
        hw_dram_pct: c.hw_dram_pct,
        hw_l2_pct: c.hw_l2_pct,
        hw_l1tex_pct: c.hw_l1tex_pct,
        hw_tensor_pct: c.hw_tensor_pct,
        hw_fma_pct: c.hw_fma_pct,
        hw_fmaheavy_pct: c.hw_fmaheavy_pct,
        hw_alu_pct: c.hw_alu_pct,
        hw_fp64_pct: c.hw_fp64_pct,
        hw_xu_pct: c.hw_xu_pct,
        hw_shared_pct: c.hw_shared_pct,
        hw_tex_pct: c.hw_tex_pct,
        hw_dram_read_bytes: c.hw_dram_read_bytes,
        hw_dram_write_bytes: c.hw_dram_write_bytes,
        hw_sm_clock_mhz: c.hw_sm_clock_mhz,
        hw_samples: c.hw_samples,
        hw_lost_samples: c.hw_lost_samples,
        ..r
    }
}
