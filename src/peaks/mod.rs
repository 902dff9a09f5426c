//! Measured peaks (`p3lab peak`): each unit's best throughput on this device, from the
//! calibration scenarios in peaks/, cached per device and driver, and the %-of-peak columns
//! and limiter that `p3lab run` derives from them and a variant's declared work
//! ([`limiter`]).
//!
//! Every calibration kernel checks its own output (a row that failed its check never becomes
//! a peak), and peaks.csv says whether each unit's peak can be trusted: `status` is `ok`, or
//! `suspect` with the `reason`: the unit's best variant is not matched within 1.5x by another
//! one (a kernel the compiler shortened, say), or it breaks a relation between units that holds
//! on every GPU (FP16 at most 2.2x FP32 without tensor cores; DRAM ≤ L2 ≤ L1 ≤ 16x L2
//! bandwidth).
use crate::output::csv_safe;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub mod limiter;

/// peaks.csv's schema version (2: `status`, `reason`, `variants`; `value` may be empty).
pub const PEAKS_SCHEMA_VERSION: u32 = 2;

/// One unit's peak, as peaks.csv stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    pub schema_version: u32,
    pub device_name: String,
    pub device_uuid: String,
    pub driver_version: u32,
    /// See [`UNITS`].
    pub unit: String,
    pub value: Option<f64>,
    /// See [`UNITS`].
    pub value_unit: String,
    pub best_variant: String,
    pub median_ns: Option<f64>,
    pub median_ci_low_ns: Option<f64>,
    pub median_ci_high_ns: Option<f64>,
    pub cv_pct: Option<f64>,
    pub n: Option<usize>,
    /// `ok` or `suspect` (see the module docs).
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub reason: String,
    /// Variants of the unit that ran and passed their check.
    #[serde(default)]
    pub variants: Option<usize>,
}

/// A unit: its name (the prefix of its calibration variants' names), the results.csv column
/// of declared work it divides by the median (`median_ns` for the overheads, where smaller is
/// better), and the unit of `value`.
pub struct Unit {
    pub name: &'static str,
    pub work: &'static str,
    pub value_unit: &'static str,
    pub description: &'static str,
}

/// Every unit `p3lab peak` measures, in peaks.csv order. `work` = "" means the value is the
/// median itself (smaller is better).
pub const UNITS: &[Unit] = &[
    Unit {
        name: "dram_read",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "DRAM read bandwidth",
    },
    Unit {
        name: "dram_write",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "DRAM write bandwidth",
    },
    Unit {
        name: "dram_copy",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "DRAM copy bandwidth (read + written)",
    },
    Unit {
        name: "l2_read",
        work: "bytes",
        value_unit: "gbytes_per_s",
        description: "L2-resident read bandwidth",
    },
    Unit {
        name: "l1_read",
        work: "l1_bytes",
        value_unit: "gbytes_per_s",
        description: "L1 read bandwidth",
    },
    Unit {
        name: "shared",
        work: "shared_bytes",
        value_unit: "gbytes_per_s",
        description: "shared-memory bandwidth",
    },
    Unit {
        name: "fp32",
        work: "flops",
        value_unit: "gflops_per_s",
        description: "FP32 FMA throughput",
    },
    Unit {
        name: "fp16",
        work: "flops",
        value_unit: "gflops_per_s",
        description: "FP16 FMA throughput (packed)",
    },
    Unit {
        name: "int32",
        work: "int_ops",
        value_unit: "gops_per_s",
        description: "int32 multiply-add throughput (2 ops each)",
    },
    Unit {
        name: "sfu",
        work: "sfu_ops",
        value_unit: "gops_per_s",
        description: "transcendental (exp2) throughput",
    },
    Unit {
        name: "texture_point",
        work: "texels",
        value_unit: "gtexels_per_s",
        description: "texture fetches, point sampling",
    },
    Unit {
        name: "texture_bilinear",
        work: "texels_linear",
        value_unit: "gtexels_per_s",
        description: "texture fetches, bilinear",
    },
    Unit {
        name: "atomic",
        work: "atomics",
        value_unit: "gatomics_per_s",
        description: "global atomicAdd throughput",
    },
    Unit {
        name: "shared_atomic",
        work: "shared_atomics",
        value_unit: "gatomics_per_s",
        description: "shared-memory atomicAdd throughput",
    },
    Unit {
        name: "launch",
        work: "workgroups",
        value_unit: "ggroups_per_s",
        description: "workgroup launch rate",
    },
    Unit {
        name: "empty",
        work: "",
        value_unit: "ns",
        description: "GPU time of an empty dispatch",
    },
];

