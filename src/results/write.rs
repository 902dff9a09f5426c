//! Writing a run folder's CSV files: whole rows only, flushed as each variant finishes, and
//! reopened for `--resume` (dropping a row a killed process cut short).
use super::csv_safe;
use super::read::{Record, RowKey};
use super::row::{header, MetricRow, ResultRow, SampleRow};
use std::fs::File;
use std::path::{Path, PathBuf};

/// Held while rows go to disk: an exit forced by a second or late interrupt (app/run.rs)
/// takes it first, so it never cuts a row of one file, nor one variant's rows across files.
pub static ROW_WRITES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The error for an output path that is a symbolic link: p3lab never writes through a link
/// (it could overwrite a file anywhere the link points), so the command stops, naming it.
#[derive(Debug, thiserror::Error)]
#[error("{}: is a symbolic link; p3lab does not write through links (remove it, or write to another folder)", .0.display())]
pub struct LinkedOutput(pub PathBuf);

/// An error when `path` exists as a symbolic link (to anything, or dangling).
pub fn refuse_link(path: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(LinkedOutput(path.to_path_buf()).into()),
        _ => Ok(()),
    }
}

/// Write a whole file so that it is never seen half-written and never written through a link:
/// the bytes go to a temporary file beside it (`.NAME.tmp-PID-N`), which is synced and then
/// renamed over `path`. An interrupted command leaves the old file or the new one, and no
/// temporary file: it is removed on an error, on an interrupt (crate::cleanup) and, when a
/// killed process left one, by the next write of the same file. A `path` that is a symbolic
/// link is refused.
pub fn write_file_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write as _;
    refuse_link(path)?;
    let name = path
        .file_name()
        .ok_or_else(|| anyhow::anyhow!("{}: not a file name", path.display()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!(".{}.tmp-", name.to_string_lossy());
    // Left by a killed p3lab: removed once its process is gone.
    crate::cleanup::remove_stale(
        dir,
        |n| n.strip_prefix(&prefix).and_then(crate::cleanup::pid_in),
        None,
    );
    // Per call, so two threads writing one file (run.json at the end of a run and on a
    // forced exit) never share a temporary file.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!("{prefix}{}-{call}", std::process::id()));
    // A stale one of a killed process with the same id: removed (a link is removed itself,
    // never followed); `create_new` then refuses anything that appeared since.
    let _ = std::fs::remove_file(&tmp);
    let written = crate::cleanup::Temp::create_file(&tmp).and_then(|(temp, mut f)| {
        let half = bytes.len() / 2;
        f.write_all(&bytes[..half])?;
        crate::cleanup::test_pause();
        f.write_all(&bytes[half..])?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        temp.keep();
        Ok(())
    });
    if let Err(e) = written {
        // The temporary file is gone with its guard.
        anyhow::bail!("cannot write {}: {e}", path.display());
    }
    // The rename itself reaches the disk with the folder (best effort: not every file system
    // syncs folders).
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Write a file the user named for one output (`--export-markdown`, `--export-json`): a
/// character device or a FIFO (`/dev/stdout`, `/dev/null`, a named pipe), named directly or
/// through links, is written in place, since it holds no file to replace; so is one of the
/// process's own descriptors (`/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`), whatever it
/// is open on. Anything else goes through [`write_file_atomic`] (a link refused).
pub fn write_output_file(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use std::io::Write as _;
    let fail = |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", path.display());
    // stdout and stderr through their own handles: at their offset, as a shell's `>` or
    // `>>` set it (opening /dev/stdout again would start at the file's beginning).
    match own_descriptor(path) {
        Some(1) => {
            let mut o = std::io::stdout().lock();
            return o.write_all(bytes).and_then(|()| o.flush()).map_err(fail);
        }
        Some(2) => return std::io::stderr().lock().write_all(bytes).map_err(fail),
        Some(_) => {}
        None if !writes_in_place(path) => return write_file_atomic(path, bytes),
        None => {}
    }
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
        .map_err(fail)
}

/// The descriptor `path` names in `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or
/// `/proc/self/fd/N`.
fn own_descriptor(path: &Path) -> Option<u32> {
    match path.to_str()? {
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        p => ["/dev/fd/", "/proc/self/fd/"]
            .iter()
            .find_map(|d| p.strip_prefix(d)?.parse().ok()),
    }
}

/// `path` is a stream to write into, not a file to replace (see [`write_output_file`]).
pub fn writes_in_place(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    own_descriptor(path).is_some()
        || std::fs::metadata(path)
            .is_ok_and(|m| m.file_type().is_char_device() || m.file_type().is_fifo())
}

/// An error when `path` is a symbolic link [`write_output_file`] would refuse: checked
/// before a run, so the run is not spent on an export it cannot write.
pub fn refuse_output_link(path: &Path) -> anyhow::Result<()> {
    if writes_in_place(path) {
        return Ok(());
    }
    refuse_link(path)
}

/// The three CSV files of a run folder.
pub struct Writers {
    results: csv::Writer<WholeRows>,
    samples: csv::Writer<WholeRows>,
    metrics: csv::Writer<WholeRows>,
    /// The run folder (other files of the run, such as probe pictures, go there too).
    dir: std::path::PathBuf,
    /// The param names whose typed `param_NAME` columns follow results.csv's fixed ones
    /// (src/results/params.rs), sorted.
    params: Vec<String>,
}

/// A file that only ever receives whole rows: bytes are held until `flush` (which p3lab calls
/// after whole rows only), then written at once; a write that fails half-way (a full disk)
/// is cut back to the last whole row, and the error names the file. So no file p3lab writes
/// ends in a partial row, with one exception it cannot prevent: Linux copies a write page by
/// page and stops at a page boundary once a fatal signal is pending, so a SIGKILL during a
/// write that spans pages leaves the file cut there. `run --resume` cuts such a partial last
/// row (the file's length is then the whole rows' again).
pub struct WholeRows {
    file: File,
    path: std::path::PathBuf,
    pending: Vec<u8>,
    /// Bytes of whole rows in the file (a Cell: `csv::Writer` lends only `&WholeRows` back,
    /// and [`WholeRows::cut_to`] needs to move it).
    len: std::cell::Cell<u64>,
}

impl WholeRows {
    fn new(file: File, path: std::path::PathBuf) -> std::io::Result<WholeRows> {
        let len = file.metadata()?.len();
        Ok(WholeRows {
            file,
            path,
            pending: Vec::new(),
            len: std::cell::Cell::new(len),
        })
    }
}

impl WholeRows {
    /// Cut the file back to `len` bytes of whole rows (no further than it is): a variant
    /// whose files were not all written leaves none of its lines. Called after a flush, with
    /// nothing pending.
    fn cut_to(&self, len: u64) {
        if len < self.len.get() {
            let _ = self.file.set_len(len);
            let _ = std::io::Seek::seek(&mut &self.file, std::io::SeekFrom::Start(len));
            self.len.set(len);
        }
    }
}

impl std::io::Write for WholeRows {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        match self
            .file
            .write_all(&pending)
            .and_then(|_| self.file.flush())
        {
            Ok(()) => {
                self.len.set(self.len.get() + pending.len() as u64);
                Ok(())
            }
            Err(e) => {
                // Back to the last whole row; the rows not written are lost, the file stays
                // whole.
                let _ = self.file.set_len(self.len.get());
                let _ =
                    std::io::Seek::seek(&mut self.file, std::io::SeekFrom::Start(self.len.get()));
                Err(std::io::Error::new(
                    e.kind(),
                    format!(
                        "{}: {e} (cut back to its last whole row)",
                        self.path.display()
                    ),
                ))
            }
        }
    }
}

fn open(dir: &Path, name: &str) -> anyhow::Result<csv::Writer<WholeRows>> {
    let path = dir.join(name);
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(&path)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()))?;
    Ok(csv::WriterBuilder::new()
        .has_headers(true)
        .from_writer(WholeRows::new(f, path)?))
}

