//! Hardware performance counters through `VK_KHR_performance_query`: list a queue family's
//! counters, select them by name or glob, and capture them over one replay of the measured
//! dispatches per counter pass.
use crate::vk::context::Instance;
use crate::vk::submit::Dispatch;
use crate::vk::Context;
use ash::vk;

/// One counter as the driver describes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CounterInfo {
    /// The counter's index in the queue family's list: what a query pool is created with.
    pub index: u32,
    /// The driver's name for it (`VkPerformanceCounterDescriptionKHR::name`): what
    /// `[measure].counters` globs match and the `perf_counter` metric is called.
    pub name: String,
    /// The driver's category for it (free text; a column of `p3lab counters`).
    pub category: String,
    /// The driver's one-line description.
    pub description: String,
    /// Its unit as [`unit_name`] spells it (`%`, `ns`, `bytes`, `cycles`, ...).
    pub unit: String,
    /// `command_buffer`, `render_pass` or `command`.
    pub scope: String,
    /// How a result is stored: `int32`, `int64`, `uint32`, `uint64`, `float32` or `float64`.
    pub storage: String,
}

/// Why counters cannot be captured on this device, or None when they can.
pub fn unavailable_reason(ctx: &Context) -> Option<String> {
    if !ctx.info.has_extension(ash::khr::performance_query::NAME) {
        Some(format!(
            "device `{}` does not offer VK_KHR_performance_query",
            ctx.info.name
        ))
    } else if !ctx.feature("performance_counter_query_pools") {
        Some(format!(
            "device `{}` offers VK_KHR_performance_query but not performanceCounterQueryPools",
            ctx.info.name
        ))
    } else {
        None
    }
}

/// How p3lab writes a counter unit: `generic`, `%`, `ns`, `bytes`, `bytes/s`, `K`, `W`, `V`, `A`,
/// `Hz`, `cycles`; `unknown` for any other.
pub fn unit_name(u: vk::PerformanceCounterUnitKHR) -> &'static str {
    use vk::PerformanceCounterUnitKHR as U;
    match u {
        U::GENERIC => "generic",
        U::PERCENTAGE => "%",
        U::NANOSECONDS => "ns",
        U::BYTES => "bytes",
        U::BYTES_PER_SECOND => "bytes/s",
        U::KELVIN => "K",
        U::WATTS => "W",
        U::VOLTS => "V",
        U::AMPS => "A",
        U::HERTZ => "Hz",
        U::CYCLES => "cycles",
        _ => "unknown",
    }
}

/// How p3lab writes a counter scope: `command_buffer`, `render_pass`, `command`; `unknown` for any
/// other.
pub fn scope_name(s: vk::PerformanceCounterScopeKHR) -> &'static str {
    use vk::PerformanceCounterScopeKHR as S;
    match s {
        S::COMMAND_BUFFER => "command_buffer",
        S::RENDER_PASS => "render_pass",
        S::COMMAND => "command",
        _ => "unknown",
    }
}

/// How p3lab writes a counter's storage type: `int32`, `int64`, `uint32`, `uint64`, `float32`,
/// `float64`; `unknown` for any other.
pub fn storage_name(s: vk::PerformanceCounterStorageKHR) -> &'static str {
    use vk::PerformanceCounterStorageKHR as S;
    match s {
        S::INT32 => "int32",
        S::INT64 => "int64",
        S::UINT32 => "uint32",
        S::UINT64 => "uint64",
        S::FLOAT32 => "float32",
        S::FLOAT64 => "float64",
        _ => "unknown",
    }
}

/// Decode one `VkPerformanceCounterResultKHR` (an 8-byte union, every member at offset 0) by
/// the counter's storage type.
pub fn decode(storage: &str, raw: [u8; 8]) -> Option<f64> {
    let lo: [u8; 4] = raw[..4].try_into().expect("4 bytes");
    Some(match storage {
        "int32" => i32::from_ne_bytes(lo) as f64,
        "uint32" => u32::from_ne_bytes(lo) as f64,
        "float32" => f32::from_ne_bytes(lo) as f64,
        "int64" => i64::from_ne_bytes(raw) as f64,
        "uint64" => u64::from_ne_bytes(raw) as f64,
        "float64" => f64::from_ne_bytes(raw),
        _ => return None,
    })
}

