//! A variant's own input buffers (`[variants.resources.NAME]`): made beside the case's, and
//! bound through descriptor sets of the variant's own that hold them in place of the case's
//! (the same layouts, so the variant's pipelines take either), so f32 and f16 forms of one
//! binding run as variants of one case, round by round.
use crate::measure::failure::Failure;
use crate::scenario::{data, Case, Init, ResourceKind};
use crate::vk::pipeline::{Bindings, DescType};
use crate::vk::resources::GpuResource;
use crate::vk::Context;
use ash::vk;
use gpu_allocator::MemoryLocation;

/// One variant's own buffers and the descriptor sets that bind them.
pub struct OwnResources {
    /// The variant's name.
    pub variant: String,
    /// Its buffers, each with the (set, binding, index) it takes over.
    pub resources: Vec<((u32, u32, u32), GpuResource)>,
    /// The case's bindings with these in place of the case's resources there.
    pub bindings: Bindings,
}

/// A (set, binding, index, type, resource) entry of [`Context::create_bindings`].
pub type Entry<'a> = (u32, u32, u32, DescType, &'a GpuResource);

/// Make every variant's own buffers of `case`, filled, with its descriptor sets over `entries`
/// (the case's). On a failure what was made here is destroyed (or left to a faulted device).
pub fn make(ctx: &Context, case: &Case, entries: &[Entry]) -> Result<Vec<OwnResources>, Failure> {
    let mut out: Vec<OwnResources> = Vec::new();
    for v in case.variants.iter().filter(|v| !v.resources.is_empty()) {
        match make_one(ctx, v, entries) {
            Ok(o) => out.push(o),
            Err(f) => {
                if f.fault.is_some() {
                    std::mem::forget(out);
                } else {
                    let idle = ctx.wait_idle();
                    for o in out {
                        destroy(ctx, o, &idle);
                    }
                }
                return Err(f);
            }
        }
    }
    Ok(out)
}

fn make_one(
    ctx: &Context,
    v: &crate::scenario::Variant,
    entries: &[Entry],
) -> Result<OwnResources, Failure> {
    let mut made: Vec<((u32, u32, u32), GpuResource)> = Vec::new();
    let undo = |made: Vec<((u32, u32, u32), GpuResource)>, f: Failure| {
        if f.fault.is_some() {
            std::mem::forget(made);
        } else {
            let idle = ctx.wait_idle();
            for (_, r) in made {
                ctx.destroy_resource(r, &idle);
            }
        }
        f
    };
    for r in &v.resources {
        let ResourceKind::Buffer { bytes, .. } = r.kind else {
            continue;
        };
        if bytes > u64::from(ctx.info.max_storage_buffer_range) {
            return Err(undo(
                made,
                Failure::unsupported(format!(
                    "variant `{}`: buffer `{}` is {bytes} bytes, over this device's maxStorageBufferRange ({})",
                    v.name, r.name, ctx.info.max_storage_buffer_range
                )),
            ));
        }
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let name = format!("{}@{}", r.name, v.name);
        let b = match ctx.create_buffer(&name, bytes, usage, MemoryLocation::GpuOnly) {
            Ok(b) => GpuResource::Buffer(b),
            Err(e) => return Err(undo(made, Failure::from_device(e))),
        };
        let filled = if r.init == Init::Zero {
            ctx.fill_zero(&b)
        } else {
            match data::init_bytes(r) {
                Ok(bytes) => ctx.upload(&b, &bytes),
                Err(m) => {
                    made.push(((r.set, r.binding, r.index), b));
                    return Err(undo(made, Failure::error(m)));
                }
            }
        };
        made.push(((r.set, r.binding, r.index), b));
        if let Err(e) = filled {
            let e = e.context(format!("initializing `{}` of variant `{}`", r.name, v.name));
            return Err(undo(made, Failure::from_device(e)));
        }
    }
    let swapped: Vec<Entry> = entries
        .iter()
        .map(
            |e| match made.iter().find(|(at, _)| *at == (e.0, e.1, e.2)) {
                Some((_, own)) => (e.0, e.1, e.2, e.3, own),
                None => *e,
            },
        )
        .collect();
    match ctx.create_bindings(&swapped) {
        Ok(bindings) => Ok(OwnResources {
            variant: v.name.clone(),
            resources: made,
            bindings,
        }),
        Err(e) => Err(undo(made, Failure::from_device(e))),
    }
}

/// Point (set, binding, index) at `res` in every variant's own sets that do not hold a buffer
/// of their own there (the case's resource moved, or its record buffer grew).
pub fn rebind(
    ctx: &Context,
    own: &[OwnResources],
    (at, ty): ((u32, u32, u32), DescType),
    res: &GpuResource,
    idle: &crate::vk::context::Idle,
) -> anyhow::Result<()> {
    for o in own
        .iter()
        .filter(|o| !o.resources.iter().any(|(a, _)| *a == at))
    {
        ctx.write_descriptor(&o.bindings, at, ty, res, idle)?;
    }
    Ok(())
}

/// Destroy one variant's sets and buffers; `idle`: no pending submission uses them.
pub fn destroy(ctx: &Context, o: OwnResources, idle: &crate::vk::context::Idle) {
    ctx.destroy_bindings(o.bindings, idle);
    for (_, r) in o.resources {
        ctx.destroy_resource(r, idle);
    }
}