impl Writers {
    /// The run folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Create the run folder's three CSV files with their headers; results.csv gets a typed
    /// `param_NAME` column after its fixed ones for each of `params` (the run's param names).
    pub fn create(dir: &Path, params: &[String]) -> anyhow::Result<Self> {
        refuse_links(dir)?;
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        let mut w = Writers {
            results: open(dir, "results.csv")?,
            samples: open(dir, "samples.csv")?,
            metrics: open(dir, "metrics.csv")?,
            dir: dir.to_path_buf(),
            params: params.to_vec(),
        };
        // Headers go out even for a run that produces no rows, so every file parses.
        w.results.write_record(results_header(params))?;
        w.samples.write_record(header::<SampleRow>())?;
        w.metrics.write_record(header::<MetricRow>())?;
        w.results = rebuild(w.results)?;
        w.samples = rebuild(w.samples)?;
        w.metrics = rebuild(w.metrics)?;
        w.flush()?;
        Ok(w)
    }

    /// Reopen a run folder to append to it (`--resume`): each file must have today's header
    /// (results.csv with the typed columns of `params`, the run's param names); a line cut
    /// short by a killed process is dropped; samples and metrics of variants that never
    /// reached results.csv are dropped too, since those variants run again.
    pub fn append(dir: &Path, params: &[String]) -> anyhow::Result<(Self, Vec<Record>)> {
        refuse_links(dir)?;
        let done = finished(dir)?;
        let keys: std::collections::BTreeSet<RowKey> = done.iter().map(Record::key).collect();
        for (name, hdr) in [
            ("results.csv", results_header(params)),
            ("samples.csv", header::<SampleRow>()),
            ("metrics.csv", header::<MetricRow>()),
        ] {
            let path = dir.join(name);
            let text = read_for_resume(&path)?;
            // Keep whole lines only.
            let whole = match text.rfind('\n') {
                Some(i) => &text[..=i],
                None => "",
            };
            let mut r = csv::ReaderBuilder::new()
                .has_headers(true)
                .from_reader(whole.as_bytes());
            let found: Vec<String> = r.headers()?.iter().map(String::from).collect();
            if found != hdr {
                let fixed = super::params::params_start(&found);
                if found[..fixed] == hdr[..super::params::params_start(&hdr)] {
                    anyhow::bail!(
                        "--resume: {}'s params columns ({}) are not this run's ({}): its scenarios' params changed; start a new folder",
                        path.display(),
                        found[fixed..].join(", "),
                        hdr[super::params::params_start(&hdr)..].join(", ")
                    );
                }
                anyhow::bail!("--resume: {} was written by another p3lab version (its columns differ); start a new folder", path.display());
            }
            let mut w = csv::WriterBuilder::new().from_writer(vec![]);
            w.write_record(&hdr)?;
            let col = |n: &str| found.iter().position(|h| h == n);
            let (si, vi, pi) = (col("scenario"), col("variant"), col("params"));
            for rec in r.records() {
                let rec = rec.map_err(|e| anyhow::anyhow!("--resume: {}: {e}", path.display()))?;
                let key = |i: Option<usize>| {
                    csv_safe::unescape(i.and_then(|i| rec.get(i)).unwrap_or("")).into_owned()
                };
                let keep = name == "results.csv"
                    || keys.iter().any(|k| {
                        k.scenario == key(si) && k.variant == key(vi) && k.params == key(pi)
                    });
                if keep {
                    w.write_record(&rec)?;
                }
            }
            write_file_atomic(&path, &w.into_inner()?)?;
        }
        let reopen = |name: &str| -> anyhow::Result<csv::Writer<WholeRows>> {
            let path = dir.join(name);
            let f = std::fs::OpenOptions::new().append(true).open(&path)?;
            Ok(csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(WholeRows::new(f, path)?))
        };
        Ok((
            Writers {
                results: reopen("results.csv")?,
                samples: reopen("samples.csv")?,
                metrics: reopen("metrics.csv")?,
                dir: dir.to_path_buf(),
                params: params.to_vec(),
            },
            done,
        ))
    }

