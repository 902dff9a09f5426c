//! Bad input through the real binary: mistakes in a scenario file stop the run at load (exit 2)
//! with the file, line and key; so do mistakes only the compiled shader shows (a GLSL error,
//! bindings or workgroup sizes that do not match), found by compiling and reflecting every
//! variant before anything runs. What this device cannot do (its limits, out of memory) becomes
//! a row with a status and a reason, and the file's other variants still run; `--strict` makes
//! the device limits exit 2 too, `--keep-going` makes shader mistakes rows.
mod common;
use common::*;
use std::path::{Path, PathBuf};

/// A complete scenario on tests/data/glsl/scale.comp (b = 3a) with one `good` variant;
/// `extra` is appended (more variants, or keys that replace nothing).
const BASE: &str = r#"[scenario]
name = "bad"
shader = "tests/data/glsl/scale.comp"
push_constants = ["n"]
workgroup = [32, 1, 1]

[params]
n = 256

[[resources]]
name = "a"
type = "buffer"
binding = 0
element = "f32"
count = "n"
init = { kind = "random", seed = 3, min = -1, max = 1 }

[[resources]]
name = "b"
type = "buffer"
binding = 1
element = "f32"
count = "n"
output = true

[[dispatch]]
cover = ["n", 1, 1]

[measure]
reps = 3
warmup = 1
warmup_ms = 0

[[variants]]
name = "good"
"#;

struct Case {
    _dir: tempfile::TempDir,
    file: PathBuf,
    out: PathBuf,
}

fn write_case(text: &str) -> Case {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, text).unwrap();
    let out = dir.path().join("out");
    Case {
        _dir: dir,
        file,
        out,
    }
}

fn p3lab_run(c: &Case) -> (Option<i32>, String) {
    p3lab_run_with(c, &[])
}

fn p3lab_run_with(c: &Case, extra: &[&str]) -> (Option<i32>, String) {
    let mut args = vec![
        "run",
        c.file.to_str().unwrap(),
        "--out",
        c.out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "-q",
    ];
    args.extend_from_slice(extra);
    let o = run(&args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "p3lab panicked:\n{err}");
    (o.status.code(), err)
}

/// A load-time mistake: exit 2, a message naming file, line and key, no output folder.
fn rejected(text: &str, line: usize, key: &str, words: &[&str]) -> String {
    rejected_with(text, &[], line, key, words)
}

fn rejected_with(text: &str, extra: &[&str], line: usize, key: &str, words: &[&str]) -> String {
    let c = write_case(text);
    let (code, err) = p3lab_run_with(&c, extra);
    assert_eq!(code, Some(2), "{err}");
    let file = c.file.display().to_string();
    let at = if key.is_empty() {
        format!("{file}:{line}: ")
    } else {
        format!("{file}:{line}: key `{key}`: ")
    };
    assert!(err.contains(&at), "expected `{at}` in:\n{err}");
    for w in words {
        assert!(err.contains(w), "expected `{w}` in:\n{err}");
    }
    assert!(
        !c.out.exists(),
        "a rejected scenario must not create {}",
        c.out.display()
    );
    err
}

/// The line (1-based) of the first line of `text` that starts with `prefix`.
fn line_of(text: &str, prefix: &str) -> usize {
    text.lines()
        .position(|l| l.trim_start().starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starts with `{prefix}`"))
        + 1
}

/// A run whose rows tell what went wrong: results.csv parses, every variant has a row, `good`
/// (and any other named `ok*`) ran fine. Returns the rows and the exit code.
fn rows_of(text: &str) -> (Vec<Row>, Option<i32>) {
    rows_of_with(text, &[])
}

fn rows_of_with(text: &str, extra: &[&str]) -> (Vec<Row>, Option<i32>) {
    let c = write_case(text);
    let (code, err) = p3lab_run_with(&c, extra);
    assert!(code == Some(0) || code == Some(3), "exit {code:?}:\n{err}");
    let rows = read_csv(&c.out.join("results.csv"));
    for r in rows.iter().filter(|r| r["variant"].starts_with("good")) {
        assert_eq!(r["status"], "ok", "{r:?}");
    }
    assert!(rows.iter().any(|r| r["variant"] == "good"));
    (rows, code)
}

fn status_and_reason<'a>(rows: &'a [Row], variant: &str, status: &str) -> &'a str {
    let r = row(rows, variant);
    assert_eq!(r["status"], status, "{r:?}");
    assert_eq!(r["median_ns"], "", "a {status} row has no timing: {r:?}");
    &r["reason"]
}

fn device_limit(key: &str) -> u64 {
    let o = run(&["devices", "--format", "json"]);
    let d: serde_json::Value = serde_json::from_slice(&o.stdout).expect("devices json");
    d[0][key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {}", d[0]))
}

fn replace_once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    text.replace(from, to)
}

// ---- exit 2 at load ----

#[test]
fn malformed_toml_names_file_and_line() {
    let text = replace_once(BASE, "[measure]", "[measure\nreps = 3");
    let line = line_of(&text, "[measure");
    rejected(&text, line, "", &["invalid table header"]);
}

#[test]
fn unknown_key_names_the_key() {
    let text = replace_once(BASE, "reps = 3", "reps = 3\nrepz = 4");
    let line = line_of(&text, "repz");
    rejected(&text, line, "measure.repz", &["unknown field `repz`"]);
}

