//! Hardware counters (VK_KHR_performance_query): one replay per counter pass, after the
//! check and before timing, as `perf_counter` metrics. Without the extension, or when the
//! capture fails, run.json's `counters` says why and the variant goes on to be timed.
use crate::measure::build::elapsed_ns;
use crate::measure::row::Ident;
use crate::output::run_json::{CountersStatus, VariantCost};
use crate::results::MetricRow;
use crate::vk::submit::Dispatch;
use crate::vk::{perf, Context};
use std::time::Instant;

/// Capture the counters asked for (`--counters`, else `measure.counters`).
pub fn capture(
    ctx: &Context,
    globs: &[String],
    id: &Ident,
    dispatches: &[Dispatch],
    status: &mut Option<CountersStatus>,
    metrics: &mut Vec<MetricRow>,
    cost: &mut VariantCost,
) {
    if globs.is_empty() {
        return;
    }
    let t = Instant::now();
    let status = status.get_or_insert_with(Default::default);
    if let Some(why) = perf::unavailable_reason(ctx) {
        if status.reason.is_none() {
            tracing::warn!("hardware counters not captured: {why}");
        }
        status.available = false;
        status.reason = Some(why);
        return;
    }
    status.available = true;
    let selected = ctx
        .perf_counters()
        .map_err(|e| format!("{e:#}"))
        .and_then(|all| perf::select(&all, globs));
    let (chosen, unmatched) = match selected {
        Ok(s) => s,
        Err(e) => {
            status.reason = Some(e);
            return;
        }
    };
    for g in unmatched {
        if !status.unmatched.contains(&g) {
            tracing::warn!(
                "counter glob `{g}` matches no counter of this device (see `p3lab counters`)"
            );
            status.unmatched.push(g);
        }
    }
    if chosen.is_empty() {
        return;
    }
    match ctx.capture_counters(dispatches, &chosen, id.case.timeout_ms) {
        Ok(cap) => {
            status.passes = status.passes.max(cap.passes);
            for (c, value) in &cap.values {
                if !status.captured.contains(&c.name) {
                    status.captured.push(c.name.clone());
                }
                metrics.push(id.metric("perf_counter", &c.name, *value, &c.unit));
            }
        }
        Err(e) => {
            let why = format!("{} / {}: capture failed: {e:#}", id.sc.name, id.v.name);
            tracing::warn!("hardware counters: {why}");
            status.reason = Some(why);
        }
    }
    cost.counters_ns += elapsed_ns(t);
}
