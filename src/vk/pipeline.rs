//! Descriptor sets, compute pipelines with subgroup-size control, and executable statistics.
use super::context::Idle;
use crate::vk::resources::GpuResource;
use crate::vk::Context;
use ash::vk;
use std::ffi::CString;

/// How a pipeline's subgroup size is set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubgroupMode {
    /// No flags: the driver picks (and, for SPIR-V 1.6, may vary it).
    Default,
    /// VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT only.
    Full,
    /// VkPipelineShaderStageRequiredSubgroupSizeCreateInfo, with full subgroups when `full`.
    Required {
        /// Lanes per subgroup (`requiredSubgroupSize`): a power of two within the device's
        /// `minSubgroupSize`..=`maxSubgroupSize`.
        size: u32,
        /// Also set REQUIRE_FULL_SUBGROUPS.
        full: bool,
    },
}

/// Descriptor types p3lab binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescType {
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE` (a storage image, `image2D`).
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER` (a sampled image, `sampler2D`).
    SampledImage,
}

impl DescType {
    fn vk(self) -> vk::DescriptorType {
        match self {
            DescType::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            DescType::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
            DescType::SampledImage => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        }
    }
}

/// Descriptor set layouts (one per set number, empty where unused), a pool, and the written sets.
pub struct Bindings {
    /// One layout per set number 0..=highest used, empty for a set nothing binds; pipeline layouts
    /// are made over these.
    pub layouts: Vec<vk::DescriptorSetLayout>,
    /// The descriptor sets, by set number, written with the resources.
    pub sets: Vec<vk::DescriptorSet>,
    pool: vk::DescriptorPool,
}

/// A compute pipeline with its layout (and its shader module, destroyed with it by
/// `destroy_pipeline`).
pub struct Pipeline {
    /// The `VkPipeline`, bound for the dispatch.
    pub pipeline: vk::Pipeline,
    /// Its layout: the case's set layouts and, when the shader has any, one push-constant range.
    pub layout: vk::PipelineLayout,
    module: vk::ShaderModule,
}

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

/// What [`Context::create_pipeline`] builds: one compute pipeline from one SPIR-V module.
pub struct PipelineDesc<'a> {
    /// The pipeline's name, for logs (`p3lab-l2-evict`, or the variant's name).
    pub name: &'a str,
    /// The SPIR-V module, as 32-bit words.
    pub spirv: &'a [u32],
    /// The compute entry point's name in the module.
    pub entry: &'a str,
    /// The set layouts of the pipeline layout, in set order.
    pub set_layouts: &'a [vk::DescriptorSetLayout],
    /// Size in bytes of the push-constant range from offset 0; 0: no range.
    pub push_bytes: u32,
    /// (SpecId, 4 bytes of value)
    pub spec: &'a [(u32, [u8; 4])],
    /// How the subgroup size is set.
    pub subgroup: SubgroupMode,
    /// Create with CAPTURE_STATISTICS and CAPTURE_INTERNAL_REPRESENTATIONS, so executable
    /// statistics and `--dump-ir` can be read back.
    pub capture_statistics: bool,
}

