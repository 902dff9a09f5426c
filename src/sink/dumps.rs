//! The files a variant's build or check run makes, as a sink: `--dump-ir`'s internal
//! representations (`OUT/ir/SCENARIO/VARIANT-PARAMSHASH/`), `--dump-outputs`' arrays
//! (`OUT/outputs/SCENARIO/VARIANT[-CASE]/NAME.npy`) and the probe's launch-order pictures
//! (`OUT/probe-*.svg`). Each is written beside and renamed into place, never through a link
//! (results::write), the arrays as NumPy writes them (scenario::npy). They are extras: a file
//! that cannot be written is logged, never fatal.
use super::{Dump, DumpData, Sink};
use std::path::PathBuf;

/// The run folder's dumped files.
pub struct DumpSink {
    /// The run folder.
    dir: PathBuf,
}

impl DumpSink {
    /// Dumps under the run folder `dir`.
    pub fn new(dir: PathBuf) -> Self {
        DumpSink { dir }
    }
}

impl Sink for DumpSink {
    fn dumped(&mut self, d: &Dump) {
        let dir = self.dir.join(&d.dir);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            tracing::warn!("{}: cannot create {}: {e}", d.what, dir.display());
            return;
        }
        for (name, data) in &d.files {
            let path = dir.join(name);
            let written = match data {
                DumpData::Bytes(b) => crate::results::write::write_file_atomic(&path, b),
                DumpData::Npy { elem, shape, bytes } => {
                    crate::scenario::npy::write(&path, *elem, shape, bytes).map_err(Into::into)
                }
            };
            if let Err(e) = written {
                tracing::warn!("{}: cannot write {}: {e:#}", d.what, path.display());
            }
        }
    }
}
