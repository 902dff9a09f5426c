//! The read side of a run folder, in one place: which metadata file it has (run.json, or
//! runs.json for a merged folder, either gzipped as committed reports keep them), each run's
//! metadata as a typed [`RunInfo`] that reads every schema version p3lab wrote (a key an older
//! version lacks is empty; a value of the wrong type, from a hand-edited file, is empty too),
//! and each run's exact text (a merge copies it unchanged). Every command that reads run.json
//! reads it through [`RunFolder`]; results.csv, samples.csv and metrics.csv are read by
//! `results::read`.
mod lenient;
#[cfg(test)]
mod tests;

use anyhow::{anyhow, bail, Result};
use lenient::{any_string, or_default};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Metadata of a single run.
pub const RUN_JSON: &str = "run.json";
/// Metadata of a merged folder: a JSON array of run.json objects.
pub const RUNS_JSON: &str = "runs.json";
/// A run's copy of the peaks its %-of-peak columns used (the report's roofline ceilings).
pub const PEAKS_CSV: &str = "peaks.csv";

/// The device a run measured, as run.json's `device` has it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct DeviceInfo {
    /// `device.name`.
    #[serde(deserialize_with = "any_string")]
    pub name: String,
    /// `device.uuid` (hex).
    #[serde(deserialize_with = "any_string")]
    pub uuid: String,
    /// `device.device_type` (`discrete`, `cpu`, …).
    #[serde(deserialize_with = "any_string")]
    pub device_type: String,
    /// `device.driver_name`.
    #[serde(deserialize_with = "any_string")]
    pub driver_name: String,
    /// `device.driver_info`.
    #[serde(deserialize_with = "any_string")]
    pub driver_info: String,
    /// `device.driver_version` (a number in run.json, kept as its text).
    #[serde(deserialize_with = "any_string")]
    pub driver_version: String,
    /// `device.api_version`.
    #[serde(deserialize_with = "any_string")]
    pub api_version: String,
}

/// One case's rounds in one mode, as run.json's `rounds` has them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct RoundsInfo {
    /// The scenario.
    #[serde(deserialize_with = "any_string")]
    pub scenario: String,
    /// The case's params label.
    #[serde(deserialize_with = "any_string")]
    pub params: String,
    /// The mode.
    #[serde(deserialize_with = "any_string")]
    pub mode: String,
    /// The variants of each round, in the order they ran.
    #[serde(deserialize_with = "or_default")]
    pub order: Vec<Vec<String>>,
    /// The placement check's order (empty without one).
    #[serde(deserialize_with = "or_default")]
    pub placement_order: Vec<String>,
}

/// One run's run.json, typed: what p3lab's commands read of it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct RunInfo {
    /// `run_id` (the rows' `run_id`).
    #[serde(deserialize_with = "any_string")]
    pub run_id: String,
    /// `schema_version`: the results schema the run wrote; None where absent.
    #[serde(deserialize_with = "or_default")]
    pub schema_version: Option<u64>,
    /// `p3lab_version`.
    #[serde(deserialize_with = "any_string")]
    pub p3lab_version: String,
    /// `git_revision` (with `-dirty`); empty when null or absent.
    #[serde(deserialize_with = "any_string")]
    pub git_revision: String,
    /// `command_line`: the arguments of the command that started the run (older files held
    /// one string: its one element).
    #[serde(deserialize_with = "lenient::argv")]
    pub command_line: Vec<String>,
    /// `resume_command_lines`: each `--resume`'s arguments.
    #[serde(deserialize_with = "or_default")]
    pub resume_command_lines: Vec<Vec<String>>,
    /// `resumed`: how many times the run was resumed; None where absent.
    #[serde(deserialize_with = "or_default")]
    pub resumed: Option<u64>,
    /// `started_utc` (RFC 3339).
    #[serde(deserialize_with = "any_string")]
    pub started_utc: String,
    /// `finished_utc`; empty while unfinished.
    #[serde(deserialize_with = "any_string")]
    pub finished_utc: String,
    /// `host`.
    #[serde(deserialize_with = "any_string")]
    pub host: String,
    /// `complete`; None where run.json does not say.
    #[serde(deserialize_with = "or_default")]
    pub complete: Option<bool>,
    /// `peaks_file`: the peaks.csv the run used; empty without.
    #[serde(deserialize_with = "any_string")]
    pub peaks_file: String,
    /// `device`.
    #[serde(deserialize_with = "or_default")]
    pub device: DeviceInfo,
    /// `rounds`: each case's rounds per mode.
    #[serde(deserialize_with = "or_default")]
    pub rounds: Vec<RoundsInfo>,
    /// `args`: what `--resume` restores.
    #[serde(deserialize_with = "or_default")]
    pub args: crate::output::run_json::RecordedArgs,
}

/// One run of a folder: its typed metadata and its exact text.
#[derive(Debug, Clone, PartialEq)]
pub struct RunEntry {
    /// The typed metadata.
    pub info: RunInfo,
    /// The run's JSON object exactly as it was in the file (trimmed), so that nothing is
    /// reformatted when it is copied (a merge).
    pub raw: String,
}

