//! Moving bytes between the host and the device: one-shot submissions, staged upload and
//! read-back in bounded chunks, and clearing. The resources themselves are made in
//! resources.rs.
use super::resources::{color_range, Buffer, GpuResource};
use super::*;
use gpu_allocator::MemoryLocation;

/// Staging transfers move at most this many bytes at a time, so host memory stays bounded.
const STAGING_CHUNK: u64 = 64 << 20;

impl Context {
    /// Record with `f`, submit, and wait (used for set-up and transfers, never for timing).
    pub fn one_shot(&self, f: impl FnOnce(vk::CommandBuffer)) -> anyhow::Result<()> {
        self.one_shot_timeout(f, 60_000)
    }

    /// As [`Context::one_shot`], waiting at most `timeout_ms`.
    pub fn one_shot_timeout(
        &self,
        f: impl FnOnce(vk::CommandBuffer),
        timeout_ms: u64,
    ) -> anyhow::Result<()> {
        let cmd = self.alloc_cmd()?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: fresh primary command buffer from our pool, used on this thread only.
        unsafe { self.device.begin_command_buffer(cmd, &begin) }?;
        f(cmd);
        // SAFETY: as above.
        unsafe { self.device.end_command_buffer(cmd) }?;
        let r = self.submit_and_wait(cmd, timeout_ms);
        if r.is_ok() {
            // SAFETY: the submission finished, so the command buffer is no longer pending.
            unsafe { self.device.free_command_buffers(self.cmd_pool, &[cmd]) };
        }
        // On failure it may still be pending (a timeout): it is leaked with the device, which
        // the runner abandons.
        r
    }

    /// Allocate one primary command buffer from the context's command pool (freed by the caller, or
    /// with the pool).
    pub fn alloc_cmd(&self) -> anyhow::Result<vk::CommandBuffer> {
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.cmd_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: valid pool of this device.
        Ok(unsafe { self.device.allocate_command_buffers(&ai) }?[0])
    }

    /// The host's usual gap between a submission's completion and the next submission, ns
    /// (an exponential average over the submissions so far); None before the second.
    pub fn host_gap_ns(&self) -> Option<f64> {
        *self.host_gap_ns.lock().expect("host_gap lock")
    }

