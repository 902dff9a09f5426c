//! `[[variants]]`: the matrix expanded, each variant's defines, spec constants, workgroup and
//! subgroup requests, and its passes (shader, entry, grid, push constants) resolved.
use super::*;
use crate::scenario::block::TypedMember;

impl Loader<'_> {
    pub(super) fn variants(
        &self,
        raw: &RawScenario,
        params: &Vars,
        resources: &[Resource],
    ) -> Result<Vec<Variant>, ScenarioError> {
        let mut out: Vec<Variant> = Vec::new();
        let mut count = 0u64;
        // The [[variants]] entry each expanded variant comes from.
        let mut origin: Vec<usize> = Vec::new();
        for (vi, rv) in raw.variants.iter().enumerate() {
            count = self.check_variant_count(vi, rv, count)?;
            // Expand the matrix: each key's list, crossed in key order (the model's map is sorted),
            // the last key varying fastest.
            let mut combos: Vec<Vec<(String, MValue)>> = vec![vec![]];
            for (k, list) in &rv.matrix {
                let p = path!["variants", vi, "matrix", k];
                if list.is_empty() {
                    return Err(self.err(&p, "a matrix list cannot be empty"));
                }
                if k != "subgroup_size" && k != "workgroup" {
                    check_ident(k).map_err(|m| self.err(&p, m))?;
                }
                let mut next = Vec::new();
                for c in &combos {
                    for (j, v) in list.iter().enumerate() {
                        let mv = MValue::from_toml(v).ok_or_else(|| {
                            self.err(&path!["variants", vi, "matrix", k, j], "unsupported value")
                        })?;
                        let mut c2 = c.clone();
                        c2.push((k.clone(), mv));
                        next.push(c2);
                    }
                }
                combos = next;
            }
            for combo in combos {
                let v = self
                    .variant((raw, resources), vi, rv, params, &combo)
                    .map_err(|e| name_the_variant(e, vi, rv, &combo))?;
                out.push(v);
                origin.push(vi);
            }
        }
        let mut seen = BTreeMap::new();
        for (i, v) in out.iter().enumerate() {
            if let Some(first) = seen.insert(v.name.clone(), i) {
                let rv = &raw.variants[origin[i]];
                let hint = match rv.matrix.keys().next() {
                    Some(k) => format!(
                        "template the name with the matrix keys, e.g. \"{}-{{{k}}}\"",
                        rv.name
                    ),
                    None => "rename one of them".to_string(),
                };
                return Err(self.err(
                    &path!["variants", origin[i], "name"],
                    format!(
                        "two variants are named `{}` (variants #{first} and #{i} after matrix expansion): {hint}",
                        v.name
                    ),
                ));
            }
        }
        Ok(out)
    }

    fn variant(
        &self,
        (raw, resources): (&RawScenario, &[Resource]),
        vi: usize,
        rv: &RawVariant,
        params: &Vars,
        combo: &[(String, MValue)],
    ) -> Result<Variant, ScenarioError> {
        let vp = |k: &str| path!["variants", vi, k];
        let mut vars = params.clone();
        let mut strings = BTreeMap::new();
        let mut matrix_defines = Vec::new();
        let mut subgroup_m = None;
        let mut workgroup_m = None;
        for (k, v) in combo {
            match (k.as_str(), v) {
                ("subgroup_size", _) => {
                    let tv = match v {
                        MValue::Num(n) => toml::Value::Integer(*n as i64),
                        MValue::Str(s) => toml::Value::String(s.clone()),
                        MValue::Arr(a) => toml::Value::Array(a.clone()),
                    };
                    subgroup_m = Some(
                        self.subgroup(&path!["variants", vi, "matrix", "subgroup_size"], &tv)?,
                    );
                    strings.insert(k.clone(), v.display());
                }
                ("workgroup", MValue::Arr(a)) => {
                    let nums: Vec<Num> = a
                        .iter()
                        .map(|x| match x {
                            toml::Value::Integer(i) => Ok(Num::Int(*i)),
                            toml::Value::String(s) => Ok(Num::Expr(s.clone())),
                            _ => Err(self.err(
                                &path!["variants", vi, "matrix", "workgroup"],
                                "workgroup entries must be integers or expressions",
                            )),
                        })
                        .collect::<Result<_, _>>()?;
                    workgroup_m = Some(self.dims3(
                        &path!["variants", vi, "matrix", "workgroup"],
                        &nums,
                        params,
                        1,
                    )?);
                    strings.insert(k.clone(), v.display());
                }
                ("workgroup", _) => {
                    return Err(self.err(
                        &path!["variants", vi, "matrix", "workgroup"],
                        "each workgroup in a matrix is a list [x, y, z]",
                    ));
                }
                (_, MValue::Num(n)) => {
                    vars.insert(k.clone(), *n);
                    matrix_defines.push((k.clone(), fmt_num(*n)));
                }
                (_, MValue::Str(s)) => {
                    strings.insert(k.clone(), s.clone());
                    matrix_defines.push((k.clone(), s.clone()));
                }
                (_, MValue::Arr(_)) => {
                    return Err(self.err(
                        &path!["variants", vi, "matrix", k],
                        "only `workgroup` takes lists as matrix values",
                    ));
                }
            }
        }
        let name = template(&rv.name, &vars, &strings).map_err(|m| self.err(&vp("name"), m))?;
        if name.is_empty() || name.contains(['\n', '\r']) {
            return Err(self.err(
                &vp("name"),
                "a variant name must be a non-empty single line",
            ));
        }
        let subgroup = match (subgroup_m, &rv.subgroup_size, &raw.scenario.subgroup_size) {
            (Some(s), _, _) => s,
            (None, Some(v), _) => self.subgroup(&vp("subgroup_size"), v)?,
            (None, None, Some(v)) => self.subgroup(&path!["scenario", "subgroup_size"], v)?,
            (None, None, None) => SubgroupReq::Default,
        };
        let (workgroup, workgroup_key) = match (workgroup_m, &rv.workgroup, &raw.scenario.workgroup)
        {
            (Some(w), _, _) => (Some(w), Some(path!["variants", vi, "matrix", "workgroup"])),
            (None, Some(w), _) => (
                Some(self.dims3(&vp("workgroup"), w, &vars, 1)?),
                Some(vp("workgroup")),
            ),
            (None, None, Some(w)) => (
                Some(self.dims3(&path!["scenario", "workgroup"], w, &vars, 1)?),
                Some(path!["scenario", "workgroup"]),
            ),
            (None, None, None) => (None, None),
        };
        let mut defines = matrix_defines;
        for (k, v) in &rv.defines {
            let p = path!["variants", vi, "defines", k];
            check_ident(k).map_err(|m| self.err(&p, m))?;
            let val = define_value(v)
                .ok_or_else(|| self.err(&p, "a define is a number, a bool or a string"))?;
            let val = template(&val, &vars, &strings).map_err(|m| self.err(&p, m))?;
            defines.retain(|(dk, _)| dk != k);
            defines.push((k.clone(), val));
        }
        let mut spec = Vec::new();
        for (k, v) in &rv.spec {
            let p = path!["variants", vi, "spec", k];
            let id: u32 = k
                .parse()
                .map_err(|_| self.err(&p, "spec constant keys are SpecIds: \"0\", \"1\", ..."))?;
            let n = match v {
                toml::Value::Integer(i) => *i as f64,
                toml::Value::Float(f) => *f,
                toml::Value::Boolean(b) => f64::from(u8::from(*b)),
                toml::Value::String(s) => {
                    let s = template(s, &vars, &strings).map_err(|m| self.err(&p, m))?;
                    self.eval_f64(&p, &Num::Expr(s), &vars)?
                }
                _ => {
                    return Err(self.err(&p, "a spec constant is a number, a bool or an expression"))
                }
            };
            spec.push((id, n));
        }
        // By SpecId as a number (issue 40: the TOML keys are strings, and 10 came before 2).
        spec.sort_by_key(|(id, _)| *id);
        let mut passes = Vec::new();
        // Per pass, where its grid and its push constants are written (for the checks below).
        let mut pass_keys: Vec<(Vec<Seg>, Option<Vec<Seg>>)> = Vec::new();
        // The variant's own passes replace the scenario's (build() made sure one of them exists).
        let (dispatch, list_key) = match &rv.dispatch {
            Some(d) => (d, path!["variants", vi, "dispatch"]),
            None => (&raw.dispatch, path!["dispatch"]),
        };
        for (di, d) in dispatch.iter().enumerate() {
            let pass_key = at(&list_key, di);
            let dp = |k: &str| at(&pass_key, k);
            let shader_rel = match (&d.shader, &rv.shader, &raw.scenario.shader) {
                (Some(s), _, _) => (s, dp("shader")),
                (None, Some(s), _) => (s, vp("shader")),
                (None, None, Some(s)) => (s, path!["scenario", "shader"]),
                (None, None, None) => {
                    return Err(self.err(
                        &dp("shader"),
                        "no shader: set `shader` in [scenario], the variant, or the dispatch",
                    ))
                }
            };
            let rel =
                template(shader_rel.0, &vars, &strings).map_err(|m| self.err(&shader_rel.1, m))?;
            let shader = resolve_shader(self.path, &rel).map_err(|m| self.err(&shader_rel.1, m))?;
            let entry = self.entry(raw, vi, (d, &pass_key), &shader, &defines)?;
            let pass_wg = match &d.workgroup {
                Some(w) => Some(self.dims3(&dp("workgroup"), w, &vars, 1)?),
                None => None,
            };
            let grid = match (&d.grid, &d.cover) {
                (Some(g), None) => GridSpec::Grid(self.exprs3(&dp("grid"), g, &vars)?),
                (None, Some(c)) => GridSpec::Cover(self.exprs3(&dp("cover"), c, &vars)?),
                _ => return Err(self.err(
                    &dp("grid"),
                    "a dispatch needs exactly one of `grid` (workgroups) or `cover` (invocations)",
                )),
            };
            let pcs = d
                .push_constants
                .as_ref()
                .or(if raw.scenario.push_constants.is_empty() {
                    None
                } else {
                    Some(&raw.scenario.push_constants)
                });
            let grid_key = dp(if d.grid.is_some() { "grid" } else { "cover" });
            let (push_constants, push_block, pc_key) = match pcs {
                None => (None, None, None),
                Some(list) => {
                    let key = if d.push_constants.is_some() {
                        dp("push_constants")
                    } else {
                        path!["scenario", "push_constants"]
                    };
                    let (words, block) = self.push_list(&key, list, &vars)?;
                    (words, block, Some(key))
                }
            };
            pass_keys.push((grid_key, pc_key.clone()));
            let mut pdefines = Vec::new();
            for (k, v) in &d.defines {
                let p = at(&dp("defines"), k);
                check_ident(k).map_err(|m| self.err(&p, m))?;
                let val = define_value(v)
                    .ok_or_else(|| self.err(&p, "a define is a number, a bool or a string"))?;
                pdefines.push((
                    k.clone(),
                    template(&val, &vars, &strings).map_err(|m| self.err(&p, m))?,
                ));
            }
            passes.push(PassSpec {
                name: d.name.clone().unwrap_or_else(|| format!("pass{di}")),
                key: pass_key.clone(),
                shader,
                entry,
                workgroup: pass_wg,
                grid,
                push_constants,
                push_block,
                defines: pdefines,
                shader_key: shader_rel.1.clone(),
                workgroup_key: d.workgroup.as_ref().map(|_| dp("workgroup")),
                push_key: pc_key,
            });
        }
        // Catch zero-size grids and bad push constants now when the workgroup is known.
        let probe = Variant {
            name: name.clone(),
            subgroup,
            workgroup,
            defines: defines.clone(),
            spec: spec.clone(),
            vars: vars.clone(),
            passes: vec![],
            work: Work::default(),
            work_own: vec![],
            requires: vec![],
            resources: vec![],
            key: path!["variants", vi],
            workgroup_key: workgroup_key.clone(),
        };
        // Without a declared workgroup size the shader's `local_size` decides, so only what does
        // not depend on it (no `wg_x`, `wg_y`, `wg_z`) can be checked; a stand-in size is used then.
        let uses_wg = |es: &[String]| {
            es.iter().any(|e| {
                expr::variables(e).map_or(true, |vs| {
                    vs.iter()
                        .any(|v| ["wg_x", "wg_y", "wg_z"].contains(&v.as_str()))
                })
            })
        };
        for (pass, (grid_key, pc_key)) in passes.iter().zip(&pass_keys) {
            let known = pass.workgroup.or(workgroup);
            let exprs = match &pass.grid {
                GridSpec::Grid(e) | GridSpec::Cover(e) => e,
            };
            // The largest stand-in: a `cover` then needs one workgroup per axis, never too many.
            if let Some(wg) = known.or((!uses_wg(exprs)).then_some([u32::MAX; 3])) {
                let grid_only = PassSpec {
                    push_constants: None,
                    push_block: None,
                    ..pass.clone()
                };
                probe
                    .resolve_pass(&grid_only, wg)
                    .map_err(|m| self.err(grid_key, format!("variant `{name}`: {m}")))?;
            }
            if let (Some(block), Some(wg)) = (&pass.push_block, known) {
                // A typed block's values at the workgroup that will run, each member's error at
                // its own line.
                let mut vars = vars.clone();
                for (axis, size) in ["wg_x", "wg_y", "wg_z"].into_iter().zip(wg) {
                    vars.insert(axis.to_string(), f64::from(size));
                }
                crate::scenario::block::encode(block, &vars).map_err(|(i, why)| {
                    self.err(
                        &at(&block[i].key, "value"),
                        format!("variant `{name}`: {why}"),
                    )
                })?;
            } else if let Some(block) = &pass.push_block {
                let fixed: Vec<TypedMember> = block
                    .iter()
                    .filter(|m| !uses_wg(&m.values))
                    .cloned()
                    .collect();
                let origin: Vec<&Vec<Seg>> = block
                    .iter()
                    .filter(|m| !uses_wg(&m.values))
                    .map(|m| &m.key)
                    .collect();
                crate::scenario::block::encode(&fixed, &vars).map_err(|(i, why)| {
                    self.err(&at(origin[i], "value"), format!("variant `{name}`: {why}"))
                })?;
            }
            if let (Some(pcs), Some(pc_key)) = (&pass.push_constants, pc_key) {
                if let Some(wg) = known.or((!uses_wg(pcs)).then_some([1; 3])) {
                    let pcs_only = PassSpec {
                        grid: GridSpec::Grid(["1".into(), "1".into(), "1".into()]),
                        ..pass.clone()
                    };
                    probe
                        .resolve_pass(&pcs_only, wg)
                        .map_err(|m| self.err(pc_key, format!("variant `{name}`: {m}")))?;
                }
            }
        }
        let (work, work_own) = self.work(raw, vi, rv, &vars, workgroup)?;
        let own = self.overrides((raw, resources), vi, rv, (&vars, &strings))?;
        Ok(Variant {
            name,
            subgroup,
            workgroup,
            defines,
            spec,
            vars,
            passes,
            work,
            work_own,
            requires: self.requires(&vp("requires"), &rv.requires)?,
            resources: own,
            key: path!["variants", vi],
            workgroup_key,
        })
    }

    /// The declared work of one variant: each key of its own `[variants.measure]` over the
    /// scenario's `[measure]`, evaluated with the variant's params and matrix keys, and
    /// `wg_x`, `wg_y`, `wg_z` when it declares a workgroup size (the work a group does often
    /// depends on its shape). Also the keys it gave itself.
    fn work(
        &self,
        raw: &RawScenario,
        vi: usize,
        rv: &RawVariant,
        vars: &Vars,
        workgroup: Option<[u32; 3]>,
    ) -> Result<(Work, Vec<&'static str>), ScenarioError> {
        let mut vars = vars.clone();
        if let Some(wg) = workgroup {
            for (axis, size) in ["wg_x", "wg_y", "wg_z"].into_iter().zip(wg) {
                vars.insert(axis.to_string(), size as f64);
            }
        }
        let own = rv.measure.clone().unwrap_or_default();
        let scenario = raw.measure.work();
        let mut work = Work::default();
        let mut work_own = Vec::new();
        for ((key, mine), (_, base)) in own.entries().into_iter().zip(scenario.entries()) {
            let (n, p) = match (mine, base) {
                (Some(n), _) => {
                    work_own.push(key);
                    (n, path!["variants", vi, "measure", key])
                }
                (None, Some(n)) => (n, path!["measure", key]),
                (None, None) => continue,
            };
            *work.slot(key).expect("one of Work::KEYS") = Some(self.eval_u64(&p, n, &vars)?);
        }
        let (unit, p) = match (&own.tensor_unit, &scenario.tensor_unit) {
            (Some(u), _) => {
                work_own.push("tensor_unit");
                (Some(u), path!["variants", vi, "measure", "tensor_unit"])
            }
            (None, Some(u)) => (Some(u), path!["measure", "tensor_unit"]),
            (None, None) => (None, vec![]),
        };
        if let Some(u) = unit {
            let known = crate::scenario::variant::TENSOR_UNITS;
            if !known.contains(&u.as_str()) {
                return Err(self.err(
                    &p,
                    format!("`{u}` is not a tensor unit; one of {}", known.join(", ")),
                ));
            }
            work.tensor_unit = Some(u.clone());
        }
        if work.tensor_flops.is_some() != work.tensor_unit.is_some() {
            let (key, why) = if work.tensor_unit.is_none() {
                ("tensor_unit", "`tensor_flops` needs `tensor_unit`: the tensor peak it counts against (e.g. \"tensor_f16_f32\")")
            } else {
                ("tensor_flops", "`tensor_unit` without `tensor_flops`: declare the tensor operations (2·M·N·K per multiply-add)")
            };
            let p = if rv.measure.is_some() {
                path!["variants", vi, "measure", key]
            } else {
                path!["measure", key]
            };
            return Err(self.err(&p, why.to_string()));
        }
        self.texture_unit(vi, &own, &scenario, &mut work, &mut work_own)?;
        Ok((work, work_own))
    }

    /// The texture peak a variant's `texels` count against: its own
    /// `[variants.measure].texture_unit`, else `[measure]`'s; one of
    /// [`crate::scenario::variant::TEXTURE_UNITS`], and only beside declared `texels` (an error
    /// naming the key otherwise). None keeps the default (`texture_point`).
    fn texture_unit(
        &self,
        vi: usize,
        own: &crate::scenario::model::RawWork,
        scenario: &crate::scenario::model::RawWork,
        work: &mut Work,
        work_own: &mut Vec<&'static str>,
    ) -> Result<(), ScenarioError> {
        let (unit, p) = match (&own.texture_unit, &scenario.texture_unit) {
            (Some(u), _) => {
                work_own.push("texture_unit");
                (u, path!["variants", vi, "measure", "texture_unit"])
            }
            (None, Some(u)) => (u, path!["measure", "texture_unit"]),
            (None, None) => return Ok(()),
        };
        let known = crate::scenario::variant::TEXTURE_UNITS;
        if !known.contains(&unit.as_str()) {
            let hint = if unit == "texture_bilinear" {
                " (bilinear fetches are declared as `texels_linear`, which always count against `texture_bilinear`)"
            } else {
                ""
            };
            return Err(self.err(
                &p,
                format!(
                    "`{unit}` is not a texture unit `texels` can count against; one of {}{hint}",
                    known.join(", ")
                ),
            ));
        }
        if work.texels.is_none() {
            return Err(self.err(
                &p,
                "`texture_unit` without `texels`: declare the texel fetches it counts (`texels`)"
                    .to_string(),
            ));
        }
        work.texture_unit = Some(unit.clone());
        Ok(())
    }
}

