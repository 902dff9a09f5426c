#version 450
// Peak calibration: shared-memory atomic throughput. Each thread adds pc.one (1) to its own
// slot of a shared counter array ITERS times with atomicAdd (no two lanes on one address, so
// this is the atomic unit's rate, not contention). The self-check: every thread's slots end
// at ITERS * inc in all (glsl/peak/result.glsl).
//
//   U   atomics per loop iteration (1 by default), each on its own counter array, so the
//       arrays' offsets sit in the instructions and U atomics are in flight per thread
//       (ITERS a multiple of U)
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require

#ifndef U
#define U 1
#endif

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

shared uint counters[U][gl_WorkGroupSize.x];

void main() {
    p3_probe_record();
    uint t = gl_LocalInvocationIndex;
    [[unroll]] for (uint u = 0; u < U; ++u) {
        counters[u][t] = 0u;
    }
    barrier();
    for (uint i = 0; i < pc.iters; i += U) {
        uint slot = (t + i * 32u) % gl_WorkGroupSize.x;
        [[unroll]] for (uint u = 0; u < U; ++u) {
            atomicAdd(counters[u][slot], pc.one);
        }
    }
    barrier();
    uint sum = 0u;
    [[unroll]] for (uint u = 0; u < U; ++u) {
        sum += counters[u][t];
    }
    peak_result_u(gl_GlobalInvocationID.x, sum, pc.iters * pc.one);
}
