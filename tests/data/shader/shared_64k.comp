#version 450
// A fixed 64 KiB shared array (over lavapipe's 32 KiB and the H200's 48 KiB).
#include "p3lab.glsl"
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;
shared float big[16384];
void main() {
    p3_probe_record();
    uint l = gl_LocalInvocationID.x;
    uint i = gl_GlobalInvocationID.x;
    for (uint k = l; k < 16384; k += gl_WorkGroupSize.x) big[k] = i < pc.n ? a[i] : 0.0;
    barrier();
    if (i < pc.n) b[i] = big[16383 - l] * 3.0;
}
