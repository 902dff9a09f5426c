//! NVIDIA: the occupancy calculator's rule with each compute capability's numbers, and which
//! capability a device has (its PCI device id, cross-checked with VK_NV_shader_sm_builtins).
//!
//! # Numbers per compute capability
//!
//! From the CUDA C++ Programming Guide, Table 27 "Technical Specifications per Compute
//! Capability" (CUDA 13.x, columns 7.5 … 12.0), which agrees with NVIDIA's own
//! `cuda::arch_traits` (CCCL, libcudacxx/include/cuda/__device/arch_traits.h):
//!
//! | cc | parts | warps/SM | groups/SM | shared/SM | shared/group | reserved/group |
//! |---|---|---|---|---|---|---|
//! | 7.5 | Turing (RTX 20, T4) | 32 | 16 | 64 KiB | 64 KiB | 0 |
//! | 8.0 | A100, A30 | 64 | 32 | 164 KiB | 163 KiB | 1 KiB |
//! | 8.6 | GA10x (RTX 30, A10, A40) | 48 | 16 | 100 KiB | 99 KiB | 1 KiB |
//! | 8.7 | Jetson Orin | 48 | 16 | 164 KiB | 163 KiB | 1 KiB |
//! | 8.9 | Ada (RTX 40, L4, L40) | 48 | 24 | 100 KiB | 99 KiB | 1 KiB |
//! | 9.0 | Hopper (H100, H200) | 64 | 32 | 228 KiB | 227 KiB | 1 KiB |
//! | 10.0 | Blackwell (B200, GB200; 10.3 GB300 alike) | 64 | 32 | 228 KiB | 227 KiB | 1 KiB |
//! | 11.0 | Jetson Thor | 48 | 24 | 228 KiB | 227 KiB | 1 KiB |
//! | 12.0 | Blackwell (RTX 50, RTX PRO 6000) | 48 | 24 | 100 KiB | 99 KiB | 1 KiB |
//!
//! Every one has 65536 registers per SM, at most 65536 per workgroup and 255 per thread.
//! "Shared/SM" is the largest carve-out: the Vulkan driver picks the carve-out, so the shared
//! memory limit is a best case. NVIDIA's Blackwell tuning guide says 32 groups per SM for 12.0;
//! the Programming Guide's table and `arch_traits` say 24, which is used here.
//!
//! The allocation granules are those of NVIDIA's occupancy calculator (`cuda_occupancy.h`):
//! registers per warp in units of 256, 4 register sub-partitions per SM, shared memory in units
//! of 256 bytes on 7.x and 128 bytes on 8.x. The header available to us stops at 8.x; 128
//! bytes is assumed for 9.0 and later (not confirmed from a source).
//!
//! # The rule (`cuda_occupancy.h`, `cudaOccMaxActiveBlocksPerMultiprocessor`)
//!
//! * A group of `n` invocations takes `ceil(n / 32)` warps; warps per SM allow
//!   `floor(max_warps / warps)` groups, and the SM holds at most `max_groups`.
//! * Registers: a warp takes `ceil(regs × 32 / 256) × 256`; a sub-partition of
//!   `65536 / 4` registers holds `floor(16384 / per_warp)` warps, the SM four times that, i.e.
//!   `floor(4 × per_sub / warps)` groups. A group that needs more than 65536 registers, counting
//!   its warps rounded up to a multiple of 4 (the hardware's check), or a thread with more than
//!   255, cannot launch: 0 groups.
//! * Shared memory: a group takes `ceil((shared + reserved) / granule) × granule`; it cannot
//!   launch if that is over the SM's shared memory; else `floor(shared_per_sm / alloc)` groups.
//!
//! # Which capability (device id, then warps per SM)
//!
//! The PCI device id is looked up in [`DEVICE_IDS`]: the id blocks of each GPU die, from the
//! PCI ID Repository (pci.ids, vendor 10de), e.g. GH100 0x23xx (H100 SXM 0x2330, H100 PCIe
//! 0x2331, H20 0x2329, H200 0x2335, H200 NVL 0x233b), AD102 0x26b1 / 0x2684 / 0x26b5 / 0x26b9,
//! GA102 0x2204 / 0x2230 / 0x2235 / 0x2236, GB100 B200 0x2901, GB200 0x2941, GB102 B100
//! 0x29bc, GB202 RTX 5090 0x2b85, GB203 0x2c02 / 0x2c05, GB205 0x2f04, GB206 0x2d04, GB110
//! GB300 0x31c2 / 0x31c3. Jetson parts (integrated, no PCI id of their own) go by name.
//!
//! Where VK_NV_shader_sm_builtins reports `shaderWarpsPerSM`, it must equal the capability's
//! warps per SM. If it does not, or the id is unknown, the rule family with that many warps
//! is used and the `arch` string says so: 32 → 7.5's numbers, 48 → 8.6's (the smallest of the
//! 48-warp parts), 64 → 8.0's (the smallest of the 64-warp parts since Ampere). Unknown id and
//! no warp count: no rule.
use super::{fit, round_up, Limits};

