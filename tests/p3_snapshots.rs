//! Snapshot tests of the P3 comparison and report on committed run folders (tests/data/p3/:
//! two lavapipe runs of smoke + multipass, a lavapipe occupancy sweep, an H200 saxpy run in the
//! older schema without a `mode` column), plus the verdict rule, pair mode, non-ok rows and
//! load errors.
//!
//! `P3LAB_UPDATE_SNAPSHOTS=1 cargo test --test p3_snapshots` rewrites tests/data/p3/expected/.
mod common;
use p3lab::p3::compare::{
    cross_device_refusal, verdict_for_ci, CompareOptions, Method, PairSpec, Verdict,
};
use p3lab::p3::{
    compare, has_regression, load_run, report, to_csv, to_markdown, to_table, Compared, RunData,
    RunMeta,
};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/p3")
        .join(name)
}

fn load(name: &str) -> RunData {
    load_run(&data(name)).unwrap_or_else(|e| panic!("{name}: {e:#}"))
}

/// Compare `actual` with the snapshot `name` (common::snapshot).
fn snapshot(name: &str, actual: &str) {
    common::snapshot(&data("expected").join(name), actual);
}

fn opts() -> CompareOptions {
    CompareOptions {
        seed: 42,
        ..CompareOptions::default()
    }
}

#[test]
fn compare_two_lavapipe_runs_snapshot() {
    let (a, b) = (load("lavapipe-a"), load("lavapipe-b"));
    let c = compare(&a, &b, &opts());
    // Same seed, same bytes.
    assert_eq!(to_csv(&c), to_csv(&compare(&a, &b, &opts())));
    snapshot("lavapipe-a-vs-b.csv", &to_csv(&c));
    snapshot("lavapipe-a-vs-b.md", &to_markdown(&c));
    snapshot("lavapipe-a-vs-b.txt", &to_table(&c));
    // 9 ok rows + the unsupported wg64-sg32.
    assert_eq!(c.rows.len(), 10);
    let nc = c
        .rows
        .iter()
        .find(|r| r.variant_base == "wg64-sg32")
        .unwrap();
    match &nc.verdict {
        Verdict::NotComparable(why) => assert!(why.contains("unsupported"), "{why}"),
        v => panic!("{v:?}"),
    }
    // multipass has 4 repetitions per variant: warned.
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("multipass") && w.contains("fewer than 10")));
    let csv = to_csv(&c);
    assert!(csv.starts_with(
        "scenario,variant_base,variant_new,params,mode,metric,before,after,ratio,ci_low,ci_high,p_value,verdict,reason,method,n,cross_device,limiter_before,limiter_after,ratio_moved,placement,fresh_base,fresh_new\n"
    ));
    // Runs without round columns keep the bootstrap over repetitions.
    assert!(c
        .rows
        .iter()
        .filter(|r| r.verdict.as_str() != "not comparable")
        .all(|r| r.method == Some(Method::Repetitions) && !r.cross_device));
}

#[test]
fn repetition_time_is_the_sum_of_passes() {
    let a = load("lavapipe-a");
    for r in &a.results {
        if r.status() != p3lab::results::RowStatus::Ok {
            continue;
        }
        let mut t = a.repetition_times(&r.key());
        t.sort_by(f64::total_cmp);
        assert_eq!(t.len() as f64, r.num("n").unwrap());
        let m = p3lab::stats::median(&t);
        if r.num("dispatches") == Some(1.0) {
            // Single pass: exactly results.csv's median.
            assert_eq!(Some(m), r.num("median_ns"), "{}", r.key());
        } else {
            // Multi-pass: results.csv spans first begin to last end, barriers included, so
            // it is at least the sum of the passes.
            assert!(m <= r.num("median_ns").unwrap(), "{}", r.key());
        }
    }
}

