//! Pins the scenario loader: every bad input names the file, the line and the key, with a
//! message that says what is wrong; good inputs resolve to the expected cases and variants.
//!
//! Scenario texts are inline. Shader paths resolve relative to the working directory, which is
//! the repository root under `cargo test`, so `glsl/smoke/smoke.comp` exists.
use p3lab::scenario::{
    parse, parse_set, Elem, GridSpec, ImageFormat, ImageUsage, Init, ResourceKind, Scenario,
    ScenarioError, SubgroupReq, Work,
};
use std::path::Path;

fn parse_ok(text: &str) -> Scenario {
    parse(Path::new("t.toml"), text, &vec![]).unwrap_or_else(|e| panic!("should load: {e}"))
}

fn parse_err(text: &str) -> ScenarioError {
    match parse(Path::new("t.toml"), text, &vec![]) {
        Ok(_) => panic!("should not load:\n{text}"),
        Err(e) => e,
    }
}

/// The error must be in t.toml at `line` about `key`, and its message must contain each of `parts`.
#[track_caller]
fn assert_err(text: &str, line: usize, key: &str, parts: &[&str]) -> ScenarioError {
    let e = parse_err(text);
    assert_eq!(e.file, "t.toml", "{e}");
    assert_eq!((e.line, e.key.as_str()), (line, key), "{e}");
    for p in parts {
        assert!(e.message.contains(p), "message lacks `{p}`: {e}");
    }
    e
}

// ---------------------------------------------------------------------------------------------
// TOML syntax and the shape of the file

#[test]
fn malformed_toml_names_the_line() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v
workgroup = [64, 1, 1]
"#;
    let e = assert_err(text, 9, "", &["string"]);
    assert!(e.to_string().starts_with("t.toml:9: "), "{e}");
}

#[test]
fn malformed_toml_two_values_on_a_line() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[resources]]
name = "a"
type = "buffer"
binding = 0 1
count = 4
"#;
    assert_err(text, 8, "", &[]);
}

#[test]
fn duplicate_toml_key_names_the_second_line() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]
grid = [2, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 7, "", &["duplicate key"]);
}

#[test]
fn unknown_top_level_table() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"

[bogus]
x = 1
"#;
    let e = assert_err(
        text,
        11,
        "bogus",
        &["unknown field `bogus`", "`scenario`", "`variants`"],
    );
    assert!(
        e.to_string()
            .starts_with("t.toml:11: key `bogus`: unknown field `bogus`"),
        "{e}"
    );
}

#[test]
fn unknown_top_level_key() {
    let text = r#"title = "x"
[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 1, "title", &["unknown field `title`"]);
}

#[test]
fn unknown_key_in_scenario_header() {
    let text = r#"[scenario]
name = "t"
shadr = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        3,
        "scenario.shadr",
        &["unknown field `shadr`", "expected one of", "`shader`"],
    );
}

#[test]
fn unknown_key_in_second_resource() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4

[[resources]]
name = "b"
type = "buffer"
binding = 1
count = 4
elemnt = "f32"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        16,
        "resources[1].elemnt",
        &["unknown field `elemnt`", "`element`"],
    );
}

#[test]
fn unknown_key_in_second_variant() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
workgroup = [64, 1, 1]

[[variants]]
name = "w"
define = { A = 1 }
"#;
    assert_err(
        text,
        14,
        "variants[1].define",
        &["unknown field `define`", "`defines`"],
    );
}

#[test]
fn unknown_key_in_dispatch_and_measure() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]
gird = 3

[[variants]]
name = "v"
"#;
    assert_err(text, 7, "dispatch[0].gird", &["unknown field `gird`"]);
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[measure]
rep = 5

[[variants]]
name = "v"
"#;
    assert_err(text, 9, "measure.rep", &["unknown field `rep`", "`reps`"]);
}

#[test]
fn wrong_type_names_the_key_not_the_value() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[resources]]
name = "a"
type = "buffer"
binding = "x"
count = 4

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        8,
        "resources[0].binding",
        &["invalid type: string \"x\"", "expected u32"],
    );
}

#[test]
fn wrong_type_for_a_number_says_what_is_expected() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
workgroup = [64, true, 1]
"#;
    assert_err(
        text,
        10,
        "variants[0].workgroup[1]",
        &["boolean `true`", "a number or an expression"],
    );
}

#[test]
fn wrong_type_for_a_name() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = 3
"#;
    assert_err(
        text,
        9,
        "variants[0].name",
        &["integer `3`", "expected a string"],
    );
}

#[test]
fn negative_set_is_a_type_error() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[resources]]
name = "a"
type = "buffer"
set = -1
binding = 0
count = 4

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 8, "resources[0].set", &["-1", "u32"]);
}

#[test]
fn missing_required_field_names_table_line_and_key() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[resources]]
name = "a"
type = "buffer"
count = 4

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        5,
        "resources[0].binding",
        &["missing field `binding`"],
    );
}

#[test]
fn missing_scenario_table_has_no_line() {
    let text = r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
"#;
    let e = assert_err(text, 0, "scenario", &["missing field `scenario`"]);
    assert_eq!(
        e.to_string(),
        "t.toml: key `scenario`: missing field `scenario`"
    );
    assert_err("", 0, "scenario", &["missing field `scenario`"]);
}

#[test]
fn no_dispatch_and_no_variants() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[variants]]
name = "v"
"#;
    // A missing table has no line to point at.
    let e = assert_err(text, 0, "dispatch", &["no [[dispatch]]"]);
    assert_eq!(
        e.to_string(),
        "t.toml: key `dispatch`: no [[dispatch]]: a scenario needs at least one"
    );
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]
"#;
    assert_err(text, 0, "variants", &["no [[variants]]"]);
}

// ---------------------------------------------------------------------------------------------
// Expressions

/// A scenario whose only resource has `count = <count>` on line 11.
fn with_count(count: &str) -> String {
    format!(
        r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 10

[[resources]]
name = "a"
type = "buffer"
count = {count}
binding = 0

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#
    )
}

