//! Phase one of capability negotiation: what each physical device offers, before we enable anything.
use ash::vk;
use serde::{Deserialize, Serialize};
use std::ffi::CStr;

/// Device extensions p3lab enables when present.
pub const OPTIONAL_EXTENSIONS: &[&CStr] = &[
    ash::khr::pipeline_executable_properties::NAME,
    ash::khr::shader_clock::NAME,
    ash::ext::calibrated_timestamps::NAME,
    ash::nv::shader_sm_builtins::NAME,
    ash::amd::shader_info::NAME,
    ash::amd::shader_core_properties::NAME,
    ash::khr::performance_query::NAME,
    ash::ext::device_fault::NAME,
];

/// What a physical device offers, as `p3lab devices` prints it and run.json records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub index: usize,
    pub name: String,
    pub vendor_id: u32,
    pub vendor: String,
    pub device_id: u32,
    pub device_type: String,
    pub driver_name: String,
    pub driver_info: String,
    pub driver_version: u32,
    pub api_version: String,
    /// The device's UUID as hex: the key for merging results from many machines.
    pub uuid: String,
    pub subgroup_size_default: u32,
    pub subgroup_size_min: u32,
    pub subgroup_size_max: u32,
    /// Compute is in requiredSubgroupSizeStages: a pipeline may require a subgroup size.
    pub compute_required_subgroup_size: bool,
    pub subgroup_size_control: bool,
    pub compute_full_subgroups: bool,
    pub max_compute_workgroup_invocations: u32,
    pub max_compute_workgroup_size: [u32; 3],
    pub max_compute_workgroup_count: [u32; 3],
    pub max_compute_workgroup_subgroups: u32,
    pub max_compute_shared_memory_bytes: u32,
    pub max_storage_buffer_range: u32,
    pub max_push_constants_bytes: u32,
    pub max_bound_descriptor_sets: u32,
    pub timestamp_period_ns: f32,
    pub timestamp_valid_bits: u32,
    pub compute_queue_family: Option<u32>,
    pub pipeline_statistics_query: bool,
    pub host_query_reset: bool,
    pub synchronization2: bool,
    pub device_local_bytes: u64,
    /// Each optional extension and whether the device has it.
    pub extensions: Vec<(String, bool)>,
}

impl DeviceInfo {
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
pub fn query(instance: &ash::Instance, pd: vk::PhysicalDevice, index: usize) -> DeviceInfo {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
    let mut v13 = vk::PhysicalDeviceVulkan13Properties::default();
    let mut idp = vk::PhysicalDeviceIDProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut driver)
        .push_next(&mut subgroup)
        .push_next(&mut v13)
        .push_next(&mut idp);
    let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut feats2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut f12)
        .push_next(&mut f13);
    // SAFETY: `pd` came from this instance's enumerate_physical_devices; the pNext chains point at
    // locals that outlive the calls, and every chained struct is valid for a 1.1+ instance.
    let (props, exts, families, mem) = unsafe {
        instance.get_physical_device_properties2(pd, &mut props2);
        instance.get_physical_device_features2(pd, &mut feats2);
        (
            instance.get_physical_device_properties(pd),
            instance
                .enumerate_device_extension_properties(pd)
                .unwrap_or_default(),
            instance.get_physical_device_queue_family_properties(pd),
            instance.get_physical_device_memory_properties(pd),
        )
    };
    let pipeline_statistics_query = feats2.features.pipeline_statistics_query == vk::TRUE;
    let ext_names: Vec<String> = exts.iter().map(|e| cstr(&e.extension_name)).collect();
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
    }
}

/// Every physical device of the instance, in the driver's order.
pub fn enumerate(
    instance: &ash::Instance,
) -> anyhow::Result<Vec<(vk::PhysicalDevice, DeviceInfo)>> {
    // SAFETY: the instance is alive for the duration of the call.
    let pds = unsafe { instance.enumerate_physical_devices() }?;
    Ok(pds
        .into_iter()
        .enumerate()
        .map(|(i, pd)| (pd, query(instance, pd, i)))
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
