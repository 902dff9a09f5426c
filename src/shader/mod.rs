//! GLSL → SPIR-V through shaderc, with includes, defines, an on-disk cache, and reflection.
