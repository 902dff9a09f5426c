//! AMD shader statistics (VK_AMD_shader_info) end to end. Lavapipe lacks the extension, so the
//! path runs over tests/info_layer: a small Vulkan layer, built here with `cc`, that advertises
//! the extension and answers vkGetShaderInfoAMD with statistics whose values the tests know
//! (40 VGPRs, 24 SGPRs, 1024 bytes of LDS, 16 bytes of scratch, ...) and a fixed disassembly.
//! Without the layer the run must have no `amd_shader_info` rows (on lavapipe).
mod common;
use ash::vk;
// Links p3lab's static glslang and SPIRV-Tools (build.rs), which shaderc needs below.
use common::*;
use p3lab as _;
use std::ffi::CStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const LAYER: &str = "VK_LAYER_P3LAB_fake_shader_info";
const EXTENSION: &str = "VK_AMD_shader_info";
const SOURCE: &str = "amd_shader_info";
/// What the layer's vkGetShaderInfoAMD(DISASSEMBLY) returns, without its NUL.
const DISASSEMBLY: &str = "p3lab fake disassembly\n";

/// The metrics p3lab writes from VkShaderStatisticsInfoAMD, with the layer's values.
const STATS: [(&str, f64, &str); 9] = [
    ("vgprs_used", 40.0, "registers"),
    ("sgprs_used", 24.0, "registers"),
    ("vgprs_available", 512.0, "registers"),
    ("sgprs_available", 106.0, "registers"),
    ("vgprs_physical", 1536.0, "registers"),
    ("sgprs_physical", 800.0, "registers"),
    ("lds_bytes_per_group", 65536.0, "bytes"),
    ("lds_used_bytes", 1024.0, "bytes"),
    ("scratch_bytes", 16.0, "bytes"),
];

/// results.csv columns filled from shader info where the driver has no executable statistics.
/// `spill_bytes_per_thread` is not: RADV's scratchMemUsageInBytes is per wave, not per thread,
/// so it stays a metric (`scratch_bytes`) and the column stays empty.
const NORMALIZED: [(&str, Option<f64>); 3] = [
    ("registers_per_thread", Some(40.0)),
    ("shared_bytes_per_group", Some(1024.0)),
    ("spill_bytes_per_thread", None),
];

/// Build the layer once per test process into target/tmp/info-layer-<pid>/ and write its
/// manifest there. A machine that cannot build it fails the tests: they never skip.
fn layer_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| build_layer("info_layer", "info", "fake_shader_info"))
}

