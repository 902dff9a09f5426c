//! The one reader of results.csv (and the table reader samples.csv and metrics.csv share):
//! every schema version p3lab ever wrote, plain or gzipped, columns by name. A row becomes a
//! typed [`ResultRow`] (columns this build does not know are kept as cells, absent ones read
//! as empty); errors name the file, the line and the column.
use super::csv_safe;
use super::kinds::Mode;
use super::kinds::RowStatus;
use super::row::{header, ResultRow, SCHEMA_VERSION};
use anyhow::{anyhow, bail, Context as _};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Identifies one row of results.csv across runs: what `compare`, `merge` and `--resume`
/// match on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RowKey {
    /// results.csv `scenario`.
    pub scenario: String,
    /// results.csv `variant`.
    pub variant: String,
    /// results.csv `params`, the packed `k=v;k=v` label (not the typed `param_*` columns).
    pub params: String,
    /// The mode's label, `warm` or `cold`; `warm` for a row from before the `mode` column.
    pub mode: String,
}

impl RowKey {
    /// The key of `row`, its mode `warm` when the row has none (older files).
    pub fn of(row: &ResultRow) -> RowKey {
        RowKey {
            scenario: row.scenario.clone(),
            variant: row.variant.clone(),
            params: row.params.clone(),
            mode: row.mode.unwrap_or(Mode::Warm).label().to_string(),
        }
    }
}

impl std::fmt::Display for RowKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.scenario, self.variant)?;
        if !self.params.is_empty() {
            write!(f, " [{}]", self.params)?;
        }
        write!(f, " ({})", self.mode)
    }
}

/// One results.csv row as read: typed, with every cell by column name as written (for the
/// tables that show any column, and for columns newer than this build).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line in results.csv, for messages.
    pub line: u64,
    /// The cells as a typed row; unknown columns are only in `fields`.
    pub row: ResultRow,
    /// Every cell by column name, as written (a spreadsheet guard `'` taken off).
    pub fields: BTreeMap<String, String>,
}

impl Record {
    /// A record from cells by column name (tests and merged tables build them so); a cell
    /// that does not parse as its column's type is an error naming the column.
    pub fn from_cells(line: u64, fields: BTreeMap<String, String>) -> anyhow::Result<Record> {
        let names: Vec<&str> = fields.keys().map(String::as_str).collect();
        let cells: Vec<&str> = fields.values().map(String::as_str).collect();
        let row = typed(&names, &cells).map_err(|e| anyhow!("line {line}: {e}"))?;
        Ok(Record { line, row, fields })
    }

    /// A row made in this process, as the writer would write it (its cells by column name).
    pub fn from_row(row: ResultRow) -> Record {
        let mut w = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(vec![]);
        let bytes = match w.serialize(&row) {
            Ok(()) => w.into_inner().ok(),
            Err(_) => None,
        };
        let fields = match bytes {
            Some(bytes) => {
                let mut r = csv::ReaderBuilder::new()
                    .has_headers(false)
                    .from_reader(&bytes[..]);
                let cells = r.records().next().and_then(Result::ok).unwrap_or_default();
                header::<ResultRow>()
                    .into_iter()
                    .zip(cells.iter().map(String::from))
                    .collect()
            }
            _ => BTreeMap::new(),
        };
        Record {
            line: 0,
            row,
            fields,
        }
    }

    /// Set the cell of `column` (and the typed row with it); an error when the value is not
    /// that column's type.
    pub fn set(&mut self, column: &str, value: &str) -> anyhow::Result<()> {
        let mut fields = self.fields.clone();
        fields.insert(column.to_string(), value.to_string());
        *self = Record::from_cells(self.line, fields)?;
        Ok(())
    }

    /// The cell of `column`, or "" when the column is absent.
    pub fn get(&self, column: &str) -> &str {
        self.fields.get(column).map(String::as_str).unwrap_or("")
    }

    /// The cell of `column` as a number; None when absent, empty or not a finite number.
    pub fn num(&self, column: &str) -> Option<f64> {
        let s = self.get(column);
        if s.is_empty() {
            return None;
        }
        s.parse::<f64>().ok().filter(|x| x.is_finite())
    }

