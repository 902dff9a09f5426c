//! peaks.csv: writing it, reading it back (any schema this build knows), the per-device
//! cache that `p3lab run` reads, and whether a file is this device's.
use super::{Peak, PEAKS_SCHEMA_VERSION};
use crate::results::csv_safe;
use std::path::{Path, PathBuf};

/// Write peaks.csv whole, beside and renamed into place, never through a link
/// (results::write::write_file_atomic).
pub fn write_csv(peaks: &[Peak], path: &Path) -> anyhow::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(Vec::new());
    for (i, p) in peaks.iter().enumerate() {
        if i == 0 {
            w.write_record(&csv_safe::header_of(p)?)?;
        }
        csv_safe::serialize(&mut w, p)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.error()))?;
    crate::results::write::write_file_atomic(path, &bytes)
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
        if p.schema_version != PEAKS_SCHEMA_VERSION {
            let why = match p.schema_version {
                1 => "these peaks come from calibrations that did not check themselves",
                2 => "these peaks count a dispatch's fixed cost as work (a larger dispatch could beat them) and read the L2 capacity halfway down to DRAM (past the L2's size)",
                _ => "this p3lab does not know that version",
            };
            anyhow::bail!(
                "{}:{}: schema_version {} is not {PEAKS_SCHEMA_VERSION}: {why}; measure again with `p3lab peak`",
                path.display(),
                i + 2,
                p.schema_version
            );
        }
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

/// Peaks of another card of this model (the same device name) and driver: where `mismatch`
/// names another device only by its UUID. Such peaks are this card's too, within the spread
/// between cards of one model (a lab with eight identical cards measures them once; issue 40).
pub fn same_model(list: &[Peak], device_name: &str, driver_version: u32) -> bool {
    list.first()
        .is_some_and(|p| p.device_name == device_name && p.driver_version == driver_version)
}

/// A cached peaks file of another card of this model and driver (another UUID's
/// `UUID-DRIVER.csv` beside this card's in the peaks cache), for a card with none of its own.
pub fn sibling_cache(
    spirv_cache: &Path,
    device_name: &str,
    driver_version: u32,
) -> Option<PathBuf> {
    let own = cache_path(spirv_cache, "x", driver_version);
    let dir = own.parent()?;
    let suffix = format!("-{driver_version}.csv");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&suffix))
        })
        .collect();
    // The same file on every run, whichever order the folder lists them in.
    files.sort();
    files
        .into_iter()
        .find(|f| read_csv(f).is_ok_and(|l| same_model(&l, device_name, driver_version)))
}
