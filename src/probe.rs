//! Per-workgroup probes (glsl/common/p3lab.glsl, `P3_PROBE_GROUPS`): decoding the records the
//! shader wrote at set 3, binding 1, and what they say about the run: how many groups ran at
//! once per SM (or over the whole device without SM ids), the order in which groups started, and
//! how long the last groups kept the device busy alone. Pure: no Vulkan here.
use std::fmt::Write as _;

/// Bytes of one group's record (`uvec4`).
/// The descriptor set p3lab reserves for its in-shader probe (glsl/common/p3lab.glsl).
pub const PROBE_SET: u32 = 3;
pub const RECORD_BYTES: u64 = 16;
const BEGUN: u32 = 1 << 31;
const ENDED: u32 = 1 << 30;

/// Which shader clock the records hold (the value of the `P3_PROBE_GROUPS` define).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// `clockRealtime2x32EXT()`: device scope, comparable between groups.
    Device = 1,
    /// `clock2x32ARB()`: subgroup scope; comparable between groups only where the driver
    /// happens to share one counter (start and end of one group are always comparable).
    Subgroup = 2,
}

impl Clock {
    /// The clock to use given the enabled features `shader_device_clock` and
    /// `shader_subgroup_clock`; `None` when the device has neither.
    pub fn pick(device: bool, subgroup: bool) -> Option<Clock> {
        match (device, subgroup) {
            (true, _) => Some(Clock::Device),
            (false, true) => Some(Clock::Subgroup),
            _ => None,
        }
    }

    /// Nanoseconds per tick where the rate is documented: NVIDIA's realtime clock is the
    /// globaltimer, in ns. Anything else stays in ticks.
    pub fn ns_per_tick(self, vendor_id: u32) -> Option<f64> {
        match (self, vendor_id) {
            (Clock::Device, 0x10de) => Some(1.0),
            _ => None,
        }
    }
}

/// One workgroup's record, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    pub start: u64,
    pub end: u64,
    /// SM id and warp id (only with `P3_HAVE_SM_BUILTINS`).
    pub sm: Option<u32>,
    pub warp: Option<u32>,
    pub subgroup_size: u32,
}

/// Decode the first `count` records of the read-back buffer. A group that never began or never
/// ended (the shader does not call the probe, or returned before `p3_group_end()`) is `None`.
pub fn decode(bytes: &[u8], count: usize, sm_builtins: bool) -> Vec<Option<Group>> {
    let word = |i: usize| -> u32 {
        bytes
            .get(i * 4..i * 4 + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .unwrap_or(0)
    };
    (0..count)
        .map(|g| {
            let (lo, hi, end_lo, info) = (
                word(4 * g),
                word(4 * g + 1),
                word(4 * g + 2),
                word(4 * g + 3),
            );
            if info & (BEGUN | ENDED) != BEGUN | ENDED {
                return None;
            }
            let start = (u64::from(hi) << 32) | u64::from(lo);
            // The end's high word is the start's, or one more when the low word wrapped.
            let mut end = (u64::from(hi) << 32) | u64::from(end_lo);
            if end_lo < lo {
                end = end.wrapping_add(1 << 32);
            }
            Some(Group {
                start,
                end,
                sm: sm_builtins.then_some((info >> 16) & 0x3fff),
                warp: sm_builtins.then_some((info >> 8) & 0xff),
                subgroup_size: info & 0xff,
            })
        })
        .collect()
}

/// What the records say.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    /// Groups of the grid, and how many of them left a complete record.
    pub groups: usize,
    pub recorded: usize,
    /// Distinct SM ids seen (1 without SM ids: the whole device is one unit).
    pub units: usize,
    /// Most groups running at once on one SM (on the device without SM ids) for at least
    /// `SUSTAIN` of the median group's duration: the hand-over of one group to the next, while
    /// the old group's last warp records its end, is not counted.
    pub per_unit_max: u32,
    /// Most groups at once at any instant, hand-overs included.
    pub per_unit_peak: u32,
    /// Time-weighted mean of the groups running at once on an SM, over that SM's busy window
    /// (first start to last end on it), averaged over the SMs.
    pub per_unit_mean: f64,
    /// Last end minus first start, in ticks.
    pub span: u64,
    /// Time from the 95th-percentile end to the last end, as % of the span.
    pub tail_pct: f64,
    /// Start rank of each group (0 = first to start; ties by flat index), `None` if unrecorded.
    pub ranks: Vec<Option<u32>>,
    /// Spearman correlation of start rank with flat group index (1 = row-major launch order).
    pub rank_corr: f64,
}

