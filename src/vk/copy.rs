//! Copies that stay on the device (the GPU-side output check's scratch buffers).
use crate::vk::resources::{Buffer, GpuResource};
use crate::vk::Context;
use ash::vk;

impl Context {
    /// Copy a whole resource, tightly packed (images row by row), to the start of `dst`, on
    /// the GPU. `dst` must hold it and have TRANSFER_DST usage.
    pub fn copy_to_buffer(&self, src: &GpuResource, dst: &Buffer) -> anyhow::Result<()> {
        let bytes = match src {
            GpuResource::Buffer(b) => b.size,
            GpuResource::Image(i) => i.width as u64 * i.height as u64 * i.texel_bytes as u64,
        };
        anyhow::ensure!(
            dst.size >= bytes,
            "copy of {bytes} bytes into a buffer of {}",
            dst.size
        );
        self.one_shot(|cmd| {
            self.barrier(cmd);
            match src {
                // `dst` has TRANSFER_DST usage and was checked large enough above.
                GpuResource::Buffer(b) => self.record_buffer_copy(cmd, b, dst),
                GpuResource::Image(i) => {
                    let region = vk::BufferImageCopy::default()
                        .image_subresource(layers())
                        .image_extent(vk::Extent3D {
                            width: i.width,
                            height: i.height,
                            depth: 1,
                        });
                    // SAFETY: recording state; the image lives in GENERAL layout with
                    // TRANSFER_SRC usage (create_image), the buffer holds all its texels.
                    unsafe {
                        self.device.cmd_copy_image_to_buffer(
                            cmd,
                            i.image,
                            vk::ImageLayout::GENERAL,
                            dst.buffer,
                            &[region],
                        )
                    };
                }
            }
            self.barrier(cmd);
        })
    }
}

impl Context {
    /// A new resource like `src` (same size, format, usage and sampler), in memory allocated
    /// now, holding a GPU copy of `src`'s contents. `src` is left as it was: the caller points
    /// the descriptors at the new one ([`Context::write_descriptor`]) and destroys the old.
    ///
    /// The allocation is made while `src` still holds its memory, so it cannot land where
    /// `src` is: a run can put a case's resources in several places and measure how much the
    /// placement moves a variant's time (issue 11: two copies of a scenario in one process
    /// differed as much as two processes did).
    ///
    /// `dedicated`: the new memory is an allocation of its own from the driver
    /// ([`Context::create_buffer_in`]), as a new process's would be.
    pub fn relocate(
        &self,
        name: &str,
        src: &GpuResource,
        dedicated: bool,
    ) -> anyhow::Result<GpuResource> {
        let new = match src {
            GpuResource::Buffer(b) => {
                anyhow::ensure!(
                    b.usage.contains(
                        vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST
                    ),
                    "buffer `{name}` cannot be copied (no transfer usage)"
                );
                GpuResource::Buffer(
                    self.create_buffer_in(name, b.size, b.usage, b.location, dedicated)?,
                )
            }
            GpuResource::Image(i) => {
                GpuResource::Image(self.create_image_in(name, i.desc, dedicated)?)
            }
        };
        let copied = self.one_shot(|cmd| {
            self.barrier(cmd);
            match (src, &new) {
                // `n` is `b`'s size, with `b`'s usage (TRANSFER_DST checked above).
                (GpuResource::Buffer(b), GpuResource::Buffer(n)) => {
                    self.record_buffer_copy(cmd, b, n)
                }
                (GpuResource::Image(i), GpuResource::Image(n)) => {
                    let region = vk::ImageCopy::default()
                        .src_subresource(layers())
                        .dst_subresource(layers())
                        .extent(vk::Extent3D {
                            width: i.width,
                            height: i.height,
                            depth: 1,
                        });
                    // SAFETY: recording state; both images are alive, in GENERAL layout, of one
                    // format and extent, with TRANSFER_SRC and TRANSFER_DST usage (create_image).
                    unsafe {
                        self.device.cmd_copy_image(
                            cmd,
                            i.image,
                            vk::ImageLayout::GENERAL,
                            n.image,
                            vk::ImageLayout::GENERAL,
                            &[region],
                        )
                    };
                }
                _ => unreachable!("made above as the same kind"),
            }
            self.barrier(cmd);
        });
        match copied {
            Ok(()) => Ok(new),
            Err(e) => {
                // A hung device never goes idle: the new resource is left to it.
                if matches!(
                    super::device_fault(&e),
                    Some(super::DeviceFault::Timeout { .. })
                ) {
                    std::mem::forget(new);
                } else {
                    let idle = self.wait_idle();
                    self.destroy_resource(new, &idle);
                }
                Err(e)
            }
        }
    }
}

