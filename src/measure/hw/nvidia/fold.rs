//! A pass's picked samples turned into each job's counted values: means and totals over its
//! window (window.rs `combine`), cold mode's eviction taken out (batch.rs
//! `subtract_evictions`), the columns filled and the metrics kept.
use super::*;

impl CuptiBackend {
    /// Fold pass `p`'s `picked` samples into each job's `acc` (`evict`: cold mode, with an
    /// eviction-only batch to subtract); a job with no sample inside its window fails on the
    /// first pass and carries a note on a later one.
    pub(super) fn fold(
        &self,
        p: usize,
        picked: &Picked,
        windows: &[Option<Span>],
        evict: bool,
        acc: &mut [Acc],
    ) {
        let Picked {
            in_window,
            picked,
            picked_evict,
            decoded,
            overflow,
        } = picked;
        let pass = &self.passes[p];
        for (j, a) in acc.iter_mut().enumerate() {
            if a.error.is_some() {
                continue;
            }
            let (spans, vals) = &picked[j];
            if spans.is_empty() {
                let why = format!(
                    "no PM sample fell wholly inside the counter batch ({:.2} ms; {decoded} samples decoded, every {} µs)",
                    a.window_ns / 1e6,
                    self.interval_ns / 1000
                );
                if p == 0 {
                    a.error = Some(why);
                } else {
                    a.notes
                        .push(format!("pass {} (--counters metrics): {why}", p + 1));
                }
                continue;
            }
            let order: Vec<usize> = (0..in_window[j].len()).collect();
            let mut lost = lost_between(&in_window[j], &order, self.interval_ns);
            if *overflow && lost == 0 {
                lost = 1;
            }
            a.lost += lost;
            a.samples += spans.len() as u32;
            if p == 0 {
                a.series = windows[j].map(|window| Series {
                    names: pass.names.clone(),
                    window,
                    spans: spans.clone(),
                    values: vals.clone(),
                });
            }
            let mut combined = combine(&pass.names, spans, vals, a.window_ns, a.reps);
            if evict {
                let (es, ev) = &picked_evict[j];
                let evicted = if es.is_empty() {
                    Err(format!(
                        "no PM sample fell wholly inside the eviction-only batch ({:.2} ms), so the eviction could not be taken out",
                        a.evict_window_ns / 1e6
                    ))
                } else {
                    // Per eviction: `.sum` counters per repetition of that batch.
                    let e = combine(&pass.names, es, ev, a.evict_window_ns, a.evict_reps);
                    let each = a.evict_window_ns / f64::from(a.evict_reps.max(1));
                    subtract_evictions(&pass.names, &combined, &e, a.window_ns, each, a.reps)
                };
                match evicted {
                    Ok(kernel) => {
                        combined = kernel;
                        if p == 0 {
                            let n = f64::from(a.reps.max(1));
                            let each = a.evict_window_ns / f64::from(a.evict_reps.max(1));
                            let share = 1.0 - each * (n - 1.0) / a.window_ns.max(1.0);
                            a.evict_removed = Some(format!(
                                "the L2 eviction was counted apart (an eviction-only batch of {} evictions, {:.1} µs each) and taken out of the counted values in busy time and bytes; the kernel had {:.0} % of the cold batch's time",
                                a.evict_reps,
                                each / 1e3,
                                100.0 * share
                            ));
                        }
                    }
                    Err(why) => {
                        if p == 0 {
                            a.notes.push(format!("cold mode: {why}"));
                        }
                    }
                }
            }
            for (name, v) in pass.names.iter().zip(combined) {
                if !v.is_finite() {
                    continue;
                }
                a.metrics.push((name.clone(), v, nv_unit(name).to_string()));
                if let Some((_, col)) = self.columns.iter().find(|(n, _)| n == name) {
                    let v = if *col == Col::SmClock { v / 1e6 } else { v };
                    a.values.set(*col, v);
                }
            }
        }
    }
}