#[test]
fn bad_expression_syntax() {
    let e = assert_err(
        &with_count("\"n *\""),
        11,
        "resources[0].count",
        &["syntax error", "`n *`"],
    );
    assert!(
        e.to_string()
            .starts_with("t.toml:11: key `resources[0].count`: syntax error"),
        "{e}"
    );
    assert_err(
        &with_count("\"(n + 1\""),
        11,
        "resources[0].count",
        &["syntax error"],
    );
}

#[test]
fn unknown_variable_lists_known_names() {
    assert_err(
        &with_count("\"m * 2\""),
        11,
        "resources[0].count",
        &["unknown variable `m`", "known: n"],
    );
}

#[test]
fn division_by_zero_in_a_size() {
    assert_err(
        &with_count("\"n / (n - 10)\""),
        11,
        "resources[0].count",
        &["division by zero", "n / (n - 10)"],
    );
}

#[test]
fn non_integer_size() {
    assert_err(
        &with_count("\"n / 3\""),
        11,
        "resources[0].count",
        &["`n / 3`", "not an integer", "ceil()"],
    );
    assert_err(
        &with_count("2.5"),
        11,
        "resources[0].count",
        &["not an integer"],
    );
}

#[test]
fn negative_size() {
    assert_err(
        &with_count("\"n - 11\""),
        11,
        "resources[0].count",
        &["-1", "non-negative"],
    );
}

#[test]
fn zero_size_buffer() {
    assert_err(
        &with_count("\"n - 10\""),
        11,
        "resources[0].count",
        &["a buffer cannot be empty"],
    );
}

#[test]
fn expressions_in_sizes() {
    let sc = parse_ok(&with_count("\"ceil(n / 8)\""));
    let r = &sc.cases[0].resources[0];
    // Default element is u32: 2 elements of 4 bytes.
    assert_eq!(
        r.kind,
        ResourceKind::Buffer {
            element: Elem::U32,
            bytes: 8
        }
    );
    let sc = parse_ok(&with_count("\"max(n, 3) * 2 ** 2\""));
    assert_eq!(sc.cases[0].resources[0].bytes(), 160);
}

// ---------------------------------------------------------------------------------------------
// Resources

/// A scenario with `res` as its resources (starting on line 5), then one dispatch and variant.
fn with_resources(res: &str) -> String {
    format!(
        r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

{res}
[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#
    )
}

#[test]
fn missing_shader_file_names_where_it_is_set() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/nope.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 3, "scenario.shader", &["`glsl/nope.comp` not found"]);
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[dispatch]]
grid = [1, 1, 1]
shader = "glsl/nope.comp"

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        10,
        "dispatch[1].shader",
        &["`glsl/nope.comp` not found"],
    );
    let text = r#"[scenario]
name = "t"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
shader = "{N}.comp"
matrix = { N = [1] }
"#;
    assert_err(text, 9, "variants[0].shader", &["`1.comp` not found"]);
}

#[test]
fn no_shader_anywhere() {
    let text = r#"[scenario]
name = "t"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 4, "dispatch[0].shader", &["no shader"]);
}

#[test]
fn duplicate_set_and_binding() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4

[[resources]]
name = "b"
type = "buffer"
set = 1
binding = 0
count = 4

[[resources]]
name = "c"
type = "buffer"
set = 1
binding = 0
count = 4
"#,
    );
    // (0, 0) and (1, 0) differ; the third one clashes with the second.
    assert_err(
        &text,
        22,
        "resources[2].binding",
        &["set 1 binding 0 is already used by `b` (resources[1])"],
    );
}

#[test]
fn duplicate_resource_names() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4

[[resources]]
name = "a"
type = "buffer"
binding = 1
count = 4
"#,
    );
    assert_err(
        &text,
        12,
        "resources[1].name",
        &["duplicate resource name `a`"],
    );
}

#[test]
fn unknown_element_type() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
element = "f64"
count = 4
"#,
    );
    assert_err(
        &text,
        9,
        "resources[0].element",
        &["unknown element type `f64`", "f32"],
    );
}

#[test]
fn unknown_resource_type() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "texture"
binding = 0
"#,
    );
    assert_err(
        &text,
        7,
        "resources[0].type",
        &[
            "unknown resource type `texture`",
            "buffer, image or uniform",
        ],
    );
}

#[test]
fn unknown_image_format() {
    let text = with_resources(
        r#"[[resources]]
name = "img"
type = "image"
binding = 0
format = "rgb8"
width = 4
height = 4
"#,
    );
    assert_err(
        &text,
        9,
        "resources[0].format",
        &["unknown image format `rgb8`", "rgba8"],
    );
}

#[test]
fn unknown_image_usage() {
    let text = with_resources(
        r#"[[resources]]
name = "img"
type = "image"
binding = 0
format = "r32f"
width = 4
height = 4
usage = "read"
"#,
    );
    assert_err(
        &text,
        12,
        "resources[0].usage",
        &["unknown usage `read`", "storage or sampled"],
    );
}

#[test]
fn empty_image_names_the_zero_dimension() {
    let text = with_resources(
        r#"[[resources]]
name = "img"
type = "image"
binding = 0
format = "r32f"
width = 4
height = 0
"#,
    );
    assert_err(
        &text,
        11,
        "resources[0].height",
        &["an image cannot be empty"],
    );
}

#[test]
fn buffer_keys_on_an_image_and_back() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
format = "r32f"
"#,
    );
    assert_err(
        &text,
        10,
        "resources[0].format",
        &["`format` does not apply to a buffer"],
    );
    let text = with_resources(
        r#"[[resources]]
name = "img"
type = "image"
binding = 0
format = "r32f"
width = 4
height = 4
count = 16
"#,
    );
    assert_err(
        &text,
        12,
        "resources[0].count",
        &["`count` does not apply to an image"],
    );
}

#[test]
fn unknown_init_kind() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
init = { kind = "sine" }
"#,
    );
    assert_err(
        &text,
        10,
        "resources[0].init",
        &["unknown init `sine`", "zero, constant, ramp or random"],
    );
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
init = "sine"
"#,
    );
    assert_err(&text, 10, "resources[0].init", &["unknown init `sine`"]);
}

#[test]
fn unknown_init_keys() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
init = { kind = "ramp", stepp = 2 }
"#,
    );
    assert_err(
        &text,
        10,
        "resources[0].init.stepp",
        &["unknown key `stepp`", "`ramp`", "kind, start, step"],
    );
    // The same as a sub-table: the line is the key's own.
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4

