//! Timed submissions: warm-up, then repetitions whose dispatches are bracketed by timestamps
//! inside one submission, with barriers so no two dispatches overlap.
use crate::vk::timestamps::{timestamp_count, to_timings, Timings};
use crate::vk::Context;
use ash::vk;

/// One dispatch ready to record.
pub struct Dispatch<'a> {
    /// The compute pipeline to bind.
    pub pipeline: vk::Pipeline,
    /// Its layout, for the descriptor sets and push constants.
    pub layout: vk::PipelineLayout,
    /// Descriptor sets bound from set 0, in order.
    pub sets: &'a [vk::DescriptorSet],
    /// Workgroups per axis (x, y, z) for `vkCmdDispatch`.
    pub grid: [u32; 3],
    /// Push-constant bytes, written at offset 0; empty: none pushed.
    pub push: &'a [u8],
}

/// A compute pass held by value (handles only), for p3lab's own passes that live beside a
/// run's: cold mode's read eviction.
#[derive(Debug, Clone, Copy)]
pub struct OwnedPass {
    /// The compute pipeline to bind.
    pub pipeline: vk::Pipeline,
    /// Its layout.
    pub layout: vk::PipelineLayout,
    /// The one descriptor set, bound as set 0.
    pub set: vk::DescriptorSet,
    /// Workgroups per axis (x, y, z).
    pub grid: [u32; 3],
    /// Push constants: for the eviction pass, its buffer's size in 16-byte words, then a hash seed
    /// (little-endian u32s).
    pub push: [u8; 8],
}

/// How cold mode evicts the L2 before each repetition (outside the timestamps).
#[derive(Debug, Clone)]
pub enum EvictWith {
    /// Write that many bytes of the buffer with vkCmdFillBuffer.
    Fill(vk::Buffer, u64),
    /// Run these read passes (glsl/common/p3lab_evict.comp).
    Read(std::sync::Arc<[OwnedPass]>),
}

