#version 450
// 64 floats of shared memory per invocation: 256 bytes x the workgroup size, so a 256-wide
// workgroup needs 64 KiB (over lavapipe's 32 KiB and the H200's 48 KiB), a 32-wide one 8 KiB.
#include "p3lab.glsl"
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) readonly buffer A { float a[]; };
layout(set = 0, binding = 1, std430) buffer B { float b[]; };
layout(push_constant) uniform P { uint n; } pc;
shared float s[gl_WorkGroupSize.x * 64];
void main() {
    p3_probe_record();
    uint l = gl_LocalInvocationID.x;
    uint i = gl_GlobalInvocationID.x;
    for (uint k = 0; k < 64; k++) s[l * 64 + k] = i < pc.n ? a[i] : 0.0;
    barrier();
    if (i < pc.n) b[i] = s[((l + 1) % gl_WorkGroupSize.x) * 64] * 3.0;
}
