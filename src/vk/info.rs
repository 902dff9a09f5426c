//! Phase one of capability negotiation: what each physical device offers, before we enable anything.
use ash::vk;
use serde::{Deserialize, Serialize};
use std::ffi::CStr;

/// VK_KHR_shader_bfloat16 (Vulkan 1.4.311), which ash 0.38 predates: bf16 values in shaders and
/// cooperative matrices (`bfloat16_t`, GL_EXT_bfloat16).
pub const BFLOAT16_EXTENSION: &CStr = c"VK_KHR_shader_bfloat16";

/// Device extensions p3lab enables when present.
pub const OPTIONAL_EXTENSIONS: &[&CStr] = &[
    ash::khr::pipeline_executable_properties::NAME,
    ash::khr::shader_clock::NAME,
    ash::ext::calibrated_timestamps::NAME,
    ash::nv::shader_sm_builtins::NAME,
    ash::amd::shader_info::NAME,
    ash::amd::shader_core_properties::NAME,
    ash::amd::shader_core_properties2::NAME,
    ash::khr::performance_query::NAME,
    ash::ext::device_fault::NAME,
    ash::khr::cooperative_matrix::NAME,
    BFLOAT16_EXTENSION,
];

/// What a physical device offers, as `p3lab devices` prints it and run.json records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Position in the instance's `vkEnumeratePhysicalDevices` list: what `--device N` selects.
    pub index: usize,
    /// `deviceName` as the driver reports it; `--device TEXT` picks the first device whose name
    /// contains TEXT (case-insensitive).
    pub name: String,
    /// PCI vendor id from `VkPhysicalDeviceProperties` (0x10de NVIDIA, 0x1002 AMD, 0x8086 Intel,
    /// ...).
    pub vendor_id: u32,
    /// The vendor's name from [`vendor_name`] (`NVIDIA`, `AMD`, ..., `other`).
    pub vendor: String,
    /// The vendor's device id from `VkPhysicalDeviceProperties`.
    pub device_id: u32,
    /// `discrete`, `integrated`, `virtual`, `cpu` or `other`, from `VkPhysicalDeviceType`.
    pub device_type: String,
    /// `driverName` of `VkPhysicalDeviceDriverProperties` (`NVIDIA`, `radv`, `llvmpipe`).
    pub driver_name: String,
    /// `driverInfo` of `VkPhysicalDeviceDriverProperties`: the driver's own version text.
    pub driver_info: String,
    /// `driverVersion` as the driver encodes it (vendor-specific packing; compared raw, e.g. by
    /// peaks.csv's cache check).
    pub driver_version: u32,
    /// The device's Vulkan version, `major.minor.patch`; scenarios need 1.3 or newer.
    pub api_version: String,
    /// The device's UUID as hex: the key for merging results from many machines.
    pub uuid: String,
    /// The subgroup size the driver picks without a request
    /// (`VkPhysicalDeviceSubgroupProperties::subgroupSize`).
    pub subgroup_size_default: u32,
    /// Smallest subgroup size a pipeline may require (`minSubgroupSize`, Vulkan 1.3).
    pub subgroup_size_min: u32,
    /// Largest subgroup size a pipeline may require (`maxSubgroupSize`, Vulkan 1.3).
    pub subgroup_size_max: u32,
    /// Compute is in requiredSubgroupSizeStages: a pipeline may require a subgroup size.
    pub compute_required_subgroup_size: bool,
    /// The `subgroupSizeControl` feature: pipelines may ask for a subgroup size at all.
    pub subgroup_size_control: bool,
    /// The `computeFullSubgroups` feature: a compute pipeline may require full subgroups
    /// (`subgroup_size = "full"`).
    pub compute_full_subgroups: bool,
    /// `maxComputeWorkGroupInvocations`: the most invocations one workgroup may have.
    pub max_compute_workgroup_invocations: u32,
    /// `maxComputeWorkGroupSize`, per axis (x, y, z).
    pub max_compute_workgroup_size: [u32; 3],
    /// `maxComputeWorkGroupCount`: the most workgroups a dispatch may have per axis.
    pub max_compute_workgroup_count: [u32; 3],
    /// `maxComputeWorkgroupSubgroups` (Vulkan 1.3): the most subgroups one workgroup may hold.
    pub max_compute_workgroup_subgroups: u32,
    /// `maxComputeSharedMemorySize`, bytes of shared (workgroup) memory one workgroup may use.
    pub max_compute_shared_memory_bytes: u32,
    /// `maxStorageBufferRange`, bytes: the largest storage buffer a descriptor may bind.
    pub max_storage_buffer_range: u32,
    /// `maxUniformBufferRange`, bytes: the largest uniform buffer a descriptor may bind (0 in
    /// records written before p3lab read it).
    #[serde(default)]
    pub max_uniform_buffer_range: u32,
    /// `maxPushConstantsSize`, bytes.
    pub max_push_constants_bytes: u32,
    /// `maxBoundDescriptorSets`.
    pub max_bound_descriptor_sets: u32,
    /// `timestampPeriod`: nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    /// `timestampValidBits` of the chosen compute queue family (0: no timestamps there, or no
    /// compute family).
    pub timestamp_valid_bits: u32,
    /// The queue family p3lab computes on: one with compute, preferring timestamps and then
    /// graphics; None without any compute family.
    pub compute_queue_family: Option<u32>,
    /// The `pipelineStatisticsQuery` feature (compute-shader invocation counts).
    pub pipeline_statistics_query: bool,
    /// The `hostQueryReset` feature (Vulkan 1.2).
    pub host_query_reset: bool,
    /// The `synchronization2` feature (Vulkan 1.3).
    pub synchronization2: bool,
    /// Size in bytes of the largest `DEVICE_LOCAL` memory heap (0 when there is none).
    pub device_local_bytes: u64,
    /// Each optional extension and whether the device has it.
    pub extensions: Vec<(String, bool)>,
    /// VK_NV_shader_sm_builtins: the SM count and the most warps one SM holds
    /// (`shaderSMCount`, `shaderWarpsPerSM`); absent without the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nv_sm_count: Option<u32>,
    /// `shaderWarpsPerSM` of VK_NV_shader_sm_builtins: the most warps one SM holds; None without
    /// the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nv_warps_per_sm: Option<u32>,
    /// VK_AMD_shader_core_properties (and `activeComputeUnitCount` of
    /// VK_AMD_shader_core_properties2); absent without the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amd_core: Option<AmdCoreProperties>,
    /// VK_KHR_cooperative_matrix: every matrix multiply-add shape and type combination the
    /// device reports (`vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`); empty without the
    /// extension.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cooperative_matrix: Vec<CoopMatrixShape>,
}

