//! SPIRV-Tools' C API (the static libraries build.rs links with shaderc): validate a module
//! before any driver sees it, and assemble SPIR-V text (`.spvasm`).
//!
//! Lives under vk/ because it is a foreign-function boundary (the only other place with
//! `unsafe`); it touches no Vulkan object.
use std::ffi::c_char;

/// `spv_target_env::SPV_ENV_VULKAN_1_3` (libspirv.h): SPIR-V up to 1.6 with Vulkan 1.3's rules.
const SPV_ENV_VULKAN_1_3: i32 = 25;
const SPV_SUCCESS: i32 = 0;

#[repr(C)]
struct Position {
    line: usize,
    column: usize,
    index: usize,
}

#[repr(C)]
struct Diagnostic {
    position: Position,
    error: *mut c_char,
    is_text_source: bool,
}

#[repr(C)]
struct Binary {
    code: *mut u32,
    word_count: usize,
}

#[repr(C)]
struct Context {
    _opaque: [u8; 0],
}

extern "C" {
    fn spvContextCreate(env: i32) -> *mut Context;
    fn spvContextDestroy(context: *mut Context);
    fn spvValidateBinary(
        context: *const Context,
        words: *const u32,
        num_words: usize,
        diagnostic: *mut *mut Diagnostic,
    ) -> i32;
    fn spvTextToBinary(
        context: *const Context,
        text: *const c_char,
        length: usize,
        binary: *mut *mut Binary,
        diagnostic: *mut *mut Diagnostic,
    ) -> i32;
    fn spvBinaryDestroy(binary: *mut Binary);
    fn spvDiagnosticDestroy(diagnostic: *mut Diagnostic);
}

/// A SPIRV-Tools context, destroyed on drop.
struct Ctx(*mut Context);

impl Ctx {
    fn new() -> Result<Ctx, String> {
        // SAFETY: spvContextCreate takes a valid enum value and returns an owned context or null.
        let p = unsafe { spvContextCreate(SPV_ENV_VULKAN_1_3) };
        if p.is_null() {
            return Err("SPIRV-Tools could not create a context".into());
        }
        Ok(Ctx(p))
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: self.0 came from spvContextCreate and is destroyed exactly once, here.
        unsafe { spvContextDestroy(self.0) }
    }
}

/// Take a diagnostic's text (with its position for text sources) and free it.
fn take_diagnostic(d: *mut Diagnostic, what: &str) -> String {
    if d.is_null() {
        return format!("{what} failed (no diagnostic)");
    }
    // SAFETY: a non-null diagnostic from SPIRV-Tools points to a valid spv_diagnostic_t whose
    // `error` is null or a NUL-terminated string it owns; we read both before destroying it.
    let text = unsafe {
        let diag = &*d;
        let msg = if diag.error.is_null() {
            String::from("(no message)")
        } else {
            std::ffi::CStr::from_ptr(diag.error)
                .to_string_lossy()
                .trim()
                .to_string()
        };
        if diag.is_text_source {
            format!(
                "line {}, column {}: {msg}",
                diag.position.line + 1,
                diag.position.column + 1
            )
        } else {
            msg
        }
    };
    // SAFETY: d came from SPIRV-Tools and is destroyed exactly once, after its last use above.
    unsafe { spvDiagnosticDestroy(d) };
    text
}

/// Validate a module against Vulkan 1.3's rules: the validator's first complaint, or Ok.
pub fn validate(words: &[u32]) -> Result<(), String> {
    let ctx = Ctx::new()?;
    let mut diag: *mut Diagnostic = std::ptr::null_mut();
    // SAFETY: the context is live; `words` is a valid slice for its length; diag receives an
    // owned diagnostic (or stays null) that take_diagnostic frees.
    let r = unsafe { spvValidateBinary(ctx.0, words.as_ptr(), words.len(), &mut diag) };
    if r == SPV_SUCCESS {
        if !diag.is_null() {
            // SAFETY: an owned diagnostic, freed once.
            unsafe { spvDiagnosticDestroy(diag) };
        }
        return Ok(());
    }
    Err(take_diagnostic(diag, "validation"))
}

/// Assemble SPIR-V assembly text (spirv-as syntax) into a module.
pub fn assemble(text: &str) -> Result<Vec<u32>, String> {
    let ctx = Ctx::new()?;
    let mut bin: *mut Binary = std::ptr::null_mut();
    let mut diag: *mut Diagnostic = std::ptr::null_mut();
    // SAFETY: the context is live; text is valid for `len` bytes (no NUL needed: the length is
    // given); bin and diag receive owned objects (or stay null) that are freed below.
    let r =
        unsafe { spvTextToBinary(ctx.0, text.as_ptr().cast(), text.len(), &mut bin, &mut diag) };
    if r != SPV_SUCCESS || bin.is_null() {
        if !bin.is_null() {
            // SAFETY: an owned binary, freed once.
            unsafe { spvBinaryDestroy(bin) };
        }
        return Err(take_diagnostic(diag, "assembly"));
    }
    // SAFETY: on success bin points to a binary whose `code` holds `word_count` words; they are
    // copied out before the binary is destroyed, once.
    let words = unsafe {
        let b = &*bin;
        let w = std::slice::from_raw_parts(b.code, b.word_count).to_vec();
        spvBinaryDestroy(bin);
        w
    };
    if !diag.is_null() {
        // SAFETY: an owned diagnostic, freed once.
        unsafe { spvDiagnosticDestroy(diag) };
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    const MINIMAL: &str = "
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main \"main\"
               OpExecutionMode %main LocalSize 64 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %main = OpFunction %void None %fn
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
";

    #[test]
    fn assembles_and_validates_a_minimal_compute_shader() {
        let words = super::assemble(MINIMAL).unwrap();
        assert_eq!(words[0], 0x0723_0203);
        super::validate(&words).unwrap();
    }

    #[test]
    fn a_cut_or_broken_module_fails_validation_with_a_reason() {
        let words = super::assemble(MINIMAL).unwrap();
        let cut = &words[..words.len() - 2];
        assert!(super::validate(cut).is_err());
        // OpReturn dropped: the block has no terminator.
        let no_return = MINIMAL.replace("OpReturn\n", "");
        let broken = super::assemble(&no_return).unwrap();
        let e = super::validate(&broken).unwrap_err();
        assert!(!e.is_empty(), "{e}");
    }

    #[test]
    fn assembly_errors_name_the_line() {
        let e = super::assemble("OpCapability Shader\n  %x = OpNoSuchThing\n").unwrap_err();
        assert!(e.starts_with("line 2"), "{e}");
    }
}
