//! Step 4: one variant's pipelines, and what the driver says about them: executable
//! statistics (registers, spills, shared memory), VK_AMD_shader_info, and with `--dump-ir`
//! the internal representations as files.
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

/// Specialization constants per pass: (SpecId, 4 bytes of value).
type Specs = Vec<Vec<(u32, [u8; 4])>>;

/// One pipeline per pass over the case's set layouts; on an error, the error and the ones made
/// so far (for the caller to destroy: [`destroy_unused`]).
fn make_pipelines(
    maker: &PipelineMaker,
    name: &str,
    compiled: &Compiled,
    (specs, modes): (&Specs, &[SubgroupMode]),
    layouts: &[vk::DescriptorSetLayout],
    capture_statistics: bool,
) -> Result<Vec<Pipeline>, (anyhow::Error, Vec<Pipeline>)> {
    let mut made = Vec::with_capacity(compiled.len());
    for (i, (spirv, refl)) in compiled.iter().enumerate() {
        let p = maker.create_pipeline(&PipelineDesc {
            name,
            spirv,
            entry: &refl.entry_point,
            set_layouts: layouts,
            // A range is whole words; a block ending in an f16 is padded.
            push_bytes: refl.push_constant_bytes.next_multiple_of(4),
            spec: &specs[i],
            subgroup: modes[i],
            capture_statistics,
        });
        match p {
            Ok(p) => made.push(p),
            Err(e) => return Err((e, made)),
        }
    }
    Ok(made)
}

/// Destroy pipelines no submission has used (after a wait for idle, which the type asks for).
fn destroy_unused(ctx: &Context, made: Vec<Pipeline>) {
    if made.is_empty() {
        return;
    }
    let idle = ctx.wait_idle();
    for p in made {
        ctx.destroy_pipeline(p, &idle);
    }
}

/// The check run's pipelines for shaders that do not probe their subgroup size themselves
/// (none of the passes binds the probe set): every pass with the probe added; none, with why,
/// when one cannot take it (and the ones made before the failure, to destroy).
fn probe_pipelines(
    maker: &PipelineMaker,
    name: &str,
    compiled: &Compiled,
    how: (&Specs, &[SubgroupMode]),
    layouts: &[vk::DescriptorSetLayout],
) -> (Vec<Pipeline>, Option<String>, Vec<Pipeline>) {
    let probed = compiled
        .iter()
        .any(|(_, r)| r.bindings.iter().any(|b| b.set == crate::probe::PROBE_SET));
    if probed {
        return (Vec::new(), None, Vec::new());
    }
    let mut with_probe: Compiled = Vec::new();
    for (spirv, refl) in compiled {
        match crate::shader::instrument::subgroup_probe(
            spirv,
            &refl.entry_point,
            crate::probe::PROBE_SET,
        ) {
            Ok(w) => with_probe.push((std::sync::Arc::new(w), refl.clone())),
            Err(why) => return (Vec::new(), Some(why), Vec::new()),
        }
    }
    match make_pipelines(maker, name, &with_probe, how, layouts, false) {
        Ok(p) => (p, None, Vec::new()),
        Err((e, made)) => (
            Vec::new(),
            Some(format!(
                "the pipeline with the probe added could not be made: {e:#}"
            )),
            made,
        ),
    }
}

/// What a variant's pipelines are made from, owned, so that a worker thread can make them
/// ([`PipelineJob::make`]) while the runner checks the variants before it.
pub struct PipelineJob {
    name: String,
    prepared: Prepared,
    layouts: Vec<vk::DescriptorSetLayout>,
    capture: bool,
}

/// A variant's pipelines as a [`PipelineJob`] made them, on whichever thread.
pub struct Made {
    job: PipelineJob,
    /// The device they were made on.
    pub device: vk::Device,
    /// The timed pipelines, or why not.
    pipelines: anyhow::Result<Vec<Pipeline>>,
    /// The check run's pipelines with the probe added (empty where the shaders probe
    /// themselves or the probe could not be added), and why not.
    check: (Vec<Pipeline>, Option<String>),
    /// Made but not kept (a pass after them failed): destroyed by the runner.
    leftover: Vec<Pipeline>,
    /// How long the timed pipelines took to make, ns (on the thread that made them).
    pipeline_ns: u64,
}