impl Context {
    /// Record a copy of all of `src` to the start of `dst` into `cmd`, in recording state.
    /// Both callers make sure `dst` is at least `src`'s size and has TRANSFER_DST usage.
    fn record_buffer_copy(&self, cmd: vk::CommandBuffer, src: &Buffer, dst: &Buffer) {
        assert!(
            dst.size >= src.size,
            "a copy past the end of its destination"
        );
        let region = vk::BufferCopy {
            src_offset: 0,
            dst_offset: 0,
            size: src.size,
        };
        // SAFETY: `cmd` is recording (both callers run inside `one_shot`); both buffers are
        // alive (borrowed for this call); the region fits `dst` (asserted above); `src` was
        // created with TRANSFER_SRC usage and `dst` with TRANSFER_DST (the callers check it).
        unsafe {
            self.device
                .cmd_copy_buffer(cmd, src.buffer, dst.buffer, &[region])
        };
    }
}

fn layers() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    }
}

#[cfg(test)]
mod tests {
    use crate::vk::instance::Instance;
    use crate::vk::resources::{GpuResource, ImageDesc};
    use crate::vk::Context;
    use ash::vk;
    use gpu_allocator::MemoryLocation;

    /// lavapipe (the CPU device every test machine has), with the validation layer on when it
    /// is installed; a validation error fails the test.
    fn lavapipe() -> Context {
        let validate = std::path::Path::new(
            "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json",
        )
        .exists();
        let inst = Instance::new(validate).expect("a Vulkan instance");
        let all = inst.devices().expect("devices");
        let (pd, info) = all
            .into_iter()
            .find(|(_, i)| i.device_type == "cpu")
            .expect("lavapipe (apt-get install mesa-vulkan-drivers)");
        Context::new(inst, pd, info).expect("a device")
    }

    #[test]
    fn relocated_resources_keep_their_contents_elsewhere() {
        let ctx = lavapipe();
        let before = crate::vk::instance::validation_errors();
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let data: Vec<u8> = (0..4096u32)
            .flat_map(|i| i.wrapping_mul(2654435761).to_le_bytes())
            .collect();
        let buf = GpuResource::Buffer(
            ctx.create_buffer("b", data.len() as u64, usage, MemoryLocation::GpuOnly)
                .unwrap(),
        );
        ctx.upload(&buf, &data).unwrap();
        let moved = ctx.relocate("b", &buf, true).unwrap();
        let (GpuResource::Buffer(a), GpuResource::Buffer(b)) = (&buf, &moved) else {
            unreachable!()
        };
        assert_ne!(a.buffer, b.buffer, "a new buffer");
        assert_eq!(ctx.download(&moved).unwrap(), data, "same contents");
        let desc = ImageDesc {
            format: vk::Format::R32G32B32A32_SFLOAT,
            width: 32,
            height: 16,
            texel_bytes: 16,
            sampled: true,
            linear_filter: true,
        };
        let img = GpuResource::Image(ctx.create_image("i", desc).unwrap());
        let texels: Vec<u8> = (0..32 * 16 * 16u32).map(|i| (i * 7 % 251) as u8).collect();
        ctx.upload(&img, &texels).unwrap();
        let img2 = ctx.relocate("i", &img, false).unwrap();
        assert_eq!(ctx.download(&img2).unwrap(), texels);
        let GpuResource::Image(i2) = &img2 else {
            unreachable!()
        };
        assert!(i2.sampler.is_some(), "a sampled image keeps a sampler");
        let idle = ctx.wait_idle();
        for r in [buf, moved, img, img2] {
            ctx.destroy_resource(r, &idle);
        }
        assert_eq!(
            crate::vk::instance::validation_errors(),
            before,
            "validation errors"
        );
    }
}
