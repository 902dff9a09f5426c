//! Every rule against worked numbers. NVIDIA cases follow the occupancy calculator
//! (`cuda_occupancy.h`): groups = min(warp limit, group limit, register limit, shared limit),
//! with warp limit = floor(max_warps / warps_per_group), register limit =
//! floor(floor(16384 / per_warp) × 4 / warps_per_group) where per_warp = ceil(regs × 32 / 256)
//! × 256, and shared limit = floor(shared_per_sm / ceil((shared + reserved) / granule) ×
//! granule). Each case's comment shows the arithmetic.
use super::*;
use crate::vk::info::AmdCoreProperties;

fn nvidia(device_id: u32) -> Device {
    Device {
        vendor_id: 0x10de,
        device_id,
        ..Device::default()
    }
}

/// Occupancy on an NVIDIA device with this PCI id (subgroup size 32).
fn on(device_id: u32, regs: u32, shared: u32, n: u32) -> Occupancy {
    theoretical(&nvidia(device_id), Some(regs), shared, n, 32).expect("an NVIDIA rule")
}

/// Groups, warps and limiter.
fn gwl(o: &Occupancy) -> (u32, u32, &'static str) {
    (o.groups_per_unit, o.waves_per_unit, o.limiter)
}

const H200: u32 = 0x2335;
const T4: u32 = 0x1eb8;
const A100: u32 = 0x20b0;
const RTX3090: u32 = 0x2204;
const L40S: u32 = 0x26b9;
const B200: u32 = 0x2901;
const RTX5090: u32 = 0x2b85;

fn nv(regs: u32, shared: u32, n: u32) -> Occupancy {
    on(H200, regs, shared, n)
}

fn gcn_article() -> Device {
    Device {
        vendor_id: 0x1002,
        ..Device::default()
    }
}

fn amd(vgprs: u32, lds: u32, n: u32) -> Occupancy {
    theoretical(&gcn_article(), Some(vgprs), lds, n, 64).expect("a GCN rule")
}

#[test]
fn vendor_ids() {
    assert_eq!(Vendor::from_id(0x10de), Vendor::Nvidia);
    assert_eq!(Vendor::from_id(0x1002), Vendor::Amd);
    assert_eq!(Vendor::from_id(0x10005), Vendor::Other);
}

#[test]
fn nvidia_architecture_by_device_id() {
    for (id, name, cc) in [
        (H200, "hopper", (9, 0)),
        (0x2330, "hopper", (9, 0)),
        (0x2329, "hopper", (9, 0)),
        (T4, "turing", (7, 5)),
        (0x1e04, "turing", (7, 5)),
        (0x2182, "turing", (7, 5)),
        (A100, "ampere", (8, 0)),
        (0x20f1, "ampere", (8, 0)),
        (RTX3090, "ampere", (8, 6)),
        (0x2236, "ampere", (8, 6)),
        (0x2484, "ampere", (8, 6)),
        (0x2684, "ada", (8, 9)),
        (L40S, "ada", (8, 9)),
        (0x27b8, "ada", (8, 9)),
        (B200, "blackwell", (10, 0)),
        (0x29bc, "blackwell", (10, 0)),
        (0x31c2, "blackwell", (10, 0)),
        (RTX5090, "blackwell", (12, 0)),
        (0x2c02, "blackwell", (12, 0)),
        (0x2f04, "blackwell", (12, 0)),
        (0x2d04, "blackwell", (12, 0)),
    ] {
        let (a, die) = nvidia::by_device_id(id).unwrap_or_else(|| panic!("{id:#x}"));
        assert_eq!((a.name, a.cc), (name, cc), "{id:#x} ({die})");
    }
    // Volta, Pascal and unknown ids have no entry.
    for id in [0x1db1, 0x1b80, 0x1234, 0x2a00] {
        assert!(nvidia::by_device_id(id).is_none(), "{id:#x}");
    }
}

