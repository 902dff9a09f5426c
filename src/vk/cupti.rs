//! NVIDIA's CUPTI PM sampling, loaded at run time: device-wide performance monitors sampled
//! at a fixed interval whatever API issued the work, so a Vulkan process reads the counters
//! Nsight would (issue 25). No link-time dependency: `libcupti.so` is found at run time
//! ([`candidates`]) and every entry point is looked up by name; without it the run goes on and
//! the rows say why.
//!
//! The structs below mirror the public headers (`cupti_pmsampling.h`, `cupti_profiler_host.h`,
//! `cupti_profiler_target.h`, `cupti_target.h`, CUDA 12.8): each begins with its own size, which
//! CUPTI uses to tell versions apart, so a newer library (CUDA 13's) accepts them.
//!
//! Only this file touches the library; `measure::hw` drives it through the safe [`Cupti`],
//! [`Host`] and [`Sampler`].
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

type CuptiResult = i32;
const CUPTI_SUCCESS: CuptiResult = 0;
/// `CUPTI_ERROR_INSUFFICIENT_PRIVILEGES`: profiling is restricted to admin users.
pub const CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: CuptiResult = 35;

/// `CUpti_ProfilerType_PM_SAMPLING`.
const PROFILER_TYPE_PM_SAMPLING: i32 = 1;
/// `CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL`: the interval in ns (GA10x and later).
const TRIGGER_GPU_TIME_INTERVAL: i32 = 1;
/// `CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST`: overflow is reported.
const APPEND_KEEP_OLDEST: i32 = 0;
/// `CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL`.
pub const DECODE_COUNTER_DATA_FULL: i32 = 1;

/// The metric kinds of `cuptiProfilerHostGetBaseMetrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricType {
    Counter = 0,
    Ratio = 1,
    Throughput = 2,
}

