//! Everything about a variant that can be decided without running it: compile and reflect its
//! shaders, settle workgroup sizes, grids, push constants and spec constants, and check them
//! against the scenario's resources and the device's limits.
//!
//! The same steps run twice: once for every variant before anything runs (`preflight`), where
//! a scenario mistake stops the run with exit 2 and the file, line and key to fix; and again for
//! each variant as it runs (from the in-memory SPIR-V cache), where they give its pipelines.
use crate::measure::failure::Failure;
use crate::measure::options::RunOptions;
use crate::probe::Clock;
pub use crate::probe::PROBE_SET;
use crate::results::RowStatus;
use crate::scenario::error::{Locator, ScenarioError, Seg};
use crate::scenario::{
    Case, ImageUsage, PassSpec, ResolvedPass, ResourceKind, Scenario, SubgroupReq, Variant,
};
use crate::shader::{
    reflect, CompileError, CompileRequest, Compiler, DescriptorKind, Reflection, SourceKind,
};
use crate::vk::pipeline::SubgroupMode;
use crate::vk::Context;
use std::sync::Arc;

mod bindings;
mod preflight;
mod subgroup;
use bindings::check_bindings;
pub use bindings::kind_name;
pub use preflight::preflight;
pub use subgroup::subgroup_mode;

/// The spec constants of glsl/common/p3lab.glsl that place a pass's subgroup records: its
/// first slot, and the slots per workgroup.
pub use crate::probe::{BASE_SPEC_ID as GROUP_BASE_SPEC_ID, SLOTS_SPEC_ID as GROUP_SLOTS_SPEC_ID};

/// A failure pointing at `key` in the scenario file.
fn fail(status: RowStatus, key: Option<&[Seg]>, reason: impl Into<String>) -> Failure {
    Failure::new(status, reason).at(key)
}

/// Each pass's SPIR-V and what reflection found in it.
pub type Compiled = Vec<(Arc<Vec<u32>>, Reflection)>;

/// A variant ready for pipelines: per pass, in order.
pub struct Prepared {
    /// Each pass's SPIR-V and its reflection.
    pub compiled: Compiled,
    /// Each pass's workgroup size that will run (declared, else the shader's `local_size`).
    pub workgroups: Vec<[u32; 3]>,
    /// Each pass's subgroup-size setting, from the variant's request.
    pub modes: Vec<SubgroupMode>,
    /// Each pass with its grid and push constants evaluated for that workgroup size.
    pub resolved: Vec<ResolvedPass>,
    /// Spec constants per pass: the workgroup size's, then the variant's, as the shader types them.
    pub specs: Vec<Vec<(u32, [u8; 4])>>,
    /// Probe record slots per workgroup, per pass (glsl/common/p3lab.glsl): one per subgroup
    /// at the device's smallest subgroup size.
    pub probe_slots: Vec<u32>,
    /// The variant's spec constants that the source declares but the optimized code does not
    /// use (the optimizer removed them): set, and changing nothing.
    pub unused_spec: Vec<u32>,
}

/// The clock of the per-subgroup probes when they are on for `case` (`--probe` or
/// `measure.probe`) and the device has a shader clock.
pub fn group_clock(ctx: &Context, opts: &RunOptions, case: &Case) -> Option<Clock> {
    if !(opts.probe || case.probe) {
        return None;
    }
    Clock::pick(
        ctx.feature("shader_device_clock"),
        ctx.feature("shader_subgroup_clock"),
    )
}

/// "pass `name`: " for multi-pass variants, nothing for single-pass ones.
pub fn pass_label(v: &Variant, pass: &PassSpec) -> String {
    if v.passes.len() > 1 {
        format!("pass `{}`: ", pass.name)
    } else {
        String::new()
    }
}

/// "PASS/" before a metric's name for multi-pass variants, nothing for single-pass ones.
pub fn pass_prefix(v: &Variant, i: usize) -> String {
    if v.passes.len() > 1 {
        format!("{}/", v.passes[i].name)
    } else {
        String::new()
    }
}

/// Compile and reflect every pass of `v`. The compile time goes to `compile_ns`.
pub fn compile_passes(
    ctx: &Context,
    compiler: &mut Compiler,
    opts: &RunOptions,
    at: (&Scenario, &Case, &Variant),
) -> Result<Compiled, Failure> {
    compile_passes_at(ctx, compiler, opts, at, at.0.opt)
}

