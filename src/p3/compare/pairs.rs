//! Matching rows of two runs (or two variants of one run) into pairs and judging each: the
//! time by the rounds' design (paired or Welch) or by repetitions for older runs, then every
//! metric side by side.
use super::placements::*;
use super::*;
use crate::results::RowStatus;

/// Compare `new` against `base`. Rows match by (scenario, variant, params, mode), or by
/// `opts.pairs` (variant BASE of `base` against variant NEW of `new`, same scenario, params
/// and mode). Output order follows `base`'s results.csv. Deterministic for fixed options.
pub fn compare(base: &RunData, new: &RunData, opts: &CompareOptions) -> Comparison {
    let mut cmp = Comparison {
        noise_pct: opts.noise_pct,
        ..Comparison::default()
    };
    for (label, run) in [("base", base), ("new", new)] {
        for note in &run.notes {
            cmp.warnings.push(format!("{label}: {note}"));
        }
    }
    let new_index: HashMap<RowKey, &Record> = {
        let mut m = HashMap::new();
        for r in &new.results {
            m.entry(r.key()).or_insert(r);
        }
        m
    };
    for run in [base, new] {
        let mut seen = HashMap::new();
        for r in &run.results {
            if seen.insert(r.key(), r.line).is_some() {
                cmp.warnings.push(format!(
                    "{}:{}: {} appears more than once; the first row is used",
                    run.dir.join("results.csv").display(),
                    r.line,
                    r.key()
                ));
            }
        }
    }

    if opts.pairs.is_empty() {
        let mut matched = HashMap::new();
        let mut seen_base: HashMap<RowKey, ()> = HashMap::new();
        for b in &base.results {
            let key = b.key();
            if seen_base.insert(key.clone(), ()).is_some() {
                continue;
            }
            match new_index.get(&key) {
                Some(n) => {
                    matched.insert(key.clone(), ());
                    let row = compare_rows(base, b, new, n, opts, &mut cmp);
                    cmp.rows.push(row);
                }
                None => cmp.warnings.push(format!("{key}: only in base")),
            }
        }
        let mut reported = HashMap::new();
        for n in &new.results {
            let key = n.key();
            if !matched.contains_key(&key) && reported.insert(key.clone(), ()).is_none() {
                cmp.warnings.push(format!("{key}: only in new"));
            }
        }
    } else {
        for spec in &opts.pairs {
            let (vb, vn) = (&spec.base, &spec.new);
            let before = cmp.rows.len();
            let mut done: HashMap<RowKey, ()> = HashMap::new();
            let in_scope = |r: &&Record| {
                r.get("variant") == vb
                    && spec
                        .scenario
                        .as_ref()
                        .is_none_or(|s| r.get("scenario") == s)
            };
            for b in base.results.iter().filter(in_scope) {
                let key = b.key();
                if done.insert(key.clone(), ()).is_some() {
                    continue; // a duplicate row, already warned about
                }
                let nkey = RowKey {
                    variant: vn.clone(),
                    ..key.clone()
                };
                match new_index.get(&nkey) {
                    Some(n) => {
                        let row = compare_rows(base, b, new, n, opts, &mut cmp);
                        cmp.rows.push(row);
                    }
                    None => cmp.warnings.push(format!(
                        "pair {vb}={vn}: {key} has no `{vn}` counterpart in new"
                    )),
                }
            }
            if cmp.rows.len() == before {
                cmp.warnings.push(format!(
                    "pair {vb}={vn}: no scenario/params/mode has both variants"
                ));
            }
        }
    }

    for p in &cmp.rows {
        if matches!(p.verdict, Verdict::NotComparable(_)) || p.method != Some(Method::Repetitions) {
            continue;
        }
        if p.n_base < MIN_SAMPLES || p.n_new < MIN_SAMPLES {
            cmp.warnings.push(format!(
                "{}: {} vs {} repetitions; fewer than {MIN_SAMPLES} makes the CI unreliable",
                pair_label(p),
                p.n_base,
                p.n_new
            ));
        }
    }
    let placed = cmp.rows.iter().filter(|r| !r.placement.is_empty()).count();
    if placed > 0 {
        cmp.warnings.push(format!(
            "{placed} pair(s) marked [placement]: a side's time, or the ratio, moved when the case's buffers and images moved to new memory (the placement check); the verdict holds for where the data sat during the rounds"
        ));
    }
    let designs: std::collections::BTreeSet<(String, String)> = cmp
        .rows
        .iter()
        .filter(|r| r.design_differs())
        .map(|r| (r.fresh_base.clone(), r.fresh_new.clone()))
        .collect();
    if !designs.is_empty() {
        let n = cmp.rows.iter().filter(|r| r.design_differs()).count();
        let which: Vec<String> = designs
            .iter()
            .map(|(b, n)| format!("base `fresh = {b}`, new `fresh = {n}`"))
            .collect();
        cmp.warnings.push(format!(
            "{n} pair(s) marked [design]: the runs were measured differently ({}): with `resources` the rounds span placements, without it they sit in one, so part of a change can be where the data sat",
            which.join("; ")
        ));
    }
    let marked = cmp.rows.iter().filter(|r| r.cross_device).count();
    if marked > 0 {
        let which: Vec<String> = cmp
            .cross_device
            .iter()
            .map(|(b, n)| format!("base ran on {b}, new on {n}"))
            .collect();
        cmp.warnings.push(format!(
            "{marked} pair(s) marked [cross-device]: {}",
            which.join("; ")
        ));
    }
    cmp
}

