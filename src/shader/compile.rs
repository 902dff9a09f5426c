//! Compute shaders → SPIR-V: GLSL and HLSL via shaderc (with include resolution and a
//! content-addressed cache), SPIR-V binaries as they are and SPIR-V assembly through
//! SPIRV-Tools, every one validated before it goes further. What is asked and how it can fail
//! (the request, the optimisation level, the errors) is in request.rs.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::cache::{read_cached, spirv_words, write_atomically};
use super::includes::{collect_includes, resolve_include, Dep, MAX_INCLUDE_DEPTH};
use super::request::{glsl_error, parse_log};
pub use super::request::{CompileError, CompileRequest, OptLevel, SourceKind};

/// Counters for one [`Compiler`]'s lifetime.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct CacheStats {
    /// shaderc invocations (failed ones included).
    pub compiles: u64,
    /// Requests served from memory or disk.
    pub cache_hits: u64,
    /// Wall time spent inside shaderc only.
    pub compile_ns: u64,
    /// Requests that failed: shaderc errors and SPIR-V the validator refused.
    pub errors: u64,
}

/// Compiles compute shaders (GLSL and HLSL through shaderc; SPIR-V assembly through
/// SPIRV-Tools; a SPIR-V binary as it is), remembering results in memory and (optionally) on disk.
pub struct Compiler {
    inner: shaderc::Compiler,
    cache_dir: Option<PathBuf>,
    memory: HashMap<[u8; 32], Arc<Vec<u32>>>,
    stats: CacheStats,
    version: String,
}

impl fmt::Debug for Compiler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compiler")
            .field("cache_dir", &self.cache_dir)
            .field("cached_in_memory", &self.memory.len())
            .field("stats", &self.stats)
            .field("version", &self.version)
            .finish()
    }
}

/// Where the SPIR-V cache lives unless the caller says otherwise.
pub fn default_cache_dir() -> PathBuf {
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = non_empty("P3LAB_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = non_empty("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("p3lab").join("spirv");
    }
    if let Some(d) = non_empty("HOME") {
        return PathBuf::from(d).join(".cache").join("p3lab").join("spirv");
    }
    PathBuf::from(".p3lab-cache").join("spirv")
}

/// A folder of p3lab's other caches (`assets`, `refs`): beside the SPIR-V cache
/// (~/.cache/p3lab/NAME), or inside `$P3LAB_CACHE_DIR` when that is set.
pub fn beside_spirv_cache(name: &str) -> PathBuf {
    let spirv = default_cache_dir();
    match spirv.parent() {
        Some(p) if std::env::var_os("P3LAB_CACHE_DIR").is_none_or(|v| v.is_empty()) => p.join(name),
        _ => spirv.join(name),
    }
}

impl Compiler {
    /// `cache_dir` `None` disables the on-disk cache.
    pub fn new(cache_dir: Option<PathBuf>) -> anyhow::Result<Self> {
        let inner = shaderc::Compiler::new()
            .map_err(|e| anyhow::anyhow!("cannot initialise shaderc: {e}"))?;
        let version = probe_version(&inner)?;
        if let Some(dir) = &cache_dir {
            std::fs::create_dir_all(dir).map_err(|e| {
                anyhow::anyhow!("cannot create shader cache dir {}: {e}", dir.display())
            })?;
        }
        Ok(Self {
            inner,
            cache_dir,
            memory: HashMap::new(),
            stats: CacheStats::default(),
            version,
        })
    }

    /// A copy of the counters so far (run.json `compile_cache`).
    pub fn stats(&self) -> CacheStats {
        self.stats.clone()
    }

    /// Identifies the compiler build; part of every cache key.
    pub fn compiler_version(&self) -> String {
        self.version.clone()
    }