/// One `VkCooperativeMatrixPropertiesKHR`: D (M×N, `result`) = A (M×K) · B (K×N) + C (M×N).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoopMatrixShape {
    /// Rows of A, C and the result.
    pub m: u32,
    /// Columns of B, C and the result.
    pub n: u32,
    /// Columns of A and rows of B: the dot-product length.
    pub k: u32,
    /// Component types by p3lab's short names (`f16`, `bf16`, `f32`, `s8`, `u8`, `s32`,
    /// `e4m3`, ...; `type<raw>` for one p3lab does not know).
    pub a: String,
    /// Component type of B, like `a`.
    pub b: String,
    /// Component type of C (the accumulator), like `a`.
    pub c: String,
    /// Component type of the result, like `a`.
    pub result: String,
    /// `saturatingAccumulation`: integer accumulation saturates instead of wrapping.
    pub saturating: bool,
    /// `subgroup`, `workgroup`, `device` or `queue_family`.
    pub scope: String,
}

impl CoopMatrixShape {
    /// `f16*f16+f32=f32 16x16x16`: how `requires` names it (`cooperative_matrix:` before it).
    pub fn label(&self) -> String {
        format!(
            "{}*{}+{}={} {}x{}x{}",
            self.a, self.b, self.c, self.result, self.m, self.n, self.k
        )
    }
}

