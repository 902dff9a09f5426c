//! Reading a run folder: results.csv, samples.csv (with rounds when present), metrics.csv.
use super::*;
use crate::results::read::{
    column, csv_error, csv_file, csv_reader, open_input, parse_num, read_results, read_table,
};

/// Load a run folder, or a results.csv path whose samples.csv and metrics.csv sit next to it.
/// Each of the three may be gzipped instead (`samples.csv.gz`: reports keep them so).
///
/// Columns are read by name: extra (newer) columns are kept in `Record::fields`, absent
/// optional ones read as empty. Errors name the file and line: malformed CSV, an unparseable
/// number, a missing required column, or a `schema_version` this build does not know
/// (anything outside `1..=SCHEMA_VERSION`). A missing samples.csv or metrics.csv is not an
/// error; it is recorded in `notes` (the comparison then has no CI for that run). Device
/// columns a row leaves empty are filled from the folder's run.json (or runs.json) where it
/// has them.
pub fn load_run(path: &Path) -> anyhow::Result<RunData> {
    let (dir, results_path) = if path.is_dir() {
        let results = csv_file(path, "results.csv").unwrap_or_else(|| path.join("results.csv"));
        (path.to_path_buf(), results)
    } else {
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        (dir, path.to_path_buf())
    };
    if !results_path.is_file() {
        bail!(
            "{}: no such file (expected a run folder or its results.csv)",
            results_path.display()
        );
    }
    let mut run = RunData {
        dir: dir.clone(),
        ..RunData::default()
    };
    run.results = read_results(&results_path)?;
    super::devices::fill_from_run_json(&mut run);

    if let Some(samples_path) = csv_file(&dir, "samples.csv") {
        let (samples, has_phase) = read_samples(&samples_path)?;
        run.samples = samples;
        if !has_phase {
            placement_rounds_from_run_json(&mut run);
        }
    } else {
        run.notes.push(format!(
            "{}: missing; no confidence intervals for this run",
            dir.join("samples.csv").display()
        ));
    }
    if let Some(metrics_path) = csv_file(&dir, "metrics.csv") {
        run.metrics = read_metrics(&metrics_path)?;
    } else {
        run.notes.push(format!(
            "{}: missing; no metrics.csv rows for this run",
            dir.join("metrics.csv").display()
        ));
    }
    Ok(run)
}

/// samples.csv's rows, and whether the file has the `phase` column. Streamed record by record
/// (a million rows are read in one pass, without holding their cells), each row key and run
/// id stored once and shared.
pub(super) fn read_samples(path: &Path) -> anyhow::Result<(Vec<SampleRecord>, bool)> {
    let (mut reader, header) = csv_reader(path, open_input(path)?)?;
    let [sc, va, pa, re, di, ns] = [
        "scenario",
        "variant",
        "params",
        "repetition",
        "dispatch",
        "gpu_ns",
    ]
    .map(|c| column(path, &header, c));
    let (sc, va, pa, re, di, ns) = (sc?, va?, pa?, re?, di?, ns?);
    let optional = |name: &str| header.iter().position(|h| h == name);
    let mo = optional("mode");
    let rid = optional("run_id");
    let span = optional("repetition_ns");
    // The round columns come together (runs timed in rounds); older runs have none.
    let phase = optional("phase");
    let at = optional("placement");
    let round_cols = match (optional("round"), optional("kept")) {
        (Some(r), Some(k)) => Some((
            r,
            optional("round_position"),
            optional("batch_repetition"),
            k,
        )),
        _ => None,
    };
    let mut keys: HashMap<[String; 4], std::sync::Arc<RowKey>> = HashMap::new();
    let mut ids: HashMap<String, std::sync::Arc<str>> = HashMap::new();
    let mut out = Vec::new();
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(path, e))?
    {
        let line = record.position().map(|p| p.line()).unwrap_or(0);
        // Cells p3lab neutralised for spreadsheets (a leading `'`) read back as written.
        let text = |i: usize| crate::results::csv_safe::unescape(&record[i]).into_owned();
        let int = |i: usize, col: &str| -> anyhow::Result<u32> {
            record[i].parse::<u32>().map_err(|_| {
                anyhow!(
                    "{}:{line}: column `{col}`: `{}` is not a whole number",
                    path.display(),
                    &record[i]
                )
            })
        };
        let mode = mo
            .map(text)
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "warm".into());
        let parts = [text(sc), text(va), text(pa), mode];
        let key = match keys.get(&parts) {
            Some(k) => k.clone(),
            None => {
                let [scenario, variant, params, mode] = parts.clone();
                let k = std::sync::Arc::new(RowKey {
                    scenario,
                    variant,
                    params,
                    mode,
                });
                keys.insert(parts, k.clone());
                k
            }
        };
        let id = rid.map(text).unwrap_or_default();
        let run_id = match ids.get(&id) {
            Some(r) => r.clone(),
            None => {
                let r: std::sync::Arc<str> = id.as_str().into();
                ids.insert(id, r.clone());
                r
            }
        };
        out.push(SampleRecord {
            key,
            run_id,
            repetition: int(re, "repetition")?,
            dispatch: int(di, "dispatch")?,
            gpu_ns: parse_num(path, line, "gpu_ns", &record[ns])?,
            repetition_ns: match span.map(|i| &record[i]) {
                None | Some("") => None,
                Some(v) => Some(parse_num(path, line, "repetition_ns", v)?),
            },
            round: match round_cols {
                Some((r, _, _, _)) if record[r].is_empty() => None,
                Some((r, pos, brep, k)) => Some(RoundTag {
                    round: int(r, "round")?,
                    round_position: pos
                        .map(|i| int(i, "round_position"))
                        .transpose()?
                        .unwrap_or(0),
                    batch_repetition: brep
                        .map(|i| int(i, "batch_repetition"))
                        .transpose()?
                        .unwrap_or(0),
                    kept: match &record[k] {
                        "1" => true,
                        "0" => false,
                        other => bail!(
                            "{}:{line}: column `kept`: `{other}` is not 0 or 1",
                            path.display()
                        ),
                    },
                    placement: phase.is_some_and(|i| &record[i] == "placement"),
                    at: match at.map(|i| &record[i]) {
                        None | Some("") => 0,
                        Some(_) => int(at.expect("matched"), "placement")?,
                    },
                }),
                None => None,
            },
        });
    }
    Ok((out, phase.is_some()))
}

