//! Each peak's own counters (issue 39): the sub-units of the hardware unit a calibration
//! drives, counted by `p3lab peak` on NVIDIA in passes after the columns' one-pass set.
//!
//! results.csv's `hw_*_pct` columns hold the throughput metrics that fit one PM-sampling pass
//! (the TriageCompute set). For some units that set does not hold the sub-unit that limits
//! them: IMAD.WIDE holds the fmaheavy pipe two cycles per instruction, so the instruction
//! counter reads int64 at 61 % while the pipe's cycle counter reads 92 %; atomics are limited
//! by the L2's atomic units, which the triage LTS throughput leaves out. A unit's utilisation
//! is the busiest of its sub-units (Nsight Compute's breakdown rule for `*__throughput`), so a
//! peak's counted figure is the highest of the column's figure and these, named in peaks.csv's
//! `counted_metric`. A metric the chip does not have is left out (run.json
//! `hw_counters.refused` names the ones asked for and refused).
use crate::results::Record;
use std::collections::BTreeMap;
use std::path::Path;

/// Per peak unit (a name, or a prefix ending in `_`), the NVIDIA PM-sampling metrics that
/// stand for its hardware sub-units, each a fraction of the sub-unit's sustained peak over the
/// elapsed cycles.
pub const NV_OWN_COUNTERS: &[(&str, &[&str])] = &[
    // IMAD.WIDE and the 32-bit IMADs: the pipes' busy cycles, not their instructions.
    (
        "int",
        &[
            "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    // Throughputs only: `lts__cycles_active` (cycles with any request in flight) read 97 % while
    // DRAM-bound reads moved 46 % of the L2's sectors, so it confirms no L2 peak.
    // The L2's atomic units: GH100's PM sampling has no counter of them (its list holds no
    // `lts__d_atomic*`), so there the peak stands without a counter, as `launch` does.
    (
        "atomic",
        &["lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"],
    ),
    (
        "shared_atomic",
        &[
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.avg.pct_of_peak_sustained_elapsed",
            "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
            "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed",
            "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    (
        "l2_read",
        &[
            "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
            "lts__t_sectors_srcunit_tex.avg.pct_of_peak_sustained_elapsed",
            "lts__t_requests.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
    // A copy turns the DRAM bus around between reads and writes: the bytes' throughput then
    // tops out under its read-only peak while the DRAM is busy every cycle.
    (
        "dram_",
        &["dram__cycles_active.avg.pct_of_peak_sustained_elapsed"],
    ),
    (
        "texture_",
        &[
            "l1tex__texin_sm2tex_req_cycles_active.avg.pct_of_peak_sustained_elapsed",
            "l1tex__f_wavefronts.avg.pct_of_peak_sustained_elapsed",
            "l1tex__tex_writeback_active.avg.pct_of_peak_sustained_elapsed",
            "sm__inst_executed_pipe_tex.avg.pct_of_peak_sustained_elapsed",
        ],
    ),
];

/// The metrics [`NV_OWN_COUNTERS`] lists for a peak unit (`int64` matches `int`; `dram_copy`
/// matches `dram_`).
pub fn own_counters(unit: &str) -> &'static [&'static str] {
    NV_OWN_COUNTERS
        .iter()
        .find(|(k, _)| {
            if k.ends_with('_') || *k == "int" {
                unit.starts_with(k)
            } else {
                unit == *k
            }
        })
        .map(|(_, m)| *m)
        .unwrap_or(&[])
}

/// Whether the results.csv column behind `unit` counts the unit itself, or only stands in for
/// it in the P3 view: the L2 throughput beside atomics is a proxy (the atomic units sit in
/// the L2 slices but no LTS throughput sub-metric counts them), so an atomic peak is checked
/// by its own counter alone, where the chip has one.
pub fn column_counts_unit(unit: &str) -> bool {
    unit != "atomic"
}

/// [`own_counters`] of the unit a calibration variant measures (its name's first word): what
/// `HwOptions::nv_own_for` asks of the runner.
pub fn own_counters_of_variant(variant: &str) -> &'static [&'static str] {
    super::unit_of_variant(variant).map_or(&[], |u| own_counters(u.name))
}

/// Every metric of [`NV_OWN_COUNTERS`], once: what `p3lab peak`'s own-counter run opens after
/// the columns.
pub fn all_own_counters() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, ms) in NV_OWN_COUNTERS {
        for m in *ms {
            if !out.iter().any(|o| o == m) {
                out.push((*m).to_string());
            }
        }
    }
    out
}

/// The counted metrics of a calibration run (metrics.csv's `cupti-pm-sampling` rows of warm
/// mode), by (scenario, variant, params).
#[derive(Debug, Default, Clone)]
pub struct OwnCounts(BTreeMap<(String, String, String), Vec<(String, f64)>>);

/// metrics.csv's source for CUPTI's figures.
const SOURCE: &str = "cupti-pm-sampling";

impl OwnCounts {
    /// Add one metrics.csv row (any other source or a cold-mode row is skipped).
    pub fn add(
        &mut self,
        (scenario, variant, params): (&str, &str, &str),
        source: &str,
        mode: &str,
        name: &str,
        value: f64,
    ) {
        if source != SOURCE || mode == "cold" || !value.is_finite() {
            return;
        }
        self.0
            .entry((scenario.into(), variant.into(), params.into()))
            .or_default()
            .push((name.into(), value));
    }

    /// From the rows a run just measured.
    pub fn from_metric_rows(rows: &[crate::results::MetricRow]) -> Self {
        let mut o = OwnCounts::default();
        for m in rows {
            o.add(
                (&m.scenario, &m.variant, &m.params),
                &m.source,
                &m.mode,
                &m.name,
                m.value,
            );
        }
        o
    }

    /// From a run folder's metrics.csv (or metrics.csv.gz, whichever is there); empty where
    /// there is neither.
    pub fn read(metrics_csv: &Path) -> anyhow::Result<Self> {
        let mut o = OwnCounts::default();
        let gz = metrics_csv.with_extension("csv.gz");
        let path = if metrics_csv.is_file() {
            metrics_csv
        } else if gz.is_file() {
            gz.as_path()
        } else {
            return Ok(o);
        };
        let (header, rows) = crate::results::read_table(path)?;
        let col = |n: &str| header.iter().position(|c| c == n);
        let (Some(s), Some(v), Some(p), Some(src), Some(n), Some(val)) = (
            col("scenario"),
            col("variant"),
            col("params"),
            col("source"),
            col("name"),
            col("value"),
        ) else {
            return Ok(o);
        };
        let mode = col("mode");
        fn cell(rec: &[String], i: usize) -> &str {
            rec.get(i).map(String::as_str).unwrap_or("")
        }
        for (_, rec) in &rows {
            let value: f64 = cell(rec, val).parse().unwrap_or(f64::NAN);
            o.add(
                (cell(rec, s), cell(rec, v), cell(rec, p)),
                cell(rec, src),
                mode.map(|m| cell(rec, m)).unwrap_or(""),
                cell(rec, n),
                value,
            );
        }
        Ok(o)
    }

    /// Add another run's counts (the own-counter run's beside the calibration's).
    pub fn extend(&mut self, other: OwnCounts) {
        for (k, v) in other.0 {
            self.0.entry(k).or_default().extend(v);
        }
    }

    /// The busiest of `unit`'s own counters on `row`: the metric and its value (clamped to 100:
    /// a sample's edge can read over).
    pub fn best(&self, unit: &str, row: &Record) -> Option<(String, f64)> {
        let key = (
            row.get("scenario").to_string(),
            row.get("variant").to_string(),
            row.get("params").to_string(),
        );
        let got = self.0.get(&key)?;
        own_counters(unit)
            .iter()
            .filter_map(|m| {
                got.iter()
                    .find(|(n, _)| n == m)
                    .map(|(n, v)| (n.clone(), v.min(100.0)))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// The short name of a counted metric for the terminal: a `hw_*_pct` column's unit (`fma`),
/// else the metric's base name (`sm__pipe_fmaheavy_cycles_active`).
pub fn short_name(metric: &str) -> &str {
    let u = crate::results::units::counted_unit(metric);
    if !u.is_empty() {
        return u;
    }
    metric
        .split('.')
        .find(|p| p.contains("__"))
        .unwrap_or(metric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_find_their_own_counters() {
        assert!(own_counters("int64")[0].starts_with("sm__pipe_fmaheavy_cycles_active"));
        assert!(!own_counters("dram_copy").is_empty());
        assert!(!own_counters("texture_fetch_rgba8").is_empty());
        assert!(own_counters("fp32").is_empty());
        assert!(own_counters("shared_atomic").len() > 1);
        assert_ne!(own_counters("shared_atomic"), own_counters("atomic"));
        assert_eq!(own_counters_of_variant("int64-vkx"), own_counters("int64"));
        assert!(own_counters_of_variant("fp32-wg256-c32-u32").is_empty());
        // The L2 throughput beside atomics is a proxy, not the atomic units' counter.
        assert!(!column_counts_unit("atomic") && column_counts_unit("l2_read"));
        let all = all_own_counters();
        let mut d = all.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), all.len());
    }

    #[test]
    fn the_busiest_own_counter_counts_and_other_sources_do_not() {
        let mut o = OwnCounts::default();
        let k = ("peak_shared_atomic", "shared_atomic-wg1024", "iters=64");
        let m = own_counters("shared_atomic");
        o.add(k, SOURCE, "warm", m[1], 97.5);
        o.add(k, SOURCE, "warm", m[0], 60.0);
        o.add(k, SOURCE, "cold", m[2], 99.9);
        o.add(k, "runner", "warm", m[3], 99.9);
        let cells = [("scenario", k.0), ("variant", k.1), ("params", k.2)]
            .into_iter()
            .map(|(c, v)| (c.to_string(), v.to_string()))
            .collect();
        let row = Record::from_cells(1, cells).unwrap();
        let (best, v) = o.best("shared_atomic", &row).unwrap();
        assert_eq!(best, m[1]);
        assert_eq!(v, 97.5);
        assert!(o.best("fp32", &row).is_none());
        assert_eq!(short_name(&best), "l1tex__data_pipe_lsu_wavefronts");
        assert_eq!(short_name("hw_fma_pct"), "fma");
    }
}
