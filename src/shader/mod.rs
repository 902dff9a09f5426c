//! GLSL and HLSL → SPIR-V through shaderc (SPIR-V binaries and assembly too), with includes, defines, an on-disk cache, and reflection.
mod cache;
pub mod compile;
mod includes;
pub mod instrument;
pub mod reflect;
mod request;
pub mod spec_text;

pub use compile::{
    beside_spirv_cache, default_cache_dir, CacheStats, CompileError, CompileRequest, Compiler,
    OptLevel, SourceKind,
};
pub use reflect::{reflect, Binding, DescriptorKind, Reflection};
