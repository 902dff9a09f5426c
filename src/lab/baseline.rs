//! Named baselines, as criterion keeps them: a copy of a run folder's files under
//! `<store>/<name>/`, saved once (`--save-baseline NAME`) and compared with later runs
//! (`compare --baseline NAME RUN`).
use super::merge::{make_staging, read_runs, remove_stale_staging, replace_dir};
use super::{CSV_FILES, RUNS_JSON, RUN_JSON};
use anyhow::{anyhow, bail, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// Where baselines live unless told otherwise: `.p3lab/baselines` in the working directory
/// (relative, so it follows the checkout a script runs in).
pub fn default_store() -> PathBuf {
    PathBuf::from(".p3lab").join("baselines")
}

/// A baseline name: letters, digits, `-`, `_` and `.`, not starting with `.` (hidden names are
/// the store's temporary folders), at most 100 characters.
pub fn validate_name(name: &str) -> Result<()> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    if name.is_empty() {
        bail!("baseline name is empty; use letters, digits, -, _ and .");
    }
    if name.len() > 100 {
        bail!("baseline name {name:?} is longer than 100 characters");
    }
    if let Some(c) = name.chars().find(|&c| !ok_char(c)) {
        bail!("baseline name {name:?} has {c:?}; use only letters, digits, -, _ and .");
    }
    if name.starts_with('.') {
        bail!("baseline name {name:?} must not start with '.'");
    }
    Ok(())
}

/// Save the run in `run_dir` as baseline `name`: its results.csv, samples.csv, metrics.csv
/// and run.json (runs.json for a merged folder) are copied to `<store>/<name>/`, with a
/// baseline.json saying when and from where. An older baseline of that name is replaced as a
/// whole: the copy is made in a temporary folder first, so a failed save leaves the old one.
/// Refuses a run that was interrupted (`complete: false`), whose rows are not all there.
/// Returns the baseline folder.
pub fn save_baseline(run_dir: &Path, name: &str, store: &Path) -> Result<PathBuf> {
    validate_name(name)?;
    // No folder-lock check here (merge has one): `p3lab run --save-baseline` saves while it
    // still holds its output folder's lock. `complete` tells a finished run from a running one.
    let (meta, runs) = read_runs(run_dir)?;
    if let Some(r) = runs.iter().find(|r| !r.complete) {
        bail!(
            "{}: run {} did not finish (complete: false); a baseline must be a finished run",
            meta.display(),
            r.run_id
        );
    }
    for f in CSV_FILES {
        let p = run_dir.join(f);
        if !p.is_file() {
            bail!("{}: missing; not a p3lab run folder", p.display());
        }
    }
    let target = store.join(name);
    remove_stale_staging(&target, &["save-tmp"]);
    // Removed on an error or an interrupt (crate::cleanup).
    let staging = make_staging(&target, "save-tmp")?;
    copy_run(run_dir, &meta, staging.path())?;
    if target.exists() {
        replace_dir(staging.path(), &target)?;
    } else {
        fs::rename(staging.path(), &target)
            .map_err(|e| anyhow!("cannot move baseline into {}: {e}", target.display()))?;
    }
    staging.keep();
    Ok(target)
}

/// Copy the run's files into `staging`, an empty folder.
fn copy_run(run_dir: &Path, meta: &Path, staging: &Path) -> Result<()> {
    let meta_name = meta.file_name().expect("run.json or runs.json");
    for f in CSV_FILES
        .iter()
        .copied()
        .map(Path::new)
        .chain([Path::new(meta_name)])
    {
        let (from, to) = (run_dir.join(f), staging.join(f));
        fs::copy(&from, &to)
            .map_err(|e| anyhow!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    }
    let info = serde_json::json!({
        "saved_utc": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "source": fs::canonicalize(run_dir).unwrap_or_else(|_| run_dir.to_path_buf()),
    });
    fs::write(
        staging.join("baseline.json"),
        serde_json::to_string_pretty(&info)? + "\n",
    )?;
    Ok(())
}

/// The names of the baselines in `store`, sorted; empty when the store does not exist.
pub fn list_baselines(store: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    let entries = match fs::read_dir(store) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(names),
        Err(e) => bail!("{}: cannot list baselines: {e}", store.display()),
    };
    for e in entries {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() && validate_name(&name).is_ok() && has_run(&e.path()) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

fn has_run(dir: &Path) -> bool {
    dir.join("results.csv").is_file()
        && (dir.join(RUN_JSON).is_file() || dir.join(RUNS_JSON).is_file())
}

/// The folder of baseline `name` in `store`, to read like a run folder. A missing baseline is
/// an error that lists the baselines there are.
pub fn baseline_dir(name: &str, store: &Path) -> Result<PathBuf> {
    validate_name(name)?;
    let dir = store.join(name);
    if has_run(&dir) {
        return Ok(dir);
    }
    let existing = list_baselines(store)?;
    let have = if existing.is_empty() {
        format!("there are none in {}", store.display())
    } else {
        format!(
            "{} baseline(s) in {}{}",
            existing.len(),
            store.display(),
            crate::suggest::hint(name, existing.iter().map(String::as_str))
        )
    };
    bail!(
        "no baseline named {name:?}; {have} (save one with `p3lab run ... --save-baseline {name}`)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["main", "v1.2", "nvidia-h200_2026-11", "A.b-c_d"] {
            validate_name(ok).unwrap();
        }
        for bad in [
            "",
            ".hidden",
            "..",
            "a/b",
            "a b",
            "ü",
            "x:y",
            &"a".repeat(101),
        ] {
            assert!(validate_name(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn default_store_is_relative() {
        assert_eq!(default_store(), Path::new(".p3lab/baselines"));
    }
}