/// peaks.csv's row for the L2 capacity (the knee of l2_capacity-* rows), in bytes.
pub const L2_CAPACITY: &str = "l2_capacity";
/// Two variants of one unit must agree within this factor (best against the next best).
pub const AGREE: f64 = 1.5;
/// An L1 read peak over this many times the L2 read peak is not believed.
pub const L1_OVER_L2: f64 = 16.0;

fn unit_of(variant: &str) -> Option<&'static Unit> {
    let prefix = variant.split('-').next().unwrap_or("");
    UNITS.iter().find(|u| u.name == prefix)
}

fn num(row: &BTreeMap<String, String>, col: &str) -> Option<f64> {
    row.get(col).and_then(|v| v.parse::<f64>().ok())
}

/// The value a row gives its unit: work ÷ median (per ns = giga per s), or the median.
fn row_value(u: &Unit, row: &BTreeMap<String, String>) -> Option<f64> {
    let median = num(row, "median_ns").filter(|m| *m > 0.0 && m.is_finite())?;
    if u.work.is_empty() {
        return Some(median);
    }
    let work = num(row, u.work)?;
    (work > 0.0).then_some(work / median)
}

fn read_rows(results_csv: &Path) -> anyhow::Result<Vec<BTreeMap<String, String>>> {
    let mut r = csv::Reader::from_path(results_csv)
        .map_err(|e| anyhow::anyhow!("{}: {e}", results_csv.display()))?;
    let headers = r.headers()?.clone();
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec?;
        rows.push(
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_string(), csv_safe::unescape(v).into_owned()))
                .collect(),
        );
    }
    Ok(rows)
}

fn peak_row(unit: &str, value_unit: &str, row: &BTreeMap<String, String>) -> Peak {
    Peak {
        schema_version: PEAKS_SCHEMA_VERSION,
        device_name: row.get("device_name").cloned().unwrap_or_default(),
        device_uuid: row.get("device_uuid").cloned().unwrap_or_default(),
        driver_version: num(row, "driver_version").unwrap_or(0.0) as u32,
        unit: unit.into(),
        value: None,
        value_unit: value_unit.into(),
        best_variant: row.get("variant").cloned().unwrap_or_default(),
        median_ns: num(row, "median_ns"),
        median_ci_low_ns: num(row, "median_ci_low_ns"),
        median_ci_high_ns: num(row, "median_ci_high_ns"),
        cv_pct: num(row, "cv_pct"),
        n: num(row, "n").map(|n| n as usize),
        status: "ok".into(),
        reason: String::new(),
        variants: None,
    }
}

/// Each unit's peak from a calibration run's results.csv: the best of its `ok` warm rows
/// (rows that failed their check are not `ok`), checked for agreement between variants and
/// between units, and the L2 capacity from the `l2_capacity-*` rows.
pub fn from_results(results_csv: &Path) -> anyhow::Result<Vec<Peak>> {
    let rows = read_rows(results_csv)?;
    let usable = |row: &&BTreeMap<String, String>| {
        row.get("status").map(String::as_str) == Some("ok")
            && row.get("mode").is_none_or(|m| m != "cold")
    };
    let mut out = Vec::new();
    for u in UNITS {
        let mut vals: Vec<(f64, &BTreeMap<String, String>)> = rows
            .iter()
            .filter(usable)
            .filter(|r| unit_of(&r["variant"]).is_some_and(|x| x.name == u.name))
            .filter_map(|r| row_value(u, r).map(|v| (v, r)))
            .collect();
        if vals.is_empty() {
            // A unit whose every variant failed (or did not run) is said so, not left out.
            let failed: Vec<&BTreeMap<String, String>> = rows
                .iter()
                .filter(|r| unit_of(&r["variant"]).is_some_and(|x| x.name == u.name))
                .collect();
            if let Some(r) = failed.first() {
                let mut p = peak_row(u.name, u.value_unit, r);
                p.median_ns = None;
                p.median_ci_low_ns = None;
                p.median_ci_high_ns = None;
                p.cv_pct = None;
                p.n = None;
                p.status = "failed".into();
                p.reason = format!(
                    "no variant of {} ran and passed its check (first: {} {}: {})",
                    u.name,
                    r["variant"],
                    r.get("status").map(String::as_str).unwrap_or(""),
                    r.get("reason").map(String::as_str).unwrap_or("")
                );
                p.variants = Some(0);
                out.push(p);
            }
            continue;
        }
        let bigger = !u.work.is_empty();
        vals.sort_by(|a, b| {
            if bigger {
                b.0.total_cmp(&a.0)
            } else {
                a.0.total_cmp(&b.0)
            }
        });
        let (best, row) = vals[0];
        let mut p = peak_row(u.name, u.value_unit, row);
        p.value = Some(best);
        p.variants = Some(vals.len());
        match vals.get(1) {
            None => {
                p.status = "suspect".into();
                p.reason = "only one variant ran: nothing confirms it".into();
            }
            Some(&(next, next_row)) => {
                let ratio = if bigger { best / next } else { next / best };
                if ratio > AGREE {
                    p.status = "suspect".into();
                    p.reason = format!(
                        "the best variant, {}, reads {ratio:.2}x the next best, {} ({next:.4} {}): variants of one unit must agree within {AGREE}x",
                        row["variant"], next_row["variant"], u.value_unit
                    );
                }
            }
        }
        out.push(p);
    }
    if let Some(p) = l2_capacity(&rows)? {
        out.push(p);
    }
    cross_check(&mut out);
    Ok(out)
}

