//! The Vulkan host: the only module with `unsafe`. Instance and device with two-phase
//! capability negotiation, memory through gpu-allocator, pipelines, timed submissions and
//! their timestamps.
pub mod context;
pub mod copy;
pub mod cupti;
pub mod info;
pub mod instance;
pub mod perf;
pub mod pipeline;
pub mod process;
pub use context::resources;
pub mod spirv_tools;
pub mod submit;
pub mod timestamps;

pub use context::Context;
pub use info::{enumerate, DeviceInfo};

/// A submission that failed because the device did: the runner replaces the device and goes
/// on. Carried inside `anyhow::Error`; find it with [`device_fault`], never by message text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceFault {
    /// The driver reported `VK_ERROR_DEVICE_LOST` (on submission, a wait or any other call).
    #[error("device lost")]
    Lost,
    /// The submission's fence did not signal in time.
    #[error("the GPU did not finish within {timeout_ms} ms")]
    Timeout {
        /// The wait's limit, ms (the `timeout_ms` the submission was given).
        timeout_ms: u64,
    },
}

/// The device fault behind an error, if any link of its chain is one.
/// A bare `VK_ERROR_DEVICE_LOST` from any other call (a query read-back, a wait) counts too.
pub fn device_fault(e: &anyhow::Error) -> Option<DeviceFault> {
    e.chain().find_map(|c| {
        c.downcast_ref::<DeviceFault>().cloned().or_else(|| {
            (c.downcast_ref::<ash::vk::Result>() == Some(&ash::vk::Result::ERROR_DEVICE_LOST))
                .then_some(DeviceFault::Lost)
        })
    })
}