fn text(bytes: &[std::ffi::c_char]) -> String {
    let b: Vec<u8> = bytes
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&b).trim().to_string()
}

/// Every counter of a queue family. The caller checks that the device has the extension.
pub fn enumerate(
    instance: &Instance,
    pd: vk::PhysicalDevice,
    family: u32,
) -> anyhow::Result<Vec<CounterInfo>> {
    let pq = ash::khr::performance_query::Instance::new(&instance.entry, &instance.instance);
    // SAFETY: `pd` belongs to this instance and reports VK_KHR_performance_query, so the
    // loader routes the command to a driver (or layer) that implements it.
    let n = unsafe {
        pq.enumerate_physical_device_queue_family_performance_query_counters_len(pd, family)
    }?;
    let mut counters = vec![vk::PerformanceCounterKHR::default(); n];
    let mut descs = vec![vk::PerformanceCounterDescriptionKHR::default(); n];
    // SAFETY: both slices have the length the driver just reported and default-initialized
    // sType fields with null pNext.
    unsafe {
        pq.enumerate_physical_device_queue_family_performance_query_counters(
            pd,
            family,
            &mut counters,
            &mut descs,
        )
    }?;
    Ok(counters
        .iter()
        .zip(&descs)
        .enumerate()
        .map(|(i, (c, d))| CounterInfo {
            index: i as u32,
            name: text(&d.name),
            category: text(&d.category),
            description: text(&d.description),
            unit: unit_name(c.unit).into(),
            scope: scope_name(c.scope).into(),
            storage: storage_name(c.storage).into(),
        })
        .collect())
}

/// The counters whose name matches any of the globs (case-insensitive), in the driver's order,
/// and the globs that matched nothing. A bad glob is an error.
pub fn select(
    all: &[CounterInfo],
    globs: &[String],
) -> Result<(Vec<CounterInfo>, Vec<String>), String> {
    let mut matchers = Vec::new();
    for g in globs {
        let m = globset::GlobBuilder::new(g)
            .case_insensitive(true)
            .literal_separator(false)
            .build()
            .map_err(|e| format!("counter glob `{g}`: {e}"))?
            .compile_matcher();
        matchers.push((g, m));
    }
    let chosen: Vec<CounterInfo> = all
        .iter()
        .filter(|c| matchers.iter().any(|(_, m)| m.is_match(&c.name)))
        .cloned()
        .collect();
    let unmatched = matchers
        .iter()
        .filter(|(_, m)| !all.iter().any(|c| m.is_match(&c.name)))
        .map(|(g, _)| (*g).clone())
        .collect();
    Ok((chosen, unmatched))
}

/// Counter values from one capture.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Each chosen counter with its value over the replay, in the driver's unit, converted to f64.
    pub values: Vec<(CounterInfo, f64)>,
    /// Replays it took (one per counter pass).
    pub passes: u32,
}

impl Context {
    /// This context's counters (its compute queue family's).
    pub fn perf_counters(&self) -> anyhow::Result<Vec<CounterInfo>> {
        if let Some(why) = unavailable_reason(self) {
            anyhow::bail!(why);
        }
        enumerate(&self.instance, self.physical, self.queue_family)
    }

    /// The number of passes (replays) capturing `counters` takes.
    pub fn perf_passes(&self, counters: &[CounterInfo]) -> u32 {
        let pq = ash::khr::performance_query::Instance::new(
            &self.instance.entry,
            &self.instance.instance,
        );
        let idx: Vec<u32> = counters.iter().map(|c| c.index).collect();
        let ci = vk::QueryPoolPerformanceCreateInfoKHR::default()
            .queue_family_index(self.queue_family)
            .counter_indices(&idx);
        // SAFETY: the device has the extension (checked by the caller through perf_counters);
        // the create info points at a local slice alive across the call.
        unsafe { pq.get_physical_device_queue_family_performance_query_passes(self.physical, &ci) }
    }

