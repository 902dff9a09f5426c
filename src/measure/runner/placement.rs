//! The placement check, after a mode's rounds: the case's resources move to new memory and
//! every variant that was timed runs one more batch there, in a shuffled order. The rounds
//! themselves all use one placement (as a fresh process would); this round tells whether a
//! variant's time depends on where its data sits (results.csv `placement_pct`).
//!
//! Why: on an H200, the same scenario run as three copies in one process disagreed as much as
//! two processes did, and moving only the resources (not the pipelines) between rounds
//! accounted for it (reports/nvidia-h200/copies). Some variants change by a few tenths of a
//! per cent; a few by 5-17 % (bank_conflicts float-pad1 82.4 µs in one placement, 96.7 µs in
//! the next).
use super::*;
use crate::measure::instance;

impl Runner<'_> {
    /// One batch of every variant timed in mode `mi`, after moving the case's resources.
    /// A failure to move them (out of memory) skips the check with a warning.
    #[allow(
        clippy::too_many_arguments,
        reason = "a runner phase: one call site, the case's slots, plan and state passed through"
    )]
    pub(super) fn placement_round(
        &mut self,
        (sc, case, plan): (&Scenario, &Case, &CasePlan),
        slots: &mut [Slot],
        gpu: &mut CaseGpu,
        (mi, mode): (usize, Mode),
        round: u32,
        record: &mut RoundsRecord,
    ) -> anyhow::Result<()> {
        let s = plan.settings;
        let timed: Vec<usize> = (0..slots.len())
            .filter(|&i| slots[i].timed() && !slots[i].tracks[mi].kept().is_empty())
            .collect();
        if timed.is_empty() {
            return Ok(());
        }
        let t = Instant::now();
        let moved = instance::relocate_case(&self.ctx, case, gpu);
        record.relocate_ms += t.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = moved {
            tracing::warn!(
                "{} [{}]: the placement check could not move the resources: {e:#}",
                sc.name,
                case.params_label
            );
            return Ok(());
        }
        record.relocations += 1;
        let evict = match mode {
            Mode::Warm => None,
            Mode::Cold => {
                let got = self
                    .evict
                    .get(&self.ctx, self.compiler, case.cold_bytes, case.evict);
                match got {
                    Ok(e) => Some(e),
                    Err(e) => {
                        tracing::warn!("{}: no placement check in cold mode: {e:#}", sc.name);
                        return Ok(());
                    }
                }
            }
        };
        let case_key = format!("{}/{}", sc.name, case.params_label);
        let order = schedule::round_order(s.seed, &case_key, mode.label(), round, timed.len());
        record.placement_order = order
            .iter()
            .map(|&k| slots[timed[k]].v.name.clone())
            .collect();
        let mut list: Vec<usize> = order.iter().map(|&k| timed[k]).collect();
        // A second round, in the same placement, only for the variants whose first one fell
        // outside: a single slow or fast batch is not taken for a placement effect.
        for pass in 0..2 {
            for (pos, &i) in list.iter().enumerate() {
                if slots[i].failure.is_some() {
                    continue;
                }
                self.progress.set_message(format!(
                    "{} / {} (placement check)",
                    sc.name, slots[i].v.name
                ));
                match self.time_batch(&s, &mut slots[i], mi, gpu, evict.as_ref()) {
                    Ok(b) => slots[i].tracks[mi].push_moved(round + pass, pos as u32, b),
                    Err(e) => {
                        self.fail_on_device(sc, case, plan, slots, gpu, i, e)?;
                        return Ok(());
                    }
                }
                if interrupted() {
                    return Ok(());
                }
            }
            list.retain(|&i| {
                slots[i].failure.is_none() && slots[i].tracks[mi].placement_moved() == Some(true)
            });
            if list.is_empty() {
                break;
            }
        }
        Ok(())
    }
}
