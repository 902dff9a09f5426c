//! `p3lab calibrate-process`: the device's process-level SD (issue 41), measured by running a
//! reference set in several fresh p3lab processes (each its own device, allocations and
//! pipelines) and comparing their times; and the measured SDs `compare` uses.
use super::*;
use crate::p3::compare::{MeasuredProcessSd, RunData};
use crate::peaks::{ProcessSd, RowSd};

/// The built-in reference set: (calibration file in peaks/, its variant, kind of work).
const REFERENCES: [(&str, &str, &str); 2] = [
    ("dram_read.toml", "dram_read-wg256-g528-u1", "memory"),
    ("fma.toml", "fp32-wg256-c16-u32", "compute"),
];

/// Where process SDs are cached: beside the SPIR-V cache (inside `$P3LAB_CACHE_DIR` when set).
pub(super) fn process_sd_dir() -> PathBuf {
    crate::shader::beside_spirv_cache("process_sd")
}

/// The measured process SDs for the devices and drivers of `runs`' rows: `--process-sd FILE`
/// when given (an error, naming the flag, when it is none of theirs), else each one's cache
/// entry where there is one.
pub(super) fn measured_for(
    runs: &[&RunData],
    file: Option<&std::path::Path>,
) -> anyhow::Result<Vec<MeasuredProcessSd>> {
    let mut devices: Vec<(String, u32)> = Vec::new();
    for r in runs.iter().flat_map(|run| &run.results) {
        let uuid = r.get("device_uuid").to_string();
        let Some(driver) = r.num("driver_version").map(|d| d as u32) else {
            continue;
        };
        if !uuid.is_empty() && !devices.contains(&(uuid.clone(), driver)) {
            devices.push((uuid, driver));
        }
    }
    if let Some(path) = file {
        let sd = crate::peaks::read_process_sd(path)
            .map_err(|e| UserError::Flag(format!("--process-sd: {e:#}")))?;
        let ours = devices
            .iter()
            .any(|(u, d)| crate::peaks::process_mismatch(&sd, u, *d).is_none());
        if !ours {
            let why = devices
                .first()
                .and_then(|(u, d)| crate::peaks::process_mismatch(&sd, u, *d))
                .unwrap_or_else(|| "the runs name no device".into());
            return Err(UserError::Flag(format!(
                "--process-sd {}: {why} (the runs' device)",
                path.display()
            ))
            .into());
        }
        return Ok(vec![MeasuredProcessSd {
            sd,
            from: path.to_path_buf(),
        }]);
    }
    let dir = process_sd_dir();
    let mut out = Vec::new();
    for (uuid, driver) in devices {
        let path = crate::peaks::process_cache_path(&dir, &uuid, driver);
        if !path.is_file() {
            continue;
        }
        match crate::peaks::read_process_sd(&path) {
            Ok(sd) => out.push(MeasuredProcessSd { sd, from: path }),
            Err(e) => tracing::warn!("not using the cached process SD: {e:#}"),
        }
    }
    Ok(out)
}

/// The arguments of one child process's `p3lab run`, writing into `out`.
fn child_args(
    a: &crate::cli::CalibrateProcessArgs,
    files: &[PathBuf],
    filters: &[String],
    out: &std::path::Path,
) -> Vec<std::ffi::OsString> {
    let mut v: Vec<std::ffi::OsString> =
        vec!["-q".into(), "--color".into(), "never".into(), "run".into()];
    v.extend(files.iter().map(|f| f.clone().into_os_string()));
    for f in filters {
        v.push("--filter".into());
        v.push(f.into());
    }
    for s in &a.set {
        v.push("--set".into());
        v.push(s.into());
    }
    if let Some(d) = &a.device {
        v.push("--device".into());
        v.push(d.into());
    }
    if let Some(b) = a.budget_ms {
        v.push("--budget-ms".into());
        v.push(b.to_string().into());
    }
    if let Some(w) = a.warmup_ms {
        v.push("--warmup-ms".into());
        v.push(w.to_string().into());
    }
    // Sized for the device (the calibrations' small sizes on a CPU device), timed only: the
    // level measured is the process, not the placement of one run's data.
    for flag in [
        "--profile",
        "auto",
        "--no-placement-check",
        "--no-hw-counters",
        "--out",
    ] {
        v.push(flag.into());
    }
    v.push(out.as_os_str().to_owned());
    v
}

