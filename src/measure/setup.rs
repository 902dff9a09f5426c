//! Step 3: a params case's resources on the device, made and uploaded once for all its
//! variants, with p3lab's own buffers (the probe words, the per-group records, the L2
//! eviction buffer of cold mode).
use crate::measure::check::Contents;
use crate::measure::failure::Failure;
use crate::probe::PROBE_SET;
use crate::scenario::data;
use crate::scenario::{Case, ImageFormat, ImageUsage, Init, Resource, ResourceKind};
use crate::vk::pipeline::{Bindings, DescType};
use crate::vk::resources::{GpuResource, ImageDesc};
use crate::vk::Context;
use ash::vk;
use gpu_allocator::MemoryLocation;
use std::cell::RefCell;

/// Words of the subgroup-size probe at set 3, binding 0 (glsl/common/p3lab.glsl):
/// smallest and largest subgroup size, fewest active lanes, one spare.
pub const PROBE_WORDS: usize = 4;
/// First size of the subgroup record buffer (4096 records); grown per variant as needed.
const GROUPS_INITIAL_BYTES: u64 = 4096 * crate::probe::RECORD_BYTES;

/// The per-case state on the device.
pub struct CaseGpu {
    /// The case's resources on the device, in declared order (moved by each new placement).
    pub resources: Vec<GpuResource>,
    /// The subgroup-size probe buffer at set 3, binding 0 (PROBE_WORDS words).
    pub probe: GpuResource,
    /// Per-subgroup records at set 3, binding 1, and their size in bytes (probes on only).
    pub groups: RefCell<Option<(GpuResource, u64)>>,
    /// The descriptor sets binding every resource, the probe's at set 3 included.
    pub bindings: Bindings,
    /// Initial contents of output resources, re-uploaded before each variant's check run.
    pub initial: Contents,
    /// The current placement's padding allocations ([`crate::measure::instance::Recipe`]),
    /// held until the next placement is made.
    pub pads: Vec<GpuResource>,
    /// Earlier placements' memory, kept until the case ends (so a later placement cannot be
    /// given it back) while it fits [`crate::measure::instance::Recipe::hold_limit`].
    pub held: Vec<GpuResource>,
    /// The variants' own input buffers (`[variants.resources]`) and their descriptor sets.
    pub own: Vec<crate::measure::own::OwnResources>,
}

impl CaseGpu {
    /// The descriptor sets variant `name` runs with: its own, where it has buffers of its own,
    /// else the case's.
    pub fn sets_of(&self, name: &str) -> &[vk::DescriptorSet] {
        self.own
            .iter()
            .find(|o| o.variant == name)
            .map_or(&self.bindings.sets, |o| &o.bindings.sets)
    }
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

/// How a resource is bound: a buffer as a storage buffer, an image by its `usage` (storage image or
/// combined image sampler).
pub fn desc_type(r: &Resource) -> DescType {
    match r.kind {
        ResourceKind::Buffer { .. } => DescType::StorageBuffer,
        ResourceKind::Uniform { .. } => DescType::UniformBuffer,
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

/// Everything made so far, destroyed in reverse if a later step fails; leaked instead when
/// the device failed (a hung device never goes idle, and the work may still use them).
struct Partial<'a> {
    ctx: &'a Context,
    made: Vec<GpuResource>,
    leak: bool,
}

impl Partial<'_> {
    /// A failure to return: a device fault leaves the objects made so far to the device.
    fn fail(&mut self, f: Failure) -> Failure {
        self.leak |= f.fault.is_some();
        f
    }
}

impl Drop for Partial<'_> {
    fn drop(&mut self) {
        if self.leak {
            std::mem::forget(std::mem::take(&mut self.made));
            return;
        }
        if self.made.is_empty() {
            return;
        }
        let idle = self.ctx.wait_idle();
        for r in self.made.drain(..).rev() {
            self.ctx.destroy_resource(r, &idle);
        }
    }
}