    /// Capture `counters` over the dispatches: hold the profiling lock, and replay the
    /// dispatches once per counter pass inside one performance query, each replay submitted
    /// with its `counterPassIndex`.
    pub fn capture_counters(
        &self,
        dispatches: &[Dispatch],
        counters: &[CounterInfo],
        timeout_ms: u64,
    ) -> anyhow::Result<Capture> {
        if let Some(why) = unavailable_reason(self) {
            anyhow::bail!(why);
        }
        if counters.is_empty() {
            return Ok(Capture {
                values: vec![],
                passes: 0,
            });
        }
        let passes = self.perf_passes(counters);
        if passes == 0 {
            anyhow::bail!("the driver reports 0 passes for the selected counters");
        }
        let pqd = ash::khr::performance_query::Device::new(&self.instance.instance, &self.device);
        let lock = vk::AcquireProfilingLockInfoKHR::default()
            .timeout(timeout_ms.saturating_mul(1_000_000));
        // SAFETY: the extension and performanceCounterQueryPools are enabled on this device;
        // the lock is released below on every path.
        unsafe { pqd.acquire_profiling_lock(&lock) }
            .map_err(|e| anyhow::anyhow!("vkAcquireProfilingLockKHR: {e}"))?;
        let r = self.capture_locked(dispatches, counters, passes, timeout_ms);
        // SAFETY: acquired above; no command buffer recorded under the lock is still pending
        // (capture_locked waits for each submission, or leaks what did not finish).
        unsafe { pqd.release_profiling_lock() };
        r.map(|values| Capture { values, passes })
    }

