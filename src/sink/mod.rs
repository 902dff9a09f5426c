//! Where a run's measurements go. The runner (src/measure/runner) tells every output the same
//! events, in the order they happen, through one trait: [`Sink`]. Each output is a sink of
//! its own file under this module: the CSV tables ([`csv`]: results.csv, samples.csv and
//! metrics.csv through [`crate::results::Writers`]) and the timeline trace ([`trace`],
//! `run --trace FILE`). Adding an output is a new file here and a flag that puts it in the
//! run's [`Sinks`].
//!
//! Times in events are the host's CLOCK_MONOTONIC in ns (`vk::timestamps::monotonic_ns`):
//! GPU work is placed there through the calibrated timestamps where the device has them
//! (VK_EXT_calibrated_timestamps), else anchored at the moment its fence was seen.
pub mod csv;
pub mod trace;

use crate::results::record::VariantRecord;
use crate::results::{MetricRow, ResultRow, SampleRow};

/// A host-side phase of the run: a case's set-up, check phase, warm-up, rounds, counter
/// batches, placement rounds.
#[derive(Debug, Clone, Copy)]
pub struct PhaseEvent<'e> {
    /// What the phase is (`check phase`, `warm-up`, `rounds (warm)`, `counter batches`, …).
    pub name: &'e str,
    /// Its scenario.
    pub scenario: &'e str,
    /// Its case's params label.
    pub params: &'e str,
    /// Start and end on CLOCK_MONOTONIC, ns.
    pub span: (f64, f64),
}

/// One timed batch of one variant: a round's (or a placement round's) submission.
#[derive(Debug, Clone, Copy)]
pub struct BatchEvent<'e> {
    /// `round` or `placement`.
    pub kind: &'e str,
    /// The variant's scenario, name, params label and measurement mode.
    pub scenario: &'e str,
    /// The variant.
    pub variant: &'e str,
    /// The case's params label.
    pub params: &'e str,
    /// The measurement mode (`warm`, `cold`, …).
    pub mode: &'e str,
    /// The round it belongs to (0-based).
    pub round: u32,
    /// Each timed repetition's start on CLOCK_MONOTONIC, ns (empty where the device's
    /// timestamps could not be placed).
    pub rep_start_ns: &'e [f64],
    /// Each timed repetition's GPU time, ns (as samples.csv has them).
    pub rep_ns: &'e [f64],
    /// The submission's wall span on CLOCK_MONOTONIC, ns.
    pub host_span: (f64, f64),
    /// The SM clock the batch ended at (the clock gauge), MHz, where there is a gauge.
    pub clock_mhz: Option<f64>,
}

/// One variant's hardware-counter batch with its samples as measured.
#[derive(Debug, Clone, Copy)]
pub struct CounterEvent<'e> {
    /// The variant's scenario.
    pub scenario: &'e str,
    /// The variant.
    pub variant: &'e str,
    /// The case's params label.
    pub params: &'e str,
    /// The measurement mode.
    pub mode: &'e str,
    /// The batch's window on CLOCK_MONOTONIC, ns.
    pub window: (f64, f64),
    /// The metrics, in the order of each sample's values.
    pub names: &'e [String],
    /// Each sample: its span on CLOCK_MONOTONIC (ns) and its values, one per name.
    pub samples: &'e [((f64, f64), Vec<f64>)],
}

/// A variant's finished measurement: its typed record, its rows (one per mode: the record's
/// flat view), its samples and its metrics.
#[derive(Debug, Clone, Copy)]
pub struct VariantEvent<'e> {
    /// What was measured, typed (results/record.rs).
    pub record: &'e VariantRecord,
    /// results.csv's rows.
    pub rows: &'e [ResultRow],
    /// samples.csv's rows.
    pub samples: &'e [SampleRow],
    /// metrics.csv's rows.
    pub metrics: &'e [MetricRow],
}

/// An output of the run. Every method has a default that ignores the event, so a sink says
/// only what it uses. An error stops the run (as a CSV write that fails does).
pub trait Sink {
    /// Whether it draws a timeline: only then are batches placed on the host's clock (a
    /// GPU-to-host calibration per batch costs host time the runs would otherwise not spend).
    fn wants_timeline(&self) -> bool {
        false
    }
    /// A host-side phase ended.
    fn phase(&mut self, _e: &PhaseEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// A timed batch finished.
    fn batch_timed(&mut self, _e: &BatchEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// A counter batch was sampled.
    fn counters_sampled(&mut self, _e: &CounterEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// A variant's rows are final.
    fn variant_finished(&mut self, _e: &VariantEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// The run is over (also after an interrupt): write out what is held.
    fn run_finished(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
}

/// The run's outputs, each told every event in turn.
#[derive(Default)]
pub struct Sinks {
    list: Vec<Box<dyn Sink>>,
}

impl Sinks {
    /// No outputs yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add an output; it is told events after those added before it.
    pub fn push(&mut self, s: Box<dyn Sink>) {
        self.list.push(s);
    }

    /// Tell every output, in order; the first error stops and is returned.
    fn each(
        &mut self,
        mut f: impl FnMut(&mut dyn Sink) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for s in self.list.iter_mut() {
            f(&mut **s)?;
        }
        Ok(())
    }

    /// Whether any output draws a timeline ([`Sink::wants_timeline`]).
    pub fn wants_timeline(&self) -> bool {
        self.list.iter().any(|s| s.wants_timeline())
    }

    /// See [`Sink::phase`].
    pub fn phase(&mut self, e: &PhaseEvent) -> anyhow::Result<()> {
        self.each(|s| s.phase(e))
    }
    /// See [`Sink::batch_timed`].
    pub fn batch_timed(&mut self, e: &BatchEvent) -> anyhow::Result<()> {
        self.each(|s| s.batch_timed(e))
    }
    /// See [`Sink::counters_sampled`].
    pub fn counters_sampled(&mut self, e: &CounterEvent) -> anyhow::Result<()> {
        self.each(|s| s.counters_sampled(e))
    }
    /// See [`Sink::variant_finished`].
    pub fn variant_finished(&mut self, e: &VariantEvent) -> anyhow::Result<()> {
        self.each(|s| s.variant_finished(e))
    }
    /// See [`Sink::run_finished`]: every output is told, the first error is returned.
    pub fn run_finished(&mut self) -> anyhow::Result<()> {
        let mut first = Ok(());
        for s in self.list.iter_mut() {
            let r = s.run_finished();
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}
