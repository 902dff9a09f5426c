//! Compute pipelines with subgroup-size control: what a pipeline is made of
//! ([`PipelineDesc`]), making and destroying it. Its descriptor sets are in bindings.rs, what
//! the driver says about the compiled pipeline (statistics, internal representations) in
//! stats.rs.
use super::context::Idle;
use crate::vk::Context;
use ash::vk;
use std::ffi::CString;

mod bindings;
mod stats;
pub use bindings::{Bindings, DescType};
pub use stats::{ExecStat, InternalRepr};

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

/// A compute pipeline with its layout (and its shader module, destroyed with it by
/// `destroy_pipeline`).
pub struct Pipeline {
    /// The `VkPipeline`, bound for the dispatch.
    pub pipeline: vk::Pipeline,
    /// Its layout: the case's set layouts and, when the shader has any, one push-constant range.
    pub layout: vk::PipelineLayout,
    module: vk::ShaderModule,
    /// Created with CAPTURE_STATISTICS and CAPTURE_INTERNAL_REPRESENTATIONS: only then may its
    /// executable statistics and representations be read.
    pub captured: bool,
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

/// What makes pipelines on a context's device from any thread (the check phase makes the
/// next variants' pipelines on worker threads while the current one runs, issue 42):
/// vkCreateShaderModule, vkCreatePipelineLayout and vkCreateComputePipelines without a
/// pipeline cache need no host synchronization, so it holds the device's function table and
/// nothing else of the context. Pipelines it made are destroyed by that context.
#[derive(Clone)]
pub struct PipelineMaker {
    device: ash::Device,
}

impl PipelineMaker {
    /// The device the pipelines are made on (to tell whether the context it came from is the
    /// runner's context still).
    pub fn device(&self) -> vk::Device {
        self.device.handle()
    }

    /// [`Context::create_pipeline`], on this thread.
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
                    captured: d.capture_statistics,
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
}

impl Context {
    /// Create the shader module, pipeline layout and compute pipeline `d` describes (with the
    /// subgroup request and specialization constants set on the stage).
    pub fn create_pipeline(&self, d: &PipelineDesc) -> anyhow::Result<Pipeline> {
        self.pipeline_maker().create_pipeline(d)
    }

    /// A [`PipelineMaker`] on this context's device, for another thread.
    pub fn pipeline_maker(&self) -> PipelineMaker {
        PipelineMaker {
            device: self.device.clone(),
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
}
