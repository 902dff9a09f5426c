//! `p3lab peak`: the calibration runs, peaks.csv and its cache; `peak --list` names the
//! calibration variants from the binary alone.
use super::plan::{Filter, PlanError, RunPlan};
use super::*;

/// The cached peaks `p3lab run` would use on the device `--device` picks, if there are any it
/// can use (this device and driver, this peaks.csv schema).
fn cached_peaks(a: &crate::cli::PeakArgs) -> anyhow::Result<Option<PathBuf>> {
    let inst = Instance::new(false)?;
    let infos: Vec<_> = inst.devices()?.into_iter().map(|(_, d)| d).collect();
    let d = &infos[info::choose(&infos, a.device.as_deref()).map_err(UserError::Flag)?];
    let spirv = a.cache_dir.clone().unwrap_or_else(default_cache_dir);
    let cache = crate::peaks::cache_path(&spirv, &d.uuid, d.driver_version);
    if !cache.is_file() {
        return Ok(None);
    }
    match crate::peaks::read_csv(&cache) {
        Ok(list) if crate::peaks::mismatch(&list, &d.uuid, d.driver_version).is_none() => {
            // A file without a row for some unit (from an older p3lab, before that unit was
            // measured, or from a filtered `p3lab peak`) is not usable: its rows would leave
            // that unit's `_pct` columns empty.
            let missing: Vec<&str> = crate::peaks::UNITS
                .iter()
                .map(|u| u.name)
                .filter(|n| !list.iter().any(|p| p.unit == *n))
                .collect();
            if !list.is_empty() && !missing.is_empty() {
                tracing::warn!(
                    "measuring again: the cached peaks at {} have no row for {}",
                    cache.display(),
                    missing.join(", ")
                );
                return Ok(None);
            }
            Ok((!list.is_empty()).then_some(cache))
        }
        Ok(_) => Ok(None),
        Err(e) => {
            tracing::warn!("measuring again: {e:#}");
            Ok(None)
        }
    }
}

/// The run `p3lab peak` makes of its flags: the calibration scenarios in `dir` into `out`,
/// each variant counted too where the device has counters (issue 39: a peak is a claim about
/// the hardware, and the unit's own counter confirms it; `--no-hw-counters` to time only),
/// no summary of their own; every other flag at `p3lab run`'s default. Its flags are checked
/// as `p3lab run` checks its own.
fn calibration_plan(
    a: &crate::cli::PeakArgs,
    out: PathBuf,
    dir: PathBuf,
) -> Result<RunPlan, PlanError> {
    let mut plan = RunPlan::new(vec![dir], out);
    plan.what.set = a.set.clone();
    plan.what.profile = Some(a.profile.clone());
    plan.what.device = a.device.clone();
    plan.how.design.reps = a.reps;
    plan.how.design.warmup_ms = a.warmup_ms;
    plan.how.cache_dir = a.cache_dir.clone();
    plan.how.hw = crate::measure::hw::HwOptions {
        enabled: !a.no_hw_counters,
        cupti: a.cupti.clone(),
        interval_ns: crate::measure::hw::DEFAULT_INTERVAL_NS,
        // Each unit's own counters are counted by `own_counts` after the peaks are known.
        nv_own: Vec::new(),
        nv_own_for: None,
        timed_before: Default::default(),
    };
    // peaks.csv and the table `peak` prints are this command's output, not the run's summary.
    plan.print_summary = false;
    // `peak --out` has always measured again into its folder (peaks.csv is what it keeps).
    plan.output.replace = true;
    plan.check()?;
    plan.what.filter = Filter::new(&a.filter)?;
    Ok(plan)
}

