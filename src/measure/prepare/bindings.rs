//! Every binding a shader uses must be a resource of the scenario, of a matching kind.
use super::*;
use crate::scenario::Init;

/// " (set N has `a` at binding 0, ...)", or " (set N has no resources)".
fn bound_in_set(case: &Case, set: u32) -> String {
    let there: Vec<String> = case
        .resources
        .iter()
        .filter(|r| r.set == set)
        .map(|r| format!("`{}` at binding {}", r.name, r.binding))
        .collect();
    if there.is_empty() {
        format!(" (set {set} has no resources)")
    } else {
        format!(" (set {set} has {})", there.join(", "))
    }
}

/// How messages name a descriptor kind: "storage buffer", "sampled image (combined image sampler)",
/// ...; also the kind shown by `p3lab details`.
pub fn kind_name(k: DescriptorKind) -> &'static str {
    match k {
        DescriptorKind::StorageBuffer => "storage buffer",
        DescriptorKind::UniformBuffer => "uniform buffer",
        DescriptorKind::StorageImage => "storage image",
        DescriptorKind::CombinedImageSampler => "sampled image (combined image sampler)",
        DescriptorKind::SampledImage => "separate sampled image",
        DescriptorKind::Sampler => "sampler",
        DescriptorKind::Other => "descriptor of another kind",
    }
}

/// How to bind a uniform buffer (a `type = "uniform"` resource with typed `members`), or do
/// without one, in the shader's language.
fn no_uniform_buffers(pass: &PassSpec) -> &'static str {
    if SourceKind::of(&pass.shader) == SourceKind::Hlsl {
        "; a `cbuffer` (or the globals outside one, which HLSL gathers into `$Global` at \
         binding 0) is bound to a resource of `type = \"uniform\"` whose `members` give its \
         fields as the shader declares them; or pass scalars as push constants \
         (`[[vk::push_constant]] ConstantBuffer<P> pc;` and `push_constants = [...]` in the \
         scenario)"
    } else {
        "; a `uniform` block is bound to a resource of `type = \"uniform\"` whose `members` \
         give its fields as the shader declares them; or pass scalars as push constants \
         (`layout(push_constant) uniform P { ... } pc;` and `push_constants = [...]` in the \
         scenario)"
    }
}

/// Two of the shader's resources at one set and binding, of different kinds (HLSL's `b0`,
/// `t0` and `u0` registers all map to binding 0): no descriptor serves both, and the
/// comparison with the scenario's resource below would name only one of them.
fn shared_binding(case: &Case, pass: &PassSpec, refl: &Reflection) -> Result<(), Failure> {
    let shown = |b: &crate::shader::Binding| {
        if b.name.is_empty() {
            kind_name(b.kind).to_string()
        } else {
            format!("{} (`{}`)", kind_name(b.kind), b.name)
        }
    };
    for (i, a) in refl.bindings.iter().enumerate() {
        let Some(b) = refl.bindings[i + 1..]
            .iter()
            .find(|b| (b.set, b.binding) == (a.set, a.binding) && b.kind != a.kind)
        else {
            continue;
        };
        if a.set == PROBE_SET {
            continue;
        }
        let key = case
            .resources
            .iter()
            .find(|r| r.set == a.set && r.binding == a.binding)
            .map(|r| {
                let mut k = r.key.clone();
                k.push(Seg::Key("binding".into()));
                k
            })
            .unwrap_or_else(|| pass.shader_key.clone());
        let hlsl = if SourceKind::of(&pass.shader) == SourceKind::Hlsl {
            ": HLSL's register(bN), register(tN) and register(uN) all map to binding N, so give \
             each resource its own N, or its place with [[vk::binding(N, M)]]"
        } else {
            ""
        };
        let uniform = if [a.kind, b.kind].contains(&DescriptorKind::UniformBuffer) {
            no_uniform_buffers(pass)
        } else {
            ""
        };
        return Err(fail(
            RowStatus::Error,
            Some(&key),
            format!(
                "{}: the shader declares both a {} and a {} at set {} binding {}, where Vulkan binds one descriptor{hlsl}{uniform}",
                pass.shader.display(),
                shown(a),
                shown(b),
                a.set,
                a.binding,
            ),
        ));
    }
    Ok(())
}

