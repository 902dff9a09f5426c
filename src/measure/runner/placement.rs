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
use crate::output::run_json::PlacementRecord;
use crate::scenario::Placements;

impl Runner<'_> {
    /// Move the case's resources to placement `index` (its recipe from the run's seed, the
    /// case and the mode) and record it. False, with a warning, when they could not be moved.
    fn move_to(
        &mut self,
        (sc, case, plan): (&Scenario, &Case, &CasePlan),
        gpu: &mut CaseGpu,
        mode: Mode,
        index: u32,
        record: &mut RoundsRecord,
    ) -> bool {
        let key = format!("{}/{}/{}", sc.name, case.params_label, mode.label());
        let mut recipe =
            instance::Recipe::of(plan.settings.seed, &key, index, case.resources.len());
        // Earlier placements' memory stays taken (up to a quarter of the device's memory), so
        // each placement gets memory the driver has not just handed back.
        recipe.hold_limit = self.ctx.info.device_local_bytes / instance::HOLD_DIVISOR;
        let t = Instant::now();
        let moved = instance::relocate_case(&self.ctx, case, gpu, &recipe);
        record.relocate_ms += t.elapsed().as_secs_f64() * 1e3;
        if let Err(e) = moved {
            tracing::warn!(
                "{} [{}]: could not move the resources to placement {index}: {e:#}",
                sc.name,
                case.params_label
            );
            return false;
        }
        record.relocations += 1;
        record.placements.push(PlacementRecord {
            index,
            order: recipe
                .order
                .iter()
                .filter_map(|&k| case.resources.get(k).map(|r| r.name.clone()))
                .collect(),
            pad_bytes: recipe.pad_bytes.clone(),
            dedicated: recipe.dedicated,
            held_bytes: gpu
                .held
                .iter()
                .map(|r| r.placed().map_or(0, |p| p.size))
                .sum(),
            resources: instance::where_placed(case, gpu),
            rounds: Vec::new(),
            orders: Vec::new(),
        });
        true
    }

    /// After a mode's rounds: the placement check (one batch of every variant timed in mode
    /// `mi` with the case's resources moved, a second for those that fell outside), then, where
    /// the check found a variant whose time moved with its data (`placements = "auto"`) or
    /// where the case asks for a fixed number, the check's rounds count as the second
    /// placement's and every variant runs [`Placements::ROUNDS`] rounds in each further one. A failure to move the resources (out of memory) ends it with
    /// a warning; the rows then rest on the placements measured.
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
        record.placements.push(PlacementRecord {
            index: 0,
            order: case.resources.iter().map(|r| r.name.clone()).collect(),
            pad_bytes: Vec::new(),
            dedicated: false,
            held_bytes: 0,
            resources: instance::where_placed(case, gpu),
            rounds: (0..round).collect(),
            orders: Vec::new(),
        });
        let at = (sc, case, plan);
        if !self.move_to(at, gpu, mode, 1, record) {
            return Ok(());
        }
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
        let mut round = round;
        // A second round, in the same placement, only for the variants whose first one fell
        // outside: a single slow or fast batch is not taken for a placement effect.
        for _pass in 0..2 {
            for (pos, &i) in list.iter().enumerate() {
                if slots[i].failure.is_some() {
                    continue;
                }
                self.progress.set_message(format!(
                    "{} / {} (placement check)",
                    sc.name, slots[i].v.name
                ));
                match self.time_batch(&s, &mut slots[i], mi, gpu, evict.as_ref()) {
                    Ok(b) => {
                        let kind = crate::results::record::BatchKind::Placement;
                        self.tell_batch(kind, (sc, case), &mut slots[i], mode, round, &b)?;
                        slots[i].tracks[mi].push_moved(round, pos as u32, b)
                    }
                    Err(e) => {
                        self.fail_on_device(sc, case, plan, slots, gpu, i, e)?;
                        return Ok(());
                    }
                }
                if interrupted() {
                    return Ok(());
                }
            }
            if let Some(p) = record.placements.last_mut() {
                p.rounds.push(round);
            }
            round += 1;
            list.retain(|&i| {
                slots[i].failure.is_none() && slots[i].tracks[mi].placement_moved() == Some(true)
            });
            if list.is_empty() {
                break;
            }
        }
        let total = match s.placements {
            Placements::Fixed(n) => n,
            Placements::Auto => {
                let sensitive = timed.iter().any(|&i| {
                    slots[i].failure.is_none()
                        && slots[i].tracks[mi].placement_moved() == Some(true)
                });
                if sensitive {
                    Placements::AUTO
                } else {
                    1
                }
            }
        };
        if total < 2 {
            // One placement: what the check's round says about the placement's share of a
            // re-run's difference, pooled over the case's variants (row.rs widens the re-run
            // interval by it).
            let excess: Vec<f64> = timed
                .iter()
                .filter(|&&i| slots[i].failure.is_none())
                .filter_map(|&i| slots[i].tracks[mi].placement_excess())
                .collect();
            let sd = schedule::pooled_placement_sd(&excess);
            for &i in &timed {
                slots[i].tracks[mi].placement_sd = sd;
            }
            return Ok(());
        }
        // The check's rounds are the second placement's.
        for &i in &timed {
            slots[i].tracks[mi].adopt_moved();
        }
        let t = Instant::now();
        for p in 2..total {
            if !self.move_to(at, gpu, mode, p, record) {
                break;
            }
            for _ in 0..Placements::ROUNDS {
                let live: Vec<usize> = timed
                    .iter()
                    .copied()
                    .filter(|&i| slots[i].failure.is_none())
                    .collect();
                let order =
                    schedule::round_order(s.seed, &case_key, mode.label(), round, live.len());
                let names = order
                    .iter()
                    .map(|&k| slots[live[k]].v.name.clone())
                    .collect();
                for (pos, &k) in order.iter().enumerate() {
                    let i = live[k];
                    self.progress.set_message(format!(
                        "{} / {} (placement {} of {total})",
                        sc.name,
                        slots[i].v.name,
                        p + 1
                    ));
                    match self.time_batch(&s, &mut slots[i], mi, gpu, evict.as_ref()) {
                        Ok(b) => {
                            let kind = crate::results::record::BatchKind::Placement;
                            self.tell_batch(kind, (sc, case), &mut slots[i], mode, round, &b)?;
                            slots[i].tracks[mi].push_placed(round, pos as u32, b, p)
                        }
                        Err(e) => {
                            self.fail_on_device(sc, case, plan, slots, gpu, i, e)?;
                            record.placements_ms += t.elapsed().as_secs_f64() * 1e3;
                            return Ok(());
                        }
                    }
                    if interrupted() {
                        record.placements_ms += t.elapsed().as_secs_f64() * 1e3;
                        return Ok(());
                    }
                }
                if let Some(rec) = record.placements.last_mut() {
                    rec.rounds.push(round);
                    rec.orders.push(names);
                }
                round += 1;
            }
        }
        record.placements_ms += t.elapsed().as_secs_f64() * 1e3;
        Ok(())
    }
}
