//! Step 7's helper for cold mode: what evicts the L2 before each cold repetition, a buffer of
//! p3lab's own written or read (glsl/common/p3lab_evict.comp), made once per run. On a CPU
//! device (lavapipe) the cache to evict is the CPU's last-level cache, not a GPU's L2: the
//! eviction is capped at its size ([`cpu_cap`]).
use crate::output::run_json::ColdEvictCap;
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
    /// At most this many bytes per eviction (a CPU device: its last-level cache), whatever a
    /// case's `cold_bytes` says.
    cap: Option<u64>,
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
    /// Cold mode's eviction on a device whose cache is `cap` bytes (None: each case's
    /// `cold_bytes` as declared, as on a GPU).
    pub fn with_cap(cap: Option<u64>) -> Evict {
        Evict {
            cap,
            ..Evict::default()
        }
    }

    /// The bytes one eviction reads or writes for a case that declares `cold_bytes`: the cap
    /// applied, rounded to whole uvec4s.
    pub fn bytes_for(&self, cold_bytes: u64) -> u64 {
        let b = self.cap.map_or(cold_bytes, |c| cold_bytes.min(c));
        (b / 16).max(1) * 16
    }

    /// What evicts the L2 before a cold repetition: `bytes` (capped and rounded by
    /// [`Evict::bytes_for`]) of the buffers, written (`write`) or read (`read`).
    pub fn get(
        &mut self,
        ctx: &Context,
        compiler: &mut Compiler,
        bytes: u64,
        how: EvictHow,
    ) -> anyhow::Result<EvictWith> {
        let bytes = self.bytes_for(bytes);
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

/// The eviction cap when sysfs does not tell a CPU's last-level cache: 32 MiB, as large as the
/// L3 of most desktop and server CPUs' core clusters (a larger cache is then only partly
/// evicted; a smaller one fully).
pub const CPU_DEFAULT_LLC_BYTES: u64 = 32 << 20;

/// Where Linux describes cpu0's caches (`indexN/level`, `type`, `size`).
const CPU_CACHE_DIR: &str = "/sys/devices/system/cpu/cpu0/cache";

/// Cold mode's cap on a CPU device: the size of cpu0's last-level data or unified cache from
/// sysfs, else [`CPU_DEFAULT_LLC_BYTES`]. Reading that many bytes replaces most of the cache
/// (not strictly all: CPU caches are not strict LRU); a GPU-sized 256 MiB read before every
/// repetition would only cost a CPU time (lavapipe's tiling suite: ~305 s in cold mode).
pub fn cpu_cap() -> ColdEvictCap {
    match llc_from_sysfs(std::path::Path::new(CPU_CACHE_DIR)) {
        Some((bytes, what)) => ColdEvictCap {
            bytes,
            source: format!("cpu last-level cache: {what} ({CPU_CACHE_DIR})"),
        },
        None => ColdEvictCap {
            bytes: CPU_DEFAULT_LLC_BYTES,
            source: format!(
                "cpu last-level cache not found in {CPU_CACHE_DIR}: default {} MiB",
                CPU_DEFAULT_LLC_BYTES >> 20
            ),
        },
    }
}

/// The highest-level data or unified cache under `dir` (`index*/level`, `type`, `size`): its
/// bytes and a description (`L3 unified 32768K`).
fn llc_from_sysfs(dir: &std::path::Path) -> Option<(u64, String)> {
    let read = |d: &std::path::Path, f: &str| {
        std::fs::read_to_string(d.join(f))
            .ok()
            .map(|s| s.trim().to_string())
    };
    let mut best: Option<(u32, u64, String)> = None;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let d = e.path();
        if !e.file_name().to_string_lossy().starts_with("index") {
            continue;
        }
        let (Some(level), Some(kind), Some(size)) =
            (read(&d, "level"), read(&d, "type"), read(&d, "size"))
        else {
            continue;
        };
        let (Ok(level), Some(bytes)) = (level.parse::<u32>(), parse_cache_size(&size)) else {
            continue;
        };
        if kind == "Instruction" || bytes == 0 {
            continue;
        }
        if best.as_ref().is_none_or(|b| level > b.0) {
            let what = format!("L{level} {} {size}", kind.to_lowercase());
            best = Some((level, bytes, what));
        }
    }
    best.map(|(_, b, w)| (b, w))
}

/// sysfs's cache size: `32768K`, `1M`, `512` (bytes).
fn parse_cache_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 1u64 << 10),
        b'M' | b'm' => (&s[..s.len() - 1], 1 << 20),
        b'G' | b'g' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim().parse::<u64>().ok()?.checked_mul(mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("1M\n"), Some(1 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    #[test]
    fn the_last_level_is_the_highest_data_or_unified_cache() {
        let t = tempfile::tempdir().unwrap();
        for (i, level, kind, size) in [
            (0, "1", "Data", "32K"),
            (1, "1", "Instruction", "32K"),
            (2, "2", "Unified", "512K"),
            (3, "3", "Unified", "32768K"),
            (4, "4", "Instruction", "64M"),
        ] {
            let d = t.path().join(format!("index{i}"));
            std::fs::create_dir(&d).unwrap();
            std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(d.join("type"), format!("{kind}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        }
        let (b, what) = llc_from_sysfs(t.path()).unwrap();
        assert_eq!((b, what.as_str()), (32 << 20, "L3 unified 32768K"));
        assert_eq!(llc_from_sysfs(&t.path().join("none")), None);
    }

    #[test]
    fn the_cap_bounds_the_declared_bytes() {
        let e = Evict::with_cap(Some(32 << 20));
        assert_eq!(e.bytes_for(256 << 20), 32 << 20);
        assert_eq!(e.bytes_for(1 << 20), 1 << 20);
        assert_eq!(Evict::default().bytes_for(256 << 20), 256 << 20);
        assert_eq!(Evict::default().bytes_for(4), 16);
    }
}
