//! The logical device: what it holds and what the run asks of it (features, idle time, faults,
//! teardown). Making it, with phase two of capability negotiation, is in create.rs; the
//! instance is in instance.rs.
mod create;
pub mod resources;
mod transfer;
use crate::vk::info::DeviceInfo;
pub use crate::vk::instance::{validation_errors, Instance};
use ash::vk;
pub use create::{Bfloat16Features, BFLOAT16_EXTENSION, KNOWN_FEATURES};
use gpu_allocator::vulkan::Allocator;
use std::mem::ManuallyDrop;
use std::sync::Mutex;

/// How `requires` names a cooperative-matrix shape: `cooperative_matrix:f16*f16+f32=f32 16x16x16`
/// (A, B, C and result component types, then M x N x K; [`crate::vk::info::CoopMatrixShape::label`]).
pub const COOPMAT_PREFIX: &str = "cooperative_matrix:";

/// What phase two enabled on the logical device.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Enabled {
    /// The optional device extensions enabled (those of `OPTIONAL_EXTENSIONS` the device has), by
    /// name (`VK_KHR_shader_clock`, ...).
    pub extensions: Vec<String>,
    /// The features enabled, by p3lab's names (`shader_int64`, ...; see `KNOWN_FEATURES`): what
    /// `requires` may name.
    pub features: Vec<String>,
}

/// One logical device with its queue, command pool and memory allocator.
pub struct Context {
    /// What the physical device offers (phase one), as `p3lab devices` prints it.
    pub info: DeviceInfo,
    /// The physical device the logical device was made on.
    pub physical: vk::PhysicalDevice,
    /// The logical device.
    pub device: ash::Device,
    /// Queue 0 of `queue_family`, the one every submission goes to (from one thread).
    pub queue: vk::Queue,
    /// The compute queue family chosen in `DeviceInfo::compute_queue_family`.
    pub queue_family: u32,
    /// The command pool of `queue_family` (buffers individually resettable).
    pub cmd_pool: vk::CommandPool,
    /// gpu-allocator's allocator for every buffer and image; dropped by hand before the device is
    /// destroyed.
    pub allocator: ManuallyDrop<Mutex<Allocator>>,
    /// VK_KHR_pipeline_executable_properties, when its `pipelineExecutableInfo` feature was
    /// enabled: executable statistics and internal representations.
    pub exec_props: Option<ash::khr::pipeline_executable_properties::Device>,
    /// VK_AMD_shader_info, when the device has it (RADV, AMD's drivers).
    pub shader_info: Option<ash::amd::shader_info::Device>,
    /// The extensions and features enabled on the device (run.json `enabled`).
    pub enabled: Enabled,
    /// Reusable staging buffers: (is_upload, buffer).
    pub(crate) staging_pool: Mutex<Vec<(bool, crate::vk::resources::Buffer)>>,
    /// When a submission (of any kind: timed batch, check run, upload, read-back) last
    /// completed: how long the GPU has had nothing to do.
    pub(crate) last_done: Mutex<Option<std::time::Instant>>,
    /// The host's gap between a submission's completion and the next submission, ns: an
    /// exponential average (src/vk/context/transfer.rs), what p3lab's clock keeper covers.
    pub(crate) host_gap_ns: Mutex<Option<f64>>,
    /// Submissions nobody waits for (the clock keeper): their command buffers and fences,
    /// freed once signalled.
    pub(crate) detached: Mutex<Vec<(vk::CommandBuffer, vk::Fence)>>,
    /// Dropped last: the instance must outlive the device.
    pub instance: Instance,
}

impl Context {
    /// How long since the GPU last finished a submission of this context; None before the
    /// first.
    pub fn idle_for(&self) -> Option<std::time::Duration> {
        self.last_done
            .lock()
            .expect("last_done lock")
            .map(|t| t.elapsed())
    }

    /// Whether p3lab enabled the feature `name` (p3lab's snake_case name) on this device.
    pub fn feature(&self, name: &str) -> bool {
        self.enabled.features.iter().any(|f| f == name)
    }

