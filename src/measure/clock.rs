//! The clock gauge: what SM clock a timed batch ran at, measured, not assumed (issue 27).
//!
//! A GPU clocks itself down when its load leaves it idle: on an H100, µs-scale kernels timed
//! in 0.2 ms batches with host work between them ran at 825-1140 MHz against 1980 MHz, and the
//! same scenario timed twice in one process came out 1.7-1.9x apart
//! (reports/nvidia-h100/i26-clock). So every batch ends with a gauge
//! (glsl/common/p3lab_clock.comp, on devices with both shader clocks of VK_KHR_shader_clock):
//! one invocation counts SM cycles against the device's real-time clock. A batch whose
//! gauge reads below [`LOW_CLOCK`] of the run's highest reading is timed again, after the
//! clock keeper has kept every SM busy for longer ([`next_heat_ms`]), until the clock is back
//! or more work does not raise it (then the lower clock is the kernel's own, as a power-limited
//! tensor kernel's is, and the variant keeps it).
//!
//! The clock keeper (the same shader over many workgroups, in a submission nobody waits for)
//! also runs after every batch for about as long as the host's usual gap before the next
//! submission ([`KEEP_FACTOR`], at most [`MAX_KEEP_MS`]): on an H100 a batch of µs kernels kept
//! the GPU busy 30 % of the time (1 ms of GPU work, 2.3 ms of recording and host work), and the
//! GPU clocked itself down to 985 MHz. Timed work starts after the keeper has finished (the
//! barrier before each timed repetition), so it never overlaps a timing. Not on a CPU device,
//! whose clock p3lab cannot move and whose "SMs" are the host's threads.
use crate::scenario::OptLevel;
use crate::shader::{CompileRequest, Compiler};
use crate::vk::pipeline::{Bindings, DescType, Pipeline, PipelineDesc, SubgroupMode};
use crate::vk::resources::GpuResource;
use crate::vk::submit::OwnedPass;
use crate::vk::Context;
use ash::vk;
use gpu_allocator::MemoryLocation;

const CLOCK_SHADER: &str = include_str!("../../glsl/common/p3lab_clock.comp");

/// SM cycles one gauge spins: 16.5 µs at 1.98 GHz, 95 µs at 345 MHz. Long enough that a
/// 32 ns step of the real-time clock moves a reading by 0.2 %.
pub const GAUGE_CYCLES: u32 = 32768;
/// A batch whose gauge reads below this fraction of the run's highest reading ran clocked
/// down. The same 3 % as the counters' clock rule (measure/hw): the SM clock of an H100
/// under steady load sits in bins 13-15 MHz apart (0.7 %).
pub const LOW_CLOCK: f64 = 0.97;
/// A clocked-down batch is timed again at most this many times.
pub const MAX_REDO: u32 = 3;
/// The most keeper time (ms of GPU time) put before a batch to bring the clock back: the
/// H100's clock rose from 345 to 1980 MHz within 200 ms of steady load, and did not within
/// 8 ms; with the keeper between batches it stays up, so this is for what is left.
pub const MAX_HEAT_MS: f64 = 64.0;
/// Workgroups (of 64 invocations) of the clock keeper: several per SM on any GPU.
pub const KEEPER_GROUPS: u32 = 1024;
/// The keeper covers the host's usual gap between batches times this, at most
/// [`MAX_KEEP_MS`].
pub const KEEP_FACTOR: f64 = 1.25;
/// The longest keeper between two batches, ms.
pub const MAX_KEEP_MS: f64 = 4.0;
/// A redo whose clock rose by less than this fraction of the reading before it shows that
/// more work does not raise the clock.
pub const NO_RISE: f64 = 0.01;

/// p3lab's clock gauge on one device: its pipeline, the host-visible buffer it writes, and
/// the pass a batch dispatches after its timed repetitions.
pub struct ClockGauge {
    pipeline: Pipeline,
    out: GpuResource,
    bindings: Bindings,
    pass: OwnedPass,
    /// Nanoseconds per tick of the real-time clock where documented (NVIDIA: 1); the gauge's
    /// readings are then MHz ([`ClockGauge::mhz`]).
    pub ns_per_tick: Option<f64>,
}

