//! The timeline trace (`run --trace FILE`): the run as Chrome trace-event JSON, which
//! ui.perfetto.dev and chrome://tracing open. One process per device, with tracks
//! (threads) for the timed repetitions (one slice each, at its GPU start on the host clock,
//! as long as its GPU time), the batches (submission wall time, with the round and the SM
//! clock), the host's phases (set-up, check phase, warm-up, rounds, counter batches,
//! placements) and the counter batches; counter tracks give each hardware metric's value over
//! time from its samples as measured, and the SM clock each batch ended at.
//!
//! The host's phases are written as they end; a variant's batches, repetitions and counter
//! batches when it finishes, from its record (results/record/timeline.rs: what it measured,
//! on the host's clock), so an interrupted run's trace has the variants that have rows.
//! Everything goes to `FILE.partial` beside the file, renamed at the end of the run, so a
//! trace file is always whole JSON. Times are µs since the sink was made.
use super::{PhaseEvent, RunEnd, Sink, VariantEvent};
use crate::results::record::{CounterBatch, TimedBatch};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The tracks of the device's process, by thread id.
const TID_REPS: u32 = 1;
const TID_BATCHES: u32 = 2;
const TID_PHASES: u32 = 3;
const TID_COUNTERS: u32 = 4;
/// The one process: the device the run measured.
const PID: u32 = 1;

/// The trace sink.
pub struct TraceSink {
    out: std::io::BufWriter<std::fs::File>,
    partial: PathBuf,
    path: PathBuf,
    /// CLOCK_MONOTONIC at the sink's creation, ns: the trace's zero.
    t0: f64,
    /// Events written so far.
    events: u64,
    finished: bool,
}

impl TraceSink {
    /// A trace of a run on `device` into `path` (a link refused), its zero now.
    pub fn create(path: &Path, device: &str, t0_ns: f64) -> anyhow::Result<Self> {
        crate::results::write::refuse_link(path)?;
        let name = path
            .file_name()
            .ok_or_else(|| anyhow::anyhow!("--trace {}: not a file name", path.display()))?;
        let mut partial_name = name.to_os_string();
        partial_name.push(".partial");
        let partial = path.with_file_name(partial_name);
        let file = std::fs::File::create(&partial)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", partial.display()))?;
        let mut t = TraceSink {
            out: std::io::BufWriter::new(file),
            partial,
            path: path.to_path_buf(),
            t0: t0_ns,
            events: 0,
            finished: false,
        };
        t.raw("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
        t.emit(
            &json!({"ph": "M", "name": "process_name", "pid": PID, "tid": 0,
            "args": {"name": format!("{device} (p3lab run)")}}),
        )?;
        for (tid, name) in [
            (TID_REPS, "timed repetitions (GPU)"),
            (TID_BATCHES, "batches (submissions)"),
            (TID_PHASES, "run phases (host)"),
            (TID_COUNTERS, "counter batches"),
        ] {
            t.emit(
                &json!({"ph": "M", "name": "thread_name", "pid": PID, "tid": tid,
                "args": {"name": name}}),
            )?;
            t.emit(
                &json!({"ph": "M", "name": "thread_sort_index", "pid": PID, "tid": tid,
                "args": {"sort_index": tid}}),
            )?;
        }
        Ok(t)
    }

    /// µs since the trace's zero, to the ns.
    fn us(&self, ns: f64) -> f64 {
        (ns - self.t0).round() / 1e3
    }

    fn raw(&mut self, s: &str) -> anyhow::Result<()> {
        self.out
            .write_all(s.as_bytes())
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", self.partial.display()))
    }

    fn emit(&mut self, v: &Value) -> anyhow::Result<()> {
        let sep = if self.events == 0 { "" } else { ",\n" };
        let text = serde_json::to_string(v)?;
        self.raw(sep)?;
        self.raw(&text)?;
        self.events += 1;
        Ok(())
    }

    /// A complete ("X") slice on track `tid`.
    fn slice(&mut self, tid: u32, name: &str, span: (f64, f64), args: Value) -> anyhow::Result<()> {
        let ts = self.us(span.0);
        let dur = ((span.1 - span.0).max(0.0)).round() / 1e3;
        self.emit(
            &json!({"ph": "X", "pid": PID, "tid": tid, "name": name, "ts": ts,
            "dur": dur, "args": args}),
        )
    }

    /// A counter ("C") value from `ns` on, on the track `name`.
    fn counter(&mut self, name: &str, ns: f64, value: f64) -> anyhow::Result<()> {
        let ts = self.us(ns);
        self.emit(&json!({"ph": "C", "pid": PID, "name": name, "ts": ts,
            "args": {"value": value}}))
    }
}

/// Who a variant's slices are about: its scenario, name and params label.
type Who<'w> = (&'w str, &'w str, &'w str);

