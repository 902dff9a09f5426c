//! Specialization constants the source text declares, whichever preprocessor branch they sit
//! in (issue 40): llama.cpp passes its whole warptile list to every matmul pipeline, and
//! mul_mm.comp declares `BK` (constant_id 3) only where the weights are quantized: for f32 and
//! f16 weights it `#define`s it instead. Vulkan ignores a map entry for an ID the module does
//! not use; p3lab accepts it where the source declares the ID somewhere (its value then changes
//! nothing, and run.json lists it as unused), and still refuses an ID declared nowhere, a
//! likely typo.
use std::path::{Path, PathBuf};

/// Where the text of `shader`, or a file it includes with `#include "..."` (found beside the
/// including file), declares specialization constant `id`: GLSL `constant_id = N`, HLSL
/// `[[vk::constant_id(N)]]`. The file and its 1-based line.
pub fn declared_in_text(shader: &Path, id: u32) -> Option<(PathBuf, usize)> {
    let mut seen: Vec<PathBuf> = Vec::new();
    find(shader, id, &mut seen)
}

fn find(file: &Path, id: u32, seen: &mut Vec<PathBuf>) -> Option<(PathBuf, usize)> {
    let canon = file.canonicalize().ok()?;
    if seen.contains(&canon) || seen.len() > 256 {
        return None;
    }
    seen.push(canon);
    let text = std::fs::read_to_string(file).ok()?;
    let dir = file.parent().unwrap_or(Path::new("."));
    for (i, line) in text.lines().enumerate() {
        if ids_in(line).contains(&id) {
            return Some((file.to_path_buf(), i + 1));
        }
    }
    for line in text.lines() {
        if let Some(name) = include_of(line) {
            if let Some(hit) = find(&dir.join(name), id, seen) {
                return Some(hit);
            }
        }
    }
    None
}

/// The constant IDs a line declares (`constant_id = 3`, `constant_id(3)`).
fn ids_in(line: &str) -> Vec<u32> {
    let code = line.split("//").next().unwrap_or("");
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("constant_id") {
        let after = rest[at + "constant_id".len()..].trim_start();
        let after = after
            .strip_prefix('=')
            .or_else(|| after.strip_prefix('('))
            .map(str::trim_start);
        if let Some(a) = after {
            let digits: String = a.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                out.push(n);
            }
        }
        rest = &rest[at + "constant_id".len()..];
    }
    out
}

/// The file named by `#include "name"` on this line.
fn include_of(line: &str) -> Option<&str> {
    let l = line.trim_start().strip_prefix('#')?.trim_start();
    let l = l.strip_prefix("include")?.trim_start();
    let l = l.strip_prefix('"')?;
    l.split('"').next().filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_glsl_and_hlsl_lines_and_not_in_comments() {
        assert_eq!(
            ids_in("layout (constant_id = 3) const uint BK = 16;"),
            vec![3]
        );
        assert_eq!(ids_in("layout(constant_id=12) const uint X = 0;"), vec![12]);
        assert_eq!(ids_in("[[vk::constant_id(7)]] const uint N = 1;"), vec![7]);
        assert!(ids_in("// layout(constant_id = 3)").is_empty());
        assert!(ids_in("uint constant_idx = 3;").is_empty());
        assert_eq!(include_of("#include \"types.glsl\""), Some("types.glsl"));
        assert_eq!(include_of("  #  include \"a/b.h\" // x"), Some("a/b.h"));
        assert_eq!(include_of("#include <p3lab.glsl>"), None);
    }

    #[test]
    fn a_declaration_in_an_inactive_branch_or_an_include_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("m.comp");
        std::fs::write(
            &main,
            "#version 450\n#include \"inc.glsl\"\n#ifdef Q\nlayout(constant_id = 3) const uint BK = 16;\n#endif\nvoid main() {}\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("inc.glsl"),
            "#include \"m.comp\"\nlayout(constant_id = 9) const uint T = 1;\n",
        )
        .unwrap();
        assert_eq!(declared_in_text(&main, 3), Some((main.clone(), 4)));
        assert_eq!(
            declared_in_text(&main, 9),
            Some((dir.path().join("inc.glsl"), 2))
        );
        assert_eq!(declared_in_text(&main, 5), None);
    }
}
