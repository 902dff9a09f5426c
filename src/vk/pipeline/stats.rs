//! What the driver says about a compiled pipeline: VK_KHR_pipeline_executable_properties'
//! statistics and internal representations, and VK_AMD_shader_info's statistics and
//! disassembly.
use super::Pipeline;
use crate::vk::Context;
use ash::vk;

/// One statistic of one pipeline executable, as the driver reports it.
#[derive(Debug, Clone)]
pub struct ExecStat {
    /// Name of the pipeline executable it belongs to, as the driver gives it.
    pub executable: String,
    /// The statistic's name as the driver gives it (e.g. NVIDIA's `Local Memory Size`); metric
    /// names are built from it.
    pub name: String,
    /// The driver's description of the statistic.
    pub description: String,
    /// Its value, converted to f64 whatever its format (NaN for a format p3lab does not know).
    pub value: f64,
    /// The driver's format of the value: `bool32`, `int64`, `uint64`, `float64`, or
    /// `unknown` for a format p3lab does not know.
    pub format: &'static str,
}

/// One internal representation of a pipeline executable (VK_KHR_pipeline_executable_properties).
pub struct InternalRepr {
    /// The executable's name as the driver gives it.
    pub executable: String,
    /// The representation's name (`--dump-ir` puts it in the file name).
    pub name: String,
    /// The driver's description of the representation.
    pub description: String,
    /// Text (NUL terminator cut off; dumped as `.txt`), else binary (`.bin`).
    pub is_text: bool,
    /// The representation's bytes, as the driver returned them.
    pub data: Vec<u8>,
}

impl Context {
    /// VK_AMD_shader_info's statistics of the pipeline's compute shader (None without the
    /// extension).
    pub fn amd_shader_statistics(
        &self,
        p: &Pipeline,
    ) -> anyhow::Result<Option<vk::ShaderStatisticsInfoAMD>> {
        let Some(si) = &self.shader_info else {
            return Ok(None);
        };
        let mut stats = vk::ShaderStatisticsInfoAMD::default();
        let mut size = std::mem::size_of::<vk::ShaderStatisticsInfoAMD>();
        // SAFETY: the extension is enabled on this device; the pipeline is a live compute
        // pipeline of it; `size` is the byte size of `stats`, which outlives the call and is
        // written as a VkShaderStatisticsInfoAMD, as the spec defines for this info type.
        let r = unsafe {
            (si.fp().get_shader_info_amd)(
                self.device.handle(),
                p.pipeline,
                vk::ShaderStageFlags::COMPUTE,
                vk::ShaderInfoTypeAMD::STATISTICS,
                &mut size,
                (&mut stats as *mut vk::ShaderStatisticsInfoAMD).cast(),
            )
        };
        match r {
            vk::Result::SUCCESS => Ok(Some(stats)),
            e => Err(anyhow::anyhow!("vkGetShaderInfoAMD(STATISTICS): {e}")),
        }
    }

