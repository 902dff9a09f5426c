#version 450
// Peak calibration: shared-memory bandwidth. Each thread reads and writes vec4s of a
// workgroup-sized shared array with a conflict-free (consecutive) pattern, ITERS times.
#include "p3lab.glsl"

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 2, std430) writeonly buffer Sink { float sink[]; };
layout(push_constant) uniform P { uint iters; } pc;

// Two halves, read from one and written to the other each step, so no thread writes a slot
// another thread reads in the same step (no data race between barriers).
shared vec4 tile[2][gl_WorkGroupSize.x];

void main() {
    p3_probe_record();
    uint t = gl_LocalInvocationIndex;
    uint n = gl_WorkGroupSize.x;
    tile[0][t] = vec4(float(t));
    barrier();
    vec4 acc = vec4(0.0);
    for (uint i = 0; i < pc.iters; ++i) {
        // Read a neighbour's slot and write our own: one 16-byte read and write per thread.
        vec4 v = tile[i & 1u][(t + i) % n];
        acc += v;
        tile[(i + 1u) & 1u][t] = v + acc;
        barrier();
    }
    if (acc.x == 1234567.0) {
        sink[gl_GlobalInvocationID.x] = acc.y;
    }
}
