//! Timed submissions: warm-up, then repetitions whose dispatches are bracketed by timestamps
//! inside one submission, with barriers so no two dispatches overlap.
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

/// Timestamps of a timed run: `pass_ns[rep][pass]`, and each repetition's span from the first
/// dispatch's start to the last one's end.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    /// Per repetition, each pass's duration in ns (end minus begin timestamp, ticks masked to the
    /// valid bits, times the period).
    pub pass_ns: Vec<Vec<f64>>,
    /// Per repetition, ns from its first dispatch's begin timestamp to its last dispatch's end
    /// timestamp.
    pub rep_ns: Vec<f64>,
    /// The timer's observed step, in ns: the greatest common divisor of the raw timestamps
    /// (in ticks) times the timestamp period. NVIDIA's counter counts in ns but advances in
    /// steps of 32 (seen on an H200), so no duration it gives is finer than 32 ns; 0 when
    /// every raw value was 0.
    pub step_ns: f64,
    /// The raw (masked) ticks of the batch's first begin and last end timestamp: where the
    /// batch sat on the GPU's clock, for aligning hardware-counter samples (`clock_map`).
    pub span_ticks: Option<(u64, u64)>,
}

/// A GPU timestamp ↔ host clock correlation (VK_EXT_calibrated_timestamps): one reading of
/// the device's timestamp counter and CLOCK_MONOTONIC taken together, and the offset of
/// CLOCK_REALTIME from CLOCK_MONOTONIC read back to back.
#[derive(Debug, Clone, Copy)]
pub struct ClockMap {
    /// The device's timestamp counter at calibration, masked to its valid bits.
    pub tick: u64,
    /// CLOCK_MONOTONIC at calibration, ns.
    pub monotonic_ns: i128,
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, ns (one realtime read between two monotonic ones).
    pub realtime_minus_monotonic_ns: i128,
    /// Nanoseconds per timestamp tick (`timestampPeriod`).
    pub period_ns: f64,
    /// Valid bits of the timestamp counter: ticks wrap modulo 2^valid_bits.
    pub valid_bits: u32,
    /// The driver's maximum deviation of the correlation, ns.
    pub deviation_ns: u64,
}

impl ClockMap {
    /// The device's timestamp counter from `earlier` to this map, in ns of `timestampPeriod`
    /// (ticks modulo the valid bits, taken as under half the counter's range apart), beside
    /// CLOCK_MONOTONIC over the same span: `(device_ns, host_ns)`.
    pub fn span_since(&self, earlier: &ClockMap) -> (f64, f64) {
        (
            self.ticks(earlier.tick, self.tick) as f64 * self.period_ns,
            (self.monotonic_ns - earlier.monotonic_ns) as f64,
        )
    }

    /// Ticks from `from` to `to` on a counter that wraps at its valid bits, taken as under half
    /// the counter's range apart (negative when `to` is before `from`).
    fn ticks(&self, from: u64, to: u64) -> i128 {
        let bits = self.valid_bits.clamp(1, 64);
        let range: i128 = 1i128 << bits;
        let d = (to as i128 - from as i128).rem_euclid(range);
        if d >= range / 2 {
            d - range
        } else {
            d
        }
    }

    /// CLOCK_REALTIME, in ns, of the raw GPU timestamp `tick` (taken within half the
    /// counter's range of the calibration).
    pub fn realtime_of(&self, tick: u64) -> i128 {
        let d = self.ticks(self.tick, tick);
        self.monotonic_ns + (d as f64 * self.period_ns) as i128 + self.realtime_minus_monotonic_ns
    }
}

impl Context {
    /// Correlate the GPU's timestamps with the host clocks, where the device offers
    /// VK_EXT_calibrated_timestamps with both the device and the CLOCK_MONOTONIC domain.
    pub fn clock_map(&self) -> Option<ClockMap> {
        if !self
            .enabled
            .extensions
            .iter()
            .any(|e| e == "VK_EXT_calibrated_timestamps")
        {
            return None;
        }
        let inst = ash::ext::calibrated_timestamps::Instance::new(
            &self.instance.entry,
            &self.instance.instance,
        );
        // SAFETY: the extension is enabled on this device and `physical` is its own.
        let domains =
            unsafe { inst.get_physical_device_calibrateable_time_domains(self.physical) }.ok()?;
        if !domains.contains(&vk::TimeDomainEXT::DEVICE)
            || !domains.contains(&vk::TimeDomainEXT::CLOCK_MONOTONIC)
        {
            return None;
        }
        let dev =
            ash::ext::calibrated_timestamps::Device::new(&self.instance.instance, &self.device);
        let infos = [
            vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::DEVICE),
            vk::CalibratedTimestampInfoEXT::default()
                .time_domain(vk::TimeDomainEXT::CLOCK_MONOTONIC),
        ];
        // Realtime minus monotonic, bracketed by two monotonic reads around one realtime read.
        let (r, m) = crate::vk::cupti::host_clocks();
        // SAFETY: both domains are calibrateable on this device (checked above).
        let (ts, deviation) = unsafe { dev.get_calibrated_timestamps(&infos) }.ok()?;
        let mask = if self.info.timestamp_valid_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.info.timestamp_valid_bits) - 1
        };
        Some(ClockMap {
            tick: ts[0] & mask,
            monotonic_ns: ts[1] as i128,
            realtime_minus_monotonic_ns: r - m,
            period_ns: self.info.timestamp_period_ns as f64,
            valid_bits: self.info.timestamp_valid_bits,
            deviation_ns: deviation,
        })
    }

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
    /// the timestamps) so it starts cold.
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
        let nq = timestamp_count(reps, passes.len())?;
        let np = passes.len() as u32;
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
        let mut q = 0;
        for _ in 0..reps {
            evict_now(cmd);
            for d in passes {
                // The barrier before each begin timestamp makes "begin" mean "previous work done".
                self.barrier(cmd);
                // SAFETY: recording state; query index < nq.
                unsafe {
                    self.device.cmd_write_timestamp2(
                        cmd,
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        pool,
                        q,
                    )
                };
                self.record_dispatch(cmd, d);
                // SAFETY: as above.
                unsafe {
                    self.device.cmd_write_timestamp2(
                        cmd,
                        vk::PipelineStageFlags2::ALL_COMMANDS,
                        pool,
                        q + 1,
                    )
                };
                q += 2;
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
        let r = self.submit_and_wait(cmd, timeout_ms);
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
        Ok(to_timings(
            &raw,
            np as usize,
            self.info.timestamp_valid_bits,
            self.info.timestamp_period_ns as f64,
        ))
    }
}