impl PipelineJob {
    /// Make the timed pipelines (with the driver's statistics captured where the device gives
    /// them) and the check run's probed ones.
    pub fn make(self, maker: &PipelineMaker) -> Made {
        let p = &self.prepared;
        let how = (&p.specs, p.modes.as_slice());
        let tp = Instant::now();
        let made = make_pipelines(
            maker,
            &self.name,
            &p.compiled,
            how,
            &self.layouts,
            self.capture,
        );
        let pipeline_ns = elapsed_ns(tp);
        let (pipelines, check, leftover) = match made {
            Ok(pipelines) => {
                let (check, note, leftover) =
                    probe_pipelines(maker, &self.name, &p.compiled, how, &self.layouts);
                (Ok(pipelines), (check, note), leftover)
            }
            Err((e, made)) => (Err(e), (Vec::new(), None), made),
        };
        Made {
            device: maker.device(),
            job: self,
            pipelines,
            check,
            leftover,
            pipeline_ns,
        }
    }
}

impl Made {
    /// Leave its pipelines with a device that was abandoned (replaced after a fault while
    /// they were made).
    pub fn abandon(self) {
        if let Ok(p) = self.pipelines {
            std::mem::forget(p);
        }
        std::mem::forget(self.check.0);
        std::mem::forget(self.leftover);
    }

