//! Theoretical occupancy: how many workgroups of a compiled shader can be resident on one
//! SM (NVIDIA) or CU (AMD) at once, and which resource stops the next one.
//!
//! Pure arithmetic from what the driver reports (registers per invocation, shared memory per
//! workgroup) and the dispatch shape (invocations per workgroup, subgroup size). Nothing here
//! touches Vulkan; the runner feeds it the pipeline-executable statistics.
//!
//! # NVIDIA: Hopper (H100, H200; compute capability 9.0)
//!
//! The rule of NVIDIA's occupancy calculator (`cuda_occupancy.h`), with Hopper's numbers:
//!
//! * Warps are 32 lanes; a workgroup of `n` invocations takes `ceil(n / 32)` warps.
//! * At most 64 warps (2048 threads) and 32 workgroups ("CTAs") per SM.
//! * Registers: 65536 per SM, split over 4 sub-partitions of 16384. A warp's registers are
//!   `ceil(regs_per_thread * 32 / 256) * 256`; a sub-partition holds
//!   `floor(16384 / regs_per_warp)` warps, the SM four times that. A workgroup also has to fit
//!   the per-workgroup limit of 65536 registers, counting its warps rounded up to a multiple of
//!   4 (the hardware check); at most 255 registers per thread. A workgroup that fails either
//!   check cannot launch at all: 0 groups, limiter "registers".
//! * Shared memory: 228 KiB per SM (the largest L1/shared carve-out; the driver picks the
//!   carve-out, so this is the best case), each workgroup taking its shared memory plus 1 KiB
//!   reserved by the system, rounded up to 128 bytes. So at most 227 KiB for one workgroup.
//!   The Vulkan driver picks the carve-out, not the application: on the H200, 64-thread
//!   groups with 16 or 32 KiB each ran 3x and 8x slower than with 512 bytes, more than
//!   228 KiB predicts (13 and 6 groups against 24), so treat this limit as a best case.
//!
//! The key consequence (GUIDE.md, measured on the H200): two 1024-thread workgroups (64
//! warps) fit on one SM only at ≤ 32 registers per thread; at 33 the warp needs 1280
//! registers, a sub-partition holds 12 warps, the SM 48, and only one workgroup (32 warps,
//! 50 %) is resident. For 1024-thread groups the compiler caps the count at 64 and spills the
//! rest, since at 65 the group no longer fits the SM.
//!
//! # AMD: GCN, wave64 (from seeds/004, "Occupancy and Resource Usage Optimization with Large
//! Thread Groups", Sebastian Aaltonen, GPUOpen)
//!
//! The article's model of a GCN compute unit:
//!
//! * 4 SIMDs per CU, each with a 64 KiB file of 32-bit VGPRs: 65,536 VGPRs per CU, i.e. 256
//!   VGPRs per lane of one SIMD. "VGPRs of the SIMD are evenly divided between threads of the
//!   active waves", so a SIMD holds `floor(256 / vgprs)` waves, capped at 10.
//! * Waves are 64 threads; a 1024-thread group is 16 waves, "distributed equally among the
//!   SIMDs resulting in 4 waves per SIMD". So the CU holds `4 * floor(256 / vgprs)` waves (at
//!   most 40), and `floor(that / waves_per_group)` groups.
//! * 64 KiB LDS per CU: `floor(65536 / lds_per_group)` groups.
//!
//! The article's worked numbers follow: 1024 threads at 32 VGPRs → 2 groups per CU ("each
//! thread may require, at maximum, 32 VGPRs"); at 40 VGPRs → 1 group, 4 waves per SIMD, 40 %
//! occupancy; 512-thread groups: "up to 5 groups fit" (the 40-wave limit); 32 KiB of LDS per
//! group still fits two groups.
//!
//! Two facts are not in the article and are taken from AMD's GCN documentation: VGPRs are
//! allocated in granules of 4, and a CU holds at most 16 workgroups (limiter "groups").
//! SGPRs are not modelled (the article: running out of them is "possible, but unlikely").
//!
//! RDNA (wave32, or wave64 on RDNA) is not modelled: its register file, wave slots and LDS
//! per CU differ between generations and the arguments do not say which one ran, so AMD with a
//! subgroup size other than 64 gives `None`.
//!
//! `waves_per_unit` counts warps per SM (NVIDIA) or waves per CU, all four SIMDs together
//! (AMD; per SIMD it is a quarter of that), and `max_waves_per_unit` is 64 or 40.

/// The GPU vendor, from `VkPhysicalDeviceProperties::vendorID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Nvidia,
    Amd,
    Other,
}