impl ClockGauge {
    /// The gauge, on a device with both `shader_subgroup_clock` and `shader_device_clock`;
    /// otherwise, or when it cannot be built, why not.
    pub fn make(ctx: &Context, compiler: &mut Compiler) -> Result<ClockGauge, String> {
        if !(ctx.feature("shader_subgroup_clock") && ctx.feature("shader_device_clock")) {
            return Err(
                "the device lacks VK_KHR_shader_clock's shaderSubgroupClock and shaderDeviceClock: \
                 the SM clock of a batch cannot be measured"
                    .into(),
            );
        }
        let spirv = compiler
            .compile_text(
                &CompileRequest {
                    path: "p3lab_clock.comp (built in)".into(),
                    defines: Vec::new(),
                    include_dirs: Vec::new(),
                    opt: OptLevel::Performance,
                    entry_point: "main".into(),
                    wrap_groups: false,
                },
                CLOCK_SHADER.to_string(),
            )
            .map_err(|e| format!("the built-in clock gauge shader: {e}"))?;
        let out = ctx
            .create_buffer(
                "p3lab-clock-gauge",
                16,
                vk::BufferUsageFlags::STORAGE_BUFFER,
                MemoryLocation::GpuToCpu,
            )
            .map_err(|e| format!("the clock gauge's buffer: {e:#}"))?;
        let out = GpuResource::Buffer(out);
        let bindings = match ctx.create_bindings(&[(0, 0, 0, DescType::StorageBuffer, &out)]) {
            Ok(b) => b,
            Err(e) => {
                ctx.destroy_resource(out, &ctx.wait_idle());
                return Err(format!("the clock gauge's bindings: {e:#}"));
            }
        };
        let pipeline = match ctx.create_pipeline(&PipelineDesc {
            name: "p3lab-clock-gauge",
            spirv: &spirv,
            entry: "main",
            set_layouts: &bindings.layouts,
            push_bytes: 8,
            spec: &[],
            subgroup: SubgroupMode::Default,
            capture_statistics: false,
        }) {
            Ok(p) => p,
            Err(e) => {
                let idle = ctx.wait_idle();
                ctx.destroy_bindings(bindings, &idle);
                ctx.destroy_resource(out, &idle);
                return Err(format!("the clock gauge's pipeline: {e:#}"));
            }
        };
        let mut push = [0u8; 8];
        push[..4].copy_from_slice(&GAUGE_CYCLES.to_le_bytes());
        let pass = OwnedPass {
            pipeline: pipeline.pipeline,
            layout: pipeline.layout,
            set: bindings.sets[0],
            grid: [1, 1, 1],
            push,
        };
        let ns_per_tick = crate::probe::Clock::Device.ns_per_tick(ctx.info.vendor_id);
        let mut g = ClockGauge {
            pipeline,
            out,
            bindings,
            pass,
            ns_per_tick,
        };
        g.clear();
        Ok(g)
    }

    /// The pass a batch dispatches after its timed repetitions.
    pub fn pass(&self) -> &OwnedPass {
        &self.pass
    }

    /// The clock keeper: every SM spinning for about `ns` at the clock of `reading` (the last
    /// gauge reading, cycles per real-time tick; where the tick is not known, 1 cycle per ns
    /// is assumed), at most [`MAX_HEAT_MS`].
    pub fn keeper(&self, ns: f64, reading: Option<f64>) -> OwnedPass {
        let per_ns = match (reading, self.ns_per_tick) {
            (Some(r), Some(t)) if r > 0.0 && t > 0.0 => r / t,
            _ => 1.0,
        };
        let cycles = (ns.min(MAX_HEAT_MS * 1e6) * per_ns).clamp(1.0, f64::from(u32::MAX / 2));
        let mut push = [0u8; 8];
        push[..4].copy_from_slice(&(cycles as u32).to_le_bytes());
        push[4..].copy_from_slice(&1u32.to_le_bytes());
        OwnedPass {
            grid: [KEEPER_GROUPS, 1, 1],
            push,
            ..self.pass
        }
    }

