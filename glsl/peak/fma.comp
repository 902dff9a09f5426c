#version 450
// Peak calibration: FP32 (or FP16 with HALF) fused multiply-add throughput. CHAINS independent
// accumulators per thread hide the FMA latency; ITERS iterations of CHAINS FMAs each.
#include "p3lab.glsl"
#extension GL_EXT_control_flow_attributes : require
#ifdef HALF
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define T f16vec2
#define S float16_t
#else
#define T float
#define S float
#endif

layout(local_size_x_id = 0) in;
layout(set = 0, binding = 2, std430) writeonly buffer Sink { float sink[]; };
layout(push_constant) uniform P { uint iters; } pc;

#ifndef CHAINS
#define CHAINS 8
#endif

void main() {
    p3_probe_record();
    T a[CHAINS];
    T m = T(S(1.0001));
    T c = T(S(0.0001));
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        a[k] = T(S(float(gl_LocalInvocationIndex + k)));
    }
    for (uint i = 0; i < pc.iters; ++i) {
        [[unroll]] for (int k = 0; k < CHAINS; ++k) {
            a[k] = fma(a[k], m, c);
        }
    }
    T s = T(S(0.0));
    [[unroll]] for (int k = 0; k < CHAINS; ++k) {
        s += a[k];
    }
#ifdef HALF
    float r = float(s.x) + float(s.y);
#else
    float r = s;
#endif
    if (r == 1234567.0) {
        sink[gl_GlobalInvocationID.x] = r;
    }
}
