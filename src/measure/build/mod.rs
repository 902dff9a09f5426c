//! Step 4: one variant's pipelines, and what the driver says about them. Read in the order
//! of the data: [`begin`] compiles and reflects, `jobs.rs` makes the pipelines (on any
//! thread, [`PipelineJob::make`]), [`finish`] keeps them with the driver's statistics
//! (`driver.rs`: executable statistics, VK_AMD_shader_info, `--dump-ir`'s files).
use crate::measure::failure::Failure;
use crate::measure::options::RunOptions;
use crate::measure::prepare::{self, Compiled, Prepared};
use crate::measure::row::Ident;
use crate::measure::setup::{self, CaseGpu};
use crate::output::run_json::VariantCost;
use crate::results::record::BuildFacts;
use crate::results::MetricRow;
use crate::shader::Compiler;
use crate::sink::{Dump, DumpData};
use crate::vk::context::Idle;
use crate::vk::pipeline::{Pipeline, PipelineDesc, PipelineMaker, SubgroupMode};
use crate::vk::submit::Dispatch;
use crate::vk::Context;
use ash::vk;
use std::path::Path;
use std::time::Instant;

mod driver;
mod jobs;
pub use driver::Normalized;
use driver::{driver_statistics, dump_ir};
use jobs::{destroy_unused, make_pipelines, Specs};
pub use jobs::{Made, PipelineJob};

/// A variant ready to run: its pipelines and everything a dispatch needs.
pub struct Built {
    /// The variant's name: which descriptor sets it runs with ([`CaseGpu::sets_of`]).
    pub variant: String,
    /// One compute pipeline per pass, in pass order.
    pub pipelines: Vec<Pipeline>,
    /// The check run's pipelines where the shaders do not probe their subgroup size
    /// themselves: each pass with the probe added ([`crate::shader::instrument`]); empty
    /// otherwise. Timing never runs them.
    pub check_pipelines: Vec<Pipeline>,
    /// Why the probe could not be added, when it could not.
    pub probe_note: Option<String>,
    /// Push-constant bytes per pass (empty where the shader takes none).
    pub push: Vec<Vec<u8>>,
    /// Workgroups per axis (x, y, z) per pass, resolved with the workgroup size that runs.
    pub grids: Vec<[u32; 3]>,
    /// Probe record slots per workgroup, per pass.
    pub probe_slots: Vec<u32>,
    /// Each pass's SPIR-V and its reflection, kept so the pipelines can be made anew.
    pub compiled: Compiled,
    /// The first pass's workgroup size.
    pub wg0: [u32; 3],
    /// The driver's statistics as vendor-neutral columns (registers, spills, shared memory).
    pub norm: Normalized,
    /// Compute invocations one repetition launches, all passes together (`expected_invocations`
    /// column); pipeline statistics must count exactly this.
    pub expected_invocations: u64,
    /// What the pipelines were made from, to make them anew ([`Built::remake`]).
    specs: Specs,
    modes: Vec<SubgroupMode>,
}

impl Built {
    /// The passes as dispatches over the case's bindings.
    pub fn dispatches<'a>(&'a self, gpu: &'a CaseGpu) -> Vec<Dispatch<'a>> {
        self.pipelines
            .iter()
            .zip(&self.grids)
            .zip(&self.push)
            .map(|((p, grid), push)| Dispatch {
                pipeline: p.pipeline,
                layout: p.layout,
                sets: gpu.sets_of(&self.variant),
                grid: *grid,
                push,
            })
            .collect()
    }

    /// The check run's passes: the probed pipelines where p3lab added the probe, else the
    /// timed ones.
    pub fn check_dispatches<'a>(&'a self, gpu: &'a CaseGpu) -> Vec<Dispatch<'a>> {
        let mut d = self.dispatches(gpu);
        if self.check_pipelines.len() == d.len() {
            for (x, p) in d.iter_mut().zip(&self.check_pipelines) {
                x.pipeline = p.pipeline;
                x.layout = p.layout;
            }
        }
        d
    }

