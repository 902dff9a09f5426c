//! The CSV files of a merge: each input's files scanned and checked, the merged header (the
//! widest input's, when every other header is a prefix of it, then the union of results.csv's
//! typed `param_*` columns), and the rows copied byte for byte, those of a file with fewer
//! columns with empty cells appended, those with other params columns cell by cell.
use super::{Input, CSV_FILES, RUNS_JSON};
use crate::results::csv_safe;
use crate::results::read::check_duplicates;
use anyhow::{anyhow, bail, Result};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// One CSV file of one input, checked; its rows are copied from `body_start` to the end.
pub(super) struct Table {
    pub(super) path: PathBuf,
    pub(super) header: csv::ByteRecord,
    pub(super) body_start: u64,
    pub(super) len: u64,
    pub(super) rows: u64,
    /// Some cell would run in a spreadsheet (a hand-edited `=HYPERLINK(...)`): the file's rows
    /// are written cell by cell, neutralised, instead of copied byte for byte.
    pub(super) formulas: bool,
}

/// Read a CSV file with a real CSV parser: the header, every row's field count, and that every
/// row belongs to a run the folder declares (with that run's schema_version in results.csv).
pub(super) fn scan(path: &Path, runs: &BTreeMap<&str, u64>, meta: &Path) -> Result<Table> {
    let file =
        File::open(path).map_err(|e| anyhow!("{}: missing or unreadable: {e}", path.display()))?;
    let len = file.metadata()?.len();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(BufReader::new(file));
    let header = rdr
        .byte_headers()
        .map_err(|e| anyhow!("{}: {e}", path.display()))?
        .clone();
    if header.is_empty() || header.iter().all(|f| f.is_empty()) {
        bail!("{}: empty file (no header row)", path.display());
    }
    let names: Vec<String> = header
        .iter()
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    check_duplicates(path, &names)?;
    let body_start = rdr.position().byte();
    let col = |name: &str| header.iter().position(|h| h == name.as_bytes());
    let run_col = col("run_id").ok_or_else(|| anyhow!("{}: no run_id column", path.display()))?;
    let schema_col = col("schema_version");
    let mut rec = csv::ByteRecord::new();
    let mut rows = 0u64;
    let mut formulas = false;
    loop {
        let more = rdr
            .read_byte_record(&mut rec)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        if !more {
            break;
        }
        rows += 1;
        formulas = formulas || rec.iter().any(csv_safe::would_run);
        let line = rec.position().map_or(0, |p| p.line());
        // Cells are compared with run.json as p3lab wrote them before neutralising them for
        // spreadsheets; the rows themselves are copied as they are (still neutralised).
        let run_id = String::from_utf8_lossy(&csv_safe::unescape_bytes(&rec[run_col])).into_owned();
        let Some(version) = runs.get(run_id.as_str()) else {
            bail!(
                "{}: line {line}: run_id {run_id:?} is not a run of {}",
                path.display(),
                meta.display()
            );
        };
        if let Some(c) = schema_col {
            if rec[c] != *version.to_string().as_bytes() {
                bail!(
                    "{}: line {line}: schema_version {} but {} says {version} for run {run_id}",
                    path.display(),
                    String::from_utf8_lossy(&rec[c]),
                    meta.display()
                );
            }
        }
    }
    // p3lab ends every row it writes with a line break: a last row without one was cut while
    // it was written (a killed run, a full disk), and may parse as a row with a shortened
    // last field. It is refused, not merged as data.
    if len > body_start && last_byte(path)? != Some(b'\n') {
        bail!(
            "{}: the last row (line {}) has no line break: the file was cut while being written; `p3lab run --resume --out {}` drops such a row",
            path.display(),
            rows + 1,
            path.parent().map_or_else(|| ".".into(), |p| p.display().to_string())
        );
    }
    Ok(Table {
        path: path.to_path_buf(),
        header,
        body_start,
        len,
        rows,
        formulas,
    })
}