impl TraceSink {
    /// A timed batch: its submission's slice, a slice per repetition, the SM clock it ended at.
    fn batch(&mut self, (scenario, variant, params): Who, b: &TimedBatch) -> anyhow::Result<()> {
        let (kind, mode) = (b.kind.as_str(), b.mode.label());
        let args = json!({"scenario": scenario, "variant": variant, "params": params,
            "mode": mode, "round": b.round + 1, "repetitions": b.reps.len(),
            "clock_mhz": b.clock_mhz});
        let name = format!("{variant} {kind} {}", b.round + 1);
        self.slice(TID_BATCHES, &name, b.host_span, args)?;
        for (i, r) in b.reps.iter().enumerate() {
            let args = json!({"scenario": scenario, "params": params, "mode": mode,
                "round": b.round + 1, "repetition": i + 1, "gpu_ns": r.gpu_ns});
            self.slice(TID_REPS, variant, (r.start_ns, r.end_ns()), args)?;
        }
        if let Some(mhz) = b.clock_mhz {
            self.counter("SM clock at batch end (MHz)", b.host_span.1, mhz)?;
        }
        Ok(())
    }

    /// A counter batch: its window's slice, and each metric's samples on its counter track.
    fn counters(
        &mut self,
        (scenario, variant, params): Who,
        c: &CounterBatch,
    ) -> anyhow::Result<()> {
        let args = json!({"scenario": scenario, "variant": variant, "params": params,
            "mode": c.mode.label(), "samples": c.samples.len()});
        self.slice(TID_COUNTERS, variant, c.window, args)?;
        for (m, name) in c.names.iter().enumerate() {
            let track = format!("hw {name}");
            for s in &c.samples {
                if let Some(v) = s.values.get(m).filter(|v| v.is_finite()) {
                    self.counter(&track, s.span.0, *v)?;
                }
            }
            // Nothing is counted between batches: the track drops to zero after this one.
            if let Some(s) = c.samples.last() {
                self.counter(&track, s.span.1, 0.0)?;
            }
        }
        Ok(())
    }
}

impl Sink for TraceSink {
    fn phase(&mut self, e: &PhaseEvent) -> anyhow::Result<()> {
        let args = json!({"scenario": e.scenario, "params": e.params});
        self.slice(TID_PHASES, e.name, e.span, args)
    }

    fn variant_finished(&mut self, e: &VariantEvent) -> anyhow::Result<()> {
        let r = e.record;
        let who = (
            r.identity.scenario.as_str(),
            r.identity.variant.as_str(),
            r.identity.params.as_str(),
        );
        for b in &r.batches {
            self.batch(who, b)?;
        }
        for c in &r.counter_batches {
            self.counters(who, c)?;
        }
        Ok(())
    }