pub(super) fn read_metrics(path: &Path) -> anyhow::Result<Vec<MetricRecord>> {
    let (header, rows) = read_table(path)?;
    let [sc, va, pa, so, na, vl] = ["scenario", "variant", "params", "source", "name", "value"]
        .map(|c| column(path, &header, c));
    let (sc, va, pa, so, na, vl) = (sc?, va?, pa?, so?, na?, vl?);
    let un = header.iter().position(|h| h == "unit");
    let mo = header.iter().position(|h| h == "mode");
    let rid = header.iter().position(|h| h == "run_id");
    let mut out = Vec::with_capacity(rows.len());
    for (line, cells) in rows {
        out.push(MetricRecord {
            run_id: rid.map(|i| cells[i].clone()).unwrap_or_default(),
            scenario: cells[sc].clone(),
            variant: cells[va].clone(),
            params: cells[pa].clone(),
            mode: mo.map(|i| cells[i].clone()).unwrap_or_default(),
            source: cells[so].clone(),
            name: cells[na].clone(),
            value: parse_num(path, line, "value", &cells[vl])?,
            unit: un.map(|i| cells[i].clone()).unwrap_or_default(),
        });
    }
    Ok(out)
}

/// Runs written before samples.csv had `phase`: the placement check's rounds are the ones
/// run.json's `rounds` numbers after a case's `order` (the rounds the variants ran in), for
/// cases with a `placement_order`. Without run.json they stay unknown.
fn placement_rounds_from_run_json(run: &mut RunData) {
    let Ok(folder) = crate::runfolder::RunFolder::open(&run.dir) else {
        return;
    };
    if folder.runs.len() != 1 {
        return;
    }
    let mut first_moved: HashMap<(String, String, String), u32> = HashMap::new();
    for r in &folder.runs[0].info.rounds {
        if !r.placement_order.is_empty() {
            let case = (r.scenario.clone(), r.params.clone(), r.mode.clone());
            first_moved.insert(case, r.order.len() as u32);
        }
    }
    for s in &mut run.samples {
        let case = (
            s.key.scenario.clone(),
            s.key.params.clone(),
            s.key.mode.clone(),
        );
        if let (Some(tag), Some(first)) = (s.round.as_mut(), first_moved.get(&case)) {
            tag.placement = !tag.kept && tag.round >= *first;
        }
    }
}