/// [`compile_passes`] at optimization level `opt`.
fn compile_passes_at(
    ctx: &Context,
    compiler: &mut Compiler,
    opts: &RunOptions,
    (_, case, v): (&Scenario, &Case, &Variant),
    opt: crate::scenario::OptLevel,
) -> Result<Compiled, Failure> {
    let clock = group_clock(ctx, opts, case);
    let mut compiled = Vec::new();
    for pass in &v.passes {
        let mut defines = v.defines.clone();
        defines.extend(pass.defines.iter().cloned());
        defines.push(("P3_PROBE_SET".into(), PROBE_SET.to_string()));
        if let Some(c) = clock {
            defines.push(("P3_PROBE_GROUPS".into(), (c as u32).to_string()));
            if ctx.feature("shader_sm_builtins") {
                defines.push(("P3_HAVE_SM_BUILTINS".into(), "1".into()));
            }
        }
        let req = CompileRequest {
            path: pass.shader.clone(),
            defines: defines.clone(),
            include_dirs: opts.glsl_common.clone(),
            opt,
            entry_point: pass.entry.clone(),
            wrap_groups: clock.is_some(),
        };
        let spirv = compiler.compile(&req).map_err(|e| {
            // The scenario's defines; p3lab's own (P3_*) are the same for every variant.
            let defs = defines
                .iter()
                .filter(|(k, _)| !k.starts_with("P3_"))
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            let msg = match &e {
                CompileError::Glsl { .. } | CompileError::Io { .. } => e.to_string(),
            };
            fail(
                RowStatus::CompileError,
                Some(&pass.shader_key),
                if defs.is_empty() {
                    msg
                } else {
                    format!("{msg} (defines: {defs})")
                },
            )
        })?;
        let mut refl = reflect(&spirv).map_err(|e| {
            fail(
                RowStatus::Error,
                Some(&pass.shader_key),
                format!("{}: SPIR-V reflection failed: {e}", pass.shader.display()),
            )
        })?;
        // The pipeline names the entry point as the module spells it: `main` for GLSL, the
        // asked-for one of a SPIR-V file's, and whatever shaderc named the HLSL function.
        if refl.entry_points.iter().any(|e| e == &pass.entry) {
            refl.entry_point = pass.entry.clone();
        } else if !(SourceKind::of(&pass.shader).is_source() && refl.entry_points.len() == 1) {
            return Err(fail(
                RowStatus::Error,
                Some(&pass.shader_key),
                format!(
                    "{}: no compute entry point `{}` (the module has: {})",
                    pass.shader.display(),
                    pass.entry,
                    if refl.entry_points.is_empty() {
                        "none".to_string()
                    } else {
                        refl.entry_points.join(", ")
                    }
                ),
            ));
        }
        compiled.push((spirv, refl));
    }
    Ok(compiled)
}

