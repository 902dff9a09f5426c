//! The process-level SD of a device (issue 41): how far a whole process's times move from one
//! fresh process to the next (its clock, where its memory sits, its neighbours), measured by
//! `p3lab calibrate-process` over a reference set run in several fresh processes, and cached
//! per device and driver beside the peaks. `compare` of two runs carries it in every pair's
//! interval; where a device has none, it says so and uses a conservative value.
//!
//! The statistic (Kalibera & Jones, "Rigorous benchmarking in reasonable time": the level
//! that varies is the level to sample): per reference row, the SD over processes of its
//! log time, less what each process's own interval already holds (the mean squared standard
//! error of the processes' estimates), floored at 0; pooled per kind of work (memory-bound,
//! compute-bound) as the root mean square of its rows.
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// process_sd.json's schema version.
pub const PROCESS_SD_SCHEMA_VERSION: u32 = 1;

/// One reference row's spread over the processes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowSd {
    /// `scenario/variant [params] (mode)` of the row.
    pub row: String,
    /// The kind of work it stands for (`memory`, `compute`, or its scenario's name).
    pub kind: String,
    /// Processes that gave the row a time.
    pub processes: u32,
    /// The SD of its log time over the processes, as a percentage (`100 × sd`).
    pub observed_pct: f64,
    /// The root mean square standard error of one process's estimate, in %: the part of
    /// `observed_pct` each run's own interval already holds.
    pub within_pct: f64,
    /// The process-level SD, in %: `√(observed² − within²)`, 0 where that is negative.
    pub sd_pct: f64,
}

/// One kind of work's pooled process-level SD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindSd {
    /// `memory`, `compute`, or a reference scenario's name.
    pub kind: String,
    /// The root mean square of its rows' `sd_pct`, in %.
    pub sd_pct: f64,
    /// How many reference rows it pools.
    pub rows: u32,
}

/// A device's measured process-level SD, as process_sd.json stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessSd {
    /// [`PROCESS_SD_SCHEMA_VERSION`] when written.
    pub schema_version: u32,
    /// The device it was measured on (results.csv `device_name`).
    pub device_name: String,
    /// Its UUID (hex): a file of another UUID is not this device's ([`process_mismatch`]).
    pub device_uuid: String,
    /// results.csv `device_type` (`cpu`, `discrete`, ...).
    pub device_type: String,
    /// The driver's raw `driverVersion`: another driver version misses the cache.
    pub driver_version: u32,
    /// When it was measured: the UTC date, `YYYY-MM-DD`.
    pub measured: String,
    /// How many fresh processes ran the reference set.
    pub processes: u32,
    /// What the calibration cost: the wall time of all its processes, s (absent in files
    /// written before it was recorded).
    #[serde(default)]
    pub seconds: Option<f64>,
    /// Per kind of work, pooled over its rows.
    pub kinds: Vec<KindSd>,
    /// Every reference row.
    pub rows: Vec<RowSd>,
}

impl ProcessSd {
    /// The measured SD for `compare`, as a fraction: the largest kind's (a pair's kind of work
    /// is not known to compare, so the conservative one of those measured; compare scales it
    /// by Student's t for the processes it came from). None without kinds.
    pub fn sd(&self) -> Option<f64> {
        self.kinds
            .iter()
            .map(|k| k.sd_pct / 100.0)
            .filter(|s| s.is_finite())
            .reduce(f64::max)
    }

    /// "process SD 2.1 % (memory 2.1 %, compute 0.8 %) measured 2026-11-27 over 6
    /// processes".
    pub fn describe(&self) -> String {
        let kinds: Vec<String> = self
            .kinds
            .iter()
            .map(|k| format!("{} {:.2} %", k.kind, k.sd_pct))
            .collect();
        format!(
            "process SD {:.2} % ({}) measured {} over {} processes",
            self.sd().unwrap_or(0.0) * 100.0,
            kinds.join(", "),
            self.measured,
            self.processes
        )
    }
}

/// Where the process SD of a device and driver is cached: `dir` (the process-SD cache
/// folder, beside the SPIR-V cache) / `UUID-DRIVERVERSION.json`.
pub fn process_cache_path(dir: &Path, uuid: &str, driver_version: u32) -> PathBuf {
    dir.join(format!("{uuid}-{driver_version}.json"))
}

/// Why a process SD does not belong to this device and driver, if it does not.
pub fn process_mismatch(sd: &ProcessSd, uuid: &str, driver_version: u32) -> Option<String> {
    if sd.device_uuid != uuid {
        return Some(format!(
            "measured on device {} ({}), not {uuid}",
            sd.device_uuid, sd.device_name
        ));
    }
    if sd.driver_version != driver_version {
        return Some(format!(
            "measured with driver version {}, not {driver_version}",
            sd.driver_version
        ));
    }
    None
}

/// Read a process_sd.json; any mistake names the file.
pub fn read_process_sd(path: &Path) -> anyhow::Result<ProcessSd> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
    let sd: ProcessSd = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}:{}: {e} (measure again with `p3lab calibrate-process`)",
            path.display(),
            e.line()
        )
    })?;
    if sd.schema_version != PROCESS_SD_SCHEMA_VERSION {
        anyhow::bail!(
            "{}: schema_version {} is not {PROCESS_SD_SCHEMA_VERSION}; measure again with `p3lab calibrate-process`",
            path.display(),
            sd.schema_version
        );
    }
    if sd.sd().is_none() {
        anyhow::bail!("{}: no kind of work has an SD", path.display());
    }
    Ok(sd)
}

/// Write process_sd.json whole (beside and renamed into place).
pub fn write_process_sd(sd: &ProcessSd, path: &Path) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(sd)?;
    text.push('\n');
    crate::results::write::write_file_atomic(path, text.as_bytes())
}