[resources.init]
kind = "random"
seed = 3
mim = 0
"#,
    );
    assert_err(
        &text,
        14,
        "resources[0].init.mim",
        &["unknown key `mim`", "seed, min, max"],
    );
}

#[test]
fn init_table_without_kind_and_constant_without_value() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
init = { start = 1 }
"#,
    );
    assert_err(&text, 10, "resources[0].init.kind", &["needs `kind`"]);
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
init = "constant"
"#,
    );
    assert_err(&text, 10, "resources[0].init", &["needs a value"]);
}

#[test]
fn random_init_seed_must_be_a_non_negative_integer() {
    for seed in ["-3", "1.5"] {
        let text = with_resources(&format!(
            r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
init = {{ kind = "random", seed = {seed} }}
"#
        ));
        assert_err(
            &text,
            10,
            "resources[0].init.seed",
            &["non-negative integer"],
        );
    }
}

#[test]
fn init_values() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
init = { kind = "constant", value = 2.5 }

[[resources]]
name = "b"
type = "buffer"
binding = 1
count = 4
init = "ramp"

[[resources]]
name = "c"
type = "buffer"
binding = 2
count = 4
init = { kind = "random", seed = 9, min = -1, max = 1 }

[[resources]]
name = "d"
type = "buffer"
binding = 3
count = 4
"#,
    );
    let sc = parse_ok(&text);
    let inits: Vec<&Init> = sc.cases[0].resources.iter().map(|r| &r.init).collect();
    assert_eq!(
        inits,
        [
            &Init::Constant(2.5),
            &Init::Ramp {
                start: 0.0,
                step: 1.0
            },
            &Init::Random {
                seed: 9,
                min: -1.0,
                max: 1.0
            },
            &Init::Zero,
        ]
    );
}

#[test]
fn missing_count_on_a_buffer() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
element = "f32"
"#,
    );
    // `count` is not written anywhere: the line is the resource's header.
    assert_err(
        &text,
        5,
        "resources[0].count",
        &["a buffer needs `count`", "`size_bytes`"],
    );
}

#[test]
fn zero_size_bytes() {
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
binding = 0
size_bytes = 0
"#,
    );
    assert_err(
        &text,
        9,
        "resources[0].size_bytes",
        &["a buffer cannot be empty"],
    );
}

#[test]
fn resource_on_set_3_is_refused() {
    // Set 3 belongs to p3lab's probe (glsl/common/p3lab.glsl).
    let text = with_resources(
        r#"[[resources]]
name = "a"
type = "buffer"
set = 3
binding = 7
count = 4
"#,
    );
    let e = p3lab::scenario::parse(Path::new("t.toml"), &text, &vec![]).unwrap_err();
    assert_eq!(e.key, "resources[0].set");
    assert!(e.message.contains("reserved for p3lab's probe"), "{e}");
}

#[test]
fn image_resource_resolves() {
    let text = with_resources(
        r#"[[resources]]
name = "img"
type = "image"
binding = 0
format = "RGBA16F"
width = "2 * 8"
height = 4
usage = "sampled"
filter = "linear"
output = true
"#,
    );
    let sc = parse_ok(&text);
    let r = &sc.cases[0].resources[0];
    assert_eq!(
        r.kind,
        ResourceKind::Image {
            format: ImageFormat::Rgba16f,
            width: 16,
            height: 4,
            usage: ImageUsage::Sampled,
            linear: true
        }
    );
    assert_eq!(r.bytes(), 16 * 4 * 8);
    assert_eq!(r.element(), Elem::F16);
    assert!(r.output);
}

// ---------------------------------------------------------------------------------------------
// Dispatches

#[test]
fn empty_dispatch_grid() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [0, 1, 1]

[[variants]]
name = "v"
workgroup = [64, 1, 1]
"#;
    assert_err(
        text,
        6,
        "dispatch[0].grid",
        &["variant `v`", "empty grid along x"],
    );
}

#[test]
fn empty_dispatch_grid_without_declared_workgroup() {
    // The variant takes the shader's local_size, but a grid of 0 is empty whatever it is.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 10

[[dispatch]]
grid = [1, "n - 10", 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 9, "dispatch[0].grid", &["empty grid along y"]);
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
cover = [0]

[[variants]]
name = "v"
"#;
    assert_err(text, 6, "dispatch[0].cover", &["empty grid along x"]);
}

#[test]
fn grid_over_workgroup_size_is_left_to_the_runner_without_a_workgroup() {
    // `wg_x` is only known once the shader is compiled: nothing to check at load time.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = ["64 / wg_x", 1, 1]

[[variants]]
name = "v"
"#;
    let sc = parse_ok(text);
    assert_eq!(sc.cases[0].variants[0].workgroup, None);
}

#[test]
fn both_grid_and_cover() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]
cover = [64, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        6,
        "dispatch[0].grid",
        &["exactly one of `grid`", "`cover`"],
    );
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
name = "p"

[[variants]]
name = "v"
"#;
    assert_err(text, 5, "dispatch[0].grid", &["exactly one of `grid`"]);
}

#[test]
fn grid_expression_errors() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, "wg_q", 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        6,
        "dispatch[0].grid[1]",
        &["unknown variable `wg_q`", "wg_x"],
    );
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 6, "dispatch[0].grid", &["1 to 3", "got 4"]);
}

#[test]
fn cover_grid_is_derived_through_resolve_pass() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 1000

[[dispatch]]
cover = ["n", 3]

[[variants]]
name = "v"
workgroup = [64, 2, 1]
"#;
    let sc = parse_ok(text);
    let v = &sc.cases[0].variants[0];
    let pass = &v.passes[0];
    assert!(matches!(&pass.grid, GridSpec::Cover(e) if e[0] == "n" && e[1] == "3" && e[2] == "1"));
    let wg = pass.workgroup.or(v.workgroup).unwrap();
    let rp = v.resolve_pass(pass, wg).unwrap();
    assert_eq!(rp.workgroup, [64, 2, 1]);
    assert_eq!(rp.grid, [16, 2, 1]);
    assert_eq!(rp.invocations(), (64 * 2) * (16 * 2));
    // The same pass run with another workgroup size gets another grid.
    assert_eq!(v.resolve_pass(pass, [256, 1, 1]).unwrap().grid, [4, 3, 1]);
}