/// `p3lab peak`: run the calibration scenarios, keep each unit's best, write peaks.csv into
/// the output folder and the per-device cache that `p3lab run` reads.
pub(super) fn peak(a: crate::cli::PeakArgs) -> anyhow::Result<i32> {
    if a.list {
        return list_calibrations(&a);
    }
    let out = a
        .out
        .clone()
        .ok_or_else(|| UserError::Flag("--out DIR is required (or --list)".into()))?;
    if a.device.as_deref() == Some("all") {
        return Err(UserError::Flag("--device all: `p3lab peak` measures one device at a time; run it once per device index".into()).into());
    }
    if a.if_missing {
        if let Some(cached) = cached_peaks(&a)? {
            println!(
                "p3lab: peaks for this device and driver are cached at {} (--if-missing: nothing measured; without it `p3lab peak` measures again)",
                cached.display()
            );
            return Ok(0);
        }
    }
    // A linked peaks.csv is refused before anything is measured (exit 2, naming it); with an
    // `--out` template, the run expands it and the same check follows the run.
    crate::results::write::refuse_link(&out.join("peaks.csv")).map_err(linked_is_bad_input)?;
    let dir = calibration_dir(&a)?;
    let plan = calibration_plan(&a, out.clone(), dir).map_err(UserError::from)?;
    let super::RunOutcome { code, rows, out } = super::run(plan)?;
    crate::results::write::refuse_link(&out.join("peaks.csv")).map_err(linked_is_bad_input)?;
    let mut peaks = crate::peaks::from_rows(&rows, &Default::default())?;
    if peaks.is_empty() {
        anyhow::bail!(
            "no calibration variant ran successfully; see {}",
            out.join("results.csv").display()
        );
    }
    // The peaks are kept before the own counters' run, which only adds to them: a run that
    // ends there (an interrupt) leaves them written and cached.
    let cache = save_peaks(&a, &out, &peaks)?;
    let counted = rows
        .iter()
        .any(|r| r.hw_source == crate::measure::hw::SOURCE_CUPTI);
    if counted {
        if let Some(own) = own_counts(&a, &out, &peaks, &rows)? {
            peaks = crate::peaks::from_rows(&rows, &own)?;
            save_peaks(&a, &out, &peaks)?;
        }
    }
    print_peaks(&peaks, counted);
    eprintln!(
        "p3lab: peaks in {} and cached at {}",
        out.join("peaks.csv").display(),
        cache.display()
    );
    Ok(code)
}

/// peaks.csv in the output folder, and the per-device cache (a filtered or interrupted run's
/// units replace only theirs there); the cache's path.
fn save_peaks(
    a: &crate::cli::PeakArgs,
    out: &std::path::Path,
    peaks: &[crate::peaks::Peak],
) -> anyhow::Result<PathBuf> {
    crate::peaks::write_csv(peaks, &out.join("peaks.csv"))?;
    let spirv = a.cache_dir.clone().unwrap_or_else(default_cache_dir);
    let cache = crate::peaks::cache_path(&spirv, &peaks[0].device_uuid, peaks[0].driver_version);
    if let Some(parent) = cache.parent() {
        std::fs::create_dir_all(parent)?;
    }
    // A filtered or interrupted run measured some units: they replace those of the cached
    // file for this device and driver, and the others stay (issue 41: `peak --filter
    // 'empty-*'` had replaced the whole cache with one unit, and every later run used it
    // silently; a `peak` stopped by Ctrl-C or SIGTERM did the same with the units it had).
    let mut cached = peaks.to_vec();
    if !a.filter.is_empty() || crate::measure::options::interrupted() {
        if let Ok(old) = crate::peaks::read_csv(&cache) {
            let same = crate::peaks::mismatch(&old, &peaks[0].device_uuid, peaks[0].driver_version)
                .is_none();
            if same {
                let kept: Vec<crate::peaks::Peak> = old
                    .into_iter()
                    .filter(|o| !peaks.iter().any(|p| p.unit == o.unit))
                    .collect();
                if !kept.is_empty() {
                    eprintln!(
                        "p3lab: {} measured {} unit(s); the cache keeps its {} other unit(s)",
                        if a.filter.is_empty() {
                            "the interrupted run"
                        } else {
                            "--filter"
                        },
                        peaks.len(),
                        kept.len()
                    );
                }
                cached.extend(kept);
            }
        }
    }
    crate::peaks::write_csv(&cached, &cache)?;
    Ok(cache)
}

/// Each unit's own sub-unit counters (issue 39, crate::peaks::verify), for a calibration
/// counted by CUPTI: the best variant of every unit that has such counters runs once more
/// into `OUT/own/`, each counted only in the passes that hold its unit's metrics (a pass costs
/// a sampler renewal and a batch: counting every variant so took the H200's peak run past
/// 6 minutes). That run checks each variant and counts it, its counter batch sized from the
/// time and clock the calibration's `rows` measured, and times no rounds of it (issue 42: on
/// an H200 timing them again took 46 s of the 99 s it took). None where there is nothing to
/// count.
fn own_counts(
    a: &crate::cli::PeakArgs,
    out: &std::path::Path,
    peaks: &[crate::peaks::Peak],
    rows: &[crate::results::ResultRow],
) -> anyhow::Result<Option<crate::peaks::verify::OwnCounts>> {
    use crate::peaks::verify;
    let best: Vec<&crate::peaks::Peak> = peaks
        .iter()
        .filter(|p| p.value.is_some() && !verify::own_counters(&p.unit).is_empty())
        .collect();
    if best.is_empty() {
        return Ok(None);
    }
    let dir = calibration_dir(a)?;
    let own_out = out.join("own");
    let mut plan = calibration_plan(a, own_out.clone(), dir).map_err(UserError::from)?;
    let names: Vec<String> = best.iter().map(|p| p.best_variant.clone()).collect();
    plan.what.filter = Filter::new(&names).map_err(UserError::from)?;
    // Every unit's list (a pass no variant here wants is skipped for each of them).
    plan.how.hw.nv_own = verify::all_own_counters();
    plan.how.hw.nv_own_for = Some(verify::own_counters_of_variant);
    plan.how.hw.timed_before = rows
        .iter()
        .filter(|r| r.status == crate::results::RowStatus::Ok && names.contains(&r.variant))
        .filter_map(|r| {
            let t = crate::measure::options::TimedBefore {
                median_ns: r.median_ns.filter(|m| m.is_finite() && *m > 0.0)?,
                clock_mhz: r.clock_mhz,
            };
            Some((crate::results::RowKey::of(r), t))
        })
        .collect();
    tracing::info!(
        "counting the own sub-units of {} unit(s) on their best variants into {}",
        best.len(),
        own_out.display()
    );
    let super::RunOutcome { out: own_out, .. } = super::run(plan)?;
    Ok(Some(verify::OwnCounts::read(&own_out.join("metrics.csv"))?))
}

