//! Your own reference: a command run in a scratch folder on the case's inputs (written as
//! `NAME.npy`, a checked output's initial contents as `NAME.in.npy`, the params as
//! `params.json`), whose `NAME.npy` answers are read back and cached; or precomputed `.npy`
//! answers. Both give what a built-in gives: expected outputs by name.
use crate::scenario::npy;
use crate::scenario::refs::Contents;
use crate::scenario::{Case, Reference};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Expected outputs from any reference, given the initial contents of every resource.
/// Errors name the reference once (its label) and say what went wrong.
pub fn expected(reference: &Reference, case: &Case, inputs: &Contents) -> Result<Contents, String> {
    let label = reference.label();
    match reference {
        Reference::Builtin(name) => {
            // A reference that panics fails this case's check, not the run.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::scenario::refs::run_reference(name, case, inputs)
            }))
            .unwrap_or_else(|_| Err("it panicked".into()))
        }
        Reference::Files(files) => files
            .iter()
            .map(|(name, path)| {
                read_answer(case, name, path, &path.display().to_string())
                    .map(|b| (name.clone(), b))
            })
            .collect(),
        Reference::Command { argv, timeout_s } => command(argv, *timeout_s, case, inputs),
    }
    .map_err(|e| format!("reference {label}: {e}"))
}

/// The checked outputs' names.
fn checked(case: &Case) -> Vec<String> {
    case.check
        .as_ref()
        .map(|c| c.outputs.clone())
        .unwrap_or_default()
}

/// One answer file: it must fit the resource it answers for (dtype, count, image shape).
/// `shown` is how messages name it (a scratch folder's path would mean nothing).
fn read_answer(case: &Case, name: &str, path: &Path, shown: &str) -> Result<Vec<u8>, String> {
    let r = case
        .resources
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("no resource named `{name}`"))?;
    let header = npy::read_header(path).map_err(|m| format!("{shown}: {m}"))?;
    npy::fits(r, &header)
        .map_err(|want| format!("{shown} holds {}; `{name}` needs {want}", header.describe()))?;
    let (_, bytes) = npy::read(path).map_err(|m| format!("{shown}: {m}"))?;
    Ok(bytes)
}

/// Where command answers are kept: `~/.cache/p3lab/refs/KEY/NAME.npy`.
fn cache_root() -> PathBuf {
    crate::shader::beside_spirv_cache("refs")
}

