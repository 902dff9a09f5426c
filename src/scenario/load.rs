//! Reading a scenario file: TOML → raw model → validated, expanded [`Scenario`].
use crate::path;
use crate::scenario::error::{key_string, Locator, ScenarioError, Seg};
use crate::scenario::expr::{self, Vars};
use crate::scenario::model::*;
use crate::scenario::types::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod files;
mod lang;
mod reference;

/// `[measure]` defaults for the rounds (docs/scenarios.md): at least 5 rounds, at most 30,
/// until the median's CI half-width is 0.5 % or a variant's batches took 400 ms.
pub const DEFAULT_ROUNDS: u32 = 5;
pub const DEFAULT_MAX_ROUNDS: u32 = 30;
pub const DEFAULT_CI_TARGET_PCT: f64 = 0.5;
pub const DEFAULT_BUDGET_MS: f64 = 400.0;

/// Bounds on counts (docs/scenarios.md, "Bounds"), checked when a file loads and when flags
/// are parsed: past them a run would not fit in memory or would not end in a working day, and
/// the arithmetic on them (`reps * passes * 2` timestamps) would no longer fit its type.
/// Timed repetitions per batch (`[measure].reps`, `--reps`).
pub const MAX_REPS: u32 = 100_000;
/// Untimed repetitions per batch (`[measure].warmup`, `--warmup`).
pub const MAX_WARMUP: u32 = 100_000;
/// Rounds (`[measure].rounds` and `max_rounds`, `--rounds`, `--max-rounds`).
pub const MAX_ROUNDS: u32 = 10_000;
/// Params cases of one file: the product of the `[params]` list lengths.
pub const MAX_PARAMS_CASES: u64 = 10_000;
/// Variants of one params case, after matrix expansion.
pub const MAX_VARIANTS: u64 = 10_000;
/// Dispatches (passes) of one variant: each is recorded in every repetition of a batch.
pub const MAX_PASSES: usize = 256;
/// Resources of one scenario.
pub const MAX_RESOURCES: usize = 1024;

/// Param overrides from `--set k=v[,v...]`, in the order given.
pub type Overrides = Vec<(String, Vec<String>)>;

/// Where the shaders live: the scenario's folder, then `glsl/` next to `scenarios/`.
/// The shader file a scenario names: next to it, in its parent folder, or in the working
/// directory. Something there that is not a regular file (a FIFO, a folder, a device) is an
/// error that says what it is: reading a FIFO would block the run.
fn resolve_shader(scenario_path: &Path, rel: &str) -> Result<PathBuf, String> {
    let dir = scenario_path.parent().unwrap_or(Path::new("."));
    let candidates = [dir.join(rel), dir.join("..").join(rel), PathBuf::from(rel)];
    for p in candidates {
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        if meta.is_file() {
            return Ok(p);
        }
        let what = if meta.is_dir() {
            "a folder"
        } else {
            use std::os::unix::fs::FileTypeExt;
            let t = meta.file_type();
            if t.is_fifo() {
                "a FIFO (named pipe)"
            } else if t.is_socket() {
                "a socket"
            } else if t.is_char_device() || t.is_block_device() {
                "a device"
            } else {
                "not a regular file"
            }
        };
        return Err(format!(
            "shader `{}` is {what}, not a regular file",
            p.display()
        ));
    }
    Err(format!("shader file `{rel}` not found (looked next to the scenario file, in its parent folder and in the working directory)"))
}

/// Load a scenario file. Overrides naming params this scenario does not have are ignored
/// here; the CLI checks that each one is known to at least one scenario.
pub fn load(path: &Path, overrides: &Overrides) -> Result<Scenario, ScenarioError> {
    load_with(path, overrides, None)
}

/// Load with a named `[profiles.NAME]` applied (ignored when the file has no such profile).
pub fn load_with(
    path: &Path,
    overrides: &Overrides,
    profile: Option<&str>,
) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ScenarioError {
        file: file.clone(),
        line: 0,
        key: String::new(),
        message: format!("cannot read scenario file: {e}"),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..at];
        let line = before.iter().filter(|b| **b == b'\n').count() + 1;
        let column = at
            - before
                .iter()
                .rposition(|b| *b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        ScenarioError {
            file: file.clone(),
            line,
            key: String::new(),
            message: format!(
                "invalid UTF-8 at column {column} (byte {at} of the file): a scenario file must \
                 be UTF-8 text"
            ),
        }
    })?;
    parse_with(path, &text, overrides, profile)
}