/// `p3lab peak --list`: each calibration scenario with its variants (the names `--filter`
/// takes, at the sizes `--profile` picks) and the unit each measures (issue 29: the names
/// were only in the source tree).
fn list_calibrations(a: &crate::cli::PeakArgs) -> anyhow::Result<i32> {
    let dir = calibration_dir(a)?;
    let profile = match a.profile.as_str() {
        "auto" => "full",
        p => p,
    };
    let scs = load_all(&[dir], &a.set, Some(profile))?;
    let filter = Filter::new(&a.filter).map_err(UserError::from)?;
    let filter = filter.set();
    for sc in &scs {
        let mut lines: Vec<String> = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for case in &sc.cases {
            for v in &case.variants {
                if seen.contains(&v.name.as_str()) {
                    continue;
                }
                let full = format!("{}/{}", sc.name, v.name);
                if let Some(f) = &filter {
                    if !f.is_match(&v.name) && !f.is_match(&full) {
                        continue;
                    }
                }
                seen.push(&v.name);
                let unit = crate::peaks::unit_of_variant(&v.name)
                    .map(|u| format!("{:<21} {}", u.name, u.description))
                    .unwrap_or_else(|| "(the L2 capacity knee)".into());
                lines.push(format!("  {:<30} {unit}", v.name));
            }
        }
        if !lines.is_empty() {
            println!("{} ({}): {}", sc.name, sc.path.display(), sc.description);
            for l in lines {
                println!("{l}");
            }
        }
    }
    Ok(exit::OK)
}

/// The table `p3lab peak` prints: each unit's peak, its status and best variant.
/// `counted`: the calibration was counted by CUPTI, so a unit with own counters but no counted
/// figure says that this chip has no counter of it.
fn print_peaks(peaks: &[crate::peaks::Peak], counted: bool) {
    println!(
        "{:<22} {:>14}  {:<15} {:<8} best variant",
        "unit", "peak", "", "status"
    );
    for p in peaks {
        let value = p.value.map_or_else(
            || "-".to_string(),
            |v| {
                if p.value_unit == "bytes" {
                    format!("{:.1} MB", v / 1e6)
                } else {
                    // Four significant digits at any magnitude (launch rates are a few G/s).
                    crate::results::format::sig(v)
                }
            },
        );
        let unit = if p.value_unit == "bytes" {
            ""
        } else {
            p.value_unit.as_str()
        };
        // The unit's own counter while the best variant ran (issue 39), where counted.
        let note = match p.counted_pct {
            Some(c) => format!(
                "  (counted: {} {} % of its peak)",
                crate::peaks::verify::short_name(&p.counted_metric),
                crate::results::units::pct_text(c)
            ),
            None if counted && !crate::peaks::verify::own_counters(&p.unit).is_empty() => {
                "  (not counted: no counter of this unit on this chip)".to_string()
            }
            None => String::new(),
        };
        println!(
            "{:<22} {:>14}  {:<15} {:<8} {}{note}",
            p.unit,
            value,
            unit,
            // Through a String: the status's Display ignores the width.
            p.status.to_string(),
            p.best_variant
        );
        if !p.reason.is_empty() {
            println!("{:<22} {}", "", p.reason);
        }
    }
}

/// The calibration scenarios' folder: `--peaks-dir`, `$P3LAB_PEAKS_DIR`, else the built-in ones.
fn calibration_dir(a: &crate::cli::PeakArgs) -> anyhow::Result<PathBuf> {
    let dir = crate::assets::peaks_dir(a.peaks_dir.as_deref())?;
    if !dir.is_dir() {
        return Err(UserError::Flag(format!(
            "--peaks-dir / P3LAB_PEAKS_DIR: `{}` is not a folder",
            dir.display()
        ))
        .into());
    }
    Ok(dir)
}
