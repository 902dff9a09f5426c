//! When a variant's GPU work ran, as measured: each timed batch with its repetitions' GPU
//! spans on the host's clock, and each hardware-counter batch with its samples before they
//! are combined into the row's values. All times are the host's CLOCK_MONOTONIC in ns
//! (`vk::timestamps::monotonic_ns`), the clock the run's other timeline events use.
//!
//! The runner fills them where it times a batch (runner/timing.rs and placement.rs, through
//! `tell_batch`) and where a counter batch is read (runner/mod.rs `count_case`, through
//! `tell_counters`), and moves them into the [`super::VariantRecord`] once per variant. No
//! CSV column is made from them: they are for outputs that draw time (the trace).
use super::super::kinds::Mode;

/// Which kind of batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchKind {
    /// A round of the mode's rounds.
    Round,
    /// A placement round (the placement check's, or a later placement's).
    Placement,
}

impl BatchKind {
    /// `round` or `placement`.
    pub fn as_str(self) -> &'static str {
        match self {
            BatchKind::Round => "round",
            BatchKind::Placement => "placement",
        }
    }
}

/// One timed repetition on the host's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RepSpan {
    /// Its first dispatch's GPU start on CLOCK_MONOTONIC, ns.
    pub start_ns: f64,
    /// Its GPU time, ns: first dispatch's start to last dispatch's end (samples.csv's
    /// `repetition_ns`).
    pub gpu_ns: f64,
}

impl RepSpan {
    /// Its last dispatch's GPU end on CLOCK_MONOTONIC, ns.
    pub fn end_ns(&self) -> f64 {
        self.start_ns + self.gpu_ns
    }
}

/// One timed batch of a variant (one submission, or its pieces), as it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct TimedBatch {
    /// A round's, or a placement round's.
    pub kind: BatchKind,
    /// The measurement mode it was timed in.
    pub mode: Mode,
    /// The round it belongs to, 0-based (samples.csv's `round`).
    pub round: u32,
    /// The submission's wall span on CLOCK_MONOTONIC, ns: from before recording to the
    /// read-back.
    pub host_span: (f64, f64),
    /// The SM clock the batch ended at (the clock gauge), MHz, where there is a gauge.
    pub clock_mhz: Option<f64>,
    /// Each timed repetition, in order (samples.csv's `batch_repetition`); empty where the
    /// device's timestamps could not be placed on the host's clock.
    pub reps: Vec<RepSpan>,
}

/// One counter sample as measured (a CUPTI PM sample): its span and its values.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterSample {
    /// Start and end on CLOCK_MONOTONIC, ns.
    pub span: (f64, f64),
    /// One value per name of its batch ([`CounterBatch::names`]), in that order; NaN where
    /// the sample had none.
    pub values: Vec<f64>,
}

/// One metric's value in one sample ([`CounterBatch::readings`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterReading<'r> {
    /// The sample's start and end on CLOCK_MONOTONIC, ns.
    pub span: (f64, f64),
    /// The metric's full name.
    pub metric: &'r str,
    /// Its value in the sample.
    pub value: f64,
}

/// A variant's hardware-counter batch in one mode, with its samples as measured (the first
/// pass's samples inside the batch's window; what `hw_*` and metrics.csv combine them into).
#[derive(Debug, Clone, PartialEq)]
pub struct CounterBatch {
    /// The measurement mode.
    pub mode: Mode,
    /// Which backend counted (`cupti-pm-sampling`, the `hw_source` column).
    pub source: &'static str,
    /// The batch's window on CLOCK_MONOTONIC, ns.
    pub window: (f64, f64),
    /// The metrics, in the order of each sample's values.
    pub names: Vec<String>,
    /// The samples, in time order.
    pub samples: Vec<CounterSample>,
}

impl CounterBatch {
    /// Every reading, sample by sample (time order), each sample's metrics in `names` order.
    pub fn readings(&self) -> impl Iterator<Item = CounterReading<'_>> + '_ {
        self.samples.iter().flat_map(move |s| {
            self.names
                .iter()
                .zip(&s.values)
                .map(move |(metric, &value)| CounterReading {
                    span: s.span,
                    metric,
                    value,
                })
        })
    }
}
