#version 450
// Peak calibration: shared-memory bandwidth. Each thread reads a neighbour's vec4 of a
// workgroup-sized shared array and writes its own (conflict-free, consecutive), ITERS times:
// one 16-byte read and one 16-byte write per thread per iteration.
//
// Every slot starts at pc.one (1) and every write stores the value just read, so every read
// returns 1.0 and the sum of the reads is exactly ITERS: the self-check
// (glsl/peak/result.glsl). The compiler cannot know the values, so it keeps every access.
#include "p3lab.glsl"
#include "result.glsl"

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

// Two halves, read from one and written to the other each step, so no thread writes a slot
// another thread reads in the same step (no data race between barriers).
shared vec4 tile[2][gl_WorkGroupSize.x];

void main() {
    p3_probe_record();
    uint t = gl_LocalInvocationIndex;
    uint n = gl_WorkGroupSize.x;
    tile[0][t] = vec4(float(pc.one));
    barrier();
    vec4 acc = vec4(0.0);
    for (uint i = 0; i < pc.iters; ++i) {
        vec4 v = tile[i & 1u][(t + i) % n];
        acc += v;
        tile[(i + 1u) & 1u][t] = v;
        barrier();
    }
    peak_result(gl_GlobalInvocationID.x, acc.x + acc.y + acc.z + acc.w, 4.0 * float(pc.iters), 0.0);
}
