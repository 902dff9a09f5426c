//! `[check] reference`: a built-in's name (checked against what it declares it needs), a
//! command (`{ command = ["python3", "ref.py"], timeout_s = 60 }`), or precomputed answers
//! (`{ files = { dst = "expected-{width}.npy" } }`, checked like a file init).
use super::Loader;
use crate::path;
use crate::scenario::error::{ScenarioError, Seg};
use crate::scenario::expr::Vars;
use crate::scenario::npy;
use crate::scenario::types::{Reference, Resource};
use std::path::Path;

/// A command reference's default time limit, seconds.
pub const DEFAULT_TIMEOUT_S: f64 = 60.0;

impl Loader<'_> {
    pub(super) fn reference(
        &self,
        v: &toml::Value,
        params: &Vars,
        resources: &[Resource],
        outputs: &[String],
    ) -> Result<Reference, ScenarioError> {
        let key = path!["check", "reference"];
        let sub = |k: &str| {
            let mut p = key.clone();
            p.push(Seg::Key(k.into()));
            p
        };
        match v {
            toml::Value::String(name) => {
                let b = crate::scenario::refs::builtin(name).ok_or_else(|| {
                    self.err(
                        &key,
                        format!(
                            "unknown built-in reference `{name}` (known: {}; or give your own: \
                             {{ command = [...] }} or {{ files = {{ ... }} }})",
                            crate::scenario::refs::reference_names().join(", ")
                        ),
                    )
                })?;
                crate::scenario::refs::applies(b, params, resources, outputs)
                    .map_err(|m| self.err(&key, m))?;
                Ok(Reference::Builtin(name.clone()))
            }
            toml::Value::Table(t) => {
                if let Some(k) = t
                    .keys()
                    .find(|k| !["command", "timeout_s", "files"].contains(&k.as_str()))
                {
                    return Err(self.err(
                        &sub(k),
                        format!("unknown key `{k}` (a reference table takes `command` and `timeout_s`, or `files`)"),
                    ));
                }
                match (t.get("command"), t.get("files")) {
                    (Some(c), None) => self.command(c, t.get("timeout_s"), &sub),
                    (None, Some(f)) => {
                        if t.contains_key("timeout_s") {
                            return Err(self.err(
                                &sub("timeout_s"),
                                "`timeout_s` applies to a command",
                            ));
                        }
                        self.files(f, params, resources, outputs, &sub)
                    }
                    _ => Err(self.err(
                        &key,
                        "give `command = [\"prog\", \"arg\", ...]` or `files = { OUTPUT = \"file.npy\" }`",
                    )),
                }
            }
            _ => Err(self.err(
                &key,
                "a reference is a built-in's name, { command = [...] } or { files = { ... } }",
            )),
        }
    }

    fn command(
        &self,
        c: &toml::Value,
        timeout: Option<&toml::Value>,
        sub: &dyn Fn(&str) -> Vec<Seg>,
    ) -> Result<Reference, ScenarioError> {
        let list = c.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
            self.err(
                &sub("command"),
                "a command is a list: [\"python3\", \"ref.py\"]",
            )
        })?;
        let base = self.path.parent().unwrap_or(Path::new(""));
        let mut argv = Vec::new();
        for (i, a) in list.iter().enumerate() {
            let mut k = sub("command");
            k.push(Seg::Index(i));
            let s = a
                .as_str()
                .ok_or_else(|| self.err(&k, "every word of a command is a string"))?;
            // The command runs in a scratch folder: a word naming a file next to the scenario
            // (the script) is made absolute.
            let beside = base.join(s);
            let word = if !s.is_empty() && !Path::new(s).is_absolute() && beside.is_file() {
                std::path::absolute(&beside)
                    .unwrap_or(beside)
                    .display()
                    .to_string()
            } else {
                s.to_string()
            };
            argv.push(word);
        }
        let timeout_s = match timeout {
            None => DEFAULT_TIMEOUT_S,
            Some(v) => {
                let t = v.as_float().or(v.as_integer().map(|i| i as f64));
                match t {
                    Some(t) if t > 0.0 && t <= 86_400.0 => t,
                    _ => {
                        return Err(self.err(
                            &sub("timeout_s"),
                            "a timeout is a number of seconds, above 0 and at most 86400",
                        ))
                    }
                }
            }
        };
        Ok(Reference::Command { argv, timeout_s })
    }

    fn files(
        &self,
        f: &toml::Value,
        params: &Vars,
        resources: &[Resource],
        outputs: &[String],
        sub: &dyn Fn(&str) -> Vec<Seg>,
    ) -> Result<Reference, ScenarioError> {
        let t = f.as_table().ok_or_else(|| {
            self.err(
                &sub("files"),
                "`files` maps outputs to .npy files: { dst = \"expected.npy\" }",
            )
        })?;
        let mut files = Vec::new();
        for o in outputs {
            if !t.contains_key(o) {
                return Err(self.err(
                    &sub("files"),
                    format!("no file for the checked output `{o}`"),
                ));
            }
        }
        for (name, v) in t {
            let mut k = sub("files");
            k.push(Seg::Key(name.clone()));
            let r = resources
                .iter()
                .find(|r| &r.name == name)
                .ok_or_else(|| self.err(&k, format!("no resource named `{name}`")))?;
            let written = v.as_str().ok_or_else(|| self.err(&k, "a path in quotes"))?;
            let path = self.scenario_file(&k, written, params)?;
            let header = npy::read_header(&path)
                .map_err(|m| self.err(&k, format!("{}: {m}", path.display())))?;
            if let Err(want) = npy::fits(r, &header) {
                return Err(self.err(
                    &k,
                    format!(
                        "{} holds {}; `{name}` needs {want}",
                        path.display(),
                        header.describe()
                    ),
                ));
            }
            files.push((name.clone(), path));
        }
        Ok(Reference::Files(files))
    }
}
