#version 450
// Peak calibration: L1 (per-SM cache) read bandwidth. Each workgroup reads a WINDOW-vec4
// window (16 KiB at 1024) of a small buffer over and over: after the first pass the window is
// in the SM's L1, so the loads measure the L1, not the L2. UNROLL independent loads per
// thread in flight; ITERS loads per thread.
//
// Every element is 1.0 (init constant), so the sum of the loaded components must be exactly
// 4 x the loads: the self-check (glsl/peak/result.glsl).
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) readonly buffer Src { vec4 src[]; };
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

#ifndef WINDOW
#define WINDOW 1024
#endif
#ifndef UNROLL
#define UNROLL 4
#endif

void main() {
    p3_probe_record();
    uint t = gl_LocalInvocationIndex;
    vec4 acc[UNROLL];
    [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
        acc[u] = vec4(0.0);
    }
    for (uint i = 0; i < pc.iters; i += UNROLL) {
        [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
            // The stride comes from a push constant (97: odd, so every slot of the window is
            // visited): a compiler that knew it could see the index repeat and hoist the loads.
            acc[u] += src[(t + (i + u) * pc.two) % WINDOW];
        }
    }
    vec4 s = vec4(0.0);
    [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
        s += acc[u];
    }
    uint loads = (pc.iters + UNROLL - 1u) / UNROLL * UNROLL;
    peak_result(gl_GlobalInvocationID.x, s.x + s.y + s.z + s.w, 4.0 * float(loads), 0.0);
}
