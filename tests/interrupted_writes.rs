//! Interrupted and failed writes (issue 30): SIGINT or SIGTERM while `report` or `merge`
//! writes leaves every output the old file or the new one and no temporary file or folder;
//! what a killed process left (its id no longer running) is removed by the next command; the
//! built-in files' cache on a full or size-limited disk leaves no partial folder. The write
//! window is widened with the test hook `P3LAB_TEST_SLOW_WRITE_MS` (src/cleanup.rs).
mod common;
use common::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// The names in `dir` starting with `prefix`.
fn named(dir: &Path, prefix: &str) -> Vec<String> {
    fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(prefix))
                .collect()
        })
        .unwrap_or_default()
}

/// Every file under `dir` (relative path, bytes), sorted.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// `p3lab ARGS` in the background with every output write paused half-way for `slow_ms`.
fn slow(args: &[&str], slow_ms: u64) -> Child {
    bin()
        .args(args)
        .env("P3LAB_TEST_SLOW_WRITE_MS", slow_ms.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait until `dir` holds an entry starting with `prefix`, then send `sig` (`-INT`, `-TERM`)
/// and wait for the process; its exit code and stderr.
fn interrupt_when(child: Child, dir: &Path, prefix: &str, sig: &str) -> (Option<i32>, String) {
    let t = Instant::now();
    while named(dir, prefix).is_empty() {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "no {prefix}* in {} after 60 s",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let ok = std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    eprintln!("--- interrupted ({sig} at {prefix}*):\n{err}");
    (o.status.code(), err)
}

/// SIGINT or SIGTERM while report.md or report.html is half-written: the command exits 130,
/// no `.NAME.tmp-*` file is left, and each file is the old one or the whole new one. Before,
/// the signal killed the process with its temporary file in the report folder.
#[test]
fn an_interrupted_report_leaves_old_or_new_files_and_no_temporaries() {
    let t = tempfile::tempdir().unwrap();
    // The whole new report, written without interruption.
    let full = t.path().join("full");
    run_folder("lavapipe-a", &full);
    let full_report = full.join("report");
    let o = run(&[
        "report",
        full.to_str().unwrap(),
        "-o",
        full_report.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let new = contents(&full.join("report"));
    let cases = [
        ("-INT", ".report.md.tmp-"),
        ("-TERM", ".report.md.tmp-"),
        ("-INT", ".report.html.tmp-"),
        ("-TERM", ".report.html.tmp-"),
    ];
    for (i, (sig, prefix)) in cases.into_iter().enumerate() {
        let a = t.path().join(format!("a{i}"));
        run_folder("lavapipe-a", &a);
        let report = a.join("report");
        fs::create_dir_all(&report).unwrap();
        for f in ["report.md", "report.html"] {
            fs::write(report.join(f), "old\n").unwrap();
        }
        let child = slow(
            &[
                "report",
                a.to_str().unwrap(),
                "-o",
                report.to_str().unwrap(),
            ],
            1500,
        );
        let (code, err) = interrupt_when(child, &report, prefix, sig);
        assert_eq!(code, Some(130), "{sig} at {prefix}: {err}");
        let left = named(&report, ".");
        assert!(left.is_empty(), "{sig} at {prefix}: left {left:?}");
        for (name, bytes) in contents(&report) {
            let whole = new.iter().find(|(n, _)| *n == name).map(|(_, b)| b);
            assert!(
                bytes == b"old\n" || Some(&bytes) == whole,
                "{sig} at {prefix}: {name} is neither the old file nor the new one ({} bytes)",
                bytes.len()
            );
        }
        // Killed while report.html was written: report.md is the new one already.
        if prefix == ".report.html.tmp-" {
            assert_ne!(fs::read(report.join("report.md")).unwrap(), b"old\n");
        }
    }
}

/// SIGINT or SIGTERM while a merge fills its staging folder: no `.m.merge-tmp-PID` folder is
/// left, and `m` is absent (a first merge) or the earlier merge, untouched. Before, the
/// staging folder stayed (issue 30: 4 of 8 tries, up to 165 MB each).
#[test]
fn an_interrupted_merge_leaves_no_staging_folder() {
    let t = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("a"), t.path().join("b"));
    run_folder("lavapipe-a", &a);
    run_folder("lavapipe-b", &b);
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    for (i, sig) in ["-INT", "-TERM"].into_iter().enumerate() {
        for earlier in [false, true] {
            let m = t.path().join(format!("m{i}{earlier}"));
            let m_s = m.to_str().unwrap();
            let before = if earlier {
                let o = run(&["merge", a_s, "--out", m_s]);
                assert_eq!(o.status.code(), Some(0));
                Some(contents(&m))
            } else {
                None
            };
            let child = slow(&["merge", a_s, b_s, "--out", m_s], 1000);
            let prefix = format!(".m{i}{earlier}.");
            let (code, err) = interrupt_when(child, t.path(), &prefix, sig);
            assert_eq!(code, Some(130), "{sig}: {err}");
            let left = named(t.path(), &prefix);
            assert!(
                left.is_empty(),
                "{sig}, earlier merge {earlier}: left {left:?}"
            );
            match &before {
                Some(files) => assert_eq!(&contents(&m), files, "{sig}: the earlier merge"),
                None => assert!(!m.exists(), "{sig}: a merge was put in place"),
            }
        }
    }
    // Uninterrupted, the same merge works and leaves nothing beside it either.
    let m = t.path().join("m");
    let o = run(&["merge", a_s, b_s, "--out", m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        named(t.path(), ".").is_empty(),
        "{:?}",
        named(t.path(), ".")
    );
}

/// Set the modification time of `p` (and of what a folder holds) well before
/// src/cleanup.rs STALE_AFTER.
fn backdate(p: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    if p.is_dir() {
        for e in fs::read_dir(p).unwrap() {
            backdate(&e.unwrap().path());
        }
    }
    fs::File::open(p).unwrap().set_modified(old).unwrap();
}

/// 99999999 is above any Linux pid_max (at most 2^22), so never a running process.
const GONE: u32 = 99_999_999;

/// What a killed p3lab left (SIGKILL gives it no chance to clean up) is removed by the next
/// report or merge writing there, once its process is gone and nothing touched it for a
/// minute; a temporary of a running process, or a fresh one, stays.
#[test]
fn leftovers_of_a_killed_process_are_removed_by_the_next_command() {
    if !Path::new("/proc/self").exists() {
        eprintln!("skipped: no /proc, so no process can be told gone");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let a = t.path().join("a");
    run_folder("lavapipe-a", &a);
    let report = a.join("report");
    fs::create_dir_all(&report).unwrap();
    let stale = report.join(format!(".report.md.tmp-{GONE}-3"));
    let live = report.join(format!(".report.md.tmp-{}-0", std::process::id()));
    let fresh = report.join(format!(".report.html.tmp-{}-0", GONE - 1));
    for p in [&stale, &live, &fresh] {
        fs::write(p, "half a rep").unwrap();
    }
    backdate(&stale);
    backdate(&live);
    let o = run(&[
        "report",
        a.to_str().unwrap(),
        "-o",
        report.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!stale.exists(), "the killed process's temporary stays");
    assert!(live.exists(), "a running process's temporary was removed");
    assert!(
        fresh.exists(),
        "a temporary touched a moment ago was removed"
    );

    // A merge's staging folder, and an output folder a killed merge had moved aside
    // (`.m.old-PID`, with `m` missing): the first removed, the second put back first.
    let b = t.path().join("b");
    run_folder("lavapipe-b", &b);
    let m = t.path().join("m");
    let o = run(&["merge", a.to_str().unwrap(), "--out", m.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let staging = t.path().join(format!(".m.merge-tmp-{GONE}"));
    fs::create_dir(&staging).unwrap();
    fs::write(staging.join("samples.csv"), "schema_version,run").unwrap();
    let aside = t.path().join(format!(".m.old-{GONE}"));
    fs::rename(&m, &aside).unwrap();
    backdate(&staging);
    backdate(&aside);
    let o = run(&[
        "merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        m.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        named(t.path(), ".m.").is_empty(),
        "{:?}",
        named(t.path(), ".m.")
    );
    let runs = fs::read_to_string(m.join("runs.json")).unwrap();
    assert_eq!(runs.matches("\"run_id\"").count(), 2, "{runs}");
}

/// The partial folders (`.HASH-PID`) of the built-in files' cache under `base`.
fn partial_assets(base: &Path) -> Vec<String> {
    named(&base.join("assets"), ".")
}

/// `p3lab list --details` (which unpacks the built-in GLSL includes) with its cache in
/// `cache`, the fallback temp folder `tmp`, through `sh -c PREFIX exec p3lab ...`.
fn list_details(cache: &Path, tmp: &Path, prefix: &str) -> std::process::Output {
    let script = format!("{prefix} exec \"$0\" list --details scenarios/smoke.toml",);
    let o = std::process::Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_p3lab")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("P3LAB_CACHE_DIR", cache)
        .env("TMPDIR", tmp)
        .env_remove("CLICOLOR_FORCE")
        .output()
        .unwrap();
    eprintln!(
        "--- list --details ({prefix}):\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A file size limit (`ulimit -f`, with SIGXFSZ ignored so a write fails with EFBIG instead
/// of killing the process) below the built-in files' size: every unpacking fails part-way,
/// in the cache and in the fallback temp folder. The command still works, and leaves no
/// partial folder in either (before: one `.HASH-PID` folder per failed unpacking). Needs no
/// root.
#[test]
fn a_size_limit_leaves_no_partial_assets_folder() {
    let t = tempfile::tempdir().unwrap();
    let (cache, tmp) = (t.path().join("cache"), t.path().join("tmp"));
    fs::create_dir_all(&tmp).unwrap();
    // 4 blocks of 512 bytes: p3lab.glsl alone is larger.
    for _ in 0..2 {
        let o = list_details(&cache, &tmp, "trap '' XFSZ; ulimit -f 4;");
        assert_eq!(o.status.code(), Some(0));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cannot write p3lab's built-in files"),
            "the limit did not bite: {err}"
        );
        assert!(
            partial_assets(&cache).is_empty(),
            "{:?}",
            partial_assets(&cache)
        );
        let in_tmp: Vec<String> = named(&tmp, "p3lab-assets-")
            .iter()
            .flat_map(|d| named(&tmp.join(d), "."))
            .collect();
        assert!(in_tmp.is_empty(), "{in_tmp:?}");
    }
    // A partial folder a killed process left, from an older p3lab: removed by the next
    // unpacking, which now has room.
    let stale = cache.join(format!("assets/.0123456789abcdef-{GONE}"));
    fs::create_dir_all(stale.join("glsl")).unwrap();
    fs::write(stale.join("glsl/half.glsl"), "// half").unwrap();
    backdate(&stale);
    let o = list_details(&cache, &tmp, "");
    assert_eq!(o.status.code(), Some(0));
    assert!(
        partial_assets(&cache).is_empty(),
        "{:?}",
        partial_assets(&cache)
    );
    assert!(!named(&cache.join("assets"), "").is_empty(), "unpacked");
}

/// The same on a full file system: a 64 KiB tmpfs, nearly filled. Needs root (mount); skipped
/// with the reason otherwise.
#[test]
fn a_full_disk_leaves_no_partial_assets_folder() {
    let t = tempfile::tempdir().unwrap();
    let (cache, tmp) = (t.path().join("cache"), t.path().join("tmp"));
    fs::create_dir_all(&cache).unwrap();
    fs::create_dir_all(&tmp).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
        .arg(&cache)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(cache.clone());
    // Leave a few KiB: enough to start unpacking, not to finish.
    fs::write(cache.join("filler"), vec![0u8; 52 * 1024]).unwrap();
    for _ in 0..2 {
        let o = list_details(&cache, &tmp, "");
        assert_eq!(o.status.code(), Some(0));
        assert!(
            partial_assets(&cache).is_empty(),
            "{:?}",
            partial_assets(&cache)
        );
        // The cache could not take them: unpacked in the temp folder instead.
        assert!(named(&cache.join("assets"), "").is_empty());
        assert!(!named(&tmp, "p3lab-assets-").is_empty(), "no fallback");
    }
}
