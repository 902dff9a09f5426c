//! `#include` resolution, shared by shaderc's include callback and the scan that puts every
//! included file's contents into the cache key before compiling.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Resolves `requested` against the including file's folder, then each include dir in order.
/// Shared by the shaderc callback and the pre-compile key scan so both agree on which file is meant.
pub(super) fn resolve_include(
    requested: &str,
    requesting: &str,
    include_dirs: &[PathBuf],
) -> Result<PathBuf, String> {
    let own_dir = Path::new(requesting)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    std::iter::once(own_dir)
        .chain(include_dirs.iter().cloned())
        .map(|d| d.join(requested))
        .find(|p| p.is_file())
        .ok_or_else(|| format!("cannot find include file `{requested}`"))
}

pub(super) enum Dep {
    Found(String, String),
    Missing(String),
}

/// How deep `#include`s may nest.
pub(super) const MAX_INCLUDE_DEPTH: usize = 32;

/// Transitive includes by textual scan, so the cache key is known before compiling.
/// Includes inside inactive `#if` blocks are counted too; that only makes the key stricter.
pub(super) fn collect_includes(display: &str, source: &str, include_dirs: &[PathBuf]) -> Vec<Dep> {
    let mut deps = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![(display.to_string(), source.to_string())];
    while let Some((file, text)) = stack.pop() {
        let mut children = Vec::new();
        for name in include_names(&text) {
            match resolve_include(&name, &file, include_dirs) {
                Ok(path) => {
                    let resolved = path.to_string_lossy().into_owned();
                    if !seen.insert(resolved.clone()) {
                        continue;
                    }
                    match std::fs::read_to_string(&path) {
                        Ok(content) => {
                            deps.push(Dep::Found(resolved.clone(), content.clone()));
                            children.push((resolved, content));
                        }
                        Err(_) => deps.push(Dep::Missing(resolved)),
                    }
                }
                Err(_) => deps.push(Dep::Missing(name)),
            }
        }
        // Reverse so the stack visits includes in source order, keeping the key deterministic.
        stack.extend(children.into_iter().rev());
    }
    deps
}

pub(super) fn include_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let close = match rest.chars().next()? {
                '"' => '"',
                '<' => '>',
                _ => return None,
            };
            let body = &rest[1..];
            let end = body.find(close)?;
            Some(body[..end].to_string())
        })
        .collect()
}