/// Analyse decoded records; `None` when no group left a record.
pub fn analyze(groups: &[Option<Group>]) -> Option<Analysis> {
    let rec: Vec<(usize, Group)> = groups
        .iter()
        .enumerate()
        .filter_map(|(i, g)| g.map(|g| (i, g)))
        .collect();
    if rec.is_empty() {
        return None;
    }
    let first = rec.iter().map(|(_, g)| g.start).min().unwrap();
    let last = rec.iter().map(|(_, g)| g.end.max(g.start)).max().unwrap();
    let span = last - first;

    // Concurrency per unit (SM id, or the device).
    let mut units: std::collections::BTreeMap<Option<u32>, Vec<(u64, u64)>> = Default::default();
    for (_, g) in &rec {
        units
            .entry(g.sm)
            .or_default()
            .push((g.start, g.end.max(g.start)));
    }
    let mut durations: Vec<u64> = rec
        .iter()
        .map(|(_, g)| g.end.saturating_sub(g.start))
        .collect();
    durations.sort_unstable();
    let tau = (durations[durations.len() / 2] as f64 * SUSTAIN) as u64;
    let (mut per_unit_max, mut per_unit_peak) = (0u32, 0u32);
    let mut means = Vec::new();
    for intervals in units.values() {
        let (peak, mean) = concurrency(intervals);
        per_unit_peak = per_unit_peak.max(peak);
        per_unit_max = per_unit_max.max(sustained(intervals, tau));
        means.push(mean);
    }
    let per_unit_mean = means.iter().sum::<f64>() / means.len() as f64;

    // Tail: 95th-percentile end (nearest rank) to the last end.
    let mut ends: Vec<u64> = rec.iter().map(|(_, g)| g.end.max(g.start)).collect();
    ends.sort_unstable();
    let k = ((0.95 * ends.len() as f64).ceil() as usize).clamp(1, ends.len()) - 1;
    let tail_pct = if span == 0 {
        0.0
    } else {
        (last - ends[k]) as f64 / span as f64 * 100.0
    };

    // Launch order.
    let mut order: Vec<(u64, usize)> = rec.iter().map(|(i, g)| (g.start, *i)).collect();
    order.sort_unstable();
    let mut ranks = vec![None; groups.len()];
    for (r, (_, i)) in order.iter().enumerate() {
        ranks[*i] = Some(r as u32);
    }
    // Spearman over the recorded groups: ranks of the flat index among recorded groups.
    let n = rec.len() as f64;
    let rank_corr = if rec.len() < 2 {
        1.0
    } else {
        let d2: f64 = rec
            .iter()
            .enumerate()
            .map(|(idx_rank, (i, _))| {
                let d = ranks[*i].unwrap() as f64 - idx_rank as f64;
                d * d
            })
            .sum();
        1.0 - 6.0 * d2 / (n * (n * n - 1.0))
    };
    Some(Analysis {
        groups: groups.len(),
        recorded: rec.len(),
        units: units.len(),
        per_unit_max,
        per_unit_peak,
        per_unit_mean,
        span,
        tail_pct,
        ranks,
        rank_corr,
    })
}

/// Most intervals open at once, and the time-weighted mean of the open count over the window
/// from the first start to the last end. Intervals are half-open: one that ends when another
/// starts does not overlap it. A zero-length window counts every interval as concurrent.
/// A level of concurrency counts when it lasts at least this share of the median group's
/// duration. On the H200 the next group on an SM starts as soon as the old group's other warps
/// have left, while its first warp still records the end: without this the probe counted
/// 1-3 groups more than the SM can hold in 14 of 385 rows.
pub const SUSTAIN: f64 = 0.1;