/// Every binding the shader uses must be a resource of a matching kind, and a uniform buffer's
/// typed members must match the shader's block (with the member names of `named`, the module
/// compiled without optimization, where the optimized one keeps none).
pub(super) fn check_bindings(
    case: &Case,
    pass: &PassSpec,
    refl: &Reflection,
    named: Option<&Reflection>,
) -> Result<(), Failure> {
    shared_binding(case, pass, refl)?;
    for b in &refl.bindings {
        if b.set == PROBE_SET {
            continue;
        }
        let name = if b.name.is_empty() {
            String::new()
        } else {
            format!(" (`{}`)", b.name)
        };
        let uniform = if b.kind == DescriptorKind::UniformBuffer {
            no_uniform_buffers(pass)
        } else {
            ""
        };
        let Some(r) = case
            .resources
            .iter()
            .find(|r| r.set == b.set && r.binding == b.binding)
        else {
            // Point at a resource of that set, if any, else at the shader.
            let key = case
                .resources
                .iter()
                .find(|r| r.set == b.set)
                .map(|r| {
                    let mut k = r.key.clone();
                    k.push(Seg::Key("binding".into()));
                    k
                })
                .unwrap_or_else(|| pass.shader_key.clone());
            return Err(fail(RowStatus::Error, Some(&key),
                format!(
                    "{}: the shader uses a {} at set {} binding {}{name}, but no resource is bound there{}{uniform}",
                    pass.shader.display(),
                    kind_name(b.kind),
                    b.set,
                    b.binding,
                    bound_in_set(case, b.set)
                ),
            ));
        };
        let ok = matches!(
            (b.kind, &r.kind),
            (DescriptorKind::StorageBuffer, ResourceKind::Buffer { .. })
                | (DescriptorKind::UniformBuffer, ResourceKind::Uniform { .. })
                | (
                    DescriptorKind::StorageImage,
                    ResourceKind::Image {
                        usage: ImageUsage::Storage,
                        ..
                    }
                )
                | (
                    DescriptorKind::CombinedImageSampler,
                    ResourceKind::Image {
                        usage: ImageUsage::Sampled,
                        ..
                    }
                )
        );
        if !ok {
            let mut key = r.key.clone();
            key.push(Seg::Key("type".into()));
            return Err(fail(
                RowStatus::Error,
                Some(&key),
                format!(
                    "{}: set {} binding {}{name} is a {} in the shader, but resource `{}` is a {}{uniform}",
                    pass.shader.display(),
                    b.set,
                    b.binding,
                    kind_name(b.kind),
                    r.name,
                    match r.kind {
                        ResourceKind::Buffer { .. } => "buffer",
                        ResourceKind::Uniform { .. } => "uniform buffer",
                        ResourceKind::Image {
                            usage: ImageUsage::Storage,
                            ..
                        } => "storage image",
                        ResourceKind::Image { .. } => "sampled image",
                    }
                ),
            ));
        }
        if let Init::Typed { members, .. } = &r.init {
            let theirs = named
                .and_then(|n| {
                    n.bindings
                        .iter()
                        .find(|x| (x.set, x.binding) == (b.set, b.binding))
                })
                .filter(|x| x.members.len() == b.members.len())
                .map_or(&b.members, |x| &x.members);
            crate::scenario::block::check(members, theirs).map_err(|(at, why)| {
                let key = match at {
                    Some(i) => members[i].key.clone(),
                    None => r.key.clone(),
                };
                fail(
                    RowStatus::Error,
                    Some(&key),
                    format!(
                        "{}: uniform buffer `{}` at set {} binding {}: {why}",
                        pass.shader.display(),
                        r.name,
                        b.set,
                        b.binding
                    ),
                )
            })?;
        }
    }
    Ok(())
}