    /// Whether the check run measures the subgroup size: a shader that probes itself, or one
    /// p3lab added the probe to.
    pub fn probed(&self) -> bool {
        !self.check_pipelines.is_empty()
            || self
                .compiled
                .iter()
                .any(|(_, r)| r.bindings.iter().any(|b| b.set == crate::probe::PROBE_SET))
    }

    /// Destroy the pipelines; `idle`: no pending submission uses them.
    pub fn destroy(self, ctx: &Context, idle: &Idle) {
        for p in self.pipelines.into_iter().chain(self.check_pipelines) {
            ctx.destroy_pipeline(p, idle);
        }
    }

    /// Make the pipelines anew from the same SPIR-V, specialization and subgroup size, then
    /// destroy the old ones (after a wait for idle): the driver places the new code where it
    /// likes, and a round on them samples that placement (see instance.rs).
    /// On an error the old pipelines stay.
    pub fn remake(&mut self, ctx: &Context, name: &str, gpu: &CaseGpu) -> anyhow::Result<()> {
        let made = make_pipelines(
            &ctx.pipeline_maker(),
            name,
            &self.compiled,
            (&self.specs, &self.modes),
            &gpu.bindings.layouts,
            false,
        )
        .map_err(|(e, made)| {
            destroy_unused(ctx, made);
            e
        })?;
        let idle = ctx.wait_idle();
        for p in std::mem::replace(&mut self.pipelines, made) {
            ctx.destroy_pipeline(p, &idle);
        }
        Ok(())
    }

    /// Leave the pipelines with a device that is being abandoned.
    pub fn abandon(self) {
        std::mem::forget(self.pipelines);
        std::mem::forget(self.check_pipelines);
    }
}

/// Nanoseconds elapsed since `t` (host time; what run.json's per-variant costs record).
pub fn elapsed_ns(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

/// Compile (from the in-memory cache after preflight), make the pipelines, and record the
/// driver's statistics as metrics; the facts the build settled come back beside the result,
/// as far as it got (a failed build still knows the declared workgroup size). The runner's
/// check phase makes the same steps apart: [`begin`] for every variant, their pipelines on
/// worker threads ([`PipelineJob::make`]), then [`finish`] for each in turn.
#[allow(
    clippy::too_many_arguments,
    reason = "one call site (the runner); the inputs are the pieces a pipeline is built from"
)]
pub fn build(
    ctx: &Context,
    compiler: &mut Compiler,
    opts: &RunOptions,
    id: &Ident,
    gpu: &CaseGpu,
    metrics: &mut Vec<MetricRow>,
    cost: &mut VariantCost,
    ir: Option<&mut Vec<Dump>>,
) -> (BuildFacts, Result<Built, Failure>) {
    let (mut facts, begun) = begin(ctx, compiler, opts, id, gpu, cost);
    let built = begun.and_then(|job| {
        let made = job.make(&ctx.pipeline_maker());
        finish(ctx, opts, id, gpu, made, &mut facts, metrics, cost, ir)
    });
    (facts, built)
}

/// The build's first step: compile (from the in-memory cache after preflight), reflect and
/// resolve the passes; what the pipelines are made from, and the facts settled so far.
pub fn begin(
    ctx: &Context,
    compiler: &mut Compiler,
    opts: &RunOptions,
    id: &Ident,
    gpu: &CaseGpu,
    cost: &mut VariantCost,
) -> (BuildFacts, Result<PipelineJob, Failure>) {
    let mut facts = BuildFacts::default();
    let (sc, case, v) = (id.sc, id.case, id.v);
    let tc = Instant::now();
    let prepared = prepare::prepare(ctx, compiler, opts, (sc, case, v));
    cost.compile_ns = elapsed_ns(tc);
    let declared = v.passes.first().and_then(|p| p.workgroup).or(v.workgroup);
    if let Some(wg) = prepared.as_ref().ok().map(|p| p.workgroups[0]).or(declared) {
        facts.workgroup = Some(wg);
    }
    let prepared = match prepared {
        Ok(p) => p,
        Err(f) => return (facts, Err(f)),
    };
    let resolved = &prepared.resolved;
    facts.grid = resolved
        .iter()
        .map(|r| format!("{}x{}x{}", r.grid[0], r.grid[1], r.grid[2]))
        .collect::<Vec<_>>()
        .join(";");
    facts.workgroups = Some(
        resolved
            .iter()
            .map(|r| r.grid.iter().map(|g| u64::from(*g)).product::<u64>())
            .sum(),
    );
    facts.expected_invocations = Some(resolved.iter().map(|r| r.invocations()).sum());
    // P3LAB_NO_CAPTURE=1: the timed pipelines without the capture flags (no compiler
    // statistics), to check that capturing them does not change the code that is timed.
    let capture = ctx.exec_props.is_some()
        && std::env::var_os("P3LAB_NO_CAPTURE").is_none_or(|v| v.is_empty() || v == "0");
    let job = PipelineJob {
        name: v.name.clone(),
        prepared,
        layouts: gpu.bindings.layouts.clone(),
        capture,
    };
    (facts, Ok(job))
}