#[test]
fn grid_may_use_the_workgroup_size() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
name = "main"
grid = ["4096 / wg_x", 1, 1]

[[variants]]
name = "v"
workgroup = [128, 1, 1]
"#;
    let sc = parse_ok(text);
    let v = &sc.cases[0].variants[0];
    assert_eq!(v.passes[0].name, "main");
    assert_eq!(
        v.resolve_pass(&v.passes[0], [128, 1, 1]).unwrap().grid,
        [32, 1, 1]
    );
}

#[test]
fn push_constants_per_scenario_and_per_dispatch() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
push_constants = ["n", "n * 2", -1]

[params]
n = 100

[[dispatch]]
name = "first"
cover = ["n"]

[[dispatch]]
name = "second"
cover = ["n"]
push_constants = ["wg_x", 7]

[[variants]]
name = "v"
workgroup = [32, 1, 1]
"#;
    let sc = parse_ok(text);
    let v = &sc.cases[0].variants[0];
    assert_eq!(
        v.passes[0].push_constants,
        Some(vec!["n".to_string(), "n * 2".into(), "-1".into()])
    );
    let first = v.resolve_pass(&v.passes[0], [32, 1, 1]).unwrap();
    // Negative values wrap to two's complement words.
    assert_eq!(first.push_constants, Some(vec![100, 200, u32::MAX]));
    assert_eq!(first.grid, [4, 1, 1]);
    let second = v.resolve_pass(&v.passes[1], [32, 1, 1]).unwrap();
    assert_eq!(second.push_constants, Some(vec![32, 7]));
}

#[test]
fn push_constant_errors_name_where_they_are_set() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
push_constants = ["n", "q"]

[params]
n = 100

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        4,
        "scenario.push_constants[1]",
        &["unknown variable `q`", "n"],
    );
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
push_constants = [1]

[[dispatch]]
grid = [1, 1, 1]
push_constants = ["2 ** 40"]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        8,
        "dispatch[0].push_constants",
        &["does not fit in 32 bits"],
    );
}

// ---------------------------------------------------------------------------------------------
// Check

/// A scenario with an output buffer `a`, two variants, and `check` as its [check] body (line 14).
fn with_check(check: &str) -> String {
    format!(
        r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4
output = true

[[dispatch]]
grid = [1, 1, 1]

[check]
{check}

[[variants]]
name = "first"

[[variants]]
name = "second"
"#
    )
}

#[test]
fn a_builtin_reference_that_cannot_apply_is_refused_at_load() {
    assert_err(
        &with_check("reference = \"smoke\""),
        16,
        "check.reference",
        &["`smoke` needs a resource named `src` (f32 buffer)"],
    );
    // The right name, the wrong type.
    assert_err(
        &with_check("reference = \"peak_sink\"").replace("\"a\"", "\"sink\""),
        16,
        "check.reference",
        &["`peak_sink` needs `sink` to be a f32 buffer, not a u32 buffer"],
    );
}

#[test]
fn check_output_naming_a_missing_resource() {
    assert_err(
        &with_check("outputs = [\"a\", \"zz\"]"),
        16,
        "check.outputs[1]",
        &["no resource named `zz`"],
    );
}

#[test]
fn check_baseline_naming_a_missing_variant() {
    assert_err(
        &with_check("baseline = \"third\""),
        16,
        "check.baseline",
        &["no variant named `third`"],
    );
}

#[test]
fn unknown_built_in_reference() {
    assert_err(
        &with_check("reference = \"nope\""),
        16,
        "check.reference",
        &["unknown built-in reference `nope`", "smoke"],
    );
}

#[test]
fn negative_tolerance() {
    assert_err(
        &with_check("tolerance = -0.5"),
        16,
        "check.tolerance",
        &["non-negative"],
    );
}

#[test]
fn tolerances_may_grow_with_a_param() {
    // The bound on a dot product's rounding error grows with its length: one tolerance
    // expression gives every params case its own.
    let text = with_check("rel_tolerance = \"(k + 4) * 2 ** -24\"\ntolerance = \"k / 1024\"")
        .replace("[[resources]]", "[params]\nk = [64, 4096]\n\n[[resources]]");
    let sc = parse_ok(&text);
    let tols: Vec<(f64, f64)> = sc
        .cases
        .iter()
        .map(|c| {
            let c = c.check.as_ref().unwrap();
            (c.tolerance, c.rel_tolerance)
        })
        .collect();
    assert_eq!(
        tols,
        [(0.0625, 68.0 / 16777216.0), (4.0, 4100.0 / 16777216.0)]
    );
    // Errors name the key, and the params case when there is a sweep.
    let text = with_check("rel_tolerance = \"1e-6 * (2048 - k)\"")
        .replace("[[resources]]", "[params]\nk = [64, 4096]\n\n[[resources]]");
    assert_err(
        &text,
        19,
        "check.rel_tolerance",
        &["non-negative, got -0.002048", "(with params k=4096)"],
    );
    // Params only: a check is per params case, not per variant.
    assert_err(
        &with_check("tolerance = \"T * 2\""),
        16,
        "check.tolerance",
        &["unknown variable `T`"],
    );
}

#[test]
fn check_defaults() {
    let sc = parse_ok(&with_check("tolerance = 0.25"));
    let c = sc.cases[0].check.as_ref().unwrap();
    // Outputs default to the resources marked `output`; the baseline to the first variant.
    assert_eq!(c.outputs, ["a"]);
    assert_eq!(c.baseline.as_deref(), Some("first"));
    assert_eq!(c.reference, None);
    assert_eq!(c.tolerance, 0.25);
    // With a CPU reference and no baseline, only the reference checks.
    let sc = parse_ok(&with_check("reference = \"peak_launch\"").replace("\"a\"", "\"out\""));
    let c = sc.cases[0].check.as_ref().unwrap();
    assert_eq!(
        c.reference,
        Some(p3lab::scenario::Reference::Builtin("peak_launch".into()))
    );
    assert_eq!(c.baseline, None);
    let sc = parse_ok(&with_check("baseline = \"second\""));
    let c = sc.cases[0].check.as_ref().unwrap();
    assert_eq!(c.baseline.as_deref(), Some("second"));
}