#[test]
fn wrong_type_names_the_key() {
    let text = replace_once(BASE, "reps = 3", "reps = \"three\"");
    let line = line_of(&text, "reps =");
    rejected(&text, line, "measure.reps", &["invalid type"]);
}

#[test]
fn division_by_zero_in_an_expression() {
    let text = replace_once(
        BASE,
        "count = \"n\"\ninit",
        "count = \"n / (n - 256)\"\ninit",
    );
    let line = line_of(&text, "count = \"n / (n - 256)\"");
    rejected(&text, line, "resources[0].count", &["division by zero"]);
}

#[test]
fn overflowing_expression() {
    let text = replace_once(BASE, "count = \"n\"\ninit", "count = \"2 ** 80\"\ninit");
    let line = line_of(&text, "count = \"2 ** 80\"");
    rejected(&text, line, "resources[0].count", &["2 ** 80"]);
}

#[test]
fn missing_shader_file() {
    let text = replace_once(
        BASE,
        "shader = \"tests/data/glsl/scale.comp\"",
        "shader = \"tests/data/glsl/no_such_shader.comp\"",
    );
    let line = line_of(&text, "shader =");
    rejected(
        &text,
        line,
        "scenario.shader",
        &["no_such_shader.comp", "not found"],
    );
}

#[test]
fn zero_size_dispatch() {
    let text = replace_once(BASE, "cover = [\"n\", 1, 1]", "cover = [\"n\", 0, 1]");
    let line = line_of(&text, "cover =");
    rejected(&text, line, "dispatch[0].cover", &["good"]);
}

#[test]
fn subgroup_size_out_of_range_at_load() {
    // Over the 1024-lane ceiling: a scenario mistake, not a device limit.
    let text = format!("{BASE}\n[[variants]]\nname = \"huge\"\nsubgroup_size = 4096\n");
    let line = line_of(&text, "subgroup_size = 4096");
    rejected(&text, line, "variants[1].subgroup_size", &["4096"]);
}

#[test]
fn requires_names_a_feature_p3lab_does_not_know() {
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"typo\"\nrequires = [\"shader_int64\", \"shader_float_16\"]\n"
    );
    let line = line_of(&text, "requires = [");
    rejected(
        &text,
        line,
        "variants[1].requires[1]",
        &["`shader_float_16` is neither a device feature", "VK_"],
    );
}

#[test]
fn subgroup_size_not_a_power_of_two() {
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"sg24\"\nsubgroup_size = 24\nworkgroup = [48, 1, 1]\n"
    );
    let line = line_of(&text, "subgroup_size = 24");
    rejected(
        &text,
        line,
        "variants[1].subgroup_size",
        &["subgroup size 24 is not a power of two"],
    );
}

/// Issue 29: a name (a `{KEY}` in a template, a variable in an expression) that a variant's
/// matrix does not define names the `[[variants]]` entry, by index and name template, besides
/// the key: the key may be one every entry shares, and a file may have many entries.
#[test]
fn a_name_a_variants_matrix_lacks_names_the_variant() {
    // A define's template names a matrix key the entry does not have (a typo).
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"tile{{TILE}}\"\nmatrix = {{ TILE = [8, 16] }}\ndefines = {{ T = \"{{TILES}}\" }}\n"
    );
    let line = line_of(&text, "defines = { T");
    rejected(
        &text,
        line,
        "variants[1].defines.T",
        &[
            "unknown name `TILES`",
            "variants[1] (name template `tile{TILE}`, matrix TILE=8) has no `TILES`",
        ],
    );
    // A scenario-wide key (every entry's dispatch) uses a matrix key one entry lacks.
    let text = replace_once(
        &format!("{BASE}matrix = {{ ITEMS = [1] }}\n\n[[variants]]\nname = \"wide-{{WG}}\"\nmatrix = {{ WG = [64] }}\n"),
        "cover = [\"n\", 1, 1]",
        "cover = [\"n / ITEMS\", 1, 1]",
    );
    let line = line_of(&text, "cover =");
    rejected(
        &text,
        line,
        "dispatch[0].cover[0]",
        &[
            "unknown variable `ITEMS`",
            "variants[1] (name template `wide-{WG}`, matrix WG=64) has no `ITEMS`",
        ],
    );
    // The variant's workgroup, and its name template, with no matrix at all.
    let text = format!("{BASE}\n[[variants]]\nname = \"wg{{WG}}\"\nworkgroup = [\"WG\", 1, 1]\n");
    let line = line_of(&text, "name = \"wg{WG}\"");
    rejected(
        &text,
        line,
        "variants[1].name",
        &["variants[1] (name template `wg{WG}`, no matrix) has no `WG`"],
    );
    let text = format!("{BASE}\n[[variants]]\nname = \"wg\"\nworkgroup = [\"WG\", 1, 1]\n");
    let line = line_of(&text, "workgroup = [\"WG\"");
    rejected(
        &text,
        line,
        "variants[1].workgroup[0]",
        &["variants[1] (name template `wg`, no matrix) has no `WG`"],
    );
}