    fn clear(&mut self) {
        if let GpuResource::Buffer(b) = &mut self.out {
            if let Some(m) = b.mapped_mut() {
                m.fill(0);
            }
        }
    }

    /// The reading the last gauged batch left, in SM cycles per real-time tick (None: the
    /// gauge did not run or its clocks did not move), and the record cleared for the next.
    pub fn take(&mut self) -> Option<f64> {
        let GpuResource::Buffer(b) = &self.out else {
            return None;
        };
        let m = b.mapped()?;
        let word = |i: usize| u32::from_le_bytes(m[4 * i..4 * i + 4].try_into().expect("4 bytes"));
        let (cycles, ticks, done) = (word(0), word(1), word(3));
        self.clear();
        (done == 1 && cycles > 0 && ticks > 0).then(|| f64::from(cycles) / f64::from(ticks))
    }

    /// A reading (cycles per tick) in MHz where the tick is known.
    pub fn mhz(&self, reading: f64) -> Option<f64> {
        self.ns_per_tick.map(|ns| reading / ns * 1e3)
    }

    /// Free it (the device can go idle).
    pub fn release(self, ctx: &Context) {
        let idle = ctx.wait_idle();
        ctx.destroy_pipeline(self.pipeline, &idle);
        ctx.destroy_bindings(self.bindings, &idle);
        ctx.destroy_resource(self.out, &idle);
    }
}

/// Readings before the rule judges any: the reference needs enough of them.
pub const MIN_READINGS: usize = 16;

/// The rule's reference among the run's `readings` so far: their 90th percentile, None before
/// [`MIN_READINGS`]. Not the highest: on an H100 one reading in 4785 came out at 2065 MHz,
/// above the GPU's 1980 (the two clocks' reads are not ordered against each other), and with
/// it as the reference every batch at 1970 MHz read "clocked down".
pub fn reference(readings: &[f64]) -> Option<f64> {
    if readings.len() < MIN_READINGS {
        return None;
    }
    let mut v = readings.to_vec();
    let k = ((v.len() - 1) as f64 * 0.9).round() as usize;
    let (_, r, _) = v.select_nth_unstable_by(k, f64::total_cmp);
    Some(*r)
}

/// run.json's `clock_gauge.reference` and `reference_mhz` from its readings so far.
pub fn refresh_reference(rec: &mut crate::output::run_json::ClockGaugeRecord) {
    rec.reference = reference(&rec.readings);
    rec.reference_mhz = rec
        .reference
        .zip(rec.ns_per_tick)
        .map(|(c, ns)| c / ns * 1e3);
}

/// Whether `reading` is a clocked-down batch's against the run's `highest`.
pub fn is_low(reading: f64, highest: f64) -> bool {
    reading < LOW_CLOCK * highest
}

/// The keeper time (ms of GPU time) to put before the next try of a clocked-down batch,
/// after `heat_ms` did not bring the clock back: 8, 32, then [`MAX_HEAT_MS`] (64).
pub fn next_heat_ms(heat_ms: f64) -> f64 {
    if heat_ms <= 0.0 {
        8.0
    } else {
        (heat_ms * 4.0).min(MAX_HEAT_MS)
    }
}

/// What became of one batch's tries: the reading kept, and what the case should do next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Next {
    /// Keep this batch.
    Keep,
    /// Time it again after `heat_ms` of untimed work.
    Redo {
        /// Untimed work before the next try, ms of GPU time.
        heat_ms: f64,
    },
    /// Keep it, and stop trying for this case: more work did not raise the clock, so the
    /// lower clock is the kernel's own.
    KeepOwnClock,
}

