//! Step 6a: new instances of the case: its resources moved to new memory.
//!
//! Where a variant's data sits in memory moves its time: on an H200, two copies of a scenario
//! run in one process differed by as much as two processes did (0.2 % SD, against
//! round-to-round spreads of 0.01-0.1 %; reports/nvidia-h200/copies), and moving the
//! resources between rounds accounted for it (making the pipelines anew did not).
//! [`relocate_case`] moves them. The placement check uses it once after the rounds
//! (runner/placement.rs); with `fresh = "resources"` every round after the first uses it, so
//! the interval over rounds carries the placement's variation (with `"pipelines"` each
//! variant's pipelines are made anew, `Built::remake` in build.rs).
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
