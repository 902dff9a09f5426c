//! The files p3lab carries inside its binary: the calibration scenarios of `p3lab peak`
//! (peaks/), their shaders (glsl/peak/) and the common GLSL includes (glsl/common/, e.g.
//! `p3lab.glsl`), embedded by build.rs. Copying the binary alone is a whole install.
//!
//! Shaders and scenario files are read from disk (shaderc resolves `#include`s against
//! folders, and the SPIR-V cache keys on the files it read), so the first use writes the
//! embedded files once into `~/.cache/p3lab/assets/HASH/` (beside the SPIR-V cache; inside
//! `$P3LAB_CACHE_DIR` where that is set), and later runs reuse it. A folder given on the command line or
//! in an environment variable wins over them (`--peaks-dir` / `P3LAB_PEAKS_DIR`,
//! `--include-dir` / `P3LAB_GLSL_COMMON`).
use anyhow::Context as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/assets.rs"));
}

/// SHA-256 over the embedded files' paths and contents (`p3lab --version` shows 16 digits).
pub fn hash() -> &'static str {
    embedded::HASH
}

/// The embedded files: path relative to the source tree, contents.
pub fn files() -> &'static [(&'static str, &'static [u8])] {
    embedded::FILES
}

/// The folder holding the embedded files (`peaks/`, `glsl/common/`, `glsl/peak/`), written on
/// first use; an error says where it could not be written.
pub fn root() -> anyhow::Result<&'static Path> {
    static ROOT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    ROOT.get_or_init(|| {
        // Beside the SPIR-V cache (~/.cache/p3lab/assets), or inside $P3LAB_CACHE_DIR.
        let base = crate::shader::beside_spirv_cache("assets");
        extract(&base)
            .or_else(|first| {
                // An unwritable cache (a read-only home) falls back to the temp folder, per user.
                let tmp = std::env::temp_dir().join(format!("p3lab-assets-{}", user_tag()));
                extract(&tmp).map_err(|e| format!("{first:#}; {e:#}"))
            })
            .map_err(|e| format!("cannot write p3lab's built-in files: {e}"))
    })
    .as_ref()
    .map(PathBuf::as_path)
    .map_err(|e| anyhow::anyhow!("{e}"))
}

fn user_tag() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "user".into())
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

/// `base/HASH/` with every embedded file, byte for byte. A folder that is there and complete
/// is used as it is; anything else is written afresh beside it (`.HASH-PID`) and renamed into
/// place, so two processes starting together never see half a folder. The folder written
/// beside is removed on every failure (a full or unwritable disk) and on an interrupt
/// (crate::cleanup); one a killed process left is removed by the next extraction.
pub fn extract(base: &Path) -> anyhow::Result<PathBuf> {
    let dir = base.join(&hash()[..16]);
    if matches(&dir) {
        return Ok(dir);
    }
    std::fs::create_dir_all(base).with_context(|| format!("creating {}", base.display()))?;
    // Left by a killed p3lab, of any version: `.HASH-PID` and `.HASH-stale-PID`.
    crate::cleanup::remove_stale(base, stale_pid, None);
    let tmp = base.join(format!(".{}-{}", &hash()[..16], std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let temp = crate::cleanup::Temp::create_dir(&tmp)
        .with_context(|| format!("creating {}", tmp.display()))?;
    for (rel, bytes) in files() {
        let p = tmp.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&p, bytes).with_context(|| format!("writing {}", p.display()))?;
    }
    // Another process may have put a complete copy in place while this one wrote its own:
    // check again now, just before touching `dir` (deleting it here, as p3lab once did, pulled
    // the include files from under a process already compiling with them). `temp` goes.
    if matches(&dir) {
        return Ok(dir);
    }
    if dir.exists() {
        // There but not matching (edited, or cut short): moved aside in one step, not deleted
        // file by file, and only then replaced.
        let aside = base.join(format!(".{}-stale-{}", &hash()[..16], std::process::id()));
        if std::fs::rename(&dir, &aside).is_ok() {
            let _ = std::fs::remove_dir_all(&aside);
        }
    }
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => {
            temp.keep();
            Ok(dir)
        }
        // Another process renamed its copy first: use that one.
        Err(_) if matches(&dir) => Ok(dir),
        Err(e) => Err(e).with_context(|| format!("renaming into {}", dir.display())),
    }
}

/// The process id in the name of a folder an extraction writes beside (`.HASH-PID`,
/// `.HASH-stale-PID`, HASH 16 hex digits).
fn stale_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let (hash, rest) = rest.split_at_checked(16)?;
    if !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let rest = rest.strip_prefix('-')?;
    crate::cleanup::pid_in(rest.strip_prefix("stale-").unwrap_or(rest))
}

/// Every embedded file is in `dir` with the same bytes.
fn matches(dir: &Path) -> bool {
    files()
        .iter()
        .all(|(rel, bytes)| std::fs::read(dir.join(rel)).is_ok_and(|b| b == *bytes))
}

/// The calibration scenarios: `explicit` (`peak --peaks-dir`), else `$P3LAB_PEAKS_DIR`, else
/// the built-in ones.
pub fn peaks_dir(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(d) = explicit {
        return Ok(d.to_path_buf());
    }
    if let Some(d) = std::env::var_os("P3LAB_PEAKS_DIR").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(d));
    }
    Ok(root()?.join("peaks"))
}

/// The built-in common GLSL includes (`p3lab.glsl`).
pub fn glsl_common() -> anyhow::Result<PathBuf> {
    Ok(root()?.join("glsl").join("common"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embeds_the_calibrations_and_includes() {
        let names: Vec<&str> = files().iter().map(|(n, _)| *n).collect();
        for want in [
            "peaks/fma.toml",
            "glsl/peak/fma.comp",
            "glsl/common/p3lab.glsl",
        ] {
            assert!(names.contains(&want), "{want} missing from {names:?}");
        }
        assert_eq!(hash().len(), 64);
    }

    #[test]
    fn extracts_once_and_repairs_an_edited_copy() {
        let t = tempfile::tempdir().unwrap();
        let dir = extract(t.path()).unwrap();
        let p = dir.join("glsl/common/p3lab.glsl");
        let original = std::fs::read(&p).unwrap();
        assert_eq!(extract(t.path()).unwrap(), dir, "reused");
        std::fs::write(&p, b"edited").unwrap();
        assert_eq!(extract(t.path()).unwrap(), dir);
        assert_eq!(
            std::fs::read(&p).unwrap(),
            original,
            "rewritten from the binary"
        );
        // Nothing left over from the rewrite.
        let entries: Vec<_> = std::fs::read_dir(t.path()).unwrap().flatten().collect();
        assert_eq!(entries.len(), 1, "{entries:?}");
    }
}
