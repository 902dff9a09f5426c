//! `[check]` (outputs, tolerances, reference, baseline, where to compare), `requires` and
//! subgroup-size requests.
use super::*;

impl Loader<'_> {
    /// `[scenario] baseline`: a variant every case has (after the matrix is expanded), else an
    /// error naming the key and the variants there are.
    pub(super) fn summary_baseline(
        &self,
        raw: &RawScenario,
        cases: &[Case],
    ) -> Result<Option<String>, ScenarioError> {
        let Some(b) = &raw.scenario.baseline else {
            return Ok(None);
        };
        for case in cases {
            if !case.variants.iter().any(|v| &v.name == b) {
                let names: Vec<&str> = case.variants.iter().map(|v| v.name.as_str()).collect();
                let shown = if names.len() > 12 {
                    format!("{}, ... ({} in all)", names[..12].join(", "), names.len())
                } else {
                    names.join(", ")
                };
                return Err(self.err(
                    &path!["scenario", "baseline"],
                    format!("`{b}` is not a variant of this scenario; its variants: {shown}"),
                ));
            }
        }
        Ok(Some(b.clone()))
    }

    pub(super) fn check(
        &self,
        c: &RawCheck,
        params: &Vars,
        resources: &[Resource],
        variants: &[Variant],
    ) -> Result<Check, ScenarioError> {
        let outputs = match &c.outputs {
            Some(o) => o.clone(),
            None => resources
                .iter()
                .filter(|r| r.output)
                .map(|r| r.name.clone())
                .collect(),
        };
        if outputs.is_empty() {
            return Err(self.err(
                &path!["check"],
                "nothing to check: list `outputs` or mark a resource `output = true`",
            ));
        }
        for (i, o) in outputs.iter().enumerate() {
            if !resources.iter().any(|r| &r.name == o) {
                return Err(self.err(
                    &path!["check", "outputs", i],
                    format!("no resource named `{o}`"),
                ));
            }
        }
        let tolerance = |key: &str, n: &Option<Num>| -> Result<f64, ScenarioError> {
            let Some(n) = n else { return Ok(0.0) };
            let p = path!["check", key];
            let v = self.eval_f64(&p, n, params)?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(self.err(
                    &p,
                    format!("tolerances must be finite and non-negative, got {v}"),
                ));
            }
            Ok(v)
        };
        let (abs_tolerance, rel_tolerance) = (
            tolerance("tolerance", &c.tolerance)?,
            tolerance("rel_tolerance", &c.rel_tolerance)?,
        );
        let reference = match &c.reference {
            None => None,
            Some(r) => Some(self.reference(r, params, resources, &outputs)?),
        };
        let baseline = match &c.baseline {
            Some(b) => {
                if !variants.iter().any(|v| &v.name == b) {
                    return Err(self.err(
                        &path!["check", "baseline"],
                        format!("no variant named `{b}`"),
                    ));
                }
                Some(b.clone())
            }
            None if c.reference.is_some() => None,
            None => Some(variants[0].name.clone()),
        };
        let on = match c.on.as_deref() {
            None | Some("auto") => CheckOn::Auto,
            Some("gpu") => CheckOn::Gpu,
            Some("host") => CheckOn::Host,
            Some(o) => {
                return Err(self.err(
                    &path!["check", "on"],
                    format!("unknown `{o}` (use \"auto\", \"gpu\" or \"host\")"),
                ))
            }
        };
        Ok(Check {
            outputs,
            tolerance: abs_tolerance,
            rel_tolerance,
            reference,
            baseline,
            on,
        })
    }

    /// `requires`: feature names p3lab knows (crate::vk::context::KNOWN_FEATURES) or extension
    /// names (`VK_...`); anything else is a typo that would read as "the device lacks it".
    pub(super) fn requires(
        &self,
        p: &[Seg],
        list: &[String],
    ) -> Result<Vec<String>, ScenarioError> {
        for (i, name) in list.iter().enumerate() {
            if let Some(shape) = name.strip_prefix(crate::vk::context::COOPMAT_PREFIX) {
                if let Err(why) = coopmat_shape_ok(shape.trim()) {
                    let mut key = p.to_vec();
                    key.push(Seg::Index(i));
                    return Err(self.err(
                        &key,
                        format!("`{name}`: {why}; write e.g. `cooperative_matrix:f16*f16+f32=f32 16x16x16` (A*B+C=result types, then MxNxK; docs/scenarios.md#requires)"),
                    ));
                }
                continue;
            }
            let known = crate::vk::context::KNOWN_FEATURES.contains(&name.as_str());
            let extension = name.starts_with("VK_") && name.len() > 3;
            if !known && !extension {
                let mut key = p.to_vec();
                key.push(Seg::Index(i));
                let close: Vec<&str> = crate::vk::context::KNOWN_FEATURES
                    .iter()
                    .copied()
                    .filter(|k| k.contains(name.as_str()) || name.contains(*k))
                    .take(3)
                    .collect();
                let hint = if close.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (did you mean {}?)",
                        close
                            .iter()
                            .map(|c| format!("`{c}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                return Err(self.err(
                    &key,
                    format!("`{name}` is neither a device feature p3lab knows nor an extension name (VK_...){hint}; the feature names are listed in docs/scenarios.md#requires"),
                ));
            }
        }
        Ok(list.to_vec())
    }

    pub(super) fn subgroup(
        &self,
        p: &[Seg],
        v: &toml::Value,
    ) -> Result<SubgroupReq, ScenarioError> {
        match v {
            toml::Value::String(s) if s == "default" => Ok(SubgroupReq::Default),
            toml::Value::String(s) if s == "full" => Ok(SubgroupReq::Full),
            toml::Value::Integer(n) if *n > 0 && *n <= 1024 && !(*n as u32).is_power_of_two() => {
                Err(self.err(p, format!("subgroup size {n} is not a power of two (Vulkan subgroup sizes are 1, 2, 4, ... 128)")))
            }
            toml::Value::Integer(n) if *n > 0 && *n <= 1024 => Ok(SubgroupReq::Size(*n as u32)),
            // A lane count written as a string: say so, rather than list what is allowed.
            toml::Value::String(s) if s.trim().parse::<i64>().is_ok() => Err(self.err(
                p,
                format!("subgroup_size is the string {v}: write the lane count as an integer, without quotes (subgroup_size = {})", s.trim()),
            )),
            _ => Err(self.err(p, format!("subgroup_size must be \"default\", \"full\" or a lane count from 1 to 1024, got {v}"))),
        }
    }
}