impl MetricType {
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
        struct $name {
            struct_size: usize,
            p_priv: *mut c_void,
            $($f: $t,)*
        }
        impl $name {
            /// Zeroed, with its size set: what the headers' `_STRUCT_SIZE` macros give for the
            /// last field (no trailing padding counted, as `offsetof + sizeof`).
            fn new() -> Self {
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

type Call<P> = unsafe extern "C" fn(*mut P) -> CuptiResult;

/// The entry points p3lab calls, looked up once.
struct Fns {
    get_result_string: unsafe extern "C" fn(CuptiResult, *mut *const c_char) -> CuptiResult,
    get_timestamp: unsafe extern "C" fn(*mut u64) -> CuptiResult,
    profiler_initialize: Call<InitializeParams>,
    profiler_deinitialize: Call<DeInitializeParams>,
    device_get_chip_name: Call<GetChipNameParams>,
    get_counter_availability: Call<GetCounterAvailabilityParams>,
    host_initialize: Call<HostInitializeParams>,
    host_deinitialize: Call<HostDeinitializeParams>,
    host_get_base_metrics: Call<HostGetBaseMetricsParams>,
    host_get_metric_properties: Call<HostGetMetricPropertiesParams>,
    host_config_add_metrics: Call<HostConfigAddMetricsParams>,
    host_get_config_image_size: Call<HostGetConfigImageSizeParams>,
    host_get_config_image: Call<HostGetConfigImageParams>,
    host_get_num_of_passes: Call<HostGetNumOfPassesParams>,
    host_evaluate: Call<HostEvaluateParams>,
    pm_enable: Call<PmEnableParams>,
    pm_disable: Call<PmObjectParams>,
    pm_set_config: Call<PmSetConfigParams>,
    pm_start: Call<PmObjectParams>,
    pm_stop: Call<PmObjectParams>,
    pm_decode: Call<PmDecodeParams>,
    pm_get_counter_data_size: Call<PmGetCounterDataSizeParams>,
    pm_counter_data_init: Call<PmCounterDataInitParams>,
    pm_get_counter_data_info: Call<PmGetCounterDataInfoParams>,
    pm_get_sample_info: Call<PmGetSampleInfoParams>,
}

/// A failed CUPTI call: which, its code and CUPTI's name for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call} failed: {name} ({code})")]
pub struct CuptiError {
    pub call: &'static str,
    pub code: i32,
    pub name: String,
}

impl CuptiError {
    /// Profiling is restricted to admin users on this machine.
    pub fn is_privilege(&self) -> bool {
        self.code == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
    }
}

/// The loaded library. Kept alive by every [`Host`] and [`Sampler`] made from it.
struct Lib {
    fns: Fns,
    /// The libraries (libnvperf_host, libnvperf_target, libcupti, libcuda) stay loaded while
    /// any function pointer above may be called.
    _libs: Vec<libloading::Library>,
    initialized: std::sync::atomic::AtomicBool,
}

impl Drop for Lib {
    fn drop(&mut self) {
        if self.initialized.load(std::sync::atomic::Ordering::SeqCst) {
            let mut p = DeInitializeParams::new();
            // SAFETY: the library is still loaded (fields drop after this); a valid params
            // struct of the header's layout, with its size set.
            unsafe { (self.fns.profiler_deinitialize)(&mut p) };
        }
    }
}

/// CUPTI, loaded from `path`, with the profiler initialized.
#[derive(Clone)]
pub struct Cupti {
    lib: Arc<Lib>,
    pub path: PathBuf,
}

/// Where p3lab looks for `libcupti.so`, in order: `explicit` (`--cupti` / `P3LAB_CUPTI`; a
/// file or a folder), the CUDA toolkit's folders (`CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda`,
/// `/usr/local/cuda-*` newest first, `/opt/cuda`), a Python environment's
/// `nvidia/cuda_cupti/lib` (the `nvidia-cuda-cupti-cu12` wheel), then the loader's own path
/// (`LD_LIBRARY_PATH`, ld.so.cache) by name.
pub fn candidates(explicit: Option<&Path>) -> Vec<PathBuf> {
    let names = ["libcupti.so", "libcupti.so.13", "libcupti.so.12"];
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut out = Vec::new();
    if let Some(p) = explicit {
        if p.is_dir() {
            dirs.push(p.to_path_buf());
        } else {
            return vec![p.to_path_buf()];
        }
    }
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|v| std::env::var_os(v).map(PathBuf::from))
        .collect();
    roots.push("/usr/local/cuda".into());
    let mut versioned: Vec<PathBuf> = std::fs::read_dir("/usr/local")
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("cuda-"))
                })
                .collect()
        })
        .unwrap_or_default();
    versioned.sort_by_key(|p| std::cmp::Reverse(version_key(p)));
    roots.extend(versioned);
    roots.push("/opt/cuda".into());
    for r in &roots {
        dirs.push(r.join("extras/CUPTI/lib64"));
        dirs.push(r.join("targets/x86_64-linux/lib"));
        dirs.push(r.join("lib64"));
    }
    dirs.extend(python_dirs());
    for d in &dirs {
        for n in names {
            let p = d.join(n);
            if p.exists() && !out.contains(&p) {
                out.push(p);
            }
        }
    }
    // Last: by name, through LD_LIBRARY_PATH and the loader's cache.
    out.extend(names.iter().map(PathBuf::from));
    out
}

fn version_key(p: &Path) -> Vec<u32> {
    p.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("cuda-"))
        .map(|v| v.split('.').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_default()
}

/// `nvidia/cuda_cupti/lib` under the site-packages folders a pip install uses.
fn python_dirs() -> Vec<PathBuf> {
    let mut bases: Vec<PathBuf> = Vec::new();
    for v in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = std::env::var_os(v) {
            bases.push(PathBuf::from(p).join("lib"));
        }
    }
    if let Some(h) = std::env::var_os("HOME") {
        bases.push(PathBuf::from(h).join(".local/lib"));
    }
    bases.extend(["/usr/local/lib".into(), "/usr/lib".into()]);
    let mut out = Vec::new();
    for b in bases {
        let Ok(rd) = std::fs::read_dir(&b) else {
            continue;
        };
        for e in rd.flatten() {
            let n = e.file_name();
            if n.to_str().is_some_and(|n| n.starts_with("python3")) {
                for sub in ["site-packages", "dist-packages"] {
                    let d = e.path().join(sub).join("nvidia/cuda_cupti/lib");
                    if d.is_dir() {
                        out.push(d);
                    }
                }
            }
        }
    }
    out
}

/// Open a library with its symbols global, so that CUPTI's own `dlopen("libnvperf_host.so")`
/// finds the copy beside it already loaded (the loader matches loaded libraries by soname).
fn open_global(p: &Path) -> Result<libloading::Library, libloading::Error> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    // SAFETY: loading a shared library runs its initializers; CUPTI's, libnvperf's and
    // libcuda's are NVIDIA's own and set up only their internal state. p3lab passes no
    // callbacks into them here.
    unsafe { Library::open(Some(p), RTLD_NOW | RTLD_GLOBAL) }.map(Into::into)
}

