//! Unit tests of the peaks: choosing each unit's best, the agreement and cross-unit rules,
//! the L2 knee, and peaks.csv round trips.
use super::*;
use std::path::{Path, PathBuf};

const HEAD: &str = "variant,status,mode,params,bytes,flops,int_ops,texels,gbytes_per_s,median_ns,device_uuid,driver_version,reason\n";

/// A results.csv as p3lab writes it: `schema_version` and `scenario` first.
fn write_results(p: &Path, text: &str) -> std::io::Result<()> {
    let mut lines = text.lines();
    let head = lines.next().unwrap_or("");
    let rows: String = lines.map(|l| format!("2,calibrate,{l}\n")).collect();
    std::fs::write(p, format!("schema_version,scenario,{head}\n{rows}"))
}

fn write(rows: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("results.csv");
    // Every results.csv p3lab writes starts with schema_version (and has `scenario`).
    let rows: String = rows.lines().map(|l| format!("2,calibrate,{l}\n")).collect();
    std::fs::write(&p, format!("schema_version,scenario,{HEAD}{rows}")).unwrap();
    (dir, p)
}

fn unit<'a>(peaks: &'a [Peak], u: &str) -> &'a Peak {
    peaks.iter().find(|x| x.unit == u).unwrap()
}

#[test]
fn best_variant_per_unit_only_from_checked_warm_rows() {
    let (_d, p) = write(
        "dram_read-a,ok,warm,,1000,,,,,10,u,7,\n\
         dram_read-b,ok,warm,,1350,,,,,9,u,7,\n\
         dram_read-c,ok,cold,,9000,,,,,9,u,7,\n\
         dram_copy-a,check_failed,warm,,999,,,,,1,u,7,wrong\n\
         dram_copy-b,ok,warm,,120,,,,,1,u,7,\n\
         dram_copy-c,ok,warm,,110,,,,,1,u,7,\n\
         fp32-x,ok,warm,,,5000,,,,1,u,7,\n\
         fp32-y,ok,warm,,,4000,,,,1,u,7,\n\
         int32-x,check_failed,warm,,,,100,,,1,u,7,sink[1024] = 1\n\
         empty-wg32,ok,warm,,,,,,,3000,u,7,\n\
         empty-wg256,ok,warm,,,,,,,2500,u,7,\n",
    );
    let peaks = from_results(&p).unwrap();
    let d = unit(&peaks, "dram_read");
    assert_eq!(d.value, Some(150.0), "cold rows do not count");
    assert_eq!(
        (d.best_variant.as_str(), d.status.as_str()),
        ("dram_read-b", "ok")
    );
    assert_eq!(
        unit(&peaks, "dram_copy").value,
        Some(120.0),
        "failed checks do not count"
    );
    let e = unit(&peaks, "empty");
    assert_eq!(e.value, Some(2500.0), "for overhead the smallest wins");
    let i = unit(&peaks, "int32");
    assert_eq!((i.value, i.status.as_str()), (None, "failed"));
    assert!(i.reason.contains("sink[1024]"), "{}", i.reason);
    let out = p.with_file_name("peaks.csv");
    write_csv(&peaks, &out).unwrap();
    assert_eq!(read_csv(&out).unwrap(), peaks);
    let pk = Peaks::from_list(&peaks);
    assert_eq!(pk.dram(), Some(150.0));
    assert_eq!(pk.get("int32"), None);
}

#[test]
fn variants_that_disagree_make_the_unit_suspect() {
    // The fp16 bug of issue 12: 8 chains read 4x 16 chains, for the same work per flop.
    let (_d, p) = write(
        "fp16-c8,ok,warm,,,251000,,,,1000,u,7,\n\
         fp16-c16,ok,warm,,,61000,,,,1000,u,7,\n\
         fp32-c8,ok,warm,,,60000,,,,1000,u,7,\n\
         fp32-c16,ok,warm,,,59000,,,,1000,u,7,\n\
         texture_point-acc1,ok,warm,,,,,1000,,1000,u,7,\n",
    );
    let peaks = from_results(&p).unwrap();
    let h = unit(&peaks, "fp16");
    assert_eq!(h.status, "suspect");
    assert!(h.reason.contains("4.11x the next best"), "{}", h.reason);
    // 4.18x FP32 is within the cross-unit rule (A100: 4x); the agreement check caught it.
    assert!(!h.reason.contains("FP16 at"), "{}", h.reason);
    assert_eq!(unit(&peaks, "fp32").status, "ok");
    let t = unit(&peaks, "texture_point");
    assert_eq!(
        (t.value, t.status.as_str()),
        (Some(1.0), "suspect"),
        "one variant only"
    );
    assert_eq!(
        Peaks::from_list(&peaks).suspect,
        vec!["fp16", "texture_point"]
    );
}