/// Relations between units that hold on every GPU: a peak that breaks one is suspect.
fn cross_check(peaks: &mut [Peak]) {
    let get = |list: &[Peak], u: &str| {
        list.iter()
            .find(|p| p.unit == u && p.status != "failed")
            .and_then(|p| p.value)
    };
    let snapshot: Vec<Peak> = peaks.to_vec();
    let mut mark = |unit: &str, why: String| {
        if let Some(p) = peaks.iter_mut().find(|p| p.unit == unit) {
            p.status = "suspect".into();
            if !p.reason.is_empty() {
                p.reason.push_str("; ");
            }
            p.reason.push_str(&why);
        }
    };
    if let (Some(h), Some(f)) = (get(&snapshot, "fp16"), get(&snapshot, "fp32")) {
        if h > 2.2 * f {
            mark(
                "fp16",
                format!(
                    "FP16 at {:.2}x FP32: packed FP16 without tensor cores is at most 2x FP32 on any GPU",
                    h / f
                ),
            );
        }
    }
    let dram = ["dram_read", "dram_write", "dram_copy"]
        .iter()
        .filter_map(|u| get(&snapshot, u))
        .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))));
    if let (Some(l2), Some(d)) = (get(&snapshot, "l2_read"), dram) {
        if l2 < d {
            mark(
                "l2_read",
                format!("L2 read bandwidth {l2:.0} GB/s below the DRAM peak {d:.0} GB/s"),
            );
        }
    }
    if let (Some(l1), Some(l2)) = (get(&snapshot, "l1_read"), get(&snapshot, "l2_read")) {
        if l1 < l2 {
            mark(
                "l1_read",
                format!("L1 read bandwidth {l1:.0} GB/s below the L2 peak {l2:.0} GB/s"),
            );
        } else if l1 > L1_OVER_L2 * l2 {
            // The first H200 run read 441 TB/s: the compiler had hoisted a load whose index
            // repeated every iteration (glsl/peak/l1.comp now takes its stride from a push
            // constant). Real L1s are 2-8x their L2 (H200: 33 TB/s theoretical vs 8.8).
            mark(
                "l1_read",
                format!(
                    "L1 read bandwidth {:.1}x the L2 peak: over {L1_OVER_L2}x, no GPU's L1 is that much faster (loads hoisted out of the loop?)",
                    l1 / l2
                ),
            );
        }
    }
}

/// `bytes=...` of a row's params label.
fn param(row: &BTreeMap<String, String>, key: &str) -> Option<f64> {
    row.get("params")?
        .split(';')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.parse().ok())
}

/// The L2 capacity from the `l2_capacity-*` rows: read bandwidth against working-set size.
/// See [`knee`].
fn l2_capacity(rows: &[BTreeMap<String, String>]) -> anyhow::Result<Option<Peak>> {
    let pts: Vec<(f64, f64, &BTreeMap<String, String>)> = rows
        .iter()
        .filter(|r| r["variant"].starts_with("l2_capacity-"))
        .filter(|r| r.get("status").map(String::as_str) == Some("ok"))
        .filter_map(|r| Some((param(r, "bytes")?, num(r, "gbytes_per_s")?, r)))
        .collect();
    let Some(first) = pts.first() else {
        return Ok(None);
    };
    let mut p = peak_row(L2_CAPACITY, "bytes", first.2);
    p.best_variant = first.2["variant"].clone();
    p.median_ns = None;
    p.median_ci_low_ns = None;
    p.median_ci_high_ns = None;
    p.cv_pct = None;
    p.n = None;
    p.variants = Some(pts.len());
    let curve: Vec<(f64, f64)> = pts.iter().map(|(s, b, _)| (*s, *b)).collect();
    match knee(&curve) {
        Ok(k) => p.value = Some(k),
        Err(why) => {
            p.status = "suspect".into();
            p.reason = why;
        }
    }
    Ok(Some(p))
}