/// Parse scenario text as if read from `path`.
pub fn parse(path: &Path, text: &str, overrides: &Overrides) -> Result<Scenario, ScenarioError> {
    parse_with(path, text, overrides, None)
}

/// Parse with a named `[profiles.NAME]` applied (ignored when the file has no such profile).
pub fn parse_with(
    path: &Path,
    text: &str,
    overrides: &Overrides,
    profile: Option<&str>,
) -> Result<Scenario, ScenarioError> {
    let loc = Locator::new(path, text);
    let raw: RawScenario = toml::from_str(text).map_err(|e| toml_error(&loc, &e))?;
    let loader = Loader { loc: &loc, path };
    let raw = loader.apply_profile(raw, profile)?;
    loader.build(raw, overrides)
}

fn toml_error(loc: &Locator, e: &toml::de::Error) -> ScenarioError {
    let message = e.message().trim().to_string();
    let (line, key) = match e.span() {
        Some(span) => {
            // Valid TOML that does not fit the model: name the key the error is about. A syntax
            // error (no document) has no key, only a place.
            let at = loc.path_at(span.clone());
            // The document itself (a missing top-level table) has no line.
            let line = match &at {
                Some(p) if p.is_empty() && span.is_empty() => 0,
                _ => loc.line_of_offset(span.start),
            };
            let key = match at {
                Some(mut p) => {
                    if let Some(field) = message
                        .strip_prefix("missing field `")
                        .and_then(|m| m.split('`').next())
                    {
                        p.push(Seg::Key(field.to_string()));
                    }
                    key_string(&p)
                }
                None => String::new(),
            };
            (line, key)
        }
        None => (0, String::new()),
    };
    ScenarioError {
        file: loc.file().to_string(),
        line,
        key,
        message,
    }
}

struct Loader<'a> {
    loc: &'a Locator,
    path: &'a Path,
}

