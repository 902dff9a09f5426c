//! The host side of CUPTI's profiler: metric names and properties, one-pass configs, and
//! evaluating a sample of a counter data image.
use super::*;

/// Pointers to NUL-terminated copies of `names`, valid while the returned CStrings live.
pub(super) fn c_names(names: &[String]) -> (Vec<CString>, Vec<*const c_char>) {
    let owned: Vec<CString> = names
        .iter()
        .map(|n| CString::new(n.as_str()).unwrap_or_default())
        .collect();
    let ptrs = owned.iter().map(|c| c.as_ptr()).collect();
    (owned, ptrs)
}

/// A `CUpti_Profiler_Host_Object`: one config's worth of metrics, and their evaluation.
pub struct Host {
    pub(super) cupti: Cupti,
    pub(super) obj: *mut c_void,
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
    /// The base metric's name as CUPTI lists it (e.g. `sm__throughput`).
    pub name: String,
    /// `counter`, `ratio` or `throughput` ([`MetricType::label`]).
    pub kind: String,
    /// The hardware unit CUPTI gives for it; empty when it gives none.
    pub hw_unit: String,
    /// The dimension unit CUPTI gives for it (what its values count); empty when it gives none.
    pub dim_unit: String,
    /// CUPTI's description of the metric; empty when it gives none.
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

// The raw pointers are CUPTI's handles; CUPTI's profiler API may be called from any thread,
// and p3lab calls one object from one thread at a time (the runner's).
// SAFETY: see above: the objects are not tied to the creating thread.
unsafe impl Send for Host {}
// SAFETY: as for Host.
