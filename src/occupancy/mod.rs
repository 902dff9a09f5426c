//! Theoretical occupancy: how many workgroups of a compiled shader can be resident on one
//! SM (NVIDIA), CU (AMD GCN) or WGP (AMD RDNA) at once, and which resource stops the next one.
//!
//! Pure arithmetic from what the driver reports (registers per invocation, shared memory per
//! workgroup), the dispatch shape (invocations per workgroup, subgroup size) and a
//! description of the device ([`Device`]: PCI ids, VK_NV_shader_sm_builtins,
//! VK_AMD_shader_core_properties). Nothing here calls Vulkan.
//!
//! [`rules`] picks the rule set and says how in [`Rules::arch`] (e.g. "hopper (cc 9.0, by
//! device id 0x2335, GH100; 64 warps per SM agree)"):
//!
//! * NVIDIA ([`nvidia`]): the occupancy calculator's rule with the numbers of the device's
//!   compute capability (7.5 Turing, 8.0 / 8.6 / 8.7 Ampere, 8.9 Ada, 9.0 Hopper, 10.0 and
//!   12.0 Blackwell, 11.0 Thor), chosen by PCI device id and cross-checked with the warps per
//!   SM that VK_NV_shader_sm_builtins reports; by that warp count alone where the id is unknown.
//! * AMD ([`amd`]): GCN or RDNA from VK_AMD_shader_core_properties where the driver has it (the
//!   driver's SIMD, wave-slot and VGPR numbers), else the GCN model of seeds/004 (wave64 only).
//! * Anything else: no rule (`None`), and the occupancy columns stay empty.
//!
//! The key consequence on Hopper (GUIDE.md, measured on the H200): two 1024-thread workgroups
//! (64 warps) fit on one SM only at ≤ 32 registers per thread; at 33 the warp needs 1280
//! registers, a sub-partition holds 12 warps, the SM 48, and only one workgroup (32 warps,
//! 50 %) is resident. For 1024-thread groups the compiler caps the count at 64 and spills the
//! rest, since at 65 the group no longer fits the SM. On the H200, 64-thread groups with 16 or
//! 32 KiB of shared memory each ran 3x and 8x slower than with 512 bytes, more than the
//! 228 KiB carve-out predicts (13 and 6 groups against 24): the driver picks the carve-out,
//! so the shared-memory limit is a best case.
//!
//! `waves_per_unit` counts warps per SM (NVIDIA) or waves per CU / WGP, all SIMDs together
//! (AMD), and `max_waves_per_unit` is the hardware's maximum of it.
pub mod amd;
pub mod nvidia;
#[cfg(test)]
mod tests;

use crate::vk::info::AmdCoreProperties;

/// The GPU vendor, from `VkPhysicalDeviceProperties::vendorID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    /// `vendorID` 0x10de.
    Nvidia,
    /// `vendorID` 0x1002.
    Amd,
    /// Any other vendor: no occupancy rule.
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

/// What the rules need to know about a device.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Device {
    /// PCI vendor id (`VkPhysicalDeviceProperties::vendorID`): picks the rule family.
    pub vendor_id: u32,
    /// PCI device id (`VkPhysicalDeviceProperties::deviceID`).
    pub device_id: u32,
    /// `deviceName`: Jetson parts (no PCI id of their own) are recognised by it.
    pub name: String,
    /// VK_NV_shader_sm_builtins: `shaderSMCount` and `shaderWarpsPerSM`.
    pub nv_sm_count: Option<u32>,
    /// `shaderWarpsPerSM` of VK_NV_shader_sm_builtins: cross-checks the capability found by device
    /// id, or picks one when the id is unknown.
    pub nv_warps_per_sm: Option<u32>,
    /// VK_AMD_shader_core_properties(2).
    pub amd: Option<AmdCoreProperties>,
}

impl Device {
    /// The fields the rules read, from what phase one queried.
    pub fn from_info(info: &crate::vk::DeviceInfo) -> Device {
        Device {
            vendor_id: info.vendor_id,
            device_id: info.device_id,
            name: info.name.clone(),
            nv_sm_count: info.nv_sm_count,
            nv_warps_per_sm: info.nv_warps_per_sm,
            amd: info.amd_core,
        }
    }
}

/// The rule set for one device.
#[derive(Debug, Clone, PartialEq)]
pub struct Rules {
    /// Which rules, and how they were chosen.
    pub arch: String,
    /// What one unit is: "SM", "CU" or "WGP".
    pub unit: &'static str,
    /// Units on the device where the driver says (SMs, CUs, WGPs); None where unknown.
    pub units: Option<u32>,
    kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Nvidia(nvidia::Arch),
    Gcn(amd::Gcn),
    Rdna(amd::Rdna),
}

