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

mod ffi;
mod host;
mod sampler;
use ffi::*;
pub use ffi::{MetricType, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, DECODE_COUNTER_DATA_FULL};
pub use host::{Host, MetricInfo};
pub use sampler::{Decoded, Sampler};

/// A failed CUPTI call: which, its code and CUPTI's name for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call} failed: {name} ({code})")]
pub struct CuptiError {
    /// The CUPTI function that failed (`cuptiPmSamplingStart`, ...).
    pub call: &'static str,
    /// Its `CUptiResult` code.
    pub code: i32,
    /// CUPTI's name for the code (`cuptiGetResultString`), else `CUPTI error N`.
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
    /// The library file that was loaded (one of [`candidates`]); messages name it, and the
    /// hardware-counter status records it as `library`.
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
    // RTLD_NODELETE: dropping the handle never unmaps the library. cuInit and CUPTI start
    // threads of their own that outlive the profiler's deinitialization; unmapped under them
    // they crash the process (SIGSEGV) moments later, wherever p3lab then is: an H200 run
    // died so while printing its summary, and `p3lab peak` as its second run started.
    // SAFETY: loading a shared library runs its initializers; CUPTI's, libnvperf's and
    // libcuda's are NVIDIA's own and set up only their internal state. p3lab passes no
    // callbacks into them here.
    unsafe { Library::open(Some(p), RTLD_NOW | RTLD_GLOBAL | libc::RTLD_NODELETE) }.map(Into::into)
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
