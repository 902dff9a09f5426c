//! p3lab: a Vulkan-native profiling harness for compute shaders.
//!
//! Data flows one way: scenario file → variants → SPIR-V → pipelines → timed samples →
//! checked outputs → CSV rows. Each module holds one stage.
pub mod app;
pub mod check;
pub mod cli;
pub mod data;
pub mod lab;
pub mod measure;
pub mod occupancy;
pub mod output;
pub mod p3;
pub mod peaks;
pub mod probe;
pub mod refs;
pub mod scenario;
pub mod shader;
pub mod vk;
