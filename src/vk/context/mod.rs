//! The logical device with phase two of capability negotiation: enable what the device offers
//! and p3lab can use. The instance is in instance.rs.
pub mod resources;
mod transfer;
use crate::vk::info::{self, DeviceInfo};
pub use crate::vk::instance::{validation_errors, Instance};
use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use std::ffi::CStr;
use std::mem::ManuallyDrop;
use std::sync::Mutex;

/// Every feature name p3lab enables when a device has it: what `requires` may name besides
/// extensions (`VK_...`). A test keeps it equal to the `enable_all!` lists below.
pub const KNOWN_FEATURES: &[&str] = &[
    "pipeline_statistics_query",
    "shader_int64",
    "shader_int16",
    "shader_float64",
    "shader_storage_image_extended_formats",
    "shader_storage_image_read_without_format",
    "shader_storage_image_write_without_format",
    "shader_image_gather_extended",
    "shader_sampled_image_array_dynamic_indexing",
    "shader_storage_buffer_array_dynamic_indexing",
    "shader_storage_image_array_dynamic_indexing",
    "fragment_stores_and_atomics",
    "storage_buffer16_bit_access",
    "uniform_and_storage_buffer16_bit_access",
    "variable_pointers_storage_buffer",
    "variable_pointers",
    "storage_buffer8_bit_access",
    "uniform_and_storage_buffer8_bit_access",
    "shader_buffer_int64_atomics",
    "shader_shared_int64_atomics",
    "shader_float16",
    "shader_int8",
    "descriptor_indexing",
    "shader_sampled_image_array_non_uniform_indexing",
    "shader_storage_buffer_array_non_uniform_indexing",
    "shader_storage_image_array_non_uniform_indexing",
    "runtime_descriptor_array",
    "scalar_block_layout",
    "host_query_reset",
    "timeline_semaphore",
    "vulkan_memory_model",
    "vulkan_memory_model_device_scope",
    "shader_subgroup_extended_types",
    "subgroup_broadcast_dynamic_id",
    "uniform_buffer_standard_layout",
    "buffer_device_address",
    "subgroup_size_control",
    "compute_full_subgroups",
    "synchronization2",
    "maintenance4",
    "shader_integer_dot_product",
    "shader_demote_to_helper_invocation",
    "shader_zero_initialize_workgroup_memory",
    "shader_subgroup_clock",
    "shader_device_clock",
    "pipeline_executable_info",
    "performance_counter_query_pools",
    "device_fault",
    "shader_sm_builtins",
    "cooperative_matrix",
    "shader_bfloat16_type",
    "shader_bfloat16_dot_product",
    "shader_bfloat16_cooperative_matrix",
];

pub use crate::vk::info::BFLOAT16_EXTENSION;

/// `VkPhysicalDeviceShaderBfloat16FeaturesKHR`, written out because ash 0.38 has no binding.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Bfloat16Features {
    s_type: vk::StructureType,
    p_next: *mut std::ffi::c_void,
    shader_bfloat16_type: vk::Bool32,
    shader_bfloat16_dot_product: vk::Bool32,
    shader_bfloat16_cooperative_matrix: vk::Bool32,
}

impl Default for Bfloat16Features {
    fn default() -> Self {
        Bfloat16Features {
            // VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR
            s_type: vk::StructureType::from_raw(1_000_141_000),
            p_next: std::ptr::null_mut(),
            shader_bfloat16_type: vk::FALSE,
            shader_bfloat16_dot_product: vk::FALSE,
            shader_bfloat16_cooperative_matrix: vk::FALSE,
        }
    }
}

// SAFETY: the struct is `repr(C)` with the C struct's members in its order (sType and pNext
// first, as ash's chain walking needs), and the spec lets it extend both
// VkPhysicalDeviceFeatures2 and VkDeviceCreateInfo.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for Bfloat16Features {}
// SAFETY: as above.
unsafe impl vk::ExtendsDeviceCreateInfo for Bfloat16Features {}

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

macro_rules! enable_all {
    ($have:expr, $want:expr, $list:expr, $prefix:literal, [$($f:ident),* $(,)?]) => {
        $(
            if $have.$f == vk::TRUE {
                $want.$f = vk::TRUE;
                $list.push(format!(concat!($prefix, "{}"), stringify!($f)));
            }
        )*
    };
}

