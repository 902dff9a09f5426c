//! Where a variant's measurement is gathered: its typed record (identity, build, check run,
//! check, and per mode the timing, clock, counters and verdict: results/record/; its timed
//! batches and counter samples on the host's clock, kept as they ran), made
//! into rows at the edge (`VariantRecord::rows`), then told to the run's outputs (the sinks)
//! at once.
use super::*;
use crate::results::record::{Outcome, VariantRecord};

impl Runner<'_> {
    /// Once per variant: gather its typed record (each mode's timing, clock, counters and
    /// verdict from its rounds), make the rows at the edge, and tell the outputs the record,
    /// its rows (one per mode), samples and metrics.
    pub(super) fn write(
        &mut self,
        sc: &Scenario,
        case: &Case,
        plan: &CasePlan,
        slot: &mut Slot,
    ) -> anyhow::Result<()> {
        if slot.written {
            return Ok(());
        }
        slot.written = true;
        if !slot.selected {
            return Ok(());
        }
        if !self.opts.hw.enabled && self.hw.is_none() {
            self.hw = Some(crate::measure::hw::HwCounters::off(
                "hardware counters off (--no-hw-counters)",
            ));
        }
        let mut samples = Vec::new();
        let outcome = match &slot.failure {
            Some(f) => Outcome::Failed {
                status: f.status,
                reason: f.reason.clone(),
                modes: case.modes.clone(),
            },
            None => {
                let id = Ident {
                    run_id: &self.meta.run_id,
                    host: &self.meta.host,
                    sc,
                    case,
                    v: slot.v,
                };
                let gauge = self.meta.clock_gauge.as_ref();
                let run = row::RunView {
                    settings: &plan.settings,
                    peaks: self.opts.peaks.as_ref(),
                    ns_per_tick: gauge.and_then(|g| g.ns_per_tick),
                    reference: gauge.and_then(|g| g.reference),
                    gpu: self.ctx.info.device_type != "cpu",
                    cold_evict: case.evict.label(),
                };
                let parts = (&slot.v.work, &slot.build, &slot.check_run);
                let modes = case
                    .modes
                    .iter()
                    .zip(&slot.tracks)
                    .map(|(m, t)| {
                        samples.extend(row::sample_rows(&id, m.label(), t, run.ns_per_tick));
                        let status = self.hw.as_mut().map(|h| &mut h.status);
                        row::mode_record(parts, *m, t, &run, status)
                    })
                    .collect();
                Outcome::Timed(modes)
            }
        };
        let record = VariantRecord {
            identity: slot.identity.clone(),
            declared: slot.v.work.clone(),
            build: slot.build.clone(),
            check_run: slot.check_run.clone(),
            check: slot.check.clone(),
            outcome,
            // Moved, not copied: the slot is done with them.
            batches: std::mem::take(&mut slot.batches),
            counter_batches: std::mem::take(&mut slot.counter_batches),
        };
        // The edge: the record's flat view, results.csv's rows.
        let rows = record.rows();
        if let Some(h) = &self.hw {
            self.meta.hw_counters = Some(h.status.clone());
        }
        for r in &rows {
            *self.meta.rows.entry(r.status.as_str().into()).or_default() += 1;
        }
        self.sinks.variant_finished(&VariantEvent {
            record: &record,
            rows: &rows,
            samples: &samples,
            metrics: &slot.metrics,
        })?;
        // A compile error an earlier variant already reported is said once (issue 41).
        let said = |o: &ResultRow| {
            o.status == RowStatus::CompileError
                && crate::results::split_defines(&o.reason).0
                    == crate::results::split_defines(&rows[0].reason).0
        };
        let repeat = rows[0].status == RowStatus::CompileError && self.rows.iter().any(said);
        self.rows.extend(rows.iter().cloned());
        let r = &rows[0];
        match r.status {
            RowStatus::CompileError if repeat => tracing::debug!(
                "{} / {} [{}]: the same compile error",
                r.scenario,
                r.variant,
                r.params
            ),
            RowStatus::Ok if r.stop_reason == Some(crate::results::StopReason::TimedBefore) => {
                tracing::info!(
                    "{} / {} [{}]: counted, not timed (an earlier run timed it)",
                    r.scenario,
                    r.variant,
                    r.params
                )
            }
            RowStatus::Ok => tracing::info!(
                "{} / {} [{}]: median {} ({} rounds, {})",
                r.scenario,
                r.variant,
                r.params,
                crate::output::summary::fmt_time(r.median_ns.unwrap_or(0.0)),
                r.rounds.unwrap_or(0),
                r.stop_reason.map(|s| s.as_str()).unwrap_or("")
            ),
            s => tracing::warn!(
                "{} / {} [{}]: {s}: {}",
                r.scenario,
                r.variant,
                r.params,
                r.reason
            ),
        }
        if !slot.cost.unused_spec_constants.is_empty() {
            self.meta
                .unused_spec_constants
                .push(crate::output::run_json::UnusedSpec {
                    scenario: slot.cost.scenario.clone(),
                    variant: slot.cost.variant.clone(),
                    params: slot.cost.params.clone(),
                    spec_ids: std::mem::take(&mut slot.cost.unused_spec_constants),
                });
        }
        if slot.cost.total_ns > 0 || slot.cost.timed_submit_ns > 0 {
            self.meta.costs.push(std::mem::take(&mut slot.cost));
        }
        self.credit(slot, PROGRESS_UNITS);
        Ok(())
    }
}
