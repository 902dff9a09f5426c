//! The measurement design end to end on lavapipe: interleaved, seeded rounds in samples.csv
//! and run.json, the adaptive stop (target, budget, max rounds), the warm-up that is long only
//! after a measured idle gap, and the output check on the GPU.
mod common;
use common::*;
use std::collections::BTreeMap;

fn smoke(out: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "run",
        "scenarios/smoke.toml",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    run_json(out)
}

fn orders(j: &serde_json::Value) -> Vec<Vec<String>> {
    j["rounds"][0]["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn rounds_are_interleaved_in_a_seeded_order_and_recorded_per_sample() {
    // Without the placement check's rounds (tests/placement.rs), so samples.csv holds the
    // three rounds only; with three rounds none is left out as a transient (that needs four).
    let fixed = [
        "--warmup-ms",
        "0",
        "--rounds",
        "3",
        "--max-rounds",
        "3",
        "--no-placement-check",
    ];
    let (_t, a) = out_dir("a");
    let (_u, b) = out_dir("b");
    let (_v, c) = out_dir("c");
    let ja = smoke(&a, &[&fixed[..], &["--seed", "7"]].concat());
    let jb = smoke(&b, &[&fixed[..], &["--seed", "7"]].concat());
    let jc = smoke(&c, &[&fixed[..], &["--seed", "8"]].concat());
    assert_eq!(ja["seed"], 7);
    let (oa, ob, oc) = (orders(&ja), orders(&jb), orders(&jc));
    assert_eq!(oa.len(), 3, "three rounds");
    assert_eq!(oa, ob, "the same seed shuffles the same way");
    assert_ne!(oa, oc, "another seed, another order");
    assert_eq!(orders(&jc).len(), 3);
    assert!(
        oa.windows(2).any(|w| w[0] != w[1]),
        "each round is shuffled anew"
    );

    // samples.csv: every timed repetition with its round, its variant's slot in that round's
    // order, and its index in the batch.
    let rows = read_csv(&a.join("results.csv"));
    let samples = read_csv(&a.join("samples.csv"));
    let ok: Vec<_> = rows.iter().filter(|r| r["status"] == "ok").collect();
    assert!(ok.len() >= 4, "{rows:?}");
    for r in ok {
        let v = r["variant"].as_str();
        let mine: Vec<_> = samples.iter().filter(|s| s["variant"] == v).collect();
        let kept = mine.iter().filter(|s| s["kept"] == "1").count();
        assert_eq!(
            kept as f64,
            num(r, "n"),
            "{v}: one sample per kept repetition"
        );
        // Slow leading rounds (no warm-up here) may be left out as warm-up, but stay in
        // samples.csv with kept = 0.
        let discarded = num(r, "rounds_discarded");
        assert_eq!(num(r, "rounds") + discarded, 3.0);
        let per_batch = num(r, "reps_per_batch") as usize;
        let mut by_round: BTreeMap<u32, Vec<&Row>> = BTreeMap::new();
        for s in &mine {
            by_round
                .entry(s["round"].parse().unwrap())
                .or_default()
                .push(s);
        }
        assert_eq!(by_round.keys().copied().collect::<Vec<_>>(), [0, 1, 2]);
        for (round, batch) in by_round {
            // Round 0's batch is sized from the check run's one repetition, the later ones from
            // round 0's median (`reps_per_batch`): never more.
            if round == 0 {
                assert!(
                    !batch.is_empty() && batch.len() <= per_batch,
                    "{v} round 0: {} repetitions, reps_per_batch {per_batch}",
                    batch.len()
                );
            } else {
                assert_eq!(batch.len(), per_batch, "{v} round {round}");
            }
            let pos: usize = batch[0]["round_position"].parse().unwrap();
            assert_eq!(
                oa[round as usize][pos], v,
                "{v}: position {pos} in round {round}"
            );
            let reps: Vec<usize> = batch
                .iter()
                .map(|s| s["batch_repetition"].parse().unwrap())
                .collect();
            // Numbered from 0 in the batch: round 0's may hold fewer (checked above).
            assert_eq!(reps, (0..batch.len()).collect::<Vec<_>>());
            let k = if (round as f64) < discarded { "0" } else { "1" };
            assert!(batch.iter().all(|s| s["kept"] == k), "{v} round {round}");
        }
        // The median is the mean of the round medians, inside its interval.
        let (lo, med, hi) = (
            num(r, "median_ci_low_ns"),
            num(r, "median_ns"),
            num(r, "median_ci_high_ns"),
        );
        assert!(lo <= med && med <= hi, "{r:?}");
        assert!(num(r, "rerun_low_ns") <= lo && hi <= num(r, "rerun_high_ns"));
        // The timer's step, read off lavapipe's raw timestamps; every sample is a multiple of
        // it and no interval is narrower than it allows.
        let step = num(r, "timer_step_ns");
        assert!(step > 0.0, "{r:?}");
        for s in samples.iter().filter(|s| s["variant"] == v) {
            let ns: f64 = s["gpu_ns"].parse().unwrap();
            assert!(
                (ns / step - (ns / step).round()).abs() < 1e-6,
                "{ns} vs step {step}"
            );
        }
        assert!(
            hi - lo >= step * (1.0 - 1e-9),
            "CI {lo}..{hi} narrower than {step}"
        );
    }
}

#[test]
fn the_adaptive_stop_honours_the_target_the_budget_and_the_cap() {
    let stops = |extra: &[&str]| -> Vec<(String, f64)> {
        let (_t, out) = out_dir("stop");
        let mut args = vec!["--warmup-ms", "0", "--filter", "wg64*"];
        args.extend_from_slice(extra);
        smoke(&out, &args);
        let samples = read_csv(&out.join("samples.csv"));
        read_csv(&out.join("results.csv"))
            .iter()
            .filter(|r| r["status"] == "ok")
            // The first placement's kept rounds, from samples.csv: those the stop rule
            // counts. results.csv's `rounds` adds the rounds of further placements where the
            // placement check asked for them (CI once read 7 = 4 + 3, taken for 1).
            .map(|r| {
                let first: std::collections::BTreeSet<&str> = samples
                    .iter()
                    .filter(|s| {
                        s["variant"] == r["variant"]
                            && s["mode"] == r["mode"]
                            && s["kept"] == "1"
                            && s["placement"] == "0"
                    })
                    .map(|s| s["round"].as_str())
                    .collect();
                assert!(first.len() as f64 <= num(r, "rounds"), "{r:?}");
                (r["stop_reason"].clone(), first.len() as f64)
            })
            .collect()
    };
    // Any interval meets a 1000 % target: the minimum of rounds, no more, unless the kept
    // rounds drifted (a flagged trend holds a `target` stop back; lavapipe on a busy 2-core
    // machine does drift). The round medians in samples.csv say which it was.
    let (_t, out) = out_dir("target");
    smoke(
        &out,
        &[
            "--warmup-ms",
            "0",
            "--filter",
            "wg64*",
            "--ci-target",
            "1000",
            "--rounds",
            "4",
        ],
    );
    let target: Vec<Row> = read_csv(&out.join("results.csv"))
        .into_iter()
        .filter(|r| r["status"] == "ok")
        .collect();
    assert!(!target.is_empty());
    let samples = read_csv(&out.join("samples.csv"));
    for r in &target {
        assert_eq!(r["stop_reason"], "target", "{r:?}");
        // Each kept round's median repetition, in round order, in the first placement: the
        // rounds the stop rule counted. Where the placement check found the case sensitive
        // (lavapipe's noise can), the rounds of further placements follow, and `rounds`
        // counts them too (CI once read 7 rounds = 4 + 3 placements' as a held-back stop).
        let mut by_round: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
        for s in samples.iter().filter(|s| {
            s["variant"] == r["variant"]
                && s["kept"] == "1"
                && s["dispatch"] == "0"
                && s["placement"] == "0"
        }) {
            by_round
                .entry(s["round"].parse().unwrap())
                .or_default()
                .push(s["repetition_ns"].parse().unwrap());
        }
        let medians: Vec<f64> = by_round
            .into_values()
            .map(|mut v| {
                v.sort_by(f64::total_cmp);
                p3lab::stats::median(&v)
            })
            .collect();
        let n = medians.len();
        assert!(n >= 4 && n as f64 <= num(r, "rounds"), "{n} {r:?}");
        if n > 4 {
            // Held back: some earlier set of kept rounds drifted.
            let drifted = (4..n).any(|k| {
                p3lab::stats::inference::trend(&medians[..k]).is_some_and(|t| t.flagged())
            });
            assert!(drifted, "{n} rounds without a drift: {medians:?} {r:?}");
        }
    }
    // An unreachable target with a tiny budget stops at the minimum on the budget...
    let budget = stops(&[
        "--ci-target",
        "1e-9",
        "--budget-ms",
        "0.001",
        "--rounds",
        "3",
    ]);
    assert!(
        budget.iter().all(|(s, n)| s == "budget" && *n == 3.0),
        "{budget:?}"
    );
    // ...and with time to spare, at the cap.
    let cap = stops(&[
        "--ci-target",
        "1e-9",
        "--budget-ms",
        "100000",
        "--rounds",
        "2",
        "--max-rounds",
        "4",
    ]);
    assert!(
        cap.iter()
            .all(|(s, n)| s == "max_rounds" && *n <= 4.0 && *n >= 2.0),
        "{cap:?}"
    );
}

#[test]
fn the_warm_up_is_long_only_after_a_measured_idle_gap() {
    let (_t, out) = out_dir("warm");
    // Two params cases back to back; after a gap of up to 0.5 s there is no warm-up, after a
    // longer one it is as long as the gap (30 ms to 1.5 s here).
    let j = smoke(
        &out,
        &[
            "--warmup-ms",
            "30",
            "--set",
            "n=1024,2048",
            "--rounds",
            "2",
            "--max-rounds",
            "2",
        ],
    );
    let warmups: Vec<&serde_json::Value> = j["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["warmups"].as_array().unwrap())
        .collect();
    assert_eq!(warmups.len(), 2, "{j}");
    // The run's first warm-up follows no batch at all: long.
    assert!(warmups[0]["idle_before_ms"].is_null());
    assert_eq!(warmups[0]["target_ms"], 1500);
    assert!(warmups[0]["gpu_ms"].as_f64().unwrap() >= 1500.0);
    // Every warm-up follows the rule on the gap it measured.
    for w in &warmups[1..] {
        let idle = w["idle_before_ms"].as_f64().expect("a batch ran before");
        let want = if idle > 500.0 {
            (idle as u64).clamp(30, 1500)
        } else {
            0
        };
        assert_eq!(w["target_ms"], want, "{w}");
    }
    // On lavapipe the second case is set up and checked in well under 0.5 s.
    assert!(
        warmups[1]["idle_before_ms"].as_f64().unwrap() < 500.0,
        "{j}"
    );
    assert_eq!(warmups[1]["target_ms"], 0, "back to back: no warm-up");
    assert_eq!(warmups[1]["cycles"], 0);
    assert!(j["warmup_share"].as_f64().unwrap() > 0.0);
}

#[test]
fn the_gpu_check_finds_a_planted_mismatch_and_agrees_with_the_host() {
    let (_t, out) = out_dir("gpucheck");
    let o = run(&[
        "run",
        "tests/data/scenarios/gpu_check.toml",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    let wrong = row(&rows, "wrong");
    assert_eq!(wrong["status"], "check_failed");
    assert!(
        wrong["check_detail"]
            .contains("b: 1 of 300000 differ, first at [123457]: got -1, expected")
            && wrong["check_detail"].ends_with("(checked on the GPU)"),
        "{}",
        wrong["check_detail"]
    );
    // Issue 29: how large the errors are and where, and the keys that would accept them.
    let detail = &wrong["check_detail"];
    for part in [
        ", largest absolute error ",
        " at [123457] (got -1, expected ",
        ", largest relative error ",
        "raise check.tolerance (now 0) or check.rel_tolerance (now 0) to accept them",
    ] {
        assert!(detail.contains(part), "{part}: {detail}");
    }
    assert!(!detail.contains(';') && !detail.contains('\n'), "{detail}");
    assert_eq!(wrong["n"], "", "not timed");
    let again = row(&rows, "good-again");
    assert_eq!(again["status"], "ok");
    assert_eq!(
        again["check_detail"],
        "vs baseline: b: exact (checked on the GPU)"
    );

    // The same scenario checked on the host names the same element and values.
    let dir = tempfile::tempdir().unwrap();
    let shader = std::fs::canonicalize("tests/data/glsl/scale.comp").unwrap();
    let text = std::fs::read_to_string("tests/data/scenarios/gpu_check.toml")
        .unwrap()
        .replace("../glsl/scale.comp", shader.to_str().unwrap())
        .replace("baseline = \"good\"", "baseline = \"good\"\non = \"host\"");
    let host_toml = dir.path().join("host.toml");
    std::fs::write(&host_toml, text).unwrap();
    let host_out = dir.path().join("out");
    let o = run(&[
        "run",
        host_toml.to_str().unwrap(),
        "--out",
        host_out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let host = read_csv(&host_out.join("results.csv"));
    let gpu_detail = wrong["check_detail"].replace(" (checked on the GPU)", "");
    assert_eq!(row(&host, "wrong")["check_detail"], gpu_detail);
    assert_eq!(
        row(&host, "good-again")["check_detail"],
        "vs baseline: b: exact"
    );
}

#[test]
fn the_gpu_check_handles_images_and_references_like_the_host() {
    // smoke.toml checks a buffer and a storage image against its CPU reference and baseline:
    // with `on = "gpu"` the image goes through the GPU copy and the compare shader.
    let dir = tempfile::tempdir().unwrap();
    let shader = std::fs::canonicalize("glsl/smoke/smoke.comp").unwrap();
    let text = std::fs::read_to_string("scenarios/smoke.toml")
        .unwrap()
        .replace("glsl/smoke/smoke.comp", shader.to_str().unwrap())
        .replace("[check]\n", "[check]\non = \"gpu\"\n");
    let file = dir.path().join("smoke_gpu.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.path().join("out");
    let o = run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--rounds",
        "2",
        "--max-rounds",
        "2",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    let ok: Vec<_> = rows.iter().filter(|r| r["status"] == "ok").collect();
    assert!(ok.len() >= 4, "{rows:?}");
    for r in ok {
        let d = &r["check_detail"];
        assert!(
            d.contains("vs reference: dst: exact (checked on the GPU); out_img: exact (checked on the GPU)"),
            "{d}"
        );
        assert_eq!(r["check"], "pass");
        if r["variant"] != "wg64" {
            // Everyone but the baseline is also compared with the baseline's copy.
            assert!(
                d.contains("vs baseline: dst: exact (checked on the GPU); out_img: exact"),
                "{}: {d}",
                r["variant"]
            );
        }
    }
}

#[test]
fn a_batch_too_long_for_one_submission_goes_in_pieces_and_keeps_every_repetition() {
    // 8 000 repetitions of smoke's wg64 (about 0.1 ms each on lavapipe) are about a second of
    // GPU work: the batch is submitted in pieces of MAX_SUBMIT_NS (src/measure/batch.rs).
    // Every timed repetition still gets one sample, numbered 0.. within its batch.
    let (_t, out) = out_dir("pieces");
    smoke(
        &out,
        &[
            "--filter",
            "wg64",
            "--reps",
            "8000",
            "--rounds",
            "2",
            "--max-rounds",
            "2",
            "--warmup-ms",
            "0",
            "--no-placement-check",
        ],
    );
    let rows = read_csv(&out.join("results.csv"));
    let r = row(&rows, "wg64");
    assert_eq!(r["status"], "ok", "{}", r["reason"]);
    let per_batch = num(r, "reps_per_batch");
    assert_eq!(per_batch, 8000.0);
    let first_rep_ms = 1e-6 * num(r, "median_ns");
    assert!(
        per_batch * first_rep_ms > 2.0 * 200.0,
        "{first_rep_ms} ms a repetition: this batch would fit one submission, so the test \
         would not exercise the pieces"
    );
    let samples: Vec<_> = read_csv(&out.join("samples.csv"))
        .into_iter()
        .filter(|s| s["variant"] == "wg64")
        .collect();
    assert_eq!(samples.len(), 16000);
    for round in ["0", "1"] {
        let reps: Vec<usize> = samples
            .iter()
            .filter(|s| s["round"] == round)
            .map(|s| s["batch_repetition"].parse().unwrap())
            .collect();
        assert_eq!(reps, (0..8000).collect::<Vec<_>>(), "round {round}");
    }
}
