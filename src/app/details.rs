//! `p3lab list --details`: everything a variant would run with, before any device is involved:
//! its shader, language and entry point, defines and spec constants, declared work, workgroup
//! size (declared or compiled from the shader), the grid of every pass (marked where the variant
//! has passes of its own) and the invocations it covers, the push-constant words, and the
//! case's resources and check. The shaders are compiled and reflected (through the SPIR-V
//! cache), so a grid or push-constant mistake shows here.
use crate::scenario::error::{key_string, Seg};
use crate::scenario::{Case, Elem, Init, Reference, ResourceKind, Scenario, Variant};
use crate::shader::{reflect, CompileRequest, Compiler, SourceKind};
use std::fmt::Write;
use std::path::PathBuf;

/// The details of every case and variant of `scs`, as text.
pub fn text(scs: &[Scenario], include_dirs: &[PathBuf]) -> anyhow::Result<String> {
    let mut compiler = Compiler::new(Some(crate::shader::default_cache_dir()))?;
    let mut out = String::new();
    for sc in scs {
        let _ = writeln!(out, "{} ({})", sc.name, sc.path.display());
        for case in &sc.cases {
            let params = if case.params_label.is_empty() {
                "-"
            } else {
                &case.params_label
            };
            let _ = writeln!(out, "  params: {params}");
            resources(&mut out, case);
            check(&mut out, case);
            for v in &case.variants {
                variant(&mut out, &mut compiler, sc, v, include_dirs);
            }
        }
    }
    Ok(out)
}

/// A resource's kind and size, and how it starts, as `list --details` shows them.
fn describe(r: &crate::scenario::Resource) -> (String, String) {
    let what = match &r.kind {
        ResourceKind::Buffer { element, bytes } => format!(
            "buffer {} x {} ({bytes} bytes)",
            element.name(),
            bytes / element.bytes()
        ),
        ResourceKind::Uniform { bytes } => format!("uniform buffer ({bytes} bytes)"),
        ResourceKind::Image {
            format,
            width,
            height,
            usage,
            ..
        } => format!(
            "{} image {:?} {width} x {height} ({} bytes)",
            format!("{usage:?}").to_lowercase(),
            format,
            r.bytes()
        )
        .to_lowercase(),
    };
    let init = match &r.init {
        Init::Zero => "zero".to_string(),
        Init::Constant(c) => format!("constant {c}"),
        Init::Ramp { start, step } => format!("ramp {start} + {step} i"),
        // Floats are drawn from [min, max); integer elements (and rgba8 texels) from the
        // integers in [ceil(min), floor(max)], both ends included (src/scenario/data.rs).
        Init::Random { seed, min, max } => {
            let elem = r.element();
            if matches!(elem, Elem::F32 | Elem::F16) {
                format!("random [{min}, {max}) seed {seed}")
            } else {
                format!(
                    "random integers [{}, {}] seed {seed}",
                    min.ceil(),
                    max.floor()
                )
            }
        }
        Init::File { path, .. } => format!("file {}", path.display()),
        Init::Typed { members, .. } => {
            let shown: Vec<String> = members
                .iter()
                .map(|m| {
                    let value = match m.values.as_slice() {
                        [one] => one.clone(),
                        many => format!("[{}]", many.join(", ")),
                    };
                    format!("{}: {} @{} = {value}", m.name, m.ty.name(), m.offset)
                })
                .collect();
            format!("members {}", shown.join("; "))
        }
    };
    (what, init)
}

fn resources(out: &mut String, case: &Case) {
    for r in &case.resources {
        let (what, init) = describe(r);
        let _ = writeln!(
            out,
            "  resource {:<12} set {} binding {}{}  {what}, init {init}{}",
            r.name,
            r.set,
            r.binding,
            if r.index > 0 {
                format!("[{}]", r.index)
            } else {
                String::new()
            },
            if r.output { ", output" } else { "" }
        );
    }
}

fn check(out: &mut String, case: &Case) {
    let Some(c) = &case.check else {
        let _ = writeln!(out, "  check: none");
        return;
    };
    let reference = match &c.reference {
        None => "none".to_string(),
        Some(Reference::Files(f)) => f
            .iter()
            .map(|(o, p)| format!("{o} = {}", p.display()))
            .collect::<Vec<_>>()
            .join(", "),
        Some(r) => r.label(),
    };
    let _ = writeln!(
        out,
        "  check: outputs {}; reference {reference}; baseline {}; tolerance {} (relative {})",
        c.outputs.join(", "),
        c.baseline.as_deref().unwrap_or("none"),
        c.tolerance,
        c.rel_tolerance
    );
}