/// The last byte of a file (None when it is empty).
fn last_byte(path: &Path) -> Result<Option<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = File::open(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if f.metadata()?.len() == 0 {
        return Ok(None);
    }
    f.seek(SeekFrom::End(-1))?;
    let mut b = [0u8; 1];
    f.read_exact(&mut b)
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok(Some(b[0]))
}

/// Why two headers differ, in words a user can act on.
fn header_difference(a: &csv::ByteRecord, b: &csv::ByteRecord) -> String {
    let names = |r: &csv::ByteRecord| -> Vec<String> {
        r.iter()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect()
    };
    let (a, b) = (names(a), names(b));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == a.len().min(b.len()) {
        let (longer, extra) = if a.len() > b.len() {
            ("that file", &a[common..])
        } else {
            ("this file", &b[common..])
        };
        return format!(
            "{} has {} more column(s) at the end ({}): files written by different p3lab versions",
            longer,
            extra.len(),
            extra.join(", ")
        );
    }
    format!(
        "column {} is {:?} here but {:?} there",
        common + 1,
        b[common],
        a[common]
    )
}

/// Write the merged files into `staging`, an empty folder.
pub(super) fn write_merged(loaded: &[Input], staging: &Path) -> Result<()> {
    for (i, name) in CSV_FILES.iter().enumerate() {
        let path = staging.join(name);
        let f =
            File::create(&path).map_err(|e| anyhow!("cannot create {}: {e}", path.display()))?;
        let mut w = BufWriter::new(f);
        crate::cleanup::test_pause();
        // The header line exactly as an input has it where one has the merged header, else
        // written from the names.
        let (header, fills) = merged_header(loaded, i)?;
        let same = loaded.iter().find(|x| names(&x.tables[i]) == header);
        let last = match same {
            Some(x) => copy_range(&x.tables[i].path, 0, x.tables[i].body_start, &mut w)?,
            None => {
                let mut hw = csv::WriterBuilder::new().from_writer(&mut w);
                hw.write_record(&header)?;
                hw.flush()?;
                Some(b'\n')
            }
        };
        if last != Some(b'\n') {
            w.write_all(b"\n")?;
        }
        for (input, fill) in loaded.iter().zip(fills) {
            let t = &input.tables[i];
            let last = match fill {
                Fill::Remap(map) => copy_remapped(t, &map, &mut w)?,
                Fill::Pad(missing) if t.formulas => copy_neutralised(t, missing.len(), &mut w)?,
                Fill::Pad(missing) if missing.is_empty() => {
                    copy_range(&t.path, t.body_start, t.len, &mut w)?
                }
                Fill::Pad(missing) => copy_padded(t, missing.len(), &mut w)?,
            };
            // A file whose last row has no line break still gets one before the next file.
            if last.is_some() && last != Some(b'\n') {
                w.write_all(b"\n")?;
            }
        }
        let f = w
            .into_inner()
            .map_err(|e| anyhow!("{}: {}", path.display(), e.error()))?;
        f.sync_all()?;
    }
    let mut json = String::from("[\n");
    let runs: Vec<&str> = loaded
        .iter()
        .flat_map(|x| x.runs.iter().map(|r| r.raw.as_str()))
        .collect();
    json.push_str(&runs.join(",\n"));
    json.push_str("\n]\n");
    debug_assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok());
    let path = staging.join(RUNS_JSON);
    fs::write(&path, json).map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
    Ok(())
}

/// Copy bytes `start..end` of a file; returns the last byte copied.
fn copy_range(path: &Path, start: u64, end: u64, w: &mut impl Write) -> Result<Option<u8>> {
    let mut f = File::open(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    f.seek(SeekFrom::Start(start))?;
    let mut left = end.saturating_sub(start);
    let mut buf = vec![0u8; 1 << 16];
    let mut last = None;
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = f.read(&mut buf[..want])?;
        if n == 0 {
            bail!("{}: file shrank while merging", path.display());
        }
        w.write_all(&buf[..n])?;
        last = Some(buf[n - 1]);
        left -= n as u64;
    }
    Ok(last)
}