#[test]
fn an_l1_far_above_the_l2_is_not_believed() {
    // The first H200 run: 441 TB/s of "L1" (hoisted loads) against an 8.8 TB/s L2.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("results.csv");
    write_results(
        &p,
        "variant,status,mode,bytes,l1_bytes,median_ns,device_uuid,driver_version\n\
         l2_read-a,ok,warm,8800,,1,u,7\n\
         l2_read-b,ok,warm,8700,,1,u,7\n\
         l1_read-a,ok,warm,,440000,1,u,7\n\
         l1_read-b,ok,warm,,430000,1,u,7\n",
    )
    .unwrap();
    let peaks = from_results(&p).unwrap();
    let l1 = unit(&peaks, "l1_read");
    assert_eq!(l1.status, "suspect");
    assert!(l1.reason.contains("50.0x the L2 peak"), "{}", l1.reason);
    write_results(
        &p,
        "variant,status,mode,bytes,l1_bytes,median_ns,device_uuid,driver_version\n\
         l2_read-a,ok,warm,8800,,1,u,7\n\
         l2_read-b,ok,warm,8700,,1,u,7\n\
         l1_read-a,ok,warm,,33000,1,u,7\n\
         l1_read-b,ok,warm,,32000,1,u,7\n",
    )
    .unwrap();
    assert_eq!(unit(&from_results(&p).unwrap(), "l1_read").status, "ok");
}

/// A rate is work over the time past a dispatch's fixed cost, so a dispatch with more
/// work cannot beat it: the H100's launch calibration (1 048 576 groups, 632 614 ns, an
/// empty dispatch of 2 659 ns) against a tiling pass of 2 359 296 groups in 1 422 486 ns,
/// which read 100.06 % of the peak before.
#[test]
fn a_dispatch_fixed_cost_is_not_work() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("results.csv");
    write_results(
        &p,
        "variant,status,mode,params,workgroups,median_ns,device_uuid,driver_version,reason\n\
         launch-wg32,ok,warm,,1048576,632614.4,u,7,\n\
         launch-wg64,ok,warm,,1048576,632672.0,u,7,\n\
         empty-wg256,ok,warm,,,2659.2,u,7,\n\
         empty-wg32,ok,warm,,,2700.0,u,7,\n",
    )
    .unwrap();
    let launch = unit(&from_results(&p).unwrap(), "launch").value.unwrap();
    assert!(
        (launch - 1048576.0 / (632614.4 - 2659.2)).abs() < 1e-9,
        "{launch}"
    );
    let tiling = 2359296.0 / 1422486.4;
    assert!(tiling / launch < 1.0, "{}", tiling / launch);
    assert!(
        tiling / (1048576.0 / 632614.4) > 1.0,
        "the old peak was beaten"
    );
    // An empty dispatch over a quarter of the row's time is not taken out.
    write_results(
        &p,
        "variant,status,mode,params,workgroups,median_ns,device_uuid,driver_version,reason\n\
         launch-wg32,ok,warm,,1000,10000,u,7,\n\
         launch-wg64,ok,warm,,1000,10000,u,7,\n\
         empty-wg256,ok,warm,,,3000,u,7,\n",
    )
    .unwrap();
    assert_eq!(unit(&from_results(&p).unwrap(), "launch").value, Some(0.1));
}

/// The L2 capacity curves measured on two H100s (L2 of 50 MB) and an H200 (about 60 MB),
/// GB/s against the working set (results.csv of reports/nvidia-h100/i12-before/peak,
/// reports/nvidia-h100/i12/peak and reports/nvidia-h200/i12/peak): the knee must not
/// exceed the L2 it measures.
#[test]
fn l2_capacity_stays_within_the_l2_of_real_gpus() {
    let mib = |m: f64| m * 1048576.0;
    let sizes = [
        8.0, 16.0, 24.0, 32.0, 40.0, 48.0, 56.0, 64.0, 80.0, 96.0, 128.0, 256.0,
    ];
    let h100 = [
        7561.2, 7398.3, 7552.2, 7443.8, 7129.1, 6171.3, 5109.6, 4328.3, 3759.3, 3509.3, 3321.9,
        3217.3,
    ];
    let h200 = [
        7782.0, 8655.0, 8646.0, 8614.1, 8533.3, 8235.3, 6780.6, 6519.6, 5464.2, 5112.0, 4818.0,
        4645.8,
    ];
    let h100_other = [
        7550.0, 7372.0, 7363.3, 7397.7, 6556.6, 5736.5, 5324.9, 4360.3, 3734.5, 3516.9, 3323.1,
        3206.0,
    ];
    for (name, gbs, l2) in [
        ("H100", h100, 50e6),
        ("another H100", h100_other, 50e6),
        ("H200", h200, 60e6),
    ] {
        let curve: Vec<(f64, f64)> = sizes.iter().map(|s| mib(*s)).zip(gbs).collect();
        let k = knee(&curve).unwrap();
        assert!(
            k <= l2,
            "{name}: {:.1} MB over its {:.0} MB L2",
            k / 1e6,
            l2 / 1e6
        );
        // ... and it is where the L2 still serves the reads: past the flat part.
        assert!(k >= mib(32.0), "{name}: {:.1} MB", k / 1e6);
    }
}

