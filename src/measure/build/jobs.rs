//! A variant's pipelines, made on whichever thread: one per pass over the case's set
//! layouts, and the probed ones beside them (the check phase makes them on worker threads
//! while the runner checks the variants before).
use super::*;

/// Specialization constants per pass: (SpecId, 4 bytes of value).
pub(super) type Specs = Vec<Vec<(u32, [u8; 4])>>;

/// One pipeline per pass over the case's set layouts; on an error, the error and the ones made
/// so far (for the caller to destroy: [`destroy_unused`]).
pub(super) fn make_pipelines(
    maker: &PipelineMaker,
    name: &str,
    compiled: &Compiled,
    (specs, modes): (&Specs, &[SubgroupMode]),
    layouts: &[vk::DescriptorSetLayout],
    capture_statistics: bool,
) -> Result<Vec<Pipeline>, (anyhow::Error, Vec<Pipeline>)> {
    let mut made = Vec::with_capacity(compiled.len());
    for (i, (spirv, refl)) in compiled.iter().enumerate() {
        let p = maker.create_pipeline(&PipelineDesc {
            name,
            spirv,
            entry: &refl.entry_point,
            set_layouts: layouts,
            // A range is whole words; a block ending in an f16 is padded.
            push_bytes: refl.push_constant_bytes.next_multiple_of(4),
            spec: &specs[i],
            subgroup: modes[i],
            capture_statistics,
        });
        match p {
            Ok(p) => made.push(p),
            Err(e) => return Err((e, made)),
        }
    }
    Ok(made)
}

/// Destroy pipelines no submission has used (after a wait for idle, which the type asks for).
pub(super) fn destroy_unused(ctx: &Context, made: Vec<Pipeline>) {
    if made.is_empty() {
        return;
    }
    let idle = ctx.wait_idle();
    for p in made {
        ctx.destroy_pipeline(p, &idle);
    }
}

/// The check run's pipelines for shaders that do not probe their subgroup size themselves
/// (none of the passes binds the probe set): every pass with the probe added; none, with why,
/// when one cannot take it (and the ones made before the failure, to destroy).
pub(super) fn probe_pipelines(
    maker: &PipelineMaker,
    name: &str,
    compiled: &Compiled,
    how: (&Specs, &[SubgroupMode]),
    layouts: &[vk::DescriptorSetLayout],
) -> (Vec<Pipeline>, Option<String>, Vec<Pipeline>) {
    let probed = compiled
        .iter()
        .any(|(_, r)| r.bindings.iter().any(|b| b.set == crate::probe::PROBE_SET));
    if probed {
        return (Vec::new(), None, Vec::new());
    }
    let mut with_probe: Compiled = Vec::new();
    for (spirv, refl) in compiled {
        match crate::shader::instrument::subgroup_probe(
            spirv,
            &refl.entry_point,
            crate::probe::PROBE_SET,
        ) {
            Ok(w) => with_probe.push((std::sync::Arc::new(w), refl.clone())),
            Err(why) => return (Vec::new(), Some(why), Vec::new()),
        }
    }
    match make_pipelines(maker, name, &with_probe, how, layouts, false) {
        Ok(p) => (p, None, Vec::new()),
        Err((e, made)) => (
            Vec::new(),
            Some(format!(
                "the pipeline with the probe added could not be made: {e:#}"
            )),
            made,
        ),
    }
}

/// What a variant's pipelines are made from, owned, so that a worker thread can make them
/// ([`PipelineJob::make`]) while the runner checks the variants before it.
pub struct PipelineJob {
    pub(super) name: String,
    pub(super) prepared: Prepared,
    pub(super) layouts: Vec<vk::DescriptorSetLayout>,
    pub(super) capture: bool,
}

/// A variant's pipelines as a [`PipelineJob`] made them, on whichever thread.
pub struct Made {
    pub(super) job: PipelineJob,
    /// The device they were made on.
    pub device: vk::Device,
    /// The timed pipelines, or why not.
    pub(super) pipelines: anyhow::Result<Vec<Pipeline>>,
    /// The check run's pipelines with the probe added (empty where the shaders probe
    /// themselves or the probe could not be added), and why not.
    pub(super) check: (Vec<Pipeline>, Option<String>),
    /// Made but not kept (a pass after them failed): destroyed by the runner.
    pub(super) leftover: Vec<Pipeline>,
    /// How long the timed pipelines took to make, ns (on the thread that made them).
    pub(super) pipeline_ns: u64,
}

impl PipelineJob {
    /// Make the timed pipelines (with the driver's statistics captured where the device gives
    /// them) and the check run's probed ones.
    pub fn make(self, maker: &PipelineMaker) -> Made {
        let p = &self.prepared;
        let how = (&p.specs, p.modes.as_slice());
        let tp = Instant::now();
        let made = make_pipelines(
            maker,
            &self.name,
            &p.compiled,
            how,
            &self.layouts,
            self.capture,
        );
        let pipeline_ns = elapsed_ns(tp);
        let (pipelines, check, leftover) = match made {
            Ok(pipelines) => {
                let (check, note, leftover) =
                    probe_pipelines(maker, &self.name, &p.compiled, how, &self.layouts);
                (Ok(pipelines), (check, note), leftover)
            }
            Err((e, made)) => (Err(e), (Vec::new(), None), made),
        };
        Made {
            device: maker.device(),
            job: self,
            pipelines,
            check,
            leftover,
            pipeline_ns,
        }
    }
}

impl Made {
    /// Leave its pipelines with a device that was abandoned (replaced after a fault while
    /// they were made).
    pub fn abandon(self) {
        if let Ok(p) = self.pipelines {
            std::mem::forget(p);
        }
        std::mem::forget(self.check.0);
        std::mem::forget(self.leftover);
    }

    /// Destroy its pipelines unused (an interrupted check phase).
    pub fn destroy(self, ctx: &Context) {
        let mut all = self.leftover;
        all.extend(self.check.0);
        if let Ok(p) = self.pipelines {
            all.extend(p);
        }
        destroy_unused(ctx, all);
    }
}