/// The most intervals open together for an unbroken stretch of at least `tau` ticks.
fn sustained(intervals: &[(u64, u64)], tau: u64) -> u32 {
    if tau == 0 {
        return concurrency(intervals).0;
    }
    // An empty interval lasts no time; without them every end follows its own start.
    let mut events: Vec<(u64, i32)> = Vec::with_capacity(intervals.len() * 2);
    for &(s, e) in intervals.iter().filter(|(s, e)| e > s) {
        events.push((s, 1));
        events.push((e, -1));
    }
    events.sort_unstable();
    let levels = intervals.len();
    // since[l]: when the open count last rose to at least l (None while below l).
    let mut since: Vec<Option<u64>> = vec![None; levels + 2];
    let (mut open, mut best) = (0usize, 0u32);
    for (t, d) in events {
        if d > 0 {
            open += 1;
            since[open] = Some(t);
        } else {
            if let Some(s) = since[open].take() {
                if t - s >= tau {
                    // Every level up to `open` lasted at least as long.
                    best = best.max(open as u32);
                }
            }
            open -= 1;
        }
    }
    best
}

fn concurrency(intervals: &[(u64, u64)]) -> (u32, f64) {
    let mut events: Vec<(u64, i32)> = Vec::with_capacity(intervals.len() * 2);
    for &(s, e) in intervals {
        events.push((s, 1));
        events.push((e, -1));
    }
    // Ends (-1) sort before starts (+1) at the same time.
    events.sort_unstable();
    let (mut open, mut max) = (0i32, 0i32);
    for (_, d) in &events {
        open += d;
        max = max.max(open);
    }
    let lo = intervals.iter().map(|i| i.0).min().unwrap_or(0);
    let hi = intervals.iter().map(|i| i.1).max().unwrap_or(0);
    let busy: u64 = intervals.iter().map(|(s, e)| e - s).sum();
    let mean = if hi > lo {
        busy as f64 / (hi - lo) as f64
    } else {
        intervals.len() as f64
    };
    (max.max(0) as u32, mean)
}

/// Viridis, 9 stops (perceptually uniform, readable in grey and by most colour-blind readers).
const VIRIDIS: [[u8; 3]; 9] = [
    [68, 1, 84],
    [71, 44, 122],
    [59, 81, 139],
    [44, 113, 142],
    [33, 144, 141],
    [39, 173, 129],
    [92, 200, 99],
    [170, 220, 50],
    [253, 231, 37],
];