impl Context {
    /// Layouts and sets for `entries`: (set, binding, type, resource).
    pub fn create_bindings(
        &self,
        entries: &[(u32, u32, u32, DescType, &GpuResource)],
    ) -> anyhow::Result<Bindings> {
        let nsets = entries.iter().map(|e| e.0 + 1).max().unwrap_or(0) as usize;
        let mut layouts = Vec::with_capacity(nsets);
        for set in 0..nsets as u32 {
            let mut b: Vec<vk::DescriptorSetLayoutBinding> = Vec::new();
            for e in entries.iter().filter(|e| e.0 == set) {
                match b.iter_mut().find(|x| x.binding == e.1) {
                    Some(x) => x.descriptor_count = x.descriptor_count.max(e.2 + 1),
                    None => b.push(
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(e.1)
                            .descriptor_type(e.3.vk())
                            .descriptor_count(e.2 + 1)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE),
                    ),
                }
            }
            let ci = vk::DescriptorSetLayoutCreateInfo::default().bindings(&b);
            // SAFETY: valid create info; destroyed in destroy_bindings.
            layouts.push(unsafe { self.device.create_descriptor_set_layout(&ci, None) }?);
        }
        let mut sizes = Vec::new();
        for t in [
            DescType::StorageBuffer,
            DescType::StorageImage,
            DescType::SampledImage,
        ] {
            let n = entries.iter().filter(|e| e.3 == t).count() as u32;
            if n > 0 {
                sizes.push(vk::DescriptorPoolSize {
                    ty: t.vk(),
                    descriptor_count: n,
                });
            }
        }
        let pci = vk::DescriptorPoolCreateInfo::default()
            .max_sets(nsets.max(1) as u32)
            .pool_sizes(&sizes);
        // SAFETY: valid create info.
        let pool = unsafe { self.device.create_descriptor_pool(&pci, None) }?;
        let sets = if nsets > 0 {
            let ai = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts);
            // SAFETY: the pool was sized for exactly these sets.
            unsafe { self.device.allocate_descriptor_sets(&ai) }?
        } else {
            vec![]
        };
        for (set, binding, index, ty, res) in entries {
            let buf_info;
            let img_info;
            let mut w = vk::WriteDescriptorSet::default()
                .dst_set(sets[*set as usize])
                .dst_binding(*binding)
                .dst_array_element(*index)
                .descriptor_type(ty.vk());
            match res {
                GpuResource::Buffer(b) => {
                    buf_info = [vk::DescriptorBufferInfo {
                        buffer: b.buffer,
                        offset: 0,
                        range: vk::WHOLE_SIZE,
                    }];
                    w = w.buffer_info(&buf_info);
                }
                GpuResource::Image(i) => {
                    img_info = [vk::DescriptorImageInfo {
                        sampler: i.sampler.unwrap_or_default(),
                        image_view: i.view,
                        image_layout: vk::ImageLayout::GENERAL,
                    }];
                    w = w.image_info(&img_info);
                }
            }
            // SAFETY: the set is not in use by any pending command buffer; handles are alive.
            unsafe { self.device.update_descriptor_sets(&[w], &[]) };
        }
        Ok(Bindings {
            layouts,
            sets,
            pool,
        })
    }

    /// Point (set, binding, element 0), a storage buffer in `b`, at another buffer. Call it
    /// only while no submitted command buffer uses the set (after a wait for idle).
    pub fn rebind_buffer(
        &self,
        b: &Bindings,
        set: u32,
        binding: u32,
        res: &GpuResource,
        idle: &Idle,
    ) -> anyhow::Result<()> {
        anyhow::ensure!(
            matches!(res, GpuResource::Buffer(_)),
            "rebind_buffer: set {set} binding {binding} needs a buffer"
        );
        self.write_descriptor(b, (set, binding, 0), DescType::StorageBuffer, res, idle)
    }

    /// Point the descriptor (set, binding, array element) of `b`, of type `ty`, at `res`
    /// (a buffer for storage buffers, an image with its sampler for images). `_idle`: no
    /// submitted command buffer uses the set while it is rewritten.
    pub fn write_descriptor(
        &self,
        b: &Bindings,
        (set, binding, index): (u32, u32, u32),
        ty: DescType,
        res: &GpuResource,
        _idle: &Idle,
    ) -> anyhow::Result<()> {
        let Some(&dst) = b.sets.get(set as usize) else {
            anyhow::bail!("write_descriptor: no set {set}");
        };
        let buf_info;
        let img_info;
        let mut w = vk::WriteDescriptorSet::default()
            .dst_set(dst)
            .dst_binding(binding)
            .dst_array_element(index)
            .descriptor_type(ty.vk());
        match (res, ty) {
            (GpuResource::Buffer(buf), DescType::StorageBuffer) => {
                buf_info = [vk::DescriptorBufferInfo {
                    buffer: buf.buffer,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }];
                w = w.buffer_info(&buf_info);
            }
            (GpuResource::Image(i), DescType::StorageImage | DescType::SampledImage) => {
                img_info = [vk::DescriptorImageInfo {
                    sampler: i.sampler.unwrap_or_default(),
                    image_view: i.view,
                    image_layout: vk::ImageLayout::GENERAL,
                }];
                w = w.image_info(&img_info);
            }
            _ => anyhow::bail!(
                "write_descriptor: set {set} binding {binding}: the resource does not fit {ty:?}"
            ),
        }
        // SAFETY: `_idle` proves no pending submission uses the set; the handles are alive and
        // of the descriptor's type (matched above); the set was allocated with this binding.
        unsafe { self.device.update_descriptor_sets(&[w], &[]) };
        Ok(())
    }

    /// Destroy the descriptor pool (freeing the sets) and the set layouts; `_idle`: no pending
    /// submission uses them.
    pub fn destroy_bindings(&self, b: Bindings, _idle: &Idle) {
        // SAFETY: `_idle` proves no pending submission uses the sets; they are freed with
        // their pool, and the layouts after it.
        unsafe {
            self.device.destroy_descriptor_pool(b.pool, None);
            for l in b.layouts {
                self.device.destroy_descriptor_set_layout(l, None);
            }
        }
    }

    /// Create the shader module, pipeline layout and compute pipeline `d` describes (with the
    /// subgroup request and specialization constants set on the stage).
    pub fn create_pipeline(&self, d: &PipelineDesc) -> anyhow::Result<Pipeline> {
        // Before anything is created: an early return here leaks nothing.
        let entry = CString::new(d.entry)
            .map_err(|_| anyhow::anyhow!("entry point name `{}` holds a NUL byte", d.entry))?;
        let mci = vk::ShaderModuleCreateInfo::default().code(d.spirv);
        // SAFETY: the SPIR-V came from shaderc and passed reflection; destroyed in destroy_pipeline.
        let module = unsafe { self.device.create_shader_module(&mci, None) }?;
        let ranges = [vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: d.push_bytes,
        }];
        let mut lci = vk::PipelineLayoutCreateInfo::default().set_layouts(d.set_layouts);
        if d.push_bytes > 0 {
            lci = lci.push_constant_ranges(&ranges);
        }
        // SAFETY: valid create info with live set layouts.
        let layout = match unsafe { self.device.create_pipeline_layout(&lci, None) } {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: the module is unused.
                unsafe { self.device.destroy_shader_module(module, None) };
                return Err(e.into());
            }
        };
        let entries: Vec<vk::SpecializationMapEntry> = d
            .spec
            .iter()
            .enumerate()
            .map(|(i, (id, _))| vk::SpecializationMapEntry {
                constant_id: *id,
                offset: (i * 4) as u32,
                size: 4,
            })
            .collect();
        let data: Vec<u8> = d.spec.iter().flat_map(|(_, v)| *v).collect();
        let spec_info = vk::SpecializationInfo::default()
            .map_entries(&entries)
            .data(&data);
        let mut req = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default();
        let mut flags = vk::PipelineShaderStageCreateFlags::empty();
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(&entry)
            .specialization_info(&spec_info);
        match d.subgroup {
            SubgroupMode::Default => {}
            SubgroupMode::Full => {
                flags |= vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS
            }
            SubgroupMode::Required { size, full } => {
                req = req.required_subgroup_size(size);
                if full {
                    flags |= vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS;
                }
                stage = stage.push_next(&mut req);
            }
        }
        stage = stage.flags(flags);
        let pflags = if d.capture_statistics {
            vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR
                | vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR
        } else {
            vk::PipelineCreateFlags::empty()
        };
        let ci = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout)
            .flags(pflags);
        // SAFETY: the create info and its chain point at locals alive across the call; the caller
        // has checked the subgroup request against the device's limits before asking for it.
        let r = unsafe {
            self.device
                .create_compute_pipelines(vk::PipelineCache::null(), &[ci], None)
        };
        match r {
            Ok(p) => {
                tracing::debug!("pipeline `{}` created", d.name);
                Ok(Pipeline {
                    pipeline: p[0],
                    layout,
                    module,
                })
            }
            Err((_, e)) => {
                // SAFETY: nothing uses these yet.
                unsafe {
                    self.device.destroy_pipeline_layout(layout, None);
                    self.device.destroy_shader_module(module, None);
                }
                Err(anyhow::anyhow!("vkCreateComputePipelines failed: {e}"))
            }
        }
    }

    /// `_idle`: no pending submission uses the pipeline.
    pub fn destroy_pipeline(&self, p: Pipeline, _idle: &Idle) {
        // SAFETY: called after the queue is idle.
        unsafe {
            self.device.destroy_pipeline(p.pipeline, None);
            self.device.destroy_pipeline_layout(p.layout, None);
            self.device.destroy_shader_module(p.module, None);
        }
    }

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
    /// representation name, description, text or bytes); empty without the extension.
    pub fn internal_representations(&self, p: &Pipeline) -> anyhow::Result<Vec<InternalRepr>> {
        let Some(ep) = &self.exec_props else {
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

    /// Every statistic of every executable of the pipeline (empty without the extension).
    pub fn executable_statistics(&self, p: &Pipeline) -> anyhow::Result<Vec<ExecStat>> {
        let Some(ep) = &self.exec_props else {
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