/// One row's process-level SD from its time in each process (`medians`, ns) and each
/// process's 95 % CI half-width of it (`half_widths_pct`, % of its median; empty or
/// non-finite where unknown): `(observed, within, between)` as fractions. None with fewer
/// than two positive, finite times.
pub fn between_process_sd(medians: &[f64], half_widths_pct: &[f64]) -> Option<(f64, f64, f64)> {
    let logs: Vec<f64> = medians
        .iter()
        .filter(|m| m.is_finite() && **m > 0.0)
        .map(|m| m.ln())
        .collect();
    if logs.len() < 2 {
        return None;
    }
    let n = logs.len() as f64;
    let mean = logs.iter().sum::<f64>() / n;
    let observed = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    // A CI half-width of h % is 1.96 standard errors of a log time of about h / 100.
    let se: Vec<f64> = half_widths_pct
        .iter()
        .filter(|h| h.is_finite() && **h >= 0.0)
        .map(|h| h / 100.0 / 1.96)
        .collect();
    let within = if se.is_empty() {
        0.0
    } else {
        (se.iter().map(|s| s * s).sum::<f64>() / se.len() as f64).sqrt()
    };
    let between = (observed * observed - within * within).max(0.0).sqrt();
    Some((observed, within, between))
}

/// The kinds of `rows`, each pooled (root mean square of its rows' `sd_pct`), in the order
/// they first appear.
pub fn pool_kinds(rows: &[RowSd]) -> Vec<KindSd> {
    let mut kinds: Vec<KindSd> = Vec::new();
    for r in rows {
        match kinds.iter_mut().find(|k| k.kind == r.kind) {
            Some(k) => {
                // Accumulate squares; the root is taken below.
                k.sd_pct += r.sd_pct * r.sd_pct;
                k.rows += 1;
            }
            None => kinds.push(KindSd {
                kind: r.kind.clone(),
                sd_pct: r.sd_pct * r.sd_pct,
                rows: 1,
            }),
        }
    }
    for k in &mut kinds {
        k.sd_pct = (k.sd_pct / f64::from(k.rows)).sqrt();
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ProcessSd {
        let rows = vec![
            RowSd {
                row: "a".into(),
                kind: "memory".into(),
                processes: 4,
                observed_pct: 3.0,
                within_pct: 1.0,
                sd_pct: 2.0,
            },
            RowSd {
                row: "b".into(),
                kind: "compute".into(),
                processes: 4,
                observed_pct: 1.0,
                within_pct: 1.0,
                sd_pct: 0.5,
            },
        ];
        ProcessSd {
            schema_version: PROCESS_SD_SCHEMA_VERSION,
            device_name: "llvmpipe".into(),
            device_uuid: "abcd".into(),
            device_type: "cpu".into(),
            driver_version: 7,
            measured: "2026-11-27".into(),
            processes: 4,
            seconds: Some(12.5),
            kinds: pool_kinds(&rows),
            rows,
        }
    }

    #[test]
    fn the_between_process_sd_leaves_out_what_each_run_holds() {
        // Times 100, 110, 90, 100: log SD about 8.2 %; each process's CI ±1.96 % is an SE of
        // 1 %, so the process level is √(8.2² − 1²).
        let (obs, within, between) =
            between_process_sd(&[100.0, 110.0, 90.0, 100.0], &[1.96; 4]).unwrap();
        assert!((within - 0.01).abs() < 1e-12);
        assert!((between - (obs * obs - 1e-4).sqrt()).abs() < 1e-12);
        assert!(obs > 0.08 && obs < 0.085, "{obs}");
        // Processes that agree better than their own intervals: no process effect.
        let (_, _, b) = between_process_sd(&[100.0, 100.1], &[5.0, 5.0]).unwrap();
        assert_eq!(b, 0.0);
        assert!(between_process_sd(&[100.0], &[]).is_none());
        assert!(between_process_sd(&[100.0, f64::NAN, -1.0], &[]).is_none());
    }

    #[test]
    fn kinds_pool_their_rows_and_compare_takes_the_largest() {
        let sd = sample();
        assert_eq!(sd.kinds.len(), 2);
        assert_eq!(sd.kinds[0].kind, "memory");
        assert!((sd.sd().unwrap() - 0.02).abs() < 1e-12);
        let text = sd.describe();
        assert!(text.starts_with("process SD 2.00 % (memory 2.00 %, compute 0.50 %) measured 2026-11-27 over 4 processes"), "{text}");
    }

    #[test]
    fn the_cache_is_keyed_by_device_and_driver() {
        let dir = tempfile::tempdir().unwrap();
        let sd = sample();
        let path = process_cache_path(dir.path(), "abcd", 7);
        write_process_sd(&sd, &path).unwrap();
        assert_eq!(read_process_sd(&path).unwrap(), sd);
        // Another driver is another file: the cache misses.
        assert!(!process_cache_path(dir.path(), "abcd", 8).is_file());
        assert_ne!(path, process_cache_path(dir.path(), "abce", 7));
        assert!(process_mismatch(&sd, "abcd", 7).is_none());
        let why = process_mismatch(&sd, "abcd", 8).unwrap();
        assert!(why.contains("driver version 7"), "{why}");
        assert!(process_mismatch(&sd, "ffff", 7)
            .unwrap()
            .contains("llvmpipe"));
        // A damaged file names itself.
        std::fs::write(&path, "{ not json").unwrap();
        let e = format!("{:#}", read_process_sd(&path).unwrap_err());
        assert!(e.contains(&path.display().to_string()), "{e}");
    }
}
