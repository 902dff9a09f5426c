//! Every binding a shader uses must be a resource of the scenario, of a matching kind.
use super::*;

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

/// Every binding the shader uses must be a resource of a matching kind.
pub(super) fn check_bindings(
    case: &Case,
    pass: &PassSpec,
    refl: &Reflection,
) -> Result<(), Failure> {
    for b in &refl.bindings {
        if b.set == PROBE_SET {
            continue;
        }
        let name = if b.name.is_empty() {
            String::new()
        } else {
            format!(" (`{}`)", b.name)
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
                    "{}: the shader uses a {} at set {} binding {}{name}, but no resource is bound there{}",
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
                    "{}: set {} binding {}{name} is a {} in the shader, but resource `{}` is a {}",
                    pass.shader.display(),
                    b.set,
                    b.binding,
                    kind_name(b.kind),
                    r.name,
                    match r.kind {
                        ResourceKind::Buffer { .. } => "buffer",
                        ResourceKind::Image {
                            usage: ImageUsage::Storage,
                            ..
                        } => "storage image",
                        ResourceKind::Image { .. } => "sampled image",
                    }
                ),
            ));
        }
    }
    Ok(())
}