fn variant(
    out: &mut String,
    compiler: &mut Compiler,
    sc: &Scenario,
    v: &Variant,
    include_dirs: &[PathBuf],
) {
    let defs = |d: &[(String, String)]| {
        if d.is_empty() {
            "-".to_string()
        } else {
            d.iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let spec = if v.spec.is_empty() {
        "-".to_string()
    } else {
        v.spec
            .iter()
            .map(|(id, x)| format!("{id}={x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = writeln!(
        out,
        "    variant {}  subgroup {}  defines {}  spec {spec}{}",
        v.name,
        v.subgroup.label(),
        defs(&v.defines),
        if v.requires.is_empty() {
            String::new()
        } else {
            format!("  requires {}", v.requires.join(", "))
        }
    );
    work(out, v);
    for r in &v.resources {
        let (what, init) = describe(r);
        let _ = writeln!(
            out,
            "      own resource {}: {what}, init {init} (at set {} binding {}, in place of the case's)",
            r.name, r.set, r.binding
        );
    }
    let mut spec_ids: Vec<Vec<u32>> = Vec::new();
    for pass in &v.passes {
        if let Some(r) = pass_details(out, compiler, (sc.opt, true), v, pass, include_dirs) {
            spec_ids.push(r.spec_constants.iter().map(|(id, _)| *id).collect());
        }
    }
    unused_spec(out, compiler, v, include_dirs, &spec_ids);
}

/// The variant's spec constants its optimized code does not declare: unused by the compiled
/// code where the source declares them (the optimizer removed them; `run` accepts them), else
/// not declared at all (`run` refuses them). `compiled`: each pass's SpecIds.
fn unused_spec(
    out: &mut String,
    compiler: &mut Compiler,
    v: &Variant,
    include_dirs: &[PathBuf],
    compiled: &[Vec<u32>],
) {
    let missing: Vec<u32> = v
        .spec
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !compiled.iter().any(|ids| ids.contains(id)))
        .collect();
    if missing.is_empty() {
        return;
    }
    let mut plain: Vec<u32> = Vec::new();
    for pass in &v.passes {
        let mut sink = String::new();
        let zero = crate::scenario::OptLevel::Zero;
        if let Some(r) = pass_details(&mut sink, compiler, (zero, false), v, pass, include_dirs) {
            plain.extend(r.spec_constants.iter().map(|(id, _)| *id));
        }
    }
    let list = |ids: Vec<&u32>| {
        ids.iter()
            .map(|id| id.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (unused, undeclared): (Vec<&u32>, Vec<&u32>) =
        missing.iter().partition(|id| plain.contains(id));
    if !unused.is_empty() {
        let _ = writeln!(
            out,
            "      spec constants unused by the compiled code: {} (the optimizer removed them; their values change nothing)",
            list(unused)
        );
    }
    if !undeclared.is_empty() {
        let _ = writeln!(
            out,
            "      spec constants no shader of the variant declares: {} (`run` refuses them)",
            list(undeclared)
        );
    }
}

/// One pass of `list --details`: its shader, what compiling it says (workgroup, grid, push
/// constants, bindings).
fn pass_details(
    out: &mut String,
    compiler: &mut Compiler,
    (opt, show): (crate::scenario::OptLevel, bool),
    v: &Variant,
    pass: &crate::scenario::PassSpec,
    include_dirs: &[PathBuf],
) -> Option<crate::shader::reflect::Reflection> {
    let defs = |d: &[(String, String)]| {
        d.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let kind = SourceKind::of(&pass.shader);
    let mut defines = v.defines.clone();
    defines.extend(pass.defines.iter().cloned());
    let req = CompileRequest {
        path: pass.shader.clone(),
        defines,
        include_dirs: include_dirs.to_vec(),
        opt,
        entry_point: pass.entry.clone(),
        wrap_groups: false,
    };
    if !show {
        return compiler.compile(&req).ok().and_then(|w| reflect(&w).ok());
    }
    let refl = compiler
        .compile(&req)
        .map_err(|e| e.to_string())
        .and_then(|w| reflect(&w));
    let _ = writeln!(
        out,
        "      pass {}: {} ({}, entry {}){}{}",
        pass.name,
        pass.shader.display(),
        kind.label(),
        pass.entry,
        if pass.defines.is_empty() {
            String::new()
        } else {
            format!("  pass defines {}", defs(&pass.defines))
        },
        // A variant's own [[variants.dispatch]] differs from the scenario's: say so.
        if pass.key.first() == Some(&Seg::Key("variants".into())) {
            format!("  (the variant's own, {})", key_string(&pass.key))
        } else {
            String::new()
        }
    );
    let refl = match refl {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(out, "        does not compile: {}", first_line(&e));
            return None;
        }
    };
    compiled(out, v, pass, &refl);
    Some(refl)
}

/// What the compiled shader says of a pass: workgroup, grid, push constants, bindings.
fn compiled(
    out: &mut String,
    v: &Variant,
    pass: &crate::scenario::PassSpec,
    refl: &crate::shader::reflect::Reflection,
) {
    let declared = pass.workgroup.or(v.workgroup);
    let (wg, from) = match (declared, refl.local_size) {
        (Some(d), _) => (d, "declared"),
        (None, Some(l)) => (l, "the shader's"),
        (None, None) => {
            let _ = writeln!(out, "        no workgroup size declared or in the shader");
            return;
        }
    };
    match v.resolve_pass(pass, wg) {
        Ok(p) => {
            let _ = writeln!(
                out,
                "        workgroup {}x{}x{} ({from}), grid {}x{}x{} = {} invocations",
                wg[0],
                wg[1],
                wg[2],
                p.grid[0],
                p.grid[1],
                p.grid[2],
                p.invocations()
            );
            if let Some(block) = &pass.push_block {
                let _ = writeln!(
                    out,
                    "        push constants, typed ({} bytes; the shader's block: {} bytes):",
                    crate::scenario::block::size(block),
                    refl.push_constant_bytes
                );
                for m in block {
                    let value = match m.values.as_slice() {
                        [one] => one.clone(),
                        many => format!("[{}]", many.join(", ")),
                    };
                    let _ = writeln!(
                        out,
                        "          {}: {} @{} = {value}",
                        m.name,
                        m.ty.name(),
                        m.offset
                    );
                }
            } else {
                let words = p.push_constants.as_deref().unwrap_or(&[]);
                let _ = writeln!(
                    out,
                    "        push constants {words:?} ({} bytes; the shader's block: {} bytes)",
                    words.len() * 4,
                    refl.push_constant_bytes
                );
            }
        }
        Err(e) => {
            let _ = writeln!(out, "        grid: {e}");
        }
    }
    // Aliases (several blocks at one binding, as llama.cpp declares `data_a` and
    // `data_a_packed16`) are one descriptor: listed once, with every name.
    let mut seen: Vec<(u32, u32, crate::shader::DescriptorKind, Vec<&str>)> = Vec::new();
    for b in refl
        .bindings
        .iter()
        .filter(|b| b.set != crate::probe::PROBE_SET)
    {
        match seen
            .iter_mut()
            .find(|s| (s.0, s.1, s.2) == (b.set, b.binding, b.kind))
        {
            Some(s) => s.3.push(&b.name),
            None => seen.push((b.set, b.binding, b.kind, vec![&b.name])),
        }
    }
    let bindings: Vec<String> = seen
        .into_iter()
        .map(|(set, binding, kind, names)| {
            let kind = crate::measure::prepare::kind_name(kind);
            let names: Vec<String> = names
                .into_iter()
                .filter(|n| !n.is_empty())
                .map(|n| format!("`{n}`"))
                .collect();
            if names.is_empty() {
                format!("{set}.{binding} {kind}")
            } else {
                format!("{set}.{binding} {kind} {}", names.join(" / "))
            }
        })
        .collect();
    let _ = writeln!(out, "        shader bindings: {}", bindings.join("; "));
}

/// The variant's declared work, each key marked `*` where the variant gives it itself.
fn work(out: &mut String, v: &Variant) {
    let mut declared: Vec<String> = v
        .work
        .entries()
        .into_iter()
        .filter_map(|(key, value)| {
            let own = if v.work_own.contains(&key) { "*" } else { "" };
            Some(format!("{key}{own}={}", value?))
        })
        .collect();
    if let Some(unit) = &v.work.tensor_unit {
        let own = if v.work_own.contains(&"tensor_unit") {
            "*"
        } else {
            ""
        };
        declared.push(format!("tensor_unit{own}={unit}"));
    }
    // The texture peak `texels` count against, named or by default.
    if let Some(unit) = v.work.texels_unit() {
        let own = if v.work_own.contains(&"texture_unit") {
            "*"
        } else {
            ""
        };
        let default = if v.work.texture_unit.is_none() {
            " (default)"
        } else {
            ""
        };
        declared.push(format!("texture_unit{own}={unit}{default}"));
    }
    if declared.is_empty() {
        let _ = writeln!(out, "      work: none declared");
    } else if v.work_own.is_empty() {
        let _ = writeln!(out, "      work: {}", declared.join(" "));
    } else {
        let _ = writeln!(
            out,
            "      work: {}  (* the variant's own [variants.measure])",
            declared.join(" ")
        );
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}