/// Issue 29: a GEMM's rounding error grows with n, so `[check]` tolerances are expressions of
/// the params (since f76f0a1; this is the CLI's side of tests/scenario_load.rs's
/// `tolerances_may_grow_with_a_param`): `list --details` shows them evaluated, and a
/// malformed one is exit 2 naming file, line and key.
#[test]
fn check_tolerances_are_expressions_of_the_params() {
    let text =
        format!("{BASE}\n[check]\ntolerance = \"1e-5 * n\"\nrel_tolerance = \"2 ** -24 * n\"\n");
    let c = write_case(&text);
    let o = run(&["list", "--details", c.file.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("tolerance 0.00256 (relative 0.0000152587890625)"),
        "{out}"
    );
    let bad = text.replace("\"2 ** -24 * n\"", "\"1e-6 *\"");
    let line = line_of(&bad, "rel_tolerance =");
    rejected(
        &bad,
        line,
        "check.rel_tolerance",
        &["syntax error at character 7 of `1e-6 *`"],
    );
}

// ---- exit 2 before the run: what the compiled shader tells ----

#[test]
fn glsl_syntax_error_stops_the_run_before_anything_runs() {
    let text = format!("{BASE}\n[[variants]]\nname = \"syntax\"\ndefines = {{ BREAK = 1 }}\n");
    let line = line_of(&text, "shader =");
    // The scenario key that names the shader, and the shader's own file and line.
    let err = rejected(
        &text,
        line,
        "scenario.shader",
        &["variant `syntax`", "tests/data/glsl/scale.comp:", "BREAK=1"],
    );
    assert!(err.contains("nothing was run or written"), "{err}");

    // --keep-going: a compile_error row, and the good variant still runs.
    let (rows, code) = rows_of_with(&text, &["--keep-going"]);
    assert_eq!(code, Some(3), "a compile error fails the run");
    let reason = status_and_reason(&rows, "syntax", "compile_error");
    assert!(reason.contains("scale.comp"), "{reason}");
    assert!(reason.contains("(defines: BREAK=1)"), "{reason}");
}

#[test]
fn bindings_that_do_not_match_the_shader() {
    // Resources belong to the file, not a variant, so each mismatch is a file of its own.
    // The shader reads a storage buffer at set 0 binding 0; here nothing is bound there.
    let moved = replace_once(
        BASE,
        "name = \"a\"\ntype = \"buffer\"\nbinding = 0",
        "name = \"a\"\ntype = \"buffer\"\nbinding = 5",
    );
    let line = line_of(&moved, "binding = 5");
    rejected(
        &moved,
        line,
        "resources[0].binding",
        &[
            "tests/data/glsl/scale.comp",
            "storage buffer at set 0 binding 0",
            "`a` at binding 5",
        ],
    );

    // A storage image where the shader has a buffer: the message names the resource.
    let image = replace_once(
        BASE,
        "name = \"a\"\ntype = \"buffer\"\nbinding = 0\nelement = \"f32\"\ncount = \"n\"\ninit = { kind = \"random\", seed = 3, min = -1, max = 1 }",
        "name = \"img\"\ntype = \"image\"\nbinding = 0\nformat = \"r32f\"\nwidth = 16\nheight = 16\nusage = \"storage\"",
    );
    let line = line_of(&image, "type = \"image\"");
    rejected(
        &image,
        line,
        "resources[0].type",
        &["scale.comp", "set 0 binding 0", "`img`", "storage image"],
    );

    // --keep-going: an error row instead, naming file, set and binding.
    let (rows, code) = {
        let c = write_case(&moved);
        let (code, err) = p3lab_run_with(&c, &["--keep-going"]);
        assert_eq!(code, Some(3), "{err}");
        (read_csv(&c.out.join("results.csv")), code)
    };
    assert_eq!(code, Some(3));
    let reason = status_and_reason(&rows, "good", "error");
    assert!(reason.contains("set 0 binding 0"), "{reason}");
}

#[test]
fn workgroup_that_does_not_match_the_shader() {
    // The shader sets only local_size_x_id: a workgroup with y = 2 cannot be given to it.
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"fixed\"\nshader = \"tests/data/shader/shared_64k.comp\"\nworkgroup = [32, 2, 1]\n"
    );
    let line = line_of(&text, "workgroup = [32, 2, 1]");
    rejected(
        &text,
        line,
        "variants[1].workgroup",
        &[
            "variant `fixed`",
            "shared_64k.comp",
            "sets axis 1, but the shader has no local_size_y_id",
        ],
    );
}

#[test]
fn many_mistakes_are_all_listed_once() {
    // Two broken variants, and a params sweep that repeats the same mistake in every case.
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"syntax\"\ndefines = {{ BREAK = 1 }}\n\n\
         [[variants]]\nname = \"spec\"\nspec = {{ \"7\" = 1 }}\n"
    );
    let text = replace_once(&text, "n = 256", "n = [256, 512]");
    let c = write_case(&text);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.matches("in variant `syntax`").count(), 1, "{err}");
    assert!(
        err.contains("key `variants[2].spec.7`: variant `spec`: spec constant 7 is not declared"),
        "{err}"
    );
    assert!(err.contains("2 variant problem(s)"), "{err}");
    assert!(!c.out.exists());
}

