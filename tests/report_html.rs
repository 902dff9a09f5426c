//! report.html in a real browser: a lavapipe run of the smoke scenario, `p3lab report` with a
//! comparison of two of its variants, then headless Chromium (Debian's `chromium`) renders the
//! page. Checked: a screenshot of non-trivial size, no console message (errors, CSP
//! violations), and in the DOM after scripts ran, every table the sorting script prepared.
//!
//! Without Chromium the test is skipped with a message, unless P3LAB_REQUIRE_CHROMIUM is set
//! (scripts/test.sh sets it, so CI cannot skip it). P3LAB_CHROMIUM names another binary.
mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("P3LAB_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Runs headless Chromium on `page` with `args`, killed after 90 s.
fn headless(chrome: &Path, profile: &Path, args: &[&str], page: &Path) -> Output {
    let mut child = Command::new(chrome)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", chrome.display()));
    // Drain both pipes while waiting, so a full pipe cannot stall the browser.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).ok();
        v
    });
    let e = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).ok();
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(90) {
            child.kill().ok();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: o.join().unwrap(),
        stderr: e.join().unwrap(),
    }
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&bytes[16..20]), be(&bytes[20..24]))
}

#[test]
fn report_html_renders_in_headless_chromium() {
    let Some(chrome) = chromium() else {
        if std::env::var_os("P3LAB_REQUIRE_CHROMIUM").is_some() {
            panic!(
                "P3LAB_REQUIRE_CHROMIUM is set but no chromium was found: \
                 apt-get install -y chromium (scripts/setup.sh does with P3LAB_SETUP=test)"
            );
        }
        eprintln!(
            "SKIPPED report_html_renders_in_headless_chromium: no chromium on PATH \
             (apt-get install -y chromium; P3LAB_REQUIRE_CHROMIUM=1 makes this a failure)"
        );
        return;
    };
    let (tmp, out) = out_dir("run");
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "tests/data/scenarios/multipass.toml",
        "--out",
        out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "p3lab run failed");
    // The ceilings of the roofline: lavapipe peaks measured by `p3lab peak` (dram_read, l2_read,
    // fp32), as the run keeps its own copy when it has peaks.
    std::fs::copy("tests/data/peaks/lavapipe.csv", out.join("peaks.csv")).unwrap();
    let report = out.join("report");
    let o = run(&[
        "report",
        out.to_str().unwrap(),
        "--pair",
        "wg64=wg128",
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "p3lab report failed");
    let page = out.join("report").join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // The page carries what run.json says and the comparison's verdicts.
    assert!(
        html.contains("llvmpipe") && html.contains("<code>"),
        "no device/command"
    );
    assert!(
        html.contains("scenarios/smoke.toml"),
        "command line missing"
    );
    assert!(
        html.contains("class=\"sortable verdicts\""),
        "no verdict table"
    );
    assert!(
        html.contains("variant pairs within run"),
        "the compared runs are not named"
    );

    let profile = tmp.path().join("chromium-profile");
    let shot = tmp.path().join("report.png");
    let o = headless(
        &chrome,
        &profile,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,2000",
        ],
        &page,
    );
    let log = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "chromium failed:\n{log}");
    let console: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(
        console.is_empty(),
        "console messages:\n{}",
        console.join("\n")
    );
    let png = std::fs::read(&shot).expect("the screenshot exists");
    assert_eq!(png_size(&png), (1280, 2000));
    // A blank 1280x2000 page compresses to a few KB; charts, tables and text do not.
    assert!(
        png.len() > 40_000,
        "screenshot of {} bytes: blank?",
        png.len()
    );

    // The DOM after the scripts ran: every sortable table prepared.
    let o = headless(&chrome, &profile, &["--dump-dom"], &page);
    let dom = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "chromium --dump-dom failed");
    let tables = dom.matches("<table class=\"sortable").count();
    assert!(tables >= 3, "{tables} sortable tables in the DOM");
    assert_eq!(
        dom.matches("data-sortable=\"ready\"").count(),
        tables,
        "the sorting script did not prepare every table"
    );
    assert!(dom.contains("<svg"), "no inline SVG in the DOM");
    // The roofline of the scenario with declared flops, each of its rows a hoverable point.
    assert!(dom.contains("<h3>Roofline</h3>"), "no roofline");
    assert!(dom.contains("class=\"roofline\""));
    let points = dom.matches("class=\"point\"").count();
    assert!(points >= 2, "{points} roofline points");
    assert!(
        dom.contains("DRAM 5.097 GB/s"),
        "the DRAM ceiling is not drawn"
    );
    if let Ok(keep) = std::env::var("P3LAB_KEEP_REPORT_PNG") {
        std::fs::copy(&shot, keep).unwrap();
    }
}