    /// The SPIR-V of `req`: a `.spv` file validated, a `.spvasm` file assembled and validated, GLSL
    /// or HLSL compiled by shaderc (from the memory or disk cache when the same source, includes,
    /// defines and options were compiled before).
    pub fn compile(&mut self, req: &CompileRequest) -> Result<Arc<Vec<u32>>, CompileError> {
        let display = req.path.to_string_lossy().into_owned();
        let io = |e: std::io::Error| CompileError::Io {
            path: display.clone(),
            message: e.to_string(),
        };
        match SourceKind::of(&req.path) {
            SourceKind::Spirv => {
                let bytes = std::fs::read(&req.path).map_err(io)?;
                let words =
                    spirv_words(&bytes).map_err(|m| glsl_error(&display, 0, m.clone(), m))?;
                self.checked_binary(&display, words)
            }
            SourceKind::SpirvAsm => {
                let text = std::fs::read_to_string(&req.path).map_err(io)?;
                let words = crate::vk::spirv_tools::assemble(&text).map_err(|m| {
                    let line = m
                        .strip_prefix("line ")
                        .and_then(|r| r.split(',').next())
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                    let msg = format!("SPIR-V assembly: {m}");
                    glsl_error(&display, line, msg.clone(), msg)
                })?;
                self.checked_binary(&display, words)
            }
            SourceKind::Glsl | SourceKind::Hlsl => {
                let source = std::fs::read_to_string(&req.path).map_err(io)?;
                self.compile_text(req, source)
            }
        }
    }

    /// A module p3lab did not compile: validated (Vulkan 1.3 rules) before anything else
    /// reads it; the driver never sees one the validator refuses.
    fn checked_binary(
        &mut self,
        shown: &str,
        words: Vec<u32>,
    ) -> Result<Arc<Vec<u32>>, CompileError> {
        if let Err(m) = crate::vk::spirv_tools::validate(&words) {
            self.stats.errors += 1;
            let msg = format!("not a valid SPIR-V module: {m}");
            return Err(glsl_error(shown, 0, msg.clone(), msg));
        }
        Ok(Arc::new(words))
    }

    /// As [`Compiler::compile`] with the source given (p3lab's own shaders, built into the
    /// binary); `req.path` only names it in errors and includes.
    pub fn compile_text(
        &mut self,
        req: &CompileRequest,
        source: String,
    ) -> Result<Arc<Vec<u32>>, CompileError> {
        let display = req.path.to_string_lossy().into_owned();
        let source = if req.wrap_groups && SourceKind::of(&req.path) == SourceKind::Glsl {
            wrap_groups(&source)
        } else {
            source
        };
        let key = self.cache_key(req, &display, &source);

        if let Some(words) = self.memory.get(&key) {
            self.stats.cache_hits += 1;
            return Ok(Arc::clone(words));
        }
        let cache_file = self
            .cache_dir
            .as_ref()
            .map(|d| d.join(format!("{}.spv", hex(&key))));
        if let Some(words) = cache_file.as_deref().and_then(read_cached) {
            self.stats.cache_hits += 1;
            let words = Arc::new(words);
            self.memory.insert(key, Arc::clone(&words));
            return Ok(words);
        }

        let words = match self.run_shaderc(req, &display, &source) {
            Ok(w) => Arc::new(w),
            Err(e) => {
                self.stats.errors += 1;
                return Err(e);
            }
        };
        if let Some(file) = &cache_file {
            if let Err(e) = write_atomically(file, &words) {
                // A read-only or full cache only costs speed, so it must not fail the run.
                tracing::warn!("cannot write SPIR-V cache {}: {e}", file.display());
            }
        }
        self.memory.insert(key, Arc::clone(&words));
        Ok(words)
    }

