//! The Vulkan host: the only module with `unsafe`. Instance and device with two-phase
//! capability negotiation, memory through gpu-allocator, pipelines, and timed submissions.
pub mod context;
pub mod info;
pub mod perf;
pub mod pipeline;
pub mod resources;
pub mod submit;

pub use context::Context;
pub use info::{enumerate, DeviceInfo};