#[test]
fn nvidia_arch_string_and_warp_cross_check() {
    let r = rules(&nvidia(H200)).unwrap();
    assert_eq!(r.arch, "hopper (cc 9.0, by device id 0x2335, GH100)");
    assert_eq!((r.unit, r.units), ("SM", None));
    // VK_NV_shader_sm_builtins agrees: same rule, and the SM count is known.
    let mut d = nvidia(H200);
    d.nv_warps_per_sm = Some(64);
    d.nv_sm_count = Some(132);
    let r = rules(&d).unwrap();
    assert_eq!(
        r.arch,
        "hopper (cc 9.0, by device id 0x2335, GH100; 64 warps per SM agree)"
    );
    assert_eq!(r.units, Some(132));
    assert_eq!(r.max_waves_per_unit(), 64);
    // The driver disagrees: the warp count wins, and the string says why.
    d.nv_warps_per_sm = Some(48);
    let r = rules(&d).unwrap();
    assert!(r.arch.starts_with("ampere-like (cc 8.6 rules, by 48 warps per SM; device id 0x2335, GH100 says hopper cc 9.0 with 64 warps)"), "{}", r.arch);
    assert_eq!(r.max_waves_per_unit(), 48);
    // Unknown id: by warps per SM alone, or nothing.
    let mut d = nvidia(0x1234);
    assert!(rules(&d).is_none());
    for (w, family) in [
        (32, "turing-like (cc 7.5"),
        (48, "ampere-like (cc 8.6"),
        (64, "ampere-like (cc 8.0"),
    ] {
        d.nv_warps_per_sm = Some(w);
        let r = rules(&d).unwrap();
        assert!(r.arch.starts_with(family), "{}", r.arch);
        assert!(r.arch.contains("device id 0x1234 unknown"), "{}", r.arch);
        assert_eq!(r.max_waves_per_unit(), w);
    }
    d.nv_warps_per_sm = Some(40);
    assert!(rules(&d).is_none());
    // Jetson parts go by name.
    let orin = Device {
        name: "NVIDIA Tegra Orin (nvgpu)".into(),
        ..nvidia(0xa5ba)
    };
    assert_eq!(rules(&orin).unwrap().arch, "orin (cc 8.7, by device name)");
}

#[test]
fn hopper_1024_thread_cliff_at_32_registers() {
    // 32 regs: 1024 per warp, 16 warps per sub-partition, 64 per SM → 2 groups of 32 warps.
    let two = nv(32, 0, 1024);
    assert_eq!((two.groups_per_unit, two.waves_per_unit), (2, 64));
    assert_eq!(two.occupancy_pct, 100.0);
    // Registers fit exactly; the thread limit is named on the tie.
    assert_eq!(two.limiter, "threads");
    // 33 regs: 1056 → 1280 per warp, 12 per sub-partition, 48 per SM → 1 group.
    let one = nv(33, 0, 1024);
    assert_eq!((one.groups_per_unit, one.waves_per_unit), (1, 32));
    assert_eq!(one.occupancy_pct, 50.0);
    assert_eq!(one.limiter, "registers");
    // Still one group up to the 64-register cap; none past it (2560 × 32 > 65536).
    assert_eq!(nv(64, 0, 1024).groups_per_unit, 1);
    let none = nv(65, 0, 1024);
    assert_eq!((none.groups_per_unit, none.limiter), (0, "registers"));
    assert_eq!(none.occupancy_pct, 0.0);
    assert!(one.arch.starts_with("hopper (cc 9.0"));
    assert_eq!(one.unit, "SM");
}

