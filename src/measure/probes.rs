//! The per-subgroup probes (`--probe`, glsl/common/p3lab.glsl): each subgroup's start, end and
//! SM, read after the check run and turned into `probe` metrics, the achieved-occupancy
//! columns (checked against the theoretical occupancy: `probe_status`, `flags`) and a
//! launch-order picture in the run folder.
use crate::measure::build::Built;
use crate::measure::prepare;
use crate::measure::row::Ident;
use crate::measure::setup::CaseGpu;
use crate::probe::{self, PROBE_SET};
use crate::results::record::ProbeOutcome;
use crate::results::MetricRow;
use crate::sink::{Dump, DumpData};
use crate::vk::Context;

/// Read the records of every pass whose shader declares them. `pictures`: where the
/// launch-order pictures are added for the run folder (None for a variant that gets no row). `expected`: the first
/// pass's theoretical occupancy, which the first pass's counts are judged against: the
/// outcome (empty where no pass recorded).
#[allow(
    clippy::too_many_arguments,
    reason = "one call site; the probe pass needs the case, variant, pipeline and the read-back"
)]
pub fn group_metrics(
    ctx: &Context,
    id: &Ident,
    clock: probe::Clock,
    gpu: &CaseGpu,
    built: &Built,
    expected: &probe::Expected,
    metrics: &mut Vec<MetricRow>,
    mut pictures: Option<&mut Vec<Dump>>,
) -> anyhow::Result<ProbeOutcome> {
    let mut outcome = ProbeOutcome::default();
    let (sc, case, v) = (id.sc, id.case, id.v);
    let probed: Vec<usize> = (0..built.compiled.len())
        .filter(|&i| {
            built.compiled[i]
                .1
                .bindings
                .iter()
                .any(|b| b.set == PROBE_SET && b.binding == 1)
        })
        .collect();
    if probed.is_empty() {
        tracing::warn!(
            "{} / {}: --probe: the shader does not record its groups",
            sc.name,
            v.name
        );
        return Ok(outcome);
    }
    let bytes = match gpu.groups.borrow().as_ref() {
        Some((g, _)) => ctx.download(g)?,
        None => return Ok(outcome),
    };
    let sm = ctx.feature("shader_sm_builtins");
    let rate = clock.ns_per_tick(ctx.info.vendor_id);
    let multi = v.passes.len() > 1;
    // Each pass's records start after the records of the passes before it.
    let mut base = 0usize;
    for (i, grid) in built.grids.iter().enumerate() {
        let count = grid[0] as usize * grid[1] as usize * grid[2] as usize;
        let slots = built.probe_slots[i] as usize;
        let start = base;
        base += count * slots;
        if !probed.contains(&i) {
            continue;
        }
        let records = bytes
            .get(start * probe::RECORD_BYTES as usize..)
            .unwrap_or(&[]);
        let Some(a) = probe::analyze(&probe::decode(records, count, slots, sm)) else {
            tracing::warn!(
                "{} / {}: --probe: no subgroup of {} left a record (p3_group_end() not reached?)",
                sc.name,
                v.name,
                v.passes[i].name
            );
            if i == 0 {
                outcome.status = "unchecked: no subgroup left a complete record".into();
            }
            continue;
        };
        let prefix = prepare::pass_prefix(v, i);
        let (span, span_unit) = match rate {
            Some(r) => (a.span as f64 * r, "ns"),
            None => (a.span as f64, "ticks"),
        };
        for (name, value, unit) in [
            (
                "achieved_groups_per_sm_max",
                a.per_unit_max as f64,
                "groups",
            ),
            ("achieved_groups_per_sm_mean", a.per_unit_mean, "groups"),
            (
                "achieved_groups_per_sm_peak",
                a.per_unit_peak as f64,
                "groups",
            ),
            (
                "achieved_waves_per_sm_max",
                a.waves_per_unit_max as f64,
                "waves",
            ),
            ("achieved_waves_per_sm_mean", a.waves_per_unit_mean, "waves"),
            (
                "achieved_waves_per_sm_peak",
                a.waves_per_unit_peak as f64,
                "waves",
            ),
            ("tail_pct", a.tail_pct, "%"),
            ("span_ns", span, span_unit),
            ("launch_order_rank_corr", a.rank_corr, ""),
            ("groups_recorded", a.recorded as f64, "groups"),
            (
                "subgroups_recorded",
                a.subgroups_recorded as f64,
                "subgroups",
            ),
            (
                "subgroups_unfinished",
                a.subgroups_unfinished as f64,
                "subgroups",
            ),
            ("sm_ids_seen", if sm { a.units as f64 } else { 0.0 }, "SMs"),
        ] {
            metrics.push(id.metric("probe", &format!("{prefix}{name}"), value, unit));
        }
        // The outcome: the first pass, as for the theoretical occupancy.
        if i == 0 {
            outcome.achieved_groups_per_unit = Some(a.per_unit_max);
            outcome.achieved_groups_per_unit_mean = Some(a.per_unit_mean);
            outcome.achieved_waves_per_unit = Some(a.waves_per_unit_max);
            outcome.achieved_waves_per_unit_mean = Some(a.waves_per_unit_mean);
            let verdict = probe::judge(&a, expected);
            outcome.status = verdict.status;
            outcome.flags.extend(verdict.flags);
        }
        let Some(dumps) = pictures.as_deref_mut() else {
            continue;
        };
        let pass_part = if multi {
            format!("-{}", probe::file_part(&v.passes[i].name))
        } else {
            String::new()
        };
        let name = format!(
            "probe-{}-{}{pass_part}-{}.svg",
            probe::file_part(&sc.name),
            probe::file_part(&v.name),
            probe::short_hash(&case.params_label)
        );
        let unit = if sm { "SM" } else { "device (no SM ids)" };
        let picture = probe::svg(
            *grid,
            &a.ranks,
            &format!(
                "{} / {}{} [{}]: workgroup start order (measured)",
                sc.name,
                v.name,
                if multi { format!(" / {}", v.passes[i].name) } else { String::new() },
                case.params_label
            ),
            &format!(
                "grid {}x{}x{}, {} of {} groups recorded; rank corr. with row-major {:.3}; up to {} groups ({} subgroups) at once per {unit}; tail {:.1} %",
                grid[0], grid[1], grid[2], a.recorded, a.groups, a.rank_corr, a.per_unit_max, a.waves_per_unit_max, a.tail_pct
            ),
        );
        // The picture is an extra, written into the run folder by the run's sinks
        // (sink/dumps.rs): failing to write it must not cost the measured row.
        dumps.push(Dump {
            what: "probe picture",
            dir: std::path::PathBuf::new(),
            files: vec![(name, DumpData::Bytes(picture.into_bytes()))],
        });
    }
    Ok(outcome)
}
