#version 450
// Peak calibration: transcendental (special-function unit) throughput: CHAINS independent
// chains per thread of x <- exp2(x * m), m = -1 / pc.one from push constants, ITERS iterations.
// x = 2^-x has one fixed point, 0.6411857..., and the map contracts (|slope| 0.44), so every
// chain converges to it within 32 iterations from any start in [0, 1]. The self-check allows
// 1e-4 relative: hardware exp2 is an approximation, and rounding can leave a chain a few ulps
// from the fixed point.
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
    float m = -1.0 / float(pc.one);
    float x[CHAINS];
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        x[k] = float((gl_LocalInvocationIndex + uint(k)) % 64u) / 64.0;
    }
    for (uint i = 0; i < pc.iters; ++i) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            x[k] = exp2(x[k] * m);
        }
    }
    float s = 0.0;
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        s += x[k];
    }
    peak_result(gl_GlobalInvocationID.x, s, 0.64118574 * float(CHAINS), 1e-4);
}