    /// Write one variant's rows, samples and metrics first, so results.csv never names a
    /// variant whose samples are missing.
    pub fn write_variant(
        &mut self,
        rows: &[ResultRow],
        samples: &[SampleRow],
        metrics: &[MetricRow],
    ) -> anyhow::Result<()> {
        let _held = ROW_WRITES.lock().unwrap_or_else(|e| e.into_inner());
        let (s0, m0) = (
            self.samples.get_ref().len.get(),
            self.metrics.get_ref().len.get(),
        );
        // Each file is serialized only after the one before it reached the disk, so a
        // failure leaves nothing of this variant buffered; what was written is cut back.
        let written = (|| -> anyhow::Result<()> {
            for s in samples {
                csv_safe::serialize(&mut self.samples, s)?;
            }
            self.samples.flush()?;
            for m in metrics {
                csv_safe::serialize(&mut self.metrics, m)?;
            }
            self.metrics.flush()?;
            for row in rows {
                let typed = super::params::param_cells(&row.params, &self.params);
                csv_safe::serialize_with(&mut self.results, row, &typed)?;
            }
            self.results.flush()?;
            Ok(())
        })();
        if written.is_err() {
            // A full disk on any of the three: no orphan samples or metrics of a variant
            // that has no row.
            self.samples.get_ref().cut_to(s0);
            self.metrics.get_ref().cut_to(m0);
        }
        written
    }

