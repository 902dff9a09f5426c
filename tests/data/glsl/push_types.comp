#version 450
// Test shader (issue 40): writes every member of a typed push-constant block back, as the bit
// patterns the shader sees (f16 widened to f32, 64-bit values as two words, low first).
#extension GL_EXT_shader_explicit_arithmetic_types : require

layout(local_size_x = 1) in;

layout(set = 0, binding = 0, std430) buffer Out { uint o[]; };

layout(push_constant) uniform P {
    uint n;          // 0
    int neg;         // 4
    float scale;     // 8
    float16_t h;     // 12
    uint64_t big;    // 16
    int64_t sneg;    // 24
    vec3 v;          // 32
    uvec2 u2;        // 48
    f16vec2 h2;      // 56
    double d;        // 64
    ivec4 i4;        // 80
} pc;

void main() {
    o[0] = pc.n;
    o[1] = uint(pc.neg);
    o[2] = floatBitsToUint(pc.scale);
    o[3] = floatBitsToUint(float(pc.h));
    o[4] = uint(pc.big);
    o[5] = uint(pc.big >> 32);
    o[6] = uint(pc.sneg);
    o[7] = uint(uint64_t(pc.sneg) >> 32);
    o[8] = floatBitsToUint(pc.v.x);
    o[9] = floatBitsToUint(pc.v.y);
    o[10] = floatBitsToUint(pc.v.z);
    o[11] = pc.u2.x;
    o[12] = pc.u2.y;
    o[13] = floatBitsToUint(float(pc.h2.x));
    o[14] = floatBitsToUint(float(pc.h2.y));
    o[15] = floatBitsToUint(float(pc.d));
    o[16] = uint(pc.i4.x);
    o[17] = uint(pc.i4.y);
    o[18] = uint(pc.i4.z);
    o[19] = uint(pc.i4.w);
}
