//! The device's PM sampler: a config, start and stop, decoding into a counter data image, and
//! each sample's time.
use super::host::c_names;
use super::*;

/// A `CUpti_PmSampling_Object`: the device's sampler.
pub struct Sampler {
    pub(super) cupti: Cupti,
    pub(super) obj: *mut c_void,
    pub(super) started: bool,
    pub(super) device: usize,
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
    /// Decoding stopped because the counter-data image is full
    /// (`CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL`): reset it and decode again.
    pub full: bool,
    /// The hardware buffer overflowed: samples were lost (the oldest are kept).
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

    /// Start sampling (`cuptiPmSamplingStart`).
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

    /// Stop sampling (`cuptiPmSamplingStop`); the sampler counts as stopped even when the call
    /// fails.
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

// SAFETY: as for Host (host.rs): CUPTI's handles are not tied to the thread that made them,
// and p3lab calls one object from one thread at a time.
unsafe impl Send for Sampler {}
