//! run.json as a sink: written as the run starts (so a folder whose run was killed still says
//! what was being run, and `--resume` reads it) and again, with the closing figures, when the
//! run ends, completed or interrupted (`RunJson::write`: atomically, never through a link).
//! A run that stops on an error keeps the run.json it started with. The record itself is the
//! run's (src/app/run.rs fills it, the runner adds to it); an interrupt that cuts the run
//! marks it interrupted on disk itself (`runfolder::mark_interrupted`), since the process
//! then exits without ending the run.
use super::{RunEnd, Sink};
use crate::output::run_json::RunJson;
use std::path::PathBuf;

/// The run folder's run.json.
pub struct RunJsonSink {
    /// The run folder.
    dir: PathBuf,
}

impl RunJsonSink {
    /// run.json in the run folder `dir`.
    pub fn new(dir: PathBuf) -> Self {
        RunJsonSink { dir }
    }
}

impl Sink for RunJsonSink {
    fn run_started(&mut self, meta: &RunJson) -> anyhow::Result<()> {
        meta.write(&self.dir)
    }

    fn run_finished(&mut self, end: &RunEnd) -> anyhow::Result<()> {
        match end {
            RunEnd::Ended { meta, .. } => meta.write(&self.dir),
            RunEnd::Failed => Ok(()),
        }
    }
}