/// The component-type names `cooperative_matrix:` requirements use
/// (crate::vk::info::component_type_name).
const COMPONENT_TYPES: &[&str] = &[
    "f16", "f32", "f64", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "bf16", "e4m3",
    "e5m2",
];

/// `A*B+C=R MxNxK` with known component types and sizes from 1 to 256.
fn coopmat_shape_ok(shape: &str) -> Result<(), String> {
    let (types, sizes) = shape
        .split_once(' ')
        .ok_or("the types and the sizes are separated by one space")?;
    let (ab, rest) = types.split_once('+').ok_or("no `+` between A*B and C")?;
    let (a, b) = ab.split_once('*').ok_or("no `*` between A and B")?;
    let (c, r) = rest
        .split_once('=')
        .ok_or("no `=` before the result type")?;
    for t in [a, b, c, r] {
        if !COMPONENT_TYPES.contains(&t) {
            return Err(format!(
                "`{t}` is not a component type (one of {})",
                COMPONENT_TYPES.join(", ")
            ));
        }
    }
    let dims: Vec<&str> = sizes.trim().split('x').collect();
    if dims.len() != 3
        || dims
            .iter()
            .any(|d| !d.parse::<u32>().is_ok_and(|v| (1..=256).contains(&v)))
    {
        return Err(format!("`{sizes}` is not MxNxK with sizes from 1 to 256"));
    }
    Ok(())
}