impl Context {
    /// Create the logical device for `index`, enabling every optional capability the device has.
    pub fn new(
        instance: Instance,
        pd: vk::PhysicalDevice,
        info: DeviceInfo,
    ) -> anyhow::Result<Context> {
        if !info.api_at_least_1_3() {
            anyhow::bail!(
                "device `{}` supports Vulkan {}, p3lab needs 1.3",
                info.name,
                info.api_version
            );
        }
        let family = info
            .compute_queue_family
            .ok_or_else(|| anyhow::anyhow!("device `{}` has no compute queue", info.name))?;
        let inst = &instance.instance;
        let mut enabled = Enabled::default();
        let ext_ptrs: Vec<*const i8> = info::OPTIONAL_EXTENSIONS
            .iter()
            .filter(|e| info.has_extension(e))
            .map(|e| {
                enabled.extensions.push(e.to_string_lossy().into_owned());
                e.as_ptr()
            })
            .collect();

        // Phase one again, for the full feature structs we copy from.
        let mut h11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut h12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut h13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut hclock = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
        let mut hexec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        let mut hperf = vk::PhysicalDevicePerformanceQueryFeaturesKHR::default();
        let mut hfault = vk::PhysicalDeviceFaultFeaturesEXT::default();
        let mut hsm = vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV::default();
        let mut hcm = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        let mut hbf = Bfloat16Features::default();
        let has = |e: &CStr| info.has_extension(e);
        let f10 = {
            let mut h = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut h11)
                .push_next(&mut h12)
                .push_next(&mut h13);
            if has(ash::khr::shader_clock::NAME) {
                h = h.push_next(&mut hclock);
            }
            if has(ash::khr::pipeline_executable_properties::NAME) {
                h = h.push_next(&mut hexec);
            }
            if has(ash::khr::performance_query::NAME) {
                h = h.push_next(&mut hperf);
            }
            if has(ash::ext::device_fault::NAME) {
                h = h.push_next(&mut hfault);
            }
            if has(ash::nv::shader_sm_builtins::NAME) {
                h = h.push_next(&mut hsm);
            }
            if has(ash::khr::cooperative_matrix::NAME) {
                h = h.push_next(&mut hcm);
            }
            if has(BFLOAT16_EXTENSION) {
                h = h.push_next(&mut hbf);
            }
            // SAFETY: only structs of extensions the device reports are chained; all are locals.
            unsafe { inst.get_physical_device_features2(pd, &mut h) };
            let have = h.features;
            let mut f10 = vk::PhysicalDeviceFeatures::default();
            // robustBufferAccess is left off on purpose: bounds checks change the code we time.
            enable_all!(
                have,
                f10,
                enabled.features,
                "",
                [
                    pipeline_statistics_query,
                    shader_int64,
                    shader_int16,
                    shader_float64,
                    shader_storage_image_extended_formats,
                    shader_storage_image_read_without_format,
                    shader_storage_image_write_without_format,
                    shader_image_gather_extended,
                    shader_sampled_image_array_dynamic_indexing,
                    shader_storage_buffer_array_dynamic_indexing,
                    shader_storage_image_array_dynamic_indexing,
                    fragment_stores_and_atomics,
                ]
            );
            f10
        };
        let mut e11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut e12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut e13 = vk::PhysicalDeviceVulkan13Features::default();
        enable_all!(
            h11,
            e11,
            enabled.features,
            "",
            [
                storage_buffer16_bit_access,
                uniform_and_storage_buffer16_bit_access,
                variable_pointers_storage_buffer,
                variable_pointers,
            ]
        );
        enable_all!(
            h12,
            e12,
            enabled.features,
            "",
            [
                storage_buffer8_bit_access,
                uniform_and_storage_buffer8_bit_access,
                shader_buffer_int64_atomics,
                shader_shared_int64_atomics,
                shader_float16,
                shader_int8,
                descriptor_indexing,
                shader_sampled_image_array_non_uniform_indexing,
                shader_storage_buffer_array_non_uniform_indexing,
                shader_storage_image_array_non_uniform_indexing,
                runtime_descriptor_array,
                scalar_block_layout,
                host_query_reset,
                timeline_semaphore,
                vulkan_memory_model,
                vulkan_memory_model_device_scope,
                shader_subgroup_extended_types,
                subgroup_broadcast_dynamic_id,
                uniform_buffer_standard_layout,
                buffer_device_address,
            ]
        );
        enable_all!(
            h13,
            e13,
            enabled.features,
            "",
            [
                subgroup_size_control,
                compute_full_subgroups,
                synchronization2,
                maintenance4,
                shader_integer_dot_product,
                shader_demote_to_helper_invocation,
                shader_zero_initialize_workgroup_memory,
            ]
        );
        let mut eclock = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
        enable_all!(
            hclock,
            eclock,
            enabled.features,
            "",
            [shader_subgroup_clock, shader_device_clock]
        );
        let mut eexec = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        enable_all!(
            hexec,
            eexec,
            enabled.features,
            "",
            [pipeline_executable_info]
        );
        let mut eperf = vk::PhysicalDevicePerformanceQueryFeaturesKHR::default();
        enable_all!(
            hperf,
            eperf,
            enabled.features,
            "",
            [performance_counter_query_pools]
        );
        let mut efault = vk::PhysicalDeviceFaultFeaturesEXT::default();
        enable_all!(hfault, efault, enabled.features, "", [device_fault]);
        let mut esm = vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV::default();
        enable_all!(hsm, esm, enabled.features, "", [shader_sm_builtins]);
        let mut ecm = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        enable_all!(hcm, ecm, enabled.features, "", [cooperative_matrix]);
        let mut ebf = Bfloat16Features::default();
        enable_all!(
            hbf,
            ebf,
            enabled.features,
            "",
            [
                shader_bfloat16_type,
                shader_bfloat16_dot_product,
                shader_bfloat16_cooperative_matrix,
            ]
        );
        if e13.synchronization2 != vk::TRUE {
            anyhow::bail!(
                "device `{}` lacks synchronization2, which Vulkan 1.3 requires",
                info.name
            );
        }

