//! GPU timestamps: raw query results of a timed batch turned into nanoseconds (masked to the
//! counter's valid bits, times its period), and the counter correlated with the host clocks
//! (VK_EXT_calibrated_timestamps) to place a batch in host time or check the timer's rate.
use crate::vk::Context;
use ash::vk;

/// The counter's valid bits as a mask (all 64 at 64 or more).
fn tick_mask(valid_bits: u32) -> u64 {
    if valid_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << valid_bits) - 1
    }
}

/// Timestamps of a timed run: `pass_ns[rep][pass]`, and each repetition's span from the first
/// dispatch's start to the last one's end.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    /// Per repetition, each pass's duration in ns (end minus begin timestamp, ticks masked to the
    /// valid bits, times the period).
    pub pass_ns: Vec<Vec<f64>>,
    /// Per repetition, ns from its first dispatch's begin timestamp to its last dispatch's end
    /// timestamp.
    pub rep_ns: Vec<f64>,
    /// The timer's observed step, in ns: the greatest common divisor of the raw timestamps
    /// (in ticks) times the timestamp period. NVIDIA's counter counts in ns but advances in
    /// steps of 32 (seen on an H200), so no duration it gives is finer than 32 ns; 0 when
    /// every raw value was 0.
    pub step_ns: f64,
    /// The raw (masked) ticks of the batch's first begin and last end timestamp: where the
    /// batch sat on the GPU's clock, for aligning hardware-counter samples (`clock_map`).
    pub span_ticks: Option<(u64, u64)>,
    /// The raw (masked) tick of each timed repetition's first begin timestamp.
    pub rep_begin_ticks: Vec<u64>,
    /// CLOCK_MONOTONIC (ns) just before the submission and just after its fence was seen:
    /// with the ticks, where the repetitions ran on the host's clock ([`place_on_host`], with
    /// a calibration taken once a second at most: each costs host time).
    pub host_window: (i128, i128),
}

/// The host's CLOCK_MONOTONIC, ns (the clock Linux's `Instant` reads).
pub fn monotonic_ns() -> i128 {
    crate::vk::cupti::host_clocks().1
}

/// Each repetition's start on CLOCK_MONOTONIC, from its raw begin tick: through the calibrated
/// correlation `map` where it puts the whole batch inside the host's own window (submitted at
/// `submitted_ns`, its fence seen at `done_ns`), else anchored at the batch's end: the last
/// end timestamp (`span_ticks.1`) taken as `done_ns`, so a batch never overlaps the one before
/// it (whose fence was seen before this one was submitted). Empty without timestamps.
pub fn place_on_host(
    t: &Timings,
    (submitted_ns, done_ns): (i128, i128),
    map: Option<&ClockMap>,
    (valid_bits, period_ns): (u32, f64),
) -> Vec<f64> {
    let Some((_, last)) = t.span_ticks else {
        return Vec::new();
    };
    let bits = valid_bits.clamp(1, 64);
    let range: i128 = 1i128 << bits;
    // Signed ticks from `from` to `to` on a counter that wraps at its valid bits.
    let ticks = |from: u64, to: u64| {
        let d = (to as i128 - from as i128).rem_euclid(range);
        if d >= range / 2 {
            d - range
        } else {
            d
        }
    };
    if let Some(m) = map {
        let at = |tick: u64| m.monotonic_ns as f64 + ticks(m.tick, tick) as f64 * m.period_ns;
        let (first, end) = (t.rep_begin_ticks.first().map(|&k| at(k)), at(last));
        // A correlation that puts the batch outside the host's window is not believed.
        let slack = 1e6;
        if first.is_some_and(|f| f >= submitted_ns as f64 - slack && f <= end)
            && end <= done_ns as f64 + slack
        {
            return t.rep_begin_ticks.iter().map(|&k| at(k)).collect();
        }
    }
    t.rep_begin_ticks
        .iter()
        .map(|&k| done_ns as f64 - ticks(k, last) as f64 * period_ns)
        .collect()
}

/// A GPU timestamp ↔ host clock correlation (VK_EXT_calibrated_timestamps): one reading of
/// the device's timestamp counter and CLOCK_MONOTONIC taken together, and the offset of
/// CLOCK_REALTIME from CLOCK_MONOTONIC read back to back.
#[derive(Debug, Clone, Copy)]
pub struct ClockMap {
    /// The device's timestamp counter at calibration, masked to its valid bits.
    pub tick: u64,
    /// CLOCK_MONOTONIC at calibration, ns.
    pub monotonic_ns: i128,
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC, ns (one realtime read between two monotonic ones).
    pub realtime_minus_monotonic_ns: i128,
    /// Nanoseconds per timestamp tick (`timestampPeriod`).
    pub period_ns: f64,
    /// Valid bits of the timestamp counter: ticks wrap modulo 2^valid_bits.
    pub valid_bits: u32,
    /// The driver's maximum deviation of the correlation, ns.
    pub deviation_ns: u64,
}