    /// VK_AMD_shader_info's disassembly of the pipeline's compute shader (None without the
    /// extension).
    pub fn amd_disassembly(&self, p: &Pipeline) -> anyhow::Result<Option<String>> {
        let Some(si) = &self.shader_info else {
            return Ok(None);
        };
        let mut size = 0usize;
        // SAFETY: as above; a null pInfo asks for the size only.
        let r = unsafe {
            (si.fp().get_shader_info_amd)(
                self.device.handle(),
                p.pipeline,
                vk::ShaderStageFlags::COMPUTE,
                vk::ShaderInfoTypeAMD::DISASSEMBLY,
                &mut size,
                std::ptr::null_mut(),
            )
        };
        if r != vk::Result::SUCCESS {
            anyhow::bail!("vkGetShaderInfoAMD(DISASSEMBLY) size: {r}");
        }
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` holds `size` bytes, as the driver asked for.
        let r = unsafe {
            (si.fp().get_shader_info_amd)(
                self.device.handle(),
                p.pipeline,
                vk::ShaderStageFlags::COMPUTE,
                vk::ShaderInfoTypeAMD::DISASSEMBLY,
                &mut size,
                buf.as_mut_ptr().cast(),
            )
        };
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            anyhow::bail!("vkGetShaderInfoAMD(DISASSEMBLY): {r}");
        }
        buf.truncate(size);
        let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        Ok(Some(String::from_utf8_lossy(&buf[..end]).into_owned()))
    }

    /// The internal representations of every executable of the pipeline, as (executable name,
    /// representation name, description, text or bytes); empty without the extension or where
    /// the pipeline was not created to capture them.
    pub fn internal_representations(&self, p: &Pipeline) -> anyhow::Result<Vec<InternalRepr>> {
        let Some(ep) = self.exec_props.as_ref().filter(|_| p.captured) else {
            return Ok(vec![]);
        };
        let info = vk::PipelineInfoKHR::default().pipeline(p.pipeline);
        // SAFETY: the pipeline was created with CAPTURE_INTERNAL_REPRESENTATIONS on a device with
        // pipelineExecutableInfo enabled.
        let execs = unsafe { ep.get_pipeline_executable_properties(&info) }?;
        let mut out = Vec::new();
        for (i, e) in execs.iter().enumerate() {
            let executable = e
                .name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            let ei = vk::PipelineExecutableInfoKHR::default()
                .pipeline(p.pipeline)
                .executable_index(i as u32);
            // SAFETY: the index is within the count just returned; a null array asks for the count.
            let n = unsafe {
                let mut n = 0u32;
                (ep.fp().get_pipeline_executable_internal_representations_khr)(
                    self.device.handle(),
                    &ei,
                    &mut n,
                    std::ptr::null_mut(),
                )
                .result()?;
                n
            };
            let mut reprs =
                vec![vk::PipelineExecutableInternalRepresentationKHR::default(); n as usize];
            // SAFETY: `reprs` has room for `n` structures with null data: the driver fills in
            // each one's name, description and data size.
            unsafe {
                let mut n2 = n;
                (ep.fp().get_pipeline_executable_internal_representations_khr)(
                    self.device.handle(),
                    &ei,
                    &mut n2,
                    reprs.as_mut_ptr(),
                )
                .result()?;
                reprs.truncate(n2 as usize);
            }
            let mut buffers: Vec<Vec<u8>> = reprs.iter().map(|r| vec![0u8; r.data_size]).collect();
            for (r, b) in reprs.iter_mut().zip(&mut buffers) {
                r.p_data = b.as_mut_ptr().cast();
            }
            // SAFETY: every structure now points at a buffer of its own data_size bytes,
            // alive until after the call.
            let r = unsafe {
                let mut n3 = reprs.len() as u32;
                (ep.fp().get_pipeline_executable_internal_representations_khr)(
                    self.device.handle(),
                    &ei,
                    &mut n3,
                    reprs.as_mut_ptr(),
                )
            };
            if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
                anyhow::bail!("vkGetPipelineExecutableInternalRepresentationsKHR: {r}");
            }
            for (r, mut data) in reprs.iter().zip(buffers) {
                data.truncate(r.data_size);
                if r.is_text == vk::TRUE {
                    let end = data.iter().position(|b| *b == 0).unwrap_or(data.len());
                    data.truncate(end);
                }
                out.push(InternalRepr {
                    executable: executable.clone(),
                    name: r
                        .name_as_c_str()
                        .map(|c| c.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    description: r
                        .description_as_c_str()
                        .map(|c| c.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    is_text: r.is_text == vk::TRUE,
                    data,
                });
            }
        }
        Ok(out)
    }

    /// Every statistic of every executable of the pipeline (empty without the extension, or
    /// where the pipeline was not created to capture them).
    pub fn executable_statistics(&self, p: &Pipeline) -> anyhow::Result<Vec<ExecStat>> {
        let Some(ep) = self.exec_props.as_ref().filter(|_| p.captured) else {
            return Ok(vec![]);
        };
        let info = vk::PipelineInfoKHR::default().pipeline(p.pipeline);
        // SAFETY: the pipeline was created with CAPTURE_STATISTICS on a device with
        // pipelineExecutableInfo enabled.
        let execs = unsafe { ep.get_pipeline_executable_properties(&info) }?;
        let mut out = Vec::new();
        for (i, e) in execs.iter().enumerate() {
            let ename = e
                .name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            let ei = vk::PipelineExecutableInfoKHR::default()
                .pipeline(p.pipeline)
                .executable_index(i as u32);
            // SAFETY: index is within the count just returned.
            let stats = unsafe { ep.get_pipeline_executable_statistics(&ei) }?;
            for s in stats {
                // SAFETY: the union member read matches the format the driver reported.
                let (value, format) = unsafe {
                    match s.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                            (s.value.b32 as f64, "bool32")
                        }
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                            (s.value.i64 as f64, "int64")
                        }
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                            (s.value.u64 as f64, "uint64")
                        }
                        vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                            (s.value.f64, "float64")
                        }
                        _ => (f64::NAN, "unknown"),
                    }
                };
                out.push(ExecStat {
                    executable: ename.clone(),
                    name: s
                        .name_as_c_str()
                        .map(|c| c.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    description: s
                        .description_as_c_str()
                        .map(|c| c.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    value,
                    format,
                });
            }
        }
        Ok(out)
    }
}
