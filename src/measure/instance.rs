//! Step 6a: every round on a new instance of the case.
//!
//! Where a variant's code and data sit in memory moves its time: on an H200, two copies of a
//! scenario run in one process differed by as much as two processes did (0.2 % SD, against
//! round-to-round spreads of 0.01-0.1 %; reports/nvidia-h200/copies). Rounds on one set of
//! pipelines and buffers cannot see that variation, so their CI was too narrow for a re-run.
//! Before each round after the first, the runner therefore makes the variant's pipelines
//! anew (`Built::remake` in build.rs) and moves the case's resources to new
//! memory ([`relocate_case`]): each round samples a placement, and the interval over rounds
//! carries the placement's variation, as the interval over runs would.
use crate::measure::setup::CaseGpu;
use crate::scenario::Case;
use crate::vk::Context;

pub use crate::scenario::Fresh;

/// Move every resource the case declares to newly allocated memory, one at a time (the peak
/// is the case's memory plus its largest resource): a GPU copy keeps the contents, the
/// descriptors are pointed at the copy and the old one is freed. On an error (out of memory)
/// the resources not yet moved stay where they are and the error is returned.
pub fn relocate_case(ctx: &Context, case: &Case, gpu: &mut CaseGpu) -> anyhow::Result<()> {
    for (r, res) in case.resources.iter().zip(gpu.resources.iter_mut()) {
        let new = ctx.relocate(&r.name, res)?;
        let idle = ctx.wait_idle();
        let at = (r.set, r.binding, r.index);
        if let Err(e) = ctx.write_descriptor(
            &gpu.bindings,
            at,
            crate::measure::setup::desc_type(r),
            &new,
            &idle,
        ) {
            ctx.destroy_resource(new, &idle);
            return Err(e);
        }
        let old = std::mem::replace(res, new);
        ctx.destroy_resource(old, &idle);
    }
    Ok(())
}