#[test]
fn pair_mode_within_one_run() {
    let run = load("h200-saxpy");
    let o = CompareOptions {
        pairs: vec![
            PairSpec::new("wg64-x1", "wg64-x4"),
            PairSpec::new("wg64-x1", "wg64-x1-sg32"),
            PairSpec::new("wg64-x1", "nope"),
        ],
        ..opts()
    };
    let c = compare(&run, &run, &o);
    snapshot("h200-saxpy-pairs.csv", &to_csv(&c));
    assert_eq!(c.rows.len(), 2, "{:?}", c.warnings);
    let x4 = &c.rows[0];
    assert_eq!(
        (x4.variant_base.as_str(), x4.variant_new.as_str()),
        ("wg64-x1", "wg64-x4")
    );
    // 633 µs -> 220 µs on the H200, with 10 tight samples each.
    assert_eq!(x4.verdict, Verdict::Improved);
    assert!(x4.ratio().unwrap() < 1.0 / 2.8);
    let (lo, hi) = x4.ratio_ci.unwrap();
    assert!(lo <= hi && hi < 0.99);
    // The old schema has no `mode` column: rows read as warm.
    assert_eq!(x4.mode, "warm");
    // A Figure-4 metric from metrics.csv present on both sides.
    let regs = x4
        .metrics
        .iter()
        .find(|m| m.name == "executable_statistic/Register Count")
        .unwrap();
    assert!(regs.before.is_some() && regs.after.is_some());
    // The same kernel under another name: within noise.
    assert_eq!(c.rows[1].verdict, Verdict::NoChange);
    assert!(c.warnings.iter().any(|w| w.contains("nope")));
    assert!(!has_regression(&c, false));
    // Reversed, the same pair regresses.
    let rev = CompareOptions {
        pairs: vec![PairSpec::new("wg64-x4", "wg64-x1")],
        ..opts()
    };
    let c = compare(&run, &run, &rev);
    assert_eq!(c.rows[0].verdict, Verdict::Regressed);
    assert!(has_regression(&c, false));
}

#[test]
fn verdict_rule() {
    // Entirely below 1 - 1 %: improved.
    assert_eq!(verdict_for_ci((0.80, 0.985), 1.0), Verdict::Improved);
    // Straddling 1: no change, however far the point estimate moved.
    assert_eq!(verdict_for_ci((0.70, 1.02), 1.0), Verdict::NoChange);
    // Below 1 but reaching into the noise band: no change.
    assert_eq!(verdict_for_ci((0.95, 0.995), 1.0), Verdict::NoChange);
    assert_eq!(verdict_for_ci((1.02, 1.3), 1.0), Verdict::Regressed);
    assert_eq!(verdict_for_ci((1.02, 1.3), 5.0), Verdict::NoChange);
}

#[test]
fn a_run_against_itself_has_no_change() {
    let a = load("lavapipe-a");
    let c = compare(&a, &a, &opts());
    for r in &c.rows {
        if let Verdict::NotComparable(_) = r.verdict {
            continue;
        }
        assert_eq!(r.verdict, Verdict::NoChange, "{r:?}");
        assert_eq!(r.change_pct, Some(0.0));
        assert!(r.p_value.unwrap() > 0.9);
    }
}

#[test]
fn not_ok_rows_are_not_comparable() {
    let a = load("lavapipe-a");
    let mut b = a.clone();
    let row = b
        .results
        .iter_mut()
        .find(|r| r.get("variant") == "wg128")
        .unwrap();
    row.set("status", "check_failed").unwrap();
    row.set("reason", "vs baseline: dst: 3 of 4096 differ")
        .unwrap();
    let c = compare(&a, &b, &opts());
    let r = c.rows.iter().find(|r| r.variant_base == "wg128").unwrap();
    assert_eq!(r.verdict.as_str(), "not comparable");
    assert!(
        r.verdict
            .reason()
            .contains("new `wg128` is check_failed: vs baseline"),
        "{:?}",
        r.verdict
    );
    assert_eq!(r.ratio_ci, None);
    let csv = to_csv(&c);
    assert!(
        csv.contains(",not comparable,new `wg128` is check_failed"),
        "{csv}"
    );
}

/// The report of `run` (with its folder's run.json, absent in these fixtures) and, with
/// `base`, a comparison against it.
fn report_of(run: &RunData, base: Option<&RunData>) -> p3lab::p3::Report {
    let meta = RunMeta::load(&run.dir);
    match base {
        Some(b) => {
            let c = compare(b, run, &opts());
            report(
                run,
                &meta,
                Some(Compared {
                    base: b,
                    comparison: &c,
                }),
            )
        }
        None => report(run, &meta, None),
    }
}