    /// The row's [`RowKey`] (mode `warm` when the file has no `mode`).
    pub fn key(&self) -> RowKey {
        RowKey::of(&self.row)
    }

    /// `mode`, or warm for files from before the column existed (all runs were warm then).
    pub fn mode(&self) -> Mode {
        self.row.mode.unwrap_or(Mode::Warm)
    }

    /// The row's results.csv `status`; only `ok` rows have timings.
    pub fn status(&self) -> RowStatus {
        self.row.status
    }
}

/// The typed row of one record's cells (by column name; unknown columns ignored).
fn typed(names: &[&str], cells: &[&str]) -> Result<ResultRow, String> {
    let header = csv::StringRecord::from(names.to_vec());
    let record = csv::StringRecord::from(cells.to_vec());
    record.deserialize::<ResultRow>(Some(&header)).map_err(|e| {
        let (column, what) = match e.kind() {
            csv::ErrorKind::Deserialize { err, .. } => (
                err.field().and_then(|i| names.get(i as usize).copied()),
                err.kind().to_string(),
            ),
            _ => (None, e.to_string()),
        };
        match column {
            Some(c) => format!(
                "column `{c}`: `{}`: {what}",
                cells
                    .get(names.iter().position(|n| *n == c).unwrap_or(0))
                    .unwrap_or(&"")
            ),
            None => what,
        }
    })
}

/// `dir/name`, or `dir/name.gz` where only the gzipped copy is there (reports keep their
/// large CSV files gzipped); None when neither is a file.
pub fn csv_file(dir: &Path, name: &str) -> Option<PathBuf> {
    let plain = dir.join(name);
    let gz = dir.join(format!("{name}.gz"));
    [plain, gz].into_iter().find(|p| p.is_file())
}

/// The columns a results.csv must have to be read at all.
pub const REQUIRED_COLUMNS: &[&str] = &["schema_version", "scenario", "variant", "status"];

/// Read a results.csv (plain or `.gz`): every row typed, in file order. Errors name the file
/// and line: malformed CSV, a cell that is not its column's type (a number, a status, ...), a
/// missing required column, or a `schema_version` this build does not know (anything outside
/// `1..=SCHEMA_VERSION`).
pub fn read_results(path: &Path) -> anyhow::Result<Vec<Record>> {
    records(path, read_table(path)?)
}

/// [`read_results`] over text already in memory (`--resume` reads whole lines only); `path`
/// names it in messages.
pub fn read_results_text(path: &Path, text: &[u8]) -> anyhow::Result<Vec<Record>> {
    records(path, read_table_from(path, Box::new(text))?)
}

fn records(path: &Path, (names, rows): Table) -> anyhow::Result<Vec<Record>> {
    for c in REQUIRED_COLUMNS {
        column(path, &names, c)?;
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let version_col = column(path, &names, "schema_version")?;
    let mut out = Vec::with_capacity(rows.len());
    for (line, cells) in rows {
        let version = &cells[version_col];
        match version.parse::<u32>() {
            Ok(v) if (1..=SCHEMA_VERSION).contains(&v) => {}
            _ => bail!(
                "{}:{line}: schema_version {version} is not one this p3lab reads (1..={SCHEMA_VERSION}); \
                 use a p3lab at least as new as the one that wrote the run",
                path.display()
            ),
        }
        let cell_refs: Vec<&str> = cells.iter().map(String::as_str).collect();
        let row =
            typed(&refs, &cell_refs).map_err(|e| anyhow!("{}:{line}: {e}", path.display()))?;
        let fields = names.iter().cloned().zip(cells).collect();
        out.push(Record { line, row, fields });
    }
    Ok(out)
}

/// The rows of a run folder's results.csv (or .gz); an empty list when there is none.
pub fn read_folder(dir: &Path) -> anyhow::Result<Vec<Record>> {
    match csv_file(dir, "results.csv") {
        Some(p) => read_results(&p),
        None => Ok(Vec::new()),
    }
}

/// A CSV file as (header, records with their 1-based line).
pub type Table = (Vec<String>, Vec<(u64, Vec<String>)>);

/// Any of p3lab's CSV files (plain, or gzipped when the name ends in `.gz`): the header and
/// every record with its line, cells unescaped. Malformed CSV is an error naming the line.
pub fn read_table(path: &Path) -> anyhow::Result<Table> {
    read_table_from(path, open_input(path)?)
}

/// `path` opened for reading, through gzip when it ends in `.gz` (a damaged one then fails
/// like malformed CSV, naming it).
pub fn open_input(path: &Path) -> anyhow::Result<Box<dyn std::io::Read>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let file = std::io::BufReader::new(file);
    Ok(if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    })
}