/// Colour of `t` in [0, 1] on the viridis gradient, as `#rrggbb`.
pub fn viridis(t: f64) -> String {
    let t = t.clamp(0.0, 1.0) * (VIRIDIS.len() - 1) as f64;
    let i = (t.floor() as usize).min(VIRIDIS.len() - 2);
    let f = t - i as f64;
    let c: Vec<u8> = (0..3)
        .map(|k| {
            let a = VIRIDIS[i][k] as f64;
            let b = VIRIDIS[i + 1][k] as f64;
            (a + (b - a) * f).round() as u8
        })
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The launch-order picture: the group grid (X across, Y down; Z slices stacked downwards),
/// each group a cell coloured by its start rank (dark = first, yellow = last, grey = no
/// record), with the rank written in the cell when cells are large enough.
/// Most cells drawn in a launch-order picture; bigger grids are drawn in blocks.
pub const MAX_CELLS: u64 = 8192;
/// Pictures of at most this many cells get a tooltip per cell (group and start rank).
pub const TOOLTIP_CELLS: u64 = 2048;
/// A 1-D grid of more groups than this is drawn in rows.
pub const ROW: u32 = 128;

pub fn svg(grid: [u32; 3], ranks: &[Option<u32>], title: &str, subtitle: &str) -> String {
    // A long 1-D grid is drawn row by row, ROW groups per row (the flat index order), instead of
    // as one line tens of thousands of pixels wide.
    let (grid, row_note) = if grid[1] <= 1 && grid[2] <= 1 && grid[0] > ROW {
        // Rows of a power of two near the square root: a roughly square picture.
        let row = ((grid[0] as f64).sqrt().ceil() as u32).next_power_of_two();
        (
            [row, grid[0].div_ceil(row), 1],
            format!("; 1-D grid drawn in rows of {row} groups"),
        )
    } else {
        (grid, String::new())
    };
    let subtitle = format!("{subtitle}{row_note}");
    let [fx, fy, gz] = [grid[0].max(1), grid[1].max(1), grid[2].max(1)];
    // A big grid is drawn in blocks of b x b groups, each coloured by the mean start rank of
    // its recorded groups, so the file stays small (a 320x180 grid was 9 MB cell by cell).
    let cells = fx as u64 * fy as u64 * gz as u64;
    let b = if cells > MAX_CELLS {
        ((cells as f64 / MAX_CELLS as f64).sqrt().ceil() as u32).max(2)
    } else {
        1
    };
    let (gx, gy) = (fx.div_ceil(b), fy.div_ceil(b));
    let block_rank = |x: u32, y: u32, z: u32| -> Option<u32> {
        let (mut sum, mut n) = (0u64, 0u64);
        for yy in y * b..((y + 1) * b).min(fy) {
            for xx in x * b..((x + 1) * b).min(fx) {
                let i = (xx + fx * (yy + fy * z)) as usize;
                if let Some(r) = ranks.get(i).copied().flatten() {
                    sum += u64::from(r);
                    n += 1;
                }
            }
        }
        (n > 0).then(|| (sum / n) as u32)
    };
    let subtitle = if b > 1 {
        format!("{subtitle}; each cell: mean start rank of {b}x{b} groups")
    } else {
        subtitle
    };
    // Per-cell tooltips only on small pictures: they triple the bytes per cell.
    let tooltips = b == 1 && cells <= TOOLTIP_CELLS;
    let subtitle = subtitle.as_str();
    let cell = (720.0 / gx.max(gy) as f64).clamp(2.0, 40.0);
    let gap = if gz > 1 { cell } else { 0.0 };
    let (left, top, bottom) = (10.0, 46.0, 34.0);
    // Wide enough for the grid and the subtitle (about 6 px per character at 11 px).
    let text_w = left * 2.0 + 6.2 * subtitle.chars().count().max(title.chars().count()) as f64;
    let w = (left * 2.0 + cell * gx as f64).max(text_w).max(360.0);
    let h = top + bottom + (cell * gy as f64 + gap) * gz as f64;
    let max_rank = ranks.iter().flatten().copied().max().unwrap_or(0).max(1) as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="18" font-size="14">{}</text>"#,
        esc(title)
    );
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="36" font-size="11" fill="#444">{}</text>"##,
        esc(subtitle)
    );
    let label = tooltips && cell >= 18.0;
    for z in 0..gz {
        let y0 = top + (cell * gy as f64 + gap) * z as f64;
        for y in 0..gy {
            for x in 0..gx {
                let rank = block_rank(x, y, z);
                let fill = match rank {
                    Some(r) => viridis(r as f64 / max_rank),
                    None => "#bbbbbb".into(),
                };
                let (px, py) = (left + cell * x as f64, y0 + cell * y as f64);
                if !tooltips {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{px:.1}" y="{py:.1}" width="{cell:.1}" height="{cell:.1}" fill="{fill}"/>"#
                    );
                } else {
                    let _ = writeln!(
                        s,
                        r#"<rect x="{px:.2}" y="{py:.2}" width="{cell:.2}" height="{cell:.2}" fill="{fill}" stroke="white" stroke-width="{:.2}"><title>group ({x}, {y}, {z}): start rank {}</title></rect>"#,
                        (cell * 0.04).min(1.0),
                        rank.map(|r| r.to_string()).unwrap_or_else(|| "none".into())
                    );
                }
                if let (true, Some(r)) = (label, rank) {
                    let ink = if (r as f64 / max_rank) > 0.6 {
                        "black"
                    } else {
                        "white"
                    };
                    let _ = writeln!(
                        s,
                        r#"<text x="{:.2}" y="{:.2}" font-size="{:.1}" text-anchor="middle" fill="{ink}">{r}</text>"#,
                        px + cell / 2.0,
                        py + cell * 0.62,
                        cell * 0.36
                    );
                }
            }
        }
    }
    // Legend: the gradient from first to last start.
    let ly = h - bottom + 10.0;
    let steps = 32;
    let lw = 200.0;
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="{:.1}" font-size="11">first</text>"#,
        ly + 10.0
    );
    for k in 0..steps {
        let _ = writeln!(
            s,
            r#"<rect x="{:.2}" y="{ly:.1}" width="{:.2}" height="12" fill="{}"/>"#,
            left + 34.0 + lw * k as f64 / steps as f64,
            lw / steps as f64 + 0.5,
            viridis(k as f64 / (steps - 1) as f64)
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="11">last to start</text>"#,
        left + 40.0 + lw,
        ly + 10.0
    );
    s.push_str("</svg>\n");
    s
}

/// FNV-1a of `s`, as 8 hex digits: the params part of the probe picture's file name.
pub fn short_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", (h ^ (h >> 32)) as u32)
}

