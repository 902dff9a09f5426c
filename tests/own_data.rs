//! Scenarios from real work, on lavapipe: inputs from `.npy` files, outputs dumped as `.npy`,
//! a NumPy reference run as a command (cached), precomputed answers, and every way these can
//! be wrong stopping the run before anything is written (exit 2, file, line and key).
mod common;
use common::*;
use p3lab::scenario::Elem;
use std::path::{Path, PathBuf};

/// Debian's python3 has NumPy (scripts/setup.sh installs python3-numpy); a python3 first on
/// PATH (pyenv) may not.
fn python() -> String {
    for p in ["/usr/bin/python3", "python3"] {
        let ok = std::process::Command::new(p)
            .args(["-c", "import numpy"])
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return p.to_string();
        }
    }
    panic!("no python3 with NumPy: run scripts/setup.sh (P3LAB_SETUP=test) first");
}

/// b = 3a (tests/data/glsl/scale.comp) over `n` floats from `a-{n}.npy`; `check` is the
/// scenario's [check] table body; `defines` the variants' (BUG=1 breaks element 7).
fn scenario(dir: &Path, n: &str, check: &str, defines: &str) -> PathBuf {
    let text = format!(
        r#"[scenario]
name = "own"
shader = "tests/data/glsl/scale.comp"
push_constants = ["n"]
workgroup = [32, 1, 1]

[params]
n = {n}

[[resources]]
name = "a"
type = "buffer"
binding = 0
element = "f32"
count = "n"
init = {{ file = "a-{{n}}.npy" }}

[[resources]]
name = "b"
type = "buffer"
binding = 1
element = "f32"
count = "n"
output = true

[[dispatch]]
cover = ["n", 1, 1]

[check]
{check}

[[variants]]
name = "one"
defines = {{ {defines} }}

[[variants]]
name = "two"
defines = {{ {defines} }}
"#
    );
    let file = dir.join("own.toml");
    std::fs::write(&file, text).unwrap();
    file
}

fn floats(n: usize, f: impl Fn(usize) -> f32) -> Vec<u8> {
    (0..n).flat_map(|i| f(i).to_le_bytes()).collect()
}

fn write_npy(path: &Path, elem: Elem, shape: &[u64], bytes: &[u8]) {
    p3lab::scenario::npy::write(path, elem, shape, bytes).unwrap();
}

const NUMPY_REF: &str = "import json, os, numpy as np\n\
assert os.path.exists('b.in.npy') and not os.path.exists('b.npy'), os.listdir('.')\n\
p = json.load(open('params.json'))\n\
a = np.load('a.npy')\n\
assert a.shape == (p['n'],), a.shape\n\
np.save('b.npy', (a * 3).astype(np.float32))\n\
open(__import__('os').environ['COUNT'], 'a').write('x')\n";

#[test]
fn npy_inputs_a_numpy_reference_and_dumped_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for n in [256usize, 100] {
        write_npy(
            &d.join(format!("a-{n}.npy")),
            Elem::F32,
            &[n as u64],
            &floats(n, |i| i as f32 * 0.25 - 7.0),
        );
    }
    std::fs::write(d.join("ref.py"), NUMPY_REF).unwrap();
    let count = d.join("count.txt");
    let check = format!(
        "reference = {{ command = [\"{}\", \"ref.py\"] }}\nbaseline = \"one\"",
        python()
    );
    let file = scenario(d, "[256, 100]", &check, "PASS = 0");
    let cache = d.join("cache");
    let go = |out: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_p3lab"))
            .args([
                "run",
                file.to_str().unwrap(),
                "--out",
                d.join(out).to_str().unwrap(),
                "--warmup-ms",
                "0",
                "--rounds",
                "2",
                "--max-rounds",
                "2",
                "--budget-ms",
                "1",
                "-q",
                "--dump-outputs",
            ])
            .env("P3LAB_CACHE_DIR", &cache)
            .env("COUNT", &count)
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        read_csv(&d.join(out).join("results.csv"))
    };
    let rows = go("first");
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["status"], "ok", "{}", r["reason"]);
        assert_eq!(r["check"], "pass", "{}", r["variant"]);
        assert!(
            r["check_detail"].contains("vs reference: b: exact"),
            "{}",
            r["check_detail"]
        );
    }
    // Two params cases: the command ran once each (preflight), the run read the cache.
    assert_eq!(std::fs::read_to_string(&count).unwrap(), "xx");
    // A re-run runs it no more.
    go("second");
    assert_eq!(
        std::fs::read_to_string(&count).unwrap(),
        "xx",
        "cached per case"
    );
    // --dump-outputs: one folder per variant and case, b as NumPy wrote it.
    let dumped = d.join("first/outputs/own/two-n_100/b.npy");
    let (h, bytes) = p3lab::scenario::npy::read(&dumped).unwrap();
    assert_eq!(h.shape, vec![100]);
    assert_eq!(bytes, floats(100, |i| (i as f32 * 0.25 - 7.0) * 3.0));
    assert!(d.join("first/outputs/own/one-n_256/b.npy").is_file());
}

