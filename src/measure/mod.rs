//! Measurement: statistics over GPU timestamp samples and the runner that collects them.
pub mod inference;
pub mod prepare;
pub mod runner;
pub mod stats;
