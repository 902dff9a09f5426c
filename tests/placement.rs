//! Where the data sits, on lavapipe: the placement check after the rounds (the default),
//! `--no-placement-check`, and `--fresh resources` (every round after the first with the
//! case's buffers and images moved to new memory). The bytes a relocation keeps are checked
//! in src/vk/copy.rs; what the check decides, on synthetic rounds, in src/measure/schedule.rs.
mod common;
use common::*;

fn samples(out: &std::path::Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(out.join("samples.csv")).unwrap();
    r.records().map(|x| x.unwrap()).collect()
}

fn col(out: &std::path::Path, file: &str, name: &str) -> usize {
    let mut r = csv::Reader::from_path(out.join(file)).unwrap();
    r.headers().unwrap().iter().position(|h| h == name).unwrap()
}

#[test]
fn the_placement_check_runs_one_round_on_moved_resources_after_the_rounds() {
    // tiling.toml at a small size: sampled images and a storage image, so both kinds move.
    let (_t, out) = out_dir("placement-default");
    let o = quick_run(
        std::path::Path::new("scenarios/tiling.toml"),
        &out,
        &[
            "--set",
            "width=256",
            "--filter",
            "rowmajor-wg8x8",
            "--filter",
            "tilex8-wg8x8",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["status"], "ok", "{r:?}");
        assert_eq!(r["fresh"], "none");
        let pct = num(r, "placement_pct");
        assert!(pct.is_finite(), "placement_pct is set: {r:?}");
    }
    // On a busy machine the check can find a variant sensitive: then the case went on to 4
    // placements (`auto`), the check's rounds counting as the second's.
    let spread_in = |mode: &str| {
        let of: Vec<_> = rows.iter().filter(|r| r["mode"] == mode).collect();
        let spread = of.iter().any(|r| r["placements"] != "1");
        if spread {
            assert!(of.iter().all(|r| r["placements"] == "4"), "{of:?}");
        }
        spread
    };
    let spread = rows.iter().any(|r| r["placements"] != "1");
    let j = run_json(&out);
    for rec in j["rounds"].as_array().unwrap() {
        let moves = if spread_in(rec["mode"].as_str().unwrap()) {
            3
        } else {
            1
        };
        assert_eq!(rec["relocations"], moves, "moves per case and mode: {rec}");
        assert_eq!(rec["placement_order"].as_array().unwrap().len(), 2);
    }
    if spread {
        return;
    }
    // Its samples follow the two rounds (rounds 0 and 1) as round 2, not kept.
    let (round, kept) = (
        col(&out, "samples.csv", "round"),
        col(&out, "samples.csv", "kept"),
    );
    let s = samples(&out);
    let moved: Vec<_> = s.iter().filter(|x| &x[kept] == "0").collect();
    assert!(
        !moved.is_empty(),
        "the moved round's repetitions are in samples.csv"
    );
    assert!(moved.iter().all(|x| &x[round] == "2" || &x[round] == "3"));
    assert!(s
        .iter()
        .filter(|x| &x[kept] == "1")
        .all(|x| &x[round] == "0" || &x[round] == "1"));
    // `phase` names them: the rounds after the last one are the placement check's.
    let phase = col(&out, "samples.csv", "phase");
    for x in &s {
        let expect = match (&x[kept], &x[round]) {
            ("1", _) => "kept",
            (_, "2" | "3") => "placement",
            _ => "warmup or transient",
        };
        assert!(expect.contains(&x[phase]), "{x:?}");
    }
    // results.csv gives the check's verdict as a word.
    for r in &rows {
        assert!(
            ["stable", "sensitive"].contains(&r["placement"].as_str()),
            "{r:?}"
        );
        assert_eq!(
            r["placement"] == "sensitive",
            r["reason"].contains("where its data sits"),
            "{r:?}"
        );
    }
    // compare pairs the two variants' placement rounds: the ratio with the data moved.
    let o = run(&[
        "compare",
        out.to_str().unwrap(),
        "--pair",
        "rowmajor-wg8x8=tilex8-wg8x8",
        "--format",
        "csv",
        "--out",
        out.join("cmp").to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let h = r.headers().unwrap().clone();
    let at = |name: &str| h.iter().position(|x| x == name).unwrap();
    // compare.csv's lines (issue 29: one schema): the pair's own numbers are on `time_ns`.
    let pairs: Vec<csv::StringRecord> = r
        .records()
        .map(|x| x.unwrap())
        .filter(|x| &x[at("metric")] == "time_ns")
        .collect();
    assert!(!pairs.is_empty(), "{text}");
    for p in &pairs {
        let moved: f64 = p[at("ratio_moved")]
            .parse()
            .expect("ratio_moved is a number");
        assert!(moved > 0.0 && moved.is_finite(), "{p:?}");
        assert_eq!(
            (&p[at("fresh_base")], &p[at("fresh_new")]),
            ("none", "none")
        );
    }
}

/// `--placements 3`: every case over three placements, each a distinct allocation made by a
/// recipe from the seed (the same seed, the same recipes), recorded per round in samples.csv
/// and run.json, and the rows' estimate over the placements' means.
#[test]
fn placements_are_distinct_allocations_made_from_the_seed_and_recorded() {
    let go = |name: &str, seed: &str| {
        let (t, out) = out_dir(name);
        let o = run(&[
            "run",
            "scenarios/smoke.toml",
            "--out",
            out.to_str().unwrap(),
            "--warmup-ms",
            "0",
            "--rounds",
            "3",
            "--max-rounds",
            "3",
            "--filter",
            "wg64",
            "--filter",
            "wg128",
            "--placements",
            "3",
            "--seed",
            seed,
            "-q",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        (t, out)
    };
    let (_t1, a) = go("placements-a", "7");
    let rows = read_csv(&a.join("results.csv"));
    let ok: Vec<_> = rows.iter().filter(|r| r["status"] == "ok").collect();
    assert!(ok.len() >= 2, "{rows:?}");
    for r in &ok {
        assert_eq!(r["placements"], "3", "{r:?}");
        assert!(num(r, "placement_sd_pct") >= 0.0, "{r:?}");
        assert!(r["reason"].contains("measured over 3 placements"), "{r:?}");
        let (lo, m, hi) = (
            num(r, "rerun_low_ns"),
            num(r, "median_ns"),
            num(r, "rerun_high_ns"),
        );
        assert!(lo <= m && m <= hi, "{r:?}");
    }
    // samples.csv: kept rounds in each of the three placements, for every variant.
    let (pl, kept, var) = (
        col(&a, "samples.csv", "placement"),
        col(&a, "samples.csv", "kept"),
        col(&a, "samples.csv", "variant"),
    );
    let s = samples(&a);
    for r in &ok {
        let seen: std::collections::BTreeSet<&str> = s
            .iter()
            .filter(|x| &x[var] == r["variant"].as_str() && &x[kept] == "1")
            .map(|x| &x[pl])
            .collect();
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            ["0", "1", "2"],
            "{r:?}"
        );
    }
    // run.json: three placements per case and mode; each later one in memory of its own,
    // none where the one before it was.
    let recipes = |out: &std::path::Path| -> Vec<serde_json::Value> {
        let j = run_json(out);
        let mut all = Vec::new();
        for rec in j["rounds"].as_array().unwrap() {
            let ps = rec["placements"].as_array().unwrap();
            assert_eq!(ps.len(), 3, "{rec}");
            for (k, p) in ps.iter().enumerate() {
                assert_eq!(p["index"], k, "{p}");
                assert_eq!(p["dedicated"], k > 0, "{p}");
                assert!(!p["rounds"].as_array().unwrap().is_empty(), "{p}");
                // The memory earlier placements left stays held (lavapipe's heap is host
                // memory, far above these few KiB), so none of it can come back.
                assert_eq!(p["held_bytes"].as_u64().unwrap() > 0, k > 0, "{p}");
                if k > 0 {
                    // Held, the earlier placements' memory cannot be handed out again: no
                    // resource sits where any resource of an earlier placement sat.
                    let before: Vec<_> = ps[..k]
                        .iter()
                        .flat_map(|q| q["resources"].as_array().unwrap())
                        .map(|r| (r["memory"].clone(), r["offset"].clone()))
                        .collect();
                    for r in p["resources"].as_array().unwrap() {
                        assert_eq!(r["dedicated"], true, "{r}");
                        assert!(
                            !before.contains(&(r["memory"].clone(), r["offset"].clone())),
                            "{r} sits where an earlier placement had a resource"
                        );
                    }
                }
                all.push(serde_json::json!([p["order"], p["pad_bytes"]]));
            }
        }
        all
    };
    let first = recipes(&a);
    // The same seed makes the same placements; another seed others.
    let (_t2, b) = go("placements-b", "7");
    assert_eq!(recipes(&b), first);
    let (_t3, c) = go("placements-c", "8");
    assert_ne!(recipes(&c), first);
}

/// `--resume` measures the rest of the run as the first part was: `--fresh` and
/// `--no-placement-check` come back from run.json when not given again.
#[test]
fn resume_keeps_the_measurement_flags() {
    let (_t, out) = out_dir("placement-resume");
    let dir = out.to_str().unwrap();
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--out",
        dir,
        "--warmup-ms",
        "0",
        "--rounds",
        "3",
        "--max-rounds",
        "3",
        "--budget-ms",
        "1",
        "--fresh",
        "resources",
        "--filter",
        "wg64",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j = run_json(&out);
    assert_eq!(j["args"]["measure"]["fresh"], "resources", "{}", j["args"]);
    assert_eq!(j["args"]["measure"]["rounds"], 3);
    let o = run(&["run", "--resume", "--out", dir, "--filter", "wg128", "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    let wg128: Vec<_> = rows.iter().filter(|r| r["variant"] == "wg128").collect();
    assert!(!wg128.is_empty(), "{rows:?}");
    for r in wg128 {
        assert_eq!(r["fresh"], "resources", "{r:?}");
        assert_eq!(r["rounds"], "3", "{r:?}");
    }
    let j = run_json(&out);
    let rec = j["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["order"][0]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v == "wg128")
        })
        .expect("the resumed part's rounds")
        .clone();
    assert_eq!(rec["fresh"], "resources", "{rec}");
    // The command line that started the run stays; the resume's joins the list (issue 41).
    let first: Vec<&str> = j["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(
        first.contains(&"--fresh") && !first.contains(&"--resume"),
        "{first:?}"
    );
    let resumes = j["resume_command_lines"].as_array().unwrap();
    assert_eq!(resumes.len(), 1, "{resumes:?}");
    assert!(resumes[0]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "--resume"));
    // Given again with another value: used, with a warning naming both.
    let o = run(&[
        "run", "--resume", "--out", dir, "--filter", "wg256", "--fresh", "none",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--fresh none differs from the run's first part (resources)"),
        "{err}"
    );
    // The resume says what it restored from run.json, as flags, and not what was given now
    // (issue 41).
    let restored = err
        .lines()
        .find(|l| l.contains("--resume: restored from"))
        .unwrap_or_else(|| panic!("no restored line in {err}"));
    for flag in [
        "scenarios/smoke.toml",
        "--rounds 3",
        "--max-rounds 3",
        "--budget-ms 1",
        "--warmup-ms 0",
    ] {
        assert!(restored.contains(flag), "{flag}: {restored}");
    }
    assert!(
        !restored.contains("--fresh") && !restored.contains("--filter"),
        "{restored}"
    );
}

#[test]
fn no_placement_check_and_fresh_resources() {
    let (_t, out) = out_dir("placement-off");
    let smoke = std::path::Path::new("scenarios/smoke.toml");
    let o = quick_run(smoke, &out, &["--no-placement-check", "--filter", "wg64"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for r in &read_csv(&out.join("results.csv")) {
        assert_eq!(r["placement_pct"], "", "{r:?}");
    }
    let j = run_json(&out);
    assert!(j["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["relocations"] == 0));

    // Every round after the first on moved resources; no placement check on top.
    let (_t2, out) = out_dir("placement-fresh");
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--out",
        out.to_str().unwrap(),
        "--filter",
        "wg64",
        "--warmup-ms",
        "0",
        "--rounds",
        "4",
        "--max-rounds",
        "4",
        "--budget-ms",
        "1",
        "--fresh",
        "resources",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for r in &read_csv(&out.join("results.csv")) {
        assert_eq!(
            (r["fresh"].as_str(), r["placement_pct"].as_str()),
            ("resources", "")
        );
        assert_eq!(r["check"], "pass");
    }
    let j = run_json(&out);
    let rec = &j["rounds"][0];
    assert_eq!(rec["fresh"], "resources");
    // Every round after the first moved (a round left out as a transient is made up, and
    // moves too).
    let rounds = rec["order"].as_array().unwrap().len();
    assert!(rounds >= 4);
    assert_eq!(rec["relocations"], rounds - 1, "{rec}");
}

#[test]
fn a_bad_fresh_value_names_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string("scenarios/smoke.toml").unwrap();
    let bad = src.replacen("[measure]", "[measure]\nfresh = \"sometimes\"", 1);
    assert_ne!(bad, src, "smoke.toml has a [measure] table");
    let f = dir.path().join("bad.toml");
    std::fs::write(&f, bad).unwrap();
    let out = dir.path().join("out");
    let o = quick_run(&f, &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("measure.fresh") && err.contains("sometimes"),
        "{err}"
    );
    assert!(!out.join("results.csv").exists(), "nothing written");
}

/// `--placements N` (N >= 2) measures over N placements even where the scenario or the
/// command line turned the placement check off.
#[test]
fn fixed_placements_win_over_no_placement_check() {
    let (_t, out) = out_dir("placements-fixed");
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "--rounds",
        "2",
        "--max-rounds",
        "2",
        "--filter",
        "wg64",
        "--no-placement-check",
        "--placements",
        "2",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    let ok: Vec<_> = rows.iter().filter(|r| r["status"] == "ok").collect();
    assert!(!ok.is_empty(), "{rows:?}");
    assert!(ok.iter().all(|r| r["placements"] == "2"), "{ok:?}");
}