/// The rule for one try: `reading` against the run's `highest` (readings so far, this one
/// included), `previous` the try before it in this batch (None for the first), `heat_ms` the
/// work put before this try, `tries` made so far including this one.
pub fn judge(reading: f64, highest: f64, previous: Option<f64>, heat_ms: f64, tries: u32) -> Next {
    if !is_low(reading, highest) {
        return Next::Keep;
    }
    if let Some(p) = previous {
        if reading < p * (1.0 + NO_RISE) && heat_ms >= MAX_HEAT_MS {
            return Next::KeepOwnClock;
        }
    }
    if tries > MAX_REDO {
        return Next::Keep;
    }
    Next::Redo {
        heat_ms: next_heat_ms(heat_ms),
    }
}

/// The SD of the SM clock a process gets, as a fraction of it, that a re-run's interval
/// carries on a GPU. In three processes of the suite on an H100 whole cases ran one boost
/// step apart (gauge 1970 against 1985 MHz, 0.76 %; reports/nvidia-h100/i27-clock); on
/// another H100 (reports/aa3/nvidia-h100/run5) the counters read 1975 against 1993 MHz
/// (0.91 %) and the clock-bound cases' times moved 0.76-0.89 %. A step is taken between two
/// processes or not, so the interval must hold a whole one: 0.91 % is 1.96·√2 SDs of two
/// processes' clocks at 0.33 %; 0.35 % it is. Over runs 3-5 that holds the other processes'
/// medians in 98.0-100 % of rows, against 92.2-99.8 % at 0.3 % (reports/aa3/rerun_sd.py).
pub const PROCESS_CLOCK_SD: f64 = crate::stats::inference::GPU_PROCESS_SD;

/// The re-run interval of a row widened by the SM clock a new process may get
/// ([`PROCESS_CLOCK_SD`]), in quadrature with each side: on a GPU (`gpu`) whose batches were
/// gauged. A CPU device's clock does not step so.
pub fn widen_rerun(
    r: &mut crate::results::record::Timing,
    clock: &crate::results::record::ClockFacts,
    gpu: bool,
) {
    if !gpu || clock.clock_pct.is_none() {
        return;
    }
    if let (Some(m), Some(lo), Some(hi)) = (r.median_ns, r.rerun_low_ns, r.rerun_high_ns) {
        let extra = 1.96 * std::f64::consts::SQRT_2 * PROCESS_CLOCK_SD * m;
        r.rerun_low_ns = Some(m - (m - lo).hypot(extra));
        r.rerun_high_ns = Some(m + (hi - m).hypot(extra));
    }
}

