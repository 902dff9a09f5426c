//! `--device all`: one p3lab process per Vulkan device, all at once, each into its own
//! folder, then merged; the summary is of the merged folder.
use super::*;

/// This process's command line for a `--device all` worker: --device, --out and the exports
/// left out (each worker gets its own --device and --out; the summary and its exports are of
/// the merged folder, made by this process).
fn worker_args() -> Vec<String> {
    let mut base: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1).peekable();
    let own = [
        "--device",
        "--out",
        "-o",
        "--export-markdown",
        "--export-json",
    ];
    while let Some(x) = args.next() {
        match x.as_str() {
            x if own.contains(&x) => {
                args.next();
            }
            _ if own.iter().any(|o| x.starts_with(&format!("{o}="))) => {}
            _ => base.push(x),
        }
    }
    base
}

/// Wait for every worker: the worst exit code (a failed worker, 1, 2 or 130, over failed
/// rows, 3, over success) and the folders that have rows (a worker's rows count even when
/// some failed).
fn wait_workers(
    children: Vec<(PathBuf, std::process::Child)>,
) -> anyhow::Result<(i32, Vec<PathBuf>)> {
    let rank = |c: i32| match c {
        exit::OK => 0,
        exit::ROWS_FAILED => 1,
        exit::REGRESSION => 2,
        _ => 3,
    };
    let mut code = exit::OK;
    let mut dirs = Vec::new();
    for (dir, mut child) in children {
        let c = child.wait()?.code().unwrap_or(exit::FAILURE);
        if dir.join("results.csv").is_file() {
            dirs.push(dir);
        }
        if rank(c) > rank(code) {
            code = c;
        }
    }
    Ok((code, dirs))
}

/// A device's folder (`index` Some) or the merged one (None): `OUT/device-N/` and `OUT/all/`
/// for a plain --out; from the template (`{device}` says `all` for the merge) otherwise.
fn device_folder(
    out: &std::path::Path,
    host: &str,
    index: Option<usize>,
    name: Option<&str>,
) -> anyhow::Result<PathBuf> {
    use crate::output::out_template::{expand, is_template, Values};
    if !is_template(out) {
        return Ok(match index {
            Some(i) => out.join(format!("device-{i}")),
            None => out.join("all"),
        });
    }
    let t = match index {
        Some(_) => out.to_path_buf(),
        None => PathBuf::from(
            out.to_string_lossy()
                .replace("{device_name}", "all")
                .replace("{device}", "all"),
        ),
    };
    let v = Values {
        host,
        device_index: index,
        device_name: name,
    };
    Ok(expand(&t, &v).map_err(|e| UserError::Flag(format!("--out {e}")))?)
}

/// `--device all`: one p3lab process per Vulkan device, all at once (each drives its own
/// device and queue), into OUT/device-<index>/, then merged into OUT/all/.
pub(super) fn run_all_devices(plan: &super::plan::RunPlan) -> anyhow::Result<i32> {
    let (what, out) = (&plan.what, &plan.output.out);
    let inst = Instance::new(false)?;
    let devices: Vec<_> = inst
        .devices()?
        .into_iter()
        .map(|(_, d)| d)
        .filter(|d| d.api_at_least_1_3())
        .collect();
    drop(inst);
    if devices.is_empty() {
        return Err(UserError::Flag("--device all: no Vulkan 1.3 device".into()).into());
    }
    // Bad input is reported once, before any device starts or a folder is made.
    let scenarios = load_all(&what.scenarios, &what.set, None)?;
    super::filter::check(what.filter.globs(), &scenarios)?;
    let chosen = plan.output.baseline_variant.as_deref();
    super::filter::check_baseline_variant(chosen, &scenarios)?;
    let layout = crate::output::summary::Layout::of(&scenarios, chosen);
    // `--out runs/{host}/{device}`: each device's folder from the template, the merge where
    // {device} says `all`; a plain --out: OUT/device-N/ and OUT/all/.
    let template = crate::output::out_template::is_template(out);
    let host = crate::output::out_template::host();
    let folder = |index: Option<usize>, name: Option<&str>| device_folder(out, &host, index, name);
    let merged = folder(None, None)?;
    if !template {
        std::fs::create_dir_all(out)?;
    }
    let exe = std::env::current_exe()?;
    let base = worker_args();
    let mut children = Vec::new();
    for d in &devices {
        let dir = folder(Some(d.index), Some(&d.name))?;
        tracing::info!("device {}: {} -> {}", d.index, d.name, dir.display());
        let child = std::process::Command::new(&exe)
            .args(&base)
            .arg("--device")
            .arg(d.index.to_string())
            .arg("--out")
            .arg(&dir)
            .env_remove("P3LAB_NO_BAR")
            .envs((devices.len() > 1).then_some(("P3LAB_NO_BAR", "1")))
            .stdout(std::process::Stdio::null())
            .spawn()
            .map_err(|e| anyhow::anyhow!("starting the worker for device {}: {e}", d.index))?;
        children.push((dir, child));
    }
    let (code, dirs) = wait_workers(children)?;
    if dirs.is_empty() {
        // Every worker stopped before writing (bad input: exit 2, said by the workers).
        eprintln!("p3lab: no device produced results; nothing to merge");
        return Ok(code);
    }
    if merged.exists() {
        std::fs::remove_dir_all(&merged)?;
    }
    let s = crate::lab::merge(&dirs, &merged)?;
    // Rows other processes measured: read back through the one reader.
    let rows: Vec<_> = crate::results::read_folder(&merged)?
        .into_iter()
        .map(|r| r.row)
        .collect();
    crate::sink::summary::report(&rows, &super::summary::sink(layout, &plan.output, true))?;
    eprintln!(
        "p3lab: {} device(s) run in parallel; merged into {}",
        s.inputs,
        merged.display()
    );
    Ok(code)
}