/// p3lab's short name of a `VkComponentTypeKHR` (raw values: the KHR core ones,
/// VK_KHR_shader_bfloat16's `BFLOAT16_KHR`, VK_EXT_shader_float8's E4M3/E5M2).
pub fn component_type_name(raw: i32) -> String {
    match raw {
        0 => "f16".into(),
        1 => "f32".into(),
        2 => "f64".into(),
        3 => "s8".into(),
        4 => "s16".into(),
        5 => "s32".into(),
        6 => "s64".into(),
        7 => "u8".into(),
        8 => "u16".into(),
        9 => "u32".into(),
        10 => "u64".into(),
        1000141000 => "bf16".into(),
        1000491002 => "e4m3".into(),
        1000491003 => "e5m2".into(),
        1000491000 => "s8_packed".into(),
        1000491001 => "u8_packed".into(),
        other => format!("type{other}"),
    }
}

fn scope_name(s: vk::ScopeKHR) -> String {
    match s {
        vk::ScopeKHR::SUBGROUP => "subgroup".into(),
        vk::ScopeKHR::WORKGROUP => "workgroup".into(),
        vk::ScopeKHR::DEVICE => "device".into(),
        vk::ScopeKHR::QUEUE_FAMILY => "queue_family".into(),
        other => format!("scope{}", other.as_raw()),
    }
}

/// The device's cooperative-matrix shapes (none where the query fails).
fn cooperative_matrix_shapes(
    entry: &ash::Entry,
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
) -> Vec<CoopMatrixShape> {
    let cm = ash::khr::cooperative_matrix::Instance::new(entry, instance);
    // SAFETY: called only when the device reports VK_KHR_cooperative_matrix; `pd` came from
    // this instance, and ash sizes the output vector from the count the driver returns.
    let list = unsafe { cm.get_physical_device_cooperative_matrix_properties(pd) };
    match list {
        Ok(list) => list
            .iter()
            .map(|p| CoopMatrixShape {
                m: p.m_size,
                n: p.n_size,
                k: p.k_size,
                a: component_type_name(p.a_type.as_raw()),
                b: component_type_name(p.b_type.as_raw()),
                c: component_type_name(p.c_type.as_raw()),
                result: component_type_name(p.result_type.as_raw()),
                saturating: p.saturating_accumulation == vk::TRUE,
                scope: scope_name(p.scope),
            })
            .collect(),
        Err(e) => {
            tracing::warn!("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR failed: {e}");
            Vec::new()
        }
    }
}

/// What VK_AMD_shader_core_properties(2) report: the shader core's shape and its register
/// files. Field names follow `VkPhysicalDeviceShaderCorePropertiesAMD`; the VGPR counts are
/// the driver's own unit (RADV: wave64 VGPRs per SIMD lane).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AmdCoreProperties {
    /// `shaderEngineCount`.
    pub shader_engine_count: u32,
    /// `shaderArraysPerEngineCount`.
    pub shader_arrays_per_engine_count: u32,
    /// `computeUnitsPerShaderArray` (RADV: the smallest good count of any array).
    pub compute_units_per_shader_array: u32,
    /// `simdPerComputeUnit`.
    pub simd_per_compute_unit: u32,
    /// `wavefrontsPerSimd`: the most waves one SIMD holds.
    pub wavefronts_per_simd: u32,
    /// `wavefrontSize`: lanes per wave, as the driver reports it.
    pub wavefront_size: u32,
    /// `sgprsPerSimd`: scalar registers of one SIMD.
    pub sgprs_per_simd: u32,
    /// `vgprsPerSimd`, in the driver's own unit (RADV: wave64 VGPRs per SIMD lane).
    pub vgprs_per_simd: u32,
    /// `minVgprAllocation`: the fewest VGPRs a wave is given.
    pub min_vgpr_allocation: u32,
    /// `maxVgprAllocation`: the most VGPRs a wave may be given.
    pub max_vgpr_allocation: u32,
    /// `vgprAllocationGranularity`: VGPRs are allocated in steps of this.
    pub vgpr_allocation_granularity: u32,
    /// VK_AMD_shader_core_properties2 `activeComputeUnitCount` (None without it).
    #[serde(default)]
    pub active_compute_unit_count: Option<u32>,
}