/// A mode's clock from its kept rounds' gauge readings `kept` (cycles per tick) and the
/// tries of its batches `redone` over all its rounds: `clock_mhz` (where the tick is known),
/// `clock_pct` against the run's `reference` so far, `clock_redone`, `clock_low`. Nothing
/// where the batches were not gauged.
pub fn facts(
    kept: &[f64],
    redone: u32,
    ns_per_tick: Option<f64>,
    reference: Option<f64>,
) -> crate::results::record::ClockFacts {
    let mut r = crate::results::record::ClockFacts::default();
    if kept.is_empty() {
        return r;
    }
    let mut readings = kept.to_vec();
    readings.sort_by(f64::total_cmp);
    let median = crate::stats::median(&readings);
    r.clock_mhz = ns_per_tick.map(|ns| median / ns * 1e3);
    r.clock_redone = Some(redone);
    if let Some(h) = reference.filter(|h| *h > 0.0) {
        r.clock_pct = Some((100.0 * median / h).min(100.0));
        r.clock_low = Some(readings.iter().filter(|c| is_low(**c, h)).count() as u32);
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_at_the_clock_is_kept() {
        assert_eq!(judge(1980.0, 1980.0, None, 0.0, 1), Next::Keep);
        assert_eq!(
            judge(1925.0, 1980.0, None, 0.0, 1),
            Next::Keep,
            "2.8 % low: within"
        );
    }

    #[test]
    fn a_clocked_down_batch_is_redone_with_more_work_before_it() {
        // The H100's idle clock-down: 1035 MHz against 1980.
        assert_eq!(
            judge(1035.0, 1980.0, None, 0.0, 1),
            Next::Redo { heat_ms: 8.0 }
        );
        // Still low after 8 ms, but it rose: more.
        assert_eq!(
            judge(1400.0, 1980.0, Some(1035.0), 8.0, 2),
            Next::Redo { heat_ms: 32.0 }
        );
        // 8 ms that did not raise it is not yet the kernel's own clock (on the H100 8 ms of
        // work did not bring a 985 MHz clock back; 200 ms brought 345 MHz to 1980).
        assert_eq!(
            judge(1036.0, 1980.0, Some(1035.0), 8.0, 2),
            Next::Redo { heat_ms: 32.0 }
        );
        assert_eq!(next_heat_ms(32.0), MAX_HEAT_MS);
        assert_eq!(next_heat_ms(MAX_HEAT_MS), MAX_HEAT_MS);
    }

    #[test]
    fn a_clock_that_work_does_not_raise_is_the_kernels_own() {
        // A tensor kernel's steady 1815-1830 MHz against the FMA kernels' 1980: the longest
        // keeper did not move it.
        assert_eq!(
            judge(1822.0, 1980.0, Some(1815.0), MAX_HEAT_MS, 4),
            Next::KeepOwnClock
        );
        // After less it may still be ramping: try more.
        assert_eq!(
            judge(1822.0, 1980.0, Some(1815.0), 32.0, 3),
            Next::Redo {
                heat_ms: MAX_HEAT_MS
            }
        );
    }

    #[test]
    fn one_reading_above_the_rest_does_not_become_the_reference() {
        // The H100's readings sit at 1970 MHz; one came out at 2065.
        let mut r = vec![1970.0; 200];
        assert_eq!(reference(&r[..MIN_READINGS - 1]), None, "too few to judge");
        r.push(2065.0);
        r.extend([1969.0, 1972.0, 1974.0]);
        assert_eq!(reference(&r), Some(1970.0));
        assert!(!is_low(1970.0, reference(&r).unwrap()));
        // A run whose batches ran clocked down a quarter of the time keeps the clock of the rest.
        let mut r = vec![1970.0; 150];
        r.extend(vec![985.0; 50]);
        assert_eq!(reference(&r), Some(1970.0));
    }

    #[test]
    fn a_rerun_interval_on_a_gpu_holds_one_clock_step() {
        let mut r = crate::results::record::Timing {
            median_ns: Some(1000.0),
            rerun_low_ns: Some(998.0),
            rerun_high_ns: Some(1002.0),
            ..Default::default()
        };
        let clock = crate::results::record::ClockFacts {
            clock_pct: Some(100.0),
            ..Default::default()
        };
        let mut cpu = r.clone();
        widen_rerun(&mut cpu, &clock, false);
        assert_eq!(cpu.rerun_high_ns, Some(1002.0), "not on a CPU device");
        widen_rerun(&mut r, &clock, true);
        // A process one boost step (0.91 %, as the counters saw it) faster or slower lands
        // inside.
        assert!(r.rerun_low_ns.unwrap() < 1000.0 / 1.0091, "{r:?}");
        assert!(r.rerun_high_ns.unwrap() > 1009.1, "{r:?}");
        assert!(r.rerun_high_ns.unwrap() < 1011.0, "not much wider: {r:?}");
    }

    #[test]
    fn the_tries_are_bounded() {
        // Rising each time but never back: kept after MAX_REDO redos.
        assert_eq!(
            judge(1500.0, 1980.0, Some(1200.0), 32.0, MAX_REDO + 1),
            Next::Keep
        );
        let mut heat = 0.0;
        let mut tries = 1;
        let mut prev = None;
        let mut reading = 800.0;
        while let Next::Redo { heat_ms } = judge(reading, 1980.0, prev, heat, tries) {
            heat = heat_ms;
            prev = Some(reading);
            reading += 100.0;
            tries += 1;
        }
        assert_eq!(tries, MAX_REDO + 1, "one first try and MAX_REDO redos");
    }
}
