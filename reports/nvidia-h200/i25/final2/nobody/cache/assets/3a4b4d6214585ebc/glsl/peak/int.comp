#version 450
// Peak calibration: int32 multiply-add throughput. CHAINS independent chains per thread,
// x <- x * a + b with a = pc.one (1) and b = pc.two (2) from push constants, ITERS iterations. Each
// chain starts at id * 7 + k * 1000003, so after the loop x_k - k * 1000003 must equal
// id * 7 + iters * 2 (wrapping) for every chain: the self-check (glsl/peak/result.glsl).
#include "p3lab.glsl"
#include "result.glsl"
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint iters; uint one; uint two; } pc;

#ifndef CHAINS
#define CHAINS 8
#endif

void main() {
    p3_probe_record();
    uint id = gl_GlobalInvocationID.x;
    uint x[CHAINS];
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        x[k] = id * 7u + uint(k) * 1000003u;
    }
    for (uint i = 0; i < pc.iters; ++i) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            x[k] = x[k] * pc.one + pc.two;
        }
    }
    uint r = x[0];
    [[unroll]] for (int k = 1; k < CHAINS; ++k) {
        r = min(r, x[k] - uint(k) * 1000003u);
    }
    peak_result_u(id, r, id * 7u + pc.iters * pc.two);
}
