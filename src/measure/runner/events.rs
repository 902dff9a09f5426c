//! What the runner tells its outputs while it runs ([`crate::sink`]): each timed batch, each
//! counter batch with its samples, and the host-side phases, all on CLOCK_MONOTONIC; and the
//! files a variant's build or check run made for the run folder. The batches and counter
//! batches are also kept in their slot, for the variant's record (runner/write.rs).
use super::*;
use crate::results::record::{BatchKind, CounterBatch, CounterSample, RepSpan, TimedBatch};
use crate::sink::{BatchEvent, CounterEvent, PhaseEvent};

/// CLOCK_MONOTONIC now, ns.
pub(super) fn now_ns() -> f64 {
    crate::vk::timestamps::monotonic_ns() as f64
}

impl Runner<'_> {
    /// Files a variant's build or check run made for the run folder, told and let go.
    pub(super) fn tell_dumps(&mut self, dumps: &mut Vec<crate::sink::Dump>) {
        for d in dumps.drain(..) {
            self.sinks.dumped(&d);
        }
    }

    /// A host-side phase of a case (`name`) that ran from `start_ns` until now.
    pub(super) fn tell_phase(
        &mut self,
        name: &str,
        (sc, case): (&Scenario, &Case),
        start_ns: f64,
    ) -> anyhow::Result<()> {
        self.sinks.phase(&PhaseEvent {
            name,
            scenario: &sc.name,
            params: &case.params_label,
            span: (start_ns, now_ns()),
        })
    }

    /// A timed batch of the slot's variant (`kind`: a round's or a placement round's) in
    /// round `round` of `mode`: its repetitions placed on the host's clock, kept for the
    /// variant's record ([`crate::results::record::TimedBatch`]) and told to the outputs.
    #[allow(
        clippy::too_many_arguments,
        reason = "the batch's identity and the batch"
    )]
    pub(super) fn tell_batch(
        &mut self,
        kind: BatchKind,
        (sc, case): (&Scenario, &Case),
        slot: &mut Slot,
        mode: Mode,
        round: u32,
        b: &batch::Batch,
    ) -> anyhow::Result<()> {
        // One GPU-to-host correlation a second at most: it is the costly part.
        let stale = self
            .clock_map
            .as_ref()
            .is_none_or(|(at, _)| at.elapsed() > std::time::Duration::from_secs(1));
        if stale {
            self.clock_map = Some((Instant::now(), self.ctx.clock_map()));
        }
        let map = self.clock_map.as_ref().and_then(|(_, m)| m.as_ref());
        let timer = (
            self.ctx.info.timestamp_valid_bits,
            self.ctx.info.timestamp_period_ns as f64,
        );
        let starts = b.rep_start_ns(map, timer);
        let ns_per_tick = self.meta.clock_gauge.as_ref().and_then(|g| g.ns_per_tick);
        slot.batches.push(TimedBatch {
            kind,
            mode,
            round,
            host_span: b.host_span,
            clock_mhz: b.clock.zip(ns_per_tick).map(|(c, ns)| c / ns * 1e3),
            reps: starts
                .iter()
                .zip(&b.rep_ns)
                .map(|(&start_ns, &gpu_ns)| RepSpan { start_ns, gpu_ns })
                .collect(),
        });
        self.sinks.batch_timed(&BatchEvent {
            scenario: &sc.name,
            variant: &slot.v.name,
            params: &case.params_label,
            batch: slot.batches.last().expect("pushed above"),
        })
    }

    /// A counter batch's samples as measured, kept for the variant's record
    /// ([`crate::results::record::CounterBatch`]) and told to the outputs.
    pub(super) fn tell_counters(
        &mut self,
        (sc, case): (&Scenario, &Case),
        slot: &mut Slot,
        batch: CounterBatch,
    ) -> anyhow::Result<()> {
        slot.counter_batches.push(batch);
        self.sinks.counters_sampled(&CounterEvent {
            scenario: &sc.name,
            variant: &slot.v.name,
            params: &case.params_label,
            batch: slot.counter_batches.last().expect("pushed above"),
        })
    }
}

/// A counter batch's samples as measured (where the backend keeps them: CUPTI PM sampling),
/// moved from CLOCK_REALTIME (CUPTI's) to CLOCK_MONOTONIC.
pub(super) fn counter_batch(
    mode: Mode,
    source: &'static str,
    series: crate::measure::hw::Series,
) -> CounterBatch {
    let (real, mono) = crate::vk::cupti::host_clocks();
    let shift = (real - mono) as f64;
    let at = |s: crate::measure::hw::Span| (s.start as f64 - shift, s.end as f64 - shift);
    CounterBatch {
        mode,
        source,
        window: at(series.window),
        names: series.names,
        samples: series
            .spans
            .into_iter()
            .zip(series.values)
            .map(|(s, values)| CounterSample {
                span: at(s),
                values,
            })
            .collect(),
    }
}