impl Context {
    pub(crate) fn barrier(&self, cmd: vk::CommandBuffer) {
        let b = vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE);
        // SAFETY: recording state; a global memory barrier has no handles.
        unsafe {
            self.device.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().memory_barriers(std::slice::from_ref(&b)),
            )
        };
    }

    /// Everything written so far becomes visible to host reads after the fence.
    pub(crate) fn host_read_barrier(&self, cmd: vk::CommandBuffer) {
        let b = vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::HOST_READ);
        // SAFETY: recording state; a global memory barrier has no handles.
        unsafe {
            self.device.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().memory_barriers(std::slice::from_ref(&b)),
            )
        };
    }

    pub(crate) fn record_dispatch(&self, cmd: vk::CommandBuffer, d: &Dispatch) {
        // SAFETY: recording state; pipeline, layout and sets are alive and compatible (the sets
        // were allocated from the layouts the pipeline layout was made of).
        unsafe {
            self.device
                .cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, d.pipeline);
            if !d.sets.is_empty() {
                self.device.cmd_bind_descriptor_sets(
                    cmd,
                    vk::PipelineBindPoint::COMPUTE,
                    d.layout,
                    0,
                    d.sets,
                    &[],
                );
            }
            if !d.push.is_empty() {
                self.device.cmd_push_constants(
                    cmd,
                    d.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    d.push,
                );
            }
            self.device
                .cmd_dispatch(cmd, d.grid[0], d.grid[1], d.grid[2]);
        }
    }

    /// Run every dispatch once, counting compute-shader invocations with a pipeline statistics
    /// query when the device has them. Returns the count (None without the query) and the
    /// repetition's GPU time in ns, which sizes the warm-up.
    pub fn run_once(
        &self,
        passes: &[Dispatch],
        timeout_ms: u64,
    ) -> anyhow::Result<(Option<u64>, f64)> {
        let tci = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(2);
        // SAFETY: valid create info; destroyed below.
        let tpool = unsafe { self.device.create_query_pool(&tci, None) }?;
        let stats = self.feature("pipeline_statistics_query");
        let pool = if stats {
            let ci = vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::PIPELINE_STATISTICS)
                .query_count(1)
                .pipeline_statistics(vk::QueryPipelineStatisticFlags::COMPUTE_SHADER_INVOCATIONS);
            // SAFETY: the feature is enabled; destroyed below.
            Some(unsafe { self.device.create_query_pool(&ci, None) }?)
        } else {
            None
        };
        let r = self.one_shot_timeout(
            |cmd| {
                // SAFETY: recording state; the pools are alive and reset before use.
                unsafe {
                    self.device.cmd_reset_query_pool(cmd, tpool, 0, 2);
                    if let Some(p) = pool {
                        self.device.cmd_reset_query_pool(cmd, p, 0, 1);
                    }
                }
                self.barrier(cmd);
                // SAFETY: recording state; the pools are alive and were reset above.
                unsafe {
                    self.device.cmd_write_timestamp2(
                        cmd,
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        tpool,
                        0,
                    );
                    if let Some(p) = pool {
                        self.device
                            .cmd_begin_query(cmd, p, 0, vk::QueryControlFlags::empty());
                    }
                }
                for (i, d) in passes.iter().enumerate() {
                    if i > 0 {
                        self.barrier(cmd);
                    }
                    self.record_dispatch(cmd, d);
                }
                // SAFETY: matches the begin above.
                unsafe {
                    if let Some(p) = pool {
                        self.device.cmd_end_query(cmd, p, 0);
                    }
                    self.device.cmd_write_timestamp2(
                        cmd,
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        tpool,
                        1,
                    );
                }
                self.barrier(cmd);
            },
            timeout_ms,
        );
        // On failure both pools are leaked on purpose: after a timeout the hung submission may
        // still write them, and the runner abandons the device.
        r?;
        let mut ts = [0u64; 2];
        let rep_ns = {
            // SAFETY: the submission completed, so both timestamps are available.
            unsafe {
                self.device.get_query_pool_results(
                    tpool,
                    0,
                    &mut ts,
                    vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                )
            }?;
            to_timings(
                &ts,
                1,
                self.info.timestamp_valid_bits,
                self.info.timestamp_period_ns as f64,
            )
            .rep_ns[0]
        };
        // SAFETY: the submission finished; no pending use.
        unsafe { self.device.destroy_query_pool(tpool, None) };
        let count = match pool {
            Some(p) => {
                let mut v = [0u64; 1];
                // SAFETY: the submission completed, so the query is available.
                let q = unsafe {
                    self.device.get_query_pool_results(
                        p,
                        0,
                        &mut v,
                        vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                    )
                };
                // SAFETY: no pending use.
                unsafe { self.device.destroy_query_pool(p, None) };
                q?;
                Some(v[0])
            }
            None => None,
        };
        Ok((count, rep_ns))
    }

    /// `warmup` untimed repetitions, then `reps` timed ones, all in one submission.
    pub fn run_timed(
        &self,
        passes: &[Dispatch],
        warmup: u32,
        reps: u32,
        timeout_ms: u64,
    ) -> anyhow::Result<Timings> {
        self.run_timed_evict(passes, warmup, reps, timeout_ms, None)
    }

    /// As [`Context::run_timed`]; with `evict`, every repetition first evicts the L2 (outside
    /// the timestamps) so it starts cold. With no `passes` and an `evict`, the eviction alone
    /// is timed, `reps` times (cold mode's eviction-only counter batch: measure/hw).
    pub fn run_timed_evict(
        &self,
        passes: &[Dispatch],
        warmup: u32,
        reps: u32,
        timeout_ms: u64,
        evict: Option<&EvictWith>,
    ) -> anyhow::Result<Timings> {
        self.run_timed_gauged(passes, warmup, reps, timeout_ms, evict, None)
    }

    /// As [`Context::run_timed_evict`], with `gauge` (p3lab's clock gauge,
    /// src/measure/clock.rs) dispatched once after the last timed repetition, in the same
    /// submission, its writes made visible to the host before the fence signals.
    pub fn run_timed_gauged(
        &self,
        passes: &[Dispatch],
        warmup: u32,
        reps: u32,
        timeout_ms: u64,
        evict: Option<&EvictWith>,
        gauge: Option<&OwnedPass>,
    ) -> anyhow::Result<Timings> {
        // An eviction-only batch times each eviction as its one pass.
        let evict_only = passes.is_empty() && evict.is_some();
        let np_timed = if evict_only { 1 } else { passes.len() };
        let nq = timestamp_count(reps, np_timed)?;
        let np = np_timed as u32;
        let ci = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(nq);
        // SAFETY: valid create info; destroyed below.
        let pool = unsafe { self.device.create_query_pool(&ci, None) }?;
        let cmd = self.alloc_cmd()?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: fresh command buffer from our pool.
        unsafe {
            self.device.begin_command_buffer(cmd, &begin)?;
            self.device.cmd_reset_query_pool(cmd, pool, 0, nq);
        }
        let mut fill = 0u32;
        let mut evict_now = |cmd: vk::CommandBuffer| match evict {
            None => {}
            Some(EvictWith::Fill(buf, bytes)) => {
                self.barrier(cmd);
                fill = fill.wrapping_add(1);
                // SAFETY: recording state; the buffer is alive, has TRANSFER_DST usage and at
                // least `bytes` bytes (a multiple of 4).
                unsafe { self.device.cmd_fill_buffer(cmd, *buf, 0, *bytes, fill) };
            }
            Some(EvictWith::Read(passes)) => {
                for p in passes.iter() {
                    self.barrier(cmd);
                    self.record_dispatch(
                        cmd,
                        &Dispatch {
                            pipeline: p.pipeline,
                            layout: p.layout,
                            sets: std::slice::from_ref(&p.set),
                            grid: p.grid,
                            push: &p.push,
                        },
                    );
                }
            }
        };
        for _ in 0..warmup {
            evict_now(cmd);
            for d in passes {
                self.record_dispatch(cmd, d);
                self.barrier(cmd);
            }
        }
        // One timed span: the barrier before the begin timestamp makes "begin" mean
        // "previous work done"; `work` records what is timed.
        let mut q = 0;
        let mut timed = |work: &mut dyn FnMut()| {
            self.barrier(cmd);
            // SAFETY: recording state; query index q < nq (2 per timed span, nq counts them).
            unsafe {
                self.device.cmd_write_timestamp2(
                    cmd,
                    vk::PipelineStageFlags2::ALL_COMMANDS,
                    pool,
                    q,
                )
            };
            work();
            // SAFETY: as above, q + 1 < nq.
            unsafe {
                self.device.cmd_write_timestamp2(
                    cmd,
                    vk::PipelineStageFlags2::ALL_COMMANDS,
                    pool,
                    q + 1,
                )
            };
            q += 2;
        };
        for _ in 0..reps {
            if evict_only {
                // The eviction itself is the timed work (it ends with its own barrier).
                timed(&mut || {
                    evict_now(cmd);
                    self.barrier(cmd);
                });
                continue;
            }
            evict_now(cmd);
            for d in passes {
                timed(&mut || self.record_dispatch(cmd, d));
            }
        }
        self.barrier(cmd);
        if let Some(g) = gauge {
            self.record_dispatch(
                cmd,
                &Dispatch {
                    pipeline: g.pipeline,
                    layout: g.layout,
                    sets: std::slice::from_ref(&g.set),
                    grid: g.grid,
                    push: &g.push,
                },
            );
            self.host_read_barrier(cmd);
        }
        // SAFETY: matches begin.
        unsafe { self.device.end_command_buffer(cmd) }?;
        let submitted = crate::vk::timestamps::monotonic_ns();
        let r = self.submit_and_wait(cmd, timeout_ms);
        let done = crate::vk::timestamps::monotonic_ns();
        // On failure the command buffer and the pool are leaked on purpose: after a timeout
        // the GPU may still be executing the one and writing the other.
        r?;
        // SAFETY: the submission finished, so the command buffer is no longer pending.
        unsafe { self.device.free_command_buffers(self.cmd_pool, &[cmd]) };
        let mut raw = vec![0u64; nq as usize];
        // SAFETY: the submission completed; all queries were written.
        let res = unsafe {
            self.device.get_query_pool_results(
                pool,
                0,
                &mut raw,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        };
        // SAFETY: no pending use.
        unsafe { self.device.destroy_query_pool(pool, None) };
        res?;
        let (bits, period) = (
            self.info.timestamp_valid_bits,
            self.info.timestamp_period_ns as f64,
        );
        let mut t = to_timings(&raw, np as usize, bits, period);
        t.host_window = (submitted, done);
        Ok(t)
    }
}
