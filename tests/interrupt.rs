//! Interrupted runs keep what they measured, `--resume` finishes them, and one folder takes one
//! p3lab at a time. Real runs on lavapipe, killed with real signals.
mod common;
use common::*;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// `p3lab run scenarios/smoke.toml --out OUT --warmup-ms W --reps R` in the background.
fn smoke(out: &std::path::Path, warmup_ms: &str, reps: &str, stderr: Stdio) -> Child {
    bin()
        .args([
            "run",
            "scenarios/smoke.toml",
            "--out",
            out.to_str().unwrap(),
            "--warmup-ms",
            warmup_ms,
            "--reps",
            reps,
        ])
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// A run slow enough to interrupt: every variant warms up for 1.5 s of GPU time.
fn slow_run(out: &std::path::Path) -> Child {
    smoke(out, "1500", "3", Stdio::piped())
}

/// Wait until results.csv has at least `rows` data rows.
fn wait_rows(out: &std::path::Path, rows: usize) {
    let t = Instant::now();
    loop {
        let n = std::fs::read_to_string(out.join("results.csv"))
            .map(|s| s.lines().count().saturating_sub(1))
            .unwrap_or(0);
        if n >= rows {
            return;
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "no rows after 120 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn sigkill_keeps_finished_rows_and_resume_completes_the_run() {
    let (_t, out) = out_dir("killed");
    let mut first = slow_run(&out);
    wait_rows(&out, 1);
    // A second p3lab aimed at the same folder refuses while the first holds it (even one
    // that would replace the run there).
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--out",
        out.to_str().unwrap(),
        "--replace",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("another p3lab is writing into this folder")
    );
    first.kill().unwrap(); // SIGKILL
    first.wait().unwrap();
    let before = read_csv(&out.join("results.csv"));
    assert!(
        !before.is_empty() && before.len() < 6,
        "killed mid-run: {} rows",
        before.len()
    );
    read_csv(&out.join("samples.csv"));
    read_csv(&out.join("metrics.csv"));
    let o = run(&[
        "run",
        "--resume",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let after = read_csv(&out.join("results.csv"));
    assert_eq!(after.len(), 6, "every variant exactly once");
    let mut names: Vec<&str> = after.iter().map(|r| r["variant"].as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), 6);
    assert!(
        after.iter().all(|r| r["run_id"] == after[0]["run_id"]),
        "a resumed run keeps its run id"
    );
    // Samples: exactly one set per timed variant, none left over from the killed variant.
    let samples = read_csv(&out.join("samples.csv"));
    let ok = after.iter().filter(|r| r["status"] == "ok").count();
    let timed: f64 = after
        .iter()
        .filter(|r| r["status"] == "ok")
        .map(|r| num(r, "n"))
        .sum();
    assert!(ok > 0);
    let kept = samples.iter().filter(|s| s["kept"] == "1").count();
    assert_eq!(kept as f64, timed);
    let meta = run_json(&out);
    assert_eq!(meta["complete"], true);
    assert_eq!(meta["resumed"], 1);
}

#[test]
fn sigint_stops_after_the_current_variant_and_writes_run_json() {
    let (_t, out) = out_dir("sigint");
    let mut child = slow_run(&out);
    wait_rows(&out, 1);
    signal(&child, "-INT");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let rows = read_csv(&out.join("results.csv"));
    assert!(!rows.is_empty() && rows.len() < 6, "{} rows", rows.len());
    let meta = run_json(&out);
    assert_eq!(meta["interrupted"], true);
    assert_eq!(meta["complete"], false);
    assert!(meta["finished_utc"].is_string());
}

/// After a SIGKILL: every CSV holds whole rows of one width, except that its last line may be
/// cut where the file reaches a page boundary. p3lab writes whole rows in one `write`, but
/// Linux copies a write page by page and stops at a page boundary once a fatal signal is
/// pending, so a SIGKILL can land inside a write that spans pages (seen once in a CI-like run
/// on a 2-core machine). Such a cut ends the file at a multiple of the page size; a partial row
/// that ends anywhere else would be p3lab's own. `run --resume` cuts a partial last row
/// (tests/interrupt.rs's resume test, and the note in src/results/write.rs).
fn assert_whole_csvs_but_a_page_cut(out: &std::path::Path, when: &str) {
    for f in ["results.csv", "samples.csv", "metrics.csv"] {
        let Ok(bytes) = std::fs::read(out.join(f)) else {
            continue;
        };
        let whole = match bytes.iter().rposition(|b| *b == b'\n') {
            Some(i) => &bytes[..=i],
            None => &bytes[..0],
        };
        if whole.len() < bytes.len() {
            assert_eq!(
                bytes.len() % 4096,
                0,
                "{f} ends in a partial row at {} bytes, not at a page boundary, after a kill {when}",
                bytes.len()
            );
        }
        if whole.is_empty() {
            continue;
        }
        let mut r = csv::ReaderBuilder::new().from_reader(whole);
        let width = r.headers().unwrap().len();
        for (i, rec) in r.records().enumerate() {
            let rec = rec.unwrap_or_else(|e| panic!("{f} row {}: {e} (kill {when})", i + 2));
            assert_eq!(rec.len(), width, "{f} row {} (kill {when})", i + 2);
        }
    }
}

/// Every CSV of a run folder ends on a line break and parses with one field count throughout
/// (the csv crate's reader refuses ragged rows): what a spreadsheet or pandas gets.
fn assert_whole_csvs(out: &std::path::Path, when: &str) {
    for f in ["results.csv", "samples.csv", "metrics.csv"] {
        let path = out.join(f);
        let Ok(bytes) = std::fs::read(&path) else {
            continue; // killed before the folder was made
        };
        if bytes.is_empty() {
            continue; // killed between create and the header's write
        }
        assert_eq!(
            bytes.last(),
            Some(&b'\n'),
            "{f} ends in a partial row after a kill {when}"
        );
        let mut r = csv::ReaderBuilder::new().from_reader(bytes.as_slice());
        let width = r.headers().unwrap().len();
        for (i, rec) in r.records().enumerate() {
            let rec = rec.unwrap_or_else(|e| panic!("{f} row {}: {e} (kill {when})", i + 2));
            assert_eq!(rec.len(), width, "{f} row {} (kill {when})", i + 2);
        }
    }
}

#[test]
fn a_kill_at_any_moment_leaves_only_whole_rows() {
    // Property test over kill times: a seeded spread of moments from start-up to mid-run,
    // each a fresh folder; every CSV must end on a whole row with a consistent width.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for k in 0..6 {
        let (_t, out) = out_dir(&format!("kill-{k}"));
        let mut child = smoke(&out, "0", "3", Stdio::null());
        let ms = 100 + next() % 2500;
        std::thread::sleep(Duration::from_millis(ms));
        let _ = child.kill(); // SIGKILL (it may have finished already)
        child.wait().unwrap();
        assert_whole_csvs_but_a_page_cut(&out, &format!("at {ms} ms"));
    }
}

#[test]
fn sigterm_during_a_long_batch_exits_within_a_second_and_resume_completes() {
    // 100 000 repetitions of a smoke variant make a batch that runs for minutes on lavapipe:
    // it goes in pieces of about 200 ms, and the run stops between them.
    let (_t, out) = out_dir("long-batch");
    let mut child = smoke(&out, "0", "100000", Stdio::piped());
    wait_rows(&out, 1); // the unsupported subgroup-size row comes first; then the long batch
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "the batch ended early");
    let t = Instant::now();
    signal(&child, "-TERM");
    let status = child.wait().unwrap();
    let took = t.elapsed();
    assert!(took < Duration::from_millis(1500), "exit took {took:?}");
    assert_eq!(status.code(), Some(130));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.contains("run --resume --out"), "{err}");
    assert_whole_csvs(&out, "after SIGTERM in a long batch");
    let meta = run_json(&out);
    assert_eq!(meta["interrupted"], true);
    assert_eq!(meta["complete"], false);
    let o = run(&[
        "run",
        "--resume",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--reps",
        "3",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(read_csv(&out.join("results.csv")).len(), 6);
    assert_eq!(run_json(&out)["complete"], true);
}

#[test]
fn resume_cuts_a_partial_last_row_that_a_sigkill_left() {
    // The files of a run killed inside a page-spanning write (see
    // assert_whole_csvs_but_a_page_cut): the last row of results.csv and samples.csv cut in
    // half, run.json not complete. `run --resume` must leave whole CSVs of one width.
    let (_t, out) = out_dir("page-cut");
    let o = quick_run(std::path::Path::new("scenarios/smoke.toml"), &out, &[]);
    assert_eq!(o.status.code(), Some(0));
    let json = out.join("run.json");
    let mut meta = run_json(&out);
    meta["complete"] = serde_json::Value::Bool(false);
    meta["interrupted"] = serde_json::Value::Bool(true);
    std::fs::write(&json, serde_json::to_string(&meta).unwrap()).unwrap();
    for f in ["results.csv", "samples.csv"] {
        let text = std::fs::read_to_string(out.join(f)).unwrap();
        let body = text.trim_end_matches('\n');
        let last = body.rfind('\n').unwrap() + 1;
        let cut = last + (body.len() - last) / 2;
        std::fs::write(out.join(f), &text[..cut]).unwrap();
    }
    let o = run(&["run", "--resume", "--out", out.to_str().unwrap(), "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_whole_csvs(&out, "after the resume");
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 6, "every smoke variant once: {rows:?}");
}

/// An interrupted `p3lab peak` caches the units it measured beside the ones already cached
/// for this device, never in their place: a `peak` stopped by SIGTERM had left a cache of
/// the three units it had, which every later `run` then used (with a warning).
#[test]
fn an_interrupted_peak_adds_to_the_cached_peaks_and_keeps_the_others() {
    let cache = tempfile::tempdir().unwrap();
    let spirv = cache.path().join("spirv");
    let cached = || {
        let f = std::fs::read_dir(cache.path().join("peaks"))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        read_csv(&f)
    };
    // A cache for this device holding one unit the calibration reaches last (texture.toml).
    let (_t1, out1) = out_dir("peak-texture");
    let o = bin()
        .args(["-q", "peak", "--filter", "texture_point-aligned-acc1"])
        .args(["--warmup-ms", "0", "--reps", "2", "--out"])
        .arg(&out1)
        .arg("--cache-dir")
        .arg(&spirv)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(cached().iter().any(|r| r["unit"] == "texture_point"));
    // A calibration of two scenarios (no filter), interrupted in the second one's rounds:
    // the empty dispatch's rows come first, then the launch rate's batches of 4096 groups,
    // where a batch ends well within the second an interrupt waits for.
    let calib = tempfile::tempdir().unwrap();
    for f in ["dispatch.toml", "launch.toml"] {
        std::fs::copy(format!("peaks/{f}"), calib.path().join(f)).unwrap();
    }
    let (_t2, out2) = out_dir("peak-interrupted");
    let child = bin()
        .args(["peak", "--warmup-ms", "0", "--reps", "200", "--peaks-dir"])
        .arg(calib.path())
        .arg("--out")
        .arg(&out2)
        .arg("--cache-dir")
        .arg(&spirv)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_rows(&out2, 2);
    std::thread::sleep(Duration::from_millis(1500));
    signal(&child, "-INT");
    let o = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    let now = cached();
    assert!(
        now.iter().any(|r| r["unit"] == "texture_point"),
        "the cached unit the interrupted run did not reach stays: {said}"
    );
    if !out2.join("peaks.csv").exists() {
        // The batch in progress outlived the one-second grace (a debug build on a busy
        // machine), so the process stopped before it made peaks: the cache is as it was.
        assert!(said.contains("stopping now"), "{said}");
        assert_eq!(now.len(), 1, "{said}");
        return;
    }
    let measured = read_csv(&out2.join("peaks.csv"));
    assert!(!measured.is_empty(), "{said}");
    assert!(
        measured.iter().all(|r| r["unit"] != "texture_point"),
        "texture.toml is not in this calibration: {said}"
    );
    for m in &measured {
        assert!(now.iter().any(|r| r["unit"] == m["unit"]), "{}", m["unit"]);
    }
    assert_eq!(now.len(), measured.len() + 1, "{said}");
    assert!(said.contains("the interrupted run measured"), "{said}");
}
