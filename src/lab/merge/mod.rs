//! `merge`: combine run folders from many machines (or earlier merged folders) into one folder
//! with results.csv, samples.csv, metrics.csv and runs.json, after checking that they can be
//! combined. Rows are copied byte for byte, never parsed into numbers and printed again.
use super::{CSV_FILES, RUNS_JSON};
use anyhow::{anyhow, bail, Result};
use std::collections::{BTreeMap, HashSet};
use std::fs::{self, File};
use std::path::{Path, PathBuf};

mod tables;
use tables::{scan, write_merged, Table};

/// What a merge wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergeSummary {
    /// The merged folder.
    pub out: PathBuf,
    /// Number of input folders.
    pub inputs: usize,
    /// Every merged run, in input order.
    pub run_ids: Vec<String>,
    /// Runs whose run.json says `complete: false` (interrupted); their rows are merged as they
    /// are, since a run keeps every variant it finished.
    pub incomplete_runs: Vec<String>,
    /// The results schema version every input shares (a merge refuses inputs that differ).
    pub schema_version: u64,
    /// Input files with fewer columns than the merged header: the columns filled with empty
    /// cells in their rows, in header order.
    pub filled: Vec<(PathBuf, Vec<String>)>,
    /// Data rows (header excluded) written to each file.
    pub results_rows: u64,
    /// Data rows written to samples.csv.
    pub samples_rows: u64,
    /// Data rows written to metrics.csv.
    pub metrics_rows: u64,
    /// Inputs' samples.csv / metrics.csv that were missing (reports keep results.csv and may
    /// drop the large ones): those runs have no rows in that merged file.
    pub absent: Vec<PathBuf>,
}

/// One run's metadata, as a merge needs it: read through [`crate::runfolder::RunFolder`]
/// from run.json or from one element of a merged runs.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FolderRun {
    /// The run's id, as its rows' `run_id` column says.
    pub run_id: String,
    /// run.json's `schema_version` (the results schema the run wrote).
    pub schema_version: u64,
    /// False for a run that was interrupted (or is still running).
    pub complete: bool,
    /// Empty when run.json has no host.
    pub host: String,
    /// The run's JSON object exactly as it was in the file (trimmed), so no value is reformatted.
    pub raw: String,
}

