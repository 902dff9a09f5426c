//! What is asked of the compiler and how it can fail: the optimisation level, the kind of
//! source a file holds, one variant's compile request, and the errors (with shaderc's log read
//! for the first `file:line: error:`). compile.rs does the compiling.
use std::fmt;
use std::path::{Path, PathBuf};

/// Optimisation level handed to shaderc.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum OptLevel {
    /// shaderc's `zero`: no optimisation (`opt = "zero"`, alias `"none"`).
    Zero,
    /// shaderc's `size`: optimise for code size.
    Size,
    /// shaderc's `performance`, the default.
    #[default]
    Performance,
}

impl OptLevel {
    pub(super) fn to_shaderc(self) -> shaderc::OptimizationLevel {
        match self {
            OptLevel::Zero => shaderc::OptimizationLevel::Zero,
            OptLevel::Size => shaderc::OptimizationLevel::Size,
            OptLevel::Performance => shaderc::OptimizationLevel::Performance,
        }
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            OptLevel::Zero => "zero",
            OptLevel::Size => "size",
            OptLevel::Performance => "performance",
        }
    }
}

/// What a shader file holds, by its extension: `.hlsl` HLSL, `.spv` a SPIR-V binary, `.spvasm`
/// SPIR-V assembly, anything else (`.comp`, `.glsl`) GLSL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// GLSL (`.comp`, `.glsl` or any other extension), compiled by shaderc.
    Glsl,
    /// HLSL (`.hlsl`), compiled by shaderc.
    Hlsl,
    /// A SPIR-V binary (`.spv`), validated and used as it is.
    Spirv,
    /// SPIR-V assembly (`.spvasm`), assembled by SPIRV-Tools, then validated.
    SpirvAsm,
}

impl SourceKind {
    /// The kind of `path`, by its extension (case-insensitive).
    pub fn of(path: &Path) -> SourceKind {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("hlsl") => SourceKind::Hlsl,
            Some("spv") => SourceKind::Spirv,
            Some("spvasm") => SourceKind::SpirvAsm,
            _ => SourceKind::Glsl,
        }
    }

    /// Compiled by shaderc (defines, includes and the probe wrapper apply).
    pub fn is_source(self) -> bool {
        matches!(self, SourceKind::Glsl | SourceKind::Hlsl)
    }

    /// `glsl`, `hlsl`, `spirv` or `spvasm`: part of the cache key.
    pub fn label(self) -> &'static str {
        match self {
            SourceKind::Glsl => "glsl",
            SourceKind::Hlsl => "hlsl",
            SourceKind::Spirv => "spirv",
            SourceKind::SpirvAsm => "spvasm",
        }
    }
}

/// One shader variant to compile.
#[derive(Debug, Clone)]
pub struct CompileRequest {
    /// The shader file (GLSL `.comp`, HLSL `.hlsl`, or SPIR-V `.spv`/`.spvasm`); shown to
    /// users exactly as given.
    pub path: PathBuf,
    /// Per-variant `#define`s, in order.
    pub defines: Vec<(String, String)>,
    /// Searched after the including file's own folder.
    pub include_dirs: Vec<PathBuf>,
    /// shaderc's optimisation level (`[scenario].opt`).
    pub opt: OptLevel,
    /// The entry point shaderc compiles (`main` for GLSL; the HLSL function's name).
    pub entry_point: String,
    /// Per-subgroup probes around `main` (`--probe`): unless the shader calls
    /// `p3_group_begin` itself, its `main` becomes `p3_user_main`, called by a `main` that
    /// records each subgroup's start and end (glsl/common/p3lab.glsl).
    pub wrap_groups: bool,
}

/// Why a shader did not compile.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CompileError {
    /// The shader source could not be read.
    #[error("cannot read shader `{path}`: {message}")]
    Io {
        /// The shader file as given.
        path: String,
        /// The operating system's error.
        message: String,
    },
    /// shaderc rejected the source: names file and line of the first error, plus the full log.
    #[error("{}", GlslDisplay { file, line: *line, message })]
    Glsl {
        /// The shader file as given (or the name of p3lab's own shader).
        file: String,
        /// 0 when shaderc did not say.
        line: u32,
        /// The first error's text.
        message: String,
        /// shaderc's (or the validator's) whole message.
        log: String,
    },
}

struct GlslDisplay<'a> {
    file: &'a str,
    line: u32,
    message: &'a str,
}

impl fmt::Display for GlslDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

pub(super) fn glsl_error(file: &str, line: u32, message: String, log: String) -> CompileError {
    CompileError::Glsl {
        file: file.to_string(),
        line,
        message,
        log,
    }
}

/// Picks the first `file:line: error: ...` out of a shaderc log.
pub(super) fn parse_log(display: &str, log: &str) -> CompileError {
    for l in log.lines() {
        let Some(idx) = l.find(": error: ") else {
            continue;
        };
        let prefix = &l[..idx];
        let message = l[idx + 2..].trim().to_string();
        if let Some((file, line)) = prefix.rsplit_once(':') {
            if let Ok(line) = line.trim().parse::<u32>() {
                return glsl_error(file, line, message, log.to_string());
            }
        }
        let file = if prefix.is_empty() { display } else { prefix };
        return glsl_error(file, 0, message, log.to_string());
    }
    // No recognisable error line: still show something rather than an empty message.
    let message = log
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("shaderc reported an error")
        .trim()
        .to_string();
    glsl_error(display, 0, message, log.to_string())
}