impl AmdCoreProperties {
    /// Compute units of the device: the active count where VK_AMD_shader_core_properties2
    /// gives it, else engines × arrays × CUs per array (RADV reports the smallest good count
    /// per array there, so this can undercount a harvested part).
    pub fn compute_units(&self) -> Option<u32> {
        self.active_compute_unit_count
            .filter(|n| *n > 0)
            .or_else(|| {
                let n = self.shader_engine_count
                    * self.shader_arrays_per_engine_count
                    * self.compute_units_per_shader_array;
                (n > 0).then_some(n)
            })
    }
}

impl DeviceInfo {
    /// Whether the device has `name`, one of [`OPTIONAL_EXTENSIONS`] (others are not queried here
    /// and read false).
    pub fn has_extension(&self, name: &CStr) -> bool {
        let n = name.to_string_lossy();
        self.extensions.iter().any(|(e, has)| *has && *e == n)
    }

    /// Vulkan 1.3 or newer: the version p3lab needs to run scenarios.
    pub fn api_at_least_1_3(&self) -> bool {
        let mut parts = self
            .api_version
            .split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        (major, minor) >= (1, 3)
    }
}

/// The vendor's name for a PCI vendor id (`NVIDIA`, `AMD`, `Intel`, `ARM`, `Qualcomm`, `ImgTec`,
/// `Mesa`), else `other`.
pub fn vendor_name(id: u32) -> &'static str {
    match id {
        0x10de => "NVIDIA",
        0x1002 => "AMD",
        0x8086 => "Intel",
        0x13b5 => "ARM",
        0x5143 => "Qualcomm",
        0x1010 => "ImgTec",
        0x10005 => "Mesa",
        _ => "other",
    }
}

fn device_type_name(t: vk::PhysicalDeviceType) -> &'static str {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => "discrete",
        vk::PhysicalDeviceType::INTEGRATED_GPU => "integrated",
        vk::PhysicalDeviceType::VIRTUAL_GPU => "virtual",
        vk::PhysicalDeviceType::CPU => "cpu",
        _ => "other",
    }
}

fn cstr(bytes: &[std::ffi::c_char]) -> String {
    // The arrays are NUL-terminated by the spec; stop at the first NUL or the end, whichever comes first.
    let b: Vec<u8> = bytes
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect();
    String::from_utf8_lossy(&b).into_owned()
}

