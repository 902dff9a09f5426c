//! Step 7's helper for cold mode: what evicts the L2 before each cold repetition, a buffer of
//! p3lab's own written or read (glsl/common/p3lab_evict.comp), made once per run.
use crate::scenario::{Evict as EvictHow, OptLevel};
use crate::shader::{CompileRequest, Compiler};
use crate::vk::pipeline::{Bindings, DescType, Pipeline, PipelineDesc, SubgroupMode};
use crate::vk::resources::GpuResource;
use crate::vk::submit::{EvictWith, OwnedPass};
use crate::vk::Context;
use ash::vk;
use gpu_allocator::MemoryLocation;
use std::sync::Arc;

/// Cold mode's L2 eviction (`[measure] evict`): a buffer of p3lab's own, and for `read` the
/// compute passes that read it (glsl/common/p3lab_evict.comp), made once per run and grown
/// when a case asks for more bytes.
#[derive(Default)]
pub struct Evict {
    /// The eviction buffers (more than one where one would exceed maxStorageBufferRange).
    buffers: Vec<GpuResource>,
    bytes: u64,
    /// Read passes: the pipeline, a sink, and one binding set per buffer.
    read: Option<ReadEvict>,
}

struct ReadEvict {
    pipeline: Pipeline,
    sink: GpuResource,
    bindings: Vec<Bindings>,
    passes: Arc<[OwnedPass]>,
}

const EVICT_SHADER: &str = include_str!("../../glsl/common/p3lab_evict.comp");
/// Workgroups of one read pass (256 invocations each): enough to keep any GPU's memory
/// system busy; the grid-stride loop covers the rest.
const EVICT_GROUPS: u32 = 4096;

impl Evict {
    /// What evicts the L2 before a cold repetition: `bytes` (rounded to whole uvec4s) of the
    /// buffers, written (`write`) or read (`read`).
    pub fn get(
        &mut self,
        ctx: &Context,
        compiler: &mut Compiler,
        bytes: u64,
        how: EvictHow,
    ) -> anyhow::Result<EvictWith> {
        let bytes = (bytes / 16).max(1) * 16;
        if self.bytes < bytes {
            self.release(ctx);
            // Chunks no larger than a storage buffer binding may be (and 1 GiB at most).
            let chunk = (u64::from(ctx.info.max_storage_buffer_range) / 16 * 16).clamp(16, 1 << 30);
            let mut left = bytes;
            while left > 0 {
                let n = left.min(chunk);
                let b = ctx.create_buffer(
                    "p3lab-l2-evict",
                    n,
                    vk::BufferUsageFlags::TRANSFER_DST | vk::BufferUsageFlags::STORAGE_BUFFER,
                    MemoryLocation::GpuOnly,
                );
                match b {
                    Ok(b) => self.buffers.push(GpuResource::Buffer(b)),
                    Err(e) => {
                        self.release(ctx);
                        return Err(e);
                    }
                }
                left -= n;
            }
            self.bytes = bytes;
        }
        match how {
            EvictHow::Write => {
                let GpuResource::Buffer(b) = &self.buffers[0] else {
                    unreachable!("eviction buffers are buffers")
                };
                // One fill of the first buffer; with several buffers, each is filled whole.
                if self.buffers.len() == 1 {
                    return Ok(EvictWith::Fill(b.buffer, bytes));
                }
                anyhow::bail!(
                    "evict = \"write\" needs {bytes} bytes in one buffer, more than this device's maxStorageBufferRange; use evict = \"read\""
                )
            }
            EvictHow::Read => {
                if self.read.is_none() {
                    self.read = Some(self.make_read(ctx, compiler)?);
                }
                Ok(EvictWith::Read(
                    self.read.as_ref().expect("just made").passes.clone(),
                ))
            }
        }
    }

    fn make_read(&self, ctx: &Context, compiler: &mut Compiler) -> anyhow::Result<ReadEvict> {
        let spirv = compiler
            .compile_text(
                &CompileRequest {
                    path: "p3lab_evict.comp (built in)".into(),
                    defines: Vec::new(),
                    include_dirs: Vec::new(),
                    opt: OptLevel::Performance,
                    entry_point: "main".into(),
                    wrap_groups: false,
                },
                EVICT_SHADER.to_string(),
            )
            .map_err(|e| anyhow::anyhow!("the built-in eviction shader: {e}"))?;
        let sink = ctx.create_buffer(
            "p3lab-l2-evict-sink",
            16,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            MemoryLocation::GpuOnly,
        )?;
        let sink = GpuResource::Buffer(sink);
        let mut bindings = Vec::new();
        let mut made = || -> anyhow::Result<Pipeline> {
            for b in &self.buffers {
                bindings.push(ctx.create_bindings(&[
                    (0, 0, 0, DescType::StorageBuffer, b),
                    (0, 1, 0, DescType::StorageBuffer, &sink),
                ])?);
            }
            ctx.create_pipeline(&PipelineDesc {
                name: "p3lab-l2-evict",
                spirv: &spirv,
                entry: "main",
                set_layouts: &bindings[0].layouts,
                push_bytes: 8,
                spec: &[],
                subgroup: SubgroupMode::Default,
                capture_statistics: false,
            })
        };
        let pipeline = match made() {
            Ok(p) => p,
            Err(e) => {
                let idle = ctx.wait_idle();
                for b in bindings {
                    ctx.destroy_bindings(b, &idle);
                }
                ctx.destroy_resource(sink, &idle);
                return Err(e);
            }
        };
        let passes: Vec<OwnedPass> = self
            .buffers
            .iter()
            .zip(&bindings)
            .map(|(b, bind)| {
                let GpuResource::Buffer(b) = b else {
                    unreachable!("eviction buffers are buffers")
                };
                let words = (b.size / 16) as u32;
                let mut push = [0u8; 8];
                push[..4].copy_from_slice(&words.to_le_bytes());
                push[4..].copy_from_slice(&0x9e37_79b9u32.to_le_bytes());
                OwnedPass {
                    pipeline: pipeline.pipeline,
                    layout: pipeline.layout,
                    set: bind.sets[0],
                    grid: [EVICT_GROUPS, 1, 1],
                    push,
                }
            })
            .collect();
        Ok(ReadEvict {
            pipeline,
            sink,
            bindings,
            passes: passes.into(),
        })
    }

    /// Free it all (the device can go idle).
    pub fn release(&mut self, ctx: &Context) {
        if self.buffers.is_empty() && self.read.is_none() {
            return;
        }
        let idle = ctx.wait_idle();
        if let Some(r) = self.read.take() {
            ctx.destroy_pipeline(r.pipeline, &idle);
            for b in r.bindings {
                ctx.destroy_bindings(b, &idle);
            }
            ctx.destroy_resource(r.sink, &idle);
        }
        for b in self.buffers.drain(..) {
            ctx.destroy_resource(b, &idle);
        }
        self.bytes = 0;
    }

    /// Forget it with a device that is being left behind.
    pub fn abandon(&mut self) {
        if let Some(r) = self.read.take() {
            std::mem::forget(r);
        }
        for b in self.buffers.drain(..) {
            std::mem::forget(b);
        }
        self.bytes = 0;
    }
}