    fn run_finished(&mut self, _end: &RunEnd) -> anyhow::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        self.raw("\n]}\n")?;
        self.out
            .flush()
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", self.partial.display()))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| {
            anyhow::anyhow!(
                "cannot move {} to {}: {e}",
                self.partial.display(),
                self.path.display()
            )
        })?;
        tracing::info!(
            "trace: {} ({} events; open it in ui.perfetto.dev or chrome://tracing)",
            self.path.display(),
            self.events
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::record::{
        BatchKind, CounterSample, Identity, Outcome, RepSpan, VariantRecord,
    };
    use crate::results::Mode;

    /// A variant `v` of scenario `s` at `n=1` with these batches and counter batches.
    fn record(batches: Vec<TimedBatch>, counter_batches: Vec<CounterBatch>) -> VariantRecord {
        VariantRecord {
            identity: Identity {
                scenario: "s".into(),
                variant: "v".into(),
                params: "n=1".into(),
                ..Default::default()
            },
            declared: Default::default(),
            build: Default::default(),
            check_run: Default::default(),
            check: Default::default(),
            outcome: Outcome::Timed(Vec::new()),
            batches,
            counter_batches,
        }
    }

    fn reps(starts: &[f64], ns: &[f64]) -> Vec<RepSpan> {
        starts
            .iter()
            .zip(ns)
            .map(|(&start_ns, &gpu_ns)| RepSpan { start_ns, gpu_ns })
            .collect()
    }

    fn samples(s: &[((f64, f64), Vec<f64>)]) -> Vec<CounterSample> {
        s.iter()
            .map(|(span, values)| CounterSample {
                span: *span,
                values: values.clone(),
            })
            .collect()
    }

    /// The trace of one finished variant, as text.
    fn trace_of(r: &VariantRecord, device: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        let mut t = TraceSink::create(&path, device, 1_000.0).unwrap();
        t.variant_finished(&VariantEvent {
            record: r,
            rows: &[],
            samples: &[],
            metrics: &[],
        })
        .unwrap();
        assert!(!path.exists(), "renamed only at the end");
        t.run_finished(&RunEnd::Failed).unwrap();
        std::fs::read_to_string(&path).unwrap()
    }

    #[test]
    fn a_trace_is_whole_json_with_one_slice_per_repetition_and_counter_tracks() {
        let r = record(
            vec![TimedBatch {
                kind: BatchKind::Round,
                mode: Mode::Warm,
                round: 0,
                host_span: (1_500.0, 4_000.0),
                clock_mhz: Some(1980.0),
                reps: reps(&[2_000.0, 3_000.0], &[500.0, 600.0]),
            }],
            vec![CounterBatch {
                mode: Mode::Warm,
                source: "cupti-pm-sampling",
                window: (5_000.0, 9_000.0),
                names: vec!["dram__throughput.avg.pct_of_peak_sustained_elapsed".into()],
                samples: samples(&[
                    ((5_000.0, 7_000.0), vec![40.0]),
                    ((7_000.0, 9_000.0), vec![60.0]),
                ]),
            }],
        );
        let v: Value = serde_json::from_str(&trace_of(&r, "dev \"x\"")).unwrap();
        let ev = v["traceEvents"].as_array().unwrap();
        let reps: Vec<&Value> = ev
            .iter()
            .filter(|e| e["tid"] == TID_REPS && e["ph"] == "X")
            .collect();
        assert_eq!(reps.len(), 2);
        assert_eq!(reps[0]["ts"], 1.0);
        assert_eq!(reps[0]["dur"], 0.5);
        assert_eq!(reps[1]["ts"], 2.0);
        let dram: Vec<f64> = ev
            .iter()
            .filter(|e| e["ph"] == "C" && e["name"].as_str().unwrap().contains("dram"))
            .map(|e| e["args"]["value"].as_f64().unwrap())
            .collect();
        assert_eq!(dram, vec![40.0, 60.0, 0.0]);
        assert!(ev
            .iter()
            .any(|e| e["ph"] == "M" && e["args"]["name"] == "dev \"x\" (p3lab run)"));
    }

    /// What the trace sink wrote for these batches and counter batches when it drew them from
    /// the runner's `batch_timed` and `counters_sampled` events (before the record held them),
    /// word for word.
    const FROM_EVENTS: &str = r#"{"displayTimeUnit":"ns","traceEvents":[
{"args":{"name":"dev (p3lab run)"},"name":"process_name","ph":"M","pid":1,"tid":0},
{"args":{"name":"timed repetitions (GPU)"},"name":"thread_name","ph":"M","pid":1,"tid":1},
{"args":{"sort_index":1},"name":"thread_sort_index","ph":"M","pid":1,"tid":1},
{"args":{"name":"batches (submissions)"},"name":"thread_name","ph":"M","pid":1,"tid":2},
{"args":{"sort_index":2},"name":"thread_sort_index","ph":"M","pid":1,"tid":2},
{"args":{"name":"run phases (host)"},"name":"thread_name","ph":"M","pid":1,"tid":3},
{"args":{"sort_index":3},"name":"thread_sort_index","ph":"M","pid":1,"tid":3},
{"args":{"name":"counter batches"},"name":"thread_name","ph":"M","pid":1,"tid":4},
{"args":{"sort_index":4},"name":"thread_sort_index","ph":"M","pid":1,"tid":4},
{"args":{"clock_mhz":1980.0,"mode":"warm","params":"n=1","repetitions":2,"round":1,"scenario":"s","variant":"v"},"dur":2.5,"name":"v round 1","ph":"X","pid":1,"tid":2,"ts":0.5},
{"args":{"gpu_ns":500.0,"mode":"warm","params":"n=1","repetition":1,"round":1,"scenario":"s"},"dur":0.5,"name":"v","ph":"X","pid":1,"tid":1,"ts":1.0},
{"args":{"gpu_ns":600.25,"mode":"warm","params":"n=1","repetition":2,"round":1,"scenario":"s"},"dur":0.6,"name":"v","ph":"X","pid":1,"tid":1,"ts":2.0},
{"args":{"value":1980.0},"name":"SM clock at batch end (MHz)","ph":"C","pid":1,"ts":3.0},
{"args":{"clock_mhz":null,"mode":"cold","params":"n=1","repetitions":1,"round":4,"scenario":"s","variant":"v"},"dur":3.0,"name":"v placement 4","ph":"X","pid":1,"tid":2,"ts":10.0},
{"args":{"gpu_ns":700.0,"mode":"cold","params":"n=1","repetition":1,"round":4,"scenario":"s"},"dur":0.7,"name":"v","ph":"X","pid":1,"tid":1,"ts":11.001},
{"args":{"mode":"warm","params":"n=1","samples":2,"scenario":"s","variant":"v"},"dur":4.0,"name":"v","ph":"X","pid":1,"tid":4,"ts":4.0},
{"args":{"value":40.0},"name":"hw dram__throughput.avg.pct_of_peak_sustained_elapsed","ph":"C","pid":1,"ts":4.0},
{"args":{"value":60.0},"name":"hw dram__throughput.avg.pct_of_peak_sustained_elapsed","ph":"C","pid":1,"ts":6.0},
{"args":{"value":0.0},"name":"hw dram__throughput.avg.pct_of_peak_sustained_elapsed","ph":"C","pid":1,"ts":8.0},
{"args":{"value":10.0},"name":"hw sm__throughput","ph":"C","pid":1,"ts":6.0},
{"args":{"value":0.0},"name":"hw sm__throughput","ph":"C","pid":1,"ts":8.0}
]}
"#;

    #[test]
    fn the_trace_drawn_from_the_record_is_the_one_the_events_drew() {
        let r = record(
            vec![
                TimedBatch {
                    kind: BatchKind::Round,
                    mode: Mode::Warm,
                    round: 0,
                    host_span: (1_500.0, 4_000.0),
                    clock_mhz: Some(1980.0),
                    reps: reps(&[2_000.0, 3_000.0], &[500.0, 600.25]),
                },
                TimedBatch {
                    kind: BatchKind::Placement,
                    mode: Mode::Cold,
                    round: 3,
                    host_span: (11_000.0, 14_000.0),
                    clock_mhz: None,
                    reps: reps(&[12_000.5], &[700.0]),
                },
            ],
            vec![CounterBatch {
                mode: Mode::Warm,
                source: "cupti-pm-sampling",
                window: (5_000.0, 9_000.0),
                names: vec![
                    "dram__throughput.avg.pct_of_peak_sustained_elapsed".into(),
                    "sm__throughput".into(),
                ],
                samples: samples(&[
                    ((5_000.0, 7_000.0), vec![40.0, f64::NAN]),
                    ((7_000.0, 9_000.0), vec![60.0, 10.0]),
                ]),
            }],
        );
        assert_eq!(trace_of(&r, "dev"), FROM_EVENTS);
    }
}