/// Timestamps one timed batch writes: two per pass per repetition, refused (not wrapped) when
/// the count does not fit a query pool's `u32`.
pub fn timestamp_count(reps: u32, passes: usize) -> anyhow::Result<u32> {
    u32::try_from(passes)
        .ok()
        .and_then(|np| reps.checked_mul(np))
        .and_then(|n| n.checked_mul(2))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{reps} repetitions × {passes} passes × 2 timestamps do not fit in one query \
                 pool; lower the repetitions (--reps, [measure] reps)"
            )
        })
}

/// Turn raw timestamp pairs into nanoseconds: ticks masked to the valid bits, times the period.
pub fn to_timings(raw: &[u64], passes: usize, valid_bits: u32, period_ns: f64) -> Timings {
    let mask = if valid_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << valid_bits) - 1
    };
    let ticks = |a: u64, b: u64| ((b & mask).wrapping_sub(a & mask) & mask) as f64 * period_ns;
    let mut t = Timings::default();
    let step = raw.iter().fold(0u64, |g, &v| gcd(g, v & mask));
    t.step_ns = step as f64 * period_ns;
    for rep in raw.chunks_exact(passes * 2) {
        t.pass_ns
            .push(rep.chunks_exact(2).map(|p| ticks(p[0], p[1])).collect());
        t.rep_ns.push(ticks(rep[0], rep[rep.len() - 1]));
    }
    if let (Some(a), Some(b)) = (raw.first(), raw.last()) {
        t.span_ticks = Some((a & mask, b & mask));
    }
    t
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_is_the_raw_timestamps_gcd() {
        // Raw values on a 32-tick grid (as NVIDIA's): the step is 32 ticks × the period.
        let raw = [32 * 1001u64, 32 * 1040, 32 * 7, 32 * 91];
        assert_eq!(to_timings(&raw, 1, 64, 1.0).step_ns, 32.0);
        assert_eq!(to_timings(&raw, 1, 64, 0.5).step_ns, 16.0);
        // One value off the grid: a 1-tick timer.
        assert_eq!(to_timings(&[64, 96, 129, 160], 1, 64, 1.0).step_ns, 1.0);
        assert_eq!(to_timings(&[0, 0], 1, 64, 1.0).step_ns, 0.0);
    }

    #[test]
    fn masks_and_wraps() {
        // A 32-bit counter that wraps between begin and end still gives the right span.
        let raw = [0xFFFF_FFF0u64, 0x10, 0x20, 0x40];
        let t = to_timings(&raw, 2, 32, 2.0);
        assert_eq!(t.pass_ns, vec![vec![64.0, 64.0]]);
        assert_eq!(t.rep_ns, vec![(0x40u64 + 0x10) as f64 * 2.0]);
    }

    #[test]
    fn timestamp_count_never_wraps() {
        assert_eq!(timestamp_count(10, 3).unwrap(), 60);
        assert_eq!(timestamp_count(100_000, 1).unwrap(), 200_000);
        // 2^31 repetitions of one pass wrapped to 0 timestamps as u32 arithmetic.
        let e = timestamp_count(2_147_483_648, 1).unwrap_err().to_string();
        assert!(
            e.contains("2147483648 repetitions") && e.contains("--reps"),
            "{e}"
        );
        assert!(timestamp_count(1 << 20, 1 << 12).is_err());
        assert!(timestamp_count(1, usize::MAX).is_err());
    }

    fn map(tick: u64, monotonic_ns: i128, valid_bits: u32) -> ClockMap {
        ClockMap {
            tick,
            monotonic_ns,
            realtime_minus_monotonic_ns: 1_000,
            period_ns: 1.0,
            valid_bits,
            deviation_ns: 0,
        }
    }

    #[test]
    fn spans_and_realtimes_follow_a_wrapping_counter() {
        // A 36-bit counter that wrapped between the two readings: 100 ticks, not -2^36 + 100.
        let top = (1u64 << 36) - 40;
        let (a, b) = (map(top, 5_000, 36), map(60, 5_100, 36));
        assert_eq!(b.span_since(&a), (100.0, 100.0));
        assert_eq!(a.realtime_of(60), 5_000 + 100 + 1_000);
        // A tick before the calibration reads earlier, not 2^36 ticks later.
        assert_eq!(b.realtime_of((1u64 << 36) - 40), 5_100 - 100 + 1_000);
        // 64 valid bits: plain differences.
        assert_eq!(map(200, 0, 64).span_since(&map(150, 0, 64)).0, 50.0);
    }
}