fn read_table_from(path: &Path, input: Box<dyn std::io::Read + '_>) -> anyhow::Result<Table> {
    let (mut reader, header) = csv_reader(path, input)?;
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, e))?;
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        // Cells p3lab neutralised for spreadsheets (a leading `'`) read back as written.
        let cells = record.iter().map(|c| csv_safe::unescape(c).into_owned());
        rows.push((line, cells.collect()));
    }
    Ok((header, rows))
}

/// A CSV reader over a boxed input, as [`csv_reader`] makes it.
pub type CsvReader<'a> = csv::Reader<Box<dyn std::io::Read + 'a>>;

/// A strict CSV reader over `input` (from `path`, for messages) and its header: malformed CSV,
/// an empty header line and a duplicated column are refused, naming the file and line. For
/// readers that stream the rows (compare's samples) rather than hold them ([`read_table`]).
pub fn csv_reader<'a>(
    path: &Path,
    input: Box<dyn std::io::Read + 'a>,
) -> anyhow::Result<(CsvReader<'a>, Vec<String>)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(false)
        .from_reader(input);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| csv_error(path, e))?
        .iter()
        .map(String::from)
        .collect();
    if header.iter().all(|h| h.is_empty()) {
        bail!("{}:1: empty header line", path.display());
    }
    check_duplicates(path, &header)?;
    Ok((reader, header))
}

/// A header that names a column twice is refused, naming the file, line 1 and the column: a
/// reader would silently take one of the two (a second `median_ns` read as the median).
/// Columns this build does not know are kept, for files of newer schema versions.
pub fn check_duplicates<S: AsRef<str>>(path: &Path, header: &[S]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashMap::new();
    for (i, name) in header.iter().enumerate() {
        let name = name.as_ref();
        if let Some(first) = seen.insert(name, i) {
            bail!(
                "{}:1: column `{name}` appears twice in the header (columns {} and {}); \
                 a file with a duplicated column is refused rather than read with either",
                path.display(),
                first + 1,
                i + 1
            );
        }
    }
    Ok(())
}

/// A csv error as `file:line: malformed CSV: ...`.
pub fn csv_error(path: &Path, e: csv::Error) -> anyhow::Error {
    let line = match e.kind() {
        csv::ErrorKind::UnequalLengths { pos: Some(p), .. } => Some(p.line()),
        csv::ErrorKind::Utf8 { pos: Some(p), .. } => Some(p.line()),
        csv::ErrorKind::Deserialize { pos: Some(p), .. } => Some(p.line()),
        _ => e.position().map(|p| p.line()),
    };
    let what = match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("malformed CSV: {len} fields where the header has {expected_len}"),
        _ => format!("malformed CSV: {e}"),
    };
    match line {
        Some(l) => anyhow!("{}:{l}: {what}", path.display()),
        None => anyhow!("{}: {what}", path.display()),
    }
}

/// The index of column `name`, or an error naming the file and the column.
pub fn column(path: &Path, header: &[String], name: &str) -> anyhow::Result<usize> {
    header
        .iter()
        .position(|h| h == name)
        .ok_or_else(|| anyhow!("{}:1: missing column `{name}`", path.display()))
}

/// A cell as a number, or an error naming the file, line and column.
pub fn parse_num(path: &Path, line: u64, col: &str, cell: &str) -> anyhow::Result<f64> {
    cell.parse::<f64>()
        .ok()
        .filter(|x| !x.is_nan())
        .ok_or_else(|| {
            anyhow!(
                "{}:{line}: column `{col}`: `{cell}` is not a number",
                path.display()
            )
        })
}

/// The columns results.csv has today, in order (what the writer writes).
pub fn result_columns() -> Vec<String> {
    header::<ResultRow>()
}