#[test]
fn workgroup_over_the_device_limit_is_unsupported() {
    let max = device_limit("max_compute_workgroup_invocations");
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"huge\"\nworkgroup = [{}, 1, 1]\n\n[[variants]]\nname = \"good-64\"\nworkgroup = [64, 1, 1]\n",
        max * 2
    );
    let (rows, code) = rows_of(&text);
    assert_eq!(code, Some(0), "unsupported rows do not fail the run");
    let reason = status_and_reason(&rows, "huge", "unsupported");
    assert!(
        reason.contains(&format!("maxComputeWorkGroupInvocations ({max})")),
        "{reason}"
    );
    assert!(
        reason.contains(&format!("{} invocations", max * 2)),
        "{reason}"
    );
    // --strict: the same limit stops the run before it starts, naming the key.
    let line = line_of(&text, &format!("workgroup = [{}", max * 2));
    rejected_with(
        &text,
        &["--strict"],
        line,
        "variants[1].workgroup",
        &["variant `huge`", "maxComputeWorkGroupInvocations"],
    );
}

#[test]
fn shared_memory_over_the_device_limit_is_unsupported() {
    let max = device_limit("max_compute_shared_memory_bytes");
    assert!(
        max < 65536,
        "the test needs a device with under 64 KiB of shared memory"
    );
    // The same shader at two workgroup sizes: 256 bytes per invocation, sized in the shader
    // by `gl_WorkGroupSize.x`, whose default (1) reflection alone would see.
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"good-shared-wg32\"\nshader = \"tests/data/shader/shared_wg.comp\"\n\n\
         [[variants]]\nname = \"shared-wg256\"\nshader = \"tests/data/shader/shared_wg.comp\"\nworkgroup = [256, 1, 1]\n\n\
         [[variants]]\nname = \"shared-fixed\"\nshader = \"tests/data/shader/shared_64k.comp\"\n"
    );
    let (rows, code) = rows_of(&text);
    assert_eq!(code, Some(0), "unsupported rows do not fail the run");
    // A `constant_id` size set by the variant's `spec`: TILE 40 needs 26444 bytes, 46 needs
    // 34796 (16 * TILE * (TILE + 1) + 4 * 32 + 64 + 4 + 8; tests/data/shader/reflect_shared.comp).
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"good-tile40\"\nshader = \"tests/data/shader/reflect_shared.comp\"\nspec = {{ \"3\" = 40 }}\n\n\
         [[variants]]\nname = \"tile46\"\nshader = \"tests/data/shader/reflect_shared.comp\"\nspec = {{ \"3\" = 46 }}\n"
    );
    let (spec_rows, _) = rows_of(&text);
    if max < 34796 {
        let reason = status_and_reason(&spec_rows, "tile46", "unsupported");
        assert!(reason.contains("34796 bytes of shared memory"), "{reason}");
    } else {
        assert_eq!(row(&spec_rows, "tile46")["status"], "ok");
    }
    for v in ["shared-wg256", "shared-fixed"] {
        let reason = status_and_reason(&rows, v, "unsupported");
        assert!(reason.contains("65536 bytes of shared memory"), "{reason}");
        assert!(
            reason.contains(&format!("maxComputeSharedMemorySize ({max})")),
            "{reason}"
        );
        assert!(reason.contains(".comp"), "{reason}");
    }
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"shared-fixed\"\nshader = \"tests/data/shader/shared_64k.comp\"\n"
    );
    let line = line_of(&text, "shader = \"tests/data/shader/shared_64k.comp\"");
    rejected_with(
        &text,
        &["--strict"],
        line,
        "variants[1].shader",
        &["65536 bytes of shared memory", "maxComputeSharedMemorySize"],
    );
}

#[test]
fn buffer_over_max_storage_buffer_range_is_unsupported() {
    let max = device_limit("max_storage_buffer_range");
    // A case of its own (params sweep): the big buffer makes only that case unsupported.
    let text = replace_once(BASE, "count = \"n\"\noutput", "count = \"n + big\"\noutput");
    let text = replace_once(
        &text,
        "n = 256",
        &format!("n = 256\nbig = [0, {}]", max / 4 + 1),
    );
    let c = write_case(&text);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(0), "{err}");
    let rows = read_csv(&c.out.join("results.csv"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    let (ok, big): (Vec<&Row>, Vec<&Row>) = rows.iter().partition(|r| r["params"] == "big=0;n=256");
    assert_eq!(ok.len(), 1, "{rows:?}");
    assert_eq!(ok[0]["status"], "ok", "{:?}", ok[0]);
    let r = big[0];
    assert_eq!(r["status"], "unsupported", "{r:?}");
    assert!(r["reason"].contains("buffer `b`"), "{r:?}");
    assert!(
        r["reason"].contains(&format!("maxStorageBufferRange ({max})")),
        "{r:?}"
    );
    let line = line_of(&text, "count = \"n + big\"");
    rejected_with(
        &text,
        &["--strict"],
        line,
        "resources[1].count",
        &["buffer `b`", "maxStorageBufferRange"],
    );
}

#[test]
fn resources_over_the_device_heap_are_unsupported_and_the_run_goes_on() {
    // Buffers each within maxStorageBufferRange whose sum is over the device-local heap, in a
    // case of their own: a device limit known before allocating, so that case's rows say
    // `unsupported` (as a buffer over maxStorageBufferRange does), and the other case runs.
    let max = device_limit("max_storage_buffer_range");
    let heap = device_limit("device_local_bytes");
    let count = heap / max + 2;
    let mut text = replace_once(BASE, "n = 256", "n = 256\nhuge = [0, 1]");
    for i in 0..count {
        text.push_str(&format!(
            "\n[[resources]]\nname = \"big{i}\"\ntype = \"buffer\"\nbinding = {}\nelement = \"u8\"\ncount = \"1 + huge * {}\"\n",
            10 + i,
            max - 1
        ));
    }
    let c = write_case(&text);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(0), "{err}");
    let rows = read_csv(&c.out.join("results.csv"));
    assert_eq!(rows.len(), 2, "{rows:?}");
    let small = rows
        .iter()
        .find(|r| r["params"].contains("huge=0"))
        .unwrap();
    assert_eq!(small["status"], "ok", "{small:?}");
    let big = rows
        .iter()
        .find(|r| r["params"].contains("huge=1"))
        .unwrap();
    assert_eq!(big["status"], "unsupported", "{big:?}");
    assert!(
        big["reason"].contains("largest device-local heap"),
        "{big:?}"
    );
    assert!(big["reason"].contains(&format!("{heap} bytes")), "{big:?}");
}

