//! Step 5: one untimed run of a variant before any timing, and what it proves: the compute
//! invocations (pipeline statistics), the subgroup sizes that actually ran (the probe, in every
//! workgroup), the occupancy the driver's numbers allow, the per-subgroup probes against it,
//! and the outputs against the baseline or the CPU reference. A wrong answer is not worth
//! timing.
use crate::measure::build::{elapsed_ns, Built};
use crate::measure::check::{self, Contents};
use crate::measure::failure::Failure;
use crate::measure::row::Ident;
use crate::measure::setup::{CaseGpu, PROBE_WORDS};
use crate::measure::{prepare, probes};
use crate::output::run_json::VariantCost;
use crate::results::record::{CheckRunFacts, OccupancyFacts};
use crate::results::{MetricRow, RowStatus};
use crate::scenario::{Check, Resource, ResourceKind, SubgroupReq};
use crate::sink::{Dump, DumpData};
use crate::vk::Context;
use std::path::Path;
use std::time::Instant;

/// What the check run left for the next steps.
pub struct Verified {
    /// GPU time of the one repetition (sizes the batches).
    pub first_rep_ns: f64,
    /// The checked outputs, read back (None without a check, or when it runs on the GPU).
    pub outputs: Option<Contents>,
}

/// Reset the outputs and the probe, run every pass once, and read back what it proves: the
/// facts come back beside the result, as far as the run got (a failed check run keeps the
/// invocations and subgroup sizes it saw). `spare` recycles read-back buffers between
/// variants.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site; a check run needs the device, the built variant, its inputs and the check"
)]
pub fn check_run(
    ctx: &Context,
    opts: &crate::measure::options::RunOptions,
    id: &Ident,
    gpu: &CaseGpu,
    built: &Built,
    spare: &mut Contents,
    metrics: &mut Vec<MetricRow>,
    cost: &mut VariantCost,
    dumps: Option<&mut Vec<Dump>>,
    read_outputs: bool,
) -> (CheckRunFacts, Result<Verified, Failure>) {
    let mut facts = CheckRunFacts::default();
    let verified = run_into(
        ctx,
        opts,
        id,
        gpu,
        built,
        spare,
        &mut facts,
        metrics,
        cost,
        (dumps, read_outputs),
    );
    (facts, verified)
}

