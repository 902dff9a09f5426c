//! `run --trace FILE` on lavapipe (issue 43): the timeline is whole Chrome trace-event JSON
//! that follows the format's rules (what ui.perfetto.dev and chrome://tracing read), with one
//! slice per timed repetition, at increasing, non-overlapping times, as long as samples.csv
//! says it took. The counter tracks are tested over the fake CUPTI in tests/cupti.rs.
mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// The trace file's events, checked against the trace-event format's rules: every event has
/// a phase, a pid and a tid; complete events ("X") a name, a timestamp and a duration of at
/// least 0; counters ("C") numeric args; metadata ("M") names a process or thread.
pub fn events(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let v: Value = serde_json::from_str(&text).expect("the trace is whole JSON");
    let ev = v["traceEvents"].as_array().expect("traceEvents").clone();
    for e in &ev {
        let ph = e["ph"].as_str().expect("ph");
        assert!(e["pid"].is_u64(), "{e}");
        match ph {
            "X" => {
                assert!(e["name"].is_string() && e["tid"].is_u64(), "{e}");
                assert!(e["ts"].as_f64().is_some_and(|t| t >= 0.0), "{e}");
                assert!(e["dur"].as_f64().is_some_and(|d| d >= 0.0), "{e}");
            }
            "C" => {
                assert!(e["ts"].is_number(), "{e}");
                let args = e["args"].as_object().expect("args");
                assert!(
                    !args.is_empty() && args.values().all(Value::is_number),
                    "{e}"
                );
            }
            "M" => assert!(
                ["process_name", "thread_name", "thread_sort_index"]
                    .contains(&e["name"].as_str().unwrap()),
                "{e}"
            ),
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    ev
}

#[test]
fn a_trace_has_one_slice_per_timed_repetition_in_time_order() {
    let (_t, out) = out_dir("trace");
    let trace = out.parent().unwrap().join("run.trace.json");
    let sc = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/smoke.toml");
    let o = quick_run(&sc, &out, &["--trace", trace.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!trace.with_file_name("run.trace.json.partial").exists());
    let ev = events(&trace);
    let samples = read_csv(&out.join("samples.csv"));
    let mut reps: Vec<&Value> = ev
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 1)
        .collect();
    assert_eq!(reps.len(), samples.len(), "one slice per samples.csv row");
    // Each slice is as long as its repetition's GPU time, and names its variant and round.
    let mut want: Vec<(String, String, f64)> = samples
        .iter()
        .map(|s| {
            (
                s["variant"].clone(),
                s["round"].clone(),
                num(s, "repetition_ns"),
            )
        })
        .collect();
    let mut got: Vec<(String, String, f64)> = reps
        .iter()
        .map(|e| {
            let round = e["args"]["round"].as_u64().unwrap() - 1;
            (
                e["name"].as_str().unwrap().to_string(),
                round.to_string(),
                e["args"]["gpu_ns"].as_f64().unwrap(),
            )
        })
        .collect();
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    got.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(got, want);
    reps.sort_by(|a, b| {
        a["ts"]
            .as_f64()
            .unwrap()
            .total_cmp(&b["ts"].as_f64().unwrap())
    });
    for w in reps.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let end = a["ts"].as_f64().unwrap() + a["dur"].as_f64().unwrap();
        assert!(end <= b["ts"].as_f64().unwrap() + 1e-3, "overlap: {a} {b}");
    }
    // Every repetition lies inside its batch's submission on the host.
    let batches: Vec<&Value> = ev
        .iter()
        .filter(|e| e["ph"] == "X" && e["tid"] == 2)
        .collect();
    assert!(!batches.is_empty());
    for r in &reps {
        let (ts, end) = (
            r["ts"].as_f64().unwrap(),
            r["ts"].as_f64().unwrap() + r["dur"].as_f64().unwrap(),
        );
        assert!(
            batches.iter().any(|b| {
                let s = b["ts"].as_f64().unwrap();
                s <= ts + 1e-3 && end <= s + b["dur"].as_f64().unwrap() + 1e-3
            }),
            "no batch holds {r}"
        );
    }
    // The host's phases: the check phase before the rounds, the warm-up inside them.
    let phase = |n: &str| {
        ev.iter()
            .find(|e| e["tid"] == 3 && e["name"] == n)
            .unwrap_or_else(|| panic!("no phase {n}"))
    };
    let (check, rounds) = (phase("check phase"), phase("rounds (warm)"));
    assert!(check["ts"].as_f64() < rounds["ts"].as_f64());
}

#[test]
fn a_trace_is_refused_with_every_device_and_into_a_missing_folder() {
    let (_t, out) = out_dir("trace-bad");
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--out",
        out.to_str().unwrap(),
        "--device",
        "all",
        "--trace",
        "/tmp/x.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--trace with --device all"));
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--out",
        out.to_str().unwrap(),
        "--trace",
        "/nonexistent-folder/t.json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--trace"));
    assert!(!out.join("results.csv").exists(), "refused before the run");
}