/// Both rows come from one run (same non-empty `run_id`): their rounds were shared.
/// A row's limiter as compare shows it: `dram 92 %`, `latency`, or empty.
/// A counted limiter carries `(hw)`, as in the summary and the report (issue 39).
pub(super) fn limiter_of(r: &Record) -> String {
    // `none` is no verdict (no peaks, no declared work): shown as none at all, so that
    // "Limiter: none → none" does not read like one (issue 40).
    // The views' one wording (crate::results::units::limiter_text): never a figure over 100.
    crate::results::units::limiter_text(
        r.get("limiter"),
        r.num("limiter_pct"),
        r.get("limiter_source") == "counted",
    )
    .unwrap_or_default()
}

pub(super) fn same_run(b: &Record, n: &Record) -> bool {
    let id = b.get("run_id");
    !id.is_empty() && id == n.get("run_id")
}

pub(super) fn pair_label(p: &PairRow) -> String {
    let variants = if p.variant_base == p.variant_new {
        p.variant_base.clone()
    } else {
        format!("{} -> {}", p.variant_base, p.variant_new)
    };
    let mut s = format!("{}/{variants}", p.scenario);
    if !p.params.is_empty() {
        let _ = write!(s, " [{}]", p.params);
    }
    let _ = write!(s, " ({})", p.mode);
    s
}

/// FNV-1a: a hash that is the same on every platform and Rust version, so seeds derived from
/// keys (and therefore CIs) are byte-stable.
pub(super) fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

