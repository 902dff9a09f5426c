//! `[variants.resources.NAME]`: a variant's own form of an input buffer (element type, size,
//! contents) at the resource's set and binding, so that f32 and f16 forms of one binding are
//! variants of one case (compared round by round, `--pair` between them).
use super::*;

impl Loader<'_> {
    /// The variant's overrides as complete resources, in name order; each names an input
    /// buffer of the case (not an output: every variant's outputs are checked alike).
    pub(super) fn overrides(
        &self,
        (raw, resources): (&RawScenario, &[Resource]),
        vi: usize,
        rv: &RawVariant,
        (vars, strings): (&Vars, &BTreeMap<String, String>),
    ) -> Result<Vec<Resource>, ScenarioError> {
        let mut out = Vec::new();
        for (name, o) in &rv.resources {
            let p = path!["variants", vi, "resources", name.as_str()];
            let base = resources.iter().find(|r| &r.name == name).ok_or_else(|| {
                let known: Vec<&str> = resources.iter().map(|r| r.name.as_str()).collect();
                self.err(
                    &p,
                    format!(
                        "no resource is named `{name}`; the scenario's: {}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                )
            })?;
            let checked = raw
                .check
                .as_ref()
                .and_then(|c| c.outputs.as_ref())
                .is_some_and(|o| o.contains(name));
            if base.output || checked {
                return Err(self.err(
                    &p,
                    format!("`{name}` is an output: its form is the same in every variant, so that the check compares like with like (give the variants their own input buffers instead)"),
                ));
            }
            let (base_elem, base_bytes) = match &base.kind {
                ResourceKind::Buffer { element, bytes } => (*element, *bytes),
                _ => {
                    return Err(self.err(
                        &p,
                        format!("`{name}` is not a buffer: only buffers take a variant's own element type, size and contents"),
                    ))
                }
            };
            let element = match &o.element {
                None => base_elem,
                Some(e) => {
                    let ep = at(&p, "element");
                    let e = template(e, vars, strings).map_err(|m| self.err(&ep, m))?;
                    Elem::parse(&e).ok_or_else(|| {
                        self.err(
                            &ep,
                            format!("unknown element type `{e}` (use f32, u32, i32, f16 or u8)"),
                        )
                    })?
                }
            };
            let bytes = match (&o.count, &o.size_bytes) {
                (Some(c), None) => self.eval_u64(&at(&p, "count"), c, vars)? * element.bytes(),
                (None, Some(s)) => self.eval_u64(&at(&p, "size_bytes"), s, vars)?,
                (None, None) => base_bytes / base_elem.bytes() * element.bytes(),
                (Some(_), Some(_)) => {
                    return Err(self.err(
                        &at(&p, "size_bytes"),
                        "give `count` or `size_bytes`, not both",
                    ))
                }
            };
            if bytes == 0 {
                return Err(self.err(&p, "a buffer cannot be empty"));
            }
            let kind = ResourceKind::Buffer { element, bytes };
            let init = match &o.init {
                Some(toml::Value::Table(t)) if t.contains_key("file") => {
                    self.init_file(&at(&p, "init"), t, &kind, vars)?
                }
                Some(v) => self.init(&at(&p, "init"), v)?,
                None if kind != base.kind && matches!(base.init, Init::File { .. }) => {
                    return Err(self.err(
                        &p,
                        format!("`{name}` starts from a file of its own form: give this variant's form its `init`"),
                    ))
                }
                None => base.init.clone(),
            };
            out.push(Resource {
                name: name.clone(),
                set: base.set,
                binding: base.binding,
                index: base.index,
                kind,
                init,
                output: false,
                key: p,
            });
        }
        Ok(out)
    }
}