/// p3lab with the layer enabled for this process only (loader 1.3.239: VK_ADD_LAYER_PATH adds
/// a search folder, VK_INSTANCE_LAYERS enables the layer).
fn run_with_layer(args: &[&str]) -> Output {
    let out = bin()
        .env("VK_ADD_LAYER_PATH", layer_dir())
        .env("VK_INSTANCE_LAYERS", LAYER)
        .args(args)
        .output()
        .expect("p3lab runs");
    eprintln!(
        "--- p3lab {} (with {LAYER})\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn run_without_layer(args: &[&str]) -> Output {
    let out = bin()
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("VK_LOADER_LAYERS_ENABLE")
        .args(args)
        .output()
        .expect("p3lab runs");
    eprintln!(
        "--- p3lab {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `p3lab run SCENARIO --reps 3 --warmup-ms 0 --out OUT [extra]`, with or without the layer.
fn run_scenario(scenario: &str, out: &Path, layer: bool, extra: &[&str]) {
    let mut args = vec![
        "run",
        scenario,
        "--reps",
        "3",
        "--warmup-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = if layer {
        run_with_layer(&args)
    } else {
        run_without_layer(&args)
    };
    assert_eq!(o.status.code(), Some(0), "p3lab {}", args.join(" "));
}

fn enabled_extensions(out: &Path) -> Vec<String> {
    run_json(out)["enabled"]["extensions"]
        .as_array()
        .expect("run.json enabled.extensions")
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect()
}

/// The amd_shader_info rows of metrics.csv.
fn info_rows(out: &Path) -> Vec<Row> {
    read_csv(&out.join("metrics.csv"))
        .into_iter()
        .filter(|m| m["source"] == SOURCE)
        .collect()
}

/// Every result row that ran has each statistic once per pass, named `<pass>/<stat>` when the
/// variant has several passes, with the layer's value and unit; no other amd_shader_info rows.
fn assert_statistics(out: &Path, passes: &[&str]) {
    let results = read_csv(&out.join("results.csv"));
    let rows = info_rows(out);
    let ok: Vec<&Row> = results.iter().filter(|r| r["status"] == "ok").collect();
    assert!(!ok.is_empty(), "no variant ran");
    let prefixes: Vec<String> = if passes.is_empty() {
        vec![String::new()]
    } else {
        passes.iter().map(|p| format!("{p}/")).collect()
    };
    let expected: Vec<(String, f64, &str)> = prefixes
        .iter()
        .flat_map(|p| {
            STATS
                .iter()
                .map(move |(n, v, u)| (format!("{p}{n}"), *v, *u))
        })
        .collect();
    for r in &ok {
        for (name, value, unit) in &expected {
            let found: Vec<&Row> = rows
                .iter()
                .filter(|m| {
                    m["variant"] == r["variant"] && m["params"] == r["params"] && m["name"] == *name
                })
                .collect();
            assert_eq!(
                found.len(),
                1,
                "{SOURCE} `{name}` of {} [{}]: {found:?}",
                r["variant"],
                r["params"]
            );
            assert_eq!(num(found[0], "value"), *value, "{name}: {:?}", found[0]);
            assert_eq!(found[0]["unit"], *unit, "{name}: {:?}", found[0]);
        }
    }
    for m in &rows {
        assert!(
            expected.iter().any(|(n, _, _)| *n == m["name"]),
            "unexpected {SOURCE} metric `{}`",
            m["name"]
        );
        assert!(
            ok.iter()
                .any(|r| r["variant"] == m["variant"] && r["params"] == m["params"]),
            "an {SOURCE} row for {} [{}], which has no ok result row",
            m["variant"],
            m["params"]
        );
    }
}

#[test]
fn devices_lists_the_extension_through_the_layer() {
    let o = run_with_layer(&["devices", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let devices = v.as_array().expect("a list of devices");
    assert!(!devices.is_empty());
    for d in devices {
        let exts = d["extensions"].as_array().expect("extensions");
        assert!(
            exts.iter()
                .any(|e| e[0] == EXTENSION && e[1] == serde_json::Value::Bool(true)),
            "device {} lacks {EXTENSION} with the layer: {exts:?}",
            d["name"]
        );
    }
}

#[test]
fn single_pass_run_records_the_statistics() {
    let (_t, out) = out_dir("info");
    run_scenario("scenarios/smoke.toml", &out, true, &[]);
    let exts = enabled_extensions(&out);
    assert!(
        exts.iter().any(|e| e == EXTENSION),
        "run.json enabled.extensions: {exts:?}"
    );
    assert_statistics(&out, &[]);
}

#[test]
fn multi_pass_names_carry_the_pass() {
    let (_t, out) = out_dir("info");
    run_scenario("tests/data/scenarios/multipass.toml", &out, true, &[]);
    assert!(enabled_extensions(&out).iter().any(|e| e == EXTENSION));
    assert_statistics(&out, &["scale", "add"]);
}

/// Where the driver gives no executable statistics (lavapipe without
/// VK_KHR_pipeline_executable_properties), results.csv's normalized columns come from shader
/// info. A column the driver fills itself is left to the driver's value and not checked here.
#[test]
fn shader_info_fills_normalized_columns_the_driver_leaves_empty() {
    let (_t, plain) = out_dir("plain");
    run_scenario("scenarios/smoke.toml", &plain, false, &[]);
    let (_t2, info) = out_dir("info");
    run_scenario("scenarios/smoke.toml", &info, true, &[]);
    let before = read_csv(&plain.join("results.csv"));
    let after = read_csv(&info.join("results.csv"));
    let mut checked = 0;
    for r in after.iter().filter(|r| r["status"] == "ok") {
        let b = before
            .iter()
            .find(|b| b["variant"] == r["variant"] && b["params"] == r["params"])
            .unwrap_or_else(|| panic!("no row for {} without the layer", r["variant"]));
        for (col, want) in NORMALIZED {
            if b[col].is_empty() {
                assert_eq!(
                    r[col].parse::<f64>().ok(),
                    want,
                    "{col} of {} with the layer: `{}`",
                    r["variant"],
                    r[col]
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} normalized cells checked (empty without the layer)");
    // Only a driver that fills every column itself leaves nothing to check.
    assert!(
        checked > 0
            || before
                .iter()
                .filter(|b| b["status"] == "ok")
                .all(|b| !b["registers_per_thread"].is_empty()
                    && !b["shared_bytes_per_group"].is_empty()),
        "no normalized cell was checked"
    );
}

#[test]
fn dump_ir_writes_the_disassembly() {
    let (_t, out) = out_dir("info");
    run_scenario(
        "tests/data/scenarios/multipass.toml",
        &out,
        true,
        &["--dump-ir"],
    );
    let mut files = Vec::new();
    let mut stack = vec![out.join("ir")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read(&p)
                .unwrap()
                .windows(DISASSEMBLY.len())
                .any(|w| w == DISASSEMBLY.as_bytes())
            {
                files.push(p);
            }
        }
    }
    // Two variants (wg32, wg64) of two passes (scale, add): four pipelines at least.
    assert!(
        files.len() >= 4,
        "files under OUT/ir with the disassembly: {files:?}"
    );
    for variant in ["wg32", "wg64"] {
        assert!(
            files.iter().any(|f| f
                .strip_prefix(&out)
                .unwrap()
                .to_string_lossy()
                .contains(variant)),
            "no disassembly file for {variant}: {files:?}"
        );
    }
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !bytes.contains(&0),
            "{} keeps the driver's NUL terminator",
            f.display()
        );
    }
}

/// Without the layer lavapipe has no VK_AMD_shader_info: no rows. (On a GPU whose driver has
/// the extension, rows are there exactly when run.json says it is enabled.)
#[test]
fn without_the_layer_there_are_no_shader_info_rows() {
    let (_t, out) = out_dir("plain");
    run_scenario("scenarios/smoke.toml", &out, false, &[]);
    let native = enabled_extensions(&out).iter().any(|e| e == EXTENSION);
    let rows = info_rows(&out);
    assert_eq!(
        !rows.is_empty(),
        native,
        "{EXTENSION} enabled: {native}; {SOURCE} rows: {rows:?}"
    );
}

// ---- the layer itself ---------------------------------------------------------------------

/// Set in the child process that checks the layer through ash.
const CHILD: &str = "P3LAB_INFO_LAYER_CHILD";

/// The layer's vkGetShaderInfoAMD as the spec says, called through ash with no p3lab in
/// between, so the layer is known good while p3lab's side is not. The loader reads
/// VK_ADD_LAYER_PATH and VK_INSTANCE_LAYERS from the environment, so the check runs in a child
/// process of this test binary that starts with them set.
#[test]
fn the_layer_answers_as_the_spec_says() {
    if std::env::var_os(CHILD).is_some() {
        layer_self_check();
        return;
    }
    let out = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "the_layer_answers_as_the_spec_says",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .env("VK_ADD_LAYER_PATH", layer_dir())
        .env("VK_INSTANCE_LAYERS", LAYER)
        .output()
        .expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn spirv(src: &str, version: shaderc::SpirvVersion) -> Vec<u32> {
    let compiler = shaderc::Compiler::new().expect("shaderc");
    let mut o = shaderc::CompileOptions::new().expect("shaderc options");
    o.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_3 as u32,
    );
    o.set_target_spirv(version);
    compiler
        .compile_into_spirv(
            src,
            shaderc::ShaderKind::Compute,
            "t.comp",
            "main",
            Some(&o),
        )
        .expect("compiles")
        .as_binary()
        .to_vec()
}

type GetShaderInfo = vk::PFN_vkGetShaderInfoAMD;

/// One vkGetShaderInfoAMD call into `buf` (None: the size query) with `size` in.
fn call(
    f: GetShaderInfo,
    d: vk::Device,
    p: vk::Pipeline,
    stage: vk::ShaderStageFlags,
    ty: vk::ShaderInfoTypeAMD,
    size: usize,
    buf: Option<&mut [u8]>,
) -> (vk::Result, usize) {
    let mut s = size;
    let ptr = buf.map_or(std::ptr::null_mut(), |b| b.as_mut_ptr().cast());
    // SAFETY: `ptr` is null or points at a buffer of at least `size` bytes (callers pass its
    // length or less); the pipeline belongs to `d`.
    let r = unsafe { f(d, p, stage, ty, &mut s, ptr) };
    (r, s)
}

fn layer_self_check() {
    // SAFETY: plain Vulkan calls on objects made here, destroyed before the function returns.
    unsafe {
        let entry = ash::Entry::load().expect("libvulkan");
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .expect("instance");
        let (pd, family) = instance
            .enumerate_physical_devices()
            .unwrap()
            .into_iter()
            .find_map(|pd| {
                instance
                    .get_physical_device_queue_family_properties(pd)
                    .iter()
                    .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
                    .map(|f| (pd, f as u32))
            })
            .expect("a device with a compute queue");
        let ext = ash::amd::shader_info::NAME;
        let exts = instance.enumerate_device_extension_properties(pd).unwrap();
        let listed = exts
            .iter()
            .filter(|e| e.extension_name_as_c_str() == Ok(ext))
            .collect::<Vec<_>>();
        assert_eq!(listed.len(), 1, "{ext:?} listed once");
        assert_eq!(listed[0].spec_version, 1);

        let prio = [1.0f32];
        let qci = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let names = [ext.as_ptr()];
        // maintenance4: LocalSizeId needs it.
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default().maintenance4(true);
        let device = instance
            .create_device(
                pd,
                &vk::DeviceCreateInfo::default()
                    .queue_create_infos(&qci)
                    .enabled_extension_names(&names)
                    .push_next(&mut f13),
                None,
            )
            .expect("a device with the extension (the layer strips it for the driver)");
        let name = c"vkGetShaderInfoAMD";
        let raw = instance
            .get_device_proc_addr(device.handle(), name.as_ptr())
            .expect("vkGetDeviceProcAddr(vkGetShaderInfoAMD) is NULL");
        let f = std::mem::transmute::<unsafe extern "system" fn(), GetShaderInfo>(raw);
        let info = ash::amd::shader_info::Device::new(&instance, &device);

        // Workgroup sizes, as glslang writes them: LocalSizeId (SPIR-V 1.6), the WorkgroupSize
        // built-in (SPIR-V 1.0), each with and without spec constants, and a literal LocalSize
        // (SPIR-V 1.0; 1.6 writes LocalSizeId for literals too).
        let by_id = "#version 450\n\
            layout(local_size_x_id = 0, local_size_y = 2, local_size_z_id = 1) in;\n\
            shared uint s[64];\n\
            void main() { s[gl_LocalInvocationIndex % 64u] = gl_WorkGroupSize.x; barrier(); }\n";
        let literal = "#version 450\n\
            layout(local_size_x = 16) in;\n\
            shared uint s[64];\n\
            void main() { s[gl_LocalInvocationIndex] = 1u; barrier(); }\n";
        let layout = device
            .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
            .unwrap();
        let spec_data: Vec<u8> = [48u32, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
        let spec_entries = [
            vk::SpecializationMapEntry {
                constant_id: 0,
                offset: 0,
                size: 4,
            },
            vk::SpecializationMapEntry {
                constant_id: 1,
                offset: 4,
                size: 4,
            },
        ];
        let spec = vk::SpecializationInfo::default()
            .map_entries(&spec_entries)
            .data(&spec_data);
        let cases: [(&str, shaderc::SpirvVersion, bool, [u32; 3]); 5] = [
            (by_id, shaderc::SpirvVersion::V1_6, true, [48, 2, 3]),
            (by_id, shaderc::SpirvVersion::V1_6, false, [1, 2, 1]),
            (by_id, shaderc::SpirvVersion::V1_0, true, [48, 2, 3]),
            (by_id, shaderc::SpirvVersion::V1_0, false, [1, 2, 1]),
            (literal, shaderc::SpirvVersion::V1_0, false, [16, 1, 1]),
        ];
        let mut pipelines = Vec::new();
        for (src, version, specialize, wg) in cases {
            let code = spirv(src, version);
            let module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)
                .unwrap();
            let mut stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(module)
                .name(c"main");
            if specialize {
                stage = stage.specialization_info(&spec);
            }
            let ci = [vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(layout)];
            let p = device
                .create_compute_pipelines(vk::PipelineCache::null(), &ci, None)
                .map_err(|(_, e)| e)
                .unwrap()[0];
            // The module may go before its pipeline; the pipeline keeps its size.
            device.destroy_shader_module(module, None);
            pipelines.push((p, wg));
        }

        let compute = vk::ShaderStageFlags::COMPUTE;
        let stats_size = std::mem::size_of::<vk::ShaderStatisticsInfoAMD>();
        for &(p, wg) in &pipelines {
            let s = info.get_shader_info_statistics(p, compute).unwrap();
            assert_eq!(s.shader_stage_mask, compute);
            let u = s.resource_usage;
            assert_eq!(
                (
                    u.num_used_vgprs,
                    u.num_used_sgprs,
                    u.lds_size_per_local_work_group,
                    u.lds_usage_size_in_bytes,
                    u.scratch_mem_usage_in_bytes
                ),
                (40, 24, 65536, 1024, 16)
            );
            assert_eq!(
                (
                    s.num_physical_vgprs,
                    s.num_physical_sgprs,
                    s.num_available_vgprs,
                    s.num_available_sgprs
                ),
                (1536, 800, 512, 106)
            );
            assert_eq!(s.compute_work_group_size, wg);
        }
        let (d, p) = (device.handle(), pipelines[0].0);
        let stats = vk::ShaderInfoTypeAMD::STATISTICS;
        let disasm = vk::ShaderInfoTypeAMD::DISASSEMBLY;
        // Size queries.
        assert_eq!(
            call(f, d, p, compute, stats, 0, None),
            (vk::Result::SUCCESS, stats_size)
        );
        assert_eq!(
            call(f, d, p, compute, disasm, 0, None),
            (vk::Result::SUCCESS, DISASSEMBLY.len() + 1)
        );
        // A short buffer: that many bytes, VK_INCOMPLETE, the size written back.
        let mut buf = vec![0xabu8; stats_size];
        assert_eq!(
            call(f, d, p, compute, stats, 8, Some(&mut buf)),
            (vk::Result::INCOMPLETE, 8)
        );
        assert_eq!(
            u32::from_le_bytes(buf[..4].try_into().unwrap()),
            compute.as_raw()
        );
        assert!(buf[8..].iter().all(|&b| b == 0xab), "wrote past 8 bytes");
        let mut text = vec![0xabu8; 64];
        assert_eq!(
            call(f, d, p, compute, disasm, 5, Some(&mut text)),
            (vk::Result::INCOMPLETE, 5)
        );
        assert_eq!(&text[..6], b"p3lab\xab");
        // A large buffer: the whole text with its NUL, and the size of that.
        assert_eq!(
            call(f, d, p, compute, disasm, 64, Some(&mut text)),
            (vk::Result::SUCCESS, DISASSEMBLY.len() + 1)
        );
        assert_eq!(
            CStr::from_bytes_until_nul(&text).unwrap().to_str().unwrap(),
            DISASSEMBLY
        );
        let via_ash = info.get_shader_info_disassembly(p, compute).unwrap();
        assert_eq!(via_ash, format!("{DISASSEMBLY}\0").into_bytes());
        // No binary; no stage but compute.
        assert_eq!(
            info.get_shader_info_binary(p, compute),
            Err(vk::Result::ERROR_FEATURE_NOT_PRESENT)
        );
        for stage in [vk::ShaderStageFlags::VERTEX, vk::ShaderStageFlags::FRAGMENT] {
            assert_eq!(
                call(f, d, p, stage, stats, 0, None).0,
                vk::Result::ERROR_FEATURE_NOT_PRESENT
            );
        }

        // A device that did not enable the extension does not get the command.
        let plain = instance
            .create_device(
                pd,
                &vk::DeviceCreateInfo::default().queue_create_infos(&qci),
                None,
            )
            .unwrap();
        assert!(instance
            .get_device_proc_addr(plain.handle(), name.as_ptr())
            .is_none());
        plain.destroy_device(None);

        for (p, _) in pipelines {
            device.destroy_pipeline(p, None);
        }
        device.destroy_pipeline_layout(layout, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