macro_rules! sym {
    ($lib:expr, $name:literal) => {{
        // SAFETY: the symbol is declared in CUPTI's public headers with this signature (the
        // params structs above mirror them); the Library outlives the copy (kept in Lib).
        let s: libloading::Symbol<_> = unsafe { $lib.get(concat!($name, "\0").as_bytes()) }
            .map_err(|e| format!("`{}` is missing from the library: {e}", $name))?;
        *s
    }};
}

impl Cupti {
    /// Load the first library of [`candidates`] that opens and has the PM sampling API, and
    /// initialize the profiler. Err: a one-line reason naming what was tried.
    pub fn load(explicit: Option<&Path>) -> Result<Cupti, String> {
        let mut tried = Vec::new();
        for p in candidates(explicit) {
            match Self::open(&p) {
                Ok(c) => return Ok(c),
                Err(e) => tried.push(format!("{}: {e}", p.display())),
            }
        }
        Err(format!(
            "CUPTI (libcupti.so) not found or not usable ({}); install the CUDA toolkit or \
             `pip install nvidia-cuda-cupti-cu12`, or name it with --cupti PATH / P3LAB_CUPTI",
            tried.join("; ")
        ))
    }

    fn open(p: &Path) -> Result<Cupti, String> {
        let mut libs = Vec::new();
        if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
            for dep in ["libnvperf_host.so", "libnvperf_target.so"] {
                let d = dir.join(dep);
                if d.exists() {
                    libs.push(open_global(&d).map_err(|e| format!("{}: {e}", d.display()))?);
                }
            }
        }
        // CUPTI works on the CUDA driver's device list: initialize it first where it exists.
        if let Ok(cuda) = open_global(Path::new("libcuda.so.1")) {
            // SAFETY: `cuInit(unsigned int)` from the CUDA driver API; flags must be 0.
            if let Ok(init) = unsafe { cuda.get::<unsafe extern "C" fn(u32) -> i32>(b"cuInit\0") } {
                // SAFETY: as above; any return code is fine (CUPTI then reports its own).
                let r = unsafe { init(0) };
                if r != 0 {
                    tracing::debug!("cuInit returned {r}");
                }
            }
            libs.push(cuda);
        }
        let lib = open_global(p).map_err(|e| e.to_string())?;
        let fns = Fns {
            get_result_string: sym!(lib, "cuptiGetResultString"),
            get_timestamp: sym!(lib, "cuptiGetTimestamp"),
            profiler_initialize: sym!(lib, "cuptiProfilerInitialize"),
            profiler_deinitialize: sym!(lib, "cuptiProfilerDeInitialize"),
            device_get_chip_name: sym!(lib, "cuptiDeviceGetChipName"),
            get_counter_availability: sym!(lib, "cuptiPmSamplingGetCounterAvailability"),
            host_initialize: sym!(lib, "cuptiProfilerHostInitialize"),
            host_deinitialize: sym!(lib, "cuptiProfilerHostDeinitialize"),
            host_get_base_metrics: sym!(lib, "cuptiProfilerHostGetBaseMetrics"),
            host_get_metric_properties: sym!(lib, "cuptiProfilerHostGetMetricProperties"),
            host_config_add_metrics: sym!(lib, "cuptiProfilerHostConfigAddMetrics"),
            host_get_config_image_size: sym!(lib, "cuptiProfilerHostGetConfigImageSize"),
            host_get_config_image: sym!(lib, "cuptiProfilerHostGetConfigImage"),
            host_get_num_of_passes: sym!(lib, "cuptiProfilerHostGetNumOfPasses"),
            host_evaluate: sym!(lib, "cuptiProfilerHostEvaluateToGpuValues"),
            pm_enable: sym!(lib, "cuptiPmSamplingEnable"),
            pm_disable: sym!(lib, "cuptiPmSamplingDisable"),
            pm_set_config: sym!(lib, "cuptiPmSamplingSetConfig"),
            pm_start: sym!(lib, "cuptiPmSamplingStart"),
            pm_stop: sym!(lib, "cuptiPmSamplingStop"),
            pm_decode: sym!(lib, "cuptiPmSamplingDecodeData"),
            pm_get_counter_data_size: sym!(lib, "cuptiPmSamplingGetCounterDataSize"),
            pm_counter_data_init: sym!(lib, "cuptiPmSamplingCounterDataImageInitialize"),
            pm_get_counter_data_info: sym!(lib, "cuptiPmSamplingGetCounterDataInfo"),
            pm_get_sample_info: sym!(lib, "cuptiPmSamplingCounterDataGetSampleInfo"),
        };
        libs.push(lib);
        let lib = Arc::new(Lib {
            fns,
            _libs: libs,
            initialized: false.into(),
        });
        let c = Cupti {
            lib,
            path: p.to_path_buf(),
        };
        let mut ip = InitializeParams::new();
        c.check("cuptiProfilerInitialize", |f| {
            // SAFETY: a valid params struct of the header's layout.
            unsafe { (f.profiler_initialize)(&mut ip) }
        })
        .map_err(|e| e.to_string())?;
        c.lib
            .initialized
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(c)
    }

    fn check(
        &self,
        call: &'static str,
        f: impl FnOnce(&Fns) -> CuptiResult,
    ) -> Result<(), CuptiError> {
        let code = f(&self.lib.fns);
        if code == CUPTI_SUCCESS {
            return Ok(());
        }
        let mut s: *const c_char = std::ptr::null();
        // SAFETY: cuptiGetResultString writes a pointer to a static string, or fails.
        let ok = unsafe { (self.lib.fns.get_result_string)(code, &mut s) } == CUPTI_SUCCESS;
        let name = if ok && !s.is_null() {
            // SAFETY: CUPTI returns a NUL-terminated static string.
            unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
        } else {
            format!("CUPTI error {code}")
        };
        Err(CuptiError { call, code, name })
    }

    /// CUPTI's clock (`cuptiGetTimestamp`), in ns: sample timestamps use it.
    pub fn timestamp(&self) -> Option<u64> {
        let mut t = 0u64;
        // SAFETY: writes one u64.
        let r = unsafe { (self.lib.fns.get_timestamp)(&mut t) };
        (r == CUPTI_SUCCESS).then_some(t)
    }

    /// The chip's name (`GH100`), which the host API needs.
    pub fn chip_name(&self, device: usize) -> Result<String, CuptiError> {
        let mut p = GetChipNameParams::new();
        p.device_index = device;
        self.check("cuptiDeviceGetChipName", |f| {
            // SAFETY: a valid params struct; CUPTI writes a static string pointer.
            unsafe { (f.device_get_chip_name)(&mut p) }
        })?;
        if p.p_chip_name.is_null() {
            return Ok(String::new());
        }
        // SAFETY: NUL-terminated, owned by CUPTI for the process's life.
        Ok(unsafe { CStr::from_ptr(p.p_chip_name) }
            .to_string_lossy()
            .into_owned())
    }

    /// The counter availability image of `device` (which counters this configuration may use).
    pub fn counter_availability(&self, device: usize) -> Result<Vec<u8>, CuptiError> {
        let mut p = GetCounterAvailabilityParams::new();
        p.device_index = device;
        self.check("cuptiPmSamplingGetCounterAvailability", |f| {
            // SAFETY: a null image asks for its size only.
            unsafe { (f.get_counter_availability)(&mut p) }
        })?;
        let mut image = vec![0u8; p.image_size];
        p.p_image = image.as_mut_ptr();
        self.check("cuptiPmSamplingGetCounterAvailability", |f| {
            // SAFETY: the buffer holds image_size bytes, as CUPTI asked.
            unsafe { (f.get_counter_availability)(&mut p) }
        })?;
        Ok(image)
    }

    /// A host object for `chip`, for metric names, configs and evaluation.
    pub fn host(&self, chip: &str, availability: &[u8]) -> Result<Host, CuptiError> {
        let chip_c = CString::new(chip).unwrap_or_default();
        let mut p = HostInitializeParams::new();
        p.profiler_type = PROFILER_TYPE_PM_SAMPLING;
        p.p_chip_name = chip_c.as_ptr();
        p.p_counter_availability_image = if availability.is_empty() {
            std::ptr::null()
        } else {
            availability.as_ptr()
        };
        self.check("cuptiProfilerHostInitialize", |f| {
            // SAFETY: the chip name and image outlive the call; CUPTI copies what it keeps.
            unsafe { (f.host_initialize)(&mut p) }
        })?;
        Ok(Host {
            cupti: self.clone(),
            obj: p.p_host_object,
        })
    }

    /// Turn on PM sampling of `device` (a CUDA device index).
    pub fn sampler(&self, device: usize) -> Result<Sampler, CuptiError> {
        let mut p = PmEnableParams::new();
        p.device_index = device;
        self.check("cuptiPmSamplingEnable", |f| {
            // SAFETY: a valid params struct; CUPTI writes its object pointer.
            unsafe { (f.pm_enable)(&mut p) }
        })?;
        Ok(Sampler {
            cupti: self.clone(),
            obj: p.p_pm_sampling_object,
            started: false,
            device,
        })
    }
}

