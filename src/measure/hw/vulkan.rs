//! The Vulkan backend: a driver's VK_KHR_performance_query counters mapped to the columns by
//! per-driver tables of counter names.
use super::*;

/// How a Vulkan counter's value becomes a column's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conv {
    /// Already a percentage.
    Pct,
    /// Bytes over the replay of one repetition.
    Bytes,
    /// Hz, to MHz.
    Hertz,
}

/// One driver's counters: name, column, conversion.
pub type DriverTable = &'static [(&'static str, Col, Conv)];
/// A table's counters found on a device: index in the device's list, column, conversion.
pub type TableHits = Vec<(usize, Col, Conv)>;

/// Each driver's table by name ("radv", "anv-gen12", ...): VK_KHR_performance_query counter
/// names per driver, from Mesa's sources (radv_perfcounter.c; Intel's OA metric sets
/// oa-tgl.xml and oa-lnl.xml through anv_perf.c; tu_query_pool.cc). The table whose names the
/// device lists most is used. DRAM, L2 and tensor busy percentages have no counter on these
/// drivers: those columns stay empty there.
pub const DRIVER_TABLES: &[(&str, DriverTable)] = &[
    (
        "radv",
        &[
            ("VALU Busy", Col::Sm, Conv::Pct),
            ("VRAM read size", Col::DramRead, Conv::Bytes),
            ("VRAM write size", Col::DramWrite, Conv::Bytes),
        ],
    ),
    (
        "anv-gen12",
        &[
            ("EU Active", Col::Sm, Conv::Pct),
            ("Samplers Busy", Col::L1tex, Conv::Pct),
            ("GTI Read Throughput", Col::DramRead, Conv::Bytes),
            ("GTI Write Throughput", Col::DramWrite, Conv::Bytes),
            ("AVG GPU Core Frequency", Col::SmClock, Conv::Hertz),
        ],
    ),
    (
        "anv-xe2",
        &[
            ("XVE Active", Col::Sm, Conv::Pct),
            ("GPU Memory Byte Read", Col::DramRead, Conv::Bytes),
            ("GPU Memory Byte Write", Col::DramWrite, Conv::Bytes),
            ("AVG GPU Core Frequency", Col::SmClock, Conv::Hertz),
        ],
    ),
    (
        "turnip",
        &[
            ("% Shaders Busy", Col::Sm, Conv::Pct),
            ("% Texture Pipes Busy", Col::L1tex, Conv::Pct),
        ],
    ),
];

pub(super) struct PerfBackend {
    pub(super) table: &'static str,
    pub(super) counters: Vec<(crate::vk::perf::CounterInfo, Col, Conv)>,
}

/// The driver table whose counter names `all` lists most (at least one).
pub fn pick_table(names: &[String]) -> Option<(&'static str, TableHits)> {
    DRIVER_TABLES
        .iter()
        .map(|(t, rows)| {
            let hits: TableHits = rows
                .iter()
                .filter_map(|(n, c, v)| {
                    names
                        .iter()
                        .position(|x| x.eq_ignore_ascii_case(n))
                        .map(|i| (i, *c, *v))
                })
                .collect();
            (*t, hits)
        })
        .filter(|(_, h)| !h.is_empty())
        .max_by_key(|(_, h)| h.len())
}

pub(super) fn open_perf(ctx: &Context) -> Result<PerfBackend, String> {
    if let Some(why) = crate::vk::perf::unavailable_reason(ctx) {
        return Err(format!(
            "no hardware counters: not an NVIDIA device (CUPTI), and {why}"
        ));
    }
    let all = ctx.perf_counters().map_err(|e| format!("{e:#}"))?;
    let names: Vec<String> = all.iter().map(|c| c.name.clone()).collect();
    let Some((table, hits)) = pick_table(&names) else {
        return Err(format!(
            "device `{}` offers VK_KHR_performance_query, but none of its {} counters is in p3lab's driver tables (src/measure/hw/vulkan.rs)",
            ctx.info.name,
            all.len()
        ));
    };
    Ok(PerfBackend {
        table,
        counters: hits
            .into_iter()
            .map(|(i, c, v)| (all[i].clone(), c, v))
            .collect(),
    })
}

impl PerfBackend {
    pub(super) fn measure(
        &mut self,
        ctx: &Context,
        dispatches: &[Dispatch],
        timeout_ms: u64,
    ) -> HwOutcome {
        let chosen: Vec<_> = self.counters.iter().map(|c| c.0.clone()).collect();
        let cap = ctx
            .capture_counters(dispatches, &chosen, timeout_ms)
            .map_err(|e| format!("VK_KHR_performance_query capture: {e:#}"))?;
        let mut values = HwValues::default();
        let mut metrics = Vec::new();
        for (info, v) in &cap.values {
            metrics.push((info.name.clone(), *v, info.unit.clone()));
            if let Some((_, col, conv)) = self.counters.iter().find(|c| c.0.name == info.name) {
                let v = match conv {
                    Conv::Pct | Conv::Bytes => *v,
                    Conv::Hertz => *v / 1e6,
                };
                values.set(*col, v);
            }
        }
        Ok(HwMeasured {
            source: SOURCE_PERF,
            values,
            metrics,
            samples: cap.passes,
            lost: 0,
            interval_ns: 0,
            window: "query",
            window_ns: 0.0,
            reps: 1,
            notes: Vec::new(),
            evict_removed: None,
            own_clock: None,
            series: None,
        })
    }
}
