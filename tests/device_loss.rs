//! Recovery from a lost or hung device, end to end on lavapipe. Lavapipe can neither lose a
//! device nor time out a fence (it runs the work inside vkQueueSubmit), so the fault comes from
//! tests/fault_layer: a small Vulkan layer, built here with `cc`, that loses or hangs the
//! device when a shader with its marker constant (tests/data/glsl/fault.comp with FAULT) is
//! submitted, and answers VK_EXT_device_fault with a known description. The real p3lab binary
//! runs over the real driver; only the fault is fake.
//!
//! Every scenario in tests/data/fault checks `after` against the baseline `before`: `after`
//! runs on the new device p3lab makes, so its `pass` shows that the recovery really works.
mod common;
use common::*;
use p3lab::app::exit;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const LAYER: &str = "VK_LAYER_P3LAB_fake_fault";
/// What the layer's vkGetDeviceFaultInfoEXT says, and p3lab's count of records after it.
const DESCRIPTION: &str = "p3lab fake_fault layer: simulated fault in the marked shader";
const RECORDS: &str = "(0 address records, 0 vendor records)";
/// The layer's line when the application waits for a hung device to go idle (then it aborts).
const WAITED: &str = "on a hung device";
/// Every run here takes a second or two; a stuck one is killed and fails its test.
const DEADLINE: Duration = Duration::from_secs(120);

/// Build the layer once per test process into target/tmp/fault-layer-<pid>/ and write its
/// manifest there. A machine that cannot build it fails the tests: they never skip.
fn layer_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_layer("fault_layer", "fault", "fake_fault"))
}

#[derive(Clone, Copy, Debug)]
enum Fault {
    Lost,
    Hang,
}

struct Run {
    status: ExitStatus,
    stderr: String,
    took: Duration,
    out: PathBuf,
    _tmp: tempfile::TempDir,
}

impl Run {
    fn rows(&self) -> Vec<Row> {
        read_csv(&self.out.join("results.csv"))
    }
}

/// `p3lab run` of tests/data/fault/<scenario>.toml with the layer: `after` faulting
/// submissions on each device pass, the next one faults. Killed after DEADLINE.
fn run_faulting(fault: Fault, after: u32, scenario: &str, extra: &[&str]) -> Run {
    let (tmp, out) = out_dir("run");
    let log = tmp.path().join("stderr.txt");
    let scenario = format!("tests/data/fault/{scenario}.toml");
    let mode = match fault {
        Fault::Lost => "lost",
        Fault::Hang => "hang",
    };
    let t = Instant::now();
    let mut child = bin()
        .env("VK_ADD_LAYER_PATH", layer_dir())
        .env("VK_INSTANCE_LAYERS", LAYER)
        .env("P3LAB_FAULT", mode)
        .env("P3LAB_FAULT_AFTER", after.to_string())
        .args(["run", "--out"])
        .arg(&out)
        .arg(&scenario)
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).expect("stderr file"))
        .spawn()
        .expect("p3lab starts");
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for p3lab") {
            break s;
        }
        if t.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "p3lab ({mode}, after {after}, {scenario}) still ran after {DEADLINE:?}:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = t.elapsed();
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    eprintln!(
        "--- p3lab run {scenario} (P3LAB_FAULT={mode} P3LAB_FAULT_AFTER={after}): {status} in {took:?}\n{stderr}"
    );
    Run {
        status,
        stderr,
        took,
        out,
        _tmp: tmp,
    }
}

/// The run finished by itself with `code`, and the layer never saw p3lab wait on a hung device.
fn assert_exit(r: &Run, code: i32) {
    assert!(
        !r.stderr.contains(WAITED),
        "p3lab waited for a hung device instead of leaving it behind:\n{}",
        r.stderr
    );
    assert_eq!(r.status.code(), Some(code), "{}", r.stderr);
}

fn assert_ok_and_checked(rows: &[Row], variant: &str) {
    let r = row(rows, variant);
    assert_eq!(r["status"], "ok", "{variant}: {}", r["reason"]);
    assert_eq!(r["check"], "pass", "{variant}: {}", r["check_detail"]);
    assert_eq!(num(r, "rounds"), 2.0, "{variant} was timed in both rounds");
    // Round 1's batch holds reps_per_batch repetitions; round 0's, sized from the check run's
    // one repetition, at least 1 and at most as many.
    let (n, per) = (num(r, "n"), num(r, "reps_per_batch"));
    assert!(
        n > per && n <= 2.0 * per,
        "{variant}: n {n}, reps_per_batch {per}"
    );
    assert!(num(r, "median_ns") > 0.0, "{variant}");
}