/// The header names of a table.
fn names(t: &Table) -> Vec<String> {
    t.header
        .iter()
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect()
}

/// How one input's rows reach the merged file.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Fill {
    /// Byte for byte, with these columns (at the end of the merged header) left empty.
    Pad(Vec<String>),
    /// Cell by cell: merged column `j` takes the input's column `map[j]` (empty for None).
    /// results.csv's typed `param_*` columns of runs with different params, or an input whose
    /// params columns sit where a newer header has fixed columns.
    Remap(Vec<Option<usize>>),
}

impl Fill {
    /// The merged columns this input has no cells for.
    pub(super) fn missing(&self, header: &[String]) -> Vec<String> {
        match self {
            Fill::Pad(cols) => cols.clone(),
            Fill::Remap(map) => header
                .iter()
                .zip(map)
                .filter(|(_, m)| m.is_none())
                .map(|(h, _)| h.clone())
                .collect(),
        }
    }
}

/// CSV file `i` of every input: the merged header and how each input fills it. The fixed
/// columns are the widest input's (the first of those with the most), when every other
/// input's fixed columns are a prefix of them: columns are only ever appended (docs/csv.md,
/// "Schema version policy"), so a file written before a column existed has a prefix of the
/// newer header; any other difference is refused, naming the file. results.csv's typed
/// `param_*` columns (src/results/params.rs) follow, the union of every input's, sorted.
pub(super) fn merged_header(loaded: &[Input], i: usize) -> Result<(Vec<String>, Vec<Fill>)> {
    use crate::results::params::params_start;
    let all: Vec<Vec<String>> = loaded.iter().map(|x| names(&x.tables[i])).collect();
    let fixed_len = |h: &Vec<String>| params_start(h);
    let mut widest = 0;
    for (j, h) in all.iter().enumerate() {
        if fixed_len(h) > fixed_len(&all[widest]) {
            widest = j;
        }
    }
    let w = &loaded[widest].tables[i];
    let fixed = &all[widest][..fixed_len(&all[widest])];
    let mut params = std::collections::BTreeSet::new();
    for (input, h) in loaded.iter().zip(&all) {
        let t = &input.tables[i];
        let n = fixed_len(h);
        if h[..n].iter().zip(fixed).any(|(a, b)| a != b) {
            bail!(
                "{}: header differs from {}: {}",
                t.path.display(),
                w.path.display(),
                header_difference(&w.header, &t.header)
            );
        }
        if let Some(odd) = h[n..]
            .iter()
            .find(|c| !c.starts_with(crate::results::params::PARAM_PREFIX))
        {
            bail!(
                "{}: column {odd:?} after the params columns: only `param_*` columns may follow them",
                t.path.display()
            );
        }
        params.extend(h[n..].iter().cloned());
    }
    let mut header: Vec<String> = fixed.to_vec();
    header.extend(params);
    let fills = all
        .iter()
        .map(|h| {
            if header.starts_with(h) {
                Fill::Pad(header[h.len()..].to_vec())
            } else {
                Fill::Remap(
                    header
                        .iter()
                        .map(|c| h.iter().position(|x| x == c))
                        .collect(),
                )
            }
        })
        .collect();
    Ok((header, fills))
}