/// Pointers to NUL-terminated copies of `names`, valid while the returned CStrings live.
fn c_names(names: &[String]) -> (Vec<CString>, Vec<*const c_char>) {
    let owned: Vec<CString> = names
        .iter()
        .map(|n| CString::new(n.as_str()).unwrap_or_default())
        .collect();
    let ptrs = owned.iter().map(|c| c.as_ptr()).collect();
    (owned, ptrs)
}

/// A `CUpti_Profiler_Host_Object`: one config's worth of metrics, and their evaluation.
pub struct Host {
    cupti: Cupti,
    obj: *mut c_void,
}

impl Drop for Host {
    fn drop(&mut self) {
        let mut p = HostDeinitializeParams::new();
        p.p_host_object = self.obj;
        // SAFETY: the object came from cuptiProfilerHostInitialize and is freed once, here.
        unsafe { (self.cupti.lib.fns.host_deinitialize)(&mut p) };
    }
}

/// One metric of `p3lab counters`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MetricInfo {
    pub name: String,
    pub kind: String,
    pub hw_unit: String,
    pub dim_unit: String,
    pub description: String,
}

impl Host {
    /// The base metric names of one kind.
    pub fn base_metrics(&self, kind: MetricType) -> Result<Vec<String>, CuptiError> {
        let mut p = HostGetBaseMetricsParams::new();
        p.p_host_object = self.obj;
        p.metric_type = kind as i32;
        self.cupti.check("cuptiProfilerHostGetBaseMetrics", |f| {
            // SAFETY: a valid params struct; CUPTI writes a pointer to its own name array.
            unsafe { (f.host_get_base_metrics)(&mut p) }
        })?;
        let mut out = Vec::with_capacity(p.num_metrics);
        for i in 0..p.num_metrics {
            if p.pp_metric_names.is_null() {
                break;
            }
            // SAFETY: CUPTI's array holds num_metrics NUL-terminated strings owned by the host
            // object, which is alive.
            let s = unsafe { *p.pp_metric_names.add(i) };
            if !s.is_null() {
                // SAFETY: as above.
                out.push(unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned());
            }
        }
        Ok(out)
    }

