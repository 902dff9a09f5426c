#version 450
// Peak calibration: global (L2) atomic throughput. Each thread adds pc.one (1) to its own
// 32-bit counter ITERS times with atomicAdd, result unused (a reduction in the L2, no return
// trip); a warp's 32 lanes hit 32 consecutive counters. The counters (4 bytes per thread)
// stay in the L2. The self-check is the counter buffer itself: every counter must end at
// ITERS * inc (CPU reference `peak_atomic`).
#include "p3lab.glsl"

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0, std430) buffer Counters { uint counters[]; };
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

void main() {
    p3_probe_record();
    uint id = gl_GlobalInvocationID.x;
    for (uint i = 0; i < pc.iters; ++i) {
        atomicAdd(counters[id], pc.one);
    }
}