    fn run_shaderc(
        &mut self,
        req: &CompileRequest,
        shown: &str,
        source: &str,
    ) -> Result<Vec<u32>, CompileError> {
        // Without `#version` glslang compiles as GLSL ES 1.00, fails to parse its own compute
        // built-ins and prints all ~4,500 lines of them to stdout before the one-line error.
        let kind = SourceKind::of(&req.path);
        if kind == SourceKind::Glsl && !has_version_line(source) {
            let message = "error: no `#version` line: a compute shader must begin with \
                           `#version 450` (or newer)"
                .to_string();
            return Err(glsl_error(shown, 1, message.clone(), message));
        }
        let mut options =
            base_options().map_err(|message| glsl_error(shown, 0, message.clone(), message))?;
        options.set_optimization_level(req.opt.to_shaderc());
        if kind == SourceKind::Hlsl {
            options.set_source_language(shaderc::SourceLanguage::HLSL);
            // register(tN/uN/bN, spaceM) -> binding N of set M, as a D3D root signature
            // would lay them out; [[vk::binding(N, M)]] wins where given.
            options.set_hlsl_io_mapping(true);
            // A Texture2D becomes a combined image sampler (its sampler objects are dropped):
            // p3lab binds sampled images that way for every language.
            options.set_auto_combined_image_sampler(true);
            // glslang's HLSL front end still decorates structured buffers `BufferBlock`,
            // which SPIR-V 1.4 removed: target 1.3 (Vulkan 1.3 takes it as it is).
            options.set_target_spirv(shaderc::SpirvVersion::V1_3);
        }
        for (name, value) in &req.defines {
            options.add_macro_definition(name, (!value.is_empty()).then_some(value.as_str()));
        }
        let include_dirs = req.include_dirs.clone();
        options.set_include_callback(move |requested, _kind, requesting, depth| {
            // A file that includes itself (directly or around a loop) would recurse until memory
            // runs out: stop at a depth no real shader reaches.
            if depth > MAX_INCLUDE_DEPTH {
                return Err(format!(
                    "`#include \"{requested}\"` in {requesting} is nested more than {MAX_INCLUDE_DEPTH} deep: does a file include itself (add an include guard)?"
                ));
            }
            resolve_include(requested, requesting, &include_dirs)
                .and_then(|p| {
                    let content = std::fs::read_to_string(&p)
                        .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
                    Ok(shaderc::ResolvedInclude {
                        resolved_name: p.to_string_lossy().into_owned(),
                        content,
                    })
                })
                .map_err(|e| {
                    if e.is_empty() {
                        format!("cannot find include file `{requested}`")
                    } else {
                        e
                    }
                })
        });

        let start = Instant::now();
        let result = self.inner.compile_into_spirv(
            source,
            shaderc::ShaderKind::Compute,
            shown,
            &req.entry_point,
            Some(&options),
        );
        self.stats.compile_ns += u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.stats.compiles += 1;

        match result {
            Ok(artifact) => {
                if artifact.get_num_warnings() > 0 {
                    tracing::debug!(
                        "{}: shaderc warnings:\n{}",
                        shown,
                        artifact.get_warning_messages()
                    );
                }
                Ok(artifact.as_binary().to_vec())
            }
            Err(shaderc::Error::CompilationError(_, log)) => Err(parse_log(shown, &log)),
            Err(e) => {
                let log = e.to_string();
                Err(glsl_error(shown, 0, log.clone(), log))
            }
        }
    }

    fn cache_key(&self, req: &CompileRequest, display: &str, source: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        // Length-prefixing every field keeps distinct inputs from hashing to the same byte stream.
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(b"p3lab-spirv-cache-v2");
        field(env!("CARGO_PKG_VERSION").as_bytes());
        field(self.version.as_bytes());
        field(SourceKind::of(&req.path).label().as_bytes());
        field(source.as_bytes());
        for dep in collect_includes(display, source, &req.include_dirs) {
            match dep {
                Dep::Found(name, content) => {
                    field(b"found");
                    field(name.as_bytes());
                    field(content.as_bytes());
                }
                Dep::Missing(name) => {
                    field(b"missing");
                    field(name.as_bytes());
                }
            }
        }
        field(b"defines");
        for (name, value) in &req.defines {
            field(name.as_bytes());
            field(value.as_bytes());
        }
        field(req.opt.as_str().as_bytes());
        field(req.entry_point.as_bytes());
        h.finalize().into()
    }
}

