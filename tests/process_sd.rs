//! `p3lab calibrate-process` on lavapipe (issue 41): the reference set in fresh processes,
//! the process-level SD cached per device and driver, and `compare` of two runs saying which
//! SD it used and where from: the measured one where the cache has it, else the conservative
//! one for a CPU device. No timed assertion: only what is written and said.
mod common;
use common::*;
use std::path::Path;

/// `p3lab ARGS` with its own cache folder `cache`: stdout, stderr, exit code.
fn p3lab(cache: &Path, args: &[&std::ffi::OsStr]) -> (String, String, Option<i32>) {
    let o = bin()
        .env("P3LAB_CACHE_DIR", cache)
        .args(args)
        .output()
        .expect("p3lab runs");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

#[test]
fn calibration_is_cached_per_device_and_compare_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (cache, out) = (tmp.path().join("cache"), tmp.path().join("cal"));
    let os = |s: &str| std::ffi::OsString::from(s);
    let args = [
        os("calibrate-process"),
        os("-o"),
        out.clone().into_os_string(),
        os("-n"),
        os("2"),
        os("--budget-ms"),
        os("20"),
        os("--warmup-ms"),
        os("0"),
    ];
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (stdout, stderr, code) = p3lab(&cache, &refs);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("measured") && stdout.contains("over 2 processes"),
        "{stdout}"
    );
    assert!(
        stdout.contains("memory") && stdout.contains("compute"),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("process_sd.json")).unwrap())
            .unwrap();
    assert_eq!(json["processes"], 2);
    assert!(json["seconds"].as_f64().unwrap() > 0.0, "{json}");
    assert_eq!(json["device_type"], "cpu");
    let kinds: Vec<&str> = json["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["memory", "compute"]);
    // Cached under the device's UUID and driver version: another driver is another file.
    let name = format!(
        "{}-{}.json",
        json["device_uuid"].as_str().unwrap(),
        json["driver_version"]
    );
    let cached = cache.join("process_sd").join(&name);
    assert!(cached.is_file(), "{}", cached.display());

    // The two processes' runs are two runs of this device: compare carries the measured SD.
    let (p1, p2) = (out.join("p1"), out.join("p2"));
    let cmp = |cache: &Path, extra: &[&str]| {
        let mut a = vec![
            os("compare"),
            p1.clone().into_os_string(),
            p2.clone().into_os_string(),
            os("-o"),
            tmp.path().join("cmp").into_os_string(),
        ];
        a.extend(extra.iter().map(|e| os(e)));
        let refs: Vec<&std::ffi::OsStr> = a.iter().map(|x| x.as_os_str()).collect();
        p3lab(cache, &refs)
    };
    let (stdout, stderr, code) = cmp(&cache, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("process level: llvmpipe")
            && stdout.contains("measured")
            && stdout.contains("over 2 processes")
            && stdout.contains(&name),
        "{stdout}"
    );
    let md = std::fs::read_to_string(tmp.path().join("cmp/compare.md")).unwrap();
    assert!(
        md.contains("Process level:") && md.contains("over 2 processes"),
        "{md}"
    );
    // Another cache (no calibration): the conservative value for a CPU device, said so.
    let (stdout, _, code) = cmp(&tmp.path().join("empty"), &[]);
    assert_eq!(code, Some(0));
    assert!(
        stdout.contains("no calibration for this device and driver")
            && stdout.contains("6 % for a CPU device"),
        "{stdout}"
    );
    // --process-sd names the file to use; one that is not JSON is bad input naming the flag.
    let file = out.join("process_sd.json");
    let (stdout, _, code) = cmp(
        &tmp.path().join("empty"),
        &["--process-sd", file.to_str().unwrap()],
    );
    assert_eq!(code, Some(0));
    assert!(stdout.contains("over 2 processes"), "{stdout}");
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    let (_, stderr, code) = cmp(&cache, &["--process-sd", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--process-sd") && stderr.contains("bad.json"),
        "{stderr}"
    );
}