    /// A metric's description and units.
    pub fn properties(&self, name: &str) -> Result<MetricInfo, CuptiError> {
        let c = CString::new(name).unwrap_or_default();
        let mut p = HostGetMetricPropertiesParams::new();
        p.p_host_object = self.obj;
        p.p_metric_name = c.as_ptr();
        self.cupti
            .check("cuptiProfilerHostGetMetricProperties", |f| {
                // SAFETY: the name outlives the call; CUPTI writes pointers to its own strings.
                unsafe { (f.host_get_metric_properties)(&mut p) }
            })?;
        let s = |q: *const c_char| {
            if q.is_null() {
                String::new()
            } else {
                // SAFETY: NUL-terminated strings owned by the host object.
                unsafe { CStr::from_ptr(q) }.to_string_lossy().into_owned()
            }
        };
        let kind = match p.metric_type {
            0 => MetricType::Counter,
            1 => MetricType::Ratio,
            _ => MetricType::Throughput,
        };
        Ok(MetricInfo {
            name: name.into(),
            kind: kind.label().into(),
            hw_unit: s(p.p_hw_unit),
            dim_unit: s(p.p_dim_unit),
            description: s(p.p_description),
        })
    }

    /// Add `names` to this object's config, then the config image and its pass count.
    pub fn config(&self, names: &[String]) -> Result<(Vec<u8>, usize), CuptiError> {
        let (_owned, ptrs) = c_names(names);
        let mut p = HostConfigAddMetricsParams::new();
        p.p_host_object = self.obj;
        p.pp_metric_names = ptrs.as_ptr();
        p.num_metrics = ptrs.len();
        self.cupti.check("cuptiProfilerHostConfigAddMetrics", |f| {
            // SAFETY: `ptrs` holds num_metrics valid C strings for the call.
            unsafe { (f.host_config_add_metrics)(&mut p) }
        })?;
        let mut s = HostGetConfigImageSizeParams::new();
        s.p_host_object = self.obj;
        self.cupti
            .check("cuptiProfilerHostGetConfigImageSize", |f| {
                // SAFETY: a valid params struct.
                unsafe { (f.host_get_config_image_size)(&mut s) }
            })?;
        let mut image = vec![0u8; s.config_image_size];
        let mut g = HostGetConfigImageParams::new();
        g.p_host_object = self.obj;
        g.config_image_size = image.len();
        g.p_config_image = image.as_mut_ptr();
        self.cupti.check("cuptiProfilerHostGetConfigImage", |f| {
            // SAFETY: the buffer holds config_image_size bytes.
            unsafe { (f.host_get_config_image)(&mut g) }
        })?;
        let mut n = HostGetNumOfPassesParams::new();
        n.config_image_size = image.len();
        n.p_config_image = image.as_mut_ptr();
        self.cupti.check("cuptiProfilerHostGetNumOfPasses", |f| {
            // SAFETY: the image is the one CUPTI just wrote, of that size.
            unsafe { (f.host_get_num_of_passes)(&mut n) }
        })?;
        Ok((image, n.num_of_passes))
    }