impl ClockMap {
    /// The device's timestamp counter from `earlier` to this map, in ns of `timestampPeriod`
    /// (ticks modulo the valid bits, taken as under half the counter's range apart), beside
    /// CLOCK_MONOTONIC over the same span: `(device_ns, host_ns)`.
    pub fn span_since(&self, earlier: &ClockMap) -> (f64, f64) {
        (
            self.ticks(earlier.tick, self.tick) as f64 * self.period_ns,
            (self.monotonic_ns - earlier.monotonic_ns) as f64,
        )
    }

    /// Ticks from `from` to `to` on a counter that wraps at its valid bits, taken as under half
    /// the counter's range apart (negative when `to` is before `from`).
    fn ticks(&self, from: u64, to: u64) -> i128 {
        let bits = self.valid_bits.clamp(1, 64);
        let range: i128 = 1i128 << bits;
        let d = (to as i128 - from as i128).rem_euclid(range);
        if d >= range / 2 {
            d - range
        } else {
            d
        }
    }

    /// CLOCK_REALTIME, in ns, of the raw GPU timestamp `tick` (taken within half the
    /// counter's range of the calibration).
    pub fn realtime_of(&self, tick: u64) -> i128 {
        let d = self.ticks(self.tick, tick);
        self.monotonic_ns + (d as f64 * self.period_ns) as i128 + self.realtime_minus_monotonic_ns
    }
}

impl Context {
    /// Correlate the GPU's timestamps with the host clocks, where the device offers
    /// VK_EXT_calibrated_timestamps with both the device and the CLOCK_MONOTONIC domain.
    pub fn clock_map(&self) -> Option<ClockMap> {
        if !self
            .enabled
            .extensions
            .iter()
            .any(|e| e == "VK_EXT_calibrated_timestamps")
        {
            return None;
        }
        let inst = ash::ext::calibrated_timestamps::Instance::new(
            &self.instance.entry,
            &self.instance.instance,
        );
        // SAFETY: the extension is enabled on this device and `physical` is its own.
        let domains =
            unsafe { inst.get_physical_device_calibrateable_time_domains(self.physical) }.ok()?;
        if !domains.contains(&vk::TimeDomainEXT::DEVICE)
            || !domains.contains(&vk::TimeDomainEXT::CLOCK_MONOTONIC)
        {
            return None;
        }
        let dev =
            ash::ext::calibrated_timestamps::Device::new(&self.instance.instance, &self.device);
        let infos = [
            vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::DEVICE),
            vk::CalibratedTimestampInfoEXT::default()
                .time_domain(vk::TimeDomainEXT::CLOCK_MONOTONIC),
        ];
        // Realtime minus monotonic, bracketed by two monotonic reads around one realtime read.
        let (r, m) = crate::vk::cupti::host_clocks();
        // SAFETY: both domains are calibrateable on this device (checked above).
        let (ts, deviation) = unsafe { dev.get_calibrated_timestamps(&infos) }.ok()?;
        let mask = tick_mask(self.info.timestamp_valid_bits);
        Some(ClockMap {
            tick: ts[0] & mask,
            monotonic_ns: ts[1] as i128,
            realtime_minus_monotonic_ns: r - m,
            period_ns: self.info.timestamp_period_ns as f64,
            valid_bits: self.info.timestamp_valid_bits,
            deviation_ns: deviation,
        })
    }
}

/// Timestamps one timed batch writes: two per pass per repetition, refused (not wrapped) when
/// the count does not fit a query pool's `u32`.
pub fn timestamp_count(reps: u32, passes: usize) -> anyhow::Result<u32> {
    u32::try_from(passes)
        .ok()
        .and_then(|np| reps.checked_mul(np))
        .and_then(|n| n.checked_mul(2))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{reps} repetitions × {passes} passes × 2 timestamps do not fit in one query \
                 pool; lower the repetitions (--reps, [measure] reps)"
            )
        })
}