    /// Write out what is still buffered in results.csv, samples.csv and metrics.csv (under
    /// [`ROW_WRITES`], so an interrupt's exit waits for it).
    pub fn flush(&mut self) -> anyhow::Result<()> {
        let _held = ROW_WRITES.lock().unwrap_or_else(|e| e.into_inner());
        self.results.flush()?;
        self.samples.flush()?;
        self.metrics.flush()?;
        Ok(())
    }
}

/// results.csv's header: the fixed columns, then a `param_NAME` column per param name.
pub fn results_header(params: &[String]) -> Vec<String> {
    let mut h = header::<ResultRow>();
    h.extend(super::params::param_columns(params));
    h
}

/// The files `p3lab run` writes into its folder: results.csv, samples.csv and metrics.csv
/// (streamed, row by row) and run.json (written whole).
pub const RUN_FILES: [&str; 4] = ["results.csv", "samples.csv", "metrics.csv", "run.json"];

/// An error naming the first of a run folder's output files that is a symbolic link: checked
/// before anything is written, so a refused run changes no file.
pub fn refuse_links(dir: &Path) -> anyhow::Result<()> {
    RUN_FILES.iter().try_for_each(|f| refuse_link(&dir.join(f)))
}

/// The rows a run folder's results.csv already holds (whole lines only), for `--resume`.
pub fn finished(dir: &Path) -> anyhow::Result<Vec<Record>> {
    let path = dir.join("results.csv");
    let text = read_for_resume(&path)?;
    let whole = match text.rfind('\n') {
        Some(i) => &text[..=i],
        None => "",
    };
    super::read::read_results_text(&path, whole.as_bytes())
        .map_err(|e| anyhow::anyhow!("--resume: {e}"))
}

/// A run folder's CSV file for `--resume`; an empty one (a run killed before it wrote even
/// the header) is named as such rather than taken for another version's file.
fn read_for_resume(path: &Path) -> anyhow::Result<String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("--resume: cannot read {}: {e}", path.display()))?;
    if !text.contains('\n') {
        anyhow::bail!(
            "--resume: {} is empty ({} bytes, not even a whole header line): nothing of this run \
             can be resumed; start it again in a new folder (or delete this one)",
            path.display(),
            text.len()
        );
    }
    Ok(text)
}

