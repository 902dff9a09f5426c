//! The CSV tables as a sink: each finished variant's rows, samples and metrics go to
//! results.csv, samples.csv and metrics.csv ([`Writers::write_variant`]), and they are
//! flushed when the run ends.
use super::{RunEnd, Sink, VariantEvent};
use crate::results::Writers;

impl Sink for Writers {
    fn variant_finished(&mut self, e: &VariantEvent) -> anyhow::Result<()> {
        self.write_variant(e.rows, e.samples, e.metrics)
    }

    fn run_finished(&mut self, _end: &RunEnd) -> anyhow::Result<()> {
        self.flush()
    }
}
