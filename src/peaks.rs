//! Measured peaks (`p3lab peak`): each unit's best throughput on this device, from the
//! calibration scenarios in peaks/, cached per device and driver, and the %-of-peak columns
//! that `p3lab run` derives from them and a variant's declared work.
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One unit's peak, as peaks.csv stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    pub schema_version: u32,
    pub device_name: String,
    pub device_uuid: String,
    pub driver_version: u32,
    /// dram_read | dram_write | dram_copy | l2_read | fp32 | fp16 | shared | empty_dispatch
    pub unit: String,
    pub value: f64,
    /// gbytes_per_s | gflops_per_s | ns
    pub value_unit: String,
    pub best_variant: String,
    pub median_ns: f64,
    pub median_ci_low_ns: Option<f64>,
    pub median_ci_high_ns: Option<f64>,
    pub cv_pct: Option<f64>,
    pub n: Option<usize>,
}

/// What a unit is measured in, and whether bigger is better.
fn unit_kind(unit: &str) -> Option<(&'static str, bool)> {
    Some(match unit {
        "dram_read" | "dram_write" | "dram_copy" | "l2_read" => ("gbytes_per_s", true),
        "shared" => ("shared_gbytes_per_s", true),
        "fp32" | "fp16" => ("gflops_per_s", true),
        "empty" => ("median_ns", false),
        _ => return None,
    })
}

fn num(row: &BTreeMap<String, String>, col: &str) -> Option<f64> {
    row.get(col).and_then(|v| v.parse::<f64>().ok())
}

/// The best variant of each unit among the `ok` rows of a calibration run's results.csv.
/// A variant calibrates the unit its name starts with (`dram_read-wg256-…`).
pub fn from_results(results_csv: &Path) -> anyhow::Result<Vec<Peak>> {
    let mut r = csv::Reader::from_path(results_csv)
        .map_err(|e| anyhow::anyhow!("{}: {e}", results_csv.display()))?;
    let headers = r.headers()?.clone();
    let mut best: BTreeMap<String, (f64, BTreeMap<String, String>)> = BTreeMap::new();
    for rec in r.records() {
        let rec = rec?;
        let row: BTreeMap<String, String> = headers
            .iter()
            .zip(rec.iter())
            .map(|(h, v)| (h.to_string(), v.to_string()))
            .collect();
        if row.get("status").map(String::as_str) != Some("ok")
            || row.get("mode").is_some_and(|m| m == "cold")
        {
            continue;
        }
        let unit = row["variant"].split('-').next().unwrap_or("").to_string();
        let Some((col, bigger)) = unit_kind(&unit) else {
            continue;
        };
        let Some(v) = num(&row, col) else { continue };
        let better = match best.get(&unit) {
            None => true,
            Some((old, _)) => (bigger && v > *old) || (!bigger && v < *old),
        };
        if better {
            best.insert(unit, (v, row));
        }
    }
    Ok(best
        .into_iter()
        .map(|(unit, (value, row))| {
            let (col, _) = unit_kind(&unit).expect("known unit");
            Peak {
                schema_version: 1,
                device_name: row.get("device_name").cloned().unwrap_or_default(),
                device_uuid: row.get("device_uuid").cloned().unwrap_or_default(),
                driver_version: num(&row, "driver_version").unwrap_or(0.0) as u32,
                unit: if unit == "empty" {
                    "empty_dispatch".into()
                } else {
                    unit
                },
                value,
                value_unit: if col == "shared_gbytes_per_s" {
                    "gbytes_per_s".into()
                } else {
                    col.into()
                },
                best_variant: row["variant"].clone(),
                median_ns: num(&row, "median_ns").unwrap_or(f64::NAN),
                median_ci_low_ns: num(&row, "median_ci_low_ns"),
                median_ci_high_ns: num(&row, "median_ci_high_ns"),
                cv_pct: num(&row, "cv_pct"),
                n: num(&row, "n").map(|n| n as usize),
            }
        })
        .collect())
}

pub fn write_csv(peaks: &[Peak], path: &Path) -> anyhow::Result<()> {
    let tmp = path.with_extension("csv.tmp");
    {
        let mut w = csv::Writer::from_path(&tmp)?;
        for p in peaks {
            w.serialize(p)?;
        }
        w.flush()?;
    }
    std::fs::rename(&tmp, path)?;
    Ok(())
}

