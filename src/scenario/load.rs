//! Reading a scenario file: TOML → raw model → validated, expanded [`Scenario`].
use crate::path;
use crate::scenario::error::{key_string, Locator, ScenarioError, Seg};
use crate::scenario::expr::{self, Vars};
use crate::scenario::model::*;
use crate::scenario::types::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod bounds;
mod case;
mod check;
mod files;
mod lang;
mod overrides;
mod push;
mod reference;
mod resources;
mod variants;

/// `[measure]` defaults for the rounds (docs/scenarios.md): at least 5 rounds, at most 30,
/// until the median's CI half-width is 0.5 % or a variant's batches took 400 ms.
pub const DEFAULT_ROUNDS: u32 = 5;
/// Default `[measure].max_rounds` (raised to `rounds` when that is larger).
pub const DEFAULT_MAX_ROUNDS: u32 = 30;
/// Default `[measure].ci_target_pct`: the median's CI half-width, % of the median, at which rounds
/// stop.
pub const DEFAULT_CI_TARGET_PCT: f64 = 0.5;
/// Default `[measure].budget_ms`: a variant's batch time, ms, after which rounds stop.
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
        if raw.dispatch.is_empty() && raw.variants.iter().all(|v| v.dispatch.is_none()) {
            return Err(self.err(
                &path!["dispatch"],
                "no [[dispatch]]: a scenario needs at least one",
            ));
        }
        self.check_passes(&raw)?;
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
            baseline: self.summary_baseline(&raw, &cases)?,
            cases,
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

/// `p` with one more step: `at(&path!["dispatch", 0], "grid")` is `dispatch[0].grid`.
fn at(p: &[Seg], seg: impl Into<Seg>) -> Vec<Seg> {
    let mut out = p.to_vec();
    out.push(seg.into());
    out
}

fn image_usage(r: &Resource) -> Option<ImageUsage> {
    match r.kind {
        ResourceKind::Image { usage, .. } => Some(usage),
        ResourceKind::Buffer { .. } | ResourceKind::Uniform { .. } => None,
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
