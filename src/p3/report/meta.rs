//! What a report says about the run itself: run.json (runs.json for a merged folder) read
//! loosely, so that files from older p3lab versions and hand-edited ones still give what they
//! have.
use std::path::Path;

/// One run as its run.json describes it; fields it lacks are empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInfo {
    /// run.json `run_id`.
    pub run_id: String,
    /// run.json `p3lab_version`, the crate version that wrote the run.
    pub p3lab_version: String,
    /// run.json `git_revision` (`-dirty` suffix kept); empty when null or absent.
    pub git_revision: String,
    /// The command line, shell-quoted where an argument needs it.
    pub command: String,
    /// run.json `started_utc`, RFC 3339 as written.
    pub started_utc: String,
    /// run.json `finished_utc`; empty while the run had not finished (null).
    pub finished_utc: String,
    /// run.json `host`.
    pub host: String,
    /// run.json `device.name`.
    pub device: String,
    /// Driver name and info (`NVIDIA 580.159.04`, `llvmpipe Mesa 22.3.6 (LLVM 15.0.6)`).
    pub driver: String,
    /// run.json `device.api_version`, `major.minor.patch`.
    pub api_version: String,
    /// `complete: false` (interrupted, or still running); None when run.json does not say.
    pub complete: Option<bool>,
    /// run.json `peaks_file`: the peaks.csv the run's %-of-peak columns used; empty without.
    pub peaks_file: String,
}

/// The runs of a folder: one for a run folder, several for a merged one, none when the folder
/// has neither file (a results.csv copied on its own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunMeta {
    /// One entry per run: run.json's, or each element of runs.json in its order.
    pub runs: Vec<RunInfo>,
    /// Why the metadata is missing or partial, for the reader.
    pub note: Option<String>,
    /// The run's measured ceilings (the roofline's): the folder's own peaks.csv (the copy
    /// `p3lab run` keeps), else the file run.json's `peaks_file` names, where it still is.
    pub peaks: Option<crate::peaks::Peaks>,
    /// Where `peaks` came from (a path), for the reader.
    pub peaks_from: String,
}

impl RunMeta {
    /// Reads `dir`'s run.json, else its runs.json (either gzipped), through
    /// [`crate::runfolder::RunFolder`], and the run's peaks ([`RunMeta::peaks`]). Never
    /// fails: a missing or unreadable file becomes a note.
    pub fn load(dir: &Path) -> RunMeta {
        let mut m = match crate::runfolder::RunFolder::open(dir) {
            Ok(f) => RunMeta {
                runs: f.runs.iter().map(|e| RunInfo::from(&e.info)).collect(),
                ..Default::default()
            },
            Err(e) if e.to_string().contains("missing run.json") => RunMeta {
                note: Some("the folder has no run.json".into()),
                ..Default::default()
            },
            Err(e) => RunMeta {
                note: Some(format!("run.json could not be read: {e:#}")),
                ..Default::default()
            },
        };
        let named = m.runs.iter().map(|r| r.peaks_file.as_str());
        if let Some(path) = crate::runfolder::RunFolder::peaks_path(dir, named) {
            if let Ok(list) = crate::peaks::read_csv(&path) {
                m.peaks = Some(crate::peaks::Peaks::from_list(&list));
                m.peaks_from = path.display().to_string();
            }
        }
        m
    }

    /// From the text of a run.json (an object) or a runs.json (an array of them).
    pub fn from_json(text: &str) -> anyhow::Result<RunMeta> {
        let name = if text.trim_start().starts_with('[') {
            crate::runfolder::RUNS_JSON
        } else {
            crate::runfolder::RUN_JSON
        };
        let runs = crate::runfolder::parse_runs(text, Path::new(name))?;
        Ok(RunMeta {
            runs: runs.iter().map(|e| RunInfo::from(&e.info)).collect(),
            ..Default::default()
        })
    }
}

impl From<&crate::runfolder::RunInfo> for RunInfo {
    fn from(r: &crate::runfolder::RunInfo) -> RunInfo {
        let d = &r.device;
        RunInfo {
            run_id: r.run_id.clone(),
            p3lab_version: r.p3lab_version.clone(),
            git_revision: r.git_revision.clone(),
            command: r
                .command_line
                .iter()
                .map(|a| shell_quote(a))
                .collect::<Vec<_>>()
                .join(" "),
            started_utc: r.started_utc.clone(),
            finished_utc: r.finished_utc.clone(),
            host: r.host.clone(),
            device: d.name.clone(),
            driver: format!("{} {}", d.driver_name, d.driver_info)
                .trim()
                .to_string(),
            api_version: d.api_version.clone(),
            complete: r.complete,
            peaks_file: r.peaks_file.clone(),
        }
    }
}

impl RunInfo {
    /// Run id, host, start and end, and whether it completed.
    pub fn run_cell(&self) -> String {
        let mut s = self.run_id.clone();
        if !self.host.is_empty() {
            s.push_str(&format!(" on {}", self.host));
        }
        if !self.started_utc.is_empty() {
            s.push_str(&format!(", {} – {}", self.started_utc, self.finished_utc));
        }
        if self.complete == Some(false) {
            s.push_str(" (incomplete)");
        }
        s
    }

    /// p3lab's version and the first 12 digits of its git revision (with `-dirty` when the
    /// binary was built from a tree with uncommitted changes).
    pub fn version(&self) -> String {
        match (self.p3lab_version.as_str(), self.git_revision.as_str()) {
            (v, "") => v.to_string(),
            (v, g) => {
                let dirty = if g.ends_with("-dirty") { "-dirty" } else { "" };
                format!("{v} ({}{dirty})", g.chars().take(12).collect::<String>())
            }
        }
    }
}

/// `arg` as a POSIX shell would need it: unchanged when it has only safe characters, else in
/// single quotes.
fn shell_quote(arg: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !arg.is_empty() && arg.chars().all(safe) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_json_and_runs_json() {
        let one = r#"{"run_id":"r1","p3lab_version":"0.1.0","git_revision":null,
            "command_line":["p3lab","run","a b.toml","--set","n=1"],"complete":true,
            "device":{"name":"llvmpipe (LLVM 15.0.6, 256 bits)","driver_name":"llvmpipe",
            "driver_info":"Mesa 22.3.6","api_version":"1.3.230"}}"#;
        let m = RunMeta::from_json(one).unwrap();
        assert_eq!(m.runs.len(), 1);
        let r = &m.runs[0];
        assert_eq!(r.command, "p3lab run 'a b.toml' --set n=1");
        assert_eq!(r.driver, "llvmpipe Mesa 22.3.6");
        assert_eq!((r.git_revision.as_str(), r.complete), ("", Some(true)));
        let mut dirty = r.clone();
        dirty.git_revision = "d5bb655e3868b726d641ad8df33c6733577647ec-dirty".into();
        assert_eq!(dirty.version(), "0.1.0 (d5bb655e3868-dirty)");
        dirty.git_revision.truncate(40);
        assert_eq!(dirty.version(), "0.1.0 (d5bb655e3868)");
        let two = format!("[{one},{{\"run_id\":\"r2\"}}]");
        let m = RunMeta::from_json(&two).unwrap();
        assert_eq!(m.runs[1].run_id, "r2");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        let dir = tempfile::tempdir().unwrap();
        assert!(RunMeta::load(dir.path())
            .note
            .unwrap()
            .contains("no run.json"));
    }
}