#[test]
fn rows_csv_is_never_ragged_and_nothing_panics_across_the_battery() {
    // Every bad variant at once in one file: one row each, the good ones still `ok`.
    // --keep-going turns the shader mistakes into rows too.
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"syntax\"\ndefines = {{ BREAK = 1 }}\n\n\
         [[variants]]\nname = \"sg2048\"\nsubgroup_size = 1024\n\n\
         [[variants]]\nname = \"shared\"\nshader = \"tests/data/shader/shared_64k.comp\"\n\n\
         [[variants]]\nname = \"spec\"\nspec = {{ \"7\" = 1 }}\n\n\
         [[variants]]\nname = \"good-again\"\nworkgroup = [64, 1, 1]\n"
    );
    let (rows, code) = rows_of_with(&text, &["--keep-going"]);
    assert_eq!(code, Some(3));
    assert_eq!(rows.len(), 6);
    assert_eq!(row(&rows, "syntax")["status"], "compile_error");
    assert_eq!(row(&rows, "spec")["status"], "error");
    assert_eq!(row(&rows, "sg2048")["status"], "unsupported");
    assert_eq!(row(&rows, "shared")["status"], "unsupported");
    assert!(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/shader/shared_64k.comp")
        .is_file());
}

#[test]
fn a_filter_that_matches_nothing_is_bad_input_and_writes_nothing() {
    let (_t, out) = out_dir("nofilter");
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--filter",
        "zzz*",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--filter `zzz*`: matches no variant"), "{err}");
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn a_compare_pair_that_matches_nothing_fails_the_gate() {
    // A typo in --pair must not pass `--fail-on-regression` as "nothing regressed".
    let (_t, out) = out_dir("nopair");
    let run_dir = "reports/nvidia-h200/aa/a";
    let o = run(&[
        "compare",
        run_dir,
        "--pair",
        "rowmajor=tilex16",
        "--fail-on-regression",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--pair rowmajor=tilex16: no variant `rowmajor` (BASE)"),
        "{err}"
    );
    assert!(!out.join("compare.csv").exists());
    // The same command with real names compares.
    let o = run(&[
        "compare",
        run_dir,
        "--pair",
        "float-pad0=float-pad1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.join("compare.csv").is_file());
}

#[test]
fn a_shader_that_includes_itself_is_an_error_not_a_runaway() {
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"loop\"\nshader = \"tests/data/shader/self_include.comp\"\n"
    );
    let c = write_case(&text);
    let t = std::time::Instant::now();
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("include_loop.glsl"), "{err}");
    assert!(err.contains("nested more than 32 deep"), "{err}");
    assert!(
        t.elapsed() < std::time::Duration::from_secs(30),
        "took {:?}",
        t.elapsed()
    );
}

#[test]
fn a_bad_baseline_name_is_refused_before_the_run() {
    let (_t, out) = out_dir("badbase");
    let t = std::time::Instant::now();
    let o = run(&[
        "run",
        "scenarios/smoke.toml",
        "--save-baseline",
        "bad/name",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--save-baseline: baseline name \"bad/name\" has '/'"),
        "{err}"
    );
    assert!(!out.exists(), "nothing ran or was written");
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
}

// ---- spreadsheets ----

/// A cell a spreadsheet would run as a formula: text (not a number) that starts with `=`, `+`,
/// `-`, `@`, tab or carriage return.
fn formula_like(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err()
}

#[test]
fn formula_names_are_neutralised_in_csv_and_read_back_exactly() {
    let names = ["=HYPERLINK(\"x\")", "+SUM(1,1)", "@SUM(1)"];
    let mut text = BASE.to_string();
    for n in names {
        text.push_str(&format!("\n[[variants]]\nname = '{n}'\n"));
    }
    let c = write_case(&text);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(0), "{err}");
    for f in ["results.csv", "samples.csv", "metrics.csv"] {
        let rows = read_csv(&c.out.join(f));
        assert!(!rows.is_empty(), "{f} has rows");
        for r in &rows {
            for (k, v) in r {
                assert!(!formula_like(v), "{f}: column {k} = {v:?} would run");
            }
        }
        for n in names {
            let quoted = format!("'{n}");
            assert!(
                rows.iter().any(|r| r["variant"] == quoted),
                "{f}: no row for {quoted}"
            );
        }
    }
    // Numbers stay numbers: a negative value is not quoted.
    let samples = std::fs::read_to_string(c.out.join("samples.csv")).unwrap();
    assert!(!samples.contains(",'-"), "a number was quoted");

    // compare --pair takes the names as they are (the `=` inside a name included).
    let cmp_out = c.out.join("cmp");
    let o = run(&[
        "compare",
        c.out.to_str().unwrap(),
        "--pair",
        "=HYPERLINK(\"x\")=+SUM(1,1)",
        "--pair",
        "@SUM(1)=good",
        "--out",
        cmp_out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let cmp = read_csv(&cmp_out.join("compare.csv"));
    let time: Vec<&Row> = cmp.iter().filter(|r| r["metric"] == "time_ns").collect();
    assert_eq!(time.len(), 2, "{cmp:?}");
    assert!(time
        .iter()
        .any(|r| r["variant_base"] == "'=HYPERLINK(\"x\")" && r["variant_new"] == "'+SUM(1,1)"));
    for r in &cmp {
        for (k, v) in r {
            assert!(
                !formula_like(v),
                "compare.csv: column {k} = {v:?} would run"
            );
        }
    }

    // merge copies the neutralised cells as they are, and the merged folder compares by name.
    let merged = c.out.with_file_name("merged");
    let o = run(&[
        "merge",
        c.out.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows = read_csv(&merged.join("results.csv"));
    assert!(rows.iter().any(|r| r["variant"] == "'@SUM(1)"), "{rows:?}");
    let o = run(&[
        "compare",
        merged.to_str().unwrap(),
        "--pair",
        "@SUM(1)=+SUM(1,1)",
        "--out",
        merged.join("cmp").to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // --resume finds every row finished: nothing runs again.
    let before = std::fs::read(c.out.join("results.csv")).unwrap();
    let o = run(&[
        "run",
        "--resume",
        "--out",
        c.out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read(c.out.join("results.csv")).unwrap(),
        before,
        "--resume ran finished variants again"
    );
}

// ---- bounds ----

#[test]
fn measure_counts_over_their_bounds_are_refused_at_load() {
    for (key, line, value, max) in [
        ("reps", "reps = 3", "reps = 100001", "100000"),
        ("warmup", "warmup = 1", "warmup = 2147483648", "100000"),
        ("rounds", "reps = 3", "reps = 3\nrounds = 10001", "10000"),
        (
            "max_rounds",
            "reps = 3",
            "reps = 3\nmax_rounds = 4294967295",
            "10000",
        ),
    ] {
        let text = replace_once(BASE, line, value);
        let at = line_of(&text, &format!("{key} ="));
        let n = value.rsplit(" = ").next().unwrap();
        rejected(&text, at, &format!("measure.{key}"), &[n, max]);
    }
}

#[test]
fn count_flags_over_their_bounds_are_refused() {
    for (flag, value, max) in [
        ("--reps", "2147483648", "100000"),
        ("--warmup", "100001", "100000"),
        ("--rounds", "10001", "10000"),
        ("--max-rounds", "4294967295", "10000"),
    ] {
        let c = write_case(BASE);
        let t = std::time::Instant::now();
        let (code, err) = p3lab_run_with(&c, &[flag, value]);
        assert_eq!(code, Some(2), "{flag} {value}: {err}");
        assert!(
            err.contains(&format!("{flag} {value}: more than {max}")),
            "{flag}: {err}"
        );
        assert!(!c.out.exists(), "{flag}: nothing is written");
        assert!(t.elapsed() < std::time::Duration::from_secs(20));
    }
}

/// `[a, a+1, ..., a+len-1]` as TOML.
fn toml_list(a: u64, len: u64) -> String {
    let v: Vec<String> = (a..a + len).map(|x| x.to_string()).collect();
    format!("[{}]", v.join(", "))
}

#[test]
fn a_params_sweep_over_the_bound_is_refused_before_compiling() {
    let text = replace_once(
        BASE,
        "n = 256",
        &format!("m = {}\nn = {}", toml_list(1, 100), toml_list(256, 101)),
    );
    let t = std::time::Instant::now();
    let line = line_of(&text, "n =");
    rejected(
        &text,
        line,
        "params.n",
        &["10100 params cases", "m: 100 × n: 101", "at most 10000"],
    );
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn a_matrix_over_the_variant_bound_is_refused_before_compiling() {
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"m-{{A}}-{{B}}\"\n[variants.matrix]\nA = {}\nB = {}\n",
        toml_list(0, 101),
        toml_list(0, 100)
    );
    let t = std::time::Instant::now();
    let line = line_of(&text, "A =");
    rejected(
        &text,
        line,
        "variants[1].matrix.A",
        &["10101 per params case", "A: 101 × B: 100", "at most 10000"],
    );
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
}

// ---- early, precise errors ----

#[test]
fn a_fifo_in_a_scenario_folder_is_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.toml"), BASE).unwrap();
    let fifo = dir.path().join("x.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let out = dir.path().join("out");
    let mut child = bin()
        .args(["run", dir.path().to_str().unwrap(), "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("p3lab blocked on the FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}: is a FIFO", fifo.display())),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn invalid_utf8_names_the_line() {
    let c = write_case(BASE);
    let mut bytes = BASE.as_bytes().to_vec();
    bytes.extend_from_slice(b"# caf\xe9 (Latin-1)\n");
    std::fs::write(&c.file, &bytes).unwrap();
    let line = BASE.lines().count() + 1;
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(2), "{err}");
    let at = format!("{}:{line}: invalid UTF-8 at column 6", c.file.display());
    assert!(err.contains(&at), "expected `{at}` in:\n{err}");
    assert!(!c.out.exists());
}

#[test]
fn nan_and_inf_say_they_are_not_allowed() {
    let text = replace_once(BASE, "count = \"n\"\ninit", "count = nan\ninit");
    let line = line_of(&text, "count = nan");
    let err = rejected(&text, line, "resources[0].count", &["NaN is not allowed"]);
    assert!(!err.contains("unknown variable"), "{err}");
    let text = replace_once(BASE, "n = 256", "n = [256, inf]");
    let line = line_of(&text, "n = [256, inf]");
    rejected(&text, line, "params.n", &["inf is not allowed"]);
}

#[test]
fn resume_on_an_empty_results_csv_says_it_is_empty() {
    let c = write_case(BASE);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(0), "{err}");
    let results = c.out.join("results.csv");
    std::fs::write(&results, b"").unwrap();
    let o = run(&["run", "--resume", "--out", c.out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("{} is empty", results.display())),
        "{err}"
    );
    assert!(!err.contains("another p3lab version"), "{err}");
}

#[test]
fn a_shader_without_version_is_a_short_error() {
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"nover\"\nshader = \"tests/data/shader/no_version.comp\"\n"
    );
    let c = write_case(&text);
    let o = run(&[
        "run",
        c.file.to_str().unwrap(),
        "--out",
        c.out.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no_version.comp:1: error: no `#version` line"),
        "{err}"
    );
    let lines = o.stdout.split(|b| *b == b'\n').count() + err.lines().count();
    assert!(lines < 30, "{lines} lines of output:\n{err}");
}

#[test]
fn a_300_character_variant_name_keeps_its_probed_row() {
    let long = format!("long-{}", "x".repeat(295));
    let text = format!("{BASE}\n[[variants]]\nname = \"{long}\"\n");
    let c = write_case(&text);
    let (code, err) = p3lab_run_with(&c, &["--probe", "--reps", "2"]);
    assert_eq!(code, Some(0), "{err}");
    let rows = read_csv(&c.out.join("results.csv"));
    assert_eq!(row(&rows, &long)["status"], "ok");
    let pictures: Vec<String> = std::fs::read_dir(&c.out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    assert_eq!(pictures.len(), 2, "{pictures:?}");
    assert!(
        pictures
            .iter()
            .any(|n| n.contains("long-xxx") && n.len() < 120),
        "{pictures:?}"
    );
}

#[test]
fn a_fifo_given_as_the_shader_is_named_not_waited_on_or_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("s.comp");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let scenario = dir.path().join("a.toml");
    std::fs::write(
        &scenario,
        BASE.replace("tests/data/glsl/scale.comp", fifo.to_str().unwrap()),
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = bin()
        .args(["run", scenario.to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("a.toml:3: key `scenario.shader`")
            && err.contains("is a FIFO (named pipe), not a regular file"),
        "{err}"
    );
    assert!(!out.exists());
    // A folder there is named as a folder.
    std::fs::remove_file(&fifo).unwrap();
    std::fs::create_dir(&fifo).unwrap();
    let o = bin()
        .args(["run", scenario.to_str().unwrap(), "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("is a folder, not a regular file"), "{err}");
}

#[test]
fn passes_and_resources_over_their_bounds_are_refused_at_load() {
    let mut text = BASE.to_string();
    for _ in 0..256 {
        text.push_str("\n[[dispatch]]\ngrid = [1, 1, 1]\n");
    }
    let c = write_case(&text);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("key `dispatch[256]`") && err.contains("at most 256 passes"),
        "{err}"
    );
    assert!(!c.out.join("results.csv").exists());
    let mut text = BASE.to_string();
    for i in 0..1024 {
        text.push_str(&format!(
            "\n[[resources]]\nname = \"r{i}\"\ntype = \"buffer\"\nbinding = {}\ncount = 1\n",
            100 + i
        ));
    }
    let c = write_case(&text);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("key `resources[1024]`") && err.contains("at most 1024"),
        "{err}"
    );
}

/// Issue 29: `p3lab peak --list` names the calibration variants (what `--filter` takes) and
/// the unit each measures, from the binary alone, measuring nothing; `--out` is needed only
/// to measure.
#[test]
fn peak_list_names_the_calibration_variants_without_measuring() {
    let o = common::bin()
        .args(["peak", "--list", "--filter", "fp16-*"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("peak_fma ("), "{out}");
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.trim_start().starts_with("fp16-")),
        "{out}"
    );
    assert!(
        out.contains(&format!("{:<21} FP16 FMA throughput (packed)", "fp16")),
        "{out}"
    );
    let o = common::bin().arg("peak").output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--out"));
}

/// Issue 40: a spec constant the source declares but the code does not use is removed by the
/// optimizer; whether a scenario loads must not depend on the optimization level, so it is
/// accepted at every level (its value changes nothing), while an id the source does not
/// declare at all is still an error naming the key (many_mistakes_are_all_listed_once).
#[test]
fn an_optimized_away_spec_constant_is_accepted_at_every_opt_level() {
    for opt in ["performance", "size", "zero"] {
        let text = format!(
            "{BASE}\n[[variants]]\nname = \"unused\"\ndefines = {{ UNUSED_SPEC = 1 }}\nspec = {{ \"9\" = 4 }}\n"
        );
        let text = replace_once(
            &text,
            "workgroup = [32, 1, 1]",
            &format!("workgroup = [32, 1, 1]\nopt = \"{opt}\""),
        );
        let c = write_case(&text);
        let (code, err) = p3lab_run_with(&c, &["--rounds", "2", "--max-rounds", "2"]);
        assert_eq!(code, Some(0), "opt {opt}: {err}");
        let rows = read_csv(&c.out.join("results.csv"));
        assert!(
            rows.iter()
                .any(|r| r["variant"] == "unused" && r["status"] == "ok"),
            "opt {opt}: {rows:?}"
        );
        // Said where a user looks: run.json and list --details (the unoptimized code keeps it).
        let meta = run_json(&c.out);
        let unused = &meta["unused_spec_constants"];
        let details = run(&["list", "--details", c.file.to_str().unwrap()]);
        let details = String::from_utf8_lossy(&details.stdout);
        let line = "spec constants unused by the compiled code: 9";
        if opt == "zero" {
            assert_eq!(unused.as_array().map(Vec::len), Some(0), "{unused}");
            assert!(!details.contains(line), "{details}");
        } else {
            assert_eq!(unused[0]["variant"], "unused", "{unused}");
            assert_eq!(unused[0]["spec_ids"], serde_json::json!([9]), "{unused}");
            assert!(details.contains(line), "{details}");
        }
    }
}

/// Issue 41: a shader that does not compile is one mistake, however many variants it breaks:
/// its error is printed once, starting with the shader's own `file:line`, and then names every
/// variant it affects with its defines and the scenario key that names the shader.
#[test]
fn a_compile_error_is_printed_once_for_every_variant_it_affects() {
    let dir = tempfile::tempdir().unwrap();
    let shader = dir.path().join("broken.comp");
    std::fs::write(
        &shader,
        "#version 450\nlayout(local_size_x_id = 0) in;\nlayout(set = 0, binding = 0) buffer B { float x[]; };\nvoid main() {\n    x[gl_GlobalInvocationID.x] = undefined_thing * 2.0;\n}\n",
    )
    .unwrap();
    let scenario = dir.path().join("broken.toml");
    std::fs::write(
        &scenario,
        "[scenario]\nname = \"broken\"\nshader = \"broken.comp\"\n\n[params]\nn = 256\n\n\
         [[resources]]\nname = \"x\"\ntype = \"buffer\"\nbinding = 0\nelement = \"f32\"\ncount = \"n\"\noutput = true\n\n\
         [[dispatch]]\ncover = [\"n\", 1, 1]\n\n\
         [[variants]]\nname = \"wg{WG}\"\nworkgroup = [\"WG\", 1, 1]\nmatrix = { WG = [32, 64, 128] }\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = bin()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("undeclared identifier").count(), 1, "{err}");
    let first = err.lines().find(|l| l.starts_with("error: ")).unwrap();
    assert!(
        first.starts_with(&format!("error: {}:5: ", shader.display())),
        "the shader's file:line first: {err}"
    );
    assert!(
        err.contains("in variants `wg32`, `wg64`, `wg128` (defines WG=32; WG=64; WG=128)"),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}:3: key `scenario.shader`", scenario.display())),
        "{err}"
    );
    assert!(!out.exists());
    // --keep-going: three compile_error rows, the error said once on each stream (a warning
    // as the run goes, one summary line naming the three variants).
    let o = bin()
        .arg("run")
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .arg("--keep-going")
        .output()
        .unwrap();
    let (stdout, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert_eq!(err.matches("undeclared identifier").count(), 1, "{err}");
    assert_eq!(
        stdout.matches("undeclared identifier").count(),
        1,
        "{stdout}"
    );
    assert!(
        stdout.contains("3 compile_error (wg32, wg64, wg128)"),
        "{stdout}"
    );
}

/// Issue 40: `--out` into a folder holding a run was silently replaced. It is refused (exit 2,
/// naming the folder, nothing touched) unless `--resume` or `--replace` says what to do.
#[test]
fn out_into_an_earlier_run_is_refused_without_resume_or_replace() {
    let c = write_case(BASE);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(0), "{err}");
    let before = std::fs::read_to_string(c.out.join("results.csv")).unwrap();
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!(
            "--out {}: the folder holds a run (run.json)",
            c.out.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("--resume") && err.contains("--replace"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(c.out.join("results.csv")).unwrap(),
        before
    );
    let (code, err) = p3lab_run_with(&c, &["--replace"]);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = p3lab_run_with(&c, &["--replace", "--resume"]);
    assert_eq!(code, Some(2), "{err}");
}