#[test]
fn hopper_register_allocation_per_sub_partition() {
    // 40 registers: 1280 per warp, 12 warps per sub-partition, 48 per SM.
    let o = nv(40, 0, 128);
    assert_eq!((o.groups_per_unit, o.waves_per_unit), (12, 48));
    assert_eq!(o.occupancy_pct, 75.0);
    assert_eq!(o.limiter, "registers");
    // 255 registers (the most a thread can have): 8192 per warp, 2 warps per sub-partition.
    assert_eq!(nv(255, 0, 256).groups_per_unit, 1);
    assert_eq!(nv(255, 0, 32).groups_per_unit, 8);
    assert!(theoretical(&nvidia(H200), Some(256), 0, 32, 32).is_none());
}

#[test]
fn hopper_shared_memory_limiter() {
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
fn hopper_small_groups_limited_by_32_groups_per_sm() {
    let o = nv(16, 0, 32);
    assert_eq!((o.groups_per_unit, o.waves_per_unit), (32, 32));
    assert_eq!(o.occupancy_pct, 50.0);
    assert_eq!(o.limiter, "groups");
    // 64-thread groups fill the SM: 32 groups, 64 warps, tie named "threads".
    let o = nv(32, 0, 64);
    assert_eq!(gwl(&o), (32, 64, "threads"));
    // Partial warps count whole: 33 threads take two warps.
    assert_eq!(nv(16, 0, 33).waves_per_unit, 64);
}

#[test]
fn turing_7_5() {
    // 32 warps, 16 groups, 64 KiB shared per SM, no reserved shared memory, 256-byte granule.
    // 1024 threads = 32 warps: the warp limit allows 32 / 32 = 1 group (registers allow 2).
    let o = on(T4, 32, 0, 1024);
    assert_eq!(gwl(&o), (1, 32, "threads"));
    assert_eq!(o.occupancy_pct, 100.0);
    // 128 threads (4 warps) at 128 regs: 4096 per warp, 16384 / 4096 = 4 per sub-partition,
    // 16 per SM → 4 groups, 16 of 32 warps.
    let o = on(T4, 128, 0, 128);
    assert_eq!(gwl(&o), (4, 16, "registers"));
    assert_eq!(o.occupancy_pct, 50.0);
    // 256 threads with 20 KiB: 20480 + 0 reserved, already a multiple of 256; 65536 / 20480 = 3
    // groups (the warp limit allows 4).
    let o = on(T4, 16, 20 * 1024, 256);
    assert_eq!(gwl(&o), (3, 24, "shared_memory"));
    assert_eq!(o.occupancy_pct, 75.0);
    // 20 KiB + 1 byte rounds up to 20736 (granule 256): still 3; 32 KiB + 1 byte → 33024: 1.
    assert_eq!(on(T4, 16, 20 * 1024 + 1, 256).groups_per_unit, 3);
    assert_eq!(on(T4, 16, 32 * 1024 + 1, 256).groups_per_unit, 1);
    // 64 KiB fits one group (nothing reserved); a byte more, none.
    assert_eq!(on(T4, 16, 64 * 1024, 64).groups_per_unit, 1);
    assert_eq!(on(T4, 16, 64 * 1024 + 1, 64).groups_per_unit, 0);
    // One-warp groups: warp limit 32, group limit 16 → 16 groups, 16 warps.
    let o = on(T4, 16, 0, 32);
    assert_eq!(gwl(&o), (16, 16, "groups"));
    assert_eq!(o.occupancy_pct, 50.0);
}

#[test]
fn ampere_8_0() {
    // A100: 64 warps, 32 groups, 164 KiB, 1 KiB reserved per group, 128-byte granule.
    // The same register cliff as Hopper: 1024 threads at 32 regs → 2 groups, at 33 → 1.
    assert_eq!(gwl(&on(A100, 32, 0, 1024)), (2, 64, "threads"));
    assert_eq!(gwl(&on(A100, 33, 0, 1024)), (1, 32, "registers"));
    // 48 KiB + 1 KiB = 50176 bytes; 167936 / 50176 = 3 groups of 256 threads (Hopper: 4).
    let o = on(A100, 16, 48 * 1024, 256);
    assert_eq!(gwl(&o), (3, 24, "shared_memory"));
    assert_eq!(o.occupancy_pct, 37.5);
    // 163 KiB + 1 KiB = the whole 164 KiB: 1 group; a byte more, none.
    assert_eq!(on(A100, 16, 163 * 1024, 256).groups_per_unit, 1);
    assert_eq!(on(A100, 16, 163 * 1024 + 1, 256).groups_per_unit, 0);
    // One-warp groups: 32 groups, 32 of 64 warps.
    assert_eq!(gwl(&on(A100, 16, 0, 32)), (32, 32, "groups"));
}

#[test]
fn ampere_8_6() {
    // GA10x: 48 warps, 16 groups, 100 KiB, 1 KiB reserved, 128-byte granule.
    // 1024 threads: 48 / 32 = 1 group (registers would allow 2): 32 of 48 warps.
    let o = on(RTX3090, 32, 0, 1024);
    assert_eq!(gwl(&o), (1, 32, "threads"));
    assert!((o.occupancy_pct - 200.0 / 3.0).abs() < 1e-9);
    // 256 threads at 32 regs: warps allow 48 / 8 = 6, registers 64 / 8 = 8 → 6 (100 %).
    let o = on(RTX3090, 32, 0, 256);
    assert_eq!(gwl(&o), (6, 48, "threads"));
    assert_eq!(o.occupancy_pct, 100.0);
    // 128 threads at 48 regs: 1536 per warp, 16384 / 1536 = 10 per sub-partition, 40 per SM,
    // 40 / 4 = 10 groups (warps allow 12).
    assert_eq!(gwl(&on(RTX3090, 48, 0, 128)), (10, 40, "registers"));
    // 48 KiB + 1 KiB = 50176; 102400 / 50176 = 2 groups.
    assert_eq!(
        gwl(&on(RTX3090, 16, 48 * 1024, 256)),
        (2, 16, "shared_memory")
    );
    // 99 KiB is the most one group can have.
    assert_eq!(on(RTX3090, 16, 99 * 1024, 256).groups_per_unit, 1);
    assert_eq!(on(RTX3090, 16, 99 * 1024 + 1, 256).groups_per_unit, 0);
    // 64-thread groups: warps allow 24, the SM 16 groups.
    assert_eq!(gwl(&on(RTX3090, 16, 0, 64)), (16, 32, "groups"));
}

#[test]
fn orin_8_7() {
    let orin = Device {
        name: "Orin".into(),
        ..nvidia(0)
    };
    let o = |regs, shared, n| theoretical(&orin, Some(regs), shared, n, 32).unwrap();
    // 48 warps and 16 groups like 8.6, but 164 KiB of shared memory like 8.0:
    // 48 KiB + 1 KiB = 50176; 167936 / 50176 = 3 groups of 256 threads (warps allow 6).
    assert_eq!(gwl(&o(16, 48 * 1024, 256)), (3, 24, "shared_memory"));
    assert_eq!(gwl(&o(16, 0, 64)), (16, 32, "groups"));
    assert_eq!(gwl(&o(32, 0, 1024)), (1, 32, "threads"));
    assert_eq!(o(16, 163 * 1024, 256).groups_per_unit, 1);
}

#[test]
fn ada_8_9() {
    // 48 warps, 24 groups, 100 KiB, 1 KiB reserved.
    // 64-thread groups: warps allow 48 / 2 = 24, the SM 24 → tie, "threads" (100 %).
    let o = on(L40S, 16, 0, 64);
    assert_eq!(gwl(&o), (24, 48, "threads"));
    assert_eq!(o.occupancy_pct, 100.0);
    // One-warp groups: 24 groups, 24 of 48 warps.
    let o = on(L40S, 16, 0, 32);
    assert_eq!(gwl(&o), (24, 24, "groups"));
    assert_eq!(o.occupancy_pct, 50.0);
    // 32 KiB + 1 KiB = 33792; 102400 / 33792 = 3 groups of 128 threads.
    assert_eq!(gwl(&on(L40S, 16, 32 * 1024, 128)), (3, 12, "shared_memory"));
    // 1024 threads: one group.
    assert_eq!(gwl(&on(L40S, 32, 0, 1024)), (1, 32, "threads"));
}

#[test]
fn blackwell_10_0() {
    // B200: Hopper's numbers.
    assert_eq!(gwl(&on(B200, 32, 0, 1024)), (2, 64, "threads"));
    assert_eq!(gwl(&on(B200, 33, 0, 1024)), (1, 32, "registers"));
    assert_eq!(gwl(&on(B200, 16, 48 * 1024, 256)), (4, 32, "shared_memory"));
    assert_eq!(gwl(&on(B200, 16, 0, 32)), (32, 32, "groups"));
}

#[test]
fn blackwell_12_0() {
    // RTX 50: 48 warps, 24 groups, 100 KiB, 1 KiB reserved.
    // 1024 threads: one group, 32 of 48 warps.
    assert_eq!(gwl(&on(RTX5090, 32, 0, 1024)), (1, 32, "threads"));
    // One-warp groups: 24 groups.
    assert_eq!(gwl(&on(RTX5090, 16, 0, 32)), (24, 24, "groups"));
    // 256 threads at 48 regs: 1536 per warp, 10 per sub-partition, 40 per SM → 5 groups
    // (warps allow 6): 40 of 48 warps.
    let o = on(RTX5090, 48, 0, 256);
    assert_eq!(gwl(&o), (5, 40, "registers"));
    assert!((o.occupancy_pct - 250.0 / 3.0).abs() < 1e-9);
    assert_eq!(on(RTX5090, 16, 99 * 1024, 256).groups_per_unit, 1);
    assert_eq!(on(RTX5090, 16, 99 * 1024 + 1, 256).groups_per_unit, 0);
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
    assert_eq!(
        (one.unit, one.arch.as_str()),
        (
            "CU",
            "gcn (seeds/004 article rule; no VK_AMD_shader_core_properties)"
        )
    );
}

fn core(simds: u32, waves: u32, vgprs: u32, granule: u32) -> AmdCoreProperties {
    AmdCoreProperties {
        shader_engine_count: 2,
        shader_arrays_per_engine_count: 2,
        compute_units_per_shader_array: 10,
        simd_per_compute_unit: simds,
        wavefronts_per_simd: waves,
        wavefront_size: 64,
        sgprs_per_simd: 800,
        vgprs_per_simd: vgprs,
        min_vgpr_allocation: 4,
        max_vgpr_allocation: 256,
        vgpr_allocation_granularity: granule,
        active_compute_unit_count: None,
    }
}

fn amd_with(c: AmdCoreProperties) -> Device {
    Device {
        vendor_id: 0x1002,
        amd: Some(c),
        ..Device::default()
    }
}

#[test]
fn gcn_from_the_extension() {
    // RADV on Polaris: 4 SIMDs, 8 waves per SIMD (not the article's 10), 256 VGPRs, granule 4.
    let d = amd_with(core(4, 8, 256, 4));
    let r = rules(&d).unwrap();
    assert_eq!(
        (r.unit, r.units, r.max_waves_per_unit()),
        ("CU", Some(40), 32)
    );
    let o = |v, lds, n| theoretical(&d, Some(v), lds, n, 64).unwrap();
    // 256 threads = 4 waves at 24 VGPRs: 256 / 24 = 10, capped at 8 per SIMD → 32 waves →
    // 8 groups, tie with the wave limit → "threads".
    assert_eq!(gwl(&o(24, 0, 256)), (8, 32, "threads"));
    // The article's 1024 threads at 32 VGPRs: 8 per SIMD, 32 per CU → 2 groups, 100 % of 32.
    let two = o(32, 0, 1024);
    assert_eq!(gwl(&two), (2, 32, "threads"));
    assert_eq!(two.occupancy_pct, 100.0);
    // 64 VGPRs: 4 per SIMD, 16 per CU → 1 group.
    assert_eq!(gwl(&o(64, 0, 1024)), (1, 16, "registers"));
    // Wave32 is not GCN.
    assert!(theoretical(&d, Some(32), 0, 256, 32).is_none());
    // activeComputeUnitCount wins over the product of the shape.
    let mut c = core(4, 10, 256, 4);
    c.active_compute_unit_count = Some(36);
    assert_eq!(rules(&amd_with(c)).unwrap().units, Some(36));
}

/// RDNA2 as RADV reports it: 2 SIMDs per CU, 16 waves per SIMD, 512 wave64 VGPRs, granule 4
/// (the compiler allocates in 8 / 16).
fn rdna2() -> Device {
    amd_with(core(2, 16, 512, 4))
}

#[test]
fn rdna2_wave32() {
    let d = rdna2();
    let r = rules(&d).unwrap();
    assert_eq!(
        (r.unit, r.units, r.max_waves_per_unit()),
        ("WGP", Some(20), 64)
    );
    assert!(r.arch.starts_with("rdna2/3 ("), "{}", r.arch);
    let o = |v, lds, n| theoretical(&d, Some(v), lds, n, 32).unwrap();
    // 256 threads = 8 wave32s at 64 VGPRs: 1024 / 64 = 16 per SIMD, 64 per WGP → 8 groups,
    // tie with 64 / 8 → "threads", 100 %.
    let full = o(64, 0, 256);
    assert_eq!(gwl(&full), (8, 64, "threads"));
    assert_eq!(full.occupancy_pct, 100.0);
    // 65 VGPRs round up to 80 (granule 16): 1024 / 80 = 12 per SIMD, 48 per WGP → 6 groups.
    let o65 = o(65, 0, 256);
    assert_eq!(gwl(&o65), (6, 48, "registers"));
    assert_eq!(o65.occupancy_pct, 75.0);
    // 40 VGPRs round up to 48: 1024 / 48 = 21, capped at 16 → as good as 64.
    assert_eq!(o(40, 0, 256).groups_per_unit, 8);
    // LDS: 48 KiB per group (a multiple of 1 KiB): 128 KiB / 48 KiB = 2 groups.
    assert_eq!(gwl(&o(32, 48 * 1024, 256)), (2, 16, "shared_memory"));
    // 64 KiB is the most one group may have.
    assert_eq!(o(32, 64 * 1024, 256).groups_per_unit, 2);
    assert_eq!(o(32, 64 * 1024 + 1, 256).groups_per_unit, 0);
    // Two-wave groups: 64 / 2 = 32 groups by waves and at most 32 per WGP → tie, "threads".
    assert_eq!(gwl(&o(16, 0, 64)), (32, 64, "threads"));
    // One-wave groups are not held to 32 groups: 64 of them.
    assert_eq!(gwl(&o(16, 0, 32)), (64, 64, "threads"));
}

#[test]
fn rdna2_wave64() {
    let d = rdna2();
    let o = |v, lds, n| theoretical(&d, Some(v), lds, n, 64).unwrap();
    // 256 threads = 4 wave64s at 64 VGPRs: 512 / 64 = 8 per SIMD, 32 per WGP → 8 groups, 50 %.
    let half = o(64, 0, 256);
    assert_eq!(gwl(&half), (8, 32, "registers"));
    assert_eq!(half.occupancy_pct, 50.0);
    // 32 VGPRs: 512 / 32 = 16 per SIMD → 64 waves, 16 groups (tie with 64 / 4) → "threads".
    assert_eq!(gwl(&o(32, 0, 256)), (16, 64, "threads"));
    // 33 VGPRs round up to 40 (granule 8): 512 / 40 = 12 per SIMD, 48 per WGP → 12 groups.
    assert_eq!(gwl(&o(33, 0, 256)), (12, 48, "registers"));
    // 1024 threads = 16 wave64s at 32 VGPRs and 32 KiB LDS: waves 64 / 16 = 4, LDS 4 → "threads".
    assert_eq!(gwl(&o(32, 32 * 1024, 1024)), (4, 64, "threads"));
    // More VGPRs than a thread can address: no rule.
    assert!(theoretical(&d, Some(257), 0, 256, 64).is_none());
    assert!(theoretical(&d, Some(32), 0, 256, 16).is_none());
}

#[test]
fn rdna3_navi31_and_rdna1() {
    // Navi31: 768 wave64 VGPRs (1536 wave32), granule 12 / 24.
    let d = amd_with(core(2, 16, 768, 4));
    assert!(rules(&d).unwrap().arch.starts_with("rdna3 (navi31/32)"));
    let o = |v, n, sg| theoretical(&d, Some(v), 0, n, sg).unwrap();
    // wave32 at 96 VGPRs: 1536 / 96 = 16 per SIMD → full (8 groups of 256).
    assert_eq!(gwl(&o(96, 256, 32)), (8, 64, "threads"));
    // 97 round up to 120: 1536 / 120 = 12 per SIMD, 48 per WGP → 6 groups.
    assert_eq!(gwl(&o(97, 256, 32)), (6, 48, "registers"));
    // wave64 at 64: 768 / 72 (64 → 72, granule 12) = 10 per SIMD, 40 per WGP → 10 groups of 4.
    assert_eq!(gwl(&o(64, 256, 64)), (10, 40, "registers"));

    // RDNA1: 20 waves per SIMD (80 per WGP), granule 4 / 8, LDS in 512-byte blocks.
    let d = amd_with(core(2, 20, 512, 4));
    let r = rules(&d).unwrap();
    assert!(r.arch.starts_with("rdna1"), "{}", r.arch);
    assert_eq!(r.max_waves_per_unit(), 80);
    // 64-thread wave32 groups (2 waves) at 24 VGPRs: 1024 / 24 = 42, capped at 20 → 80 waves,
    // 40 groups by waves, but at most 32 groups per WGP: 64 waves, 80 %.
    let o = theoretical(&d, Some(24), 0, 64, 32).unwrap();
    assert_eq!(gwl(&o), (32, 64, "groups"));
    assert_eq!(o.occupancy_pct, 80.0);
    // LDS 43 KiB + 100 bytes rounds to 44544 (512-byte blocks): 131072 / 44544 = 2 groups.
    assert_eq!(
        theoretical(&d, Some(24), 43 * 1024 + 100, 256, 32)
            .unwrap()
            .groups_per_unit,
        2
    );
}

#[test]
fn unknown_rules_and_missing_inputs_give_none() {
    let mesa = Device {
        vendor_id: 0x10005,
        ..Device::default()
    };
    assert!(rules(&mesa).is_none());
    assert!(theoretical(&mesa, Some(32), 0, 1024, 32).is_none());
    let h = nvidia(H200);
    assert!(theoretical(&h, None, 0, 1024, 32).is_none());
    assert!(theoretical(&h, Some(32), 0, 0, 32).is_none());
    assert!(theoretical(&h, Some(32), 0, 2048, 32).is_none());
    assert!(theoretical(&h, Some(32), 0, 1024, 64).is_none());
    // A register count of 0 is no register limit, not a division by zero.
    assert_eq!(nv(0, 0, 1024).groups_per_unit, 2);
    assert_eq!(amd(0, 0, 1024).groups_per_unit, 2);
    assert_eq!(
        theoretical(&rdna2(), Some(0), 0, 256, 32)
            .unwrap()
            .groups_per_unit,
        8
    );
    // Without the AMD extension, wave32 has no rule (RDNA cannot be told from GCN).
    assert!(theoretical(&gcn_article(), Some(32), 0, 1024, 32).is_none());
}
