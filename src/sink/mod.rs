//! Where a run's measurements go. The run (src/app/run.rs: its start and end) and the runner
//! (src/measure/runner: everything between) tell every output the same events, in the order
//! they happen, through one trait: [`Sink`]. Each output is a sink of its own file under this
//! module: the CSV tables ([`csv`]: results.csv, samples.csv and metrics.csv through
//! [`crate::results::Writers`]), run.json ([`run_json`]: written as the run starts and again
//! when it ends), the terminal summary with its `--export-markdown` / `--export-json` files
//! ([`summary`]), the files a variant's build or check run makes for the run folder
//! ([`dumps`]: `--dump-ir`, `--dump-outputs`, the probe's launch-order pictures; read from
//! the device in src/measure/build.rs, verify.rs and probes.rs) and the timeline trace
//! ([`trace`], `run --trace FILE`). Adding an output is a new file here and a flag that puts
//! it in the run's [`Sinks`].
//!
//! Times in events and in the record's timeline are the host's CLOCK_MONOTONIC in ns
//! (`vk::timestamps::monotonic_ns`): GPU work is placed there through the calibrated
//! timestamps where the device has them (VK_EXT_calibrated_timestamps, one correlation a
//! second at most), else anchored at the moment its fence was seen.
pub mod csv;
pub mod dumps;
pub mod run_json;
pub mod summary;
pub mod trace;

use crate::output::run_json::RunJson;
use crate::results::record::{CounterBatch, TimedBatch, VariantRecord};
use crate::results::{MetricRow, ResultRow, SampleRow};
use std::path::PathBuf;

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

/// One timed batch of one variant, as it ran (a round's or a placement round's submission).
#[derive(Debug, Clone, Copy)]
pub struct BatchEvent<'e> {
    /// The variant's scenario.
    pub scenario: &'e str,
    /// The variant.
    pub variant: &'e str,
    /// The case's params label.
    pub params: &'e str,
    /// The batch: its kind, mode, round, host span, clock and each repetition on the host's
    /// clock (the same the variant's record keeps in `batches`).
    pub batch: &'e TimedBatch,
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
    /// The batch: its mode, window, metrics and samples (the same the variant's record keeps
    /// in `counter_batches`).
    pub batch: &'e CounterBatch,
}

/// A variant's finished measurement: its typed record (with every timed batch's repetitions
/// and every counter batch's samples on the host's clock), its rows (one per mode: the
/// record's flat view), its samples and its metrics.
#[derive(Debug, Clone, Copy)]
pub struct VariantEvent<'e> {
    /// What was measured, typed (results/record/).
    pub record: &'e VariantRecord,
    /// results.csv's rows.
    pub rows: &'e [ResultRow],
    /// samples.csv's rows.
    pub samples: &'e [SampleRow],
    /// metrics.csv's rows.
    pub metrics: &'e [MetricRow],
}

/// Files of one variant for one folder of the run folder, made by its build or check run:
/// `--dump-ir`'s internal representations, `--dump-outputs`' arrays, a probe's launch-order
/// picture.
#[derive(Debug, Clone)]
pub struct Dump {
    /// Which (`--dump-ir`, `--dump-outputs`, `probe picture`): what a failed write is logged as.
    pub what: &'static str,
    /// The folder, under the run folder (empty: the run folder itself); made even where
    /// `files` is empty.
    pub dir: PathBuf,
    /// Each file's name in `dir` and its contents.
    pub files: Vec<(String, DumpData)>,
}

/// A dumped file's contents.
#[derive(Debug, Clone)]
pub enum DumpData {
    /// The bytes as they are.
    Bytes(Vec<u8>),
    /// Packed little-endian elements, written as a `.npy` array of `shape` (C order).
    Npy {
        /// The element type.
        elem: crate::scenario::Elem,
        /// The array's shape.
        shape: Vec<u64>,
        /// The elements.
        bytes: Vec<u8>,
    },
}

/// How the run ended, as its outputs are told.
#[derive(Debug, Clone, Copy)]
pub enum RunEnd<'e> {
    /// The run ended, completed or interrupted: run.json's closing record and every row of
    /// the run folder (a resumed run's earlier ones first).
    Ended {
        /// run.json's closing record.
        meta: &'e RunJson,
        /// Every row of the run folder.
        rows: &'e [ResultRow],
    },
    /// The run stopped on an error (or an output told before this one failed to finish):
    /// write out what is held, nothing that closes the run (run.json keeps what it said at
    /// the start, no summary).
    Failed,
}