    /// The values of `names` in sample `index` of a counter data image.
    pub fn evaluate(
        &self,
        image: &[u8],
        index: usize,
        names: &[String],
    ) -> Result<Vec<f64>, CuptiError> {
        let (_owned, ptrs) = c_names(names);
        let mut values = vec![f64::NAN; names.len()];
        let mut p = HostEvaluateParams::new();
        p.p_host_object = self.obj;
        p.p_counter_data_image = image.as_ptr();
        p.counter_data_image_size = image.len();
        p.range_index = index;
        p.pp_metric_names = ptrs.as_ptr();
        p.num_metrics = ptrs.len();
        p.p_metric_values = values.as_mut_ptr();
        self.cupti
            .check("cuptiProfilerHostEvaluateToGpuValues", |f| {
                // SAFETY: the image, names and value buffer (num_metrics doubles) outlive the call.
                unsafe { (f.host_evaluate)(&mut p) }
            })?;
        Ok(values)
    }
}

/// A `CUpti_PmSampling_Object`: the device's sampler.
pub struct Sampler {
    cupti: Cupti,
    obj: *mut c_void,
    started: bool,
    device: usize,
}

impl Drop for Sampler {
    fn drop(&mut self) {
        if self.started {
            let _ = self.stop();
        }
        let mut p = PmObjectParams::new();
        p.p_pm_sampling_object = self.obj;
        // SAFETY: the object came from cuptiPmSamplingEnable and is disabled once, here.
        unsafe { (self.cupti.lib.fns.pm_disable)(&mut p) };
    }
}

/// One decode call's outcome.
pub struct Decoded {
    pub full: bool,
    pub overflow: bool,
}

impl Sampler {
    /// Disable this sampler and enable the device's anew (a fresh object, no config).
    pub fn renew(&mut self) -> Result<(), CuptiError> {
        if self.started {
            self.stop()?;
        }
        let mut d = PmObjectParams::new();
        d.p_pm_sampling_object = self.obj;
        // SAFETY: the object came from cuptiPmSamplingEnable and is disabled once, here; it is
        // replaced below before anything uses it again.
        unsafe { (self.cupti.lib.fns.pm_disable)(&mut d) };
        let mut p = PmEnableParams::new();
        p.device_index = self.device;
        let r = self.cupti.check("cuptiPmSamplingEnable", |f| {
            // SAFETY: a valid params struct; CUPTI writes its object pointer.
            unsafe { (f.pm_enable)(&mut p) }
        });
        // Disabled either way: a failed enable leaves a null object, which Drop passes to
        // cuptiPmSamplingDisable (it refuses it with an error code, nothing more).
        self.obj = p.p_pm_sampling_object;
        r
    }

