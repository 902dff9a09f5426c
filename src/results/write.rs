//! Writing a run folder's CSV files: whole rows only, flushed as each variant finishes, and
//! reopened for `--resume` (dropping a row a killed process cut short).
use super::csv_safe;
use super::read::{Record, RowKey};
use super::row::{header, MetricRow, ResultRow, SampleRow};
use std::fs::File;
use std::path::Path;

/// Held while rows go to disk: an exit forced by a second or late interrupt (app/run.rs)
/// takes it first, so it never cuts a row of one file, nor one variant's rows across files.
pub static ROW_WRITES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The three CSV files of a run folder.
pub struct Writers {
    results: csv::Writer<WholeRows>,
    samples: csv::Writer<WholeRows>,
    metrics: csv::Writer<WholeRows>,
    /// The run folder (other files of the run, such as probe pictures, go there too).
    dir: std::path::PathBuf,
}

/// A file that only ever receives whole rows: bytes are held until `flush` (which p3lab calls
/// after whole rows only), then written at once; a write that fails half-way (a full disk)
/// is cut back to the last whole row, and the error names the file. So no file p3lab writes
/// ends in a partial row.
pub struct WholeRows {
    file: File,
    path: std::path::PathBuf,
    pending: Vec<u8>,
    /// Bytes of whole rows in the file.
    len: u64,
}

impl WholeRows {
    fn new(file: File, path: std::path::PathBuf) -> std::io::Result<WholeRows> {
        let len = file.metadata()?.len();
        Ok(WholeRows {
            file,
            path,
            pending: Vec::new(),
            len,
        })
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
                self.len += pending.len() as u64;
                Ok(())
            }
            Err(e) => {
                // Back to the last whole row; the rows not written are lost, the file stays
                // whole.
                let _ = self.file.set_len(self.len);
                let _ = std::io::Seek::seek(&mut self.file, std::io::SeekFrom::Start(self.len));
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

    pub fn create(dir: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
        let mut w = Writers {
            results: open(dir, "results.csv")?,
            samples: open(dir, "samples.csv")?,
            metrics: open(dir, "metrics.csv")?,
            dir: dir.to_path_buf(),
        };
        // Headers go out even for a run that produces no rows, so every file parses.
        w.results.write_record(header::<ResultRow>())?;
        w.samples.write_record(header::<SampleRow>())?;
        w.metrics.write_record(header::<MetricRow>())?;
        w.results = rebuild(w.results)?;
        w.samples = rebuild(w.samples)?;
        w.metrics = rebuild(w.metrics)?;
        w.flush()?;
        Ok(w)
    }

    /// Reopen a run folder to append to it (`--resume`): each file must have today's header;
    /// a line cut short by a killed process is dropped; samples and metrics of variants that
    /// never reached results.csv are dropped too, since those variants run again.
    pub fn append(dir: &Path) -> anyhow::Result<(Self, Vec<Record>)> {
        let done = finished(dir)?;
        let keys: std::collections::BTreeSet<RowKey> = done.iter().map(Record::key).collect();
        for (name, hdr) in [
            ("results.csv", header::<ResultRow>()),
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
            let tmp = dir.join(format!(".{name}.tmp"));
            std::fs::write(&tmp, w.into_inner()?)?;
            std::fs::rename(&tmp, &path)?;
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
        for s in samples {
            csv_safe::serialize(&mut self.samples, s)?;
        }
        for m in metrics {
            csv_safe::serialize(&mut self.metrics, m)?;
        }
        self.samples.flush()?;
        self.metrics.flush()?;
        for row in rows {
            csv_safe::serialize(&mut self.results, row)?;
        }
        self.results.flush()?;
        Ok(())
    }

    pub fn flush(&mut self) -> anyhow::Result<()> {
        let _held = ROW_WRITES.lock().unwrap_or_else(|e| e.into_inner());
        self.results.flush()?;
        self.samples.flush()?;
        self.metrics.flush()?;
        Ok(())
    }
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
}