pub(super) fn compare_rows(
    base: &RunData,
    b: &Record,
    new: &RunData,
    n: &Record,
    opts: &CompareOptions,
    cmp: &mut Comparison,
) -> PairRow {
    let (kb, kn) = (b.key(), n.key());
    let tb = base.repetition_times(&kb);
    let tn = new.repetition_times(&kn);
    let rb = base.round_medians(&kb);
    let rn = new.round_medians(&kn);
    let (pb, pn) = (base.round_placements(&kb), new.round_placements(&kn));
    let (gb, gn) = (by_placement(&rb, &pb), by_placement(&rn, &pn));
    // Placements as the outer level: either side measured in several.
    let multi = gb.len() >= 2 || gn.len() >= 2;
    let same_run = same_run(b, n);
    // Rounds when both sides have at least two kept ones (one gives no spread); otherwise
    // the repetitions, as for runs written before rounds.
    let rounds = rb.len() >= 2 && rn.len() >= 2;
    if !rounds && (rb.len() == 1 || rn.len() == 1) {
        cmp.warnings.push(format!(
            "{kb}: {} vs {} kept rounds; the CI falls back to repetitions, which is too narrow",
            rb.len(),
            rn.len()
        ));
    }
    let median_of =
        |t: &[f64], rounds_of: &[(u32, f64)], g: &BTreeMap<u32, Vec<(u32, f64)>>, r: &Record| {
            if rounds && g.len() >= 2 {
                // The estimate results.csv reports: the mean of the placements' means.
                let means = placement_means(g);
                Some(means.iter().sum::<f64>() / means.len() as f64)
            } else if rounds {
                // The estimate results.csv reports: the mean of the kept round medians.
                Some(rounds_of.iter().map(|(_, m)| m).sum::<f64>() / rounds_of.len() as f64)
            } else if t.is_empty() || !rounds_of.is_empty() || !r.get("rounds").is_empty() {
                // Timed in rounds but not comparable by them (one side failed, or one kept
                // round): the same time results.csv and the summary give, not the median of
                // every repetition (issue 29: 6.163 ms on one line, 6.520 ms on another).
                r.num("median_ns").or_else(|| {
                    let mut s = t.to_vec();
                    s.sort_by(f64::total_cmp);
                    (!s.is_empty()).then(|| median(&s))
                })
            } else {
                let mut s = t.to_vec();
                s.sort_by(f64::total_cmp);
                Some(median(&s))
            }
        };
    let (mb, mn) = (median_of(&tb, &rb, &gb, b), median_of(&tn, &rn, &gn, n));

    let (db, dn) = (DeviceId::of(b), DeviceId::of(n));
    let cross_device = !same_run && !db.same_as(&dn);
    if !same_run && !cross_device && !db.same_card(&dn) {
        let note = format!(
            "base and new ran on two cards of one model and driver ({} and uuid {}): compared as one device; what differs between the cards (clocks, memory, cooling) is part of each ratio, and each interval carries a card-level SD for it",
            db.describe(),
            dn.uuid
        );
        if !cmp.warnings.contains(&note) {
            cmp.warnings.push(note);
        }
    }
    if cross_device {
        let pair = (db.describe(), dn.describe());
        if !cmp.cross_device.contains(&pair) {
            cmp.cross_device.push(pair);
        }
    }

    let mut row = PairRow {
        scenario: kb.scenario.clone(),
        variant_base: kb.variant.clone(),
        variant_new: kn.variant.clone(),
        params: kb.params.clone(),
        mode: kb.mode.clone(),
        status_base: b.status().to_string(),
        status_new: n.status().to_string(),
        n_base: if rounds { rb.len() } else { tb.len() },
        n_new: if rounds { rn.len() } else { tn.len() },
        median_base_ns: mb,
        median_new_ns: mn,
        change_pct: None,
        speedup: None,
        ratio_ci: None,
        p_value: None,
        method: None,
        n: None,
        cross_device,
        same_run,
        ratio_moved: None,
        placement: String::new(),
        fresh_base: b.get("fresh").to_string(),
        fresh_new: n.get("fresh").to_string(),
        unsteady: String::new(),
        verdict: Verdict::NoChange,
        limiter_base: limiter_of(b),
        limiter_new: limiter_of(n),
        units_base: crate::results::unit_pcts(|c| b.num(c), b.get("declared_over_units")),
        units_new: crate::results::unit_pcts(|c| n.num(c), n.get("declared_over_units")),
        metrics: Vec::new(),
    };

    let mut reasons = Vec::new();
    // Two runs whose first placements alone would have read a change the interval over
    // placements does not (see below): said in `placement`, not in the verdict.
    let mut narrow_note: Option<String> = None;
    let mut steadiness = super::steady::Steadiness::default();
    for (side, r) in [("base", b), ("new", n)] {
        if r.status() != RowStatus::Ok {
            let why = r.get("reason");
            reasons.push(if why.is_empty() {
                format!("{side} `{}` is {}", r.get("variant"), r.status())
            } else {
                format!("{side} `{}` is {}: {why}", r.get("variant"), r.status())
            });
        }
    }
    if reasons.is_empty() {
        if rounds {
            // Within one placement (the first: where both cases set their data up), as runs
            // measured in one placement are compared; with placements, over them too.
            let first = |r: &[(u32, f64)], g: &BTreeMap<u32, Vec<(u32, f64)>>| -> Vec<(u32, f64)> {
                if g.len() >= 2 {
                    g.get(&0).cloned().unwrap_or_default()
                } else {
                    r.to_vec()
                }
            };
            let (rb0, rn0) = (first(&rb, &gb), first(&rn, &gn));
            let (method, ratio) = rounds_ratio(&rb0, &rn0, same_run);
            let (method, ratio, narrow) = if multi {
                let wide = if same_run {
                    paired_over_placements(&rb, &pb, &rn)
                } else {
                    let level = |r: &[(u32, f64)], g: &BTreeMap<u32, Vec<(u32, f64)>>| {
                        if g.len() >= 2 {
                            placement_means(g)
                        } else {
                            r.iter().map(|(_, m)| *m).collect()
                        }
                    };
                    unpaired_ratio(&level(&rb, &gb), &level(&rn, &gn))
                };
                match wide {
                    Some(w) => (Method::Placements, Some(w), ratio),
                    None => (method, ratio, None),
                }
            } else if !same_run {
                // Two runs, each in one placement of its own: each side's placement effect
                // (results.csv placement_sd_pct, pooled over its case from the placement
                // check) adds to the ratio's variance.
                let var = |r: &Record| {
                    r.num("placement_sd_pct")
                        .map_or(0.0, |p| (p / 100.0).powi(2))
                };
                let extra = var(b) + var(n);
                if extra > 0.0 {
                    (
                        method,
                        ratio.map(|ri| widen_for_placement(ri, extra)),
                        ratio,
                    )
                } else {
                    (method, ratio, None)
                }
            } else {
                (method, ratio, None)
            };
            row.method = Some(method);
            // The coarser of the two timers' steps (results.csv `timer_step_ns`; runs written
            // before it have none).
            let step = [b, n]
                .iter()
                .filter_map(|r| r.num("timer_step_ns"))
                .fold(0.0, f64::max);
            let ratio = ratio.map(|ri| match (mb, mn) {
                (Some(x), Some(y)) => widen_for_step(ri, x, y, step),
                _ => ri,
            });
            // Two runs whose batches ended at different SM clocks (results.csv `clock_mhz`,
            // the clock gauge): the interval also covers what the clock difference alone
            // gives a clock-bound kernel, whose time moves with the clock.
            let clocks = if same_run {
                None
            } else {
                b.num("clock_mhz").zip(n.num("clock_mhz"))
            };
            let by_clock = |ri: RatioInterval| match clocks {
                Some((cb, cn)) => widen_for_clock(ri, cb, cn),
                None => ri,
            };
            let ratio = ratio.map(by_clock);
            // Two runs are two processes, and each shifts the whole run (issue 41): the
            // interval carries the device's process SD, measured or conservative (process.rs).
            let process_sd = if same_run {
                None
            } else {
                let choice = super::process::process_sd_for(b, n, &opts.process_sds);
                super::process::note_once(cmp, choice.note);
                // Two cards of one model: each run also carries its card's shift (CARD_SD),
                // which no process calibration on one card measures.
                if db.same_card(&dn) {
                    choice.sd
                } else {
                    let card = crate::stats::inference::CARD_SD;
                    super::process::note_once(
                        cmp,
                        format!(
                            "two cards: each pair also carries a card-level SD of {:.1} % (two H200s of one model and driver differed by up to 2.55 % at the 99th percentile of a suite's rows: reports/nvidia-h200/s46)",
                            card * 100.0
                        ),
                    );
                    Some(choice.sd.unwrap_or(0.0).hypot(card))
                }
            };
            let by_process = |ri: RatioInterval| match process_sd {
                Some(sd) => crate::stats::inference::widen_for_process(ri, sd),
                None => ri,
            };
            let ratio = ratio.map(by_process);
            // A side that drifted or missed its CI target (steady.rs): widened here, and no
            // change claimed below.
            let steady = if same_run {
                Default::default()
            } else {
                super::steady::of(b, n)
            };
            let ratio = ratio.map(|ri| steady.widen(ri));
            steadiness = steady;
            match ratio {
                Some(RatioInterval {
                    ratio,
                    low,
                    high,
                    p,
                    n,
                }) => {
                    row.change_pct = Some((ratio - 1.0) * 100.0);
                    row.speedup = Some(1.0 / ratio);
                    row.ratio_ci = Some((low, high));
                    row.p_value = Some(p);
                    row.n = Some(n);
                    row.verdict = verdict_for_ci((low, high), opts.noise_pct);
                    // In one placement a change, across placements none: where the data
                    // sits decides it.
                    let within = narrow
                        .and_then(|ri| match (mb, mn) {
                            (Some(x), Some(y)) => {
                                Some(by_process(by_clock(widen_for_step(ri, x, y, step))))
                            }
                            _ => None,
                        })
                        .map(|ri| verdict_for_ci((ri.low, ri.high), opts.noise_pct));
                    if row.verdict == Verdict::NoChange {
                        if let Some(v @ (Verdict::Improved | Verdict::Regressed)) = within {
                            if same_run {
                                row.verdict = Verdict::PlacementDependent(Box::new(v));
                            } else {
                                // Two runs: each side's first placement is memory of its
                                // own process, so "in one placement" compares two placements,
                                // which is what the wider interval holds. No change; the note
                                // says what one placement each alone would have read.
                                narrow_note = Some(narrow_note_for(&v, narrow, multi));
                            }
                        }
                    }
                }
                None => reasons.push("the ratio is undefined (zero or missing times)".into()),
            }
        } else {
            if let (Some(x), Some(y)) = (mb, mn) {
                if x > 0.0 {
                    row.change_pct = Some((y - x) / x * 100.0);
                }
                if y > 0.0 {
                    row.speedup = Some(x / y);
                }
            }
            if tb.is_empty() || tn.is_empty() {
                let side = if tb.is_empty() { "base" } else { "new" };
                reasons.push(format!("no samples in {side}'s samples.csv"));
            } else {
                let seed = opts.seed
                    ^ fnv1a(&[&kb.scenario, &kb.variant, &kn.variant, &kb.params, &kb.mode]);
                row.method = Some(Method::Repetitions);
                row.n = Some(tb.len().min(tn.len()));
                row.ratio_ci = bootstrap_ratio_ci(&tb, &tn, seed, opts.resamples);
                row.p_value = mann_whitney_p(&tb, &tn);
                match row.ratio_ci {
                    Some(ci) => row.verdict = verdict_for_ci(ci, opts.noise_pct),
                    None => reasons.push("the ratio of medians is undefined (zero times)".into()),
                }
            }
        }
    }
    if !reasons.is_empty() {
        row.verdict = Verdict::NotComparable(reasons.join("; "));
    } else if rounds {
        let depends = placement_of_pair(&mut row, (base, b, &rb), (new, n, &rn), same_run, opts);
        if let Some(note) = narrow_note {
            if !row.placement.is_empty() {
                row.placement.push_str("; ");
            }
            row.placement.push_str(&note);
        }
        // Measured in one placement, with the placement check saying the comparison moves
        // with the data: the verdict holds only where the data sat.
        if depends && !multi {
            if let v @ (Verdict::Improved | Verdict::Regressed) = row.verdict.clone() {
                row.verdict = Verdict::PlacementDependent(Box::new(v));
            }
        }
        steadiness.mark(&mut row);
    }

    row.metrics.push(MetricPair {
        name: "time_ns".into(),
        unit: "ns".into(),
        before: mb,
        after: mn,
    });
    let multi_pass =
        b.num("dispatches").unwrap_or(1.0) > 1.0 || n.num("dispatches").unwrap_or(1.0) > 1.0;
    for (col, unit) in &result_metrics() {
        if !b.fields.contains_key(*col) && !n.fields.contains_key(*col) {
            continue;
        }
        // For single-pass rows `median_ns` equals `time_ns`; show it only where it differs.
        // With rounds `time_ns` is results.csv's estimate itself.
        if *col == "median_ns" && (rounds || !multi_pass) && !tb.is_empty() && !tn.is_empty() {
            continue;
        }
        let (x, y) = (b.num(col), n.num(col));
        if x.is_none() && y.is_none() {
            continue;
        }
        row.metrics.push(MetricPair {
            name: (*col).into(),
            unit: (*unit).into(),
            before: x,
            after: y,
        });
    }
    let after: Vec<&MetricRecord> = new.metrics_of(&kn).collect();
    let mut shown = HashMap::new();
    for m in base.metrics_of(&kb) {
        let name = format!("{}/{}", m.source, m.name);
        if shown.contains_key(&name) {
            continue;
        }
        if let Some(a) = after
            .iter()
            .find(|a| a.source == m.source && a.name == m.name)
        {
            shown.insert(name.clone(), ());
            row.metrics.push(MetricPair {
                name,
                unit: m.unit.clone(),
                before: Some(m.value),
                after: Some(a.value),
            });
        }
    }
    row
}

/// `ri` widened to also cover the ratio with the clock difference taken out: base ran at
/// `cb`, new at `cn` MHz, so a clock-bound kernel's new time is `cb / cn` of base's from the
/// clocks alone, and its ratio at equal clocks would be `ratio × cn / cb`. A memory-bound
/// kernel's time does not follow the SM clock, so the interval covers both readings: it is
/// widened on that one side only, and the ratio itself stays. Equal clocks leave it as it is.
pub(super) fn widen_for_clock(ri: RatioInterval, cb: f64, cn: f64) -> RatioInterval {
    if !(cb > 0.0 && cn > 0.0) {
        return ri;
    }
    let k = cn / cb;
    RatioInterval {
        low: ri.low.min(ri.low * k),
        high: ri.high.max(ri.high * k),
        ..ri
    }
}