/// The build's last step, once the pipelines are made (on this thread or another, on the
/// context's device): the probe's record buffer sized, the driver's statistics recorded as
/// metrics, and the variant ready to run. Pipelines it does not keep are destroyed.
#[allow(
    clippy::too_many_arguments,
    reason = "the build's inputs and the facts it fills"
)]
pub fn finish(
    ctx: &Context,
    opts: &RunOptions,
    id: &Ident,
    gpu: &CaseGpu,
    made: Made,
    facts: &mut BuildFacts,
    metrics: &mut Vec<MetricRow>,
    cost: &mut VariantCost,
    ir: Option<&mut Vec<Dump>>,
) -> Result<Built, Failure> {
    let Made {
        job,
        pipelines,
        check: (check_pipelines, probe_note),
        leftover,
        pipeline_ns,
        ..
    } = made;
    destroy_unused(ctx, leftover);
    let Prepared {
        compiled,
        workgroups,
        modes,
        resolved,
        specs,
        probe_slots,
        unused_spec,
    } = job.prepared;
    cost.unused_spec_constants = unused_spec;
    let expected_invocations = facts.expected_invocations.unwrap_or(0);
    let grids: Vec<[u32; 3]> = resolved.iter().map(|r| r.grid).collect();
    let sized = match prepare::group_clock(ctx, opts, id.case) {
        Some(_) => setup::size_groups(ctx, gpu, &grids, &probe_slots),
        None => Ok(()),
    };
    let pipelines = match (sized, pipelines) {
        (Ok(()), Ok(p)) => p,
        (sized, pipelines) => {
            let mut unused = check_pipelines;
            let failure = match (sized, pipelines) {
                (Err(f), Ok(p)) => {
                    unused.extend(p);
                    f
                }
                (_, Err(e)) => Failure::from_device(e),
                (Ok(()), Ok(_)) => unreachable!("matched above"),
            };
            destroy_unused(ctx, unused);
            return Err(failure);
        }
    };
    cost.pipeline_ns = pipeline_ns;
    let push: Vec<Vec<u8>> = compiled
        .iter()
        .zip(&resolved)
        .map(
            |((_, refl), r)| match (&r.push_constants, refl.push_constant_bytes) {
                (Some(p), b) if b > 0 => p.iter().flat_map(|w| w.to_le_bytes()).collect(),
                _ => Vec::new(),
            },
        )
        .collect();
    let norm = driver_statistics(ctx, id, &pipelines, metrics);
    if let Some(dumps) = ir {
        dumps.extend(dump_ir(ctx, id, &pipelines));
    }
    facts.registers_per_thread = norm.registers;
    facts.spill_bytes_per_thread = norm.spill_bytes;
    facts.shared_bytes_per_group = norm.shared_bytes;
    for (name, value, unit) in [
        ("registers_per_thread", norm.registers, "registers"),
        ("spill_bytes_per_thread", norm.spill_bytes, "bytes"),
        ("shared_bytes_per_group", norm.shared_bytes, "bytes"),
    ] {
        if let Some(x) = value {
            metrics.push(id.metric("normalized", name, x as f64, unit));
        }
    }
    Ok(Built {
        variant: id.v.name.clone(),
        pipelines,
        check_pipelines,
        probe_note,
        push,
        grids,
        probe_slots,
        compiled,
        wg0: workgroups[0],
        norm,
        expected_invocations,
        specs,
        modes,
    })
}