    /// Whether the device meets one `requires` entry: a feature p3lab enabled, an enabled
    /// extension, or `cooperative_matrix:A*B+C=R MxNxK`, a cooperative-matrix shape the device
    /// reports at subgroup scope (with the `cooperative_matrix` feature enabled).
    pub fn meets(&self, requirement: &str) -> bool {
        if let Some(shape) = requirement.strip_prefix(COOPMAT_PREFIX) {
            return self.feature("cooperative_matrix")
                && self
                    .info
                    .cooperative_matrix
                    .iter()
                    .any(|c| c.scope == "subgroup" && c.label() == shape.trim());
        }
        self.feature(requirement) || self.enabled.extensions.iter().any(|e| e == requirement)
    }

    /// What VK_EXT_device_fault says about a lost device, when the extension is enabled.
    pub fn fault_description(&self) -> Option<String> {
        if !self.feature("device_fault") {
            return None;
        }
        let fault = ash::ext::device_fault::Device::new(&self.instance.instance, &self.device);
        let mut counts = vk::DeviceFaultCountsEXT::default();
        // SAFETY: the extension and its feature are enabled on this device; with null info the
        // call only fills the counts, and the counts struct lives across the call.
        let r = unsafe {
            (fault.fp().get_device_fault_info_ext)(
                self.device.handle(),
                &mut counts,
                std::ptr::null_mut(),
            )
        };
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return None;
        }
        let mut info = vk::DeviceFaultInfoEXT::default();
        // Only the description is read: address and vendor infos are left out (counts zeroed).
        let mut c2 = vk::DeviceFaultCountsEXT::default();
        // SAFETY: as above; zero counts mean the driver writes only the description.
        let r = unsafe {
            (fault.fp().get_device_fault_info_ext)(self.device.handle(), &mut c2, &mut info)
        };
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return None;
        }
        let d = info
            .description_as_c_str()
            .ok()?
            .to_string_lossy()
            .into_owned();
        Some(format!(
            "{d} ({} address records, {} vendor records)",
            counts.address_info_count, counts.vendor_info_count
        ))
    }

    /// What this device can do with `f` in optimal tiling (decides `unsupported` image rows).
    pub fn format_features(&self, f: vk::Format) -> vk::FormatFeatureFlags {
        // SAFETY: a plain query on the physical device this context was made from.
        unsafe {
            self.instance
                .instance
                .get_physical_device_format_properties(self.physical, f)
        }
        .optimal_tiling_features
    }

    /// Wait until the device has finished all submitted work, and return the proof that the
    /// `destroy_*` and `rebind_buffer` methods ask for. A failed wait (a lost device) still
    /// gives the proof: the Vulkan spec lets objects of a lost device be destroyed. Never call
    /// this on a device that hung (a fence timed out): it would wait forever; such a device is
    /// leaked instead (the runner replaces it).
    pub fn wait_idle(&self) -> Idle<'_> {
        // SAFETY: the device is alive; a failure here (device lost) leaves nothing to wait for.
        let _ = unsafe { self.device.device_wait_idle() };
        Idle {
            _ctx: std::marker::PhantomData,
        }
    }
}

/// Proof that the device of a [`Context`] finished the work submitted before it was made
/// ([`Context::wait_idle`]). Objects the GPU may still use must not be destroyed or rewritten:
/// the methods that do so take `&Idle`, so the caller has to have waited. It does not stop a
/// later submission: destroy with the proof right after the wait, before submitting again.
pub struct Idle<'a> {
    _ctx: std::marker::PhantomData<&'a Context>,
}

impl Drop for Context {
    fn drop(&mut self) {
        let idle = self.wait_idle();
        let staging: Vec<_> = self
            .staging_pool
            .lock()
            .map(|mut p| p.drain(..).collect())
            .unwrap_or_default();
        for (_, b) in staging {
            self.destroy_buffer(b, &idle);
        }
        let detached: Vec<_> = self
            .detached
            .lock()
            .map(|mut d| d.drain(..).collect())
            .unwrap_or_default();
        for (_, fence) in detached {
            // SAFETY: the device is idle (above), so no submission uses the fence; the command
            // buffers go with the pool below.
            unsafe { self.device.destroy_fence(fence, None) };
        }
        // SAFETY: teardown order: the allocator (which frees its memory blocks and reports leaks)
        // goes before the device, the command pool before the device, the device before the
        // instance (dropped after this function as a field).
        unsafe {
            ManuallyDrop::drop(&mut self.allocator);
            self.device.destroy_command_pool(self.cmd_pool, None);
            self.device.destroy_device(None);
        }
    }
}