/// An `error` row whose reason starts with `why` and carries the layer's fault description.
fn assert_faulted(rows: &[Row], variant: &str, why: &str) {
    let r = row(rows, variant);
    assert_eq!(r["status"], "error", "{variant}");
    let expected = format!("{why}; VK_EXT_device_fault: {DESCRIPTION} {RECORDS}");
    assert_eq!(r["reason"], expected, "{variant}");
    assert_eq!(r["n"], "", "{variant} has no timings");
}

/// run.json: the number of new devices, the row counts, and that VK_EXT_device_fault was
/// enabled (through the layer), so the description is the real path's.
fn assert_run_json(r: &Run, recreated: u64, ok: u64, error: u64) {
    let j = run_json(&r.out);
    assert_eq!(j["device_recreated"], recreated, "{j}");
    let count = |s: &str| j["rows"][s].as_u64().unwrap_or(0);
    assert_eq!((count("ok"), count("error")), (ok, error), "{j}");
    assert_eq!(j["complete"], true);
    let features = j["enabled"]["features"].as_array().unwrap();
    assert!(features.iter().any(|f| f == "device_fault"), "{j}");
}

/// Samples of the variants timed, none of those that failed; metrics.csv parses.
fn assert_samples(r: &Run, timed: &[&str], failed: &[&str]) {
    let samples = read_csv(&r.out.join("samples.csv"));
    let rows = r.rows();
    for v in timed {
        let n = samples
            .iter()
            .filter(|s| s["variant"] == *v && s["kept"] == "1")
            .count();
        assert_eq!(n as f64, num(row(&rows, v), "n"), "{v}: samples");
    }
    for v in failed {
        assert!(!samples.iter().any(|s| s["variant"] == *v), "{v}: samples");
    }
    let metrics = read_csv(&r.out.join("metrics.csv"));
    assert!(metrics.iter().any(|m| m["variant"] == "after"));
}

/// Is `OpConstant %t %id 0x7E57FA17` in this SPIR-V (as the layer looks for it)?
fn has_marker(spirv: &[u8]) -> bool {
    let w: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w.first(), Some(&0x0723_0203), "SPIR-V magic");
    let mut i = 5;
    while i < w.len() {
        let (len, op) = ((w[i] >> 16) as usize, w[i] & 0xffff);
        assert!(len > 0, "malformed SPIR-V");
        if op == 43 && len == 4 && w[i + 3] == 0x7E57_FA17 {
            return true;
        }
        i += len;
    }
    false
}

#[test]
fn lost_in_the_check_run_then_the_rest_runs_on_a_new_device() {
    let cache = tempfile::tempdir().unwrap();
    let r = run_faulting(
        Fault::Lost,
        0,
        "fault",
        &["--cache-dir", cache.path().to_str().unwrap()],
    );
    assert_exit(&r, exit::ROWS_FAILED);
    let rows = r.rows();
    assert_eq!(rows.len(), 3);
    let before = row(&rows, "before");
    assert_eq!(before["status"], "ok");
    assert_eq!(before["check"], "baseline");
    assert_faulted(&rows, "faults", "device lost");
    assert_eq!(
        row(&rows, "faults")["check"],
        "none",
        "lost before its check"
    );
    assert_ok_and_checked(&rows, "after");
    assert_run_json(&r, 1, 2, 1);
    assert_samples(&r, &["before", "after"], &["faults"]);
    assert!(r.stderr.contains("the device is now lost"), "{}", r.stderr);

    // The optimizer kept the marker in the faulting variant's SPIR-V, and only there.
    let mut marked = 0;
    let mut files = 0;
    for e in std::fs::read_dir(cache.path()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "spv") {
            files += 1;
            marked += usize::from(has_marker(&std::fs::read(&p).unwrap()));
        }
    }
    // Three files: the two variants' and p3lab's clock gauge (glsl/common/p3lab_clock.comp).
    assert_eq!(
        (files, marked),
        (3, 1),
        "SPIR-V files and those with the marker"
    );
}