/// Copy the rows of `t` byte for byte, each with `extra` empty cells appended before its line
/// break (a record's quoted line breaks stay inside it). Returns the last byte written.
pub(super) fn copy_padded(t: &Table, extra: usize, w: &mut impl Write) -> Result<Option<u8>> {
    let open = || File::open(&t.path).map_err(|e| anyhow!("{}: {e}", t.path.display()));
    let err = |e: csv::Error| anyhow!("{}: {e}", t.path.display());
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(BufReader::new(open()?));
    rdr.byte_headers().map_err(err)?;
    let mut raw = BufReader::new(open()?);
    raw.seek(SeekFrom::Start(t.body_start))?;
    let cells = vec![b','; extra];
    let (mut at, mut last, mut first) = (t.body_start, None, true);
    let mut rec = csv::ByteRecord::new();
    while rdr.read_byte_record(&mut rec).map_err(err)? {
        let start = rec.position().map_or(at, |p| p.byte());
        // Before the first record: anything between it and the header (blank lines) as it is.
        let pad: &[u8] = if first { &[] } else { &cells };
        last = pad_one(&mut raw, start - at, pad, w)?.or(last);
        (at, first) = (start, false);
    }
    if !first {
        last = pad_one(&mut raw, t.len - at, &cells, w)?.or(last);
    }
    Ok(last)
}

/// Write the rows of `t` cell by cell, every cell that would run in a spreadsheet neutralised
/// as p3lab's writer does it (a leading `'`), each row with `extra` empty cells appended.
/// Returns the last byte written.
fn copy_neutralised(t: &Table, extra: usize, w: &mut impl Write) -> Result<Option<u8>> {
    let map: Vec<Option<usize>> = (0..t.header.len())
        .map(Some)
        .chain(std::iter::repeat_n(None, extra))
        .collect();
    copy_remapped(t, &map, w)
}

/// Write the rows of `t` cell by cell in the merged header's order (`map`: the input column
/// of each merged column, None for an empty cell), every cell neutralised as in
/// [`copy_neutralised`]. Returns the last byte written.
fn copy_remapped(t: &Table, map: &[Option<usize>], w: &mut impl Write) -> Result<Option<u8>> {
    let err = |e: csv::Error| anyhow!("{}: {e}", t.path.display());
    let file = File::open(&t.path).map_err(|e| anyhow!("{}: {e}", t.path.display()))?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(BufReader::new(file));
    let mut out = csv::WriterBuilder::new().from_writer(w);
    let mut rec = csv::ByteRecord::new();
    let mut last = None;
    while rdr.read_byte_record(&mut rec).map_err(err)? {
        let cells = map.iter().map(|m| match m.and_then(|c| rec.get(c)) {
            Some(cell) => csv_safe::neutralise_bytes(cell),
            None => std::borrow::Cow::Borrowed(&b""[..]),
        });
        out.write_byte_record(&cells.collect()).map_err(err)?;
        last = Some(b'\n');
    }
    out.flush()
        .map_err(|e| anyhow!("{}: {e}", t.path.display()))?;
    Ok(last)
}

/// Copy the next `n` bytes of `raw` (one record and its line break) with `cells` written before
/// the trailing line break. Returns the last byte written.
fn pad_one(raw: &mut impl Read, n: u64, cells: &[u8], w: &mut impl Write) -> Result<Option<u8>> {
    let mut buf = vec![0u8; usize::try_from(n)?];
    raw.read_exact(&mut buf)?;
    let eol = buf
        .iter()
        .rev()
        .take_while(|&&b| b == b'\n' || b == b'\r')
        .count();
    let body = buf.len() - eol;
    w.write_all(&buf[..body])?;
    w.write_all(cells)?;
    w.write_all(&buf[body..])?;
    Ok(buf.last().or(cells.last()).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_difference_names_appended_columns() {
        let a = csv::ByteRecord::from(vec!["run_id", "x"]);
        let b = csv::ByteRecord::from(vec!["run_id", "x", "host", "mode"]);
        let d = header_difference(&a, &b);
        assert!(
            d.contains("2 more column(s)") && d.contains("host, mode"),
            "{d}"
        );
        let c = csv::ByteRecord::from(vec!["run_id", "y"]);
        assert!(header_difference(&a, &c).contains("column 2 is \"y\""));
    }
}