#[test]
fn check_with_nothing_to_check() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[resources]]
name = "a"
type = "buffer"
binding = 0
count = 4

[[dispatch]]
grid = [1, 1, 1]

[check]
tolerance = 0.1

[[variants]]
name = "v"
"#;
    assert_err(text, 14, "check", &["nothing to check"]);
}

// ---------------------------------------------------------------------------------------------
// Variants and matrices

#[test]
fn bad_subgroup_size_values() {
    for (value, shown) in [("\"wave64\"", "\"wave64\""), ("0", "0"), ("2048", "2048")] {
        let text = format!(
            r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
subgroup_size = {value}
"#
        );
        let e = assert_err(
            &text,
            10,
            "variants[0].subgroup_size",
            &["\"default\", \"full\" or a lane count"],
        );
        assert!(e.message.ends_with(&format!("got {shown}")), "{e}");
    }
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
subgroup_size = "wave64"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 4, "scenario.subgroup_size", &["got \"wave64\""]);
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v{subgroup_size}"
matrix = { subgroup_size = [32, 0] }
"#;
    assert_err(text, 10, "variants[0].matrix.subgroup_size", &["got 0"]);
    // A lane count in quotes (issue 29): the message says to drop them.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
subgroup_size = "8"
"#;
    assert_err(
        text,
        10,
        "variants[0].subgroup_size",
        &[
            "the string \"8\"",
            "as an integer, without quotes (subgroup_size = 8)",
        ],
    );
}

#[test]
fn duplicate_variant_names_after_matrix_expansion() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
matrix = { N = [1, 2] }
"#;
    assert_err(
        text,
        9,
        "variants[0].name",
        &["two variants are named `v`", "\"v-{N}\""],
    );
    // Across [[variants]] entries the error points at the later one.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v{N}"
matrix = { N = [1, 2] }

[[variants]]
name = "v2"
"#;
    assert_err(
        text,
        13,
        "variants[1].name",
        &["two variants are named `v2`", "rename one"],
    );
}

#[test]
fn unknown_name_in_a_variant_template() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 1

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v{M}"
matrix = { N = [1, 2] }
"#;
    assert_err(
        text,
        12,
        "variants[0].name",
        &["unknown name `M`", "known: N, n"],
    );
}

#[test]
fn empty_matrix_list_and_bad_workgroups() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v{N}"
matrix = { N = [] }
"#;
    assert_err(text, 10, "variants[0].matrix.N", &["cannot be empty"]);
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
workgroup = [64, 0, 1]
"#;
    assert_err(text, 10, "variants[0].workgroup[1]", &["at least 1, got 0"]);
}

#[test]
fn matrix_expansion() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 4096

[[dispatch]]
cover = ["n"]

[[variants]]
name = "b{BLOCK}-{MODE}-wg{WG}"
workgroup = ["WG", 1, 1]
defines = { EXTRA = "{BLOCK}x" }
matrix = { WG = [64, 128, 256], BLOCK = [1, 4], MODE = ["fast", "safe"] }

[[variants]]
name = "plain"
"#;
    let sc = parse_ok(text);
    let vs = &sc.cases[0].variants;
    assert_eq!(vs.len(), 3 * 2 * 2 + 1);
    let names: Vec<&str> = vs.iter().map(|v| v.name.as_str()).collect();
    // Matrix keys cross in key order (BLOCK, MODE, WG), the last varying fastest.
    assert_eq!(
        &names[..4],
        [
            "b1-fast-wg64",
            "b1-fast-wg128",
            "b1-fast-wg256",
            "b1-safe-wg64"
        ]
    );
    assert_eq!(names[12], "plain");
    let v = vs.iter().find(|v| v.name == "b4-safe-wg128").unwrap();
    assert_eq!(v.workgroup, Some([128, 1, 1]));
    // Matrix keys become defines (numbers and strings), then the variant's own defines.
    assert_eq!(
        v.defines,
        [
            ("BLOCK".to_string(), "4".to_string()),
            ("MODE".into(), "safe".into()),
            ("WG".into(), "128".into()),
            ("EXTRA".into(), "4x".into()),
        ]
    );
    // Numeric matrix values are variables too.
    assert_eq!(v.vars.get("WG"), Some(&128.0));
    assert_eq!(v.vars.get("n"), Some(&4096.0));
    assert_eq!(v.vars.get("MODE"), None);
    assert_eq!(
        v.resolve_pass(&v.passes[0], v.workgroup.unwrap())
            .unwrap()
            .grid,
        [32, 1, 1]
    );
    let plain = &vs[12];
    assert_eq!(plain.workgroup, None);
    assert!(plain.defines.is_empty());
}

#[test]
fn subgroup_size_and_workgroup_matrix_keys() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
cover = [1024]

[[variants]]
name = "sg{subgroup_size}-wg{workgroup}"
matrix = { subgroup_size = ["full", 32, "default"], workgroup = [[64, 1, 1], [16, 16]] }
"#;
    let sc = parse_ok(text);
    let vs = &sc.cases[0].variants;
    let names: Vec<&str> = vs.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "sgfull-wg64x1x1",
            "sgfull-wg16x16",
            "sg32-wg64x1x1",
            "sg32-wg16x16",
            "sgdefault-wg64x1x1",
            "sgdefault-wg16x16",
        ]
    );
    assert_eq!(vs[0].subgroup, SubgroupReq::Full);
    assert_eq!(vs[2].subgroup, SubgroupReq::Size(32));
    assert_eq!(vs[4].subgroup, SubgroupReq::Default);
    assert_eq!(vs[0].workgroup, Some([64, 1, 1]));
    assert_eq!(vs[1].workgroup, Some([16, 16, 1]));
    // `subgroup_size` and `workgroup` set the variant; they are not defines.
    assert!(vs.iter().all(|v| v.defines.is_empty()));
}

#[test]
fn variant_and_scenario_level_defaults_for_workgroup_and_subgroup() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
workgroup = [32]
subgroup_size = "full"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "inherits"

