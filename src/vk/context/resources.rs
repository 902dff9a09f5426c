//! Buffers and 2D images in device memory through gpu-allocator, with staged upload and read-back.
use super::Idle;
use crate::vk::Context;
use anyhow::Context as _;
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

/// A buffer and its memory (through gpu-allocator), freed by `destroy_buffer`.
pub struct Buffer {
    /// The `VkBuffer`.
    pub buffer: vk::Buffer,
    /// Size in bytes, as asked for at creation.
    pub size: u64,
    /// How it was made, so that [`Context::relocate`] can make another like it.
    pub usage: vk::BufferUsageFlags,
    /// Device-local (GPU only) or host-visible (staging, read-back), as gpu-allocator names it.
    pub location: MemoryLocation,
    pub(super) alloc: Option<Allocation>,
}

impl Buffer {
    /// The buffer's bytes as the host sees them, for a host-visible (mapped) buffer; None for a
    /// device-local one. Read only after the GPU work that wrote it has finished and made its
    /// writes visible to the host (a barrier to `HOST_READ`, then the fence).
    pub fn mapped(&self) -> Option<&[u8]> {
        self.alloc.as_ref().and_then(|a| a.mapped_slice())
    }

    /// As [`Buffer::mapped`], writable: for the host to reset what the GPU will write next.
    pub fn mapped_mut(&mut self) -> Option<&mut [u8]> {
        self.alloc.as_mut().and_then(|a| a.mapped_slice_mut())
    }
}

/// A 2-D image (one mip level, one layer, GENERAL layout) with its view, and its sampler when
/// sampled; freed by `destroy_image`.
pub struct Image {
    /// The `VkImage`.
    pub image: vk::Image,
    /// Its view over the one colour level and layer.
    pub view: vk::ImageView,
    /// A sampler (clamp to edge, the filter `desc.linear_filter` picks) when made for sampling;
    /// None for a storage image.
    pub sampler: Option<vk::Sampler>,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Bytes per texel, all channels together: uploads and read-backs are tightly packed by it.
    pub texel_bytes: u32,
    /// How it was made, so that [`Context::relocate`] can make another like it.
    pub desc: ImageDesc,
    alloc: Option<Allocation>,
}

/// A resource on the device.
pub enum GpuResource {
    /// A buffer.
    Buffer(Buffer),
    /// A 2-D image.
    Image(Image),
}

/// What p3lab needs to know to create an image.
#[derive(Debug, Clone, Copy)]
pub struct ImageDesc {
    /// The Vulkan format (`R32G32B32A32_SFLOAT`, ...), from the scenario's image format.
    pub format: vk::Format,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// Bytes per texel, all channels together.
    pub texel_bytes: u32,
    /// Also made for sampling, with a sampler (`usage = "sampled"`); else storage only.
    pub sampled: bool,
    /// The sampler filters linearly (`filter = "linear"`), else nearest; only with `sampled`.
    pub linear_filter: bool,
}

/// Where a resource's memory is: the `VkDeviceMemory` handle (as its raw value), the offset
/// and size in it, and whether the memory is the resource's own (run.json `placements`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Placed {
    /// The `VkDeviceMemory` handle's raw value: resources with the same value share one memory
    /// object.
    pub memory: u64,
    /// Offset in bytes of the resource in that memory.
    pub offset: u64,
    /// Size in bytes of its allocation (at least the resource's size).
    pub size: u64,
    /// The memory is the resource's own (a dedicated allocation), not a block shared through
    /// gpu-allocator.
    pub dedicated: bool,
}

/// Where one resource sat in a placement (run.json `rounds[].placements[].resources`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlacedResource {
    /// The resource's name in the scenario.
    pub name: String,
    /// Its memory, offset and size (flattened into the JSON object).
    #[serde(flatten)]
    pub at: Placed,
}