/// One compute capability's per-SM resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arch {
    /// Architecture name, lowercase: "turing", "ampere", "ada", "hopper", "blackwell", "orin",
    /// "thor".
    pub name: &'static str,
    /// Compute capability (major, minor).
    pub cc: (u32, u32),
    /// Resident warps per SM at most (64, 48 or 32): the occupancy denominator.
    pub max_warps_per_sm: u32,
    /// Resident workgroups (thread blocks) per SM at most.
    pub max_groups_per_sm: u32,
    /// 32-bit registers per SM (65536 on every capability here).
    pub regs_per_sm: u64,
    /// Registers one workgroup may use at most (65536): a group needing more cannot launch.
    pub max_regs_per_group: u64,
    /// Registers one thread may use at most (255): more and no rule applies.
    pub max_regs_per_thread: u32,
    /// Registers per warp are allocated in units of this many.
    pub reg_granule: u64,
    /// Register sub-partitions per SM (4): the register file is split among them, and a group's
    /// warps are counted in multiples of this.
    pub sub_partitions: u64,
    /// The largest shared-memory carve-out per SM, in bytes.
    pub shared_per_sm: u64,
    /// The most one group may use (opt-in), in bytes: `shared_per_sm - reserved`.
    pub max_shared_per_group: u64,
    /// Shared memory the driver reserves per group (cc ≥ 8.0).
    pub shared_reserved_per_group: u64,
    /// Shared memory is allocated per group in multiples of this many bytes (256 on 7.5, 128 from
    /// 8.0 on; 128 assumed from 9.0 on).
    pub shared_granule: u64,
}

const KIB: u64 = 1024;

/// The numbers every capability since 7.5 shares; the table overrides the rest.
const BASE: Arch = Arch {
    name: "",
    cc: (0, 0),
    max_warps_per_sm: 64,
    max_groups_per_sm: 32,
    regs_per_sm: 65536,
    max_regs_per_group: 65536,
    max_regs_per_thread: 255,
    reg_granule: 256,
    sub_partitions: 4,
    shared_per_sm: 0,
    max_shared_per_group: 0,
    shared_reserved_per_group: KIB,
    shared_granule: 128,
};

const fn arch(
    name: &'static str,
    cc: (u32, u32),
    warps: u32,
    groups: u32,
    shared_kib: u64,
    reserved: u64,
    granule: u64,
) -> Arch {
    Arch {
        name,
        cc,
        max_warps_per_sm: warps,
        max_groups_per_sm: groups,
        shared_per_sm: shared_kib * KIB,
        max_shared_per_group: shared_kib * KIB - reserved,
        shared_reserved_per_group: reserved,
        shared_granule: granule,
        ..BASE
    }
}

/// cc 7.5, Turing (RTX 20, T4): 32 warps and 16 groups per SM, 64 KiB shared, none reserved per
/// group.
pub const TURING: Arch = arch("turing", (7, 5), 32, 16, 64, 0, 256);
/// cc 8.0, GA100 (A100, A30): 64 warps and 32 groups per SM, 164 KiB shared.
pub const AMPERE_GA100: Arch = arch("ampere", (8, 0), 64, 32, 164, KIB, 128);
/// cc 8.6, GA10x (RTX 30, A10, A40): 48 warps and 16 groups per SM, 100 KiB shared.
pub const AMPERE_GA10X: Arch = arch("ampere", (8, 6), 48, 16, 100, KIB, 128);
/// cc 8.7, Jetson Orin: 48 warps and 16 groups per SM, 164 KiB shared.
pub const ORIN: Arch = arch("orin", (8, 7), 48, 16, 164, KIB, 128);
/// cc 8.9, Ada (RTX 40, L4, L40): 48 warps and 24 groups per SM, 100 KiB shared.
pub const ADA: Arch = arch("ada", (8, 9), 48, 24, 100, KIB, 128);
/// cc 9.0, Hopper (H100, H200): 64 warps and 32 groups per SM, 228 KiB shared.
pub const HOPPER: Arch = arch("hopper", (9, 0), 64, 32, 228, KIB, 128);
/// cc 10.0, Blackwell (B200, GB200; GB300's 10.3 alike): 64 warps and 32 groups per SM, 228 KiB
/// shared.
pub const BLACKWELL: Arch = arch("blackwell", (10, 0), 64, 32, 228, KIB, 128);
/// cc 11.0, Jetson Thor: 48 warps and 24 groups per SM, 228 KiB shared.
pub const THOR: Arch = arch("thor", (11, 0), 48, 24, 228, KIB, 128);
/// cc 12.0, Blackwell (RTX 50, RTX PRO 6000): 48 warps and 24 groups per SM, 100 KiB shared.
pub const BLACKWELL_RTX: Arch = arch("blackwell", (12, 0), 48, 24, 100, KIB, 128);

