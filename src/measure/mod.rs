//! Measurement, in the order data flows through it (read the files in this order):
//!
//! 1. [`plan`]: which variants of a params case run, the baseline first, and the settings of
//!    their rounds ([`options`] holds what the command line asked for).
//! 2. [`prepare`]: compile, reflect and check a variant against its scenario and the device;
//!    the same code is the preflight that stops a run on a scenario mistake.
//! 3. [`setup`]: the case's resources on the device, uploaded once from the [`inputs`] made
//!    on a worker thread while the previous case ran on the GPU.
//! 4. [`build`]: a variant's pipelines and the driver's statistics about them.
//! 5. [`verify`]: one untimed run: invocations, the subgroup size that ran, occupancy, probes
//!    ([`probes`]), counters ([`counters`]) and the output check, on the host or, for large
//!    outputs, on the GPU ([`gpu_check`]).
//! 6. [`schedule`]: rounds in a seeded, shuffled order, and when a variant stops; each
//!    round after the first on a new instance of the case ([`instance`]: pipelines made
//!    anew, resources moved to new memory).
//! 7. [`batch`]: one submission of untimed, then timed repetitions; the warm-up; in cold mode
//!    the L2 eviction before each repetition ([`evict`]).
//!    After a variant's rounds in a mode, one counter batch under the hardware counters
//!    ([`hw`]: CUPTI PM sampling on NVIDIA, VK_KHR_performance_query elsewhere).
//! 8. [`row`]: statistics over the rounds ([`inference`], [`stats`]), with the clock, the
//!    counters and the P3 verdict, as each mode's record.
//!
//! Each step returns its own typed part of the variant's record
//! ([`crate::results::record`]: build facts, check-run facts, timing, clock, counted values,
//! verdict); none writes into a results.csv row. [`runner`] drives 1-8 for each case, gathers
//! the parts in a [`crate::results::record::VariantRecord`] and hands it to the edge that
//! makes the rows, then to the run's outputs; a failure on the way is a typed
//! [`failure::Failure`].
pub mod batch;
pub mod build;
pub mod check;
pub mod clock;
pub mod counters;
pub mod evict;
pub mod failure;
pub mod gpu_check;
pub mod hw;
pub mod inputs;
pub mod instance;
pub mod left_out;
pub mod options;
pub mod own;
pub mod plan;
pub mod prepare;
pub mod probes;
pub mod row;
pub mod runner;
pub mod schedule;
pub mod setup;
pub mod verify;

pub use options::{RunOptions, INTERRUPTED};
pub use runner::Runner;