    /// Destroy its pipelines unused (an interrupted check phase).
    pub fn destroy(self, ctx: &Context) {
        let mut all = self.leftover;
        all.extend(self.check.0);
        if let Ok(p) = self.pipelines {
            all.extend(p);
        }
        destroy_unused(ctx, all);
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

/// Executable statistics and VK_AMD_shader_info as metrics; the normalized view of both.
fn driver_statistics(
    ctx: &Context,
    id: &Ident,
    pipelines: &[Pipeline],
    metrics: &mut Vec<MetricRow>,
) -> Normalized {
    let vendor = ctx.info.vendor_id;
    let mut norm = Normalized::default();
    for (i, p) in pipelines.iter().enumerate() {
        let prefix = prepare::pass_prefix(id.v, i);
        match ctx.executable_statistics(p) {
            Ok(stats) => {
                for s in stats {
                    norm.take(vendor, &s.name, s.value);
                    let name = format!("{prefix}{}", s.name);
                    metrics.push(id.metric(
                        "executable_statistic",
                        &name,
                        s.value,
                        stat_unit(&s.name),
                    ));
                    // NVIDIA: bit 36 marks the field; the low bits are per-thread local (spill) bytes.
                    if vendor == 0x10de && s.name == "Local Memory Size" {
                        let decoded = (s.value as u64) & !(1u64 << 36);
                        metrics.push(id.metric(
                            "executable_statistic_decoded",
                            &format!("{prefix}local_memory_bytes_per_thread"),
                            decoded as f64,
                            "bytes",
                        ));
                    }
                }
            }
            Err(e) => tracing::warn!("executable statistics of `{}`: {e:#}", id.v.name),
        }
    }
    // VK_AMD_shader_info: its own statistics, and the normalized view where executable
    // statistics gave none.
    for (i, p) in pipelines.iter().enumerate() {
        let prefix = prepare::pass_prefix(id.v, i);
        match ctx.amd_shader_statistics(p) {
            Ok(Some(st)) => {
                let u = &st.resource_usage;
                for (name, value, unit) in [
                    ("vgprs_used", u.num_used_vgprs as f64, "registers"),
                    ("sgprs_used", u.num_used_sgprs as f64, "registers"),
                    (
                        "vgprs_available",
                        st.num_available_vgprs as f64,
                        "registers",
                    ),
                    (
                        "sgprs_available",
                        st.num_available_sgprs as f64,
                        "registers",
                    ),
                    ("vgprs_physical", st.num_physical_vgprs as f64, "registers"),
                    ("sgprs_physical", st.num_physical_sgprs as f64, "registers"),
                    (
                        "lds_bytes_per_group",
                        u.lds_size_per_local_work_group as f64,
                        "bytes",
                    ),
                    ("lds_used_bytes", u.lds_usage_size_in_bytes as f64, "bytes"),
                    (
                        "scratch_bytes",
                        u.scratch_mem_usage_in_bytes as f64,
                        "bytes",
                    ),
                ] {
                    metrics.push(id.metric(
                        "amd_shader_info",
                        &format!("{prefix}{name}"),
                        value,
                        unit,
                    ));
                }
                if i == 0 {
                    norm.registers.get_or_insert(u.num_used_vgprs);
                    norm.shared_bytes
                        .get_or_insert(u.lds_usage_size_in_bytes.min(u32::MAX as usize) as u32);
                }
            }
            Ok(None) => {}
            Err(e) => tracing::warn!("shader info of `{}`: {e:#}", id.v.name),
        }
    }
    norm
}

/// Driver statistics mapped to vendor-neutral columns. Over several passes the largest value
/// is kept: the most demanding pass limits occupancy.
#[derive(Debug, Default, Clone, Copy)]
pub struct Normalized {
    /// Registers per thread (`registers_per_thread`): NVIDIA's `Register Count`, RADV's `VGPRs`;
    /// None where the driver reports neither.
    pub registers: Option<u32>,
    /// Spilled (local-memory) bytes per thread (`spill_bytes_per_thread`): NVIDIA's `Local Memory
    /// Size` without its flag bit, RADV's spilled VGPRs × 4; None where not reported.
    pub spill_bytes: Option<u32>,
    /// Shared (workgroup) memory bytes per workgroup (`shared_bytes_per_group`): NVIDIA's `Shared
    /// Memory Size`, RADV's `LDS size` (or VK_AMD_shader_info's LDS usage); None where not
    /// reported.
    pub shared_bytes: Option<u32>,
}

impl Normalized {
    fn take(&mut self, vendor_id: u32, name: &str, value: f64) {
        let v = value.max(0.0) as u64;
        let slot = match (vendor_id, name) {
            // NVIDIA (seen on the H200): five statistics.
            (0x10de, "Register Count") => Some((&mut self.registers, v)),
            (0x10de, "Local Memory Size") => Some((&mut self.spill_bytes, v & !(1u64 << 36))),
            (0x10de, "Shared Memory Size") => Some((&mut self.shared_bytes, v)),
            // RADV (AMD; names from Mesa, untested here): VGPRs, spilled VGPRs (4 bytes each
            // per lane), LDS bytes.
            (0x1002, "VGPRs") => Some((&mut self.registers, v)),
            (0x1002, "Spilled VGPRs") => Some((&mut self.spill_bytes, v * 4)),
            (0x1002, "LDS size") => Some((&mut self.shared_bytes, v)),
            _ => None,
        };
        if let Some((slot, v)) = slot {
            let v = u32::try_from(v).unwrap_or(u32::MAX);
            *slot = Some(slot.map_or(v, |old| old.max(v)));
        }
    }
}

/// The unit of a driver statistic, from its name (drivers report none).
fn stat_unit(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n == "local memory size" {
        // NVIDIA packs a flag into bit 36; the decoded metric beside it is in bytes.
        "raw"
    } else if n.contains("size") || n.contains("bytes") {
        "bytes"
    } else if n.contains("count") || n.contains("gpr") || n.contains("registers") {
        "count"
    } else {
        ""
    }
}

/// `--dump-ir`: every internal representation of every pipeline executable
/// (VK_KHR_pipeline_executable_properties) and VK_AMD_shader_info's disassembly, as files
/// for `OUT/ir/SCENARIO/VARIANT-PARAMSHASH/` (written by the run's sinks, sink/dumps.rs);
/// none where the driver gives none. A failure is logged, never fatal.
fn dump_ir(ctx: &Context, id: &Ident, pipelines: &[Pipeline]) -> Option<Dump> {
    use crate::probe::{file_part, short_hash};
    let (sc, case, v) = (id.sc, id.case, id.v);
    let dir = Path::new("ir").join(file_part(&sc.name)).join(format!(
        "{}-{}",
        file_part(&v.name),
        short_hash(&case.params_label)
    ));
    let mut files: Vec<(String, DumpData)> = Vec::new();
    for (i, p) in pipelines.iter().enumerate() {
        let pass = file_part(&v.passes[i].name);
        match ctx.internal_representations(p) {
            Ok(reprs) => {
                for (k, r) in reprs.into_iter().enumerate() {
                    let ext = if r.is_text { "txt" } else { "bin" };
                    files.push((
                        format!(
                            "{pass}-{}-{k}-{}.{ext}",
                            file_part(&r.executable),
                            file_part(&r.name)
                        ),
                        DumpData::Bytes(r.data),
                    ));
                }
            }
            Err(e) => tracing::warn!("--dump-ir: `{}`: {e:#}", v.name),
        }
        match ctx.amd_disassembly(p) {
            Ok(Some(text)) => files.push((
                format!("{pass}-amd-disassembly.txt"),
                DumpData::Bytes(text.into_bytes()),
            )),
            Ok(None) => {}
            Err(e) => tracing::warn!("--dump-ir: `{}`: {e:#}", v.name),
        }
    }
    if files.is_empty() {
        // Once per run: the driver is the same for every variant.
        static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::warn!(
                "--dump-ir: the driver gives no internal representations (through VK_KHR_pipeline_executable_properties or VK_AMD_shader_info); nothing written"
            );
        }
        return None;
    }
    Some(Dump {
        what: "--dump-ir",
        dir,
        files,
    })
}