/// Make and fill the case's resources. Out of memory, a buffer over maxStorageBufferRange or
/// an image format without the usage are `unsupported`/`error` failures for every variant.
pub fn setup_case(
    ctx: &Context,
    case: &Case,
    group_records: bool,
    inputs: &Contents,
) -> Result<CaseGpu, Failure> {
    let info = &ctx.info;
    // One rule for "this device cannot hold it": a size over a limit the device reports (the
    // largest device-local heap, maxStorageBufferRange) is known before anything is allocated
    // and makes the rows `unsupported`, like any other device limit; an allocation that fails
    // at run time (memory other work holds) is an `error`.
    let total: u64 = case.resources.iter().map(|r| r.bytes()).sum();
    if info.device_local_bytes > 0 && total > info.device_local_bytes {
        return Err(Failure::unsupported(format!(
            "the case's resources need {total} bytes, over the {} bytes of this device's largest device-local heap",
            info.device_local_bytes
        )));
    }
    let mut partial = Partial {
        ctx,
        made: Vec::new(),
        leak: false,
    };
    let mut initial = Contents::new();
    for r in &case.resources {
        let made = match &r.kind {
            ResourceKind::Buffer { bytes, .. } => {
                if *bytes > info.max_storage_buffer_range as u64 {
                    return Err(Failure::unsupported(format!(
                        "buffer `{}` is {bytes} bytes, over this device's maxStorageBufferRange ({})",
                        r.name, info.max_storage_buffer_range
                    )));
                }
                let usage = vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST;
                ctx.create_buffer(&r.name, *bytes, usage, MemoryLocation::GpuOnly)
                    .map(GpuResource::Buffer)
            }
            ResourceKind::Uniform { bytes } => {
                if info.max_uniform_buffer_range > 0
                    && *bytes > u64::from(info.max_uniform_buffer_range)
                {
                    return Err(Failure::unsupported(format!(
                        "uniform buffer `{}` is {bytes} bytes, over this device's maxUniformBufferRange ({})",
                        r.name, info.max_uniform_buffer_range
                    )));
                }
                let usage = vk::BufferUsageFlags::UNIFORM_BUFFER
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
                let need = match usage {
                    ImageUsage::Storage => vk::FormatFeatureFlags::STORAGE_IMAGE,
                    ImageUsage::Sampled if *linear => {
                        vk::FormatFeatureFlags::SAMPLED_IMAGE
                            | vk::FormatFeatureFlags::SAMPLED_IMAGE_FILTER_LINEAR
                    }
                    ImageUsage::Sampled => vk::FormatFeatureFlags::SAMPLED_IMAGE,
                };
                if !ctx.format_features(vf).contains(need) {
                    return Err(Failure::unsupported(format!(
                        "image `{}`: format {vf:?} lacks {need:?} on this device",
                        r.name
                    )));
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
        }
        .map_err(|e| partial.fail(Failure::from_device(e)))?;
        partial.made.push(made);
        let res = partial.made.last().expect("just pushed");
        let filled = if r.init == Init::Zero {
            ctx.fill_zero(res)
        } else {
            let made;
            let bytes = match inputs.get(&r.name) {
                Some(b) => b,
                None => {
                    made = data::init_bytes(r).map_err(Failure::error)?;
                    &made
                }
            };
            let up = ctx.upload(res, bytes);
            if r.output {
                initial.insert(r.name.clone(), bytes.clone());
            }
            up
        };
        filled.map_err(|e| {
            partial.fail(Failure::from_device(
                e.context(format!("initializing `{}`", r.name)),
            ))
        })?;
    }
    let usage = vk::BufferUsageFlags::STORAGE_BUFFER
        | vk::BufferUsageFlags::TRANSFER_SRC
        | vk::BufferUsageFlags::TRANSFER_DST;
    let probe = ctx
        .create_buffer(
            "p3lab-probe",
            (PROBE_WORDS * 4) as u64,
            usage,
            MemoryLocation::GpuOnly,
        )
        .map(GpuResource::Buffer)
        .map_err(|e| partial.fail(Failure::from_device(e)))?;
    let n_case = partial.made.len();
    partial.made.push(probe);
    if group_records {
        let g = ctx
            .create_buffer(
                "p3lab-groups",
                GROUPS_INITIAL_BYTES,
                usage,
                MemoryLocation::GpuOnly,
            )
            .map(GpuResource::Buffer)
            .map_err(|e| partial.fail(Failure::from_device(e)))?;
        partial.made.push(g);
    }
    let mut entries: Vec<(u32, u32, u32, DescType, &GpuResource)> = case
        .resources
        .iter()
        .zip(&partial.made)
        .map(|(r, g)| (r.set, r.binding, r.index, desc_type(r), g))
        .collect();
    entries.push((
        PROBE_SET,
        0,
        0,
        DescType::StorageBuffer,
        &partial.made[n_case],
    ));
    if group_records {
        entries.push((
            PROBE_SET,
            1,
            0,
            DescType::StorageBuffer,
            &partial.made[n_case + 1],
        ));
    }
    let bindings = ctx.create_bindings(&entries).map_err(Failure::from_device);
    let own = bindings
        .is_ok()
        .then(|| crate::measure::own::make(ctx, case, &entries));
    drop(entries);
    let bindings = bindings.map_err(|f| partial.fail(f))?;
    let own = match own.expect("made beside the bindings") {
        Ok(o) => o,
        Err(f) => {
            if f.fault.is_none() {
                ctx.destroy_bindings(bindings, &ctx.wait_idle());
            } else {
                std::mem::forget(bindings);
            }
            return Err(partial.fail(f));
        }
    };
    let mut made = std::mem::take(&mut partial.made);
    let groups = group_records.then(|| (made.pop().expect("group records"), GROUPS_INITIAL_BYTES));
    let probe = made.pop().expect("probe");
    Ok(CaseGpu {
        resources: made,
        probe,
        groups: RefCell::new(groups),
        bindings,
        initial,
        pads: Vec::new(),
        held: Vec::new(),
        own,
    })
}

/// Destroy the case's objects. Only for a device that can go idle: after a hang they are
/// leaked with it (`std::mem::forget`).
pub fn teardown_case(ctx: &Context, gpu: CaseGpu) {
    let idle = ctx.wait_idle();
    ctx.destroy_bindings(gpu.bindings, &idle);
    for o in gpu.own {
        crate::measure::own::destroy(ctx, o, &idle);
    }
    ctx.destroy_resource(gpu.probe, &idle);
    if let Some((g, _)) = gpu.groups.into_inner() {
        ctx.destroy_resource(g, &idle);
    }
    for r in gpu.resources.into_iter().chain(gpu.pads).chain(gpu.held) {
        ctx.destroy_resource(r, &idle);
    }
}

/// Grow the case's record buffer to hold `slots` subgroup records for every group of all
/// `grids` (per pass), rebinding it.
pub fn size_groups(
    ctx: &Context,
    gpu: &CaseGpu,
    grids: &[[u32; 3]],
    slots: &[u32],
) -> Result<(), Failure> {
    // Every pass keeps its own records, one after the other.
    let groups: u64 = grids
        .iter()
        .map(|g| g[0] as u64 * g[1] as u64 * g[2] as u64)
        .sum();
    let records: u64 = grids
        .iter()
        .zip(slots)
        .map(|(g, s)| g[0] as u64 * g[1] as u64 * g[2] as u64 * *s as u64)
        .sum();
    let need = (records * crate::probe::RECORD_BYTES).max(crate::probe::RECORD_BYTES);
    let mut slot = gpu.groups.borrow_mut();
    let Some((buf, have)) = slot.as_mut() else {
        return Ok(());
    };
    if *have >= need {
        return Ok(());
    }
    let max = ctx.info.max_storage_buffer_range as u64;
    if need > max {
        return Err(Failure::unsupported(format!(
            "probe: {groups} workgroups need {records} subgroup records ({need} bytes), over maxStorageBufferRange ({max})"
        )));
    }
    let new = GpuResource::Buffer(
        ctx.create_buffer(
            "p3lab-groups",
            need,
            vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST,
            MemoryLocation::GpuOnly,
        )
        .map_err(Failure::from_device)?,
    );
    // Nothing may use the set while it is rewritten.
    let idle = ctx.wait_idle();
    let at = ((PROBE_SET, 1, 0), DescType::StorageBuffer);
    let rebound = ctx
        .rebind_buffer(&gpu.bindings, PROBE_SET, 1, &new, &idle)
        .and_then(|()| crate::measure::own::rebind(ctx, &gpu.own, at, &new, &idle));
    if let Err(e) = rebound {
        ctx.destroy_resource(new, &idle);
        return Err(Failure::from_device(e));
    }
    let old = std::mem::replace(buf, new);
    *have = need;
    ctx.destroy_resource(old, &idle);
    Ok(())
}
