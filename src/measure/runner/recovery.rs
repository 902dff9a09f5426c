//! A lost or hung device: the variant that hit it gets an error row, the device is left
//! behind with everything on it, and the case goes on on a new one.
use super::*;

impl Runner<'_> {
    /// A batch failed: the variant's row is an error now; a failed device is replaced and the
    /// other variants are built again on the new one.
    #[allow(
        clippy::too_many_arguments,
        reason = "a runner phase: one call site, the case's slots, plan and state passed through"
    )]
    pub(super) fn fail_on_device(
        &mut self,
        sc: &Scenario,
        case: &Case,
        plan: &CasePlan,
        slots: &mut [Slot],
        gpu: &mut CaseGpu,
        i: usize,
        e: anyhow::Error,
    ) -> anyhow::Result<()> {
        let f = Failure::from_device(e);
        let fault = f.fault.is_some();
        slots[i].failure = Some(f);
        if fault {
            if let Some(b) = slots[i].built.take() {
                b.abandon();
            }
            self.replace_device(sc, case, gpu, slots, i)?;
        } else if let Some(b) = slots[i].built.take() {
            let idle = self.ctx.wait_idle();
            b.destroy(&self.ctx, &idle);
        }
        self.write(sc, case, plan, &mut slots[i])
    }

    /// Leave a lost or hung device behind with everything on it, make a new one, set the case
    /// up again and rebuild the variants still to be timed. `failed`: the slot that hit the
    /// fault (its reason gets VK_EXT_device_fault's description).
    pub(super) fn replace_device(
        &mut self,
        sc: &Scenario,
        case: &Case,
        gpu: &mut CaseGpu,
        slots: &mut [Slot],
        failed: usize,
    ) -> anyhow::Result<()> {
        if let Some(f) = slots.get_mut(failed).and_then(|s| s.failure.as_mut()) {
            if let Some(desc) = self.ctx.fault_description() {
                f.reason = format!("{}; VK_EXT_device_fault: {desc}", f.reason);
            }
            tracing::warn!(
                "the device failed ({}); creating a new device for the remaining variants",
                f.reason
            );
        }
        for s in slots.iter_mut() {
            if let Some(b) = s.built.take() {
                b.abandon();
            }
        }
        self.meta.device_recreated += 1;
        // Without a device nothing else can run: the rows so far stay, the run stops.
        self.recover()
            .map_err(|e| e.context("recreating the device after a failure"))?;
        let records = prepare::group_clock(&self.ctx, self.opts, case).is_some();
        let fresh = setup::setup_case(
            &self.ctx,
            case,
            records,
            &crate::measure::check::Contents::new(),
        )
        .map_err(|f| anyhow::anyhow!("setting the case up on the new device: {}", f.reason))?;
        // The old case objects may still be in use by the hung submission: leaked on purpose.
        std::mem::forget(std::mem::replace(gpu, fresh));
        let (run_id, host) = (self.meta.run_id.clone(), self.meta.host.clone());
        for s in slots.iter_mut() {
            if s.failure.is_some() || s.written || !s.selected {
                continue;
            }
            // Built before (its check passed): pipelines again, statistics not recorded twice.
            if s.first_rep_ns > 0.0 {
                let id = Ident {
                    run_id: &run_id,
                    host: &host,
                    sc,
                    case,
                    v: s.v,
                };
                // The facts are those of the first build: only the pipelines are new.
                let (_, built) = build::build(
                    &self.ctx,
                    self.compiler,
                    self.opts,
                    &id,
                    gpu,
                    &mut Vec::new(),
                    &mut VariantCost::default(),
                    None,
                );
                match built {
                    Ok(b) => s.built = Some(b),
                    Err(f) => s.failure = Some(f),
                }
            }
        }
        Ok(())
    }

    /// A new logical device on the same physical device (after a hang or device loss).
    pub(super) fn recover(&mut self) -> anyhow::Result<()> {
        let index = self.ctx.info.index;
        let inst = crate::vk::context::Instance::new(self.opts.validate)?;
        let (pd, info) = inst
            .devices()?
            .into_iter()
            .nth(index)
            .ok_or_else(|| anyhow::anyhow!("device {index} is gone"))?;
        let fresh = Context::new(inst, pd, info)?;
        let old = std::mem::replace(&mut self.ctx, fresh);
        // Dropping the old context waits for its queue, which may never finish: leak it.
        std::mem::forget(old);
        self.evict.abandon();
        // The gauge's objects belong to the old device, which is leaked with them.
        if let super::Gauge::Ready(g) = std::mem::replace(&mut self.gauge, super::Gauge::Unmade) {
            std::mem::forget(g);
        }
        self.spare.clear();
        self.last_batch = None;
        // The old device's timestamps: the new one's are correlated afresh.
        self.clock_map = None;
        Ok(())
    }
}