/// Steps 1-5 of a variant: compile, then everything the shader, the scenario and the device
/// must agree on before a pipeline is made.
pub fn prepare(
    ctx: &Context,
    compiler: &mut Compiler,
    opts: &RunOptions,
    (sc, case, v): (&Scenario, &Case, &Variant),
) -> Result<Prepared, Failure> {
    let info = &ctx.info;
    let compiled = compile_passes(ctx, compiler, opts, (sc, case, v))?;
    let vkey = Some(v.key.as_slice());

    // Workgroup size per pass: declared, else the shader's own.
    let mut workgroups = Vec::new();
    for (pass, (_, refl)) in v.passes.iter().zip(&compiled) {
        let declared = pass.workgroup.or(v.workgroup);
        let wg_key = pass
            .workgroup_key
            .as_ref()
            .or(v.workgroup_key.as_ref())
            .map(|k| k.as_slice());
        let from_spec = refl.local_size_spec_ids.iter().any(|s| s.is_some());
        let wg = match (declared, refl.local_size) {
            (Some(d), Some(lit)) if !from_spec && d != lit => {
                return Err(fail(RowStatus::Error, wg_key,
                    format!(
                        "{}: the shader fixes local_size {:?} but the variant declares workgroup {:?}; use `layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;` to let p3lab set it",
                        pass.shader.display(),
                        lit,
                        d
                    ),
                ));
            }
            (Some(d), _) => d,
            (None, Some(lit)) => lit,
            (None, None) => {
                return Err(fail(
                    RowStatus::Error,
                    Some(&pass.shader_key),
                    format!(
                        "{}: no workgroup size declared or found in the shader",
                        pass.shader.display()
                    ),
                ))
            }
        };
        if from_spec {
            for (axis, id) in refl.local_size_spec_ids.iter().enumerate() {
                if id.is_none() && wg[axis] != refl.local_size.map(|l| l[axis]).unwrap_or(1) {
                    return Err(fail(RowStatus::Error, wg_key,
                        format!(
                            "{}: workgroup {:?} sets axis {axis}, but the shader has no local_size_{}_id for it",
                            pass.shader.display(),
                            wg,
                            ["x", "y", "z"][axis]
                        ),
                    ));
                }
            }
        }
        workgroups.push(wg);
    }

    // Typed push blocks and uniform buffers are checked by member name too, but optimized SPIR-V keeps no names:
    // the members as the unoptimized module has them (same layout, with names), when needed.
    let nameless = v.passes.iter().zip(&compiled).any(|(p, (_, r))| {
        (p.push_block.is_some() && r.push_members.iter().all(|m| m.name.is_empty()))
            || r.bindings.iter().any(|b| {
                b.kind == DescriptorKind::UniformBuffer
                    && b.members.iter().all(|m| m.name.is_empty())
            })
    });
    let named = (nameless
        && sc.opt != crate::scenario::OptLevel::Zero
        && v.passes
            .iter()
            .all(|p| SourceKind::of(&p.shader).is_source()))
    .then(|| {
        compile_passes_at(
            ctx,
            compiler,
            opts,
            (sc, case, v),
            crate::scenario::OptLevel::Zero,
        )
        .ok()
    })
    .flatten();
    // Grids, push constants and bindings against the shader: mistakes in the scenario.
    let mut resolved = Vec::new();
    for (i, pass) in v.passes.iter().enumerate() {
        let r = v
            .resolve_pass(pass, workgroups[i])
            .map_err(|e| fail(RowStatus::Error, vkey, e))?;
        check_bindings(case, pass, &compiled[i].1, named.as_ref().map(|c| &c[i].1))?;
        if let Some(block) = &pass.push_block {
            // A typed block: member by member against the shader's (type and offset).
            let theirs = match &named {
                Some(c) if c[i].1.push_members.len() == compiled[i].1.push_members.len() => {
                    &c[i].1.push_members
                }
                _ => &compiled[i].1.push_members,
            };
            // As with words: scenario-wide push constants may go to a multi-pass scenario whose
            // other shaders take none; a shader without a block gets none pushed.
            if theirs.is_empty() {
                resolved.push(r);
                continue;
            }
            crate::scenario::block::check(block, theirs).map_err(|(at, why)| {
                let key = at
                    .map(|i| block[i].key.as_slice())
                    .or(pass.push_key.as_deref());
                fail(
                    RowStatus::Error,
                    key,
                    format!(
                        "{}{}: push-constant block: {why}",
                        pass_label(v, pass),
                        pass.shader.display()
                    ),
                )
            })?;
            resolved.push(r);
            continue;
        }
        let want = compiled[i].1.push_constant_bytes;
        let given = r
            .push_constants
            .as_ref()
            .map(|p| p.len() as u32 * 4)
            .unwrap_or(0);
        // Scenario-wide push constants may go to a multi-pass scenario whose other shaders
        // take none: a shader without a block simply gets none pushed.
        if want != given && want != 0 {
            return Err(fail(RowStatus::Error, pass.push_key.as_deref().or(Some(&pass.shader_key)),
                format!(
                    "{}the shader's push-constant block is {want} bytes but the scenario gives {given} ({} words)",
                    pass_label(v, pass),
                    given / 4
                ),
            ));
        }
        resolved.push(r);
    }

    // Spec constants: the workgroup size, then the variant's own, typed as the shader declares.
    let spec_key = |id: u32| {
        let mut k = v.key.clone();
        k.push(Seg::Key("spec".into()));
        k.push(Seg::Key(id.to_string()));
        k
    };
    let mut specs: Vec<Vec<(u32, [u8; 4])>> = Vec::new();
    for (i, (_, refl)) in compiled.iter().enumerate() {
        let mut s: Vec<(u32, [u8; 4])> = Vec::new();
        for (axis, id) in refl.local_size_spec_ids.iter().enumerate() {
            if let Some(id) = id {
                s.push((*id, workgroups[i][axis].to_le_bytes()));
            }
        }
        for (id, val) in &v.spec {
            if refl.local_size_spec_ids.contains(&Some(*id)) {
                return Err(fail(RowStatus::Error, Some(&spec_key(*id)),
                    format!("spec constant {id} is the shader's workgroup size: set it with `workgroup`, not `spec`, so grids and invocation counts follow"),
                ));
            }
            if let Some((_, ty)) = refl.spec_constants.iter().find(|(sid, _)| sid == id) {
                let bytes = match ty.as_str() {
                    "f32" => (*val as f32).to_le_bytes(),
                    "i32" => (*val as i32).to_le_bytes(),
                    "bool" => u32::from(*val != 0.0).to_le_bytes(),
                    _ => (*val as u32).to_le_bytes(),
                };
                s.retain(|(sid, _)| sid != id);
                s.push((*id, bytes));
            }
        }
        specs.push(s);
    }
    // The probe's record slots per pass (glsl/common/p3lab.glsl): one per subgroup at the
    // smallest subgroup size, after the earlier passes' records.
    let probe_slots: Vec<u32> = workgroups
        .iter()
        .map(|wg| crate::probe::slots_per_group(*wg, info.subgroup_size_min))
        .collect();
    let mut base: u64 = 0;
    for (i, (_, refl)) in compiled.iter().enumerate() {
        let declares = |id: u32| refl.spec_constants.iter().any(|(sid, _)| *sid == id);
        if declares(GROUP_BASE_SPEC_ID) {
            specs[i].push((GROUP_BASE_SPEC_ID, (base as u32).to_le_bytes()));
        }
        if declares(GROUP_SLOTS_SPEC_ID) {
            specs[i].push((GROUP_SLOTS_SPEC_ID, probe_slots[i].to_le_bytes()));
        }
        let g = resolved[i].grid;
        base += g[0] as u64 * g[1] as u64 * g[2] as u64 * probe_slots[i] as u64;
    }
    let declared_in = |c: &Compiled, id: u32| {
        c.iter()
            .any(|(_, r)| r.spec_constants.iter().any(|(sid, _)| *sid == id))
    };
    let mut unused_spec = Vec::new();
    let undeclared: Vec<u32> = v
        .spec
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| !declared_in(&compiled, *id))
        .collect();
    if !undeclared.is_empty() {
        // What the source declares counts, not what the optimizer kept (issue 40: a
        // project passes its whole list, and a constant the code does not use is removed):
        // the shaders compiled without optimization say whether the source declares it.
        let sources = v
            .passes
            .iter()
            .all(|p| SourceKind::of(&p.shader).is_source());
        let plain = (sources && sc.opt != crate::scenario::OptLevel::Zero)
            .then(|| {
                compile_passes_at(
                    ctx,
                    compiler,
                    opts,
                    (sc, case, v),
                    crate::scenario::OptLevel::Zero,
                )
                .ok()
            })
            .flatten();
        for id in undeclared {
            if plain.as_ref().is_some_and(|c| declared_in(c, id)) {
                tracing::info!(
                    "{} / {}: spec constant {id} is declared but unused by the compiled code (the optimizer removed it): its value changes nothing",
                    sc.name,
                    v.name
                );
            } else if let Some((file, line)) = v
                .passes
                .iter()
                .filter(|p| SourceKind::of(&p.shader).is_source())
                .find_map(|p| crate::shader::spec_text::declared_in_text(&p.shader, id))
            {
                // Declared in a preprocessor branch these defines leave out (llama.cpp's BK):
                // Vulkan ignores the entry, and so does the pipeline.
                tracing::info!(
                    "{} / {}: spec constant {id} is declared at {}:{line} in a preprocessor branch these defines leave out: its value changes nothing",
                    sc.name,
                    v.name,
                    file.display()
                );
            } else {
                return Err(fail(
                    RowStatus::Error,
                    Some(&spec_key(id)),
                    format!("spec constant {id} is not declared by any of the variant's shaders"),
                ));
            }
            unused_spec.push(id);
        }
    }

    // Cold mode's eviction buffer past what the device can hold is a mistake in the file,
    // refused naming the key (issue 40: 4 PiB ran, silently capped).
    if info.device_local_bytes > 0 && case.cold_bytes > info.device_local_bytes {
        return Err(fail(
            RowStatus::Error,
            Some(&[Seg::Key("measure".into()), Seg::Key("cold_bytes".into())]),
            format!(
                "cold_bytes is {} bytes, more than this device can allocate (its largest device-local heap holds {} bytes); the L2 needs a buffer a few times its size",
                case.cold_bytes, info.device_local_bytes
            ),
        ));
    }
    let missing: Vec<&String> = v.requires.iter().filter(|r| !ctx.meets(r)).collect();
    if !missing.is_empty() {
        let mut key = v.key.clone();
        key.push(Seg::Key("requires".into()));
        return Err(fail(
            RowStatus::Unsupported,
            Some(&key),
            format!(
                "the variant requires {}, which this device lacks{}",
                missing
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                coopmat_offer(ctx, &missing)
            ),
        ));
    }

    // The device's limits: anything beyond them is "unsupported", with the reason.
    for (i, (wg, pass)) in workgroups.iter().zip(&v.passes).enumerate() {
        let wg_key = pass
            .workgroup_key
            .as_ref()
            .or(v.workgroup_key.as_ref())
            .map(|k| k.as_slice())
            .or(Some(&pass.shader_key));
        let label = pass_label(v, pass);
        let inv = wg[0] as u64 * wg[1] as u64 * wg[2] as u64;
        if inv > info.max_compute_workgroup_invocations as u64 {
            return Err(fail(RowStatus::Unsupported, wg_key,
                format!(
                    "{label}workgroup {wg:?} has {inv} invocations, over maxComputeWorkGroupInvocations ({})",
                    info.max_compute_workgroup_invocations
                ),
            ));
        }
        for a in 0..3 {
            if wg[a] > info.max_compute_workgroup_size[a] {
                return Err(fail(
                    RowStatus::Unsupported,
                    wg_key,
                    format!(
                        "{label}workgroup {wg:?} is over maxComputeWorkGroupSize {:?}",
                        info.max_compute_workgroup_size
                    ),
                ));
            }
        }
        let refl = &compiled[i].1;
        let spec = |id: u32| shared_spec_value(refl, v, *wg, id);
        let max = info.max_compute_shared_memory_bytes;
        if let Some(bytes) = refl.shared_bytes_with(&spec).filter(|b| *b > max as u64) {
            return Err(fail(RowStatus::Unsupported, Some(&pass.shader_key),
                format!(
                    "{label}{}: {bytes} bytes of shared memory, over maxComputeSharedMemorySize ({max})",
                    pass.shader.display()
                ),
            ));
        }
        let r = &resolved[i];
        for a in 0..3 {
            if r.grid[a] > info.max_compute_workgroup_count[a] {
                return Err(fail(
                    RowStatus::Unsupported,
                    vkey,
                    format!(
                        "{label}grid {:?} is over maxComputeWorkGroupCount {:?}",
                        r.grid, info.max_compute_workgroup_count
                    ),
                ));
            }
        }
        let want = refl.push_constant_bytes;
        if want > info.max_push_constants_bytes {
            return Err(fail(
                RowStatus::Unsupported,
                Some(&pass.shader_key),
                format!("{label}{want} bytes of push constants, over maxPushConstantsSize"),
            ));
        }
    }
    let mut modes = Vec::new();
    for (wg, pass) in workgroups.iter().zip(&v.passes) {
        let sg_key = match v.subgroup {
            SubgroupReq::Default => None,
            _ => Some(v.key.clone()),
        };
        modes.push(subgroup_mode(info, v.subgroup, *wg).map_err(|r| {
            fail(
                RowStatus::Unsupported,
                sg_key.as_deref(),
                format!("{}{r}", pass_label(v, pass)),
            )
        })?);
    }
    Ok(Prepared {
        compiled,
        workgroups,
        modes,
        resolved,
        specs,
        probe_slots,
        unused_spec,
    })
}