    /// Submit `pass` once and do not wait for it: p3lab's clock keeper, which keeps the GPU busy
    /// while the host records the next batch (src/measure/clock.rs). Later submissions on the
    /// queue start their timed work after it (their barriers' first scope holds every earlier
    /// submission). Finished ones are freed here and when the context is dropped.
    pub fn submit_detached(&self, pass: &crate::vk::submit::OwnedPass) -> anyhow::Result<()> {
        let mut list = self.detached.lock().expect("detached lock");
        list.retain(|&(cmd, fence)| {
            // SAFETY: the fence belongs to this device.
            let done = unsafe { self.device.get_fence_status(fence) }.unwrap_or(false);
            if done {
                // SAFETY: the fence signalled: the command buffer is no longer pending and
                // nothing waits on the fence.
                unsafe { self.free_detached(cmd, fence) };
            }
            !done
        });
        let cmd = self.alloc_cmd()?;
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: a fresh command buffer from our pool.
        unsafe { self.device.begin_command_buffer(cmd, &begin) }?;
        self.record_dispatch(
            cmd,
            &crate::vk::submit::Dispatch {
                pipeline: pass.pipeline,
                layout: pass.layout,
                sets: std::slice::from_ref(&pass.set),
                grid: pass.grid,
                push: &pass.push,
            },
        );
        // SAFETY: matches begin.
        unsafe { self.device.end_command_buffer(cmd) }?;
        // SAFETY: valid create info.
        let fence = unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }?;
        let cmds = [cmd];
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        // SAFETY: the command buffer is executable; the queue is used from this thread only.
        match unsafe { self.device.queue_submit(self.queue, &[submit], fence) } {
            Ok(()) => {
                list.push((cmd, fence));
                Ok(())
            }
            Err(e) => {
                // SAFETY: the submission failed, so neither is in use.
                unsafe { self.free_detached(cmd, fence) };
                Err(e.into())
            }
        }
    }

    /// Free a detached submission's command buffer and fence.
    ///
    /// # Safety
    /// Neither may be in use: the fence has signalled, or the submission failed.
    unsafe fn free_detached(&self, cmd: vk::CommandBuffer, fence: vk::Fence) {
        // SAFETY: both belong to this device and its pool, and the caller guarantees that
        // neither is in use.
        unsafe {
            self.device.free_command_buffers(self.cmd_pool, &[cmd]);
            self.device.destroy_fence(fence, None);
        }
    }

    /// Wait for the detached submissions (the clock keeper) to finish, at most `timeout_ms`,
    /// and free them: before work that must see the GPU to itself, such as a counter batch,
    /// whose device-wide samples would count the keeper's SMs.
    pub fn settle(&self, timeout_ms: u64) {
        let list: Vec<_> = self
            .detached
            .lock()
            .map(|mut d| d.drain(..).collect())
            .unwrap_or_default();
        let fences: Vec<vk::Fence> = list.iter().map(|&(_, f)| f).collect();
        if fences.is_empty() {
            return;
        }
        // SAFETY: the fences belong to this device.
        let waited = unsafe {
            self.device
                .wait_for_fences(&fences, true, timeout_ms * 1_000_000)
        };
        if waited.is_ok() {
            for (cmd, fence) in list {
                // SAFETY: every fence signalled, so no command buffer is pending.
                unsafe { self.free_detached(cmd, fence) };
            }
        } else {
            // Not done in time (a hung device): keep them for the context's teardown.
            self.detached.lock().expect("detached lock").extend(list);
        }
    }

    /// Submit one command buffer and wait for it, up to `timeout_ms`.
    pub fn submit_and_wait(&self, cmd: vk::CommandBuffer, timeout_ms: u64) -> anyhow::Result<()> {
        self.submit_and_wait_pass(cmd, timeout_ms, None)
    }

    /// As [`Context::submit_and_wait`]; with `counter_pass`, the submission carries a
    /// `VkPerformanceQuerySubmitInfoKHR` for that pass of a performance query.
    pub fn submit_and_wait_pass(
        &self,
        cmd: vk::CommandBuffer,
        timeout_ms: u64,
        counter_pass: Option<u32>,
    ) -> anyhow::Result<()> {
        // SAFETY: valid create info.
        let fence = unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }?;
        let cmds = [cmd];
        let mut perf = vk::PerformanceQuerySubmitInfoKHR::default()
            .counter_pass_index(counter_pass.unwrap_or(0));
        let mut submit = vk::SubmitInfo::default().command_buffers(&cmds);
        if counter_pass.is_some() {
            submit = submit.push_next(&mut perf);
        }
        if let Some(done) = *self.last_done.lock().expect("last_done lock") {
            let gap = done.elapsed().as_nanos() as f64;
            let mut avg = self.host_gap_ns.lock().expect("host_gap lock");
            *avg = Some(avg.map_or(gap, |a| 0.8 * a + 0.2 * gap));
        }
        // SAFETY: the command buffer is executable; the queue is used from this thread only.
        let r = unsafe { self.device.queue_submit(self.queue, &[submit], fence) }
            .map_err(|e| match e {
                vk::Result::ERROR_DEVICE_LOST => anyhow::Error::new(crate::vk::DeviceFault::Lost),
                e => e.into(),
            })
            .and_then(|_| {
                // SAFETY: the fence belongs to this device.
                match unsafe {
                    self.device.wait_for_fences(
                        &[fence],
                        true,
                        timeout_ms.saturating_mul(1_000_000),
                    )
                } {
                    Ok(()) => Ok(()),
                    Err(vk::Result::TIMEOUT) => {
                        Err(anyhow::Error::new(crate::vk::DeviceFault::Timeout {
                            timeout_ms,
                        }))
                    }
                    Err(vk::Result::ERROR_DEVICE_LOST) => {
                        Err(anyhow::Error::new(crate::vk::DeviceFault::Lost))
                    }
                    Err(e) => Err(e.into()),
                }
            });
        if r.is_ok() {
            *self.last_done.lock().expect("last_done lock") = Some(std::time::Instant::now());
            // SAFETY: the fence has signalled, so nothing uses it.
            unsafe { self.device.destroy_fence(fence, None) };
        }
        // On timeout the fence may still be pending: leaking it is the safe choice.
        r
    }

    /// A staging buffer of STAGING_CHUNK bytes, reused across transfers: allocating pinned host
    /// memory per transfer made read-back of a 320 MB output take 200 ms on an H200.
    fn staging(&self, upload: bool) -> anyhow::Result<Buffer> {
        let mut pool = self.staging_pool.lock().expect("staging lock");
        if let Some(pos) = pool.iter().position(|(u, _)| *u == upload) {
            return Ok(pool.swap_remove(pos).1);
        }
        drop(pool);
        let (usage, loc) = if upload {
            (vk::BufferUsageFlags::TRANSFER_SRC, MemoryLocation::CpuToGpu)
        } else {
            (vk::BufferUsageFlags::TRANSFER_DST, MemoryLocation::GpuToCpu)
        };
        self.create_buffer("staging", STAGING_CHUNK, usage, loc)
    }

    fn return_staging(&self, upload: bool, b: Buffer) {
        self.staging_pool
            .lock()
            .expect("staging lock")
            .push((upload, b));
    }

    /// Copy `data` into the resource (tightly packed; images row-major).
    pub fn upload(&self, target: &GpuResource, data: &[u8]) -> anyhow::Result<()> {
        let mut staging = self.staging(true)?;
        let r = self.transfer_chunks(
            target,
            data.len() as u64,
            |cmd, s, off, len| {
                let map = staging
                    .alloc
                    .as_mut()
                    .and_then(|a| a.mapped_slice_mut())
                    .expect("staging memory is host-mapped");
                map[..len as usize].copy_from_slice(&data[off as usize..(off + len) as usize]);
                self.record_copy(cmd, s, target, off, len, true);
                Ok(())
            },
            &staging.buffer,
            |_, _, _| Ok(()),
        );
        self.return_staging(true, staging);
        r
    }

    /// Read the whole resource back (tightly packed).
    pub fn download(&self, src: &GpuResource) -> anyhow::Result<Vec<u8>> {
        self.download_into(src, Vec::new())
    }

    /// Read the whole resource back into `out`, reusing its allocation: on the GPU machines'
    /// VMs first-touching fresh host memory cost more than the copy itself.
    pub fn download_into(&self, src: &GpuResource, mut out: Vec<u8>) -> anyhow::Result<Vec<u8>> {
        let total = match src {
            GpuResource::Buffer(b) => b.size,
            GpuResource::Image(i) => i.width as u64 * i.height as u64 * i.texel_bytes as u64,
        };
        let staging = self.staging(false)?;
        out.resize(total as usize, 0);
        let r = self.transfer_chunks(
            src,
            total,
            |cmd, s, off, len| {
                self.record_copy(cmd, s, src, off, len, false);
                Ok(())
            },
            &staging.buffer,
            |off, len, _| {
                let map = staging
                    .alloc
                    .as_ref()
                    .and_then(|a| a.mapped_slice())
                    .expect("staging memory is host-mapped");
                out[off as usize..(off + len) as usize].copy_from_slice(&map[..len as usize]);
                Ok(())
            },
        );
        self.return_staging(false, staging);
        r.map(|_| out)
    }

    /// Walk `total` bytes in staging-sized chunks (whole image rows for images).
    fn transfer_chunks(
        &self,
        res: &GpuResource,
        total: u64,
        mut before: impl FnMut(vk::CommandBuffer, vk::Buffer, u64, u64) -> anyhow::Result<()>,
        staging: &vk::Buffer,
        mut after: impl FnMut(u64, u64, ()) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let step = match res {
            GpuResource::Buffer(_) => STAGING_CHUNK,
            GpuResource::Image(i) => {
                let row = i.width as u64 * i.texel_bytes as u64;
                (STAGING_CHUNK / row).max(1) * row
            }
        };
        let mut off = 0;
        while off < total {
            let len = step.min(total - off);
            let mut err = None;
            self.one_shot(|cmd| {
                if let Err(e) = before(cmd, *staging, off, len) {
                    err = Some(e);
                }
            })?;
            if let Some(e) = err {
                return Err(e);
            }
            after(off, len, ())?;
            off += len;
        }
        Ok(())
    }

    fn record_copy(
        &self,
        cmd: vk::CommandBuffer,
        staging: vk::Buffer,
        res: &GpuResource,
        off: u64,
        len: u64,
        upload: bool,
    ) {
        let full = vk::MemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE);
        let dep = vk::DependencyInfo::default().memory_barriers(std::slice::from_ref(&full));
        // SAFETY: (whole block) recording into a command buffer in the recording state; every
        // handle is alive, and regions lie inside both resources (callers chunk within bounds).
        unsafe {
            self.device.cmd_pipeline_barrier2(cmd, &dep);
            match res {
                GpuResource::Buffer(b) => {
                    let (src, dst, region) = if upload {
                        (
                            staging,
                            b.buffer,
                            vk::BufferCopy {
                                src_offset: 0,
                                dst_offset: off,
                                size: len,
                            },
                        )
                    } else {
                        (
                            b.buffer,
                            staging,
                            vk::BufferCopy {
                                src_offset: off,
                                dst_offset: 0,
                                size: len,
                            },
                        )
                    };
                    self.device.cmd_copy_buffer(cmd, src, dst, &[region]);
                }
                GpuResource::Image(i) => {
                    let row = i.width as u64 * i.texel_bytes as u64;
                    let region = vk::BufferImageCopy::default()
                        .buffer_offset(0)
                        .image_subresource(vk::ImageSubresourceLayers {
                            aspect_mask: vk::ImageAspectFlags::COLOR,
                            mip_level: 0,
                            base_array_layer: 0,
                            layer_count: 1,
                        })
                        .image_offset(vk::Offset3D {
                            x: 0,
                            y: (off / row) as i32,
                            z: 0,
                        })
                        .image_extent(vk::Extent3D {
                            width: i.width,
                            height: (len / row) as u32,
                            depth: 1,
                        });
                    if upload {
                        self.device.cmd_copy_buffer_to_image(
                            cmd,
                            staging,
                            i.image,
                            vk::ImageLayout::GENERAL,
                            &[region],
                        );
                    } else {
                        self.device.cmd_copy_image_to_buffer(
                            cmd,
                            i.image,
                            vk::ImageLayout::GENERAL,
                            staging,
                            &[region],
                        );
                    }
                }
            }
            self.device.cmd_pipeline_barrier2(cmd, &dep);
        }
    }

    /// Zero every resource of `zero` and write each small buffer of `small` (at most 65536
    /// bytes, a multiple of 4) on the device, in one submission without staging: a variant's
    /// reset before its check run, which took one submission (and one wait) per resource.
    pub fn reset_many(
        &self,
        zero: &[&GpuResource],
        small: &[(&Buffer, &[u8])],
    ) -> anyhow::Result<()> {
        for (_, data) in small {
            anyhow::ensure!(
                data.len() <= 65536 && data.len() % 4 == 0,
                "an in-line buffer update takes at most 65536 bytes, in whole words"
            );
        }
        self.one_shot(|cmd| {
            // SAFETY: recording state; whole-resource fills/clears of live handles in GENERAL
            // layout, and in-line updates within each buffer (checked above), then one barrier
            // that makes them visible to everything after.
            unsafe {
                for res in zero {
                    match res {
                        GpuResource::Buffer(b) => {
                            self.device
                                .cmd_fill_buffer(cmd, b.buffer, 0, vk::WHOLE_SIZE, 0)
                        }
                        GpuResource::Image(i) => self.device.cmd_clear_color_image(
                            cmd,
                            i.image,
                            vk::ImageLayout::GENERAL,
                            &vk::ClearColorValue { uint32: [0; 4] },
                            &[color_range()],
                        ),
                    }
                }
                for (b, data) in small {
                    if !data.is_empty() {
                        self.device.cmd_update_buffer(cmd, b.buffer, 0, data);
                    }
                }
                let b = vk::MemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
                    .dst_access_mask(
                        vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE,
                    );
                self.device.cmd_pipeline_barrier2(
                    cmd,
                    &vk::DependencyInfo::default().memory_barriers(std::slice::from_ref(&b)),
                );
            }
        })
    }

    /// Zero a resource on the device without staging ([`Context::reset_many`] of one).
    pub fn fill_zero(&self, res: &GpuResource) -> anyhow::Result<()> {
        self.reset_many(&[res], &[])
    }
}