#[test]
fn precomputed_answers_catch_variants_that_are_all_wrong_alike() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_npy(
        &d.join("a-64.npy"),
        Elem::F32,
        &[64],
        &floats(64, |i| i as f32),
    );
    write_npy(
        &d.join("b-64.npy"),
        Elem::F32,
        &[8, 8],
        &floats(64, |i| 3.0 * i as f32),
    );
    let check = "reference = { files = { b = \"b-{n}.npy\" } }";
    // Every variant has the same bug: against each other they agree; the answers say no.
    let file = scenario(d, "64", check, "BUG = 1");
    let out = d.join("out");
    let o = quick_run(&file, &out, &[]);
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for r in read_csv(&out.join("results.csv")) {
        assert_eq!(r["status"], "check_failed");
        assert!(
            r["reason"].contains("first at [7]: got -1, expected 21"),
            "{}",
            r["reason"]
        );
    }
    let file = scenario(d, "64", check, "PASS = 0");
    let o = quick_run(&file, &d.join("good"), &[]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The scenario with `check` and input file(s) made by `setup` fails before anything runs:
/// exit 2, the line of `key` in the file, the words given, no output folder.
fn refused(check: &str, setup: impl Fn(&Path), key: &str, words: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_npy(
        &d.join("a-64.npy"),
        Elem::F32,
        &[64],
        &floats(64, |i| i as f32),
    );
    setup(d);
    let file = scenario(d, "64", check, "PASS = 0");
    let out = d.join("out");
    let o = quick_run(&file, &out, &[]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    // The line that holds the key: `init = ...` or `reference = ...`.
    let holder = if key.starts_with("resources") {
        "init ="
    } else {
        "reference ="
    };
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with(holder))
        .map_or(0, |i| i + 1);
    let at = format!("{}:{line}: key `{key}`", file.display());
    assert!(err.contains(&at), "expected `{at}` in:\n{err}");
    for w in words {
        assert!(err.contains(w), "expected `{w}` in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists(), "nothing may be written:\n{err}");
}

#[test]
fn own_data_and_reference_mistakes_stop_before_anything_is_written() {
    let py = python();
    let cmd = |script: &str| {
        format!("reference = {{ command = [\"{py}\", \"-c\", \"{script}\"], timeout_s = 2 }}")
    };
    // Inputs: a float64 file, the wrong count, a missing file.
    refused(
        "baseline = \"one\"",
        |d| write_npy(&d.join("a-64.npy"), Elem::U32, &[64], &[0u8; 256]),
        "resources[0].init.file",
        &["a-64.npy holds uint32 (64,); the resource needs float32 elements"],
    );
    refused(
        "baseline = \"one\"",
        |d| write_npy(&d.join("a-64.npy"), Elem::F32, &[63], &[0u8; 252]),
        "resources[0].init.file",
        &["holds float32 (63,)", "64 elements"],
    );
    refused(
        "baseline = \"one\"",
        |d| std::fs::remove_file(d.join("a-64.npy")).unwrap(),
        "resources[0].init.file",
        &["a-64.npy", "no such file"],
    );
    // Answers of the wrong shape.
    refused(
        "reference = { files = { b = \"b.npy\" } }",
        |d| write_npy(&d.join("b.npy"), Elem::F32, &[32], &[0u8; 128]),
        "check.reference.files.b",
        &["b.npy holds float32 (32,); `b` needs float32 x 64"],
    );
    // A command that fails: its status and stderr.
    refused(
        &cmd("import sys; print('no luck here', file=sys.stderr); sys.exit(3)"),
        |_| {},
        "check.reference",
        &["reference command `", "exit status: 3", "no luck here"],
    );
    // One that runs past its time limit.
    refused(
        &cmd("import time; time.sleep(30)"),
        |_| {},
        "check.reference",
        &["did not finish within 2 s"],
    );
    // One that writes nothing, and one that writes the wrong dtype.
    refused(
        &cmd("pass"),
        |_| {},
        "check.reference",
        &["wrote no `b.npy`"],
    );
    refused(
        &cmd("import numpy as np; np.save('b.npy', np.zeros(64))"),
        |_| {},
        "check.reference",
        &["its b.npy holds dtype '<f8' (64,); `b` needs float32 x 64"],
    );
    // Built-ins: unknown, or one that cannot apply to this scenario (once, no repeated words).
    refused(
        "reference = \"no_such\"",
        |_| {},
        "check.reference",
        &["unknown built-in reference `no_such`", "transpose_x"],
    );
    let err = {
        let dir = tempfile::tempdir().unwrap();
        write_npy(
            &dir.path().join("a-64.npy"),
            Elem::F32,
            &[64],
            &floats(64, |i| i as f32),
        );
        let file = scenario(dir.path(), "64", "reference = \"transpose_x\"", "PASS = 0");
        let o = quick_run(&file, &dir.path().join("out"), &[]);
        assert_eq!(o.status.code(), Some(2));
        assert!(!dir.path().join("out").exists());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    assert!(
        err.contains(
            "key `check.reference`: `transpose_x` needs the param(s) `w`, `h` in [params]"
        ),
        "{err}"
    );
    assert_eq!(err.matches("transpose_x").count(), 1, "{err}");
}

/// An 8-bit RGB PNG of `w` x `h`, pixel (x, y) = (x, y, x + y).
fn write_png(path: &Path, w: u32, h: u32) {
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut enc = png::Encoder::new(file, w, h);
    enc.set_color(png::ColorType::Rgb);
    enc.set_depth(png::BitDepth::Eight);
    let mut wr = enc.write_header().unwrap();
    let data: Vec<u8> = (0..h)
        .flat_map(|y| (0..w).flat_map(move |x| [x as u8, y as u8, (x + y) as u8]))
        .collect();
    wr.write_image_data(&data).unwrap();
}

fn image_scenario(dir: &Path, format: &str) -> PathBuf {
    let text = format!(
        "[scenario]\nname = \"img\"\nshader = \"glsl/smoke/smoke.comp\"\n\n\
         [[resources]]\nname = \"pic\"\ntype = \"image\"\nbinding = 0\nformat = \"{format}\"\n\
         width = 16\nheight = 8\ninit = {{ file = \"pic.png\" }}\n\n\
         [[dispatch]]\ngrid = [1, 1, 1]\n\n[[variants]]\nname = \"v\"\n"
    );
    let file = dir.join("img.toml");
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn a_png_fills_an_rgba8_image_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_png(&d.join("pic.png"), 16, 8);
    // It loads for an rgba8 image of its size, and reads as RGBA with alpha 255.
    let sc = p3lab::scenario::load(&image_scenario(d, "rgba8"), &Default::default()).unwrap();
    let bytes = p3lab::scenario::data::init_bytes(&sc.cases[0].resources[0]).unwrap();
    assert_eq!(bytes.len(), 16 * 8 * 4);
    assert_eq!(&bytes[4 * (3 * 16 + 5)..][..4], &[5, 3, 8, 255]);
    // Not for another format, nor another size: exit 2 at load, naming the key.
    let o = run(&["list", image_scenario(d, "rgba32f").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("key `resources[0].init.file`")
            && err.contains("a PNG can fill only an rgba8 image"),
        "{err}"
    );
    write_png(&d.join("pic.png"), 8, 8);
    let o = run(&["list", image_scenario(d, "rgba8").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("pic.png is 8 x 8 pixels; the image is 16 x 8")
    );
}

#[test]
fn a_reference_past_its_time_limit_ends_with_its_children() {
    // The command starts a child of its own and sleeps: at the time limit both must end
    // (issue 30: only the direct child was killed, its children ran on).
    let py = python();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_npy(
        &d.join("a-64.npy"),
        Elem::F32,
        &[64],
        &floats(64, |i| i as f32),
    );
    let pid_file = d.join("child.pid");
    let script = format!(
        "import subprocess, time; p = subprocess.Popen(['sleep', '60']); open('{}', 'w').write(str(p.pid)); time.sleep(30)",
        pid_file.display()
    );
    let check =
        format!("reference = {{ command = [\"{py}\", \"-c\", \"{script}\"], timeout_s = 2 }}");
    let file = scenario(d, "64", &check, "PASS = 0");
    let t = std::time::Instant::now();
    let o = quick_run(&file, &d.join("out"), &[]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("did not finish within 2 s"), "{err}");
    assert!(t.elapsed().as_secs() < 20, "{:?}", t.elapsed());
    let pid = std::fs::read_to_string(&pid_file).expect("the command wrote its child's pid");
    let stat = Path::new("/proc").join(pid.trim()).join("stat");
    // Gone, or a zombie waiting for init to reap it.
    let alive = std::fs::read_to_string(&stat)
        .map(|s| !s.split(") ").nth(1).unwrap_or("").starts_with('Z'))
        .unwrap_or(false);
    assert!(!alive, "the command's child {} still runs", pid.trim());
}