/// The name an error about a missing name is about: `unknown variable `m`` (an expression) or
/// `unknown name `m`` (a `{m}` template).
fn missing_name(message: &str) -> Option<&str> {
    ["unknown variable `", "unknown name `"]
        .iter()
        .find_map(|p| message.find(p).map(|at| &message[at + p.len()..]))
        .and_then(|rest| rest.split('`').next())
}

/// A `[[variants]]` entry's expansion failed on a name that is neither a param nor one of its
/// matrix keys: say which entry (its index, name template and matrix values), since the key
/// that failed may be one every entry shares (`dispatch[0].cover`, `scenario.workgroup`,
/// `measure.flops`) and the file may have many entries.
fn name_the_variant(
    mut e: ScenarioError,
    vi: usize,
    rv: &RawVariant,
    combo: &[(String, MValue)],
) -> ScenarioError {
    let Some(missing) = missing_name(&e.message).map(str::to_string) else {
        return e;
    };
    let matrix = if combo.is_empty() {
        "no matrix".to_string()
    } else {
        let values: Vec<String> = combo
            .iter()
            .map(|(k, v)| format!("{k}={}", v.display()))
            .collect();
        format!("matrix {}", values.join(" "))
    };
    e.message = format!(
        "{}; variants[{vi}] (name template `{}`, {matrix}) has no `{missing}`: add it to that entry's `matrix` or to [params], or correct the name",
        e.message, rv.name
    );
    e
}
