//! AMD: GCN (4 SIMDs per CU, wave64) and RDNA (2 SIMDs per CU, two CUs per WGP, wave32 or
//! wave64), from what VK_AMD_shader_core_properties reports where the driver has it, else the
//! GCN model of seeds/004.
//!
//! # GCN, without the extension (seeds/004, "Occupancy and Resource Usage Optimization with
//! Large Thread Groups", Sebastian Aaltonen, GPUOpen)
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
//! Without the extension a subgroup size other than 64 has no rule (RDNA cannot be told apart).
//!
//! # GCN, with the extension
//!
//! The same model with the driver's numbers: `simdPerComputeUnit` SIMDs (4),
//! `wavefrontsPerSimd` waves per SIMD (10; 8 on Polaris), `vgprsPerSimd` VGPRs per lane (256),
//! allocated in `vgprAllocationGranularity` (4) up to `maxVgprAllocation` (256).
//!
//! # RDNA (`simdPerComputeUnit` = 2), per WGP
//!
//! RADV runs compute in WGP mode: a workgroup's waves spread over the 4 SIMD32s of a
//! workgroup processor (two CUs), which share 128 KiB of LDS. The rule is that of Mesa's ACO
//! compiler (src/amd/compiler/aco_ir.cpp `init_program`, aco_live_var_analysis.cpp
//! `max_suitable_waves`), which RADV uses to report "waves per SIMD":
//!
//! * A group of `n` invocations is `ceil(n / wave)` waves (wave = 32 or 64, the subgroup size
//!   that ran). The WGP holds `4 × wavefrontsPerSimd` waves (16 per SIMD on RDNA2/3, 20 on
//!   RDNA1) and, for groups of more than one wave, at most 32 groups.
//! * VGPRs: the file of a SIMD lane holds `vgprsPerSimd` wave64 VGPRs (512; 768 on Navi31/32,
//!   RDNA3's 1.5× file), i.e. twice as many wave32 VGPRs. A wave takes
//!   `ceil(max(vgprs, granule) / granule) × granule`, the granule being 4 (wave64) / 8 (wave32)
//!   on RDNA1, 8 / 16 on RDNA2 and RDNA3, 12 / 24 on Navi31/32 (ACO; LLVM's AMDGPU backend
//!   agrees). A SIMD holds `floor(file / alloc)` waves, capped at `wavefrontsPerSimd`; the WGP
//!   `floor(4 × that / waves_per_group)` groups. At most 256 VGPRs per thread.
//!   RADV reports `vgprAllocationGranularity` = 4 for every generation (ac_gpu_info.c); the
//!   compiler's larger RDNA2/3 granule is used where it is larger. The generation is told by
//!   the driver's numbers: 20 waves per SIMD is RDNA1, 768 VGPRs is Navi31/32.
//! * LDS: 128 KiB per WGP (64 KiB per CU), at most 64 KiB per group, allocated in blocks of
//!   512 bytes (RDNA1) or 1024 bytes (RDNA2 and later); `floor(131072 / alloc)` groups.
//!
//! `waves_per_unit` counts waves per CU (GCN) or per WGP (RDNA), all SIMDs together.
use super::{fit, round_up, Limits};
use crate::vk::info::AmdCoreProperties;

/// GCN's CU as the rule needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gcn {
    /// SIMDs per CU (`simdPerComputeUnit`; 4).
    pub simds: u32,
    /// Waves one SIMD holds at most (`wavefrontsPerSimd`; 10, 8 on Polaris).
    pub waves_per_simd: u32,
    /// VGPRs per lane of one SIMD's register file (`vgprsPerSimd`; 256).
    pub vgprs_per_lane: u32,
    /// VGPRs are allocated per wave in multiples of this (`vgprAllocationGranularity`; 4).
    pub vgpr_granule: u32,
    /// VGPRs one thread may use at most (`maxVgprAllocation`; 256): more and no rule applies.
    pub max_vgprs: u32,
}

/// The article's GCN: 4 SIMDs, 10 waves each, 256 VGPRs per lane in granules of 4.
pub const GCN_ARTICLE: Gcn = Gcn {
    simds: 4,
    waves_per_simd: 10,
    vgprs_per_lane: 256,
    vgpr_granule: 4,
    max_vgprs: 256,
};

const GCN_WAVE: u32 = 64;
const GCN_MAX_GROUPS_PER_CU: u32 = 16;
const GCN_LDS_PER_CU: u64 = 64 * 1024;

impl Gcn {
    /// The GCN numbers VK_AMD_shader_core_properties reports (granule at least 1).
    pub fn from_core(c: &AmdCoreProperties) -> Gcn {
        Gcn {
            simds: c.simd_per_compute_unit,
            waves_per_simd: c.wavefronts_per_simd,
            vgprs_per_lane: c.vgprs_per_simd,
            vgpr_granule: c.vgpr_allocation_granularity.max(1),
            max_vgprs: c.max_vgpr_allocation,
        }
    }

    /// Waves the CU holds at most, all SIMDs together (40 on the article's GCN): the occupancy
    /// denominator.
    pub fn max_waves(&self) -> u32 {
        self.simds * self.waves_per_simd
    }