#[test]
fn l2_capacity_is_the_knee_of_the_bandwidth_curve() {
    // 10 TB/s while the buffer fits, 4 TB/s beyond; 90 % of the plateau (9090 GB/s)
    // between 32 and 64 MB.
    let curve = [
        (8e6, 10000.0),
        (16e6, 10100.0),
        (32e6, 9500.0),
        (64e6, 5000.0),
        (128e6, 4000.0),
    ];
    let k = knee(&curve).unwrap();
    // 9500 -> 5000 crosses 9090 at t = 410 / 4500 of the way from log2(32e6) to log2(64e6).
    assert!((k - 32e6 * 2f64.powf(410.0 / 4500.0)).abs() < 1.0, "{k}");
    assert!(knee(&curve[..2]).unwrap_err().contains("at least 3"));
    let flat = [(8e6, 4000.0), (16e6, 4100.0), (32e6, 3900.0)];
    assert!(knee(&flat).unwrap_err().contains("no knee"));
    let rows: String = curve
        .iter()
        .map(|(s, b)| format!("l2_capacity-wg1024,ok,warm,bytes={s};passes=4,,,,,{b},1,u,7,\n"))
        .collect();
    let (_d, p) = write(&rows);
    let peaks = from_results(&p).unwrap();
    let c = unit(&peaks, L2_CAPACITY);
    assert_eq!((c.value, c.status.as_str()), (Some(k), "ok"));
    assert_eq!(Peaks::from_list(&peaks).l2_capacity, Some(k));
}

#[test]
fn peaks_of_another_device_or_driver_are_named() {
    let mut p = from_results(&write("fp32-a,ok,warm,,,10,,,,1,u,7,\n").1).unwrap();
    assert_eq!(mismatch(&p, "u", 7), None);
    assert!(mismatch(&p, "v", 7)
        .unwrap()
        .contains("measured on device u"));
    assert!(mismatch(&p, "u", 8).unwrap().contains("driver version 7"));
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("old.csv");
    write_csv(&p, &f).unwrap();
    assert_eq!(read_csv(&f).unwrap(), p, "this version's file reads back");
    for (version, why) in [(1, "did not check themselves"), (2, "fixed cost as work")] {
        p[0].schema_version = version;
        write_csv(&p, &f).unwrap();
        let e = read_csv(&f).unwrap_err().to_string();
        assert!(e.contains("p3lab peak") && e.contains(why), "{e}");
    }
}

/// Issue 40: peaks of another card of the same model and driver are this card's (with a note);
/// a card with no cached peaks finds another card's of its model in the cache.
#[test]
fn peaks_of_another_card_of_the_same_model_are_accepted() {
    let mut p = from_results(&write("fp32-a,ok,warm,,,10,,,,1,u,7,\n").1).unwrap();
    p[0].device_name = "GPU X".into();
    assert!(same_model(&p, "GPU X", 7));
    assert!(!same_model(&p, "GPU Y", 7), "another model");
    assert!(!same_model(&p, "GPU X", 8), "another driver");
    let dir = tempfile::tempdir().unwrap();
    let spirv = dir.path().join("spirv");
    assert_eq!(sibling_cache(&spirv, "GPU X", 7), None);
    let first = cache_path(&spirv, "u", 7);
    std::fs::create_dir_all(first.parent().unwrap()).unwrap();
    write_csv(&p, &first).unwrap();
    assert_eq!(sibling_cache(&spirv, "GPU X", 7), Some(first));
    assert_eq!(sibling_cache(&spirv, "GPU Y", 7), None);
    assert_eq!(sibling_cache(&spirv, "GPU X", 8), None);
}

#[test]
fn the_tensor_units_a_scenario_may_name_are_the_measured_ones() {
    let measured: Vec<&str> = UNITS
        .iter()
        .map(|u| u.name)
        .filter(|n| n.starts_with("tensor_"))
        .collect();
    assert_eq!(measured, crate::scenario::variant::TENSOR_UNITS);
}

#[test]
fn the_texture_units_a_scenario_may_name_are_the_measured_ones() {
    // Every texture unit but bilinear (which `texels_linear` counts against) is one `texels`
    // may name, and the default is the first: rgba8 point sampling, as before issue 26.
    let measured: Vec<&str> = UNITS
        .iter()
        .map(|u| u.name)
        .filter(|n| n.starts_with("texture_") && *n != "texture_bilinear")
        .collect();
    assert_eq!(measured, crate::scenario::variant::TEXTURE_UNITS);
    assert_eq!(
        crate::scenario::variant::TEXTURE_UNITS[0],
        crate::scenario::variant::DEFAULT_TEXTURE_UNIT
    );
    for u in UNITS.iter().filter(|u| u.name.starts_with("texture_")) {
        let work = if u.name == "texture_bilinear" {
            "texels_linear"
        } else {
            "texels"
        };
        assert_eq!(
            (u.work, u.value_unit),
            (work, "gtexels_per_s"),
            "{}",
            u.name
        );
    }
}
