//! Hostile input and outputs through the real binary (issue 30): a CSV header with a column
//! twice is refused naming the file, line and column; no command writes through an output
//! path that is a symbolic link (the link's target stays as it was, and nothing is written).
mod common;
use common::*;
use std::fs;
use std::path::{Path, PathBuf};

fn p3_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/p3")
        .join(name)
}

/// A copy of the run folder `from` at `to`.
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// `file` with a second `median_ns` column at the end: every row's value times ten.
fn duplicate_median(file: &Path) {
    let mut r = csv::Reader::from_path(file).unwrap();
    let mut header = r.headers().unwrap().clone();
    let col = header.iter().position(|h| h == "median_ns").unwrap();
    header.push_field("median_ns");
    let mut w = csv::Writer::from_writer(vec![]);
    w.write_record(&header).unwrap();
    for rec in r.records() {
        let mut rec = rec.unwrap();
        let tenfold = rec[col]
            .parse::<f64>()
            .map(|x| (x * 10.0).to_string())
            .unwrap_or_default();
        rec.push_field(&tenfold);
        w.write_record(&rec).unwrap();
    }
    fs::write(file, w.into_inner().unwrap()).unwrap();
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_duplicated_column_is_refused_by_compare_and_report() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    copy_dir(&p3_data("lavapipe-a"), &a);
    let new = p3_data("lavapipe-b");
    let cmp = t.path().join("cmp");
    let (a_s, new_s, cmp_s) = (
        a.to_str().unwrap(),
        new.to_str().unwrap(),
        cmp.to_str().unwrap(),
    );
    // The copy compares as it is.
    let o = run(&["compare", a_s, new_s, "--out", cmp_s, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    fs::remove_dir_all(&cmp).unwrap();

    duplicate_median(&a.join("results.csv"));
    let want = format!(
        "{}:1: column `median_ns` appears twice",
        a.join("results.csv").display()
    );
    let o = run(&["compare", a_s, new_s, "--out", cmp_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(!cmp.exists(), "nothing is written");
    // The same with the copy as the new run, and in a report.
    let o = run(&["compare", new_s, a_s, "--out", cmp_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    let report = t.path().join("report");
    let o = run(&["report", a_s, "--out", report.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&want), "{}", stderr(&o));
    assert!(!report.exists(), "nothing is written");

    // samples.csv too: a second `round` column.
    let b = t.path().join("b");
    copy_dir(&p3_data("lavapipe-a"), &b);
    let samples = b.join("samples.csv");
    let text = fs::read_to_string(&samples).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let first = head.split(',').next().unwrap().to_string();
    let mut edited = format!("{head},{first}\n");
    for line in rest.lines() {
        edited.push_str(&format!("{line},{}\n", line.split(',').next().unwrap()));
    }
    fs::write(&samples, edited).unwrap();
    let o = run(&["compare", b.to_str().unwrap(), new_s, "--out", cmp_s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "{}:1: column `{first}` appears twice",
            samples.display()
        )),
        "{}",
        stderr(&o)
    );
}

/// A file outside the output folder, and a link to it at `link`.
fn victim_and_link(dir: &Path, link: &Path) -> PathBuf {
    let victim = dir.join("victim.txt");
    fs::write(&victim, "precious\n").unwrap();
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&victim, link).unwrap();
    victim
}

fn assert_untouched(victim: &Path, link: &Path) {
    assert_eq!(fs::read_to_string(victim).unwrap(), "precious\n");
    assert!(fs::symlink_metadata(link).unwrap().file_type().is_symlink());
}

#[test]
fn run_refuses_a_symlinked_output_before_writing_anything() {
    for name in ["results.csv", "samples.csv", "metrics.csv", "run.json"] {
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("out");
        let link = out.join(name);
        let victim = victim_and_link(t.path(), &link);
        let o = quick_run(Path::new("scenarios/smoke.toml"), &out, &[]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("{}: is a symbolic link", link.display())),
            "{name}: {err}"
        );
        assert_untouched(&victim, &link);
        let written: Vec<_> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n != name)
            .collect();
        assert!(written.is_empty(), "{name}: wrote {written:?}");
    }
}

#[test]
fn run_refuses_a_dangling_link_too_and_runs_without_one() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    fs::create_dir_all(&out).unwrap();
    let missing = t.path().join("not-there.csv");
    std::os::unix::fs::symlink(&missing, out.join("samples.csv")).unwrap();
    let o = quick_run(Path::new("scenarios/smoke.toml"), &out, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!missing.exists(), "a file was created through the link");
    fs::remove_file(out.join("samples.csv")).unwrap();
    let o = quick_run(Path::new("scenarios/smoke.toml"), &out, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let left: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn report_refuses_a_symlinked_output_and_writes_none() {
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    copy_dir(&p3_data("lavapipe-a"), &a);
    // The default output: a new folder beside the run (issue 29), never inside it.
    let rep = t.path().join("report-a");
    let link = rep.join("report.html");
    let victim = victim_and_link(t.path(), &link);
    let o = run(&["report", a.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: is a symbolic link", link.display())),
        "{err}"
    );
    assert_untouched(&victim, &link);
    assert!(!rep.join("report.md").exists(), "report.md was written");
    // Without the link the report is written, and no temporary file is left.
    fs::remove_file(&link).unwrap();
    let o = run(&["report", a.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(link.is_file() && rep.join("report.md").is_file());
    assert!(
        !a.join("report").exists(),
        "written into the input run folder"
    );
    let left: Vec<String> = fs::read_dir(&rep)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn compare_refuses_a_symlinked_output_and_writes_none() {
    let t = tempfile::tempdir().unwrap();
    let cmp = t.path().join("cmp");
    let link = cmp.join("compare.csv");
    let victim = victim_and_link(t.path(), &link);
    let (a, b) = (p3_data("lavapipe-a"), p3_data("lavapipe-b"));
    let args = [
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "-o",
        cmp.to_str().unwrap(),
        "-q",
    ];
    let o = run(&args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: is a symbolic link", link.display())),
        "{err}"
    );
    assert_untouched(&victim, &link);
    assert!(!cmp.join("compare.md").exists(), "compare.md was written");
    fs::remove_file(&link).unwrap();
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(link.is_file() && cmp.join("compare.md").is_file());
}

/// A 64 GiB `ramp` buffer no device binds: its rows are `unsupported`, naming the limit, and
/// its contents are never made (before, the input thread allocated them first and the run
/// aborted: "memory allocation of 68719476736 bytes failed", exit 134). Run under a 4 GB
/// address-space limit, so the old code fails at once instead of paging.
#[test]
fn a_buffer_over_the_device_limits_is_unsupported_before_its_inputs_are_made() {
    let (_t, out) = out_dir("huge-ramp");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join("scenarios/smoke.toml"))
        .unwrap()
        .replace(
            "shader = \"glsl/smoke/smoke.comp\"",
            &format!(
                "shader = \"{}\"",
                root.join("glsl/smoke/smoke.comp").display()
            ),
        )
        .replace(
            "push_constants = [\"n\", \"width\", \"height\"]",
            "push_constants = [\"1024\", \"width\", \"height\"]",
        )
        .replace("\nn = 4096", "\nn = 17179869184");
    assert!(text.contains("n = 17179869184"), "{text}");
    let file = out.with_extension("toml");
    fs::write(&file, text).unwrap();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 4000000; exec '{}' -q run '{}' --filter wg64 --out '{}'",
            env!("CARGO_BIN_EXE_p3lab"),
            file.display(),
            out.display()
        ))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&out.join("results.csv"));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["status"], "unsupported", "{rows:?}");
    assert!(rows[0]["reason"].contains("bytes"), "{rows:?}");
}

/// `--export-markdown` / `--export-json` naming a link to a file: refused before the run
/// (exit 2, naming the path; the link's target untouched, no run folder written). Before, the
/// summary was written through the link after the run. `/dev/stdout` (a link to this test's
/// pipe) and a link to `/dev/null` are streams: written directly, in place. A plain file is
/// written whole, with no temporary file left beside it.
#[test]
fn exports_refuse_a_link_to_a_file_and_write_streams_in_place() {
    let t = tempfile::tempdir().unwrap();
    let smoke = Path::new("scenarios/smoke.toml");
    for flag in ["--export-markdown", "--export-json"] {
        let out = t.path().join(format!("out{flag}"));
        let link = t.path().join(format!("summary{flag}"));
        let victim = victim_and_link(t.path(), &link);
        let o = quick_run(smoke, &out, &[flag, link.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(
            err.contains(&format!("{flag} {}: is a symbolic link", link.display())),
            "{flag}: {err}"
        );
        assert_untouched(&victim, &link);
        assert!(!out.join("results.csv").exists(), "{flag}: the run ran");
        fs::remove_file(&link).unwrap();
    }
    let out = t.path().join("out");
    let null = t.path().join("null.md");
    std::os::unix::fs::symlink("/dev/null", &null).unwrap();
    let md = t.path().join("summary.md");
    let o = quick_run(
        smoke,
        &out,
        &[
            "--export-json",
            "/dev/stdout",
            "--export-markdown",
            md.to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let json = &stdout[stdout.find('{').expect("JSON on stdout")..];
    let v: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert!(v.is_object(), "{v}");
    assert!(
        fs::read_to_string(&md).unwrap().contains('|'),
        "a Markdown table"
    );
    let o = quick_run(
        smoke,
        &out,
        &["--replace", "--export-markdown", null.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(fs::symlink_metadata(&null)
        .unwrap()
        .file_type()
        .is_symlink());
    let hidden: Vec<_> = fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "temporary files left: {hidden:?}");
}

/// A probe picture whose path is a link: not written through (a warning names it; the
/// target untouched), the run still ok. Before, the picture overwrote the link's target.
#[test]
fn a_probe_picture_is_never_written_through_a_link() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let tiling = Path::new("scenarios/tiling.toml");
    let args = ["--probe", "--filter", "tilex16-wg16x8"];
    let o = quick_run(tiling, &out, &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let svg = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "svg"))
        .expect("a probe picture");
    fs::remove_file(&svg).unwrap();
    let victim = victim_and_link(t.path(), &svg);
    let o = quick_run(tiling, &out, &[&args[..], &["--replace"]].concat());
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("{}: is a symbolic link", svg.display())),
        "{err}"
    );
    assert_untouched(&victim, &svg);
}

/// `p3lab peak --out DIR` with `DIR/peaks.csv` a link: refused before anything is measured
/// (exit 2, naming it; the target untouched). Before, the calibration ran and peaks.csv went
/// through a `peaks.csv.tmp` opened through links.
#[test]
fn peak_refuses_a_symlinked_peaks_csv_before_measuring() {
    let t = tempfile::tempdir().unwrap();
    let out = t.path().join("out");
    let link = out.join("peaks.csv");
    let victim = victim_and_link(t.path(), &link);
    let o = run(&["peak", "--out", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: is a symbolic link", link.display())),
        "{err}"
    );
    assert_untouched(&victim, &link);
    assert!(!out.join("results.csv").exists(), "the calibration ran");
}

/// merge writes a new folder beside the output and swaps it in: a results.csv in the old
/// output folder that links elsewhere is replaced as a link (or the merge refuses the folder),
/// never written through.
#[test]
fn merge_never_writes_through_a_symlinked_output() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("m");
    let link = m.join("results.csv");
    let victim = victim_and_link(t.path(), &link);
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    run_folder("lavapipe-a", &a);
    run_folder("lavapipe-b", &b);
    let o = run(&[
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        m.to_str().unwrap(),
    ]);
    assert_eq!(
        fs::read_to_string(&victim).unwrap(),
        "precious\n",
        "exit {:?}: {}",
        o.status.code(),
        stderr(&o)
    );
    match o.status.code() {
        // Merged: results.csv is the merge's own file now, not the link.
        Some(0) => assert!(
            !fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
                && fs::read_to_string(&link)
                    .unwrap()
                    .starts_with("schema_version"),
            "{}",
            stderr(&o)
        ),
        // Refused because of the output folder, saying so; the link is left as it was.
        _ => {
            assert!(stderr(&o).contains(m.to_str().unwrap()), "{}", stderr(&o));
            assert_untouched(&victim, &link);
        }
    }
}