    /// Groups per CU of `invocations` threads using `vgprs` VGPRs and `lds` bytes of LDS, with each
    /// resource's limit, and the waves per group; None for a subgroup size other than 64 or more
    /// VGPRs than a thread can have.
    pub fn occupancy(
        &self,
        vgprs: u32,
        lds: u32,
        invocations: u32,
        subgroup: u32,
    ) -> Option<(Limits, u32)> {
        if subgroup != GCN_WAVE || vgprs > self.max_vgprs {
            return None;
        }
        let waves = invocations.div_ceil(GCN_WAVE);
        let alloc = vgprs.div_ceil(self.vgpr_granule) * self.vgpr_granule;
        // No VGPRs at all: no register limit.
        let registers = self
            .vgprs_per_lane
            .checked_div(alloc)
            .map_or(u32::MAX, |per_simd| {
                self.simds * per_simd.min(self.waves_per_simd) / waves
            });
        let shared_memory = if lds as u64 > GCN_LDS_PER_CU {
            0
        } else {
            fit(GCN_LDS_PER_CU, lds as u64)
        };
        Some((
            Limits {
                threads: self.max_waves() / waves,
                groups: GCN_MAX_GROUPS_PER_CU,
                registers,
                shared_memory,
            },
            waves,
        ))
    }
}

/// RDNA's WGP as the rule needs it (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rdna {
    /// "rdna1", "rdna2/3" or "rdna3 (navi31/32)".
    pub generation: &'static str,
    /// SIMD32s per WGP (2 per CU).
    pub simds: u32,
    /// Waves one SIMD holds at most (`wavefrontsPerSimd`: 16 on RDNA2/3, 20 on RDNA1).
    pub waves_per_simd: u32,
    /// Wave64 VGPRs per SIMD lane (wave32: twice as many).
    pub vgprs_w64: u32,
    /// Wave64 allocation granule (wave32: twice as large).
    pub granule_w64: u32,
    /// VGPRs one thread may use at most (`maxVgprAllocation`, else 256): more and no rule applies.
    pub max_vgprs: u32,
    /// LDS is allocated per group in blocks of this many bytes (512 on RDNA1, 1024 later).
    pub lds_granule: u64,
}

const RDNA_MAX_GROUPS_PER_WGP: u32 = 32;
const RDNA_LDS_PER_WGP: u64 = 128 * 1024;
const RDNA_LDS_PER_GROUP: u64 = 64 * 1024;

impl Rdna {
    /// The RDNA numbers from VK_AMD_shader_core_properties, the generation told by them (768 VGPRs:
    /// Navi31/32; 20 waves per SIMD: RDNA1; else RDNA2/3) and the compiler's granules for it.
    pub fn from_core(c: &AmdCoreProperties) -> Rdna {
        let (generation, granule, lds_granule) = if c.vgprs_per_simd >= 768 {
            ("rdna3 (navi31/32)", 12, 1024)
        } else if c.wavefronts_per_simd == 20 {
            ("rdna1", 4, 512)
        } else {
            ("rdna2/3", 8, 1024)
        };
        Rdna {
            generation,
            simds: 2 * c.simd_per_compute_unit,
            waves_per_simd: c.wavefronts_per_simd,
            vgprs_w64: c.vgprs_per_simd,
            granule_w64: granule.max(c.vgpr_allocation_granularity),
            max_vgprs: if c.max_vgpr_allocation > 0 {
                c.max_vgpr_allocation
            } else {
                256
            },
            lds_granule,
        }
    }

    /// Waves the WGP holds at most, all four SIMD32s together: the occupancy denominator.
    pub fn max_waves(&self) -> u32 {
        self.simds * self.waves_per_simd
    }

    /// Groups per WGP of `invocations` threads using `vgprs` VGPRs and `lds` bytes of LDS at
    /// subgroup size 32 or 64, with each resource's limit, and the waves per group; None for
    /// another subgroup size or more VGPRs than a thread can have.
    pub fn occupancy(
        &self,
        vgprs: u32,
        lds: u32,
        invocations: u32,
        subgroup: u32,
    ) -> Option<(Limits, u32)> {
        let scale = match subgroup {
            32 => 2,
            64 => 1,
            _ => return None,
        };
        if vgprs > self.max_vgprs {
            return None;
        }
        let waves = invocations.div_ceil(subgroup);
        let (file, granule) = (self.vgprs_w64 * scale, self.granule_w64 * scale);
        // No VGPRs at all: no register limit.
        let registers = if vgprs == 0 {
            u32::MAX
        } else {
            let alloc = vgprs.max(granule).div_ceil(granule) * granule;
            self.simds * (file / alloc).min(self.waves_per_simd) / waves
        };
        let alloc = round_up(lds as u64, self.lds_granule);
        let shared_memory = if lds as u64 > RDNA_LDS_PER_GROUP {
            0
        } else {
            fit(RDNA_LDS_PER_WGP, alloc)
        };
        Some((
            Limits {
                threads: self.max_waves() / waves,
                // ACO: the group limit binds only groups of more than one wave.
                groups: if waves > 1 {
                    RDNA_MAX_GROUPS_PER_WGP
                } else {
                    u32::MAX
                },
                registers,
                shared_memory,
            },
            waves,
        ))
    }
}