#[test]
fn hang_times_out_and_the_hung_device_is_left_behind() {
    let r = run_faulting(Fault::Hang, 0, "fault", &[]);
    assert_exit(&r, exit::ROWS_FAILED);
    let rows = r.rows();
    assert_eq!(row(&rows, "before")["status"], "ok");
    assert_faulted(&rows, "faults", "the GPU did not finish within 500 ms");
    assert_ok_and_checked(&rows, "after");
    assert_run_json(&r, 1, 2, 1);
    assert_samples(&r, &["before", "after"], &["faults"]);
    assert!(r.stderr.contains("the device is now hung"), "{}", r.stderr);
    // The 500 ms fence timeout, not the layer's 20 s before it aborts an idle wait.
    assert!(r.took < Duration::from_secs(10), "took {:?}", r.took);
}

#[test]
fn lost_in_the_timed_repetitions() {
    // Per variant: the check run, then one batch per round: the third (round 1) faults.
    let r = run_faulting(Fault::Lost, 2, "timing", &[]);
    assert_exit(&r, exit::ROWS_FAILED);
    let rows = r.rows();
    assert_faulted(&rows, "faults", "device lost");
    assert_eq!(
        row(&rows, "faults")["check"],
        "pass",
        "checked before it was lost"
    );
    assert_ok_and_checked(&rows, "after");
    assert_run_json(&r, 1, 2, 1);
    assert_samples(&r, &["before", "after"], &["faults"]);
}

#[test]
fn hang_in_the_warm_up() {
    // With a warm-up, the marked variant's first warm-up batch is its second submission.
    let r = run_faulting(Fault::Hang, 1, "timing", &["--warmup-ms", "1"]);
    assert_exit(&r, exit::ROWS_FAILED);
    let rows = r.rows();
    assert_faulted(&rows, "faults", "the GPU did not finish within 500 ms");
    assert_eq!(row(&rows, "faults")["check"], "pass");
    assert_ok_and_checked(&rows, "after");
    assert_run_json(&r, 1, 2, 1);
    assert_samples(&r, &["before", "after"], &["faults"]);
    assert!(r.took < Duration::from_secs(10), "took {:?}", r.took);
}

#[test]
fn without_a_fault_the_layer_changes_nothing() {
    // Three marked submissions per variant pass through (the check run and two rounds): the
    // marked variant runs, is checked and timed like the others, and no device is replaced.
    // This pins the count the tests above place their faults by.
    let r = run_faulting(Fault::Lost, 3, "timing", &[]);
    assert_exit(&r, exit::OK);
    let rows = r.rows();
    assert_ok_and_checked(&rows, "faults");
    assert_ok_and_checked(&rows, "after");
    assert_run_json(&r, 0, 3, 0);
    assert!(!r.stderr.contains("the device is now"), "{}", r.stderr);
}

#[test]
fn two_hangs_two_new_devices() {
    let r = run_faulting(Fault::Hang, 0, "twice", &[]);
    assert_exit(&r, exit::ROWS_FAILED);
    let rows = r.rows();
    assert_eq!(rows.len(), 5);
    for v in ["faults", "faults-again"] {
        assert_faulted(&rows, v, "the GPU did not finish within 500 ms");
    }
    for v in ["between", "after"] {
        assert_ok_and_checked(&rows, v);
    }
    assert_run_json(&r, 2, 3, 2);
    assert_samples(
        &r,
        &["before", "between", "after"],
        &["faults", "faults-again"],
    );
    assert_eq!(r.stderr.matches("the device is now hung").count(), 2);
    assert!(r.took < Duration::from_secs(15), "took {:?}", r.took);
}

#[test]
fn a_fault_in_the_placement_check_keeps_the_rows_already_measured() {
    // The check run and both rounds pass; the fourth marked submission, `faults`' placement
    // check round, loses the device. Its row is the error; the others, whose rows wait for
    // the placement check, are still written, from the rounds they ran before it.
    let r = run_faulting(Fault::Lost, 3, "placement", &[]);
    assert_exit(&r, exit::ROWS_FAILED);
    let rows = r.rows();
    assert_faulted(&rows, "faults", "device lost");
    assert_ok_and_checked(&rows, "after");
    assert_run_json(&r, 1, 2, 1);
    assert_samples(&r, &["after"], &["faults"]);
}