/// The case's params as JSON: whole numbers as integers.
fn params_json(case: &Case) -> String {
    let map: serde_json::Map<String, serde_json::Value> = case
        .params
        .iter()
        .map(|(k, v)| {
            let j = if v.fract() == 0.0 && v.abs() < 9.0e15 {
                serde_json::Value::from(*v as i64)
            } else {
                serde_json::Value::from(*v)
            };
            (k.clone(), j)
        })
        .collect();
    serde_json::to_string_pretty(&map).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// The cache key: the command, the contents of every file it names (the script), the params
/// and every input's bytes, and the outputs asked for.
fn key(argv: &[String], case: &Case, inputs: &Contents, params: &str) -> String {
    let mut h = Sha256::new();
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    field(b"p3lab-reference-v2");
    for a in argv {
        field(a.as_bytes());
        if let Ok(bytes) = std::fs::read(a) {
            field(&bytes);
        }
    }
    field(params.as_bytes());
    for (name, bytes) in inputs {
        field(name.as_bytes());
        field(bytes);
    }
    for o in checked(case) {
        field(o.as_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn command(
    argv: &[String],
    timeout_s: f64,
    case: &Case,
    inputs: &Contents,
) -> Result<Contents, String> {
    let params = params_json(case);
    let cached = cache_root().join(key(argv, case, inputs, &params));
    let outputs = checked(case);
    if outputs
        .iter()
        .all(|o| cached.join(format!("{o}.npy")).is_file())
    {
        if let Ok(c) = outputs
            .iter()
            .map(|o| {
                let p = cached.join(format!("{o}.npy"));
                read_answer(case, o, &p, &p.display().to_string()).map(|b| (o.clone(), b))
            })
            .collect::<Result<Contents, String>>()
        {
            return Ok(c);
        }
    }
    let scratch = Scratch::new().map_err(|e| format!("cannot make a scratch folder: {e}"))?;
    let dir = scratch.0.as_path();
    for r in &case.resources {
        let Some(bytes) = inputs.get(&r.name) else {
            continue;
        };
        let shape = match r.kind {
            crate::scenario::ResourceKind::Buffer { element, bytes } => {
                vec![bytes / element.bytes()]
            }
            crate::scenario::ResourceKind::Uniform { bytes } => vec![bytes / 4],
            crate::scenario::ResourceKind::Image {
                format,
                width,
                height,
                ..
            } => npy::image_shape(format, width, height),
        };
        // A checked output's initial contents go to NAME.in.npy (for in-place kernels): the
        // command must write NAME.npy itself, so that a missing answer is caught.
        let file = if outputs.contains(&r.name) {
            format!("{}.in.npy", r.name)
        } else {
            format!("{}.npy", r.name)
        };
        npy::write(&dir.join(file), r.element(), &shape, bytes)
            .map_err(|e| format!("cannot write its input `{}`: {e}", r.name))?;
    }
    std::fs::write(dir.join("params.json"), &params)
        .map_err(|e| format!("cannot write params.json: {e}"))?;
    run(argv, dir, timeout_s)?;
    let mut answers = Contents::new();
    for o in &outputs {
        let path = dir.join(format!("{o}.npy"));
        if !path.is_file() {
            return Err(format!(
                "it exited 0 but wrote no `{o}.npy` (in the folder it runs in; the inputs are \
                 there as NAME.npy, a checked output's initial contents as NAME.in.npy, the \
                 params in params.json)"
            ));
        }
        answers.insert(
            o.clone(),
            read_answer(case, o, &path, &format!("its {o}.npy"))?,
        );
    }
    // Keep the answers; a cache that cannot be written only costs the next run the command.
    let tmp = cached.with_extension(format!("tmp{}", std::process::id()));
    let kept = std::fs::create_dir_all(&tmp)
        .and_then(|_| {
            outputs.iter().try_for_each(|o| {
                std::fs::copy(dir.join(format!("{o}.npy")), tmp.join(format!("{o}.npy")))
                    .map(|_| ())
            })
        })
        .and_then(|_| std::fs::rename(&tmp, &cached));
    if kept.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(answers)
}

/// A folder of its own under the temp folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("p3lab-reference-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run the command in `dir` with its output kept in files there; a non-zero exit or the time
/// limit is an error that shows the end of its stderr.
fn run(argv: &[String], dir: &Path, timeout_s: f64) -> Result<(), String> {
    let out = std::fs::File::create(dir.join(".stdout.txt")).map_err(|e| e.to_string())?;
    let err_path = dir.join(".stderr.txt");
    let err = std::fs::File::create(&err_path).map_err(|e| e.to_string())?;
    use std::os::unix::process::CommandExt;
    // Its own process group, so that a time limit, an interrupt or p3lab's exit ends the
    // command's children too, not only the command.
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start `{}`: {e}", argv[0]))?;
    let pid = child.id();
    crate::vk::process::register_group(pid);
    let r = wait_for(&mut child, &err_path, timeout_s);
    // Whatever it left running in its group ends with it.
    crate::vk::process::kill_group(pid);
    r
}

/// Wait for the command up to the time limit (then end it), and judge its exit.
fn wait_for(
    child: &mut std::process::Child,
    err_path: &Path,
    timeout_s: f64,
) -> Result<(), String> {
    let t0 = Instant::now();
    let limit = Duration::from_secs_f64(timeout_s);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if t0.elapsed() >= limit => {
                crate::vk::process::kill_group(child.id());
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "did not finish within {timeout_s} s (timeout_s), and its process group was ended{}",
                    stderr_tail(err_path)
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("waiting for it failed: {e}")),
        }
    };
    if !status.success() {
        return Err(format!("{status}{}", stderr_tail(err_path)));
    }
    Ok(())
}

/// The last lines of what the command wrote to stderr, for an error message: only the file's
/// last TAIL_BYTES are read, so a command that floods stderr costs no memory (issue 30: 1.5 GiB
/// of stderr took 2.4 GB to show 20 lines).
fn stderr_tail(path: &Path) -> String {
    const LINES: usize = 20;
    const TAIL_BYTES: u64 = 64 << 10;
    let text = tail_text(path, TAIL_BYTES);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return "; it wrote nothing to stderr".into();
    }
    let from = lines.len().saturating_sub(LINES);
    format!(
        "; its stderr{}:\n  {}",
        if from > 0 { " (last lines)" } else { "" },
        lines[from..].join("\n  ")
    )
}

/// The last `bytes` of a file as text (lossy), empty when it cannot be read.
fn tail_text(path: &Path, bytes: u64) -> String {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else {
        return String::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if f.seek(SeekFrom::Start(len.saturating_sub(bytes))).is_err() {
        return String::new();
    }
    let mut buf = Vec::with_capacity(bytes.min(len) as usize);
    let _ = f.take(bytes).read_to_end(&mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tail_tests {
    use super::*;

    #[test]
    fn a_flooded_stderr_shows_its_last_lines_from_a_bounded_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("err.txt");
        let mut text = "x".repeat(5 << 20);
        for i in 0..30 {
            text.push_str(&format!("\nline {i}"));
        }
        std::fs::write(&p, &text).unwrap();
        assert_eq!(tail_text(&p, 16).len(), 16);
        let t = stderr_tail(&p);
        assert!(t.contains("(last lines)"), "{t}");
        assert!(t.ends_with("line 29"), "{t}");
        assert!(t.contains("line 10") && !t.contains("line 9\n"), "{t}");
        assert!(t.len() < 70 << 10);
        assert_eq!(
            stderr_tail(&dir.path().join("none")),
            "; it wrote nothing to stderr"
        );
    }
}