/// `p3lab calibrate-process`: the reference set in `--processes` fresh processes, the SD of
/// each row's log time between them less what each process's own interval holds, pooled per
/// kind of work; written to OUT/process_sd.json and the per-device cache.
pub(super) fn calibrate_process(a: crate::cli::CalibrateProcessArgs) -> anyhow::Result<i32> {
    if a.device.as_deref() == Some("all") {
        return Err(UserError::Flag("--device all: `p3lab calibrate-process` measures one device at a time; run it once per device index".into()).into());
    }
    let (files, filters, kinds): (Vec<PathBuf>, Vec<String>, Vec<(String, String)>) = if a
        .scenario
        .is_empty()
    {
        let dir = crate::assets::peaks_dir(None)?;
        (
            REFERENCES.iter().map(|(f, _, _)| dir.join(f)).collect(),
            REFERENCES.iter().map(|(_, v, _)| v.to_string()).collect(),
            REFERENCES
                .iter()
                .map(|(f, _, k)| {
                    (
                        format!("peak_{}", f.trim_end_matches(".toml")),
                        k.to_string(),
                    )
                })
                .collect(),
        )
    } else {
        for f in &a.scenario {
            if !f.is_file() {
                return Err(
                    UserError::Flag(format!("--scenario {}: no such file", f.display())).into(),
                );
            }
        }
        (a.scenario.clone(), a.filter.clone(), Vec::new())
    };
    let exe = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find p3lab's own binary to start processes: {e}"))?;
    std::fs::create_dir_all(&a.out)
        .map_err(|e| UserError::Flag(format!("--out {}: cannot create: {e}", a.out.display())))?;
    let started = std::time::Instant::now();
    let mut runs = Vec::new();
    for i in 1..=a.processes {
        let dir = a.out.join(format!("p{i}"));
        eprintln!("p3lab: process {i} of {} → {}", a.processes, dir.display());
        let o = std::process::Command::new(&exe)
            .args(child_args(&a, &files, &filters, &dir))
            .stdout(std::process::Stdio::null())
            .output()
            .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", exe.display()))?;
        let code = o.status.code().unwrap_or(-1);
        if !matches!(code, exit::OK | exit::ROWS_FAILED) {
            let err = String::from_utf8_lossy(&o.stderr);
            let tail: Vec<&str> = err
                .lines()
                .rev()
                .take(8)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let msg = format!(
                "process {i} of {} (`p3lab run ... --out {}`) failed with exit {code}:\n{}",
                a.processes,
                dir.display(),
                tail.join("\n")
            );
            return if code == exit::BAD_INPUT {
                Err(UserError::Flag(msg).into())
            } else {
                Err(anyhow::anyhow!(msg))
            };
        }
        runs.push(crate::p3::compare::load_run(&dir)?);
    }
    let mut sd = from_runs(&runs, &kinds, a.processes)?;
    sd.seconds = Some(started.elapsed().as_secs_f64());
    let path = a.out.join("process_sd.json");
    crate::results::write::refuse_link(&path).map_err(linked_is_bad_input)?;
    crate::peaks::write_process_sd(&sd, &path)?;
    let cache =
        crate::peaks::process_cache_path(&process_sd_dir(), &sd.device_uuid, sd.driver_version);
    if let Some(parent) = cache.parent() {
        std::fs::create_dir_all(parent)?;
    }
    crate::peaks::write_process_sd(&sd, &cache)?;
    print_sd(&sd);
    eprintln!(
        "p3lab: {} processes in {:.0} s; process SD in {} and cached at {} (`p3lab compare` of two runs on this device and driver uses it)",
        a.processes,
        started.elapsed().as_secs_f64(),
        path.display(),
        cache.display()
    );
    Ok(exit::OK)
}