pub fn read_csv(path: &Path) -> anyhow::Result<Vec<Peak>> {
    let mut r =
        csv::Reader::from_path(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    r.deserialize()
        .map(|p| p.map_err(|e| anyhow::anyhow!("{}: {e}", path.display())))
        .collect()
}

/// Where peaks of a device and driver are cached: next to the SPIR-V cache.
pub fn cache_path(spirv_cache: &Path, uuid: &str, driver_version: u32) -> PathBuf {
    let base = spirv_cache.parent().unwrap_or(spirv_cache);
    base.join("peaks")
        .join(format!("{uuid}-{driver_version}.csv"))
}

/// The peaks the %-of-peak columns divide by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Peaks {
    /// The best of DRAM read, write and copy, in GB/s.
    pub dram_gbytes_per_s: Option<f64>,
    pub fp32_gflops_per_s: Option<f64>,
    pub shared_gbytes_per_s: Option<f64>,
}

impl Peaks {
    pub fn from_list(list: &[Peak]) -> Peaks {
        let get = |u: &str| list.iter().find(|p| p.unit == u).map(|p| p.value);
        let dram = ["dram_read", "dram_write", "dram_copy"]
            .iter()
            .filter_map(|u| get(u))
            .fold(None, |a: Option<f64>, v| Some(a.map_or(v, |a| a.max(v))));
        Peaks {
            dram_gbytes_per_s: dram,
            fp32_gflops_per_s: get("fp32"),
            shared_gbytes_per_s: get("shared"),
        }
    }

    /// (dram_pct, flop_pct, shared_pct, top unit) for a variant's declared throughputs.
    pub fn percents(
        &self,
        gbytes: Option<f64>,
        gflops: Option<f64>,
        shared_gbytes: Option<f64>,
    ) -> (Option<f64>, Option<f64>, Option<f64>, String) {
        let pct = |v: Option<f64>, p: Option<f64>| match (v, p) {
            (Some(v), Some(p)) if p > 0.0 => Some(v / p * 100.0),
            _ => None,
        };
        let d = pct(gbytes, self.dram_gbytes_per_s);
        let f = pct(gflops, self.fp32_gflops_per_s);
        let s = pct(shared_gbytes, self.shared_gbytes_per_s);
        let top = [("dram", d), ("fp32", f), ("shared", s)]
            .into_iter()
            .filter_map(|(n, v)| v.map(|v| (n, v)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(n, _)| n.to_string())
            .unwrap_or_default();
        (d, f, s, top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_variant_per_unit_and_percent_of_peak() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("results.csv");
        std::fs::write(
            &p,
            "variant,status,mode,gbytes_per_s,gflops_per_s,shared_gbytes_per_s,median_ns,device_uuid,driver_version\n\
             dram_read-a,ok,warm,100,,,10,u,7\n\
             dram_read-b,ok,warm,150,,,9,u,7\n\
             dram_read-c,ok,cold,900,,,9,u,7\n\
             dram_copy-a,error,warm,999,,,1,u,7\n\
             dram_copy-b,ok,warm,120,,,1,u,7\n\
             fp32-x,ok,warm,,5000,,1,u,7\n\
             shared-y,ok,warm,,,800,1,u,7\n\
             empty-wg32,ok,warm,,,,3000,u,7\n\
             empty-wg256,ok,warm,,,,2500,u,7\n",
        )
        .unwrap();
        let peaks = from_results(&p).unwrap();
        let get = |u: &str| peaks.iter().find(|x| x.unit == u).unwrap();
        assert_eq!(
            get("dram_read").value,
            150.0,
            "cold rows and failed rows do not count"
        );
        assert_eq!(get("dram_read").best_variant, "dram_read-b");
        assert_eq!(get("dram_copy").value, 120.0);
        assert_eq!(
            get("empty_dispatch").value,
            2500.0,
            "for overhead the smallest wins"
        );
        let out = dir.path().join("peaks.csv");
        write_csv(&peaks, &out).unwrap();
        assert_eq!(read_csv(&out).unwrap(), peaks);
        let pk = Peaks::from_list(&peaks);
        assert_eq!(pk.dram_gbytes_per_s, Some(150.0));
        let (d, f, s, top) = pk.percents(Some(75.0), Some(500.0), None);
        assert_eq!(
            (d, f, s, top.as_str()),
            (Some(50.0), Some(10.0), None, "dram")
        );
    }
}