/// Query one physical device.
pub fn query(
    entry: &ash::Entry,
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    index: usize,
) -> DeviceInfo {
    // SAFETY: `pd` came from this instance's enumerate_physical_devices.
    let exts = unsafe { instance.enumerate_device_extension_properties(pd) }.unwrap_or_default();
    let ext_names: Vec<String> = exts.iter().map(|e| cstr(&e.extension_name)).collect();
    let has = |e: &CStr| ext_names.iter().any(|n| *n == e.to_string_lossy());
    let (has_sm, has_amd, has_amd2) = (
        has(ash::nv::shader_sm_builtins::NAME),
        has(ash::amd::shader_core_properties::NAME),
        has(ash::amd::shader_core_properties2::NAME),
    );
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Properties::default();
    let mut idp = vk::PhysicalDeviceIDProperties::default();
    let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut amd = vk::PhysicalDeviceShaderCorePropertiesAMD::default();
    let mut amd2 = vk::PhysicalDeviceShaderCoreProperties2AMD::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut driver)
        .push_next(&mut subgroup)
        .push_next(&mut v13)
        .push_next(&mut idp);
    // Extension structs only where the device has the extension: an unknown struct in the
    // chain is invalid usage.
    if has_sm {
        props2 = props2.push_next(&mut sm);
    }
    if has_amd {
        props2 = props2.push_next(&mut amd);
    }
    if has_amd2 {
        props2 = props2.push_next(&mut amd2);
    }
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut feats2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut f12)
        .push_next(&mut f13);
    // SAFETY: `pd` came from this instance's enumerate_physical_devices; the pNext chains point at
    // locals that outlive the calls, every core struct is valid for a 1.1+ instance, and each
    // extension struct is chained only when the device reports its extension.
    let (props, families, mem) = unsafe {
        instance.get_physical_device_properties2(pd, &mut props2);
        instance.get_physical_device_features2(pd, &mut feats2);
        (
            instance.get_physical_device_properties(pd),
            instance.get_physical_device_queue_family_properties(pd),
            instance.get_physical_device_memory_properties(pd),
        )
    };
    let nv_sm_count = has_sm.then_some(sm.shader_sm_count);
    let nv_warps_per_sm = has_sm.then_some(sm.shader_warps_per_sm);
    let amd_core = has_amd.then(|| AmdCoreProperties {
        shader_engine_count: amd.shader_engine_count,
        shader_arrays_per_engine_count: amd.shader_arrays_per_engine_count,
        compute_units_per_shader_array: amd.compute_units_per_shader_array,
        simd_per_compute_unit: amd.simd_per_compute_unit,
        wavefronts_per_simd: amd.wavefronts_per_simd,
        wavefront_size: amd.wavefront_size,
        sgprs_per_simd: amd.sgprs_per_simd,
        vgprs_per_simd: amd.vgprs_per_simd,
        min_vgpr_allocation: amd.min_vgpr_allocation,
        max_vgpr_allocation: amd.max_vgpr_allocation,
        vgpr_allocation_granularity: amd.vgpr_allocation_granularity,
        active_compute_unit_count: has_amd2.then_some(amd2.active_compute_unit_count),
    });
    let pipeline_statistics_query = feats2.features.pipeline_statistics_query == vk::TRUE;
    let compute_family = families
        .iter()
        .enumerate()
        .filter(|(_, f)| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        // Prefer a family that also does graphics: it is the one timestamps are best supported on.
        .max_by_key(|(_, f)| {
            (
                f.timestamp_valid_bits > 0,
                f.queue_flags.contains(vk::QueueFlags::GRAPHICS),
            )
        })
        .map(|(i, _)| i as u32);
    let ts_bits = compute_family
        .map(|i| families[i as usize].timestamp_valid_bits)
        .unwrap_or(0);
    let l = &props.limits;
    let v = props.api_version;
    let device_local_bytes = mem.memory_heaps[..mem.memory_heap_count as usize]
        .iter()
        .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|h| h.size)
        .max()
        .unwrap_or(0);
    DeviceInfo {
        index,
        name: cstr(&props.device_name),
        vendor_id: props.vendor_id,
        vendor: vendor_name(props.vendor_id).to_string(),
        device_id: props.device_id,
        device_type: device_type_name(props.device_type).to_string(),
        driver_name: cstr(&driver.driver_name),
        driver_info: cstr(&driver.driver_info),
        driver_version: props.driver_version,
        api_version: format!(
            "{}.{}.{}",
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        ),
        uuid: idp.device_uuid.iter().map(|b| format!("{b:02x}")).collect(),
        subgroup_size_default: subgroup.subgroup_size,
        subgroup_size_min: v13.min_subgroup_size,
        subgroup_size_max: v13.max_subgroup_size,
        compute_required_subgroup_size: v13
            .required_subgroup_size_stages
            .contains(vk::ShaderStageFlags::COMPUTE),
        subgroup_size_control: f13.subgroup_size_control == vk::TRUE,
        compute_full_subgroups: f13.compute_full_subgroups == vk::TRUE,
        max_compute_workgroup_invocations: l.max_compute_work_group_invocations,
        max_compute_workgroup_size: l.max_compute_work_group_size,
        max_compute_workgroup_count: l.max_compute_work_group_count,
        max_compute_workgroup_subgroups: v13.max_compute_workgroup_subgroups,
        max_compute_shared_memory_bytes: l.max_compute_shared_memory_size,
        max_storage_buffer_range: l.max_storage_buffer_range,
        max_uniform_buffer_range: l.max_uniform_buffer_range,
        max_push_constants_bytes: l.max_push_constants_size,
        max_bound_descriptor_sets: l.max_bound_descriptor_sets,
        timestamp_period_ns: l.timestamp_period,
        timestamp_valid_bits: ts_bits,
        compute_queue_family: compute_family,
        pipeline_statistics_query,
        host_query_reset: f12.host_query_reset == vk::TRUE,
        synchronization2: f13.synchronization2 == vk::TRUE,
        device_local_bytes,
        extensions: OPTIONAL_EXTENSIONS
            .iter()
            .map(|e| {
                let n = e.to_string_lossy().into_owned();
                let has = ext_names.contains(&n);
                (n, has)
            })
            .collect(),
        nv_sm_count,
        nv_warps_per_sm,
        amd_core,
        cooperative_matrix: if has(ash::khr::cooperative_matrix::NAME) {
            cooperative_matrix_shapes(entry, instance, pd)
        } else {
            Vec::new()
        },
    }
}