/// The process SD of the `ok` rows the processes' runs share; `kinds` names a scenario's kind
/// of work (others are their scenario's name). An error where the runs ran on different
/// devices or drivers, or no row has a time in two processes.
fn from_runs(
    runs: &[RunData],
    kinds: &[(String, String)],
    processes: u32,
) -> anyhow::Result<ProcessSd> {
    let first = runs
        .iter()
        .flat_map(|r| &r.results)
        .find(|r| r.status() == crate::results::RowStatus::Ok)
        .ok_or_else(|| {
            anyhow::anyhow!("no reference row ran successfully; see each process's results.csv")
        })?;
    let (uuid, driver) = (first.get("device_uuid"), first.get("driver_version"));
    let mut by_row: Vec<(String, String, Vec<f64>, Vec<f64>)> = Vec::new();
    for run in runs {
        for r in run
            .results
            .iter()
            .filter(|r| r.status() == crate::results::RowStatus::Ok)
        {
            if r.get("device_uuid") != uuid || r.get("driver_version") != driver {
                anyhow::bail!(
                    "{}: ran on another device or driver than the first process",
                    run.dir.display()
                );
            }
            let Some(m) = r.num("median_ns") else {
                continue;
            };
            let key = r.key().to_string();
            let scenario = r.get("scenario");
            let kind = kinds
                .iter()
                .find(|(s, _)| s == scenario)
                .map_or(scenario.to_string(), |(_, k)| k.clone());
            let hw = r.num("ci_half_width_pct").unwrap_or(f64::NAN);
            match by_row.iter_mut().find(|(k, ..)| *k == key) {
                Some((_, _, ms, hs)) => {
                    ms.push(m);
                    hs.push(hw);
                }
                None => by_row.push((key, kind, vec![m], vec![hw])),
            }
        }
    }
    let rows: Vec<RowSd> = by_row
        .iter()
        .filter_map(|(row, kind, ms, hs)| {
            let (obs, within, between) = crate::peaks::between_process_sd(ms, hs)?;
            Some(RowSd {
                row: row.clone(),
                kind: kind.clone(),
                processes: ms.len() as u32,
                observed_pct: obs * 100.0,
                within_pct: within * 100.0,
                sd_pct: between * 100.0,
            })
        })
        .collect();
    if rows.is_empty() {
        anyhow::bail!(
            "no reference row has a time in two processes; see each process's results.csv"
        );
    }
    Ok(ProcessSd {
        schema_version: crate::peaks::PROCESS_SD_SCHEMA_VERSION,
        device_name: first.get("device_name").to_string(),
        device_uuid: uuid.to_string(),
        device_type: first.get("device_type").to_string(),
        driver_version: first.num("driver_version").map_or(0, |d| d as u32),
        measured: chrono::Utc::now().format("%Y-%m-%d").to_string(),
        processes,
        seconds: None,
        kinds: crate::peaks::pool_kinds(&rows),
        rows,
    })
}

/// The result on stdout: the pooled kinds, then every row.
fn print_sd(sd: &ProcessSd) {
    println!(
        "{} on {} ({})",
        sd.describe(),
        sd.device_name,
        sd.device_type
    );
    println!("  {:<8} {:>9} {:>5}", "kind", "SD", "rows");
    for k in &sd.kinds {
        println!("  {:<8} {:>7.2} % {:>5}", k.kind, k.sd_pct, k.rows);
    }
    println!(
        "  {:<56} {:>9} {:>9} {:>9}",
        "row", "observed", "within", "process"
    );
    for r in &sd.rows {
        println!(
            "  {:<56} {:>7.2} % {:>7.2} % {:>7.2} %",
            r.row, r.observed_pct, r.within_pct, r.sd_pct
        );
    }
}