impl Vendor {
    /// 0x10de is NVIDIA, 0x1002 AMD; anything else is `Other`.
    pub fn from_id(vendor_id: u32) -> Vendor {
        match vendor_id {
            0x10de => Vendor::Nvidia,
            0x1002 => Vendor::Amd,
            _ => Vendor::Other,
        }
    }
}

/// Resident workgroups and waves on one SM (NVIDIA) or CU (AMD), and what limits them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Occupancy {
    /// Resident workgroups per SM (NVIDIA) or per CU (AMD).
    pub groups_per_unit: u32,
    /// Resident warps per SM (NVIDIA) or waves per CU, all SIMDs together (AMD).
    pub waves_per_unit: u32,
    /// The hardware maximum of `waves_per_unit`: 64 (Hopper) or 40 (GCN).
    pub max_waves_per_unit: u32,
    /// `waves_per_unit / max_waves_per_unit * 100`.
    pub occupancy_pct: f64,
    /// The resource that binds: "registers", "shared_memory", "threads" or "groups". On a tie
    /// the architectural limits (threads, then groups) are named, because giving back
    /// registers or shared memory would not then add a group.
    pub limiter: &'static str,
}

/// Per-resource limits on resident groups, in the order ties are resolved.
struct Limits {
    threads: u32,
    groups: u32,
    registers: u32,
    shared_memory: u32,
}

impl Limits {
    fn resolve(&self, waves_per_group: u32, max_waves: u32) -> Occupancy {
        let candidates = [
            ("threads", self.threads),
            ("groups", self.groups),
            ("registers", self.registers),
            ("shared_memory", self.shared_memory),
        ];
        let (limiter, groups) = candidates
            .iter()
            .copied()
            .min_by_key(|(_, n)| *n)
            .expect("four candidates");
        let waves = groups * waves_per_group;
        Occupancy {
            groups_per_unit: groups,
            waves_per_unit: waves,
            max_waves_per_unit: max_waves,
            occupancy_pct: waves as f64 / max_waves as f64 * 100.0,
            limiter,
        }
    }
}

/// Theoretical occupancy from the driver's register count, shared memory per group,
/// workgroup size and subgroup size. None when the vendor rule is unknown or an input is missing.
///
/// `None` also when an input is impossible for the vendor: no invocations, more than 1024,
/// a subgroup size the hardware does not have (NVIDIA 32; GCN 64), or more registers than one
/// thread can address (255 on NVIDIA, 256 VGPRs on GCN). See the module docs for the rules.
pub fn theoretical(
    vendor: Vendor,
    registers_per_thread: Option<u32>,
    shared_bytes_per_group: u32,
    workgroup_invocations: u32,
    subgroup_size: u32,
) -> Option<Occupancy> {
    let regs = registers_per_thread?;
    if workgroup_invocations == 0 || workgroup_invocations > 1024 {
        return None;
    }
    match vendor {
        Vendor::Nvidia => hopper(
            regs,
            shared_bytes_per_group,
            workgroup_invocations,
            subgroup_size,
        ),
        Vendor::Amd => gcn(
            regs,
            shared_bytes_per_group,
            workgroup_invocations,
            subgroup_size,
        ),
        Vendor::Other => None,
    }
}

