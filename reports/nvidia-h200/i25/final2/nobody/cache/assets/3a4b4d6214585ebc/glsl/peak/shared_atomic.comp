#version 450
// Peak calibration: shared-memory atomic throughput. Each thread adds pc.one (1) to its own
// slot of a shared counter array ITERS times with atomicAdd (no two lanes on one address, so
// this is the atomic unit's rate, not contention). The self-check: every counter ends at
// ITERS * inc (glsl/peak/result.glsl).
#include "p3lab.glsl"
#include "result.glsl"

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

shared uint counters[gl_WorkGroupSize.x];

void main() {
    p3_probe_record();
    uint t = gl_LocalInvocationIndex;
    counters[t] = 0u;
    barrier();
    for (uint i = 0; i < pc.iters; ++i) {
        atomicAdd(counters[(t + i * 32u) % gl_WorkGroupSize.x], pc.one);
    }
    barrier();
    peak_result_u(gl_GlobalInvocationID.x, counters[t], pc.iters * pc.one);
}
