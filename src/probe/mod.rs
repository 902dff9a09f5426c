//! In-shader probes (glsl/common/p3lab.glsl, `P3_PROBE_GROUPS`): decoding the per-subgroup
//! records the shader wrote at set 3, binding 1, and what they say about the run: how many
//! warps / waves and workgroups ran at once per SM (or over the whole device without SM ids),
//! whether that is physically possible, the order in which groups started, and how long the
//! last groups kept the device busy alone. Pure: no Vulkan here.
//!
//! Every subgroup writes its own record: one elected lane stores the start time when the
//! subgroup enters `main()` and the end time when it leaves, so a record never claims time
//! the subgroup was not resident. A workgroup's record is the union of its subgroups'
//! (first start to last end): the launch-order picture and the group counts use it.
pub mod analysis;
pub mod picture;

pub use analysis::{analyze, judge, Analysis, Expected, UnitCount, Verdict, SUSTAIN};
pub use picture::{file_part, short_hash, svg, viridis};

/// The descriptor set p3lab reserves for its in-shader probe (glsl/common/p3lab.glsl).
pub const PROBE_SET: u32 = 3;
/// Bytes of one subgroup's record (`uvec4`).
pub const RECORD_BYTES: u64 = 16;
/// Spec constant of glsl/common/p3lab.glsl: the first record slot of a pass.
pub const BASE_SPEC_ID: u32 = 2040;
/// Spec constant of glsl/common/p3lab.glsl: record slots per workgroup.
pub const SLOTS_SPEC_ID: u32 = 2041;
const BEGUN: u32 = 1 << 31;
const ENDED: u32 = 1 << 30;

/// Record slots per workgroup: one per subgroup at the device's smallest subgroup size, so
/// every subgroup has a slot whatever size runs.
pub fn slots_per_group(workgroup: [u32; 3], min_subgroup_size: u32) -> u32 {
    let n = workgroup[0] * workgroup[1] * workgroup[2];
    n.div_ceil(min_subgroup_size.max(1)).max(1)
}

/// Which shader clock the records hold (the value of the `P3_PROBE_GROUPS` define).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// `clockRealtime2x32EXT()`: device scope, comparable between groups.
    Device = 1,
    /// `clock2x32ARB()`: subgroup scope; comparable between groups only where the driver
    /// happens to share one counter (start and end of one subgroup are always comparable).
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

/// One subgroup's record, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Subgroup {
    /// The probe clock when the subgroup entered `main()`, in ticks ([`Clock`]; ns on NVIDIA's
    /// device clock).
    pub start: u64,
    /// The probe clock when it left, in the same ticks (its high word rebuilt from the start's).
    pub end: u64,
    /// SM id and warp id (only with `P3_HAVE_SM_BUILTINS`).
    pub sm: Option<u32>,
    /// The warp id within its SM (`gl_WarpIDNV`), only with `P3_HAVE_SM_BUILTINS`.
    pub warp: Option<u32>,
    /// Lanes of the subgroup as it ran (`gl_SubgroupSize`, the record's low byte).
    pub subgroup_size: u32,
}

/// A workgroup: the union of its subgroups' records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// The first subgroup's start and the last subgroup's end.
    pub start: u64,
    /// The last subgroup's end, in clock ticks.
    pub end: u64,
    /// The SM of its first recorded subgroup (a workgroup runs on one SM).
    pub sm: Option<u32>,
    /// Subgroups that left a complete record.
    pub subgroups: u32,
}

/// The read-back records of one pass.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Records {
    /// `groups × slots` entries, group by group; None where no complete record is.
    pub subgroups: Vec<Option<Subgroup>>,
    /// Record slots per group.
    pub slots: usize,
    /// Records that began but never ended (the subgroup left without `p3_group_end()`).
    pub unfinished: usize,
}

impl Records {
    /// Workgroups the records cover: entries ÷ slots per group.
    pub fn groups(&self) -> usize {
        self.subgroups.len() / self.slots.max(1)
    }

    /// Each group's window of full residency: from its last subgroup's start to its first
    /// subgroup's end, when every one of its subgroups was on the SM at once; None where it has
    /// no record or no such window. Groups are counted over these windows: a group whose first
    /// warps have left while its last ones still run holds only those warps' slots, and the
    /// hardware starts the next group beside them (seen on the H200: 25 groups of 64 threads
    /// against 24 by registers, with the warps at their 48). Counting such a group twice is
    /// the overcount issue 12 is about.
    pub fn group_full_windows(&self) -> Vec<Option<(u64, u64, Option<u32>)>> {
        self.subgroups
            .chunks(self.slots.max(1))
            .map(|subs| {
                let done: Vec<&Subgroup> = subs.iter().flatten().collect();
                let first = done.first()?;
                let start = done.iter().map(|s| s.start).max()?;
                let end = done.iter().map(|s| s.end.max(s.start)).min()?;
                (end > start).then_some((start, end, first.sm))
            })
            .collect()
    }