fn placed(a: &Option<Allocation>) -> Option<Placed> {
    a.as_ref().map(|a| {
        use ash::vk::Handle as _;
        // SAFETY: only the handle's value is read, to be recorded; nothing is bound to it,
        // allocated from it or freed through it, so the allocation keeps sole ownership.
        let memory = unsafe { a.memory() }.as_raw();
        Placed {
            memory,
            offset: a.offset(),
            size: a.size(),
            dedicated: a.is_dedicated(),
        }
    })
}

impl GpuResource {
    /// Where its memory is (None for a resource without an allocation).
    pub fn placed(&self) -> Option<Placed> {
        match self {
            GpuResource::Buffer(b) => placed(&b.alloc),
            GpuResource::Image(i) => placed(&i.alloc),
        }
    }
}

fn is_oom(e: &gpu_allocator::AllocationError) -> bool {
    matches!(e, gpu_allocator::AllocationError::OutOfMemory)
}

impl Context {
    /// A buffer in `location`; device-local ones get storage and transfer usage.
    pub fn create_buffer(
        &self,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
    ) -> anyhow::Result<Buffer> {
        self.create_buffer_in(name, size, usage, location, false)
    }

    /// As [`Context::create_buffer`]; `dedicated`: in a `VkDeviceMemory` of its own (a new
    /// allocation from the driver, as a new process makes), not in one of gpu-allocator's
    /// shared blocks.
    pub fn create_buffer_in(
        &self,
        name: &str,
        size: u64,
        usage: vk::BufferUsageFlags,
        location: MemoryLocation,
        dedicated: bool,
    ) -> anyhow::Result<Buffer> {
        let ci = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info; the buffer is destroyed in destroy_buffer before the device.
        let buffer = unsafe { self.device.create_buffer(&ci, None) }
            .with_context(|| format!("creating buffer `{name}` of {size} bytes"))?;
        // SAFETY: the buffer was just created on this device.
        let requirements = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let alloc =
            self.allocator
                .lock()
                .expect("allocator lock")
                .allocate(&AllocationCreateDesc {
                    name,
                    requirements,
                    location,
                    linear: true,
                    allocation_scheme: if dedicated {
                        AllocationScheme::DedicatedBuffer(buffer)
                    } else {
                        AllocationScheme::GpuAllocatorManaged
                    },
                });
        let alloc = match alloc {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: the buffer is unused and unbound.
                unsafe { self.device.destroy_buffer(buffer, None) };
                if is_oom(&e) {
                    anyhow::bail!("out of device memory for buffer `{name}` ({size} bytes)");
                }
                return Err(e)
                    .with_context(|| format!("allocating buffer `{name}` ({size} bytes)"));
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is not bound elsewhere.
        unsafe {
            self.device
                .bind_buffer_memory(buffer, alloc.memory(), alloc.offset())
        }?;
        Ok(Buffer {
            buffer,
            size,
            usage,
            location,
            alloc: Some(alloc),
        })
    }

    /// Free a buffer and its memory; `_idle`: no pending submission uses it.
    pub fn destroy_buffer(&self, mut b: Buffer, _idle: &Idle) {
        if let Some(a) = b.alloc.take() {
            let _ = self.allocator.lock().expect("allocator lock").free(a);
        }
        // SAFETY: `_idle` proves the device finished the work that used the buffer; the handle
        // was made by this device and is destroyed once (the Buffer is consumed).
        unsafe { self.device.destroy_buffer(b.buffer, None) };
    }

    /// A 2D image in GENERAL layout, usable as storage or sampled image and as copy source/target.
    pub fn create_image(&self, name: &str, d: ImageDesc) -> anyhow::Result<Image> {
        self.create_image_in(name, d, false)
    }

    /// As [`Context::create_image`]; `dedicated` as for [`Context::create_buffer_in`].
    pub fn create_image_in(
        &self,
        name: &str,
        d: ImageDesc,
        dedicated: bool,
    ) -> anyhow::Result<Image> {
        let usage = vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST
            | if d.sampled {
                vk::ImageUsageFlags::SAMPLED
            } else {
                vk::ImageUsageFlags::STORAGE
            };
        let ci = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(d.format)
            .extent(vk::Extent3D {
                width: d.width,
                height: d.height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid create info; destroyed in destroy_image.
        let image = unsafe { self.device.create_image(&ci, None) }
            .with_context(|| format!("creating image `{name}`"))?;
        // SAFETY: the image was just created on this device.
        let requirements = unsafe { self.device.get_image_memory_requirements(image) };
        let alloc =
            match self
                .allocator
                .lock()
                .expect("allocator lock")
                .allocate(&AllocationCreateDesc {
                    name,
                    requirements,
                    location: MemoryLocation::GpuOnly,
                    linear: false,
                    allocation_scheme: if dedicated {
                        AllocationScheme::DedicatedImage(image)
                    } else {
                        AllocationScheme::GpuAllocatorManaged
                    },
                }) {
                Ok(a) => a,
                Err(e) => {
                    // SAFETY: unused, unbound image.
                    unsafe { self.device.destroy_image(image, None) };
                    if is_oom(&e) {
                        anyhow::bail!(
                            "out of device memory for image `{name}` ({}x{})",
                            d.width,
                            d.height
                        );
                    }
                    return Err(e).with_context(|| format!("allocating image `{name}`"));
                }
            };
        // SAFETY: allocation satisfies the image's requirements.
        unsafe {
            self.device
                .bind_image_memory(image, alloc.memory(), alloc.offset())
        }?;
        let range = color_range();
        let vci = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(d.format)
            .subresource_range(range);
        // SAFETY: the image is bound to memory and alive.
        let view = unsafe { self.device.create_image_view(&vci, None) }?;
        let sampler = if d.sampled {
            let f = if d.linear_filter {
                vk::Filter::LINEAR
            } else {
                vk::Filter::NEAREST
            };
            let sci = vk::SamplerCreateInfo::default()
                .mag_filter(f)
                .min_filter(f)
                .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
                .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
                .max_lod(0.0);
            // SAFETY: valid create info.
            Some(unsafe { self.device.create_sampler(&sci, None) }?)
        } else {
            None
        };
        let img = Image {
            image,
            view,
            sampler,
            width: d.width,
            height: d.height,
            texel_bytes: d.texel_bytes,
            desc: d,
            alloc: Some(alloc),
        };
        // Every image lives in GENERAL: valid for storage, sampling and copies alike.
        self.one_shot(|cmd| {
            let barrier = vk::ImageMemoryBarrier2::default()
                .src_stage_mask(vk::PipelineStageFlags2::NONE)
                .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::GENERAL)
                .image(img.image)
                .subresource_range(range);
            let dep =
                vk::DependencyInfo::default().image_memory_barriers(std::slice::from_ref(&barrier));
            // SAFETY: recording into a command buffer in the recording state; the image is alive.
            unsafe { self.device.cmd_pipeline_barrier2(cmd, &dep) };
        })?;
        Ok(img)
    }

    /// Free an image, its view and memory; `_idle`: no pending submission uses it.
    pub fn destroy_image(&self, mut i: Image, _idle: &Idle) {
        if let Some(a) = i.alloc.take() {
            let _ = self.allocator.lock().expect("allocator lock").free(a);
        }
        // SAFETY: callers destroy resources only after the queue is idle.
        unsafe {
            if let Some(s) = i.sampler {
                self.device.destroy_sampler(s, None);
            }
            self.device.destroy_image_view(i.view, None);
            self.device.destroy_image(i.image, None);
        }
    }

    /// Free a buffer or an image with [`Context::destroy_buffer`] or [`Context::destroy_image`];
    /// `idle`: no pending submission uses it.
    pub fn destroy_resource(&self, r: GpuResource, idle: &Idle) {
        match r {
            GpuResource::Buffer(b) => self.destroy_buffer(b, idle),
            GpuResource::Image(i) => self.destroy_image(i, idle),
        }
    }
}

/// The subresource range of p3lab's images: the colour aspect, mip level 0 and array layer 0 only.
pub fn color_range() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}
