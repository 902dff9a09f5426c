//! The bounds on how much a file may expand to (params cases, variants), checked before it
//! is expanded.
use super::*;

impl Loader<'_> {
    /// The params cases a sweep crosses into, refused past [`MAX_PARAMS_CASES`] before any is
    /// built.
    pub(super) fn check_case_count(&self, sweep: &ParamSweep) -> Result<(), ScenarioError> {
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
    pub(super) fn check_variant_count(
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

    /// Every variant has passes, its own or the scenario's, and at most [`MAX_PASSES`] of them.
    pub(super) fn check_passes(&self, raw: &RawScenario) -> Result<(), ScenarioError> {
        let lists = std::iter::once((path!["dispatch"], &raw.dispatch, "[[dispatch]]")).chain(
            raw.variants.iter().enumerate().filter_map(|(vi, v)| {
                let list = v.dispatch.as_ref()?;
                Some((
                    path!["variants", vi, "dispatch"],
                    list,
                    "[[variants.dispatch]]",
                ))
            }),
        );
        for (key, list, what) in lists {
            if list.len() > MAX_PASSES {
                return Err(self.err(
                    &at(&key, MAX_PASSES),
                    format!(
                        "{} {what} entries; one variant may have at most {MAX_PASSES} passes",
                        list.len()
                    ),
                ));
            }
        }
        for (vi, v) in raw.variants.iter().enumerate() {
            match &v.dispatch {
                Some(list) if list.is_empty() => {
                    return Err(self.err(
                        &path!["variants", vi, "dispatch"],
                        "an empty list of passes: give at least one, or leave `dispatch` out \
                         to run the scenario's [[dispatch]]",
                    ))
                }
                None if raw.dispatch.is_empty() => {
                    return Err(self.err(
                        &path!["variants", vi, "name"],
                        format!(
                            "variant `{}` has no passes: the scenario has no [[dispatch]] and \
                             the variant no [[variants.dispatch]] of its own",
                            v.name
                        ),
                    ))
                }
                _ => {}
            }
        }
        Ok(())
    }
}
