//! Picking one side of a comparison out of a merged folder: `--base-host` / `--new-host`,
//! `--base-device` / `--new-device`. A merged folder (`p3lab merge`) holds the rows of many
//! runs, from many hosts and devices; a side is the rows of the runs that match, with the
//! samples and metrics of those runs (by `run_id`). A side that still holds the same row from
//! two runs cannot be compared: [`ambiguity`] says which runs and how to tell them apart.
use super::*;
use std::collections::BTreeSet;

/// What one side of a comparison keeps.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    /// The `host` column, exactly (`$P3LAB_HOST` or the host name of the machine).
    pub host: Option<String>,
    /// The device: a `device_name` substring (any case), a `device_uuid` prefix, or a
    /// `run_id`.
    pub device: Option<String>,
}

impl Selector {
    /// No `--*-host` / `--*-device` given: the side keeps every row.
    pub fn is_empty(&self) -> bool {
        self.host.is_none() && self.device.is_none()
    }

    fn matches(&self, r: &Record) -> bool {
        let host_ok = self.host.as_ref().is_none_or(|h| r.get("host") == h);
        let device_ok = self.device.as_ref().is_none_or(|d| {
            let d_low = d.to_lowercase();
            r.get("device_name").to_lowercase().contains(&d_low)
                || (!d.is_empty() && r.get("device_uuid").starts_with(&d_low))
                || r.get("run_id") == d
        });
        host_ok && device_ok
    }

    /// "host `a`, device `h200`".
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(h) = &self.host {
            parts.push(format!("host `{h}`"));
        }
        if let Some(d) = &self.device {
            parts.push(format!("device `{d}`"));
        }
        parts.join(", ")
    }

    /// The hosts, devices or run ids of `run` closest to what this selector asked for:
    /// "; closest: `a`, `b`" (empty when the folder has none).
    fn closest(&self, run: &RunData) -> String {
        let (query, columns): (&str, &[&str]) = match (&self.host, &self.device) {
            (Some(h), None) => (h, &["host"]),
            (_, Some(d)) => (d, &["device_name", "run_id"]),
            (None, None) => return String::new(),
        };
        let names = run
            .results
            .iter()
            .flat_map(|r| columns.iter().map(move |c| r.get(c)));
        crate::suggest::hint(query, names)
    }

    /// The rows of `run` this selector keeps, with the samples and metrics of their runs. An
    /// error when nothing matches lists the hosts and devices there are.
    pub fn apply(&self, run: &RunData) -> Result<RunData, String> {
        if self.is_empty() {
            return Ok(run.clone());
        }
        let results: Vec<Record> = run
            .results
            .iter()
            .filter(|r| self.matches(r))
            .cloned()
            .collect();
        if results.is_empty() {
            return Err(format!(
                "no row of {} is from {}; it has {}{}",
                run.dir.display(),
                self.describe(),
                inventory(run),
                self.closest(run)
            ));
        }
        let ids: BTreeSet<&str> = results.iter().map(|r| r.get("run_id")).collect();
        let samples = run
            .samples
            .iter()
            .filter(|s| ids.contains(&*s.run_id))
            .cloned()
            .collect();
        let metrics = run
            .metrics
            .iter()
            .filter(|m| ids.contains(m.run_id.as_str()))
            .cloned()
            .collect();
        Ok(RunData {
            dir: run.dir.clone(),
            results,
            samples,
            metrics,
            notes: run.notes.clone(),
            ..Default::default()
        })
    }
}

/// The runs of a folder as `host / device (run RUN_ID)`, one per run.
pub fn inventory(run: &RunData) -> String {
    let mut seen: Vec<String> = Vec::new();
    for r in &run.results {
        let s = format!(
            "host `{}` device `{}` (run {})",
            r.get("host"),
            r.get("device_name"),
            r.get("run_id")
        );
        if !seen.contains(&s) {
            seen.push(s);
        }
    }
    seen.join("; ")
}

/// When one side holds a row (scenario, variant, params, mode) from more than one run: which
/// runs, and the flags that would tell them apart. None when every row is there once.
pub fn ambiguity(side: &str, run: &RunData) -> Option<String> {
    let mut by_key: HashMap<RowKey, Vec<&Record>> = HashMap::new();
    for r in &run.results {
        by_key.entry(r.key()).or_default().push(r);
    }
    let mut keys: Vec<_> = by_key.into_iter().filter(|(_, v)| v.len() > 1).collect();
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    let (key, rows) = keys.first()?;
    let hosts: BTreeSet<&str> = rows.iter().map(|r| r.get("host")).collect();
    let devices: BTreeSet<&str> = rows.iter().map(|r| r.get("device_name")).collect();
    let ids: Vec<&str> = rows.iter().map(|r| r.get("run_id")).collect();
    let hint = if hosts.len() > 1 {
        format!(
            "pick one with --{side}-host (hosts: {})",
            hosts.into_iter().collect::<Vec<_>>().join(", ")
        )
    } else if devices.len() > 1 {
        format!(
            "pick one with --{side}-device (devices: {})",
            devices.into_iter().collect::<Vec<_>>().join(", ")
        )
    } else {
        format!("they share host and device: pick one with --{side}-device RUN_ID")
    };
    Some(format!(
        "{side} `{}` holds {key} from {} runs ({}): {hint}",
        run.dir.display(),
        rows.len(),
        ids.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(run_id: &str, host: &str, device: &str) -> Record {
        let mut fields = BTreeMap::new();
        for (k, v) in [
            ("run_id", run_id),
            ("host", host),
            ("device_name", device),
            ("device_uuid", "abcd1234"),
            ("scenario", "s"),
            ("variant", "v"),
            ("status", "ok"),
            ("mode", "warm"),
        ] {
            fields.insert(k.to_string(), v.to_string());
        }
        Record::from_cells(2, fields).unwrap()
    }

    fn merged() -> RunData {
        RunData {
            dir: PathBuf::from("fleet"),
            results: vec![
                row("r1", "host-a", "NVIDIA H200"),
                row("r2", "host-b", "NVIDIA H200"),
                row("r3", "host-b", "llvmpipe (LLVM 15)"),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn picks_a_side_by_host_and_device() {
        let m = merged();
        let a = Selector {
            host: Some("host-a".into()),
            device: None,
        };
        assert_eq!(a.apply(&m).unwrap().results.len(), 1);
        assert!(ambiguity("base", &a.apply(&m).unwrap()).is_none());
        let b = Selector {
            host: Some("host-b".into()),
            device: None,
        };
        let e = ambiguity("new", &b.apply(&m).unwrap()).unwrap();
        assert!(e.contains("--new-device") && e.contains("r2, r3"), "{e}");
        let b_gpu = Selector {
            host: Some("host-b".into()),
            device: Some("h200".into()),
        };
        assert_eq!(b_gpu.apply(&m).unwrap().results[0].get("run_id"), "r2");
        let e = ambiguity("base", &m).unwrap();
        assert!(e.contains("--base-host"), "{e}");
    }

    #[test]
    fn no_match_lists_what_there_is() {
        let e = Selector {
            host: Some("host-c".into()),
            device: None,
        }
        .apply(&merged())
        .unwrap_err();
        assert!(
            e.contains("host `host-c`") && e.contains("host `host-b` device `llvmpipe"),
            "{e}"
        );
    }
}