/// Every physical device of the instance, in the driver's order.
pub fn enumerate(
    entry: &ash::Entry,
    instance: &ash::Instance,
) -> anyhow::Result<Vec<(vk::PhysicalDevice, DeviceInfo)>> {
    // SAFETY: the instance is alive for the duration of the call.
    let pds = unsafe { instance.enumerate_physical_devices() }?;
    Ok(pds
        .into_iter()
        .enumerate()
        .map(|(i, pd)| (pd, query(entry, instance, pd, i)))
        .collect())
}

/// Choose a device: an index, a name substring, or (None) the best one:
/// the first discrete GPU, else integrated, else virtual, else CPU.
pub fn choose(devices: &[DeviceInfo], wanted: Option<&str>) -> Result<usize, String> {
    let list = || {
        devices
            .iter()
            .map(|d| format!("  {}: {} ({})", d.index, d.name, d.device_type))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if devices.is_empty() {
        return Err("no Vulkan device found (is a Vulkan driver installed? lavapipe: apt-get install mesa-vulkan-drivers)".into());
    }
    match wanted {
        Some(w) => {
            if let Ok(i) = w.parse::<usize>() {
                return if i < devices.len() {
                    Ok(i)
                } else {
                    Err(format!(
                        "--device {i}: no such device; there are:\n{}",
                        list()
                    ))
                };
            }
            let lw = w.to_lowercase();
            devices
                .iter()
                .position(|d| d.name.to_lowercase().contains(&lw))
                .ok_or_else(|| {
                    format!(
                        "--device `{w}`: no device name contains it; there are:\n{}",
                        list()
                    )
                })
        }
        None => {
            let rank = |t: &str| match t {
                "discrete" => 0,
                "integrated" => 1,
                "virtual" => 2,
                "cpu" => 3,
                _ => 4,
            };
            let usable = devices
                .iter()
                .filter(|d| d.api_at_least_1_3() && d.compute_queue_family.is_some());
            usable
                .min_by_key(|d| (rank(&d.device_type), d.index))
                .map(|d| d.index)
                .ok_or_else(|| {
                    format!(
                        "no Vulkan 1.3 device with a compute queue; there are:\n{}",
                        list()
                    )
                })
        }
    }
}