    /// Load a one-pass config, sampling every `interval_ns` into a hardware buffer of
    /// `hw_buffer` bytes.
    pub fn set_config(
        &mut self,
        config: &[u8],
        interval_ns: u64,
        hw_buffer: usize,
    ) -> Result<(), CuptiError> {
        let mut p = PmSetConfigParams::new();
        p.p_pm_sampling_object = self.obj;
        p.config_size = config.len();
        p.p_config = config.as_ptr();
        p.hardware_buffer_size = hw_buffer;
        p.sampling_interval = interval_ns;
        p.trigger_mode = TRIGGER_GPU_TIME_INTERVAL;
        p.hw_buffer_append_mode = APPEND_KEEP_OLDEST;
        self.cupti.check("cuptiPmSamplingSetConfig", |f| {
            // SAFETY: the config image outlives the call; CUPTI copies it.
            unsafe { (f.pm_set_config)(&mut p) }
        })
    }

    /// A counter data image for `names`, holding up to `max_samples`, initialized.
    pub fn counter_data(&self, names: &[String], max_samples: u32) -> Result<Vec<u8>, CuptiError> {
        let (_owned, ptrs) = c_names(names);
        let mut p = PmGetCounterDataSizeParams::new();
        p.p_pm_sampling_object = self.obj;
        p.p_metric_names = ptrs.as_ptr();
        p.num_metrics = ptrs.len();
        p.max_samples = max_samples;
        self.cupti.check("cuptiPmSamplingGetCounterDataSize", |f| {
            // SAFETY: `ptrs` holds num_metrics valid C strings for the call.
            unsafe { (f.pm_get_counter_data_size)(&mut p) }
        })?;
        let mut image = vec![0u8; p.counter_data_size];
        self.reset(&mut image)?;
        Ok(image)
    }

    /// Empty a counter data image for the next decode.
    pub fn reset(&self, image: &mut [u8]) -> Result<(), CuptiError> {
        let mut p = PmCounterDataInitParams::new();
        p.p_pm_sampling_object = self.obj;
        p.counter_data_size = image.len();
        p.p_counter_data = image.as_mut_ptr();
        self.cupti
            .check("cuptiPmSamplingCounterDataImageInitialize", |f| {
                // SAFETY: the buffer holds counter_data_size bytes.
                unsafe { (f.pm_counter_data_init)(&mut p) }
            })
    }

    pub fn start(&mut self) -> Result<(), CuptiError> {
        let mut p = PmObjectParams::new();
        p.p_pm_sampling_object = self.obj;
        self.cupti.check("cuptiPmSamplingStart", |f| {
            // SAFETY: a live sampler object.
            unsafe { (f.pm_start)(&mut p) }
        })?;
        self.started = true;
        Ok(())
    }

    pub fn stop(&mut self) -> Result<(), CuptiError> {
        let mut p = PmObjectParams::new();
        p.p_pm_sampling_object = self.obj;
        self.started = false;
        self.cupti.check("cuptiPmSamplingStop", |f| {
            // SAFETY: a live sampler object.
            unsafe { (f.pm_stop)(&mut p) }
        })
    }

    /// Move samples from the hardware buffer into `image`.
    pub fn decode(&self, image: &mut [u8]) -> Result<Decoded, CuptiError> {
        let mut p = PmDecodeParams::new();
        p.p_pm_sampling_object = self.obj;
        p.p_counter_data_image = image.as_mut_ptr();
        p.counter_data_image_size = image.len();
        self.cupti.check("cuptiPmSamplingDecodeData", |f| {
            // SAFETY: the image buffer holds counter_data_image_size bytes.
            unsafe { (f.pm_decode)(&mut p) }
        })?;
        Ok(Decoded {
            full: p.decode_stop_reason == DECODE_COUNTER_DATA_FULL,
            overflow: p.overflow != 0,
        })
    }

    /// Completed samples in `image`.
    pub fn completed(&self, image: &[u8]) -> Result<usize, CuptiError> {
        let mut p = PmGetCounterDataInfoParams::new();
        p.p_counter_data_image = image.as_ptr();
        p.counter_data_image_size = image.len();
        self.cupti.check("cuptiPmSamplingGetCounterDataInfo", |f| {
            // SAFETY: the image and its size.
            unsafe { (f.pm_get_counter_data_info)(&mut p) }
        })?;
        Ok(p.num_completed_samples)
    }