/// Params as a list of values each (one value = no sweep).
type ParamSweep = BTreeMap<String, Vec<f64>>;

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Replace `{name}` with the value of `name` from `vars` or `strings`.
fn template(s: &str, vars: &Vars, strings: &BTreeMap<String, String>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!("unclosed `{{` in `{s}`"));
        };
        let name = after[..close].trim();
        if let Some(v) = strings.get(name) {
            out.push_str(v);
        } else if let Some(v) = vars.get(name) {
            out.push_str(&fmt_num(*v));
        } else {
            let mut known: Vec<&String> = vars.keys().chain(strings.keys()).collect();
            known.sort();
            known.dedup();
            return Err(format!(
                "unknown name `{name}` in `{s}` (known: {})",
                known
                    .iter()
                    .map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A value from a matrix or a define: a number, a string, a bool, or a `[x, y, z]` array.
#[derive(Debug, Clone)]
enum MValue {
    Num(f64),
    Str(String),
    Arr(Vec<toml::Value>),
}

impl MValue {
    fn from_toml(v: &toml::Value) -> Option<MValue> {
        Some(match v {
            toml::Value::Integer(i) => MValue::Num(*i as f64),
            toml::Value::Float(f) => MValue::Num(*f),
            toml::Value::Boolean(b) => MValue::Num(if *b { 1.0 } else { 0.0 }),
            toml::Value::String(s) => MValue::Str(s.clone()),
            toml::Value::Array(a) => MValue::Arr(a.clone()),
            _ => return None,
        })
    }
    fn display(&self) -> String {
        match self {
            MValue::Num(v) => fmt_num(*v),
            MValue::Str(s) => s.clone(),
            MValue::Arr(a) => a
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join("x"),
        }
    }
}

impl<'a> Loader<'a> {
    fn err(&self, p: &[Seg], msg: impl Into<String>) -> ScenarioError {
        self.loc.err(p, msg)
    }

    fn eval_u64(&self, p: &[Seg], n: &Num, vars: &Vars) -> Result<u64, ScenarioError> {
        expr::eval_u64(&n.as_expr(), vars).map_err(|e| self.err(p, e.to_string()))
    }

    fn eval_u32(&self, p: &[Seg], n: &Num, vars: &Vars) -> Result<u32, ScenarioError> {
        let v = self.eval_u64(p, n, vars)?;
        u32::try_from(v).map_err(|_| self.err(p, format!("{v} does not fit in 32 bits")))
    }

    fn eval_f64(&self, p: &[Seg], n: &Num, vars: &Vars) -> Result<f64, ScenarioError> {
        expr::eval(&n.as_expr(), vars).map_err(|e| self.err(p, e.to_string()))
    }

    fn dims3(
        &self,
        p: &[Seg],
        list: &[Num],
        vars: &Vars,
        min: u32,
    ) -> Result<[u32; 3], ScenarioError> {
        if list.is_empty() || list.len() > 3 {
            return Err(self.err(
                p,
                format!("needs 1 to 3 numbers [x, y, z], got {}", list.len()),
            ));
        }
        let mut out = [1u32; 3];
        for (i, n) in list.iter().enumerate() {
            let mut pi = p.to_vec();
            pi.push(Seg::Index(i));
            out[i] = self.eval_u32(&pi, n, vars)?;
            if out[i] < min {
                return Err(self.err(&pi, format!("must be at least {min}, got {}", out[i])));
            }
        }
        Ok(out)
    }

    fn exprs3(&self, p: &[Seg], list: &[Num], vars: &Vars) -> Result<[String; 3], ScenarioError> {
        if list.is_empty() || list.len() > 3 {
            return Err(self.err(
                p,
                format!("needs 1 to 3 entries [x, y, z], got {}", list.len()),
            ));
        }
        let mut out = ["1".to_string(), "1".to_string(), "1".to_string()];
        let mut known = vars.clone();
        for w in ["wg_x", "wg_y", "wg_z"] {
            known.insert(w.into(), 1.0);
        }
        for (i, n) in list.iter().enumerate() {
            let e = n.as_expr();
            let mut pi = p.to_vec();
            pi.push(Seg::Index(i));
            // Catch syntax errors and unknown names now, before anything runs.
            expr::eval(&e, &known).map_err(|err| self.err(&pi, err.to_string()))?;
            out[i] = e;
        }
        Ok(out)
    }

    /// Replace params by the profile's values; every key must be a param of the file.
    fn apply_profile(
        &self,
        mut raw: RawScenario,
        profile: Option<&str>,
    ) -> Result<RawScenario, ScenarioError> {
        for (name, table) in &raw.profiles {
            for k in table.keys() {
                if !raw.params.contains_key(k) {
                    return Err(self.err(
                        &path!["profiles", name, k],
                        format!("profile `{name}` sets `{k}`, which is not in [params]"),
                    ));
                }
            }
        }
        if let Some(table) = profile.and_then(|p| raw.profiles.get(p)).cloned() {
            for (k, v) in table {
                raw.params.insert(k, v);
            }
            raw.profile = profile.map(String::from);
        }
        Ok(raw)
    }

    fn params(
        &self,
        raw: &RawScenario,
        overrides: &Overrides,
    ) -> Result<ParamSweep, ScenarioError> {
        let mut sweep = ParamSweep::new();
        for (k, v) in &raw.params {
            let p = path!["params", k];
            check_ident(k).map_err(|m| self.err(&p, m))?;
            let finite = |f: f64| {
                if f.is_finite() {
                    Ok(f)
                } else {
                    Err(self.err(&p, format!("{f} is not allowed: a param must be finite")))
                }
            };
            let values = match v {
                toml::Value::Integer(i) => vec![*i as f64],
                toml::Value::Float(f) => vec![finite(*f)?],
                toml::Value::Array(a) if !a.is_empty() => a
                    .iter()
                    .map(|x| match x {
                        toml::Value::Integer(i) => Ok(*i as f64),
                        toml::Value::Float(f) => finite(*f),
                        _ => Err(self.err(&p, "a param sweep must list numbers")),
                    })
                    .collect::<Result<_, _>>()?,
                _ => {
                    return Err(self.err(
                        &p,
                        "a param must be a number or a non-empty list of numbers",
                    ))
                }
            };
            sweep.insert(k.clone(), values);
        }
        for (k, vals) in overrides {
            if let Some(slot) = sweep.get_mut(k) {
                let parsed = vals
                    .iter()
                    .map(|s| {
                        // A --set value may itself be an expression over the file's defaults
                        // (the first value of a swept param).
                        let defaults: Vars = raw
                            .params
                            .iter()
                            .filter_map(|(k, v)| {
                                let first = match v {
                                    toml::Value::Array(a) => a.first()?,
                                    other => other,
                                };
                                match first {
                                    toml::Value::Integer(i) => Some((k.clone(), *i as f64)),
                                    toml::Value::Float(f) => Some((k.clone(), *f)),
                                    _ => None,
                                }
                            })
                            .collect();
                        expr::eval(s, &defaults).map_err(|e| ScenarioError {
                            file: "--set".into(),
                            line: 0,
                            key: k.clone(),
                            message: format!("`{s}`: {e}"),
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                *slot = parsed;
            }
        }
        Ok(sweep)
    }

    fn build(&self, raw: RawScenario, overrides: &Overrides) -> Result<Scenario, ScenarioError> {
        let name = raw.scenario.name.clone().unwrap_or_else(|| {
            self.path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let opt = match raw.scenario.opt.as_deref() {
            None | Some("performance") => OptLevel::Performance,
            Some("size") => OptLevel::Size,
            Some("zero") | Some("none") => OptLevel::Zero,
            Some(o) => {
                return Err(self.err(
                    &path!["scenario", "opt"],
                    format!("unknown optimization level `{o}` (use performance, size or zero)"),
                ))
            }
        };
        if raw.dispatch.is_empty() {
            return Err(self.err(
                &path!["dispatch"],
                "no [[dispatch]]: a scenario needs at least one",
            ));
        }
        if raw.dispatch.len() > MAX_PASSES {
            return Err(self.err(
                &path!["dispatch", MAX_PASSES],
                format!(
                    "{} [[dispatch]] entries; one variant may have at most {MAX_PASSES} passes",
                    raw.dispatch.len()
                ),
            ));
        }
        if raw.resources.len() > MAX_RESOURCES {
            return Err(self.err(
                &path!["resources", MAX_RESOURCES],
                format!(
                    "{} [[resources]] entries; a scenario may have at most {MAX_RESOURCES}",
                    raw.resources.len()
                ),
            ));
        }
        if raw.variants.is_empty() {
            return Err(self.err(
                &path!["variants"],
                "no [[variants]]: a scenario needs at least one",
            ));
        }
        let sweep = self.params(&raw, overrides)?;
        self.check_case_count(&sweep)?;
        // With a sweep or a --set, the params that broke a case are not the file's: say which.
        let tell_params = sweep.values().any(|v| v.len() > 1)
            || overrides.iter().any(|(k, _)| sweep.contains_key(k));
        let mut cases = Vec::new();
        for params in cross(&sweep) {
            let label = params
                .iter()
                .map(|(k, v)| format!("{k}={}", fmt_num(*v)))
                .collect::<Vec<_>>()
                .join(", ");
            cases.push(self.case(&raw, params).map_err(|mut e| {
                if tell_params {
                    e.message.push_str(&format!(" (with params {label})"));
                }
                e
            })?);
        }
        Ok(Scenario {
            name,
            path: self.path.to_path_buf(),
            description: raw.scenario.description.clone(),
            source: raw.scenario.source.clone(),
            text: self.loc.text().to_string(),
            requires: self.requires(&path!["scenario", "requires"], &raw.scenario.requires)?,
            opt,
            profile: raw.profile.clone(),
            cases,
        })
    }

    fn case(&self, raw: &RawScenario, params: Vars) -> Result<Case, ScenarioError> {
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
                return Err(self.err(
                    &path!["resources", i, "binding"],
                    format!(
                        "set {} binding {}{what} is already used by another resource",
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
        let variants = self.variants(raw, &params)?;
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

    fn resource(&self, i: usize, r: &RawResource, vars: &Vars) -> Result<Resource, ScenarioError> {
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
            other => {
                return Err(self.err(
                    &p("type"),
                    format!("unknown resource type `{other}` (use buffer or image)"),
                ))
            }
        };
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

    fn init(&self, p: &[Seg], v: &toml::Value) -> Result<Init, ScenarioError> {
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

    fn check(
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
        if c.tolerance < 0.0
            || c.rel_tolerance < 0.0
            || !c.tolerance.is_finite()
            || !c.rel_tolerance.is_finite()
        {
            return Err(self.err(
                &path!["check", "tolerance"],
                "tolerances must be finite and non-negative",
            ));
        }
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
            tolerance: c.tolerance,
            rel_tolerance: c.rel_tolerance,
            reference,
            baseline,
            on,
        })
    }

    /// `requires`: feature names p3lab knows (crate::vk::context::KNOWN_FEATURES) or extension
    /// names (`VK_...`); anything else is a typo that would read as "the device lacks it".
    fn requires(&self, p: &[Seg], list: &[String]) -> Result<Vec<String>, ScenarioError> {
        for (i, name) in list.iter().enumerate() {
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

    fn subgroup(&self, p: &[Seg], v: &toml::Value) -> Result<SubgroupReq, ScenarioError> {
        match v {
            toml::Value::String(s) if s == "default" => Ok(SubgroupReq::Default),
            toml::Value::String(s) if s == "full" => Ok(SubgroupReq::Full),
            toml::Value::Integer(n) if *n > 0 && *n <= 1024 && !(*n as u32).is_power_of_two() => {
                Err(self.err(p, format!("subgroup size {n} is not a power of two (Vulkan subgroup sizes are 1, 2, 4, ... 128)")))
            }
            toml::Value::Integer(n) if *n > 0 && *n <= 1024 => Ok(SubgroupReq::Size(*n as u32)),
            _ => Err(self.err(p, format!("subgroup_size must be \"default\", \"full\" or a lane count from 1 to 1024, got {v}"))),
        }
    }

    /// The params cases a sweep crosses into, refused past [`MAX_PARAMS_CASES`] before any is
    /// built.
    fn check_case_count(&self, sweep: &ParamSweep) -> Result<(), ScenarioError> {
        let lens: Vec<(&String, usize)> = sweep.iter().map(|(k, v)| (k, v.len())).collect();
        let total = lens
            .iter()
            .try_fold(1u64, |n, (_, l)| n.checked_mul(*l as u64));
        if total.is_some_and(|n| n <= MAX_PARAMS_CASES) {
            return Ok(());
        }
        let Some((longest, _)) = lens.iter().max_by_key(|(_, l)| *l) else {
            return Ok(());
        };
        let sizes = lens
            .iter()
            .filter(|(_, l)| *l > 1)
            .map(|(k, l)| format!("{k}: {l}"))
            .collect::<Vec<_>>()
            .join(" × ");
        let total = total.map_or("more than 2^64".to_string(), |n| n.to_string());
        Err(self.err(
            &path!["params", longest.as_str()],
            format!(
                "the sweep would be {total} params cases ({sizes}); one file may have at most \
                 {MAX_PARAMS_CASES}: shorten the `{longest}` list (or its --set), or split the \
                 sweep over several files"
            ),
        ))
    }

    /// Refuse a `[[variants]]` entry whose matrix would bring the variants of one params case
    /// past [`MAX_VARIANTS`], before it is expanded. `before` is the count of the entries
    /// before it.
    fn check_variant_count(
        &self,
        vi: usize,
        rv: &RawVariant,
        before: u64,
    ) -> Result<u64, ScenarioError> {
        let this = rv
            .matrix
            .values()
            .try_fold(1u64, |n, l| n.checked_mul(l.len() as u64));
        let total = this.and_then(|t| t.checked_add(before));
        if let Some(t) = total.filter(|t| *t <= MAX_VARIANTS) {
            return Ok(t);
        }
        let longest = rv.matrix.iter().max_by_key(|(_, l)| l.len());
        let p = match longest {
            Some((k, _)) => path!["variants", vi, "matrix", k.as_str()],
            None => path!["variants", vi, "name"],
        };
        let sizes = rv
            .matrix
            .iter()
            .map(|(k, l)| format!("{k}: {}", l.len()))
            .collect::<Vec<_>>()
            .join(" × ");
        let total = total.map_or("more than 2^64".to_string(), |n| n.to_string());
        let change = match longest {
            Some((k, _)) => {
                format!("shorten the matrix list `{k}` or split the variants over several files")
            }
            None => "split the variants over several files".to_string(),
        };
        let detail = if sizes.is_empty() {
            String::new()
        } else {
            format!(" (this entry's matrix: {sizes})")
        };
        Err(self.err(
            &p,
            format!(
                "the variants would be {total} per params case{detail}; at most {MAX_VARIANTS}: \
                 {change}"
            ),
        ))
    }

    fn variants(&self, raw: &RawScenario, params: &Vars) -> Result<Vec<Variant>, ScenarioError> {
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
                out.push(self.variant(raw, vi, rv, params, &combo)?);
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
        raw: &RawScenario,
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
        let mut passes = Vec::new();
        // Per pass, where its grid and its push constants are written (for the checks below).
        let mut pass_keys: Vec<(Vec<Seg>, Option<Vec<Seg>>)> = Vec::new();
        for (di, d) in raw.dispatch.iter().enumerate() {
            let dp = |k: &str| path!["dispatch", di, k];
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
            let entry = self.entry(raw, (vi, di), &shader, &defines, &d.defines)?;
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
            let (push_constants, pc_key) = match pcs {
                None => (None, None),
                Some(list) => {
                    let key = if d.push_constants.is_some() {
                        dp("push_constants")
                    } else {
                        path!["scenario", "push_constants"]
                    };
                    let e = self.exprs3_any(&key, list, &vars)?;
                    (Some(e), Some(key))
                }
            };
            pass_keys.push((grid_key, pc_key.clone()));
            let mut pdefines = Vec::new();
            for (k, v) in &d.defines {
                let p = path!["dispatch", di, "defines", k];
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
                shader,
                entry,
                workgroup: pass_wg,
                grid,
                push_constants,
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
            requires: vec![],
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
                    ..pass.clone()
                };
                probe
                    .resolve_pass(&grid_only, wg)
                    .map_err(|m| self.err(grid_key, format!("variant `{name}`: {m}")))?;
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
        let m = &raw.measure;
        let opt_u64 = |key: &str, n: &Option<Num>| -> Result<Option<u64>, ScenarioError> {
            n.as_ref()
                .map(|n| self.eval_u64(&path!["measure", key], n, &vars))
                .transpose()
        };
        let work = Work {
            bytes_read: opt_u64("bytes_read", &m.bytes_read)?,
            bytes_written: opt_u64("bytes_written", &m.bytes_written)?,
            flops: opt_u64("flops", &m.flops)?,
            shared_bytes: opt_u64("shared_bytes", &m.shared_bytes)?,
            texels: opt_u64("texels", &m.texels)?,
            texels_linear: opt_u64("texels_linear", &m.texels_linear)?,
            atomics: opt_u64("atomics", &m.atomics)?,
            shared_atomics: opt_u64("shared_atomics", &m.shared_atomics)?,
            int_ops: opt_u64("int_ops", &m.int_ops)?,
            sfu_ops: opt_u64("sfu_ops", &m.sfu_ops)?,
            l1_bytes: opt_u64("l1_bytes", &m.l1_bytes)?,
            l2_bytes: opt_u64("l2_bytes", &m.l2_bytes)?,
            footprint_bytes: opt_u64("footprint_bytes", &m.footprint_bytes)?,
        };
        Ok(Variant {
            name,
            subgroup,
            workgroup,
            defines,
            spec,
            vars,
            passes,
            work,
            requires: self.requires(&vp("requires"), &rv.requires)?,
            key: path!["variants", vi],
            workgroup_key,
        })
    }

    fn exprs3_any(
        &self,
        p: &[Seg],
        list: &[Num],
        vars: &Vars,
    ) -> Result<Vec<String>, ScenarioError> {
        let mut known = vars.clone();
        for w in ["wg_x", "wg_y", "wg_z"] {
            known.insert(w.into(), 1.0);
        }
        list.iter()
            .enumerate()
            .map(|(i, n)| {
                let e = n.as_expr();
                let mut pi = p.to_vec();
                pi.push(Seg::Index(i));
                expr::eval(&e, &known).map_err(|err| self.err(&pi, err.to_string()))?;
                Ok(e)
            })
            .collect()
    }
}

fn image_usage(r: &Resource) -> Option<ImageUsage> {
    match r.kind {
        ResourceKind::Image { usage, .. } => Some(usage),
        ResourceKind::Buffer { .. } => None,
    }
}

fn define_value(v: &toml::Value) -> Option<String> {
    Some(match v {
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => format!("{f:?}"),
        toml::Value::Boolean(b) => u8::from(*b).to_string(),
        toml::Value::String(s) => s.clone(),
        _ => return None,
    })
}

fn check_ident(k: &str) -> Result<(), String> {
    let ok = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "`{k}` is not a valid name (letters, digits and _, not starting with a digit)"
        ))
    }
}

/// The cross product of a params sweep, in key order.
fn cross(sweep: &ParamSweep) -> Vec<Vars> {
    let mut out: Vec<Vars> = vec![Vars::new()];
    for (k, vals) in sweep {
        let mut next = Vec::new();
        for base in &out {
            for v in vals {
                let mut b = base.clone();
                b.insert(k.clone(), *v);
                next.push(b);
            }
        }
        out = next;
    }
    out
}

/// Parse a `--set k=v[,v...]` flag.
pub fn parse_set(s: &str) -> Result<(String, Vec<String>), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("--set `{s}`: expected NAME=VALUE[,VALUE...]"))?;
    let k = k.trim();
    check_ident(k).map_err(|m| format!("--set `{s}`: {m}"))?;
    let vals: Vec<String> = v.split(',').map(|x| x.trim().to_string()).collect();
    if vals.iter().any(|x| x.is_empty()) {
        return Err(format!("--set `{s}`: empty value"));
    }
    Ok((k.to_string(), vals))
}