    fn capture_locked(
        &self,
        dispatches: &[Dispatch],
        counters: &[CounterInfo],
        passes: u32,
        timeout_ms: u64,
    ) -> anyhow::Result<Vec<(CounterInfo, f64)>> {
        let idx: Vec<u32> = counters.iter().map(|c| c.index).collect();
        let mut pci = vk::QueryPoolPerformanceCreateInfoKHR::default()
            .queue_family_index(self.queue_family)
            .counter_indices(&idx);
        let ci = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::PERFORMANCE_QUERY_KHR)
            .query_count(1)
            .push_next(&mut pci);
        // SAFETY: performanceCounterQueryPools is enabled; the indices come from this queue
        // family's enumeration; the chain points at locals. Destroyed below.
        let pool = unsafe { self.device.create_query_pool(&ci, None) }?;
        // A failed submission leaks the pool on purpose: it may still be pending.
        self.replay_passes(pool, dispatches, passes, timeout_ms)?;
        let r = self.read_counters(pool, counters);
        // SAFETY: every submission that used the pool has finished.
        unsafe { self.device.destroy_query_pool(pool, None) };
        r
    }

    fn replay_passes(
        &self,
        pool: vk::QueryPool,
        dispatches: &[Dispatch],
        passes: u32,
        timeout_ms: u64,
    ) -> anyhow::Result<()> {
        // A performance query must not be reset in a command buffer that also begins it.
        self.one_shot_timeout(
            // SAFETY: recording state; the pool is alive and not in use.
            |cmd| unsafe { self.device.cmd_reset_query_pool(cmd, pool, 0, 1) },
            timeout_ms,
        )?;
        for pass in 0..passes {
            let cmd = self.alloc_cmd()?;
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: fresh primary command buffer of our pool, begun after the profiling lock
            // was acquired; the query is the first and last command, as counters of
            // command-buffer scope require.
            unsafe {
                self.device.begin_command_buffer(cmd, &begin)?;
                self.device
                    .cmd_begin_query(cmd, pool, 0, vk::QueryControlFlags::empty());
            }
            for (i, d) in dispatches.iter().enumerate() {
                if i > 0 {
                    self.barrier(cmd);
                }
                self.record_dispatch(cmd, d);
            }
            // SAFETY: matches the begin above; recording ends.
            unsafe {
                self.device.cmd_end_query(cmd, pool, 0);
                self.device.end_command_buffer(cmd)?;
            }
            let r = self.submit_and_wait_pass(cmd, timeout_ms, Some(pass));
            // SAFETY: the submission finished or failed; freeing is allowed either way.
            unsafe { self.device.free_command_buffers(self.cmd_pool, &[cmd]) };
            r?;
        }
        Ok(())
    }

    fn read_counters(
        &self,
        pool: vk::QueryPool,
        counters: &[CounterInfo],
    ) -> anyhow::Result<Vec<(CounterInfo, f64)>> {
        let n = counters.len();
        let mut raw = vec![[0u8; 8]; n];
        let stride = (n * std::mem::size_of::<vk::PerformanceCounterResultKHR>()) as u64;
        // SAFETY: one query of `n` VkPerformanceCounterResultKHR (8 bytes each), written into
        // a buffer of exactly that size; every pass was submitted and has completed.
        let res = unsafe {
            (self.device.fp_v1_0().get_query_pool_results)(
                self.device.handle(),
                pool,
                0,
                1,
                n * 8,
                raw.as_mut_ptr().cast(),
                stride,
                vk::QueryResultFlags::WAIT,
            )
        };
        if res != vk::Result::SUCCESS {
            anyhow::bail!("vkGetQueryPoolResults on the performance query: {res}");
        }
        counters
            .iter()
            .zip(raw)
            .map(|(c, r)| {
                let v = decode(&c.storage, r).ok_or_else(|| {
                    anyhow::anyhow!(
                        "counter `{}` has an unknown storage type {}",
                        c.name,
                        c.storage
                    )
                })?;
                Ok((c.clone(), v))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(index: u32, name: &str) -> CounterInfo {
        CounterInfo {
            index,
            name: name.into(),
            category: String::new(),
            description: String::new(),
            unit: "generic".into(),
            scope: "command".into(),
            storage: "uint64".into(),
        }
    }

    #[test]
    fn decodes_each_storage_type() {
        assert_eq!(decode("uint64", 7u64.to_ne_bytes()), Some(7.0));
        assert_eq!(decode("int64", (-3i64).to_ne_bytes()), Some(-3.0));
        assert_eq!(decode("float64", 12.5f64.to_ne_bytes()), Some(12.5));
        let mut b = [0xffu8; 8];
        b[..4].copy_from_slice(&1.5f32.to_ne_bytes());
        assert_eq!(decode("float32", b), Some(1.5));
        b[..4].copy_from_slice(&(-2i32).to_ne_bytes());
        assert_eq!(decode("int32", b), Some(-2.0));
        b[..4].copy_from_slice(&9u32.to_ne_bytes());
        assert_eq!(
            decode("uint32", b),
            Some(9.0),
            "high bytes are not part of a u32"
        );
        assert_eq!(decode("unknown", b), None);
    }

    #[test]
    fn selects_by_name_and_glob() {
        let all = [
            c(0, "GPU Busy"),
            c(1, "VALU Busy"),
            c(2, "L2 Cache Hit"),
            c(3, "invocations"),
        ];
        let (s, miss) = select(&all, &["*busy".into(), "invocations".into()]).unwrap();
        assert_eq!(
            s.iter().map(|c| c.index).collect::<Vec<_>>(),
            [0, 1, 3],
            "case-insensitive, in the driver's order"
        );
        assert!(miss.is_empty());
        let (s, miss) = select(&all, &["L2*".into(), "nothing*".into()]).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!(miss, ["nothing*"]);
        assert!(select(&all, &["[".into()]).is_err());
    }
}