/// A writer that has written its header by hand must not write another from serde.
fn rebuild(w: csv::Writer<WholeRows>) -> anyhow::Result<csv::Writer<WholeRows>> {
    let f = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("flushing CSV header: {}", e.error()))?;
    Ok(csv::WriterBuilder::new().has_headers(false).from_writer(f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names in `dir` that start with a dot (temporary files).
    fn hidden(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect()
    }

    #[test]
    fn atomic_writes_replace_whole_files_and_never_follow_links() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        write_file_atomic(&path, b"old").unwrap();
        write_file_atomic(&path, b"new text").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new text");
        assert!(hidden(dir.path()).is_empty(), "{:?}", hidden(dir.path()));
        // A link, to a file or to nothing: refused, naming the path; the target untouched.
        let target = dir.path().join("target");
        std::fs::write(&target, b"keep").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_file_atomic(&link, b"x").unwrap_err();
        assert!(e.downcast_ref::<LinkedOutput>().is_some(), "{e}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}: is a symbolic link", link.display())),
            "{e}"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        let dangling = dir.path().join("dangling.md");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(write_file_atomic(&dangling, b"x").is_err());
        assert!(!dir.path().join("nowhere").exists());
        // A failed write (the path is a folder) names it and leaves no temporary file.
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let e = write_file_atomic(&sub, b"x").unwrap_err();
        assert!(e.to_string().contains(&sub.display().to_string()), "{e}");
        assert!(hidden(dir.path()).is_empty(), "{:?}", hidden(dir.path()));
        // A run folder with one of its files a link is refused as a whole.
        std::os::unix::fs::symlink(&target, dir.path().join("metrics.csv")).unwrap();
        let e = refuse_links(dir.path()).unwrap_err();
        assert!(
            e.to_string().contains("metrics.csv: is a symbolic link"),
            "{e}"
        );
        assert!(Writers::create(dir.path(), &[]).is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    }

    #[test]
    fn whole_rows_reach_the_file_at_flush_only_and_a_failed_write_names_it() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .unwrap();
        let mut w = WholeRows::new(f, path.clone()).unwrap();
        w.write_all(b"a,b\n1,").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"", "nothing before flush");
        w.write_all(b"2\n").unwrap();
        w.flush().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"a,b\n1,2\n");
        // A full disk: the write fails, the error names the file, nothing stays pending.
        let full = std::path::PathBuf::from("/dev/full");
        if let Ok(f) = std::fs::OpenOptions::new().append(true).open(&full) {
            let mut w = WholeRows::new(f, full).unwrap();
            w.write_all(b"3,4\n").unwrap();
            let e = w.flush().unwrap_err();
            assert!(e.to_string().starts_with("/dev/full: "), "{e}");
            assert!(w.pending.is_empty());
        }
    }

    /// A row's params reach results.csv twice: packed in `params` and as typed `param_*`
    /// cells; `--resume` takes the folder only when its params columns are the run's.
    #[test]
    fn typed_params_cells_follow_the_row_and_resume_checks_them() {
        let dir = tempfile::tempdir().unwrap();
        let names = vec!["n".to_string(), "radius".to_string()];
        let mut w = Writers::create(dir.path(), &names).unwrap();
        let row = ResultRow {
            schema_version: crate::results::SCHEMA_VERSION,
            variant: "v".into(),
            params: "n=1024".into(),
            ..Default::default()
        };
        w.write_variant(&[row], &[], &[]).unwrap();
        drop(w);
        let text = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].ends_with(",param_n,param_radius"), "{}", lines[0]);
        assert!(lines[1].ends_with(",1024,"), "{}", lines[1]);
        if let Err(e) = Writers::append(dir.path(), &names) {
            panic!("{e:#}");
        }
        let e = Writers::append(dir.path(), &["n".to_string()])
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("params columns (param_n, param_radius) are not this run's (param_n)"),
            "{e}"
        );
    }

    /// samples.csv on a full disk: the variant's metrics must not reach metrics.csv, nor
    /// its row results.csv (before, its metrics were written by the next flush: orphan
    /// metric rows without a result row).
    #[test]
    fn a_variant_whose_samples_fail_leaves_no_metrics_and_no_row() {
        let full = std::path::PathBuf::from("/dev/full");
        let Ok(f) = std::fs::OpenOptions::new().append(true).open(&full) else {
            return; // no /dev/full here
        };
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writers::create(dir.path(), &[]).unwrap();
        w.samples = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(WholeRows::new(f, full).unwrap());
        let row = ResultRow {
            variant: "v".into(),
            ..Default::default()
        };
        let metric = MetricRow {
            variant: "v".into(),
            name: "m".into(),
            ..Default::default()
        };
        let e = w
            .write_variant(&[row], &[SampleRow::default()], &[metric])
            .unwrap_err();
        assert!(e.to_string().contains("/dev/full"), "{e}");
        w.flush().unwrap();
        let lines = |name: &str| {
            std::fs::read_to_string(dir.path().join(name))
                .unwrap()
                .lines()
                .count()
        };
        assert_eq!(lines("metrics.csv"), 1, "the header only");
        assert_eq!(lines("results.csv"), 1, "the header only");
    }
}