/// Turn raw timestamp pairs into nanoseconds: ticks masked to the valid bits, times the period.
pub fn to_timings(raw: &[u64], passes: usize, valid_bits: u32, period_ns: f64) -> Timings {
    let mask = tick_mask(valid_bits);
    let ticks = |a: u64, b: u64| ((b & mask).wrapping_sub(a & mask) & mask) as f64 * period_ns;
    let mut t = Timings::default();
    let step = raw.iter().fold(0u64, |g, &v| gcd(g, v & mask));
    t.step_ns = step as f64 * period_ns;
    for rep in raw.chunks_exact(passes * 2) {
        t.pass_ns
            .push(rep.chunks_exact(2).map(|p| ticks(p[0], p[1])).collect());
        t.rep_ns.push(ticks(rep[0], rep[rep.len() - 1]));
        t.rep_begin_ticks.push(rep[0] & mask);
    }
    if let (Some(a), Some(b)) = (raw.first(), raw.last()) {
        t.span_ticks = Some((a & mask, b & mask));
    }
    t
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_is_the_raw_timestamps_gcd() {
        // Raw values on a 32-tick grid (as NVIDIA's): the step is 32 ticks × the period.
        let raw = [32 * 1001u64, 32 * 1040, 32 * 7, 32 * 91];
        assert_eq!(to_timings(&raw, 1, 64, 1.0).step_ns, 32.0);
        assert_eq!(to_timings(&raw, 1, 64, 0.5).step_ns, 16.0);
        // One value off the grid: a 1-tick timer.
        assert_eq!(to_timings(&[64, 96, 129, 160], 1, 64, 1.0).step_ns, 1.0);
        assert_eq!(to_timings(&[0, 0], 1, 64, 1.0).step_ns, 0.0);
    }

    #[test]
    fn repetitions_are_placed_on_the_host_clock() {
        // Three repetitions 100 ticks apart, 2 ns a tick, ending at tick 1000.
        let raw = [400u64, 450, 600, 650, 800, 1000];
        let t = to_timings(&raw, 1, 64, 2.0);
        assert_eq!(t.rep_begin_ticks, vec![400, 600, 800]);
        // No correlation: the last end is the fence's time.
        let host = place_on_host(&t, (10_000, 50_000), None, (64, 2.0));
        assert_eq!(host, vec![48_800.0, 49_200.0, 49_600.0]);
        // A believable correlation: tick 0 was host 40 000 ns.
        let m = ClockMap {
            tick: 0,
            monotonic_ns: 40_000,
            realtime_minus_monotonic_ns: 0,
            period_ns: 2.0,
            valid_bits: 64,
            deviation_ns: 0,
        };
        let host = place_on_host(&t, (10_000, 50_000), Some(&m), (64, 2.0));
        assert_eq!(host, vec![40_800.0, 41_200.0, 41_600.0]);
        // One that puts the batch 90 ms after its fence was seen: the anchor instead.
        let late = ClockMap {
            monotonic_ns: 90_000_000,
            ..m
        };
        let host = place_on_host(&t, (10_000, 50_000), Some(&late), (64, 2.0));
        assert_eq!(host, vec![48_800.0, 49_200.0, 49_600.0]);
        assert!(place_on_host(&Timings::default(), (0, 1), None, (64, 1.0)).is_empty());
    }

    #[test]
    fn masks_and_wraps() {
        // A 32-bit counter that wraps between begin and end still gives the right span.
        let raw = [0xFFFF_FFF0u64, 0x10, 0x20, 0x40];
        let t = to_timings(&raw, 2, 32, 2.0);
        assert_eq!(t.pass_ns, vec![vec![64.0, 64.0]]);
        assert_eq!(t.rep_ns, vec![(0x40u64 + 0x10) as f64 * 2.0]);
    }

    #[test]
    fn timestamp_count_never_wraps() {
        assert_eq!(timestamp_count(10, 3).unwrap(), 60);
        assert_eq!(timestamp_count(100_000, 1).unwrap(), 200_000);
        // 2^31 repetitions of one pass wrapped to 0 timestamps as u32 arithmetic.
        let e = timestamp_count(2_147_483_648, 1).unwrap_err().to_string();
        assert!(
            e.contains("2147483648 repetitions") && e.contains("--reps"),
            "{e}"
        );
        assert!(timestamp_count(1 << 20, 1 << 12).is_err());
        assert!(timestamp_count(1, usize::MAX).is_err());
    }

    fn map(tick: u64, monotonic_ns: i128, valid_bits: u32) -> ClockMap {
        ClockMap {
            tick,
            monotonic_ns,
            realtime_minus_monotonic_ns: 1_000,
            period_ns: 1.0,
            valid_bits,
            deviation_ns: 0,
        }
    }

    #[test]
    fn spans_and_realtimes_follow_a_wrapping_counter() {
        // A 36-bit counter that wrapped between the two readings: 100 ticks, not -2^36 + 100.
        let top = (1u64 << 36) - 40;
        let (a, b) = (map(top, 5_000, 36), map(60, 5_100, 36));
        assert_eq!(b.span_since(&a), (100.0, 100.0));
        assert_eq!(a.realtime_of(60), 5_000 + 100 + 1_000);
        // A tick before the calibration reads earlier, not 2^36 ticks later.
        assert_eq!(b.realtime_of((1u64 << 36) - 40), 5_100 - 100 + 1_000);
        // 64 valid bits: plain differences.
        assert_eq!(map(200, 0, 64).span_since(&map(150, 0, 64)).0, 50.0);
    }
}