    /// Sample `index`'s start and end, on CUPTI's clock (ns).
    pub fn sample_time(&self, image: &[u8], index: usize) -> Result<(u64, u64), CuptiError> {
        let mut p = PmGetSampleInfoParams::new();
        p.p_pm_sampling_object = self.obj;
        p.p_counter_data_image = image.as_ptr();
        p.counter_data_image_size = image.len();
        p.sample_index = index;
        self.cupti
            .check("cuptiPmSamplingCounterDataGetSampleInfo", |f| {
                // SAFETY: the image and its size.
                unsafe { (f.pm_get_sample_info)(&mut p) }
            })?;
        Ok((p.start_timestamp, p.end_timestamp))
    }
}

/// The CUDA device index whose UUID is `uuid` (Vulkan's `deviceUUID`, the same 16 bytes on
/// NVIDIA's driver), through the CUDA driver API; None without libcuda or without a match.
pub fn cuda_index_of(uuid: &[u8; 16]) -> Option<usize> {
    let cuda = open_global(Path::new("libcuda.so.1")).ok()?;
    type GetCount = unsafe extern "C" fn(*mut i32) -> i32;
    type GetDev = unsafe extern "C" fn(*mut i32, i32) -> i32;
    type GetUuid = unsafe extern "C" fn(*mut [u8; 16], i32) -> i32;
    // SAFETY: the CUDA driver API's signatures (cuda.h): cuDeviceGetCount(int*),
    // cuDeviceGet(CUdevice*, int), cuDeviceGetUuid(CUuuid*, CUdevice); `cuda` outlives them.
    let (count, get, get_uuid) = unsafe {
        (
            *cuda.get::<GetCount>(b"cuDeviceGetCount\0").ok()?,
            *cuda.get::<GetDev>(b"cuDeviceGet\0").ok()?,
            *cuda.get::<GetUuid>(b"cuDeviceGetUuid\0").ok()?,
        )
    };
    let mut n = 0i32;
    // SAFETY: writes one int; cuInit ran when CUPTI was loaded (an error leaves n at 0).
    if unsafe { count(&mut n) } != 0 {
        return None;
    }
    for i in 0..n {
        let mut dev = 0i32;
        let mut u = [0u8; 16];
        // SAFETY: each writes one value of the declared type.
        if unsafe { get(&mut dev, i) } == 0 && unsafe { get_uuid(&mut u, dev) } == 0 && &u == uuid {
            return Some(i as usize);
        }
    }
    None
}

/// CLOCK_REALTIME and CLOCK_MONOTONIC, in ns: the two host clocks the sample windows are
/// aligned with.
pub fn host_clocks() -> (i128, i128) {
    let read = |id| {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes one timespec; both clock ids exist on Linux.
        unsafe { libc::clock_gettime(id, &mut ts) };
        ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128
    };
    let r = read(libc::CLOCK_REALTIME);
    let m = read(libc::CLOCK_MONOTONIC);
    (r, m)
}

// The raw pointers are CUPTI's handles; CUPTI's profiler API may be called from any thread,
// and p3lab calls one object from one thread at a time (the runner's).
// SAFETY: see above: the objects are not tied to the creating thread.
unsafe impl Send for Host {}
// SAFETY: as for Host.
unsafe impl Send for Sampler {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_sizes_match_the_headers() {
        // CUPTI_PROFILER_STRUCT_SIZE: offsetof(last) + sizeof(last), on x86-64.
        assert_eq!(InitializeParams::new().struct_size, 16);
        assert_eq!(GetChipNameParams::new().struct_size, 32);
        assert_eq!(PmSetConfigParams::new().struct_size, 64);
        assert_eq!(PmDecodeParams::new().struct_size, 45);
        assert_eq!(PmGetCounterDataSizeParams::new().struct_size, 56);
        assert_eq!(PmGetSampleInfoParams::new().struct_size, 64);
        assert_eq!(HostInitializeParams::new().struct_size, 48);
        assert_eq!(HostEvaluateParams::new().struct_size, 72);
        assert_eq!(HostGetMetricPropertiesParams::new().struct_size, 60);
    }

    #[test]
    fn candidates_put_an_explicit_file_first_and_the_loader_last() {
        let c = candidates(Some(Path::new("/nonexistent/libcupti.so")));
        assert_eq!(c, vec![PathBuf::from("/nonexistent/libcupti.so")]);
        let c = candidates(None);
        assert_eq!(c.last(), Some(&PathBuf::from("libcupti.so.12")));
    }
}