    /// Each group's record: the union of its complete subgroup records; None where it has none.
    pub fn group_records(&self) -> Vec<Option<Group>> {
        self.subgroups
            .chunks(self.slots.max(1))
            .map(|subs| {
                let done: Vec<&Subgroup> = subs.iter().flatten().collect();
                let first = done.first()?;
                Some(Group {
                    start: done.iter().map(|s| s.start).min()?,
                    end: done.iter().map(|s| s.end.max(s.start)).max()?,
                    sm: first.sm,
                    subgroups: done.len() as u32,
                })
            })
            .collect()
    }
}

/// Decode the records of `groups` groups of `slots` slots each from the read-back buffer. A
/// slot no subgroup used, or one whose subgroup began and never ended, is `None`.
pub fn decode(bytes: &[u8], groups: usize, slots: usize, sm_builtins: bool) -> Records {
    let word = |i: usize| -> u32 {
        bytes
            .get(i * 4..i * 4 + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .unwrap_or(0)
    };
    let mut unfinished = 0;
    let subgroups = (0..groups * slots)
        .map(|r| {
            let (lo, hi, end_lo, info) = (
                word(4 * r),
                word(4 * r + 1),
                word(4 * r + 2),
                word(4 * r + 3),
            );
            if info & (BEGUN | ENDED) != BEGUN | ENDED {
                if info & BEGUN != 0 {
                    unfinished += 1;
                }
                return None;
            }
            let start = (u64::from(hi) << 32) | u64::from(lo);
            // The end's high word is the start's, or one more when the low word wrapped.
            let mut end = (u64::from(hi) << 32) | u64::from(end_lo);
            if end_lo < lo {
                end = end.wrapping_add(1 << 32);
            }
            Some(Subgroup {
                start,
                end,
                sm: sm_builtins.then_some((info >> 16) & 0x3fff),
                warp: sm_builtins.then_some((info >> 8) & 0xff),
                subgroup_size: info & 0xff,
            })
        })
        .collect();
    Records {
        subgroups,
        slots,
        unfinished,
    }
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
        let d = decode(&b, 5, 1, true);
        assert_eq!(d.subgroups.len(), 5);
        assert_eq!(d.unfinished, 1);
        assert_eq!(
            d.subgroups[0],
            Some(Subgroup {
                start: 10,
                end: 20,
                sm: Some(77),
                warp: Some(5),
                subgroup_size: 32
            })
        );
        let w = d.subgroups[1].unwrap();
        assert_eq!((w.start, w.end), (0x1_ffff_fff0, 0x2_0000_0010));
        assert_eq!(d.subgroups[2], None);
        assert_eq!(d.subgroups[3], None);
        // Past the end of the buffer: no record.
        assert_eq!(d.subgroups[4], None);
        let d = decode(&b, 1, 1, false);
        let s = d.subgroups[0].unwrap();
        assert_eq!((s.sm, s.warp), (None, None));
    }

    #[test]
    fn a_group_is_the_union_of_its_subgroups() {
        // Two groups of 4 slots: group 0 ran three subgroups, group 1 none.
        let b = bytes(&[
            rec(30, 90, 8 | (3 << 16)),
            rec(10, 50, 8 | (3 << 16)),
            rec(20, 100, 8 | (3 << 16)),
            [0; 4],
            [0; 4],
            [0; 4],
            [0; 4],
            [0; 4],
        ]);
        let r = decode(&b, 2, 4, true);
        assert_eq!(r.groups(), 2);
        assert_eq!(
            r.group_records(),
            vec![
                Some(Group {
                    start: 10,
                    end: 100,
                    sm: Some(3),
                    subgroups: 3
                }),
                None
            ]
        );
    }

    #[test]
    fn slots_cover_the_smallest_subgroup_size() {
        assert_eq!(slots_per_group([256, 1, 1], 32), 8);
        assert_eq!(slots_per_group([8, 8, 1], 8), 8);
        assert_eq!(slots_per_group([33, 1, 1], 32), 2);
        assert_eq!(slots_per_group([1024, 1, 1], 8), 128);
        assert_eq!(slots_per_group([1, 1, 1], 64), 1);
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
}