/// Snapshots report.md and every SVG under expected/`dir`/.
fn snapshot_report(dir: &str, rep: &p3lab::p3::Report) {
    snapshot(&format!("{dir}/report.md"), &rep.markdown);
    for (name, svg) in &rep.svgs {
        assert!(
            rep.markdown.contains(&format!("]({name})")),
            "{name} not linked"
        );
        assert!(
            rep.html.contains(svg.trim_end()),
            "{name} not inline in the HTML"
        );
        snapshot(&format!("{dir}/{name}"), svg);
    }
}

#[test]
fn report_snapshot_with_sweeps_and_comparison() {
    let (a, b) = (load("lavapipe-a"), load("lavapipe-b"));
    let rep = report_of(&b, Some(&a));
    snapshot_report("report-lavapipe", &rep);
    let names: Vec<&str> = rep.svgs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "smoke-medians.svg",
            "smoke-sweep-WG.svg",
            "multipass-medians-n100.svg",
            "multipass-medians-n1000.svg",
            "comparison-smoke-ratio.svg",
            "comparison-multipass-ratio.svg"
        ]
    );
    // Every comparison chart names the base run; labels keep what tells the pairs apart.
    for (name, svg) in rep
        .svgs
        .iter()
        .filter(|(n, _)| n.starts_with("comparison-"))
    {
        assert!(
            svg.contains("base: run 20261121T223140Z-6d657361 (folder lavapipe-a) · new: run 20261121T223141Z-6d657361 (folder lavapipe-b)"),
            "{name}"
        );
    }
    let multipass = &rep.svgs[5].1;
    for label in ["wg32 [n=100]", "wg64 [n=1000]", "mode=warm"] {
        assert!(multipass.contains(label), "{label}: {multipass}");
    }
    assert!(
        !rep.svgs.iter().any(|(_, s)| s.contains('…')),
        "a label was cut"
    );
    assert!(rep.markdown.contains("the folder has no run.json"));

    let occ = report_of(&load("lavapipe-occupancy"), None);
    snapshot_report("report-occupancy", &occ);
    let names: Vec<&str> = occ.svgs.iter().map(|(n, _)| n.as_str()).collect();
    // One medians chart per params case (wg), each sweep split by it too.
    assert!(names.contains(&"occupancy-medians-wg1024.svg"), "{names:?}");
    assert!(
        names.contains(&"occupancy-sweep-NREG-wg64.svg"),
        "{names:?}"
    );
    assert!(names.contains(&"occupancy-sweep-wg.svg"), "{names:?}");
    // WG copies the param wg: one sweep, not two.
    assert!(!names.iter().any(|n| n.contains("sweep-WG")), "{names:?}");

    let gpu = report_of(&load("h200-saxpy"), None);
    snapshot_report("report-h200-saxpy", &gpu);
}