/// A run folder's metadata: its run.json (one run) or runs.json (a merged folder's runs).
#[derive(Debug, Clone, PartialEq)]
pub struct RunFolder {
    /// The folder.
    pub dir: PathBuf,
    /// The file read (run.json, runs.json, or either gzipped).
    pub file: PathBuf,
    /// The runs, in file order: one for a run folder.
    pub runs: Vec<RunEntry>,
}

impl RunFolder {
    /// Open `dir`'s run.json or runs.json (`.gz` read where only that is there). Errors name
    /// the folder or file: not a folder, neither file, both files, unreadable, not JSON, a run
    /// that is not an object.
    pub fn open(dir: &Path) -> Result<RunFolder> {
        if !dir.is_dir() {
            bail!("{}: not a folder", dir.display());
        }
        let either = |name: &str| {
            let plain = dir.join(name);
            let gz = dir.join(format!("{name}.gz"));
            if !plain.is_file() && gz.is_file() {
                gz
            } else {
                plain
            }
        };
        let (single, merged) = (either(RUN_JSON), either(RUNS_JSON));
        let file = match (single.is_file(), merged.is_file()) {
            (true, true) => bail!(
                "{}: holds both {RUN_JSON} and {RUNS_JSON}; a run folder has run.json, a merged folder runs.json",
                dir.display()
            ),
            (false, false) => bail!(
                "{}: missing {RUN_JSON} (or {RUNS_JSON} for a merged folder)",
                single.display()
            ),
            (true, false) => single,
            (false, true) => merged,
        };
        let runs = parse_runs(&read_text(&file)?, &file)?;
        Ok(RunFolder {
            dir: dir.to_path_buf(),
            file,
            runs,
        })
    }

    /// The run whose rows carry `run_id`; for a folder of one run, that run also for rows
    /// without an id.
    pub fn run(&self, run_id: &str) -> Option<&RunInfo> {
        self.runs
            .iter()
            .map(|r| &r.info)
            .find(|r| r.run_id == run_id)
            .or_else(|| (self.runs.len() == 1 && run_id.is_empty()).then(|| &self.runs[0].info))
    }

    /// The folder's own peaks.csv (the copy `p3lab run` keeps), else the first of `named` (the
    /// runs' `peaks_file`s) that is still there.
    pub fn peaks_path<'n>(dir: &Path, named: impl IntoIterator<Item = &'n str>) -> Option<PathBuf> {
        let own = dir.join(PEAKS_CSV);
        if own.is_file() {
            return Some(own);
        }
        named
            .into_iter()
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .find(|p| p.is_file())
    }
}

/// The runs of a metadata file's text: a run.json's one object, or a runs.json's array of
/// them (when `file`'s name starts with `runs.json`). Errors name `file`.
pub fn parse_runs(text: &str, file: &Path) -> Result<Vec<RunEntry>> {
    let merged = file
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(RUNS_JSON));
    let raws: Vec<&str> = if merged {
        split_json_array(text)
            .map_err(|e| anyhow!("{}: not a JSON array of runs: {e}", file.display()))?
    } else {
        vec![text.trim()]
    };
    raws.into_iter()
        .map(|raw| {
            parse(raw, file).map(|info| RunEntry {
                info,
                raw: raw.to_string(),
            })
        })
        .collect()
}

/// A run's JSON object, typed.
fn parse(raw: &str, file: &Path) -> Result<RunInfo> {
    let v: serde_json::Value =
        serde_json::from_str(raw).map_err(|e| anyhow!("{}: invalid JSON: {e}", file.display()))?;
    if !v.is_object() {
        bail!("{}: a run must be a JSON object", file.display());
    }
    // Every field is read leniently: this cannot fail on an object.
    serde_json::from_value(v).map_err(|e| anyhow!("{}: {e}", file.display()))
}

/// A text file, through gzip when its name ends in `.gz`.
fn read_text(path: &Path) -> Result<String> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut crate::results::read::open_input(path)?, &mut text)
        .map_err(|e| anyhow!("{}: cannot read: {e}", path.display()))?;
    Ok(text)
}

/// Split the text of a JSON array into its elements' text, without parsing the numbers in
/// them (parsing and printing again could change how a float is written).
pub fn split_json_array(text: &str) -> Result<Vec<&str>> {
    let t = text.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| anyhow!("expected [ ... ]"))?;
    let mut out = Vec::new();
    let (mut depth, mut in_str, mut esc, mut start) = (0i64, false, false, 0usize);
    for (i, c) in inner.char_indices() {
        if in_str {
            match (esc, c) {
                (true, _) => esc = false,
                (false, '\\') => esc = true,
                (false, '"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_str = true,
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            bail!("unbalanced brackets");
        }
    }
    let last = inner[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    if out.iter().any(|e| e.is_empty()) {
        bail!("empty element");
    }
    Ok(out)
}

/// Mark the run.json in `dir` interrupted (not complete, finished now), keeping every other
/// key as it was: for an exit that cannot wait for the runner to write its own.
pub fn mark_interrupted(dir: &Path) -> Result<()> {
    let path = dir.join(RUN_JSON);
    let mut v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("interrupted".into(), true.into());
        o.insert("complete".into(), false.into());
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        o.insert("finished_utc".into(), now.into());
    }
    crate::results::write::write_file_atomic(
        &path,
        (serde_json::to_string_pretty(&v)? + "\n").as_bytes(),
    )
}
