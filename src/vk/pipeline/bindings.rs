//! Descriptor sets: one layout per set number, a pool, and the sets written with the case's
//! resources (and rewritten when a buffer moves).
use crate::vk::context::Idle;
use crate::vk::resources::GpuResource;
use crate::vk::Context;
use ash::vk;

/// Descriptor types p3lab binds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DescType {
    /// `VK_DESCRIPTOR_TYPE_STORAGE_BUFFER`.
    StorageBuffer,
    /// `VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER` (a `uniform` block, a `cbuffer`).
    UniformBuffer,
    /// `VK_DESCRIPTOR_TYPE_STORAGE_IMAGE` (a storage image, `image2D`).
    StorageImage,
    /// `VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER` (a sampled image, `sampler2D`).
    SampledImage,
}

impl DescType {
    fn vk(self) -> vk::DescriptorType {
        match self {
            DescType::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            DescType::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
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
            DescType::UniformBuffer,
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
            (GpuResource::Buffer(buf), DescType::StorageBuffer | DescType::UniformBuffer) => {
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
}