fn round_up(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// Groups of `need` each that fit in `have`; no limit when a group needs nothing.
fn fit(have: u64, need: u64) -> u32 {
    have.checked_div(need)
        .map_or(u32::MAX, |n| n.min(u32::MAX as u64) as u32)
}

// Hopper SM (compute capability 9.0), as in cuda_occupancy.h.
const NV_WARP: u32 = 32;
const NV_MAX_WARPS_PER_SM: u32 = 64;
const NV_MAX_GROUPS_PER_SM: u32 = 32;
const NV_REGS_PER_SM: u64 = 65536;
const NV_REGS_PER_GROUP: u64 = 65536;
const NV_SUB_PARTITIONS: u64 = 4;
const NV_REG_GRANULE: u64 = 256;
const NV_MAX_REGS_PER_THREAD: u32 = 255;
const NV_SHARED_PER_SM: u64 = 228 * 1024;
const NV_SHARED_RESERVED_PER_GROUP: u64 = 1024;
const NV_SHARED_GRANULE: u64 = 128;

fn hopper(regs: u32, shared: u32, invocations: u32, subgroup: u32) -> Option<Occupancy> {
    if subgroup != NV_WARP || regs > NV_MAX_REGS_PER_THREAD {
        return None;
    }
    let warps = invocations.div_ceil(NV_WARP);
    let regs_per_warp = round_up(regs as u64 * NV_WARP as u64, NV_REG_GRANULE);
    let registers = if regs_per_warp * warps as u64 > NV_REGS_PER_GROUP
        || regs_per_warp * round_up(warps as u64, NV_SUB_PARTITIONS) > NV_REGS_PER_GROUP
    {
        0
    } else {
        // No registers at all: no register limit.
        (NV_REGS_PER_SM / NV_SUB_PARTITIONS)
            .checked_div(regs_per_warp)
            .map_or(u32::MAX, |per_sub| {
                (per_sub * NV_SUB_PARTITIONS / warps as u64) as u32
            })
    };
    let shared_alloc = round_up(
        shared as u64 + NV_SHARED_RESERVED_PER_GROUP,
        NV_SHARED_GRANULE,
    );
    let shared_memory = if shared_alloc > NV_SHARED_PER_SM {
        0
    } else {
        fit(NV_SHARED_PER_SM, shared_alloc)
    };
    Some(
        Limits {
            threads: NV_MAX_WARPS_PER_SM / warps,
            groups: NV_MAX_GROUPS_PER_SM,
            registers,
            shared_memory,
        }
        .resolve(warps, NV_MAX_WARPS_PER_SM),
    )
}

// GCN CU, as described in seeds/004 (granule and group limit from AMD's GCN documentation).
const GCN_WAVE: u32 = 64;
const GCN_SIMDS: u32 = 4;
const GCN_VGPRS_PER_LANE: u32 = 256;
const GCN_VGPR_GRANULE: u32 = 4;
const GCN_MAX_WAVES_PER_SIMD: u32 = 10;
const GCN_MAX_GROUPS_PER_CU: u32 = 16;
const GCN_LDS_PER_CU: u64 = 64 * 1024;

fn gcn(vgprs: u32, lds: u32, invocations: u32, subgroup: u32) -> Option<Occupancy> {
    if subgroup != GCN_WAVE || vgprs > GCN_VGPRS_PER_LANE {
        return None;
    }
    let waves = invocations.div_ceil(GCN_WAVE);
    let max_waves = GCN_SIMDS * GCN_MAX_WAVES_PER_SIMD;
    let alloc = vgprs.div_ceil(GCN_VGPR_GRANULE) * GCN_VGPR_GRANULE;
    // No VGPRs at all: no register limit.
    let registers = GCN_VGPRS_PER_LANE
        .checked_div(alloc)
        .map_or(u32::MAX, |per_simd| {
            GCN_SIMDS * per_simd.min(GCN_MAX_WAVES_PER_SIMD) / waves
        });
    let shared_memory = if lds as u64 > GCN_LDS_PER_CU {
        0
    } else {
        fit(GCN_LDS_PER_CU, lds as u64)
    };
    Some(
        Limits {
            threads: max_waves / waves,
            groups: GCN_MAX_GROUPS_PER_CU,
            registers,
            shared_memory,
        }
        .resolve(waves, max_waves),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nv(regs: u32, shared: u32, n: u32) -> Occupancy {
        theoretical(Vendor::Nvidia, Some(regs), shared, n, 32).expect("a Hopper rule")
    }

    fn amd(vgprs: u32, lds: u32, n: u32) -> Occupancy {
        theoretical(Vendor::Amd, Some(vgprs), lds, n, 64).expect("a GCN rule")
    }

    #[test]
    fn vendor_ids() {
        assert_eq!(Vendor::from_id(0x10de), Vendor::Nvidia);
        assert_eq!(Vendor::from_id(0x1002), Vendor::Amd);
        assert_eq!(Vendor::from_id(0x10005), Vendor::Other);
    }

    #[test]
    fn nvidia_1024_thread_cliff_at_32_registers() {
        let two = nv(32, 0, 1024);
        assert_eq!((two.groups_per_unit, two.waves_per_unit), (2, 64));
        assert_eq!(two.occupancy_pct, 100.0);
        // Registers fit exactly; the thread limit is named on the tie.
        assert_eq!(two.limiter, "threads");
        let one = nv(33, 0, 1024);
        assert_eq!((one.groups_per_unit, one.waves_per_unit), (1, 32));
        assert_eq!(one.occupancy_pct, 50.0);
        assert_eq!(one.limiter, "registers");
        // Still one group up to the 64-register cap; none past it.
        assert_eq!(nv(64, 0, 1024).groups_per_unit, 1);
        let none = nv(65, 0, 1024);
        assert_eq!((none.groups_per_unit, none.limiter), (0, "registers"));
        assert_eq!(none.occupancy_pct, 0.0);
    }

    #[test]
    fn nvidia_register_allocation_per_sub_partition() {
        // 40 registers: 1280 per warp, 12 warps per sub-partition, 48 per SM.
        let o = nv(40, 0, 128);
        assert_eq!((o.groups_per_unit, o.waves_per_unit), (12, 48));
        assert_eq!(o.occupancy_pct, 75.0);
        assert_eq!(o.limiter, "registers");
        // 255 registers (the most a thread can have): 8192 per warp, 2 warps per sub-partition.
        assert_eq!(nv(255, 0, 256).groups_per_unit, 1);
        assert_eq!(nv(255, 0, 32).groups_per_unit, 8);
        assert!(theoretical(Vendor::Nvidia, Some(256), 0, 32, 32).is_none());
    }

    #[test]
    fn nvidia_shared_memory_limiter() {
        // 48 KiB + 1 KiB reserved = 49 KiB; 228 / 49 = 4 groups of 256 threads (32 warps).
        let o = nv(16, 48 * 1024, 256);
        assert_eq!((o.groups_per_unit, o.waves_per_unit), (4, 32));
        assert_eq!(o.limiter, "shared_memory");
        // 227 KiB is the most one group can have; a byte more and nothing launches.
        assert_eq!(nv(16, 227 * 1024, 1024).groups_per_unit, 1);
        let none = nv(16, 227 * 1024 + 1, 1024);
        assert_eq!((none.groups_per_unit, none.limiter), (0, "shared_memory"));
        // 32 KiB per 1024-thread group: shared memory would allow 6, threads allow 2.
        assert_eq!(nv(32, 32 * 1024, 1024).limiter, "threads");
    }

    #[test]
    fn nvidia_small_groups_limited_by_32_groups_per_sm() {
        let o = nv(16, 0, 32);
        assert_eq!((o.groups_per_unit, o.waves_per_unit), (32, 32));
        assert_eq!(o.occupancy_pct, 50.0);
        assert_eq!(o.limiter, "groups");
        // 64-thread groups fill the SM: 32 groups, 64 warps, tie named "threads".
        let o = nv(32, 0, 64);
        assert_eq!(
            (o.groups_per_unit, o.waves_per_unit, o.limiter),
            (32, 64, "threads")
        );
        // Partial warps count whole: 33 threads take two warps.
        assert_eq!(nv(16, 0, 33).waves_per_unit, 64);
    }

    #[test]
    fn amd_article_examples() {
        // "each thread may require, at maximum, 32 VGPRs": two 1024-thread groups per CU.
        let two = amd(32, 0, 1024);
        assert_eq!((two.groups_per_unit, two.waves_per_unit), (2, 32));
        assert_eq!(two.occupancy_pct, 80.0);
        // 40 VGPRs: one group, 4 waves per SIMD, "a mere 40% occupancy".
        let one = amd(40, 0, 1024);
        assert_eq!((one.groups_per_unit, one.waves_per_unit), (1, 16));
        assert_eq!(one.occupancy_pct, 40.0);
        assert_eq!(one.limiter, "registers");
        // The article's shader before the fix: 48 VGPRs, one group.
        assert_eq!(amd(48, 0, 1024).groups_per_unit, 1);
        // 32 KiB of LDS per group "and still fit two groups per CU"; more and only one fits.
        assert_eq!(amd(32, 32 * 1024, 1024).groups_per_unit, 2);
        let lds = amd(32, 32 * 1024 + 4, 1024);
        assert_eq!((lds.groups_per_unit, lds.limiter), (1, "shared_memory"));
        // 512-thread groups: "up to 5 groups fit", given few enough VGPRs.
        let o = amd(24, 0, 512);
        assert_eq!((o.groups_per_unit, o.limiter), (5, "threads"));
        assert_eq!(o.occupancy_pct, 100.0);
        assert_eq!(amd(32, 0, 512).groups_per_unit, 4);
        // Single-wave groups hit the 16-groups-per-CU limit.
        assert_eq!(amd(16, 0, 64).limiter, "groups");
    }

    #[test]
    fn unknown_rules_and_missing_inputs_give_none() {
        assert!(theoretical(Vendor::Other, Some(32), 0, 1024, 32).is_none());
        assert!(theoretical(Vendor::Nvidia, None, 0, 1024, 32).is_none());
        assert!(theoretical(Vendor::Nvidia, Some(32), 0, 0, 32).is_none());
        assert!(theoretical(Vendor::Nvidia, Some(32), 0, 2048, 32).is_none());
        assert!(theoretical(Vendor::Nvidia, Some(32), 0, 1024, 64).is_none());
        // A register count of 0 is no register limit, not a division by zero.
        assert_eq!(nv(0, 0, 1024).groups_per_unit, 2);
        assert_eq!(amd(0, 0, 1024).groups_per_unit, 2);
        // RDNA's wave32 is not modelled.
        assert!(theoretical(Vendor::Amd, Some(32), 0, 1024, 32).is_none());
    }
}
