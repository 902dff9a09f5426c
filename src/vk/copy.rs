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
                GpuResource::Buffer(b) => {
                    let region = vk::BufferCopy {
                        src_offset: 0,
                        dst_offset: 0,
                        size: b.size,
                    };
                    // SAFETY: recording state; both buffers are alive, `b` has TRANSFER_SRC and
                    // `dst` TRANSFER_DST usage (checked large enough above).
                    unsafe {
                        self.device
                            .cmd_copy_buffer(cmd, b.buffer, dst.buffer, &[region])
                    };
                }
                GpuResource::Image(i) => {
                    let region = vk::BufferImageCopy::default()
                        .image_subresource(vk::ImageSubresourceLayers {
                            aspect_mask: vk::ImageAspectFlags::COLOR,
                            mip_level: 0,
                            base_array_layer: 0,
                            layer_count: 1,
                        })
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
