//! The Vulkan instance: the loader, the validation layer and its messages routed through
//! tracing, and the physical devices with what p3lab can use on each (phase one).
use crate::vk::info::{self, DeviceInfo};
use ash::vk;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Validation errors seen by the debug messenger since the process started.
static VALIDATION_ERRORS: AtomicU64 = AtomicU64::new(0);

/// Validation errors the debug messenger has counted since the process started (0 without
/// `--validate`); suppressed messages and warnings do not count.
pub fn validation_errors() -> u64 {
    VALIDATION_ERRORS.load(Ordering::SeqCst)
}

/// Validation messages p3lab silences, each with the reason. Only warnings belong here: an
/// error is never suppressed.
const SUPPRESSED: &[(i32, &str)] = &[(
    // UNASSIGNED-CoreValidation-DrawState-InvalidImageLayout (performance warning): p3lab keeps
    // every image in GENERAL so storage, sampling and copies need no transitions; the copies it
    // warns about are set-up and read-back, never inside a timed submission.
    0x4dae5635,
    "images stay in GENERAL by design; copies are outside timing",
)];

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the loader passes a valid callback-data pointer for the duration of the call; its
    // message is a NUL-terminated string or null.
    let msg = unsafe {
        data.as_ref()
            .and_then(|d| d.message_as_c_str())
            .map(|m| m.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    // SAFETY: as above.
    let id = unsafe { data.as_ref().map(|d| d.message_id_number).unwrap_or(0) };
    if let Some((_, why)) = SUPPRESSED.iter().find(|(i, _)| *i == id) {
        tracing::trace!(target: "vulkan", "suppressed ({why}): {msg}");
        return vk::FALSE;
    }
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        VALIDATION_ERRORS.fetch_add(1, Ordering::SeqCst);
        tracing::error!(target: "vulkan", "{msg}");
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        tracing::warn!(target: "vulkan", "{msg}");
    } else {
        tracing::debug!(target: "vulkan", "{msg}");
    }
    vk::FALSE
}

/// A Vulkan instance, with the validation messenger when asked for.
pub struct Instance {
    /// The loaded Vulkan loader (`libvulkan.so.1`); dropped after the instance.
    pub entry: ash::Entry,
    /// The `VkInstance` (API version 1.3).
    pub instance: ash::Instance,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
}

impl Instance {
    /// Load the Vulkan loader and create an instance; with `validate`, enable
    /// VK_LAYER_KHRONOS_validation (an error when it is not installed) and route its messages
    /// through tracing.
    pub fn new(validate: bool) -> anyhow::Result<Self> {
        // SAFETY: loading libvulkan runs its initializers; we hold the Entry for as long as any
        // object made from it (it is dropped last, after the instance in Drop).
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            anyhow::anyhow!("cannot load the Vulkan loader (libvulkan.so.1): {e}. Install it: apt-get install libvulkan1 mesa-vulkan-drivers")
        })?;
        // SAFETY: plain queries on a loaded entry.
        let version =
            unsafe { entry.try_enumerate_instance_version() }?.unwrap_or(vk::API_VERSION_1_0);
        if version < vk::API_VERSION_1_3 {
            anyhow::bail!(
                "the Vulkan loader supports {}.{}, p3lab needs 1.3",
                vk::api_version_major(version),
                vk::api_version_minor(version)
            );
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"p3lab")
            .application_version(1)
            .engine_name(c"p3lab")
            .api_version(vk::API_VERSION_1_3);
        let mut layers: Vec<*const i8> = Vec::new();
        let mut exts: Vec<*const i8> = Vec::new();
        if validate {
            // SAFETY: plain query.
            let have = unsafe { entry.enumerate_instance_layer_properties() }?;
            let found = have
                .iter()
                .any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
            if !found {
                anyhow::bail!(
                    "--validate: the layer VK_LAYER_KHRONOS_validation is not installed (apt-get install vulkan-validationlayers)"
                );
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            exts.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        // Synchronization validation is on with the rest: races between dispatches are errors too.
        let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
        let mut vfeatures =
            vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
        let mut ci = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&exts);
        if validate {
            ci = ci.push_next(&mut vfeatures);
        }
        // SAFETY: every pointer in `ci` refers to locals or 'static C strings alive across the call.
        let instance = unsafe { entry.create_instance(&ci, None) }?;
        let debug = if validate {
            let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let mci = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                        | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                        | vk::DebugUtilsMessageSeverityFlagsEXT::INFO,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(debug_callback));
            // SAFETY: the callback is a 'static function that touches only a static counter and tracing.
            let m = unsafe { du.create_debug_utils_messenger(&mci, None) }?;
            Some((du, m))
        } else {
            None
        };
        Ok(Instance {
            entry,
            instance,
            debug,
        })
    }

    /// Every physical device with what it offers (phase one), in the loader's order.
    pub fn devices(&self) -> anyhow::Result<Vec<(vk::PhysicalDevice, DeviceInfo)>> {
        info::enumerate(&self.entry, &self.instance)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every device made from this instance is dropped before it (Context owns an
        // Arc-free Instance and drops its device first); the messenger belongs to this instance.
        unsafe {
            if let Some((du, m)) = self.debug.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}
