#version 450
// Test shader (issue 40): writes a uniform block's members back as bit patterns (f16 widened
// to f32, 64-bit values as two words, low first); tests/data/hlsl/uniform_block.hlsl is the
// same through a cbuffer and $Global.
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 1) in;

layout(set = 0, binding = 3, std430) buffer Out { uint o[]; };

layout(set = 0, binding = 0) uniform G {
    uint g_n;        // 0
} g;

layout(set = 0, binding = 1) uniform U {
    float alpha;     // 0
    uint n;          // 4
    vec4 tint;       // 16
    float16_t h;     // 32
    int64_t big;     // 40
} u;

void main() {
    o[0] = floatBitsToUint(u.alpha);
    o[1] = u.n;
    o[2] = floatBitsToUint(u.tint.x);
    o[3] = floatBitsToUint(u.tint.y);
    o[4] = floatBitsToUint(u.tint.z);
    o[5] = floatBitsToUint(u.tint.w);
    o[6] = floatBitsToUint(float(u.h));
    o[7] = uint(u.big);
    o[8] = uint(uint64_t(u.big) >> 32);
    o[9] = g.g_n;
}
