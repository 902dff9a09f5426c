//! `[[resources]]`: buffers and images, their sizes, and how they start (`init`).
use super::*;

impl Loader<'_> {
    pub(super) fn resource(
        &self,
        i: usize,
        r: &RawResource,
        vars: &Vars,
    ) -> Result<Resource, ScenarioError> {
        let p = |k: &str| path!["resources", i, k];
        check_ident(&r.name).map_err(|m| self.err(&p("name"), m))?;
        let forbid = |key: &str, present: bool, kind: &str| -> Result<(), ScenarioError> {
            if present {
                Err(self.err(&p(key), format!("`{key}` does not apply to {kind}")))
            } else {
                Ok(())
            }
        };
        if r.set == crate::probe::PROBE_SET {
            return Err(self.err(
                &p("set"),
                format!("set {} is reserved for p3lab's probe (glsl/common/p3lab.glsl); use sets 0 to 2", r.set),
            ));
        }
        let kind = match r.kind.as_str() {
            "buffer" => {
                forbid("format", r.format.is_some(), "a buffer")?;
                forbid("width", r.width.is_some(), "a buffer")?;
                forbid("height", r.height.is_some(), "a buffer")?;
                forbid("usage", r.usage.is_some(), "a buffer")?;
                forbid("filter", r.filter.is_some(), "a buffer")?;
                let element = match &r.element {
                    None => Elem::U32,
                    Some(e) => Elem::parse(e).ok_or_else(|| {
                        self.err(
                            &p("element"),
                            format!("unknown element type `{e}` (use f32, u32, i32, f16 or u8)"),
                        )
                    })?,
                };
                let bytes = match (&r.count, &r.size_bytes) {
                    (Some(c), None) => self.eval_u64(&p("count"), c, vars)? * element.bytes(),
                    (None, Some(s)) => self.eval_u64(&p("size_bytes"), s, vars)?,
                    (Some(_), Some(_)) => {
                        return Err(
                            self.err(&p("size_bytes"), "give `count` or `size_bytes`, not both")
                        )
                    }
                    (None, None) => {
                        return Err(self.err(
                            &p("count"),
                            "a buffer needs `count` (elements) or `size_bytes`",
                        ))
                    }
                };
                if bytes == 0 {
                    return Err(self.err(
                        &p(if r.count.is_some() {
                            "count"
                        } else {
                            "size_bytes"
                        }),
                        "a buffer cannot be empty",
                    ));
                }
                ResourceKind::Buffer { element, bytes }
            }
            "image" => {
                forbid("count", r.count.is_some(), "an image")?;
                forbid("size_bytes", r.size_bytes.is_some(), "an image")?;
                forbid(
                    "element",
                    r.element.is_some(),
                    "an image (its format sets the element)",
                )?;
                let fmt_s = r
                    .format
                    .as_deref()
                    .ok_or_else(|| self.err(&p("format"), "an image needs a `format`"))?;
                let format = ImageFormat::parse(fmt_s).ok_or_else(|| {
                    self.err(&p("format"), format!("unknown image format `{fmt_s}` (use rgba32f, rgba16f, r32f, rgba8 or r32ui)"))
                })?;
                let width = match &r.width {
                    Some(w) => self.eval_u32(&p("width"), w, vars)?,
                    None => return Err(self.err(&p("width"), "an image needs a `width`")),
                };
                let height = match &r.height {
                    Some(h) => self.eval_u32(&p("height"), h, vars)?,
                    None => return Err(self.err(&p("height"), "an image needs a `height`")),
                };
                for (key, v) in [("width", width), ("height", height)] {
                    if v == 0 {
                        return Err(self.err(&p(key), "an image cannot be empty"));
                    }
                }
                let usage = match r.usage.as_deref().unwrap_or("storage") {
                    "storage" => ImageUsage::Storage,
                    "sampled" => ImageUsage::Sampled,
                    u => {
                        return Err(self.err(
                            &p("usage"),
                            format!("unknown usage `{u}` (use storage or sampled)"),
                        ))
                    }
                };
                let linear = match r.filter.as_deref().unwrap_or("nearest") {
                    "nearest" => false,
                    "linear" => true,
                    f => {
                        return Err(self.err(
                            &p("filter"),
                            format!("unknown filter `{f}` (use nearest or linear)"),
                        ))
                    }
                };
                if r.filter.is_some() && usage == ImageUsage::Storage {
                    return Err(self.err(&p("filter"), "`filter` applies to sampled images only"));
                }
                ResourceKind::Image {
                    format,
                    width,
                    height,
                    usage,
                    linear,
                }
            }
            "uniform" => return self.uniform(i, r, vars),
            other => {
                return Err(self.err(
                    &p("type"),
                    format!("unknown resource type `{other}` (use buffer, image or uniform)"),
                ))
            }
        };
        if r.members.is_some() {
            return Err(self.err(
                &p("members"),
                "`members` applies to uniform buffers only (`type = \"uniform\"`)",
            ));
        }
        let init = match &r.init {
            None => Init::Zero,
            Some(toml::Value::Table(t)) if t.contains_key("file") => {
                self.init_file(&p("init"), t, &kind, vars)?
            }
            Some(v) => self.init(&p("init"), v)?,
        };
        Ok(Resource {
            name: r.name.clone(),
            set: r.set,
            binding: r.binding,
            index: r.index,
            kind,
            init,
            output: r.output,
            key: path!["resources", i],
        })
    }

    /// A `type = "uniform"` resource: its typed `members` laid out and encoded with the case's
    /// params; every key of the other kinds refused.
    fn uniform(&self, i: usize, r: &RawResource, vars: &Vars) -> Result<Resource, ScenarioError> {
        let p = |k: &str| path!["resources", i, k];
        for (key, present) in [
            ("element", r.element.is_some()),
            ("count", r.count.is_some()),
            ("size_bytes", r.size_bytes.is_some()),
            ("format", r.format.is_some()),
            ("width", r.width.is_some()),
            ("height", r.height.is_some()),
            ("usage", r.usage.is_some()),
            ("filter", r.filter.is_some()),
            ("init", r.init.is_some()),
        ] {
            if present {
                return Err(self.err(
                    &p(key),
                    format!("`{key}` does not apply to a uniform buffer: its `members` give its contents"),
                ));
            }
        }
        if r.output {
            return Err(self.err(
                &p("output"),
                "a uniform buffer is read-only to the shader: it cannot be an output",
            ));
        }
        let list = match &r.members {
            Some(m) if !m.is_empty() => m,
            _ => {
                return Err(self.err(
                    &p("members"),
                    "a uniform buffer needs `members`: its fields as the shader declares them \
                     ({ name = \"alpha\", type = \"f32\", value = 0.5 }, ...)",
                ))
            }
        };
        let members = self.typed_members(&p("members"), list, vars, false)?;
        let mut bytes = crate::scenario::block::encode(&members, vars)
            .map_err(|(m, why)| self.err(&at(&members[m].key, "value"), why))?;
        // A uniform block's size is a multiple of 16 (its base alignment under std140).
        bytes.resize(bytes.len().next_multiple_of(16), 0);
        Ok(Resource {
            name: r.name.clone(),
            set: r.set,
            binding: r.binding,
            index: r.index,
            kind: ResourceKind::Uniform {
                bytes: bytes.len() as u64,
            },
            init: Init::Typed { members, bytes },
            output: false,
            key: path!["resources", i],
        })
    }

    pub(super) fn init(&self, p: &[Seg], v: &toml::Value) -> Result<Init, ScenarioError> {
        let kind_of = |s: &str| -> Result<Init, ScenarioError> {
            match s {
                "zero" => Ok(Init::Zero),
                "ramp" => Ok(Init::Ramp {
                    start: 0.0,
                    step: 1.0,
                }),
                "random" => Ok(Init::Random {
                    seed: 1,
                    min: 0.0,
                    max: 1.0,
                }),
                "constant" => Err(self.err(
                    p,
                    "`constant` needs a value: init = { kind = \"constant\", value = 1.0 }",
                )),
                k => Err(self.err(
                    p,
                    format!("unknown init `{k}` (use zero, constant, ramp or random)"),
                )),
            }
        };
        match v {
            toml::Value::String(s) => kind_of(s),
            toml::Value::Table(t) => {
                let mut pk = p.to_vec();
                pk.push(Seg::Key("kind".into()));
                let kind = t.get("kind").and_then(|k| k.as_str()).ok_or_else(|| {
                    self.err(&pk, "an init table needs `kind` = \"zero\" | \"constant\" | \"ramp\" | \"random\"")
                })?;
                let allowed: &[&str] = match kind {
                    "zero" => &["kind"],
                    "constant" => &["kind", "value"],
                    "ramp" => &["kind", "start", "step"],
                    "random" => &["kind", "seed", "min", "max"],
                    _ => &["kind"],
                };
                for key in t.keys() {
                    if !allowed.contains(&key.as_str()) {
                        let mut pk = p.to_vec();
                        pk.push(Seg::Key(key.clone()));
                        return Err(self.err(
                            &pk,
                            format!(
                                "unknown key `{key}` for init kind `{kind}` (allowed: {})",
                                allowed.join(", ")
                            ),
                        ));
                    }
                }
                let num = |key: &str, default: f64| -> Result<f64, ScenarioError> {
                    match t.get(key) {
                        None => Ok(default),
                        Some(toml::Value::Integer(i)) => Ok(*i as f64),
                        Some(toml::Value::Float(f)) => Ok(*f),
                        Some(_) => {
                            let mut pk = p.to_vec();
                            pk.push(Seg::Key(key.into()));
                            Err(self.err(&pk, "must be a number"))
                        }
                    }
                };
                Ok(match kind {
                    "constant" => {
                        if !t.contains_key("value") {
                            return Err(self.err(p, "`constant` needs `value`"));
                        }
                        Init::Constant(num("value", 0.0)?)
                    }
                    "ramp" => Init::Ramp {
                        start: num("start", 0.0)?,
                        step: num("step", 1.0)?,
                    },
                    "random" => {
                        let (min, max) = (num("min", 0.0)?, num("max", 1.0)?);
                        if min > max {
                            return Err(self.err(p, "random init needs min <= max"));
                        }
                        let seed = num("seed", 1.0)?;
                        if seed < 0.0 || seed.fract() != 0.0 || seed > u64::MAX as f64 {
                            let mut pk = p.to_vec();
                            pk.push(Seg::Key("seed".into()));
                            return Err(self.err(&pk, "a seed must be a non-negative integer"));
                        }
                        Init::Random {
                            seed: seed as u64,
                            min,
                            max,
                        }
                    }
                    k => kind_of(k)?,
                })
            }
            _ => Err(self.err(p, "init must be a string or a table")),
        }
    }
}