/// The per-subgroup probe around a shader's `main`: after `#version`, `main` is renamed to
/// `p3_user_main`; at the end a new `main` records each subgroup's start (`p3_wrap_begin`),
/// calls it, and records each subgroup's end when it returns (`p3_wrap_end`; invocations that
/// returned early get there too). `#line` keeps error messages on the shader's own lines. A shader that calls `p3_group_begin`
/// itself (to record a remapped group) is left as it is.
pub fn wrap_groups(source: &str) -> String {
    if source.contains("p3_group_begin") {
        return source.to_string();
    }
    // The #version line, if any, must stay first.
    let mut head = String::new();
    let mut body = source;
    let mut line = 1usize;
    for (i, l) in source.split_inclusive('\n').enumerate() {
        if l.trim_start().starts_with("#version") {
            let end: usize = source.split_inclusive('\n').take(i + 1).map(str::len).sum();
            head = source[..end].to_string();
            if !head.ends_with('\n') {
                head.push('\n');
            }
            body = &source[end..];
            line = i + 2;
            break;
        }
    }
    format!(
        "{head}#define main p3_user_main\n#line {line}\n{body}\n\
         #undef main\n\
         #include \"p3lab.glsl\"\n\
         void main() {{ p3_wrap_begin(); p3_user_main(); p3_wrap_end(); }}\n"
    )
}

fn base_options<'a>() -> Result<shaderc::CompileOptions<'a>, String> {
    let mut options = shaderc::CompileOptions::new().map_err(|e| e.to_string())?;
    options.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_3 as u32,
    );
    options.set_target_spirv(shaderc::SpirvVersion::V1_6);
    options.set_source_language(shaderc::SourceLanguage::GLSL);
    Ok(options)
}

/// shaderc exposes no glslang version, so compile a fixed probe and fingerprint its output:
/// any change in the compiler's code generation changes the fingerprint and thus every cache key.
fn probe_version(inner: &shaderc::Compiler) -> anyhow::Result<String> {
    const PROBE: &str = "#version 450\n\
        layout(local_size_x = 64) in;\n\
        layout(std430, binding = 0) buffer B { float v[]; };\n\
        void main() { uint i = gl_GlobalInvocationID.x; v[i] = sqrt(v[i]) * 2.0 + float(i); }\n";
    let mut options = base_options().map_err(|e| anyhow::anyhow!(e))?;
    options.set_optimization_level(shaderc::OptimizationLevel::Performance);
    let artifact = inner
        .compile_into_spirv(
            PROBE,
            shaderc::ShaderKind::Compute,
            "p3lab-probe.comp",
            "main",
            Some(&options),
        )
        .map_err(|e| anyhow::anyhow!("shaderc cannot compile its probe shader: {e}"))?;
    let words = artifact.as_binary();
    let generator = words.get(2).copied().unwrap_or(0);
    let mut h = Sha256::new();
    for w in words {
        h.update(w.to_le_bytes());
    }
    let digest = h.finalize();
    let (spv, rev) = shaderc::get_spirv_version();
    Ok(format!(
        "shaderc-rs 0.10 / spirv {}.{} rev {} / generator {:#010x} / probe {}",
        (spv >> 16) & 0xff,
        (spv >> 8) & 0xff,
        rev,
        generator,
        &hex(&digest)[..16]
    ))
}

/// Whether the source has a `#version` directive (a line that is `#`, optional blanks, then
/// `version`).
fn has_version_line(source: &str) -> bool {
    source.lines().any(|l| {
        l.trim_start()
            .strip_prefix('#')
            .is_some_and(|rest| rest.trim_start().starts_with("version"))
    })
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
#[path = "compile_tests.rs"]
mod tests;