/// PCI device id blocks (first, last inclusive) per die, with the capability; see the module docs.
pub const DEVICE_IDS: &[(u32, u32, &Arch, &str)] = &[
    (0x1e00, 0x1fff, &TURING, "TU102/TU104/TU106/TU117"),
    (0x2080, 0x20ff, &AMPERE_GA100, "GA100"),
    (0x2180, 0x21ff, &TURING, "TU116"),
    (0x2200, 0x22ff, &AMPERE_GA10X, "GA102"),
    (0x2300, 0x23ff, &HOPPER, "GH100"),
    (0x2400, 0x25ff, &AMPERE_GA10X, "GA103/GA104/GA106/GA107"),
    (0x2680, 0x28ff, &ADA, "AD102/AD103/AD104/AD106/AD107"),
    (0x2900, 0x29ff, &BLACKWELL, "GB100/GB102"),
    (0x2b80, 0x2dff, &BLACKWELL_RTX, "GB202/GB203/GB206/GB207"),
    (0x2f00, 0x2f7f, &BLACKWELL_RTX, "GB205"),
    (
        0x31c0,
        0x31ff,
        &BLACKWELL,
        "GB110 (cc 10.3, 10.0's numbers)",
    ),
];

/// The capability of a PCI device id, and the die it belongs to.
pub fn by_device_id(device_id: u32) -> Option<(&'static Arch, &'static str)> {
    DEVICE_IDS
        .iter()
        .find(|(lo, hi, _, _)| (*lo..=*hi).contains(&device_id))
        .map(|(_, _, a, die)| (*a, *die))
}

/// Jetson modules are integrated and go by name.
fn by_name(name: &str) -> Option<&'static Arch> {
    let n = name.to_ascii_lowercase();
    if n.contains("orin") {
        Some(&ORIN)
    } else if n.contains("thor") {
        Some(&THOR)
    } else {
        None
    }
}

/// The rule family for a warps-per-SM count: see the module docs.
fn by_warps(warps: u32) -> Option<&'static Arch> {
    match warps {
        32 => Some(&TURING),
        48 => Some(&AMPERE_GA10X),
        64 => Some(&AMPERE_GA100),
        _ => None,
    }
}

fn cc(a: &Arch) -> String {
    format!("cc {}.{}", a.cc.0, a.cc.1)
}

/// The capability for a device, and how it was chosen (the `arch` string).
pub fn choose(device_id: u32, name: &str, warps_per_sm: Option<u32>) -> Option<(Arch, String)> {
    let known = by_device_id(device_id)
        .map(|(a, die)| (a, format!("device id {device_id:#06x}, {die}")))
        .or_else(|| by_name(name).map(|a| (a, "device name".to_string())));
    match (known, warps_per_sm) {
        (Some((a, how)), None) => Some((*a, format!("{} ({}, by {how})", a.name, cc(a)))),
        (Some((a, how)), Some(w)) if w == a.max_warps_per_sm => Some((
            *a,
            format!("{} ({}, by {how}; {w} warps per SM agree)", a.name, cc(a)),
        )),
        (Some((a, how)), Some(w)) => by_warps(w).map(|f| {
            (
                *f,
                format!(
                    "{}-like ({} rules, by {w} warps per SM; {how} says {} {} with {} warps)",
                    f.name,
                    cc(f),
                    a.name,
                    cc(a),
                    a.max_warps_per_sm
                ),
            )
        }),
        (None, Some(w)) => by_warps(w).map(|f| {
            (
                *f,
                format!(
                    "{}-like ({} rules, by {w} warps per SM; device id {device_id:#06x} unknown)",
                    f.name,
                    cc(f)
                ),
            )
        }),
        (None, None) => None,
    }
}

/// The calculator's rule (module docs) for `a`: groups per SM and the limiting resource.
/// None for a subgroup size other than 32 or more registers than a thread can have.
pub fn occupancy(
    a: &Arch,
    regs: u32,
    shared: u32,
    invocations: u32,
    subgroup: u32,
) -> Option<(Limits, u32)> {
    const WARP: u32 = 32;
    if subgroup != WARP || regs > a.max_regs_per_thread {
        return None;
    }
    let warps = invocations.div_ceil(WARP);
    let per_warp = round_up(regs as u64 * WARP as u64, a.reg_granule);
    let registers = if per_warp * warps as u64 > a.max_regs_per_group
        || per_warp * round_up(warps as u64, a.sub_partitions) > a.max_regs_per_group
    {
        0
    } else {
        // No registers at all: no register limit.
        (a.regs_per_sm / a.sub_partitions)
            .checked_div(per_warp)
            .map_or(u32::MAX, |per_sub| {
                (per_sub * a.sub_partitions / warps as u64) as u32
            })
    };
    let alloc = round_up(
        shared as u64 + a.shared_reserved_per_group,
        a.shared_granule,
    );
    let shared_memory = if alloc > a.shared_per_sm {
        0
    } else {
        fit(a.shared_per_sm, alloc)
    };
    Some((
        Limits {
            threads: a.max_warps_per_sm / warps,
            groups: a.max_groups_per_sm,
            registers,
            shared_memory,
        },
        warps,
    ))
}
