//! The clock gauge on lavapipe (measure/clock.rs): every timed batch ends with it, its
//! readings reach results.csv, samples.csv and run.json, and the clock rule's path through the
//! runner (a clocked-down batch timed again, a clock of the variant's own kept) works on real
//! Vulkan. lavapipe does not clock down, so the rule's path is driven by scaling readings
//! (`P3LAB_TEST_CLOCK_LOW`); what the rule decides is unit-tested in src/measure/clock.rs.
mod common;
use common::*;
use std::path::Path;

fn smoke(out: &Path, low: Option<&str>) -> std::process::Output {
    smoke_env(out, low, false)
}

fn smoke_env(out: &Path, low: Option<&str>, keeper: bool) -> std::process::Output {
    let mut c = bin();
    if keeper {
        c.env("P3LAB_TEST_KEEPER", "1");
    }
    c.args([
        "run",
        "scenarios/smoke.toml",
        "--out",
        out.to_str().unwrap(),
        // A warm-up (1.5 s at the start of a run): its gauge readings give the rule its
        // reference before the first round.
        "--warmup-ms",
        "1",
        "--rounds",
        "3",
        "--max-rounds",
        "3",
        "--no-placement-check",
        "--filter",
        "wg64",
        "--filter",
        "wg128",
        "-q",
    ]);
    if let Some(v) = low {
        c.env("P3LAB_TEST_CLOCK_LOW", v);
    }
    c.output().unwrap()
}

fn ok(o: &std::process::Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn every_batch_is_gauged_and_the_rows_say_at_what_clock() {
    let (_t, out) = out_dir("clock-plain");
    ok(&smoke(&out, None));
    let j = run_json(&out);
    let g = &j["clock_gauge"];
    assert_eq!(g["gauged"], true, "lavapipe has both shader clocks: {g}");
    assert!(g["highest"].as_f64().unwrap() > 0.0, "{g}");
    // lavapipe's timestamps are the host's CLOCK_MONOTONIC: the run's timestamp rate reads
    // 0 ppm over the whole run (a GPU's may not: run.json `timestamp_rate`).
    let ts = &j["timestamp_rate"];
    assert!(ts["host_ns"].as_f64().unwrap() > 1e7, "{ts}");
    assert!(ts["ppm"].as_f64().unwrap().abs() < 10.0, "{ts}");
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2);
    let rounds: u64 = rows.iter().map(|r| num(r, "rounds") as u64).sum();
    assert!(
        g["batches"].as_u64().unwrap() >= rounds,
        "every kept round was gauged: {g}"
    );
    for r in &rows {
        let pct = num(r, "clock_pct");
        assert!(pct > 0.0 && pct <= 100.0, "{r:?}");
        assert_eq!(r["clock_redone"], "0", "{r:?}");
        // lavapipe's real-time tick is not documented: no MHz.
        assert_eq!(r["clock_mhz"], "", "{r:?}");
    }
    let s = read_csv(&out.join("samples.csv"));
    assert!(s.iter().all(|r| r.contains_key("clock_mhz")));
}

#[test]
fn a_clocked_down_batch_is_timed_again_and_only_the_try_at_the_clock_counts() {
    let (_t, out) = out_dir("clock-low");
    // The first try of every wg128 batch reads half the clock: each is redone once.
    ok(&smoke(&out, Some("wg128")));
    let rows = read_csv(&out.join("results.csv"));
    let row = |v: &str| rows.iter().find(|r| r["variant"] == v).unwrap().clone();
    let (a, b) = (row("wg64"), row("wg128"));
    assert_eq!(a["clock_redone"], "0", "{a:?}");
    let batches = num(&b, "rounds") + num(&b, "rounds_discarded");
    assert_eq!(
        num(&b, "clock_redone"),
        batches,
        "one redo per batch: {b:?}"
    );
    assert_eq!(
        b["clock_low"], "0",
        "the tries kept ran at the clock: {b:?}"
    );
    assert!(num(&b, "clock_pct") > 97.0, "{b:?}");
    let g = &run_json(&out)["clock_gauge"];
    assert_eq!(g["redone"].as_f64().unwrap(), batches, "{g}");
    assert_eq!(g["kept_low"], 0, "{g}");
    assert!(g["own_clock"].as_array().unwrap().is_empty(), "{g}");
}

#[test]
fn a_clock_more_work_does_not_raise_is_the_variants_own() {
    let (_t, out) = out_dir("clock-own");
    // Every try of wg128 reads half: 8, 32 and 128 ms of keeper do not raise it (lavapipe
    // runs no keeper: the rule's bookkeeping is the same), so its first batch is redone three
    // times and no later one.
    ok(&smoke(&out, Some("own:wg128")));
    let rows = read_csv(&out.join("results.csv"));
    let b = rows.iter().find(|r| r["variant"] == "wg128").unwrap();
    assert_eq!(b["clock_redone"], "3", "{b:?}");
    assert_eq!(num(b, "clock_low"), num(b, "rounds"), "{b:?}");
    assert!(num(b, "clock_pct") < 60.0, "{b:?}");
    let g = &run_json(&out)["clock_gauge"];
    let own = g["own_clock"].as_array().unwrap();
    assert_eq!(own.len(), 1, "{g}");
    assert!(own[0].as_str().unwrap().starts_with("wg128 ("), "{g}");
}

#[test]
fn the_clock_keeper_runs_between_batches_and_the_rounds_stay_right() {
    // On a GPU the keeper spins every SM between batches (a submission nobody waits for);
    // lavapipe runs it only when asked. The rows must be as without it: ok, checked, gauged.
    let (_t, out) = out_dir("clock-keeper");
    ok(&smoke_env(&out, Some("wg128"), true));
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["check"], "pass", "{r:?}");
        assert!(num(r, "clock_pct") > 0.0, "{r:?}");
    }
    let g = &run_json(&out)["clock_gauge"];
    assert!(g["redone"].as_u64().unwrap() > 0, "{g}");
}