[[variants]]
name = "own"
workgroup = [8, 8]
subgroup_size = 16
spec = { "0" = 3, "1" = "2 * 4", "2" = true }
"#;
    let sc = parse_ok(text);
    let vs = &sc.cases[0].variants;
    assert_eq!(vs[0].workgroup, Some([32, 1, 1]));
    assert_eq!(vs[0].subgroup, SubgroupReq::Full);
    assert_eq!(vs[1].workgroup, Some([8, 8, 1]));
    assert_eq!(vs[1].subgroup, SubgroupReq::Size(16));
    assert_eq!(vs[1].spec, [(0, 3.0), (1, 8.0), (2, 1.0)]);
}

// ---------------------------------------------------------------------------------------------
// Params and sweeps

const SWEEP: &str = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 10
a = [1, 2]

[[resources]]
name = "buf"
type = "buffer"
binding = 0
element = "f32"
count = "n * a"

[[dispatch]]
cover = ["n"]

[[variants]]
name = "v"
workgroup = [64, 1, 1]
"#;

fn sweep_with(overrides: &[&str]) -> Result<Scenario, ScenarioError> {
    let ov = overrides.iter().map(|s| parse_set(s).unwrap()).collect();
    parse(Path::new("t.toml"), SWEEP, &ov)
}

#[test]
fn param_sweep_from_a_list() {
    let sc = sweep_with(&[]).unwrap();
    let labels: Vec<&str> = sc.cases.iter().map(|c| c.params_label.as_str()).collect();
    assert_eq!(labels, ["a=1;n=10", "a=2;n=10"]);
    assert_eq!(sc.cases[1].resources[0].bytes(), 2 * 10 * 4);
    assert_eq!(sc.cases[1].params.get("a"), Some(&2.0));
}

#[test]
fn param_sweep_from_set_overrides() {
    let sc = sweep_with(&["n=1,2,3"]).unwrap();
    let labels: Vec<&str> = sc.cases.iter().map(|c| c.params_label.as_str()).collect();
    // Cross product of a = [1, 2] and n = [1, 2, 3], labels sorted by key.
    assert_eq!(
        labels,
        ["a=1;n=1", "a=1;n=2", "a=1;n=3", "a=2;n=1", "a=2;n=2", "a=2;n=3"]
    );
    let sc = sweep_with(&["n=1,2,3", "a=5"]).unwrap();
    assert_eq!(sc.cases.len(), 3);
    assert_eq!(sc.cases[1].params_label, "a=5;n=2");
    assert_eq!(sc.cases[1].resources[0].bytes(), 5 * 2 * 4);
    // An override for a param this scenario does not have is ignored here (the CLI checks it).
    assert_eq!(sweep_with(&["zzz=4"]).unwrap().cases.len(), 2);
}

#[test]
fn set_value_is_an_expression_over_file_defaults() {
    let sc = sweep_with(&["n=n * 4", "a=3"]).unwrap();
    assert_eq!(sc.cases.len(), 1);
    assert_eq!(sc.cases[0].params_label, "a=3;n=40");
    assert_eq!(sc.cases[0].variants[0].vars.get("n").copied(), Some(40.0));
}

#[test]
fn set_value_errors() {
    let e = sweep_with(&["n=m"]).unwrap_err();
    assert_eq!((e.file.as_str(), e.line, e.key.as_str()), ("--set", 0, "n"));
    assert!(e.message.contains("unknown variable `m`"), "{e}");
    assert_eq!(
        e.to_string(),
        "--set: key `n`: `m`: unknown variable `m` (known: a, n)"
    );
    // A value that breaks the file is reported at the file's key, naming the params used.
    let e = sweep_with(&["n=0"]).unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (14, "resources[0].count"));
    assert!(e.message.contains("a buffer cannot be empty"), "{e}");
    assert!(e.message.contains("a=1, n=0"), "{e}");
}

#[test]
fn parse_set_syntax() {
    assert_eq!(
        parse_set("n=1,2, 3").unwrap(),
        (
            "n".to_string(),
            vec!["1".to_string(), "2".into(), "3".into()]
        )
    );
    assert_eq!(
        parse_set(" n = n * 2").unwrap(),
        ("n".to_string(), vec!["n * 2".to_string()])
    );
    assert!(parse_set("n").unwrap_err().contains("NAME=VALUE"));
    assert!(parse_set("n=1,,2").unwrap_err().contains("empty value"));
    assert!(parse_set("1n=2").unwrap_err().contains("not a valid name"));
}

#[test]
fn bad_params() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = "x"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 6, "params.n", &["a number or a non-empty list"]);
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = []

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(text, 6, "params.n", &["non-empty"]);
}

#[test]
fn a_broken_sweep_point_is_named() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = [8, 0]

[[resources]]
name = "a"
type = "buffer"
binding = 0
count = "n"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    let e = assert_err(text, 12, "resources[0].count", &["cannot be empty", "n=0"]);
    assert!(!e.message.contains("n=8"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// Measure and defaults

#[test]
fn declared_work_for_every_unit_and_the_cold_eviction() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 1024

[[dispatch]]
cover = ["n"]

[measure]
bytes_read = "n * 4"
texels = "n * 26"
texels_linear = "n"
atomics = "2 * n"
shared_atomics = "3 * n"
int_ops = "4 * n"
sfu_ops = "5 * n"
l1_bytes = "6 * n"
footprint_bytes = "7 * n"
modes = ["cold"]
evict = "write"

[[variants]]
name = "v"
"#;
    let sc = parse_ok(text);
    let w = &sc.cases[0].variants[0].work;
    let got = [
        w.texels,
        w.texels_linear,
        w.atomics,
        w.shared_atomics,
        w.int_ops,
        w.sfu_ops,
        w.l1_bytes,
        w.footprint_bytes,
    ];
    let want = [26, 1, 2, 3, 4, 5, 6, 7].map(|k| Some(k * 1024));
    assert_eq!(got, want);
    assert_eq!(w.footprint(), Some(7 * 1024), "declared footprint wins");
    assert_eq!(sc.cases[0].evict, p3lab::scenario::Evict::Write);
    let d = parse_ok(&text.replace("evict = \"write\"\n", ""));
    assert_eq!(
        d.cases[0].evict,
        p3lab::scenario::Evict::Read,
        "read is the default"
    );
    assert_err(
        &text.replace("evict = \"write\"", "evict = \"flush\""),
        22,
        "measure.evict",
        &["unknown eviction `flush`", "read or write"],
    );
}

#[test]
fn declared_work() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 1024

[[dispatch]]
cover = ["n"]

[measure]
bytes_read = "n * 4"
bytes_written = "n * 4 / 2"
flops = "2 * n"

[[variants]]
name = "v{K}"
matrix = { K = [1, 3] }
"#;
    let sc = parse_ok(text);
    let w = &sc.cases[0].variants[0].work;
    assert_eq!(
        *w,
        Work {
            bytes_read: Some(4096),
            bytes_written: Some(2048),
            flops: Some(2048),
            shared_bytes: None,
            ..Default::default()
        }
    );
    assert_eq!(w.bytes(), Some(6144));
    assert_eq!(
        w.footprint(),
        Some(6144),
        "the footprint defaults to bytes read + written"
    );
    let text = text.replace("flops = \"2 * n\"", "flops = \"K * n\"");
    let sc = parse_ok(&text);
    // Work expressions see the matrix values of each variant.
    let flops: Vec<Option<u64>> = sc.cases[0].variants.iter().map(|v| v.work.flops).collect();
    assert_eq!(flops, [Some(1024), Some(3072)]);
}

