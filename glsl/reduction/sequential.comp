#version 450
// Ladder step 2: sequential addressing. Step s adds m[GI + s] into m[GI] for GI < s: the
// active invocations are contiguous and read contiguous words (no bank conflicts). A workgroup
// barrier after every step, as in the article.
#include "p3lab.glsl"
#include "tile.glsl"

shared float m[N];

void main() {
    p3_probe_record();
    uint gi = gl_LocalInvocationIndex;
    m[gi] = prefetch_luminance();
    barrier();
    for (uint s = N / 2; s > 0; s >>= 1) {
        if (gi < s) {
            m[gi] += m[gi + s];
        }
        barrier();
    }
    if (gi == 0) {
        write_group_result(m[0]);
    }
}
