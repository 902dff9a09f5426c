//! The CUPTI ABI p3lab calls: result codes, the params structs of the public headers
//! (`cupti_pmsampling.h`, `cupti_profiler_host.h`, `cupti_profiler_target.h`, `cupti_target.h`,
//! CUDA 12.8; each begins with its own size, which CUPTI uses to tell versions apart), and the
//! entry points' types. Data only: the calls are in the parent module.
use std::ffi::{c_char, c_void};

pub(super) type CuptiResult = i32;
pub(super) const CUPTI_SUCCESS: CuptiResult = 0;
/// `CUPTI_ERROR_INSUFFICIENT_PRIVILEGES`: profiling is restricted to admin users.
pub const CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: CuptiResult = 35;

/// `CUpti_ProfilerType_PM_SAMPLING`.
pub(super) const PROFILER_TYPE_PM_SAMPLING: i32 = 1;
/// `CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL`: the interval in ns (GA10x and later).
pub(super) const TRIGGER_GPU_TIME_INTERVAL: i32 = 1;
/// `CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST`: overflow is reported.
pub(super) const APPEND_KEEP_OLDEST: i32 = 0;
/// `CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL`.
pub const DECODE_COUNTER_DATA_FULL: i32 = 1;

/// The metric kinds of `cuptiProfilerHostGetBaseMetrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricType {
    /// `CUPTI_METRIC_TYPE_COUNTER`: a raw count.
    Counter = 0,
    /// `CUPTI_METRIC_TYPE_RATIO`: a ratio of counts.
    Ratio = 1,
    /// `CUPTI_METRIC_TYPE_THROUGHPUT`: a throughput, as a share of a unit's peak.
    Throughput = 2,
}

impl MetricType {
    /// `counter`, `ratio` or `throughput`: how `p3lab counters` shows the kind.
    pub fn label(self) -> &'static str {
        match self {
            MetricType::Counter => "counter",
            MetricType::Ratio => "ratio",
            MetricType::Throughput => "throughput",
        }
    }
}

macro_rules! params {
    ($name:ident { $($f:ident : $t:ty),* $(,)? }) => {
        #[repr(C)]
        pub(super) struct $name {
            pub(super) struct_size: usize,
            pub(super) p_priv: *mut c_void,
            $(pub(super) $f: $t,)*
        }
        impl $name {
            /// Zeroed, with its size set: what the headers' `_STRUCT_SIZE` macros give for the
            /// last field (no trailing padding counted, as `offsetof + sizeof`).
            pub(super) fn new() -> Self {
                // SAFETY: every field is an integer, a float or a raw pointer, for which all
                // zero bits are a valid value (null for the pointers).
                let mut s: Self = unsafe { std::mem::zeroed() };
                s.struct_size = params!(@size $name; struct_size, p_priv $(, $f)*);
                s
            }
        }
    };
    (@size $name:ident; $($f:ident),*) => {{
        let last = [$(std::mem::offset_of!($name, $f)),*].into_iter().max().unwrap_or(0);
        let mut size = 0usize;
        $( if std::mem::offset_of!($name, $f) == last {
            size = last + size_of_field(|s: &$name| &s.$f);
        } )*
        size
    }};
}

fn size_of_field<S, T>(_: fn(&S) -> &T) -> usize {
    std::mem::size_of::<T>()
}