/// An output of the run. Every method has a default that ignores the event, so a sink says
/// only what it uses. An error stops the run (as a CSV write that fails does).
pub trait Sink {
    /// The run starts: run.json's record as it starts (the run folder and its CSV tables are
    /// open).
    fn run_started(&mut self, _meta: &RunJson) -> anyhow::Result<()> {
        Ok(())
    }
    /// A host-side phase ended.
    fn phase(&mut self, _e: &PhaseEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// A timed batch finished (as it happens; the variant's record has every one of its
    /// batches when it finishes).
    fn batch_timed(&mut self, _e: &BatchEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// A counter batch was sampled (as it happens; the variant's record has them too).
    fn counters_sampled(&mut self, _e: &CounterEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// A variant's build or check run made files for the run folder. They are extras: a
    /// sink logs what it cannot write and never stops the run.
    fn dumped(&mut self, _d: &Dump) {}
    /// A variant's rows are final: its record holds all it measured, its timeline included.
    fn variant_finished(&mut self, _e: &VariantEvent) -> anyhow::Result<()> {
        Ok(())
    }
    /// The run is over (also after an interrupt or an error, `end` says which): write out
    /// what is held.
    fn run_finished(&mut self, _end: &RunEnd) -> anyhow::Result<()> {
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

    /// Add an output told every event before those already there (the trace: it is made
    /// after run.json is first written, and closed before run.json is closed).
    pub fn push_front(&mut self, s: Box<dyn Sink>) {
        self.list.insert(0, s);
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

    /// See [`Sink::run_started`].
    pub fn run_started(&mut self, meta: &RunJson) -> anyhow::Result<()> {
        self.each(|s| s.run_started(meta))
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
    /// See [`Sink::dumped`].
    pub fn dumped(&mut self, d: &Dump) {
        for s in self.list.iter_mut() {
            s.dumped(d);
        }
    }
    /// See [`Sink::variant_finished`].
    pub fn variant_finished(&mut self, e: &VariantEvent) -> anyhow::Result<()> {
        self.each(|s| s.variant_finished(e))
    }
    /// See [`Sink::run_finished`]: every output is told, in order, and the first error is
    /// returned; once one has failed, those after it are told [`RunEnd::Failed`] (a CSV flush
    /// that fails: run.json is not closed and no summary printed, the trace still closed).
    pub fn run_finished(&mut self, end: &RunEnd) -> anyhow::Result<()> {
        let mut first = Ok(());
        for s in self.list.iter_mut() {
            let told = if first.is_ok() { *end } else { RunEnd::Failed };
            let r = s.run_finished(&told);
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that says how it was told the run ended, and fails when asked to.
    struct Told(std::rc::Rc<std::cell::RefCell<Vec<&'static str>>>, bool);

    impl Sink for Told {
        fn run_finished(&mut self, end: &RunEnd) -> anyhow::Result<()> {
            self.0.borrow_mut().push(match end {
                RunEnd::Ended { .. } => "ended",
                RunEnd::Failed => "failed",
            });
            if self.1 {
                anyhow::bail!("cannot write");
            }
            Ok(())
        }
    }

    #[test]
    fn after_an_output_fails_to_finish_the_later_ones_are_told_the_run_failed() {
        let told = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut sinks = Sinks::new();
        sinks.push(Box::new(Told(told.clone(), false)));
        sinks.push(Box::new(Told(told.clone(), true)));
        sinks.push(Box::new(Told(told.clone(), false)));
        sinks.push_front(Box::new(Told(told.clone(), false)));
        let meta = RunJson::default();
        let end = RunEnd::Ended {
            meta: &meta,
            rows: &[],
        };
        assert!(sinks.run_finished(&end).is_err());
        assert_eq!(*told.borrow(), ["ended", "ended", "ended", "failed"]);
    }

    #[test]
    fn run_json_is_written_at_the_start_and_the_end_but_not_after_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let mut s = run_json::RunJsonSink::new(dir.path().to_path_buf());
        let mut meta = RunJson {
            run_id: "a".into(),
            ..Default::default()
        };
        s.run_started(&meta).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains("\"a\""));
        meta.run_id = "b".into();
        s.run_finished(&RunEnd::Failed).unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains("\"a\""));
        s.run_finished(&RunEnd::Ended {
            meta: &meta,
            rows: &[],
        })
        .unwrap();
        assert!(std::fs::read_to_string(&path).unwrap().contains("\"b\""));
    }
}