/// A name safe for a file: anything but ASCII letters, digits, `-`, `_` and `.` becomes `_`.
pub fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(start: u64, end: u64, info: u32) -> [u32; 4] {
        [
            start as u32,
            (start >> 32) as u32,
            end as u32,
            info | BEGUN | ENDED,
        ]
    }

    fn bytes(recs: &[[u32; 4]]) -> Vec<u8> {
        recs.iter()
            .flat_map(|r| r.iter().flat_map(|w| w.to_le_bytes()))
            .collect()
    }

    fn g(start: u64, end: u64) -> Option<Group> {
        Some(Group {
            start,
            end,
            sm: None,
            warp: None,
            subgroup_size: 32,
        })
    }

    #[test]
    fn decode_fields_and_wrap() {
        let info = 32 | (5 << 8) | (77 << 16);
        let b = bytes(&[
            rec(10, 20, info),
            // The low word wraps between start and end.
            rec(0x1_ffff_fff0, 0x2_0000_0010, info),
            [1, 0, 0, BEGUN], // began, never ended
            [0, 0, 0, 0],     // never began
        ]);
        let d = decode(&b, 5, true);
        assert_eq!(d.len(), 5);
        assert_eq!(
            d[0],
            Some(Group {
                start: 10,
                end: 20,
                sm: Some(77),
                warp: Some(5),
                subgroup_size: 32
            })
        );
        let w = d[1].unwrap();
        assert_eq!((w.start, w.end), (0x1_ffff_fff0, 0x2_0000_0010));
        assert_eq!(d[2], None);
        assert_eq!(d[3], None);
        // Past the end of the buffer: no record.
        assert_eq!(d[4], None);
        let d = decode(&b, 1, false);
        assert_eq!((d[0].unwrap().sm, d[0].unwrap().warp), (None, None));
    }

    #[test]
    fn concurrency_half_open_and_weighted() {
        // Back to back: never two at once.
        assert_eq!(concurrency(&[(0, 10), (10, 20)]), (1, 1.0));
        // Two fully overlapped for half the window.
        let (max, mean) = concurrency(&[(0, 10), (0, 10), (10, 20)]);
        assert_eq!(max, 2);
        assert!((mean - 1.5).abs() < 1e-12);
        // All at one instant.
        assert_eq!(concurrency(&[(5, 5), (5, 5)]).1, 2.0);
    }

    #[test]
    fn brief_hand_overs_do_not_count() {
        // Two groups at a time, each 100 ticks; every hand-over overlaps by 3 ticks.
        let iv: Vec<(u64, u64)> = (0..10u64)
            .flat_map(|k| [(k * 97, k * 97 + 100), (k * 97 + 40, k * 97 + 140)])
            .collect();
        assert_eq!(concurrency(&iv).0, 3);
        assert_eq!(sustained(&iv, 10), 2);
        assert_eq!(sustained(&iv, 0), 3);
        // A level held exactly tau long counts; a single interval is level 1.
        assert_eq!(sustained(&[(0, 10), (0, 10)], 10), 2);
        assert_eq!(sustained(&[(0, 10)], 11), 0);
        assert_eq!(sustained(&[(0, 10)], 5), 1);
        // Empty intervals last no time.
        assert_eq!(sustained(&[(5, 5), (5, 5), (0, 10)], 3), 1);
        assert_eq!(
            sustained(&[(0, 10), (2, 3)], 0),
            concurrency(&[(0, 10), (2, 3)]).0
        );
    }

    #[test]
    fn per_sm_concurrency() {
        let mk = |start, end, sm| {
            Some(Group {
                start,
                end,
                sm: Some(sm),
                warp: Some(0),
                subgroup_size: 32,
            })
        };
        // SM 0: two at once all the time; SM 1: one, then one.
        let a = analyze(&[mk(0, 10, 0), mk(0, 10, 0), mk(0, 5, 1), mk(5, 10, 1)]).unwrap();
        assert_eq!(a.units, 2);
        assert_eq!(a.per_unit_max, 2);
        assert!((a.per_unit_mean - 1.5).abs() < 1e-12);
        // Without SM ids the same groups are one device: four at once at most.
        let d: Vec<_> = [(0, 10), (0, 10), (0, 5), (5, 10)]
            .iter()
            .map(|&(s, e)| g(s, e))
            .collect();
        let a = analyze(&d).unwrap();
        assert_eq!((a.units, a.per_unit_max), (1, 3));
        assert!((a.per_unit_mean - 3.0).abs() < 1e-12);
    }

    #[test]
    fn ranks_correlation_tail_span() {
        // Row-major launch: rank = index, correlation 1.
        let d: Vec<_> = (0..20u64).map(|i| g(100 + i, 110 + i)).collect();
        let a = analyze(&d).unwrap();
        assert_eq!(a.ranks, (0..20).map(Some).collect::<Vec<_>>());
        assert!((a.rank_corr - 1.0).abs() < 1e-12);
        assert_eq!(a.span, 29);
        // 95th percentile of 20 ends is the 19th (128); the last is 129.
        assert!((a.tail_pct - 100.0 / 29.0).abs() < 1e-9);
        // Reversed launch: correlation -1.
        let d: Vec<_> = (0..20u64).map(|i| g(100 - i, 110 - i)).collect();
        let a = analyze(&d).unwrap();
        assert!((a.rank_corr + 1.0).abs() < 1e-12);
        assert_eq!(a.ranks[19], Some(0));
        // A straggler makes a long tail.
        let mut d: Vec<_> = (0..99u64).map(|i| g(i, i + 10)).collect();
        d.push(g(0, 1000));
        let a = analyze(&d).unwrap();
        assert!(a.tail_pct > 85.0, "{}", a.tail_pct);
        // Unrecorded groups have no rank and do not count.
        let a = analyze(&[None, g(5, 6), None, g(1, 2)]).unwrap();
        assert_eq!(a.ranks, vec![None, Some(1), None, Some(0)]);
        assert_eq!((a.groups, a.recorded), (4, 2));
        assert!(analyze(&[None, None]).is_none());
    }

    #[test]
    fn clock_choice_and_rate() {
        assert_eq!(Clock::pick(true, true), Some(Clock::Device));
        assert_eq!(Clock::pick(false, true), Some(Clock::Subgroup));
        assert_eq!(Clock::pick(false, false), None);
        assert_eq!(Clock::Device.ns_per_tick(0x10de), Some(1.0));
        assert_eq!(Clock::Subgroup.ns_per_tick(0x10de), None);
        assert_eq!(Clock::Device.ns_per_tick(0x10005), None);
    }

    #[test]
    fn svg_cells_and_gradient() {
        assert_eq!(viridis(0.0), "#440154");
        assert_eq!(viridis(1.0), "#fde725");
        let s = svg(
            [3, 2, 1],
            &[Some(0), Some(1), None, Some(2), Some(3), Some(4)],
            "t<1>",
            "s",
        );
        assert!(s.starts_with("<svg"));
        assert!(s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<title>group").count(), 6);
        assert!(s.contains("t&lt;1&gt;"));
        assert!(s.contains("#bbbbbb"));
        assert!(s.contains("group (2, 0, 0): start rank none"));
    }

    #[test]
    fn big_grids_are_drawn_in_blocks() {
        // 320x180 groups in row-major order: 57600 cells become 107x60 blocks of 3x3.
        let (gx, gy) = (320u32, 180u32);
        let ranks: Vec<Option<u32>> = (0..gx * gy).map(Some).collect();
        let s = svg([gx, gy, 1], &ranks, "t", "s");
        assert!(s.contains("mean start rank of 3x3 groups"), "{}", &s[..400]);
        let cells = s.matches("<rect").count() - 1 - 32; // background and legend
        assert_eq!(cells, 107 * 60);
        assert!(s.len() < 1_000_000, "{} bytes", s.len());
        // A 1-D grid of 131072 groups: rows of 512 (512 x 256), then blocks of 4x4.
        let ranks: Vec<Option<u32>> = (0..131072).map(Some).collect();
        let s = svg([131072, 1, 1], &ranks, "t", "s");
        assert!(s.contains("rows of 512 groups"));
        assert!(s.contains("mean start rank of 4x4 groups"));
        let w: f64 = s[s.find("width=\"").unwrap() + 7..]
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(w < 2000.0, "{w} px wide");
        assert!(s.len() < 1_000_000, "{} bytes", s.len());
        assert!(!s.contains("<title>"));
        let small = svg([4, 4, 1], &ranks[..16], "t", "s");
        assert!(!small.contains("mean start rank"));
    }

    #[test]
    fn names() {
        assert_eq!(short_hash("width=176").len(), 8);
        assert_ne!(short_hash("width=176"), short_hash("width=177"));
        assert_eq!(file_part("a/b c-1.x"), "a_b_c-1.x");
    }
}
