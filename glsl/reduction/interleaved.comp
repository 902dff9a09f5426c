#version 450
// Ladder step 1: interleaved addressing (Harris' first kernel, the article's first shader).
// Step s adds m[2*s*GI + s] into m[2*s*GI]: the active invocations are spread out, and their
// shared-memory addresses are 2*s words apart, so they collide in the same banks as s grows.
// A workgroup barrier after every step, as in the article.
#include "p3lab.glsl"
#include "tile.glsl"

shared float m[N];

void main() {
    p3_probe_record();
    uint gi = gl_LocalInvocationIndex;
    m[gi] = prefetch_luminance();
    barrier();
    for (uint s = 1; s < N; s *= 2) {
        uint index = 2 * s * gi;
        if (index < N) {
            m[index] += m[index + s];
        }
        barrier();
    }
    if (gi == 0) {
        write_group_result(m[0]);
    }
}