/// The rules for `dev`, or None where no rule is known (see the module docs).
pub fn rules(dev: &Device) -> Option<Rules> {
    match Vendor::from_id(dev.vendor_id) {
        Vendor::Nvidia => {
            let (a, arch) = nvidia::choose(dev.device_id, &dev.name, dev.nv_warps_per_sm)?;
            Some(Rules {
                arch,
                unit: "SM",
                units: dev.nv_sm_count.filter(|n| *n > 0),
                kind: Kind::Nvidia(a),
            })
        }
        Vendor::Amd => match &dev.amd {
            Some(c) if c.simd_per_compute_unit == 2 => {
                let r = amd::Rdna::from_core(c);
                Some(Rules {
                    arch: format!(
                        "{} (VK_AMD_shader_core_properties: {} waves per SIMD, {} VGPRs, granule {})",
                        r.generation, r.waves_per_simd, r.vgprs_w64, r.granule_w64
                    ),
                    unit: "WGP",
                    units: c.compute_units().map(|n| n / 2).filter(|n| *n > 0),
                    kind: Kind::Rdna(r),
                })
            }
            Some(c) if c.simd_per_compute_unit > 0 && c.wavefronts_per_simd > 0 => {
                let g = amd::Gcn::from_core(c);
                Some(Rules {
                    arch: format!(
                        "gcn (VK_AMD_shader_core_properties: {} SIMDs, {} waves per SIMD, {} VGPRs)",
                        g.simds, g.waves_per_simd, g.vgprs_per_lane
                    ),
                    unit: "CU",
                    units: c.compute_units(),
                    kind: Kind::Gcn(g),
                })
            }
            _ => Some(Rules {
                arch: "gcn (seeds/004 article rule; no VK_AMD_shader_core_properties)".into(),
                unit: "CU",
                units: None,
                kind: Kind::Gcn(amd::GCN_ARTICLE),
            }),
        },
        Vendor::Other => None,
    }
}

/// Resident workgroups and waves on one SM (NVIDIA) or CU / WGP (AMD), and what limits them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Occupancy {
    /// Resident workgroups per unit.
    pub groups_per_unit: u32,
    /// Resident warps per SM (NVIDIA) or waves per CU / WGP, all SIMDs together (AMD).
    pub waves_per_unit: u32,
    /// The hardware maximum of `waves_per_unit` (64 on Hopper, 48 on Ada, 40 on GCN, ...).
    pub max_waves_per_unit: u32,
    /// `waves_per_unit / max_waves_per_unit * 100`.
    pub occupancy_pct: f64,
    /// The resource that binds: "registers", "shared_memory", "threads" or "groups". On a tie
    /// the architectural limits (threads, then groups) are named, because giving back
    /// registers or shared memory would not then add a group.
    pub limiter: &'static str,
    /// The rules used ([`Rules::arch`]).
    pub arch: String,
    /// "SM", "CU" or "WGP".
    pub unit: &'static str,
}

/// Per-resource limits on resident groups, in the order ties are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Groups the warps (waves) per unit allow: `max_waves / waves per group`.
    pub threads: u32,
    /// The hardware's most resident groups per unit (e.g. 32 per SM on Hopper, 16 per GCN CU, 32
    /// per RDNA WGP; no limit, u32::MAX, for one-wave groups on RDNA).
    pub groups: u32,
    /// Groups the register file allows; 0 when one group cannot launch for its registers.
    pub registers: u32,
    /// Groups the shared memory (LDS) allows; 0 when one group's shared memory exceeds the unit's.
    pub shared_memory: u32,
}

impl Limits {
    fn resolve(&self, waves_per_group: u32, max_waves: u32, rules: &Rules) -> Occupancy {
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
            arch: rules.arch.clone(),
            unit: rules.unit,
        }
    }
}

impl Rules {
    /// The hardware maximum of resident warps / waves per unit.
    pub fn max_waves_per_unit(&self) -> u32 {
        match &self.kind {
            Kind::Nvidia(a) => a.max_warps_per_sm,
            Kind::Gcn(g) => g.max_waves(),
            Kind::Rdna(r) => r.max_waves(),
        }
    }

    /// Theoretical occupancy from the driver's register count, shared memory per group,
    /// workgroup size and the subgroup size that ran.
    ///
    /// `None` when an input is missing or impossible for the rules: no invocations, more than
    /// 1024, a subgroup size the hardware does not have (NVIDIA 32; GCN 64; RDNA 32 or 64), or
    /// more registers than one thread can address.
    pub fn occupancy(
        &self,
        registers_per_thread: Option<u32>,
        shared_bytes_per_group: u32,
        workgroup_invocations: u32,
        subgroup_size: u32,
    ) -> Option<Occupancy> {
        let regs = registers_per_thread?;
        if workgroup_invocations == 0 || workgroup_invocations > 1024 {
            return None;
        }
        let (limits, waves) = match &self.kind {
            Kind::Nvidia(a) => nvidia::occupancy(
                a,
                regs,
                shared_bytes_per_group,
                workgroup_invocations,
                subgroup_size,
            )?,
            Kind::Gcn(g) => g.occupancy(
                regs,
                shared_bytes_per_group,
                workgroup_invocations,
                subgroup_size,
            )?,
            Kind::Rdna(r) => r.occupancy(
                regs,
                shared_bytes_per_group,
                workgroup_invocations,
                subgroup_size,
            )?,
        };
        Some(limits.resolve(waves, self.max_waves_per_unit(), self))
    }
}

/// [`rules`] then [`Rules::occupancy`]: None where either is.
pub fn theoretical(
    dev: &Device,
    registers_per_thread: Option<u32>,
    shared_bytes_per_group: u32,
    workgroup_invocations: u32,
    subgroup_size: u32,
) -> Option<Occupancy> {
    rules(dev)?.occupancy(
        registers_per_thread,
        shared_bytes_per_group,
        workgroup_invocations,
        subgroup_size,
    )
}

fn round_up(x: u64, to: u64) -> u64 {
    x.div_ceil(to) * to
}

/// Groups of `need` each that fit in `have`; no limit when a group needs nothing.
fn fit(have: u64, need: u64) -> u32 {
    have.checked_div(need)
        .map_or(u32::MAX, |n| n.min(u32::MAX as u64) as u32)
}