/// [`check_run`], settling `facts` as it goes.
#[allow(
    clippy::too_many_arguments,
    reason = "check_run's inputs and the facts it fills"
)]
fn run_into(
    ctx: &Context,
    opts: &crate::measure::options::RunOptions,
    id: &Ident,
    gpu: &CaseGpu,
    built: &Built,
    spare: &mut Contents,
    facts: &mut CheckRunFacts,
    metrics: &mut Vec<MetricRow>,
    cost: &mut VariantCost,
    (mut dumps, read_outputs): (Option<&mut Vec<Dump>>, bool),
) -> Result<Verified, Failure> {
    let (case, v) = (id.case, id.v);
    let info = &ctx.info;
    let tr = Instant::now();
    // Outputs with initial contents are uploaded; the zero-initialized ones, the probe and
    // the group records are reset together, in one submission.
    let mut zero: Vec<&crate::vk::resources::GpuResource> = Vec::new();
    for (r, g) in case.resources.iter().zip(&gpu.resources) {
        if r.output {
            match gpu.initial.get(&r.name) {
                Some(bytes) => ctx.upload(g, bytes)?,
                None => zero.push(g),
            }
        }
    }
    // The minima (subgroup size, active lanes) start high, the maximum at 0.
    let mut probe_init = vec![0u8; PROBE_WORDS * 4];
    probe_init[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    probe_init[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    let groups = gpu.groups.borrow();
    if let Some((g, _)) = groups.as_ref() {
        zero.push(g);
    }
    match &gpu.probe {
        crate::vk::resources::GpuResource::Buffer(probe) => {
            ctx.reset_many(&zero, &[(probe, &probe_init)])?
        }
        image => {
            ctx.reset_many(&zero, &[])?;
            ctx.upload(image, &probe_init)?;
        }
    }
    drop(groups);
    cost.reset_ns = elapsed_ns(tr);
    let dispatches = built.check_dispatches(gpu);
    let tk = Instant::now();
    let (invocations, first_rep_ns) = ctx.run_once(&dispatches, case.timeout_ms)?;
    cost.check_run_ns = elapsed_ns(tk);
    facts.invocations = invocations;

    let tb = Instant::now();
    let probe = ctx.download(&gpu.probe)?;
    let word = |i: usize| u32::from_le_bytes(probe[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    let (sg_min, sg_max, lanes_min) = (word(0), word(1), word(2));
    let outputs = match &case.check {
        Some(chk) if read_outputs => {
            let mut outputs = Contents::new();
            for (r, g) in case.resources.iter().zip(&gpu.resources) {
                if chk.outputs.contains(&r.name) {
                    let buf = spare.remove(&r.name).unwrap_or_default();
                    outputs.insert(r.name.clone(), ctx.download_into(g, buf)?);
                }
            }
            Some(outputs)
        }
        _ => None,
    };
    if let (true, Some(d)) = (opts.dump_outputs, dumps.as_deref_mut()) {
        dump_outputs(ctx, id, gpu, d)?;
    }
    // The subgroup size that ran, measured in every subgroup of every workgroup; a request the
    // driver ignored is an error, never a row that claims the size.
    let probed = built.probed();
    let mut varied = false;
    if probed && sg_max > 0 {
        facts.subgroup_size_min = Some(sg_min);
        facts.subgroup_size_max = Some(sg_max);
        metrics.push(id.metric("probe", "subgroup_size_min", sg_min as f64, "lanes"));
        metrics.push(id.metric("probe", "subgroup_size_max", sg_max as f64, "lanes"));
        if lanes_min != u32::MAX {
            facts.active_lanes_min = Some(lanes_min);
            metrics.push(id.metric("probe", "active_lanes_min", lanes_min as f64, "lanes"));
        }
        if sg_min == sg_max {
            facts.subgroup_size = Some(sg_max);
        } else {
            // No single size ran: the column stays empty, and so does the theoretical
            // occupancy, which depends on it.
            varied = true;
            facts.note = format!(
                "subgroup size varied between {sg_min} and {sg_max} across the workgroups (and passes) of the check run"
            );
        }
        if let SubgroupReq::Size(n) = v.subgroup {
            if sg_min != n || sg_max != n {
                return Err(Failure::error(format!("requested subgroup size {n} but the shader ran with {sg_min}..{sg_max}: the driver ignored the request")));
            }
        }
    } else {
        facts.note = match &built.probe_note {
            Some(why) => format!(
                "subgroup size not measured: the probe could not be added to the shader: {why}"
            ),
            None => "subgroup size not measured: the probe recorded nothing".into(),
        };
    }

    // Theoretical occupancy of the first pass's workgroup, from the driver's numbers.
    let sg = facts.subgroup_size.unwrap_or(info.subgroup_size_default);
    let wg = built.wg0;
    let rules = crate::occupancy::rules(&crate::occupancy::Device::from_info(info));
    let occupancy = rules.as_ref().filter(|_| !varied).and_then(|r| {
        r.occupancy(
            built.norm.registers,
            built.norm.shared_bytes.unwrap_or(0),
            wg[0] * wg[1] * wg[2],
            sg,
        )
    });
    if let Some(o) = &occupancy {
        facts.occupancy = Some(OccupancyFacts {
            groups_per_unit: o.groups_per_unit,
            waves_per_unit: o.waves_per_unit,
            occupancy_pct: o.occupancy_pct,
            limiter: o.limiter.into(),
        });
        metrics.push(id.metric(
            "occupancy",
            "groups_per_unit",
            o.groups_per_unit as f64,
            "groups",
        ));
        metrics.push(id.metric(
            "occupancy",
            "waves_per_unit",
            o.waves_per_unit as f64,
            "waves",
        ));
        metrics.push(id.metric("occupancy", "occupancy_pct", o.occupancy_pct, "%"));
    }

    // The per-subgroup probes, judged against that occupancy.
    if let Some(clock) = prepare::group_clock(ctx, opts, case) {
        let expected = crate::probe::Expected {
            groups: occupancy.as_ref().map(|o| o.groups_per_unit),
            waves: occupancy.as_ref().map(|o| o.waves_per_unit),
            max_waves: rules.as_ref().map(|r| r.max_waves_per_unit()),
            units: rules.as_ref().and_then(|r| r.units),
            unit_name: rules.as_ref().map_or("SM", |r| r.unit).into(),
            wave_name: if info.vendor_id == 0x10de {
                "warps"
            } else {
                "waves"
            }
            .into(),
        };
        facts.probe = probes::group_metrics(ctx, id, clock, gpu, built, &expected, metrics, dumps)?;
    }
    cost.readback_ns = elapsed_ns(tb);
    if let Some(n) = invocations {
        let expected = built.expected_invocations;
        if n != expected {
            return Err(Failure::error(format!(
                "pipeline statistics counted {n} compute invocations, expected {expected}"
            )));
        }
        metrics.push(id.metric(
            "pipeline_statistics",
            "compute_shader_invocations",
            n as f64,
            "invocations",
        ));
    }
    Ok(Verified {
        first_rep_ns,
        outputs,
    })
}

/// What the outputs are compared with on the host.
pub struct Expected<'a> {
    /// The CPU reference's outputs, or why it could not give them.
    pub reference: Option<&'a Result<Contents, String>>,
    /// The baseline's outputs (None until it ran, or when it failed: then `baseline_failed`).
    pub baseline: Option<&'a Contents>,
    /// Why the baseline has no outputs (its failure's reason), said in `check_detail`; None: it has
    /// not run.
    pub baseline_failed: Option<&'a str>,
}

/// The check's verdict for `row`: its `check` and `check_detail` columns, and a failure that
/// stops the variant before timing.
pub struct Judgement {
    /// The `check` column: pass, fail, baseline, none or skipped.
    pub check: crate::results::Check,
    /// The `check_detail` column: what differed, or why the check was skipped.
    pub detail: String,
    /// Set when the outputs differ (a `check_failed` row) or the reference failed (an `error`
    /// row): the variant is not timed.
    pub failure: Option<Failure>,
}

/// On the host: compare the read-back outputs. Pure, so it runs on a worker thread while the
/// GPU works.
pub fn judge(
    chk: &Check,
    resources: &[Resource],
    is_baseline: bool,
    expected: &Expected,
    actual: &Contents,
) -> Judgement {
    let reference = expected.reference.map(|r| {
        r.as_ref()
            .map(|exp| check::compare(chk, resources, exp, actual))
            .map_err(Clone::clone)
    });
    let baseline = (!is_baseline)
        .then(|| {
            expected
                .baseline
                .map(|b| check::compare(chk, resources, b, actual))
        })
        .flatten();
    judge_by(
        chk,
        is_baseline,
        reference,
        baseline,
        expected.baseline_failed,
    )
}

/// The verdict from the comparisons made (on the host or the GPU): against the reference
/// (or why there is none), and against the baseline's outputs when they exist.
pub fn judge_by(
    chk: &Check,
    is_baseline: bool,
    reference: Option<Result<check::Outcome, String>>,
    baseline: Option<check::Outcome>,
    baseline_failed: Option<&str>,
) -> Judgement {
    let mut verdicts = Vec::new();
    match reference {
        Some(Ok(o)) => verdicts.push(("reference", o)),
        Some(Err(e)) => {
            return Judgement {
                check: crate::results::Check::None,
                detail: String::new(),
                failure: Some(Failure::error(e)),
            }
        }
        None => {}
    }
    let mut check_col = crate::results::Check::None;
    let mut detail = String::new();
    if !is_baseline && chk.baseline.is_some() {
        match baseline {
            Some(o) => verdicts.push(("baseline", o)),
            None if verdicts.is_empty() => {
                check_col = crate::results::Check::Skipped;
                detail = format!(
                    "baseline `{}` has no outputs: {}",
                    chk.baseline.as_deref().unwrap_or(""),
                    baseline_failed.unwrap_or("it did not run")
                );
            }
            None => {}
        }
    }
    if verdicts.is_empty() {
        if is_baseline {
            check_col = crate::results::Check::Baseline;
        }
        return Judgement {
            check: check_col,
            detail,
            failure: None,
        };
    }
    let passed = verdicts.iter().all(|(_, o)| o.passed);
    let detail = verdicts
        .iter()
        .map(|(k, o)| format!("vs {k}: {}", o.detail))
        .collect::<Vec<_>>()
        .join(" | ");
    Judgement {
        check: if passed {
            crate::results::Check::Pass
        } else {
            crate::results::Check::Fail
        },
        failure: (!passed).then(|| Failure::new(RowStatus::CheckFailed, detail.clone())),
        detail,
    }
}

/// `--dump-outputs`: every output of the check run as `OUT/outputs/SCENARIO/VARIANT[-CASE]/
/// NAME.npy` (buffers 1-D, images height x width [x channels]), written by the run's sinks
/// (sink/dumps.rs); `-CASE` when the scenario has several params cases. A read-back that
/// fails keeps the arrays read before it.
fn dump_outputs(
    ctx: &Context,
    id: &Ident,
    gpu: &CaseGpu,
    dumps: &mut Vec<Dump>,
) -> Result<(), Failure> {
    use crate::probe::file_part;
    let (sc, case, v) = (id.sc, id.case, id.v);
    let leaf = if sc.cases.len() > 1 {
        format!("{}-{}", file_part(&v.name), file_part(&case.params_label))
    } else {
        file_part(&v.name)
    };
    let mut dump = Dump {
        what: "--dump-outputs",
        dir: Path::new("outputs").join(file_part(&sc.name)).join(leaf),
        files: Vec::new(),
    };
    let read = read_outputs_for_dump(ctx, id, gpu, &mut dump.files);
    dumps.push(dump);
    read
}

/// [`dump_outputs`]' arrays, each output as read back.
fn read_outputs_for_dump(
    ctx: &Context,
    id: &Ident,
    gpu: &CaseGpu,
    files: &mut Vec<(String, DumpData)>,
) -> Result<(), Failure> {
    use crate::probe::file_part;
    for (r, g) in id.case.resources.iter().zip(&gpu.resources) {
        if !r.output {
            continue;
        }
        let bytes = ctx.download_into(g, Vec::new())?;
        let shape = match r.kind {
            ResourceKind::Buffer { element, bytes } => vec![bytes / element.bytes()],
            ResourceKind::Uniform { bytes } => vec![bytes / 4],
            ResourceKind::Image {
                format,
                width,
                height,
                ..
            } => crate::scenario::npy::image_shape(format, width, height),
        };
        files.push((
            format!("{}.npy", file_part(&r.name)),
            DumpData::Npy {
                elem: r.element(),
                shape,
                bytes,
            },
        ));
    }
    Ok(())
}