#[test]
fn write_report_writes_linked_files() {
    let a = load("lavapipe-a");
    let rep = report_of(&a, None);
    let dir = tempfile::tempdir().unwrap();
    p3lab::p3::write_report(&rep, dir.path()).unwrap();
    assert!(dir.path().join("report.md").is_file());
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    for (name, _) in &rep.svgs {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
}

#[test]
fn load_accepts_results_csv_path_and_tolerates_extra_columns() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["results.csv", "samples.csv", "metrics.csv"] {
        let text = std::fs::read_to_string(data("lavapipe-a").join(f)).unwrap();
        // A future column appended to every line.
        let text: String = text
            .lines()
            .enumerate()
            .map(|(i, l)| format!("{l},{}\n", if i == 0 { "future_col" } else { "x" }))
            .collect();
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    let run = load_run(&dir.path().join("results.csv")).unwrap();
    assert_eq!(run.results.len(), 10);
    assert_eq!(run.results[0].get("future_col"), "x");
    let c = compare(&run, &load("lavapipe-a"), &opts());
    assert!(c.rows.iter().all(|r| r.verdict != Verdict::Regressed));
}

/// Reports keep samples.csv and metrics.csv gzipped: a folder with `.csv.gz` copies loads
/// exactly as the plain one (results.csv too), and a damaged copy is an error naming it.
#[test]
fn load_reads_gzipped_csv_files() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    for f in ["results.csv", "samples.csv", "metrics.csv"] {
        let text = std::fs::read(data("lavapipe-a").join(f)).unwrap();
        let out = std::fs::File::create(dir.path().join(format!("{f}.gz"))).unwrap();
        let mut gz = flate2::write::GzEncoder::new(out, flate2::Compression::default());
        gz.write_all(&text).unwrap();
        gz.finish().unwrap();
    }
    let (plain, gz) = (load("lavapipe-a"), load_run(dir.path()).unwrap());
    assert!(gz.notes.is_empty(), "{:?}", gz.notes);
    assert_eq!(gz.results.len(), plain.results.len());
    assert_eq!(gz.samples.len(), plain.samples.len());
    assert_eq!(gz.metrics.len(), plain.metrics.len());
    assert_eq!(
        to_csv(&compare(&plain, &gz, &opts())),
        to_csv(&compare(&plain, &plain, &opts()))
    );
    // A plain file wins over a gzipped one beside it.
    std::fs::write(dir.path().join("samples.csv.gz"), b"\x1f\x8b not gzip").unwrap();
    let e = format!("{:#}", load_run(dir.path()).unwrap_err());
    assert!(
        e.contains("samples.csv.gz") && e.contains("malformed CSV"),
        "{e}"
    );
    std::fs::copy(
        data("lavapipe-a").join("samples.csv"),
        dir.path().join("samples.csv"),
    )
    .unwrap();
    assert_eq!(
        load_run(dir.path()).unwrap().samples.len(),
        plain.samples.len()
    );
}

fn write_run(results: &str, samples: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("results.csv"), results).unwrap();
    if let Some(s) = samples {
        std::fs::write(dir.path().join("samples.csv"), s).unwrap();
    }
    dir
}

fn err(dir: &tempfile::TempDir) -> String {
    format!("{:#}", load_run(dir.path()).unwrap_err())
}

#[test]
fn malformed_csv_errors_name_file_and_line() {
    let head = "schema_version,scenario,variant,status,params,median_ns\n";
    // Line 3 has a field too many.
    let d = write_run(&format!("{head}1,s,a,ok,,10\n1,s,b,ok,,20,oops\n"), None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:3:") && e.contains("7 fields"),
        "{e}"
    );

    let d = write_run(&format!("{head}1,s,a,ok,,10\n1,s,b,ok,,fast\n"), None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:3:") && e.contains("`median_ns`") && e.contains("fast"),
        "{e}"
    );

    let d = write_run(
        &format!("{head}1,s,a,ok,,10\n"),
        Some("scenario,variant,params,repetition,dispatch,gpu_ns\ns,a,,0,0,1\ns,a,,x,0,2\n"),
    );
    let e = err(&d);
    assert!(
        e.contains("samples.csv:3:") && e.contains("`repetition`"),
        "{e}"
    );

    let d = write_run(&format!("{head}3,s,a,ok,,10\n"), None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:2:") && e.contains("schema_version 3"),
        "{e}"
    );

    let d = write_run("scenario,variant,status\ns,a,ok\n", None);
    let e = err(&d);
    assert!(
        e.contains("results.csv:1:") && e.contains("`schema_version`"),
        "{e}"
    );

    // No samples.csv: loads, with a note that becomes a comparison warning; no CI.
    let d = write_run(&format!("{head}1,s,a,ok,,10\n"), None);
    let run = load_run(d.path()).unwrap();
    assert!(run.notes.iter().any(|n| n.contains("samples.csv")));
    let c = compare(&run, &run, &opts());
    assert!(c.warnings.iter().any(|w| w.contains("samples.csv")));
    assert_eq!(c.rows[0].verdict.as_str(), "not comparable");
    assert_eq!(c.rows[0].median_base_ns, Some(10.0));
}

// ---------------------------------------------------------------------------------------
// Runs timed in rounds (samples.csv's `round`, `round_position`, `batch_repetition`, `kept`).

/// A device as results.csv describes it: name, uuid, driver_info, driver_version.
type Device = (&'static str, &'static str, &'static str, &'static str);
const H200: Device = (
    "NVIDIA H200",
    "ea214eb59946a2879d08f353a15055ec",
    "580.159.04",
    "2435301632",
);
const H100: Device = (
    "NVIDIA H100 80GB HBM3",
    "0b2c5d1e9f8a7c6b5a4d3e2f1a0b9c8d",
    "580.159.04",
    "2435301632",
);

