//! Phase two of capability negotiation: the logical device made with every optional
//! extension and feature the device offers that p3lab can use (`Context::new`), and the
//! feature names `requires` may name.
use super::{Context, Enabled, Instance};
use crate::vk::info::{self, DeviceInfo};
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
    "storage_push_constant16",
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
                storage_push_constant16,
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
}

#[cfg(test)]
mod known_features_tests {
    /// KNOWN_FEATURES lists exactly the names of the `enable_all!` calls in this file.
    #[test]
    fn known_features_match_the_enable_lists() {
        let src = include_str!("create.rs");
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
