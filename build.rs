//! Link shaderc statically on Debian/Ubuntu.
//!
//! Debian's `libshaderc_combined.a` holds only shaderc itself; glslang and SPIRV-Tools live in
//! their own static archives in the same folder. Linking them here keeps the binary free of
//! run-time dependencies beyond libc/libstdc++ (libvulkan is opened at run time by ash), so one
//! binary built on Debian 12 runs on the GPU machines too.
fn main() {
    println!("cargo:rerun-if-env-changed=SHADERC_LIB_DIR");
    let dir = std::env::var("SHADERC_LIB_DIR")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu".to_string());
    println!("cargo:rustc-link-search=native={dir}");
    let libs = [
        "glslang",
        "MachineIndependent",
        "GenericCodeGen",
        "OSDependent",
        "OGLCompiler",
        "HLSL",
        "SPIRV",
        "SPIRV-Tools-opt",
        "SPIRV-Tools",
    ];
    for lib in libs {
        if std::path::Path::new(&dir)
            .join(format!("lib{lib}.a"))
            .exists()
        {
            println!("cargo:rustc-link-lib=static:-bundle={lib}");
        }
    }
    println!("cargo:rustc-link-lib=dylib=stdc++");
}