        let prio = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let mut f2 = vk::PhysicalDeviceFeatures2::default().features(f10);
        let mut dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&qci)
            .enabled_extension_names(&ext_ptrs)
            .push_next(&mut f2)
            .push_next(&mut e11)
            .push_next(&mut e12)
            .push_next(&mut e13);
        if has(ash::khr::shader_clock::NAME) {
            dci = dci.push_next(&mut eclock);
        }
        if has(ash::khr::pipeline_executable_properties::NAME) {
            dci = dci.push_next(&mut eexec);
        }
        if has(ash::khr::performance_query::NAME) {
            dci = dci.push_next(&mut eperf);
        }
        if has(ash::ext::device_fault::NAME) {
            dci = dci.push_next(&mut efault);
        }
        if has(ash::nv::shader_sm_builtins::NAME) {
            dci = dci.push_next(&mut esm);
        }
        if has(ash::khr::cooperative_matrix::NAME) {
            dci = dci.push_next(&mut ecm);
        }
        if has(BFLOAT16_EXTENSION) {
            dci = dci.push_next(&mut ebf);
        }
        // SAFETY: every enabled feature was reported by the device above; extension names are
        // 'static; the chain points at locals alive across the call.
        let device = unsafe { inst.create_device(pd, &dci, None) }?;
        // SAFETY: the family was created with one queue.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_ci = vk::CommandPoolCreateInfo::default()
            .queue_family_index(family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device and create info.
        let cmd_pool = unsafe { device.create_command_pool(&pool_ci, None) }?;
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: inst.clone(),
            device: device.clone(),
            physical_device: pd,
            debug_settings: {
                let mut d = gpu_allocator::AllocatorDebugSettings::default();
                d.log_leaks_on_shutdown = true;
                d
            },
            buffer_device_address: e12.buffer_device_address == vk::TRUE,
            allocation_sizes: gpu_allocator::AllocationSizes::default(),
        })?;
        let exec_props = if eexec.pipeline_executable_info == vk::TRUE {
            Some(ash::khr::pipeline_executable_properties::Device::new(
                inst, &device,
            ))
        } else {
            None
        };
        let shader_info = enabled
            .extensions
            .iter()
            .any(|e| e.as_bytes() == ash::amd::shader_info::NAME.to_bytes())
            .then(|| ash::amd::shader_info::Device::new(inst, &device));
        Ok(Context {
            info,
            physical: pd,
            device,
            queue,
            queue_family: family,
            cmd_pool,
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            exec_props,
            shader_info,
            enabled,
            last_done: Mutex::new(None),
            host_gap_ns: Mutex::new(None),
            detached: Mutex::new(Vec::new()),
            staging_pool: Mutex::new(Vec::new()),
            instance,
        })
    }

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

#[cfg(test)]
mod known_features_tests {
    /// KNOWN_FEATURES lists exactly the names of the `enable_all!` calls in this file.
    #[test]
    fn known_features_match_the_enable_lists() {
        let src = include_str!("mod.rs");
        let src = &src[..src.find("mod known_features_tests").unwrap()];
        let mut found = Vec::new();
        for call in src.split("enable_all!(").skip(1) {
            let call = &call[..call.find(");").expect("end of call")];
            let prefix = call.split('"').nth(1).unwrap_or("");
            let list = &call[call.find('[').unwrap() + 1..call.find(']').unwrap()];
            for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                found.push(format!("{prefix}{name}"));
            }
        }
        assert_eq!(found, super::KNOWN_FEATURES);
    }
}
