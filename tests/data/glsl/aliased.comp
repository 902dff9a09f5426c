#version 450
// Test shader (issue 40): two blocks at one binding, as llama.cpp reads `data_a` and
// `data_a_packed16` through the same descriptor: b[i] = a[i] + a2[i / 2].x (a2 sees a as vec2s).
layout(local_size_x = 32) in;

layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 0, std430) readonly buffer A2 { vec2 a2[]; };
layout(set = 0, binding = 1, std430) buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < pc.n) {
        b[i] = a[i] + a2[i / 2].x;
    }
}