/// The knee of a bandwidth curve `(working-set bytes, GB/s)`: the size where the bandwidth has
/// fallen halfway from its plateau (the highest point) to the largest size's, interpolated
/// linearly in log2(size) between the last point above halfway and the first below it. An
/// error when the curve has under three sizes or falls by less than 30 %: no knee to read.
pub fn knee(curve: &[(f64, f64)]) -> Result<f64, String> {
    let mut c = curve.to_vec();
    c.sort_by(|a, b| a.0.total_cmp(&b.0));
    c.dedup_by(|a, b| a.0 == b.0);
    if c.len() < 3 {
        return Err(format!("{} working-set sizes: at least 3 needed", c.len()));
    }
    let (hi_i, hi) = c
        .iter()
        .enumerate()
        .map(|(i, p)| (i, p.1))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("non-empty");
    let lo = c.last().expect("non-empty").1;
    if hi < 1.3 * lo {
        return Err(format!(
            "bandwidth {hi:.0} GB/s at the plateau and {lo:.0} GB/s at the largest size: under 30 % apart, no knee (is the largest size beyond the L2?)"
        ));
    }
    let mid = (hi + lo) / 2.0;
    for w in c[hi_i..].windows(2) {
        let ((s0, b0), (s1, b1)) = (w[0], w[1]);
        if b0 >= mid && b1 < mid {
            let t = (b0 - mid) / (b0 - b1);
            return Ok((s0.log2() + t * (s1.log2() - s0.log2())).exp2());
        }
    }
    Err("the bandwidth never falls below halfway after its plateau".into())
}