/// A spec constant's value as the pipeline will get it, for sizing `shared` arrays: the
/// workgroup size, else the variant's `spec`, else `None` (the shader's default).
fn shared_spec_value(refl: &Reflection, v: &Variant, wg: [u32; 3], id: u32) -> Option<i64> {
    if let Some(axis) = refl.local_size_spec_ids.iter().position(|s| *s == Some(id)) {
        return Some(wg[axis] as i64);
    }
    let (_, val) = v.spec.iter().find(|(sid, _)| *sid == id)?;
    let ty = refl.spec_constants.iter().find(|(sid, _)| *sid == id)?;
    match ty.1.as_str() {
        "i32" => Some(*val as i32 as i64),
        "bool" => Some(i64::from(*val != 0.0)),
        "f32" => None,
        _ => Some(*val as u32 as i64),
    }
}

/// Where a missing requirement is a cooperative-matrix shape: what the device offers instead.
fn coopmat_offer(ctx: &Context, missing: &[&String]) -> String {
    use crate::vk::context::COOPMAT_PREFIX;
    if !missing.iter().any(|m| m.starts_with(COOPMAT_PREFIX)) {
        return String::new();
    }
    if !ctx.feature("cooperative_matrix") {
        return " (no VK_KHR_cooperative_matrix with its cooperativeMatrix feature)".into();
    }
    let offered: Vec<String> = ctx
        .info
        .cooperative_matrix
        .iter()
        .filter(|c| c.scope == "subgroup")
        .map(|c| c.label())
        .collect();
    format!(" (it reports: {})", offered.join(", "))
}
