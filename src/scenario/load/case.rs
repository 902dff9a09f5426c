//! One params case: its resources (each (set, binding, index) once, arrays dense), variants,
//! check and `[measure]` settings.
use super::*;
use std::collections::BTreeSet;

impl Loader<'_> {
    pub(super) fn case(&self, raw: &RawScenario, params: Vars) -> Result<Case, ScenarioError> {
        let params_label = params
            .iter()
            .map(|(k, v)| format!("{k}={}", fmt_num(*v)))
            .collect::<Vec<_>>()
            .join(";");
        let mut resources = Vec::new();
        let mut slots = BTreeSet::new();
        let mut names = BTreeSet::new();
        for (i, r) in raw.resources.iter().enumerate() {
            let res = self.resource(i, r, &params)?;
            if !slots.insert((res.set, res.binding, res.index)) {
                let what = if res.index > 0 {
                    format!(" index {}", res.index)
                } else {
                    String::new()
                };
                // Name the resource that has it (issue 29: "another resource" sent a new user
                // looking through the file).
                let (j, other) = resources
                    .iter()
                    .enumerate()
                    .find(|(_, o): &(usize, &Resource)| {
                        (o.set, o.binding, o.index) == (res.set, res.binding, res.index)
                    })
                    .map_or((0, String::new()), |(j, o)| (j, o.name.clone()));
                return Err(self.err(
                    &path!["resources", i, "binding"],
                    format!(
                        "set {} binding {}{what} is already used by `{other}` (resources[{j}])",
                        res.set, res.binding
                    ),
                ));
            }
            // Elements of one descriptor array must be of one descriptor kind.
            if let Some(other) = resources
                .iter()
                .find(|o: &&Resource| o.set == res.set && o.binding == res.binding)
            {
                if std::mem::discriminant(&other.kind) != std::mem::discriminant(&res.kind)
                    || image_usage(other) != image_usage(&res)
                {
                    return Err(self.err(
                        &path!["resources", i, "index"],
                        format!("`{}` and `{}` share set {} binding {} but are different kinds of resource", other.name, res.name, res.set, res.binding),
                    ));
                }
            }
            if !names.insert(res.name.clone()) {
                return Err(self.err(
                    &path!["resources", i, "name"],
                    format!("duplicate resource name `{}`", res.name),
                ));
            }
            resources.push(res);
        }
        let variants = self.variants(raw, &params, &resources)?;
        let check = match &raw.check {
            None => None,
            Some(c) => Some(self.check(c, &params, &resources, &variants)?),
        };
        // What a check compares must start from its initial contents for every variant.
        if let Some(c) = &check {
            for r in resources.iter_mut() {
                if c.outputs.contains(&r.name) {
                    r.output = true;
                }
            }
        }
        let m = &raw.measure;
        let reps = m.reps.unwrap_or(10);
        if reps == 0 {
            return Err(self.err(&path!["measure", "reps"], "must be at least 1"));
        }
        let bounded = [
            ("reps", Some(reps), MAX_REPS),
            ("warmup", m.warmup, MAX_WARMUP),
            ("rounds", m.rounds, MAX_ROUNDS),
            ("max_rounds", m.max_rounds, MAX_ROUNDS),
        ];
        for (key, value, max) in bounded {
            if let Some(v) = value.filter(|v| *v > max) {
                return Err(self.err(
                    &path!["measure", key],
                    format!("{v} is more than {max}, the most p3lab takes"),
                ));
            }
        }
        let rounds = m.rounds.unwrap_or(DEFAULT_ROUNDS);
        if rounds < 2 {
            return Err(self.err(
                &path!["measure", "rounds"],
                "must be at least 2 (an interval needs two rounds)",
            ));
        }
        let max_rounds = m.max_rounds.unwrap_or(DEFAULT_MAX_ROUNDS.max(rounds));
        if max_rounds < rounds {
            return Err(self.err(
                &path!["measure", "max_rounds"],
                format!("must be at least `rounds` ({rounds})"),
            ));
        }
        let ci_target_pct = m.ci_target_pct.unwrap_or(DEFAULT_CI_TARGET_PCT);
        if !(ci_target_pct.is_finite() && ci_target_pct > 0.0) {
            return Err(self.err(
                &path!["measure", "ci_target_pct"],
                "must be a positive number of percent",
            ));
        }
        let budget_ms = m.budget_ms.unwrap_or(DEFAULT_BUDGET_MS);
        if !(budget_ms.is_finite() && budget_ms > 0.0) {
            return Err(self.err(
                &path!["measure", "budget_ms"],
                "must be a positive number of milliseconds",
            ));
        }
        // Descriptor arrays must be dense: elements 0..N-1 of every array binding.
        for (i, r) in resources.iter().enumerate() {
            if r.index > 0
                && !resources
                    .iter()
                    .any(|o| o.set == r.set && o.binding == r.binding && o.index == r.index - 1)
            {
                return Err(self.err(
                    &path!["resources", i, "index"],
                    format!("set {} binding {}: index {} is given but {} is not (array elements must be 0..N-1)", r.set, r.binding, r.index, r.index - 1),
                ));
            }
        }
        let modes = match &m.modes {
            None => vec![Mode::Warm],
            Some(list) if list.is_empty() => {
                return Err(self.err(
                    &path!["measure", "modes"],
                    "list at least one of \"warm\", \"cold\"",
                ))
            }
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(j, s)| match s.as_str() {
                    "warm" => Ok(Mode::Warm),
                    "cold" => Ok(Mode::Cold),
                    o => Err(self.err(
                        &path!["measure", "modes", j],
                        format!("unknown mode `{o}` (use warm or cold)"),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        let cold_bytes = match &m.cold_bytes {
            None => 256 << 20,
            Some(n) => {
                self.eval_u64(&path!["measure", "cold_bytes"], n, &params)?
                    .max(4)
                    / 4
                    * 4
            }
        };
        let evict = match &m.evict {
            None => Evict::Read,
            Some(s) => Evict::parse(s).ok_or_else(|| {
                self.err(
                    &path!["measure", "evict"],
                    format!("unknown eviction `{s}` (use read or write)"),
                )
            })?,
        };
        let fresh = match &m.fresh {
            None => Fresh::default(),
            Some(s) => Fresh::parse(s).ok_or_else(|| {
                self.err(
                    &path!["measure", "fresh"],
                    format!("unknown value `{s}` (use {})", Fresh::NAMES.join(", ")),
                )
            })?,
        };
        let placements = match &m.placements {
            None => Ok(Placements::Auto),
            Some(toml::Value::String(s)) => Placements::parse(s),
            Some(toml::Value::Integer(n)) => Placements::parse(&n.to_string()),
            Some(other) => Err(format!(
                "expected \"auto\" or a whole number, found {}",
                other.type_str()
            )),
        }
        .map_err(|e| self.err(&path!["measure", "placements"], e))?;
        let counters = m.counters.clone().unwrap_or_default();
        for (j, g) in counters.iter().enumerate() {
            globset::Glob::new(g)
                .map_err(|e| self.err(&path!["measure", "counters", j], e.to_string()))?;
        }
        Ok(Case {
            params,
            params_label,
            resources,
            check,
            variants,
            modes,
            cold_bytes,
            evict,
            fresh,
            placement_check: m.placement_check.unwrap_or(true),
            placements,
            warmup: m.warmup.unwrap_or(3),
            warmup_ms: m.warmup_ms.unwrap_or(200),
            reps,
            timeout_ms: m.timeout_ms.unwrap_or(30_000),
            rounds,
            max_rounds,
            ci_target_pct,
            budget_ms,
            counters,
            probe: m.probe.unwrap_or(false),
        })
    }
}
