//! The timeline trace (`run --trace FILE`): the run as Chrome trace-event JSON, which
//! ui.perfetto.dev and chrome://tracing open. One process per device, with tracks
//! (threads) for the timed repetitions (one slice each, at its GPU start on the host clock,
//! as long as its GPU time), the batches (submission wall time, with the round and the SM
//! clock), the host's phases (set-up, check phase, warm-up, rounds, counter batches,
//! placements) and the counter batches; counter tracks give each hardware metric's value over
//! time from its samples as measured, and the SM clock each batch ended at.
//!
//! Events are written as they come to `FILE.partial` beside the file and renamed at the end
//! of the run, so a trace file is always whole JSON. Times are µs since the sink was made.
use super::{BatchEvent, CounterEvent, PhaseEvent, RunEnd, Sink};
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

impl Sink for TraceSink {
    fn wants_timeline(&self) -> bool {
        true
    }

    fn phase(&mut self, e: &PhaseEvent) -> anyhow::Result<()> {
        let args = json!({"scenario": e.scenario, "params": e.params});
        self.slice(TID_PHASES, e.name, e.span, args)
    }

    fn batch_timed(&mut self, e: &BatchEvent) -> anyhow::Result<()> {
        let args = json!({"scenario": e.scenario, "variant": e.variant, "params": e.params,
            "mode": e.mode, "round": e.round + 1, "repetitions": e.rep_ns.len(),
            "clock_mhz": e.clock_mhz});
        let name = format!("{} {} {}", e.variant, e.kind, e.round + 1);
        self.slice(TID_BATCHES, &name, e.host_span, args)?;
        for (i, (&start, &ns)) in e.rep_start_ns.iter().zip(e.rep_ns).enumerate() {
            let args = json!({"scenario": e.scenario, "params": e.params, "mode": e.mode,
                "round": e.round + 1, "repetition": i + 1, "gpu_ns": ns});
            self.slice(TID_REPS, e.variant, (start, start + ns), args)?;
        }
        if let Some(mhz) = e.clock_mhz {
            self.counter("SM clock at batch end (MHz)", e.host_span.1, mhz)?;
        }
        Ok(())
    }

    fn counters_sampled(&mut self, e: &CounterEvent) -> anyhow::Result<()> {
        let args = json!({"scenario": e.scenario, "variant": e.variant, "params": e.params,
            "mode": e.mode, "samples": e.samples.len()});
        self.slice(TID_COUNTERS, e.variant, e.window, args)?;
        for (m, name) in e.names.iter().enumerate() {
            let track = format!("hw {name}");
            for ((start, _), values) in e.samples {
                if let Some(v) = values.get(m).filter(|v| v.is_finite()) {
                    self.counter(&track, *start, *v)?;
                }
            }
            // Nothing is counted between batches: the track drops to zero after this one.
            if let Some(((_, end), _)) = e.samples.last() {
                self.counter(&track, *end, 0.0)?;
            }
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

    #[test]
    fn a_trace_is_whole_json_with_one_slice_per_repetition_and_counter_tracks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        let mut t = TraceSink::create(&path, "dev \"x\"", 1_000.0).unwrap();
        t.batch_timed(&BatchEvent {
            kind: "round",
            scenario: "s",
            variant: "v",
            params: "n=1",
            mode: "warm",
            round: 0,
            rep_start_ns: &[2_000.0, 3_000.0],
            rep_ns: &[500.0, 600.0],
            host_span: (1_500.0, 4_000.0),
            clock_mhz: Some(1980.0),
        })
        .unwrap();
        let names = vec!["dram__throughput.avg.pct_of_peak_sustained_elapsed".to_string()];
        t.counters_sampled(&CounterEvent {
            scenario: "s",
            variant: "v",
            params: "n=1",
            mode: "warm",
            window: (5_000.0, 9_000.0),
            names: &names,
            samples: &[
                ((5_000.0, 7_000.0), vec![40.0]),
                ((7_000.0, 9_000.0), vec![60.0]),
            ],
        })
        .unwrap();
        assert!(!path.exists(), "renamed only at the end");
        t.run_finished(&RunEnd::Failed).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
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
}