#[test]
fn declared_work_errors() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 10

[[dispatch]]
grid = [1, 1, 1]

[measure]
reps = 5
bytes_read = "n / 3"

[[variants]]
name = "v"
"#;
    assert_err(text, 13, "measure.bytes_read", &["not an integer"]);
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[measure]
reps = 0

[[variants]]
name = "v"
"#;
    assert_err(text, 9, "measure.reps", &["at least 1"]);
}

// ---------------------------------------------------------------------------------------------
// A variant's own passes ([[variants.dispatch]]) and declared work ([variants.measure])

/// Two variants over one scenario-level [[dispatch]] and [measure]; the second maps a 4x4
/// micro-tile to each invocation and says so itself.
const PER_VARIANT: &str = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
workgroup = [16, 16]

[params]
n = 64

[[dispatch]]
cover = ["n", "n"]

[measure]
flops = "2 * n * n * n"
bytes_written = "4 * n * n"
bytes_read = "8 * n * n * n"

[[variants]]
name = "one-per-thread"

[[variants]]
name = "micro{T}"
matrix = { T = [2, 4] }
[[variants.dispatch]]
name = "tiles"
grid = ["div_ceil(n, 16 * T)", "div_ceil(n, 16 * T)"]
push_constants = ["n", "T", 1]
[variants.measure]
bytes_read = "8 * n * n * n / (16 * T)"
shared_bytes = "8 * n * n * n / T"
"#;

#[test]
fn a_variant_with_its_own_dispatch_and_work() {
    let sc = parse_ok(PER_VARIANT);
    let vs = &sc.cases[0].variants;
    let names: Vec<&str> = vs.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["one-per-thread", "micro2", "micro4"]);
    // The scenario's pass, for the variant without its own.
    let plain = &vs[0];
    assert_eq!(plain.passes.len(), 1);
    assert_eq!(plain.passes[0].name, "pass0");
    assert!(matches!(&plain.passes[0].grid, GridSpec::Cover(e) if e[0] == "n"));
    assert_eq!(plain.passes[0].key, p3lab::path!["dispatch", 0usize]);
    let r = plain.resolve_pass(&plain.passes[0], [16, 16, 1]).unwrap();
    assert_eq!(r.grid, [4, 4, 1]);
    // Its own pass, evaluated with each matrix value: 64 / (16 * 2) and 64 / (16 * 4).
    for (v, groups) in vs[1..].iter().zip([2, 1]) {
        assert_eq!(v.passes.len(), 1, "{}", v.name);
        assert_eq!(v.passes[0].name, "tiles");
        assert_eq!(
            v.passes[0].key,
            p3lab::path!["variants", 1usize, "dispatch", 0usize]
        );
        let r = v.resolve_pass(&v.passes[0], [16, 16, 1]).unwrap();
        assert_eq!(r.grid, [groups, groups, 1], "{}", v.name);
        assert_eq!(
            r.push_constants.as_deref().unwrap()[..2],
            [64, 64 / groups / 16]
        );
    }
    // Work: key by key, the variant's over the scenario's.
    let n = 64u64;
    assert_eq!(
        plain.work,
        Work {
            flops: Some(2 * n * n * n),
            bytes_written: Some(4 * n * n),
            bytes_read: Some(8 * n * n * n),
            ..Default::default()
        }
    );
    assert!(plain.work_own.is_empty());
    for (v, t) in vs[1..].iter().zip([2u64, 4]) {
        assert_eq!(
            v.work,
            Work {
                flops: Some(2 * n * n * n),
                bytes_written: Some(4 * n * n),
                bytes_read: Some(8 * n * n * n / (16 * t)),
                shared_bytes: Some(8 * n * n * n / t),
                ..Default::default()
            },
            "{}",
            v.name
        );
        assert_eq!(v.work_own, ["bytes_read", "shared_bytes"]);
    }
}

#[test]
fn inline_variant_dispatch_and_measure() {
    // The same keys written inline, on the variant's own lines.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
workgroup = [64]

[params]
n = 256

[[variants]]
name = "a"
dispatch = [{ cover = ["n"] }]
measure = { flops = "n" }

[[variants]]
name = "b"
dispatch = [{ grid = [1] }, { name = "second", grid = ["n / 64"] }]
"#;
    // No scenario-level [[dispatch]] is needed when every variant has its own.
    let sc = parse_ok(text);
    let vs = &sc.cases[0].variants;
    assert_eq!(vs[0].work.flops, Some(256));
    assert_eq!(vs[1].work, Work::default());
    let names: Vec<&str> = vs[1].passes.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["pass0", "second"]);
    let r = vs[1].resolve_pass(&vs[1].passes[1], [64, 1, 1]).unwrap();
    assert_eq!(r.grid, [4, 1, 1]);
}