pub fn write_csv(peaks: &[Peak], path: &Path) -> anyhow::Result<()> {
    let tmp = path.with_extension("csv.tmp");
    {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_path(&tmp)?;
        for (i, p) in peaks.iter().enumerate() {
            if i == 0 {
                w.write_record(&csv_safe::header_of(p)?)?;
            }
            csv_safe::serialize(&mut w, p)?;
        }
        w.flush()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Read a peaks.csv of this schema; an older file (schema 1: peaks from kernels that did not
/// check themselves) is refused with the command that makes a new one.
pub fn read_csv(path: &Path) -> anyhow::Result<Vec<Peak>> {
    let mut r =
        csv::Reader::from_path(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let headers = r
        .headers()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        .clone();
    let mut out = Vec::new();
    for (i, rec) in r.records().enumerate() {
        let p =
            rec.and_then(|rec| csv_safe::unescape_record(&rec).deserialize::<Peak>(Some(&headers)));
        let p = p.map_err(|e| {
            anyhow::anyhow!(
                "{}: {e} (a peaks.csv from an older p3lab? measure again with `p3lab peak`)",
                path.display()
            )
        })?;
        anyhow::ensure!(
            p.schema_version == PEAKS_SCHEMA_VERSION,
            "{}:{}: schema_version {} is not {PEAKS_SCHEMA_VERSION}: these peaks come from calibrations that did not check themselves; measure again with `p3lab peak`",
            path.display(),
            i + 2,
            p.schema_version
        );
        out.push(p);
    }
    Ok(out)
}

/// Where peaks of a device and driver are cached: next to the SPIR-V cache.
pub fn cache_path(spirv_cache: &Path, uuid: &str, driver_version: u32) -> PathBuf {
    let base = spirv_cache.parent().unwrap_or(spirv_cache);
    base.join("peaks")
        .join(format!("{uuid}-{driver_version}.csv"))
}

/// Why a peaks file does not belong to this device and driver, if it does not.
pub fn mismatch(list: &[Peak], uuid: &str, driver_version: u32) -> Option<String> {
    let p = list.first()?;
    if p.device_uuid != uuid {
        return Some(format!(
            "measured on device {} ({}), not this one ({uuid})",
            p.device_uuid, p.device_name
        ));
    }
    if p.driver_version != driver_version {
        return Some(format!(
            "measured with driver version {}, not this one ({driver_version})",
            p.driver_version
        ));
    }
    None
}

/// The peaks the %-of-peak columns divide by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Peaks {
    /// Unit name → value (units with a value: `ok` and `suspect` ones).
    pub values: BTreeMap<String, f64>,
    /// Units whose peak is suspect (their %-of-peak is flagged on the row).
    pub suspect: Vec<String>,
    /// The measured L2 capacity in bytes.
    pub l2_capacity: Option<f64>,
    /// Why these peaks are another device's or driver's (`--force-peaks`): every row says so.
    pub foreign: Option<String>,
}

impl Peaks {
    pub fn from_list(list: &[Peak]) -> Peaks {
        let mut p = Peaks::default();
        for x in list {
            let Some(v) = x.value else { continue };
            if x.unit == L2_CAPACITY {
                if x.status == "ok" {
                    p.l2_capacity = Some(v);
                }
                continue;
            }
            p.values.insert(x.unit.clone(), v);
            if x.status == "suspect" {
                p.suspect.push(x.unit.clone());
            }
        }
        p
    }

    pub fn get(&self, unit: &str) -> Option<f64> {
        self.values.get(unit).copied().filter(|v| *v > 0.0)
    }

    /// The DRAM peak: the best of read, write and copy, in GB/s.
    pub fn dram(&self) -> Option<f64> {
        ["dram_read", "dram_write", "dram_copy"]
            .iter()
            .filter_map(|u| self.get(u))
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "variant,status,mode,params,bytes,flops,int_ops,texels,gbytes_per_s,median_ns,device_uuid,driver_version,reason\n";

    fn write(rows: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("results.csv");
        std::fs::write(&p, format!("{HEAD}{rows}")).unwrap();
        (dir, p)
    }

    fn unit<'a>(peaks: &'a [Peak], u: &str) -> &'a Peak {
        peaks.iter().find(|x| x.unit == u).unwrap()
    }

    #[test]
    fn best_variant_per_unit_only_from_checked_warm_rows() {
        let (_d, p) = write(
            "dram_read-a,ok,warm,,1000,,,,,10,u,7,\n\
             dram_read-b,ok,warm,,1350,,,,,9,u,7,\n\
             dram_read-c,ok,cold,,9000,,,,,9,u,7,\n\
             dram_copy-a,check_failed,warm,,999,,,,,1,u,7,wrong\n\
             dram_copy-b,ok,warm,,120,,,,,1,u,7,\n\
             dram_copy-c,ok,warm,,110,,,,,1,u,7,\n\
             fp32-x,ok,warm,,,5000,,,,1,u,7,\n\
             fp32-y,ok,warm,,,4000,,,,1,u,7,\n\
             int32-x,check_failed,warm,,,,100,,,1,u,7,sink[1024] = 1\n\
             empty-wg32,ok,warm,,,,,,,3000,u,7,\n\
             empty-wg256,ok,warm,,,,,,,2500,u,7,\n",
        );
        let peaks = from_results(&p).unwrap();
        let d = unit(&peaks, "dram_read");
        assert_eq!(d.value, Some(150.0), "cold rows do not count");
        assert_eq!(
            (d.best_variant.as_str(), d.status.as_str()),
            ("dram_read-b", "ok")
        );
        assert_eq!(
            unit(&peaks, "dram_copy").value,
            Some(120.0),
            "failed checks do not count"
        );
        let e = unit(&peaks, "empty");
        assert_eq!(e.value, Some(2500.0), "for overhead the smallest wins");
        let i = unit(&peaks, "int32");
        assert_eq!((i.value, i.status.as_str()), (None, "failed"));
        assert!(i.reason.contains("sink[1024]"), "{}", i.reason);
        let out = p.with_file_name("peaks.csv");
        write_csv(&peaks, &out).unwrap();
        assert_eq!(read_csv(&out).unwrap(), peaks);
        let pk = Peaks::from_list(&peaks);
        assert_eq!(pk.dram(), Some(150.0));
        assert_eq!(pk.get("int32"), None);
    }

    #[test]
    fn variants_that_disagree_make_the_unit_suspect() {
        // The fp16 bug of issue 12: 8 chains read 4x 16 chains, for the same work per flop.
        let (_d, p) = write(
            "fp16-c8,ok,warm,,,251000,,,,1000,u,7,\n\
             fp16-c16,ok,warm,,,61000,,,,1000,u,7,\n\
             fp32-c8,ok,warm,,,60000,,,,1000,u,7,\n\
             fp32-c16,ok,warm,,,59000,,,,1000,u,7,\n\
             texture_point-acc1,ok,warm,,,,,1000,,1000,u,7,\n",
        );
        let peaks = from_results(&p).unwrap();
        let h = unit(&peaks, "fp16");
        assert_eq!(h.status, "suspect");
        assert!(h.reason.contains("4.11x the next best"), "{}", h.reason);
        assert!(h.reason.contains("at most 2x FP32"), "{}", h.reason);
        assert_eq!(unit(&peaks, "fp32").status, "ok");
        let t = unit(&peaks, "texture_point");
        assert_eq!(
            (t.value, t.status.as_str()),
            (Some(1.0), "suspect"),
            "one variant only"
        );
        assert_eq!(
            Peaks::from_list(&peaks).suspect,
            vec!["fp16", "texture_point"]
        );
    }

    #[test]
    fn an_l1_far_above_the_l2_is_not_believed() {
        // The first H200 run: 441 TB/s of "L1" (hoisted loads) against an 8.8 TB/s L2.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("results.csv");
        std::fs::write(
            &p,
            "variant,status,mode,bytes,l1_bytes,median_ns,device_uuid,driver_version\n\
             l2_read-a,ok,warm,8800,,1,u,7\n\
             l2_read-b,ok,warm,8700,,1,u,7\n\
             l1_read-a,ok,warm,,440000,1,u,7\n\
             l1_read-b,ok,warm,,430000,1,u,7\n",
        )
        .unwrap();
        let peaks = from_results(&p).unwrap();
        let l1 = unit(&peaks, "l1_read");
        assert_eq!(l1.status, "suspect");
        assert!(l1.reason.contains("50.0x the L2 peak"), "{}", l1.reason);
        std::fs::write(
            &p,
            "variant,status,mode,bytes,l1_bytes,median_ns,device_uuid,driver_version\n\
             l2_read-a,ok,warm,8800,,1,u,7\n\
             l2_read-b,ok,warm,8700,,1,u,7\n\
             l1_read-a,ok,warm,,33000,1,u,7\n\
             l1_read-b,ok,warm,,32000,1,u,7\n",
        )
        .unwrap();
        assert_eq!(unit(&from_results(&p).unwrap(), "l1_read").status, "ok");
    }

    #[test]
    fn l2_capacity_is_the_knee_of_the_bandwidth_curve() {
        // 10 TB/s while the buffer fits, 4 TB/s beyond; halfway (7 TB/s) between 32 and 64 MB.
        let curve = [
            (8e6, 10000.0),
            (16e6, 10100.0),
            (32e6, 9000.0),
            (64e6, 5000.0),
            (128e6, 4000.0),
        ];
        let k = knee(&curve).unwrap();
        // 9000 -> 5000 crosses 7050 at t = 0.4875 of the way from log2(32e6) to log2(64e6).
        assert!((k - 32e6 * 2f64.powf(0.4875)).abs() < 1.0, "{k}");
        assert!(knee(&curve[..2]).unwrap_err().contains("at least 3"));
        let flat = [(8e6, 4000.0), (16e6, 4100.0), (32e6, 3900.0)];
        assert!(knee(&flat).unwrap_err().contains("no knee"));
        let rows: String = curve
            .iter()
            .map(|(s, b)| format!("l2_capacity-wg1024,ok,warm,bytes={s};passes=4,,,,,{b},1,u,7,\n"))
            .collect();
        let (_d, p) = write(&rows);
        let peaks = from_results(&p).unwrap();
        let c = unit(&peaks, L2_CAPACITY);
        assert_eq!((c.value, c.status.as_str()), (Some(k), "ok"));
        assert_eq!(Peaks::from_list(&peaks).l2_capacity, Some(k));
    }

    #[test]
    fn peaks_of_another_device_or_driver_are_named() {
        let mut p = from_results(&write("fp32-a,ok,warm,,,10,,,,1,u,7,\n").1).unwrap();
        assert_eq!(mismatch(&p, "u", 7), None);
        assert!(mismatch(&p, "v", 7)
            .unwrap()
            .contains("measured on device u"));
        assert!(mismatch(&p, "u", 8).unwrap().contains("driver version 7"));
        p[0].schema_version = 1;
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("old.csv");
        write_csv(&p, &f).unwrap();
        assert!(read_csv(&f).unwrap_err().to_string().contains("p3lab peak"));
    }
}