/// One median per round of `reps` (repetition → (its round, its time)), by round index;
/// empty when any repetition has no round.
fn medians_by_round(reps: BTreeMap<u32, (Option<u32>, f64)>) -> Vec<(u32, f64)> {
    let mut rounds: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for (round, t) in reps.into_values() {
        match round {
            Some(r) => rounds.entry(r).or_default().push(t),
            None => return Vec::new(),
        }
    }
    rounds
        .into_iter()
        .map(|(r, mut times)| {
            times.sort_by(f64::total_cmp);
            (r, median(&times))
        })
        .collect()
}

impl RunData {
    /// Per-repetition times of `key`'s kept repetitions (warm-up rounds left out), in
    /// repetition order: `repetition_ns`, or Σ `gpu_ns` over the passes in files without it.
    /// Empty when samples.csv has none for `key`.
    pub fn repetition_times(&self, key: &RowKey) -> Vec<f64> {
        self.kept_repetitions(key)
            .into_values()
            .map(|(_, t)| t)
            .collect()
    }

    /// `(round, median repetition time)` of every kept round of `key`, by round index: one
    /// value per repetition (not per pass row) goes into each median. Empty for runs without
    /// round columns, or when any of `key`'s rows lacks them.
    pub fn round_medians(&self, key: &RowKey) -> Vec<(u32, f64)> {
        medians_by_round(self.kept_repetitions(key))
    }

    /// `(round, median repetition time)` of the placement check's rounds of `key` (the case's
    /// resources moved to new memory after the rounds); empty without a placement check.
    pub fn placement_medians(&self, key: &RowKey) -> Vec<(u32, f64)> {
        medians_by_round(self.repetitions(key, |t| t.placement))
    }

    /// `round → placement` of `key`'s kept rounds (all 0 for runs measured in one placement
    /// or written before placements were recorded).
    pub fn round_placements(&self, key: &RowKey) -> HashMap<u32, u32> {
        self.samples_of(key)
            .filter_map(|s| s.round.filter(|t| t.kept).map(|t| (t.round, t.at)))
            .collect()
    }

    /// `key`'s samples, in file order, through the index built on first use (a scan when
    /// samples were added since: the index then no longer covers them).
    fn samples_of<'a>(&'a self, key: &RowKey) -> Box<dyn Iterator<Item = &'a SampleRecord> + 'a> {
        let (len, index) = self.by_key.get_or_init(|| {
            let mut m: HashMap<RowKey, Vec<usize>> = HashMap::new();
            for (i, s) in self.samples.iter().enumerate() {
                m.entry((*s.key).clone()).or_default().push(i);
            }
            (self.samples.len(), m)
        });
        if *len != self.samples.len() {
            let key = key.clone();
            return Box::new(self.samples.iter().filter(move |s| *s.key == key));
        }
        Box::new(
            index
                .get(key)
                .map(|v| v.as_slice())
                .unwrap_or(&[])
                .iter()
                .map(|&i| &self.samples[i]),
        )
    }

    /// repetition → (its round, its time), kept rounds only.
    fn kept_repetitions(&self, key: &RowKey) -> BTreeMap<u32, (Option<u32>, f64)> {
        self.repetitions(key, |t| t.kept)
    }

    /// repetition → (its round, its time) of the rounds `take` accepts (samples without round
    /// columns are all taken).
    fn repetitions(
        &self,
        key: &RowKey,
        take: impl Fn(&RoundTag) -> bool,
    ) -> BTreeMap<u32, (Option<u32>, f64)> {
        // The span p3lab times a repetition by (results.csv's statistics are over these);
        // files without it fall back to the sum of the dispatches.
        let mut reps: BTreeMap<u32, (Option<u32>, f64)> = BTreeMap::new();
        for s in self.samples_of(key) {
            if s.round.as_ref().is_some_and(|t| !take(t)) {
                continue;
            }
            let entry = reps
                .entry(s.repetition)
                .or_insert((s.round.map(|t| t.round), 0.0));
            match s.repetition_ns {
                Some(span) => entry.1 = span,
                None => entry.1 += s.gpu_ns,
            }
        }
        reps
    }

    /// metrics.csv rows of `key`: those of its mode and those that hold for every mode.
    pub fn metrics_of<'a>(
        &'a self,
        key: &'a RowKey,
    ) -> impl Iterator<Item = &'a MetricRecord> + 'a {
        self.metrics.iter().filter(move |m| {
            m.scenario == key.scenario
                && m.variant == key.variant
                && m.params == key.params
                && (m.mode.is_empty() || m.mode == key.mode)
        })
    }

    /// The first results row with this key.
    pub fn row(&self, key: &RowKey) -> Option<&Record> {
        self.results.iter().find(|r| &r.key() == key)
    }
}
