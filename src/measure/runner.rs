//! The runner: for each scenario and params case, set up resources once, then for each variant
//! compile, validate against the device, check outputs, time, and write its rows at once.
use crate::check::{self, Contents};
use crate::data;
use crate::measure::prepare::{self, Prepared};
use crate::measure::stats;
use crate::output::run_json::{RunJson, VariantCost};
use crate::output::{MetricRow, ResultRow, SampleRow, Writers};
use crate::scenario::{
    Case, ImageFormat, ImageUsage, Mode, Resource, ResourceKind, Scenario, SubgroupReq, Variant,
};
use crate::shader::{Compiler, Reflection};
use crate::vk::pipeline::{DescType, Pipeline, PipelineDesc, SubgroupMode};
use crate::vk::resources::{GpuResource, ImageDesc};
use crate::vk::submit::Dispatch;
use crate::vk::Context;
use ash::vk;
use gpu_allocator::MemoryLocation;
use std::path::PathBuf;
use std::time::Instant;

/// Set by Ctrl-C (SIGINT/SIGTERM): the runner stops after the variant in progress.
pub static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// The descriptor set p3lab reserves for its in-shader probe (glsl/common/p3lab.glsl).
pub const PROBE_SET: u32 = 3;
const PROBE_WORDS: usize = 4;
/// First size of the per-workgroup record buffer (4096 groups); grown per variant as needed.
const GROUPS_INITIAL_BYTES: u64 = 4096 * crate::probe::RECORD_BYTES;
/// Bootstrap resamples for the median's confidence interval.
const RESAMPLES: usize = 2000;
/// One warm-up batch never records more than this many repetitions.
const MAX_WARMUP_REPS: u32 = 100_000;
/// GPU time one warm-up batch aims at.
const BATCH_NS: f64 = 50e6;

#[derive(Debug, Default)]
struct Warmup {
    reps: u32,
    gpu_ns: f64,
    converged: bool,
    first_median_ns: Option<f64>,
}

pub struct RunOptions {
    /// The validation layer is on (a recreated device gets it too).
    pub validate: bool,
    pub filter: Option<globset::GlobSet>,
    pub reps: Option<u32>,
    pub warmup: Option<u32>,
    pub warmup_ms: Option<u64>,
    /// Rows already written (`--resume`): those variants are not run again.
    pub skip: std::collections::BTreeSet<crate::output::RowKey>,
    /// This device's measured peaks, for the %-of-peak columns.
    pub peaks: Option<crate::peaks::Peaks>,
    pub glsl_common: Vec<PathBuf>,
    pub progress: bool,
    /// `--counters`: hardware counter globs that replace every case's `measure.counters`.
    pub counters: Vec<String>,
    /// `--probe`: per-workgroup probes in every scenario, as if each set `measure.probe`.
    pub probe: bool,
    /// `--dump-ir`: write the drivers' internal representations of every pipeline to files.
    pub dump_ir: bool,
}

impl RunOptions {
    /// `--filter`: the variant's name or `scenario/variant` matches (everything without one).
    pub fn filter_matches(&self, sc: &Scenario, v: &Variant) -> bool {
        match &self.filter {
            None => true,
            Some(g) => g.is_match(&v.name) || g.is_match(format!("{}/{}", sc.name, v.name)),
        }
    }
}

/// Row statuses that fail a run (exit 3).
pub const FAILED_STATUSES: [&str; 3] = ["compile_error", "check_failed", "error"];

pub struct Runner<'a> {
    /// Owned so that a lost device can be replaced by a new one mid-run.
    pub ctx: Context,
    pub compiler: &'a mut Compiler,
    pub writers: &'a mut Writers,
    pub meta: &'a mut RunJson,
    pub opts: &'a RunOptions,
    /// Set when the device was lost: later variants are not attempted on it.
    pub lost: Option<String>,
    /// Read-back buffers of checked variants, recycled for the next variant's outputs.
    pub spare: Contents,
    /// The L2-eviction buffer of cold mode (made on first use).
    pub evict: Option<(GpuResource, u64)>,
    /// When the last timed submission ended: a long gap since then calls for a long warm-up.
    pub gpu_idle_since: Instant,
}

impl Drop for Runner<'_> {
    fn drop(&mut self) {
        if let Some((b, _)) = self.evict.take() {
            self.ctx.wait_idle();
            self.ctx.destroy_resource(b);
        }
    }
}

/// Everything one variant produced.
/// What a variant's outputs are checked against.
struct CheckInputs<'c> {
    expected: Option<&'c Result<Contents, anyhow::Error>>,
    baseline: Option<&'c Contents>,
    baseline_failed: Option<&'c str>,
}

struct Outcome {
    /// The variant's row before timing (status, check, counts); copied per mode.
    row: ResultRow,
    /// One row per measurement mode, once timed.
    mode_rows: Vec<ResultRow>,
    samples: Vec<SampleRow>,
    metrics: Vec<MetricRow>,
    outputs: Option<Contents>,
    cost: VariantCost,
}

/// Does a submission's error say the device is lost or hung?
fn device_failed(msg: &str) -> bool {
    msg.contains("device lost") || msg.contains("did not finish")
}

fn fault_suffix(lost: &Option<String>) -> Option<String> {
    lost.as_ref().and_then(|l| {
        l.find("VK_EXT_device_fault")
            // One `)`: the one `lose` wraps the message in; the description may end in its own.
            .map(|i| format!("; {}", l[i..].strip_suffix(')').unwrap_or(&l[i..])))
    })
}

/// The per-case state on the device.
struct CaseGpu {
    resources: Vec<GpuResource>,
    probe: GpuResource,
    /// Per-workgroup records at set 3, binding 1, and their size in bytes (probes on only).
    groups: std::cell::RefCell<Option<(GpuResource, u64)>>,
    bindings: crate::vk::pipeline::Bindings,
    /// Initial contents of output resources, re-uploaded before each variant.
    initial: Contents,
}

fn elapsed(t: Instant) -> u64 {
    t.elapsed().as_nanos() as u64
}

fn vk_format(f: ImageFormat) -> vk::Format {
    match f {
        ImageFormat::Rgba32f => vk::Format::R32G32B32A32_SFLOAT,
        ImageFormat::Rgba16f => vk::Format::R16G16B16A16_SFLOAT,
        ImageFormat::R32f => vk::Format::R32_SFLOAT,
        ImageFormat::Rgba8 => vk::Format::R8G8B8A8_UNORM,
        ImageFormat::R32ui => vk::Format::R32_UINT,
    }
}

fn desc_type(r: &Resource) -> DescType {
    match r.kind {
        ResourceKind::Buffer { .. } => DescType::StorageBuffer,
        ResourceKind::Image {
            usage: ImageUsage::Storage,
            ..
        } => DescType::StorageImage,
        ResourceKind::Image {
            usage: ImageUsage::Sampled,
            ..
        } => DescType::SampledImage,
    }
}

impl<'a> Runner<'a> {
    fn base_row(&self, sc: &Scenario, case: &Case, v: &Variant) -> ResultRow {
        let d = &self.ctx.info;
        ResultRow {
            schema_version: crate::output::SCHEMA_VERSION,
            run_id: self.meta.run_id.clone(),
            scenario: sc.name.clone(),
            variant: v.name.clone(),
            device_name: d.name.clone(),
            vendor_id: d.vendor_id,
            device_type: d.device_type.clone(),
            driver_name: d.driver_name.clone(),
            driver_info: d.driver_info.clone(),
            api_version: d.api_version.clone(),
            params: case.params_label.clone(),
            defines: v
                .defines
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(";"),
            subgroup_size_requested: v.subgroup.label(),
            dispatches: v.passes.len() as u32,
            check: "none".into(),
            device_uuid: d.uuid.clone(),
            driver_version: d.driver_version,
            host: self.meta.host.clone(),
            bytes: v.work.bytes(),
            bytes_read: v.work.bytes_read,
            bytes_written: v.work.bytes_written,
            flops: v.work.flops,
            shared_bytes: v.work.shared_bytes,
            ..Default::default()
        }
    }

