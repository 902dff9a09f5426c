//! Link shaderc statically on Debian/Ubuntu; embed the assets; record the git revision.
//!
//! **Assets.** The calibration scenarios (`peaks/`), their shaders (`glsl/peak/`) and the common
//! GLSL includes (`glsl/common/`) go into the binary (`$OUT_DIR/assets.rs`, read by
//! src/assets.rs) with a SHA-256 over their paths and contents, so one copied file is a whole
//! install. **Revision.** `P3LAB_GIT_REVISION` from the environment, else `git rev-parse HEAD`.
//!
//! **shaderc.** shaderc-sys links `libshaderc_combined.a`, which, built from the sources the
//! crate bundles (.cargo/config.toml), holds shaderc, glslang and SPIRV-Tools (whose C API
//! src/vk/spirv_tools.rs calls): nothing else to link but libstdc++. The binary has no run-time
//! dependencies beyond libc/libstdc++ (libvulkan is opened at run time by ash), so one binary
//! built on Debian 12 runs on the GPU machines too.
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The folders whose files the binary carries, relative to the crate root.
const ASSET_DIRS: &[&str] = &["peaks", "glsl/peak", "glsl/common"];

fn files_under(root: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let child = format!("{rel}/{name}");
        match e.file_type() {
            Ok(t) if t.is_dir() => files_under(root, &child, out),
            Ok(t) if t.is_file() => out.push(child),
            _ => {}
        }
    }
}

fn embed_assets() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let mut files = Vec::new();
    for d in ASSET_DIRS {
        println!("cargo:rerun-if-changed={d}");
        files_under(&root, d, &mut files);
    }
    files.sort();
    let mut h = Sha256::new();
    let mut code = String::from("/// Every embedded file: its path relative to the source tree, and its bytes.\npub static FILES: &[(&str, &[u8])] = &[\n");
    for f in &files {
        let bytes = std::fs::read(root.join(f)).expect("asset readable");
        h.update((f.len() as u64).to_le_bytes());
        h.update(f.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
        code.push_str(&format!(
            "    ({f:?}, include_bytes!({:?})),\n",
            root.join(f).display().to_string()
        ));
    }
    code.push_str("];\n");
    let hash: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    code.push_str(&format!(
        "/// SHA-256 over the embedded files' paths and contents.\npub const HASH: &str = {hash:?};\n"
    ));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("assets.rs");
    // Rewritten only when it changed: a new mtime would recompile the crate.
    if std::fs::read_to_string(&out).ok().as_deref() != Some(code.as_str()) {
        std::fs::write(out, code).expect("OUT_DIR writable");
    }
    println!("cargo:rustc-env=P3LAB_ASSETS_HASH={}", &hash[..16]);
}

fn git_revision() {
    println!("cargo:rerun-if-env-changed=P3LAB_GIT_REVISION");
    let rev = std::env::var("P3LAB_GIT_REVISION")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| {
            let git = |args: &[&str]| {
                std::process::Command::new("git")
                    .args(args)
                    .output()
                    .ok()
                    .filter(|o| o.status.success())
                    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            };
            // Rebuild when HEAD moves (a commit, a checkout).
            if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
                println!("cargo:rerun-if-changed={dir}/HEAD");
                let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or(dir);
                if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                    if Path::new(&common).join(&r).exists() {
                        println!("cargo:rerun-if-changed={common}/{r}");
                    }
                }
                if Path::new(&common).join("packed-refs").exists() {
                    println!("cargo:rerun-if-changed={common}/packed-refs");
                }
            }
            // A binary built from a tree with changes git tracks is not that commit: say so
            // (a report's binary once claimed a commit its peaks code was not in). Sources
            // are watched so the mark follows edits and commits.
            println!("cargo:rerun-if-changed=src");
            println!("cargo:rerun-if-changed=Cargo.toml");
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            git(&["rev-parse", "HEAD"]).map(|r| if dirty { format!("{r}-dirty") } else { r })
        });
    println!(
        "cargo:rustc-env=P3LAB_GIT_REVISION={}",
        rev.unwrap_or_else(|| "unknown".into())
    );
}

fn main() {
    embed_assets();
    git_revision();
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