/// Shared round-to-round drift of ±5 %; round 0 is a slow warm-up round (kept = 0).
const DRIFT: [f64; 9] = [1.10, 1.0, 1.05, 0.95, 1.03, 0.97, 1.01, 0.96, 1.04];

/// A run folder as `p3lab run` writes it now: each variant timed in `times.len()` rounds of 5
/// timed repetitions (2 passes each), the first round discarded as warm-up; `times[k]` is
/// round k's median repetition time. Variants take turns in each round's order.
fn rounds_run(run_id: &str, device: Device, variants: &[(&str, Vec<f64>)]) -> tempfile::TempDir {
    let (name, uuid, info, version) = device;
    let mut results = String::from(
        "schema_version,run_id,scenario,variant,status,reason,device_name,driver_name,driver_info,\
         params,dispatches,n,median_ns,device_uuid,driver_version,host,mode,rounds\n",
    );
    let mut samples = String::from(
        "run_id,scenario,variant,params,repetition,dispatch,gpu_ns,mode,repetition_ns,round,\
         round_position,batch_repetition,kept\n",
    );
    const JITTER: [f64; 5] = [0.999, 1.0, 1.001, 0.9995, 1.0005];
    for (vi, (variant, times)) in variants.iter().enumerate() {
        let kept = &times[1..];
        let mean = kept.iter().sum::<f64>() / kept.len() as f64;
        results.push_str(&format!(
            "1,{run_id},k,{variant},ok,,{name},NVIDIA,{info},n=1024,2,{},{mean},{uuid},{version},lab,warm,{}\n",
            kept.len() * JITTER.len(),
            kept.len()
        ));
        let mut rep = 0;
        for (round, t) in times.iter().enumerate() {
            let position = (vi + round) % variants.len();
            for (b, j) in JITTER.iter().enumerate() {
                let span = t * j;
                for dispatch in 0..2 {
                    samples.push_str(&format!(
                        "{run_id},k,{variant},n=1024,{rep},{dispatch},{},warm,{span},{round},{position},{b},{}\n",
                        span * 0.45,
                        u8::from(round > 0)
                    ));
                }
                rep += 1;
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("results.csv"), results).unwrap();
    std::fs::write(dir.path().join("samples.csv"), samples).unwrap();
    dir
}

fn drifting(base_ns: f64) -> Vec<f64> {
    DRIFT.iter().map(|d| base_ns * d).collect()
}

fn pair(base: &str, new: &str) -> CompareOptions {
    CompareOptions {
        pairs: vec![PairSpec::new(base, new)],
        ..opts()
    }
}

#[test]
fn paired_rounds_find_a_change_that_drift_hides_between_runs() {
    // Within one run both variants see the same ±5 % drift; `new` is 2 % faster throughout.
    let dir = rounds_run(
        "run-1",
        H200,
        &[("base", drifting(100_000.0)), ("new", drifting(98_000.0))],
    );
    let run = load_run(dir.path()).unwrap();
    assert_eq!(
        run.round_medians(&run.results[0].key())
            .iter()
            .map(|(r, _)| *r)
            .collect::<Vec<_>>(),
        (1..9).collect::<Vec<u32>>(),
        "the warm-up round is not kept"
    );
    let c = compare(&run, &run, &pair("base", "new"));
    let r = &c.rows[0];
    assert_eq!(r.method, Some(Method::PairedRounds));
    assert_eq!((r.n, r.n_base, r.n_new), (Some(8), 8, 8));
    assert_eq!(r.verdict, Verdict::Improved, "{r:?}");
    let (lo, hi) = r.ratio_ci.unwrap();
    assert!(lo <= 0.98 && (0.98..0.99).contains(&hi), "{lo} {hi}");
    assert!((r.change_pct.unwrap() + 2.0).abs() < 1e-9);
    assert!(!r.cross_device);
    // The time is results.csv's estimate: the mean of the kept round medians.
    let mean = DRIFT[1..].iter().sum::<f64>() / 8.0 * 100_000.0;
    assert!((r.median_base_ns.unwrap() / mean - 1.0).abs() < 1e-12);
    let csv = to_csv(&c);
    let time = csv.lines().find(|l| l.contains(",time_ns,")).unwrap();
    // These fixtures have no limiter, placement or fresh columns: the last six cells stay
    // empty.
    assert!(
        time.ends_with(",improved,,paired_rounds,8,0,,,,,,"),
        "{time}"
    );
    assert!(to_table(&c).contains("n = 8 paired rounds  => IMPROVED"));

    // Two runs: the same times, but nothing pairs round k of one run with round k of the
    // other, and Welch's interval over the drifting round medians straddles 1.
    let (a, b) = (
        rounds_run("run-a", H200, &[("k1", drifting(100_000.0))]),
        rounds_run("run-b", H200, &[("k1", drifting(98_000.0))]),
    );
    let c = compare(
        &load_run(a.path()).unwrap(),
        &load_run(b.path()).unwrap(),
        &opts(),
    );
    let r = &c.rows[0];
    assert_eq!(r.method, Some(Method::UnpairedRounds));
    assert_eq!(r.verdict, Verdict::NoChange, "{r:?}");
    let (lo, hi) = r.ratio_ci.unwrap();
    assert!(lo < 0.98 && hi > 1.0, "{lo} {hi}");
    assert!(to_table(&c).contains("n = 8/8 rounds  => NO CHANGE"));
}

#[test]
fn a_a_comparisons_of_rounds_have_no_change() {
    // `same` is `base` again, with its own ±0.3 % round-to-round noise on top of the drift.
    let noise = [1.0, 1.003, 0.998, 1.001, 0.997, 1.002, 0.999, 1.0, 1.001];
    let same: Vec<f64> = drifting(100_000.0)
        .iter()
        .zip(noise)
        .map(|(t, e)| t * e)
        .collect();
    let dir = rounds_run(
        "run-1",
        H200,
        &[("base", drifting(100_000.0)), ("same", same)],
    );
    // The same folder twice (loaded twice, as the command line does).
    let (a, b) = (load_run(dir.path()).unwrap(), load_run(dir.path()).unwrap());
    let c = compare(&a, &b, &opts());
    assert_eq!(c.rows.len(), 2);
    for r in &c.rows {
        assert_eq!(r.verdict, Verdict::NoChange, "{r:?}");
        assert_eq!(r.method, Some(Method::PairedRounds));
        assert_eq!(r.change_pct, Some(0.0));
    }
    assert!(cross_device_refusal(&c).is_none());
    // Two names for one kernel within the run.
    let c = compare(&a, &a, &pair("base", "same"));
    assert_eq!(c.rows[0].verdict, Verdict::NoChange, "{:?}", c.rows[0]);
    assert!(c.rows[0].p_value.unwrap() > 0.05);
}

#[test]
fn cross_device_pairs_are_refused_unless_allowed_and_then_marked() {
    let a = rounds_run("run-a", H200, &[("k1", drifting(100_000.0))]);
    let b = rounds_run("run-b", H100, &[("k1", drifting(60_000.0))]);
    let (ra, rb) = (load_run(a.path()).unwrap(), load_run(b.path()).unwrap());
    let c = compare(&ra, &rb, &opts());
    assert!(c.rows[0].cross_device);
    let why = cross_device_refusal(&c).unwrap();
    assert!(
        why.contains("NVIDIA H200") && why.contains("NVIDIA H100 80GB HBM3"),
        "{why}"
    );
    assert!(to_table(&c).contains("(warm) [cross-device]"));
    // One wording in every output (issue 29): the Markdown said "**improved**" here.
    assert!(to_markdown(&c).contains("**faster** [cross-device]"));
    assert!(!to_markdown(&c).contains("**improved** [cross-device]"));
    assert!(to_csv(&c).lines().skip(1).all(|l| l.ends_with(",1,,,,,,")));

    // Same GPU, another driver: refused too, naming both drivers.
    let newer = ("NVIDIA H200", H200.1, "590.10", "2474639360");
    let d = rounds_run("run-d", newer, &[("k1", drifting(100_000.0))]);
    let c = compare(&ra, &load_run(d.path()).unwrap(), &opts());
    let why = cross_device_refusal(&c).unwrap();
    assert!(
        why.contains("580.159.04") && why.contains("590.10"),
        "{why}"
    );

    // The command line: exit 2 with both devices named, or marked output with the flag.
    let exe = env!("CARGO_BIN_EXE_p3lab");
    let out = tempfile::tempdir().unwrap();
    let run = |extra: &[&str]| {
        std::process::Command::new(exe)
            .arg("compare")
            .args([a.path(), b.path()])
            .arg("--out")
            .arg(out.path())
            .args(extra)
            .output()
            .unwrap()
    };
    let refused = run(&[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("NVIDIA H200")
            && stderr.contains("NVIDIA H100 80GB HBM3")
            && stderr.contains("--allow-cross-device"),
        "{stderr}"
    );
    assert!(!out.path().join("compare.csv").exists());
    let allowed = run(&["--allow-cross-device"]);
    assert_eq!(allowed.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&allowed.stdout);
    // Across devices a ratio is faster or slower, not improved or regressed (issue 29).
    assert!(
        stdout.contains("faster [cross-device]")
            && stdout.contains("0 improved, 0 regressed, 1 faster and 0 slower across devices")
            && !stdout.contains("improved [cross-device]"),
        "{stdout}"
    );
    // compare.csv's verdict column and report.html's comparison table say the same word.
    let csv = std::fs::read_to_string(out.path().join("compare.csv")).unwrap();
    let time_line = csv.lines().find(|l| l.contains(",time_ns,")).unwrap();
    assert!(time_line.contains(",faster,"), "{time_line}");
    let rep = tempfile::tempdir().unwrap();
    let html = std::process::Command::new(exe)
        .arg("report")
        .arg(b.path())
        .arg("--compare")
        .arg(a.path())
        .arg("--allow-cross-device")
        .arg("-o")
        .arg(rep.path())
        .output()
        .unwrap();
    assert_eq!(html.status.code(), Some(0), "{html:?}");
    let html = std::fs::read_to_string(rep.path().join("report.html")).unwrap();
    assert!(
        html.contains("faster [cross-device]") && !html.contains("improved [cross-device]"),
        "report.html's verdict"
    );

    // Another card of the same model and driver: compared, with a note, not cross-device.
    let twin = (H200.0, "0000-other-card", H200.2, H200.3);
    let e = rounds_run("run-e", twin, &[("k1", drifting(100_000.0))]);
    let c = compare(&ra, &load_run(e.path()).unwrap(), &opts());
    assert!(!c.rows[0].cross_device && cross_device_refusal(&c).is_none());
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("two cards of one model and driver")),
        "{:?}",
        c.warnings
    );
    let csv = std::fs::read_to_string(out.path().join("compare.csv")).unwrap();
    assert!(csv
        .lines()
        .next()
        .unwrap()
        .ends_with(",method,n,cross_device,limiter_before,limiter_after,ratio_moved,placement,fresh_base,fresh_new"));
}

#[test]
fn a_run_without_round_columns_still_compares() {
    let head =
        "schema_version,run_id,scenario,variant,status,device_name,params,dispatches,n,median_ns\n";
    let mut samples = String::from("run_id,scenario,variant,params,repetition,dispatch,gpu_ns\n");
    for (variant, t) in [("base", 100_000.0), ("new", 80_000.0)] {
        for rep in 0..12 {
            let jitter = 1.0 + (rep % 4) as f64 * 0.002;
            samples.push_str(&format!("old,k,{variant},,{rep},0,{}\n", t * jitter));
        }
    }
    let d = write_run(
        &format!("{head}1,old,k,base,ok,GPU,,1,12,100300\n1,old,k,new,ok,GPU,,1,12,80240\n"),
        Some(&samples),
    );
    let run = load_run(d.path()).unwrap();
    assert!(run.round_medians(&run.results[0].key()).is_empty());
    let c = compare(&run, &run, &pair("base", "new"));
    let r = &c.rows[0];
    assert_eq!(r.method, Some(Method::Repetitions));
    assert_eq!((r.n, r.n_base, r.n_new), (Some(12), 12, 12));
    assert_eq!(r.verdict, Verdict::Improved, "{r:?}");
    assert!(to_csv(&c).contains(",improved,,repetitions,12,0,,,,,,\n"));
}
