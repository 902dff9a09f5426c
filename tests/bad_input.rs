//! Bad input through the real binary: mistakes in a scenario file stop the run at load (exit 2)
//! with the file, line and key; what only the shader or the device can tell becomes a row with
//! a status and a reason, and the file's other variants still run.
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
    let o = run(&[
        "run",
        c.file.to_str().unwrap(),
        "--out",
        c.out.to_str().unwrap(),
        "--warmup-ms",
        "0",
        "-q",
    ]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!err.contains("panicked"), "p3lab panicked:\n{err}");
    (o.status.code(), err)
}

/// A load-time mistake: exit 2, a message naming file, line and key, no output folder.
fn rejected(text: &str, line: usize, key: &str, words: &[&str]) -> String {
    let c = write_case(text);
    let (code, err) = p3lab_run(&c);
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
    let c = write_case(text);
    let (code, err) = p3lab_run(&c);
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

// ---- rows ----

#[test]
fn glsl_syntax_error_is_a_compile_error_row() {
    let text = format!("{BASE}\n[[variants]]\nname = \"syntax\"\ndefines = {{ BREAK = 1 }}\n");
    let (rows, code) = rows_of(&text);
    assert_eq!(code, Some(3), "a compile error fails the run");
    let reason = status_and_reason(&rows, "syntax", "compile_error");
    assert!(reason.contains("scale.comp"), "{reason}");
    assert!(reason.contains("variant `syntax`"), "{reason}");
    assert!(reason.contains("BREAK=1"), "{reason}");
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
    let c = write_case(&moved);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(3), "{err}");
    let rows = read_csv(&c.out.join("results.csv"));
    let r = row(&rows, "good");
    assert_eq!(r["status"], "error", "{r:?}");
    let reason = &r["reason"];
    for w in [
        "tests/data/glsl/scale.comp",
        "storage buffer at set 0 binding 0",
        "`a` at binding 5",
    ] {
        assert!(reason.contains(w), "`{w}` missing from: {reason}");
    }

    // A storage image where the shader has a buffer: the message names the resource.
    let image = replace_once(
        BASE,
        "name = \"a\"\ntype = \"buffer\"\nbinding = 0\nelement = \"f32\"\ncount = \"n\"\ninit = { kind = \"random\", seed = 3, min = -1, max = 1 }",
        "name = \"img\"\ntype = \"image\"\nbinding = 0\nformat = \"r32f\"\nwidth = 16\nheight = 16\nusage = \"storage\"",
    );
    let c = write_case(&image);
    let (code, err) = p3lab_run(&c);
    assert_eq!(code, Some(3), "{err}");
    let rows = read_csv(&c.out.join("results.csv"));
    let r = row(&rows, "good");
    assert_eq!(r["status"], "error", "{r:?}");
    let reason = &r["reason"];
    for w in ["scale.comp", "set 0 binding 0", "`img`", "storage image"] {
        assert!(reason.contains(w), "`{w}` missing from: {reason}");
    }
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
}

#[test]
fn subgroup_size_not_a_power_of_two_is_unsupported() {
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"sg24\"\nsubgroup_size = 24\nworkgroup = [48, 1, 1]\n"
    );
    let (rows, code) = rows_of(&text);
    assert_eq!(code, Some(0));
    let reason = status_and_reason(&rows, "sg24", "unsupported");
    assert_eq!(reason, "subgroup size 24 is not a power of two");
}

#[test]
fn rows_csv_is_never_ragged_and_nothing_panics_across_the_battery() {
    // Every bad variant at once in one file: one row each, the good ones still `ok`.
    let text = format!(
        "{BASE}\n[[variants]]\nname = \"syntax\"\ndefines = {{ BREAK = 1 }}\n\n\
         [[variants]]\nname = \"sg24\"\nsubgroup_size = 24\n\n\
         [[variants]]\nname = \"shared\"\nshader = \"tests/data/shader/shared_64k.comp\"\n\n\
         [[variants]]\nname = \"good-again\"\nworkgroup = [64, 1, 1]\n"
    );
    let (rows, code) = rows_of(&text);
    assert_eq!(code, Some(3));
    assert_eq!(rows.len(), 5);
    assert_eq!(row(&rows, "syntax")["status"], "compile_error");
    assert_eq!(row(&rows, "sg24")["status"], "unsupported");
    assert_eq!(row(&rows, "shared")["status"], "unsupported");
    assert!(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/shader/shared_64k.comp")
        .is_file());
}
