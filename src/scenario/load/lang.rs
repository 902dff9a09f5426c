//! What a pass's shader language allows: the entry point (`main` for GLSL, any name for HLSL
//! and SPIR-V) and whether defines can reach it (not into a SPIR-V binary or assembly).
use super::{at, Loader};
use crate::path;
use crate::scenario::error::{ScenarioError, Seg};
use crate::scenario::model::{RawDispatch, RawScenario};
use crate::shader::SourceKind;
use std::path::Path;

impl Loader<'_> {
    /// The entry point of pass `d` (written at `dkey`) of variant `vi`: the dispatch's `entry`,
    /// else the variant's, else `[scenario] entry`, else `main`.
    pub(super) fn entry(
        &self,
        raw: &RawScenario,
        vi: usize,
        (d, dkey): (&RawDispatch, &[Seg]),
        shader: &Path,
        variant_defines: &[(String, String)],
    ) -> Result<String, ScenarioError> {
        let (entry, key) = match (&d.entry, &raw.variants[vi].entry, &raw.scenario.entry) {
            (Some(e), _, _) => (e.clone(), at(dkey, "entry")),
            (None, Some(e), _) => (e.clone(), path!["variants", vi, "entry"]),
            (None, None, Some(e)) => (e.clone(), path!["scenario", "entry"]),
            (None, None, None) => ("main".to_string(), path!["scenario", "entry"]),
        };
        let kind = SourceKind::of(shader);
        if entry.is_empty() || entry.contains('\0') {
            return Err(self.err(&key, "an entry point needs a name"));
        }
        if kind == SourceKind::Glsl && entry != "main" {
            return Err(self.err(
                &key,
                format!(
                    "`{entry}`: a GLSL shader's entry point is always `main` ({} is GLSL; \
                     `entry` is for .hlsl, .spv and .spvasm shaders)",
                    shader.display()
                ),
            ));
        }
        if !kind.is_source() {
            let given: Vec<&str> = variant_defines
                .iter()
                .map(|(k, _)| k.as_str())
                .chain(d.defines.keys().map(String::as_str))
                .collect();
            if !given.is_empty() {
                return Err(self.err(
                    &at(dkey, "shader"),
                    format!(
                        "{} is SPIR-V: defines ({}) cannot reach it; use specialization \
                         constants (`spec`) or compile the variants from source",
                        shader.display(),
                        given.join(", ")
                    ),
                ));
            }
        }
        Ok(entry)
    }
}
