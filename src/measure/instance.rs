//! Step 6a: new instances of the case: its resources moved to new memory.
//!
//! Where a variant's data sits in memory moves its time: on an H200, two copies of a scenario
//! run in one process differed by as much as two processes did (0.2 % SD, against
//! round-to-round spreads of 0.01-0.1 %; reports/nvidia-h200/copies), and moving the
//! resources between rounds accounted for it (making the pipelines anew did not).
//! [`relocate_case`] moves them. The placement check uses it once after the rounds
//! (runner/placement.rs); with `fresh = "resources"` every round after the first uses it, so
//! the interval over rounds carries the placement's variation (with `"pipelines"` each
//! variant's pipelines are made anew, `Built::remake` in build.rs).
use crate::measure::setup::CaseGpu;
use crate::scenario::Case;
use crate::vk::Context;

pub use crate::scenario::Fresh;

/// How placement `index` of a case is made: the resources are allocated in `order` (indices
/// into the case's resources), each after a padding allocation of `pad_bytes[k]` bytes (so
/// the offsets and pages differ from one placement to the next), each in memory of its own
/// from the driver when `dedicated` (as a new process's first allocations are). Placement 0 is
/// the case's set-up: declared order, gpu-allocator's shared blocks, no padding. Each recipe
/// follows from the run's seed, the case and the index (run.json `placements` lists them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// Which placement: 0 is the case's set-up, 1 the placement check's, then further ones.
    pub index: u32,
    /// The order the resources are allocated in: indices into the case's resources.
    pub order: Vec<usize>,
    /// Padding allocated before each resource, bytes, by position in `order` (a multiple of
    /// PAD_STEP, at most PAD_MAX).
    pub pad_bytes: Vec<u64>,
    /// Each resource (and its padding) in a `VkDeviceMemory` of its own, as a new process's first
    /// allocations are; false only for placement 0.
    pub dedicated: bool,
    /// Keep the memory the resources and padding leave (until the case ends) while all the
    /// memory so kept stays within this many bytes, so the driver cannot hand the same pages
    /// to the next placement; beyond it, free it as they move. 0: keep nothing.
    pub hold_limit: u64,
}

/// Padding before a resource: 0 to 16 MiB in 64 KiB steps (an H100's and an H200's large pages
/// are 2 MiB: the resources land at every offset within one, and in other pages).
pub const PAD_MAX: u64 = 16 << 20;
/// The step of a padding's size: 64 KiB.
pub const PAD_STEP: u64 = 64 << 10;

/// Memory left by earlier placements is kept while it stays within the device-local heap ÷
/// this (a quarter).
pub const HOLD_DIVISOR: u64 = 4;

impl Recipe {
    /// The recipe of placement `index` of the case `case_key` with `resources` resources: placement
    /// 0 is the set-up's; later ones are drawn from a ChaCha8 generator seeded from a hash of
    /// `seed`, the case and the index.
    pub fn of(seed: u64, case_key: &str, index: u32, resources: usize) -> Recipe {
        use rand::seq::SliceRandom;
        use rand::{Rng, SeedableRng};
        use sha2::{Digest, Sha256};
        let mut order: Vec<usize> = (0..resources).collect();
        if index == 0 {
            return Recipe {
                index,
                order,
                pad_bytes: vec![0; resources],
                dedicated: false,
                hold_limit: 0,
            };
        }
        let h = Sha256::digest(format!("{seed}\0{case_key}\0placement\0{index}").as_bytes());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(u64::from_le_bytes(
            h[..8].try_into().expect("8"),
        ));
        order.shuffle(&mut rng);
        let pad_bytes = (0..resources)
            .map(|_| rng.gen_range(0..=PAD_MAX / PAD_STEP) * PAD_STEP)
            .collect();
        Recipe {
            index,
            order,
            pad_bytes,
            dedicated: true,
            hold_limit: 0,
        }
    }
}

pub use crate::vk::resources::PlacedResource;

/// Where the case's resources sit now, in declared order.
pub fn where_placed(case: &Case, gpu: &CaseGpu) -> Vec<PlacedResource> {
    case.resources
        .iter()
        .zip(&gpu.resources)
        .filter_map(|(r, g)| {
            g.placed().map(|at| PlacedResource {
                name: r.name.clone(),
                at,
            })
        })
        .collect()
}

/// Move every resource the case declares to newly allocated memory by `recipe`, one at a
/// time (the peak is the case's memory, its largest resource and the padding): a GPU copy
/// keeps the contents, the descriptors are pointed at the copy and the old one is freed. The
/// previous placement's padding is freed last, so the new one cannot land in it. On an error
/// (out of memory) the resources not yet moved stay where they are and the error is returned.
pub fn relocate_case(
    ctx: &Context,
    case: &Case,
    gpu: &mut CaseGpu,
    recipe: &Recipe,
) -> anyhow::Result<()> {
    let old_pads = std::mem::take(&mut gpu.pads);
    let size = |r: &crate::vk::resources::GpuResource| r.placed().map_or(0, |p| p.size);
    let mut held: u64 = gpu.held.iter().map(size).sum();
    // Keep `r` (memory a placement leaves) while the kept memory fits the limit.
    let mut keep = |r: crate::vk::resources::GpuResource,
                    held_list: &mut Vec<crate::vk::resources::GpuResource>,
                    idle: &crate::vk::context::Idle| {
        let n = size(&r);
        if held + n <= recipe.hold_limit {
            held += n;
            held_list.push(r);
        } else {
            ctx.destroy_resource(r, idle);
        }
    };
    let result = (|| {
        for (&k, &pad) in recipe.order.iter().zip(&recipe.pad_bytes) {
            let (Some(r), Some(_)) = (case.resources.get(k), gpu.resources.get(k)) else {
                continue;
            };
            if pad > 0 {
                let b = ctx.create_buffer_in(
                    "placement padding",
                    pad,
                    ash::vk::BufferUsageFlags::STORAGE_BUFFER,
                    gpu_allocator::MemoryLocation::GpuOnly,
                    recipe.dedicated,
                )?;
                gpu.pads.push(crate::vk::resources::GpuResource::Buffer(b));
            }
            let new = ctx.relocate(&r.name, &gpu.resources[k], recipe.dedicated)?;
            let idle = ctx.wait_idle();
            let at = (r.set, r.binding, r.index);
            let ty = crate::measure::setup::desc_type(r);
            let written = ctx
                .write_descriptor(&gpu.bindings, at, ty, &new, &idle)
                .and_then(|()| crate::measure::own::rebind(ctx, &gpu.own, (at, ty), &new, &idle));
            if let Err(e) = written {
                ctx.destroy_resource(new, &idle);
                return Err(e);
            }
            let old = std::mem::replace(&mut gpu.resources[k], new);
            keep(old, &mut gpu.held, &idle);
        }
        Ok(())
    })();
    let idle = ctx.wait_idle();
    for p in old_pads {
        keep(p, &mut gpu.held, &idle);
    }
    result
}
