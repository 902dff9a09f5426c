//! Rows in, a [`Summary`] out: cases in the order their rows appear, variants in the
//! scenario's order, each variant's ratio to the baseline, limiter and units, the fastest
//! only where the intervals say so, and the rows that missed their CI target.
use super::*;

/// Build the summary: cases in the order their rows first appear, variants in the scenario's
/// order (then the file's).
pub fn summarize(rows: &[ResultRow], layout: &Layout) -> Summary {
    let mut counts = BTreeMap::new();
    for r in rows {
        *counts.entry(r.status.as_str().to_string()).or_insert(0) += 1;
    }
    let mode_of = |r: &ResultRow| r.mode.unwrap_or(Mode::Warm).label().to_string();
    let device_of = |r: &ResultRow| (r.device_name.clone(), r.host.clone());
    let mut devices: Vec<(String, String)> = rows.iter().map(device_of).collect();
    devices.sort();
    devices.dedup();
    let hosts = devices
        .iter()
        .map(|d| &d.1)
        .collect::<std::collections::BTreeSet<_>>();
    let label = |d: &(String, String)| -> Option<String> {
        (devices.len() > 1).then(|| {
            if hosts.len() > 1 {
                format!("{} on {}", d.0, d.1)
            } else {
                d.0.clone()
            }
        })
    };
    // Cases in order of first appearance.
    let mut keys: Vec<((String, String), String, String)> = Vec::new();
    for r in rows {
        let k = (device_of(r), r.scenario.clone(), r.params.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let mut cases = Vec::new();
    for (dev, scenario, params) in keys {
        let mut of_case: Vec<&ResultRow> = rows
            .iter()
            .filter(|r| device_of(r) == dev && r.scenario == scenario && r.params == params)
            .collect();
        let case_layout = layout.get(&scenario, &params);
        let order = |v: &str| {
            case_layout
                .and_then(|c| c.variants.iter().position(|x| x == v))
                .unwrap_or(usize::MAX)
        };
        // Stable: variants the scenario does not list keep the file's order.
        of_case.sort_by_key(|r| order(&r.variant));
        let baseline = case_layout
            .and_then(|c| c.baseline.clone())
            .or_else(|| {
                of_case
                    .iter()
                    .find(|r| r.check == Some(Check::Baseline))
                    .map(|r| r.variant.clone())
            })
            .or_else(|| of_case.first().map(|r| r.variant.clone()));
        let mut modes: Vec<String> = Vec::new();
        for r in &of_case {
            if !modes.contains(&mode_of(r)) {
                modes.push(mode_of(r));
            }
        }
        let modes = modes
            .iter()
            .map(|m| {
                let in_mode: Vec<&&ResultRow> =
                    of_case.iter().filter(|r| &mode_of(r) == m).collect();
                mode_summary(m, &in_mode, baseline.as_deref())
            })
            .collect();
        let mut not_run: Vec<NotRun> = Vec::new();
        for r in of_case.iter().filter(|r| r.status != RowStatus::Ok) {
            // A compile error is one line for every variant it affects, without their
            // defines (issue 41: it had printed once per variant).
            let reason = match r.status {
                RowStatus::CompileError => crate::results::split_defines(&r.reason).0,
                _ => r.reason.as_str(),
            };
            match not_run
                .iter_mut()
                .find(|n| n.status == r.status.as_str() && n.reason == reason)
            {
                Some(n) => {
                    if !n.variants.contains(&r.variant) {
                        n.variants.push(r.variant.clone());
                    }
                }
                None => not_run.push(NotRun {
                    status: r.status.as_str().to_string(),
                    reason: reason.to_string(),
                    variants: vec![r.variant.clone()],
                }),
            }
        }
        cases.push(CaseSummary {
            scenario,
            params,
            device: label(&dev),
            modes,
            not_run,
        });
    }
    let timed_rows: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.status == RowStatus::Ok && r.median_ns.is_some())
        .collect();
    let mut missed_target = BTreeMap::new();
    let mut targets: Vec<f64> = Vec::new();
    for r in &timed_rows {
        if let Some((_, target, why)) = missed(r) {
            *missed_target.entry(why).or_insert(0) += 1;
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
    }
    Summary {
        rows: counts,
        missed_target,
        ci_target_pct: match targets.as_slice() {
            [one] => Some(*one),
            _ => None,
        },
        timed: timed_rows.len(),
        with_limiter: timed_rows
            .iter()
            .filter(|r| limiter_text(r).is_some())
            .count(),
        cases,
    }
}

/// The row's CI half-width and target (%) with its stop reason, when it stopped on its budget
/// or its round cap with the CI still wider than the target.
fn missed(r: &ResultRow) -> Option<(f64, f64, String)> {
    let why = match r.stop_reason? {
        StopReason::Budget | StopReason::MaxRounds => r.stop_reason?.as_str().to_string(),
        StopReason::Target | StopReason::Resolution | StopReason::TimedBefore => return None,
    };
    match (r.ci_half_width_pct, r.ci_target_pct) {
        (Some(h), Some(t)) if h > t => Some((h, t, why)),
        _ => None,
    }
}

/// `dram 89 %`, `l1tex 82 % (hw)` (the counters said it), `latency`; None without a verdict.
fn limiter_text(r: &ResultRow) -> Option<String> {
    let l = r.limiter.as_ref()?.to_string();
    let counted = r.limiter_source == Some(crate::results::LimiterSource::Counted);
    crate::results::units::limiter_text(&l, r.limiter_pct, counted)
}

/// The row's unit percentages (src/results/units.rs) from its typed fields.
fn units_of(r: &ResultRow) -> Vec<(String, f64)> {
    let rec = crate::results::Record::from_row(r.clone());
    crate::results::unit_pcts(|c| rec.num(c), &r.declared_over_units)
}

fn mode_summary(mode: &str, rows: &[&&ResultRow], baseline: Option<&str>) -> ModeSummary {
    let mut timed: Vec<Timed> = rows
        .iter()
        .filter(|r| r.status == RowStatus::Ok)
        .filter_map(|r| {
            Some(Timed {
                variant: r.variant.clone(),
                median_ns: r.median_ns?,
                median_ci_low_ns: r.median_ci_low_ns,
                median_ci_high_ns: r.median_ci_high_ns,
                vs_baseline: None,
                baseline: false,
                fastest: false,
                missed: missed(r),
                limiter: limiter_text(r),
                units: units_of(r),
                placement_pct: (r.placement == Some(Placement::Sensitive))
                    .then_some(r.placement_pct)
                    .flatten(),
            })
        })
        .collect();
    let mut note = None;
    let base_idx = match baseline.and_then(|b| timed.iter().position(|t| t.variant == b)) {
        Some(i) => Some(i),
        None if timed.is_empty() => None,
        None => {
            let why = match baseline.and_then(|b| rows.iter().find(|r| r.variant == b)) {
                Some(r) => format!("the baseline `{}` is {}", r.variant, r.status),
                None => match baseline {
                    Some(b) => format!("the baseline `{b}` has no row in this run"),
                    None => "no baseline".into(),
                },
            };
            note = Some(format!("{why}; ratios against `{}`", timed[0].variant));
            Some(0)
        }
    };
    if let Some(b) = base_idx {
        let base = timed[b].clone();
        for (i, t) in timed.iter_mut().enumerate() {
            t.baseline = i == b;
            t.vs_baseline = if i == b {
                Some(Ratio {
                    ratio: 1.0,
                    ci_low: None,
                    ci_high: None,
                })
            } else {
                ratio_to(&base, t)
            };
        }
    }
    let lowest = (timed.len() >= 2)
        .then(|| {
            timed
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.median_ns.total_cmp(&b.1.median_ns))
                .map(|(i, _)| i)
        })
        .flatten();
    let mut unclear = None;
    let mut fastest = None;
    if let Some(f) = lowest {
        let overlaps = overlapping(&timed, f);
        let missed = timed[f].missed.clone();
        if overlaps.is_empty() && missed.is_none() {
            timed[f].fastest = true;
            fastest = Some(timed[f].variant.clone());
        } else {
            unclear = Some(Unclear {
                lowest: timed[f].variant.clone(),
                overlaps,
                missed,
            });
        }
    }
    ModeSummary {
        mode: mode.into(),
        baseline: base_idx.map(|i| timed[i].variant.clone()),
        note,
        fastest,
        unclear,
        variants: timed,
    }
}

/// The variants whose median CI overlaps variant `f`'s (a row without a CI overlaps every
/// other: nothing bounds it).
fn overlapping(timed: &[Timed], f: usize) -> Vec<String> {
    let ci = |t: &Timed| match (t.median_ci_low_ns, t.median_ci_high_ns) {
        (Some(lo), Some(hi)) if lo > 0.0 && hi >= lo => Some((lo, hi)),
        _ => None,
    };
    let mine = ci(&timed[f]);
    timed
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != f)
        .filter(|(_, t)| match (mine, ci(t)) {
            (Some((_, hi)), Some((lo, _))) => lo <= hi,
            _ => true,
        })
        .map(|(_, t)| t.variant.clone())
        .collect()
}