params!(InitializeParams {});
params!(DeInitializeParams {});
params!(GetChipNameParams {
    device_index: usize,
    p_chip_name: *const c_char,
});
params!(GetCounterAvailabilityParams {
    device_index: usize,
    image_size: usize,
    p_image: *mut u8,
});
params!(HostInitializeParams {
    profiler_type: i32,
    p_chip_name: *const c_char,
    p_counter_availability_image: *const u8,
    p_host_object: *mut c_void,
});
params!(HostDeinitializeParams {
    p_host_object: *mut c_void,
});
params!(HostGetBaseMetricsParams {
    p_host_object: *mut c_void,
    metric_type: i32,
    pp_metric_names: *mut *const c_char,
    num_metrics: usize,
});
params!(HostGetMetricPropertiesParams {
    p_host_object: *mut c_void,
    p_metric_name: *const c_char,
    p_description: *const c_char,
    p_hw_unit: *const c_char,
    p_dim_unit: *const c_char,
    metric_type: i32,
});
params!(HostConfigAddMetricsParams {
    p_host_object: *mut c_void,
    pp_metric_names: *const *const c_char,
    num_metrics: usize,
});
params!(HostGetConfigImageSizeParams {
    p_host_object: *mut c_void,
    config_image_size: usize,
});
params!(HostGetConfigImageParams {
    p_host_object: *mut c_void,
    config_image_size: usize,
    p_config_image: *mut u8,
});
params!(HostGetNumOfPassesParams {
    config_image_size: usize,
    p_config_image: *mut u8,
    num_of_passes: usize,
});
params!(HostEvaluateParams {
    p_host_object: *mut c_void,
    p_counter_data_image: *const u8,
    counter_data_image_size: usize,
    range_index: usize,
    pp_metric_names: *const *const c_char,
    num_metrics: usize,
    p_metric_values: *mut f64,
});
params!(PmEnableParams {
    device_index: usize,
    p_pm_sampling_object: *mut c_void,
});
params!(PmObjectParams {
    p_pm_sampling_object: *mut c_void,
});
params!(PmSetConfigParams {
    p_pm_sampling_object: *mut c_void,
    config_size: usize,
    p_config: *const u8,
    hardware_buffer_size: usize,
    sampling_interval: u64,
    trigger_mode: i32,
    hw_buffer_append_mode: i32,
});
params!(PmDecodeParams {
    p_pm_sampling_object: *mut c_void,
    p_counter_data_image: *mut u8,
    counter_data_image_size: usize,
    decode_stop_reason: i32,
    overflow: u8,
});
params!(PmGetCounterDataSizeParams {
    p_pm_sampling_object: *mut c_void,
    p_metric_names: *const *const c_char,
    num_metrics: usize,
    max_samples: u32,
    counter_data_size: usize,
});
params!(PmCounterDataInitParams {
    p_pm_sampling_object: *mut c_void,
    counter_data_size: usize,
    p_counter_data: *mut u8,
});
params!(PmGetCounterDataInfoParams {
    p_counter_data_image: *const u8,
    counter_data_image_size: usize,
    num_total_samples: usize,
    num_populated_samples: usize,
    num_completed_samples: usize,
});
params!(PmGetSampleInfoParams {
    p_pm_sampling_object: *mut c_void,
    p_counter_data_image: *const u8,
    counter_data_image_size: usize,
    sample_index: usize,
    start_timestamp: u64,
    end_timestamp: u64,
});

pub(super) type Call<P> = unsafe extern "C" fn(*mut P) -> CuptiResult;

/// The entry points p3lab calls, looked up once.
pub(super) struct Fns {
    pub(super) get_result_string:
        unsafe extern "C" fn(CuptiResult, *mut *const c_char) -> CuptiResult,
    pub(super) get_timestamp: unsafe extern "C" fn(*mut u64) -> CuptiResult,
    pub(super) profiler_initialize: Call<InitializeParams>,
    pub(super) profiler_deinitialize: Call<DeInitializeParams>,
    pub(super) device_get_chip_name: Call<GetChipNameParams>,
    pub(super) get_counter_availability: Call<GetCounterAvailabilityParams>,
    pub(super) host_initialize: Call<HostInitializeParams>,
    pub(super) host_deinitialize: Call<HostDeinitializeParams>,
    pub(super) host_get_base_metrics: Call<HostGetBaseMetricsParams>,
    pub(super) host_get_metric_properties: Call<HostGetMetricPropertiesParams>,
    pub(super) host_config_add_metrics: Call<HostConfigAddMetricsParams>,
    pub(super) host_get_config_image_size: Call<HostGetConfigImageSizeParams>,
    pub(super) host_get_config_image: Call<HostGetConfigImageParams>,
    pub(super) host_get_num_of_passes: Call<HostGetNumOfPassesParams>,
    pub(super) host_evaluate: Call<HostEvaluateParams>,
    pub(super) pm_enable: Call<PmEnableParams>,
    pub(super) pm_disable: Call<PmObjectParams>,
    pub(super) pm_set_config: Call<PmSetConfigParams>,
    pub(super) pm_start: Call<PmObjectParams>,
    pub(super) pm_stop: Call<PmObjectParams>,
    pub(super) pm_decode: Call<PmDecodeParams>,
    pub(super) pm_get_counter_data_size: Call<PmGetCounterDataSizeParams>,
    pub(super) pm_counter_data_init: Call<PmCounterDataInitParams>,
    pub(super) pm_get_counter_data_info: Call<PmGetCounterDataInfoParams>,
    pub(super) pm_get_sample_info: Call<PmGetSampleInfoParams>,
}