/// The runs a folder holds: its run.json, or the elements of its runs.json for a merged
/// folder (either gzipped). Returns the file read and the runs in file order; a run without a
/// `run_id` or a `schema_version` is an error naming the file.
pub fn read_runs(dir: &Path) -> Result<(PathBuf, Vec<FolderRun>)> {
    let folder = crate::runfolder::RunFolder::open(dir)?;
    let file = folder.file;
    let runs = folder
        .runs
        .into_iter()
        .map(|e| {
            let i = e.info;
            if i.run_id.is_empty() {
                bail!("{}: no run_id", file.display());
            }
            let Some(schema_version) = i.schema_version else {
                bail!("{}: run {} has no schema_version", file.display(), i.run_id);
            };
            Ok(FolderRun {
                run_id: i.run_id,
                schema_version,
                complete: i.complete.unwrap_or(false),
                host: i.host,
                raw: e.raw,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((file, runs))
}

/// `p3lab run` holds an exclusive lock on `.p3lab.lock` in its output folder while it writes;
/// a folder still being written would be merged with its last rows missing.
pub(crate) fn refuse_if_being_written(dir: &Path) -> Result<()> {
    let path = dir.join(".p3lab.lock");
    let Ok(f) = File::open(&path) else {
        return Ok(());
    };
    match f.try_lock_shared() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => bail!(
            "{}: a p3lab run is still writing into this folder; wait for it to finish",
            dir.display()
        ),
        // A file system without locks cannot tell; run.json's `complete` still does.
        Err(std::fs::TryLockError::Error(_)) => Ok(()),
    }
}

/// One input folder, checked.
struct Input {
    dir: PathBuf,
    runs: Vec<FolderRun>,
    tables: Vec<Table>,
    /// Gzipped files unpacked for the byte-for-byte copy; removed when the merge ends.
    _unpacked: Vec<Unpacked>,
    /// samples.csv / metrics.csv this input does not have.
    absent: Vec<PathBuf>,
}

/// A temporary plain copy of a gzipped CSV file, removed on drop and on an interrupt.
type Unpacked = crate::cleanup::Temp;

/// The temporary files of merges (`p3lab-merge-PID-N-NAME` in the temp folder).
const TEMP_PREFIX: &str = "p3lab-merge-";

/// A fresh temporary file for this process, created empty and registered for removal.
fn temp_file(name: &str) -> Result<(Unpacked, File)> {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("{TEMP_PREFIX}{}-{n}-{name}", std::process::id()));
    let _ = fs::remove_file(&path);
    crate::cleanup::Temp::create_file(&path).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// The plain file to scan and copy for `dir/name`: itself, or a temporary unpacked copy of
/// `dir/name.gz` where only that is there (reports keep their CSV files gzipped).
fn plain_csv(
    dir: &Path,
    name: &str,
    unpacked: &mut Vec<Unpacked>,
    absent: &mut Vec<PathBuf>,
) -> Result<PathBuf> {
    let Some(path) = crate::results::csv_file(dir, name) else {
        // Committed reports keep results.csv and sometimes drop the (large) samples.csv or
        // metrics.csv: those runs merge with no samples or metrics, said in the log.
        let header = match name {
            "samples.csv" => crate::results::header::<crate::results::SampleRow>(),
            "metrics.csv" => crate::results::header::<crate::results::MetricRow>(),
            _ => bail!(
                "{}: missing or unreadable (nor is there a {name}.gz)",
                dir.join(name).display()
            ),
        };
        tracing::warn!(
            "merge: {} is missing: its runs have no rows in the merged {name}",
            dir.join(name).display()
        );
        absent.push(dir.join(name));
        let (guard, mut f) = temp_file(name)?;
        let tmp = guard.path().to_path_buf();
        std::io::Write::write_all(&mut f, (header.join(",") + "\n").as_bytes())
            .map_err(|e| anyhow!("{}: {e}", tmp.display()))?;
        unpacked.push(guard);
        return Ok(tmp);
    };
    if path.extension().is_none_or(|e| e != "gz") {
        return Ok(path);
    }
    let mut from = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(
        fs::File::open(&path).map_err(|e| anyhow!("{}: {e}", path.display()))?,
    ));
    let (guard, mut to) = temp_file(name)?;
    let tmp = guard.path().to_path_buf();
    std::io::copy(&mut from, &mut to).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    unpacked.push(guard);
    Ok(tmp)
}

fn load_input(dir: &Path) -> Result<Input> {
    let (meta, runs) = read_runs(dir)?;
    refuse_if_being_written(dir)?;
    let mut declared = BTreeMap::new();
    for r in &runs {
        if declared
            .insert(r.run_id.as_str(), r.schema_version)
            .is_some()
        {
            bail!("{}: run {} is listed twice", meta.display(), r.run_id);
        }
    }
    let (mut unpacked, mut absent) = (Vec::new(), Vec::new());
    let mut tables = Vec::new();
    for f in CSV_FILES {
        let path = plain_csv(dir, f, &mut unpacked, &mut absent)?;
        if f == "results.csv" {
            // Every row through the one reader: a cell that is not its column's type stops
            // the merge here, naming the file and line, as compare and report would.
            crate::results::read_results(&path).map_err(|e| {
                anyhow!(
                    "{}",
                    e.to_string().replace(
                        &path.display().to_string(),
                        &dir.join(f).display().to_string()
                    )
                )
            })?;
        }
        tables.push(scan(&path, &declared, &meta)?);
    }
    Ok(Input {
        dir: dir.to_path_buf(),
        runs,
        tables,
        _unpacked: unpacked,
        absent,
    })
}

/// Combine run folders (or merged folders) into `out`: results.csv, samples.csv and
/// metrics.csv with every input's rows in input order, and runs.json, the array of every
/// input's run.json as it was.
///
/// A file whose header is a prefix of another input's (written before columns were appended)
/// is merged with empty cells in the columns it lacks, which `MergeSummary::filled` lists and
/// an info message names.
///
/// Refused, with nothing written: an input missing one of the files (the error names it);
/// headers that differ other than by appended columns, or a different schema_version (the
/// error names the file); a row whose run_id the folder's run.json does not declare; the same run_id in two
/// inputs (the error names both folders); `out` being one of the inputs.
///
/// `out` is built in a temporary sibling folder and renamed into place, so a failed merge
/// leaves nothing half-written. An existing `out` must be empty or an earlier merge (only the
/// merge files, runs.json and no run.json); it is then replaced.
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<MergeSummary> {
    if inputs.is_empty() {
        bail!("merge: no input folders");
    }
    let out_canon = out.canonicalize().ok();
    for dir in inputs {
        if out_canon.is_some() && dir.canonicalize().ok() == out_canon {
            bail!(
                "merge: the output folder {} is also an input; choose another --out",
                out.display()
            );
        }
    }

    // What a killed merge left: its staging folder, an earlier output moved aside (put
    // back when the output is missing), unpacked copies in the temp folder.
    remove_stale_staging(out, &["merge-tmp"]);
    crate::cleanup::remove_stale(
        &std::env::temp_dir(),
        |n| n.strip_prefix(TEMP_PREFIX).and_then(crate::cleanup::pid_in),
        None,
    );

    let loaded = inputs
        .iter()
        .map(|d| load_input(d))
        .collect::<Result<Vec<_>>>()?;

    // Every input must have the first input's headers and schema_version.
    let first = &loaded[0];
    let schema_version = first.runs[0].schema_version;
    for input in &loaded {
        for r in &input.runs {
            if r.schema_version != schema_version {
                let (meta, _) = read_runs(&input.dir)?;
                bail!(
                    "{}: run {} has schema_version {} but run {} in {} has {schema_version}; \
                     files of different schemas cannot be merged (re-run with one p3lab version, \
                     or read them by column name)",
                    meta.display(),
                    r.run_id,
                    r.schema_version,
                    first.runs[0].run_id,
                    first.dir.display()
                );
            }
        }
    }
    // Headers: every input's a prefix of the widest one's; shorter files get empty cells.
    let mut filled = Vec::new();
    for (i, name) in CSV_FILES.iter().enumerate() {
        let (header, fills) = tables::merged_header(&loaded, i)?;
        for (input, fill) in loaded.iter().zip(fills) {
            let cols = fill.missing(&header);
            let (params, older): (Vec<String>, Vec<String>) = cols
                .iter()
                .cloned()
                .partition(|c| c.starts_with(crate::results::params::PARAM_PREFIX));
            if !older.is_empty() {
                tracing::info!(
                    "merge: {} has no column{} {} (written by an older p3lab): filled with empty cells",
                    input.dir.join(name).display(),
                    if older.len() == 1 { "" } else { "s" },
                    older.join(", ")
                );
            }
            if !params.is_empty() {
                tracing::info!(
                    "merge: {} has no params column{} {} (its scenarios have no such param): left empty",
                    input.dir.join(name).display(),
                    if params.len() == 1 { "" } else { "s" },
                    params.join(", ")
                );
            }
            if !cols.is_empty() {
                filled.push((input.dir.join(name), cols));
            }
        }
    }

    // The same run twice would double its rows, and its samples could not be told apart.
    let mut seen: BTreeMap<&str, (&Path, &FolderRun)> = BTreeMap::new();
    for input in &loaded {
        for r in &input.runs {
            if let Some((dir, other)) = seen.insert(&r.run_id, (&input.dir, r)) {
                let mut msg = format!(
                    "run {} is in both {} and {}",
                    r.run_id,
                    dir.display(),
                    input.dir.display()
                );
                if other.raw == r.raw {
                    msg.push_str("; each run may be merged once");
                } else {
                    // Different run.json, same id: files from p3lab versions whose run_id was
                    // the start second and a device-UUID prefix (the same on every lavapipe).
                    msg.push_str(&format!(
                        ": two different runs (hosts {:?} and {:?}) share this run_id, so their \
                         rows could not be told apart; re-run one of them",
                        other.host, r.host
                    ));
                }
                bail!(msg);
            }
        }
    }

    // Built in a hidden sibling, removed on an error or an interrupt (crate::cleanup).
    let staging = make_staging(out, "merge-tmp")?;
    write_merged(&loaded, staging.path())?;
    put_in_place(staging.path(), out)?;
    staging.keep();

    let rows = |i: usize| loaded.iter().map(|x| x.tables[i].rows).sum();
    let all_runs = loaded.iter().flat_map(|x| &x.runs);
    Ok(MergeSummary {
        out: out.to_path_buf(),
        inputs: loaded.len(),
        run_ids: all_runs.clone().map(|r| r.run_id.clone()).collect(),
        incomplete_runs: all_runs
            .filter(|r| !r.complete)
            .map(|r| r.run_id.clone())
            .collect(),
        schema_version,
        filled,
        results_rows: rows(0),
        samples_rows: rows(1),
        metrics_rows: rows(2),
        absent: loaded.iter().flat_map(|x| x.absent.clone()).collect(),
    })
}

/// A hidden sibling of `target` (same file system, so a rename moves it into place).
fn staging_path(target: &Path, tag: &str) -> Result<PathBuf> {
    let name = target
        .file_name()
        .ok_or_else(|| anyhow!("{}: not a usable folder name", target.display()))?
        .to_string_lossy()
        .into_owned();
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(|e| anyhow!("cannot create {}: {e}", parent.display()))?;
    Ok(parent.join(format!(".{name}.{tag}-{}", std::process::id())))
}

/// The staging folder for `target`, created empty and registered for removal.
pub(crate) fn make_staging(target: &Path, tag: &str) -> Result<crate::cleanup::Temp> {
    let path = staging_path(target, tag)?;
    if fs::symlink_metadata(&path).is_ok() {
        // Ours from an earlier process with this id: that process is gone.
        fs::remove_dir_all(&path).or_else(|_| fs::remove_file(&path))?;
    }
    crate::cleanup::Temp::create_dir(&path)
        .map_err(|e| anyhow!("cannot create {}: {e}", path.display()))
}

/// Undo what a killed process left beside `target`: staging folders of the `tags` (removed)
/// and a `target` moved aside by [`replace_dir`] (put back when `target` is missing, else
/// removed), once their process is gone (crate::cleanup::remove_stale).
pub(crate) fn remove_stale_staging(target: &Path, tags: &[&str]) {
    let (Some(name), Some(parent)) = (target.file_name(), target.parent()) else {
        return;
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let name = name.to_string_lossy();
    for tag in tags {
        let prefix = format!(".{name}.{tag}-");
        crate::cleanup::remove_stale(
            parent,
            |n| n.strip_prefix(&prefix).and_then(crate::cleanup::pid_in),
            None,
        );
    }
    let prefix = format!(".{name}.old-");
    crate::cleanup::remove_stale(
        parent,
        |n| n.strip_prefix(&prefix).and_then(crate::cleanup::pid_in),
        Some(target),
    );
}

/// Move the finished staging folder to `out`. An existing `out` must be empty or an earlier
/// merge; anything else is left alone and refused.
fn put_in_place(staging: &Path, out: &Path) -> Result<()> {
    if !out.exists() {
        return fs::rename(staging, out)
            .map_err(|e| anyhow!("cannot move the merge into {}: {e}", out.display()));
    }
    if !out.is_dir() {
        bail!("{}: exists and is not a folder", out.display());
    }
    let ours: HashSet<&str> = CSV_FILES.iter().copied().chain([RUNS_JSON]).collect();
    let mut names = Vec::new();
    for e in fs::read_dir(out)? {
        names.push(e?.file_name().to_string_lossy().into_owned());
    }
    let foreign: Vec<&String> = names
        .iter()
        .filter(|n| !ours.contains(n.as_str()))
        .collect();
    if !names.is_empty() && (!foreign.is_empty() || !names.iter().any(|n| n == RUNS_JSON)) {
        bail!(
            "{}: exists and is not an earlier merge (it holds {}); choose a new output folder",
            out.display(),
            if foreign.is_empty() {
                "a run's files".to_string()
            } else {
                foreign
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
    }
    replace_dir(staging, out)
}

/// Replace folder `target` with `new`: move the old one aside, the new one in, then delete the
/// old one. Between the two renames `target` is briefly absent, never half-written.
pub(crate) fn replace_dir(new: &Path, target: &Path) -> Result<()> {
    let old = staging_path(target, "old")?;
    if old.exists() {
        fs::remove_dir_all(&old)?;
    }
    // Put back if this process is interrupted before the new one is in place.
    let aside = crate::cleanup::MovedAside::new(target, &old)
        .map_err(|e| anyhow!("cannot move {} aside: {e}", target.display()))?;
    if let Err(e) = fs::rename(new, target) {
        // Put the old one back so the failure changes nothing.
        aside.put_back();
        bail!("cannot move the new folder into {}: {e}", target.display());
    }
    aside.discard().map_err(|e| {
        anyhow!(
            "replaced {}, but cannot remove {}: {e}",
            target.display(),
            old.display()
        )
    })
}
