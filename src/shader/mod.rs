//! GLSL → SPIR-V through shaderc, with includes, defines, an on-disk cache, and reflection.
mod cache;
pub mod compile;
pub mod reflect;

pub use compile::{
    default_cache_dir, CacheStats, CompileError, CompileRequest, Compiler, OptLevel,
};
pub use reflect::{reflect, Binding, DescriptorKind, Reflection};
