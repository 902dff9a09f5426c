#version 450
// Test shader (issue 40): b = 3a with a's element type T (the matrix key: f32 or f16), as a
// project reads A in f32 or f16 through one binding.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require

#define f32 float
#define f16 float16_t
#ifndef T
#define T f32
#endif

layout(local_size_x = 64) in;

layout(set = 0, binding = 0, std430) readonly buffer A { T a[]; };
layout(set = 0, binding = 1, std430) buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) {
        b[i] = 3.0 * float(a[i]);
    }
}