    fn selected(&self, sc: &Scenario, case: &Case, v: &Variant) -> bool {
        let matches = self.opts.filter_matches(sc, v);
        // `--resume`: a variant whose every mode already has a row is done.
        let done = !self.opts.skip.is_empty()
            && case.modes.iter().all(|m| {
                self.opts.skip.contains(&crate::output::RowKey {
                    scenario: sc.name.clone(),
                    variant: v.name.clone(),
                    params: case.params_label.clone(),
                    mode: m.label().into(),
                })
            });
        matches && !done
    }

    /// Run every case of a scenario. Rows are written as they finish.
    pub fn run_scenario(
        &mut self,
        sc: &Scenario,
        progress: &indicatif::ProgressBar,
    ) -> anyhow::Result<()> {
        for case in &sc.cases {
            if interrupted() {
                break;
            }
            let mut order: Vec<&Variant> = case.variants.iter().collect();
            let baseline = case.check.as_ref().and_then(|c| c.baseline.clone());
            // The baseline runs first so the others can be compared with it; it runs even when
            // the filter leaves it out, because their checks need it.
            if let Some(b) = &baseline {
                if let Some(pos) = order.iter().position(|v| &v.name == b) {
                    let v = order.remove(pos);
                    order.insert(0, v);
                }
            }
            let order: Vec<&Variant> = order
                .into_iter()
                .filter(|v| self.selected(sc, case, v) || Some(&v.name) == baseline.as_ref())
                .collect();
            if !order.iter().any(|v| self.selected(sc, case, v)) {
                continue;
            }
            let setup_t = Instant::now();
            let missing: Vec<&String> = sc
                .requires
                .iter()
                .filter(|r| {
                    !self.ctx.feature(r) && !self.ctx.enabled.extensions.iter().any(|e| e == *r)
                })
                .collect();
            let gpu = match (self.lost.clone(), missing.is_empty()) {
                (Some(why), _) => Err(anyhow::anyhow!("not run: {why}")),
                (None, false) => Err(anyhow::anyhow!(
                    "unsupported: the scenario requires {}, which this device lacks",
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                (None, true) => match self.setup_case(case) {
                    // The device failed while the case's resources were uploaded: try once
                    // more on a new one.
                    Err(e) if device_failed(&format!("{e:#}")) => {
                        tracing::warn!("setting up the case: {e:#}; creating a new device");
                        self.meta.device_recreated += 1;
                        self.recover().and_then(|_| self.setup_case(case))
                    }
                    r => r,
                },
            };
            self.meta
                .setup_ns
                .push((sc.name.clone(), case.params_label.clone(), elapsed(setup_t)));
            let mut gpu = match gpu {
                Ok(g) => g,
                Err(e) => {
                    let msg = format!("{e:#}");
                    let (status, reason) = match msg.strip_prefix("unsupported: ") {
                        Some(r) => ("unsupported", r.to_string()),
                        None => ("error", msg.clone()),
                    };
                    for v in &order {
                        let mut row = self.base_row(sc, case, v);
                        row.status = status.into();
                        row.reason = reason.clone();
                        self.write(
                            case,
                            Outcome {
                                row,
                                mode_rows: vec![],
                                samples: vec![],
                                metrics: vec![],
                                outputs: None,
                                cost: VariantCost::default(),
                            },
                        )?;
                        progress.inc(1);
                    }
                    continue;
                }
            };
            let expected = match case.check.as_ref().and_then(|c| c.reference.as_ref()) {
                None => None,
                Some(name) => {
                    let inputs: Contents = case
                        .resources
                        .iter()
                        .map(|r| (r.name.clone(), data::init_bytes(r)))
                        .collect();
                    Some(
                        check::run_reference(name, case, &inputs)
                            .map_err(|e| anyhow::anyhow!("reference `{name}`: {e}")),
                    )
                }
            };
            let mut baseline_out: Option<Contents> = None;
            let mut baseline_failed: Option<String> = None;
            for v in order {
                if interrupted() {
                    break;
                }
                progress.set_message(format!("{} / {}", sc.name, v.name));
                let checks = CheckInputs {
                    expected: expected.as_ref(),
                    baseline: baseline_out.as_ref(),
                    baseline_failed: baseline_failed.as_deref(),
                };
                let mut out = self.run_variant(sc, case, &gpu, v, &checks);
                if Some(&v.name) == case.check.as_ref().and_then(|c| c.baseline.as_ref()) {
                    if out.row.status == "ok" {
                        baseline_out = out.outputs.take();
                    } else {
                        baseline_failed = Some(format!("{}: {}", out.row.status, out.row.reason));
                    }
                }
                if let Some(outputs) = out.outputs.take() {
                    self.spare.extend(outputs);
                }
                // A baseline the filter left out ran only for its outputs: it gets no row.
                if self.selected(sc, case, v) {
                    self.write(case, out)?;
                }
                progress.inc(1);
                // A hung or lost device: replace it and set the case up again, so the next
                // variants run on a working device.
                if let Some(why) = self.lost.take() {
                    tracing::warn!("{why}; creating a new device for the remaining variants");
                    // The old device may still be executing the hung work: destroying its
                    // objects would wait for it forever, so they are leaked on purpose.
                    std::mem::forget(gpu);
                    self.meta.device_recreated += 1;
                    // Without a device nothing else can run: the rows so far stay, the run stops.
                    gpu = self
                        .recover()
                        .and_then(|_| self.setup_case(case))
                        .map_err(|e| e.context("recreating the device after a failure"))?;
                }
            }
            self.teardown_case(gpu);
        }
        Ok(())
    }

    fn write(&mut self, case: &Case, mut out: Outcome) -> anyhow::Result<()> {
        // A variant that stopped before timing still gets one row per mode, so every file has
        // variants x modes rows.
        if out.mode_rows.is_empty() {
            out.mode_rows = case
                .modes
                .iter()
                .map(|m| ResultRow {
                    mode: m.label().into(),
                    ..out.row.clone()
                })
                .collect();
        }
        for r in &out.mode_rows {
            *self.meta.rows.entry(r.status.clone()).or_default() += 1;
        }
        out.row = out.mode_rows[0].clone();
        self.writers
            .write_variant(&out.mode_rows, &out.samples, &out.metrics)?;
        match out.row.status.as_str() {
            "ok" => tracing::info!(
                "{} / {} [{}]: median {:.1} us",
                out.row.scenario,
                out.row.variant,
                out.row.params,
                out.row.median_ns.unwrap_or(0.0) / 1e3
            ),
            s => tracing::warn!(
                "{} / {} [{}]: {s}: {}",
                out.row.scenario,
                out.row.variant,
                out.row.params,
                out.row.reason
            ),
        }
        if out.cost.total_ns > 0 {
            self.meta.costs.push(out.cost);
        }
        Ok(())
    }

    fn setup_case(&self, case: &Case) -> anyhow::Result<CaseGpu> {
        let ctx = &self.ctx;
        let info = &ctx.info;
        let mut resources = Vec::new();
        let mut initial = Contents::new();
        let cleanup = |resources: Vec<GpuResource>| {
            for r in resources {
                ctx.destroy_resource(r);
            }
        };
        // Out of memory is an `error` row, found before anything is allocated when the
        // resources alone are over the device-local heap (allocation failures give one too).
        let total: u64 = case.resources.iter().map(|r| r.bytes()).sum();
        if info.device_local_bytes > 0 && total > info.device_local_bytes {
            anyhow::bail!(
                "out of device memory: the case's resources need {total} bytes, over the {} bytes of this device's largest device-local heap",
                info.device_local_bytes
            );
        }
        for r in &case.resources {
            let made = match &r.kind {
                ResourceKind::Buffer { bytes, .. } => {
                    if *bytes > info.max_storage_buffer_range as u64 {
                        cleanup(resources);
                        anyhow::bail!(
                            "unsupported: buffer `{}` is {bytes} bytes, over this device's maxStorageBufferRange ({})",
                            r.name,
                            info.max_storage_buffer_range
                        );
                    }
                    let usage = vk::BufferUsageFlags::STORAGE_BUFFER
                        | vk::BufferUsageFlags::TRANSFER_SRC
                        | vk::BufferUsageFlags::TRANSFER_DST;
                    ctx.create_buffer(&r.name, *bytes, usage, MemoryLocation::GpuOnly)
                        .map(GpuResource::Buffer)
                }
                ResourceKind::Image {
                    format,
                    width,
                    height,
                    usage,
                    linear,
                } => {
                    let vf = vk_format(*format);
                    // SAFETY-free query through the instance: format support decides "unsupported".
                    let props = format_features(ctx, vf);
                    let need = match usage {
                        ImageUsage::Storage => vk::FormatFeatureFlags::STORAGE_IMAGE,
                        ImageUsage::Sampled if *linear => {
                            vk::FormatFeatureFlags::SAMPLED_IMAGE
                                | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR
                        }
                        ImageUsage::Sampled => vk::FormatFeatureFlags::SAMPLED_IMAGE,
                    };
                    if !props.contains(need) {
                        cleanup(resources);
                        anyhow::bail!(
                            "unsupported: image `{}`: format {:?} lacks {:?} on this device",
                            r.name,
                            vf,
                            need
                        );
                    }
                    ctx.create_image(
                        &r.name,
                        ImageDesc {
                            format: vf,
                            width: *width,
                            height: *height,
                            texel_bytes: format.texel_bytes(),
                            sampled: *usage == ImageUsage::Sampled,
                            linear_filter: *linear,
                        },
                    )
                    .map(GpuResource::Image)
                }
            };
            let made = match made {
                Ok(m) => m,
                Err(e) => {
                    cleanup(resources);
                    return Err(e);
                }
            };
            let res = if r.init == crate::scenario::Init::Zero {
                ctx.fill_zero(&made)
            } else {
                let bytes = data::init_bytes(r);
                let up = ctx.upload(&made, &bytes);
                if r.output {
                    initial.insert(r.name.clone(), bytes);
                }
                up
            };
            resources.push(made);
            if let Err(e) = res {
                cleanup(resources);
                return Err(e.context(format!("initializing `{}`", r.name)));
            }
        }
        let probe = match ctx.create_buffer(
            "p3lab-probe",
            (PROBE_WORDS * 4) as u64,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuOnly,
        ) {
            Ok(b) => GpuResource::Buffer(b),
            Err(e) => {
                cleanup(resources);
                return Err(e);
            }
        };
        let groups = match prepare::group_clock(&self.ctx, self.opts, case) {
            None => None,
            Some(_) => match ctx.create_buffer(
                "p3lab-groups",
                GROUPS_INITIAL_BYTES,
                vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
                MemoryLocation::GpuOnly,
            ) {
                Ok(b) => Some((GpuResource::Buffer(b), GROUPS_INITIAL_BYTES)),
                Err(e) => {
                    ctx.destroy_resource(probe);
                    cleanup(resources);
                    return Err(e);
                }
            },
        };
        let mut entries: Vec<(u32, u32, u32, DescType, &GpuResource)> = case
            .resources
            .iter()
            .zip(&resources)
            .map(|(r, g)| (r.set, r.binding, r.index, desc_type(r), g))
            .collect();
        entries.push((PROBE_SET, 0, 0, DescType::StorageBuffer, &probe));
        if let Some((g, _)) = &groups {
            entries.push((PROBE_SET, 1, 0, DescType::StorageBuffer, g));
        }
        let bindings = match ctx.create_bindings(&entries) {
            Ok(b) => b,
            Err(e) => {
                ctx.destroy_resource(probe);
                if let Some((g, _)) = groups {
                    ctx.destroy_resource(g);
                }
                cleanup(resources);
                return Err(e);
            }
        };
        Ok(CaseGpu {
            resources,
            probe,
            groups: std::cell::RefCell::new(groups),
            bindings,
            initial,
        })
    }

    fn teardown_case(&self, gpu: CaseGpu) {
        self.ctx.wait_idle();
        self.ctx.destroy_bindings(gpu.bindings);
        self.ctx.destroy_resource(gpu.probe);
        if let Some((g, _)) = gpu.groups.into_inner() {
            self.ctx.destroy_resource(g);
        }
        for r in gpu.resources {
            self.ctx.destroy_resource(r);
        }
    }

    fn run_variant(
        &mut self,
        sc: &Scenario,
        case: &Case,
        gpu: &CaseGpu,
        v: &Variant,
        checks: &CheckInputs,
    ) -> Outcome {
        let t0 = Instant::now();
        let mut out = Outcome {
            row: self.base_row(sc, case, v),
            mode_rows: vec![],
            samples: vec![],
            metrics: vec![],
            outputs: None,
            cost: VariantCost {
                scenario: sc.name.clone(),
                variant: v.name.clone(),
                params: case.params_label.clone(),
                ..Default::default()
            },
        };
        if let Some(why) = &self.lost {
            out.row.status = "error".into();
            out.row.reason = format!("not run: {why}");
            return out;
        }
        let mut pipelines: Vec<Pipeline> = Vec::new();
        let result = self.variant_inner((sc, case, v), gpu, checks, &mut out, &mut pipelines);
        if let Err((status, reason)) = result {
            out.row.status = status.into();
            out.row.reason = reason;
        } else {
            out.row.status = "ok".into();
        }
        for r in &mut out.mode_rows {
            r.status = out.row.status.clone();
            // A mode's own note (drift) stays on an `ok` row; a failure's reason wins.
            if r.status != "ok" || r.reason.is_empty() {
                r.reason = out.row.reason.clone();
            }
        }
        // A hung device never goes idle: its pipelines are leaked with it (recover()).
        if self.lost.is_none() {
            self.ctx.wait_idle();
            for p in pipelines {
                self.ctx.destroy_pipeline(p);
            }
        }
        out.cost.total_ns = elapsed(t0);
        out
    }

    /// The variant's work; an Err carries (status, reason) for the row.
    fn variant_inner(
        &mut self,
        (sc, case, v): (&Scenario, &Case, &Variant),
        gpu: &CaseGpu,
        checks: &CheckInputs,
        out: &mut Outcome,
        pipelines: &mut Vec<Pipeline>,
    ) -> Result<(), (&'static str, String)> {
        let info = self.ctx.info.clone();
        let err = |e: anyhow::Error| ("error", format!("{e:#}"));
        // 1-5. Compile, reflect, and settle everything the shader, the scenario and the device
        // must agree on (src/measure/prepare.rs).
        let group_clock = prepare::group_clock(&self.ctx, self.opts, case);
        let tc = Instant::now();
        let prepared = prepare::prepare(&self.ctx, self.compiler, self.opts, (sc, case, v));
        out.cost.compile_ns = elapsed(tc);
        let declared = v.passes.first().and_then(|p| p.workgroup).or(v.workgroup);
        if let Some(wg) = prepared.as_ref().ok().map(|p| p.workgroups[0]).or(declared) {
            out.row.workgroup_x = Some(wg[0]);
            out.row.workgroup_y = Some(wg[1]);
            out.row.workgroup_z = Some(wg[2]);
        }
        let Prepared {
            compiled,
            workgroups,
            modes,
            resolved,
            specs,
        } = prepared.map_err(<(&'static str, String)>::from)?;
        let wg0 = workgroups[0];
        out.row.grid = resolved
            .iter()
            .map(|r| format!("{}x{}x{}", r.grid[0], r.grid[1], r.grid[2]))
            .collect::<Vec<_>>()
            .join(";");
        let expected: u64 = resolved.iter().map(|r| r.invocations()).sum();
        out.row.expected_invocations = Some(expected);
        if group_clock.is_some() {
            let grids: Vec<[u32; 3]> = resolved.iter().map(|r| r.grid).collect();
            self.size_groups(gpu, &grids).map_err(|e| {
                let msg = format!("{e:#}");
                match msg.strip_prefix("unsupported: ") {
                    Some(r) => ("unsupported", r.to_string()),
                    None => ("error", msg),
                }
            })?;
        }

        // 6. Pipelines.
        let tp = Instant::now();
        let capture = self.ctx.exec_props.is_some();
        for (i, (spirv, refl)) in compiled.iter().enumerate() {
            let p = self
                .ctx
                .create_pipeline(&PipelineDesc {
                    name: &v.name,
                    spirv,
                    set_layouts: &gpu.bindings.layouts,
                    push_bytes: refl.push_constant_bytes,
                    spec: &specs[i],
                    subgroup: modes[i],
                    capture_statistics: capture,
                })
                .map_err(err)?;
            pipelines.push(p);
        }
        out.cost.pipeline_ns = elapsed(tp);
        let mut norm = Normalized::default();
        for (i, p) in pipelines.iter().enumerate() {
            match self.ctx.executable_statistics(p) {
                Ok(stats) => {
                    for s in stats {
                        norm.take(info.vendor_id, &s.name, s.value);
                        let prefix = prepare::pass_prefix(v, i);
                        let name = format!("{prefix}{}", s.name);
                        out.metrics.push(self.metric(
                            (sc, case, v),
                            "executable_statistic",
                            &name,
                            s.value,
                            stat_unit(&s.name),
                        ));
                        // NVIDIA: bit 36 marks the field; the low bits are per-thread local (spill) bytes.
                        if info.vendor_id == 0x10de && s.name == "Local Memory Size" {
                            let decoded = (s.value as u64) & !(1u64 << 36);
                            out.metrics.push(self.metric(
                                (sc, case, v),
                                "executable_statistic_decoded",
                                &format!("{prefix}local_memory_bytes_per_thread"),
                                decoded as f64,
                                "bytes",
                            ));
                        }
                    }
                }
                Err(e) => tracing::warn!("executable statistics of `{}`: {e:#}", v.name),
            }
        }
        // VK_AMD_shader_info: its own statistics, and the normalized view where executable
        // statistics gave none.
        for (i, p) in pipelines.iter().enumerate() {
            let prefix = prepare::pass_prefix(v, i);
            match self.ctx.amd_shader_statistics(p) {
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
                        out.metrics.push(self.metric(
                            (sc, case, v),
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
                Err(e) => tracing::warn!("shader info of `{}`: {e:#}", v.name),
            }
        }
        if self.opts.dump_ir {
            self.dump_ir((sc, case, v), pipelines);
        }
        out.row.registers_per_thread = norm.registers;
        out.row.spill_bytes_per_thread = norm.spill_bytes;
        out.row.shared_bytes_per_group = norm.shared_bytes;
        for (name, value, unit) in [
            ("registers_per_thread", norm.registers, "registers"),
            ("spill_bytes_per_thread", norm.spill_bytes, "bytes"),
            ("shared_bytes_per_group", norm.shared_bytes, "bytes"),
        ] {
            if let Some(v2) = value {
                out.metrics
                    .push(self.metric((sc, case, v), "normalized", name, v2 as f64, unit));
            }
        }

        // 7. Reset outputs and the probe, run once for the check, invocations and subgroup size.
        let tr = Instant::now();
        for (r, g) in case.resources.iter().zip(&gpu.resources) {
            if r.output {
                match gpu.initial.get(&r.name) {
                    Some(bytes) => self.ctx.upload(g, bytes).map_err(|e| self.lose(e))?,
                    None => self.ctx.fill_zero(g).map_err(|e| self.lose(e))?,
                }
            }
        }
        let mut probe_init = vec![0u8; PROBE_WORDS * 4];
        probe_init[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        self.ctx
            .upload(&gpu.probe, &probe_init)
            .map_err(|e| self.lose(e))?;
        if let Some((g, _)) = gpu.groups.borrow().as_ref() {
            self.ctx.fill_zero(g).map_err(|e| self.lose(e))?;
        }
        out.cost.reset_ns = elapsed(tr);
        let push_bytes: Vec<Vec<u8>> = compiled
            .iter()
            .zip(&resolved)
            .map(
                |((_, refl), r)| match (&r.push_constants, refl.push_constant_bytes) {
                    (Some(p), b) if b > 0 => p.iter().flat_map(|w| w.to_le_bytes()).collect(),
                    _ => Vec::new(),
                },
            )
            .collect();
        let dispatches: Vec<Dispatch> = pipelines
            .iter()
            .zip(&resolved)
            .zip(&push_bytes)
            .map(|((p, r), pb)| Dispatch {
                pipeline: p.pipeline,
                layout: p.layout,
                sets: &gpu.bindings.sets,
                grid: r.grid,
                push: pb,
            })
            .collect();
        let tk = Instant::now();
        let (invocations, first_rep_ns) = self
            .ctx
            .run_once(&dispatches, case.timeout_ms)
            .map_err(|e| self.lose(e))?;
        out.cost.check_run_ns = elapsed(tk);
        out.row.invocations = invocations;
        let tb = Instant::now();
        let probe = self.ctx.download(&gpu.probe).map_err(|e| self.lose(e))?;
        let (sg_min, sg_max) = (
            u32::from_le_bytes(probe[0..4].try_into().unwrap()),
            u32::from_le_bytes(probe[4..8].try_into().unwrap()),
        );
        if let Some(chk) = &case.check {
            let mut outputs = Contents::new();
            for (r, g) in case.resources.iter().zip(&gpu.resources) {
                if chk.outputs.contains(&r.name) {
                    let spare = self.spare.remove(&r.name).unwrap_or_default();
                    outputs.insert(
                        r.name.clone(),
                        self.ctx.download_into(g, spare).map_err(|e| self.lose(e))?,
                    );
                }
            }
            out.outputs = Some(outputs);
        }
        if let Some(clock) = group_clock {
            let grids: Vec<[u32; 3]> = resolved.iter().map(|r| r.grid).collect();
            self.group_metrics((sc, case, v), clock, gpu, &compiled, &grids, out)
                .map_err(|e| self.lose(e))?;
        }
        out.cost.readback_ns = elapsed(tb);
        let probed = compiled
            .iter()
            .any(|(_, r)| r.bindings.iter().any(|b| b.set == PROBE_SET));
        if probed && sg_max > 0 {
            out.row.subgroup_size = Some(sg_max);
            out.metrics.push(self.metric(
                (sc, case, v),
                "probe",
                "subgroup_size_min",
                sg_min as f64,
                "lanes",
            ));
            out.metrics.push(self.metric(
                (sc, case, v),
                "probe",
                "subgroup_size_max",
                sg_max as f64,
                "lanes",
            ));
            if sg_min != sg_max {
                out.row.reason = format!(
                    "subgroup size varied between {sg_min} and {sg_max} within workgroup 0"
                );
            }
            if let SubgroupReq::Size(n) = v.subgroup {
                if sg_min != n || sg_max != n {
                    return Err(("error", format!("requested subgroup size {n} but the shader ran with {sg_min}..{sg_max}: the driver ignored the request")));
                }
            }
        } else {
            out.row.reason = "subgroup size not measured: the shader does not call p3_probe_record() from glsl/common/p3lab.glsl".into();
        }
        // Theoretical occupancy of the first pass's workgroup, from the driver's numbers.
        let sg = out.row.subgroup_size.unwrap_or(info.subgroup_size_default);
        let inv = wg0[0] * wg0[1] * wg0[2];
        if let Some(o) = crate::occupancy::theoretical(
            crate::occupancy::Vendor::from_id(info.vendor_id),
            norm.registers,
            norm.shared_bytes.unwrap_or(0),
            inv,
            sg,
        ) {
            out.row.occupancy_groups_per_unit = Some(o.groups_per_unit);
            out.row.occupancy_waves_per_unit = Some(o.waves_per_unit);
            out.row.occupancy_pct = Some(o.occupancy_pct);
            out.row.occupancy_limiter = o.limiter.into();
            let key = (sc, case, v);
            out.metrics.push(self.metric(
                key,
                "occupancy",
                "groups_per_unit",
                o.groups_per_unit as f64,
                "groups",
            ));
            out.metrics.push(self.metric(
                key,
                "occupancy",
                "waves_per_unit",
                o.waves_per_unit as f64,
                "waves",
            ));
            out.metrics
                .push(self.metric(key, "occupancy", "occupancy_pct", o.occupancy_pct, "%"));
        }
        if let Some(n) = invocations {
            if n != expected {
                return Err((
                    "error",
                    format!(
                        "pipeline statistics counted {n} compute invocations, expected {expected}"
                    ),
                ));
            }
            out.metrics.push(self.metric(
                (sc, case, v),
                "pipeline_statistics",
                "compute_shader_invocations",
                n as f64,
                "invocations",
            ));
        }

        // 8. The check, before any timing: a wrong answer is not worth timing.
        let tcheck = Instant::now();
        let verdict = self.check_outputs(case, v, checks, out);
        out.cost.check_ns = elapsed(tcheck);
        verdict?;

        // 8b. Hardware counters: one replay per counter pass, before timing.
        self.perf_counters((sc, case, v), &dispatches, case.timeout_ms, out);

        // 9. Timing, once per measurement mode.
        let mut warmup_ms = self.opts.warmup_ms.unwrap_or(case.warmup_ms);
        // After the GPU sat idle (the host setting up a case, computing a CPU reference), its
        // clocks can stay low through a short warm-up and the whole timed run: on the H200 a
        // baseline timed right after a seconds-long CPU reference ran 3.3x slower with a steady
        // CV of 0.1 %. Such a variant warms up for at least a second.
        if warmup_ms > 0 && self.gpu_idle_since.elapsed() > IDLE_GAP {
            warmup_ms = warmup_ms.max(LONG_WARMUP_MS);
            out.metrics.push(self.metric(
                (sc, case, v),
                "runner",
                "idle_before_ms",
                self.gpu_idle_since.elapsed().as_secs_f64() * 1e3,
                "ms",
            ));
        }
        let min_reps = self.opts.warmup.unwrap_or(case.warmup);
        let reps = self.opts.reps.unwrap_or(case.reps).max(1);
        let seed = seed_for(&sc.name, &v.name, &case.params_label);
        for &mode in &case.modes {
            let evict = match mode {
                Mode::Warm => None,
                Mode::Cold => Some(
                    self.evict_buffer(case.cold_bytes)
                        .map_err(|e| self.lose(e))?,
                ),
            };
            let tw = Instant::now();
            let warm = self
                .warm_up(
                    &dispatches,
                    evict,
                    min_reps,
                    warmup_ms,
                    first_rep_ns,
                    case.timeout_ms,
                )
                .map_err(|e| self.lose(e))?;
            out.cost.warmup_ns += elapsed(tw);
            let key = (sc, case, v);
            let m = mode.label();
            for (name, value, unit) in [
                ("warmup_repetitions", warm.reps as f64, "repetitions"),
                ("warmup_gpu_ms", warm.gpu_ns / 1e6, "ms"),
                (
                    "warmup_converged",
                    f64::from(u8::from(warm.converged)),
                    "bool",
                ),
            ] {
                out.metrics
                    .push(self.metric(key, "runner", name, value, unit).with_mode(m));
            }
            if let Some(first) = warm.first_median_ns {
                out.metrics.push(
                    self.metric(key, "runner", "warmup_first_median_ns", first, "ns")
                        .with_mode(m),
                );
            }
            let tt = Instant::now();
            let mut timings = self
                .ctx
                .run_timed_evict(&dispatches, 0, reps, case.timeout_ms, evict)
                .map_err(|e| self.lose(e))?;
            // Clocks can sit steady at a low level through the warm-up and ramp up during the
            // timed repetitions (seen on the H200 after the host spent seconds on a CPU
            // reference: 5.5 ms repetitions, then 0.97 ms). A drift between the first and last
            // third of the samples means the device was not settled: warm up again and re-time.
            let mut retimed = 0;
            while drifted(&timings.rep_ns) && retimed < MAX_RETIMES && warmup_ms > 0 {
                retimed += 1;
                tracing::info!(
                    "{} / {}: timings drifted, warming up again ({retimed})",
                    sc.name,
                    v.name
                );
                self.warm_up(
                    &dispatches,
                    evict,
                    min_reps,
                    warmup_ms * 2,
                    stats::median(&sorted_copy(&timings.rep_ns)),
                    case.timeout_ms,
                )
                .map_err(|e| self.lose(e))?;
                timings = self
                    .ctx
                    .run_timed_evict(&dispatches, 0, reps, case.timeout_ms, evict)
                    .map_err(|e| self.lose(e))?;
            }
            out.metrics.push(
                self.metric((sc, case, v), "runner", "retimed", retimed as f64, "times")
                    .with_mode(m),
            );
            // A note for this mode's row only.
            let drift_note = (warmup_ms > 0 && drifted(&timings.rep_ns)).then(|| {
                format!(
                    "timings still drift between the first and last third of the repetitions after {retimed} re-timings; the device may be throttling"
                )
            });
            out.cost.timed_submit_ns += elapsed(tt);
            self.gpu_idle_since = Instant::now();
            out.cost.gpu_timed_ns += timings.rep_ns.iter().sum::<f64>();
            for (rep, passes) in timings.pass_ns.iter().enumerate() {
                for (d, ns) in passes.iter().enumerate() {
                    out.samples.push(SampleRow {
                        run_id: self.meta.run_id.clone(),
                        scenario: sc.name.clone(),
                        variant: v.name.clone(),
                        params: case.params_label.clone(),
                        repetition: rep as u32,
                        dispatch: d as u32,
                        gpu_ns: *ns,
                        mode: m.into(),
                        repetition_ns: timings.rep_ns[rep],
                    });
                }
            }
            let mut r = out.row.clone();
            r.mode = m.into();
            if let Some(note) = drift_note {
                r.reason = note;
            }
            if let Some(s) = stats::summarize(&timings.rep_ns, seed, RESAMPLES) {
                r.n = Some(s.n);
                r.min_ns = Some(s.min);
                r.max_ns = Some(s.max);
                r.median_ns = Some(s.median);
                r.mean_ns = Some(s.mean);
                r.stddev_ns = Some(s.stddev);
                r.cv_pct = Some(s.cv_pct);
                r.p5_ns = Some(s.p5);
                r.p95_ns = Some(s.p95);
                r.mad_ns = Some(s.mad);
                r.median_ci_low_ns = Some(s.median_ci_low);
                r.median_ci_high_ns = Some(s.median_ci_high);
                if s.median > 0.0 {
                    r.gbytes_per_s = r.bytes.map(|b| b as f64 / s.median);
                    r.gflops_per_s = r.flops.map(|f| f as f64 / s.median);
                    r.shared_gbytes_per_s = r.shared_bytes.map(|b| b as f64 / s.median);
                }
                if let Some(pk) = &self.opts.peaks {
                    let (d, f, sh, top) =
                        pk.percents(r.gbytes_per_s, r.gflops_per_s, r.shared_gbytes_per_s);
                    r.dram_pct = d;
                    r.flop_pct = f;
                    r.shared_pct = sh;
                    r.top_unit = top;
                }
            }
            out.mode_rows.push(r);
        }
        Ok(())
    }

    /// Compare the variant's outputs with the CPU reference and the baseline's, filling the
    /// row's check columns. Err(check_failed or error) stops the variant before timing.
    fn check_outputs(
        &self,
        case: &Case,
        v: &Variant,
        checks: &CheckInputs,
        out: &mut Outcome,
    ) -> Result<(), (&'static str, String)> {
        let (Some(chk), Some(actual)) = (&case.check, &out.outputs) else {
            return Ok(());
        };
        let is_baseline = Some(&v.name) == chk.baseline.as_ref();
        let mut verdicts = Vec::new();
        if let Some(exp) = checks.expected {
            match exp {
                Ok(exp) => verdicts.push((
                    "reference",
                    check::compare(chk, &case.resources, exp, actual),
                )),
                Err(e) => return Err(("error", format!("{e:#}"))),
            }
        }
        if !is_baseline && chk.baseline.is_some() {
            match checks.baseline {
                Some(b) => {
                    verdicts.push(("baseline", check::compare(chk, &case.resources, b, actual)))
                }
                None if verdicts.is_empty() => {
                    out.row.check = "skipped".into();
                    out.row.check_detail = format!(
                        "baseline `{}` has no outputs: {}",
                        chk.baseline.as_deref().unwrap_or(""),
                        checks.baseline_failed.unwrap_or("it did not run")
                    );
                }
                None => {}
            }
        }
        if verdicts.is_empty() {
            if is_baseline {
                out.row.check = "baseline".into();
            }
            return Ok(());
        }
        let passed = verdicts.iter().all(|(_, o)| o.passed);
        out.row.check = if passed { "pass".into() } else { "fail".into() };
        out.row.check_detail = verdicts
            .iter()
            .map(|(k, o)| format!("vs {k}: {}", o.detail))
            .collect::<Vec<_>>()
            .join(" | ");
        if passed {
            Ok(())
        } else {
            Err(("check_failed", out.row.check_detail.clone()))
        }
    }

    /// The buffer cold mode writes to evict the L2, made once and kept for the run.
    fn evict_buffer(&mut self, bytes: u64) -> anyhow::Result<(vk::Buffer, u64)> {
        if let Some((GpuResource::Buffer(b), _)) = &self.evict {
            if b.size >= bytes {
                return Ok((b.buffer, bytes));
            }
        }
        if let Some((old, _)) = self.evict.take() {
            self.ctx.wait_idle();
            self.ctx.destroy_resource(old);
        }
        let b = self.ctx.create_buffer(
            "p3lab-l2-evict",
            bytes,
            vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuOnly,
        )?;
        let handle = b.buffer;
        self.evict = Some((GpuResource::Buffer(b), bytes));
        Ok((handle, bytes))
    }

    /// Warm up until the GPU's clocks have settled: batches of about 50 ms of repetitions,
    /// until at least `min_ms` of GPU time has passed and two batches in a row agree within 2 %
    /// (or `max(1 s, 5 x min_ms)` has passed). A fixed count is not enough: on an H200, 200
    /// repetitions after an idle read-back still ran at about a third of full speed.
    fn warm_up(
        &self,
        d: &[Dispatch],
        evict: Option<(vk::Buffer, u64)>,
        min_reps: u32,
        min_ms: u64,
        first_rep_ns: f64,
        timeout_ms: u64,
    ) -> anyhow::Result<Warmup> {
        let mut w = Warmup::default();
        if min_ms == 0 {
            if min_reps > 0 {
                let t = self
                    .ctx
                    .run_timed_evict(d, 0, min_reps, timeout_ms, evict)?;
                w.reps = min_reps;
                w.gpu_ns = t.rep_ns.iter().sum();
            }
            return Ok(w);
        }
        let (min_ns, max_ns) = (min_ms as f64 * 1e6, (min_ms as f64 * 5.0).max(1000.0) * 1e6);
        let mut rep_ns = first_rep_ns.max(1_000.0);
        let mut prev: Option<f64> = None;
        loop {
            let batch = ((BATCH_NS / rep_ns).ceil() as u32)
                .clamp(min_reps.clamp(1, MAX_WARMUP_REPS), MAX_WARMUP_REPS);
            let t = self.ctx.run_timed_evict(d, 0, batch, timeout_ms, evict)?;
            let mut sorted = t.rep_ns.clone();
            sorted.sort_by(f64::total_cmp);
            let med = stats::median(&sorted);
            w.first_median_ns.get_or_insert(med);
            w.reps += batch;
            w.gpu_ns += t.rep_ns.iter().sum::<f64>();
            rep_ns = med.max(1.0);
            if w.gpu_ns >= min_ns {
                if let Some(p) = prev {
                    if (med - p).abs() <= 0.02 * p {
                        w.converged = true;
                        break;
                    }
                }
            }
            if w.gpu_ns >= max_ns {
                break;
            }
            prev = Some(med);
        }
        Ok(w)
    }

    /// A new logical device on the same physical device (after a hang or device loss).
    fn recover(&mut self) -> anyhow::Result<()> {
        let index = self.ctx.info.index;
        let inst = crate::vk::context::Instance::new(self.opts.validate)?;
        let (pd, info) = inst
            .devices()?
            .into_iter()
            .nth(index)
            .ok_or_else(|| anyhow::anyhow!("device {index} is gone"))?;
        let fresh = Context::new(inst, pd, info)?;
        let old = std::mem::replace(&mut self.ctx, fresh);
        // Dropping the old context waits for its queue, which may never finish: leak it.
        std::mem::forget(old);
        if let Some((b, _)) = self.evict.take() {
            std::mem::forget(b);
        }
        self.spare.clear();
        Ok(())
    }

    /// A failed submission: a lost or hung device takes the rest of the run down with it.
    fn lose(&mut self, e: anyhow::Error) -> (&'static str, String) {
        let msg = format!("{e:#}");
        if device_failed(&msg) {
            let fault = self.ctx.fault_description();
            self.lost = Some(match fault {
                Some(f) => format!("the device failed ({msg}; VK_EXT_device_fault: {f})"),
                None => format!("the device failed ({msg})"),
            });
            if let Some(f) = fault_suffix(&self.lost) {
                return ("error", format!("{msg}{f}"));
            }
        }
        ("error", msg)
    }

    /// Capture the hardware counters asked for (`--counters`, else `measure.counters`) as
    /// `perf_counter` metrics. Without VK_KHR_performance_query, or when the capture fails,
    /// run.json's `counters` says why and the variant goes on to be timed.
    fn perf_counters(
        &mut self,
        key: (&Scenario, &Case, &Variant),
        dispatches: &[Dispatch],
        timeout_ms: u64,
        out: &mut Outcome,
    ) {
        use crate::vk::perf;
        let globs = if self.opts.counters.is_empty() {
            &key.1.counters
        } else {
            &self.opts.counters
        };
        if globs.is_empty() {
            return;
        }
        let t = Instant::now();
        let ctx = &self.ctx;
        let status = self.meta.counters.get_or_insert_with(Default::default);
        if let Some(why) = perf::unavailable_reason(ctx) {
            if status.reason.is_none() {
                tracing::warn!("hardware counters not captured: {why}");
            }
            status.available = false;
            status.reason = Some(why);
            return;
        }
        status.available = true;
        let selected = ctx
            .perf_counters()
            .map_err(|e| format!("{e:#}"))
            .and_then(|all| perf::select(&all, globs));
        let (chosen, unmatched) = match selected {
            Ok(s) => s,
            Err(e) => {
                status.reason = Some(e);
                return;
            }
        };
        for g in unmatched {
            if !status.unmatched.contains(&g) {
                tracing::warn!(
                    "counter glob `{g}` matches no counter of this device (see `p3lab counters`)"
                );
                status.unmatched.push(g);
            }
        }
        if chosen.is_empty() {
            return;
        }
        match ctx.capture_counters(dispatches, &chosen, timeout_ms) {
            Ok(cap) => {
                status.passes = status.passes.max(cap.passes);
                for (c, _) in &cap.values {
                    if !status.captured.contains(&c.name) {
                        status.captured.push(c.name.clone());
                    }
                }
                for (c, value) in &cap.values {
                    let m = self.metric(key, "perf_counter", &c.name, *value, &c.unit);
                    out.metrics.push(m);
                }
            }
            Err(e) => {
                let why = format!("{} / {}: capture failed: {e:#}", key.0.name, key.2.name);
                tracing::warn!("hardware counters: {why}");
                status.reason = Some(why);
            }
        }
        out.cost.counters_ns += elapsed(t);
    }

    /// `--dump-ir`: every internal representation of every pipeline executable
    /// (VK_KHR_pipeline_executable_properties) and VK_AMD_shader_info's disassembly, as files
    /// under `OUT/ir/SCENARIO/VARIANT-PARAMSHASH/`. A failure is logged, never fatal.
    fn dump_ir(&self, (sc, case, v): (&Scenario, &Case, &Variant), pipelines: &[Pipeline]) {
        use crate::probe::{file_part, short_hash};
        if !self.selected(sc, case, v) {
            return;
        }
        let dir = self
            .writers
            .dir()
            .join("ir")
            .join(file_part(&sc.name))
            .join(format!(
                "{}-{}",
                file_part(&v.name),
                short_hash(&case.params_label)
            ));
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for (i, p) in pipelines.iter().enumerate() {
            let pass = file_part(&v.passes[i].name);
            match self.ctx.internal_representations(p) {
                Ok(reprs) => {
                    for (k, r) in reprs.into_iter().enumerate() {
                        let ext = if r.is_text { "txt" } else { "bin" };
                        files.push((
                            format!(
                                "{pass}-{}-{k}-{}.{ext}",
                                file_part(&r.executable),
                                file_part(&r.name)
                            ),
                            r.data,
                        ));
                    }
                }
                Err(e) => tracing::warn!("--dump-ir: `{}`: {e:#}", v.name),
            }
            match self.ctx.amd_disassembly(p) {
                Ok(Some(text)) => {
                    files.push((format!("{pass}-amd-disassembly.txt"), text.into_bytes()))
                }
                Ok(None) => {}
                Err(e) => tracing::warn!("--dump-ir: `{}`: {e:#}", v.name),
            }
        }
        if files.is_empty() {
            // Once per run: the driver is the same for every variant.
            static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
            if SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            tracing::warn!(
                "--dump-ir: the driver gives no internal representations (through VK_KHR_pipeline_executable_properties or VK_AMD_shader_info); nothing written"
            );
            return;
        }
        if let Err(e) = std::fs::create_dir_all(&dir) {
            tracing::warn!("--dump-ir: cannot create {}: {e}", dir.display());
            return;
        }
        for (name, data) in files {
            let path = dir.join(name);
            if let Err(e) = std::fs::write(&path, data) {
                tracing::warn!("--dump-ir: cannot write {}: {e}", path.display());
            }
        }
    }

    /// Grow the case's group-record buffer to hold the groups of all `grids`, rebinding it. The
    /// previous variant has finished (run_variant waits for idle), so the set is not in use.
    fn size_groups(&self, gpu: &CaseGpu, grids: &[[u32; 3]]) -> anyhow::Result<()> {
        // Every pass keeps its own records, one after the other.
        let groups: u64 = grids
            .iter()
            .map(|g| g[0] as u64 * g[1] as u64 * g[2] as u64)
            .sum();
        let need = (groups * crate::probe::RECORD_BYTES).max(crate::probe::RECORD_BYTES);
        let mut slot = gpu.groups.borrow_mut();
        let Some((buf, have)) = slot.as_mut() else {
            return Ok(());
        };
        if *have >= need {
            return Ok(());
        }
        let max = self.ctx.info.max_storage_buffer_range as u64;
        if need > max {
            anyhow::bail!("unsupported: probe: {groups} workgroups need {need} bytes of group records, over maxStorageBufferRange ({max})");
        }
        self.ctx.wait_idle();
        let new = GpuResource::Buffer(self.ctx.create_buffer(
            "p3lab-groups",
            need,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuOnly,
        )?);
        if let Err(e) = self.ctx.rebind_buffer(&gpu.bindings, PROBE_SET, 1, &new) {
            self.ctx.destroy_resource(new);
            return Err(e);
        }
        let old = std::mem::replace(buf, new);
        *have = need;
        self.ctx.destroy_resource(old);
        Ok(())
    }

    /// Read the group records of the last pass whose shader declares them, and turn them into
    /// `probe` metrics and the launch-order picture in the run folder.
    fn group_metrics(
        &mut self,
        key: (&Scenario, &Case, &Variant),
        clock: crate::probe::Clock,
        gpu: &CaseGpu,
        compiled: &[(std::sync::Arc<Vec<u32>>, Reflection)],
        grids: &[[u32; 3]],
        out: &mut Outcome,
    ) -> anyhow::Result<()> {
        use crate::probe;
        let (sc, case, v) = key;
        let probed: Vec<usize> = (0..compiled.len())
            .filter(|&i| {
                compiled[i]
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
            return Ok(());
        }
        let bytes = match gpu.groups.borrow().as_ref() {
            Some((g, _)) => self.ctx.download(g)?,
            None => return Ok(()),
        };
        let sm = self.ctx.feature("shader_sm_builtins");
        let rate = clock.ns_per_tick(self.ctx.info.vendor_id);
        let multi = v.passes.len() > 1;
        // Each pass's records start after the groups of the passes before it.
        let mut base = 0usize;
        let mut first = true;
        for (i, grid) in grids.iter().enumerate() {
            let count = grid[0] as usize * grid[1] as usize * grid[2] as usize;
            let start = base;
            base += count;
            if !probed.contains(&i) {
                continue;
            }
            let records = bytes
                .get(start * probe::RECORD_BYTES as usize..)
                .unwrap_or(&[]);
            let Some(a) = probe::analyze(&probe::decode(records, count, sm)) else {
                tracing::warn!(
                    "{} / {}: --probe: no workgroup of {} left a record (p3_group_end() not reached?)",
                    sc.name,
                    v.name,
                    v.passes[i].name
                );
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
                ("tail_pct", a.tail_pct, "%"),
                ("span_ns", span, span_unit),
                ("launch_order_rank_corr", a.rank_corr, ""),
                ("groups_recorded", a.recorded as f64, "groups"),
                ("sm_ids_seen", if sm { a.units as f64 } else { 0.0 }, "SMs"),
            ] {
                out.metrics.push(self.metric(
                    key,
                    "probe",
                    &format!("{prefix}{name}"),
                    value,
                    unit,
                ));
            }
            // The row's columns: the first pass, as for the theoretical occupancy.
            if first {
                first = false;
                out.row.achieved_groups_per_unit = Some(a.per_unit_max);
                out.row.achieved_groups_per_unit_mean = Some(a.per_unit_mean);
            }
            // A baseline the filter left out runs for its outputs only: no row, no picture.
            if !self.selected(sc, case, v) {
                continue;
            }
            let pass_part = if multi {
                format!("-{}", probe::file_part(&v.passes[i].name))
            } else {
                String::new()
            };
            let path = self.writers.dir().join(format!(
                "probe-{}-{}{pass_part}-{}.svg",
                probe::file_part(&sc.name),
                probe::file_part(&v.name),
                probe::short_hash(&case.params_label)
            ));
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
                    "grid {}x{}x{}, {} of {} groups recorded; rank corr. with row-major {:.3}; up to {} groups at once per {unit}; tail {:.1} %",
                    grid[0], grid[1], grid[2], a.recorded, a.groups, a.rank_corr, a.per_unit_max, a.tail_pct
                ),
            );
            std::fs::write(&path, picture)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        }
        Ok(())
    }

    fn metric(
        &self,
        (sc, case, v): (&Scenario, &Case, &Variant),
        source: &str,
        name: &str,
        value: f64,
        unit: &str,
    ) -> MetricRow {
        MetricRow {
            run_id: self.meta.run_id.clone(),
            scenario: sc.name.clone(),
            variant: v.name.clone(),
            params: case.params_label.clone(),
            source: source.into(),
            name: name.into(),
            value,
            unit: unit.into(),
            mode: String::new(),
        }
    }
}

/// Driver statistics mapped to vendor-neutral columns. Over several passes the largest value
/// is kept: the most demanding pass limits occupancy.
#[derive(Debug, Default)]
struct Normalized {
    registers: Option<u32>,
    spill_bytes: Option<u32>,
    shared_bytes: Option<u32>,
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

/// A host-side gap longer than this before a variant's warm-up makes it a long one.
const IDLE_GAP: std::time::Duration = std::time::Duration::from_millis(500);
/// The warm-up after such a gap, in ms of GPU time.
const LONG_WARMUP_MS: u64 = 1500;

/// Re-timings allowed when the samples drift.
const MAX_RETIMES: u32 = 3;

fn sorted_copy(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// The medians of the first and last third of the repetitions differ by more than 10 %: the
/// device changed speed while it was being timed.
fn drifted(rep_ns: &[f64]) -> bool {
    let n = rep_ns.len();
    if n < 6 {
        return false;
    }
    let third = n / 3;
    let a = stats::median(&sorted_copy(&rep_ns[..third]));
    let b = stats::median(&sorted_copy(&rep_ns[n - third..]));
    a.min(b) > 0.0 && (a - b).abs() / a.min(b) > 0.10
}

/// A stable seed per row, so bootstrap CIs are reproducible run to run.
fn seed_for(a: &str, b: &str, c: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let h = Sha256::digest(format!("{a}\0{b}\0{c}").as_bytes());
    u64::from_le_bytes(h[..8].try_into().expect("8 bytes"))
}

/// Decide how to ask for the subgroup size, or why this device cannot.
pub fn subgroup_mode(
    info: &crate::vk::DeviceInfo,
    req: SubgroupReq,
    wg: [u32; 3],
) -> Result<SubgroupMode, String> {
    let invocations = wg[0] * wg[1] * wg[2];
    match req {
        SubgroupReq::Default => Ok(SubgroupMode::Default),
        SubgroupReq::Full => {
            if !info.compute_full_subgroups {
                return Err("the device lacks computeFullSubgroups".into());
            }
            if !wg[0].is_multiple_of(info.subgroup_size_max) {
                return Err(format!(
                    "full subgroups need workgroup x ({}) to be a multiple of maxSubgroupSize ({})",
                    wg[0], info.subgroup_size_max
                ));
            }
            Ok(SubgroupMode::Full)
        }
        SubgroupReq::Size(n) => {
            if !n.is_power_of_two() {
                return Err(format!("subgroup size {n} is not a power of two"));
            }
            if !info.subgroup_size_control {
                return Err("the device lacks subgroupSizeControl".into());
            }
            if !info.compute_required_subgroup_size {
                return Err("compute is not in requiredSubgroupSizeStages on this device".into());
            }
            if n < info.subgroup_size_min || n > info.subgroup_size_max {
                return Err(format!(
                    "subgroup size {n} is outside this device's range {}..{}",
                    info.subgroup_size_min, info.subgroup_size_max
                ));
            }
            if invocations > n * info.max_compute_workgroup_subgroups {
                return Err(format!(
                    "workgroup of {invocations} invocations needs more than maxComputeWorkgroupSubgroups ({}) subgroups of {n}",
                    info.max_compute_workgroup_subgroups
                ));
            }
            let full = info.compute_full_subgroups && wg[0].is_multiple_of(n);
            Ok(SubgroupMode::Required { size: n, full })
        }
    }
}

fn format_features(ctx: &Context, f: vk::Format) -> vk::FormatFeatureFlags {
    // SAFETY: a plain query on the physical device this context was made from.
    unsafe {
        ctx.instance
            .instance
            .get_physical_device_format_properties(ctx.physical, f)
    }
    .optimal_tiling_features
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_is_a_change_between_first_and_last_third() {
        // The H200 case: slow repetitions, then the clocks ramp up mid-measurement.
        let ramp = [
            5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 5.5, 1.76, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97,
        ];
        assert!(drifted(&ramp));
        let steady = [1.0, 1.02, 0.99, 1.05, 1.0, 0.98, 1.01, 1.03, 0.97];
        assert!(!drifted(&steady));
        assert!(!drifted(&[1.0, 9.0, 1.0]), "too few samples to tell");
    }

    #[test]
    fn subgroup_requests_against_device_limits() {
        let mut info: crate::vk::DeviceInfo =
            serde_json::from_str(include_str!("../../tests/data/device_h200.json")).unwrap();
        assert_eq!(
            subgroup_mode(&info, SubgroupReq::Size(64), [64, 1, 1]).unwrap_err(),
            "subgroup size 64 is outside this device's range 32..32"
        );
        assert_eq!(
            subgroup_mode(&info, SubgroupReq::Size(32), [64, 1, 1]).unwrap(),
            SubgroupMode::Required {
                size: 32,
                full: true
            }
        );
        assert_eq!(
            subgroup_mode(&info, SubgroupReq::Size(32), [48, 1, 1]).unwrap(),
            SubgroupMode::Required {
                size: 32,
                full: false
            }
        );
        assert!(subgroup_mode(&info, SubgroupReq::Full, [48, 1, 1])
            .unwrap_err()
            .contains("multiple of maxSubgroupSize"));
        info.compute_required_subgroup_size = false;
        assert!(subgroup_mode(&info, SubgroupReq::Size(32), [64, 1, 1])
            .unwrap_err()
            .contains("requiredSubgroupSizeStages"));
    }
}