#[test]
fn declared_work_sees_the_declared_workgroup_size() {
    // A group re-reads A once per group along x and B once per group along y: the traffic
    // depends on the group's shape, which a matrix of workgroups gives without keys of its own.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[params]
n = 64

[[dispatch]]
cover = ["n", "n"]

[measure]
bytes_read = "4 * n * n * (div_ceil(n, wg_x) + div_ceil(n, wg_y))"

[[variants]]
name = "wg{workgroup}"
matrix = { workgroup = [[16, 16], [64, 4]] }
"#;
    let sc = parse_ok(text);
    let read: Vec<Option<u64>> = sc.cases[0]
        .variants
        .iter()
        .map(|v| v.work.bytes_read)
        .collect();
    assert_eq!(read, [Some(4 * 64 * 64 * 8), Some(4 * 64 * 64 * 17)]);
    // Without a declared workgroup size there is none to see (the shader's comes later).
    let text = text
        .replace("matrix = { workgroup = [[16, 16], [64, 4]] }", "")
        .replace("wg{workgroup}", "v");
    assert_err(
        &text,
        12,
        "measure.bytes_read",
        &["unknown variable `wg_x`"],
    );
}

#[test]
fn variant_dispatch_and_measure_errors_name_the_variant_key() {
    // An expression error in a variant's own pass: its line, under variants[1].dispatch[0].
    let text = PER_VARIANT.replace(
        r#"grid = ["div_ceil(n, 16 * T)", "#,
        r#"grid = ["div_ceil(m, 16 * T)", "#,
    );
    assert_err(
        &text,
        25,
        "variants[1].dispatch[0].grid[0]",
        &["unknown variable `m`", "T"],
    );
    // A grid that is empty for one matrix value names the variant.
    let text = PER_VARIANT.replace(
        r#"grid = ["div_ceil(n, 16 * T)", "#,
        r#"grid = ["n / (32 * T) - 1", "#,
    );
    assert_err(
        &text,
        25,
        "variants[1].dispatch[0].grid",
        &["variant `micro2`", "empty grid along x"],
    );
    // A variant's work expression that is not an integer.
    let text = PER_VARIANT.replace(
        r#"shared_bytes = "8 * n * n * n / T""#,
        r#"shared_bytes = "n / 3""#,
    );
    assert_err(
        &text,
        29,
        "variants[1].measure.shared_bytes",
        &["not an integer"],
    );
    // A key of [measure] that is not declared work does not belong to a variant.
    let text = PER_VARIANT.replace("[variants.measure]\n", "[variants.measure]\nreps = 5\n");
    assert_err(
        &text,
        28,
        "variants[1].measure.reps",
        &["unknown field `reps`", "`flops`", "`shared_bytes`"],
    );
    // An unknown key in a variant's own pass.
    let text = PER_VARIANT.replace("name = \"tiles\"\n", "name = \"tiles\"\ngird = 3\n");
    assert_err(
        &text,
        25,
        "variants[1].dispatch[0].gird",
        &["unknown field `gird`"],
    );
    // A pass needs exactly one of grid and cover, wherever it is written.
    let text = PER_VARIANT.replace("name = \"tiles\"\n", "name = \"tiles\"\ncover = [1]\n");
    assert_err(
        &text,
        26,
        "variants[1].dispatch[0].grid",
        &["exactly one of `grid`"],
    );
    // A push constant of a variant's pass.
    let text = PER_VARIANT.replace(
        r#"push_constants = ["n", "T", 1]"#,
        r#"push_constants = ["n", "T / 3", 1]"#,
    );
    assert_err(
        &text,
        26,
        "variants[1].dispatch[0].push_constants",
        &["variant `micro2`", "not an integer"],
    );
    // An empty list of passes.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1]

[[variants]]
name = "v"
dispatch = []
"#;
    assert_err(text, 10, "variants[0].dispatch", &["empty list of passes"]);
    // Without a scenario-level [[dispatch]], a variant without its own has nothing to run.
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"

[[variants]]
name = "mine"
dispatch = [{ grid = [1] }]

[[variants]]
name = "bare"
"#;
    assert_err(
        text,
        10,
        "variants[1].name",
        &["variant `bare` has no passes", "[[variants.dispatch]]"],
    );
}

#[test]
fn defaults() {
    let text = r#"[scenario]
shader = "glsl/smoke/smoke.comp"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    let sc = parse(Path::new("dir/my_case.toml"), text, &vec![]).unwrap();
    // The name defaults to the file stem.
    assert_eq!(sc.name, "my_case");
    assert_eq!(sc.cases.len(), 1);
    let c = &sc.cases[0];
    assert_eq!(c.params_label, "");
    assert_eq!((c.warmup, c.reps), (3, 10));
    assert_eq!((c.rounds, c.max_rounds), (5, 30));
    assert_eq!((c.ci_target_pct, c.budget_ms), (0.5, 400.0));
    assert!(c.check.is_none());
    assert!(c.resources.is_empty());
    let v = &c.variants[0];
    assert_eq!(v.subgroup, SubgroupReq::Default);
    assert_eq!(v.workgroup, None);
    assert_eq!(v.work, Work::default());
    assert_eq!(v.work.bytes(), None);
    assert_eq!(v.passes[0].name, "pass0");
    assert_eq!(v.passes[0].push_constants, None);
    assert!(v.passes[0].shader.ends_with("glsl/smoke/smoke.comp"));
}

#[test]
fn unknown_opt_level() {
    let text = r#"[scenario]
name = "t"
shader = "glsl/smoke/smoke.comp"
opt = "O3"

[[dispatch]]
grid = [1, 1, 1]

[[variants]]
name = "v"
"#;
    assert_err(
        text,
        4,
        "scenario.opt",
        &["unknown optimization level `O3`"],
    );
}

#[test]
fn the_smoke_scenario_loads() {
    let sc = p3lab::scenario::load(Path::new("scenarios/smoke.toml"), &vec![]).unwrap();
    assert_eq!(sc.name, "smoke");
    let c = &sc.cases[0];
    assert_eq!((c.warmup, c.reps), (2, 10));
    let names: Vec<&str> = c.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "wg64",
            "wg128",
            "wg256",
            "wg64-sgfull",
            "wg64-sg8",
            "wg64-sg32"
        ]
    );
    assert_eq!(c.resources.len(), 4);
    let e = p3lab::scenario::load(Path::new("scenarios/nope.toml"), &vec![]).unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (0, ""));
    assert!(e.message.contains("cannot read scenario file"), "{e}");
}
