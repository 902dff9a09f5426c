//! `push_constants` lists (32-bit words, or typed members) and the typed members of uniform
//! buffers: types parsed, offsets laid out, value expressions checked for names and syntax.
use super::*;
use crate::scenario::block::{self, TypedMember};
use crate::shader::reflect::MemberType;

/// A `push_constants` list read: its words, or its typed members (one of them, never both).
pub(super) type PushList = (Option<Vec<String>>, Option<Vec<TypedMember>>);

impl Loader<'_> {
    /// A `push_constants` list at `p`: all words (expressions) or all typed members.
    pub(super) fn push_list(
        &self,
        p: &[Seg],
        list: &[RawPushEntry],
        vars: &Vars,
    ) -> Result<PushList, ScenarioError> {
        let words: Vec<Num> = list
            .iter()
            .filter_map(|e| match e {
                RawPushEntry::Word(n) => Some(n.clone()),
                RawPushEntry::Member(_) => None,
            })
            .collect();
        let members: Vec<RawMember> = list
            .iter()
            .filter_map(|e| match e {
                RawPushEntry::Member(m) => Some(m.clone()),
                RawPushEntry::Word(_) => None,
            })
            .collect();
        match (words.is_empty(), members.is_empty()) {
            (_, true) => Ok((Some(self.exprs3_any(p, &words, vars)?), None)),
            (true, false) => Ok((None, Some(self.typed_members(p, &members, vars, true)?))),
            (false, false) => {
                let first = list
                    .iter()
                    .position(|e| matches!(e, RawPushEntry::Word(_)))
                    .unwrap_or(0);
                Err(self.err(
                    &at(p, first),
                    "a push_constants list is either 32-bit words or typed members \
                     ({ name = \"n\", type = \"u32\", value = \"n\" }), not both: give every \
                     member its type",
                ))
            }
        }
    }

    /// Typed members at `p` (`p[i]` each): types parsed, offsets laid out (std430 or the
    /// `offset` key), names unique, every value an expression over `vars` (and `wg_x`,
    /// `wg_y`, `wg_z` when `wg` is true) with one value per component.
    pub(super) fn typed_members(
        &self,
        p: &[Seg],
        list: &[RawMember],
        vars: &Vars,
        wg: bool,
    ) -> Result<Vec<TypedMember>, ScenarioError> {
        let mut known = vars.clone();
        if wg {
            for w in ["wg_x", "wg_y", "wg_z"] {
                known.insert(w.into(), 1.0);
            }
        }
        let mut types = Vec::new();
        let mut out: Vec<TypedMember> = Vec::new();
        for (i, m) in list.iter().enumerate() {
            let mp = at(p, i);
            if out.iter().any(|o| o.name == m.name) {
                return Err(self.err(
                    &at(&mp, "name"),
                    format!("member `{}` is given twice", m.name),
                ));
            }
            let ty = MemberType::parse(&m.ty).ok_or_else(|| {
                self.err(
                    &at(&mp, "type"),
                    format!(
                        "`{}` is not a member type; one of {}",
                        m.ty,
                        MemberType::NAMES
                    ),
                )
            })?;
            let vp = at(&mp, "value");
            let nums: Vec<(Vec<Seg>, toml::Value)> = match &m.value {
                toml::Value::Array(a) => a
                    .iter()
                    .enumerate()
                    .map(|(c, v)| (at(&vp, c), v.clone()))
                    .collect(),
                v => vec![(vp.clone(), v.clone())],
            };
            if nums.len() != ty.len as usize {
                let want = if ty.len == 1 {
                    "one value (not a list)".to_string()
                } else {
                    format!("a list of {} values", ty.len)
                };
                return Err(self.err(
                    &vp,
                    format!(
                        "member `{}` is {}, which takes {want}; got {}",
                        m.name,
                        ty.name(),
                        match &m.value {
                            toml::Value::Array(a) => format!("a list of {}", a.len()),
                            _ => "one".into(),
                        }
                    ),
                ));
            }
            let mut values = Vec::new();
            for (cp, v) in nums {
                let e = match v {
                    toml::Value::Integer(i) => i.to_string(),
                    toml::Value::Float(f) if f.is_finite() => format!("{f:?}"),
                    toml::Value::String(s) => s,
                    _ => {
                        return Err(self.err(
                            &cp,
                            "a member's value is a number or an expression in quotes",
                        ))
                    }
                };
                expr::eval(&e, &known).map_err(|err| self.err(&cp, err.to_string()))?;
                values.push(e);
            }
            types.push((ty, m.offset));
            out.push(TypedMember {
                name: m.name.clone(),
                ty,
                offset: 0,
                values,
                key: mp,
            });
        }
        let offsets =
            block::layout(&types).map_err(|(i, why)| self.err(&at(&at(p, i), "offset"), why))?;
        for (m, o) in out.iter_mut().zip(offsets) {
            m.offset = o;
        }
        Ok(out)
    }
}
