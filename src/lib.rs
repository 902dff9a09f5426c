//! p3lab: a Vulkan-native profiling harness for compute shaders.
//!
//! Data flows one way: scenario file → variants → SPIR-V → pipelines → timed samples →
//! checked outputs → CSV rows. Each module holds one stage.
//!
//! `unsafe` lives only in [`vk`]: the rest of the crate denies it, and every unsafe block
//! says why it is sound in a `// SAFETY:` comment.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
pub mod app;
pub mod assets;
pub mod cleanup;
pub mod cli;
pub mod lab;
pub mod measure;
pub mod occupancy;
pub mod output;
pub mod p3;
pub mod peaks;
pub mod probe;
pub mod results;
pub mod runfolder;
pub mod scenario;
pub mod shader;
pub mod sink;
pub mod stats;
pub mod suggest;
pub mod units;
#[allow(
    unsafe_code,
    reason = "the Vulkan and CUPTI FFI live here, each unsafe block with its SAFETY comment"
)]
pub mod vk;
